// A form's submission: busy while the server works, the error text when it refuses.
import { useState } from "preact/hooks";
import { errorText } from "../api";

/** `submit(work)` clears the error and marks the form busy, then runs `work`; if it throws, the form
 * shows the error and is free again. On success it stays busy: its page or dialog goes away.
 * `setError` is for the form's own checks before anything is sent. */
export function useSubmit() {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (work: () => Promise<void>) => {
    setBusy(true);
    setError("");
    try {
      await work();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return { error, setError, busy, submit };
}
