//! The runner (docs/tasks.md "Runs"): plays a validated task on a device through the device's
//! Dispatcher and tools, never a backend directly, one step at a time, and reports every step
//! on the run's event stream (`task_step_start`, the tool calls' `step_start` / `step`,
//! `task_step`, one `done`).
//!
//! Stop is the run's cancellation token: the tool call in flight is cancelled through the
//! tool layer, and no step starts after it, so a stop takes effect within the call's own
//! cancellation time.

mod actions;
mod bounds;
mod csv;
mod driver;
mod exec;
mod outcome;
mod rounds;
mod scope;
mod texts;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use deft_protocol::task_run::{StepStatus, TaskStepResult};
use deft_protocol::{DoneStatus, EventKind, EventSink, ImageSink, Usage};
use deft_tools::Device;
use deft_tools::emitter::Emitter;
use tokio_util::sync::CancellationToken;

pub use csv::{DOCUMENT_DIRS_ENV, allowed_dirs_from_env};
pub use outcome::{Located, StepError};
pub use scope::Scope;

use crate::redact::Redacting;
use crate::step::{Task, limits};
use crate::vars::Vars;
use exec::{Cutoff, Exec, Flow};

/// Where a task run's events and images go.
#[derive(Clone)]
pub struct RunSinks {
    /// Every event, in order (the trace, the console's run log, the CLI printer).
    pub events: Vec<Arc<dyn EventSink>>,
    /// Image bytes (screenshots a tool returned).
    pub images: Arc<dyn ImageSink>,
}

impl RunSinks {
    /// Sinks that drop everything.
    pub fn null() -> Self {
        RunSinks {
            events: Vec::new(),
            images: Arc::new(deft_protocol::NullImages::default()),
        }
    }
}

/// What a run is given besides the task.
#[derive(Clone, Default)]
pub struct RunRequest {
    /// Values for the task's variables (over its defaults).
    pub variables: BTreeMap<String, String>,
    /// The folders a `for_each` may read CSV files from (on the machine that runs the task).
    pub csv_dirs: Vec<std::path::PathBuf>,
    /// The values of the secrets the task's variables name, by secret name (what the server's
    /// secret store opened for this run). Never printed: every record of the run shows
    /// `••••(secret NAME)` where a value would be.
    pub secrets: BTreeMap<String, String>,
    /// Which steps run: all, up to one (`until`) or one alone (`only`).
    pub scope: Scope,
    /// The application window the run starts in (none: the run opens or selects its own, as
    /// a task's first steps do); a step run alone on the device as it is starts in the window
    /// the device's last run left selected.
    pub app: Option<deft_tools::AppSelection>,
}

impl RunRequest {
    /// A request with these variables, these secrets' values and the allowed folders of the
    /// environment ([`allowed_dirs_from_env`]): what the front ends run tasks with.
    pub fn new(variables: BTreeMap<String, String>, secrets: BTreeMap<String, String>) -> Self {
        RunRequest {
            variables,
            csv_dirs: allowed_dirs_from_env(),
            secrets,
            scope: Scope::Whole,
            app: None,
        }
    }
}

impl std::fmt::Debug for RunRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunRequest")
            .field("variables", &self.variables)
            .field("csv_dirs", &self.csv_dirs)
            .field("secrets", &self.secrets.keys().collect::<Vec<_>>())
            .field("scope", &self.scope)
            .field("app", &self.app)
            .finish()
    }
}

/// How a run ended and what each step did.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// completed, failed, stopped or timeout.
    pub status: DoneStatus,
    /// A line for a person: how many steps did what, or why it ended.
    pub message: String,
    /// Every step's result, in the order they finished (containers after their sub-steps).
    pub steps: Vec<TaskStepResult>,
    /// The whole run.
    pub total: Duration,
    /// Time inside tool calls; the runner's own overhead is `total - tool_time`.
    pub tool_time: Duration,
    /// Tool calls made.
    pub calls: u64,
    /// The application window selected when the run ended (an `open_app`'s window), so a
    /// caller that goes on with the device (the agent after `run_action`) can go on in it.
    pub app: Option<deft_tools::AppSelection>,
}

impl RunReport {
    /// How many steps ended with `status`.
    pub fn count(&self, status: StepStatus) -> usize {
        self.steps.iter().filter(|s| s.status == status).count()
    }
}

/// Runs `task` on `device` until it ends, is stopped through `cancel`, or passes its
/// `timeout_s`; every event goes to `sinks`, `done` last.
pub async fn run_task(
    task: &Task,
    device: &Device,
    request: &RunRequest,
    sinks: RunSinks,
    cancel: CancellationToken,
) -> RunReport {
    let started = Instant::now();
    let limit = Duration::from_secs_f64(task.timeout_s.unwrap_or(limits::DEFAULT_TASK_TIMEOUT_S));
    let cutoff = Arc::new(Cutoff::new(limit));
    let vars = Vars::for_run(task, &request.variables, &request.secrets);
    // Every record of the run — events, trace, store, the report — goes through this one
    // redactor (crate::redact).
    let redactor = vars.redactor();
    let events = Redacting::wrap(&redactor, sinks.events);
    let mut exec = Exec {
        d: driver::Driver::new(
            device,
            cancel.child_token(),
            Emitter::new(events, sinks.images),
        ),
        vars,
        results: Vec::new(),
        cutoff: cutoff.clone(),
        screenshots: task.screenshots,
        bounds: Vec::new(),
        csv_dirs: request.csv_dirs.clone(),
        until: match &request.scope {
            Scope::Until(path) => Some(path.clone()),
            _ => None,
        },
        halted: false,
    };
    if let Some(app) = &request.app {
        exec.d.start_in(app.clone());
    }
    let run_cancel = exec.d.cancel.clone();
    let flow = {
        let steps = exec.run_scope(task, &request.scope);
        // At the limit the run is cancelled as a stop is, so the step in flight and the ones
        // after it are recorded; the steps then end the run as `timeout`.
        let deadline = async {
            tokio::time::sleep(limit).await;
            cutoff.pass();
            run_cancel.cancel();
            std::future::pending::<std::convert::Infallible>().await
        };
        tokio::select! {
            flow = steps => flow,
            never = deadline => match never {},
        }
    };
    let (status, why) = match flow {
        Flow::Next => (DoneStatus::Completed, None),
        Flow::End(status, why) => (status, Some(why)),
    };
    let mut report = RunReport {
        status,
        message: String::new(),
        steps: std::mem::take(&mut exec.results),
        total: started.elapsed(),
        tool_time: exec.d.tool_time(),
        calls: exec.d.calls(),
        app: exec.d.selection().cloned(),
    };
    report.message = redactor.text(&texts::summary(
        report.count(StepStatus::Ok),
        report.count(StepStatus::Failed),
        report.count(StepStatus::Skipped),
        why.as_deref(),
    ));
    report.steps = report.steps.iter().map(|s| redactor.value(s)).collect();
    exec.d.em.emit(EventKind::done(
        report.message.clone(),
        Usage::default(),
        status,
    ));
    report
}
