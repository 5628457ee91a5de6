// "Running now": every task run in progress with the step it is at, asked again every 2 s; a click
// opens the run's monitor.
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api";
import { span } from "../../format";
import { Link } from "../../router";
import type { TaskRunDetail } from "../../types";

/** The runs in progress, newest first, with their current step. */
export function useRunning(everyMs = 2000): TaskRunDetail[] {
  const [runs, setRuns] = useState<TaskRunDetail[]>([]);
  useEffect(() => {
    let gone = false;
    const load = async () => {
      try {
        const page = await api.taskRuns({ status: "running" }, 50, 0);
        const details = await Promise.all(page.items.map((r) => api.taskRun(r.id).catch(() => null)));
        if (!gone) setRuns(details.filter((d): d is TaskRunDetail => d !== null && d.status === "running"));
      } catch {
        // Keep the last answer.
      }
    };
    void load();
    const t = setInterval(() => void load(), everyMs);
    return () => {
      gone = true;
      clearInterval(t);
    };
  }, [everyMs]);
  return runs;
}

/** The sidebar list. */
export function RunningMonitor({ current }: { current?: string }) {
  const runs = useRunning();
  return (
    <section class="monitor" aria-label="Running now" data-testid="monitor">
      <h2 class="side-title">
        Running now {runs.length > 0 && <span class="chip chip-running">{runs.length}</span>}
      </h2>
      {runs.length === 0 && <p class="muted small">No task is running.</p>}
      <ul>
        {runs.map((r) => (
          <li key={r.id} class={r.id === current ? "monitor-run monitor-run-on" : "monitor-run"} data-testid="monitor-run">
            <Link href={`/task-runs/${encodeURIComponent(r.id)}`}>
              <span class="monitor-name">
                <span class="pulse" aria-hidden="true" /> {r.task_name}
              </span>
              <span class="muted small">
                {r.device} · {span(r.started_at, null)}
              </span>
              {r.current_step && (
                <span class="monitor-step small" data-testid="monitor-step">
                  <code>{r.current_step.path}</code> {r.current_step.step_type}
                </span>
              )}
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
