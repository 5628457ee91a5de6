// One tool step: tool, arguments, duration, status and effect, its screenshots, and the
// approve/deny buttons while it waits for a person.
import { useState } from "preact/hooks";
import { imageUrl } from "../api";
import { argsLine, duration } from "../format";
import type { StepView } from "../run-state";

const STATUS_ICON: Record<string, string> = {
  running: "◌",
  waiting: "⏸",
  success: "✓",
  failure: "✕",
  skipped: "–",
  denied: "⊘",
  stopped: "■",
};

/** Props of a step card. */
export interface StepCardProps {
  step: StepView;
  runId: string;
  /** The URL of one of its images (default: an agent run's image URL). */
  imageSrc?: (imageId: string) => string;
  /** Present when the person may still answer the step's question. */
  onAnswer?: (approve: boolean) => Promise<void>;
  onOpenImage: (src: string, alt: string) => void;
}

/** A step card. */
export function StepCard({ step, runId, imageSrc, onAnswer, onOpenImage }: StepCardProps) {
  const [answering, setAnswering] = useState(false);
  const args = argsLine(step.args);
  const waiting = step.status === "waiting" && step.confirm && step.confirm.answer === undefined;
  const answer = async (approve: boolean) => {
    if (!onAnswer) return;
    setAnswering(true);
    try {
      await onAnswer(approve);
    } finally {
      setAnswering(false);
    }
  };
  return (
    <div class={`step step-${step.status}`} data-testid="step" data-tool={step.tool} data-status={step.status}>
      <div class="step-head">
        <span class="step-icon" aria-hidden="true">
          {STATUS_ICON[step.status] ?? "•"}
        </span>
        <span class="step-tool">{step.tool}</span>
        {args && (
          <code class="step-args" title={args}>
            {args}
          </code>
        )}
        <span class="step-meta">
          {step.duration_ms !== undefined && <span>{duration(step.duration_ms)}</span>}
          {step.effect && <span class={`chip chip-${step.effect}`}>{step.effect === "no_change" ? "no change" : step.effect}</span>}
          <span class={`chip chip-status chip-${step.status}`} data-testid="step-status">
            {step.status === "waiting" ? "needs approval" : step.status}
          </span>
        </span>
      </div>
      {step.confirm && (
        <div class="step-confirm" data-testid="confirm">
          <span>
            {step.confirm.reason || "This step needs your approval."}
          </span>
          {waiting && onAnswer ? (
            <span class="step-confirm-buttons">
              <button class="btn btn-primary btn-small" disabled={answering} onClick={() => void answer(true)}>
                Approve
              </button>
              <button class="btn btn-danger btn-small" disabled={answering} onClick={() => void answer(false)}>
                Deny
              </button>
            </span>
          ) : (
            step.confirm.answer !== undefined && (
              <span class="muted">{step.confirm.answer ? "approved" : "denied"}</span>
            )
          )}
        </div>
      )}
      {step.image_ids.length > 0 && (
        <div class="step-images">
          {step.image_ids.map((id) => {
            const src = imageSrc ? imageSrc(id) : imageUrl(runId, id);
            const alt = `${step.tool} screenshot`;
            return (
              <button class="thumb" key={id} onClick={() => onOpenImage(src, alt)} aria-label="Enlarge screenshot">
                <img src={src} alt={alt} loading="lazy" data-testid="step-thumb" />
              </button>
            );
          })}
        </div>
      )}
      {step.detail && (
        <details class="step-detail">
          <summary>{step.status === "failure" ? "error" : "result"}</summary>
          <pre>{step.detail}</pre>
        </details>
      )}
    </div>
  );
}
