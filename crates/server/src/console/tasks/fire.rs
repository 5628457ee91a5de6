//! The scheduler of `deft serve` and its [`FireHandler`]: a claimed fire starts the task's
//! run like `POST /api/tasks/{id}/run` does (trigger `schedule`), or says the task or its
//! device is busy (the schedule's busy policy decides: wait or skip, recorded either way), or
//! why it cannot run (recorded as failed). The same scheduler fires the server's jobs (the
//! daily experience audit, [`crate::console::memory::audit::AuditJob`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use deft_app::scheduler::{Fire, FireHandler, FireOutcome, Scheduler};
use deft_store::StoreError;
use futures::future::BoxFuture;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::runs::{Order, Refusal, start};
use crate::AppState;
use crate::console::{now_ms, texts};

/// Starts the runs of fires on this server.
pub struct TaskFires {
    app: AppState,
}

impl FireHandler for TaskFires {
    fn fire(&self, fire: Fire) -> BoxFuture<'_, FireOutcome> {
        Box::pin(async move {
            let Some(console) = self.app.console.clone() else {
                return FireOutcome::Refused {
                    reason: "this server runs without the console".to_owned(),
                };
            };
            let task = match console.store().task(&fire.task_id).await {
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
            let order = Order {
                task,
                new: fire.task_run(now_ms()),
                variables: BTreeMap::new(),
            };
            match start(&self.app, &console, order).await {
                Ok(run) => FireOutcome::Started { run_id: run.id },
                Err(Refusal::Busy(reason)) => FireOutcome::Busy { reason },
                Err(other) => FireOutcome::Refused {
                    reason: other.text(),
                },
            }
        })
    }
}

/// Starts the scheduler over the console's store (its clock and settings from the console's
/// config) and ties it to the API; it stops when `stop` fires. `None` without a console.
pub fn start_scheduler(app: &AppState, stop: CancellationToken) -> Option<JoinHandle<()>> {
    let console = app.console.clone()?;
    let scheduler = Scheduler::new(
        console.store().clone(),
        Arc::new(TaskFires { app: app.clone() }),
        console.app().clock().clone(),
        console.inner.scheduler.clone(),
    )
    .with_jobs(crate::console::memory::audit::AuditJob::new(app.clone()));
    console.tasks().set_scheduler(scheduler.handle());
    Some(tokio::spawn(async move {
        // The daily audit's job exists before the first pass reads the due jobs.
        if let Err(e) = crate::console::memory::audit::audit_job(&console).await {
            tracing::warn!(error = %e, "cannot arm the daily experience audit");
        }
        scheduler.run(stop).await;
    }))
}
