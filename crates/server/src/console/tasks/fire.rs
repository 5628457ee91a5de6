//! The scheduler of `deft serve`: the application's fire handler
//! ([`deft_app::task_runs::fires::TaskFires`]) over this server's devices, and the server's jobs
//! (the daily experience audit, [`crate::console::memory::audit::AuditJob`]).

use std::sync::Arc;

use deft_app::scheduler::Scheduler;
use deft_app::task_runs::fires::TaskFires;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::AppState;

/// Starts the scheduler over the console's store (its clock and settings from the console's
/// config) and ties it to the API; it stops when `stop` fires. `None` without a console.
pub fn start_scheduler(app: &AppState, stop: CancellationToken) -> Option<JoinHandle<()>> {
    let console = app.console.clone()?;
    let scheduler = Scheduler::new(
        console.store().clone(),
        Arc::new(TaskFires::new(
            console.app().clone(),
            Arc::new(app.registry.clone()),
        )),
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
