// The server's validator on a task file as it is edited: one request 400 ms after the last change,
// answers to older texts dropped.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api";
import type { ValidationReport } from "../types";

/** What the editor shows about the text's validity. */
export interface Validation {
  /** The answer for the newest text checked (null before the first). */
  report: ValidationReport | null;
  /** A request is pending or under way for the current text. */
  checking: boolean;
  /** The server could not be asked. */
  error: string;
}

/** Validates `text` (for `device`'s kind; library mode on request), debounced. */
export function useValidation(text: string, device: string | undefined, library = false, delayMs = 400): Validation {
  const [state, setState] = useState<Validation>({ report: null, checking: true, error: "" });
  const latest = useRef(0);
  useEffect(() => {
    const n = ++latest.current;
    setState((s) => ({ ...s, checking: true }));
    const t = setTimeout(() => {
      api
        .validateTask(text, device, library)
        .then((report) => {
          if (latest.current === n) setState({ report, checking: false, error: "" });
        })
        .catch((e) => {
          if (latest.current === n) setState((s) => ({ ...s, checking: false, error: errorText(e) }));
        });
    }, delayMs);
    return () => clearTimeout(t);
  }, [text, device, library]);
  return state;
}
