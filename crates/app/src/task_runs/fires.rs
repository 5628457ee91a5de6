//! What a schedule's fire does: a claimed fire starts the task's run as a person's "Run" does
//! (trigger `schedule`), or says the task or its device is busy (the schedule's busy policy
//! decides: wait or skip, recorded either way), or why it cannot run (recorded as failed); and
//! starting this server's scheduler with its handlers.

use std::collections::BTreeMap;
use std::sync::Arc;

use deft_store::StoreError;
use deft_tools::Devices;
use futures::future::BoxFuture;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::start::{Refusal, TaskOrder};
use crate::app::{App, now_ms};
use crate::audit::AuditJob;
use crate::scheduler::{Fire, FireHandler, FireOutcome, Scheduler, SchedulerConfig};
use crate::texts;

/// Starts the runs of fires on this server's devices.
pub struct TaskFires {
    app: App,
    devices: Arc<dyn Devices>,
}

impl TaskFires {
    /// The fire handler of `app`'s scheduler, running tasks on `devices`.
    pub fn new(app: App, devices: Arc<dyn Devices>) -> Self {
        TaskFires { app, devices }
    }
}

impl FireHandler for TaskFires {
    fn fire(&self, fire: Fire) -> BoxFuture<'_, FireOutcome> {
        Box::pin(async move {
            let task = match self.app.store().task(&fire.task_id).await {
                Ok(t) => t,
                Err(StoreError::NotFound(_)) => {
                    return FireOutcome::Refused {
                        reason: texts::unknown_task(&fire.task_id),
                    };
                }
                Err(e) => {
                    return FireOutcome::Refused {
                        reason: texts::store_failed(&e.to_string()),
                    };
                }
            };
            let order = TaskOrder {
                task,
                new: fire.task_run(now_ms()),
                variables: BTreeMap::new(),
            };
            match self.app.start_task_run(self.devices.as_ref(), order).await {
                Ok(run) => FireOutcome::Started { run_id: run.id },
                Err(Refusal::Busy(reason)) => FireOutcome::Busy { reason },
                Err(other) => FireOutcome::Refused {
                    reason: other.text(),
                },
            }
        })
    }
}

impl App {
    /// Starts the scheduler of this server over its store and clock, with `config`: task
    /// schedules start runs on `devices` ([`TaskFires`]), the daily audit's job starts a pass
    /// ([`crate::audit::AuditJob`]); it stops when `stop` fires.
    pub fn start_scheduler(
        &self,
        devices: Arc<dyn Devices>,
        config: SchedulerConfig,
        stop: CancellationToken,
    ) -> JoinHandle<()> {
        let scheduler = Scheduler::new(
            self.store().clone(),
            Arc::new(TaskFires::new(self.clone(), devices)),
            self.clock().clone(),
            config,
        )
        .with_jobs(AuditJob::new(self.clone()));
        self.task_runs().set_scheduler(scheduler.handle());
        let app = self.clone();
        tokio::spawn(async move {
            // The daily audit's job exists before the first pass reads the due jobs.
            if let Err(e) = app.audit_job().await {
                tracing::warn!(error = %e, "cannot arm the daily experience audit");
            }
            scheduler.run(stop).await;
        })
    }
}
