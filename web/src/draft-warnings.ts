// A designer draft's warnings kept with what they are about while a person edits the draft.
// The server lists them once, at the paths of the drafted file (`steps[4].selector`: a selector no
// control matched during the exploration — the validator cannot say that again, only the run saw
// the screens). Each is pinned to the step object and the value it names; after edits it shows at
// the path where that step or value now is (moved, nested, a note changed), and goes away once the
// value itself was changed (the person fixed it) or removed, or once a try ran its step as written
// (`provenByTry`). Pure.
import { splitPath } from "./components/steps/issues";
import type { DraftIssue, Issue } from "./types";

/** A warning and what it is about in the drafted file. */
export interface PinnedWarning {
  issue: DraftIssue;
  /** The step it belongs to (null: a field of the file). */
  step: unknown;
  /** The field inside that step it names (`selector`, `""` the step itself). */
  field: string;
  /** The value at its path when drafted. */
  value: unknown;
}

type Segment = string | number;

/** `steps[4].then[0].selector.text` → ["steps", 4, "then", 0, "selector", "text"]. */
export function pathSegments(path: string): Segment[] {
  const out: Segment[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]);
  return out;
}

/** The value at `segs` inside `v` (undefined where it is not). */
function valueAt(v: unknown, segs: Segment[]): unknown {
  let at = v;
  for (const s of segs) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string, unknown>)[s as string];
  }
  return at;
}

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** Pins each warning of `draft` to what it names. */
export function pinWarnings(draft: unknown, warnings: DraftIssue[]): PinnedWarning[] {
  return warnings.map((issue) => {
    const { step, field } = splitPath(issue.path);
    const stepValue = step ? valueAt(draft, pathSegments(step)) : null;
    return { issue, step: stepValue, field: step ? field : issue.path, value: valueAt(draft, pathSegments(issue.path)) };
  });
}

/** Every step of a task file with its path (`steps[1].then[0]`), nested ones included. */
function* stepsOf(list: unknown, path: string): Generator<[string, unknown]> {
  if (!Array.isArray(list)) return;
  for (let i = 0; i < list.length; i++) {
    const s: unknown = list[i];
    const here = `${path}[${i}]`;
    yield [here, s];
    if (typeof s === "object" && s !== null) {
      const o = s as Record<string, unknown>;
      for (const key of ["steps", "then", "else"]) yield* stepsOf(o[key], `${here}.${key}`);
    }
  }
}

/** Where a pinned warning stands in `current`: the path of its step (null: a field of the file)
 * and its own path; undefined when what it named was changed or removed. */
function placeOf(current: unknown, steps: [string, unknown][], p: PinnedWarning): { step: string | null; path: string } | undefined {
  if (p.step === null) {
    return same(valueAt(current, pathSegments(p.issue.path)), p.value) ? { step: null, path: p.issue.path } : undefined;
  }
  const fieldSegs = pathSegments(p.field);
  const stillThere = (s: unknown) => same(valueAt(s, fieldSegs), p.value);
  // The same step object (moved, or untouched), else one holding the very value (the step was
  // edited elsewhere), else an equal value at the drafted path (the file was re-parsed).
  const found =
    steps.find(([, s]) => s === p.step && stillThere(s)) ??
    (typeof p.value === "object" && p.value !== null ? steps.find(([, s]) => valueAt(s, fieldSegs) === p.value) : undefined) ??
    steps.find(([path, s]) => path === splitPath(p.issue.path).step && stillThere(s));
  return found && { step: found[0], path: p.field ? `${found[0]}.${p.field}` : found[0] };
}

/** The pinned warnings that still apply to `current`, each at its path there. */
export function placeWarnings(current: unknown, pinned: PinnedWarning[]): Issue[] {
  const steps = [...stepsOf(valueAt(current, ["steps"]), "steps")];
  return pinned.flatMap((p) => {
    const at = placeOf(current, steps, p);
    return at ? [{ path: at.path, message: p.issue.message }] : [];
  });
}

/** The pinned warnings a try of `current` proved wrong: the step each names ran ok, its control
 * found as written (not healed) — the selector the exploration never saw match does match. */
export function provenByTry(current: unknown, pinned: PinnedWarning[], results: ReadonlyMap<string, { status: string; healed_from?: string | null }>): PinnedWarning[] {
  const steps = [...stepsOf(valueAt(current, ["steps"]), "steps")];
  return pinned.filter((p) => {
    const at = placeOf(current, steps, p);
    const result = at?.step ? results.get(at.step) : undefined;
    return result?.status === "ok" && !result.healed_from;
  });
}

/** Two lists of warnings as one, each path and message once. */
export function mergeIssues(a: Issue[], b: Issue[]): Issue[] {
  const seen = new Set<string>();
  return [...a, ...b].filter((i) => {
    const k = `${i.path}\n${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
