// The bar above a file being edited (a task file, an action of the library): whether it is valid
// as the server's validator last answered, unsaved changes or what the last save said, Discard
// changes and Save — with Ctrl+S (⌘S). Designer mode's draft review shows the validity chip in a
// bar of its own.
import { useEffect } from "preact/hooks";
import type { Validation } from "../../hooks/useValidation";

/** The chip: checking…, N errors, valid, or why the validator could not be asked; `errors`
 * counts the problems shown (a refused save's, else the validator's). `idle`: what it says instead
 * while the file is a blank new one nobody has touched (no verdict yet). */
export function ValidityChip({ validation, errors, idle }: { validation: Validation; errors: number; idle?: string }) {
  if (idle) {
    return (
      <span class="chip" data-testid="validity" aria-live="polite">
        ○ {idle}
      </span>
    );
  }
  // The problems shown are counted while a newer text is checked (a refused save's stand until
  // the validator answers for another text).
  const status = validation.error
    ? `cannot check: ${validation.error}`
    : errors
      ? `${errors} ${errors === 1 ? "error" : "errors"}`
      : validation.checking || !validation.report
        ? "checking…"
        : "valid";
  return (
    <span class={`chip ${errors ? "chip-failed" : validation.checking ? "" : "chip-success"}`} data-testid="validity" aria-live="polite">
      {errors ? "✕" : validation.checking ? "…" : "✓"} {status}
    </span>
  );
}

/** Props of the bar. */
export interface EditorBarProps {
  validation: Validation;
  errors: number;
  /** The chip's words while the file is a blank new one nobody has touched. */
  idle?: string;
  /** The text differs from what is stored. */
  dirty: boolean;
  /** What the last save said ("Saved."), shown while nothing changed since. */
  notice: string;
  /** Back to what is stored (none: a new file, nothing stored). */
  onDiscard?: () => void;
  onSave: () => void;
  saving: boolean;
  /** "Save", or "Create task" for a new one. */
  saveLabel: string;
  /** Save is offered (a stored file without changes has nothing to save). */
  canSave: boolean;
  saveTestId: string;
}

/** The bar. */
export function EditorBar(p: EditorBarProps) {
  // Ctrl+S (⌘S) saves (when there is something to save).
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s") {
        e.preventDefault();
        if (p.canSave && !p.saving) p.onSave();
      }
    };
    window.addEventListener("keydown", key);
    return () => window.removeEventListener("keydown", key);
  });
  return (
    <div class="editor-bar">
      <ValidityChip validation={p.validation} errors={p.errors} idle={p.idle} />
      {p.dirty && (
        <span class="muted small" data-testid="unsaved">
          unsaved changes
        </span>
      )}
      {p.notice && !p.dirty && (
        <span class="muted small" role="status" data-testid="saved-notice">
          {p.notice}
        </span>
      )}
      <span class="grow" />
      {p.dirty && p.onDiscard && (
        <button type="button" class="btn btn-ghost btn-small" onClick={p.onDiscard}>
          Discard changes
        </button>
      )}
      <button type="button" class="btn btn-primary" onClick={p.onSave} disabled={p.saving || !p.canSave} data-testid={p.saveTestId} title="Save (Ctrl+S)">
        {p.saving ? "Saving…" : p.saveLabel}
      </button>
    </div>
  );
}
