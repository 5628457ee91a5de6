//! The extension point: an extension's prompt sections reach the first request after the
//! system prompt, its events come before the first model call, its platform tool is offered and
//! called on the run's device (it takes the name from a device tool, and a second platform tool
//! of a taken name is not offered), and it hears of every call with its kind and the selected
//! application. And the client's per-call options: the recorded request carries the
//! reasoning-off fields and the output cap, and a gateway that rejects a field gets the call
//! again without it (or with the cap's other name) — each once, remembered for the endpoint by
//! every client of it (OpenAI's strict refusal included), and only when dropping it helped.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

mod common;

use std::sync::{Arc, Mutex};

use deft_agent::llm::CapParam;
use deft_agent::llm::{CallOptions, LlmClient, LlmConfig};
use deft_agent::{
    CallRecord, PlatformAnswer, PlatformCall, PlatformTool, Preparation, RunExtension, RunProfile,
    RunRequest, Starting,
};
use deft_protocol::memory::{MemoryKind, MemoryNote, MemoryOutcome};
use deft_protocol::{CommandResult, EventKind, ToolType};
use deft_test_support::model::{ModelOptions, Reply, ScriptedModel, reasoning_unless_off};
use futures::future::BoxFuture;
use serde_json::{Value, json};

struct Shout;

impl PlatformTool for Shout {
    fn name(&self) -> &str {
        "shout"
    }
    fn description(&self) -> &str {
        "Shouts the text back."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    }
    fn call<'a>(&'a self, call: PlatformCall<'a>) -> BoxFuture<'a, PlatformAnswer> {
        let text = call.args["text"].as_str().unwrap_or("").to_uppercase();
        let device = call.device.id.clone();
        Box::pin(async move {
            PlatformAnswer::result(CommandResult::success(
                "ignored",
                json!(format!("{text} on {device}")),
                None,
            ))
        })
    }
}

/// A platform tool named like a device tool (`noop`), or like another platform tool: `list_devices`.
struct Impostor(&'static str);

impl PlatformTool for Impostor {
    fn name(&self) -> &str {
        self.0
    }
    fn description(&self) -> &str {
        "not the device's"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn call<'a>(&'a self, _: PlatformCall<'a>) -> BoxFuture<'a, PlatformAnswer> {
        let text = format!("the platform's {} ran", self.0);
        Box::pin(async move { PlatformAnswer::result(CommandResult::failure("x", &text, None)) })
    }
}

#[derive(Default)]
struct Recorder {
    goals: Mutex<Vec<String>>,
    calls: Mutex<Vec<(String, Option<ToolType>, bool)>>,
}

impl RunExtension for Recorder {
    fn start<'a>(&'a self, start: Starting<'a>) -> BoxFuture<'a, Preparation> {
        self.goals.lock().unwrap().push(start.goal.to_owned());
        Box::pin(async {
            Preparation {
                context: vec!["## Reusable actions\nshout: shouts".into(), "  ".into()],
                events: vec![EventKind::Memory(MemoryNote {
                    kind: MemoryKind::Action,
                    outcome: MemoryOutcome::Recalled,
                    items: vec![],
                    note: "Recalled 1 action".into(),
                })],
                tools: vec![
                    Arc::new(Shout),
                    Arc::new(Impostor("noop")),
                    Arc::new(Impostor("list_devices")),
                ],
            }
        })
    }

    fn called(&self, call: &CallRecord<'_>) {
        self.calls.lock().unwrap().push((
            call.step.tool.clone(),
            call.tool_type,
            call.result.is_success(),
        ));
    }
}

#[tokio::test]
async fn an_extension_adds_context_events_and_a_platform_tool() {
    let s = common::setup();
    let model = ScriptedModel::start(vec![
        Reply::tool_call("shout", json!({"text": "hello"})).into(),
        Reply::tool_call("noop", json!({})).into(),
        Reply::tool_call("pid", json!({})).into(),
        Reply::text("done").into(),
    ])
    .await;
    let recorder = Arc::new(Recorder::default());
    let agent = common::agent(&model.base_url(), s.devices.clone(), common::quiet_config());
    let events = Arc::new(common::Collect::default());
    let mut request = RunRequest::new("say hello")
        .with_profile(RunProfile::chat().with_extension(recorder.clone()));
    request.extra_context = vec!["given by the caller".into()];
    let outcome = agent
        .run(&s.device, request, common::io(&events), Default::default())
        .await;
    assert_eq!(outcome.answer, "done");

    let first = &model.requests()[0];
    let messages = first.messages();
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(
        messages[1],
        json!({"role": "system", "content": "## Reusable actions\nshout: shouts"})
    );
    assert_eq!(messages[2]["content"], "given by the caller");
    assert_eq!(messages[3], json!({"role": "user", "content": "say hello"}));
    let tools = first.tool_names();
    assert!(tools.contains(&"shout".to_owned()), "{tools:?}");
    let described = |name: &str| {
        let offered: Vec<&Value> = first.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["function"]["name"] == name)
            .collect();
        assert_eq!(offered.len(), 1, "{name} is offered once");
        offered[0]["function"]["description"].clone()
    };
    assert_eq!(
        described("noop"),
        "not the device's",
        "a platform tool takes its name from a device tool"
    );
    assert_ne!(
        described("list_devices"),
        "not the device's",
        "the first platform tool of a name keeps it"
    );
    assert!(
        messages[0]["content"].as_str().unwrap().contains("shout"),
        "the system prompt lists the platform tool"
    );

    let kinds = events.kinds();
    assert_eq!(
        kinds[0], "memory",
        "the extension's event comes first: {kinds:?}"
    );
    let second = &model.requests()[1];
    assert_eq!(second.last_tool_output(), Some("HELLO on local"));
    assert_eq!(
        model.requests()[2].last_tool_output(),
        Some("Error: the platform's noop ran")
    );
    assert_eq!(
        *recorder.calls.lock().unwrap(),
        [
            ("shout".to_owned(), None, true),
            ("noop".to_owned(), None, false),
            ("pid".to_owned(), Some(ToolType::DataCollection), true)
        ]
    );
    assert_eq!(*recorder.goals.lock().unwrap(), ["say hello"]);
    let step = events
        .events()
        .into_iter()
        .find_map(|e| match e.kind {
            EventKind::Step(s) if s.tool == "shout" => Some(s),
            _ => None,
        })
        .expect("a step event for the platform tool");
    assert!(step.call_id.starts_with("call_"), "{}", step.call_id);
    assert_eq!(step.result["call_id"], step.call_id.as_str());
}

fn client(base: &str) -> LlmClient {
    LlmClient::new(LlmConfig::new(base, "scripted-model", None)).unwrap()
}

/// Reasoning off, as distilling asks.
const NO_THINKING: CallOptions = CallOptions {
    no_thinking: true,
    max_output_tokens: None,
};

async fn ask(llm: &LlmClient, options: CallOptions) -> String {
    llm.complete_with(
        &[json!({"role": "user", "content": "distil"})],
        &[],
        &options,
        &Default::default(),
        &mut |_| {},
    )
    .await
    .unwrap()
    .content
}

#[tokio::test]
async fn reasoning_off_is_in_the_request() {
    let model =
        ScriptedModel::start(vec![Reply::text("one").into(), Reply::text("two").into()]).await;
    let llm = client(&model.base_url());
    assert_eq!(ask(&llm, NO_THINKING).await, "one");
    assert_eq!(ask(&llm, CallOptions::default()).await, "two");
    let requests = model.requests();
    let body = &requests[0].body;
    assert_eq!(body["thinking"], json!({"type": "disabled"}));
    assert_eq!(body["enable_thinking"], json!(false));
    assert_eq!(
        body["chat_template_kwargs"],
        json!({"enable_thinking": false, "thinking": false})
    );
    assert!(
        requests[1].body.get("thinking").is_none(),
        "only calls that ask for it"
    );
}

#[tokio::test]
async fn a_gateway_that_rejects_the_thinking_field_is_asked_again_without_it() {
    let model = ScriptedModel::start_with(
        vec![Reply::text("recipe").into(), Reply::text("again").into()],
        ModelOptions {
            reject_params: vec!["thinking".into()],
            ..Default::default()
        },
    )
    .await;
    let llm = client(&model.base_url());
    assert_eq!(ask(&llm, NO_THINKING).await, "recipe");
    assert!(!llm.sends_thinking_off(), "the rejection is remembered");
    assert!(llm.asks_for_usage(), "stream_options was not to blame");
    assert_eq!(ask(&llm, NO_THINKING).await, "again");
    let requests = model.requests();
    assert_eq!(
        requests.len(),
        3,
        "one rejected, then two without the field"
    );
    assert!(requests[0].body.get("thinking").is_some());
    assert!(requests[1].body.get("thinking").is_none());
    assert!(requests[1].body.get("enable_thinking").is_none());
    assert!(requests[1].body.get("stream_options").is_some());
}

#[tokio::test]
async fn both_fallbacks_apply_when_a_gateway_rejects_both_fields() {
    let model = ScriptedModel::start_with(
        vec![Reply::text("recipe").into()],
        ModelOptions {
            reject_params: vec!["thinking".into()],
            reject_stream_options: true,
            ..Default::default()
        },
    )
    .await;
    let llm = client(&model.base_url());
    assert_eq!(ask(&llm, NO_THINKING).await, "recipe");
    let requests = model.requests();
    assert_eq!(
        requests.len(),
        3,
        "{:?}",
        requests.iter().map(|r| &r.body).collect::<Vec<_>>()
    );
    let last = &requests[2].body;
    assert!(last.get("thinking").is_none() && last.get("stream_options").is_none());
}

#[tokio::test]
async fn a_cap_and_reasoning_off_fall_back_one_after_the_other() {
    let model = ScriptedModel::start_with(
        vec![Reply::text("recipe").into(), Reply::text("again").into()],
        ModelOptions {
            reject_params: vec!["max_tokens".into(), "thinking".into()],
            ..Default::default()
        },
    )
    .await;
    let llm = client(&model.base_url());
    let both = CallOptions {
        no_thinking: true,
        max_output_tokens: Some(512),
    };
    assert_eq!(ask(&llm, both).await, "recipe");
    assert_eq!(llm.cap_param(), CapParam::MaxCompletionTokens);
    assert!(!llm.sends_thinking_off());
    assert!(llm.asks_for_usage(), "stream_options was never to blame");
    assert_eq!(ask(&llm, both).await, "again");
    let requests = model.requests();
    let bodies: Vec<&Value> = requests.iter().map(|r| &r.body).collect();
    assert_eq!(
        bodies.len(),
        4,
        "two rejected, then two accepted: {bodies:?}"
    );
    assert_eq!(bodies[0]["max_tokens"], 512);
    assert_eq!(bodies[0]["thinking"], json!({"type": "disabled"}));
    assert_eq!(
        bodies[1]["max_completion_tokens"], 512,
        "the cap's name first: named first"
    );
    assert!(bodies[1].get("thinking").is_some());
    for body in &bodies[2..] {
        assert_eq!(body["max_completion_tokens"], 512);
        assert!(body.get("max_tokens").is_none());
        assert!(body.get("thinking").is_none() && body.get("enable_thinking").is_none());
        assert!(body.get("chat_template_kwargs").is_none());
        assert_eq!(body["stream_options"]["include_usage"], true);
    }
}

/// What each request carried: (reasoning-off fields, `stream_options`).
fn carried(model: &ScriptedModel) -> Vec<(bool, bool)> {
    model
        .requests()
        .iter()
        .map(|r| {
            let thinking = ["thinking", "enable_thinking", "chat_template_kwargs"]
                .iter()
                .filter(|f| r.body.get(**f).is_some())
                .count();
            assert!(thinking == 0 || thinking == 3, "all three or none");
            (thinking == 3, r.body.get("stream_options").is_some())
        })
        .collect()
}

#[tokio::test]
async fn a_strict_endpoint_refuses_the_reasoning_fields_once_for_every_client_of_it() {
    let model = ScriptedModel::start_with(
        vec![Reply::text("recipe").into(), Reply::text("again").into()],
        ModelOptions {
            strict: true,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(ask(&client(&model.base_url()), NO_THINKING).await, "recipe");
    // deft makes a client per run (and per distilling pass): the next one knows.
    let next = client(&model.base_url());
    assert!(!next.sends_thinking_off(), "remembered for the endpoint");
    assert!(next.asks_for_usage(), "stream_options was not to blame");
    assert_eq!(ask(&next, NO_THINKING).await, "again");
    assert_eq!(
        carried(&model),
        [(true, true), (false, true), (false, true)],
        "one refused, then two accepted without the fields"
    );
}

#[tokio::test]
async fn openais_own_refusal_of_thinking_is_understood() {
    let refusal = Reply::Status {
        status: 400,
        body: json!({"error": {"message": "Unrecognized request argument supplied: thinking",
                               "type": "invalid_request_error", "param": null, "code": null}}),
        retry_after: None,
    };
    let model = ScriptedModel::start(vec![refusal.into(), Reply::text("recipe").into()]).await;
    assert_eq!(ask(&client(&model.base_url()), NO_THINKING).await, "recipe");
    assert_eq!(carried(&model), [(true, true), (false, true)]);
}

#[tokio::test]
async fn a_refusal_that_dropping_the_fields_does_not_cure_teaches_the_endpoint_nothing() {
    // A reasoning model that needs to be told not to reason; one call is refused whatever it
    // carries (its context is too long).
    let too_long = "This model's maximum context length is 8192 tokens.";
    let model = ScriptedModel::start(vec![
        Reply::status(400, too_long).into(),
        Reply::status(400, too_long).into(),
        Reply::status(400, too_long).into(),
        reasoning_unless_off("recipe"),
    ])
    .await;
    let llm = client(&model.base_url());
    let refused = llm
        .complete_with(
            &[json!({"role": "user", "content": "distil"})],
            &[],
            &NO_THINKING,
            &Default::default(),
            &mut |_| {},
        )
        .await
        .unwrap_err();
    assert!(refused.to_string().contains(too_long), "{refused}");
    assert!(llm.sends_thinking_off() && llm.asks_for_usage());
    assert_eq!(
        ask(&client(&model.base_url()), NO_THINKING).await,
        "recipe",
        "reasoning stays off"
    );
    assert_eq!(
        carried(&model),
        [(true, true), (false, true), (false, false), (true, true)]
    );
}
