//! Devices (docs/design.md "Device, profile, directory"): what a run, a task or an exec batch
//! operates. `list_devices`, the run slot and the exec API see devices only through [`Devices`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use deft_protocol::{CommandResult, ExecBatch};
use tokio_util::sync::CancellationToken;

use crate::dispatcher::{Dispatcher, ExecContext};

/// The id of this machine as a device.
pub const LOCAL: &str = "local";

/// The id of the managed headless browser as a device.
pub const BROWSER: &str = "browser";

/// Ids no remote device may take.
pub const RESERVED_IDS: [&str; 2] = [LOCAL, BROWSER];

/// One device as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceInfo {
    /// Device id.
    pub id: String,
    /// Routing-table profile.
    pub profile: String,
    /// A run, task or exec batch is executing on it.
    pub busy: bool,
}

/// A device: its profile, its dispatcher and its busy flag.
#[derive(Clone)]
pub struct Device {
    /// Device id.
    pub id: String,
    /// Routing-table profile.
    pub profile: String,
    /// Runs its batches.
    pub dispatcher: Arc<dyn Dispatcher>,
    busy: Arc<AtomicBool>,
}

/// Holds a device busy until dropped.
pub struct BusyGuard(Arc<AtomicBool>);

impl Drop for BusyGuard {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl Device {
    /// A device, idle.
    pub fn new(id: &str, profile: &str, dispatcher: Arc<dyn Dispatcher>) -> Self {
        Device {
            id: id.to_owned(),
            profile: profile.to_owned(),
            dispatcher,
            busy: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Whether something is executing on it.
    pub fn is_busy(&self) -> bool {
        self.busy.load(Ordering::Acquire)
    }

    /// Marks it busy, or `None` when it already is (the caller answers 409).
    pub fn try_reserve(&self) -> Option<BusyGuard> {
        self.busy
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .ok()
            .map(|_| BusyGuard(self.busy.clone()))
    }

    /// Runs `batches` in order within this device's session (a window selected by one batch is
    /// acted on by the next); a batch's own `profile` wins over the device's. `cancel` stops the
    /// batch in flight (its Results say so) and every batch after it.
    pub async fn run_batches(
        &self,
        batches: Vec<ExecBatch>,
        deadline: std::time::Duration,
        cancel: &CancellationToken,
    ) -> Vec<Vec<CommandResult>> {
        let mut all = Vec::with_capacity(batches.len());
        for batch in batches {
            let mut ctx =
                ExecContext::new(&self.id, batch.profile.as_deref().unwrap_or(&self.profile));
            ctx.agent = batch.agent;
            ctx.process = batch.process;
            ctx.root = batch.root;
            ctx.early_exit = batch.early_exit;
            ctx.deadline = deadline;
            ctx.cancel = cancel.clone();
            all.push(self.dispatcher.execute(&ctx, batch.commands).await);
        }
        all
    }

    /// How it is listed.
    pub fn info(&self) -> DeviceInfo {
        DeviceInfo {
            id: self.id.clone(),
            profile: self.profile.clone(),
            busy: self.is_busy(),
        }
    }
}

/// The device directory.
pub trait Devices: Send + Sync {
    /// Every device, sorted by id.
    fn list(&self) -> Vec<DeviceInfo>;
    /// The device with `id`.
    fn get(&self, id: &str) -> Option<Device>;
}

/// A fixed set of devices (the CLI's `local`, later `browser`).
#[derive(Clone, Default)]
pub struct StaticDevices {
    devices: Vec<Device>,
}

impl StaticDevices {
    /// A directory of `devices`.
    pub fn new(mut devices: Vec<Device>) -> Self {
        devices.sort_by(|a, b| a.id.cmp(&b.id));
        StaticDevices { devices }
    }
}

impl Devices for StaticDevices {
    fn list(&self) -> Vec<DeviceInfo> {
        self.devices.iter().map(Device::info).collect()
    }

    fn get(&self, id: &str) -> Option<Device> {
        self.devices.iter().find(|d| d.id == id).cloned()
    }
}

/// The profile of the `local` device: `desktop` when a display is reachable (`DISPLAY` set, or
/// `desktop_state` — the managed virtual desktop's state file — exists), else `shell`.
pub fn local_profile(desktop_state: Option<&std::path::Path>) -> &'static str {
    let display = std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty());
    if display || desktop_state.is_some_and(|p| p.exists()) {
        "desktop"
    } else {
        "shell"
    }
}
