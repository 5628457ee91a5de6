//! What the scheduler tests share: a fire handler that starts real task runs in the store
//! (and finishes them at once, or holds them), tasks with schedules armed like the API arms
//! them, a scheduler started on a manual clock, and waiting for its events.

#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test
#![allow(dead_code)] // each test file uses a part

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use deft_app::scheduler::{
    Clock, Fire, FireHandler, FireOutcome, Scheduler, SchedulerConfig, SchedulerEvent,
    SchedulerHandle,
};
use deft_store::{
    BusyPolicy, MisfirePolicy, NewSchedule, NewTask, RunStart, Schedule, ScheduleKind, Store, Task,
    TaskRunStatus,
};
use deft_tasks::schedule::ScheduleSpec;
use futures::future::BoxFuture;
use parking_lot::Mutex;
use tokio::sync::{Notify, broadcast};
use tokio_util::sync::CancellationToken;

/// How long a test waits for something the scheduler should do (generous: a slow machine is
/// not a failure).
pub const DEADLINE: Duration = Duration::from_secs(60);

/// 2026-12-02T12:00:00Z.
pub const T0: i64 = 1_796_212_800_000;

/// The handler `deft serve` will have, minus the runner: it starts a task run in the store
/// (the store answers busy), and either finishes it at once or holds it for the test.
pub struct StoreHandler {
    store: Store,
    clock: Arc<dyn Clock>,
    /// Finish each run as soon as it starts.
    pub finish_at_once: bool,
    /// Tasks whose fires it refuses.
    pub refuse: Mutex<Vec<String>>,
    /// Every call, in order.
    pub calls: Mutex<Vec<Fire>>,
    /// Started runs per (schedule, fire time).
    pub started: Mutex<HashMap<(String, i64), u32>>,
    /// Signalled after every call.
    pub called: Notify,
}

impl StoreHandler {
    pub fn new(store: &Store, clock: Arc<dyn Clock>, finish_at_once: bool) -> Arc<StoreHandler> {
        Arc::new(StoreHandler {
            store: store.clone(),
            clock,
            finish_at_once,
            refuse: Mutex::new(Vec::new()),
            calls: Mutex::new(Vec::new()),
            started: Mutex::new(HashMap::new()),
            called: Notify::new(),
        })
    }

    async fn handle(&self, fire: Fire) -> FireOutcome {
        self.calls.lock().push(fire.clone());
        if self.refuse.lock().contains(&fire.task_id) {
            return FireOutcome::Refused {
                reason: "the device \"phone-7\" does not exist".into(),
            };
        }
        let now = self.clock.now_ms();
        let outcome = match self
            .store
            .start_task_run(&fire.task_run(now))
            .await
            .unwrap()
        {
            RunStart::Busy(run) => FireOutcome::Busy {
                reason: format!("task run {} is running", run.id),
            },
            RunStart::Started(run) => {
                if self.finish_at_once {
                    self.store
                        .finish_task_run(&run.id, TaskRunStatus::Ok, None, now)
                        .await
                        .unwrap();
                }
                *self
                    .started
                    .lock()
                    .entry((fire.schedule_id.clone(), fire.fire_at_ms))
                    .or_default() += 1;
                FireOutcome::Started { run_id: run.id }
            }
        };
        self.called.notify_waiters();
        outcome
    }

    /// How many runs it started.
    pub fn started_count(&self) -> u32 {
        self.started.lock().values().sum()
    }

    /// Waits until it has started at least `n` runs.
    pub async fn wait_started(&self, n: u32) {
        tokio::time::timeout(DEADLINE, async {
            loop {
                let called = self.called.notified();
                if self.started_count() >= n {
                    return;
                }
                called.await;
            }
        })
        .await
        .unwrap_or_else(|_| {
            panic!(
                "the handler started {} runs, not {n}, within {DEADLINE:?}",
                self.started_count()
            )
        });
    }
}

impl FireHandler for StoreHandler {
    fn fire(&self, fire: Fire) -> BoxFuture<'_, FireOutcome> {
        Box::pin(self.handle(fire))
    }
}

/// A task named `name` on `local`.
pub async fn task(store: &Store, name: &str) -> Task {
    store
        .create_task(
            &NewTask {
                name: name.into(),
                device: "local".into(),
                definition: format!("{{\"name\":{name:?},\"steps\":[]}}"),
                enabled: true,
                folder: String::new(),
                tags: Vec::new(),
                notify: Default::default(),
            },
            &deft_store::VersionStamp::new("test", deft_store::VersionCause::Create),
        )
        .await
        .unwrap()
}

/// A schedule of `task`, armed as the API arms one: its first fire after `now_ms`.
pub async fn schedule(
    store: &Store,
    task: &Task,
    kind: ScheduleKind,
    misfire: MisfirePolicy,
    busy: BusyPolicy,
    now_ms: i64,
) -> Schedule {
    let first = ScheduleSpec::parse(&kind)
        .unwrap()
        .first_fire(now_ms)
        .unwrap();
    store
        .create_schedule(
            &task.id,
            &NewSchedule {
                kind,
                misfire,
                busy,
                enabled: true,
                next_fire_at_ms: Some(first),
            },
        )
        .await
        .unwrap()
}

/// An interval schedule armed at `now_ms`.
pub async fn every(
    store: &Store,
    task: &Task,
    seconds: u64,
    misfire: MisfirePolicy,
    busy: BusyPolicy,
    now_ms: i64,
) -> Schedule {
    let kind = ScheduleKind::Every { seconds };
    schedule(store, task, kind, misfire, busy, now_ms).await
}

/// A started scheduler: its handle, its event stream (subscribed before it ran), and how to
/// stop it.
pub struct Running {
    pub handle: SchedulerHandle,
    pub events: broadcast::Receiver<SchedulerEvent>,
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    /// Stops the scheduler and waits until it has (bounded).
    pub async fn stop(self) {
        self.cancel.cancel();
        tokio::time::timeout(DEADLINE, self.task)
            .await
            .expect("the scheduler stops on its token")
            .unwrap();
    }

    /// The next event that `want` picks, within [`DEADLINE`].
    pub async fn event<T>(&mut self, mut want: impl FnMut(&SchedulerEvent) -> Option<T>) -> T {
        tokio::time::timeout(DEADLINE, async {
            loop {
                match self.events.recv().await {
                    Ok(event) => {
                        if let Some(found) = want(&event) {
                            return found;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(n)) => panic!("missed {n} events"),
                    Err(broadcast::error::RecvError::Closed) => panic!("the scheduler ended"),
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("no such scheduler event within {DEADLINE:?}"))
    }

    /// The next run started, as (fire, run id).
    pub async fn started(&mut self) -> (Fire, String) {
        self.event(|e| match e {
            SchedulerEvent::Started { fire, run_id } => Some((fire.clone(), run_id.clone())),
            _ => None,
        })
        .await
    }

    /// The next run recorded as skipped, as (fire, run id, reason).
    pub async fn skipped(&mut self) -> (Fire, String, String) {
        self.event(|e| match e {
            SchedulerEvent::Skipped {
                fire,
                run_id,
                reason,
            } => Some((fire.clone(), run_id.clone(), reason.clone())),
            _ => None,
        })
        .await
    }
}

/// Test settings: a long re-read (so only the clock and changes wake it), short busy
/// rechecks.
pub fn config() -> SchedulerConfig {
    SchedulerConfig {
        misfire_grace: Duration::from_secs(60),
        max_sleep: Duration::from_secs(3_600),
        busy_recheck: Duration::from_secs(10),
        max_busy_wait: Duration::from_secs(600),
        batch: 50,
        error_backoff: Duration::from_millis(200),
    }
}

/// Starts a scheduler.
pub fn start(
    store: &Store,
    handler: Arc<dyn FireHandler>,
    clock: Arc<dyn Clock>,
    config: SchedulerConfig,
) -> Running {
    let scheduler = Scheduler::new(store.clone(), handler, clock, config);
    let handle = scheduler.handle();
    let events = handle.subscribe();
    let cancel = CancellationToken::new();
    let task = tokio::spawn(scheduler.run(cancel.clone()));
    Running {
        handle,
        events,
        cancel,
        task,
    }
}

/// A store on a fresh SQLite file (the folder lives as long as the returned guard).
pub async fn sqlite() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), None).await.unwrap();
    (dir, store)
}
