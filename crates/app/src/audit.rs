//! The experience audit as the application runs it: a pass started on demand or by the
//! scheduler's daily job (one pass at a time, across servers), run in the background with the
//! model of the settings in force; the job itself (03:47 every day in the server's time zone
//! by default, kept in the store beside the task schedules, so with several servers each fire
//! runs once) and changing when it runs.

use std::sync::Arc;

use deft_agent::llm::{LlmClient, LlmConfig};
use deft_memory::{AUDIT_JOB, AuditError, DEFAULT_AUDIT_CRON};
use deft_store::{AuditRun, AuditTrigger, Job, NewJob, ScheduleKind, StoreError};
use deft_tasks::schedule::ScheduleSpec;
use futures::future::BoxFuture;

use crate::app::App;
use crate::scheduler::{JobFire, JobHandler, local_zone};
use crate::settings::SettingsError;
use crate::texts;

/// Why a pass did not start.
#[derive(Debug, thiserror::Error)]
pub enum AuditStartError {
    /// A pass is running already (on any server).
    #[error("{0}")]
    Busy(String),
    /// The model of the settings is unusable.
    #[error("{0}")]
    Model(String),
    /// The settings could not be read.
    #[error(transparent)]
    Settings(SettingsError),
    /// The store failed.
    #[error(transparent)]
    Store(StoreError),
}

/// A new audit schedule that is not one: the field it is about (`cron` or `tz`) and why.
#[derive(Debug)]
pub struct BadAuditSchedule {
    /// `cron` or `tz`.
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
}

/// What changes when the audit runs; `None` keeps the value.
#[derive(Debug, Default)]
pub struct AuditSchedule {
    /// A 5-field cron expression.
    pub cron: Option<String>,
    /// Its IANA time zone.
    pub tz: Option<String>,
    /// Whether it fires.
    pub enabled: Option<bool>,
}

impl App {
    /// The daily audit's job in the store, created on first use: 03:47 every day, server time.
    pub async fn audit_job(&self) -> Result<Job, StoreError> {
        let kind = ScheduleKind::Cron {
            expr: DEFAULT_AUDIT_CRON.to_owned(),
            tz: local_zone(),
        };
        let next = ScheduleSpec::parse(&kind)
            .ok()
            .and_then(|spec| spec.first_fire(self.clock().now_ms()).ok());
        self.store()
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

    /// Starts a pass (recorded as running) and runs it in the background with the settings'
    /// model (none configured: the pass records that it could not judge); a pass that suggested
    /// deletions sends one notification.
    pub async fn start_audit(&self, trigger: AuditTrigger) -> Result<AuditRun, AuditStartError> {
        let llm = self.audit_model().await?;
        let memory = self.memory().library().clone();
        let now = self.clock().now_ms();
        let run = memory
            .start_audit(trigger, now)
            .await
            .map_err(|e| match e {
                AuditError::Busy => {
                    AuditStartError::Busy(deft_memory::texts::AUDIT_BUSY.to_owned())
                }
                AuditError::Store(e) => AuditStartError::Store(e),
            })?;
        tracing::info!(audit = %run.id, trigger = trigger.as_str(), "audit started");
        let (pass, app) = (run.clone(), self.clone());
        tokio::spawn(async move {
            match memory
                .audit(&pass, llm.as_ref(), now, &Default::default())
                .await
            {
                Ok(ended) => {
                    app.notifier().audit_ended(&ended).await;
                }
                Err(e) => {
                    tracing::error!(audit = %pass.id, error = %e, "the audit could not record its end")
                }
            }
        });
        Ok(run)
    }

    /// Changes when the daily audit runs; the scheduler takes the change at once.
    pub async fn set_audit_schedule(
        &self,
        change: AuditSchedule,
    ) -> Result<Result<Job, BadAuditSchedule>, StoreError> {
        let job = self.audit_job().await?;
        let (expr, tz) = match &job.kind {
            ScheduleKind::Cron { expr, tz } => (expr.clone(), tz.clone()),
            _ => (DEFAULT_AUDIT_CRON.to_owned(), local_zone()),
        };
        let kind = ScheduleKind::Cron {
            expr: change.cron.unwrap_or(expr),
            tz: change.tz.unwrap_or(tz),
        };
        let spec = match ScheduleSpec::parse(&kind) {
            Ok(spec) => spec,
            Err(e) => {
                let field = if e.input() == "tz" { "tz" } else { "cron" };
                return Ok(Err(BadAuditSchedule {
                    field,
                    message: e.to_string(),
                }));
            }
        };
        let next = match spec.first_fire(self.clock().now_ms()) {
            Ok(next) => next,
            Err(e) => {
                return Ok(Err(BadAuditSchedule {
                    field: "cron",
                    message: e.to_string(),
                }));
            }
        };
        let job = self
            .store()
            .update_job(
                AUDIT_JOB,
                &NewJob {
                    kind,
                    enabled: change.enabled.unwrap_or(job.enabled),
                    next_fire_at_ms: Some(next),
                },
            )
            .await?;
        self.task_runs().schedules_changed();
        Ok(Ok(job))
    }

    /// The model of the settings, or `None` when none is configured.
    async fn audit_model(&self) -> Result<Option<LlmClient>, AuditStartError> {
        let settings = self
            .run_settings()
            .await
            .map_err(AuditStartError::Settings)?;
        if settings.model.trim().is_empty() {
            return Ok(None);
        }
        LlmClient::new(deft_memory::model_config(&LlmConfig::new(
            &settings.api_base,
            &settings.model,
            settings.api_key.clone(),
        )))
        .map(Some)
        .map_err(|e| AuditStartError::Model(texts::model_unusable(&e.to_string())))
    }
}

/// The scheduler's handler of the audit job: a fire starts a pass (a pass still running, on
/// any server, makes the fire a no-op, logged).
pub struct AuditJob {
    app: App,
}

impl AuditJob {
    /// The handler for `app`.
    pub fn new(app: App) -> Arc<AuditJob> {
        Arc::new(AuditJob { app })
    }
}

impl JobHandler for AuditJob {
    fn fire(&self, fire: JobFire) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if fire.name != AUDIT_JOB {
                tracing::warn!(job = %fire.name, "a job this server does not know fired; ignored");
                return;
            }
            match self.app.start_audit(AuditTrigger::Schedule).await {
                Ok(run) => {
                    tracing::info!(audit = %run.id, missed = fire.missed, "the daily audit started")
                }
                Err(e) => tracing::warn!(error = %e, "the daily audit did not start"),
            }
        })
    }
}
