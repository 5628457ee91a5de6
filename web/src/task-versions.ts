// The shapes of the task versions, folders, tags and import routes (docs/console-api.md "Versions,
// folders and tags"), which the generated types.ts does not hold, and the task metadata a save sends.

/** One saved version of a task (no definition). */
export interface TaskVersion {
  version: number;
  name: string;
  device: string;
  enabled: boolean;
  folder: string;
  tags: string[];
  author: string;
  saved_at: string;
  note: string;
  cause: "create" | "edit" | "restore" | "import" | string;
}

/** A changed field of the record, old → new (`null`: not set). */
export interface FieldChange {
  field: string;
  old: unknown;
  new: unknown;
}

/** A step added, removed, moved or changed between two versions. */
export interface StepChange {
  kind: "added" | "removed" | "moved" | "changed";
  /** Its place in version `to` (a removed step's in `from`). */
  path: string;
  old_path?: string;
  type: string;
  params?: FieldChange[];
}

/** The structural diff of two versions. */
export interface VersionDiff {
  from: number;
  to: number;
  fields: FieldChange[];
  steps: StepChange[];
}

/** A folder that holds tasks, with how many (its subfolders' included). */
export interface FolderCount {
  folder: string;
  count: number;
}

/** A tag and how many tasks carry it. */
export interface TagCount {
  tag: string;
  count: number;
}

/** A problem of an import at its place in the document. */
export interface ImportProblem {
  task: string;
  path: string;
  message: string;
}

/** What an import did (or, on a dry run, would do). */
export interface ImportReport {
  dry_run: boolean;
  created: string[];
  replaced: string[];
  skipped: string[];
  renamed: { from: string; to: string }[];
  clashes: string[];
  errors: ImportProblem[];
  warnings: ImportProblem[];
  error?: string;
}

/** How an import settles a task whose name is taken. */
export type OnClash = "fail" | "skip" | "replace" | "rename";

/** What a save sends besides the file: the folder, the tags and a note on what changed. */
export interface SaveMeta {
  folder: string;
  tags: string[];
  note: string;
}

/** The query a create or replace takes for `meta` (`?folder=&tags=&note=`). */
export function metaQuery(meta: SaveMeta): string {
  const q = new URLSearchParams({ folder: meta.folder.trim(), tags: meta.tags.join(",") });
  if (meta.note.trim()) q.set("note", meta.note.trim());
  return q.toString();
}

/** A value of a diff shown as text: absent, a text as it is, anything else as JSON. */
export function shown(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

/** The URL that downloads the export of one task, a folder or everything. */
export function exportUrl(what: { task: string } | { folder: string } | { all: true }): string {
  const q = new URLSearchParams("task" in what ? { task: what.task } : "folder" in what ? { folder: what.folder } : { all: "true" });
  return `/api/tasks/export?${q.toString()}`;
}
