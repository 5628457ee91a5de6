// Saving a file being edited (a task file, an action, designer mode's draft): the problems shown —
// a refused request's, until the validator answers for a newer text, else the validator's —, the
// banner with the server's words (until then too), what the last save said, and whether a save is
// under way.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, errorText } from "../api";
import { NO_ISSUES, type Issues } from "../components/steps/issues";
import type { Validation } from "./useValidation";

/** The state of the file's saves, over its `validation`. `blank`: the file is a new one still as it
 * started (nothing typed) — its problems ("the name is empty") wait until the person types or
 * saves, and `idle` says so. */
export function useFileSave(validation: Validation, blank = false) {
  const [refused, setRefused] = useState<Issues | null>(null);
  const [banner, setBanner] = useState("");
  const [notice, setNotice] = useState("");
  const [saving, setSaving] = useState(false);
  const [tried, setTried] = useState(false);
  const idle = blank && !tried;
  // The text a save was refused for: the validator's answer for that same text (one still on its
  // way when the person pressed Save) changes nothing.
  const refusedText = useRef<string | null>(null);
  // The validator answered for another text: a refused save's problems and words are history (a
  // banner "the task is invalid" must not stand beside "✓ valid").
  useEffect(() => {
    if (validation.checked === null || validation.checked === refusedText.current) return;
    refusedText.current = null;
    setRefused(null);
    setBanner("");
  }, [validation.report]);
  const issues: Issues = refused ?? (idle ? NO_ISSUES : (validation.report ?? NO_ISSUES));

  /** The server refused the file (or failed): its words in the banner, its problems at their
   * paths. */
  const refuse = (e: unknown) => {
    refusedText.current = validation.text;
    const found = e instanceof ApiError ? e.issues : null;
    if (found) setRefused(found);
    setBanner(errorText(e));
  };

  /** Runs `work` (which answers what to say once saved), unless a save is under way. */
  const save = async (work: () => Promise<string>) => {
    if (saving) return;
    setTried(true);
    setSaving(true);
    setBanner("");
    setNotice("");
    try {
      setNotice(await work());
    } catch (e) {
      refuse(e);
    } finally {
      setSaving(false);
    }
  };
  return { issues, idle, banner, setBanner, notice, saving, save, refuse, setRefused };
}
