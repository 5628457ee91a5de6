//! Exec batches on a device (`deft exec` against a server, `POST /api/devices/{id}/exec`): the
//! batches run in order within the device's session while the device is held — busy, they are
//! refused with what holds it. A device another server of the fleet holds runs them there
//! ([`App::exec_elsewhere`]).

use std::time::Duration;

use deft_protocol::{CommandResult, ExecBatch};
use deft_tools::Devices;
use tokio_util::sync::CancellationToken;

use crate::agent_runs::start::StartError;
use crate::app::App;
use crate::task_runs::FreeNotice;
use crate::texts;

impl App {
    /// Runs `batches` in order on `device` of `devices` within `deadline` each, holding the
    /// device; the Results, a list per batch. Refused when the device is not connected (here
    /// or on another server of the fleet, which then runs them) or is busy. `cancel` stops the
    /// batch in flight (a caller that goes away).
    pub async fn exec_batches(
        &self,
        devices: &dyn Devices,
        device: &str,
        batches: Vec<ExecBatch>,
        deadline: Duration,
        cancel: &CancellationToken,
    ) -> Result<Vec<Vec<CommandResult>>, StartError> {
        let Some(found) = devices.get(device) else {
            if self.holder_elsewhere(device).await?.is_some() {
                return self.exec_elsewhere(device, batches, deadline).await;
            }
            let known: Vec<String> = devices.list().into_iter().map(|d| d.id).collect();
            return Err(StartError::NotFound(texts::device_not_connected(
                device, &known,
            )));
        };
        // Declared before the busy guard: dropped after it, when the device is free.
        let _freed = FreeNotice::new(self.task_runs(), device);
        let _busy = found
            .try_reserve()
            .ok_or_else(|| StartError::Busy(self.device_busy_text(device)))?;
        Ok(found.run_batches(batches, deadline, cancel).await)
    }
}
