//! `GET /api/tasks/{id}/versions`, `…/versions/{n}`, `…/versions/diff?from=&to=`,
//! `POST …/versions/{n}/restore`, and the folders and tags the task list filters by
//! (`GET /api/tasks/folders`, `GET /api/tasks/tags`).

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use deft_app::task_language::{Side, TaskDiff, diff};
use deft_store::{TaskVersion, VersionCause, VersionStamp};
use serde::{Deserialize, Serialize};

use super::TaskError;
use super::crud::{PageQuery, author, checked, detail, name_taken, resolve};
use crate::AppState;
use crate::api::ApiError;
use crate::console::sessions::Principal;
use crate::console::{rfc3339, texts};

/// A version as the history lists it (without its definition).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct VersionView {
    /// Its number (1: the task's creation).
    pub version: i64,
    /// The task's name then.
    pub name: String,
    /// Its device then.
    pub device: String,
    /// Whether it was on.
    pub enabled: bool,
    /// Its folder then.
    pub folder: String,
    /// Its tags then.
    pub tags: Vec<String>,
    /// Who saved it: a user, `api` or `cli`.
    pub author: String,
    /// When (ISO-8601 UTC).
    pub saved_at: String,
    /// The note.
    pub note: String,
    /// What made it: `create`, `edit`, `restore` or `import`.
    pub cause: VersionCause,
}

impl From<&TaskVersion> for VersionView {
    fn from(v: &TaskVersion) -> Self {
        VersionView {
            version: v.version,
            name: v.name.clone(),
            device: v.device.clone(),
            enabled: v.enabled,
            folder: v.folder.clone(),
            tags: v.tags.clone(),
            author: v.author.clone(),
            saved_at: rfc3339(v.saved_at_ms),
            note: v.note.clone(),
            cause: v.cause,
        }
    }
}

/// `GET /api/tasks/{id}/versions?limit=&offset=`: a page of the task's versions, newest first.
pub async fn list(
    State(app): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let task = resolve(console, &id).await?;
    let page = console.store().task_versions(&task.id, q.page()).await?;
    let items: Vec<VersionView> = page.items.iter().map(VersionView::from).collect();
    Ok(Json(crate::console::views::PageView::new(items, page.total)).into_response())
}

/// The version `n` (text from the path) of the task `id`: 400 for a number that is none, 404
/// for a task or version there is not.
async fn version_of(app: &AppState, id: &str, n: &str) -> Result<TaskVersion, TaskError> {
    let console = app.console()?;
    let task = resolve(console, id).await?;
    let number = number(n, "version")?;
    Ok(console.store().task_version(&task.id, number).await?)
}

/// A version number given as text; 400 naming `what` otherwise.
fn number(text: &str, what: &str) -> Result<i64, TaskError> {
    match text.trim().parse::<i64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(ApiError(
            StatusCode::BAD_REQUEST,
            texts::bad_version_number(what, text),
        )
        .into()),
    }
}

/// `GET /api/tasks/{id}/versions/{n}`: the version with its definition.
pub async fn get_one(
    State(app): State<AppState>,
    Path((id, n)): Path<(String, String)>,
) -> Result<Response, TaskError> {
    let v = version_of(&app, &id, &n).await?;
    let definition = definition_value(&v);
    let mut body = serde_json::to_value(VersionView::from(&v)).unwrap_or_default();
    body["definition"] = definition;
    Ok(Json(body).into_response())
}

/// A version's definition as JSON (as text when it is not JSON, which a stored task always is).
fn definition_value(v: &TaskVersion) -> serde_json::Value {
    serde_json::from_str(&v.definition).unwrap_or_else(|_| v.definition.clone().into())
}

/// `GET /api/tasks/{id}/versions/diff` query.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffQuery {
    /// The older version's number.
    from: String,
    /// The newer version's number.
    to: String,
}

/// `GET /api/tasks/{id}/versions/diff?from=a&to=b`: what changed from version `a` to `b`
/// (`{from, to, fields, steps}`).
pub async fn diff_versions(
    State(app): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<DiffQuery>,
) -> Result<Response, TaskError> {
    number(&q.from, "from")?;
    number(&q.to, "to")?;
    let (old, new) = (
        version_of(&app, &id, &q.from).await?,
        version_of(&app, &id, &q.to).await?,
    );
    let (old_def, new_def) = (definition_value(&old), definition_value(&new));
    let changes: TaskDiff = diff(&side(&old, &old_def), &side(&new, &new_def));
    let mut body = serde_json::to_value(&changes).unwrap_or_default();
    body["from"] = old.version.into();
    body["to"] = new.version.into();
    Ok(Json(body).into_response())
}

fn side<'a>(v: &'a TaskVersion, definition: &'a serde_json::Value) -> Side<'a> {
    Side {
        name: &v.name,
        device: &v.device,
        enabled: v.enabled,
        folder: &v.folder,
        tags: &v.tags,
        definition,
    }
}

/// `POST /api/tasks/{id}/versions/{n}/restore`: saves version `n`'s definition (its name and
/// device with it), folder and tags as the task's next version ("restored from n"; the switch and schedules
/// stay), validated as a save is: 400 when it no longer validates, 409 when its name is
/// another task's now.
pub async fn restore(
    State(app): State<AppState>,
    Extension(principal): Extension<Principal>,
    Path((id, n)): Path<(String, String)>,
) -> Result<Response, TaskError> {
    let v = version_of(&app, &id, &n).await?;
    let console = app.console()?.clone();
    let task = console.store().task(&v.task_id).await?;
    let place = (v.folder.clone(), v.tags.clone());
    let (new, report) = checked(
        &app,
        &console,
        v.definition.as_bytes(),
        task.enabled,
        task.notify,
        place,
    )
    .await?;
    let stamp = VersionStamp {
        author: author(&principal),
        cause: VersionCause::Restore,
        note: texts::restored_from(v.version),
    };
    let saved = console
        .store()
        .update_task(&task.id, &new, &stamp)
        .await
        .map_err(|e| name_taken(e, &new.name))?;
    console.tasks().schedules_changed();
    Ok(Json(detail(&console, &saved, report).await?).into_response())
}

/// `GET /api/tasks/folders`: every folder that holds a task, with its ancestors, and how many
/// tasks each holds (its subfolders' included): `{"items": [{folder, count}]}`.
pub async fn folders(State(app): State<AppState>) -> Result<Response, TaskError> {
    let items = app.console()?.store().task_folders().await?;
    Ok(Json(crate::console::views::Items { items }).into_response())
}

/// `GET /api/tasks/tags`: every tag and how many tasks carry it: `{"items": [{tag, count}]}`.
pub async fn tags(State(app): State<AppState>) -> Result<Response, TaskError> {
    let items = app.console()?.store().task_tags().await?;
    Ok(Json(crate::console::views::Items { items }).into_response())
}
