// Webhooks (docs/console-api.md "Webhooks"): listed with their URL, events, state (active,
// disabled, failing) and last delivery; made with a name, a URL and events — the signing secret
// shown once, with a copy button, and never again —; enabled or disabled, sent a test, given a
// new secret, deleted after a confirmation; and each one's delivery log (WebhookDeliveries).
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api";
import { useSubmit } from "../hooks/useSubmit";
import type { Webhook } from "../types";
import { Field, FormError, SubmitButton, TextInput } from "./FormFields";
import { ShownOnce } from "./ShownOnce";
import { WebhookDeliveries, shortTime } from "./WebhookDeliveries";

/** The section (inside the settings dialog, after the API tokens). */
export function WebhooksSection() {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [kinds, setKinds] = useState<string[]>([]);
  const [loadError, setLoadError] = useState("");
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [chosen, setChosen] = useState<string[]>([]);
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);
  const [actionError, setActionError] = useState("");
  const [open, setOpen] = useState<string | null>(null);
  const { error, setError, busy, run } = useSubmit();

  const reload = () =>
    api
      .webhooks()
      .then((l) => {
        setHooks(l.items);
        setKinds(l.events);
        setLoadError("");
      })
      .catch((e) => setLoadError(errorText(e)));
  useEffect(() => void reload(), []);

  const toggle = (kind: string) =>
    setChosen((now) => (now.includes(kind) ? now.filter((k) => k !== kind) : [...now, kind]));

  const onCreate = (e: Event) => {
    e.preventDefault();
    const n = name.trim();
    const u = url.trim();
    if (!n) return setError("Give the webhook a name, e.g. ci-alerts.");
    if (!/^https?:\/\/\S+$/i.test(u)) return setError("URL: an http:// or https:// address, e.g. https://example.com/hooks/deft.");
    if (chosen.length === 0) return setError("Pick at least one event.");
    void run(async () => {
      // a refusal names its field ("url: 10.0.0.8 is a private … address …")
      const made = await api.createWebhook(n, u, chosen);
      setSecret({ name: made.webhook.name, value: made.secret });
      setName("");
      setUrl("");
      setChosen([]);
      await reload();
    });
  };

  /** Runs an action on a webhook, then reloads the list; its error shows under the list. */
  const act = (action: () => Promise<unknown>) => {
    setActionError("");
    action()
      .then(reload)
      .catch((e) => setActionError(errorText(e)));
  };

  const onDelete = (h: Webhook) => {
    if (!window.confirm(`Delete the webhook “${h.name}” and its delivery log? Its URL receives nothing more.`)) return;
    if (open === h.id) setOpen(null);
    act(() => api.deleteWebhook(h.id));
  };

  const onRotate = (h: Webhook) => {
    if (!window.confirm(`Give the webhook “${h.name}” a new secret? Deliveries are signed with the new one at once; the receiver must be given it.`)) return;
    act(async () => {
      const rotated = await api.rotateWebhook(h.id);
      setSecret({ name: rotated.webhook.name, value: rotated.secret });
    });
  };

  return (
    <section class="secrets webhooks" aria-labelledby="webhooks-title" data-testid="webhooks">
      <h3 id="webhooks-title">Webhooks</h3>
      <p class="muted small">
        deft POSTs the events you pick to your URL, signed in the <code>Deft-Signature</code> header (the README shows how to check it).
      </p>
      {loadError && <FormError error={loadError} />}
      {secret && (
        <ShownOnce
          key={secret.value}
          value={secret.value}
          label={`The signing secret of the webhook ${secret.name}`}
          testId="webhook-secret"
          valueTestId="webhook-secret-value"
          onDone={() => setSecret(null)}
        >
          The signing secret of <strong>{secret.name}</strong>
        </ShownOnce>
      )}
      {hooks && hooks.length === 0 && <p class="muted small">No webhooks yet.</p>}
      {hooks && hooks.length > 0 && (
        <ul class="webhook-list" data-testid="webhook-list">
          {hooks.map((h) => (
            <li key={h.id} data-testid="webhook" data-state={h.state}>
              <div class="webhook-head">
                <span class="mono">{h.name}</span> <span class={`chip chip-webhook-${h.state}`} data-testid="webhook-state">{h.state}</span>
              </div>
              <div class="mono small webhook-url">{h.url}</div>
              <div class="muted small">
                {h.events.join(", ")} ·{" "}
                {h.last_delivery
                  ? `last delivery ${h.last_delivery.event} ${h.last_delivery.state} ${shortTime(h.last_delivery.updated_at)}`
                  : "nothing delivered yet"}
              </div>
              <div class="webhook-actions">
                <button type="button" class="btn btn-small" data-testid="webhook-test" aria-label={`Send a test to ${h.name}`} disabled={!h.enabled} onClick={() => act(() => api.testWebhook(h.id))}>
                  Send a test
                </button>
                <button
                  type="button"
                  class="btn btn-ghost btn-small"
                  data-testid="webhook-log"
                  aria-expanded={open === h.id}
                  aria-label={`Deliveries of ${h.name}`}
                  onClick={() => setOpen(open === h.id ? null : h.id)}
                >
                  Deliveries
                </button>
                <button type="button" class="btn btn-ghost btn-small" data-testid="webhook-toggle" onClick={() => act(() => api.updateWebhook(h.id, { enabled: !h.enabled }))}>
                  {h.enabled ? "Disable" : "Enable"}
                </button>
                <button type="button" class="btn btn-ghost btn-small" aria-label={`Rotate the secret of ${h.name}`} onClick={() => onRotate(h)}>
                  Rotate secret
                </button>
                <button type="button" class="btn btn-ghost btn-small" aria-label={`Delete the webhook ${h.name}`} onClick={() => onDelete(h)}>
                  Delete
                </button>
              </div>
              {open === h.id && <WebhookDeliveries hook={h} onChanged={() => void reload()} />}
            </li>
          ))}
        </ul>
      )}
      <FormError error={actionError} testId="webhook-action-error" />
      <form class="form" onSubmit={onCreate} noValidate data-testid="webhook-form">
        <Field id="webhook-name" label="Name" help="What it is for, e.g. ci-alerts.">
          <TextInput id="webhook-name" name="webhook_name" autoComplete="off" value={name} onValue={setName} />
        </Field>
        <Field id="webhook-url" label="URL" help="Where deft POSTs (http or https). This server's own and private networks are refused unless deft serve allows them.">
          <TextInput id="webhook-url" name="webhook_url" type="url" autoComplete="off" value={url} onValue={setUrl} />
        </Field>
        <fieldset class="token-scopes">
          <legend>Events</legend>
          {kinds.map((k) => (
            <label key={k} class="check">
              <input type="checkbox" checked={chosen.includes(k)} onChange={() => toggle(k)} /> <span class="mono">{k}</span>
            </label>
          ))}
        </fieldset>
        <FormError error={error} testId="webhook-error" />
        <SubmitButton busy={busy} label="Create webhook" busyLabel="Creating…" testId="webhook-create" />
      </form>
    </section>
  );
}
