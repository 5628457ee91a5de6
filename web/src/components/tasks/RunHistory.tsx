// Task runs, newest first, a page at a time: status, trigger, start, duration, step counts (healed
// ones too) and why a run did not succeed; one task's, or every task's. Asked again every 5 s while
// a run on the page is in progress, else every 15 s.
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, errorText, type Paged } from "../../api";
import { dateTime, relative, span, taskStatusLabel } from "../../format";
import { Link } from "../../router";
import type { TaskRun, TaskRunStatus } from "../../types";
import { Pager } from "../common/Pager";

const PAGE = 25;
const STATUSES: TaskRunStatus[] = ["running", "ok", "failed", "stopped", "skipped", "timed_out", "interrupted"];

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

/** The table. */
export function RunHistory({ task }: RunHistoryProps) {
  const [status, setStatus] = useState("");
  const [offset, setOffset] = useState(0);
  const [data, setData] = useState<Paged<TaskRun> | null>(null);
  const [error, setError] = useState("");

  const load = useCallback(async () => {
    try {
      setData(await api.taskRuns({ task, status }, PAGE, offset));
      setError("");
    } catch (e) {
      setError(errorText(e));
    }
  }, [task, status, offset]);
  const live = !!data?.items.some((r) => r.status === "running");
  useEffect(() => {
    void load();
    const t = setInterval(() => void load(), live ? 5000 : 15_000);
    return () => clearInterval(t);
  }, [load, live]);

  return (
    <section class="run-history" data-testid="run-history">
      <div class="filters">
        <label class="inline small">
          Status
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value);
              setOffset(0);
            }}
            data-testid="runs-status"
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {taskStatusLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <span class="muted small">{data ? `${data.total} ${data.total === 1 ? "run" : "runs"}` : "…"}</span>
      </div>
      {error && (
        <div class="banner banner-error" role="alert">
          {error}
        </div>
      )}
      {data && data.items.length === 0 && <p class="muted">{status ? `No ${taskStatusLabel(status)} runs.` : "No runs yet."}</p>}
      {data && data.items.length > 0 && (
        <table class="table runs-table table-cards">
          <thead>
            <tr>
              <th>Status</th>
              {!task && <th>Task</th>}
              <th>Trigger</th>
              <th>Started</th>
              <th>Duration</th>
              <th>Steps</th>
              <th>Device</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((r) => {
              const href = `/task-runs/${encodeURIComponent(r.id)}`;
              return (
                <tr key={r.id} data-testid="run-row" data-status={r.status}>
                  <td class="card-lead">
                    <Link href={href} title="Open this run" data-testid="run-link">
                      <span class={`chip chip-task-${r.status}`}>
                        {r.status === "running" && <span class="pulse" aria-hidden="true" />} {taskStatusLabel(r.status)}
                      </span>
                    </Link>
                  </td>
                  {!task && (
                    <td class="card-title">
                      <Link href={`/tasks/${encodeURIComponent(r.task_id)}`}>{r.task_name}</Link>
                    </td>
                  )}
                  <td class="small" data-label="Trigger">{r.trigger}</td>
                  <td class="small" data-label="Started">
                    <Link href={href} title={dateTime(r.started_at)}>
                      {dateTime(r.started_at)}
                    </Link>{" "}
                    <span class="muted">({relative(r.started_at)})</span>
                  </td>
                  <td class="small" data-label="Duration">{span(r.started_at, r.ended_at)}</td>
                  <td data-label="Steps">
                    <StepCounts run={r} />
                  </td>
                  <td class="mono small" data-label="Device">{r.device}</td>
                  <td class="small why" data-label="Why" title={r.error ?? ""}>
                    {r.error ?? ""}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <Pager offset={offset} total={data?.total ?? 0} size={PAGE} onOffset={setOffset} labels={["← Newer", "Older →"]} />
    </section>
  );
}
