//! Designer runs on the fixture device (scripted model over real HTTP/SSE, the real tool layer
//! and MCP server): what the model is sent (designer prompt, output cap, `submit_task`, no
//! history), and every kind of bad input — arguments that are not JSON, a task that is not,
//! unknown step types, a 2,000-step draft, the same bad draft again and again, a model that
//! never submits, the 41st tool call, a stop — each answered to the model or as `draft_error`,
//! never a draft.

#[path = "../../agent/tests/common/mod.rs"]
mod common;

use std::sync::Arc;

use common::*;
use deft_agent::{HistoryMessage, RunOutcome, RunRequest};
use deft_protocol::{DoneStatus, DraftOutcome, EventKind};
use deft_test_support::model::{Recorded, Reply, ScriptedModel, Turn};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn turn(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Turn {
    Box::new(f)
}

/// A designer run of `goal` on the fixture device.
async fn design(s: &Setup, model: &ScriptedModel, goal: &str) -> (RunOutcome, Arc<Collect>) {
    design_with(s, model, RunRequest::new(goal), CancellationToken::new()).await
}

async fn design_with(
    s: &Setup,
    model: &ScriptedModel,
    request: RunRequest,
    cancel: CancellationToken,
) -> (RunOutcome, Arc<Collect>) {
    let events = Arc::new(Collect::default());
    let request = request.with_profile(deft_designer::profile(&s.device));
    let out = agent(&model.base_url(), s.devices.clone(), quiet_config())
        .run(&s.device, request, io(&events), cancel)
        .await;
    (out, events)
}

fn submit(task: Value) -> Reply {
    Reply::tool_call("submit_task", json!({"task": task}))
}

fn draft_error(out: &RunOutcome) -> &str {
    match &out.draft {
        Some(DraftOutcome::Failed(why)) => why,
        other => panic!("expected no draft, got {other:?}"),
    }
}

/// The `done` event as JSON.
fn done(events: &Collect) -> Value {
    let last = events.events().pop().expect("events");
    assert!(matches!(last.kind, EventKind::Done { .. }));
    serde_json::to_value(&last).expect("JSON")
}

#[tokio::test]
async fn the_model_gets_the_designer_prompt_the_cap_and_submit_task_but_no_history() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        submit(json!({"name": "Wait a moment", "steps": [{"type": "wait", "seconds": 0.1}]}))
            .into(),
        Reply::text("never asked").into(),
    ])
    .await;
    let mut request = RunRequest::new("pause briefly every hour");
    request.history = vec![HistoryMessage {
        role: "user".into(),
        content: "an earlier chat message".into(),
    }];
    let (out, events) = design_with(&s, &model, request, CancellationToken::new()).await;
    assert_eq!(out.status, DoneStatus::Completed, "{}", out.answer);
    assert_eq!(
        out.answer,
        "Drafted the task \"Wait a moment\": 1 step, 0 warnings."
    );
    let req = &model.requests()[0];
    assert_eq!(req.body["max_tokens"], 8192);
    let m = req.messages();
    let roles: Vec<&str> = m.iter().map(|x| x["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user"], "no history");
    assert_eq!(m[1]["content"], "pause briefly every hour");
    let system = m[0]["content"].as_str().unwrap();
    assert!(
        system.starts_with("You are deft's task designer."),
        "{system}"
    );
    assert!(
        system.contains("at most 40 tool calls, submit_task included"),
        "{system}"
    );
    assert!(
        system.contains(
            "- click {selector, button?: left|right|middle, double?: bool} — Click a control."
        ),
        "the step language is in the prompt: {system}"
    );
    assert!(system.contains("\"device\": \"local\""), "{system}");
    assert!(
        system.contains("{{name}} in a text uses a variable"),
        "{system}"
    );
    assert!(req.tool_names().contains(&"submit_task".to_owned()));
    // The draft: the device filled in, defaults written out; done carries it.
    let d = done(&events);
    assert_eq!(d["mode"], "designer");
    assert_eq!(d["draft"]["device"], "local");
    assert_eq!(
        d["draft"]["steps"][0],
        json!({"type": "wait", "seconds": 0.1})
    );
    assert_eq!(d["warnings"], json!([]));
    assert!(d.get("draft_error").is_none());
}

#[tokio::test]
async fn bad_submissions_are_answered_with_what_is_wrong_and_where() {
    let s = setup();
    let many: Vec<Value> = (0..2000)
        .map(|_| json!({"type": "wait", "seconds": 0}))
        .collect();
    let model = ScriptedModel::start(vec![
        Reply::raw_tool_call("submit_task", "{\"task\": {\"name\": ").into(),
        Reply::tool_call(
            "submit_task",
            json!({"task": "{\"name\": \"x\", \"steps\": [}"}),
        )
        .into(),
        Reply::tool_call("submit_task", json!({"task": 42})).into(),
        Reply::tool_call("submit_task", json!({"draft": {}})).into(),
        submit(json!({"name": "typos", "steps": [
            {"type": "wiat", "seconds": 1},
            {"type": "click", "selectr": {"text": "OK"}}
        ]}))
        .into(),
        submit(json!({"name": "huge", "steps": many})).into(),
        Reply::text("I cannot do this.").into(),
    ])
    .await;
    let (out, events) = design(&s, &model, "do something").await;
    let outputs: Vec<String> = model
        .requests()
        .iter()
        .skip(1)
        .map(|r| r.last_tool_output().unwrap_or_default().to_owned())
        .collect();
    let expected: [&[&str]; 6] = [
        &["Error: the arguments of submit_task are not a valid JSON object"],
        &[
            "Error: The task was not accepted: 1 error.",
            "- the file is not valid JSON: line 1, column 25: expected value",
        ],
        &["submit_task's task must be the task file as a JSON object, not a number"],
        &["submit_task needs the task"],
        &[
            "- steps[0].type: unknown step type \"wiat\"; did you mean \"wait\"?",
            "- steps[1].selectr: click has no field \"selectr\"",
        ],
        &["the task has 2000 steps, nested ones counted; at most 500"],
    ];
    for (output, says) in outputs.iter().zip(expected) {
        for part in says {
            assert!(output.contains(part), "{part:?} not in:\n{output}");
        }
    }
    assert_eq!(out.status, DoneStatus::Completed);
    assert_eq!(
        draft_error(&out),
        "the model ended without submitting a task: \"I cannot do this.\" (5 submitted drafts were refused; the last one had 1 error)"
    );
    let d = done(&events);
    assert!(d.get("draft").is_none(), "{d}");
    assert_eq!(d["draft_error"], draft_error(&out));
}

#[tokio::test]
async fn a_model_that_never_submits_ends_without_a_draft() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_call("noop", json!({})).into(),
        Reply::text("").into(),
    ])
    .await;
    let (out, _) = design(&s, &model, "do something").await;
    assert_eq!(
        draft_error(&out),
        "the model ended without submitting a task, and without a word"
    );
}

#[tokio::test]
async fn the_same_bad_draft_three_times_ends_the_run() {
    let s = setup();
    let bad = || -> Turn { submit(json!({"name": "x", "steps": [{"type": "nope"}]})).into() };
    let model = ScriptedModel::start(vec![bad(), bad(), bad(), Reply::text("never").into()]).await;
    let (out, _) = design(&s, &model, "do something").await;
    assert_eq!(out.status, DoneStatus::Failed);
    assert_eq!(
        draft_error(&out),
        "the run failed before a valid task was submitted: The model called submit_task with the same arguments 3 times in a row and it failed each time; the run was stopped. (3 submitted drafts were refused; the last one had 1 error)"
    );
}

#[tokio::test]
async fn the_41st_tool_call_is_refused_and_the_run_ends_without_a_draft() {
    let s = setup();
    let mut turns: Vec<Turn> = (0..40)
        .map(|_| Reply::tool_call("noop", json!({})).into())
        .collect();
    turns.push(submit(json!({"name": "late", "steps": [{"type": "wait", "seconds": 0}]})).into());
    turns.push(Reply::text("never asked").into());
    let model = ScriptedModel::start(turns).await;
    let (out, events) = design(&s, &model, "explore a lot").await;
    assert_eq!(out.status, DoneStatus::MaxSteps);
    assert_eq!(out.tool_calls, 40);
    assert_eq!(
        model.turns_left(),
        1,
        "nothing asked after the refused call"
    );
    assert_eq!(
        events.kinds().iter().filter(|k| **k == "step").count(),
        40,
        "the 41st call never ran"
    );
    let refusal = deft_agent::texts::tool_call_limit(40);
    assert!(
        events
            .events()
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Error { message } if *message == refusal))
    );
    let last = model
        .requests()
        .last()
        .unwrap()
        .last_tool_output()
        .unwrap()
        .to_owned();
    assert!(last.ends_with("[0 tool calls left in this run.]"), "{last}");
    assert_eq!(
        draft_error(&out),
        "the exploration used its 40 tool calls without submitting a valid task"
    );
    assert_eq!(done(&events)["status"], "max_steps");
}

#[tokio::test]
async fn a_selector_never_seen_is_held_back_once_then_kept_with_a_warning() {
    let s = setup();
    let draft = json!({"name": "ghost", "steps": [
        {"type": "click", "selector": {"text": "Ghost", "type": "button"}}
    ]});
    let again = draft.clone();
    let model = ScriptedModel::start(vec![
        submit(draft).into(),
        turn(move |req| {
            let out = req.last_tool_output().unwrap_or_default();
            assert!(
                out.starts_with("Error: Not accepted yet: 1 selector of the task matched no control during your exploration")
                    && out.contains("- steps[0].selector: no control seen during the exploration matches button \"Ghost\" (checked against 0 answers"),
                "{out}"
            );
            submit(again.clone())
        }),
    ])
    .await;
    let (out, _) = design(&s, &model, "click the ghost").await;
    assert_eq!(out.status, DoneStatus::Completed, "{}", out.answer);
    match &out.draft {
        Some(DraftOutcome::Draft { warnings, .. }) => {
            assert_eq!(warnings.len(), 1, "{warnings:?}");
            assert_eq!(warnings[0].path, "steps[0].selector");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_stopped_run_ends_without_a_draft() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_call("sleep", json!({"ms": 30_000})).into(),
    ])
    .await;
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        stopper.cancel();
    });
    let (out, events) = design_with(&s, &model, RunRequest::new("wait"), cancel).await;
    assert_eq!(out.status, DoneStatus::Stopped);
    assert_eq!(
        draft_error(&out),
        "the run was stopped before a valid task was submitted"
    );
    assert_eq!(done(&events)["draft_error"], draft_error(&out));
}
