//! The runtime runs execute on: one thread of its own, beside the front end's workers.

use std::sync::OnceLock;

/// Where agent runs (and task runs) execute: a runtime with one thread of its own, so the model's stream and
/// the tools never wait behind the server's other work (a thousand watchers mean a thousand
/// socket writes per batch of events on the server's workers). Lives as long as the process.
/// Falls back to the server's runtime when a thread cannot be started.
pub fn agent_runtime() -> tokio::runtime::Handle {
    static RUNTIME: OnceLock<Option<tokio::runtime::Runtime>> = OnceLock::new();
    let own = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("deft-run")
            .enable_all()
            .build()
            .inspect_err(|e| tracing::warn!(error = %e, "no runtime of its own for agent runs"))
            .ok()
    });
    match own {
        Some(rt) => rt.handle().clone(),
        None => tokio::runtime::Handle::current(),
    }
}
