// A task run's executed steps, each with its result: the matched control (by its value when it has
// no name, with the tie note when several matched equally), a healed selector shown prominently,
// the error, its screenshots and the tool calls it made (the run page, designer mode's "try it"
// beside the draft, an action's try).
import { taskRunImageUrl } from "../../api";
import { duration } from "../../format";
import { depthOf, STEP_ICON, type TaskStepView } from "../../task-run-state";
import type { MatchedControl } from "../../types";
import { StepCard } from "../StepCard";

/** The steps of run `runId`; its images are a task run's unless `imageSrc` says where they are. */
export function RunSteps({ steps, runId, openImage, imageSrc }: { steps: TaskStepView[]; runId: string; openImage: (src: string, alt: string) => void; imageSrc?: (id: string) => string }) {
  const image = imageSrc ?? ((id: string) => taskRunImageUrl(runId, id));
  return (
    <ol class="run-steps" data-testid="run-steps">
      {steps.map((s) => (
        <RunStep key={s.key} step={s} image={image} runId={runId} openImage={openImage} />
      ))}
    </ol>
  );
}

/** What a person reads of a matched control: its name, else its value (a display's “56”). */
function matchedText(m: MatchedControl): string {
  if (m.name || m.value == null) return `“${m.name}”`;
  return `= “${m.value}”`;
}

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
          matched <span class="mono">#{s.matched.id}</span> {matchedText(s.matched)}
          {s.matched.type ? ` (${s.matched.type})` : ""} · score {s.matched.score}
        </div>
      )}
      {s.matched?.tie && (
        <div class="run-step-line small tie-note" data-testid="run-step-tie" role="note">
          ⚖ <strong>Tie:</strong> {s.matched.tie}. Make the selector more specific if another control was meant.
        </div>
      )}
      {s.healed_from && (
        <div class="healed-banner" data-testid="run-step-healed" role="note">
          ⟲ <strong>Healed:</strong> the selector <code>{s.healed_from}</code> matched nothing; a fuzzy match found{" "}
          {s.matched ? <>“{s.matched.name}” (score {s.matched.score})</> : "another control"}. Update the step if the change is here to stay.
        </div>
      )}
      {s.retries?.map((r) => (
        <div key={r.attempt} class="run-step-line small run-step-retry" data-testid="run-step-retry">
          ↻ attempt {r.attempt} of {r.attempts} failed: {r.error} — tried again after {duration(r.delay_ms)}
        </div>
      ))}
      {s.rounds && s.rounds.length > 0 && (
        <details class="run-step-rounds" data-testid="run-step-rounds">
          <summary>
            {s.rounds.length} {s.rounds.length === 1 ? "round" : "rounds"} of {s.rounds[s.rounds.length - 1].rounds}
          </summary>
          <ol>
            {s.rounds.map((r) => (
              <li key={r.round} class="small" data-testid="run-step-round">
                <span class="mono">#{r.round}</span>{" "}
                {Object.entries(r.values).map(([k, v]) => (
                  <span key={k} class="round-value">
                    <code>{k}</code> = “{v}”{" "}
                  </span>
                ))}
              </li>
            ))}
          </ol>
        </details>
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
