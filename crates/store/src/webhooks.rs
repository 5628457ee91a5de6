//! Webhooks: where deft POSTs its events (each with its event kinds, its signing secret sealed
//! by the server, enabled and failing flags), and the durable queue and log of deliveries — a
//! pending delivery is claimed by one sender at a time, survives a restart, and each webhook
//! keeps its newest [`DELIVERIES_KEPT`] finished ones.

use serde::{Deserialize, Serialize};
use sqlx::any::AnyRow;
use sqlx::{AssertSqlSafe, Row};

use crate::Store;
use crate::convert::column;
use crate::error::{Result, StoreError, db, is_unique_violation};
use crate::lookup::optional;

/// How many finished deliveries each webhook keeps (pending ones are never pruned).
pub const DELIVERIES_KEPT: u32 = 500;

const READ: &str = "reading a webhook";
const READ_DELIVERY: &str = "reading a webhook delivery";
const HOOK_COLUMNS: &str = "h.id, h.name, h.url, h.events, h.enabled, h.failing, \
     h.created_at_ms, h.updated_at_ms, \
     (SELECT MAX(d.updated_at_ms) FROM webhook_deliveries d \
      WHERE d.webhook_id = h.id AND d.attempts > 0) AS last_delivery_at_ms";
const DELIVERY_COLUMNS: &str = "id, webhook_id, event_kind, event_id, payload, attempts, state, \
     next_attempt_at_ms, response_code, last_error, response_excerpt, duration_ms, \
     created_at_ms, updated_at_ms";

/// A webhook as stored, without its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Webhook {
    /// v4 UUID.
    pub id: String,
    /// Unique name.
    pub name: String,
    /// The http(s) address deliveries are POSTed to.
    pub url: String,
    /// The event kinds it receives.
    pub events: Vec<String>,
    /// Whether events are delivered to it.
    pub enabled: bool,
    /// Whether its last finished delivery failed after every attempt.
    pub failing: bool,
    /// When it was made, ms since the epoch.
    pub created_at_ms: i64,
    /// When it was last changed.
    pub updated_at_ms: i64,
    /// When a delivery to it was last attempted, if ever.
    pub last_delivery_at_ms: Option<i64>,
}

/// What [`Store::create_webhook`] takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWebhook {
    /// Unique name.
    pub name: String,
    /// The http(s) address.
    pub url: String,
    /// The event kinds it receives.
    pub events: Vec<String>,
    /// Its signing secret, sealed by the caller.
    pub sealed_secret: String,
    /// Whether it starts enabled.
    pub enabled: bool,
    /// Now, ms since the epoch.
    pub now_ms: i64,
}

/// What [`Store::update_webhook`] changes: each field given replaces the stored one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhookChange {
    /// A new name.
    pub name: Option<String>,
    /// A new address.
    pub url: Option<String>,
    /// New event kinds.
    pub events: Option<Vec<String>>,
    /// Enable or disable it.
    pub enabled: Option<bool>,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// Waiting for its (next) attempt.
    Pending,
    /// A 2xx answer came back.
    Succeeded,
    /// Every attempt failed.
    Failed,
}

impl DeliveryState {
    /// The stored (and wire) name.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Succeeded => "succeeded",
            DeliveryState::Failed => "failed",
        }
    }

    fn parse(s: &str) -> Result<DeliveryState> {
        match s {
            "pending" => Ok(DeliveryState::Pending),
            "succeeded" => Ok(DeliveryState::Succeeded),
            "failed" => Ok(DeliveryState::Failed),
            other => Err(StoreError::Corrupt {
                what: "a webhook delivery's state".to_owned(),
                cause: format!("unknown state {other:?}"),
            }),
        }
    }
}

/// One event for one webhook, with its last attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebhookDelivery {
    /// v4 UUID: the `Deft-Delivery` header, the same on every attempt.
    pub id: String,
    /// The webhook.
    pub webhook_id: String,
    /// The event kind (`run.ended`, …, `ping`).
    pub event_kind: String,
    /// The event's id (the payload's `id`).
    pub event_id: String,
    /// The JSON body POSTed.
    pub payload: String,
    /// Attempts made so far.
    pub attempts: u32,
    /// Where it stands.
    pub state: DeliveryState,
    /// When a pending delivery is due next.
    pub next_attempt_at_ms: Option<i64>,
    /// The last answer's HTTP status, if one came.
    pub response_code: Option<u16>,
    /// Why the last attempt failed, if it did.
    pub last_error: Option<String>,
    /// The start of the last answer's body.
    pub response_excerpt: Option<String>,
    /// How long the last attempt took, ms.
    pub duration_ms: Option<i64>,
    /// When it was queued.
    pub created_at_ms: i64,
    /// When it last changed.
    pub updated_at_ms: i64,
}

/// What [`Store::enqueue_webhook_delivery`] takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewDelivery {
    /// The webhook.
    pub webhook_id: String,
    /// The event kind.
    pub event_kind: String,
    /// The event's id.
    pub event_id: String,
    /// The JSON body.
    pub payload: String,
    /// Now (queued and due), ms since the epoch.
    pub now_ms: i64,
}

/// How an attempt ended, as [`Store::record_webhook_attempt`] stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptRecord {
    /// Where the delivery stands now.
    pub state: DeliveryState,
    /// When it is due again (pending only).
    pub next_attempt_at_ms: Option<i64>,
    /// The answer's status, if one came.
    pub response_code: Option<u16>,
    /// Why it failed, if it did.
    pub error: Option<String>,
    /// The start of the answer's body.
    pub response_excerpt: Option<String>,
    /// How long it took, ms.
    pub duration_ms: i64,
    /// Now, ms since the epoch.
    pub now_ms: i64,
}

/// A page of a webhook's deliveries, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryPage {
    /// The deliveries.
    pub items: Vec<WebhookDelivery>,
    /// The id to pass as `before` for the next page; `None` on the last one.
    pub next: Option<String>,
}

impl Store {
    /// Stores a new webhook. [`StoreError::Conflict`] when the name is taken.
    pub async fn create_webhook(&self, new: &NewWebhook) -> Result<Webhook> {
        let id = uuid::Uuid::new_v4().to_string();
        sqlx::query(
            "INSERT INTO webhooks (id, name, url, events, sealed_secret, enabled, failing, \
             created_at_ms, updated_at_ms) VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $7)",
        )
        .bind(&id)
        .bind(&new.name)
        .bind(&new.url)
        .bind(new.events.join(","))
        .bind(&new.sealed_secret)
        .bind(i64::from(new.enabled))
        .bind(new.now_ms)
        .execute(&self.pool)
        .await
        .map_err(|e| name_taken(e, &new.name, "saving a webhook"))?;
        self.webhook(&id)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("webhook {id} vanished")))
    }

    /// Every webhook, in name order.
    pub async fn webhooks(&self) -> Result<Vec<Webhook>> {
        let sql = format!("SELECT {HOOK_COLUMNS} FROM webhooks h ORDER BY h.name, h.id");
        let rows = sqlx::query(AssertSqlSafe(sql))
            .fetch_all(&self.pool)
            .await
            .map_err(db(READ))?;
        rows.iter().map(hook_from_row).collect()
    }

    /// The webhook with id `key`, or named `key`.
    pub async fn webhook(&self, key: &str) -> Result<Option<Webhook>> {
        let sql = format!("SELECT {HOOK_COLUMNS} FROM webhooks h WHERE h.id = $1 OR h.name = $1");
        optional(&self.pool, sql, key, READ, hook_from_row).await
    }

    /// The enabled webhooks that receive `kind`.
    pub async fn webhooks_for(&self, kind: &str) -> Result<Vec<Webhook>> {
        let hooks = self.webhooks().await?;
        Ok(hooks
            .into_iter()
            .filter(|h| h.enabled && h.events.iter().any(|e| e == kind))
            .collect())
    }

    /// Changes webhook `id` as `change` says; the webhook as it is now, or `None` when there is
    /// none. [`StoreError::Conflict`] when the new name is taken.
    pub async fn update_webhook(
        &self,
        id: &str,
        change: &WebhookChange,
        now_ms: i64,
    ) -> Result<Option<Webhook>> {
        sqlx::query(
            "UPDATE webhooks SET name = COALESCE($2, name), url = COALESCE($3, url), \
             events = COALESCE($4, events), enabled = COALESCE($5, enabled), \
             updated_at_ms = $6 WHERE id = $1",
        )
        .bind(id)
        .bind(change.name.as_deref())
        .bind(change.url.as_deref())
        .bind(change.events.as_ref().map(|e| e.join(",")))
        .bind(change.enabled.map(i64::from))
        .bind(now_ms)
        .execute(&self.pool)
        .await
        .map_err(|e| {
            name_taken(
                e,
                change.name.as_deref().unwrap_or(""),
                "changing a webhook",
            )
        })?;
        self.webhook(id).await
    }

    /// Replaces webhook `id`'s sealed secret; whether there is such a webhook.
    pub async fn set_webhook_secret(&self, id: &str, sealed: &str, now_ms: i64) -> Result<bool> {
        let done =
            sqlx::query("UPDATE webhooks SET sealed_secret = $2, updated_at_ms = $3 WHERE id = $1")
                .bind(id)
                .bind(sealed)
                .bind(now_ms)
                .execute(&self.pool)
                .await
                .map_err(db("changing a webhook's secret"))?;
        Ok(done.rows_affected() > 0)
    }

    /// The sealed secret of webhook `id`, if there is such a webhook.
    pub async fn sealed_webhook_secret(&self, id: &str) -> Result<Option<String>> {
        let sql = "SELECT sealed_secret FROM webhooks WHERE id = $1".to_owned();
        optional(&self.pool, sql, id, READ, |r| {
            column::<String>(r, "sealed_secret", READ)
        })
        .await
    }

    /// Marks webhook `id` failing or not.
    pub async fn set_webhook_failing(&self, id: &str, failing: bool) -> Result<()> {
        sqlx::query("UPDATE webhooks SET failing = $2 WHERE id = $1")
            .bind(id)
            .bind(i64::from(failing))
            .execute(&self.pool)
            .await
            .map_err(db("marking a webhook failing"))?;
        Ok(())
    }

    /// Deletes webhook `id` and its deliveries; whether there was such a webhook.
    pub async fn delete_webhook(&self, id: &str) -> Result<bool> {
        let mut tx = self.pool.begin().await.map_err(db("deleting a webhook"))?;
        sqlx::query("DELETE FROM webhook_deliveries WHERE webhook_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db("deleting a webhook's deliveries"))?;
        let done = sqlx::query("DELETE FROM webhooks WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db("deleting a webhook"))?;
        tx.commit().await.map_err(db("deleting a webhook"))?;
        Ok(done.rows_affected() > 0)
    }

    /// Queues a delivery, due now, and prunes the webhook's finished deliveries to the newest
    /// [`DELIVERIES_KEPT`].
    pub async fn enqueue_webhook_delivery(&self, new: &NewDelivery) -> Result<WebhookDelivery> {
        let id = uuid::Uuid::new_v4().to_string();
        sqlx::query(
            "INSERT INTO webhook_deliveries (id, webhook_id, event_kind, event_id, payload, \
             attempts, state, next_attempt_at_ms, created_at_ms, updated_at_ms) \
             VALUES ($1, $2, $3, $4, $5, 0, 'pending', $6, $6, $6)",
        )
        .bind(&id)
        .bind(&new.webhook_id)
        .bind(&new.event_kind)
        .bind(&new.event_id)
        .bind(&new.payload)
        .bind(new.now_ms)
        .execute(&self.pool)
        .await
        .map_err(db("queueing a webhook delivery"))?;
        sqlx::query(
            "DELETE FROM webhook_deliveries WHERE webhook_id = $1 AND state <> 'pending' \
             AND created_at_ms < COALESCE((SELECT created_at_ms FROM webhook_deliveries \
             WHERE webhook_id = $1 ORDER BY created_at_ms DESC, id DESC LIMIT 1 OFFSET $2), -1)",
        )
        .bind(&new.webhook_id)
        .bind(i64::from(DELIVERIES_KEPT.saturating_sub(1)))
        .execute(&self.pool)
        .await
        .map_err(db("pruning webhook deliveries"))?;
        self.webhook_delivery(&id)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("webhook delivery {id} vanished")))
    }

    /// The delivery with id `id`.
    pub async fn webhook_delivery(&self, id: &str) -> Result<Option<WebhookDelivery>> {
        let sql = format!("SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1");
        optional(&self.pool, sql, id, READ_DELIVERY, delivery_from_row).await
    }

    /// Webhook `webhook_id`'s deliveries, newest first: `limit` of them, after the delivery
    /// `before` when given (a keyset page).
    pub async fn webhook_deliveries(
        &self,
        webhook_id: &str,
        before: Option<&str>,
        limit: u32,
    ) -> Result<DeliveryPage> {
        let limit = limit.clamp(1, crate::MAX_PAGE);
        let cursor = match before {
            Some(id) => match self.webhook_delivery(id).await? {
                Some(d) if d.webhook_id == webhook_id => Some((d.created_at_ms, d.id)),
                _ => {
                    return Err(StoreError::Invalid(format!(
                        "no delivery {id} of this webhook"
                    )));
                }
            },
            None => None,
        };
        let (at, id) = cursor.unwrap_or((i64::MAX, String::new()));
        let sql = format!(
            "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 \
             AND ($4 = '' OR created_at_ms < $2 OR (created_at_ms = $2 AND id < $3)) \
             ORDER BY created_at_ms DESC, id DESC LIMIT $5"
        );
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(webhook_id)
            .bind(at)
            .bind(&id)
            .bind(&id)
            .bind(i64::from(limit) + 1)
            .fetch_all(&self.pool)
            .await
            .map_err(db(READ_DELIVERY))?;
        let mut items = rows
            .iter()
            .map(delivery_from_row)
            .collect::<Result<Vec<_>>>()?;
        let more = items.len() > limit as usize;
        items.truncate(limit as usize);
        let next = more.then(|| items.last().map(|d| d.id.clone())).flatten();
        Ok(DeliveryPage { items, next })
    }

    /// The pending deliveries due at `now_ms` (at most `limit`, oldest due first), each claimed
    /// for this caller until `lease_until_ms`: another sender sees it due only after that, so
    /// a sender that dies mid-attempt leaves it to be tried again.
    pub async fn claim_webhook_deliveries(
        &self,
        now_ms: i64,
        lease_until_ms: i64,
        limit: u32,
    ) -> Result<Vec<WebhookDelivery>> {
        let sql = format!(
            "SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE state = 'pending' \
             AND next_attempt_at_ms <= $1 ORDER BY next_attempt_at_ms, id LIMIT $2"
        );
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(now_ms)
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await
            .map_err(db(READ_DELIVERY))?;
        let mut claimed = Vec::new();
        for row in &rows {
            let d = delivery_from_row(row)?;
            let won = sqlx::query(
                "UPDATE webhook_deliveries SET next_attempt_at_ms = $3 \
                 WHERE id = $1 AND state = 'pending' AND next_attempt_at_ms = $2",
            )
            .bind(&d.id)
            .bind(d.next_attempt_at_ms)
            .bind(lease_until_ms)
            .execute(&self.pool)
            .await
            .map_err(db("claiming a webhook delivery"))?;
            if won.rows_affected() == 1 {
                claimed.push(d);
            }
        }
        Ok(claimed)
    }

    /// When the next pending delivery is due, if any is.
    pub async fn next_webhook_due(&self) -> Result<Option<i64>> {
        let row = sqlx::query(
            "SELECT MIN(next_attempt_at_ms) AS due FROM webhook_deliveries \
             WHERE state = 'pending'",
        )
        .fetch_one(&self.pool)
        .await
        .map_err(db(READ_DELIVERY))?;
        column(&row, "due", READ_DELIVERY)
    }

    /// Records an attempt of delivery `id` (one more attempt) and how it ended.
    pub async fn record_webhook_attempt(&self, id: &str, attempt: &AttemptRecord) -> Result<()> {
        sqlx::query(
            "UPDATE webhook_deliveries SET attempts = attempts + 1, state = $2, \
             next_attempt_at_ms = $3, response_code = $4, last_error = $5, \
             response_excerpt = $6, duration_ms = $7, updated_at_ms = $8 WHERE id = $1",
        )
        .bind(id)
        .bind(attempt.state.as_str())
        .bind(attempt.next_attempt_at_ms)
        .bind(attempt.response_code.map(i64::from))
        .bind(attempt.error.as_deref())
        .bind(attempt.response_excerpt.as_deref())
        .bind(attempt.duration_ms)
        .bind(attempt.now_ms)
        .execute(&self.pool)
        .await
        .map_err(db("recording a webhook delivery attempt"))?;
        Ok(())
    }
}

fn name_taken(e: sqlx::Error, name: &str, action: &'static str) -> StoreError {
    if is_unique_violation(&e) {
        StoreError::Conflict(format!("a webhook named {name:?} exists"))
    } else {
        db(action)(e)
    }
}

fn hook_from_row(row: &AnyRow) -> Result<Webhook> {
    let events: String = column(row, "events", READ)?;
    let enabled: i64 = column(row, "enabled", READ)?;
    let failing: i64 = column(row, "failing", READ)?;
    Ok(Webhook {
        id: column(row, "id", READ)?,
        name: column(row, "name", READ)?,
        url: column(row, "url", READ)?,
        events: events
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        enabled: enabled != 0,
        failing: failing != 0,
        created_at_ms: column(row, "created_at_ms", READ)?,
        updated_at_ms: column(row, "updated_at_ms", READ)?,
        last_delivery_at_ms: column(row, "last_delivery_at_ms", READ)?,
    })
}

fn delivery_from_row(row: &AnyRow) -> Result<WebhookDelivery> {
    let state: String = column(row, "state", READ_DELIVERY)?;
    let attempts: i64 = column(row, "attempts", READ_DELIVERY)?;
    let code: Option<i64> = row.try_get("response_code").map_err(db(READ_DELIVERY))?;
    let corrupt = |what: &str, value: i64| StoreError::Corrupt {
        what: format!("a webhook delivery's {what}"),
        cause: format!("{value} is out of range"),
    };
    Ok(WebhookDelivery {
        id: column(row, "id", READ_DELIVERY)?,
        webhook_id: column(row, "webhook_id", READ_DELIVERY)?,
        event_kind: column(row, "event_kind", READ_DELIVERY)?,
        event_id: column(row, "event_id", READ_DELIVERY)?,
        payload: column(row, "payload", READ_DELIVERY)?,
        attempts: u32::try_from(attempts).map_err(|_| corrupt("attempts", attempts))?,
        state: DeliveryState::parse(&state)?,
        next_attempt_at_ms: column(row, "next_attempt_at_ms", READ_DELIVERY)?,
        response_code: code
            .map(|c| u16::try_from(c).map_err(|_| corrupt("status", c)))
            .transpose()?,
        last_error: column(row, "last_error", READ_DELIVERY)?,
        response_excerpt: column(row, "response_excerpt", READ_DELIVERY)?,
        duration_ms: column(row, "duration_ms", READ_DELIVERY)?,
        created_at_ms: column(row, "created_at_ms", READ_DELIVERY)?,
        updated_at_ms: column(row, "updated_at_ms", READ_DELIVERY)?,
    })
}
