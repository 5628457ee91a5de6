// A form's submission, or any work a dialog asks the server for: busy while the server works, the
// error text when it refuses.
import { useState } from "preact/hooks";
import { errorText } from "../api";

/** `submit(work)` clears the error and marks the form busy, then runs `work`; if it throws, the form
 * shows the error and is free again. On success it stays busy: its page or dialog goes away.
 * `run(work)` is the same but free again afterwards either way (a dialog that stays). `setError`
 * is for the form's own checks before anything is sent. */
export function useSubmit() {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const go = async (work: () => Promise<void>, stay: boolean) => {
    setBusy(true);
    setError("");
    try {
      await work();
      if (!stay) setBusy(false);
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  const submit = (work: () => Promise<void>) => go(work, true);
  const run = (work: () => Promise<void>) => go(work, false);
  return { error, setError, busy, submit, run };
}
