// One webhook's delivery log (docs/console-api.md "Webhooks"): newest first, a page at a time —
// event, state, HTTP status, attempts, duration and time — each expandable to its payload, the
// start of the receiver's answer and the last error, with "Redeliver". Refreshed every few
// seconds while a delivery is pending.
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api";
import type { Webhook, WebhookDelivery } from "../types";
import { FormError } from "./FormFields";

/** How often an open log with a pending delivery is read again, ms. */
const REFRESH_MS = 1500;

/** `2026-12-06T23:10:05Z` as `2026-12-06 23:10:05`. */
export function shortTime(iso: string): string {
  return iso.slice(0, 19).replace("T", " ");
}

/** The log of `hook`; `onChanged` after a redelivery (the list's last delivery moved). */
export function WebhookDeliveries({ hook, onChanged }: { hook: Webhook; onChanged: () => void }) {
  const [items, setItems] = useState<WebhookDelivery[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState("");

  const load = () =>
    api
      .webhookDeliveries(hook.id)
      .then((page) => {
        setItems(page.items);
        setNext(page.next);
        setError("");
        // the list's "last delivery" is older than the log: read the list again (after the
        // log, so it shows at least what the log shows)
        const newest = page.items[0];
        const listed = hook.last_delivery;
        if (newest && (newest.id !== listed?.id || newest.state !== listed?.state)) onChanged();
      })
      .catch((e) => setError(errorText(e)));
  // read again when the list changed (a test sent, a state moved) and while one is pending
  useEffect(() => void load(), [hook.id, hook.last_delivery?.id, hook.last_delivery?.state, hook.state]);
  const pending = items?.some((d) => d.state === "pending") ?? false;
  useEffect(() => {
    if (!pending) return;
    // a webhook's failing mark is set before its delivery is recorded settled, so the list
    // read after the log (load's onChanged) shows it
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [pending, hook.id]);

  const more = () => {
    if (!next) return;
    api
      .webhookDeliveries(hook.id, next)
      .then((page) => {
        setItems((now) => [...(now ?? []), ...page.items]);
        setNext(page.next);
      })
      .catch((e) => setError(errorText(e)));
  };

  const redeliver = (d: WebhookDelivery) => {
    setError("");
    api
      .redeliverWebhook(hook.id, d.id)
      .then(() => {
        onChanged();
        return load();
      })
      .catch((e) => setError(errorText(e)));
  };

  return (
    <div class="webhook-log" data-testid="webhook-deliveries">
      <div class="webhook-log-head">
        <strong class="small">Deliveries</strong>
        <button type="button" class="btn btn-ghost btn-small" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      <FormError error={error} testId="webhook-log-error" />
      {items && items.length === 0 && <p class="muted small">Nothing sent yet: “Send a test” sends a ping.</p>}
      {items && items.length > 0 && (
        <ul class="delivery-list">
          {items.map((d) => (
            <li key={d.id} data-testid="delivery" data-state={d.state}>
              <details>
                <summary>
                  <span class="mono">{d.event}</span> <span class={`chip chip-delivery-${d.state}`}>{d.state}</span>{" "}
                  <span class="muted small">
                    {d.response_code ? `HTTP ${d.response_code}` : "no answer"} · {d.attempts}/{d.max_attempts} attempts
                    {d.duration_ms !== null ? ` · ${d.duration_ms} ms` : ""} · {shortTime(d.updated_at)}
                    {d.next_attempt_at ? ` · next try ${shortTime(d.next_attempt_at)}` : ""}
                  </span>
                </summary>
                {d.error && (
                  <p class="small delivery-error" data-testid="delivery-error">
                    {d.error}
                  </p>
                )}
                <p class="muted small">
                  Delivery <span class="mono">{d.id}</span> · event <span class="mono">{d.event_id}</span>
                </p>
                <div class="small">Payload</div>
                <pre class="delivery-body" data-testid="delivery-payload">{JSON.stringify(d.payload, null, 2)}</pre>
                {d.response_excerpt && (
                  <>
                    <div class="small">Answer (start)</div>
                    <pre class="delivery-body" data-testid="delivery-answer">{d.response_excerpt}</pre>
                  </>
                )}
                <button type="button" class="btn btn-small" disabled={!hook.enabled} onClick={() => redeliver(d)} data-testid="delivery-redeliver">
                  Redeliver
                </button>
              </details>
            </li>
          ))}
        </ul>
      )}
      {next && (
        <button type="button" class="btn btn-ghost btn-small" onClick={more}>
          Older deliveries
        </button>
      )}
    </div>
  );
}
