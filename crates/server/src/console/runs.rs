//! The routes of chat and designer runs: start one, read the one in the slot or any by id,
//! stop it, answer its questions. The application owns each run's life
//! ([`deft_app::agent_runs`]): the slot, the device, the agent, the store, the memory.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use deft_app::agent_runs::ActiveRun;
use deft_app::agent_runs::start::{AgentOrder, StartError};
use deft_protocol::{AgentEvent, EventKind, RunMode, RunStatus, TypedResult};
use deft_tools::Devices;
use serde::Deserialize;

use super::views::{Confirmed, CurrentRun, RunStarted, RunView, Stopping};
use super::{rfc3339, texts};
use crate::AppState;
use crate::api::{ApiError, JsonBody};

// Here rather than in `views`, so views need not know the run slot.
impl RunView {
    /// The run in the slot.
    pub fn active(run: &ActiveRun) -> Self {
        RunView {
            run_id: run.run_id.clone(),
            conversation: run.conversation.clone(),
            device: run.device.clone(),
            prompt: run.prompt.clone(),
            mode: run.mode,
            status: RunStatus::Running,
            answer: None,
            started_at: rfc3339(run.started_at_ms),
            finished_at: None,
            last_seq: run.log.last_seq(),
            usage: run.usage(),
            pending_confirm: run.approvals.pending().into_iter().next(),
            memory: Vec::new(),
            distilling: false,
            output: None,
        }
    }
}

impl From<StartError> for ApiError {
    fn from(e: StartError) -> Self {
        match e {
            StartError::Invalid(t) => ApiError(StatusCode::BAD_REQUEST, t),
            StartError::NotFound(t) => ApiError(StatusCode::NOT_FOUND, t),
            StartError::Busy(t) => ApiError(StatusCode::CONFLICT, t),
            StartError::Store(e) => e.into(),
            StartError::Settings(e) => super::settings::settings_error(e),
        }
    }
}

/// `POST /api/agent/run` body.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "RunStart")]
pub struct StartBody {
    #[serde(default)]
    conversation: Option<String>,
    prompt: String,
    #[serde(default)]
    device: Option<String>,
    /// `chat` (the default) or `designer`.
    #[serde(default)]
    mode: RunMode,
    /// A chat: the JSON Schema the final answer must be valid against.
    #[serde(default)]
    output_schema: Option<serde_json::Value>,
}

/// `POST /api/agent/run`: the application checks the request, takes the run slot and the
/// device, records the run and its prompt, then starts the agent; answers 202 at once.
pub async fn start(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<StartBody>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let order = AgentOrder {
        prompt: body.prompt,
        conversation: body.conversation,
        device: body.device,
        mode: body.mode,
        output_schema: body.output_schema,
    };
    let devices: Arc<dyn Devices> = Arc::new(app.registry.clone());
    // A device another server of the fleet holds: that server runs it, and answers.
    if let Some(device) = order.device.clone().filter(|d| devices.get(d).is_none())
        && console.app().holder_elsewhere(&device).await?.is_some()
    {
        let run = console
            .app()
            .start_agent_run_elsewhere(&device, order)
            .await?;
        let answer = RunStarted {
            run_id: run.run_id,
            conversation: run.conversation,
            device: run.device,
        };
        return Ok((StatusCode::ACCEPTED, Json(answer)).into_response());
    }
    let run = console.app().start_agent_run(devices, order).await?;
    let answer = RunStarted {
        run_id: run.run_id.clone(),
        conversation: run.conversation.clone(),
        device: run.device.clone(),
    };
    Ok((StatusCode::ACCEPTED, Json(answer)).into_response())
}

/// `GET /api/agent/run`: the active run, if any.
pub async fn current(State(app): State<AppState>) -> Result<Response, ApiError> {
    let run = app.console()?.app().current_run();
    Ok(Json(CurrentRun {
        run: run.as_deref().map(RunView::active),
    })
    .into_response())
}

/// `GET /api/agent/runs/{id}`.
pub async fn get_run(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    if let Some(run) = console.app().current_run().filter(|r| r.run_id == id) {
        return Ok(Json(RunView::active(&run)).into_response());
    }
    let store = console.store();
    let record = store
        .run(&id)
        .await?
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, texts::unknown_run(&id)))?;
    let last = match console.app().agent_runs().log(&id) {
        Some(log) => log.last_seq(),
        None => store.events(&id, 0).await?.last().map_or(0, |e| e.0),
    };
    let mut view = RunView::stored(&record, last);
    view.output = typed_result(store, &id, last).await?;
    view.memory = store
        .run_notes(std::slice::from_ref(&id))
        .await?
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    view.distilling = console.memory().is_distilling(&id);
    Ok(Json(view).into_response())
}

/// A finished run's typed result: what its `done` (its newest event) carries.
async fn typed_result(
    store: &deft_store::Store,
    id: &str,
    last: u64,
) -> Result<Option<TypedResult>, ApiError> {
    let newest = store.events(id, last.saturating_sub(1)).await?;
    Ok(newest.last().and_then(|(_, json)| output_of(json)))
}

/// The typed results of those of `runs` that ended with one, by run id.
pub async fn typed_results(
    store: &deft_store::Store,
    runs: &[String],
) -> Result<Vec<(String, TypedResult)>, ApiError> {
    Ok(store
        .newest_events(runs)
        .await?
        .into_iter()
        .filter_map(|(run, json)| output_of(&json).map(|o| (run, o)))
        .collect())
}

/// The typed result a stored `done` event carries.
fn output_of(json: &str) -> Option<TypedResult> {
    match serde_json::from_str::<AgentEvent>(json).ok()?.kind {
        EventKind::Done { output, .. } => output,
        _ => None,
    }
}

/// `POST /api/agent/stop` body.
#[derive(Debug, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "RunStop")]
pub struct StopBody {
    #[serde(default)]
    run_id: Option<String>,
}

/// `POST /api/agent/stop`.
pub async fn stop(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<StopBody>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    if let Some(run) = console.app().stop_run(body.run_id.as_deref()) {
        return Ok(Json(Stopping::run(run.run_id.clone())).into_response());
    }
    // A run another server of the fleet executes: the stop goes there.
    if let Some(run_id) = body.run_id
        && console.app().stop_run_elsewhere(&run_id).await?
    {
        return Ok(Json(Stopping::run(run_id)).into_response());
    }
    Err(ApiError(StatusCode::CONFLICT, texts::NO_RUN.to_owned()))
}

/// `POST /api/agent/confirm` body.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "RunConfirm")]
pub struct ConfirmBody {
    run_id: String,
    call_id: String,
    approve: bool,
}

/// `POST /api/agent/confirm`.
pub async fn confirm(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<ConfirmBody>,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let answered = console
        .app()
        .approve(&body.run_id, &body.call_id, body.approve);
    let confirmed = |body: ConfirmBody| {
        Json(Confirmed {
            run_id: body.run_id,
            call_id: body.call_id,
            approve: body.approve,
        })
        .into_response()
    };
    match answered {
        Ok(()) => Ok(confirmed(body)),
        // A run another server of the fleet executes: the answer goes there.
        Err(deft_app::agent_runs::control::ApproveError::UnknownRun(_))
            if console
                .app()
                .approve_elsewhere(&body.run_id, &body.call_id, body.approve)
                .await
                .map_err(|e| match e {
                    StartError::NotFound(t) => ApiError(StatusCode::NOT_FOUND, t),
                    other => other.into(),
                })? =>
        {
            Ok(confirmed(body))
        }
        Err(e) => Err(ApiError(StatusCode::NOT_FOUND, e.text())),
    }
}
