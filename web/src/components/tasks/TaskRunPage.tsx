// One task run — the monitor while it runs, its record after: status, trigger, the task version it
// ran (a link to it in the task's history), device, times and step counts; every executed step with
// its result (matched control, a healed selector shown prominently, the error, its screenshots) and
// the tool calls it made; while it runs, the step under way, the device's live view and Stop. Built
// from the run's event stream (replayed from the first event, so a reload mid-run picks it up where
// it is); the stored step rows stand in when the run's events are gone.
import { useState } from "preact/hooks";
import { api, errorText, taskRunImageUrl } from "../../api";
import { dateTime, span, statusLabel, taskStatusLabel } from "../../format";
import { useTaskRun } from "../../hooks/useTaskRun";
import { Link, navigate } from "../../router";
import { storedTaskStep, type TaskStepView } from "../../task-run-state";
import type { TaskRun } from "../../types";
import { ErrorBanner } from "../FormFields";
import { LiveView } from "../LiveView";
import { StepCard } from "../StepCard";
import { StepCounts } from "./RunHistory";
import { RunSteps } from "../common/RunSteps";
import type { AreaProps } from "./TasksArea";
import { MenuButton } from "../Sidebar";

/** Props of the page. */
export interface TaskRunPageProps extends AreaProps {
  runId: string;
}

/** The page. */
export function TaskRunPage({ runId, devices, openImage }: TaskRunPageProps) {
  const { run, state, connection, error, setError, stopping, stop, runningNow } = useTaskRun(runId);
  const [showLive, setShowLive] = useState(true);

  const again = async () => {
    if (!run) return;
    try {
      const vars = Object.fromEntries(Object.entries(run.variables).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
      const next = await api.runTask(run.task_id, vars, run.device);
      navigate(`/task-runs/${encodeURIComponent(next.id)}`);
    } catch (e) {
      setError(errorText(e));
    }
  };

  const steps: TaskStepView[] = state.steps.length > 0 ? state.steps : (run?.step_results ?? []).map(storedTaskStep);
  const current = state.current !== null ? state.steps[state.current] : null;
  const device = devices.find((d) => d.id === run?.device);
  const status = state.done && run?.status === "running" ? "ending" : (run?.status ?? "");
  const image = (id: string) => taskRunImageUrl(runId, id);

  return (
    <div class={`page run-page${runningNow && showLive ? " with-live" : ""}`} data-testid="task-run-page">
      <div class="run-main">
        <header class="topbar">
          <MenuButton />
          <div class="topbar-title">
            <h1 title={run?.task_name}>
              {run ? (
                <Link href={`/tasks/${encodeURIComponent(run.task_id)}`} data-testid="run-task-link">
                  {run.task_name}
                </Link>
              ) : (
                "…"
              )}
            </h1>
            <span class={`chip chip-task-${status}`} data-testid="run-status">
              {runningNow && <span class="pulse" aria-hidden="true" />} {taskStatusLabel(status)}
            </span>
            {runningNow && connection === "reconnecting" && <span class="muted small">reconnecting…</span>}
          </div>
          <div class="topbar-tools">
            {runningNow && (
              <button class="btn btn-danger btn-small" onClick={() => void stop()} disabled={stopping} data-testid="stop-run">
                {stopping ? "Stopping…" : "■ Stop"}
              </button>
            )}
            {run && !runningNow && (
              <button class="btn btn-small" onClick={() => void again()} data-testid="run-again">
                ▶ Run again
              </button>
            )}
            {runningNow && !showLive && (
              <button class="btn btn-ghost btn-small" onClick={() => setShowLive(true)}>
                📺 Live
              </button>
            )}
          </div>
        </header>
        <ErrorBanner message={error} onDismiss={() => setError("")} />
        <div class="page-body">
          {run && (
            <dl class="run-facts">
              <div>
                <dt>Trigger</dt>
                <dd data-testid="run-trigger">{run.trigger}</dd>
              </div>
              {run.task_version !== undefined && run.task_version !== null && (
                <div>
                  <dt>Version</dt>
                  <dd>
                    <Link href={`/tasks/${encodeURIComponent(run.task_id)}/history?to=${run.task_version}#v${run.task_version}`} data-testid="run-task-version">
                      v{run.task_version}
                    </Link>
                  </dd>
                </div>
              )}
              <div>
                <dt>Device</dt>
                <dd class="mono">{run.device}</dd>
              </div>
              <div>
                <dt>Started</dt>
                <dd>{dateTime(run.started_at)}</dd>
              </div>
              <div>
                <dt>Duration</dt>
                <dd>{span(run.started_at, run.ended_at)}</dd>
              </div>
              <div>
                <dt>Steps</dt>
                <dd>
                  <StepCounts run={run} counts={state.steps.length ? countSteps(state.steps) : undefined} />
                </dd>
              </div>
              {Object.keys(run.variables).length > 0 && (
                <div>
                  <dt>Variables</dt>
                  <dd class="mono small">
                    {Object.entries(run.variables)
                      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
                      .join(", ")}
                  </dd>
                </div>
              )}
            </dl>
          )}
          {current && runningNow && (
            <div class="current-step" role="status" data-testid="current-step">
              <span class="pulse" aria-hidden="true" /> Now: <code>{current.path}</code> <strong>{current.step_type}</strong>
              {current.note && <span class="muted"> — {current.note}</span>}
              {current.tools.length > 0 && <span class="muted small"> · {current.tools[current.tools.length - 1].tool}</span>}
            </div>
          )}
          {(state.done || (run && run.status !== "running")) && (run?.error || state.done?.answer) && (
            <div class={`banner ${run && ["ok", "stopped", "skipped"].includes(run.status) ? "banner-info banner-flush" : "banner-error"}`} data-testid="run-outcome">
              {run?.error || state.done?.answer}
            </div>
          )}
          {state.errors.map((m, i) => (
            <div key={i} class="banner banner-error">
              {m}
            </div>
          ))}
          <RunSteps steps={steps} runId={runId} openImage={openImage} />
          {steps.length === 0 && run && <p class="muted">{runningNow ? "Starting…" : "No step ran."}</p>}
          {state.looseTools.length > 0 && (
            <details class="loose-tools">
              <summary>Tool calls outside the steps ({state.looseTools.length})</summary>
              {state.looseTools.map((t) => (
                <StepCard key={t.call_id} step={t} runId={runId} imageSrc={image} onOpenImage={openImage} />
              ))}
            </details>
          )}
          {state.done && <p class="muted small">Run {statusLabel(state.done.status)}.</p>}
        </div>
      </div>
      {runningNow && showLive && <LiveView device={device} following="in use by the task" onHide={() => setShowLive(false)} />}
    </div>
  );
}

/** The step counts of the steps the events told (the stored ones lag while a run goes on). */
function countSteps(steps: TaskStepView[]): TaskRun["steps"] {
  const c = { ok: 0, failed: 0, skipped: 0, healed: 0 };
  for (const s of steps) {
    if (s.status === "ok") c.ok++;
    else if (s.status === "failed") c.failed++;
    else if (s.status === "skipped") c.skipped++;
    if (s.healed_from) c.healed++;
  }
  return c;
}
