// The secrets tasks type (docs/tasks.md "Secrets"): listed by name with who set each, when and
// the tasks that use it; set (create or replace) with a value that is never shown again; delete,
// whose refusal names the tasks that still use the secret. Values never come back from the
// server.
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { useSubmit } from "../hooks/useSubmit";
import type { Secret } from "../types";
import { Field, FormError, SubmitButton, TextInput } from "./FormFields";

/** How a secret reads in a task's variables and in every record of its runs. */
export function secretShown(name: string): string {
  return `••••(secret ${name})`;
}

/** The section (inside the settings dialog, after the model settings). */
export function SecretsSection() {
  const [secrets, setSecrets] = useState<Secret[] | null>(null);
  const [loadError, setLoadError] = useState("");
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [deleteError, setDeleteError] = useState("");
  const { error, setError, busy, submit } = useSubmit();

  const reload = () =>
    api
      .secrets()
      .then((l) => setSecrets(l.items))
      .catch((e) => setLoadError(errorText(e)));
  useEffect(() => void reload(), []);

  const onSet = (e: Event) => {
    e.preventDefault();
    const n = name.trim();
    if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(n)) {
      return setError("A secret's name is a letter, then letters, digits and _ (at most 64), e.g. LOGIN_PW.");
    }
    if (!value) return setError(`Type the value of ${n}.`);
    void submit(async () => {
      await api.setSecret(n, value);
      setName("");
      setValue("");
      await reload();
    });
  };

  const onDelete = (n: string) => {
    setDeleteError("");
    api
      .deleteSecret(n)
      .then(reload)
      .catch((e) => setDeleteError(errorText(e)));
  };

  return (
    <section class="secrets" aria-labelledby="secrets-title" data-testid="secrets">
      <h3 id="secrets-title">Secrets</h3>
      <p class="muted small">
        Values tasks type without showing them: a task names one as <code>{'{"secret": "NAME"}'}</code> in its
        variables, and its runs show <code>{secretShown("NAME")}</code>.
      </p>
      {loadError && <FormError error={loadError} />}
      {secrets && secrets.length === 0 && <p class="muted small">No secrets yet.</p>}
      {secrets && secrets.length > 0 && (
        <ul class="secret-list" data-testid="secret-list">
          {secrets.map((s) => (
            <li key={s.name} data-testid="secret">
              <span class="mono">{s.name}</span>{" "}
              <span class="muted small">
                set by {s.set_by} · {s.used_by.length ? `used by ${s.used_by.join(", ")}` : "unused"}
              </span>{" "}
              <button
                type="button"
                class="btn btn-ghost btn-small"
                aria-label={`Delete the secret ${s.name}`}
                onClick={() => onDelete(s.name)}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      <FormError error={deleteError} testId="secret-delete-error" />
      <form class="form" onSubmit={onSet} noValidate data-testid="secret-form">
        <Field id="secret-name" label="Name" help="Setting an existing name replaces its value.">
          <TextInput id="secret-name" name="secret_name" autoComplete="off" placeholder="LOGIN_PW" value={name} onValue={setName} />
        </Field>
        <Field id="secret-value" label="Value" help="Stored encrypted on the server; never shown again.">
          <TextInput id="secret-value" name="secret_value" type="password" autoComplete="new-password" value={value} onValue={setValue} />
        </Field>
        <FormError error={error} testId="secret-error" />
        <SubmitButton busy={busy} label="Set secret" busyLabel="Saving…" testId="secret-set" />
      </form>
    </section>
  );
}
