//! The memory in the console (docs/console-api.md "Memory"): deft-memory's libraries behind
//! routes — experiences ([`experiences`]: list, read, write, edit, delete by a person, keep),
//! actions ([`actions`]: the same, checked in library mode on every save, and tried on a
//! device), the audit ([`audit`]: on demand and as the scheduler's daily job). What a run does
//! with them (recall at its start, distilling after its `done`) is the application's
//! ([`deft_app::run_memory`]).

pub mod actions;
pub mod audit;
pub mod experiences;
pub mod views;

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use deft_app::task_language::{Issue, Report};
use deft_store::StoreError;

use crate::AppState;
use crate::api::ApiError;

/// What a memory route answers when it fails: an [`ApiError`], or a refused entry with every
/// problem at its path.
pub enum MemoryError {
    /// A plain error.
    Api(ApiError),
    /// 400: the entry (`what`: "action", "experience") does not validate.
    Invalid(&'static str, Report),
}

impl MemoryError {
    /// A 400 with one problem at `path`.
    pub fn at(what: &'static str, path: &str, message: impl Into<String>) -> MemoryError {
        MemoryError::Invalid(
            what,
            Report {
                errors: vec![Issue::new(path, message)],
                warnings: Vec::new(),
            },
        )
    }
}

impl From<ApiError> for MemoryError {
    fn from(e: ApiError) -> Self {
        MemoryError::Api(e)
    }
}

impl From<StoreError> for MemoryError {
    fn from(e: StoreError) -> Self {
        MemoryError::Api(super::tasks::store_error(e))
    }
}

impl IntoResponse for MemoryError {
    /// `{"error": "<summary>", "valid": false, "errors": [{path, message}], "warnings": […]}`
    /// for a refused entry; `{"error"}` otherwise.
    fn into_response(self) -> Response {
        match self {
            MemoryError::Api(e) => e.into_response(),
            MemoryError::Invalid(what, report) => {
                let mut body = serde_json::to_value(&report).unwrap_or_default();
                body["error"] = super::texts::invalid(what, &report.errors).into();
                (StatusCode::BAD_REQUEST, Json(body)).into_response()
            }
        }
    }
}

/// `?limit=&offset=` as the store's page (1–1,000 items, default 50).
fn page(limit: Option<u32>, offset: Option<u64>) -> deft_store::Page {
    super::tasks::crud::PageQuery { limit, offset }.page()
}

/// A list route's answer: `{"items": […], "total": N}`.
fn paged<T: serde::Serialize>(items: Vec<T>, total: u64) -> Response {
    Json(crate::console::views::PageView::new(items, total)).into_response()
}

/// The memory routes (nested under `/api`, behind the login).
pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route(
            "/memory/experiences",
            get(experiences::list).post(experiences::create),
        )
        .route(
            "/memory/experiences/{id}",
            get(experiences::get_one)
                .put(experiences::replace)
                .patch(experiences::patch)
                .delete(experiences::delete),
        )
        .route("/memory/experiences/{id}/keep", post(experiences::keep))
        .route("/memory/actions", get(actions::list).post(actions::create))
        .route("/memory/actions/validate", post(actions::validate))
        .route(
            "/memory/actions/{id}",
            get(actions::get_one)
                .put(actions::replace)
                .delete(actions::delete),
        )
        .route("/memory/actions/{id}/try", post(actions::try_on_device))
        .route("/memory/audit", get(audit::state).post(audit::run_now))
        .route(
            "/memory/audit/schedule",
            axum::routing::put(audit::set_schedule),
        )
        .route("/memory/audits", get(audit::list))
}
