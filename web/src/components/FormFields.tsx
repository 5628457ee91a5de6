// The form pieces login, setup and settings share: bound text inputs, fields, error line, submit button.
import type { ComponentChildren, InputHTMLAttributes } from "preact";

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
export function SubmitButton({ busy, label, busyLabel }: { busy: boolean; label: string; busyLabel: string }) {
  return (
    <button class="btn btn-primary" type="submit" disabled={busy}>
      {busy ? busyLabel : label}
    </button>
  );
}
