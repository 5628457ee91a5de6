//! The audit in the console: `GET /api/memory/audit` (the pass under way, the last one, the
//! schedule), `POST /api/memory/audit` (run it now), `PUT /api/memory/audit/schedule` (when it
//! runs), `GET /api/memory/audits` (the passes); and the scheduler's job handler that starts
//! the daily pass. The job lives in the store beside the task schedules, so with several
//! servers each fire runs once; its default is 03:47 every day in the server's time zone.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use deft_agent::llm::{LlmClient, LlmConfig};
use deft_app::scheduler::{JobFire, JobHandler, local_zone};
use deft_memory::{AUDIT_JOB, AuditError, DEFAULT_AUDIT_CRON};
use deft_store::{
    AuditRun, AuditStatus, AuditTrigger, Job, NewJob, Page, ScheduleKind, StoreError,
};
use deft_tasks::schedule::ScheduleSpec;
use futures::future::BoxFuture;
use serde::Deserialize;

use super::MemoryError;
use super::views::{AuditRunView, AuditScheduleView, AuditStateView};
use crate::AppState;
use crate::api::{ApiError, JsonBody};
use crate::console::{Console, texts};

/// The daily audit's job in the store, created on first use: 03:47 every day, server time.
pub async fn audit_job(console: &Console) -> Result<Job, StoreError> {
    let kind = ScheduleKind::Cron {
        expr: DEFAULT_AUDIT_CRON.to_owned(),
        tz: local_zone(),
    };
    let next = ScheduleSpec::parse(&kind)
        .ok()
        .and_then(|spec| spec.first_fire(console.app().clock().now_ms()).ok());
    console
        .store()
        .ensure_job(
            AUDIT_JOB,
            &NewJob {
                kind,
                enabled: true,
                next_fire_at_ms: next,
            },
        )
        .await
}

/// The model of the settings, or `None` when none is configured.
async fn settings_model(console: &Console) -> Result<Option<LlmClient>, ApiError> {
    let settings = console.settings().await?;
    if settings.model.trim().is_empty() {
        return Ok(None);
    }
    LlmClient::new(deft_memory::model_config(&LlmConfig::new(
        &settings.api_base,
        &settings.model,
        settings.api_key.clone(),
    )))
    .map(Some)
    .map_err(|e| {
        ApiError(
            StatusCode::BAD_REQUEST,
            texts::model_unusable(&e.to_string()),
        )
    })
}

/// Starts a pass (recorded as running) and runs it in the background with the settings' model.
pub async fn start(console: &Console, trigger: AuditTrigger) -> Result<AuditRun, MemoryError> {
    let llm = settings_model(console).await?;
    let memory = console.memory().library().clone();
    let now = console.app().clock().now_ms();
    let run = memory
        .start_audit(trigger, now)
        .await
        .map_err(|e| match e {
            AuditError::Busy => MemoryError::Api(ApiError(
                StatusCode::CONFLICT,
                deft_memory::texts::AUDIT_BUSY.to_owned(),
            )),
            AuditError::Store(e) => e.into(),
        })?;
    tracing::info!(audit = %run.id, trigger = trigger.as_str(), "audit started");
    let pass = run.clone();
    tokio::spawn(async move {
        if let Err(e) = memory
            .audit(&pass, llm.as_ref(), now, &Default::default())
            .await
        {
            tracing::error!(audit = %pass.id, error = %e, "the audit could not record its end");
        }
    });
    Ok(run)
}

/// `GET /api/memory/audit`.
pub async fn state(State(app): State<AppState>) -> Result<Response, MemoryError> {
    let console = app.console()?;
    let job = audit_job(console).await?;
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
    let run = start(app.console()?, AuditTrigger::Manual).await?;
    Ok((StatusCode::ACCEPTED, Json(AuditRunView::from(&run))).into_response())
}

/// `GET /api/memory/audits?limit=&offset=`: `{items, total}`, newest first.
#[derive(Debug, Deserialize)]
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
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
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
    let console = app.console()?;
    let job = audit_job(console).await?;
    let (expr, tz) = match &job.kind {
        ScheduleKind::Cron { expr, tz } => (expr.clone(), tz.clone()),
        _ => (DEFAULT_AUDIT_CRON.to_owned(), local_zone()),
    };
    let kind = ScheduleKind::Cron {
        expr: body.cron.unwrap_or(expr),
        tz: body.tz.unwrap_or(tz),
    };
    let spec = ScheduleSpec::parse(&kind).map_err(|e| {
        let path = if e.input() == "tz" { "tz" } else { "cron" };
        MemoryError::at("audit schedule", path, e.to_string())
    })?;
    let enabled = body.enabled.unwrap_or(job.enabled);
    let next = spec
        .first_fire(console.app().clock().now_ms())
        .map_err(|e| MemoryError::at("audit schedule", "cron", e.to_string()))?;
    let job = console
        .store()
        .update_job(
            AUDIT_JOB,
            &NewJob {
                kind,
                enabled,
                next_fire_at_ms: Some(next),
            },
        )
        .await?;
    console.tasks().schedules_changed();
    Ok(Json(AuditScheduleView::from(&job)).into_response())
}

/// The scheduler's handler of the audit job: a fire starts a pass (a pass still running, on
/// any server, makes the fire a no-op, logged).
pub struct AuditJob {
    app: AppState,
}

impl AuditJob {
    /// The handler for the server of `app`.
    pub fn new(app: AppState) -> Arc<AuditJob> {
        Arc::new(AuditJob { app })
    }
}

impl JobHandler for AuditJob {
    fn fire(&self, fire: JobFire) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let Some(console) = self.app.console.clone() else {
                return;
            };
            if fire.name != AUDIT_JOB {
                tracing::warn!(job = %fire.name, "a job this server does not know fired; ignored");
                return;
            }
            match start(&console, AuditTrigger::Schedule).await {
                Ok(run) => {
                    tracing::info!(audit = %run.id, missed = fire.missed, "the daily audit started")
                }
                Err(MemoryError::Api(e)) => {
                    tracing::warn!(error = %e.1, "the daily audit did not start")
                }
                Err(MemoryError::Invalid(..)) => {}
            }
        })
    }
}
