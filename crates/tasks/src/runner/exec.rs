//! Playing a task's steps in order: paths, `on_error`, timeouts, stop, and the containers
//! (`group`, `loop`, `if_el`) whose sub-steps run through the same path. What one leaf step
//! does on the device is `actions`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use deft_protocol::task_run::{StepStatus, TaskStepResult, TaskStepStart};
use deft_protocol::{DoneStatus, EventKind};
use futures::future::BoxFuture;

use super::actions::Done;
use super::driver::{Driver, StepError};
use super::texts;
use crate::step::{Action, IfEl, Loop, OnError, Repeat, Screenshots, Step, child_path};
use crate::vars::Vars;

/// A leaf step's limit unless its `timeout_s` says: the tool layer's default call limit.
const DEFAULT_STEP_TIMEOUT: Duration = Duration::from_secs(120);

/// What a step means for the steps after it.
pub(crate) enum Flow {
    /// Go on.
    Next,
    /// End the run this way, with this message.
    End(DoneStatus, String),
}

/// Why the run's cancellation fired: a person's stop, or the run's own `timeout_s` passing.
/// Either way the step in flight fails with the reason and the steps after it are skipped.
pub(crate) struct Cutoff {
    limit: Duration,
    passed: AtomicBool,
}

impl Cutoff {
    /// The cutoff of a run limited to `limit`.
    pub(crate) fn new(limit: Duration) -> Self {
        Cutoff {
            limit,
            passed: AtomicBool::new(false),
        }
    }

    /// The run's time is up (before its cancellation is fired).
    pub(crate) fn pass(&self) {
        self.passed.store(true, Ordering::SeqCst);
    }

    pub(crate) fn timed_out(&self) -> bool {
        self.passed.load(Ordering::SeqCst)
    }

    /// How the run ends once cancelled.
    fn end(&self) -> Flow {
        if self.timed_out() {
            Flow::End(DoneStatus::Timeout, texts::run_timeout(self.limit))
        } else {
            Flow::End(DoneStatus::Stopped, texts::STOPPED.to_owned())
        }
    }

    /// The error of the step it cut short.
    fn why(&self) -> String {
        if self.timed_out() {
            texts::run_timeout_in_step(self.limit)
        } else {
            texts::STOPPED.to_owned()
        }
    }
}

/// One run in progress: the device session, the variables, the results so far.
pub(crate) struct Exec<'a> {
    pub(crate) d: Driver<'a>,
    pub(crate) vars: Vars,
    pub(crate) results: Vec<TaskStepResult>,
    pub(crate) cutoff: std::sync::Arc<Cutoff>,
    /// When a step's result keeps a screenshot.
    pub(crate) screenshots: Screenshots,
}

impl<'a> Exec<'a> {
    /// Runs `steps` (the list `field` under `parent`); a step whose failure stops the run ends
    /// the list, and the steps after it are recorded as skipped.
    pub(crate) fn run_steps<'s>(
        &'s mut self,
        parent: &'s str,
        field: &'static str,
        suffix: &'s str,
        steps: &'s [Step],
        inherited: OnError,
    ) -> BoxFuture<'s, Flow> {
        Box::pin(async move {
            for (i, step) in steps.iter().enumerate() {
                let path = format!("{}{suffix}", child_path(parent, field, i));
                let flow = if self.d.cancel.is_cancelled() {
                    self.cutoff.end()
                } else {
                    self.run_step(&path, step, inherited).await
                };
                if let Flow::End(status, message) = flow {
                    for (j, rest) in steps.iter().enumerate().skip(i + 1) {
                        let rest_path = format!("{}{suffix}", child_path(parent, field, j));
                        self.skipped(&rest_path, rest, texts::not_run(&path));
                    }
                    return Flow::End(status, message);
                }
            }
            Flow::Next
        })
    }

    /// Runs one step and records its result. A step the run's cancellation cut short (a stop,
    /// the run's timeout) fails with the reason and ends the run.
    async fn run_step(&mut self, path: &str, step: &Step, inherited: OnError) -> Flow {
        let step_type = step.step_type().as_str().to_owned();
        self.d.em.emit(EventKind::TaskStepStart(TaskStepStart {
            path: path.to_owned(),
            step_type: step_type.clone(),
            note: step.note.clone(),
        }));
        let started = Instant::now();
        let on_error = step.on_error.unwrap_or(inherited);
        let (outcome, flow) = match &step.action {
            Action::Group(g) => self.container(path, "steps", "", &g.steps, on_error).await,
            Action::Loop(l) => self.run_loop(path, l, on_error).await,
            Action::IfEl(c) => self.run_if(path, c, on_error).await,
            _ => self.leaf(step).await,
        };
        let took = started.elapsed();
        let cut = self.d.cancel.is_cancelled();
        let outcome = match outcome {
            Err(_) if cut => Err(StepError(self.cutoff.why())),
            other => other,
        };
        let failed = outcome.is_err();
        let images = if self.wants_screenshot(step, failed) {
            self.d.screenshot().await
        } else {
            Vec::new()
        };
        self.record(path, step_type, took, outcome, images);
        match flow {
            Some(end) => end,
            None if cut => self.cutoff.end(),
            None if failed && on_error == OnError::Stop => {
                Flow::End(DoneStatus::Failed, texts::failed_at(path))
            }
            None => Flow::Next,
        }
    }

    /// Whether a step's result keeps a screenshot: per the task's `screenshots`, for leaf
    /// steps (a container's failure is its sub-step's, which has one), never after a person's
    /// stop (it must take effect at once).
    fn wants_screenshot(&self, step: &Step, failed: bool) -> bool {
        let stopped = self.d.cancel.is_cancelled() && !self.cutoff.timed_out();
        let wanted = match self.screenshots {
            Screenshots::Never => false,
            Screenshots::OnFailure => failed,
            Screenshots::EveryStep => true,
        };
        wanted && !stopped && !step.step_type().is_container()
    }

    /// A leaf step: its variables expanded, bounded by its timeout, cut short by a stop.
    /// `mark_done` and `stop_self` end the run.
    async fn leaf(&mut self, step: &Step) -> (Result<Done, StepError>, Option<Flow>) {
        let action = match step.action.expanded(&self.vars) {
            Ok(a) => a,
            Err(e) => return (Err(StepError(e.to_string())), None),
        };
        let limit = step
            .timeout_s
            .map_or(DEFAULT_STEP_TIMEOUT, Duration::from_secs_f64);
        self.d.step_deadline = limit;
        let cancel = self.d.cancel.clone();
        let outcome = tokio::select! {
            r = tokio::time::timeout(limit + Duration::from_secs(1), self.act(&action, step)) => {
                r.unwrap_or_else(|_| Err(StepError(texts::step_timeout(limit))))
            }
            // run_step gives the reason (a stop or the run's timeout).
            () = cancel.cancelled() => Err(StepError(String::new())),
        };
        let flow = match (&action, &outcome) {
            _ if self.d.cancel.is_cancelled() => None,
            (Action::MarkDone(f), Ok(_)) => Some(Flow::End(
                DoneStatus::Completed,
                f.message
                    .clone()
                    .unwrap_or_else(|| texts::MARKED_DONE.to_owned()),
            )),
            (Action::StopSelf(f), Ok(_)) => Some(Flow::End(
                DoneStatus::Stopped,
                f.message
                    .clone()
                    .unwrap_or_else(|| texts::STOPPED_ITSELF.to_owned()),
            )),
            _ => None,
        };
        (outcome, flow)
    }

    /// Sub-steps as one step: it fails when a sub-step's failure stopped the list, or when
    /// the run's cancellation cut it short (run_step gives the reason); a `mark_done` or
    /// `stop_self` inside ends the run with the container ok.
    async fn container(
        &mut self,
        path: &str,
        field: &'static str,
        suffix: &str,
        steps: &[Step],
        on_error: OnError,
    ) -> (Result<Done, StepError>, Option<Flow>) {
        match self.run_steps(path, field, suffix, steps, on_error).await {
            Flow::Next => (Ok(Done::default()), None),
            Flow::End(DoneStatus::Failed, message) => (Err(StepError(message)), None),
            Flow::End(..) if self.d.cancel.is_cancelled() => (Err(StepError(String::new())), None),
            end @ Flow::End(..) => (Ok(Done::default()), Some(end)),
        }
    }

    /// `loop`: `times` rounds, or rounds while / until a control shows, capped by `max`.
    async fn run_loop(
        &mut self,
        path: &str,
        l: &Loop,
        on_error: OnError,
    ) -> (Result<Done, StepError>, Option<Flow>) {
        let (cap, condition) = match &l.repeat {
            Repeat::Times { times } => (*times, None),
            Repeat::While { selector, max } => (*max, Some((selector, true))),
            Repeat::Until { selector, max } => (*max, Some((selector, false))),
        };
        for round in 1..=cap {
            if let Some((selector, want)) = condition {
                match self.d.present(selector).await {
                    Ok(shows) if shows != want => {
                        return (Ok(Done::message(texts::loop_rounds(round - 1))), None);
                    }
                    Ok(_) => {}
                    Err(e) => return (Err(e), None),
                }
            }
            let suffix = format!("#{round}");
            let (outcome, flow) = self
                .container(path, "steps", &suffix, &l.steps, on_error)
                .await;
            if outcome.is_err() || flow.is_some() {
                return (outcome, flow);
            }
        }
        match condition {
            None => (Ok(Done::message(texts::loop_rounds(cap))), None),
            Some((selector, want)) => (Err(StepError(texts::loop_cap(cap, selector, want))), None),
        }
    }

    /// `if_el`: `then` when the condition holds (within `wait_s`), else `else`; the branch not
    /// taken is recorded as skipped.
    async fn run_if(
        &mut self,
        path: &str,
        c: &IfEl,
        on_error: OnError,
    ) -> (Result<Done, StepError>, Option<Flow>) {
        let holds = match self.condition(c).await {
            Ok(h) => h,
            Err(e) => return (Err(e), None),
        };
        let (taken, field, other, other_field) = if holds {
            (&c.then, "then", &c.otherwise, "else")
        } else {
            (&c.otherwise, "else", &c.then, "then")
        };
        for (i, s) in other.iter().enumerate() {
            self.skipped(
                &child_path(path, other_field, i),
                s,
                texts::branch_not_taken(holds),
            );
        }
        let (outcome, flow) = self.container(path, field, "", taken, on_error).await;
        (
            outcome.map(|d| Done {
                message: Some(texts::branch_taken(holds)),
                ..d
            }),
            flow,
        )
    }

    /// Whether an `if_el` condition holds: looked at once, or waited for up to `wait_s`.
    async fn condition(&mut self, c: &IfEl) -> Result<bool, StepError> {
        if c.wait_s > 0.0 && self.d.wait_for(&c.selector, c.gone, c.wait_s).await? {
            return Ok(true);
        }
        Ok(self.d.present(&c.selector).await? != c.gone)
    }

    /// Records a step that did not run.
    fn skipped(&mut self, path: &str, step: &Step, why: String) {
        let step_type = step.step_type().as_str().to_owned();
        self.finish(
            path,
            step_type,
            Duration::ZERO,
            StepStatus::Skipped,
            Done::default(),
            Some(why),
        );
    }

    /// Records a step that ran: ok with what it did, or failed with why; with the
    /// screenshots kept after it.
    fn record(
        &mut self,
        path: &str,
        step_type: String,
        took: Duration,
        outcome: Result<Done, StepError>,
        image_ids: Vec<String>,
    ) {
        let (status, done, error) = match outcome {
            Ok(done) => (StepStatus::Ok, done, None),
            Err(e) => (StepStatus::Failed, Done::default(), Some(e.0)),
        };
        let done = Done { image_ids, ..done };
        self.finish(path, step_type, took, status, done, error);
    }

    /// Emits a step's result and keeps it.
    fn finish(
        &mut self,
        path: &str,
        step_type: String,
        took: Duration,
        status: StepStatus,
        done: Done,
        error: Option<String>,
    ) {
        let result = TaskStepResult {
            path: path.to_owned(),
            step_type,
            status,
            duration_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
            matched: done.located.as_ref().map(|l| l.control.clone()),
            healed_from: done.located.and_then(|l| l.healed_from),
            error,
            message: done.message,
            image_ids: done.image_ids,
        };
        self.d.em.emit(EventKind::TaskStep(result.clone()));
        self.results.push(result);
    }
}
