//! Task runs in the server: the runs in progress (each holds its device's busy flag, so an
//! agent run or exec batch on that device gets 409 and a scheduled fire waits or is skipped),
//! starting one (a person, a program or the scheduler), stopping one, and the routes that
//! list runs, show one with its steps and stream its events.
//!
//! A run's events go through [`record`](super::record): to its trace folder
//! (`<data>/task-runs/<run id>/`, with `report.html`), to the store (its steps) and to a
//! [`RunLog`] that SSE watchers read exactly as they read an agent run's. `done` is shown only
//! after the store has the run's end and the device is free again.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use deft_app::task_runs::ActiveTaskRun;
use deft_store::{
    NewDraftRun, NewTaskRun, RunStart, StoreError, TaskRun, TaskRunFilter, TaskRunStatus,
    TaskTrigger,
};
use deft_tasks::runner::RunRequest;
use deft_tasks::validate::{Options, Report};
use deft_tools::Devices;
use deft_tools::devices::BusyGuard;
use serde::Deserialize;

use super::TaskError;
use super::crud::{PageQuery, resolve};
use super::views::{TaskRunDetailView, TaskRunStepView, TaskRunView};
use crate::AppState;
use crate::api::{ApiError, JsonBody};
use crate::console::{Console, now_ms, stream, texts};
use deft_app::task_runs::record;

/// What a run is started with.
pub struct Order {
    /// The task as stored.
    pub task: deft_store::Task,
    /// The run's record (trigger, schedule, device, variables).
    pub new: NewTaskRun,
    /// The run's variables.
    pub variables: BTreeMap<String, String>,
}

/// Why a run did not start.
pub enum Refusal {
    /// The task runs already, or its device is busy.
    Busy(String),
    /// The stored task no longer validates (with these variables).
    Invalid(Report),
    /// The device is not connected.
    NoDevice(String),
    /// The store failed.
    Store(StoreError),
}

impl Refusal {
    /// The reason as a sentence (the scheduler records it).
    pub fn text(&self) -> String {
        match self {
            Refusal::Busy(t) | Refusal::NoDevice(t) => t.clone(),
            Refusal::Invalid(r) => texts::invalid_task(&r.errors),
            Refusal::Store(e) => texts::store_failed(&e.to_string()),
        }
    }
}

impl From<Refusal> for TaskError {
    fn from(r: Refusal) -> Self {
        match r {
            Refusal::Busy(t) => TaskError::Api(ApiError(StatusCode::CONFLICT, t)),
            Refusal::NoDevice(t) => TaskError::at("device", t),
            Refusal::Invalid(report) => TaskError::Invalid(report),
            Refusal::Store(e) => e.into(),
        }
    }
}

/// Starts a run: the task validated again (with the run's variables), the device found and
/// reserved, the run recorded (the store refuses a second running instance of the task,
/// across servers), then the runner started; answers at once with the recorded run.
pub async fn start(app: &AppState, console: &Console, order: Order) -> Result<TaskRun, Refusal> {
    let device_id = order
        .new
        .device
        .clone()
        .unwrap_or_else(|| order.task.device.clone());
    let ready = prepare(
        app,
        console,
        order.task.definition.as_bytes(),
        &device_id,
        &order.variables,
    )
    .map_err(|refusal| {
        if matches!(refusal, Refusal::Busy(_)) {
            console.tasks().note_blocked(&device_id, &order.task.id);
        }
        refusal
    })?;
    let mut new = order.new;
    new.device = Some(device_id);
    new.owner = Some(console.server_id().to_owned());
    let started = console
        .store()
        .start_task_run(&new)
        .await
        .map_err(Refusal::Store)?;
    let run = match started {
        RunStart::Started(run) => run,
        RunStart::Busy(other) => {
            return Err(Refusal::Busy(texts::task_running(
                &order.task.name,
                &other.id,
            )));
        }
    };
    launch(console, ready, &run, order.variables);
    Ok(run)
}

/// What a run of a draft (designer mode's "try it") is started with.
pub struct DraftOrder {
    /// The task file.
    pub definition: Vec<u8>,
    /// The device it runs on.
    pub device: String,
    /// The run's variables.
    pub variables: BTreeMap<String, String>,
}

/// Starts a run of a draft that is no stored task: validated as a task is (with the run's
/// variables), its device reserved, recorded as a task run with the trigger `try` (one draft
/// at a time), then run by the runner like any task; answers at once with the recorded run.
pub async fn start_draft(
    app: &AppState,
    console: &Console,
    order: DraftOrder,
) -> Result<TaskRun, Refusal> {
    let ready = prepare(
        app,
        console,
        &order.definition,
        &order.device,
        &order.variables,
    )?;
    let new = NewDraftRun {
        name: ready.task.name.clone(),
        device: order.device.clone(),
        variables: json_variables(&order.variables),
        started_at_ms: now_ms(),
        owner: Some(console.server_id().to_owned()),
    };
    let run = match console
        .store()
        .start_draft_run(&new)
        .await
        .map_err(Refusal::Store)?
    {
        RunStart::Started(run) => run,
        RunStart::Busy(other) => return Err(Refusal::Busy(texts::draft_running(&other.id))),
    };
    launch(console, ready, &run, order.variables);
    Ok(run)
}

/// A task checked for a run and its device reserved.
struct Ready {
    task: deft_tasks::Task,
    device: deft_tools::Device,
    busy: BusyGuard,
}

/// Validates `definition` for a run on `device_id` with `variables` and reserves the device.
fn prepare(
    app: &AppState,
    console: &Console,
    definition: &[u8],
    device_id: &str,
    variables: &BTreeMap<String, String>,
) -> Result<Ready, Refusal> {
    let opts = Options {
        device: Some(super::crud::kind_of(app, device_id)),
        provided: variables.keys().cloned().collect(),
        ..Options::default()
    };
    let (task, _) = deft_tasks::validate_task(definition, &opts)
        .into_result()
        .map_err(Refusal::Invalid)?;
    let device = app.registry.get(device_id).ok_or_else(|| {
        let known: Vec<String> = app.registry.list().into_iter().map(|d| d.id).collect();
        Refusal::NoDevice(texts::task_device_unknown(device_id, &known))
    })?;
    let busy = device
        .try_reserve()
        .ok_or_else(|| Refusal::Busy(console.device_busy_text(device_id)))?;
    Ok(Ready { task, device, busy })
}

/// Runs a recorded run: in memory as active, the runner on its way.
fn launch(console: &Console, ready: Ready, run: &TaskRun, variables: BTreeMap<String, String>) {
    let active = Arc::new(ActiveTaskRun::new(
        &run.id,
        &run.task_id,
        &run.task_name,
        &run.device,
    ));
    console.tasks().insert(active.clone());
    record::spawn(
        console.app(),
        active,
        record::Launch {
            task: ready.task,
            device: ready.device,
            busy: ready.busy,
            request: RunRequest { variables },
        },
    );
}

/// A run's variables as the store keeps them.
fn json_variables(
    variables: &BTreeMap<String, String>,
) -> serde_json::Map<String, serde_json::Value> {
    variables
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
        .collect()
}

/// `POST /api/tasks/{id}/run` body.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
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
    let new = NewTaskRun {
        task_id: task.id.clone(),
        trigger,
        schedule_id: None,
        fire_at_ms: None,
        device: body.device.filter(|d| !d.trim().is_empty()),
        variables: json_variables(&body.variables),
        started_at_ms: now_ms(),
        owner: None,
    };
    let order = Order {
        task,
        new,
        variables: body.variables,
    };
    let run = start(&app, &console, order).await?;
    Ok((StatusCode::ACCEPTED, Json(TaskRunView::from(&run))).into_response())
}

/// `GET /api/task-runs` query.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunsQuery {
    /// A task's id or name.
    #[serde(default)]
    task: Option<String>,
    /// A schedule's id.
    #[serde(default)]
    schedule: Option<String>,
    /// A status name.
    #[serde(default)]
    status: Option<String>,
    /// At most this many (1–1,000, default 50). Not a flattened [`PageQuery`]: query strings
    /// carry numbers as text, which a flattened struct cannot parse.
    #[serde(default)]
    limit: Option<u32>,
    /// Skip this many.
    #[serde(default)]
    offset: Option<u64>,
}

/// `GET /api/task-runs?task=&schedule=&status=&limit=&offset=`: `{items, total}`, newest first.
pub async fn list(
    State(app): State<AppState>,
    Query(q): Query<RunsQuery>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let status = match q.status.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => Some(
            TaskRunStatus::from_name(s)
                .ok_or_else(|| TaskError::at("status", texts::bad_run_status(s)))?,
        ),
    };
    let task_id = match q.task.as_deref().filter(|t| !t.is_empty()) {
        None => None,
        // A deleted task's runs stay listed by its id.
        Some(t) => Some(match resolve(console, t).await {
            Ok(task) => task.id,
            Err(ApiError(StatusCode::NOT_FOUND, _)) => t.to_owned(),
            Err(e) => return Err(e.into()),
        }),
    };
    let filter = TaskRunFilter {
        task_id,
        schedule_id: q.schedule.filter(|s| !s.is_empty()),
        status,
    };
    let paging = PageQuery {
        limit: q.limit,
        offset: q.offset,
    };
    let page = console.store().task_runs(&filter, paging.page()).await?;
    let items: Vec<TaskRunView> = page.items.iter().map(TaskRunView::from).collect();
    Ok(Json(serde_json::json!({"items": items, "total": page.total})).into_response())
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
        return Ok(Json(serde_json::json!({"run_id": id, "stopping": true})).into_response());
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
#[derive(Debug, Deserialize)]
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
    let log = match console.tasks().log(&id) {
        Some(log) => log,
        None => {
            let run = console
                .store()
                .task_run(&id)
                .await
                .map_err(unknown_run(&id))?;
            record::stored_log(console.app(), &run).await?
        }
    };
    Ok(stream::serve_log(log, after, app.stopping.clone()))
}
