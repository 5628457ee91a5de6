//! Where a task run's events go, and its end: the trace folder (`trace.jsonl`, images,
//! `report.html`), the store (every event in the run's event log, each `task_step` also as a
//! step row, the end through `finish_task_run`) and the run's [`RunLog`] for SSE watchers. The
//! writer of agent runs stores each batch before its events are shown, so an event a watcher
//! saw is in the store and keeps its seq across a crash; `done` waits until the store has the
//! run's end and the device is free.

use std::sync::Arc;
use std::time::Duration;

use deft_protocol::task_run::TaskStepResult;
use deft_protocol::{AgentEvent, EventKind, EventSink, ImageSink};
use deft_store::{StepStatus, StoreError, TaskRun, TaskRunStatus, TaskRunStep};
use deft_tasks::Task;
use deft_tasks::runner::{RunReport, RunRequest, RunSinks, run_task};
use deft_tools::Device;
use deft_tools::devices::BusyGuard;
use parking_lot::Mutex;
use tokio::sync::mpsc;

use super::{ActiveTaskRun, done_logged, done_of, status_of};
use crate::app::{App, now_ms};
use crate::event_writer::{EventStore, store_until_done, write_batches};
use crate::notices::RunEnd;
use crate::run_log::{LoggedEvent, RunLog};
use crate::runtime::agent_runtime;
use crate::texts;

/// What the runner gets.
pub struct Launch {
    /// The validated task.
    pub task: Task,
    /// Its device.
    pub device: Device,
    /// The device's busy flag, held until the run's end is stored.
    pub busy: BusyGuard,
    /// The variables.
    pub request: RunRequest,
}

/// One event on its way to the watchers, with the step row it carries.
struct Persist {
    event: LoggedEvent,
    step: Option<(TaskStepResult, i64)>,
}

/// The run's event sink: the step under way, the writer's queue, the held-back `done`.
struct TaskSink {
    run: Arc<ActiveTaskRun>,
    tx: mpsc::UnboundedSender<Persist>,
    done: Mutex<Option<AgentEvent>>,
}

impl EventSink for TaskSink {
    fn send(&self, event: &AgentEvent) {
        let step = match &event.kind {
            EventKind::Done { .. } => {
                *self.done.lock() = Some(event.clone());
                return;
            }
            EventKind::TaskStepStart(s) => {
                *self.run.current.lock() = Some(s.clone());
                None
            }
            EventKind::TaskStep(r) => {
                let started = now_ms().saturating_sub(i64::try_from(r.duration_ms).unwrap_or(0));
                Some((r.clone(), started))
            }
            _ => None,
        };
        let _ = self.tx.send(Persist {
            event: LoggedEvent::new(event),
            step,
        });
    }
}

/// Starts the runner for `run` on the agent runtime and a task that records its end.
pub fn spawn(app: &App, run: Arc<ActiveTaskRun>, launch: Launch) {
    let Launch {
        task,
        device,
        busy,
        request,
    } = launch;
    let trace = deft_trace::TraceWriter::create(
        &app.task_traces_dir(),
        &run.run_id,
        deft_trace::TraceMeta {
            goal: format!("task: {}", task.name),
            device: device.id.clone(),
            model: "none (task)".to_owned(),
        },
    )
    .inspect_err(
        |e| tracing::warn!(run = %run.run_id, error = %e, "no trace folder for the task run"),
    )
    .ok()
    .map(Arc::new);
    let (tx, rx) = mpsc::unbounded_channel();
    let writer = tokio::spawn(write_events(app.clone(), run.clone(), rx));
    let sink = Arc::new(TaskSink {
        run: run.clone(),
        tx,
        done: Mutex::new(None),
    });
    let mut events: Vec<Arc<dyn EventSink>> = Vec::new();
    let images: Arc<dyn ImageSink> = match &trace {
        Some(t) => {
            events.push(t.clone());
            t.clone()
        }
        None => Arc::new(deft_protocol::NullImages::default()),
    };
    events.push(sink.clone());
    let cancel = run.cancel_token();
    let running = agent_runtime().spawn(async move {
        let report = run_task(
            &task,
            &device,
            &request,
            RunSinks { events, images },
            cancel,
        )
        .await;
        (report, busy)
    });
    let app = app.clone();
    tokio::spawn(async move {
        let (report, busy) = match running.await {
            Ok((report, busy)) => (Some(report), Some(busy)),
            Err(e) => {
                tracing::error!(run = %run.run_id, error = %e, "the task runner failed");
                (None, None)
            }
        };
        let done = sink.done.lock().take();
        // The runner's sinks are gone; this was the last sender: the writer drains and ends.
        drop(sink);
        let _ = writer.await;
        if let Some(r) = &report {
            app.task_runs().keep_app(&run.device, r.app.clone());
        }
        let done = finish(&app, &run, report.as_ref(), done).await;
        if report.is_none()
            && let Some(t) = &trace
        {
            t.finish();
        }
        // Free first, then done: whoever sees done may start the next run on the device.
        drop(busy);
        app.task_runs().release(&run);
        run.log.push(done);
    });
}

/// Stores each batch — its step rows, then its events — and only then shows the events: a
/// step or event a watcher saw is in the store (agent runs' writer, with the step rows). A
/// `notify` step that worked goes to the notifier too.
async fn write_events(app: App, run: Arc<ActiveTaskRun>, rx: mpsc::UnboundedReceiver<Persist>) {
    let store = app.store().clone();
    let kept = run.event_store();
    let shown = run.clone();
    let mut step_seq = 0u64;
    let keep = async move |batch: &[Persist]| {
        for p in batch {
            if let Some((result, started_at_ms)) = &p.step {
                let step = step_row(step_seq, result, *started_at_ms);
                step_seq += 1;
                store_step(&store, run.fence.as_ref(), kept.run_id(), &step).await;
                if let Some(said) = notified(result) {
                    let end = run_end(&run, TaskRunStatus::Running, "");
                    app.notifier().notify_step(&end, said).await;
                }
            }
        }
        let events: Vec<LoggedEvent> = batch.iter().map(|p| p.event.clone()).collect();
        if !store_until_done(&store, &kept, &events).await {
            // Its device moved to another server: the run stops, writing nothing more.
            run.stop();
        }
    };
    write_batches(rx, keep, move |p| shown.log.push(p.event)).await;
}

/// What a `notify` step that worked said.
fn notified(r: &TaskStepResult) -> Option<&str> {
    let worked = r.status == deft_protocol::task_run::StepStatus::Ok;
    (worked && r.step_type == "notify")
        .then_some(r.message.as_deref())
        .flatten()
}

/// The notifier's view of `run`, ended as `status` with `message`.
fn run_end<'a>(run: &'a ActiveTaskRun, status: TaskRunStatus, message: &'a str) -> RunEnd<'a> {
    RunEnd {
        run_id: &run.run_id,
        task_id: &run.task_id,
        task_name: &run.task_name,
        device: &run.device,
        status,
        message,
    }
}

/// The store's row of a step result.
fn step_row(seq: u64, r: &TaskStepResult, started_at_ms: i64) -> TaskRunStep {
    TaskRunStep {
        seq,
        path: r.path.clone(),
        step_type: r.step_type.clone(),
        status: match r.status {
            deft_protocol::task_run::StepStatus::Ok => StepStatus::Ok,
            deft_protocol::task_run::StepStatus::Failed => StepStatus::Failed,
            deft_protocol::task_run::StepStatus::Skipped => StepStatus::Skipped,
        },
        started_at_ms,
        duration_ms: r.duration_ms,
        matched: r.matched.clone(),
        healed_from: r.healed_from.clone().map(serde_json::Value::String),
        error: r.error.clone(),
        message: r.message.clone(),
        image_ids: r.image_ids.clone(),
    }
}

/// Appends a step (under `fence`, when the run has one), retrying a few times (a step the store
/// never takes is logged and left out; the run goes on — unless the fence refused it).
async fn store_step(
    store: &deft_store::Store,
    fence: Option<&deft_store::Fence>,
    run_id: &str,
    step: &TaskRunStep,
) {
    for attempt in 0u32..5 {
        let stored = match fence {
            Some(fence) => {
                store
                    .fenced(fence.clone())
                    .append_task_run_step(run_id, step)
                    .await
            }
            None => store.append_task_run_step(run_id, step).await,
        };
        match stored {
            Ok(()) => return,
            Err(e @ StoreError::Fenced(_)) => {
                tracing::error!(run = %run_id, seq = step.seq, error = %e, "task run step refused: the device moved to another server");
                return;
            }
            Err(e) if attempt == 4 => {
                tracing::error!(run = %run_id, seq = step.seq, error = %e, "cannot store a task run step; it is left out");
            }
            Err(e) => {
                tracing::warn!(run = %run_id, seq = step.seq, error = %e, "cannot store a task run step; retrying");
                tokio::time::sleep(Duration::from_millis(100 << attempt)).await;
            }
        }
    }
}

/// Stores the run's end; the `done` to show once the device is free.
async fn finish(
    app: &App,
    run: &ActiveTaskRun,
    report: Option<&RunReport>,
    done: Option<AgentEvent>,
) -> LoggedEvent {
    let (status, message) = match report {
        Some(r) => (status_of(r.status), r.message.clone()),
        None => (TaskRunStatus::Failed, texts::TASK_RUN_CRASHED.to_owned()),
    };
    let error = (status != TaskRunStatus::Ok).then_some(message.as_str());
    let finished = match &run.fence {
        Some(fence) => {
            app.store()
                .fenced(fence.clone())
                .finish_task_run(&run.run_id, status, error, now_ms())
                .await
        }
        None => {
            app.store()
                .finish_task_run(&run.run_id, status, error, now_ms())
                .await
        }
    };
    if let Err(e) = finished {
        tracing::error!(run = %run.run_id, error = %e, "cannot store the end of the task run");
    }
    app.notifier()
        .run_ended(&run_end(run, status, &message))
        .await;
    let done = match done {
        Some(d) => LoggedEvent::new(&d),
        None => done_logged(run.log.last_seq() + 1, &message, done_of(status)),
    };
    store_until_done(app.store(), &run.event_store(), std::slice::from_ref(&done)).await;
    done
}

/// The log of a run not in memory: its stored events (the run's stream as watchers saw it; for
/// a run from before the store kept them, its trace's), closed with a `done` from the store's
/// record when they have none (a run cut off, one that never started).
pub async fn stored_log(app: &App, run: &TaskRun) -> Result<Arc<RunLog>, StoreError> {
    let mut events = past_events(app, &run.id).await?;
    if run.status != TaskRunStatus::Running && !events.last().is_some_and(LoggedEvent::is_done) {
        let seq = events.last().map_or(0, |e| e.seq) + 1;
        let answer = run
            .error
            .clone()
            .unwrap_or_else(|| texts::task_run_ended(&run.id, run.status.as_str()));
        events.push(done_logged(seq, &answer, done_of(run.status)));
    }
    Ok(RunLog::finished(events))
}

/// A run's events as stored; those before the first stored one (all of them, for a run from
/// before the store kept them) as its trace has them.
pub async fn past_events(app: &App, run_id: &str) -> Result<Vec<LoggedEvent>, StoreError> {
    let stored: Vec<LoggedEvent> = EventStore::Task(run_id.to_owned())
        .read(app.store(), 0)
        .await?
        .into_iter()
        .map(|(seq, json)| LoggedEvent::from_json(seq, json))
        .collect();
    let first = stored.first().map_or(u64::MAX, |e| e.seq);
    if first == 1 {
        return Ok(stored);
    }
    let path = app.task_trace_dir(run_id).join("trace.jsonl");
    let mut events: Vec<LoggedEvent> = std::fs::read_to_string(&path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<deft_trace::Line>(l).ok())
        .filter(|l| l.event.seq < first)
        .map(|l| LoggedEvent::new(&l.event))
        .collect();
    events.extend(stored);
    Ok(events)
}
