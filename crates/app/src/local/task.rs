//! A task file run on this machine without a server (`deft task run FILE`): the device held,
//! the runner's events to the trace folder and to the front end's watcher, the run's report.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use deft_protocol::EventSink;
use deft_tasks::Task;
use deft_tasks::runner::{RunReport, RunRequest, RunSinks, run_task};
use deft_tools::Device;
use deft_trace::TraceMeta;
use tokio_util::sync::CancellationToken;

use super::{LocalError, new_run_id, reserve, trace_folder};

/// A validated task to run once on a device of this machine.
pub struct LocalTaskRun {
    /// The task (validated with these variables).
    pub task: Task,
    /// Its device.
    pub device: Device,
    /// The values of its variables.
    pub variables: BTreeMap<String, String>,
    /// Where the run's trace folder goes.
    pub trace_root: PathBuf,
}

/// How a local task run ended.
pub struct LocalTaskEnd {
    /// The runner's report.
    pub report: RunReport,
    /// The trace's `report.html`.
    pub trace_report: PathBuf,
}

impl LocalTaskRun {
    /// Holds the device, runs the task to its end (or until `cancel`), its events to the
    /// trace and to `watcher`, and closes the trace.
    pub async fn run(
        self,
        watcher: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> Result<LocalTaskEnd, LocalError> {
        let secrets = self.task.secret_names();
        if !secrets.is_empty() {
            return Err(LocalError::Secrets(crate::texts::secrets_need_server(
                &secrets,
            )));
        }
        let _busy = reserve(&self.device)?;
        let trace = trace_folder(
            &self.trace_root,
            &new_run_id(),
            TraceMeta {
                goal: format!("task: {}", self.task.name),
                device: self.device.id.clone(),
                model: "none (task)".to_owned(),
            },
        )?;
        let sinks = RunSinks {
            events: vec![watcher, trace.clone()],
            images: trace.clone(),
        };
        let request = RunRequest::new(self.variables, BTreeMap::new());
        let report = run_task(&self.task, &self.device, &request, sinks, cancel).await;
        Ok(LocalTaskEnd {
            report,
            trace_report: trace.finish(),
        })
    }
}
