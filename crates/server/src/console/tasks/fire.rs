//! The scheduler of `deft serve`: the application's ([`deft_app::App::start_scheduler`]) over
//! this server's devices, with the console's scheduler settings.

use std::sync::Arc;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::AppState;

/// Starts the scheduler over the console's store (its clock and settings from the console's
/// config) and ties it to the API; it stops when `stop` fires. `None` without a console.
pub fn start_scheduler(app: &AppState, stop: CancellationToken) -> Option<JoinHandle<()>> {
    let console = app.console.as_ref()?;
    Some(console.app().start_scheduler(
        Arc::new(app.registry.clone()),
        console.inner.scheduler.clone(),
        stop,
    ))
}
