// An answer asked at once and again every `everyMs` while the page is visible (at once when it
// shows again): the last answer stays shown while the next is asked and when asking fails, so a
// refresh never blanks the page.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { errorText } from "../api";

/** The last answer (null until the first), why the last ask failed ("" when it did not), and
 * when the last answer came (ms since the epoch; 0 before the first). */
export interface Polled<T> {
  data: T | null;
  error: string;
  at: number;
  /** Asks again now. */
  reload: () => void;
}

/** Asks `fetch` now and every `everyMs` while the document is visible. */
export function usePolled<T>(fetch: () => Promise<T>, everyMs: number): Polled<T> {
  const [state, setState] = useState<{ data: T | null; error: string; at: number }>({ data: null, error: "", at: 0 });
  const fetcher = useRef(fetch);
  fetcher.current = fetch;
  // Answers to asks made before the page went away, or older than one already shown, are dropped.
  const asked = useRef(0);
  const gone = useRef(false);

  const load = useCallback(async () => {
    const n = ++asked.current;
    try {
      const data = await fetcher.current();
      if (!gone.current && n === asked.current) setState({ data, error: "", at: Date.now() });
    } catch (e) {
      if (!gone.current && n === asked.current) setState((s) => ({ ...s, error: errorText(e) }));
    }
  }, []);

  useEffect(() => {
    gone.current = false;
    let timer: ReturnType<typeof setInterval> | undefined;
    const start = () => {
      if (timer !== undefined) return;
      void load();
      timer = setInterval(() => void load(), everyMs);
    };
    const pause = () => {
      clearInterval(timer);
      timer = undefined;
    };
    const changed = () => (document.visibilityState === "visible" ? start() : pause());
    changed();
    document.addEventListener("visibilitychange", changed);
    return () => {
      gone.current = true;
      pause();
      document.removeEventListener("visibilitychange", changed);
    };
  }, [everyMs]);

  return { ...state, reload: () => void load() };
}
