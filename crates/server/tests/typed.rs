//! Typed results through the console API of a real server on loopback (SQLite file, the
//! fixture device, the scripted model over HTTP/SSE): `output_schema` on `POST /api/agent/run`,
//! the `done` event's and the stored run's `output`, and the 400s of a bad schema.

#![allow(clippy::unwrap_used)] // test helpers below: a failed set-up is a failed test

mod common;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use common::console_hub::ConsoleHub;
use deft_server::console::ModelDefaults;
use deft_test_support::model::{Reply, ScriptedModel};
use serde_json::{Value, json};

/// A server with the fixture device whose model is `model`.
async fn hub(dir: &std::path::Path, model: &ScriptedModel) -> ConsoleHub {
    let base = model.base_url();
    ConsoleHub::start_with(dir, None, vec![fixture_device::fixture_device()], |cc| {
        cc.defaults = ModelDefaults {
            api_base: Some(base),
            model: Some("scripted".into()),
            api_key: None,
        };
    })
    .await
}

fn schema() -> Value {
    json!({"type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"]})
}

/// Runs `body` to its end: the `done` event's data and the stored run.
async fn run_to_done(h: &ConsoleHub, body: &Value) -> (Value, Value) {
    let started = h.post("/api/agent/run", body).await;
    assert_eq!(started.status, 202, "{}", started.body);
    let run = started.body["run_id"].as_str().unwrap().to_owned();
    let (status, all) = h
        .events(&format!("/api/agent/stream?run_id={run}"), None)
        .await;
    assert_eq!(status, 200);
    let done = all.last().unwrap();
    assert_eq!(done.kind, "done", "{all:?}");
    let stored = h.get(&format!("/api/agent/runs/{run}")).await.body;
    (done.data.clone(), stored)
}

/// The last message of the conversation of the stored run `run`.
async fn last_answer(h: &ConsoleHub, run: &Value) -> Value {
    let conversation = run["conversation"].as_str().unwrap();
    let got = h.get(&format!("/api/conversations/{conversation}")).await;
    assert_eq!(got.status, 200, "{}", got.body);
    let last = got.body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "assistant", "{}", got.body);
    last
}

#[tokio::test]
async fn a_chat_with_an_output_schema_ends_with_its_typed_result() {
    let model = ScriptedModel::start(vec![
        Reply::text("The total is 42.").into(),
        Reply::text(r#"{"total": 42}"#).into(),
        Reply::text(r#"{"total": "lots"}"#).into(),
        Reply::text(r#"{"total": "still lots"}"#).into(),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), &model).await;
    let body = json!({"prompt": "add it up", "device": "fixture", "output_schema": schema()});

    let (done, stored) = run_to_done(&h, &body).await;
    let valid = json!({"valid": true, "value": {"total": 42}, "repaired": true});
    assert_eq!(done["output"], valid, "{done}");
    assert_eq!(stored["output"], valid, "{stored}");
    assert_eq!(stored["answer"], r#"{"total": 42}"#);
    // A reload shows it too: the conversation's answer carries its run's typed result.
    assert_eq!(last_answer(&h, &stored).await["output"], valid);
    let reqs = model.requests();
    assert_eq!(
        reqs[0].body["response_format"]["json_schema"]["schema"],
        schema()
    );

    let (done, stored) = run_to_done(&h, &body).await;
    let invalid = json!({
        "valid": false,
        "errors": [{"path": "/total", "message": "\"still lots\" is not of type \"number\""}],
        "raw": r#"{"total": "still lots"}"#,
        "repaired": true
    });
    assert_eq!(done["output"], invalid, "{done}");
    assert_eq!(stored["output"], invalid, "{stored}");
    assert_eq!(model.requests().len(), 4, "one repair turn each");

    let plain = ScriptedModel::start(vec![Reply::text("hello").into()]).await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), &plain).await;
    let (done, stored) = run_to_done(&h, &json!({"prompt": "hi", "device": "fixture"})).await;
    assert!(done.get("output").is_none() && stored.get("output").is_none());
    assert!(last_answer(&h, &stored).await.get("output").is_none());
}

#[tokio::test]
async fn a_bad_output_schema_is_a_400_before_any_model_call() {
    let model = ScriptedModel::start(vec![]).await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), &model).await;
    let cases = [
        (
            json!({"type": "objekt"}),
            "the output schema is not a valid JSON Schema (draft 2020-12 unless its $schema says another): at /type: ",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "nope"}}}),
            "the output schema is not a valid JSON Schema (draft 2020-12 unless its $schema says another): at /properties/a/type: ",
        ),
        (
            json!(["type"]),
            "the output schema must be a JSON object (or true/false), got an array",
        ),
        (
            json!({"$ref": "https://example.com/schema.json"}),
            "the output schema is not a valid JSON Schema",
        ),
    ];
    for (schema, said) in cases {
        let body = json!({"prompt": "x", "device": "fixture", "output_schema": schema});
        let r = h.post("/api/agent/run", &body).await;
        assert_eq!(r.status, 400, "{schema}: {}", r.body);
        assert!(
            r.body["error"].as_str().unwrap().starts_with(said),
            "{}",
            r.body
        );
    }
    let designer =
        json!({"prompt": "x", "device": "fixture", "mode": "designer", "output_schema": schema()});
    let r = h.post("/api/agent/run", &designer).await;
    assert_eq!(r.status, 400);
    assert!(
        r.body["error"]
            .as_str()
            .unwrap()
            .starts_with("output_schema is for chat runs"),
        "{}",
        r.body
    );
    assert!(model.requests().is_empty());
    assert_eq!(h.get("/api/agent/run").await.body, json!({"run": null}));
}
