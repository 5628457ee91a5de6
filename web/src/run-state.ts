// The live view of one run, built from its events. Pure: `applyEvent` returns a new state, and an
// event at or below `lastSeq` (a replay after a reconnect) changes nothing.
import type { AgentEvent, DraftIssue, MemoryNote, RunMode, RunStatus, StepSummary, TypedResult, Usage } from "./types";

/** What a step card shows. */
export interface StepView {
  call_id: string;
  tool: string;
  args: unknown;
  /** running → success | failure | skipped; `waiting` while a confirm is open; `denied` after no. */
  status: "running" | "waiting" | "success" | "failure" | "skipped" | "denied" | string;
  duration_ms?: number;
  effect?: string | null;
  image_ids: string[];
  /** The tool's result (success) or error text (failure), for the expanded card. */
  detail?: string;
  /** The open question, while it waits; kept after the answer to show it. */
  confirm?: { reason: string; answer?: boolean };
}

/** The assistant message of a run, as it streams. */
export interface RunView {
  runId: string;
  conversation: string;
  device: string;
  prompt: string;
  /** A chat, or designer mode. */
  mode: RunMode;
  status: RunStatus;
  content: string;
  /** The reasoning of every model call, each call's a paragraph of its own. */
  reasoning: string;
  /** A model call ended (its `usage` came) since the last reasoning. */
  callEnded: boolean;
  steps: StepView[];
  usage: Usage | null;
  errors: string[];
  /** The memory's cards: recalled at the start (events), saved / merged / dropped after `done`. */
  memory: MemoryNote[];
  lastSeq: number;
  /** Designer mode, once done: the validated task file, with its warnings … */
  draft?: unknown;
  warnings?: DraftIssue[];
  /** … or why there is none. */
  draftError?: string;
  /** A run with an output schema, once done: its typed result. */
  output?: TypedResult;
}

/** A fresh view of a run that has not sent anything yet. */
export function newRunView(runId: string, conversation: string, device: string, prompt: string, mode: RunMode = "chat"): RunView {
  return {
    runId,
    conversation,
    device,
    prompt,
    mode,
    status: "running",
    content: "",
    reasoning: "",
    callEnded: false,
    steps: [],
    usage: null,
    errors: [],
    memory: [],
    lastSeq: 0,
  };
}

/** What `text` (the reasoning so far) lacks of ending in a blank line; nothing before the first
 * call's reasoning. */
export function paragraphBreak(text: string): string {
  return text === "" || text.endsWith("\n\n") ? "" : text.endsWith("\n") ? "\n" : "\n\n";
}

function upsertStep(steps: StepView[], callId: string, f: (s: StepView | undefined) => StepView): StepView[] {
  const i = steps.findIndex((s) => s.call_id === callId);
  if (i < 0) return [...steps, f(undefined)];
  const next = steps.slice();
  next[i] = f(steps[i]);
  return next;
}

function resultText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

/** A tool call's `step_start` or `step` folded into the step cards (a task run's tool calls too). */
export function foldToolStep(
  steps: StepView[],
  ev: Extract<AgentEvent, { type: "step_start" }> | Extract<AgentEvent, { type: "step" }>,
): StepView[] {
  if (ev.type === "step_start") {
    return upsertStep(steps, ev.call_id, (s) => ({
      ...(s ?? { image_ids: [], status: "running" }),
      call_id: ev.call_id,
      tool: ev.tool,
      args: ev.args,
    }));
  }
  const res = ev.result ?? {};
  return upsertStep(steps, ev.call_id, (s) => ({
    ...(s ?? {}),
    call_id: ev.call_id,
    tool: ev.tool,
    args: ev.args,
    status: s?.status === "denied" ? "denied" : (res.status ?? "success"),
    duration_ms: ev.duration_ms,
    effect: ev.effect ?? null,
    image_ids: ev.image_ids ?? [],
    detail: res.status === "success" || res.status === undefined ? resultText(res.result) : (res.error ?? resultText(res.result)),
  }));
}

/** Applies one event. */
export function applyEvent(run: RunView, ev: AgentEvent): RunView {
  if (ev.seq <= run.lastSeq) return run;
  const r: RunView = { ...run, lastSeq: ev.seq };
  switch (ev.type) {
    case "delta":
      if (ev.kind === "reasoning") {
        // The next model call's reasoning starts a paragraph of its own ("…first.\n\nI have …"),
        // as the stored message keeps it.
        r.reasoning = run.reasoning + (run.callEnded ? paragraphBreak(run.reasoning) : "") + ev.text;
        r.callEnded = false;
      } else r.content = run.content + ev.text;
      return r;
    case "step_start":
    case "step":
      r.steps = foldToolStep(run.steps, ev);
      return r;
    case "usage":
      r.callEnded = true;
      r.usage = {
        prompt_tokens: ev.prompt_tokens,
        completion_tokens: ev.completion_tokens,
        total_tokens: ev.total_tokens,
        calls: ev.calls,
      };
      return r;
    case "confirm":
      r.steps = upsertStep(run.steps, ev.call_id, (s) => ({
        ...(s ?? { image_ids: [] }),
        call_id: ev.call_id,
        tool: ev.tool,
        args: ev.args,
        status: "waiting",
        confirm: { reason: ev.reason },
      }));
      return r;
    case "confirmed":
      r.steps = upsertStep(run.steps, ev.call_id, (s) => ({
        ...(s ?? { call_id: ev.call_id, tool: "", args: {}, image_ids: [] }),
        status: ev.approve ? (s?.status === "waiting" ? "running" : (s?.status ?? "running")) : "denied",
        confirm: { reason: s?.confirm?.reason ?? "", answer: ev.approve },
      }));
      return r;
    case "task_step_start":
    case "task_step":
    case "task_step_retry":
    case "task_round":
      // A task run's own step events; a chat run never has them, and the tool calls they make
      // arrive as step events of their own.
      return r;
    case "memory":
      r.memory = [...run.memory, { kind: ev.kind, outcome: ev.outcome, items: ev.items, note: ev.note }];
      return r;
    case "error":
      r.errors = [...run.errors, ev.message];
      return r;
    case "done":
      r.status = ev.status;
      r.usage = ev.usage ?? run.usage;
      // A failed run's answer is its error, shown already from its `error` event: not twice.
      if (ev.answer && !run.content.trim() && !run.errors.includes(ev.answer)) r.content = ev.answer;
      if (ev.draft !== undefined && ev.draft !== null) {
        r.draft = ev.draft;
        r.warnings = ev.warnings ?? [];
      }
      if (ev.draft_error) r.draftError = ev.draft_error;
      if (ev.output) r.output = ev.output;
      r.steps = run.steps.map((s) =>
        s.status === "running" || s.status === "waiting" ? { ...s, status: ev.status === "stopped" ? "stopped" : "skipped" } : s,
      );
      return r;
  }
}

/** The run's cards once the server has stored them (after `done`): they replace the ones the
 * events brought when they hold at least as many. */
export function withStoredMemory(run: RunView, stored: MemoryNote[]): RunView {
  return stored.length >= run.memory.length ? { ...run, memory: stored } : run;
}

/** A stored step as a card. */
export function storedStepView(s: StepSummary): StepView {
  return {
    call_id: s.call_id,
    tool: s.tool,
    args: s.args,
    status: s.status ?? "success",
    duration_ms: s.duration_ms,
    effect: s.effect ?? null,
    image_ids: s.image_ids ?? [],
  };
}
