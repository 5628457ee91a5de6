// A try of a task file on its device (designer mode's "try it", the task editor's "run to here"
// and "run this step"): the run followed as any task run, its steps' results by path for the step
// cards, and the panel that shows how it went — one piece both editors share.
import { useMemo, useState } from "preact/hooks";
import { Link } from "../../router";
import { taskStatusLabel } from "../../format";
import { useTaskRun } from "../../hooks/useTaskRun";
import { resultsByPath, storedTaskStep, type TaskStepView } from "../../task-run-state";
import { RunSteps } from "./RunSteps";

/** The try being followed: its id (set it to follow another), the run, its steps and their
 * results by path. */
export function useTry() {
  const [tryId, setTryId] = useState<string | null>(null);
  const tried = useTaskRun(tryId);
  const steps: TaskStepView[] = tried.state.steps.length > 0 ? tried.state.steps : (tried.run?.step_results ?? []).map(storedTaskStep);
  const results = useMemo(() => resultsByPath(steps), [steps]);
  return { tryId, setTryId, tried, steps, results };
}

/** What `useTry` gives. */
export type Try = ReturnType<typeof useTry>;

/** Props of the panel. */
export interface TryPanelProps {
  t: Try;
  /** The panel's heading ("Try run", "Run to steps[3]"). */
  title: string;
  /** What to say when the file changed since the try ran (nothing while it did not). */
  staleNote?: string;
  openImage: (src: string, alt: string) => void;
}

/** The try's status, stop, link, outcome and steps. */
export function TryPanel({ t, title, staleNote, openImage }: TryPanelProps) {
  const { tryId, tried, steps } = t;
  if (!tryId) return null;
  const status = tried.state.done && tried.run?.status === "running" ? "ending" : (tried.run?.status ?? "running");
  return (
    <section class="try-panel" aria-label={title} data-testid="try-panel">
      <div class="try-head">
        <strong>{title}</strong>
        <span class={`chip chip-task-${status}`} data-testid="try-status">
          {tried.runningNow && <span class="pulse" aria-hidden="true" />} {taskStatusLabel(status)}
        </span>
        {tried.runningNow && tried.connection === "reconnecting" && <span class="muted small">reconnecting…</span>}
        {staleNote && <span class="muted small">{staleNote}</span>}
        <span class="grow" />
        {tried.runningNow && (
          <button class="btn btn-danger btn-small" onClick={() => void tried.stop()} disabled={tried.stopping} data-testid="try-stop">
            {tried.stopping ? "Stopping…" : "■ Stop"}
          </button>
        )}
        <Link href={`/task-runs/${encodeURIComponent(tryId)}`} class="small">
          Open the run
        </Link>
        {!tried.runningNow && (
          <button class="btn btn-ghost btn-small" onClick={() => t.setTryId(null)} aria-label={`Close the ${title.toLowerCase()}`}>
            ✕
          </button>
        )}
      </div>
      {tried.error && (
        <div class="banner banner-error" role="alert">
          {tried.error}
        </div>
      )}
      {!tried.runningNow && tried.run?.error && (
        <div class="banner banner-error" data-testid="try-outcome">
          {tried.run.error}
        </div>
      )}
      <RunSteps steps={steps} runId={tryId} openImage={openImage} />
      {steps.length === 0 && <p class="muted small">{tried.runningNow ? "Starting…" : "No step ran."}</p>}
    </section>
  );
}
