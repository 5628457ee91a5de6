//! Designer mode through the console API of a real server on loopback (SQLite file, the
//! fixture device, the scripted model over HTTP/SSE): `mode` on `POST /api/agent/run`, the one
//! run slot shared with chat (409 either way, the mode in the run snapshot), `done` with the
//! draft, `agent_task_draft` kept, replaced and discarded, bad requests, and "try it": the
//! draft run once by the task runner as a task run that is no task.

#![allow(clippy::unwrap_used)] // test helpers below: a failed set-up is a failed test

mod common;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use common::console_hub::{ConsoleHub, Sse};
use deft_server::console::ModelDefaults;
use deft_test_support::model::{Reply, ScriptedModel, Turn};
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

fn keys_task(name: &str, keys: &str) -> Value {
    json!({"name": name, "steps": [{"type": "key_event", "keys": keys}]})
}

fn submit(task: Value) -> Turn {
    Reply::tool_call("submit_task", json!({"task": task})).into()
}

/// Starts a run (asserting 202): its id and conversation.
async fn start(h: &ConsoleHub, body: Value) -> (String, String) {
    let a = h.post("/api/agent/run", &body).await;
    assert_eq!(a.status, 202, "{}", a.body);
    (
        a.body["run_id"].as_str().unwrap().to_owned(),
        a.body["conversation"].as_str().unwrap().to_owned(),
    )
}

/// Every event of agent run `run` through `done`.
async fn events(h: &ConsoleHub, run: &str) -> Vec<Sse> {
    let (status, all) = h
        .events(&format!("/api/agent/stream?run_id={run}"), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(all.last().map(|e| e.kind.as_str()), Some("done"), "{all:?}");
    all
}

fn designer(prompt: &str) -> Value {
    json!({"prompt": prompt, "device": "fixture", "mode": "designer"})
}

/// Waits until the run holds the slot and its first step is under way.
async fn until_step_started(h: &ConsoleHub, run: &str) {
    let mut stream = h
        .stream(&format!("/api/agent/stream?run_id={run}"), None)
        .await;
    while let Some(e) = stream.next().await {
        if e.kind == "step_start" {
            return;
        }
    }
    panic!("run {run} ended before its first step");
}

#[tokio::test]
async fn chat_and_designer_share_the_one_run_slot() {
    let sleep = || -> Turn { Reply::tool_call("sleep", json!({"ms": 60_000})).into() };
    let model = ScriptedModel::start(vec![sleep(), sleep()]).await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), &model).await;

    let (run, conversation) = start(&h, designer("type the date every morning")).await;
    until_step_started(&h, &run).await;
    let current = h.get("/api/agent/run").await.body;
    assert_eq!(current["run"]["mode"], "designer", "{current}");
    let chat = h
        .post(
            "/api/agent/run",
            &json!({"prompt": "hi", "device": "fixture"}),
        )
        .await;
    assert_eq!(chat.status, 409, "{}", chat.body);
    assert!(
        chat.body["error"]
            .as_str()
            .unwrap()
            .starts_with("another run is active"),
        "{}",
        chat.body
    );
    let conv = h
        .get(&format!("/api/conversations/{conversation}"))
        .await
        .body;
    assert_eq!(conv["title"], "🧭 type the date every morning");
    assert_eq!(h.post("/api/agent/stop", &json!({})).await.status, 200);
    let all = events(&h, &run).await;
    let done = &all.last().unwrap().data;
    assert_eq!(
        (done["status"].clone(), done["mode"].clone()),
        (json!("stopped"), json!("designer"))
    );
    assert_eq!(
        done["draft_error"],
        "the run was stopped before a valid task was submitted"
    );
    let stored = h.get(&format!("/api/agent/runs/{run}")).await.body;
    assert_eq!(stored["mode"], "designer", "{stored}");
    assert_eq!(
        stored["answer"],
        "No task draft: the run was stopped before a valid task was submitted."
    );

    // The other way round: a chat holds the slot, designer mode hears 409.
    let (chat, _) = start(&h, json!({"prompt": "wait", "device": "fixture"})).await;
    until_step_started(&h, &chat).await;
    assert_eq!(h.get("/api/agent/run").await.body["run"]["mode"], "chat");
    let refused = h.post("/api/agent/run", &designer("draft it")).await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert_eq!(h.post("/api/agent/stop", &json!({})).await.status, 200);
    let done = events(&h, &chat).await.pop().unwrap().data;
    assert_eq!(done["mode"], "chat");
    assert!(done.get("draft_error").is_none(), "{done}");
}

#[tokio::test]
async fn bad_run_requests_are_refused_and_leave_nothing() {
    let model = ScriptedModel::start(vec![]).await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), &model).await;
    let conv = h.post("/api/conversations", &json!({})).await.body["id"].clone();
    for (body, says) in [
        (
            json!({"prompt": "x", "device": "fixture", "mode": "designer", "conversation": conv}),
            "a designer run starts fresh and continues no conversation",
        ),
        (
            json!({"prompt": "x", "device": "fixture", "mode": "builder"}),
            "unknown variant `builder`, expected `chat` or `designer`",
        ),
        (
            json!({"prompt": "x", "device": "fixture", "mode": "designer", "history": []}),
            "unknown field `history`",
        ),
    ] {
        let a = h.post("/api/agent/run", &body).await;
        assert_eq!(a.status, 400, "{body}: {}", a.body);
        assert!(
            a.body["error"].as_str().unwrap().contains(says),
            "{body}: {}",
            a.body
        );
    }
    assert_eq!(
        h.get("/api/conversations")
            .await
            .body
            .as_array()
            .unwrap()
            .len(),
        1,
        "only the conversation the test made"
    );
    assert_eq!(h.get("/api/agent/draft").await.status, 404);
}

#[tokio::test]
async fn the_latest_draft_is_kept_replaced_and_discarded() {
    let model = ScriptedModel::start(vec![
        submit(keys_task("first draft", "ab")),
        submit(keys_task("second draft", "cd")),
        Reply::text("I cannot do that one.").into(),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), &model).await;

    let (first, _) = start(&h, designer("type ab")).await;
    let done = events(&h, &first).await.pop().unwrap().data;
    assert_eq!(done["mode"], "designer");
    assert_eq!(done["status"], "completed");
    assert_eq!(done["draft"]["name"], "first draft");
    assert_eq!(done["draft"]["device"], "fixture", "the run's device");
    assert_eq!(done["warnings"], json!([]));
    let kept = h.get("/api/agent/draft").await;
    assert_eq!(kept.status, 200, "{}", kept.body);
    assert_eq!(kept.body["draft"], done["draft"]);
    assert_eq!(
        (
            kept.body["prompt"].clone(),
            kept.body["run_id"].clone(),
            kept.body["device"].clone()
        ),
        (json!("type ab"), json!(first), json!("fixture"))
    );
    assert!(kept.body["created"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        h.get("/api/tasks").await.body["total"],
        0,
        "a draft is not a task"
    );

    let (second, _) = start(&h, designer("type cd")).await;
    events(&h, &second).await;
    let kept = h.get("/api/agent/draft").await.body;
    assert_eq!(kept["draft"]["name"], "second draft", "replaced");
    assert_eq!(kept["run_id"], second.as_str());

    // A run without a draft keeps the one before.
    let (third, _) = start(&h, designer("do the impossible")).await;
    let done = events(&h, &third).await.pop().unwrap().data;
    assert!(done.get("draft").is_none());
    assert_eq!(
        done["draft_error"],
        "the model ended without submitting a task: \"I cannot do that one.\""
    );
    assert_eq!(
        h.get("/api/agent/draft").await.body["draft"]["name"],
        "second draft"
    );

    assert_eq!(h.delete("/api/agent/draft").await.status, 204);
    let gone = h.get("/api/agent/draft").await;
    assert_eq!(gone.status, 404);
    assert!(
        gone.body["error"]
            .as_str()
            .unwrap()
            .starts_with("no task draft is kept"),
        "{}",
        gone.body
    );
    assert_eq!(h.delete("/api/agent/draft").await.status, 204, "idempotent");
}

#[tokio::test]
async fn try_it_runs_the_draft_once_as_a_task_run_that_is_no_task() {
    let model = ScriptedModel::start(vec![
        submit(json!({"name": "keys", "variables": {"k": "x"},
            "steps": [{"type": "key_event", "keys": "a{{k}}"}]})),
        Reply::tool_call("sleep", json!({"ms": 60_000})).into(),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path(), &model).await;
    let nothing = h.post("/api/agent/draft/try", &json!({})).await;
    assert_eq!(nothing.status, 404, "{}", nothing.body);

    let (run, _) = start(&h, designer("type a and a letter")).await;
    events(&h, &run).await;
    let tried = h
        .post("/api/agent/draft/try", &json!({"variables": {"k": "z"}}))
        .await;
    assert_eq!(tried.status, 202, "{}", tried.body);
    assert_eq!(
        (
            tried.body["task_id"].clone(),
            tried.body["task_name"].clone(),
            tried.body["trigger"].clone(),
            tried.body["device"].clone()
        ),
        (
            json!("draft"),
            json!("keys"),
            json!("try"),
            json!("fixture")
        )
    );
    let id = tried.body["id"].as_str().unwrap().to_owned();
    let (_, all) = h.events(&format!("/api/task-runs/{id}/events"), None).await;
    let kinds: Vec<&str> = all.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["task_step_start", "step_start", "step", "task_step", "done"],
        "{all:?}"
    );
    assert_eq!(all[2].data["args"]["keys"], "az", "the run's variables");
    assert_eq!(all.last().unwrap().data["status"], "completed");
    let detail = h
        .until(&format!("/api/task-runs/{id}"), |b| b["status"] == "ok")
        .await;
    assert_eq!(detail["step_results"][0]["status"], "ok");
    assert_eq!(h.get("/api/tasks").await.body["total"], 0, "not saved");
    assert_eq!(
        h.get("/api/task-runs?task=draft").await.body["total"],
        1,
        "its record stays"
    );

    // An edited draft with a mistake: the validator's report, nothing run.
    let bad = h
        .post(
            "/api/agent/draft/try",
            &json!({"draft": {"name": "keys", "device": "fixture", "steps": [{"type": "key_evnt", "keys": "a"}]}}),
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert_eq!(bad.body["errors"][0]["path"], "steps[0].type");
    let unknown = h
        .post("/api/agent/draft/try", &json!({"draft": {}, "speed": 2}))
        .await;
    assert_eq!(unknown.status, 400);
    let nowhere = h
        .post("/api/agent/draft/try", &json!({"device": "nowhere"}))
        .await;
    assert_eq!(nowhere.status, 400, "{}", nowhere.body);
    assert_eq!(nowhere.body["errors"][0]["path"], "device");

    // The device held by an agent run: 409, and nothing recorded.
    let (holder, _) = start(&h, json!({"prompt": "hold it", "device": "fixture"})).await;
    until_step_started(&h, &holder).await;
    let busy = h.post("/api/agent/draft/try", &json!({})).await;
    assert_eq!(busy.status, 409, "{}", busy.body);
    assert_eq!(h.get("/api/task-runs?task=draft").await.body["total"], 1);
    assert_eq!(h.post("/api/agent/stop", &json!({})).await.status, 200);
    events(&h, &holder).await;
}
