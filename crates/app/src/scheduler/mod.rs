//! The scheduler of `deft serve`: one timer for all schedules. It sleeps until the earliest
//! next fire among enabled schedules (read from the store), is woken early when schedules
//! change ([`SchedulerHandle::schedules_changed`]), claims each due fire in the database and
//! hands it to a [`FireHandler`] (the server's, which starts the run).
//!
//! - **Idle cost**: no task per schedule and no polling shorter than the next fire. The only
//!   periodic work is one re-read every [`SchedulerConfig::max_sleep`] (60 s by default: two
//!   indexed queries), which picks up schedules another server added and wall-clock jumps.
//! - **Exactly once across servers**: a fire runs only after [`deft_store::Store::claim_fire`]
//!   (a compare-and-set on the schedule's version) succeeded, so with several servers on one
//!   database each fire is claimed by one of them. A claimed fire whose server dies before the
//!   handler starts the run is lost (at most once, never twice).
//! - **At most one running instance per task**: the handler answers [`FireOutcome::Busy`]
//!   (the store's [`deft_store::Store::start_task_run`] does, across servers), and the
//!   schedule's [`BusyPolicy`] decides: `skip` records a skipped run; `wait` retries when the
//!   instance ends ([`SchedulerHandle::run_ended`], or every
//!   [`SchedulerConfig::busy_recheck`] for runs on other servers), for at most
//!   [`SchedulerConfig::max_busy_wait`], then records a skipped run. At most one fire per
//!   schedule waits; a later fire meanwhile is recorded as skipped.
//! - **Restarts**: next fires live in the store. A fire more than
//!   [`SchedulerConfig::misfire_grace`] late counts as missed: `run_once` runs it once,
//!   `skip` records a skipped run; either way the schedule moves on to its first fire after
//!   now — never a burst of every missed fire.
//! - **Stop**: on the cancellation token; handler calls in flight get up to 5 s, fires still
//!   waiting for a busy task are recorded as skipped.
//! - **Jobs**: the server's own work on a schedule (the daily experience audit) lives in the
//!   store's `jobs` beside the task schedules and is claimed the same way, so it too fires once
//!   across servers; a claimed job fire goes to the [`JobHandler`] given with
//!   [`Scheduler::with_jobs`], which starts the work and answers at once. A missed job fire
//!   runs once; there is no busy policy (the handler decides what a fire does while the work
//!   still runs).

mod clock;
mod run;
mod texts;

use std::sync::Arc;
use std::time::Duration;

use deft_store::{BusyPolicy, NewTaskRun, Schedule, Store, StoreError, TaskTrigger};
use futures::future::BoxFuture;
use parking_lot::Mutex;
use tokio::sync::{Notify, broadcast};

pub use clock::{Clock, ManualClock, SystemClock};
pub use deft_tasks::schedule::local_zone;

use deft_tasks::schedule::ScheduleSpec;

/// The scheduler's knobs. [`SchedulerConfig::default`] suits `deft serve`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulerConfig {
    /// A fire later than this counts as missed (its schedule's misfire policy applies).
    pub misfire_grace: Duration,
    /// The longest sleep between two reads of the store.
    pub max_sleep: Duration,
    /// How often a fire waiting for a busy task tries again when no end was signalled.
    pub busy_recheck: Duration,
    /// How long a fire waits for a busy task before it is recorded as skipped.
    pub max_busy_wait: Duration,
    /// Due schedules read per query.
    pub batch: u32,
    /// The pause after a store error before the scheduler tries again (real time).
    pub error_backoff: Duration,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            misfire_grace: Duration::from_secs(60),
            max_sleep: Duration::from_secs(60),
            busy_recheck: Duration::from_secs(10),
            max_busy_wait: Duration::from_secs(3_600),
            batch: 200,
            error_backoff: Duration::from_secs(2),
        }
    }
}

/// One claimed fire, handed to the [`FireHandler`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fire {
    /// The task to run.
    pub task_id: String,
    /// The schedule that fired.
    pub schedule_id: String,
    /// The moment it was due, ms since the epoch.
    pub fire_at_ms: i64,
    /// What to do when the task is busy (the scheduler applies it to [`FireOutcome::Busy`]).
    pub busy: BusyPolicy,
    /// It was missed (more than the grace late, e.g. no server was running) and runs once
    /// under the `run_once` policy.
    pub missed: bool,
    /// 1 for the first try; more after the task was busy.
    pub attempt: u32,
}

impl Fire {
    /// The task run this fire starts: triggered by the schedule, with its id and fire time,
    /// on the task's device, without variables.
    pub fn task_run(&self, started_at_ms: i64) -> NewTaskRun {
        NewTaskRun {
            task_id: self.task_id.clone(),
            trigger: TaskTrigger::Schedule,
            schedule_id: Some(self.schedule_id.clone()),
            fire_at_ms: Some(self.fire_at_ms),
            device: None,
            variables: serde_json::Map::new(),
            started_at_ms,
            owner: None,
            task_version: None,
        }
    }
}

/// What the handler did with a fire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FireOutcome {
    /// The run started (the handler recorded it).
    Started {
        /// The task run's id.
        run_id: String,
    },
    /// The task (or its device) is busy; the scheduler applies the busy policy.
    Busy {
        /// Why, e.g. "task run … is running".
        reason: String,
    },
    /// The run cannot start (the task no longer validates, its device does not exist); the
    /// scheduler records a failed run with this reason.
    Refused {
        /// Why.
        reason: String,
    },
}

/// What the server does with a claimed fire: start the task's run (recording it) and answer
/// at once; the run itself goes on elsewhere. Calls for different fires may overlap.
pub trait FireHandler: Send + Sync + 'static {
    /// Starts the run of `fire`, or says why not.
    fn fire(&self, fire: Fire) -> BoxFuture<'_, FireOutcome>;
}

/// One claimed job fire, handed to the [`JobHandler`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFire {
    /// The job's name.
    pub name: String,
    /// The moment it was due, ms since the epoch.
    pub fire_at_ms: i64,
    /// It was more than the grace late (no server was running): it runs once now.
    pub missed: bool,
}

/// What the server does with a claimed job fire: start the job's work and answer at once
/// (the scheduler does not wait for the work).
pub trait JobHandler: Send + Sync + 'static {
    /// Starts the work of `fire`.
    fn fire(&self, fire: JobFire) -> BoxFuture<'_, ()>;
}

/// What the scheduler did, for logs, the console and tests ([`SchedulerHandle::subscribe`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchedulerEvent {
    /// The handler started a run.
    Started {
        /// The fire.
        fire: Fire,
        /// The run.
        run_id: String,
    },
    /// The fire was recorded as a skipped run (busy, missed, superseded, given up).
    Skipped {
        /// The fire.
        fire: Fire,
        /// The recorded run.
        run_id: String,
        /// Why.
        reason: String,
    },
    /// The fire was recorded as a failed run (refused by the handler, spec no longer valid).
    Failed {
        /// The fire.
        fire: Fire,
        /// The recorded run.
        run_id: String,
        /// Why.
        reason: String,
    },
    /// The task was busy; the fire waits for it (busy policy `wait`).
    Waiting {
        /// The fire.
        fire: Fire,
        /// Why it is busy.
        reason: String,
    },
    /// A job fire was claimed and handed to the [`JobHandler`].
    JobFired {
        /// The fire.
        fire: JobFire,
    },
    /// Another server claimed this fire first (or the schedule changed under it).
    ClaimLost {
        /// The schedule.
        schedule_id: String,
        /// The fire it tried to claim.
        fire_at_ms: i64,
    },
}

/// State the scheduler shares with its handles.
#[derive(Debug)]
struct Shared {
    wake: Notify,
    ended: Mutex<Vec<String>>,
    events: broadcast::Sender<SchedulerEvent>,
}

/// How the server talks to a running scheduler. Cheap to clone.
#[derive(Debug, Clone)]
pub struct SchedulerHandle {
    shared: Arc<Shared>,
}

impl SchedulerHandle {
    /// Schedules or tasks changed (created, edited, switched, deleted): the scheduler reads
    /// the store again now instead of at its next fire.
    pub fn schedules_changed(&self) {
        self.shared.wake.notify_one();
    }

    /// A run of `task_id` ended: fires waiting for it try again now.
    pub fn run_ended(&self, task_id: &str) {
        self.shared.ended.lock().push(task_id.to_owned());
        self.shared.wake.notify_one();
    }

    /// What the scheduler does from now on (a slow receiver misses the oldest events).
    pub fn subscribe(&self) -> broadcast::Receiver<SchedulerEvent> {
        self.shared.events.subscribe()
    }
}

/// The scheduler: build it, keep its [`Scheduler::handle`], then [`Scheduler::run`] it.
pub struct Scheduler {
    store: Store,
    handler: Arc<dyn FireHandler>,
    jobs: Option<Arc<dyn JobHandler>>,
    clock: Arc<dyn Clock>,
    config: SchedulerConfig,
    shared: Arc<Shared>,
}

impl Scheduler {
    /// A scheduler over `store` that hands fires to `handler`, on `clock`.
    pub fn new(
        store: Store,
        handler: Arc<dyn FireHandler>,
        clock: Arc<dyn Clock>,
        config: SchedulerConfig,
    ) -> Scheduler {
        Scheduler {
            store,
            handler,
            jobs: None,
            clock,
            config,
            shared: Arc::new(Shared {
                wake: Notify::new(),
                ended: Mutex::new(Vec::new()),
                events: broadcast::channel(1_024).0,
            }),
        }
    }

    /// Fires the store's jobs too, handing each claimed fire to `handler`.
    pub fn with_jobs(mut self, handler: Arc<dyn JobHandler>) -> Scheduler {
        self.jobs = Some(handler);
        self
    }

    /// The handle to wake it and follow it.
    pub fn handle(&self) -> SchedulerHandle {
        SchedulerHandle {
            shared: self.shared.clone(),
        }
    }

    /// Runs until `cancel` is cancelled. Store errors are logged and retried after
    /// [`SchedulerConfig::error_backoff`]; they never end the loop.
    pub async fn run(self, cancel: tokio_util::sync::CancellationToken) {
        run::Run::new(self).run(cancel).await;
    }
}

/// Moves the enabled schedules of a task to their first fire after `now_ms` — for a task
/// switched back on, so that the time it was off does not count as missed. A schedule whose
/// spec no longer parses, or that will never fire again, is left with no next fire. Returns
/// the schedules as they are now.
pub async fn rearm_task(
    store: &Store,
    task_id: &str,
    now_ms: i64,
) -> Result<Vec<Schedule>, StoreError> {
    let mut out = Vec::new();
    for schedule in store.schedules_of_task(task_id).await? {
        if !schedule.enabled {
            out.push(schedule);
            continue;
        }
        let next = ScheduleSpec::parse(&schedule.kind)
            .ok()
            .and_then(|spec| spec.next_after(now_ms));
        out.push(store.set_schedule_enabled(&schedule.id, true, next).await?);
    }
    Ok(out)
}
