// Named API tokens (docs/console-api.md "API tokens"): listed with their scopes, state, expiry
// and last use; made with a name, scopes and an optional expiry — the value shown once, with a
// copy button, and never again —; revoked, which the server refuses from the token's next call.
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { useSubmit } from "../hooks/useSubmit";
import type { ApiTokenView } from "../types";
import { Field, FormError, SubmitButton, TextInput } from "./FormFields";
import { ShownOnce } from "./ShownOnce";

/** The section (inside the settings dialog, after the secrets). */
export function TokensSection() {
  const [tokens, setTokens] = useState<ApiTokenView[] | null>(null);
  const [scopes, setScopes] = useState<string[]>([]);
  const [loadError, setLoadError] = useState("");
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState<string[]>([]);
  const [days, setDays] = useState("");
  const [made, setMade] = useState<{ name: string; value: string } | null>(null);
  const [revokeError, setRevokeError] = useState("");
  const { error, setError, busy, submit } = useSubmit();

  const reload = () =>
    api
      .tokens()
      .then((l) => {
        setTokens(l.items);
        setScopes(l.scopes);
      })
      .catch((e) => setLoadError(errorText(e)));
  useEffect(() => void reload(), []);

  const toggle = (scope: string) =>
    setChosen((now) => (now.includes(scope) ? now.filter((s) => s !== scope) : [...now, scope]));

  const onCreate = (e: Event) => {
    e.preventDefault();
    const n = name.trim();
    if (!n) return setError("Give the token a name, e.g. nightly-erp.");
    if (chosen.length === 0) return setError("Pick at least one scope.");
    const expires = days.trim() ? Number(days.trim()) : undefined;
    if (expires !== undefined && !(Number.isInteger(expires) && expires >= 1 && expires <= 3650)) {
      return setError("Expires in: a whole number of days from 1 to 3650, or empty for a token that does not expire.");
    }
    void submit(async () => {
      const answer = await api.createToken(n, chosen, expires);
      setMade({ name: n, value: answer.value });
      setName("");
      setChosen([]);
      setDays("");
      await reload();
    });
  };

  const onRevoke = (n: string) => {
    setRevokeError("");
    api
      .revokeToken(n)
      .then(reload)
      .catch((e) => setRevokeError(errorText(e)));
  };

  return (
    <section class="secrets api-tokens" aria-labelledby="tokens-title" data-testid="tokens">
      <h3 id="tokens-title">API tokens</h3>
      <p class="muted small">
        For other software: each token reaches only what its scopes name, and is sent as{" "}
        <code>Authorization: Bearer deft_…</code>.
      </p>
      {loadError && <FormError error={loadError} />}
      {made && (
        <ShownOnce
          key={made.value}
          value={made.value}
          label={`The value of the token ${made.name}`}
          testId="token-made"
          valueTestId="token-value"
          onDone={() => setMade(null)}
        >
          The token <strong>{made.name}</strong>
        </ShownOnce>
      )}
      {tokens && tokens.length === 0 && <p class="muted small">No tokens yet.</p>}
      {tokens && tokens.length > 0 && (
        <ul class="secret-list" data-testid="token-list">
          {tokens.map((t) => (
            <li key={t.id} data-testid="token" data-state={t.state}>
              <span class="mono">{t.name}</span>{" "}
              <span class={`chip chip-token-${t.state}`}>{t.state}</span>{" "}
              <span class="muted small">
                {t.scopes.join(", ")} · {t.prefix}… · {t.last_used_at ? `last used ${t.last_used_at.slice(0, 16).replace("T", " ")}` : "never used"}
                {t.expires_at ? ` · expires ${t.expires_at.slice(0, 10)}` : ""}
              </span>{" "}
              {t.state !== "revoked" && (
                <button
                  type="button"
                  class="btn btn-ghost btn-small"
                  aria-label={`Revoke the token ${t.name}`}
                  onClick={() => onRevoke(t.name)}
                >
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <FormError error={revokeError} testId="token-revoke-error" />
      <form class="form" onSubmit={onCreate} noValidate data-testid="token-form">
        <Field id="token-name" label="Name" help="What the token is for, e.g. nightly-erp.">
          <TextInput id="token-name" name="token_name" autoComplete="off" value={name} onValue={setName} />
        </Field>
        <fieldset class="token-scopes">
          <legend>Scopes</legend>
          {scopes.map((s) => (
            <label key={s} class="check">
              <input type="checkbox" checked={chosen.includes(s)} onChange={() => toggle(s)} /> <span class="mono">{s}</span>
            </label>
          ))}
        </fieldset>
        <Field id="token-days" label="Expires in (days)" help="Empty: works until revoked.">
          <TextInput id="token-days" name="token_days" inputMode="numeric" autoComplete="off" value={days} onValue={setDays} />
        </Field>
        <FormError error={error} testId="token-error" />
        <SubmitButton busy={busy} label="Create token" busyLabel="Creating…" testId="token-create" />
      </form>
    </section>
  );
}
