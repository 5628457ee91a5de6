//! Playing a task's steps in order: paths, `on_error`, a leaf's retries, timeouts, stop, and
//! the containers (`group`, `loop`, `if_el`, `for_each`) whose sub-steps run through the same
//! path. What one leaf step does on the device is `actions`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use deft_protocol::task_run::{
    StepStatus, TaskRound, TaskStepResult, TaskStepRetry, TaskStepStart,
};
use deft_protocol::{DoneStatus, EventKind};
use futures::future::BoxFuture;

use deft_protocol::selector::Selector;

use super::bounds::{ANSWER_GRACE, Bound, DEFAULT_STEP_TIMEOUT, Limit, leaf_limit};
use super::driver::Driver;
use super::outcome::{Done, StepError};
use super::rounds::rounds;
use super::scope::Scope;
use super::texts;
use crate::step::{
    Action, ForEach, IfEl, Loop, OnError, Repeat, Retry, Screenshots, Step, StepType, Task,
    child_path,
};
use crate::vars::Vars;

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
    /// The `timeout_s` of the containers the step running now is inside, outermost first.
    pub(crate) bounds: Vec<Bound>,
    /// The folders a `for_each` may read CSV files from.
    pub(crate) csv_dirs: Vec<std::path::PathBuf>,
    /// The path of the step a run to here ends after (`Scope::Until`).
    pub(crate) until: Option<String>,
    /// That step has run: the lists around it end without recording the steps after it.
    pub(crate) halted: bool,
}

impl<'a> Exec<'a> {
    /// Plays the part of `task` that `scope` names: its steps in order (until one, when asked),
    /// or one step alone.
    pub(crate) async fn run_scope(&mut self, task: &Task, scope: &Scope) -> Flow {
        match scope {
            Scope::Only(path) => match task.step_at(path) {
                Some(step) => self.run_step(path, step, task.on_error).await,
                None => Flow::End(
                    DoneStatus::Failed,
                    texts::no_step_at(path, task.steps.len()),
                ),
            },
            Scope::Whole | Scope::Until(_) => {
                self.run_steps("", "steps", "", &task.steps, task.on_error)
                    .await
            }
        }
    }

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
                if let Some(bound) = self.bounds.iter().find(|b| b.passed()).cloned() {
                    let why = texts::not_run_in_time(bound.step_type, &bound.path);
                    for (j, rest) in steps.iter().enumerate().skip(i) {
                        let rest_path = format!("{}{suffix}", child_path(parent, field, j));
                        self.skipped(&rest_path, rest, why.clone());
                    }
                    return Flow::End(DoneStatus::Failed, bound.in_step());
                }
                let flow = if self.d.cancel.is_cancelled() {
                    self.cutoff.end()
                } else {
                    self.run_step(&path, step, inherited).await
                };
                // In a loop's or a for_each's rounds the path carries the round (`#1`): the
                // first round's end is the step's.
                let bare = without_rounds(&child_path(parent, field, i));
                if self.until.as_deref() == Some(bare.as_str()) && !self.halted {
                    self.halted = true;
                    if matches!(flow, Flow::Next) {
                        return Flow::End(DoneStatus::Completed, texts::ran_until(&bare));
                    }
                }
                if self.halted {
                    // A run to here: the steps after the chosen one are not part of it.
                    return flow;
                }
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
    pub(crate) async fn run_step(&mut self, path: &str, step: &Step, inherited: OnError) -> Flow {
        let step_type = step.step_type().as_str().to_owned();
        self.d.em.emit(EventKind::TaskStepStart(TaskStepStart {
            path: path.to_owned(),
            step_type: step_type.clone(),
            note: step.note.clone(),
        }));
        let started = Instant::now();
        let on_error = step.on_error.unwrap_or(inherited);
        let (outcome, flow) = if step.step_type().is_container() {
            self.bounded_container(path, step, on_error).await
        } else if let Some(retry) = step.retry {
            self.retried(path, step, retry).await
        } else {
            self.leaf(step).await
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

    /// This step's own parameters with `{{name}}` replaced by the values now: the one place a
    /// step's texts expand — a leaf's parameters, and the selectors (with their `within`s) of
    /// `if_el` and of `loop`'s `while` / `until`. Sub-steps expand when they run. A variable
    /// without a value fails the step; its `{{name}}` never reaches the device.
    fn expand(&self, action: &Action) -> Result<Action, StepError> {
        action
            .shallow()
            .expanded(&self.vars)
            .map_err(|e| StepError(e.to_string()))
    }

    /// Arms the limit of what runs next — `shown` plus `grace`, cut by the containers around
    /// it — for its tool calls' deadlines; returns it.
    fn arm(&mut self, shown: Duration, grace: Duration) -> Limit {
        let limit = Limit::of(shown, grace, &self.bounds);
        self.d.limit = limit.clone();
        limit
    }

    /// A leaf step: its variables expanded, bounded by its timeout, cut short by a stop.
    /// `mark_done` and `stop_self` end the run.
    async fn leaf(&mut self, step: &Step) -> (Result<Done, StepError>, Option<Flow>) {
        let action = match self.expand(&step.action) {
            Ok(a) => a,
            Err(e) => return (Err(e), None),
        };
        let (shown, grace) = leaf_limit(step.step_type() == StepType::WaitEl, step.timeout_s);
        let limit = self.arm(shown, grace);
        let cancel = self.d.cancel.clone();
        let outcome = tokio::select! {
            r = limit.run(self.act(&action, step)) => r,
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

    /// A leaf step with `retry`: tried again after a failed attempt, after a pause that grows
    /// by `backoff`, until an attempt works or none is left. Each failed attempt that is
    /// retried is a `task_step_retry` event; a stop, the run's timeout or a container's cuts
    /// the pause short and ends the step with the attempt's error.
    async fn retried(
        &mut self,
        path: &str,
        step: &Step,
        retry: Retry,
    ) -> (Result<Done, StepError>, Option<Flow>) {
        let attempts = retry.attempts();
        let mut attempt = 1;
        loop {
            let (outcome, flow) = self.leaf(step).await;
            let error = match outcome {
                Ok(done) if attempt > 1 => {
                    let message = texts::on_attempt(done.message.as_deref(), attempt, attempts);
                    let done = Done {
                        message: Some(message),
                        ..done
                    };
                    return (Ok(done), flow);
                }
                Ok(done) => return (Ok(done), flow),
                Err(e) => e,
            };
            if attempt == attempts {
                let text = texts::attempts_failed(attempts, &error.0);
                return (Err(StepError(text)), flow);
            }
            let delay = retry.delay(attempt);
            self.d.em.emit(EventKind::TaskStepRetry(TaskStepRetry {
                path: path.to_owned(),
                step_type: step.step_type().as_str().to_owned(),
                attempt,
                attempts,
                error: error.0.clone(),
                delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
            }));
            if !self.pause(delay).await {
                return (Err(error), flow);
            }
            attempt += 1;
        }
    }

    /// Waits `delay` before a retry; `false` when a stop, the run's timeout or a container's
    /// `timeout_s` came first.
    async fn pause(&self, delay: Duration) -> bool {
        let cancel = self.d.cancel.clone();
        let bound = self.bounds.iter().map(|b| b.until).min();
        let bound = async {
            match bound {
                Some(until) => tokio::time::sleep_until(until).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = tokio::time::sleep(delay) => !self.d.cancel.is_cancelled(),
            () = cancel.cancelled() => false,
            () = bound => false,
        }
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

    /// A `group`, `loop` or `if_el`, bounded by its `timeout_s` when it has one: a sub-step
    /// in flight when it passes fails with it, the ones after are not run, and the container
    /// fails with its own timeout.
    async fn bounded_container(
        &mut self,
        path: &str,
        step: &Step,
        on_error: OnError,
    ) -> (Result<Done, StepError>, Option<Flow>) {
        let limit = step.timeout_s.map(Duration::from_secs_f64);
        if let Some(limit) = limit {
            self.bounds.push(Bound {
                until: tokio::time::Instant::now() + limit,
                limit,
                path: path.to_owned(),
                step_type: step.step_type().as_str(),
            });
        }
        let (outcome, flow) = match &step.action {
            Action::Group(g) => self.container(path, "steps", "", &g.steps, on_error).await,
            Action::Loop(l) => self.run_loop(path, step, l, on_error).await,
            Action::IfEl(c) => self.run_if(path, step, c, on_error).await,
            Action::ForEach(e) => self.run_for_each(path, step, e, on_error).await,
            _ => (Err(StepError(texts::not_a_container(path))), None),
        };
        let passed = limit.is_some() && self.bounds.pop().is_some_and(|b| b.passed());
        match (limit, outcome) {
            (Some(limit), Err(_)) if passed => (Err(StepError(texts::step_timeout(limit))), flow),
            (_, outcome) => (outcome, flow),
        }
    }

    /// Whether a condition holds now, or within `wait_s` when it is above 0: `selector` (as
    /// [`Exec::expand`] gave it) shows, or with `gone` no control matches. Bounded like a leaf
    /// step: a look by [`DEFAULT_STEP_TIMEOUT`], a wait by `wait_s` and the device's time to
    /// answer, both by the containers around it.
    async fn holds(
        &mut self,
        selector: &Selector,
        gone: bool,
        wait_s: f64,
    ) -> Result<bool, StepError> {
        let limit = if wait_s > 0.0 {
            self.arm(Duration::from_secs_f64(wait_s), ANSWER_GRACE)
        } else {
            self.arm(DEFAULT_STEP_TIMEOUT, Duration::ZERO)
        };
        let d = &mut self.d;
        limit
            .run(async {
                if wait_s > 0.0 && d.wait_for(selector, gone, wait_s).await? {
                    return Ok(true);
                }
                Ok(d.present(selector).await? != gone)
            })
            .await
    }

    /// The condition selector of an `if_el` or a `loop` with `while` / `until`, expanded now.
    fn condition(&self, step: &Step) -> Result<Option<Selector>, StepError> {
        Ok(match self.expand(&step.action)? {
            Action::IfEl(c) => Some(c.selector),
            Action::Loop(Loop {
                repeat: Repeat::While { selector, .. } | Repeat::Until { selector, .. },
                ..
            }) => Some(selector),
            _ => None,
        })
    }

    /// `loop`: `times` rounds, or rounds while / until a control shows, capped by `max`. The
    /// condition expands before each check, so a variable read in a round counts in the next.
    async fn run_loop(
        &mut self,
        path: &str,
        step: &Step,
        l: &Loop,
        on_error: OnError,
    ) -> (Result<Done, StepError>, Option<Flow>) {
        let (cap, want) = match &l.repeat {
            Repeat::Times { times } => (*times, None),
            Repeat::While { max, .. } => (*max, Some(true)),
            Repeat::Until { max, .. } => (*max, Some(false)),
        };
        let mut last = None;
        for round in 1..=cap {
            if let Some(want) = want {
                let checked = match self.condition(step) {
                    Ok(Some(selector)) => self
                        .holds(&selector, false, 0.0)
                        .await
                        .map(|s| (s, selector)),
                    Ok(None) => Err(StepError(texts::not_a_container(path))),
                    Err(e) => Err(e),
                };
                match checked {
                    Ok((shows, _)) if shows != want => {
                        return (Ok(Done::message(texts::loop_rounds(round - 1))), None);
                    }
                    Ok((_, selector)) => last = Some(selector),
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
        match (want, last) {
            (Some(want), Some(selector)) => {
                (Err(StepError(texts::loop_cap(cap, &selector, want))), None)
            }
            _ => (Ok(Done::message(texts::loop_rounds(cap))), None),
        }
    }

    /// `for_each`: its steps once per item, each round's variables set before it (a
    /// `task_round` event shows them) and taken away after the loop, as they were before it.
    async fn run_for_each(
        &mut self,
        path: &str,
        step: &Step,
        e: &ForEach,
        on_error: OnError,
    ) -> (Result<Done, StepError>, Option<Flow>) {
        let source = match self.expand(&step.action) {
            Ok(Action::ForEach(expanded)) => expanded.source,
            Ok(_) => return (Err(StepError(texts::not_a_container(path))), None),
            Err(err) => return (Err(err), None),
        };
        let all = match rounds(&source, &e.name, &self.vars, &self.csv_dirs) {
            Ok(all) => all,
            Err(err) => return (Err(err), None),
        };
        let names: std::collections::BTreeSet<&String> =
            all.iter().flat_map(|r| r.keys()).collect();
        let before: Vec<(String, Option<String>)> = names
            .iter()
            .map(|n| ((*n).clone(), self.vars.get(n).map(str::to_owned)))
            .collect();
        let total = u32::try_from(all.len()).unwrap_or(u32::MAX);
        let mut ended = None;
        for (i, values) in all.iter().enumerate() {
            for (name, _) in &before {
                self.vars.remove(name);
            }
            for (name, value) in values {
                self.vars.set(name.clone(), value.clone());
            }
            let round = u32::try_from(i + 1).unwrap_or(u32::MAX);
            self.d.em.emit(EventKind::TaskRound(TaskRound {
                path: path.to_owned(),
                round,
                rounds: total,
                values: shown_values(&e.name, values),
            }));
            let suffix = format!("#{round}");
            let (outcome, flow) = self
                .container(path, "steps", &suffix, &e.steps, on_error)
                .await;
            if outcome.is_err() || flow.is_some() {
                ended = Some((outcome, flow));
                break;
            }
        }
        for (name, value) in before {
            match value {
                Some(v) => self.vars.set(name, v),
                None => {
                    self.vars.remove(&name);
                }
            }
        }
        ended.unwrap_or_else(|| (Ok(Done::message(texts::for_each_rounds(all.len()))), None))
    }

    /// `if_el`: `then` when the condition holds (within `wait_s`), else `else`; the branch not
    /// taken is recorded as skipped.
    async fn run_if(
        &mut self,
        path: &str,
        step: &Step,
        c: &IfEl,
        on_error: OnError,
    ) -> (Result<Done, StepError>, Option<Flow>) {
        let checked = match self.condition(step) {
            Ok(Some(selector)) => self.holds(&selector, c.gone, c.wait_s).await,
            Ok(None) => Err(StepError(texts::not_a_container(path))),
            Err(e) => Err(e),
        };
        let holds = match checked {
            Ok(h) => h,
            Err(e) => {
                for (field, steps) in [("then", &c.then), ("else", &c.otherwise)] {
                    for (i, s) in steps.iter().enumerate() {
                        let why = texts::CONDITION_UNCHECKED.to_owned();
                        self.skipped(&child_path(path, field, i), s, why);
                    }
                }
                return (Err(e), None);
            }
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

/// What a round's event shows: an object's fields (`row.Order`), not the object again as JSON
/// text; a text item as itself.
fn shown_values(
    name: &str,
    values: &super::rounds::Round,
) -> std::collections::BTreeMap<String, String> {
    let has_fields = values.len() > 1;
    values
        .iter()
        .filter(|(k, _)| !(has_fields && k.as_str() == name))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `path` without its rounds' marks (`steps[1].steps[0]#2.steps[0]` → `steps[1].steps[0].steps[0]`):
/// the step as the task file has it.
fn without_rounds(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_round = false;
    for c in path.chars() {
        if c == '#' {
            in_round = true;
        } else if in_round && c.is_ascii_digit() {
        } else {
            in_round = false;
            out.push(c);
        }
    }
    out
}
