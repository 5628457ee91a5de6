// Task runs, a page at a time: status, trigger, start, duration, step counts (healed ones too) and
// why a run did not succeed; one task's, or every task's. The view — filters, sort, page size and
// the page — lives in the URL (run-query.ts): bookmarkable, kept by a reload, and back / forward
// return to the view before. Asked again every 5 s while a run on the page is in progress, else
// every 15 s.
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, errorText, type RunPage } from "../../api";
import { dateTime, relative, span, taskStatusLabel } from "../../format";
import { Link, navigate, useSearch } from "../../router";
import { apiQuery, filterLabels, firstPage, readView, writeView, type RunView, type SortKey } from "../../run-query";
import type { TaskRun } from "../../types";
import { RunExport } from "./RunExport";
import { RunFilters } from "./RunFilters";
import { RunPager } from "./RunPager";

/** A run's step counts: `✓ 5 ✕ 1 – 2 ⟲ 1` (the stored ones, or `counts` counted live). */
export function StepCounts({ run, counts }: { run: TaskRun; counts?: TaskRun["steps"] }) {
  const c = counts ?? run.steps;
  return (
    <span class="counts small" title={`${c.ok} ok, ${c.failed} failed, ${c.skipped} skipped, ${c.healed} healed`}>
      <span class="ok">✓ {c.ok}</span>
      {c.failed > 0 && <span class="bad">✕ {c.failed}</span>}
      {c.skipped > 0 && <span class="muted">– {c.skipped}</span>}
      {c.healed > 0 && (
        <span class="healed" data-testid="healed-count">
          ⟲ {c.healed} healed
        </span>
      )}
    </span>
  );
}

/** Props of the history. */
export interface RunHistoryProps {
  /** One task's runs (its id); every task's when absent. */
  task?: string;
}

/** A sortable column's header: a button that sorts by it (again: the other way), its direction
 * shown and told by `aria-sort`. */
function SortHeader({ label, by, view, onView }: { label: string; by: SortKey; view: RunView; onView: (v: RunView) => void }) {
  const active = view.sort === by;
  const next = active && view.order === "desc" ? "asc" : active ? "desc" : by === "status" ? "asc" : "desc";
  return (
    <th aria-sort={active ? (view.order === "asc" ? "ascending" : "descending") : "none"}>
      <button type="button" class="th-sort" onClick={() => onView(firstPage(view, { sort: by, order: next }))} data-testid={`sort-${by}`}>
        {label}{" "}
        <span aria-hidden="true" class={active ? "" : "muted"}>
          {active ? (view.order === "asc" ? "▲" : "▼") : "↕"}
        </span>
      </button>
    </th>
  );
}

/** What shows when no run is on the page: which filters hide runs, or that there are none. */
function Empty({ view, ownTask, onView }: { view: RunView; ownTask: boolean; onView: (v: RunView) => void }) {
  const labels = filterLabels(view, ownTask);
  if (labels.length === 0) return <p class="muted" data-testid="runs-empty">No runs yet.</p>;
  return (
    <p class="muted" data-testid="runs-empty">
      No runs match {labels.join(", ")}.{" "}
      <button
        type="button"
        class="link"
        onClick={() => onView(firstPage(view, { task: ownTask ? view.task : "", status: "", trigger: "", device: "", from: "", to: "" }))}
      >
        Clear filters
      </button>
    </p>
  );
}

/** The filters, the table and its pages. */
export function RunHistory({ task }: RunHistoryProps) {
  const search = useSearch();
  const view = readView(search);
  const query = apiQuery(view, task);
  const [data, setData] = useState<RunPage | null>(null);
  const [error, setError] = useState("");
  const onView = (v: RunView) => void navigate(window.location.pathname + writeView(v));

  const load = useCallback(async () => {
    try {
      setData(await api.taskRunsQuery(query));
      setError("");
    } catch (e) {
      setError(errorText(e));
      setData(null);
    }
  }, [query]);
  const live = !!data?.items.some((r) => r.status === "running");
  useEffect(() => {
    void load();
    const t = setInterval(() => void load(), live ? 5000 : 15_000);
    return () => clearInterval(t);
  }, [load, live]);

  return (
    <section class="run-history" data-testid="run-history">
      <div class="run-history-bar">
        <RunFilters view={view} onView={onView} ownTask={!!task} />
        <span class="muted small" data-testid="runs-total">
          {data ? `${data.total} ${data.total === 1 ? "run" : "runs"}` : "…"}
        </span>
        <RunExport view={view} task={task} />
      </div>
      {error && (
        <div class="banner banner-error" role="alert" data-testid="runs-error">
          {error}
        </div>
      )}
      {data && data.items.length === 0 && <Empty view={view} ownTask={!!task} onView={onView} />}
      {data && data.items.length > 0 && (
        <table class="table runs-table table-cards">
          <thead>
            <tr>
              <SortHeader label="Status" by="status" view={view} onView={onView} />
              {!task && <th>Task</th>}
              <th>Trigger</th>
              <SortHeader label="Started" by="started" view={view} onView={onView} />
              <SortHeader label="Duration" by="duration" view={view} onView={onView} />
              <th>Steps</th>
              <th>Device</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((r) => (
              <RunRow key={r.id} run={r} showTask={!task} />
            ))}
          </tbody>
        </table>
      )}
      <RunPager view={view} total={data?.total ?? 0} shown={data?.items.length ?? 0} next={data?.next_cursor ?? null} onView={onView} />
    </section>
  );
}

/** One run's row (a card on a narrow screen). */
function RunRow({ run: r, showTask }: { run: TaskRun; showTask: boolean }) {
  const href = `/task-runs/${encodeURIComponent(r.id)}`;
  return (
    <tr data-testid="run-row" data-status={r.status} data-run={r.id}>
      <td class="card-lead">
        <Link href={href} title="Open this run" data-testid="run-link">
          <span class={`chip chip-task-${r.status}`}>
            {r.status === "running" && <span class="pulse" aria-hidden="true" />} {taskStatusLabel(r.status)}
          </span>
        </Link>
      </td>
      {showTask && (
        <td class="card-title">
          <Link href={`/tasks/${encodeURIComponent(r.task_id)}`}>{r.task_name}</Link>
        </td>
      )}
      <td class="small" data-label="Trigger" data-testid="run-trigger">
        {r.trigger}
      </td>
      <td class="small" data-label="Started">
        <Link href={href} title={dateTime(r.started_at)}>
          {dateTime(r.started_at)}
        </Link>{" "}
        <span class="muted">({relative(r.started_at)})</span>
      </td>
      <td class="small" data-label="Duration">
        {span(r.started_at, r.ended_at)}
      </td>
      <td data-label="Steps">
        <StepCounts run={r} />
      </td>
      <td class="mono small" data-label="Device" data-testid="run-device">
        {r.device}
      </td>
      <td class="small why" data-label="Why" title={r.error ?? ""}>
        {r.error ?? ""}
      </td>
    </tr>
  );
}
