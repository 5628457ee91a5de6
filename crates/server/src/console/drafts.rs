//! The routes of designer mode's draft (seed 001 §6; the application keeps it,
//! [`deft_app::agent_runs::drafts`]): read it, discard it, and "try it": the draft (or an edited
//! version of it) run once on its device by the task runner, recorded as a task run with the
//! trigger `try`, streamed like any task run.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use deft_app::agent_runs::drafts::{DRAFT_KEY, kept};
use deft_app::task_runs::start::{DraftOrder, Scope};
use serde::Deserialize;
use serde_json::Value;

use super::tasks::TaskError;
use super::tasks::views::TaskRunView;
use super::texts;
use crate::AppState;
use crate::api::{ApiError, JsonBody};

/// `GET /api/agent/draft`: the kept draft; 404 when there is none.
pub async fn get_draft(State(app): State<AppState>) -> Result<Response, ApiError> {
    let console = app.console()?;
    match kept(console.store()).await? {
        Some(d) => Ok(Json(d).into_response()),
        None => Err(ApiError(StatusCode::NOT_FOUND, texts::NO_DRAFT.to_owned())),
    }
}

/// `DELETE /api/agent/draft`: discards the kept draft (204 also when there is none).
pub async fn discard(State(app): State<AppState>) -> Result<Response, ApiError> {
    app.console()?.store().delete_meta(DRAFT_KEY).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `POST /api/agent/draft/try` body.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "DraftTry")]
pub struct TryBody {
    /// The task file to try (an edited draft); default: the kept draft.
    #[serde(default)]
    draft: Option<Value>,
    /// Run on this device; default: the task file's, else the device the draft was explored on.
    #[serde(default)]
    device: Option<String>,
    /// Values of the task's variables for this run.
    #[serde(default)]
    variables: BTreeMap<String, String>,
    /// Run to here: the path of the step the run ends after (`steps[4]`); the device is left
    /// as that step left it.
    #[serde(default)]
    until: Option<String>,
    /// Run this step: the path of the one step to run (`steps[2].then[0]`), on the device as
    /// it is.
    #[serde(default)]
    only: Option<String>,
}

/// `POST /api/agent/draft/try`: runs the draft once through the task runner, not saved as a
/// task — whole, up to a step (`until`) or one step alone (`only`). 202 with the task run (its
/// events at `/api/task-runs/{id}/events`); 400 when it does not validate (the validator's
/// report), names no device, or `until` / `only` names no step of it (at that field); 404 when
/// nothing is kept and no draft given; 409 when the device is busy or a draft is being tried
/// already.
pub async fn try_draft(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<TryBody>,
) -> Result<Response, TaskError> {
    let console = app.console()?.clone();
    let kept = kept(console.store()).await?;
    let draft = match (body.draft, &kept) {
        (Some(d), _) => d,
        (None, Some(k)) => k.draft.clone(),
        (None, None) => {
            return Err(ApiError(StatusCode::NOT_FOUND, texts::NO_DRAFT.to_owned()).into());
        }
    };
    let device = body
        .device
        .filter(|d| !d.trim().is_empty())
        .or_else(|| {
            draft
                .get("device")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .or_else(|| kept.map(|k| k.device))
        .ok_or_else(|| TaskError::at("device", texts::DRAFT_NO_DEVICE))?;
    if body.until.is_some() && body.only.is_some() {
        return Err(TaskError::at("only", Scope::both_given()));
    }
    let order = DraftOrder {
        definition: serde_json::to_vec(&draft).unwrap_or_default(),
        device,
        variables: body.variables,
        scope: Scope::of(body.until, body.only),
    };
    let run = console.app().start_draft_run(&app.registry, order).await?;
    Ok((StatusCode::ACCEPTED, Json(TaskRunView::from(&run))).into_response())
}
