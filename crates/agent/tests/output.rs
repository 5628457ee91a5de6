//! Typed results end to end: a run with an output schema against the scripted model over real
//! HTTP/SSE — structured output or the schema in the prompt, the check of the final answer, the
//! one repair turn, the fallback of a provider that refuses `response_format`.

#![allow(clippy::unwrap_used)] // helpers: an unwrap that fails is a failing test

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use deft_agent::llm::{LlmClient, LlmConfig};
use deft_agent::{Agent, OutputSchema, RunOutcome, RunRequest, texts};
use deft_protocol::{DoneStatus, EventKind, OutputError, TypedResult};
use deft_test_support::model::{ModelOptions, Recorded, Reply, ScriptedModel};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn schema() -> OutputSchema {
    OutputSchema::new(json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "population": {"type": "integer"}},
        "required": ["city", "population"]
    }))
    .unwrap()
}

fn typed_agent(base_url: &str, s: &Setup, structured_output: bool) -> Agent {
    let mut llm = LlmConfig::new(base_url, "scripted-model", None);
    llm.backoff = Duration::from_millis(5);
    llm.structured_output = structured_output;
    Agent::new(
        Arc::new(LlmClient::new(llm).unwrap()),
        quiet_config(),
        s.devices.clone(),
    )
}

/// Runs "tell me" with the schema; returns the outcome and the `done` event's `output`.
async fn run_typed(agent: &Agent, s: &Setup) -> (RunOutcome, Option<TypedResult>) {
    let events = Arc::new(Collect::default());
    let request = RunRequest::new("tell me").with_output_schema(Some(schema()));
    let out = agent
        .run(&s.device, request, io(&events), CancellationToken::new())
        .await;
    let done = match events.events().last().map(|e| e.kind.clone()) {
        Some(EventKind::Done { output, .. }) => output,
        other => panic!("the last event is not done: {other:?}"),
    };
    assert_eq!(done, out.output, "done carries what the outcome says");
    (out, done)
}

fn schema_prompt() -> String {
    texts::output_schema_prompt(&schema().schema().to_string())
}

fn carries_schema_prompt(r: &Recorded) -> bool {
    r.messages().iter().any(|m| m["content"] == schema_prompt())
}

#[tokio::test]
async fn a_valid_first_answer_with_structured_output() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_call("noop", json!({})).into(),
        Reply::text(r#"{"city": "Lyon", "population": 522250}"#).into(),
    ])
    .await;
    let (out, output) = run_typed(&typed_agent(&model.base_url(), &s, true), &s).await;
    assert_eq!(out.status, DoneStatus::Completed);
    assert_eq!(
        output,
        Some(TypedResult::valid(
            json!({"city": "Lyon", "population": 522250})
        ))
    );
    let reqs = model.requests();
    assert_eq!(reqs.len(), 2, "no repair turn");
    for r in &reqs {
        assert_eq!(r.body["response_format"]["type"], "json_schema");
        assert_eq!(
            r.body["response_format"]["json_schema"]["schema"],
            *schema().schema()
        );
        assert_eq!(r.body["response_format"]["json_schema"]["name"], "answer");
        assert!(
            !carries_schema_prompt(r),
            "the schema goes once, as the format"
        );
    }
}

#[tokio::test]
async fn without_structured_output_the_schema_is_in_the_prompt() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::text("```json\n{\"city\": \"Lyon\", \"population\": 1}\n```").into(),
    ])
    .await;
    let (_, output) = run_typed(&typed_agent(&model.base_url(), &s, false), &s).await;
    assert_eq!(
        output,
        Some(TypedResult::valid(json!({"city": "Lyon", "population": 1}))),
        "a single fenced block is read"
    );
    let req = &model.requests()[0];
    assert!(req.body.get("response_format").is_none());
    let messages = req.messages();
    assert_eq!(messages[0]["role"], "system");
    let at = messages
        .iter()
        .position(|m| m["content"] == schema_prompt())
        .expect("the schema's system message");
    assert_eq!(messages[at]["role"], "system");
    assert!(
        messages[..at].iter().all(|m| m["role"] == "system"),
        "after the leading system messages, before the goal"
    );
    assert_eq!(messages.last().unwrap()["content"], "tell me");
}

#[tokio::test]
async fn an_invalid_answer_is_repaired_once_with_the_validator_s_errors() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::text(r#"{"city": 7}"#).into(),
        Reply::text(r#"{"city": "Lyon", "population": 522250}"#).into(),
    ])
    .await;
    let (out, output) = run_typed(&typed_agent(&model.base_url(), &s, true), &s).await;
    assert_eq!(out.status, DoneStatus::Completed);
    assert_eq!(
        output,
        Some(TypedResult::valid(json!({"city": "Lyon", "population": 522250})).with_repaired(true))
    );
    let reqs = model.requests();
    assert_eq!(reqs.len(), 2);
    let repair = reqs[1].messages();
    let n = repair.len();
    assert_eq!(repair[n - 2]["role"], "assistant");
    assert_eq!(repair[n - 2]["content"], r#"{"city": 7}"#);
    assert_eq!(repair[n - 1]["role"], "user");
    let expected = texts::output_repair(&[
        OutputError {
            path: String::new(),
            message: "\"population\" is a required property".to_owned(),
        },
        OutputError {
            path: "/city".to_owned(),
            message: "7 is not of type \"string\"".to_owned(),
        },
    ]);
    let mut got: Vec<&str> = repair[n - 1]["content"].as_str().unwrap().lines().collect();
    let mut want: Vec<&str> = expected.lines().collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(
        got, want,
        "the errors, in whatever order the validator finds them"
    );
    assert!(
        reqs[1].tool_names().is_empty(),
        "the repair turn offers no tools"
    );
    assert_eq!(reqs[1].body["response_format"]["type"], "json_schema");
}

#[tokio::test]
async fn still_invalid_after_the_repair_gives_the_errors_and_no_value() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::text(r#"{"city": "Lyon"}"#).into(),
        Reply::text(r#"{"city": "Lyon", "population": "many"}"#).into(),
        Reply::text("never asked").into(),
    ])
    .await;
    let (out, output) = run_typed(&typed_agent(&model.base_url(), &s, true), &s).await;
    assert_eq!(model.requests().len(), 2, "exactly one repair turn");
    assert_eq!(out.answer, r#"{"city": "Lyon", "population": "many"}"#);
    let output = output.unwrap();
    assert!(!output.valid && output.repaired);
    assert_eq!(output.value, None, "never an unchecked value");
    assert_eq!(output.raw.as_deref(), Some(out.answer.as_str()));
    assert_eq!(
        output.errors,
        vec![OutputError {
            path: "/population".to_owned(),
            message: "\"many\" is not of type \"integer\"".to_owned(),
        }]
    );
}

#[tokio::test]
async fn a_non_json_answer_is_not_json_after_its_repair_either() {
    let s = setup();
    let model = ScriptedModel::start(vec![
        Reply::text("Lyon has about half a million people.").into(),
        Reply::text("Sorry: Lyon, 522250.").into(),
    ])
    .await;
    let (_, output) = run_typed(&typed_agent(&model.base_url(), &s, true), &s).await;
    let repair = model.requests()[1].messages().last().unwrap().clone();
    assert!(
        repair["content"]
            .as_str()
            .unwrap()
            .starts_with("Your final answer is not valid against the required JSON Schema:\n- (the answer): the answer is not JSON ("),
        "{repair}"
    );
    let output = output.unwrap();
    assert!(!output.valid);
    assert_eq!(output.raw.as_deref(), Some("Sorry: Lyon, 522250."));
    assert_eq!(output.errors.len(), 1);
    assert!(
        output.errors[0]
            .message
            .starts_with("the answer is not JSON (")
    );
}

#[tokio::test]
async fn a_provider_that_refuses_response_format_gets_the_schema_in_the_prompt() {
    let s = setup();
    let model = ScriptedModel::start_with(
        vec![
            Reply::text(r#"{"city": "Lyon", "population": 1}"#).into(),
            Reply::text(r#"{"city": "Nice", "population": 2}"#).into(),
        ],
        ModelOptions {
            reject_params: vec!["response_format".into()],
            ..Default::default()
        },
    )
    .await;
    let (_, output) = run_typed(&typed_agent(&model.base_url(), &s, true), &s).await;
    assert!(output.unwrap().valid);
    // A later run of this process on the endpoint knows: no field, no rejection.
    let (_, again) = run_typed(&typed_agent(&model.base_url(), &s, true), &s).await;
    assert_eq!(
        again.and_then(|o| o.value),
        Some(json!({"city": "Nice", "population": 2}))
    );
    let reqs = model.requests();
    assert_eq!(
        reqs.len(),
        3,
        "one rejected, then two with the schema in the prompt"
    );
    assert!(reqs[0].body.get("response_format").is_some());
    assert!(!carries_schema_prompt(&reqs[0]));
    for r in &reqs[1..] {
        assert!(r.body.get("response_format").is_none());
        assert!(carries_schema_prompt(r));
        assert!(
            r.body.get("stream_options").is_some(),
            "only the format was to blame"
        );
    }
}

#[tokio::test]
async fn a_run_that_ends_without_an_answer_says_so_in_its_result() {
    let s = setup();
    let model = ScriptedModel::start(vec![Reply::status(401, "bad key").into()]).await;
    let (out, output) = run_typed(&typed_agent(&model.base_url(), &s, true), &s).await;
    assert_eq!(out.status, DoneStatus::Failed);
    let output = output.unwrap();
    assert!(!output.valid && !output.repaired);
    assert_eq!(output.errors[0].message, texts::no_final_answer("failed"));
}

#[tokio::test]
async fn a_run_without_a_schema_has_no_output() {
    let s = setup();
    let model = ScriptedModel::start(vec![Reply::text("plain").into()]).await;
    let out = s.run(&model.base_url(), quiet_config(), "hi").await;
    assert_eq!(out.output, None);
    let req = &model.requests()[0];
    assert!(req.body.get("response_format").is_none());
    assert!(!req.text().contains("JSON Schema"));
}
