// The message box: Enter sends, Shift+Enter starts a new line; Stop while a run is active.
import type { Ref } from "preact";

/** Props of the composer. */
export interface ComposerProps {
  value: string;
  onInput: (v: string) => void;
  onSend: () => void;
  onStop: () => void;
  running: boolean;
  stopping: boolean;
  sending: boolean;
  disabledReason: string | null;
  inputRef: Ref<HTMLTextAreaElement>;
  /** The box's hint (default: the chat's). */
  placeholder?: string;
  /** The send button's text (default "Send"). */
  sendLabel?: string;
  /** The box's accessible name (default "Message"). */
  label?: string;
}

/** The composer at the bottom of the chat. */
export function Composer(p: ComposerProps) {
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      if (!p.running && p.disabledReason === null) p.onSend();
    }
  };
  const rows = Math.min(8, Math.max(2, p.value.split("\n").length));
  return (
    <div class="composer">
      <textarea
        ref={p.inputRef}
        name="prompt"
        rows={rows}
        placeholder={p.disabledReason ?? p.placeholder ?? "Tell the agent what to do — Enter sends, Shift+Enter for a new line"}
        value={p.value}
        onInput={(e) => p.onInput(e.currentTarget.value)}
        onKeyDown={onKeyDown}
        aria-label={p.label ?? "Message"}
        data-testid="prompt"
      />
      {p.running ? (
        <button class="btn btn-danger" onClick={p.onStop} disabled={p.stopping} data-testid="stop">
          {p.stopping ? "Stopping…" : "■ Stop"}
        </button>
      ) : (
        <button
          class="btn btn-primary"
          onClick={p.onSend}
          disabled={p.sending || !p.value.trim() || p.disabledReason !== null}
          data-testid="send"
        >
          {p.sending ? "Sending…" : (p.sendLabel ?? "Send")}
        </button>
      )}
    </div>
  );
}
