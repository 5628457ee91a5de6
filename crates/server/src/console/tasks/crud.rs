//! `GET/POST /api/tasks`, `GET/PUT/PATCH/DELETE /api/tasks/{id}` and
//! `POST /api/tasks/validate`. A task is created and replaced from a task file (the JSON
//! `deft task validate` reads), checked by the validator and against the server's devices;
//! nothing is stored unless every check passes. `{id}` is a task's id or its name.

use axum::extract::{Path, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use deft_app::task_language::MAX_FILE_BYTES;
use deft_app::task_language::{DeviceKind, Mode, Options, Report};
use deft_store::{NewTask, Page, StoreError, TaskNotify, VersionCause, VersionStamp};
use deft_tools::Devices;
use serde::Deserialize;

use super::views::{TaskDetailView, TaskView, ValidationView};
use super::{TaskError, store_error};
use crate::AppState;
use crate::api::{ApiError, JsonBody};
use crate::console::sessions::Principal;
use crate::console::{Console, texts};

/// Paging of a list route.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// At most this many (1–500, default 50).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Skip this many.
    #[serde(default)]
    pub offset: Option<u64>,
}

impl PageQuery {
    /// The store's page.
    pub fn page(&self) -> Page {
        Page {
            limit: self.limit.unwrap_or(50).clamp(1, deft_store::MAX_PAGE),
            offset: self.offset.unwrap_or(0),
        }
    }
}

/// `GET /api/tasks` query.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only tasks whose name contains this text (case ignored).
    #[serde(default)]
    q: Option<String>,
    /// Only tasks in this folder or below it.
    #[serde(default)]
    folder: Option<String>,
    /// Only tasks with this tag (case ignored).
    #[serde(default)]
    tag: Option<String>,
    /// At most this many (1–1,000, default 50). Not a flattened [`PageQuery`]: query strings
    /// carry numbers as text, which a flattened struct cannot parse.
    #[serde(default)]
    limit: Option<u32>,
    /// Skip this many.
    #[serde(default)]
    offset: Option<u64>,
}

/// `GET /api/tasks?q=&folder=&tag=&limit=&offset=`: a page of tasks with their schedules in
/// words, next fire and last run, by name; `folder` takes its subfolders in.
pub async fn list(
    State(app): State<AppState>,
    Query(q): Query<ListQuery>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let given = |v: Option<String>| v.filter(|t| !t.trim().is_empty());
    let filter = deft_store::TaskFilter {
        name_contains: given(q.q),
        folder: given(q.folder),
        tag: given(q.tag),
    };
    let paging = PageQuery {
        limit: q.limit,
        offset: q.offset,
    };
    let page = console.store().tasks(&filter, paging.page()).await?;
    let items: Vec<TaskView> = page.items.iter().map(TaskView::from).collect();
    Ok(Json(crate::console::views::PageView::new(items, page.total)).into_response())
}

/// The task named by `id_or_name` (its id, else its name); 404 naming what was looked for.
pub async fn resolve(console: &Console, id_or_name: &str) -> Result<deft_store::Task, ApiError> {
    let store = console.store();
    match store.task(id_or_name).await {
        Ok(t) => return Ok(t),
        Err(StoreError::NotFound(_)) => {}
        Err(e) => return Err(store_error(e)),
    }
    match store.task_by_name(id_or_name).await {
        Ok(t) => Ok(t),
        Err(StoreError::NotFound(_)) => Err(ApiError(
            StatusCode::NOT_FOUND,
            texts::unknown_task(id_or_name),
        )),
        Err(e) => Err(store_error(e)),
    }
}

/// `GET /api/tasks/{id}`: the task with its definition and schedules.
pub async fn get_one(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let task = resolve(console, &id).await?;
    Ok(Json(detail(console, &task, Report::default()).await?).into_response())
}

/// The detail view of a stored task (`warnings` from the validation that stored it).
pub(crate) async fn detail(
    console: &Console,
    task: &deft_store::Task,
    report: Report,
) -> Result<TaskDetailView, TaskError> {
    let store = console.store();
    let schedules = store.schedules_of_task(&task.id).await?;
    let listing = deft_store::TaskListing {
        task: task.clone(),
        schedules: schedules.clone(),
        schedule_count: schedules.len() as u64,
        next_fire_at_ms: task
            .enabled
            .then(|| {
                schedules
                    .iter()
                    .filter(|s| s.enabled)
                    .filter_map(|s| s.next_fire_at_ms)
                    .min()
            })
            .flatten(),
        last_run: store
            .task_runs(
                &deft_store::TaskRunFilter {
                    task_id: Some(task.id.clone()),
                    ..Default::default()
                },
                Page {
                    limit: 1,
                    offset: 0,
                },
            )
            .await?
            .items
            .into_iter()
            .next(),
    };
    Ok(TaskDetailView::new(&listing, &schedules, report))
}

/// Query of the create, replace and validate routes.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileQuery {
    /// Validate in library mode (validate only).
    #[serde(default)]
    pub mode: Option<Mode>,
    /// The device to check against (validate only; default: the file's).
    #[serde(default)]
    pub device: Option<String>,
    /// Create the task switched off (create only; default on).
    #[serde(default)]
    pub enabled: Option<bool>,
    /// The saved version's note (create and replace).
    #[serde(default)]
    pub note: Option<String>,
    /// The task's folder (create and replace; replace keeps the task's when absent).
    #[serde(default)]
    pub folder: Option<String>,
    /// The task's tags, separated by commas (create and replace; replace keeps the task's
    /// when absent; empty: none).
    #[serde(default)]
    pub tags: Option<String>,
}

impl FileQuery {
    /// The folder and tags to save: the query's, else `keep`'s (a replaced task's own).
    fn place(&self, keep: Option<&deft_store::Task>) -> (String, Vec<String>) {
        let folder = match (&self.folder, keep) {
            (Some(f), _) => f.clone(),
            (None, Some(t)) => t.folder.clone(),
            (None, None) => String::new(),
        };
        let tags = match (&self.tags, keep) {
            (Some(t), _) => split_tags(t),
            (None, Some(task)) => task.tags.clone(),
            (None, None) => Vec::new(),
        };
        (folder, tags)
    }

    /// The stamp of the version a create or replace saves.
    fn stamp(&self, principal: &Principal, cause: VersionCause) -> VersionStamp {
        VersionStamp {
            author: author(principal),
            cause,
            note: self.note.clone().unwrap_or_default(),
        }
    }
}

/// Tags written as one text, separated by commas (blanks between them dropped).
pub fn split_tags(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Who saves a version: the signed-in user, `api` for the API token, `token NAME` for a
/// named token.
pub fn author(principal: &Principal) -> String {
    match principal {
        Principal::ApiToken => texts::API_AUTHOR.to_owned(),
        other => other.who(),
    }
}

/// Reads a task file body: at most [`MAX_FILE_BYTES`], refused with its size when larger.
async fn file_body(request: Request) -> Result<axum::body::Bytes, TaskError> {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if let Some(len) = declared.filter(|&l| l > MAX_FILE_BYTES) {
        return Err(TaskError::at(
            "",
            deft_app::task_language::too_large(len, MAX_FILE_BYTES),
        ));
    }
    axum::body::to_bytes(request.into_body(), MAX_FILE_BYTES)
        .await
        .map_err(|_| TaskError::at("", texts::task_body_too_large(MAX_FILE_BYTES)))
}

/// `POST /api/tasks/validate`: the validator's report (`{valid, errors, warnings}`), always
/// 200; nothing is stored.
pub async fn validate(
    State(app): State<AppState>,
    Query(q): Query<FileQuery>,
    request: Request,
) -> Result<Response, TaskError> {
    let bytes = match file_body(request).await {
        Ok(b) => b,
        Err(TaskError::Invalid(report)) => return Ok(Json(ValidationView(report)).into_response()),
        Err(e) => return Err(e),
    };
    let opts = Options {
        mode: q.mode.unwrap_or_default(),
        device: q.device.as_deref().map(|d| kind_of(&app, d)),
        provided: Vec::new(),
    };
    let v = deft_app::task_language::validate_task(bytes.as_ref(), &opts);
    Ok(Json(ValidationView(v.report)).into_response())
}

/// The validator's device kind of a device this server knows: its profile decides
/// (`browser`, a desktop profile, `android`, else a client whose kind is not known).
pub(crate) fn kind_of(app: &AppState, device: &str) -> DeviceKind {
    deft_app::task_runs::start::device_kind(&app.registry, device)
}

/// A task file checked for storing: the validator without errors, and a device this server
/// knows (the file's `device`, else the default device, else `local`).
pub(crate) async fn checked(
    app: &AppState,
    console: &Console,
    bytes: &[u8],
    enabled: bool,
    notify: TaskNotify,
    (folder, tags): (String, Vec<String>),
) -> Result<(NewTask, Report), TaskError> {
    let raw = deft_app::task_language::validate_task(bytes, &Options::default());
    let (task, _) = raw.into_result().map_err(TaskError::Invalid)?;
    let device = match task.device.clone() {
        Some(d) => d,
        None => {
            let default = console.settings().await?.default_device;
            if default.is_empty() {
                deft_tools::devices::LOCAL.to_owned()
            } else {
                default
            }
        }
    };
    // Known here, or held by another server of the fleet.
    let held_elsewhere = app.registry.get(&device).is_none()
        && console
            .app()
            .holder_elsewhere(&device)
            .await
            .map_err(|e| TaskError::Api(e.into()))?
            .is_some();
    if app.registry.get(&device).is_none() && !held_elsewhere {
        let known: Vec<String> = app.registry.list().into_iter().map(|d| d.id).collect();
        return Err(TaskError::at(
            "device",
            texts::task_device_unknown(&device, &known),
        ));
    }
    // Again with the device's kind, for the warnings about steps it cannot do.
    let opts = Options {
        device: Some(kind_of(app, &device)),
        ..Options::default()
    };
    let (_, report) = deft_app::task_language::validate_task(bytes, &opts)
        .into_result()
        .map_err(TaskError::Invalid)?;
    let definition = std::str::from_utf8(bytes)
        .map_err(|e| TaskError::at("", e.to_string()))?
        .to_owned();
    Ok((
        NewTask {
            name: task.name,
            device,
            definition,
            enabled,
            notify,
            folder,
            tags,
        },
        report,
    ))
}

/// `POST /api/tasks` with a task file: 201 with the stored task and the validator's
/// warnings; 400 with every error at its path; 409 when the name is taken.
pub async fn create(
    State(app): State<AppState>,
    Extension(principal): Extension<Principal>,
    Query(q): Query<FileQuery>,
    request: Request,
) -> Result<Response, TaskError> {
    let console = app.console()?.clone();
    let bytes = file_body(request).await?;
    let enabled = q.enabled.unwrap_or(true);
    let (new, report) = checked(
        &app,
        &console,
        &bytes,
        enabled,
        TaskNotify::default(),
        q.place(None),
    )
    .await?;
    let task = console
        .store()
        .create_task(&new, &q.stamp(&principal, VersionCause::Create))
        .await
        .map_err(|e| name_taken(e, &new.name))?;
    let view = detail(&console, &task, report).await?;
    Ok((StatusCode::CREATED, Json(view)).into_response())
}

pub(crate) fn name_taken(e: StoreError, name: &str) -> TaskError {
    match e {
        StoreError::Conflict(_) => {
            TaskError::Api(ApiError(StatusCode::CONFLICT, texts::task_name_taken(name)))
        }
        other => other.into(),
    }
}

/// `PUT /api/tasks/{id}` with a task file: replaces the definition (name and device from the
/// file; on/off, notification settings and schedules stay; folder and tags from the query, else
/// they stay) as the task's next version. A run in progress keeps the version it started with.
pub async fn replace(
    State(app): State<AppState>,
    Extension(principal): Extension<Principal>,
    Path(id): Path<String>,
    Query(q): Query<FileQuery>,
    request: Request,
) -> Result<Response, TaskError> {
    let console = app.console()?.clone();
    let old = resolve(&console, &id).await?;
    let bytes = file_body(request).await?;
    let (new, report) = checked(
        &app,
        &console,
        &bytes,
        old.enabled,
        old.notify,
        q.place(Some(&old)),
    )
    .await?;
    let task = console
        .store()
        .update_task(&old.id, &new, &q.stamp(&principal, VersionCause::Edit))
        .await
        .map_err(|e| name_taken(e, &new.name))?;
    console.tasks().schedules_changed();
    Ok(Json(detail(&console, &task, report).await?).into_response())
}

/// `PATCH /api/tasks/{id}` body: either field, or both.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "TaskPatch")]
pub struct PatchBody {
    /// Switch the task's schedules on or off.
    #[serde(default)]
    enabled: Option<bool>,
    /// Change what its runs report (the settings not given stay).
    #[serde(default)]
    notify: Option<NotifyPatch>,
}

/// The notification settings a `PATCH` changes.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotifyPatch {
    #[serde(default)]
    on_failure: Option<bool>,
    #[serde(default)]
    on_success: Option<bool>,
    #[serde(default)]
    on_notify_step: Option<bool>,
}

/// `PATCH /api/tasks/{id}` `{"enabled", "notify"}`: a task switched back on fires from now on
/// (the time it was off does not count as missed); `notify` changes what its runs report.
pub async fn patch(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<PatchBody>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let old = resolve(console, &id).await?;
    let store = console.store();
    if body.enabled.is_none() && body.notify.is_none() {
        return Err(ApiError(StatusCode::BAD_REQUEST, texts::TASK_PATCH_EMPTY.to_owned()).into());
    }
    let mut task = old.clone();
    if let Some(n) = body.notify {
        let notify = deft_store::TaskNotify {
            on_failure: n.on_failure.unwrap_or(old.notify.on_failure),
            on_success: n.on_success.unwrap_or(old.notify.on_success),
            on_notify_step: n.on_notify_step.unwrap_or(old.notify.on_notify_step),
        };
        task = store.set_task_notify(&old.id, notify).await?;
    }
    if let Some(enabled) = body.enabled {
        task = store.set_task_enabled(&old.id, enabled).await?;
        if enabled && !old.enabled {
            deft_app::scheduler::rearm_task(store, &task.id, crate::console::now_ms()).await?;
        }
        console.tasks().schedules_changed();
    }
    Ok(Json(detail(console, &task, Report::default()).await?).into_response())
}

/// `DELETE /api/tasks/{id}`: 204; its schedules go with it, its runs' records stay. 409 while
/// it runs.
pub async fn delete(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let task = resolve(console, &id).await?;
    if let Some(run) = console.store().running_task_run(&task.id).await? {
        return Err(ApiError(
            StatusCode::CONFLICT,
            texts::task_running(&task.name, &run.id),
        )
        .into());
    }
    console.store().delete_task(&task.id).await?;
    console.tasks().schedules_changed();
    Ok(StatusCode::NO_CONTENT.into_response())
}
