//! A run: task files taken in name order by one worker per device (never two tasks on one app
//! instance), each task's stages for the mode, its result checked and saved, and at the end the
//! reformat to batch. Results do not depend on how many devices ran them. A task whose result
//! exists is skipped unless `force`; a stopped run saves nothing of the tasks it cut short, so a
//! rerun does exactly those.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use deft_protocol::DoneStatus;
use deft_tools::Device;
use parking_lot::Mutex;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::config::{Config, Mode};
use crate::folders::{self, Bucket, Verdict};
use crate::log::TaskLog;
use crate::model::Model;
use crate::reformat::{Reformatted, reformat};
use crate::result::{CHOOSE_TEMPLATE, ResultDoc, StageError};
use crate::schema::{Schemas, Violation};
use crate::stages::{self, TaskCtx};
use crate::task::{BadTask, Task, read_task};
use crate::texts;

/// What a run is: its settings, schemas, model and mode.
pub struct Pipeline {
    /// The settings.
    pub config: Config,
    /// The result schemas.
    pub schemas: Schemas,
    /// The model every stage asks.
    pub model: Model,
    /// Which stages run.
    pub mode: Mode,
    /// Run tasks whose result exists again.
    pub force: bool,
}

/// How one task ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskStatus {
    /// Its result was saved into `bucket`.
    Saved {
        /// The bucket.
        bucket: Bucket,
        /// The result file.
        path: PathBuf,
    },
    /// Its result already existed (no `--force`).
    Skipped {
        /// The bucket it is in.
        bucket: Bucket,
        /// The result file.
        path: PathBuf,
    },
    /// The run was stopped while it ran; nothing of it was saved.
    Interrupted,
    /// The result could not be written.
    NotSaved(String),
}

/// One task's outcome, for the progress bar, the summary and the tests.
#[derive(Debug, Clone)]
pub struct TaskOutcome {
    /// The task file.
    pub file: PathBuf,
    /// Its name.
    pub name: String,
    /// The device it ran on.
    pub device: String,
    /// How it ended.
    pub status: TaskStatus,
    /// Each stage's error, `stage: Kind: message`.
    pub errors: Vec<String>,
    /// How the result differs from its schema (it was saved all the same).
    pub violations: Vec<Violation>,
    /// The schema it was checked against.
    pub schema: String,
    /// The task's `report.html`.
    pub report: Option<PathBuf>,
    /// Wall time.
    pub wall: Duration,
    /// Time inside model calls.
    pub model_time: Duration,
    /// Time inside device calls.
    pub tool_time: Duration,
}

impl TaskOutcome {
    /// Pass, fail or unsure, when a result exists.
    pub fn verdict(&self) -> Option<Verdict> {
        match &self.status {
            TaskStatus::Saved { bucket, .. } | TaskStatus::Skipped { bucket, .. } => {
                Some(bucket.verdict())
            }
            _ => None,
        }
    }

    /// The pipeline's own time: wall time less model and device time.
    pub fn overhead(&self) -> Duration {
        self.wall.saturating_sub(self.model_time + self.tool_time)
    }
}

/// Told about a run's progress (the CLI's progress bar).
pub trait Observer: Send + Sync {
    /// A task starts on a device.
    fn started(&self, _task: &str, _device: &str) {}
    /// A task ended.
    fn finished(&self, _outcome: &TaskOutcome) {}
}

/// An observer that ignores everything.
pub struct Quiet;

impl Observer for Quiet {}

/// What a run did.
#[derive(Debug, Default)]
pub struct RunSummary {
    /// Every task's outcome, in task-file order.
    pub outcomes: Vec<TaskOutcome>,
    /// The reformat, when it ran.
    pub reformatted: Option<Result<Reformatted, String>>,
    /// Wall time of the run.
    pub wall: Duration,
    /// Whether it was stopped.
    pub interrupted: bool,
}

impl RunSummary {
    /// Tasks that ended in `verdict` (run now or before).
    pub fn count(&self, verdict: Verdict) -> usize {
        self.outcomes
            .iter()
            .filter(|o| o.verdict() == Some(verdict))
            .count()
    }

    /// Tasks whose result is a fail, or has none though the task ran to its end: the exit status.
    pub fn failed(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|o| {
                o.verdict() == Some(Verdict::Fail) || matches!(o.status, TaskStatus::NotSaved(_))
            })
            .count()
    }
}

impl Pipeline {
    /// Runs every task of `files`, one worker per device; `observer` hears each start and end.
    pub async fn run(
        self: &Arc<Self>,
        files: Vec<PathBuf>,
        devices: Vec<Device>,
        observer: Arc<dyn Observer>,
        cancel: CancellationToken,
    ) -> RunSummary {
        let started = Instant::now();
        let total = files.len();
        let queue: Arc<Mutex<VecDeque<(usize, PathBuf)>>> =
            Arc::new(Mutex::new(files.into_iter().enumerate().collect()));
        let done: Arc<Mutex<Vec<(usize, TaskOutcome)>>> = Arc::new(Mutex::new(Vec::new()));
        let mut workers = Vec::new();
        for device in devices {
            let (me, queue, done, observer, cancel) = (
                self.clone(),
                queue.clone(),
                done.clone(),
                observer.clone(),
                cancel.clone(),
            );
            workers.push(tokio::spawn(async move {
                let _busy = device.try_reserve();
                loop {
                    if cancel.is_cancelled() {
                        break;
                    }
                    let Some((i, file)) = queue.lock().pop_front() else {
                        break;
                    };
                    observer.started(&crate::task::task_name(&file), &device.id);
                    let outcome = Box::pin(me.run_task(&file, &device, cancel.clone())).await;
                    observer.finished(&outcome);
                    done.lock().push((i, outcome));
                }
            }));
        }
        for w in workers {
            if let Err(e) = w.await {
                tracing::error!("a dataflow worker ended abnormally: {e}");
            }
        }
        let mut outcomes = std::mem::take(&mut *done.lock());
        outcomes.sort_by_key(|(i, _)| *i);
        let interrupted = cancel.is_cancelled();
        let reformatted = (self.config.reformat_to_batch && !interrupted)
            .then(|| reformat(&self.config, self.mode).map_err(|e| e.to_string()));
        debug_assert!(interrupted || outcomes.len() == total);
        RunSummary {
            outcomes: outcomes.into_iter().map(|(_, o)| o).collect(),
            reformatted,
            wall: started.elapsed(),
            interrupted,
        }
    }

    /// Runs one task on `device` and saves its result.
    pub async fn run_task(
        &self,
        file: &Path,
        device: &Device,
        cancel: CancellationToken,
    ) -> TaskOutcome {
        let started = Instant::now();
        let mut outcome = TaskOutcome {
            file: file.to_owned(),
            name: crate::task::task_name(file),
            device: device.id.clone(),
            status: TaskStatus::Interrupted,
            errors: Vec::new(),
            violations: Vec::new(),
            schema: self.schemas.name(self.mode).to_owned(),
            report: None,
            wall: Duration::ZERO,
            model_time: Duration::ZERO,
            tool_time: Duration::ZERO,
        };
        if !self.force
            && let Some((bucket, path)) = folders::existing_result(&self.config, self.mode, file)
        {
            outcome.status = TaskStatus::Skipped { bucket, path };
            return outcome;
        }
        let (doc, mut log) = match self.prepare(file) {
            Ok((task, log)) => match self.config.app(&task.app) {
                Ok((app_name, spec)) => {
                    let cx = TaskCtx {
                        config: &self.config,
                        model: &self.model,
                        device,
                        task: &task,
                        app_name,
                        spec,
                        doc: self.start_doc(&task),
                        log,
                        cancel: cancel.clone(),
                    };
                    let cx = Box::pin(self.stages(cx)).await;
                    (cx.doc, cx.log)
                }
                Err(why) => self.bad_task(&task, log, StageError::new("UnknownApp", why)),
            },
            Err(bad) => {
                let (bad, log) = *bad;
                let e = StageError::new("TaskFileError", bad.message.clone());
                self.bad_task(&bad.partial, log, e)
            }
        };
        outcome.model_time = log.model_time;
        outcome.tool_time = log.tool_time;
        outcome.errors = stage_errors(&doc);
        if cancel.is_cancelled() {
            log.error(texts::INTERRUPTED);
            outcome.report = log.finish(texts::INTERRUPTED, DoneStatus::Stopped);
            outcome.wall = started.elapsed();
            return outcome;
        }
        let mut doc = doc;
        doc.add_total(started.elapsed().as_secs_f64());
        self.save(file, &doc, &mut log, &mut outcome);
        outcome.wall = started.elapsed();
        outcome
    }

    /// The task and its log, or what could be read of a bad task file.
    fn prepare(&self, file: &Path) -> Result<(Task, TaskLog), Box<(BadTask, TaskLog)>> {
        let meta = |task: &Task| deft_trace::TraceMeta {
            goal: format!("{} {}: {}", self.mode.as_str(), task.name, task.task),
            device: String::new(),
            model: self.model.name().to_owned(),
        };
        let log_for = |task: &Task| {
            TaskLog::create(
                &self.config.log_dir(&task.name),
                self.mode.as_str(),
                meta(task),
            )
        };
        match read_task(file, self.mode) {
            Ok(task) => {
                let log = log_for(&task);
                Ok((task, log))
            }
            Err(bad) => {
                let log = log_for(&bad.partial);
                Err(Box::new((bad, log)))
            }
        }
    }

    /// The result a task starts from: a skeleton, or in execution mode the instantiated file.
    fn start_doc(&self, task: &Task) -> ResultDoc {
        let mut doc = match &task.prior {
            Some(prior) => ResultDoc::from_prior(prior.clone(), task),
            None => ResultDoc::skeleton(task),
        };
        if self.mode != Mode::Execution
            && let Some((_, path)) = folders::existing_result(&self.config, self.mode, &task.file)
            && let Some(total) = previous_total(&path)
        {
            // Run again (--force): the new total adds to the old.
            doc.add_total(total);
        }
        doc
    }

    /// A task that cannot run: its result records why, where the schema says.
    fn bad_task(&self, task: &Task, mut log: TaskLog, error: StageError) -> (ResultDoc, TaskLog) {
        let mut doc = self.start_doc(task);
        log.error(error.as_text());
        match self.mode {
            Mode::Execution => doc.set_execution_error(&error),
            Mode::Instantiation => doc.set_stage_error(CHOOSE_TEMPLATE, &error),
            Mode::Dataflow => {
                doc.set_stage_error(CHOOSE_TEMPLATE, &error);
                let not_run = texts::not_executed("its instantiation failed");
                doc.set_execution_error(&StageError::new("NotExecuted", not_run));
            }
        }
        (doc, log)
    }

    /// The mode's stages, each only after the one before succeeded.
    async fn stages<'a>(&self, mut cx: TaskCtx<'a>) -> TaskCtx<'a> {
        if self.mode.instantiates() {
            let ok = stages::template::run(&mut cx).await.is_ok()
                && !cx.stopped()
                && stages::prefill::run(&mut cx).await.is_ok()
                && !cx.stopped()
                && stages::judge::run(&mut cx).await.is_ok();
            if !ok || cx.stopped() || self.mode == Mode::Instantiation {
                if self.mode == Mode::Dataflow && !cx.stopped() {
                    let e = StageError::new(
                        "NotExecuted",
                        texts::not_executed("its instantiation failed"),
                    );
                    cx.doc.reset_step_outcomes();
                    cx.doc.set_execution_error(&e);
                }
                return cx;
            }
            if cx.doc.judge() != Some(true) {
                let thought = cx
                    .doc
                    .stage_result(crate::result::INSTANTIATION_EVALUATION)
                    .and_then(|r| r.get("thought"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                let e = StageError::new(
                    "NotExecuted",
                    texts::not_executed(&texts::judged_not_doable(&thought)),
                );
                cx.doc.reset_step_outcomes();
                cx.doc.set_execution_error(&e);
                return cx;
            }
        }
        if let Ok(executed) = stages::execute::run(&mut cx).await
            && !cx.stopped()
        {
            let _ = stages::evaluate::run(&mut cx, executed).await;
        }
        cx
    }

    /// Checks `doc` against the schema, saves it into its bucket, ends the log.
    fn save(&self, file: &Path, doc: &ResultDoc, log: &mut TaskLog, outcome: &mut TaskOutcome) {
        outcome.violations = self.schemas.check(self.mode, &doc.value());
        for v in &outcome.violations {
            log.error(format!("schema {}: {v}", outcome.schema));
        }
        match folders::save(&self.config, self.mode, file, doc) {
            Ok((bucket, path)) => {
                if !outcome.violations.is_empty() {
                    // The outcome carries the violations; the CLI prints them with their paths.
                    tracing::info!(
                        "{}",
                        texts::schema_warning(&path, &outcome.schema, outcome.violations.len())
                    );
                }
                let status = match bucket.verdict() {
                    Verdict::Fail => DoneStatus::Failed,
                    _ => DoneStatus::Completed,
                };
                outcome.report = log.finish(bucket.as_str(), status);
                outcome.status = TaskStatus::Saved { bucket, path };
            }
            Err(e) => {
                let target = folders::result_path(
                    &self.config,
                    self.mode,
                    Bucket::of_result(self.mode, doc),
                    file,
                );
                let why = texts::save_failed(&target, &e);
                log.error(why.clone());
                outcome.report = log.finish(&why, DoneStatus::Failed);
                outcome.status = TaskStatus::NotSaved(why);
            }
        }
    }
}

/// `time_cost.total` of a result file.
fn previous_total(path: &Path) -> Option<f64> {
    let v: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    v.pointer("/time_cost/total")?.as_f64()
}

/// Every stage error of `doc`, `stage: text`.
fn stage_errors(doc: &ResultDoc) -> Vec<String> {
    let v = doc.value();
    let mut out = Vec::new();
    for stage in [
        CHOOSE_TEMPLATE,
        crate::result::PREFILL,
        crate::result::INSTANTIATION_EVALUATION,
    ] {
        if let Some(e) = v
            .pointer(&format!("/instantiation_result/{stage}/error"))
            .and_then(Value::as_str)
        {
            out.push(format!("{stage}: {e}"));
        }
    }
    if let Some(e) = v
        .pointer("/execution_result/error")
        .filter(|e| !e.is_null())
    {
        let kind = e["type"].as_str().unwrap_or("Error");
        let message = e["message"].as_str().unwrap_or("");
        out.push(format!("execution: {kind}: {message}"));
    }
    out
}
