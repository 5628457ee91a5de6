// The validator's problems placed where they belong: its paths (`steps[3].then[0].selector.text`)
// name a step (`steps[3].then[0]`) and a field inside it (`selector.text`); a path that names no
// step (`name`, `variables.region`, `""`) belongs to the task file.
import type { Issue } from "../../types";

/** Errors and warnings, as the validator lists them. */
export interface Issues {
  errors: Issue[];
  warnings: Issue[];
}

/** No problems. */
export const NO_ISSUES: Issues = { errors: [], warnings: [] };

const STEP_PATH = /^((?:steps)\[\d+\](?:\.(?:steps|then|else)\[\d+\])*)(.*)$/;

/** The step a path names and the field inside it (`""`: the step itself); `step` is null for a
 * path outside the steps. */
export function splitPath(path: string): { step: string | null; field: string } {
  const m = STEP_PATH.exec(path);
  if (!m) return { step: null, field: path };
  return { step: m[1], field: m[2].replace(/^\./, "") };
}

/** One problem with its severity. */
export interface Found extends Issue {
  severity: "error" | "warning";
  /** The field inside the step (`selector.text`), `""` for the step as a whole. */
  field: string;
}

/** Every problem with its severity and where it belongs. */
function found(issues: Issues): (Found & { step: string | null })[] {
  const tag = (severity: Found["severity"]) => (i: Issue) => ({ ...i, severity, ...splitPath(i.path) });
  return [...issues.errors.map(tag("error")), ...issues.warnings.map(tag("warning"))];
}

/** The problems of the step at `path` itself (not of its sub-steps). */
export function issuesAt(issues: Issues, path: string): Found[] {
  return found(issues).filter((f) => f.step === path);
}

/** How many errors and warnings the sub-steps of the step at `path` have. */
export function nestedCounts(issues: Issues, path: string): { errors: number; warnings: number } {
  const inside = (i: Issue) => {
    const s = splitPath(i.path).step;
    return s !== null && s.startsWith(`${path}.`);
  };
  return { errors: issues.errors.filter(inside).length, warnings: issues.warnings.filter(inside).length };
}

/** The problems of one field: those at `key` or inside it (`selector` takes `selector.text`). */
export function fieldIssues(found: Found[], key: string): Found[] {
  return found.filter((f) => f.field === key || f.field.startsWith(`${key}.`) || f.field.startsWith(`${key}[`));
}

/** The problems of the task file outside its steps, by top-level field (`name`, `variables`, `""`). */
export function fileIssues(issues: Issues, key: string): Found[] {
  return found(issues)
    .filter((f) => f.step === null && f.path.split(/[.[]/)[0] === key)
    .map((f) => ({ ...f, field: f.path }));
}
