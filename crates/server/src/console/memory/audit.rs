//! The audit in the console: `GET /api/memory/audit` (the pass under way, the last one, the
//! schedule), `POST /api/memory/audit` (run it now), `PUT /api/memory/audit/schedule` (when it
//! runs), `GET /api/memory/audits` (the passes). The application runs the passes and the
//! daily job ([`deft_app::audit`]).

use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use deft_app::audit::{AuditSchedule, AuditStartError};
use deft_store::{AuditStatus, AuditTrigger, Page};
use serde::Deserialize;

use super::MemoryError;
use super::views::{AuditRunView, AuditScheduleView, AuditStateView};
use crate::AppState;
use crate::api::{ApiError, JsonBody};
use crate::console::settings::settings_error;

impl From<AuditStartError> for MemoryError {
    fn from(e: AuditStartError) -> Self {
        MemoryError::Api(match e {
            AuditStartError::Busy(t) => ApiError(StatusCode::CONFLICT, t),
            AuditStartError::Model(t) => ApiError(StatusCode::BAD_REQUEST, t),
            AuditStartError::Settings(e) => settings_error(e),
            AuditStartError::Store(e) => e.into(),
        })
    }
}

/// `GET /api/memory/audit`.
pub async fn state(State(app): State<AppState>) -> Result<Response, MemoryError> {
    let console = app.console()?;
    let job = console.app().audit_job().await?;
    let recent = console
        .store()
        .audits(Page {
            limit: 20,
            offset: 0,
        })
        .await?;
    let running = recent
        .items
        .iter()
        .find(|r| r.status == AuditStatus::Running);
    let last = recent
        .items
        .iter()
        .find(|r| r.status != AuditStatus::Running);
    Ok(Json(AuditStateView {
        running: running.map(AuditRunView::from),
        last: last.map(AuditRunView::from),
        schedule: AuditScheduleView::from(&job),
    })
    .into_response())
}

/// `POST /api/memory/audit`: 202 the pass started; 409 while one runs.
pub async fn run_now(State(app): State<AppState>) -> Result<Response, MemoryError> {
    let run = app
        .console()?
        .app()
        .start_audit(AuditTrigger::Manual)
        .await?;
    Ok((StatusCode::ACCEPTED, Json(AuditRunView::from(&run))).into_response())
}

/// `GET /api/memory/audits?limit=&offset=`: `{items, total}`, newest first.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    #[serde(default)]
    limit: Option<u32>,
    #[serde(default)]
    offset: Option<u64>,
}

/// The audit passes.
pub async fn list(
    State(app): State<AppState>,
    Query(q): Query<ListQuery>,
) -> Result<Response, MemoryError> {
    let page = super::page(q.limit, q.offset);
    let got = app.console()?.store().audits(page).await?;
    let items: Vec<AuditRunView> = got.items.iter().map(AuditRunView::from).collect();
    Ok(super::paged(items, got.total))
}

/// `PUT /api/memory/audit/schedule` body: any of these.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "AuditScheduleBody")]
pub struct ScheduleBody {
    /// A 5-field cron expression.
    #[serde(default)]
    cron: Option<String>,
    /// Its IANA time zone.
    #[serde(default)]
    tz: Option<String>,
    /// Whether it fires.
    #[serde(default)]
    enabled: Option<bool>,
}

/// Changes when the daily audit runs; the scheduler takes the change at once.
pub async fn set_schedule(
    State(app): State<AppState>,
    JsonBody(body): JsonBody<ScheduleBody>,
) -> Result<Response, MemoryError> {
    let change = AuditSchedule {
        cron: body.cron,
        tz: body.tz,
        enabled: body.enabled,
    };
    let job = app
        .console()?
        .app()
        .set_audit_schedule(change)
        .await?
        .map_err(|bad| MemoryError::at("audit schedule", bad.field, bad.message))?;
    Ok(Json(AuditScheduleView::from(&job)).into_response())
}
