//! Webhooks (docs/console-api.md "Webhooks"): deft POSTs its events — a run's end, a task
//! run's end, an audit's suggestions, a device going offline, a test ping — to the URLs people
//! register, signed ([`signing`]), retried with backoff, logged.
//!
//! - [`Webhooks`]: the handle [`crate::App`] keeps — what the console and the CLI do to
//!   webhooks (create with a secret shown once, change, rotate, delete, send a test, redeliver),
//!   each input checked here ([`WebhookError::Invalid`] names the field), and [`Webhooks::emit`],
//!   which the app's run ends and the [`crate::notices::Notifier`] call: one store write per
//!   subscribed webhook, never a wait on a receiver;
//! - [`sender`]: the background worker that sends the due deliveries;
//! - [`address`]: which hosts a webhook may reach (SSRF), at save time and at connect time;
//! - [`events`]: the payloads.

pub mod address;
pub mod events;
pub mod sender;
pub mod signing;

use std::sync::Arc;
use std::time::Duration;

use deft_protocol::webhook::WebhookEvent;
use deft_store::{
    NewDelivery, NewWebhook, Store, StoreError, Webhook, WebhookChange, WebhookDelivery,
};
use tokio::sync::Notify;

use crate::scheduler::{Clock, SystemClock};
use crate::texts;

/// The longest webhook name.
pub const MAX_NAME_CHARS: usize = 100;

/// Seals a webhook's signing secret for the store and opens it to sign (`deft serve`'s data
/// folder key; the same one the secrets of tasks are sealed with).
pub trait Sealer: Send + Sync {
    /// `plain` sealed, as text.
    fn seal(&self, plain: &str) -> Result<String, String>;
    /// The plain text of `sealed`.
    fn open(&self, sealed: &str) -> Result<String, String>;
}

/// How webhooks are delivered.
#[derive(Debug, Clone)]
pub struct WebhookConfig {
    /// Allow hosts that are or resolve to addresses of this machine and its networks
    /// (`deft serve --webhooks-allow-private`); refused otherwise.
    pub allow_private: bool,
    /// The wait before each retry: a delivery gets one attempt plus one per entry.
    pub retry_delays: Vec<Duration>,
    /// How far each wait may stray, as a fraction of it (0.2: ±20 %), so that the retries of
    /// many deliveries do not arrive together.
    pub jitter: f64,
    /// The limit of connecting and of the whole attempt.
    pub timeout: Duration,
    /// How many bytes of an answer's body a delivery keeps.
    pub excerpt_bytes: usize,
}

impl Default for WebhookConfig {
    /// Refuses private addresses; retries after about 10 s, 1 min, 5 min, 30 min and 2 h (six
    /// attempts in all, over about 2 h 36 min); 10 s per attempt; 1 KiB of each answer kept.
    fn default() -> Self {
        WebhookConfig {
            allow_private: false,
            retry_delays: [10, 60, 300, 1_800, 7_200]
                .into_iter()
                .map(Duration::from_secs)
                .collect(),
            jitter: 0.2,
            timeout: Duration::from_secs(10),
            excerpt_bytes: 1_024,
        }
    }
}

/// What [`Webhooks::create`] takes.
#[derive(Debug, Clone)]
pub struct WebhookInput {
    /// Unique name.
    pub name: String,
    /// The http(s) URL.
    pub url: String,
    /// Event kinds by wire name.
    pub events: Vec<String>,
    /// Whether it starts enabled.
    pub enabled: bool,
}

/// What [`Webhooks::update`] takes: each field given replaces the stored one.
#[derive(Debug, Clone, Default)]
pub struct WebhookPatch {
    /// A new name.
    pub name: Option<String>,
    /// A new URL.
    pub url: Option<String>,
    /// New event kinds.
    pub events: Option<Vec<String>>,
    /// Enable or disable.
    pub enabled: Option<bool>,
}

/// A webhook operation refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// An input field is wrong: which, and why.
    #[error("{field}: {why}")]
    Invalid {
        /// The field (`name`, `url`, `events`).
        field: &'static str,
        /// Why, for a person.
        why: String,
    },
    /// No such webhook or delivery.
    #[error("{0}")]
    NotFound(String),
    /// The name is taken.
    #[error("{0}")]
    Conflict(String),
    /// The webhook is disabled (a test or redelivery).
    #[error("{0}")]
    Disabled(String),
    /// The secret could not be made or sealed.
    #[error("{0}")]
    Secret(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The webhooks of one server: their settings, the sealer of their secrets and the wake-up of
/// the sender. Cheap to clone.
#[derive(Clone)]
pub struct Webhooks {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    sealer: Arc<dyn Sealer>,
    config: WebhookConfig,
    wake: Notify,
}

impl Webhooks {
    /// The webhooks of `store`, their secrets sealed by `sealer`.
    pub fn new(store: &Store, sealer: Arc<dyn Sealer>, config: WebhookConfig) -> Webhooks {
        Webhooks {
            inner: Arc::new(Inner {
                store: store.clone(),
                sealer,
                config,
                wake: Notify::new(),
            }),
        }
    }

    /// How deliveries are made.
    pub fn config(&self) -> &WebhookConfig {
        &self.inner.config
    }

    fn store(&self) -> &Store {
        &self.inner.store
    }

    /// Queues `data` as an event of `kind` for every enabled webhook that receives it and
    /// wakes the sender. Never fails the caller: a store failure is logged.
    pub async fn emit(&self, kind: WebhookEvent, data: serde_json::Value) {
        let hooks = match self.store().webhooks_for(kind.as_str()).await {
            Ok(hooks) => hooks,
            Err(e) => {
                tracing::error!(event = %kind, error = %e, "cannot read the webhooks");
                return;
            }
        };
        if hooks.is_empty() {
            return;
        }
        let event = events::Event::new(kind, data);
        for hook in &hooks {
            if let Err(e) = self.enqueue(hook, &event).await {
                tracing::error!(event = %kind, webhook = %hook.name, error = %e, "cannot queue a webhook delivery");
            }
        }
    }

    async fn enqueue(
        &self,
        hook: &Webhook,
        event: &events::Event,
    ) -> Result<WebhookDelivery, StoreError> {
        let delivery = self
            .store()
            .enqueue_webhook_delivery(&NewDelivery {
                webhook_id: hook.id.clone(),
                event_kind: event.kind.as_str().to_owned(),
                event_id: event.id.clone(),
                payload: event.body(),
                now_ms: SystemClock.now_ms(),
            })
            .await?;
        self.inner.wake.notify_one();
        Ok(delivery)
    }

    /// Every webhook, in name order.
    pub async fn list(&self) -> Result<Vec<Webhook>, WebhookError> {
        Ok(self.store().webhooks().await?)
    }

    /// The webhook with this id or name.
    pub async fn get(&self, key: &str) -> Result<Webhook, WebhookError> {
        self.store()
            .webhook(key)
            .await?
            .ok_or_else(|| WebhookError::NotFound(texts::webhook_unknown(key)))
    }

    /// Makes a webhook: the webhook and its signing secret, which is never shown again.
    pub async fn create(&self, input: &WebhookInput) -> Result<(Webhook, String), WebhookError> {
        let name = check_name(&input.name)?;
        let url = self.check_url(&input.url).await?;
        let events = check_events(&input.events)?;
        let (secret, sealed) = self.new_secret()?;
        let hook = self
            .store()
            .create_webhook(&NewWebhook {
                name: name.clone(),
                url,
                events,
                sealed_secret: sealed,
                enabled: input.enabled,
                now_ms: SystemClock.now_ms(),
            })
            .await
            .map_err(|e| conflict(e, &name))?;
        Ok((hook, secret))
    }

    /// Changes a webhook; each field given is checked as at creation.
    pub async fn update(&self, key: &str, patch: &WebhookPatch) -> Result<Webhook, WebhookError> {
        let hook = self.get(key).await?;
        let change = WebhookChange {
            name: patch.name.as_deref().map(check_name).transpose()?,
            url: match &patch.url {
                Some(url) => Some(self.check_url(url).await?),
                None => None,
            },
            events: patch.events.as_deref().map(check_events).transpose()?,
            enabled: patch.enabled,
        };
        let name = change.name.clone().unwrap_or_default();
        let changed = self
            .store()
            .update_webhook(&hook.id, &change, SystemClock.now_ms())
            .await
            .map_err(|e| conflict(e, &name))?;
        changed.ok_or_else(|| WebhookError::NotFound(texts::webhook_unknown(key)))
    }

    /// Gives a webhook a new signing secret (the old one stops at once): the webhook and the
    /// new secret, never shown again.
    pub async fn rotate(&self, key: &str) -> Result<(Webhook, String), WebhookError> {
        let hook = self.get(key).await?;
        let (secret, sealed) = self.new_secret()?;
        self.store()
            .set_webhook_secret(&hook.id, &sealed, SystemClock.now_ms())
            .await?;
        Ok((self.get(&hook.id).await?, secret))
    }

    /// Deletes a webhook and its deliveries.
    pub async fn delete(&self, key: &str) -> Result<(), WebhookError> {
        let hook = self.get(key).await?;
        self.store().delete_webhook(&hook.id).await?;
        Ok(())
    }

    /// Queues a `ping` for the webhook (whatever events it receives): the delivery.
    pub async fn send_test(&self, key: &str) -> Result<WebhookDelivery, WebhookError> {
        let hook = self.enabled(key).await?;
        let event = events::Event::new(WebhookEvent::Ping, events::ping(&hook));
        Ok(self.enqueue(&hook, &event).await?)
    }

    /// Queues a delivery's event again, as a new delivery of the same event (same event id
    /// and body, a new delivery id, its own attempts).
    pub async fn redeliver(
        &self,
        key: &str,
        delivery_id: &str,
    ) -> Result<WebhookDelivery, WebhookError> {
        let hook = self.enabled(key).await?;
        let old = self
            .store()
            .webhook_delivery(delivery_id)
            .await?
            .filter(|d| d.webhook_id == hook.id)
            .ok_or_else(|| WebhookError::NotFound(texts::webhook_delivery_unknown(delivery_id)))?;
        let delivery = self
            .store()
            .enqueue_webhook_delivery(&NewDelivery {
                webhook_id: hook.id.clone(),
                event_kind: old.event_kind,
                event_id: old.event_id,
                payload: old.payload,
                now_ms: SystemClock.now_ms(),
            })
            .await?;
        self.inner.wake.notify_one();
        Ok(delivery)
    }

    /// A page of the webhook's deliveries, newest first.
    pub async fn deliveries(
        &self,
        key: &str,
        before: Option<&str>,
        limit: u32,
    ) -> Result<deft_store::DeliveryPage, WebhookError> {
        let hook = self.get(key).await?;
        self.store()
            .webhook_deliveries(&hook.id, before, limit)
            .await
            .map_err(|e| match e {
                StoreError::Invalid(_) => WebhookError::NotFound(texts::webhook_delivery_unknown(
                    before.unwrap_or_default(),
                )),
                other => other.into(),
            })
    }

    async fn enabled(&self, key: &str) -> Result<Webhook, WebhookError> {
        let hook = self.get(key).await?;
        if !hook.enabled {
            return Err(WebhookError::Disabled(texts::webhook_disabled(&hook.name)));
        }
        Ok(hook)
    }

    async fn check_url(&self, url: &str) -> Result<String, WebhookError> {
        address::check_url(url, self.inner.config.allow_private)
            .await
            .map(String::from)
            .map_err(|why| WebhookError::Invalid { field: "url", why })
    }

    fn new_secret(&self) -> Result<(String, String), WebhookError> {
        let secret = signing::new_secret().map_err(|e| WebhookError::Secret(e.to_string()))?;
        let sealed = self
            .inner
            .sealer
            .seal(&secret)
            .map_err(WebhookError::Secret)?;
        Ok((secret, sealed))
    }
}

fn conflict(e: StoreError, name: &str) -> WebhookError {
    match e {
        StoreError::Conflict(_) => WebhookError::Conflict(texts::webhook_exists(name)),
        other => other.into(),
    }
}

/// A name as kept: trimmed, not empty, at most [`MAX_NAME_CHARS`], no control characters.
fn check_name(name: &str) -> Result<String, WebhookError> {
    let invalid = |why: String| WebhookError::Invalid { field: "name", why };
    let name = name.trim();
    if name.is_empty() {
        return Err(invalid(texts::WEBHOOK_NAME_EMPTY.to_owned()));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(invalid(texts::webhook_name_too_long(MAX_NAME_CHARS)));
    }
    if name.chars().any(char::is_control) {
        return Err(invalid(texts::WEBHOOK_NAME_CONTROL.to_owned()));
    }
    Ok(name.to_owned())
}

/// Event kinds as kept: at least one, each one a webhook can subscribe to, in the order
/// [`WebhookEvent::subscribable`] lists them, without repeats.
fn check_events(names: &[String]) -> Result<Vec<String>, WebhookError> {
    let known: Vec<&str> = WebhookEvent::subscribable()
        .map(WebhookEvent::as_str)
        .collect();
    let invalid = |why: String| WebhookError::Invalid {
        field: "events",
        why,
    };
    if names.is_empty() {
        return Err(invalid(texts::webhook_events_empty(&known.join(", "))));
    }
    if let Some(bad) = names.iter().find(|n| !known.contains(&n.as_str())) {
        return Err(invalid(texts::webhook_event_unknown(
            bad,
            &known.join(", "),
        )));
    }
    Ok(known
        .into_iter()
        .filter(|k| names.iter().any(|n| n == k))
        .map(str::to_owned)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_events_are_checked() {
        assert_eq!(check_name("  ci  ").unwrap(), "ci");
        assert!(matches!(
            check_name(" "),
            Err(WebhookError::Invalid { field: "name", .. })
        ));
        assert!(matches!(
            check_name("a\nb"),
            Err(WebhookError::Invalid { field: "name", .. })
        ));
        let long = "x".repeat(MAX_NAME_CHARS + 1);
        assert!(matches!(
            check_name(&long),
            Err(WebhookError::Invalid { field: "name", .. })
        ));

        let events =
            |v: &[&str]| check_events(&v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        assert_eq!(
            events(&["device.offline", "run.ended", "run.ended"]).unwrap(),
            ["run.ended", "device.offline"]
        );
        let Err(WebhookError::Invalid { field, why }) = events(&["ping"]) else {
            panic!("ping is not subscribable");
        };
        assert_eq!(field, "events");
        assert_eq!(
            why,
            texts::webhook_event_unknown(
                "ping",
                "run.ended, task_run.ended, audit.suggestion, device.offline"
            )
        );
        assert!(matches!(
            events(&[]),
            Err(WebhookError::Invalid {
                field: "events",
                ..
            })
        ));
    }
}
