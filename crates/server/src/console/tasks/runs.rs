//! The routes of task runs: starting one (the application starts it,
//! [`deft_app::task_runs::start`]), stopping one, listing runs, showing one with its steps and
//! streaming its events (from the run's log while it is in memory, else from the store, exactly
//! as an agent run's).

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use deft_app::task_runs::start::{Refusal, TaskOrder};
use deft_store::{Page, StoreError, TaskRunStatus, TaskTrigger};
use deft_tools::Devices;
use serde::Deserialize;

use super::TaskError;
use super::crud::resolve;
use super::history::HistoryQuery;
use super::views::{TaskRunDetailView, TaskRunStepView, TaskRunView};
use crate::AppState;
use crate::api::{ApiError, JsonBody};
use crate::console::views::{PageView, Stopping};
use crate::console::{stream, texts};
use deft_app::task_runs::record;

impl From<Refusal> for TaskError {
    fn from(r: Refusal) -> Self {
        match r {
            Refusal::Busy(t) => TaskError::Api(ApiError(StatusCode::CONFLICT, t)),
            Refusal::NoDevice(t) => TaskError::at("device", t),
            Refusal::Invalid(report) => TaskError::Invalid(report),
            Refusal::Store(e) => e.into(),
            Refusal::Secrets(t) => TaskError::at("variables", t),
            Refusal::Scope(field, t) => TaskError::at(field, t),
            Refusal::Refused(t) => TaskError::Api(ApiError(StatusCode::BAD_REQUEST, t)),
        }
    }
}

/// `POST /api/tasks/{id}/run` body.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "TaskRunStart")]
pub struct RunBody {
    /// Values of the task's variables for this run.
    #[serde(default)]
    variables: BTreeMap<String, String>,
    /// Run on this device instead of the task's.
    #[serde(default)]
    device: Option<String>,
    /// `manual` (a person) or `api` (a program); default: `manual` for a console session,
    /// `api` for an API-token caller.
    #[serde(default)]
    trigger: Option<TaskTrigger>,
}

/// `POST /api/tasks/{id}/run`: 202 with the run; 409 when the task runs already or its
/// device is busy; 400 when the task does not validate with these variables or the device is
/// not connected.
pub async fn start_now(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<RunBody>,
) -> Result<Response, TaskError> {
    let console = app.console()?.clone();
    let task = resolve(&console, &id).await?;
    let trigger = match body.trigger {
        Some(TaskTrigger::Schedule) => {
            return Err(TaskError::at("trigger", texts::BAD_TRIGGER));
        }
        Some(t) => t,
        None if headers.contains_key(axum::http::header::AUTHORIZATION) => TaskTrigger::Api,
        None => TaskTrigger::Manual,
    };
    let order = TaskOrder::asked(task, trigger, body.device, body.variables);
    // A device another server of the fleet holds: that server runs it, and answers.
    let device = order
        .new
        .device
        .clone()
        .unwrap_or_else(|| order.task.device.clone());
    if app.registry.get(&device).is_none()
        && console
            .app()
            .holder_elsewhere(&device)
            .await
            .map_err(|e| TaskError::Api(e.into()))?
            .is_some()
    {
        let run = console
            .app()
            .start_task_run_elsewhere(&device, order)
            .await?;
        return Ok((StatusCode::ACCEPTED, Json(TaskRunView::from(&run))).into_response());
    }
    let run = console.app().start_task_run(&app.registry, order).await?;
    Ok((StatusCode::ACCEPTED, Json(TaskRunView::from(&run))).into_response())
}

/// `GET /api/task-runs?task=&schedule=&status=&trigger=&device=&from=&to=&sort=&order=&limit=&cursor=`:
/// `{items, total, next_cursor}` — a keyset page of the runs the filters select, in the sort
/// asked for (newest first by default); `next_cursor` (absent on the last page) continues it.
/// `offset` still pages the default order the older way.
pub async fn list(
    State(app): State<AppState>,
    Query(q): Query<HistoryQuery>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let history = q.history(console).await?;
    let limit = q.limit()?;
    let store = console.store();
    if let Some(offset) = q.offset(&history)? {
        let page = store
            .task_runs(&history.filter, Page { limit, offset })
            .await?;
        let items: Vec<TaskRunView> = page.items.iter().map(TaskRunView::from).collect();
        return Ok(Json(PageView::new(items, page.total)).into_response());
    }
    let page = store
        .task_run_page(
            &history.filter,
            history.order,
            history.after.as_ref(),
            limit,
        )
        .await?;
    let items: Vec<TaskRunView> = page.items.iter().map(TaskRunView::from).collect();
    let body = PageView {
        items,
        total: page.total,
        next_cursor: page.next.map(|next| next.to_string()),
    };
    Ok(Json(body).into_response())
}

/// `GET /api/task-runs/{id}`: the run with its executed steps.
pub async fn get_one(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let store = console.store();
    let run = store.task_run(&id).await.map_err(unknown_run(&id))?;
    let steps = store.task_run_steps(&id).await?;
    let active = console.tasks().active(&id);
    let last_seq = match console.tasks().log(&id) {
        Some(log) => log.last_seq(),
        None => record::stored_log(console.app(), &run).await?.last_seq(),
    };
    Ok(Json(TaskRunDetailView {
        run: TaskRunView::from(&run),
        step_results: steps.iter().map(TaskRunStepView::from).collect(),
        current_step: active.and_then(|a| a.current.lock().clone()),
        last_seq,
    })
    .into_response())
}

fn unknown_run(id: &str) -> impl FnOnce(StoreError) -> TaskError + '_ {
    move |e| match e {
        StoreError::NotFound(_) => {
            TaskError::Api(ApiError(StatusCode::NOT_FOUND, texts::unknown_task_run(id)))
        }
        other => other.into(),
    }
}

/// `POST /api/task-runs/{id}/stop`: 200 `{"run_id", "stopping": true}`; the run ends within
/// a second as `stopped`. 409 when it has ended already, 404 for an unknown run.
pub async fn stop(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    if let Some(run) = console.tasks().active(&id) {
        run.stop();
        return Ok(Json(Stopping::run(id)).into_response());
    }
    // Running on another server of the fleet: the stop goes there.
    if console
        .app()
        .stop_task_run_elsewhere(&id)
        .await
        .map_err(|e| TaskError::Api(e.into()))?
    {
        return Ok(Json(Stopping::run(id)).into_response());
    }
    let run = console
        .store()
        .task_run(&id)
        .await
        .map_err(unknown_run(&id))?;
    let text = if run.status == TaskRunStatus::Running {
        texts::task_run_elsewhere(&id)
    } else {
        deft_app::texts::task_run_ended(&id, run.status.as_str())
    };
    Err(ApiError(StatusCode::CONFLICT, text).into())
}

/// `GET /api/task-runs/{id}/events` query.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Start after this seq (the `Last-Event-ID` header wins).
    #[serde(default)]
    after: Option<u64>,
}

/// `GET /api/task-runs/{id}/events`: the run's events as SSE, exactly as an agent run's
/// stream (`Last-Event-ID` / `after=` replay, live events, `done` once, 204 after it).
pub async fn events(
    State(app): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<EventsQuery>,
    headers: HeaderMap,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let after = stream::last_event_id(&headers).or(q.after).unwrap_or(0);
    let log = console
        .app()
        .follow_task_run(&id)
        .await
        .map_err(|e| TaskError::Api(stream::follow_error(e)))?;
    Ok(stream::serve_log(log, after, app.stopping.clone()))
}
