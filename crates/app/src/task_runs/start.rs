//! Starting a task run, whoever asks (a person, a program, the scheduler) and starting a run of
//! a draft (designer mode's "try it"): the task validated again with the run's variables, its
//! device found and reserved, the run recorded (the store refuses a second running instance of
//! a task, across servers, and a second draft), then the runner on its way ([`super::record`]).
//! Each answers at once with the recorded run.

use std::collections::BTreeMap;
use std::sync::Arc;

use deft_store::{NewDraftRun, NewTaskRun, RunStart, StoreError, TaskRun};
use deft_tasks::runner::RunRequest;
pub use deft_tasks::runner::Scope;
use deft_tasks::validate::{DeviceKind, Options, Report};
use deft_tools::Devices;
use deft_tools::devices::BusyGuard;

use super::ActiveTaskRun;
use super::record::{self, Launch};
use crate::app::{App, now_ms};
use crate::texts;

/// What a task run is started with.
pub struct TaskOrder {
    /// The task as stored.
    pub task: deft_store::Task,
    /// The run's record (trigger, schedule, device, variables).
    pub new: NewTaskRun,
    /// The run's variables.
    pub variables: BTreeMap<String, String>,
}

impl TaskOrder {
    /// A run of `task` asked for now (by a person, the API or another server of the fleet,
    /// with `trigger`), on `device` (the task's own when `None`) with `variables`.
    pub fn asked(
        task: deft_store::Task,
        trigger: deft_store::TaskTrigger,
        device: Option<String>,
        variables: BTreeMap<String, String>,
    ) -> TaskOrder {
        let new = NewTaskRun {
            task_id: task.id.clone(),
            trigger,
            schedule_id: None,
            fire_at_ms: None,
            device: device.filter(|d| !d.trim().is_empty()),
            variables: json_variables(&variables),
            started_at_ms: now_ms(),
            owner: None,
            task_version: None,
        };
        TaskOrder {
            task,
            new,
            variables,
        }
    }
}

/// What a run of a draft (designer mode's "try it") is started with.
pub struct DraftOrder {
    /// The task file.
    pub definition: Vec<u8>,
    /// The device it runs on.
    pub device: String,
    /// The run's variables.
    pub variables: BTreeMap<String, String>,
    /// Which steps run: the whole draft, up to a step (run to here) or one step alone (run
    /// this step, in the window the device's last task run left selected).
    pub scope: Scope,
}

/// Why a run did not start.
#[derive(Debug)]
pub enum Refusal {
    /// The task runs already, or its device is busy.
    Busy(String),
    /// The stored task no longer validates (with these variables).
    Invalid(Report),
    /// The device is not connected.
    NoDevice(String),
    /// The store failed.
    Store(StoreError),
    /// The task's secrets are not all in the server's store, or cannot be opened.
    Secrets(String),
    /// The run's `until` / `only` (the field) names no step of the task.
    Scope(&'static str, String),
    /// The server of the fleet that holds the device refused it, saying why.
    Refused(String),
}

impl Refusal {
    /// The reason as a sentence (the scheduler records it).
    pub fn text(&self) -> String {
        match self {
            Refusal::Busy(t)
            | Refusal::NoDevice(t)
            | Refusal::Secrets(t)
            | Refusal::Scope(_, t)
            | Refusal::Refused(t) => t.clone(),
            Refusal::Invalid(r) => texts::invalid_task(&r.errors),
            Refusal::Store(e) => texts::store_failed(&e.to_string()),
        }
    }
}

/// The kind of device `id` is, for validating a task against it: from its profile when it is
/// connected, else from its name.
pub fn device_kind(devices: &dyn Devices, id: &str) -> DeviceKind {
    match devices.get(id) {
        Some(d) => DeviceKind::of_profile(&d.profile),
        None => DeviceKind::of_device(id),
    }
}

/// A run's variables as the store keeps them.
pub fn json_variables(
    variables: &BTreeMap<String, String>,
) -> serde_json::Map<String, serde_json::Value> {
    variables
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
        .collect()
}

impl App {
    /// Starts a run of a stored task on one of `devices` (the order's device, else the task's).
    pub async fn start_task_run(
        &self,
        devices: &dyn Devices,
        order: TaskOrder,
    ) -> Result<TaskRun, Refusal> {
        let device_id = order
            .new
            .device
            .clone()
            .unwrap_or_else(|| order.task.device.clone());
        let ready = self
            .prepare(
                devices,
                order.task.definition.as_bytes(),
                &device_id,
                &order.variables,
                &Scope::Whole,
            )
            .inspect_err(|refusal| {
                if matches!(refusal, Refusal::Busy(_)) {
                    self.task_runs().note_blocked(&device_id, &order.task.id);
                }
            })?;
        let secrets = self.open_secrets(&ready.task).await?;
        let mut new = order.new;
        new.device = Some(device_id);
        new.owner = Some(self.server_id().to_owned());
        // The version whose definition this run plays, whatever is saved meanwhile.
        new.task_version = Some(order.task.version);
        let run = match self
            .store()
            .start_task_run(&new)
            .await
            .map_err(Refusal::Store)?
        {
            RunStart::Started(run) => run,
            RunStart::Busy(other) => {
                return Err(Refusal::Busy(texts::task_running(
                    &order.task.name,
                    &other.id,
                )));
            }
        };
        let request = RunRequest::new(order.variables, secrets);
        self.launch(ready, &run, request);
        Ok(run)
    }

    /// Starts a run of a draft that is no stored task: validated as a task is, recorded as a
    /// task run with the trigger `try` (one draft at a time), run like any task.
    pub async fn start_draft_run(
        &self,
        devices: &dyn Devices,
        order: DraftOrder,
    ) -> Result<TaskRun, Refusal> {
        if devices.get(&order.device).is_none()
            && self
                .holder_elsewhere(&order.device)
                .await
                .map_err(Refusal::Store)?
                .is_some()
        {
            // Refused here as it would be there (with the validator's whole report), asked
            // there otherwise.
            self.check(
                devices,
                &order.definition,
                &order.device,
                &order.variables,
                &order.scope,
            )?;
            return self.start_draft_run_elsewhere(order).await;
        }
        let ready = self.prepare(
            devices,
            &order.definition,
            &order.device,
            &order.variables,
            &order.scope,
        )?;
        let secrets = self.open_secrets(&ready.task).await?;
        let new = NewDraftRun {
            name: ready.task.name.clone(),
            device: order.device.clone(),
            variables: json_variables(&order.variables),
            started_at_ms: now_ms(),
            owner: Some(self.server_id().to_owned()),
        };
        let run = match self
            .store()
            .start_draft_run(&new)
            .await
            .map_err(Refusal::Store)?
        {
            RunStart::Started(run) => run,
            RunStart::Busy(other) => return Err(Refusal::Busy(texts::draft_running(&other.id))),
        };
        let mut request = RunRequest::new(order.variables, secrets);
        if matches!(order.scope, Scope::Only(_)) {
            request.app = self.task_runs().app_on(&order.device);
        }
        request.scope = order.scope;
        self.launch(ready, &run, request);
        Ok(run)
    }

    /// The values of the secrets `task` uses; refused, naming them, when any is missing.
    async fn open_secrets(
        &self,
        task: &deft_tasks::Task,
    ) -> Result<BTreeMap<String, String>, Refusal> {
        let names = task.secret_names();
        if names.is_empty() {
            return Ok(BTreeMap::new());
        }
        let values = self
            .secrets()
            .open_secrets(&names)
            .await
            .map_err(|e| Refusal::Secrets(e.to_string()))?;
        let missing: Vec<String> = names
            .into_iter()
            .filter(|n| !values.contains_key(n))
            .collect();
        if missing.is_empty() {
            Ok(values)
        } else {
            Err(Refusal::Secrets(texts::secrets_missing(&missing)))
        }
    }

    /// The 409 text for a busy device: which task run holds it, when one does.
    pub fn device_busy_text(&self, device: &str) -> String {
        match self.task_runs().on_device(device) {
            Some(run) => texts::device_running_task(device, &run.task_name, &run.run_id),
            None => texts::device_busy(device),
        }
    }

    /// [`Self::check`]s `definition` and reserves the device.
    fn prepare(
        &self,
        devices: &dyn Devices,
        definition: &[u8],
        device_id: &str,
        variables: &BTreeMap<String, String>,
        scope: &Scope,
    ) -> Result<Ready, Refusal> {
        let task = self.check(devices, definition, device_id, variables, scope)?;
        let device = devices.get(device_id).ok_or_else(|| {
            let known: Vec<String> = devices.list().into_iter().map(|d| d.id).collect();
            Refusal::NoDevice(texts::task_device_unknown(device_id, &known))
        })?;
        let busy = device
            .try_reserve()
            .ok_or_else(|| Refusal::Busy(self.device_busy_text(device_id)))?;
        Ok(Ready { task, device, busy })
    }

    /// Validates `definition` (the whole task, whatever `scope` plays of it) for a run on
    /// `device_id` with `variables`, and checks that `scope` names one of its steps.
    fn check(
        &self,
        devices: &dyn Devices,
        definition: &[u8],
        device_id: &str,
        variables: &BTreeMap<String, String>,
        scope: &Scope,
    ) -> Result<deft_tasks::Task, Refusal> {
        let opts = Options {
            device: Some(device_kind(devices, device_id)),
            provided: variables.keys().cloned().collect(),
            ..Options::default()
        };
        let (task, _) = deft_tasks::validate_task(definition, &opts)
            .into_result()
            .map_err(Refusal::Invalid)?;
        scope
            .check(&task)
            .map_err(|t| Refusal::Scope(scope.field().unwrap_or("steps"), t))?;
        Ok(task)
    }

    /// Runs a recorded run: in memory as active, the runner on its way.
    fn launch(&self, ready: Ready, run: &TaskRun, request: RunRequest) {
        let fence = self.fleet().map(|f| f.fence(self.server_id(), &run.device));
        let active = Arc::new(
            ActiveTaskRun::new(&run.id, &run.task_id, &run.task_name, &run.device).fenced(fence),
        );
        self.task_runs().insert(active.clone());
        record::spawn(
            self,
            active,
            Launch {
                task: ready.task,
                device: ready.device,
                busy: ready.busy,
                request,
            },
        );
    }
}

/// A task checked for a run and its device reserved.
struct Ready {
    task: deft_tasks::Task,
    device: deft_tools::Device,
    busy: BusyGuard,
}
