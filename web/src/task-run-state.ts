// A task run as its events tell it: each task step (`task_step_start` … `task_step`) with the tool
// calls it made in between, the step running now, and the end. Pure, like run-state: an event at
// or below `lastSeq` (a replay after a reconnect or a reload) changes nothing.
import { foldToolStep, type StepView } from "./run-state";
import type { AgentEvent, DoneStatus, MatchedControl, TaskRound, TaskRunStep, TaskStepResult, TaskStepRetry } from "./types";

/** One executed task step. */
export interface TaskStepView {
  /** Unique in the run (a loop's rounds share a path). */
  key: string;
  path: string;
  step_type: string;
  note?: string | null;
  status: "running" | "ok" | "failed" | "skipped" | "stopped";
  duration_ms?: number;
  /** The control its selector picked: its value shows when it has no name, its tie note when
   * several controls matched equally. */
  matched?: MatchedControl | null;
  /** The selector as written, when only the fuzzy retry found the control. */
  healed_from?: string | null;
  error?: string | null;
  message?: string | null;
  /** Images the step kept (a screenshot at a failure). */
  image_ids: string[];
  /** The tool calls it made. */
  tools: StepView[];
  /** Its failed attempts that `retry` tried again, in order. */
  retries?: Pick<TaskStepRetry, "attempt" | "attempts" | "error" | "delay_ms">[];
  /** A `for_each`'s rounds so far, each with its variables. */
  rounds?: Pick<TaskRound, "round" | "rounds" | "values">[];
}

/** The mark of each step status. */
export const STEP_ICON: Record<string, string> = { running: "◌", ok: "✓", failed: "✕", skipped: "–", stopped: "■" };

/** What a task run's page shows. */
export interface TaskRunState {
  lastSeq: number;
  steps: TaskStepView[];
  /** The index in `steps` of the step under way. */
  current: number | null;
  /** Tool calls outside any task step. */
  looseTools: StepView[];
  errors: string[];
  done: { status: DoneStatus; answer: string } | null;
}

/** A run nothing has been heard of yet. */
export function newTaskRunState(): TaskRunState {
  return { lastSeq: 0, steps: [], current: null, looseTools: [], errors: [], done: null };
}

/** Applies one event. */
export function applyTaskEvent(state: TaskRunState, ev: AgentEvent): TaskRunState {
  if (ev.seq <= state.lastSeq) return state;
  const s: TaskRunState = { ...state, lastSeq: ev.seq };
  switch (ev.type) {
    case "task_step_start": {
      const step: TaskStepView = {
        key: `${ev.path}@${ev.seq}`,
        path: ev.path,
        step_type: ev.step_type,
        note: ev.note,
        status: "running",
        image_ids: [],
        tools: [],
      };
      s.steps = [...state.steps, step];
      s.current = s.steps.length - 1;
      return s;
    }
    case "task_step": {
      const i = state.current !== null && state.steps[state.current]?.path === ev.path ? state.current : -1;
      const before = i >= 0 ? state.steps[i] : undefined;
      const step: TaskStepView = {
        key: before?.key ?? `${ev.path}@${ev.seq}`,
        path: ev.path,
        step_type: ev.step_type,
        note: before?.note,
        status: ev.status,
        duration_ms: ev.duration_ms,
        matched: ev.matched,
        healed_from: ev.healed_from,
        error: ev.error,
        message: ev.message,
        image_ids: ev.image_ids ?? [],
        tools: before?.tools ?? [],
        retries: before?.retries,
        rounds: before?.rounds,
      };
      s.steps = i >= 0 ? state.steps.map((x, j) => (j === i ? step : x)) : [...state.steps, step];
      // A group, loop or if_el ends after its sub-steps: the step under way is its parent again.
      s.current = innermostRunning(s.steps);
      return s;
    }
    case "task_step_retry": {
      const { attempt, attempts, error, delay_ms } = ev;
      s.steps = updateRunning(state.steps, ev.path, (x) => ({ ...x, retries: [...(x.retries ?? []), { attempt, attempts, error, delay_ms }] }));
      return s;
    }
    case "task_round": {
      const { round, rounds, values } = ev;
      s.steps = updateRunning(state.steps, ev.path, (x) => ({ ...x, rounds: [...(x.rounds ?? []), { round, rounds, values }] }));
      return s;
    }
    case "step_start":
    case "step": {
      const i = state.current;
      if (i === null) {
        s.looseTools = foldToolStep(state.looseTools, ev);
        return s;
      }
      s.steps = state.steps.map((x, j) => (j === i ? { ...x, tools: foldToolStep(x.tools, ev) } : x));
      return s;
    }
    case "error":
      s.errors = [...state.errors, ev.message];
      return s;
    case "done":
      s.done = { status: ev.status, answer: ev.answer };
      s.current = null;
      s.steps = state.steps.map((x) =>
        x.status === "running" ? { ...x, status: ev.status === "stopped" ? "stopped" : "skipped" } : x,
      );
      return s;
    default:
      return s;
  }
}

/** `steps` with the last running step at `path` changed by `f` (none there: unchanged). */
function updateRunning(steps: TaskStepView[], path: string, f: (s: TaskStepView) => TaskStepView): TaskStepView[] {
  for (let i = steps.length - 1; i >= 0; i--) {
    if (steps[i].path === path && steps[i].status === "running") return steps.map((x, j) => (j === i ? f(x) : x));
  }
  return steps;
}

/** The last step still running (the innermost of nested ones), if any. */
function innermostRunning(steps: TaskStepView[]): number | null {
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i].status === "running") return i;
  return null;
}

/** A stored step row as a step view (when the run's events are not available). */
export function storedTaskStep(r: TaskRunStep): TaskStepView {
  return {
    key: `${r.path}#${r.seq}`,
    path: r.path,
    step_type: r.step_type,
    status: r.status,
    duration_ms: r.duration_ms,
    matched: r.matched ?? null,
    healed_from: healedText(r.healed_from),
    error: r.error ?? null,
    message: r.message ?? null,
    image_ids: imageIdsOf(r),
    tools: [],
  };
}

/** Each step's result by its path (the latest, for a step a loop ran more than once): what a step
 * editor shows on its cards. */
export function resultsByPath(steps: TaskStepView[]): ReadonlyMap<string, TaskStepView> {
  return new Map(steps.map((s) => [s.path, s]));
}

/** A step result an action's try answered, as a step view (`i`: its place in the answer). */
export function resultStep(r: TaskStepResult, i: number): TaskStepView {
  return {
    key: `${r.path}#${i}`,
    path: r.path,
    step_type: r.step_type,
    status: r.status,
    duration_ms: r.duration_ms,
    matched: r.matched ?? null,
    healed_from: r.healed_from ?? null,
    error: r.error ?? null,
    message: r.message ?? null,
    image_ids: r.image_ids ?? [],
    tools: [],
  };
}

/** A stored `healed_from` (the selector as written, as JSON) as text. */
function healedText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** Image ids of a stored step row, when the server lists them. */
function imageIdsOf(r: TaskRunStep): string[] {
  const ids = (r as { image_ids?: unknown }).image_ids;
  return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === "string") : [];
}

/** How deep a path is nested (`steps[1]` 0, `steps[1].then[0]` 1). */
export function depthOf(path: string): number {
  return (path.replace(/#\d+$/, "").match(/\]\./g) ?? []).length;
}
