//! Tasks in the console API (docs/console-api.md "Tasks"): their CRUD and validation
//! ([`crud`]), their versions, folders and tags ([`versions`]), export and import
//! ([`transfer`]), their schedules ([`schedules`]), their runs — started by a person, a program or
//! the scheduler, each holding its device — with their events and steps ([`runs`], [`record`]),
//! and the scheduler's fire handler ([`fire`]).
//!
//! Every task and schedule is checked by deft-tasks' validator and schedule parser before
//! anything is stored: bad input is a 400 whose body lists every problem at its path.

pub mod crud;
pub mod export;
pub mod fire;
pub mod history;
pub mod runs;
pub mod schedules;
pub mod transfer;
pub mod versions;
pub mod views;

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use deft_app::task_language::{Issue, Report};
use deft_store::StoreError;

use crate::AppState;
use crate::api::ApiError;

/// What a task route answers when it fails: an [`ApiError`], or a refused task or schedule
/// with every problem at its path.
pub enum TaskError {
    /// A plain error.
    Api(ApiError),
    /// 400: the task file or schedule does not validate.
    Invalid(Report),
    /// 400: a query parameter (a filter, a sort, a cursor) is not one the route takes.
    Query(Report),
}

impl TaskError {
    /// A 400 with one problem at `path`.
    pub fn at(path: &str, message: impl Into<String>) -> TaskError {
        TaskError::Invalid(Report {
            errors: vec![Issue::new(path, message)],
            warnings: Vec::new(),
        })
    }

    /// A 400 for the query parameter `name`.
    pub fn param(name: &str, message: impl Into<String>) -> TaskError {
        TaskError::Query(Report {
            errors: vec![Issue::new(name, message)],
            warnings: Vec::new(),
        })
    }
}

impl From<ApiError> for TaskError {
    fn from(e: ApiError) -> Self {
        TaskError::Api(e)
    }
}

impl From<StoreError> for TaskError {
    fn from(e: StoreError) -> Self {
        TaskError::Api(store_error(e))
    }
}

/// A store error with the status its kind calls for (404 unknown, 409 conflict, 400 invalid,
/// else 500).
pub fn store_error(e: StoreError) -> ApiError {
    match e {
        StoreError::NotFound(t) => ApiError(StatusCode::NOT_FOUND, t),
        StoreError::Conflict(t) => ApiError(StatusCode::CONFLICT, t),
        StoreError::Invalid(t) => ApiError(StatusCode::BAD_REQUEST, t),
        other => ApiError::from(other),
    }
}

impl IntoResponse for TaskError {
    /// `{"error": "<summary>", "valid": false, "errors": [{path, message}], "warnings": […]}`
    /// for a refused task; `{"error"}` otherwise.
    fn into_response(self) -> Response {
        match self {
            TaskError::Api(e) => e.into_response(),
            TaskError::Invalid(report) => {
                let summary = super::texts::invalid_task(&report.errors);
                refused(report, summary)
            }
            TaskError::Query(report) => {
                let summary = super::texts::invalid_query(&report.errors);
                refused(report, summary)
            }
        }
    }
}

/// A 400 with every problem at its path, and `summary` as its `error`.
fn refused(report: Report, summary: String) -> Response {
    let mut body = serde_json::to_value(&report).unwrap_or_default();
    body["error"] = summary.into();
    (StatusCode::BAD_REQUEST, Json(body)).into_response()
}

/// The task routes (nested under `/api`, behind the login).
pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/tasks", get(crud::list).post(crud::create))
        .route("/tasks/validate", post(crud::validate))
        .route("/tasks/folders", get(versions::folders))
        .route("/tasks/export", get(transfer::export))
        .route("/tasks/import", post(transfer::import))
        .route("/tasks/tags", get(versions::tags))
        .route("/tasks/{id}/versions", get(versions::list))
        .route("/tasks/{id}/versions/diff", get(versions::diff_versions))
        .route("/tasks/{id}/versions/{n}", get(versions::get_one))
        .route("/tasks/{id}/versions/{n}/restore", post(versions::restore))
        .route(
            "/tasks/{id}",
            get(crud::get_one)
                .put(crud::replace)
                .patch(crud::patch)
                .delete(crud::delete),
        )
        .route("/tasks/{id}/run", post(runs::start_now))
        .route(
            "/tasks/{id}/schedules",
            get(schedules::list).post(schedules::create),
        )
        .route(
            "/tasks/{id}/schedules/{schedule}",
            get(schedules::get_one)
                .put(schedules::replace)
                .patch(schedules::patch)
                .delete(schedules::delete),
        )
        .route("/task-runs", get(runs::list))
        .route("/task-runs/export", get(export::export))
        .route("/task-runs/{id}", get(runs::get_one))
        .route("/task-runs/{id}/stop", post(runs::stop))
        .route("/task-runs/{id}/events", get(runs::events))
        .route(
            "/task-runs/{run_id}/images/{image_id}",
            get(crate::console::images::serve_task_run),
        )
}
