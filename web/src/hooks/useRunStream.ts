// The followed run of one page's mode (the chat's, or designer mode's): its event stream folded by
// the pure run-state, stop, approvals, runs from elsewhere — and the run of the other mode while it
// holds the one run slot they share, so the page can say so and hold its send button.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { approvalsChanged } from "../pending-approval";
import { applyEvent, newRunView, type RunView, withStoredMemory } from "../run-state";
import { subscribe, type Subscription } from "../stream";
import type { RunInfo, RunMode } from "../types";

/** Enough of a run to follow it from its first event. */
export type RunStart = Pick<RunInfo, "run_id" | "conversation" | "device" | "prompt"> & { mode?: RunMode };

/** The run the server is running now, if any (none when it cannot be asked). */
export async function runningRun(): Promise<RunInfo | null> {
  try {
    const a = await api.activeRun();
    return a.run && a.run.status === "running" ? a.run : null;
  } catch {
    return null;
  }
}

/** What the console does on the hook's behalf. */
export interface RunStreamHandlers {
  /** The runs this page shows; a run of the other mode is only watched, as `other`. */
  mode: RunMode;
  /** The run ended (its `done`, or the server says it is over): refresh what it changed. */
  onFinished(view: RunView): Promise<void>;
  /** Shows what went wrong. */
  onError(message: string): void;
}

/** The followed run. Its view stays after it ends (it holds step results the store does not keep)
 * until the next run replaces it. */
export function useRunStream(handlers: RunStreamHandlers) {
  const [run, setRun] = useState<RunView | null>(null);
  const [stopping, setStopping] = useState(false);
  const [connection, setConnection] = useState<"live" | "reconnecting">("live");
  const [other, setOther] = useState<RunInfo | null>(null);
  const sub = useRef<Subscription | null>(null);
  const otherSub = useRef<Subscription | null>(null);
  const on = useRef(handlers);
  on.current = handlers;

  /** After `done`: the cards of what distilling saved, merged or dropped, as the server stores
   * them (it distils after `done`, never before; a couple of minutes at most). */
  const followMemory = useCallback(async (runId: string) => {
    for (let i = 0; i < 80; i++) {
      let info: RunInfo;
      try {
        info = await api.run(runId);
      } catch {
        return;
      }
      setRun((r) => (r && r.runId === runId ? withStoredMemory(r, info.memory ?? []) : r));
      if (!info.distilling && i > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
  }, []);

  const finished = useCallback(
    async (view: RunView) => {
      setStopping(false);
      void followMemory(view.runId);
      await on.current.onFinished(view);
    },
    [followMemory],
  );

  /** Follows a run from its first event, in place of the one followed so far. */
  const follow = useCallback(
    (start: RunStart) => {
      const view = newRunView(start.run_id, start.conversation, start.device, start.prompt, start.mode ?? on.current.mode);
      sub.current?.close();
      setRun(view);
      setConnection("live");
      sub.current = subscribe(view.runId, 0, {
        onEvent: (ev) => {
          setRun((r) => (r && r.runId === view.runId ? applyEvent(r, ev) : r));
          if (ev.type === "confirm" || ev.type === "confirmed" || ev.type === "done") approvalsChanged();
          if (ev.type === "done") void finished(view);
        },
        onConnection: setConnection,
        onFatal: (msg) => on.current.onError(`Lost the run's event stream: ${msg}`),
        onEnded: (info) => {
          setRun((r) => (r && r.runId === view.runId ? { ...r, status: info.status } : r));
          void finished(view);
        },
      });
    },
    [finished],
  );

  /** Watches a run of the other mode until it ends: only its `done` matters here. */
  const watchOther = useCallback((info: RunInfo) => {
    otherSub.current?.close();
    setOther(info);
    const gone = () => setOther((o) => (o && o.run_id === info.run_id ? null : o));
    otherSub.current = subscribe(info.run_id, info.last_seq, {
      onEvent: (ev) => {
        if (ev.type === "confirm" || ev.type === "confirmed" || ev.type === "done") approvalsChanged();
        if (ev.type === "done") gone();
      },
      onFatal: gone,
      onEnded: gone,
    });
  }, []);

  /** Takes up the run that holds the slot (on the first load, or found later): follows it when it
   * is of this page's mode, else watches it as `other`. */
  const adopt = useCallback(
    (info: RunInfo | null) => {
      if (!info) return;
      if (info.mode === on.current.mode) follow(info);
      else watchOther(info);
    },
    [follow, watchOther],
  );

  /** Stops following (logging out, leaving the page). */
  const close = useCallback(() => {
    sub.current?.close();
    otherSub.current?.close();
  }, []);
  useEffect(() => close, [close]);

  const active = run !== null && run.status === "running";

  // A run started elsewhere (another tab, the other page, the CLI) is picked up every 8 s.
  useEffect(() => {
    const t = setInterval(() => {
      if (active || other) return;
      void runningRun().then((r) => {
        if (r && r.run_id !== run?.runId) adopt(r);
      });
    }, 8000);
    return () => clearInterval(t);
  }, [active, other, run?.runId, adopt]);

  /** Asks the server to stop the run. */
  const stop = async () => {
    if (!run) return;
    setStopping(true);
    try {
      await api.stop(run.runId);
    } catch (e) {
      setStopping(false);
      on.current.onError(errorText(e));
    }
  };

  /** Approves or denies the step the run waits on. */
  const answer = async (callId: string, approve: boolean) => {
    if (!run) return;
    try {
      await api.confirm(run.runId, callId, approve);
    } catch (e) {
      on.current.onError(errorText(e));
    }
    approvalsChanged();
  };

  return { run, active, stopping, connection, other, follow, adopt, close, stop, answer };
}
