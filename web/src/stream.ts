// Following a run's event stream (an agent run's or a task run's: the same SSE envelope).
// EventSource reconnects by itself and sends Last-Event-ID, so a dropped connection resumes where
// it stopped; an error never ends the run view. Only when the browser gives up (the server refused
// the stream) do we ask for the run's state and, if it still runs, open a new stream after the
// last event we saw.
import { api, errorText, streamUrl, taskRunStreamUrl } from "./api";
import { EVENT_TYPES, type AgentEvent, type RunInfo, type TaskRunDetail } from "./types";

/** A subscription; `close` ends it. */
export interface Subscription {
  close(): void;
}

/** Callbacks of a subscription; `I` is what the server says about the run when asked. */
export interface StreamHandlers<I = RunInfo> {
  /** Every event, in order (replays included: the caller skips what it has seen). */
  onEvent(ev: AgentEvent): void;
  /** The connection state, for a small indicator. */
  onConnection?(state: "live" | "reconnecting"): void;
  /** The run cannot be followed any more (e.g. unknown run id). */
  onFatal?(message: string): void;
  /** The run ended without this page seeing its `done` (the server has nothing more to send). */
  onEnded?(info: I): void;
}

/** Where a run's events come from, and how to ask whether it still runs. */
export interface StreamSource<I> {
  /** The stream's URL. */
  url: string;
  /** The run's state: whether it runs, and the newest event the server has. */
  check(): Promise<{ running: boolean; lastSeq: number; info: I }>;
}

/** A run's stream at `url`; `get` asks the server for the run (its status and newest seq). */
function sourceOf<I extends { status: string; last_seq: number }>(url: string, get: () => Promise<I>): StreamSource<I> {
  return {
    url,
    check: async () => {
      const info = await get();
      return { running: info.status === "running", lastSeq: info.last_seq, info };
    },
  };
}

/** An agent run's stream. */
export function agentRunSource(runId: string): StreamSource<RunInfo> {
  return sourceOf(streamUrl(runId), () => api.run(runId));
}

/** A task run's stream. */
export function taskRunSource(runId: string): StreamSource<TaskRunDetail> {
  return sourceOf(taskRunStreamUrl(runId), () => api.taskRun(runId));
}

/** Follows an agent run `runId` from the event after `afterSeq` (0: from the start). */
export function subscribe(runId: string, afterSeq: number, h: StreamHandlers<RunInfo>): Subscription {
  return subscribeTo(agentRunSource(runId), afterSeq, h);
}

/** Follows the run of `source` from the event after `afterSeq` (0: from the start). */
export function subscribeTo<I>(source: StreamSource<I>, afterSeq: number, h: StreamHandlers<I>): Subscription {
  let es: EventSource | null = null;
  let closed = false;
  let lastSeq = afterSeq;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const open = () => {
    if (closed) return;
    const sep = source.url.includes("?") ? "&" : "?";
    const url = lastSeq > 0 ? `${source.url}${sep}after=${lastSeq}` : source.url;
    es = new EventSource(url, { withCredentials: true });
    es.onopen = () => h.onConnection?.("live");
    es.onerror = () => {
      if (closed) return;
      h.onConnection?.("reconnecting");
      if (es && es.readyState === EventSource.CLOSED) {
        // The browser gave up on this URL: check the run and try again after the last event.
        es = null;
        retry = setTimeout(recover, 1500);
      }
    };
    for (const type of EVENT_TYPES) {
      es.addEventListener(type, (e) => {
        const me = e as MessageEvent<string>;
        let ev: AgentEvent;
        try {
          ev = JSON.parse(me.data) as AgentEvent;
        } catch {
          return;
        }
        if (typeof ev.seq !== "number") ev = { ...ev, seq: Number(me.lastEventId) || lastSeq + 1 };
        if (!ev.type) (ev as { type: string }).type = type;
        if (ev.seq > lastSeq) lastSeq = ev.seq;
        h.onEvent(ev);
        if (ev.type === "done") close();
      });
    }
  };

  const recover = async () => {
    if (closed) return;
    try {
      const state = await source.check();
      if (!state.running && state.lastSeq <= lastSeq) {
        // The server answers 204 to a finished stream we have read to the end.
        close();
        h.onEnded?.(state.info);
        return;
      }
      open();
    } catch (e) {
      const status = (e as { status?: number }).status;
      if (status === 404) {
        h.onFatal?.(errorText(e));
        close();
      } else {
        retry = setTimeout(recover, 3000);
      }
    }
  };

  const close = () => {
    closed = true;
    if (retry) clearTimeout(retry);
    es?.close();
    es = null;
  };

  open();
  return { close };
}
