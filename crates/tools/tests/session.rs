//! One recorded tool call: a [`DeviceSession`] over the real tool layer (fixture server) numbers
//! its events in the run's one stream, follows a window selection to the AppAgent Computer, keeps
//! images through the run's sink and names the tools of a `list_tools` record.

mod common;

use std::sync::Arc;

use common::*;
use deft_protocol::{AgentEvent, EventKind, EventSink, NullImages, ResultStatus, ToolType};
use deft_tools::computer::LIST_TOOLS;
use deft_tools::emitter::Emitter;
use deft_tools::session::{Call, DeviceSession};
use deft_tools::{AppSelection, Device};
use parking_lot::Mutex;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

#[derive(Default)]
struct Keep(Mutex<Vec<AgentEvent>>);

impl EventSink for Keep {
    fn send(&self, event: &AgentEvent) {
        self.0.lock().push(event.clone());
    }
}

fn device() -> Device {
    let select = "          - {namespace: fx, type: builtin, name: fixture, tools: [select_application_window]}";
    let (d, _) = dispatcher(&table_yaml(select));
    Device::new("local", "test", Arc::new(d))
}

#[tokio::test]
async fn calls_are_recorded_in_the_runs_stream_and_follow_the_selection() {
    let device = device();
    let kept = Arc::new(Keep::default());
    let em = Emitter::new(vec![kept.clone()], Arc::new(NullImages::default()));
    let mut session = DeviceSession::new(&device, CancellationToken::new(), em.clone());
    em.emit(EventKind::Error {
        message: "emitted by the caller".into(),
    });

    let selected = session
        .call(
            Call::new(
                Some(ToolType::Action),
                "select_application_window",
                json!({"id": "7", "name": "shared"}),
                false,
            )
            .with_id("model-1"),
        )
        .await;
    assert_eq!(selected.result.status, ResultStatus::Success);
    assert_eq!(
        session.app(),
        Some(&AppSelection {
            process: "shared window".into(),
            root: "shared".into()
        })
    );
    // `binding` is not among the HostAgent's tools: only the selected app's Computer has it.
    let on_app = session
        .call(Call::new(None, "binding", json!({}), true))
        .await;
    assert_eq!(
        on_app.result.status,
        ResultStatus::Success,
        "{:?}",
        on_app.result.error
    );
    let on_host = session
        .call(Call::new(None, "binding", json!({}), false))
        .await;
    assert_eq!(on_host.result.status, ResultStatus::Failure);

    let image = session
        .call(Call::new(
            Some(ToolType::DataCollection),
            "image",
            json!({}),
            false,
        ))
        .await;
    assert_eq!(image.image_ids, ["img-1"]);
    let listed = session
        .call(Call::new(
            Some(ToolType::DataCollection),
            LIST_TOOLS,
            json!({}),
            false,
        ))
        .await;
    assert_eq!(listed.result.status, ResultStatus::Success);
    assert_eq!(session.calls(), 5);

    let events = kept.0.lock().clone();
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (1..=11).collect::<Vec<_>>(),
        "one numbering for the caller and the calls"
    );
    let EventKind::StepStart {
        call_id,
        tool,
        args,
    } = &events[1].kind
    else {
        panic!("{:?}", events[1]);
    };
    assert_eq!(
        (call_id.as_str(), tool.as_str(), args),
        (
            "model-1",
            "select_application_window",
            &json!({"id": "7", "name": "shared"})
        )
    );
    let steps: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Step(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(steps.len(), 5);
    assert_eq!(steps[0].call_id, "model-1");
    assert_eq!(steps[3].image_ids, ["img-1"]);
    let names = steps[4].result["result"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        !names.is_empty() && names.iter().all(Value::is_string),
        "a list_tools record names the tools: {}",
        steps[4].result
    );
}

#[tokio::test]
async fn a_call_answered_elsewhere_is_recorded_alike() {
    let device = device();
    let kept = Arc::new(Keep::default());
    let em = Emitter::new(vec![kept.clone()], Arc::new(NullImages::default()));
    let mut session = DeviceSession::new(&device, CancellationToken::new(), em);
    let answer = deft_protocol::CommandResult::success(
        "other-id",
        json!({"root_name": "calc", "window_info": {"name": "Calculator"}}),
        Some("memory"),
    );
    let mut heard = None;
    let called = session
        .record(
            "call-9",
            "run_action",
            json!({"name": "sum"}),
            async { answer },
            |step, _| heard = Some(step.call_id.clone()),
        )
        .await;
    assert_eq!(called.result.status, ResultStatus::Success);
    assert_eq!(
        heard.as_deref(),
        Some("call-9"),
        "the step is shown under the call's id"
    );
    assert_eq!(session.app().map(|a| a.root.as_str()), Some("calc"));
    let kinds: Vec<&str> = kept
        .0
        .lock()
        .iter()
        .map(|e| match e.kind {
            EventKind::StepStart { .. } => "step_start",
            EventKind::Step(_) => "step",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["step_start", "step"]);
}
