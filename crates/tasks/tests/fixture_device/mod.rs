//! Shared set-up of the runner tests: a device whose tools are the fixture MCP server's
//! (through the real tool layer), a sink that keeps every event, and task parsing through the
//! validator.

#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test
#![allow(dead_code)] // each test file uses some of the helpers

use std::sync::Arc;

use deft_protocol::{AgentEvent, EventKind, EventSink};
use deft_tasks::Task;
use deft_tasks::runner::RunSinks;
use deft_test_support::fixture::FixtureServer;
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, LocalDispatcher};
use parking_lot::Mutex;
use tokio::sync::mpsc;

/// A device named `fixture` whose HostAgent and AppAgent tools are the fixture server's.
pub fn fixture_device() -> Device {
    let yaml = "profiles:\n  fixture:\n    HostAgent:\n      default:\n        action:\n          - {namespace: fx, type: builtin, name: fixture}\n    AppAgent:\n      default:\n        action:\n          - {namespace: fx, type: builtin, name: fixture}\n";
    let table = RoutingTable::parse(yaml, "fixture.yaml").unwrap();
    let mut reg = BuiltinRegistry::new();
    reg.register(Builtin::new("fixture", "runner tests", |_| {
        Ok(FixtureServer::new())
    }));
    let dispatcher = LocalDispatcher::new(Arc::new(table), Arc::new(reg));
    Device::new("fixture", "fixture", Arc::new(dispatcher))
}

/// Keeps every event and sends each on a channel as it comes.
pub struct Recorder {
    pub events: Mutex<Vec<AgentEvent>>,
    tx: mpsc::UnboundedSender<AgentEvent>,
}

impl EventSink for Recorder {
    fn send(&self, event: &AgentEvent) {
        self.events.lock().push(event.clone());
        let _ = self.tx.send(event.clone());
    }
}

/// A recorder, the run sinks that feed it, and the channel of its events.
pub fn recorder() -> (Arc<Recorder>, RunSinks, mpsc::UnboundedReceiver<AgentEvent>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let rec = Arc::new(Recorder {
        events: Mutex::new(Vec::new()),
        tx,
    });
    let mut sinks = RunSinks::null();
    sinks.events.push(rec.clone());
    (rec, sinks, rx)
}

/// Keeps the images a run hands over (bytes and type), naming them `shot-1`, `shot-2`, ….
#[derive(Default)]
pub struct KeptImages {
    pub images: Mutex<Vec<(Vec<u8>, String)>>,
}

impl deft_protocol::ImageSink for KeptImages {
    fn store(&self, bytes: &[u8], mime: &str) -> String {
        let mut kept = self.images.lock();
        kept.push((bytes.to_vec(), mime.to_owned()));
        format!("shot-{}", kept.len())
    }
}

/// [`recorder`] whose run sinks keep the images too.
pub fn recorder_keeping_images() -> (
    Arc<Recorder>,
    RunSinks,
    mpsc::UnboundedReceiver<AgentEvent>,
    Arc<KeptImages>,
) {
    let (rec, mut sinks, rx) = recorder();
    let kept = Arc::new(KeptImages::default());
    sinks.images = kept.clone();
    (rec, sinks, rx, kept)
}

/// A task from JSON, through the validator (which must accept it).
pub fn task(json: serde_json::Value) -> Task {
    let v = deft_tasks::validate_task(&json, &Default::default());
    let report = v.report.clone();
    v.value
        .unwrap_or_else(|| panic!("the task does not validate: {report}"))
}

/// The event type names, in order.
pub fn kinds(events: &[AgentEvent]) -> Vec<&'static str> {
    events.iter().map(|e| e.kind.name()).collect()
}

/// The task step results among the events.
pub fn step_results(events: &[AgentEvent]) -> Vec<deft_protocol::task_run::TaskStepResult> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TaskStep(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

/// Runs `task` with `request` on a fresh fixture device, never stopped: the report and every
/// event the run sent.
pub async fn run_on_fixture(
    task: &Task,
    request: &deft_tasks::runner::RunRequest,
) -> (deft_tasks::runner::RunReport, Vec<AgentEvent>) {
    let (rec, sinks, _rx) = recorder();
    let report = deft_tasks::runner::run_task(
        task,
        &fixture_device(),
        request,
        sinks,
        tokio_util::sync::CancellationToken::new(),
    )
    .await;
    let events = rec.events.lock().clone();
    (report, events)
}

/// The first tool call's `step` event.
pub fn first_tool_step(events: &[AgentEvent]) -> deft_protocol::ToolStep {
    events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Step(s) => Some(s.clone()),
            _ => None,
        })
        .expect("a tool call's step event")
}

/// Runs `task` on `device` with no variables, never stopped: the report.
pub async fn run_on(task: &Task, device: &deft_tools::Device) -> deft_tasks::runner::RunReport {
    let (_rec, sinks, _rx) = recorder();
    deft_tasks::runner::run_task(
        task,
        device,
        &deft_tasks::runner::RunRequest::default(),
        sinks,
        tokio_util::sync::CancellationToken::new(),
    )
    .await
}

/// Asserts that `report` completed (its steps shown otherwise) with a message ending in
/// `ending` (the `mark_done` message).
#[allow(dead_code)] // not every suite ends its tasks with mark_done
pub fn assert_completed_with(report: &deft_tasks::runner::RunReport, ending: &str) {
    let lines = step_lines(report);
    assert_eq!(
        report.status,
        deft_protocol::DoneStatus::Completed,
        "{}\n{lines:#?}",
        report.message
    );
    assert!(report.message.ends_with(ending), "{}", report.message);
}

/// One line per step result (path, type, status, matched control, message, error), for
/// assertion messages.
pub fn step_lines(report: &deft_tasks::runner::RunReport) -> Vec<String> {
    report
        .steps
        .iter()
        .map(|s| {
            format!(
                "{} {} {:?} {:?} {:?} {:?}",
                s.path, s.step_type, s.status, s.matched, s.message, s.error
            )
        })
        .collect()
}
