//! Runs on this machine without a server (`deft run`, `deft task run FILE`): the same life as a
//! server's runs — the device held, a trace folder written, the memory taking part in a chat and
//! distilling it after its answer — with the front end's own watcher of the events (the CLI's
//! terminal printer). The CLI opens neither the store nor the memory, and builds no agent or
//! runner itself.
//!
//! [`chat`] is an agent run (a chat or designer mode), [`task`] a task file's run.

pub mod chat;
pub mod task;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use deft_tools::Device;
use deft_tools::devices::BusyGuard;
use deft_trace::{TraceMeta, TraceWriter};

use crate::texts;

/// Why a run on this machine did not start.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// The device is held by another run.
    #[error("{0}")]
    DeviceBusy(String),
    /// The task uses secrets, which only deft serve keeps.
    #[error("{0}")]
    Secrets(String),
    /// The trace folder could not be created.
    #[error("cannot create the trace folder under {}: {source}", root.display())]
    TraceFolder {
        /// Where it was to go.
        root: PathBuf,
        /// Why not.
        #[source]
        source: std::io::Error,
    },
}

/// A fresh run id: seconds since the epoch and a random suffix (the trace folder's name).
pub fn new_run_id() -> String {
    format!(
        "{}-{}",
        crate::now_ms() / 1000,
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    )
}

/// Holds `device` for a run.
fn reserve(device: &Device) -> Result<BusyGuard, LocalError> {
    device
        .try_reserve()
        .ok_or_else(|| LocalError::DeviceBusy(texts::device_busy(&device.id)))
}

/// The trace folder of run `run_id` under `root`.
fn trace_folder(
    root: &Path,
    run_id: &str,
    meta: TraceMeta,
) -> Result<Arc<TraceWriter>, LocalError> {
    TraceWriter::create(root, run_id, meta)
        .map(Arc::new)
        .map_err(|source| LocalError::TraceFolder {
            root: root.to_owned(),
            source,
        })
}
