//! Round trips of every wire type, including UFO-shaped samples.

use deft_protocol::link::{
    ClientMessage, ClientMessageType, ServerMessage, ServerMessageType, TaskStatus,
};
use deft_protocol::{
    AgentEvent, Command, CommandResult, DoneStatus, EventKind, ExecInput, ResultStatus, ToolInfo,
    ToolStep, ToolType, Usage,
};
use serde_json::{Value, json};

const UFO_COMMAND: &str = r#"{"type":"command","status":"continue","agent_name":"AppAgent","process_name":"Doc1 - Word",
 "root_name":"WINWORD.EXE","actions":[{"tool_name":"click_input","tool_type":"action",
 "parameters":{"id":"12","name":"Bold","button":"left","double":false},"call_id":"c-1"}],
 "session_id":"S1","task_name":"t1","timestamp":"2026-01-01T00:00:00Z","response_id":"R7",
 "user_request":null,"messages":null,"error":null,"result":null}"#;

const UFO_RESULTS: &str = r#"{"type":"command_results","status":"continue","client_type":"device","client_id":"client_001",
 "session_id":"S1","prev_response_id":"R7","request_id":"q1","timestamp":"2026-01-01T00:00:01Z",
 "action_results":[{"status":"success","result":"Click action has been executed, with parameters: {...}",
 "error":null,"namespace":"AppUIExecutor","call_id":"c-1"}]}"#;

#[test]
fn ufo_command_parses_and_round_trips() {
    let msg: ServerMessage = serde_json::from_str(UFO_COMMAND).unwrap();
    assert_eq!(msg.kind, ServerMessageType::Command);
    assert_eq!(msg.status, TaskStatus::Continue);
    assert_eq!(msg.root_name.as_deref(), Some("WINWORD.EXE"));
    let actions = msg.actions.as_ref().unwrap();
    assert_eq!(actions[0].tool_name, "click_input");
    assert_eq!(actions[0].tool_type, Some(ToolType::Action));
    assert_eq!(actions[0].parameters["id"], "12");
    assert_eq!(msg.early_exit, None);
    let text = serde_json::to_string(&msg).unwrap();
    let again: ServerMessage = serde_json::from_str(&text).unwrap();
    assert_eq!(again, msg);
    // Unset optional fields go out as null, as UFO's pydantic models send them.
    let v: Value = serde_json::from_str(&text).unwrap();
    assert!(v.as_object().unwrap().contains_key("user_request"));
    assert_eq!(v["user_request"], Value::Null);
    assert_eq!(v["type"], "command");
}

#[test]
fn ufo_results_parse_and_round_trip() {
    let msg: ClientMessage = serde_json::from_str(UFO_RESULTS).unwrap();
    assert_eq!(msg.kind, ClientMessageType::CommandResults);
    assert_eq!(msg.prev_response_id.as_deref(), Some("R7"));
    let r = &msg.action_results.as_ref().unwrap()[0];
    assert_eq!(r.status, ResultStatus::Success);
    assert_eq!(r.call_id, "c-1");
    assert_eq!(r.namespace.as_deref(), Some("AppUIExecutor"));
    assert!(r.images.is_empty());
    let again: ClientMessage = serde_json::from_str(&serde_json::to_string(&msg).unwrap()).unwrap();
    assert_eq!(again, msg);
}

#[test]
fn unknown_fields_and_nulls_are_accepted() {
    let msg: ClientMessage = serde_json::from_str(
        r#"{"type":"register","status":"ok","client_type":null,"client_id":"dev1","brand_new_field":{"x":1},"metadata":null}"#,
    )
    .unwrap();
    assert_eq!(msg.kind, ClientMessageType::Register);
    assert_eq!(msg.client_id.as_deref(), Some("dev1"));
    let cmd: Command = serde_json::from_str(
        r#"{"tool_name":"list_tools","parameters":null,"tool_type":null,"call_id":null,"extra":1}"#,
    )
    .unwrap();
    assert_eq!(cmd.call_id, "");
    assert!(cmd.parameters.is_empty());
    assert_eq!(cmd.tool_type, None);
    let empty_type: Command = serde_json::from_str(r#"{"tool_name":"x","tool_type":""}"#).unwrap();
    assert_eq!(empty_type.tool_type, None);
}

#[test]
fn ufo_none_status_reads_as_skipped_and_writes_three_values() {
    let r: CommandResult = serde_json::from_str(
        r#"{"status":"none","call_id":"a","result":null,"error":null,"images":null}"#,
    )
    .unwrap();
    assert_eq!(r.status, ResultStatus::Skipped);
    for (status, text) in [
        (ResultStatus::Success, "\"success\""),
        (ResultStatus::Failure, "\"failure\""),
        (ResultStatus::Skipped, "\"skipped\""),
    ] {
        assert_eq!(serde_json::to_string(&status).unwrap(), text);
    }
    let bad = serde_json::from_str::<CommandResult>(r#"{"status":"maybe"}"#).unwrap_err();
    assert!(
        bad.to_string().contains("unknown result status 'maybe'"),
        "{bad}"
    );
}

#[test]
fn bad_tool_type_is_a_clear_error() {
    let err =
        serde_json::from_str::<Command>(r#"{"tool_name":"x","tool_type":"acton"}"#).unwrap_err();
    assert!(
        err.to_string().contains("unknown tool_type 'acton'"),
        "{err}"
    );
}

#[test]
fn result_with_images_round_trips() {
    let mut r = CommandResult::success("c9", json!({"ok": true}), Some("ui"));
    r.images.push("data:image/png;base64,iVBORw0KGgo=".into());
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["status"], "success");
    assert_eq!(v["images"][0], "data:image/png;base64,iVBORw0KGgo=");
    assert_eq!(serde_json::from_value::<CommandResult>(v).unwrap(), r);
}

#[test]
fn tool_info_round_trips_with_ufo_fields() {
    let info: ToolInfo = serde_json::from_value(json!({
        "tool_key": "action::run_shell", "tool_name": "run_shell", "title": null,
        "namespace": "shell", "tool_type": "action", "description": "Run a command",
        "input_schema": {"type": "object"}, "output_schema": null, "meta": null, "annotations": null
    }))
    .unwrap();
    assert_eq!(info.tool_type, ToolType::Action);
    let again: ToolInfo = serde_json::from_value(serde_json::to_value(&info).unwrap()).unwrap();
    assert_eq!(again, info);
}

#[test]
#[allow(clippy::too_many_lines)] // one literal per event kind: the table is the test
fn every_event_round_trips_with_its_type_tag() {
    let events = vec![
        EventKind::Delta {
            text: "hi".into(),
            kind: deft_protocol::event::DeltaKind::Reasoning,
        },
        EventKind::StepStart {
            call_id: "c".into(),
            tool: "t".into(),
            args: json!({}),
        },
        EventKind::Step(ToolStep {
            call_id: "c".into(),
            tool: "t".into(),
            args: json!({"a": 1}),
            result: json!({"status": "success"}),
            image_ids: vec!["img-1".into()],
            duration_ms: 12,
            effect: Some("changed".into()),
        }),
        EventKind::Usage(Usage {
            prompt_tokens: 1,
            completion_tokens: 2,
            total_tokens: 3,
            calls: 1,
        }),
        EventKind::Confirm {
            call_id: "c".into(),
            tool: "t".into(),
            args: json!({}),
            reason: "r".into(),
        },
        EventKind::Confirmed {
            call_id: "c".into(),
            approve: true,
        },
        EventKind::TaskStepStart(deft_protocol::task_run::TaskStepStart {
            path: "steps[0]".into(),
            step_type: "click".into(),
            note: None,
        }),
        EventKind::TaskStep(deft_protocol::task_run::TaskStepResult {
            path: "steps[0]".into(),
            step_type: "click".into(),
            status: deft_protocol::task_run::StepStatus::Ok,
            duration_ms: 4,
            matched: Some(deft_protocol::task_run::MatchedControl {
                id: "7".into(),
                name: "Save".into(),
                kind: "button".into(),
                score: 82,
                value: None,
                tie: Some("2 controls score 82; index 0 in document order picks id 7".into()),
            }),
            healed_from: Some("\"Sav\" (exact)".into()),
            error: None,
            message: None,
            image_ids: Vec::new(),
        }),
        EventKind::TaskStepRetry(deft_protocol::task_run::TaskStepRetry {
            path: "steps[1]".into(),
            step_type: "click".into(),
            attempt: 1,
            attempts: 3,
            error: "no control matches \"Save\"".into(),
            delay_ms: 2000,
        }),
        EventKind::TaskRound(deft_protocol::task_run::TaskRound {
            path: "steps[2]".into(),
            round: 1,
            rounds: 2,
            values: [("row.Order".to_owned(), "1001".to_owned())].into(),
        }),
        EventKind::Memory(deft_protocol::memory::MemoryNote {
            kind: deft_protocol::memory::MemoryKind::Experience,
            outcome: deft_protocol::memory::MemoryOutcome::Recalled,
            items: vec![deft_protocol::memory::MemoryItem {
                id: Some("e1".into()),
                title: "Compute in the calculator".into(),
                score: Some(0.75),
                reason: None,
            }],
            note: "Recalled 1 similar experience into the prompt".into(),
        }),
        EventKind::Error {
            message: "m".into(),
        },
        EventKind::done("a", Usage::default(), DoneStatus::MaxSteps),
    ];
    let tags = [
        "delta",
        "step_start",
        "step",
        "usage",
        "confirm",
        "confirmed",
        "task_step_start",
        "task_step",
        "task_step_retry",
        "task_round",
        "memory",
        "error",
        "done",
    ];
    assert_eq!(
        events.len(),
        EventKind::NAMES.len(),
        "every event kind is here"
    );
    for (i, (kind, tag)) in events.into_iter().zip(tags).enumerate() {
        let ev = AgentEvent {
            seq: i as u64 + 1,
            kind,
        };
        let v = serde_json::to_value(&ev).unwrap();
        assert_eq!(v["type"], tag);
        assert_eq!(ev.kind.name(), tag);
        assert_eq!(EventKind::NAMES[i], tag);
        assert_eq!(v["seq"], i as u64 + 1);
        assert_eq!(serde_json::from_value::<AgentEvent>(v).unwrap(), ev);
    }
    let done = serde_json::to_value(EventKind::done(
        String::new(),
        Usage::default(),
        DoneStatus::MaxSteps,
    ))
    .unwrap();
    assert_eq!(done["status"], "max_steps");
    assert!(
        done.get("mode").is_none() && done.get("draft").is_none(),
        "a task run's done names no mode or draft: {done}"
    );
}

#[test]
fn exec_input_takes_one_batch_or_a_list() {
    let one = ExecInput::parse(
        r#"{"commands":[{"tool_name":"run_shell","parameters":{"command":"pwd"}}]}"#,
    )
    .unwrap()
    .into_batches();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].agent, "HostAgent");
    assert!(one[0].early_exit);
    let many = ExecInput::parse(
        r#"[{"agent":"AppAgent","root":"x","early_exit":false,"commands":[]},{"commands":[]}]"#,
    )
    .unwrap()
    .into_batches();
    assert_eq!(many.len(), 2);
    assert!(!many[0].early_exit);
    let err = ExecInput::parse(r#"{"comands":[]}"#).unwrap_err();
    assert!(err.contains("unknown field `comands`"), "{err}");
    let err = ExecInput::parse(r#"[{"commands":[]}, 3]"#).unwrap_err();
    assert!(err.starts_with("batch [1]"), "{err}");
    assert_eq!(
        ExecInput::parse("42").unwrap_err(),
        "expected a batch object or a list of batch objects"
    );
    assert!(
        ExecInput::parse("{")
            .unwrap_err()
            .starts_with("not valid JSON")
    );
}

#[test]
fn a_memory_event_is_flat_with_its_kind_outcome_items_and_note() {
    use deft_protocol::memory::{MemoryItem, MemoryKind, MemoryNote, MemoryOutcome};
    let ev = AgentEvent {
        seq: 1,
        kind: EventKind::Memory(MemoryNote {
            kind: MemoryKind::Action,
            outcome: MemoryOutcome::Dropped,
            items: vec![MemoryItem {
                id: None,
                title: "Tap at the corner".into(),
                score: None,
                reason: Some("click_xy steps are never kept".into()),
            }],
            note: "Dropped 1 action".into(),
        }),
    };
    let v = serde_json::to_value(&ev).unwrap();
    assert_eq!(
        v,
        json!({"seq": 1, "type": "memory", "kind": "action", "outcome": "dropped",
               "items": [{"title": "Tap at the corner", "reason": "click_xy steps are never kept"}],
               "note": "Dropped 1 action"})
    );
    assert_eq!(serde_json::from_value::<AgentEvent>(v).unwrap(), ev);
}

#[test]
fn a_matched_control_reads_as_stored_before_its_type_value_and_tie_were_kept() {
    use deft_protocol::task_run::MatchedControl;
    let old: MatchedControl =
        serde_json::from_value(json!({"id": "42", "name": "Multiply ×", "score": 86})).unwrap();
    assert_eq!(
        (old.kind.as_str(), old.value, old.tie),
        ("", None, None),
        "a step row of the store from before"
    );
    let display = MatchedControl {
        id: "31".into(),
        kind: "edit".into(),
        score: 100,
        value: Some("56".into()),
        ..MatchedControl::default()
    };
    let v = serde_json::to_value(&display).unwrap();
    assert_eq!(
        v,
        json!({"id": "31", "name": "", "type": "edit", "score": 100, "value": "56"})
    );
    assert_eq!(
        display.label(),
        "56",
        "no name: its value is what a person reads"
    );
}
