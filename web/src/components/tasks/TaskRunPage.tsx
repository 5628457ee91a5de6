// One task run — the monitor while it runs, its record after: status, trigger, device, times and
// step counts; every executed step with its result (matched control, a healed selector shown
// prominently, the error, its screenshots) and the tool calls it made; while it runs, the step under
// way, the device's live view and Stop. Built from the run's event stream (replayed from the first
// event, so a reload mid-run picks it up where it is); the stored step rows stand in when the
// run's events are gone.
import { useEffect, useState } from "preact/hooks";
import { api, errorText, taskRunImageUrl } from "../../api";
import { dateTime, duration, span, statusLabel, taskStatusLabel } from "../../format";
import { Link, navigate } from "../../router";
import { subscribeTo, taskRunSource } from "../../stream";
import { applyTaskEvent, depthOf, newTaskRunState, storedTaskStep, type TaskRunState, type TaskStepView } from "../../task-run-state";
import type { TaskRun, TaskRunDetail } from "../../types";
import { ErrorBanner } from "../FormFields";
import { LiveView } from "../LiveView";
import { StepCard } from "../StepCard";
import { StepCounts } from "./RunHistory";
import type { AreaProps } from "./TasksArea";

/** Props of the page. */
export interface TaskRunPageProps extends AreaProps {
  runId: string;
}

/** The page. */
export function TaskRunPage({ runId, devices, openImage }: TaskRunPageProps) {
  const [run, setRun] = useState<TaskRunDetail | null>(null);
  const [state, setState] = useState<TaskRunState>(newTaskRunState);
  const [connection, setConnection] = useState<"live" | "reconnecting">("live");
  const [error, setError] = useState("");
  const [stopping, setStopping] = useState(false);
  const [showLive, setShowLive] = useState(true);
  const [, tick] = useState(0);

  const reload = async () => {
    try {
      setRun(await api.taskRun(runId));
    } catch (e) {
      setError(errorText(e));
    }
  };

  useEffect(() => {
    void reload();
    const sub = subscribeTo(taskRunSource(runId), 0, {
      onEvent: (ev) => {
        setState((s) => applyTaskEvent(s, ev));
        if (ev.type === "done") void reload();
      },
      onConnection: setConnection,
      onFatal: (m) => setError(`Lost the run's event stream: ${m}`),
      onEnded: (info) => setRun(info),
    });
    return () => sub.close();
  }, [runId]);

  const runningNow = run?.status === "running" && !state.done;
  // The elapsed time ticks while it runs.
  useEffect(() => {
    if (!runningNow) return;
    const t = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(t);
  }, [runningNow]);

  const stop = async () => {
    setStopping(true);
    try {
      await api.stopTaskRun(runId);
    } catch (e) {
      setError(errorText(e));
      setStopping(false);
    }
  };
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
          <div class="topbar-title">
            <h1>
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
          <ol class="run-steps" data-testid="run-steps">
            {steps.map((s) => (
              <RunStep key={s.key} step={s} image={image} runId={runId} openImage={openImage} />
            ))}
          </ol>
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

const STEP_ICON: Record<string, string> = { running: "◌", ok: "✓", failed: "✕", skipped: "–", stopped: "■" };

/** One executed step. */
function RunStep({ step: s, image, runId, openImage }: { step: TaskStepView; image: (id: string) => string; runId: string; openImage: (src: string, alt: string) => void }) {
  const depth = depthOf(s.path);
  const shots = s.image_ids;
  return (
    <li class={`run-step run-step-${s.status}`} style={{ marginLeft: `${depth * 18}px` }} data-testid="run-step" data-path={s.path} data-status={s.status}>
      <div class="run-step-head">
        <span class="step-icon" aria-hidden="true">
          {STEP_ICON[s.status] ?? "•"}
        </span>
        <code class="run-step-path">{s.path}</code>
        <strong class="run-step-type">{s.step_type}</strong>
        {s.note && <span class="muted small">— {s.note}</span>}
        <span class="step-meta">
          {s.duration_ms !== undefined && <span>{duration(s.duration_ms)}</span>}
          <span class={`chip chip-task-${s.status}`} data-testid="run-step-status">
            {s.status}
          </span>
        </span>
      </div>
      {s.matched && (
        <div class="run-step-line small" data-testid="run-step-matched">
          matched <span class="mono">#{s.matched.id}</span> “{s.matched.name}”{s.matched.type ? ` (${s.matched.type})` : ""} · score {s.matched.score}
        </div>
      )}
      {s.healed_from && (
        <div class="healed-banner" data-testid="run-step-healed" role="note">
          ⟲ <strong>Healed:</strong> the selector <code>{s.healed_from}</code> matched nothing; a fuzzy match found{" "}
          {s.matched ? <>“{s.matched.name}” (score {s.matched.score})</> : "another control"}. Update the step if the change is here to stay.
        </div>
      )}
      {s.error && (
        <div class="run-step-line run-step-error" data-testid="run-step-error">
          {s.error}
        </div>
      )}
      {s.message && <div class="run-step-line small muted">{s.message}</div>}
      {shots.length > 0 && (
        <div class="step-images">
          {shots.map((id) => (
            <button key={id} class="thumb" onClick={() => openImage(image(id), `${s.path} screenshot`)} aria-label={`Enlarge the screenshot of ${s.path}`}>
              <img src={image(id)} alt={`${s.path} screenshot`} loading="lazy" data-testid="run-step-thumb" />
            </button>
          ))}
        </div>
      )}
      {s.tools.length > 0 && (
        <details class="run-step-tools">
          <summary>
            {s.tools.length} tool {s.tools.length === 1 ? "call" : "calls"}
          </summary>
          {s.tools.map((t) => (
            <StepCard key={t.call_id} step={t} runId={runId} imageSrc={image} onOpenImage={openImage} />
          ))}
        </details>
      )}
    </li>
  );
}
