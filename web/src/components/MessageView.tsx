// A user message, or an assistant message (stored or streaming): reasoning, step cards, the
// answer as sanitized Markdown, errors, the token footer and, on a failed last message, Retry.
import { useMemo } from "preact/hooks";
import { statusLabel, tokenFooter } from "../format";
import { renderMarkdown } from "../markdown";
import { storedStepView, type StepView } from "../run-state";
import type { MemoryNote, Message, RunStatus, TypedResult, Usage } from "../types";
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
  /** Sends the run's prompt again (offered on the conversation's last message when it failed). */
  onRetry?: () => void;
  /** A run with an output schema: its typed result. */
  output?: TypedResult;
}

/** A typed result: the value as formatted JSON with a valid badge, or the errors with an
 * invalid one. */
export function TypedResultCard({ output }: { output: TypedResult }) {
  const repaired = output.repaired ? " after one repair" : "";
  return (
    <div class="typed-result" data-testid="typed-result" data-valid={String(output.valid)}>
      <span class={`chip ${output.valid ? "chip-success" : "chip-failed"}`} data-testid="typed-badge">
        {output.valid ? "valid" : "invalid"}
        {repaired}
      </span>
      {output.valid ? (
        <pre class="typed-value">{JSON.stringify(output.value, null, 2)}</pre>
      ) : (
        <ul class="typed-errors">
          {(output.errors ?? []).map((e, i) => (
            <li key={i}>
              <code>{e.path || "(the answer)"}</code> {e.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
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
      {p.output && <TypedResultCard output={p.output} />}
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
        {p.onRetry && (
          <button class="btn btn-small" onClick={p.onRetry} title="Send the same request again" data-testid="retry">
            ↻ Retry
          </button>
        )}
      </div>
    </div>
  );
}

/** Whether a run that ended so is worth sending again (the model or the time failed it). */
export function retryable(status: RunStatus | undefined): boolean {
  return status === "failed" || status === "timeout";
}

/** A stored message of a conversation, as the chat shows it. */
export function StoredMessage({ m, onOpenImage, onRetry }: { m: Message; onOpenImage: (src: string, alt: string) => void; onRetry?: () => void }) {
  return m.role === "user" ? (
    <UserMessage text={m.content} />
  ) : (
    <AssistantMessage
      runId={m.run_id ?? ""}
      content={m.content}
      reasoning={m.reasoning ?? ""}
      steps={(m.steps ?? []).map(storedStepView)}
      usage={m.usage}
      status={m.status}
      memory={m.memory}
      output={m.output}
      live={false}
      onOpenImage={onOpenImage}
      onRetry={onRetry}
    />
  );
}

/** The key of a stored message in a list (its run, so the live message it replaces keeps its place). */
export function storedKey(m: Message, i: number): string {
  return m.role === "assistant" && m.run_id ? `run-${m.run_id}` : `m${i}`;
}
