// Saving a file being edited (a task file, an action, designer mode's draft): the problems shown —
// a refused request's, until the validator answers for a newer text, else the validator's —, the
// banner with the server's words, what the last save said, and whether a save is under way.
import { useEffect, useState } from "preact/hooks";
import { ApiError, errorText } from "../api";
import { NO_ISSUES, type Issues } from "../components/steps/issues";
import type { Validation } from "./useValidation";

/** The state of the file's saves, over its `validation`. */
export function useFileSave(validation: Validation) {
  const [refused, setRefused] = useState<Issues | null>(null);
  const [banner, setBanner] = useState("");
  const [notice, setNotice] = useState("");
  const [saving, setSaving] = useState(false);
  useEffect(() => setRefused(null), [validation.report]);
  const issues: Issues = refused ?? validation.report ?? NO_ISSUES;

  /** The server refused the file (or failed): its words in the banner, its problems at their
   * paths. */
  const refuse = (e: unknown) => {
    const found = e instanceof ApiError ? e.issues : null;
    if (found) setRefused(found);
    setBanner(errorText(e));
  };

  /** Runs `work` (which answers what to say once saved), unless a save is under way. */
  const save = async (work: () => Promise<string>) => {
    if (saving) return;
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
  return { issues, banner, setBanner, notice, saving, save, refuse, setRefused };
}
