// The form pieces the pages share: bound text inputs, fields, error lines and banners, submit
// buttons, and the modal dialog.
import type { ComponentChildren, InputHTMLAttributes } from "preact";
import { useEffect, useRef } from "preact/hooks";

/** The attributes `A` but the value, for each kind of input (`type`) on its own. */
type WithoutValue<A> = A extends unknown ? Omit<A, "value" | "onInput"> : never;

/** An `<input>` showing `value`; each edit hands the new text to `onValue`. Only the attributes a
 * caller names are set. */
export type TextInputProps = WithoutValue<InputHTMLAttributes> & { value: string; onValue: (value: string) => void };

/** A text input bound to a string state. */
export function TextInput({ value, onValue, ...attrs }: TextInputProps) {
  return <input {...attrs} value={value} onInput={(e) => onValue(e.currentTarget.value)} />;
}

/** A text input inside its label (the login and setup pages). */
export function LabelledInput({ label, ...input }: TextInputProps & { label: string }) {
  return (
    <label>
      {label}
      <TextInput {...input} />
    </label>
  );
}

/** What a settings field shows around its control. */
interface FieldProps {
  id: string;
  label: string;
  help: string;
}

/** A labelled form field with a help line (the settings dialog). */
export function Field({ id, label, help, children }: FieldProps & { children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      <small class="muted">{help}</small>
    </div>
  );
}

/** A field that holds one text input, labelled by its id. */
export function InputField({ label, help, ...input }: TextInputProps & FieldProps) {
  return (
    <Field id={input.id} label={label} help={help}>
      <TextInput {...input} />
    </Field>
  );
}

/** What the server (or the form's own check) said was wrong; nothing while all is well. */
export function FormError({ error, testId }: { error: string; testId?: string }) {
  return error ? (
    <div class="banner banner-error" role="alert" data-testid={testId}>
      {error}
    </div>
  ) : null;
}

/** The form's submit button; `busyLabel` while the form waits for the server. */
export function SubmitButton({ busy, label, busyLabel, disabled, testId }: { busy: boolean; label: string; busyLabel: string; disabled?: boolean; testId?: string }) {
  return (
    <button class="btn btn-primary" type="submit" disabled={busy || disabled} data-testid={testId}>
      {busy ? busyLabel : label}
    </button>
  );
}

/** A page's error banner with its ✕; nothing while `message` is empty. */
export function ErrorBanner({ message, onDismiss }: { message: string | null; onDismiss: () => void }) {
  return message ? (
    <div class="banner banner-error banner-top" role="alert" data-testid="banner">
      <span>{message}</span>
      <button class="btn btn-ghost btn-small" onClick={onDismiss} aria-label="Dismiss">
        ✕
      </button>
    </div>
  ) : null;
}

/** A page's notice that something went well ("Settings saved"), with its ✕; nothing while
 * `message` is empty. */
export function NoticeBanner({ message, onDismiss }: { message: string | null; onDismiss: () => void }) {
  return message ? (
    <div class="banner banner-ok banner-top" role="status" data-testid="notice">
      <span>✓ {message}</span>
      <button class="btn btn-ghost btn-small" onClick={onDismiss} aria-label="Dismiss">
        ✕
      </button>
    </div>
  ) : null;
}

/** A modal `<dialog>`, open while mounted; Escape closes it through `onClose`. */
export function Modal(p: { labelledBy: string; testId: string; wide?: boolean; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      class={p.wide ? "dialog dialog-wide" : "dialog"}
      aria-labelledby={p.labelledBy}
      onCancel={(e) => {
        e.preventDefault();
        p.onClose();
      }}
      data-testid={p.testId}
    >
      {p.children}
    </dialog>
  );
}

/** A dialog's (or a form's) Cancel and submit buttons. */
export function DialogButtons({ onCancel, ...submit }: { onCancel: () => void; busy: boolean; label: string; busyLabel: string; disabled?: boolean; testId?: string }) {
  return (
    <div class="dialog-buttons">
      <button type="button" class="btn" onClick={onCancel}>
        Cancel
      </button>
      <SubmitButton {...submit} />
    </div>
  );
}
