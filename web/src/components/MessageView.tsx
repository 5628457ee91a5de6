// A user message, or an assistant message (stored or streaming): reasoning, step cards, the
// answer as sanitized Markdown, errors and the token footer.
import { useMemo } from "preact/hooks";
import { statusLabel, tokenFooter } from "../format";
import { renderMarkdown } from "../markdown";
import type { StepView } from "../run-state";
import type { MemoryNote, RunStatus, Usage } from "../types";
import { MemoryCards } from "./MemoryCard";
import { Reasoning } from "./Reasoning";
import { StepCard } from "./StepCard";

/** A person's message. */
export function UserMessage({ text }: { text: string }) {
  return (
    <div class="msg msg-user" data-testid="msg-user">
      <div class="msg-body">{text}</div>
    </div>
  );
}

/** Sanitized Markdown. */
export function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class="md" data-testid="answer" dangerouslySetInnerHTML={{ __html: html }} />;
}

/** Props of an assistant message. */
export interface AssistantProps {
  runId: string;
  content: string;
  reasoning: string;
  steps: StepView[];
  usage: Usage | null | undefined;
  status: RunStatus | undefined;
  errors?: string[];
  /** The memory's cards of the run. */
  memory?: MemoryNote[];
  live: boolean;
  onAnswer?: (callId: string, approve: boolean) => Promise<void>;
  onOpenImage: (src: string, alt: string) => void;
}

/** The agent's message. */
export function AssistantMessage(p: AssistantProps) {
  const running = p.status === "running";
  return (
    <div class="msg msg-assistant" data-testid="msg-assistant" data-run={p.runId} data-status={p.status ?? ""}>
      <MemoryCards notes={p.memory ?? []} recalled={true} />
      {p.reasoning && <Reasoning text={p.reasoning} live={p.live && running} answering={p.content.length > 0} />}
      {p.steps.length > 0 && (
        <div class="steps">
          {p.steps.map((s) => (
            <StepCard
              key={s.call_id}
              step={s}
              runId={p.runId}
              onAnswer={p.onAnswer && running ? (approve) => p.onAnswer!(s.call_id, approve) : undefined}
              onOpenImage={p.onOpenImage}
            />
          ))}
        </div>
      )}
      {p.content && <Markdown text={p.content} />}
      {running && !p.content && (
        <div class="thinking muted" aria-live="polite">
          <span class="pulse" aria-hidden="true" />{" "}
          {p.steps.some((s) => s.status === "waiting") ? "waiting for your approval…" : "working…"}
        </div>
      )}
      <MemoryCards notes={p.memory ?? []} recalled={false} />
      {(p.errors ?? []).map((e, i) => (
        <div class="banner banner-error banner-inline" role="alert" key={i}>
          {e}
        </div>
      ))}
      <div class="msg-footer">
        {p.usage && p.usage.calls > 0 && <span data-testid="token-footer">{tokenFooter(p.usage)}</span>}
        {p.status && p.status !== "completed" && (
          <span class={`chip chip-run chip-${p.status}`} data-testid="run-status">
            {statusLabel(p.status)}
          </span>
        )}
      </div>
    </div>
  );
}
