//! Trying an action of the library on a device: the action run once through the task runner
//! while the device is held (a busy device refuses), its step images kept like a run's (as a
//! run named `try-<id>`), and how each step went answered. A device another server of the
//! fleet holds is tried there ([`App::try_action_elsewhere`]).

use deft_protocol::task_run::TaskStepResult;
use deft_store::Action;
use deft_tools::Devices;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::agent_runs::start::StartError;
use crate::app::App;
use crate::run_images::FileImages;
use crate::texts;

/// An action tried on a device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionTry {
    /// The try's id (`try-<uuid>`: its step images are under it, on the server that ran it).
    pub try_id: String,
    /// The device it ran on.
    pub device: String,
    /// The action's name.
    pub action: String,
    /// Every step completed.
    pub completed: bool,
    /// A line per step, as `run_action` answers the model.
    pub text: String,
    /// Each step's result.
    pub steps: Vec<TaskStepResult>,
}

impl App {
    /// Runs `action` once on `device` (default: the settings' default device) with
    /// `variables`, holding the device; refused when it is not connected or busy. A device
    /// that is not among `devices` but another server of the fleet holds is tried there.
    pub async fn try_action(
        &self,
        devices: &dyn Devices,
        action: &Action,
        device: Option<String>,
        variables: &Map<String, Value>,
    ) -> Result<ActionTry, StartError> {
        let device_id = match device.filter(|d| !d.trim().is_empty()) {
            Some(d) => d,
            None => Some(self.run_settings().await?.default_device)
                .filter(|d| !d.is_empty())
                .ok_or_else(|| StartError::Invalid(texts::NO_DEVICE.to_owned()))?,
        };
        if devices.get(&device_id).is_none() && self.holder_elsewhere(&device_id).await?.is_some() {
            return self
                .try_action_elsewhere(&device_id, &action.id, variables)
                .await;
        }
        let device = devices.get(&device_id).ok_or_else(|| {
            let known: Vec<String> = devices.list().into_iter().map(|d| d.id).collect();
            StartError::NotFound(texts::device_not_connected(&device_id, &known))
        })?;
        let Some(busy) = device.try_reserve() else {
            return Err(StartError::Busy(self.device_busy_text(&device_id)));
        };
        let try_id = format!("try-{}", uuid::Uuid::new_v4());
        let images = std::sync::Arc::new(FileImages::new(self.run_images_dir(&try_id)));
        let ran = self
            .memory()
            .library()
            .run_action(action, variables, &device, images, &Default::default())
            .await;
        drop(busy);
        self.task_runs().device_freed(&device_id);
        Ok(ActionTry {
            try_id,
            device: device_id,
            action: ran.action,
            completed: ran.completed,
            text: ran.text,
            steps: ran.report.map(|r| r.steps).unwrap_or_default(),
        })
    }
}
