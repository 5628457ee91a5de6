//! The agent loop end to end: scripted model over real HTTP/SSE, real tool layer, real MCP server.

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use common::*;
use deft_agent::{AgentConfig, ConfirmPolicy, FixedApproval, HistoryMessage, RunRequest, texts};
use deft_protocol::{DoneStatus, EventKind};
use deft_test_support::model::{ModelOptions, Recorded, Reply, ScriptedModel, Turn};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn turn(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Turn {
    Box::new(f)
}

#[tokio::test]
async fn a_tool_call_then_an_answer() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_call("noop", json!({}))
            .with_reasoning("I should check.")
            .with_content("Let me look.")
            .into(),
        turn(|req| {
            Reply::text(&format!(
                "The tool said {}.",
                req.last_tool_output().unwrap_or("nothing")
            ))
        }),
    ])
    .await;
    let events = Arc::new(Collect::default());
    let out = agent(&model.base_url(), s.devices.clone(), quiet_config())
        .run(
            &s.device,
            RunRequest::new("check it"),
            io(&events),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, DoneStatus::Completed);
    assert_eq!(out.answer, "The tool said ok.");
    assert_eq!(out.usage.calls, 2);
    assert_eq!(out.usage.total_tokens, 240);
    let kinds = events.kinds();
    assert_eq!(kinds.last(), Some(&"done"));
    assert_eq!(kinds.iter().filter(|k| **k == "done").count(), 1);
    let first_step = kinds.iter().position(|k| *k == "step").unwrap();
    assert_eq!(kinds[first_step - 1], "step_start");
    let seqs: Vec<u64> = events.events().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    let reasoning: String = events
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Delta {
                text,
                kind: deft_protocol::event::DeltaKind::Reasoning,
            } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning, "I should check.");

    let reqs = model.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].authorization.as_deref(), Some("Bearer sk-test"));
    assert_eq!(reqs[0].body["stream"], true);
    assert_eq!(reqs[0].body["stream_options"]["include_usage"], true);
    let names = reqs[0].tool_names();
    for t in [
        "image",
        "pid",
        "noop",
        "sleep",
        "fail",
        "select_application_window",
        "list_devices",
    ] {
        assert!(names.contains(&t.to_owned()), "{t} missing from {names:?}");
    }
    assert!(
        !names.contains(&"echo".to_owned()),
        "app tools appear only after selection"
    );
    for tool in reqs[0].body["tools"].as_array().unwrap() {
        let p = &tool["function"]["parameters"];
        assert_eq!(p["type"], "object", "{tool}");
        assert!(p.get("$schema").is_none(), "{tool}");
    }
    let m = reqs[1].messages();
    assert_eq!(m[0]["role"], "system");
    assert_eq!(m[1], json!({"role": "user", "content": "check it"}));
    assert_eq!(m[2]["role"], "assistant");
    assert_eq!(m[2]["tool_calls"][0]["function"]["name"], "noop");
    assert_eq!(m[3]["role"], "tool");
    assert_eq!(m[3]["tool_call_id"], m[2]["tool_calls"][0]["id"]);
}

#[tokio::test]
async fn images_follow_the_tool_messages_and_only_two_stay() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_calls(vec![("image", json!({})), ("noop", json!({}))]).into(),
        Reply::tool_calls(vec![("image", json!({})), ("image", json!({}))]).into(),
        Reply::text("seen").into(),
    ])
    .await;
    let events = Arc::new(Collect::default());
    let out = agent(&model.base_url(), s.devices.clone(), quiet_config())
        .run(
            &s.device,
            RunRequest::new("look"),
            io(&events),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, DoneStatus::Completed);
    let reqs = model.requests();
    // After turn 1: assistant, tool, tool, then one user message with the image.
    let m = reqs[1].messages();
    let roles: Vec<&str> = m.iter().map(|x| x["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "tool", "user"]
    );
    assert_eq!(
        m[5]["content"][0]["text"],
        "The image returned by the tool call above:"
    );
    assert!(
        m[5]["content"][1]["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/jpeg;base64,")
    );
    // After turn 2: three images in all, only the newest two are images.
    let all_parts: Vec<Value> = reqs[2]
        .messages()
        .iter()
        .filter_map(|x| x["content"].as_array().cloned())
        .flatten()
        .collect();
    let images = all_parts
        .iter()
        .filter(|p| p["type"] == "image_url")
        .count();
    assert_eq!(images, 2);
    assert!(all_parts.iter().any(|p| p["text"] == texts::IMAGE_REMOVED));
    // Events carry image ids, never bytes.
    let steps: Vec<_> = events
        .events()
        .into_iter()
        .filter(|e| matches!(e.kind, EventKind::Step(_)))
        .collect();
    let text = serde_json::to_string(&steps).unwrap();
    assert!(!text.contains("base64"), "{text}");
    assert!(text.contains("\"image_ids\":[\"img-1\"]"), "{text}");
}

#[tokio::test]
async fn history_is_cut_to_twelve_rounds() {
    let s = setup();
    let model = ScriptedModel::start(vec![Reply::text("ok").into()]).await;
    let mut req = RunRequest::new("now");
    for i in 0..30 {
        req.history.push(HistoryMessage {
            role: if i % 2 == 0 { "user" } else { "assistant" }.into(),
            content: format!("m{i}"),
        });
    }
    req.extra_context.push("Experience: do it well.".into());
    agent(&model.base_url(), s.devices.clone(), quiet_config())
        .run(
            &s.device,
            req,
            io(&Arc::new(Collect::default())),
            CancellationToken::new(),
        )
        .await;
    let m = model.requests()[0].messages().to_vec();
    assert_eq!(m.len(), 1 + 1 + 24 + 1);
    assert_eq!(m[1]["content"], "Experience: do it well.");
    assert_eq!(m[2]["content"], "m6");
    assert_eq!(m[26]["content"], "now");
}

#[tokio::test]
async fn the_step_limit_asks_for_a_summary_without_tools() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_call("noop", json!({})).into(),
        Reply::tool_call("pid", json!({})).into(),
        Reply::text("I called noop and pid; nothing remains.").into(),
    ])
    .await;
    let events = Arc::new(Collect::default());
    let out = agent(
        &model.base_url(),
        s.devices.clone(),
        quiet_config().with_max_steps(2),
    )
    .run(
        &s.device,
        RunRequest::new("loop"),
        io(&events),
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, DoneStatus::MaxSteps);
    assert_eq!(out.answer, "I called noop and pid; nothing remains.");
    let last = &model.requests()[2];
    assert!(last.body.get("tools").is_none());
    assert_eq!(
        last.messages().last().unwrap()["content"],
        texts::STEP_LIMIT_SUMMARY
    );
}

#[tokio::test]
async fn stop_cancels_the_tool_in_flight_over_mcp() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_call("sleep", json!({"ms": 30_000})).into(),
    ])
    .await;
    let events = Arc::new(Collect::default());
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(400)).await;
        c.cancel();
    });
    let started = std::time::Instant::now();
    let out = agent(&model.base_url(), s.devices.clone(), quiet_config())
        .run(
            &s.device,
            RunRequest::new("wait a lot"),
            io(&events),
            cancel,
        )
        .await;
    assert_eq!(out.status, DoneStatus::Stopped);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    // The server saw the cancellation (a sleep that ran out would count as completed).
    let until = std::time::Instant::now() + Duration::from_secs(2);
    while s.state.cancelled.load(Ordering::SeqCst) == 0 && std::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(s.state.cancelled.load(Ordering::SeqCst), 1);
    assert_eq!(s.state.completed.load(Ordering::SeqCst), 0);
    assert_eq!(events.kinds().last(), Some(&"done"));
}

#[tokio::test]
async fn the_run_timeout_ends_the_run() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_call("sleep", json!({"ms": 20_000})).into(),
    ])
    .await;
    let config = AgentConfig {
        run_timeout: Duration::from_millis(500),
        ..quiet_config()
    };
    let out = s.run(&model.base_url(), config, "slow").await;
    assert_eq!(out.status, DoneStatus::Timeout);
    assert_eq!(out.answer, "the run timeout of 0.5 s passed");
}

#[tokio::test]
async fn bad_model_output_becomes_tool_messages() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::raw_tool_call("noop", "{not json").into(),
        Reply::raw_tool_call("noop", "[1, 2]").into(),
        Reply::tool_call("click_everything", json!({})).into(),
        Reply::text("giving up").with_malformed(2).into(),
    ])
    .await;
    let out = s.run(&model.base_url(), quiet_config(), "try").await;
    assert_eq!(out.status, DoneStatus::Completed);
    assert_eq!(out.answer, "giving up");
    let reqs = model.requests();
    let t1 = reqs[1].last_tool_output().unwrap();
    assert!(
        t1.starts_with(
            "Error: the arguments of noop are not a valid JSON object (key must be a string"
        ),
        "{t1}"
    );
    assert_eq!(
        reqs[2].last_tool_output().unwrap(),
        texts::invalid_arguments("noop", "expected an object, got an array")
    );
    let t3 = reqs[3].last_tool_output().unwrap();
    assert!(t3.starts_with("Error: there is no tool named 'click_everything'. Available tools: fail, image, list_devices, noop"), "{t3}");
}

#[tokio::test]
async fn the_same_failing_call_three_times_ends_the_run() {
    let s = setup();
    let fail = || -> Turn { Reply::tool_call("fail", json!({"message": "disabled"})).into() };
    let model =
        ScriptedModel::start(vec![fail(), fail(), fail(), Reply::text("never").into()]).await;
    let events = Arc::new(Collect::default());
    let out = agent(&model.base_url(), s.devices.clone(), quiet_config())
        .run(
            &s.device,
            RunRequest::new("push"),
            io(&events),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, DoneStatus::Failed);
    assert_eq!(out.answer, texts::repeated_failure("fail", 3));
    assert_eq!(model.turns_left(), 1);
    assert!(events.kinds().contains(&"error"));
}

#[tokio::test]
async fn calls_after_a_failure_in_one_turn_are_skipped() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_calls(vec![
            ("fail", json!({"message": "no"})),
            ("noop", json!({})),
        ])
        .into(),
        Reply::text("done").into(),
    ])
    .await;
    s.run(&model.base_url(), quiet_config(), "x").await;
    let m = model.requests()[1].messages().to_vec();
    assert_eq!(m[3]["content"], "Error: no");
    assert_eq!(m[4]["content"], texts::SKIPPED_AFTER_FAILURE);
}

#[tokio::test]
async fn approval_granted_runs_and_denied_does_not() {
    for approve in [true, false] {
        let s = setup();
        let model = ScriptedModel::start(vec![
            Reply::tool_call("noop", json!({})).into(),
            Reply::text("end").into(),
        ])
        .await;
        let events = Arc::new(Collect::default());
        let mut run_io = io(&events);
        if approve {
            run_io.approver = Arc::new(FixedApproval(true));
        }
        let config = AgentConfig {
            confirm: ConfirmPolicy {
                tools: vec!["noop".into()],
                ..ConfirmPolicy::default()
            },
            ..AgentConfig::default()
        };
        agent(&model.base_url(), s.devices.clone(), config)
            .run(
                &s.device,
                RunRequest::new("x"),
                run_io,
                CancellationToken::new(),
            )
            .await;
        let evs = events.events();
        let confirmed = evs.iter().find_map(|e| match &e.kind {
            EventKind::Confirmed { approve, .. } => Some(*approve),
            _ => None,
        });
        assert_eq!(confirmed, Some(approve));
        assert!(evs.iter().any(|e| matches!(&e.kind, EventKind::Confirm { reason, .. } if reason == "noop needs approval on this device")));
        let ran = evs.iter().any(|e| matches!(e.kind, EventKind::Step(_)));
        assert_eq!(ran, approve);
        let out = model.requests()[1].last_tool_output().unwrap().to_owned();
        assert_eq!(out == texts::denied("noop"), !approve, "{out}");
    }
}

#[tokio::test]
async fn a_gateway_that_rejects_stream_options_still_works() {
    let s = setup();
    let model = ScriptedModel::start_with(
        vec![
            Reply::tool_call("noop", json!({})).into(),
            Reply::text("fine").into(),
        ],
        ModelOptions {
            reject_stream_options: true,
            ..Default::default()
        },
    )
    .await;
    let out = s.run(&model.base_url(), quiet_config(), "x").await;
    assert_eq!(out.status, DoneStatus::Completed);
    assert_eq!(out.usage.calls, 2);
    assert_eq!(out.usage.total_tokens, 0);
    let reqs = model.requests();
    assert_eq!(
        reqs.len(),
        3,
        "one rejected request, then two without stream_options"
    );
    assert!(reqs[1].body.get("stream_options").is_none());
    assert!(
        reqs[2].body.get("stream_options").is_none(),
        "the fallback is remembered"
    );
}

#[tokio::test]
async fn model_server_errors_people_can_act_on() {
    let s = setup();
    // 401
    let model = ScriptedModel::start_with(
        vec![],
        ModelOptions {
            api_key: Some("right".into()),
            ..Default::default()
        },
    )
    .await;
    let out = s.run(&model.base_url(), quiet_config(), "x").await;
    assert_eq!(out.status, DoneStatus::Failed);
    assert!(
        out.answer
            .starts_with("the API key is invalid or expired (HTTP 401 from http://127.0.0.1:"),
        "{}",
        out.answer
    );
    // 429 with Retry-After, then success.
    let model = ScriptedModel::start(vec![
        Reply::status(429, "slow down").with_retry_after(0).into(),
        Reply::text("ok").into(),
    ])
    .await;
    let out = s.run(&model.base_url(), quiet_config(), "x").await;
    assert_eq!(out.status, DoneStatus::Completed);
    // 500 every time: gives up after the retries.
    let model =
        ScriptedModel::start((0..4).map(|_| Reply::status(500, "boom").into()).collect()).await;
    let out = s.run(&model.base_url(), quiet_config(), "x").await;
    assert!(
        out.answer
            .contains("kept failing (HTTP 500) after 4 attempts: boom"),
        "{}",
        out.answer
    );
    // Unknown model.
    let model = ScriptedModel::start(vec![
        Reply::status(404, "The model `scripted-model` does not exist").into(),
    ])
    .await;
    let out = s.run(&model.base_url(), quiet_config(), "x").await;
    assert!(
        out.answer
            .starts_with("the model 'scripted-model' is not available at http://"),
        "{}",
        out.answer
    );
    // Unreachable endpoint names the URL.
    let port = deft_test_support::net::free_port();
    let out = s
        .run(&format!("http://127.0.0.1:{port}/v1"), quiet_config(), "x")
        .await;
    assert!(
        out.answer.starts_with(&format!(
            "cannot reach the model server at http://127.0.0.1:{port}/v1/chat/completions"
        )),
        "{}",
        out.answer
    );
}

#[tokio::test]
async fn selecting_a_window_hands_off_to_the_app_tools() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_call(
            "select_application_window",
            json!({"id": "3", "name": "calc"}),
        )
        .into(),
        turn(|req| {
            assert!(
                req.tool_names().contains(&"echo".to_owned()),
                "{:?}",
                req.tool_names()
            );
            Reply::tool_call("echo", json!({"text": "on the app"}))
        }),
        turn(|req| Reply::text(req.last_tool_output().unwrap_or(""))),
    ])
    .await;
    let events = Arc::new(Collect::default());
    let out = agent(&model.base_url(), s.devices.clone(), quiet_config())
        .run(
            &s.device,
            RunRequest::new("use the app"),
            io(&events),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, DoneStatus::Completed, "{}", out.answer);
    assert_eq!(out.answer, r#"{"text":"on the app"}"#);
    let echo_ns = events.events().iter().find_map(|e| match &e.kind {
        EventKind::Step(step) if step.tool == "echo" => {
            step.result["namespace"].as_str().map(str::to_owned)
        }
        _ => None,
    });
    assert_eq!(echo_ns.as_deref(), Some("app"));
}

#[tokio::test]
async fn list_devices_is_answered_by_the_platform() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_call("list_devices", json!({})).into(),
        turn(|req| Reply::text(req.last_tool_output().unwrap_or(""))),
    ])
    .await;
    let out = s
        .run(&model.base_url(), quiet_config(), "which devices?")
        .await;
    assert_eq!(
        out.answer,
        r#"[{"busy":false,"id":"local","profile":"test"}]"#
    );
}

#[tokio::test]
async fn a_stream_that_stalls_past_the_read_timeout_fails_with_a_clear_error() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::text("too slow")
            .with_delay(Duration::from_millis(800))
            .into(),
    ])
    .await;
    let mut llm = deft_agent::llm::LlmConfig::new(&model.base_url(), "scripted-model", None);
    llm.read_timeout = Duration::from_millis(200);
    llm.max_retries = 0;
    let agent = deft_agent::Agent::new(
        Arc::new(deft_agent::llm::LlmClient::new(llm).unwrap()),
        quiet_config(),
        s.devices.clone(),
    );
    let out = agent
        .run(
            &s.device,
            RunRequest::new("x"),
            io(&Arc::new(Collect::default())),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, DoneStatus::Failed);
    assert!(
        out.answer
            .starts_with("the model server at http://127.0.0.1:"),
        "{}",
        out.answer
    );
    assert!(
        out.answer.contains("stopped streaming") || out.answer.contains("timed out"),
        "{}",
        out.answer
    );
}

#[tokio::test]
async fn slow_streaming_within_the_read_timeout_arrives_whole() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::text("slow but steady")
            .with_delay(Duration::from_millis(30))
            .into(),
    ])
    .await;
    let events = Arc::new(Collect::default());
    let out = agent(&model.base_url(), s.devices.clone(), quiet_config())
        .run(
            &s.device,
            RunRequest::new("x"),
            io(&events),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(out.answer, "slow but steady");
    let deltas = events.kinds().iter().filter(|k| **k == "delta").count();
    assert!(deltas >= 3, "the answer streams in pieces: {deltas}");
}
