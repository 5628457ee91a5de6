//! The action library's rules and `run_action`: each of the sixteen library types is admitted,
//! click_xy and the other task-only types are refused at their path; a stored action runs
//! through the task runner on a real (fixture) device — a completed run reports each step, a
//! failing step is named with its error — and bad calls (no name, an unknown action or variable)
//! answer with a text the model can act on, running nothing.

#![allow(clippy::unwrap_used)] // test code: an unwrap that fails is a failing test

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use deft_agent::{PlatformCall, PlatformTool};
use deft_memory::action::run::RunActionTool;
use deft_memory::check_submission;
use deft_protocol::{NullImages, ResultStatus};
use deft_store::NewAction;
use serde_json::{Map, Value, json};

const LIBRARY: [(&str, &str); 16] = [
    ("open_app", r#"{"type": "open_app", "app": "mousepad"}"#),
    ("stop_app", r#"{"type": "stop_app", "app": "mousepad"}"#),
    ("screen_on", r#"{"type": "screen_on"}"#),
    ("screen_off", r#"{"type": "screen_off"}"#),
    ("key_event", r#"{"type": "key_event", "keys": "^s"}"#),
    ("swipe", r#"{"type": "swipe", "direction": "up"}"#),
    (
        "swipe_until",
        r#"{"type": "swipe_until", "selector": {"text": "Item 9"}, "direction": "up"}"#,
    ),
    (
        "click",
        r#"{"type": "click", "selector": {"text": "OK", "type": "button"}}"#,
    ),
    (
        "long_click",
        r#"{"type": "long_click", "selector": {"text": "Photo"}}"#,
    ),
    (
        "wait_el",
        r#"{"type": "wait_el", "selector": {"text": "Saved"}}"#,
    ),
    (
        "input_text",
        r#"{"type": "input_text", "selector": {"type": "edit"}, "text": "hi"}"#,
    ),
    ("clipboard", r#"{"type": "clipboard", "set": "ORD-1"}"#),
    ("wait", r#"{"type": "wait", "seconds": 1}"#),
    (
        "loop",
        r#"{"type": "loop", "times": 2, "steps": [{"type": "wait", "seconds": 0.1}]}"#,
    ),
    (
        "group",
        r#"{"type": "group", "name": "g", "steps": [{"type": "wait", "seconds": 0.1}]}"#,
    ),
    (
        "if_el",
        r#"{"type": "if_el", "selector": {"text": "OK"}, "then": [{"type": "wait", "seconds": 0.1}]}"#,
    ),
];

const TASK_ONLY: [(&str, &str); 6] = [
    ("click_xy", r#"{"type": "click_xy", "x": 0.5, "y": 0.5}"#),
    (
        "gesture",
        r#"{"type": "gesture", "points": [{"x": 0.1, "y": 0.1}, {"x": 0.9, "y": 0.9}]}"#,
    ),
    ("keep_screen", r#"{"type": "keep_screen", "on": true}"#),
    ("notify", r#"{"type": "notify", "message": "hi"}"#),
    ("stop_self", r#"{"type": "stop_self"}"#),
    ("mark_done", r#"{"type": "mark_done"}"#),
];

fn submission(step: &str) -> Value {
    let step: Value = serde_json::from_str(step).unwrap();
    json!({"name": "One step", "steps": [step]})
}

#[test]
fn each_of_the_sixteen_library_types_is_admitted() {
    for (kind, step) in LIBRARY {
        let checked =
            check_submission(&submission(step)).unwrap_or_else(|r| panic!("{kind} refused: {r}"));
        assert_eq!(checked.action.steps[0]["type"], kind);
    }
}

#[test]
fn click_xy_and_the_task_only_types_are_refused_at_their_path() {
    for (kind, step) in TASK_ONLY {
        let report = check_submission(&submission(step)).unwrap_err();
        let at = report
            .errors
            .iter()
            .find(|e| e.path == "steps[0].type")
            .unwrap_or_else(|| panic!("{kind}: {report}"));
        assert!(
            at.message
                .starts_with(&format!("{kind} is not allowed in the action library")),
            "{kind}: {}",
            at.message
        );
    }
    let nested = json!({"name": "n", "steps": [{"type": "group", "name": "g",
        "steps": [{"type": "click_xy", "x": 0.1, "y": 0.1}]}]});
    let report = check_submission(&nested).unwrap_err();
    assert_eq!(report.errors[0].path, "steps[0].steps[0].type");
    let coords =
        json!({"name": "n", "steps": [{"type": "click", "selector": {"text": "A"}, "x": 3}]});
    let report = check_submission(&coords).unwrap_err();
    assert_eq!(report.errors[0].path, "steps[0].x");
    assert!(report.errors[0].message.contains("admits no coordinates"));
}

async fn store_action(w: &common::World, name: &str, steps: Value, variables: &[(&str, &str)]) {
    w.store
        .create_action(&NewAction {
            name: name.into(),
            aliases: vec![format!("{name} alias")],
            description: String::new(),
            app: None,
            variables: variables
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect::<BTreeMap<_, _>>(),
            steps,
            source_run: None,
        })
        .await
        .unwrap();
}

async fn call(w: &common::World, args: Value) -> deft_protocol::CommandResult {
    let tool = RunActionTool::new(w.memory.clone(), vec!["Pause".into()]);
    let args: Map<String, Value> = args.as_object().unwrap().clone();
    tool.call(PlatformCall {
        call_id: "c1",
        args: &args,
        device: &w.device,
        images: Arc::new(NullImages::default()),
        cancel: &Default::default(),
    })
    .await
    .result
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_action_plays_the_steps_through_the_runner_and_names_what_failed() {
    let w = common::world().await;
    store_action(
        &w,
        "Pause",
        json!([{"type": "wait", "seconds": 0.01}, {"type": "wait", "seconds": 0.01}]),
        &[],
    )
    .await;
    store_action(
        &w,
        "Press OK",
        json!([{"type": "wait", "seconds": 0.01}, {"type": "click", "selector": {"text": "{{label}}"}}]),
        &[("label", "OK")],
    )
    .await;

    let ok = call(&w, json!({"name": "pause alias"})).await;
    assert_eq!(ok.status, ResultStatus::Success, "{ok:?}");
    let text = ok.result.as_str().unwrap();
    assert!(
        text.starts_with("Action \"Pause\" completed: 2 step(s) ok."),
        "{text}"
    );
    assert!(
        text.contains("\nsteps[0] wait: ok\nsteps[1] wait: ok\n"),
        "{text}"
    );
    assert_eq!(
        w.store.action_by_name("Pause").await.unwrap().unwrap().hits,
        1,
        "a run counts"
    );

    let failed = call(
        &w,
        json!({"name": "Press OK", "variables": {"label": "Apply"}}),
    )
    .await;
    assert_eq!(failed.status, ResultStatus::Failure);
    let error = failed.error.unwrap();
    assert!(
        error.starts_with("Action \"Press OK\" did not complete: 1 step(s) ok, 1 failed."),
        "{error}"
    );
    assert!(error.contains("\nsteps[1] click: failed: "), "{error}");
    assert!(
        error.ends_with(deft_memory::texts::ACTION_FAILED_HINT),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_calls_run_nothing_and_say_what_to_do() {
    let w = common::world().await;
    store_action(&w, "Pause", json!([{"type": "wait", "seconds": 0.01}]), &[]).await;
    let cases = [
        (json!({}), "run_action needs \"name\""),
        (
            json!({"name": "Dance"}),
            "There is no action named \"Dance\". Actions offered in this run: Pause.",
        ),
        (
            json!({"name": "Pause", "variables": {"speed": "2"}}),
            "The action \"Pause\" has no variables; leave out \"speed\".",
        ),
    ];
    for (args, want) in cases {
        let r = call(&w, args.clone()).await;
        assert_eq!(r.status, ResultStatus::Failure, "{args}");
        assert!(
            r.error.as_deref().unwrap().starts_with(want),
            "{args}: {:?}",
            r.error
        );
    }
    assert_eq!(
        w.store.action_by_name("Pause").await.unwrap().unwrap().hits,
        0,
        "nothing ran"
    );
}
