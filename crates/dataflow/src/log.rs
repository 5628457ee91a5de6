//! A task's log: `LOG_PATH/<task>/<mode>/` with `trace.jsonl` (one line per event: each stage and
//! plan step as `task_step_start` / `task_step`, each device call as `step_start` / `step`, the
//! model's answers as `delta`, usage, errors, one `done`), the images, and `report.html` — the
//! trace crate's writer and report, so a dataflow task reads like any deft run — plus
//! `model.jsonl`, one line per model call with the messages sent (images as placeholders), the
//! answer and the time (UFO's `prefill_messages.json` / `…_responses.json`). A disk that fails
//! loses the log, never the task.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use deft_protocol::event::DeltaKind;
use deft_protocol::task_run::{MatchedControl, StepStatus, TaskStepResult, TaskStepStart};
use deft_protocol::{DoneStatus, EventKind, EventSink, ImageSink, Usage};
use deft_tools::emitter::Emitter;
use deft_trace::{TraceMeta, TraceWriter};

/// One task's event log.
pub struct TaskLog {
    trace: Option<Arc<TraceWriter>>,
    /// The task's event stream (into the trace); its device calls emit into it too.
    em: Emitter,
    /// Model calls so far.
    pub usage: Usage,
    /// Time inside model calls.
    pub model_time: Duration,
    /// Time inside device calls.
    pub tool_time: Duration,
}

impl TaskLog {
    /// A log in `dir/<run>/` (a failure to create it is logged, and the task runs unlogged).
    pub fn create(dir: &Path, run: &str, meta: TraceMeta) -> TaskLog {
        let trace = match TraceWriter::create(dir, run, meta) {
            Ok(t) => Some(Arc::new(t)),
            Err(e) => {
                tracing::warn!("cannot create the task log under {}: {e}", dir.display());
                None
            }
        };
        let em = match &trace {
            Some(t) => {
                let events: Arc<dyn EventSink> = t.clone();
                let images: Arc<dyn ImageSink> = t.clone();
                Emitter::new(vec![events], images)
            }
            None => Emitter::discard(),
        };
        TaskLog {
            trace,
            em,
            ..TaskLog::discard()
        }
    }

    /// A log that keeps nothing (tests, benches).
    pub fn discard() -> TaskLog {
        TaskLog {
            trace: None,
            em: Emitter::discard(),
            usage: Usage::default(),
            model_time: Duration::ZERO,
            tool_time: Duration::ZERO,
        }
    }

    /// Records one event.
    pub fn emit(&mut self, kind: EventKind) {
        self.em.emit(kind);
    }

    /// The task's event stream (a device session of the task emits into it).
    pub fn emitter(&self) -> &Emitter {
        &self.em
    }

    /// Where images go (the log's `images/`).
    pub fn images(&self) -> &dyn ImageSink {
        self.em.images().as_ref()
    }

    /// Keeps image bytes; returns their id.
    pub fn image(&self, png: &[u8]) -> String {
        self.images().store(png, "image/png")
    }

    /// A stage or plan step starts.
    pub fn step_start(&mut self, path: &str, step_type: &str, note: Option<String>) {
        self.emit(EventKind::TaskStepStart(TaskStepStart {
            path: path.to_owned(),
            step_type: step_type.to_owned(),
            note,
        }));
    }

    /// A stage or plan step ended.
    pub fn step_end(&mut self, end: StepEnd) {
        self.emit(EventKind::TaskStep(TaskStepResult {
            path: end.path,
            step_type: end.step_type,
            status: end.status,
            duration_ms: u64::try_from(end.duration.as_millis()).unwrap_or(u64::MAX),
            matched: end.matched,
            healed_from: None,
            error: end.error,
            message: end.message,
            image_ids: end.image_ids,
        }));
    }

    /// The model's answer (and reasoning) of one call.
    pub fn model_answer(&mut self, reasoning: &str, content: &str) {
        for (text, kind) in [
            (reasoning, DeltaKind::Reasoning),
            (content, DeltaKind::Content),
        ] {
            if !text.is_empty() {
                self.emit(EventKind::Delta {
                    text: text.to_owned(),
                    kind,
                });
            }
        }
    }

    /// Something went wrong (or a warning worth reading in the report).
    pub fn error(&mut self, message: impl Into<String>) {
        self.emit(EventKind::Error {
            message: message.into(),
        });
    }

    /// Appends one model call to `model.jsonl`.
    pub fn model_call(&mut self, record: &serde_json::Value) {
        let Some(t) = &self.trace else { return };
        let path = t.dir().join("model.jsonl");
        let line = format!("{record}\n");
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, line.as_bytes()));
        if let Err(e) = written {
            tracing::warn!("cannot write {}: {e}", path.display());
        }
    }

    /// Ends the log with `answer`; returns the report's path.
    pub fn finish(&mut self, answer: &str, status: DoneStatus) -> Option<PathBuf> {
        let usage = self.usage;
        self.emit(EventKind::done(answer, usage, status));
        self.trace.as_ref().map(|t| t.dir().join("report.html"))
    }
}

/// How a stage or plan step ended, for [`TaskLog::step_end`].
#[derive(Debug, Clone)]
pub struct StepEnd {
    /// `choose_template`, `execute.steps[2]`, …
    pub path: String,
    /// `stage`, or the step's tool.
    pub step_type: String,
    /// ok, failed or skipped.
    pub status: StepStatus,
    /// Wall time.
    pub duration: Duration,
    /// The control a plan step matched.
    pub matched: Option<MatchedControl>,
    /// Why it failed.
    pub error: Option<String>,
    /// What it produced, in a line.
    pub message: Option<String>,
    /// Images it kept.
    pub image_ids: Vec<String>,
}

impl StepEnd {
    /// A stage `path` that ended after `duration`, with its error if it failed.
    pub fn stage(path: &str, duration: Duration, error: Option<String>) -> StepEnd {
        StepEnd {
            path: path.to_owned(),
            step_type: "stage".to_owned(),
            status: if error.is_some() {
                StepStatus::Failed
            } else {
                StepStatus::Ok
            },
            duration,
            matched: None,
            error,
            message: None,
            image_ids: Vec::new(),
        }
    }
}
