//! Designer mode's draft (seed 001 §6): the latest valid task draft a designer run ended with,
//! kept in `app_meta` as `agent_task_draft = {draft, warnings, prompt, created, run_id,
//! device}` — one only, replaced by the next, never a task until a person saves it through the
//! task API — and "try it": the draft (or an edited version of it) run once on its device by
//! the task runner, recorded as a task run with the trigger `try`, streamed like any task run.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use deft_protocol::DraftIssue;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tasks::TaskError;
use super::tasks::runs::{DraftOrder, start_draft};
use super::tasks::views::TaskRunView;
use super::{now_ms, rfc3339, texts};
use crate::AppState;
use crate::api::{ApiError, JsonBody};

/// The `app_meta` key of the kept draft.
pub const DRAFT_KEY: &str = "agent_task_draft";

/// The kept draft, as stored and as `GET /api/agent/draft` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "TaskDraft"))]
pub struct KeptDraft {
    /// The task file (valid when it was drafted).
    #[cfg_attr(test, ts(type = "unknown"))]
    pub draft: Value,
    /// What is suspect in it, at its paths.
    pub warnings: Vec<DraftIssue>,
    /// What the person asked for.
    pub prompt: String,
    /// When it was drafted (ISO-8601 UTC).
    pub created: String,
    /// The designer run that drafted it (its events show the exploration).
    pub run_id: String,
    /// The device it was explored on.
    pub device: String,
}

/// Keeps `draft` as the latest, replacing the one before.
pub async fn keep(
    store: &deft_store::Store,
    draft: &KeptDraft,
) -> Result<(), deft_store::StoreError> {
    let text = serde_json::to_string(draft).unwrap_or_default();
    store.set_meta(DRAFT_KEY, &text).await
}

/// A kept draft from what designer run `run_id` on `device` drafted for `prompt`.
pub fn drafted(
    draft: Value,
    warnings: Vec<DraftIssue>,
    prompt: &str,
    run_id: &str,
    device: &str,
) -> KeptDraft {
    KeptDraft {
        draft,
        warnings,
        prompt: prompt.to_owned(),
        created: rfc3339(now_ms()),
        run_id: run_id.to_owned(),
        device: device.to_owned(),
    }
}

/// The kept draft, if any (an unreadable one counts as none, with a warning in the log).
async fn kept(store: &deft_store::Store) -> Result<Option<KeptDraft>, ApiError> {
    let Some(text) = store.meta(DRAFT_KEY).await? else {
        return Ok(None);
    };
    match serde_json::from_str(&text) {
        Ok(d) => Ok(Some(d)),
        Err(e) => {
            tracing::warn!(error = %e, "the kept task draft is unreadable; it counts as none");
            Ok(None)
        }
    }
}

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
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
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
}

/// `POST /api/agent/draft/try`: runs the draft once through the task runner, not saved as a
/// task. 202 with the task run (its events at `/api/task-runs/{id}/events`); 400 when it does
/// not validate (the validator's report) or names no device; 404 when nothing is kept and no
/// draft given; 409 when the device is busy or a draft is being tried already.
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
    let order = DraftOrder {
        definition: serde_json::to_vec(&draft).unwrap_or_default(),
        device,
        variables: body.variables,
    };
    let run = start_draft(&app, &console, order).await?;
    Ok((StatusCode::ACCEPTED, Json(TaskRunView::from(&run))).into_response())
}
