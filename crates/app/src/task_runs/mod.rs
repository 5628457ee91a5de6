//! The task runs in progress on this server: each holds its device (an agent run or an exec
//! batch on it is refused, a scheduled fire waits or is skipped), its event log, the step it
//! runs and the token that stops it; the recent runs' logs; and the scheduler's wake-ups when a
//! run ends or a device is freed. [`start`] starts a run (a task's or a draft's), [`fires`] is
//! what a schedule's fire does, [`record`] is where a run's events and end go, [`liveness`]
//! the heartbeat of this server's runs and the sweep that ends those of a silent server.

pub mod fires;
pub mod liveness;
pub mod record;
pub mod start;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, OnceLock};

use deft_protocol::task_run::{TaskRunStatus, TaskStepStart};
use deft_protocol::{AgentEvent, DoneStatus, EventKind, Usage};
use deft_tools::AppSelection;
use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

use crate::run_log::{LoggedEvent, RunLog};
use crate::scheduler::SchedulerHandle;

/// Finished runs whose logs stay in memory (older ones are read from their trace).
const RECENT_LOGS: usize = 32;

/// A task run in progress.
pub struct ActiveTaskRun {
    /// Run id.
    pub run_id: String,
    /// Its task.
    pub task_id: String,
    /// The task's name.
    pub task_name: String,
    /// The device it holds.
    pub device: String,
    /// Its events.
    pub log: Arc<RunLog>,
    /// The step running now.
    pub current: Mutex<Option<TaskStepStart>>,
    /// The lease its writes are made under (a device this server holds in a fleet).
    pub fence: Option<deft_store::Fence>,
    cancel: CancellationToken,
}

impl ActiveTaskRun {
    /// A run of `task_id` (named `task_name`) on `device` that starts now: an empty log, no
    /// step yet.
    pub fn new(run_id: &str, task_id: &str, task_name: &str, device: &str) -> ActiveTaskRun {
        ActiveTaskRun {
            run_id: run_id.to_owned(),
            task_id: task_id.to_owned(),
            task_name: task_name.to_owned(),
            device: device.to_owned(),
            log: RunLog::new(),
            current: Mutex::new(None),
            fence: None,
            cancel: CancellationToken::new(),
        }
    }

    /// The same run, its writes made under `fence` (when its device is leased).
    #[must_use]
    pub fn fenced(mut self, fence: Option<deft_store::Fence>) -> ActiveTaskRun {
        self.fence = fence;
        self
    }

    /// Where its events are stored (under its fence, when it has one).
    pub(crate) fn event_store(&self) -> crate::event_writer::EventStore {
        use crate::event_writer::EventStore;
        match &self.fence {
            Some(fence) => EventStore::FencedTask(self.run_id.clone(), fence.clone()),
            None => EventStore::Task(self.run_id.clone()),
        }
    }

    /// The token that stops the run (its runner watches it).
    pub fn cancel_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Asks the run to stop: the tool call in flight is cancelled and no step starts after it.
    pub fn stop(&self) {
        self.cancel.cancel();
    }
}

/// The task runs of this server.
#[derive(Default)]
pub struct TaskRuns {
    active: Mutex<HashMap<String, Arc<ActiveTaskRun>>>,
    recent: Mutex<VecDeque<(String, Arc<RunLog>)>>,
    scheduler: OnceLock<SchedulerHandle>,
    /// By device: tasks that found it busy (a fire of theirs may wait for it).
    blocked: Mutex<HashMap<String, Vec<String>>>,
    /// By device: the window its last task run left selected (a step run alone starts there).
    apps: Mutex<HashMap<String, AppSelection>>,
}

impl TaskRuns {
    /// The run in progress with this id.
    pub fn active(&self, run_id: &str) -> Option<Arc<ActiveTaskRun>> {
        self.active.lock().get(run_id).cloned()
    }

    /// Every run in progress.
    pub fn all_active(&self) -> Vec<Arc<ActiveTaskRun>> {
        self.active.lock().values().cloned().collect()
    }

    /// The run holding `device`, if a task run does.
    pub fn on_device(&self, device: &str) -> Option<Arc<ActiveTaskRun>> {
        self.active
            .lock()
            .values()
            .find(|r| r.device == device)
            .cloned()
    }

    /// The in-memory log of a run (in progress or recent).
    pub fn log(&self, run_id: &str) -> Option<Arc<RunLog>> {
        if let Some(run) = self.active(run_id) {
            return Some(run.log.clone());
        }
        self.recent
            .lock()
            .iter()
            .find(|(id, _)| id == run_id)
            .map(|(_, log)| log.clone())
    }

    /// Ties the scheduler to the API (once, when `deft serve` starts it).
    pub fn set_scheduler(&self, handle: SchedulerHandle) {
        let _ = self.scheduler.set(handle);
    }

    /// Tasks or schedules changed: the scheduler reads the store again now.
    pub fn schedules_changed(&self) {
        if let Some(s) = self.scheduler.get() {
            s.schedules_changed();
        }
    }

    /// What the scheduler does from now on (`None` before `deft serve` started it).
    pub fn scheduler_events(
        &self,
    ) -> Option<tokio::sync::broadcast::Receiver<crate::scheduler::SchedulerEvent>> {
        self.scheduler.get().map(SchedulerHandle::subscribe)
    }

    /// `device` is free again (an agent run, a batch or a task run on it ended): fires of
    /// tasks that found it busy try again now instead of at their next recheck.
    pub fn device_freed(&self, device: &str) {
        let tasks = self.blocked.lock().remove(device).unwrap_or_default();
        if let Some(s) = self.scheduler.get() {
            for task in tasks {
                s.run_ended(&task);
            }
        }
    }

    /// `task_id` found `device` busy: its waiting fires try again when the device is freed.
    pub fn note_blocked(&self, device: &str, task_id: &str) {
        let mut blocked = self.blocked.lock();
        let tasks = blocked.entry(device.to_owned()).or_default();
        if !tasks.iter().any(|t| t == task_id) {
            tasks.push(task_id.to_owned());
        }
    }

    /// Keeps the window a run on `device` left selected (none: forgets the last one).
    pub fn keep_app(&self, device: &str, app: Option<AppSelection>) {
        let mut apps = self.apps.lock();
        match app {
            Some(a) => apps.insert(device.to_owned(), a),
            None => apps.remove(device),
        };
    }

    /// The window the last task run on `device` left selected.
    pub fn app_on(&self, device: &str) -> Option<AppSelection> {
        self.apps.lock().get(device).cloned()
    }

    /// Keeps a run that started as in progress.
    pub fn insert(&self, run: Arc<ActiveTaskRun>) {
        self.active.lock().insert(run.run_id.clone(), run);
    }

    /// Moves a run that ended among the recent ones and tells the scheduler (fires waiting
    /// for the task try again).
    pub fn release(&self, run: &ActiveTaskRun) {
        if let Some(r) = self.active.lock().remove(&run.run_id) {
            let mut recent = self.recent.lock();
            recent.push_back((r.run_id.clone(), r.log.clone()));
            while recent.len() > RECENT_LOGS {
                recent.pop_front();
            }
        }
        if let Some(s) = self.scheduler.get() {
            s.run_ended(&run.task_id);
        }
        self.device_freed(&run.device);
    }
}

/// Tells the task runs when dropped that a device is free (held next to a busy guard, declared
/// before it, so the guard is dropped first).
pub struct FreeNotice {
    runs: Arc<TaskRuns>,
    device: String,
}

impl FreeNotice {
    /// A notice for `device`.
    pub fn new(runs: &Arc<TaskRuns>, device: &str) -> Self {
        FreeNotice {
            runs: runs.clone(),
            device: device.to_owned(),
        }
    }
}

impl Drop for FreeNotice {
    fn drop(&mut self) {
        self.runs.device_freed(&self.device);
    }
}

/// How a run's end reads in the store.
pub fn status_of(done: DoneStatus) -> TaskRunStatus {
    match done {
        DoneStatus::Completed => TaskRunStatus::Ok,
        DoneStatus::Failed | DoneStatus::MaxSteps => TaskRunStatus::Failed,
        DoneStatus::Stopped => TaskRunStatus::Stopped,
        DoneStatus::Timeout => TaskRunStatus::TimedOut,
    }
}

/// The stream's `done` of a run that ended as `status`.
pub fn done_of(status: TaskRunStatus) -> DoneStatus {
    match status {
        TaskRunStatus::Ok => DoneStatus::Completed,
        TaskRunStatus::Stopped => DoneStatus::Stopped,
        TaskRunStatus::TimedOut => DoneStatus::Timeout,
        _ => DoneStatus::Failed,
    }
}

/// A closing `done` event numbered `seq`.
pub fn done_event(seq: u64, answer: &str, status: DoneStatus) -> AgentEvent {
    AgentEvent {
        seq,
        kind: EventKind::done(answer, Usage::default(), status),
    }
}

/// Frames a `done`.
pub fn done_logged(seq: u64, answer: &str, status: DoneStatus) -> LoggedEvent {
    LoggedEvent::new(&done_event(seq, answer, status))
}
