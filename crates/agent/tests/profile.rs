//! Run profiles end to end (scripted model over real HTTP/SSE, the real tool layer and MCP
//! server): the output cap in the request and its fallback when an endpoint rejects its name,
//! history left out, the tool-call limit, a profile's own prompt, and a platform tool whose
//! answer ends the run with what the profile's extension makes of it.

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use deft_agent::{
    CallRecord, HistoryMessage, PlatformAnswer, PlatformCall, PlatformTool, Preparation,
    PromptTemplate, RunExtension, RunProfile, RunRequest, Starting, texts,
};
use deft_protocol::{CommandResult, DoneStatus, DraftIssue, DraftOutcome, EventKind, RunMode};
use deft_test_support::model::{ModelOptions, Reply, ScriptedModel};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// A profile like designer mode's, with a small tool-call limit.
fn capped(limit: u32) -> RunProfile {
    RunProfile {
        mode: RunMode::Designer,
        max_output_tokens: Some(8192),
        max_tool_calls: Some(limit),
        max_model_calls: Some(limit + 1),
        history: false,
        summary_at_limit: false,
        ..RunProfile::chat()
    }
}

async fn run_with(
    s: &Setup,
    model: &ScriptedModel,
    request: RunRequest,
) -> (deft_agent::RunOutcome, Arc<Collect>) {
    let events = Arc::new(Collect::default());
    let out = agent(&model.base_url(), s.devices.clone(), quiet_config())
        .run(&s.device, request, io(&events), CancellationToken::new())
        .await;
    (out, events)
}

#[tokio::test]
async fn the_output_cap_is_in_every_request_and_chat_sends_none() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_call("noop", json!({})).into(),
        Reply::text("done").into(),
        Reply::text("chat answer").into(),
    ])
    .await;
    let (out, _) = run_with(&s, &model, RunRequest::new("go").with_profile(capped(40))).await;
    assert_eq!(out.status, DoneStatus::Completed);
    let (chat, _) = run_with(&s, &model, RunRequest::new("hi")).await;
    assert_eq!(chat.answer, "chat answer");
    let reqs = model.requests();
    for r in &reqs[..2] {
        assert_eq!(r.body["max_tokens"], 8192, "{}", r.body);
        assert!(r.body.get("max_completion_tokens").is_none());
    }
    assert!(reqs[2].body.get("max_tokens").is_none(), "chat has no cap");
}

#[tokio::test]
async fn an_endpoint_that_rejects_max_tokens_gets_max_completion_tokens() {
    let s = setup();
    let model = ScriptedModel::start_with(
        vec![
            Reply::tool_call("noop", json!({})).into(),
            Reply::text("done").into(),
        ],
        ModelOptions {
            reject_params: vec!["max_tokens".into()],
            ..Default::default()
        },
    )
    .await;
    let (out, _) = run_with(&s, &model, RunRequest::new("go").with_profile(capped(40))).await;
    assert_eq!(out.status, DoneStatus::Completed, "{}", out.answer);
    assert_eq!(out.usage.calls, 2);
    let reqs = model.requests();
    assert_eq!(reqs.len(), 3, "one rejected request, then two accepted");
    assert_eq!(reqs[0].body["max_tokens"], 8192);
    for r in &reqs[1..] {
        assert!(r.body.get("max_tokens").is_none(), "{}", r.body);
        assert_eq!(r.body["max_completion_tokens"], 8192);
        assert_eq!(
            r.body["stream_options"]["include_usage"], true,
            "usage is still asked for: the rejection named the cap"
        );
    }
}

#[tokio::test]
async fn an_endpoint_that_rejects_the_other_name_keeps_max_tokens() {
    let s = setup();
    let model = ScriptedModel::start_with(
        vec![Reply::text("done").into()],
        ModelOptions {
            reject_params: vec!["max_completion_tokens".into()],
            reject_stream_options: true,
            ..Default::default()
        },
    )
    .await;
    let (out, _) = run_with(&s, &model, RunRequest::new("go").with_profile(capped(40))).await;
    assert_eq!(out.status, DoneStatus::Completed, "{}", out.answer);
    let reqs = model.requests();
    assert_eq!(reqs.len(), 2, "stream_options dropped, the cap kept");
    assert_eq!(reqs[1].body["max_tokens"], 8192);
    assert!(reqs[1].body.get("stream_options").is_none());
}

#[tokio::test]
async fn history_is_not_sent_when_the_profile_says_so() {
    let s = setup();
    let model = ScriptedModel::start(vec![Reply::text("ok").into()]).await;
    let mut req = RunRequest::new("design it").with_profile(capped(40));
    req.history = vec![
        HistoryMessage {
            role: "user".into(),
            content: "an earlier question".into(),
        },
        HistoryMessage {
            role: "assistant".into(),
            content: "an earlier answer".into(),
        },
    ];
    run_with(&s, &model, req).await;
    let m = model.requests()[0].messages().to_vec();
    let roles: Vec<&str> = m.iter().map(|x| x["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user"], "{m:?}");
    assert_eq!(m[1]["content"], "design it");
    let text = serde_json::to_string(&m).unwrap();
    assert!(!text.contains("earlier"), "{text}");
}

#[tokio::test]
async fn the_call_past_the_tool_limit_is_refused_and_ends_the_run() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_call("noop", json!({})).into(),
        Reply::tool_calls(vec![("noop", json!({})), ("pid", json!({}))]).into(),
        Reply::tool_call("noop", json!({})).into(),
        Reply::text("never asked").into(),
    ])
    .await;
    let (out, events) = run_with(&s, &model, RunRequest::new("go").with_profile(capped(3))).await;
    assert_eq!(out.status, DoneStatus::MaxSteps);
    assert_eq!(out.answer, texts::tool_call_limit(3));
    assert_eq!(out.tool_calls, 3);
    assert_eq!(model.turns_left(), 1, "no model call after the refusal");
    let steps = events.kinds().iter().filter(|k| **k == "step").count();
    assert_eq!(steps, 3, "the refused call never ran");
    assert!(events.events().iter().any(
        |e| matches!(&e.kind, EventKind::Error { message } if *message == texts::tool_call_limit(3))
    ));
    // Every tool message said how many calls were left.
    let reqs = model.requests();
    assert!(
        reqs[1]
            .last_tool_output()
            .unwrap()
            .ends_with("[2 tool calls left in this run.]"),
        "{:?}",
        reqs[1].last_tool_output()
    );
    assert!(
        reqs[2]
            .last_tool_output()
            .unwrap()
            .ends_with("[0 tool calls left in this run.]")
    );
    match &events.events().last().unwrap().kind {
        EventKind::Done {
            status,
            mode,
            draft_error,
            ..
        } => {
            assert_eq!(*status, DoneStatus::MaxSteps);
            assert_eq!(*mode, Some(RunMode::Designer));
            assert_eq!(
                *draft_error, None,
                "no extension: nothing to say about a draft"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// An extension that offers [`FinishNow`], remembers the steps it saw and says what `done`
/// carries.
#[derive(Default)]
struct Finisher {
    seen: Mutex<Vec<String>>,
    tool: Arc<FinishNow>,
}

/// A platform tool that ends the run on `{"ok": true}` and fails otherwise.
#[derive(Default)]
struct FinishNow;

impl PlatformTool for FinishNow {
    fn name(&self) -> &str {
        "finish_now"
    }
    fn description(&self) -> &str {
        "Ends the run."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}})
    }
    fn call<'a>(&'a self, call: PlatformCall<'a>) -> BoxFuture<'a, PlatformAnswer> {
        let ok = call.args.get("ok") == Some(&Value::Bool(true));
        let answer = if ok {
            PlatformAnswer {
                result: CommandResult::success(call.call_id, json!("accepted"), Some("platform")),
                finish: Some(format!("finished on {}", call.device.id)),
            }
        } else {
            PlatformAnswer::result(CommandResult::failure(
                call.call_id,
                "not ok yet",
                Some("platform"),
            ))
        };
        Box::pin(async move { answer })
    }
}

impl RunExtension for Finisher {
    fn start<'a>(&'a self, _: Starting<'a>) -> BoxFuture<'a, Preparation> {
        let tools: Vec<Arc<dyn PlatformTool>> = vec![self.tool.clone()];
        Box::pin(async move {
            Preparation {
                tools,
                ..Default::default()
            }
        })
    }
    fn called(&self, call: &CallRecord<'_>) {
        self.seen
            .lock()
            .expect("not poisoned")
            .push(call.step.tool.clone());
    }
    fn finish(&self, status: DoneStatus, answer: &str) -> Option<DraftOutcome> {
        Some(if status == DoneStatus::Completed {
            DraftOutcome::Draft {
                task: json!({"answer": answer}),
                warnings: vec![DraftIssue::new("steps[0]", "check it")],
            }
        } else {
            DraftOutcome::Failed(format!("ended {status}"))
        })
    }
}

#[tokio::test]
async fn a_platform_tool_can_end_the_run_and_an_extension_shapes_done() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_call("finish_now", json!({"ok": false})).into(),
        Reply::tool_calls(vec![
            ("noop", json!({})),
            ("finish_now", json!({"ok": true})),
            ("noop", json!({})),
        ])
        .into(),
        Reply::text("never asked").into(),
    ])
    .await;
    let finisher = Arc::new(Finisher::default());
    let profile = RunProfile {
        prompt: PromptTemplate {
            name: "test",
            source:
                "Test prompt on {{ device }} with {{ extra }}; tools: {{ tools | join(\", \") }}"
                    .into(),
            vars: [("extra".to_owned(), json!("a variable"))]
                .into_iter()
                .collect(),
        },
        extensions: vec![finisher.clone()],
        ..capped(40)
    };
    let (out, events) = run_with(&s, &model, RunRequest::new("go").with_profile(profile)).await;
    assert_eq!(out.status, DoneStatus::Completed);
    assert_eq!(out.answer, "finished on local");
    assert_eq!(model.turns_left(), 1);
    assert_eq!(
        *finisher.seen.lock().unwrap(),
        ["finish_now", "noop", "finish_now"]
    );
    let req = &model.requests()[0];
    let system = req.messages()[0]["content"].as_str().unwrap();
    assert!(
        system.starts_with("Test prompt on local with a variable; tools: ")
            && system.contains("finish_now")
            && system.contains("list_devices"),
        "{system}"
    );
    assert!(req.tool_names().contains(&"finish_now".to_owned()));
    assert_eq!(
        model.requests()[1].last_tool_output(),
        Some("Error: not ok yet")
    );
    let done = serde_json::to_value(events.events().last().unwrap()).unwrap();
    assert_eq!(done["type"], "done");
    assert_eq!(done["mode"], "designer");
    assert_eq!(done["draft"], json!({"answer": "finished on local"}));
    assert_eq!(
        done["warnings"],
        json!([{"path": "steps[0]", "message": "check it"}])
    );
    assert!(done.get("draft_error").is_none());
    assert_eq!(
        out.draft.as_ref().and_then(|d| d.task()),
        Some(&json!({"answer": "finished on local"}))
    );
}

#[tokio::test]
async fn a_chat_run_says_its_mode_and_carries_no_draft() {
    let s = setup();
    let model = ScriptedModel::start(vec![Reply::text("hello").into()]).await;
    let (out, events) = run_with(&s, &model, RunRequest::new("hi")).await;
    assert_eq!(out.mode, RunMode::Chat);
    assert_eq!(out.draft, None);
    let done = serde_json::to_value(events.events().last().unwrap()).unwrap();
    assert_eq!(done["mode"], "chat");
    assert!(done.get("draft").is_none() && done.get("draft_error").is_none());
}
