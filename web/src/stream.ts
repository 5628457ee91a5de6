// Following a run's event stream. EventSource reconnects by itself and sends Last-Event-ID, so a
// dropped connection resumes where it stopped; an error never ends the run view. Only when the
// browser gives up (the server refused the stream) do we ask for the run's state and, if it still
// runs, open a new stream after the last event we saw.
import { api, errorText, streamUrl } from "./api";
import { EVENT_TYPES, type AgentEvent, type RunInfo } from "./types";

/** A subscription; `close` ends it. */
export interface Subscription {
  close(): void;
}

/** Callbacks of a subscription. */
export interface StreamHandlers {
  /** Every event, in order (replays included: the caller skips what it has seen). */
  onEvent(ev: AgentEvent): void;
  /** The connection state, for a small indicator. */
  onConnection?(state: "live" | "reconnecting"): void;
  /** The run cannot be followed any more (e.g. unknown run id). */
  onFatal?(message: string): void;
  /** The run ended without this page seeing its `done` (the server has nothing more to send). */
  onEnded?(info: RunInfo): void;
}

/** Follows `runId` from the event after `afterSeq` (0: from the start). */
export function subscribe(runId: string, afterSeq: number, h: StreamHandlers): Subscription {
  let es: EventSource | null = null;
  let closed = false;
  let lastSeq = afterSeq;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const open = () => {
    if (closed) return;
    const url = lastSeq > 0 ? `${streamUrl(runId)}&after=${lastSeq}` : streamUrl(runId);
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
      const info = await api.run(runId);
      if (info.status !== "running" && info.last_seq <= lastSeq) {
        // The server answers 204 to a finished stream we have read to the end.
        close();
        h.onEnded?.(info);
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
