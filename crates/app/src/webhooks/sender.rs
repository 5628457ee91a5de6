//! The sender: one background worker per server that claims the due deliveries in the store,
//! POSTs each (signed anew at each attempt, no redirect followed, limited in time, only to
//! public addresses unless allowed) and records how it went — delivered on a 2xx answer,
//! otherwise due again after the next wait of the retry schedule, or failed after the last
//! one, when its webhook is marked failing and the console told; a later success clears it.
//! It sleeps until the next delivery is due or [`super::Webhooks::emit`] wakes it.

use std::time::{Duration, Instant};

use deft_store::{
    AttemptRecord, DeliveryState, NewNotification, NotificationKind, NotificationLevel, Webhook,
    WebhookDelivery,
};
use reqwest::Client;
use tokio_util::sync::CancellationToken;

use super::{address, signing};
use crate::App;
use crate::scheduler::{Clock, SystemClock};
use crate::texts;

/// How many deliveries one round claims and sends at once.
const BATCH: u32 = 16;
/// The longest the sender sleeps without looking at the store (deliveries another server
/// queued wake nobody here).
const IDLE: Duration = Duration::from_secs(30);

/// Runs the sender of `app`'s webhooks until `stop` fires.
pub async fn run(app: App, stop: CancellationToken) {
    let hooks = app.webhooks().clone();
    let client = match client(hooks.config()) {
        Ok(c) => c,
        Err(e) => {
            tracing::error!(error = %e, "webhooks: cannot build the HTTP client; nothing is delivered");
            return;
        }
    };
    loop {
        let now = SystemClock.now_ms();
        let lease = now + lease_ms(hooks.config().timeout);
        let due = match app
            .store()
            .claim_webhook_deliveries(now, lease, BATCH)
            .await
        {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!(error = %e, "webhooks: cannot read the due deliveries");
                Vec::new()
            }
        };
        if !due.is_empty() {
            let sends = due.into_iter().map(|d| attempt(&app, &client, d));
            tokio::select! {
                _ = futures::future::join_all(sends) => continue,
                () = stop.cancelled() => return,
            }
        }
        let wait = match app.store().next_webhook_due().await {
            Ok(Some(at)) => {
                Duration::from_millis(u64::try_from(at - SystemClock.now_ms()).unwrap_or(0))
            }
            _ => IDLE,
        }
        .min(IDLE);
        tokio::select! {
            () = stop.cancelled() => return,
            () = hooks.inner.wake.notified() => {}
            () = tokio::time::sleep(wait) => {}
        }
    }
}

/// How long a claimed delivery is held before another sender may try it: the attempt's limit
/// and a margin for recording it.
fn lease_ms(timeout: Duration) -> i64 {
    i64::try_from((timeout * 2 + Duration::from_secs(5)).as_millis()).unwrap_or(i64::MAX)
}

/// The delivery client: no proxy, no redirects, the attempt's limits, public addresses only
/// unless allowed.
fn client(config: &super::WebhookConfig) -> reqwest::Result<Client> {
    let builder = Client::builder()
        .user_agent(concat!("deft/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .connect_timeout(config.timeout)
        .timeout(config.timeout);
    let builder = if config.allow_private {
        builder
    } else {
        builder.dns_resolver(std::sync::Arc::new(address::PublicOnly))
    };
    builder.build()
}

/// One attempt of `delivery`, recorded; the webhook's failing mark follows its outcome.
async fn attempt(app: &App, client: &Client, delivery: WebhookDelivery) {
    let store = app.store();
    let hook = match store.webhook(&delivery.webhook_id).await {
        Ok(Some(hook)) => hook,
        Ok(None) => return, // deleted meanwhile, with its deliveries
        Err(e) => {
            tracing::warn!(delivery = %delivery.id, error = %e, "webhooks: cannot read the webhook");
            return;
        }
    };
    let started = Instant::now();
    let sent = if hook.enabled {
        post(app, client, &hook, &delivery).await
    } else {
        Sent::refused(texts::WEBHOOK_DELIVERY_DISABLED.to_owned())
    };
    let config = app.webhooks().config();
    let attempts = delivery.attempts + 1;
    let (state, next) = match (&sent.error, hook.enabled) {
        (None, _) => (DeliveryState::Succeeded, None),
        (Some(_), true) if (attempts as usize) <= config.retry_delays.len() => {
            let wait = jittered(config.retry_delays[attempts as usize - 1], config.jitter);
            (
                DeliveryState::Pending,
                Some(SystemClock.now_ms() + millis(wait)),
            )
        }
        _ => (DeliveryState::Failed, None),
    };
    let record = AttemptRecord {
        state,
        next_attempt_at_ms: next,
        response_code: sent.code,
        error: sent.error.clone(),
        response_excerpt: sent.excerpt,
        duration_ms: millis(started.elapsed()),
        now_ms: SystemClock.now_ms(),
    };
    // The webhook's mark first, then the delivery's state: whoever sees the delivery settled
    // sees its webhook's mark as it follows from it.
    match state {
        DeliveryState::Succeeded if hook.failing => {
            if let Err(e) = store.set_webhook_failing(&hook.id, false).await {
                tracing::warn!(webhook = %hook.name, error = %e, "webhooks: cannot clear the failing mark");
            }
        }
        DeliveryState::Failed if hook.enabled => {
            let error = sent.error.as_deref().unwrap_or_default();
            mark_failing(app, &hook, &delivery.event_kind, attempts, error).await;
        }
        _ => {}
    }
    if let Err(e) = store.record_webhook_attempt(&delivery.id, &record).await {
        tracing::error!(delivery = %delivery.id, error = %e, "webhooks: cannot record an attempt");
    }
}

/// Marks `hook` failing and, when it was not yet, tells the console.
async fn mark_failing(app: &App, hook: &Webhook, event: &str, attempts: u32, error: &str) {
    tracing::warn!(webhook = %hook.name, %event, %error, "webhooks: a delivery failed after its last attempt");
    if let Err(e) = app.store().set_webhook_failing(&hook.id, true).await {
        tracing::warn!(webhook = %hook.name, error = %e, "webhooks: cannot mark the webhook failing");
    }
    if hook.failing {
        return;
    }
    app.notifier()
        .publish(NewNotification {
            kind: NotificationKind::WebhookFailing,
            level: NotificationLevel::Error,
            title: texts::notice_webhook_failing(&hook.name),
            body: texts::notice_webhook_failed_delivery(event, attempts, error),
            link: "/".to_owned(),
            task_id: None,
            run_id: None,
            conversation_id: None,
            device: None,
        })
        .await;
}

/// How one attempt went: the status if an answer came, the start of its body, and the error
/// unless it was a 2xx.
struct Sent {
    code: Option<u16>,
    excerpt: Option<String>,
    error: Option<String>,
}

impl Sent {
    fn refused(error: String) -> Sent {
        Sent {
            code: None,
            excerpt: None,
            error: Some(error),
        }
    }
}

/// POSTs `delivery` to `hook`, signed now with its secret.
async fn post(app: &App, client: &Client, hook: &Webhook, delivery: &WebhookDelivery) -> Sent {
    let config = app.webhooks().config();
    let url = match address::parse_url(&hook.url) {
        Ok(url) => url,
        Err(why) => return Sent::refused(why),
    };
    if !config.allow_private {
        let literal = match url.host() {
            Some(url::Host::Ipv4(v4)) => Some(std::net::IpAddr::V4(v4)),
            Some(url::Host::Ipv6(v6)) => Some(std::net::IpAddr::V6(v6)),
            _ => None,
        };
        if let Some(Err(why)) = literal.map(address::refuse_literal) {
            return Sent::refused(why);
        }
    }
    let secret = match secret_of(app, hook).await {
        Ok(secret) => secret,
        Err(why) => return Sent::refused(why),
    };
    let body = delivery.payload.clone().into_bytes();
    let signature = signing::signature_header(&secret, SystemClock.now_ms() / 1_000, &body);
    let kind = delivery.event_kind.clone();
    let request = client
        .post(url)
        .header("content-type", "application/json")
        .header("deft-event", kind)
        .header("deft-delivery", &delivery.id)
        .header("deft-signature", signature)
        .body(body);
    match request.send().await {
        Ok(response) => answered(response, config.excerpt_bytes).await,
        Err(e) if e.is_timeout() => {
            Sent::refused(texts::webhook_timed_out(config.timeout.as_secs()))
        }
        Err(e) => Sent::refused(describe(&e)),
    }
}

/// The opened secret of `hook`.
async fn secret_of(app: &App, hook: &Webhook) -> Result<String, String> {
    let sealed = app
        .store()
        .sealed_webhook_secret(&hook.id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| texts::webhook_unknown(&hook.id))?;
    app.webhooks()
        .inner
        .sealer
        .open(&sealed)
        .map_err(|_| texts::WEBHOOK_SECRET_UNOPENABLE.to_owned())
}

/// An answer: its status, and at most `cap` bytes of its body (the rest is not read).
async fn answered(mut response: reqwest::Response, cap: usize) -> Sent {
    let status = response.status();
    let mut kept = Vec::new();
    while kept.len() < cap {
        match response.chunk().await {
            Ok(Some(chunk)) => kept.extend_from_slice(&chunk),
            _ => break,
        }
    }
    kept.truncate(cap);
    let excerpt = String::from_utf8_lossy(&kept).into_owned();
    Sent {
        code: Some(status.as_u16()),
        excerpt: Some(excerpt).filter(|e| !e.is_empty()),
        error: (!status.is_success()).then(|| texts::webhook_http_status(status.as_u16())),
    }
}

/// An error with its causes, which say what went wrong ("connection refused", the resolver's
/// refusal) where the top one only names the URL.
fn describe(e: &reqwest::Error) -> String {
    let mut text = String::new();
    let mut cause: Option<&dyn std::error::Error> = std::error::Error::source(e);
    while let Some(c) = cause {
        let part = c.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
        cause = c.source();
    }
    if text.is_empty() { e.to_string() } else { text }
}

/// `wait`, moved by up to `jitter` of it either way.
fn jittered(wait: Duration, jitter: f64) -> Duration {
    let unit = f64::from(getrandom::u32().unwrap_or(u32::MAX / 2)) / f64::from(u32::MAX);
    let factor = 1.0 + jitter.clamp(0.0, 1.0) * (2.0 * unit - 1.0);
    wait.mul_f64(factor.max(0.0))
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_within_its_fraction() {
        let wait = Duration::from_secs(100);
        for _ in 0..200 {
            let j = jittered(wait, 0.2);
            assert!(
                j >= Duration::from_secs(80) && j <= Duration::from_secs(120),
                "{j:?}"
            );
        }
        assert_eq!(jittered(wait, 0.0), wait);
    }
}
