// The run history's view as a URL query (docs/console-api.md "The run history"): its filters, sort,
// page size and the cursors of the pages before, read from and written to the page's URL so a view
// is bookmarkable, survives a reload and back / forward return to it. The same filters make the
// API's query and the export's.
import type { TaskRunStatus, TaskTrigger } from "./types";

/** Every status a run can have, in the order the filter lists them. */
export const STATUSES: TaskRunStatus[] = ["running", "ok", "failed", "stopped", "skipped", "timed_out", "interrupted"];
/** Every trigger, with how a person reads it. */
export const TRIGGERS: [TaskTrigger, string][] = [
  ["manual", "manual"],
  ["schedule", "schedule"],
  ["api", "API"],
  ["try", "designer try"],
];
/** The columns the history sorts by. */
export type SortKey = "started" | "duration" | "status";
/** The page sizes offered (a URL may ask for any from 1 to 1,000, as the API takes). */
export const PAGE_SIZES = [25, 50, 100];

/** What the history shows. Empty texts are filters not set. */
export interface RunView {
  task: string;
  status: string;
  trigger: string;
  device: string;
  /** Started on or after this date (YYYY-MM-DD, a UTC day as the API reads it). */
  from: string;
  /** Started on or before this date. */
  to: string;
  sort: SortKey;
  order: "desc" | "asc";
  limit: number;
  /** Where this page starts ("" the first page). */
  cursor: string;
  /** The cursors of the pages before this one, oldest first ("" the first page). */
  back: string[];
}

/** The filters a person sets (not the sort or the page). */
export const FILTER_KEYS = ["task", "status", "trigger", "device", "from", "to"] as const;
/** One of them. */
export type FilterKey = (typeof FILTER_KEYS)[number];

/** The view of a URL query (`location.search`); anything unknown or bad falls back to the default. */
export function readView(search: string): RunView {
  const q = new URLSearchParams(search);
  const text = (k: string) => (q.get(k) ?? "").trim();
  const sort = text("sort");
  const limit = Number(text("limit"));
  const cursor = text("cursor");
  return {
    task: text("task"),
    status: text("status"),
    trigger: text("trigger"),
    device: text("device"),
    from: text("from"),
    to: text("to"),
    sort: sort === "duration" || sort === "status" ? sort : "started",
    order: text("order") === "asc" ? "asc" : "desc",
    limit: Number.isInteger(limit) && limit >= 1 && limit <= 1000 ? limit : PAGE_SIZES[0],
    cursor,
    back: cursor ? q.getAll("back") : [],
  };
}

/** The filters and sort as query parameters (the defaults left out), without the page. */
function filterParams(v: RunView): URLSearchParams {
  const q = new URLSearchParams();
  for (const k of FILTER_KEYS) if (v[k]) q.set(k, v[k]);
  if (v.sort !== "started") q.set("sort", v.sort);
  if (v.order !== "desc") q.set("order", v.order);
  return q;
}

/** The URL query (with `?`, or "") that shows `v`. */
export function writeView(v: RunView): string {
  const q = filterParams(v);
  if (v.limit !== PAGE_SIZES[0]) q.set("limit", String(v.limit));
  if (v.cursor) {
    q.set("cursor", v.cursor);
    for (const b of v.back) q.append("back", b);
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** The API's query for `v` (`task` fixed to one task's id on its own page). */
export function apiQuery(v: RunView, task?: string): string {
  const q = filterParams(task ? { ...v, task } : v);
  q.set("limit", String(v.limit));
  if (v.cursor) q.set("cursor", v.cursor);
  return q.toString();
}

/** The export's URL for `v` in `format`: exactly the runs the filters select, in the same order. */
export function exportUrl(v: RunView, format: "csv" | "json", task?: string): string {
  const q = filterParams(task ? { ...v, task } : v);
  q.set("format", format);
  return `/api/task-runs/export?${q.toString()}`;
}

/** `v` with `change` applied, back at the first page (a filter, sort or size changed). */
export function firstPage(v: RunView, change: Partial<RunView>): RunView {
  return { ...v, ...change, cursor: "", back: [] };
}

/** The page after `v`, which starts at `next`. */
export function nextPage(v: RunView, next: string): RunView {
  return { ...v, cursor: next, back: v.cursor ? [...v.back, v.cursor] : [...v.back, ""] };
}

/** The page before `v`. */
export function previousPage(v: RunView): RunView {
  const back = v.back.slice(0, -1);
  return { ...v, cursor: v.back[v.back.length - 1] ?? "", back };
}

/** The filters set, as a person reads them ("status failed", "from 2026-12-01"); `task` named
 * by `taskName` and left out on a task's own page. */
export function filterLabels(v: RunView, ownTask: boolean): string[] {
  const out: string[] = [];
  if (v.task && !ownTask) out.push(`task “${v.task}”`);
  if (v.status) out.push(`status ${v.status}`);
  if (v.trigger) out.push(`trigger ${TRIGGERS.find(([t]) => t === v.trigger)?.[1] ?? v.trigger}`);
  if (v.device) out.push(`device “${v.device}”`);
  if (v.from) out.push(`from ${v.from}`);
  if (v.to) out.push(`to ${v.to}`);
  return out;
}
