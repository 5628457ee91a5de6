// One task run followed: its record (reloaded at its end) and its event stream folded by the pure
// task-run state from the first event (so a reload mid-run picks it up where it is), the elapsed
// time ticking while it runs, and Stop. The run page and designer mode's "try it" share it.
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { subscribeTo, taskRunSource } from "../stream";
import { applyTaskEvent, newTaskRunState, type TaskRunState } from "../task-run-state";
import type { TaskRunDetail } from "../types";

/** Follows task run `runId` (none: nothing). */
export function useTaskRun(runId: string | null) {
  const [run, setRun] = useState<TaskRunDetail | null>(null);
  const [state, setState] = useState<TaskRunState>(newTaskRunState);
  const [connection, setConnection] = useState<"live" | "reconnecting">("live");
  const [error, setError] = useState("");
  const [stopping, setStopping] = useState(false);
  const [, tick] = useState(0);

  useEffect(() => {
    setRun(null);
    setState(newTaskRunState());
    setStopping(false);
    setError("");
    if (!runId) return;
    let gone = false;
    const reload = async () => {
      try {
        const r = await api.taskRun(runId);
        if (!gone) setRun(r);
      } catch (e) {
        if (!gone) setError(errorText(e));
      }
    };
    void reload();
    const sub = subscribeTo(taskRunSource(runId), 0, {
      onEvent: (ev) => {
        setState((s) => applyTaskEvent(s, ev));
        if (ev.type === "done") void reload();
      },
      onConnection: setConnection,
      onFatal: (m) => setError(`Lost the run's event stream: ${m}`),
      onEnded: (info) => setRun(info),
    });
    return () => {
      gone = true;
      sub.close();
    };
  }, [runId]);

  const runningNow = run?.status === "running" && !state.done;
  // The elapsed time ticks while it runs.
  useEffect(() => {
    if (!runningNow) return;
    const t = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(t);
  }, [runningNow]);

  /** Asks the server to stop the run. */
  const stop = async () => {
    if (!runId) return;
    setStopping(true);
    try {
      await api.stopTaskRun(runId);
    } catch (e) {
      setError(errorText(e));
      setStopping(false);
    }
  };

  return { run, state, connection, error, setError, stopping, stop, runningNow };
}
