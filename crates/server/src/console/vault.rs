//! The secrets tasks use (docs/console-api.md "Secrets"): each value sealed by
//! [`super::secrets::SecretBox`] before it reaches the store, opened only for the task run that
//! types it ([`StoredSecrets`], the application's [`SecretSource`]); the routes that list them by
//! name (with the tasks that use each), set and delete them — never answering a value.
//!
//! Every route is behind [`super::sessions::authorize`]: the console's one account is its
//! admin, and the API token is the admin's; a request without either is refused (401).

use std::collections::BTreeMap;

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router, routing::get};
use deft_app::secrets::SecretSource;
use deft_app::settings::SettingsError;
use deft_app::task_language::{is_secret_name, secret_names_in};
use deft_store::{Page, SecretEntry, Store, TaskFilter};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::secrets::SecretBox;
use super::sessions::Principal;
use super::texts;
use crate::AppState;
use crate::api::{ApiError, JsonBody};

/// The most characters a secret's value may have.
pub const MAX_SECRET_CHARS: usize = 4_096;

/// The secrets as the store keeps them, opened with the data folder's key.
pub struct StoredSecrets {
    store: Store,
    sealer: SecretBox,
}

impl StoredSecrets {
    /// The secrets of `store`, sealed and opened by `sealer`.
    pub fn new(store: Store, sealer: SecretBox) -> Self {
        StoredSecrets { store, sealer }
    }
}

impl SecretSource for StoredSecrets {
    fn open_secrets<'a>(
        &'a self,
        names: &'a [String],
    ) -> BoxFuture<'a, Result<BTreeMap<String, String>, SettingsError>> {
        Box::pin(async move {
            let mut out = BTreeMap::new();
            for name in names {
                if let Some(sealed) = self.store.sealed_secret(name).await? {
                    let value = self
                        .sealer
                        .open(&sealed)
                        .map_err(|_| SettingsError::Sealed(texts::secret_unopenable(name)))?;
                    out.insert(name.clone(), value);
                }
            }
            Ok(out)
        })
    }
}

/// A secret as listed: never its value.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "Secret"))]
#[schemars(rename = "Secret")]
pub struct SecretView {
    /// Its name (`{"secret": "NAME"}` in a task's variables).
    pub name: String,
    /// Who set it last: a username, or `api token`.
    pub set_by: String,
    /// When it was set last (ISO-8601 UTC).
    pub updated_at: String,
    /// The names of the tasks whose variables use it.
    pub used_by: Vec<String>,
}

/// `GET /api/secrets` answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "SecretList"))]
#[schemars(rename = "SecretList")]
pub struct SecretList {
    /// Every secret, by name.
    pub items: Vec<SecretView>,
}

/// `PUT /api/secrets/{name}` body.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetSecret {
    /// The value (never answered or logged).
    value: String,
}

/// The secret routes (nested under `/api`).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/secrets", get(list))
        .route("/secrets/{name}", axum::routing::put(set).delete(delete))
}

/// `GET /api/secrets`: every secret by name, who set it and when, and the tasks that use it.
pub async fn list(State(app): State<AppState>) -> Result<Response, ApiError> {
    let console = app.console()?;
    let uses = uses(console.store()).await?;
    let items = console
        .store()
        .secrets()
        .await?
        .into_iter()
        .map(|e| view(e, &uses))
        .collect();
    Ok(Json(SecretList { items }).into_response())
}

/// `PUT /api/secrets/{name}` `{"value"}`: creates or replaces the secret; 200 with it as listed.
pub async fn set(
    State(app): State<AppState>,
    Extension(principal): Extension<Principal>,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<SetSecret>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    check_name(&name)?;
    if body.value.is_empty() {
        return Err(bad(texts::secret_empty(&name)));
    }
    let chars = body.value.chars().count();
    if chars > MAX_SECRET_CHARS {
        return Err(bad(texts::secret_too_long(&name, chars, MAX_SECRET_CHARS)));
    }
    let sealed = console
        .sealer()
        .seal(&body.value)
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let set_by = principal.who();
    let entry = console.store().set_secret(&name, &sealed, &set_by).await?;
    let uses = uses(console.store()).await?;
    Ok(Json(view(entry, &uses)).into_response())
}

/// `DELETE /api/secrets/{name}`: 204; 404 when there is none; 409 naming the tasks that use it.
pub async fn delete(
    State(app): State<AppState>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    check_name(&name)?;
    let missing = || ApiError(StatusCode::NOT_FOUND, texts::unknown_secret(&name));
    if console.store().sealed_secret(&name).await?.is_none() {
        return Err(missing());
    }
    if let Some(tasks) = uses(console.store()).await?.get(&name) {
        return Err(ApiError(
            StatusCode::CONFLICT,
            texts::secret_in_use(&name, tasks),
        ));
    }
    if console.store().delete_secret(&name).await? {
        Ok(StatusCode::NO_CONTENT.into_response())
    } else {
        Err(ApiError(
            StatusCode::NOT_FOUND,
            texts::unknown_secret(&name),
        ))
    }
}

fn bad(text: String) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, text)
}

fn check_name(name: &str) -> Result<(), ApiError> {
    if is_secret_name(name) {
        Ok(())
    } else {
        Err(bad(texts::bad_secret_name(name)))
    }
}

fn view(e: SecretEntry, uses: &BTreeMap<String, Vec<String>>) -> SecretView {
    SecretView {
        used_by: uses.get(&e.name).cloned().unwrap_or_default(),
        name: e.name,
        set_by: e.set_by,
        updated_at: super::rfc3339(e.updated_at_ms),
    }
}

/// Each secret any stored task names, with those tasks' names (in name order).
async fn uses(store: &Store) -> Result<BTreeMap<String, Vec<String>>, ApiError> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut offset = 0;
    loop {
        let page = Page {
            limit: deft_store::MAX_PAGE,
            offset,
        };
        let listed = store.tasks(&TaskFilter::default(), page).await?;
        for l in &listed.items {
            for secret in secret_names_in(&l.task.definition) {
                out.entry(secret).or_default().push(l.task.name.clone());
            }
        }
        offset += listed.items.len() as u64;
        if listed.items.is_empty() || offset >= listed.total {
            break;
        }
    }
    for tasks in out.values_mut() {
        tasks.sort();
    }
    Ok(out)
}
