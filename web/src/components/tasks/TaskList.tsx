// The task list: each task's device, schedules in words, last result, next run and on/off switch;
// search by name (on the server), a quick filter on what the page shows, run, edit, duplicate and
// delete. Asked again every 10 s, so last results and next runs stay current. Filtered on the server
// by a folder (its subfolders included) and a tag, kept in the address with the search; each row
// shows its folder and tags. Export this folder or everything; import a document (ImportDialog).
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../../api";
import { useSearchedPage } from "../../hooks/useSearchedPage";
import { dateTime, relative, taskStatusLabel, viewerZone } from "../../format";
import { Link, navigate, queryParam } from "../../router";
import type { Task } from "../../types";
import { ErrorBanner } from "../FormFields";
import { ListTopbar } from "../ListTopbar";
import { Pager } from "../common/Pager";
import { exportUrl, type FolderCount, type TagCount } from "../../task-versions";
import { ImportDialog } from "./ImportDialog";
import { RunDialog } from "./RunDialog";
import type { AreaProps } from "./TasksArea";

const PAGE = 50;

/** Quick filters of the shown page. */
const FILTERS = {
  all: { label: "All", keep: (_: Task) => true },
  failing: { label: "Failing", keep: (t: Task) => !!t.last_run && !["ok", "running"].includes(t.last_run.status) },
  running: { label: "Running", keep: (t: Task) => t.last_run?.status === "running" },
  scheduled: { label: "Scheduled", keep: (t: Task) => t.enabled && !!t.next_fire_at },
  off: { label: "Off", keep: (t: Task) => !t.enabled },
} as const;
type FilterName = keyof typeof FILTERS;

/** The page. */
export function TaskList({ devices }: AreaProps) {
  const [filter, setFilter] = useState<FilterName>("all");
  const [banner, setBanner] = useState("");
  const [running, setRunning] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const [folder, setFolder] = useState(queryParam("folder") ?? "");
  const [tag, setTag] = useState(queryParam("tag") ?? "");
  const [folders, setFolders] = useState<FolderCount[]>([]);
  const [tags, setTags] = useState<TagCount[]>([]);
  const { q, search, offset, setOffset, data, setData, load } = useSearchedPage((text, at) => api.tasks(text, PAGE, at, { folder, tag }), 10_000, setBanner, {
    firstQ: queryParam("q") ?? "",
    filter: `${folder}\n${tag}`,
  });

  // The folders and tags to filter by, asked again with each page.
  useEffect(() => {
    api.taskFolders().then((f) => setFolders(f.items), () => {});
    api.taskTags().then((t) => setTags(t.items), () => {});
  }, [data]);

  // The search and the filters stay in the address, for a reload.
  useEffect(() => {
    const p = new URLSearchParams();
    if (q.trim()) p.set("q", q.trim());
    if (folder) p.set("folder", folder);
    if (tag) p.set("tag", tag);
    const url = p.toString() ? `/tasks?${p.toString()}` : "/tasks";
    if (window.location.pathname + window.location.search !== url) history.replaceState(null, "", url);
  }, [q, folder, tag]);

  const pickFolder = (f: string) => {
    setFolder(f);
    setOffset(0);
  };
  const pickTag = (t: string) => {
    setTag(t);
    setOffset(0);
  };

  const toggle = async (t: Task) => {
    try {
      const d = await api.setTaskEnabled(t.id, !t.enabled);
      // The row as the server says it is now: switched off, no next run (an absent `next_fire_at`
      // must not leave the old one standing).
      setData((p) => p && { ...p, items: p.items.map((x) => (x.id === t.id ? { ...x, ...d, next_fire_at: d.next_fire_at } : x)) });
    } catch (e) {
      setBanner(errorText(e));
    }
  };

  const remove = async (t: Task) => {
    if (!window.confirm(`Delete the task “${t.name}” and its schedules? Its run history stays.`)) return;
    try {
      await api.deleteTask(t.id);
      void load();
    } catch (e) {
      setBanner(errorText(e));
    }
  };

  const items = (data?.items ?? []).filter(FILTERS[filter].keep);
  const total = data?.total ?? 0;

  return (
    <div class="page" data-testid="task-list">
      <ListTopbar
        title="Tasks"
        total={data ? total : null}
        noun={["task", "tasks"]}
        q={q}
        onSearch={search}
        placeholder="Search by name"
        searchLabel="Search tasks by name"
        searchTestId="task-search"
        newLabel="+ New task"
        onNew={() => navigate("/tasks/new")}
        newTestId="new-task"
      />
      <ErrorBanner message={banner} onDismiss={() => setBanner("")} />
      <div class="page-body">
        <div class="list-tools">
          <label class="small">
            Folder{" "}
            <select value={folder} onChange={(e) => pickFolder((e.target as HTMLSelectElement).value)} data-testid="folder-filter">
              <option value="">all folders</option>
              {folder && !folders.some((f) => f.folder === folder) && <option value={folder}>{folder}</option>}
              {folders.map((f) => (
                <option key={f.folder} value={f.folder}>
                  {`${"\u00a0\u00a0".repeat(f.folder.split("/").length - 1)}${f.folder.split("/").pop()} (${f.count})`}
                </option>
              ))}
            </select>
          </label>
          {tags.length > 0 && (
            <div class="filters" role="group" aria-label="Tag" data-testid="tag-filter">
              <span class="small muted">Tag</span>
              {tags.map((t) => {
                const on = tag.toLowerCase() === t.tag.toLowerCase();
                return (
                  <button key={t.tag} type="button" class={on ? "chip-btn chip-btn-on" : "chip-btn"} aria-pressed={on} onClick={() => pickTag(on ? "" : t.tag)} data-testid="tag-filter-chip">
                    {t.tag} <span class="muted">{t.count}</span>
                  </button>
                );
              })}
            </div>
          )}
          <span class="list-tools-end">
            <a class="btn btn-ghost btn-small" href={folder ? exportUrl({ folder }) : exportUrl({ all: true })} download data-testid="export-tasks">
              {folder ? "Export this folder" : "Export all"}
            </a>
            <button type="button" class="btn btn-ghost btn-small" onClick={() => setImporting(true)} data-testid="import-tasks">
              Import…
            </button>
          </span>
        </div>
        <div class="filters" role="group" aria-label="Show">
          {(Object.keys(FILTERS) as FilterName[]).map((f) => (
            <button key={f} type="button" class={filter === f ? "chip-btn chip-btn-on" : "chip-btn"} aria-pressed={filter === f} onClick={() => setFilter(f)}>
              {FILTERS[f].label}
            </button>
          ))}
        </div>
        {data && data.items.length === 0 && (
          <div class="empty">
            {q || folder || tag ? (
              <p>{q ? `No task's name contains “${q}”` : "No task"}{folder ? ` in the folder “${folder}”` : ""}{tag ? ` tagged “${tag}”` : ""}.</p>
            ) : (
              <>
                <p>No tasks yet.</p>
                <p class="muted small">A task is a list of steps deft plays on a device without a model — now, or on a schedule.</p>
                <button class="btn btn-primary" onClick={() => navigate("/tasks/new")}>
                  + New task
                </button>
              </>
            )}
          </div>
        )}
        {items.length > 0 && (
          <table class="table tasks-table table-cards">
            <thead>
              <tr>
                <th title="Schedules on or off">On</th>
                <th>Name</th>
                <th>Device</th>
                <th>Schedule</th>
                <th>Last result</th>
                <th>Next run</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((t) => (
                <TaskRow
                  key={t.id}
                  task={t}
                  onToggle={() => void toggle(t)}
                  onRun={() => setRunning(t.id)}
                  onDelete={() => void remove(t)}
                />
              ))}
            </tbody>
          </table>
        )}
        {data && data.items.length > 0 && items.length === 0 && <p class="muted">No task on this page is {FILTERS[filter].label.toLowerCase()}.</p>}
        <Pager offset={offset} total={total} size={PAGE} onOffset={setOffset} />
      </div>
      {running && <RunDialog taskId={running} devices={devices} onClose={() => setRunning(null)} />}
      {importing && (
        <ImportDialog
          onClose={() => setImporting(false)}
          onImported={() => void load()}
        />
      )}
    </div>
  );
}

/** One task's row. */
function TaskRow({ task: t, onToggle, onRun, onDelete }: { task: Task; onToggle: () => void; onRun: () => void; onDelete: () => void }) {
  const href = `/tasks/${encodeURIComponent(t.id)}`;
  const last = t.last_run;
  return (
    <tr data-testid="task-row" data-name={t.name} class={t.enabled ? "" : "row-off"}>
      <td class="card-lead">
        <input
          type="checkbox"
          role="switch"
          class="switch"
          checked={t.enabled}
          onChange={onToggle}
          aria-label={`Schedules of ${t.name} ${t.enabled ? "on" : "off"}`}
          title={t.enabled ? "Its schedules fire (click to switch them off)" : "Its schedules do not fire (click to switch them on)"}
          data-testid="task-toggle"
        />
      </td>
      <td class="card-title">
        <Link href={href} class="task-name">
          {t.name}
        </Link>
        {(t.folder || t.tags.length > 0) && (
          <div class="task-where">
            {t.folder && (
              <span class="task-folder-label" data-testid="task-row-folder">
                📁 {t.folder}
              </span>
            )}
            {t.tags.map((g) => (
              <span key={g} class="chip tag-chip" data-testid="task-row-tag">
                {g}
              </span>
            ))}
          </div>
        )}
      </td>
      <td class="mono small" data-label="Device">{t.device}</td>
      <td class="small" data-label="Schedule" data-testid="task-schedules">
        {t.schedule_summaries.length === 0 ? (
          <span class="muted">manual only</span>
        ) : (
          <ul class="plain">
            {t.schedule_summaries.map((s) => (
              <li key={s.id} class={s.enabled && t.enabled ? "" : "muted struck"} title={s.enabled ? "" : "this schedule is off"}>
                {s.description}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td data-label="Last result">
        {last ? (
          <Link href={`/task-runs/${encodeURIComponent(last.id)}`} title={`${dateTime(last.started_at)}${last.error ? `: ${last.error}` : ""}`}>
            <span class={`chip chip-task-${last.status}`} data-testid="task-last-status">
              {taskStatusLabel(last.status)}
            </span>{" "}
            <span class="muted small">{relative(last.started_at)}</span>
          </Link>
        ) : (
          <span class="muted small">never run</span>
        )}
      </td>
      <td class="small" title={t.enabled && t.next_fire_at ? `${dateTime(t.next_fire_at)} (your time, ${viewerZone()})` : undefined} data-label="Next run" data-testid="task-next-run">
        {t.enabled && t.next_fire_at ? relative(t.next_fire_at) : <span class="muted">{t.enabled ? "—" : "off"}</span>}
      </td>
      <td class="row-actions">
        <button class="btn btn-small" onClick={onRun} aria-label={`Run ${t.name} now`} data-testid="task-run">
          ▶ Run
        </button>
        <button class="btn btn-ghost btn-small" onClick={() => navigate(`${href}/edit`)} aria-label={`Edit ${t.name}`}>
          Edit
        </button>
        <button class="btn btn-ghost btn-small" onClick={() => navigate(`/tasks/new?from=${encodeURIComponent(t.id)}`)} aria-label={`Duplicate ${t.name}`}>
          Duplicate
        </button>
        <button class="btn btn-ghost btn-small btn-danger-text" onClick={onDelete} aria-label={`Delete ${t.name}`} data-testid="task-delete">
          Delete
        </button>
      </td>
    </tr>
  );
}
