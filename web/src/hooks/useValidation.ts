// The server's validator on a file as it is edited (a task file, or an action of the library): one
// request 400 ms after the last change, answers to older texts dropped.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api";
import type { ValidationReport } from "../types";

/** What the editor shows about the text's validity. */
export interface Validation {
  /** The text as it is now (what the next answer will be for). */
  text: string;
  /** The answer for the newest text checked (null before the first) … */
  report: ValidationReport | null;
  /** … and that text. */
  checked: string | null;
  /** A request is pending or under way for the current text. */
  checking: boolean;
  /** The server could not be asked. */
  error: string;
}

/** Validates a task file `text` (for `device`'s kind; library mode on request), debounced. */
export function useValidation(text: string, device: string | undefined, library = false, delayMs = 400): Validation {
  return useCheck(text, `${device ?? ""}\n${library}`, (t) => api.validateTask(t, device, library), delayMs);
}

/** Checks `text` with `check` 400 ms after its last change (or a change of `key`, what else the
 * check depends on), debounced. */
export function useCheck(text: string, key: string, check: (text: string) => Promise<ValidationReport>, delayMs = 400): Validation {
  const [state, setState] = useState<Omit<Validation, "text">>({ report: null, checked: null, checking: true, error: "" });
  const latest = useRef(0);
  const checker = useRef(check);
  checker.current = check;
  useEffect(() => {
    const n = ++latest.current;
    setState((s) => ({ ...s, checking: true }));
    const t = setTimeout(() => {
      checker
        .current(text)
        .then((report) => {
          if (latest.current === n) setState({ report, checked: text, checking: false, error: "" });
        })
        .catch((e) => {
          if (latest.current === n) setState((s) => ({ ...s, checking: false, error: errorText(e) }));
        });
    }, delayMs);
    return () => clearTimeout(t);
  }, [text, key]);
  return { ...state, text };
}
