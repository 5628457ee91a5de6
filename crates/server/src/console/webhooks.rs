//! Webhooks in the console (docs/console-api.md "Webhooks"): list, create (the signing secret
//! in the answer, once), read, change, delete, rotate the secret, send a test, the deliveries of
//! one (paged, newest first) and redelivering one. deft-app's [`deft_app::webhooks`] checks
//! every input and owns the queue and the sender; these routes parse and render. The secret
//! never comes back after creation or rotation; its sealing is [`super::secrets::SecretBox`]'s,
//! the data folder's key.
//!
//! Admin only: [`super::token_access::required`] names no scope for these routes, so a named
//! API token cannot reach them (a webhook's URL and secret decide where deft's events go).

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use deft_app::webhooks::{Sealer, WebhookError, WebhookInput, WebhookPatch};
use deft_protocol::webhook::WebhookEvent;
use deft_store::{Webhook, WebhookDelivery};
use serde::{Deserialize, Serialize};

use super::rfc3339;
use super::secrets::SecretBox;
use crate::AppState;
use crate::api::{ApiError, JsonBody};

/// How many deliveries a page holds unless the caller asks for fewer.
pub const DELIVERY_PAGE: u32 = 50;

impl Sealer for SecretBox {
    fn seal(&self, plain: &str) -> Result<String, String> {
        SecretBox::seal(self, plain).map_err(|e| e.to_string())
    }

    fn open(&self, sealed: &str) -> Result<String, String> {
        SecretBox::open(self, sealed).map_err(|e| e.to_string())
    }
}

/// A webhook as the API shows it: never its secret.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "Webhook"))]
#[schemars(rename = "Webhook")]
pub struct WebhookView {
    /// v4 UUID.
    pub id: String,
    /// Unique name.
    pub name: String,
    /// Where deliveries are POSTed.
    pub url: String,
    /// The event kinds it receives.
    pub events: Vec<String>,
    /// Whether events are delivered to it.
    pub enabled: bool,
    /// `active`, `disabled` or `failing` (its last finished delivery failed every attempt).
    pub state: &'static str,
    /// When it was made (ISO-8601 UTC).
    pub created_at: String,
    /// When it was last changed.
    pub updated_at: String,
    /// Its newest delivery, if any.
    pub last_delivery: Option<DeliveryView>,
}

/// A delivery as the API shows it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "WebhookDelivery"))]
#[schemars(rename = "WebhookDelivery")]
pub struct DeliveryView {
    /// v4 UUID: the `Deft-Delivery` header, the same on every attempt.
    pub id: String,
    /// The event kind.
    pub event: String,
    /// The event's id (the payload's `id`; a redelivery repeats it).
    pub event_id: String,
    /// `pending`, `succeeded` or `failed`.
    pub state: String,
    /// Attempts so far.
    pub attempts: u32,
    /// The most attempts it gets.
    pub max_attempts: u32,
    /// When a pending delivery is tried next.
    pub next_attempt_at: Option<String>,
    /// The last answer's HTTP status.
    pub response_code: Option<u16>,
    /// Why the last attempt failed.
    pub error: Option<String>,
    /// The start of the last answer's body.
    pub response_excerpt: Option<String>,
    /// How long the last attempt took, ms.
    pub duration_ms: Option<i64>,
    /// The JSON body POSTed.
    #[cfg_attr(test, ts(type = "unknown"))]
    pub payload: serde_json::Value,
    /// When it was queued.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
}

/// `GET /api/webhooks`'s answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct WebhookList {
    /// Every webhook, in name order.
    pub items: Vec<WebhookView>,
    /// The event kinds a webhook can receive.
    pub events: Vec<&'static str>,
}

/// One webhook (read, changed).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct WebhookOne {
    /// The webhook.
    pub webhook: WebhookView,
}

/// A webhook made or its secret rotated: the secret, shown this once.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct WebhookSecret {
    /// The webhook.
    pub webhook: WebhookView,
    /// The signing secret (`whsec_…`): never shown again.
    pub secret: String,
}

/// A delivery queued (a test, a redelivery).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DeliveryQueued {
    /// The delivery.
    pub delivery: DeliveryView,
}

/// A page of a webhook's deliveries, newest first.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DeliveryPage {
    /// The deliveries of this page.
    pub items: Vec<DeliveryView>,
    /// The `before` of the next page; absent on the last.
    pub next: Option<String>,
}

/// A refused webhook field: what and which.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FieldRefusal {
    /// `field: why`.
    pub error: String,
    /// The field refused.
    pub field: String,
}

/// `POST /api/webhooks` body.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWebhook {
    /// Unique name.
    pub name: String,
    /// The http(s) URL.
    pub url: String,
    /// Event kinds.
    pub events: Vec<String>,
    /// Whether it starts enabled (default yes).
    #[serde(default = "yes")]
    pub enabled: bool,
}

fn yes() -> bool {
    true
}

/// `PATCH /api/webhooks/{id}` body: each field given is changed.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangeWebhook {
    /// A new name.
    pub name: Option<String>,
    /// A new URL.
    pub url: Option<String>,
    /// New event kinds.
    pub events: Option<Vec<String>>,
    /// Enable or disable.
    pub enabled: Option<bool>,
}

/// `GET /api/webhooks/{id}/deliveries` query.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct DeliveryQuery {
    /// The last delivery of the page before.
    pub before: Option<String>,
    /// How many (1–1000, default [`DELIVERY_PAGE`]).
    pub limit: Option<u32>,
}

/// The webhook routes (nested under `/api`).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/webhooks", get(list).post(create))
        .route("/webhooks/{id}", get(get_one).patch(change).delete(delete))
        .route("/webhooks/{id}/rotate", post(rotate))
        .route("/webhooks/{id}/test", post(test))
        .route("/webhooks/{id}/deliveries", get(deliveries))
        .route(
            "/webhooks/{id}/deliveries/{delivery}/redeliver",
            post(redeliver),
        )
}

/// `GET /api/webhooks`: every webhook in name order, and the events one can receive.
pub async fn list(State(app): State<AppState>) -> Result<Response, ApiError> {
    let console = app.console()?;
    let hooks = console.app().webhooks();
    let mut items = Vec::new();
    for hook in hooks.list().await.map_err(api_error)? {
        items.push(view(&app, &hook).await?);
    }
    let events = WebhookEvent::subscribable()
        .map(WebhookEvent::as_str)
        .collect();
    Ok(Json(WebhookList { items, events }).into_response())
}

/// `POST /api/webhooks`: 201 with the webhook and its secret, which is never shown again.
pub async fn create(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<CreateWebhook>,
) -> Result<Response, Response> {
    let console = app.console().map_err(IntoResponse::into_response)?;
    let input = WebhookInput {
        name: body.name,
        url: body.url,
        events: body.events,
        enabled: body.enabled,
    };
    let (hook, secret) = console
        .app()
        .webhooks()
        .create(&input)
        .await
        .map_err(refusal)?;
    let view = view(&app, &hook)
        .await
        .map_err(IntoResponse::into_response)?;
    let body = WebhookSecret {
        webhook: view,
        secret,
    };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// `GET /api/webhooks/{id}` (an id or a name).
pub async fn get_one(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let hook = console.app().webhooks().get(&id).await.map_err(api_error)?;
    Ok(Json(WebhookOne {
        webhook: view(&app, &hook).await?,
    })
    .into_response())
}

/// `PATCH /api/webhooks/{id}`: the webhook as changed.
pub async fn change(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ChangeWebhook>,
) -> Result<Response, Response> {
    let console = app.console().map_err(IntoResponse::into_response)?;
    let patch = WebhookPatch {
        name: body.name,
        url: body.url,
        events: body.events,
        enabled: body.enabled,
    };
    let hook = console
        .app()
        .webhooks()
        .update(&id, &patch)
        .await
        .map_err(refusal)?;
    let view = view(&app, &hook)
        .await
        .map_err(IntoResponse::into_response)?;
    Ok(Json(WebhookOne { webhook: view }).into_response())
}

/// `DELETE /api/webhooks/{id}`: 204; its deliveries go with it.
pub async fn delete(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    console
        .app()
        .webhooks()
        .delete(&id)
        .await
        .map_err(api_error)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `POST /api/webhooks/{id}/rotate`: a new secret (the old one stops at once), shown once.
pub async fn rotate(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let (hook, secret) = console
        .app()
        .webhooks()
        .rotate(&id)
        .await
        .map_err(api_error)?;
    let body = WebhookSecret {
        webhook: view(&app, &hook).await?,
        secret,
    };
    Ok(Json(body).into_response())
}

/// `POST /api/webhooks/{id}/test`: 202 with the queued `ping` delivery.
pub async fn test(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let delivery = console
        .app()
        .webhooks()
        .send_test(&id)
        .await
        .map_err(api_error)?;
    let body = DeliveryQueued {
        delivery: delivery_view(&app, &delivery),
    };
    Ok((StatusCode::ACCEPTED, Json(body)).into_response())
}

/// `GET /api/webhooks/{id}/deliveries?before=&limit=`: newest first; `next` is the `before`
/// of the next page (absent on the last).
pub async fn deliveries(
    State(app): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<DeliveryQuery>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let limit = query.limit.unwrap_or(DELIVERY_PAGE);
    if !(1..=deft_store::MAX_PAGE).contains(&limit) {
        return Err(ApiError(
            StatusCode::BAD_REQUEST,
            super::texts::webhook_page_limit(deft_store::MAX_PAGE),
        ));
    }
    let page = console
        .app()
        .webhooks()
        .deliveries(&id, query.before.as_deref(), limit)
        .await
        .map_err(api_error)?;
    let items: Vec<DeliveryView> = page.items.iter().map(|d| delivery_view(&app, d)).collect();
    Ok(Json(DeliveryPage {
        items,
        next: page.next,
    })
    .into_response())
}

/// `POST /api/webhooks/{id}/deliveries/{delivery}/redeliver`: 202 with the new delivery of the
/// same event.
pub async fn redeliver(
    State(app): State<AppState>,
    Path((id, delivery)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let delivery = console
        .app()
        .webhooks()
        .redeliver(&id, &delivery)
        .await
        .map_err(api_error)?;
    let body = DeliveryQueued {
        delivery: delivery_view(&app, &delivery),
    };
    Ok((StatusCode::ACCEPTED, Json(body)).into_response())
}

/// A webhook as shown, with its newest delivery.
async fn view(app: &AppState, hook: &Webhook) -> Result<WebhookView, ApiError> {
    let console = app.console()?;
    let newest = console
        .store()
        .webhook_deliveries(&hook.id, None, 1)
        .await?
        .items
        .into_iter()
        .next();
    let state = match (hook.enabled, hook.failing) {
        (false, _) => "disabled",
        (true, true) => "failing",
        (true, false) => "active",
    };
    Ok(WebhookView {
        id: hook.id.clone(),
        name: hook.name.clone(),
        url: hook.url.clone(),
        events: hook.events.clone(),
        enabled: hook.enabled,
        state,
        created_at: rfc3339(hook.created_at_ms),
        updated_at: rfc3339(hook.updated_at_ms),
        last_delivery: newest.as_ref().map(|d| delivery_view(app, d)),
    })
}

fn delivery_view(app: &AppState, d: &WebhookDelivery) -> DeliveryView {
    let retries = app
        .console()
        .map(|c| c.app().webhooks().config().retry_delays.len())
        .unwrap_or_default();
    DeliveryView {
        id: d.id.clone(),
        event: d.event_kind.clone(),
        event_id: d.event_id.clone(),
        state: d.state.as_str().to_owned(),
        attempts: d.attempts,
        max_attempts: u32::try_from(retries + 1).unwrap_or(u32::MAX),
        next_attempt_at: d
            .next_attempt_at_ms
            .filter(|_| d.state == deft_store::DeliveryState::Pending)
            .map(rfc3339),
        response_code: d.response_code,
        error: d.last_error.clone(),
        response_excerpt: d.response_excerpt.clone(),
        duration_ms: d.duration_ms,
        payload: serde_json::from_str(&d.payload)
            .unwrap_or_else(|_| serde_json::Value::String(d.payload.clone())),
        created_at: rfc3339(d.created_at_ms),
        updated_at: rfc3339(d.updated_at_ms),
    }
}

/// A webhook error as the API answers it: 400 naming the field, 404, 409, 500.
fn api_error(e: WebhookError) -> ApiError {
    match e {
        WebhookError::Invalid { field, why } => {
            ApiError(StatusCode::BAD_REQUEST, format!("{field}: {why}"))
        }
        WebhookError::NotFound(text) => ApiError(StatusCode::NOT_FOUND, text),
        WebhookError::Conflict(text) | WebhookError::Disabled(text) => {
            ApiError(StatusCode::CONFLICT, text)
        }
        WebhookError::Secret(text) => ApiError(StatusCode::INTERNAL_SERVER_ERROR, text),
        WebhookError::Store(e) => e.into(),
    }
}

/// As [`api_error`], with the field a 400 is about as `field` beside `error`, for a form to
/// show the text by its input.
fn refusal(e: WebhookError) -> Response {
    if let WebhookError::Invalid { field, why } = &e {
        let body = FieldRefusal {
            error: format!("{field}: {why}"),
            field: field.to_string(),
        };
        return (StatusCode::BAD_REQUEST, Json(body)).into_response();
    }
    api_error(e).into_response()
}
