//! The scheduler's loop: read what is due, claim each fire, hand it to the handler, apply the
//! busy and misfire policies to what comes back, sleep until the next fire (or a change, a
//! run's end, a handler's answer).

use std::collections::HashMap;
use std::time::Duration;

use deft_store::{
    BusyPolicy, FireClaim, JobClaim, MisfirePolicy, Schedule, StoreError, TaskRunStatus,
};
use futures::future::BoxFuture;
use tokio::task::{Id, JoinError, JoinSet};
use tokio_util::sync::CancellationToken;

use super::{Fire, FireOutcome, JobFire, Scheduler, SchedulerEvent, texts};
use deft_tasks::schedule::ScheduleSpec;

/// How long handler calls still in flight at stop get to answer.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// A handler call in flight.
struct InFlight {
    fire: Fire,
    /// When the task was first found busy (for a retry of a waiting fire).
    waiting_since_ms: Option<i64>,
}

/// A fire waiting for its busy task. It stays here while a retry is in flight, so a later
/// fire of the schedule always finds it.
struct Waiting {
    fire: Fire,
    since_ms: i64,
    retry_at_ms: i64,
    reason: String,
    /// A retry is with the handler.
    retrying: bool,
}

/// Why a wait ended.
#[derive(Debug, PartialEq, Eq)]
enum Wake {
    /// The stop.
    Cancelled,
    /// Time for a pass over the store.
    Pass,
}

/// One scheduler's running state.
pub(super) struct Run {
    s: Scheduler,
    inflight: JoinSet<FireOutcome>,
    fires: HashMap<Id, InFlight>,
    /// By schedule id: at most one waiting fire per schedule.
    waiting: HashMap<String, Waiting>,
    stopping: bool,
}

impl Run {
    pub(super) fn new(s: Scheduler) -> Run {
        Run {
            s,
            inflight: JoinSet::new(),
            fires: HashMap::new(),
            waiting: HashMap::new(),
            stopping: false,
        }
    }

    pub(super) async fn run(mut self, cancel: CancellationToken) {
        tracing::debug!("scheduler started");
        let mut backoff = self.s.config.error_backoff;
        while !cancel.is_cancelled() {
            let now = self.s.clock.now_ms();
            self.retry_waiting(now);
            let (sleep, wake_at): (BoxFuture<'static, ()>, Option<i64>) = match self.pass(now).await
            {
                Ok(earliest) => {
                    backoff = self.s.config.error_backoff;
                    let at = self.wake_at(now, earliest);
                    (self.s.clock.sleep_until(at), Some(at))
                }
                Err(e) => {
                    tracing::warn!(error = %e, retry_in = ?backoff, "the scheduler cannot read or claim schedules");
                    let pause = backoff;
                    backoff = (backoff * 2).min(Duration::from_secs(60));
                    (Box::pin(tokio::time::sleep(pause)), None)
                }
            };
            if self.wait(&cancel, sleep, wake_at).await == Wake::Cancelled {
                break;
            }
        }
        self.stop().await;
        tracing::debug!("scheduler stopped");
    }

    /// Sleeps until `sleep` resolves, a change is signalled or the stop; handler answers that
    /// come meanwhile are applied without a new pass over the store, unless one makes a
    /// waiting fire due before `wake_at`.
    async fn wait(
        &mut self,
        cancel: &CancellationToken,
        mut sleep: BoxFuture<'static, ()>,
        wake_at: Option<i64>,
    ) -> Wake {
        loop {
            let done = tokio::select! {
                () = cancel.cancelled() => return Wake::Cancelled,
                () = &mut sleep => return Wake::Pass,
                () = self.s.shared.wake.notified() => return Wake::Pass,
                Some(done) = self.inflight.join_next_with_id(), if !self.inflight.is_empty() => done,
            };
            self.answered(done).await;
            if self
                .next_retry()
                .is_some_and(|r| wake_at.is_none_or(|at| r < at))
            {
                return Wake::Pass;
            }
        }
    }

    /// Fires what is due at `now`; the earliest next fire afterwards (`Some(now)`: more is due
    /// than one batch held).
    async fn pass(&mut self, now: i64) -> Result<Option<i64>, StoreError> {
        let due = self.s.store.due_schedules(now, self.s.config.batch).await?;
        let full = due.len() >= self.s.config.batch as usize;
        for schedule in &due {
            self.fire_one(schedule, now).await?;
        }
        let jobs_full = self.fire_jobs(now).await?;
        if full || jobs_full {
            return Ok(Some(now));
        }
        let earliest = self.s.store.earliest_fire_at().await?;
        if self.s.jobs.is_none() {
            return Ok(earliest);
        }
        let job = self.s.store.earliest_job_fire_at().await?;
        Ok(earliest.into_iter().chain(job).min())
    }

    /// Claims and hands on the jobs due at `now` (when the scheduler has a job handler);
    /// `true` when more were due than one batch held.
    async fn fire_jobs(&mut self, now: i64) -> Result<bool, StoreError> {
        let Some(handler) = self.s.jobs.clone() else {
            return Ok(false);
        };
        let due = self.s.store.due_jobs(now, self.s.config.batch).await?;
        for job in &due {
            let Some(fire_at_ms) = job.next_fire_at_ms else {
                continue;
            };
            let spec = ScheduleSpec::parse(&job.kind);
            if let Err(e) = &spec {
                tracing::error!(job = %job.name, error = %e, "a job's schedule no longer parses; it stops firing");
            }
            let claim = JobClaim {
                name: job.name.clone(),
                version: job.version,
                fire_at_ms,
                next_fire_at_ms: spec
                    .as_ref()
                    .ok()
                    .and_then(|spec| spec.next_fire(fire_at_ms, now)),
            };
            if !self.s.store.claim_job_fire(&claim).await? {
                tracing::debug!(job = %job.name, fire_at_ms, "job fire claimed elsewhere");
                continue;
            }
            if spec.is_err() {
                continue;
            }
            let fire = JobFire {
                name: job.name.clone(),
                fire_at_ms,
                missed: now - fire_at_ms > ms(self.s.config.misfire_grace),
            };
            tracing::info!(job = %fire.name, fire_at_ms, missed = fire.missed, "job fired");
            let handler = handler.clone();
            let call = fire.clone();
            tokio::spawn(async move { handler.fire(call).await });
            self.emit(SchedulerEvent::JobFired { fire });
        }
        Ok(due.len() >= self.s.config.batch as usize)
    }

    /// The next wake: the earliest fire, a waiting fire's retry, or the periodic re-read.
    fn wake_at(&self, now: i64, earliest: Option<i64>) -> i64 {
        let reread = now.saturating_add(ms(self.s.config.max_sleep));
        self.next_retry()
            .into_iter()
            .chain(earliest)
            .fold(reread, i64::min)
    }

    /// The earliest retry of a waiting fire that is not with the handler already.
    fn next_retry(&self) -> Option<i64> {
        self.waiting
            .values()
            .filter(|w| !w.retrying)
            .map(|w| w.retry_at_ms)
            .min()
    }

    /// Claims one due fire and starts it (or records why it does not run).
    async fn fire_one(&mut self, schedule: &Schedule, now: i64) -> Result<(), StoreError> {
        let Some(fire_at_ms) = schedule.next_fire_at_ms else {
            return Ok(());
        };
        let spec = ScheduleSpec::parse(&schedule.kind);
        let claim = FireClaim {
            schedule_id: schedule.id.clone(),
            version: schedule.version,
            fire_at_ms,
            next_fire_at_ms: spec
                .as_ref()
                .ok()
                .and_then(|spec| spec.next_fire(fire_at_ms, now)),
        };
        if !self.s.store.claim_fire(&claim).await? {
            tracing::debug!(schedule = %schedule.id, fire_at_ms, "fire claimed elsewhere");
            self.emit(SchedulerEvent::ClaimLost {
                schedule_id: schedule.id.clone(),
                fire_at_ms,
            });
            return Ok(());
        }
        let fire = Fire {
            task_id: schedule.task_id.clone(),
            schedule_id: schedule.id.clone(),
            fire_at_ms,
            busy: schedule.busy,
            missed: now - fire_at_ms > ms(self.s.config.misfire_grace),
            attempt: 1,
        };
        if let Err(e) = &spec {
            self.record(&fire, TaskRunStatus::Failed, texts::spec_invalid(e))
                .await;
        } else if fire.missed && schedule.misfire == MisfirePolicy::Skip {
            self.record(
                &fire,
                TaskRunStatus::Skipped,
                texts::missed(fire_at_ms, now),
            )
            .await;
        } else if let Some(earlier) = self.waiting.get(&schedule.id) {
            let reason = texts::superseded(earlier.fire.fire_at_ms);
            self.record(&fire, TaskRunStatus::Skipped, reason).await;
        } else {
            self.spawn(fire, None);
        }
        Ok(())
    }

    /// Hands a fire to the handler, in a task of its own.
    fn spawn(&mut self, fire: Fire, waiting_since_ms: Option<i64>) {
        let handler = self.s.handler.clone();
        let call = fire.clone();
        let task = self.inflight.spawn(async move { handler.fire(call).await });
        self.fires.insert(
            task.id(),
            InFlight {
                fire,
                waiting_since_ms,
            },
        );
    }

    /// Applies the handler's answer.
    async fn answered(&mut self, done: Result<(Id, FireOutcome), JoinError>) {
        let (id, outcome) = match done {
            Ok(answer) => answer,
            Err(e) => {
                tracing::error!(error = %e, "a fire handler failed");
                (
                    e.id(),
                    FireOutcome::Refused {
                        reason: texts::handler_failed(),
                    },
                )
            }
        };
        let Some(InFlight {
            fire,
            waiting_since_ms,
        }) = self.fires.remove(&id)
        else {
            return;
        };
        if waiting_since_ms.is_some() && !matches!(outcome, FireOutcome::Busy { .. }) {
            self.waiting.remove(&fire.schedule_id);
        }
        match outcome {
            FireOutcome::Started { run_id } => {
                tracing::info!(task = %fire.task_id, schedule = %fire.schedule_id, run = %run_id, "scheduled run started");
                self.emit(SchedulerEvent::Started { fire, run_id });
            }
            FireOutcome::Refused { reason } => {
                self.record(&fire, TaskRunStatus::Failed, reason).await;
            }
            FireOutcome::Busy { reason } => self.busy(fire, waiting_since_ms, reason).await,
        }
    }

    /// The busy policy: skip now, or wait (bounded) for the running instance to end. A retry
    /// (`waiting_since_ms` set) updates its waiting entry; a first try waits only if no
    /// earlier fire of the schedule does.
    async fn busy(&mut self, fire: Fire, waiting_since_ms: Option<i64>, reason: String) {
        let retry = waiting_since_ms.is_some();
        if retry {
            self.waiting.remove(&fire.schedule_id);
        }
        if self.stopping {
            let text = texts::stopped_while_waiting(&reason);
            return self.record(&fire, TaskRunStatus::Skipped, text).await;
        }
        if fire.busy == BusyPolicy::Skip {
            return self
                .record(&fire, TaskRunStatus::Skipped, texts::busy_skipped(&reason))
                .await;
        }
        let now = self.s.clock.now_ms();
        let max_wait = ms(self.s.config.max_busy_wait);
        let since_ms = waiting_since_ms.unwrap_or(now);
        if now - since_ms >= max_wait {
            let text = texts::busy_gave_up(self.s.config.max_busy_wait, &reason);
            return self.record(&fire, TaskRunStatus::Skipped, text).await;
        }
        if let Some(earlier) = self.waiting.get(&fire.schedule_id) {
            let text = texts::superseded(earlier.fire.fire_at_ms);
            return self.record(&fire, TaskRunStatus::Skipped, text).await;
        }
        if !retry {
            self.emit(SchedulerEvent::Waiting {
                fire: fire.clone(),
                reason: reason.clone(),
            });
        }
        let retry_at_ms = now
            .saturating_add(ms(self.s.config.busy_recheck))
            .min(since_ms.saturating_add(max_wait));
        self.waiting.insert(
            fire.schedule_id.clone(),
            Waiting {
                fire,
                since_ms,
                retry_at_ms,
                reason,
                retrying: false,
            },
        );
    }

    /// Retries waiting fires whose task ended or whose retry time came.
    fn retry_waiting(&mut self, now: i64) {
        let ended = std::mem::take(&mut *self.s.shared.ended.lock());
        let mut ready = Vec::new();
        for w in self.waiting.values_mut() {
            if !w.retrying && (now >= w.retry_at_ms || ended.contains(&w.fire.task_id)) {
                w.retrying = true;
                let mut fire = w.fire.clone();
                fire.attempt += 1;
                ready.push((fire, w.since_ms));
            }
        }
        for (fire, since_ms) in ready {
            self.spawn(fire, Some(since_ms));
        }
    }

    /// Records a run that never started and says so; a failure to record is logged only (the
    /// task may have been deleted meanwhile).
    async fn record(&mut self, fire: &Fire, status: TaskRunStatus, reason: String) {
        let new = fire.task_run(self.s.clock.now_ms());
        match self
            .s
            .store
            .record_unstarted_run(&new, status, &reason)
            .await
        {
            Ok(run) => {
                tracing::info!(task = %fire.task_id, schedule = %fire.schedule_id, %status, %reason, "scheduled run not started");
                let run_id = run.id;
                let fire = fire.clone();
                self.emit(if status == TaskRunStatus::Failed {
                    SchedulerEvent::Failed {
                        fire,
                        run_id,
                        reason,
                    }
                } else {
                    SchedulerEvent::Skipped {
                        fire,
                        run_id,
                        reason,
                    }
                });
            }
            Err(StoreError::NotFound(_)) => {
                tracing::debug!(task = %fire.task_id, "the task of a fire is gone");
            }
            Err(e) => {
                tracing::warn!(task = %fire.task_id, error = %e, %reason, "cannot record a scheduled run that did not start");
            }
        }
    }

    fn emit(&self, event: SchedulerEvent) {
        // No subscriber is fine.
        let _ = self.s.shared.events.send(event);
    }

    /// Lets handler calls in flight answer (bounded), then records the fires still waiting.
    async fn stop(&mut self) {
        self.stopping = true;
        let deadline = tokio::time::Instant::now() + STOP_GRACE;
        while !self.inflight.is_empty() {
            match tokio::time::timeout_at(deadline, self.inflight.join_next_with_id()).await {
                Ok(Some(done)) => self.answered(done).await,
                Ok(None) => break,
                Err(_) => {
                    tracing::warn!(
                        calls = self.inflight.len(),
                        "fire handlers did not answer within {STOP_GRACE:?} of the stop"
                    );
                    self.inflight.abort_all();
                    break;
                }
            }
        }
        let waiting: Vec<Waiting> = self.waiting.drain().map(|(_, w)| w).collect();
        for w in waiting {
            let text = texts::stopped_while_waiting(&w.reason);
            self.record(&w.fire, TaskRunStatus::Skipped, text).await;
        }
    }
}

/// A duration in ms, saturating.
fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}
