//! `GET/POST /api/memory/actions`, `POST /api/memory/actions/validate`,
//! `GET/PUT/DELETE /api/memory/actions/{id}` and `POST /api/memory/actions/{id}/try`. Every
//! save goes through deft-memory's check (the validator in library mode): a submission with
//! coordinates, a task-only type or a missing parameter is a 400 listing each problem at its
//! path, and nothing is stored. `{id}` is an action's id or its name.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use deft_app::libraries::check_submission;
use deft_store::{Action, StoreError};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::MemoryError;
use super::views::{ActionTryView, ActionView};
use crate::AppState;
use crate::api::{ApiError, JsonBody};
use crate::console::tasks::views::ValidationView;
use crate::console::{Console, texts};

/// `GET /api/memory/actions?q=&limit=&offset=`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only those whose name, aliases or description contain this (any case).
    #[serde(default)]
    q: Option<String>,
    /// At most this many (1–1,000, default 50).
    #[serde(default)]
    limit: Option<u32>,
    /// Skip this many.
    #[serde(default)]
    offset: Option<u64>,
}

/// `{items, total}`, by name.
pub async fn list(
    State(app): State<AppState>,
    Query(q): Query<ListQuery>,
) -> Result<Response, MemoryError> {
    let page = super::page(q.limit, q.offset);
    let text = q.q.filter(|t| !t.trim().is_empty());
    let got = app
        .console()?
        .store()
        .actions(text.as_deref(), page)
        .await?;
    let items: Vec<ActionView> = got.items.iter().map(ActionView::from).collect();
    Ok(super::paged(items, got.total))
}

/// The action named by `id_or_name` (its id, else its name or an alias); 404 naming it.
async fn resolve(console: &Console, id_or_name: &str) -> Result<Action, MemoryError> {
    let memory = console.memory().library();
    match memory.store().action(id_or_name).await {
        Ok(a) => return Ok(a),
        Err(StoreError::NotFound(_)) => {}
        Err(e) => return Err(e.into()),
    }
    memory.find_action(id_or_name).await?.ok_or_else(|| {
        MemoryError::Api(ApiError(
            StatusCode::NOT_FOUND,
            texts::unknown_action(id_or_name),
        ))
    })
}

/// `GET /api/memory/actions/{id}`.
pub async fn get_one(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, MemoryError> {
    let a = resolve(app.console()?, &id).await?;
    Ok(Json(ActionView::from(&a)).into_response())
}

/// `POST /api/memory/actions/validate`: the check's report, nothing stored (200 either way).
pub async fn validate(JsonBody(body): JsonBody<Value>) -> Result<Response, MemoryError> {
    let report = match check_submission(&body) {
        Ok(ok) => deft_app::task_language::Report {
            errors: Vec::new(),
            warnings: ok.warnings,
        },
        Err(report) => report,
    };
    Ok(Json(ValidationView(report)).into_response())
}

/// `POST /api/memory/actions {name, aliases?, description?, app?, variables?, steps}`: 201.
pub async fn create(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<Value>,
) -> Result<Response, MemoryError> {
    let checked = check_submission(&body).map_err(|r| MemoryError::Invalid("action", r))?;
    let console = app.console()?;
    let a = console.store().create_action(&checked.action).await?;
    console.memory().changed();
    tracing::info!(action = %a.name, "a person created an action");
    Ok((StatusCode::CREATED, Json(ActionView::from(&a))).into_response())
}

/// `PUT /api/memory/actions/{id}`: replaces it, checked as a new one (hits and its source
/// stay).
pub async fn replace(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<Value>,
) -> Result<Response, MemoryError> {
    let console = app.console()?;
    let old = resolve(console, &id).await?;
    let mut checked = check_submission(&body).map_err(|r| MemoryError::Invalid("action", r))?;
    checked.action.source_run = old.source_run;
    let a = console
        .store()
        .update_action(&old.id, &checked.action)
        .await?;
    console.memory().changed();
    Ok(Json(ActionView::from(&a)).into_response())
}

/// `DELETE /api/memory/actions/{id}`: 204.
pub async fn delete(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, MemoryError> {
    let console = app.console()?;
    let a = resolve(console, &id).await?;
    console.store().delete_action(&a.id).await?;
    console.memory().changed();
    tracing::info!(action = %a.name, "a person deleted an action");
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `POST /api/memory/actions/{id}/try` body.
#[derive(Debug, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "ActionTryBody")]
pub struct TryBody {
    /// The device (default: the settings' default device).
    #[serde(default)]
    device: Option<String>,
    /// Values for the action's variables.
    #[serde(default)]
    variables: Option<Map<String, Value>>,
}

/// Runs the action on a device through the task runner, holding the device (409 when it is
/// busy), and answers how each step went ([`deft_app::App::try_action`]; a device another
/// server of the fleet holds is tried there). Images of the steps are kept under the runs'
/// images as a run named `try-<id>`, on the server that ran it.
pub async fn try_on_device(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<TryBody>,
) -> Result<Response, MemoryError> {
    let console = app.console()?;
    let action = resolve(console, &id).await?;
    let tried = console
        .app()
        .try_action(
            &app.registry,
            &action,
            body.device,
            &body.variables.unwrap_or_default(),
        )
        .await
        .map_err(ApiError::from)?;
    Ok(Json(ActionTryView {
        action: tried.action,
        run_id: tried.try_id,
        device: tried.device,
        completed: tried.completed,
        text: tried.text,
        steps: tried.steps,
    })
    .into_response())
}
