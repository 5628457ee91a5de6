//! Named API tokens (docs/console-api.md "API tokens"): made by the admin (console or
//! `deft token create`), shown once, kept as their SHA-256, each with scopes
//! ([`super::token_access`]), an optional expiry, its last use and revocation. A token is looked up
//! on every call, so a revocation takes effect at once. Every call a named token or the server's
//! own API token makes is logged (method, path, status) by [`CallLedger`], off the request's
//! path; the server's token's under the reserved name [`SERVER_TOKEN_ID`] (`api-token`), which
//! `GET /api/tokens/{name}/calls` takes and no named token may have.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router, routing::get};
/// The name the server's own API token's calls are listed under (`api-token`).
pub use deft_store::SERVER_TOKEN_ID;
use deft_store::{ApiToken, ApiTokenCall, NewApiToken, Store, StoreError};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::sessions::Principal;
use super::token_access::{Scope, TOKEN_PREFIX};
use super::{Console, now_ms, rfc3339, secrets, texts};
use crate::AppState;
use crate::api::{ApiError, JsonBody};

/// How many characters of a value a list shows.
const SHOWN_CHARS: usize = 12;
/// The longest expiry one may set, in days (ten years).
pub const MAX_EXPIRY_DAYS: u32 = 3_650;
/// How many calls are kept per token.
pub const CALLS_KEPT: u32 = 1_000;
/// How many calls `GET /api/tokens/{name}` shows.
const CALLS_SHOWN: u32 = 100;
/// How many calls may wait for the ledger's writer; past it, calls are counted as dropped.
const LEDGER_QUEUE: usize = 10_000;
/// The longest batch the ledger writes at once.
const LEDGER_BATCH: usize = 500;

/// A token as the API shows it: never its value or hash.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ApiTokenView"))]
#[schemars(rename = "ApiTokenView")]
pub struct TokenView {
    /// v4 UUID.
    pub id: String,
    /// Unique name.
    pub name: String,
    /// The value's first characters.
    pub prefix: String,
    /// Scope names.
    pub scopes: Vec<String>,
    /// Who made it.
    pub created_by: String,
    /// When (ISO-8601 UTC).
    pub created_at: String,
    /// When it stops working, if ever.
    pub expires_at: Option<String>,
    /// Its last call, if any.
    pub last_used_at: Option<String>,
    /// When it was revoked, if it was.
    pub revoked_at: Option<String>,
    /// `active`, `expired` or `revoked`.
    pub state: &'static str,
}

/// A call as `GET /api/tokens/{name}` shows it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ApiTokenCallView"))]
#[schemars(rename = "ApiTokenCallView")]
pub struct CallView {
    /// When (ISO-8601 UTC).
    pub at: String,
    /// HTTP method.
    pub method: String,
    /// Path, without the query.
    pub path: String,
    /// The answer's status.
    pub status: u16,
}

/// `POST /api/tokens` body.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateToken {
    /// Unique name.
    pub name: String,
    /// Scope names.
    pub scopes: Vec<String>,
    /// Days until it expires; none: never.
    #[serde(default)]
    pub expires_in_days: Option<u32>,
}

/// The token routes (nested under `/api`; admin only — [`super::token_access::required`] names no
/// scope for them).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/tokens", get(list).post(create))
        .route("/tokens/{name}", get(get_one).delete(revoke))
        .route("/tokens/{name}/calls", get(calls))
}

/// `GET /api/tokens`: every token (revoked ones too), newest first, and the scopes there are.
pub async fn list(State(app): State<AppState>) -> Result<Response, ApiError> {
    let console = app.console()?;
    let now = now_ms();
    let items: Vec<TokenView> = console
        .store()
        .api_tokens()
        .await?
        .iter()
        .map(|t| view(t, now))
        .collect();
    Ok(Json(TokenList {
        items,
        scopes: Scope::names(),
    })
    .into_response())
}

/// `GET /api/tokens`' answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TokenList {
    /// Every token, newest first.
    pub items: Vec<TokenView>,
    /// Every scope a token can be given.
    pub scopes: Vec<&'static str>,
}

/// `GET /api/tokens/{name}/calls`' answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TokenCalls {
    /// The token's newest calls, newest first.
    pub items: Vec<CallView>,
}

/// `POST /api/tokens`' answer: the token and its value, shown this once.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TokenCreated {
    /// The token.
    pub token: TokenView,
    /// Its value (`deft_…`): never shown again.
    pub value: String,
}

/// `GET /api/tokens/{name}`'s answer (`calls` left out) and `DELETE`'s (without them).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TokenDetail {
    /// The token.
    pub token: TokenView,
    /// Its newest calls, newest first (`GET` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<Vec<CallView>>,
}

/// `POST /api/tokens`: makes a token; 201 with it and its value, which is never shown again.
pub async fn create(
    State(app): State<AppState>,
    axum::extract::Extension(principal): axum::extract::Extension<Principal>,
    JsonBody(body): JsonBody<CreateToken>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let new = checked(&body, principal.who())?;
    let value = new.1;
    let token = console
        .store()
        .create_api_token(&new.0)
        .await
        .map_err(|e| match e {
            StoreError::Conflict(_) => {
                ApiError(StatusCode::CONFLICT, texts::token_exists(&body.name))
            }
            other => other.into(),
        })?;
    let body = TokenCreated {
        token: view(&token, now_ms()),
        value,
    };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// `GET /api/tokens/{name}`: the token and its newest calls.
pub async fn get_one(
    State(app): State<AppState>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let token = known(console.store(), &name).await?;
    let body = TokenDetail {
        token: view(&token, now_ms()),
        calls: Some(newest_calls(console.store(), &token.id).await?),
    };
    Ok(Json(body).into_response())
}

/// `GET /api/tokens/{name}/calls`: the newest calls of a named token, or of the server's own
/// API token when `name` is [`SERVER_TOKEN_ID`].
pub async fn calls(
    State(app): State<AppState>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let id = if name == SERVER_TOKEN_ID {
        name
    } else {
        known(console.store(), &name).await?.id
    };
    let items = newest_calls(console.store(), &id).await?;
    Ok(Json(TokenCalls { items }).into_response())
}

async fn newest_calls(store: &Store, token_id: &str) -> Result<Vec<CallView>, ApiError> {
    Ok(store
        .api_token_calls(token_id, CALLS_SHOWN)
        .await?
        .into_iter()
        .map(|c| CallView {
            at: rfc3339(c.at_ms),
            method: c.method,
            path: c.path,
            status: c.status,
        })
        .collect())
}

/// `DELETE /api/tokens/{name}`: revokes it (its next call is refused); 200 with it.
pub async fn revoke(
    State(app): State<AppState>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let token = console
        .store()
        .revoke_api_token(&name, now_ms())
        .await?
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, texts::token_unknown(&name)))?;
    Ok(Json(TokenDetail {
        token: view(&token, now_ms()),
        calls: None,
    })
    .into_response())
}

/// Logs the calls of named tokens and of the server's API token: [`CallLedger::record`] queues a call without waiting; one
/// writer stores them in batches, with each token's last use, and keeps [`CALLS_KEPT`] per
/// token.
#[derive(Clone)]
pub struct CallLedger {
    queue: mpsc::Sender<ApiTokenCall>,
}

impl CallLedger {
    /// A ledger writing to `store` (spawns its writer; it ends when the last ledger is dropped).
    pub fn start(store: Store) -> CallLedger {
        let (queue, calls) = mpsc::channel(LEDGER_QUEUE);
        tokio::spawn(write_calls(store, calls));
        CallLedger { queue }
    }

    /// Queues a call of token `token_id` (a named token's id, or [`SERVER_TOKEN_ID`]); dropped
    /// (with a warning) when the writer is far behind.
    pub fn record(&self, token_id: &str, method: &str, path: &str, status: StatusCode) {
        let call = ApiTokenCall {
            token_id: token_id.to_owned(),
            at_ms: now_ms(),
            method: method.to_owned(),
            path: path.to_owned(),
            status: status.as_u16(),
        };
        if self.queue.try_send(call).is_err() {
            tracing::warn!(token = %token_id, "API call log is behind: a call was not logged");
        }
    }
}

async fn write_calls(store: Store, mut calls: mpsc::Receiver<ApiTokenCall>) {
    let mut batch = Vec::with_capacity(LEDGER_BATCH);
    while calls.recv_many(&mut batch, LEDGER_BATCH).await > 0 {
        if let Err(e) = store.record_api_token_calls(&batch, CALLS_KEPT).await {
            tracing::warn!(error = %e, calls = batch.len(), "API calls could not be logged");
        }
        let mut last: std::collections::BTreeMap<&str, i64> = Default::default();
        for call in &batch {
            let at = last.entry(call.token_id.as_str()).or_default();
            *at = (*at).max(call.at_ms);
        }
        for (id, at) in last {
            if let Err(e) = store.touch_api_token(id, at).await {
                tracing::warn!(error = %e, "an API token's last use could not be stored");
            }
        }
        batch.clear();
    }
}

impl Console {
    /// The log of the API tokens' calls (named ones and the server's).
    pub fn token_calls(&self) -> &CallLedger {
        &self.inner.token_calls
    }
}

fn checked(body: &CreateToken, created_by: String) -> Result<(NewApiToken, String), ApiError> {
    let bad = |text: String| ApiError(StatusCode::BAD_REQUEST, text);
    if !is_token_name(&body.name) {
        return Err(bad(texts::token_name_bad(&body.name)));
    }
    if body.name == SERVER_TOKEN_ID {
        return Err(bad(texts::token_name_reserved(SERVER_TOKEN_ID)));
    }
    if body.scopes.is_empty() {
        return Err(bad(texts::token_scopes_empty(&Scope::names())));
    }
    let mut scopes = Vec::new();
    for given in &body.scopes {
        let scope = Scope::from_name(given)
            .ok_or_else(|| bad(texts::token_scope_unknown(given, &Scope::names())))?;
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    scopes.sort();
    let now = now_ms();
    let expires_at_ms = match body.expires_in_days {
        None => None,
        Some(days) if (1..=MAX_EXPIRY_DAYS).contains(&days) => {
            Some(now + i64::from(days) * 86_400_000)
        }
        Some(days) => return Err(bad(texts::token_expiry_bad(days, MAX_EXPIRY_DAYS))),
    };
    let random = secrets::random_token()
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let value = format!("{TOKEN_PREFIX}{random}");
    let new = NewApiToken {
        name: body.name.clone(),
        token_hash: secrets::sha256_hex(&value),
        prefix: value.chars().take(SHOWN_CHARS).collect(),
        scopes: scopes.iter().map(|s| s.name().to_owned()).collect(),
        created_by,
        created_at_ms: now,
        expires_at_ms,
    };
    Ok((new, value))
}

/// Whether `name` may name a token: 1 to 64 letters, digits, spaces, `-`, `_` or `.`, not
/// blank at either end.
pub fn is_token_name(name: &str) -> bool {
    let chars = name.chars().count();
    (1..=64).contains(&chars)
        && name.trim() == name
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.'))
}

async fn known(store: &Store, name: &str) -> Result<ApiToken, ApiError> {
    store
        .api_token(name)
        .await?
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, texts::token_unknown(name)))
}

fn view(t: &ApiToken, now: i64) -> TokenView {
    let state = if t.revoked_at_ms.is_some() {
        "revoked"
    } else if t.expires_at_ms.is_some_and(|at| at <= now) {
        "expired"
    } else {
        "active"
    };
    TokenView {
        id: t.id.clone(),
        name: t.name.clone(),
        prefix: t.prefix.clone(),
        scopes: t.scopes.clone(),
        created_by: t.created_by.clone(),
        created_at: rfc3339(t.created_at_ms),
        expires_at: t.expires_at_ms.map(rfc3339),
        last_used_at: t.last_used_at_ms.map(rfc3339),
        revoked_at: t.revoked_at_ms.map(rfc3339),
        state,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_names() {
        for good in ["ci", "nightly-erp", "Team A.1", "报表_job"] {
            assert!(is_token_name(good), "{good}");
        }
        for bad in ["", " ci", "ci ", "a/b", "x;y", &"n".repeat(65)] {
            assert!(!is_token_name(bad), "{bad}");
        }
    }
}
