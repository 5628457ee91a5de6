//! The memory through the console API of a real server on loopback (SQLite file): the
//! experience and action routes with bad bodies (every problem at its path, nothing stored),
//! trying an action on a device (and the device-busy rule), a run that recalls at its start and
//! is distilled only after its `done` (recipes in its prompt, reasoning off in the distilling
//! calls only), a designer run that does neither, and the daily audit firing on an injected clock, its
//! suggestions waiting for a person who keeps (never suggested again) or deletes; a pass that
//! suggests any sends one notification.

#![allow(clippy::unwrap_used)] // test helpers below: a failed set-up is a failed test

mod common;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use std::sync::Arc;
use std::time::Duration;

use common::console_hub::ConsoleHub;
use deft_app::scheduler::ManualClock;
use deft_server::console::ModelDefaults;
use deft_test_support::model::{
    ModelOptions, Recorded, Reply, ScriptedModel, Turn, reasoning_unless_off,
};
use serde_json::{Value, json};

async fn hub(dir: &std::path::Path) -> ConsoleHub {
    ConsoleHub::start(dir, None, vec![fixture_device::fixture_device()]).await
}

/// A hub whose model is `model`, on `clock` when given.
async fn hub_with_model(
    dir: &std::path::Path,
    model: &ScriptedModel,
    clock: Option<Arc<ManualClock>>,
) -> ConsoleHub {
    let base = model.base_url();
    ConsoleHub::start_with(
        dir,
        None,
        vec![fixture_device::fixture_device()],
        move |c| {
            c.defaults = ModelDefaults {
                api_base: Some(base),
                model: Some("scripted".into()),
                api_key: None,
            };
            if let Some(clock) = clock {
                c.clock = clock;
            }
        },
    )
    .await
}

/// `a` is an error with this status whose text says `says`.
fn is_error(a: &common::console_hub::Answer, status: u16, says: &str) {
    assert_eq!(a.status, status, "{}", a.body);
    let text = a.body["error"].as_str().unwrap_or_default();
    assert!(text.contains(says), "{text:?} should say {says:?}");
}

fn paths(body: &Value) -> Vec<String> {
    body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn experiences_are_written_edited_kept_and_deleted_by_a_person() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let bad = h
        .post(
            "/api/memory/experiences",
            &json!({"task": " ", "title": "x".repeat(201)}),
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert_eq!(paths(&bad.body), ["task", "title", "recipe"]);
    assert!(
        bad.body["error"]
            .as_str()
            .unwrap()
            .starts_with("the experience is invalid: task:")
    );
    let unknown = h
        .post(
            "/api/memory/experiences",
            &json!({"task": "t", "recipe": "r", "colour": 1}),
        )
        .await;
    assert_eq!(unknown.status, 400, "{}", unknown.body);
    assert_eq!(
        h.get("/api/memory/experiences").await.body["total"],
        0,
        "nothing stored"
    );

    let made = h
        .post(
            "/api/memory/experiences",
            &json!({"task": "rename the report", "recipe": "Open the file manager, select it, press F2."}),
        )
        .await;
    assert_eq!(made.status, 201, "{}", made.body);
    let id = made.body["id"].as_str().unwrap().to_owned();
    assert_eq!(made.body["title"], "rename the report");
    assert_eq!(made.body["audit"], json!({"state": "none"}));
    assert_eq!(made.body["hits"], 0);
    assert!(made.body.get("source_run").is_none());

    let found = h.get("/api/memory/experiences?q=F2&state=none").await;
    assert_eq!(found.body["total"], 1, "{}", found.body);
    assert_eq!(
        h.get("/api/memory/experiences?state=pending").await.body["total"],
        0
    );
    let wrong = h.get("/api/memory/experiences?state=maybe").await;
    is_error(&wrong, 400, "use none, pending or kept");

    let patched = h
        .send(
            "PATCH",
            &format!("/api/memory/experiences/{id}"),
            &json!({"recipe": "Press F2 in the file manager and type the name."}),
        )
        .await;
    assert_eq!(patched.status, 200, "{}", patched.body);
    assert_eq!(
        patched.body["task"], "rename the report",
        "untouched fields stay"
    );
    let detail = h.get(&format!("/api/memory/experiences/{id}")).await;
    assert_eq!(detail.body["reviews"], json!([]));
    assert_eq!(
        detail.body["recipe"],
        "Press F2 in the file manager and type the name."
    );

    let kept = h
        .post(&format!("/api/memory/experiences/{id}/keep"), &json!({}))
        .await;
    assert_eq!(kept.body["audit"]["state"], "kept");
    assert_eq!(
        h.delete(&format!("/api/memory/experiences/{id}"))
            .await
            .status,
        204
    );
    let gone = h.get(&format!("/api/memory/experiences/{id}")).await;
    assert_eq!(gone.status, 404);
    assert_eq!(
        h.delete(&format!("/api/memory/experiences/{id}"))
            .await
            .status,
        404
    );
}

fn wait_action(name: &str) -> Value {
    json!({"name": name, "aliases": ["pause"], "variables": {"secs": "0.01"},
           "steps": [{"type": "wait", "seconds": 0.01}]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_are_checked_in_library_mode_on_every_save() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let bad = json!({"name": "Tap", "steps": [
        {"type": "click_xy", "x": 0.5, "y": 0.5},
        {"type": "click", "selector": {"text": "OK"}, "x": 10},
        {"type": "notify", "message": "hi"},
        {"type": "wiat", "seconds": 1}]});
    let refused = h.post("/api/memory/actions", &bad).await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    let got = paths(&refused.body);
    for want in [
        "steps[0].type",
        "steps[1].x",
        "steps[2].type",
        "steps[3].type",
    ] {
        assert!(got.contains(&want.to_owned()), "{want} in {got:?}");
    }
    assert!(refused.body["error"].as_str().unwrap().starts_with(
        "the action is invalid: steps[0].type: click_xy is not allowed in the action library"
    ));
    let checked = h.post("/api/memory/actions/validate", &bad).await;
    assert_eq!(
        (checked.status, checked.body["valid"].clone()),
        (200, json!(false))
    );
    assert_eq!(
        h.get("/api/memory/actions").await.body["total"],
        0,
        "nothing stored"
    );

    let made = h
        .post("/api/memory/actions", &wait_action("Take a break"))
        .await;
    assert_eq!(made.status, 201, "{}", made.body);
    let id = made.body["id"].as_str().unwrap().to_owned();
    let clash = h
        .post("/api/memory/actions", &wait_action("take a BREAK"))
        .await;
    assert_eq!(clash.status, 409, "{}", clash.body);
    assert_eq!(
        h.get("/api/memory/actions/Take%20a%20break").await.body["id"],
        id.as_str()
    );
    assert_eq!(
        h.get("/api/memory/actions/pause").await.body["id"],
        id.as_str(),
        "by alias"
    );
    let missing = h.get("/api/memory/actions/dance").await;
    is_error(&missing, 404, "GET /api/memory/actions");

    let replaced = h
        .send("PUT", &format!("/api/memory/actions/{id}"), &bad)
        .await;
    assert_eq!(replaced.status, 400);
    assert_eq!(
        h.get(&format!("/api/memory/actions/{id}")).await.body["name"],
        "Take a break",
        "unchanged"
    );
    let renamed = h
        .send(
            "PUT",
            &format!("/api/memory/actions/{id}"),
            &wait_action("Take a short break"),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    assert_eq!(renamed.body["name"], "Take a short break");

    assert_eq!(
        h.delete(&format!("/api/memory/actions/{id}")).await.status,
        204
    );
    assert_eq!(
        h.get(&format!("/api/memory/actions/{id}")).await.status,
        404
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_is_tried_on_a_device_that_is_free() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let made = h
        .post("/api/memory/actions", &wait_action("Take a short break"))
        .await;
    let id = made.body["id"].as_str().unwrap().to_owned();
    let tried = h
        .post(
            &format!("/api/memory/actions/{id}/try"),
            &json!({"device": "fixture"}),
        )
        .await;
    assert_eq!(tried.status, 200, "{}", tried.body);
    assert_eq!(tried.body["completed"], true);
    assert_eq!(tried.body["steps"][0]["status"], "ok");
    assert!(
        tried.body["text"]
            .as_str()
            .unwrap()
            .starts_with("Action \"Take a short break\" completed")
    );
    let wrong_var = h
        .post(
            &format!("/api/memory/actions/{id}/try"),
            &json!({"device": "fixture", "variables": {"speed": 2}}),
        )
        .await;
    assert_eq!(wrong_var.body["completed"], false);
    assert!(
        wrong_var.body["text"]
            .as_str()
            .unwrap()
            .contains("has no variable \"speed\"")
    );
    let nowhere = h
        .post(
            &format!("/api/memory/actions/{id}/try"),
            &json!({"device": "phone-7"}),
        )
        .await;
    assert_eq!(nowhere.status, 404);

    // A device busy with a batch: the try waits for nobody.
    let hold = json!({"commands": [{"tool_name": "sleep", "parameters": {"ms": 120000}}]});
    let mut batch = Box::pin(h.post("/api/devices/fixture/exec", &hold));
    let busy = h.until("/api/devices", |b| {
        b.as_array()
            .is_some_and(|a| a.iter().any(|d| d["id"] == "fixture" && d["busy"] == true))
    });
    tokio::select! {
        _ = busy => {}
        a = &mut batch => panic!("the batch ended first: {a:?}"),
    }
    let refused = h
        .post(
            &format!("/api/memory/actions/{id}/try"),
            &json!({"device": "fixture"}),
        )
        .await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    drop(batch);
}

fn turn(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Turn {
    Box::new(f)
}

/// Seeds an experience and an action a run about "taking a break" recalls.
async fn seed(h: &ConsoleHub) {
    let e = h
        .post(
            "/api/memory/experiences",
            &json!({"task": "take a break on the fixture", "title": "Take a break",
                    "recipe": "Run the action Take a break, then say that the break is over."}),
        )
        .await;
    assert_eq!(e.status, 201, "{}", e.body);
    assert_eq!(
        h.post("/api/memory/actions", &wait_action("Take a break"))
            .await
            .status,
        201
    );
}

fn the_run() -> Vec<Turn> {
    vec![
        Reply::tool_call("run_action", json!({"name": "Take a break"})).into(),
        turn(|req| {
            let out = req.last_tool_output().unwrap_or_default().to_owned();
            Reply::text(if out.contains("completed: 1 step(s) ok") {
                "The break is over."
            } else {
                "It failed."
            })
        }),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_recalls_at_its_start_and_is_distilled_after_its_done() {
    let mut turns = the_run();
    // A reasoning model: it answers the distilling call only with reasoning turned off.
    turns.push(reasoning_unless_off(&json!({"title": "Take a break", "recipe": "Run the action Take a break; it waits a moment. Then tell the person the break is over."}).to_string()));
    let model = ScriptedModel::start(turns).await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub_with_model(dir.path(), &model, None).await;
    seed(&h).await;
    let started = h
        .post(
            "/api/agent/run",
            &json!({"prompt": "take a break on the fixture", "device": "fixture"}),
        )
        .await;
    assert_eq!(started.status, 202, "{}", started.body);
    let run_id = started.body["run_id"].as_str().unwrap().to_owned();
    let conversation = started.body["conversation"].as_str().unwrap().to_owned();
    let (_, events) = h
        .events(&format!("/api/agent/stream?run_id={run_id}"), None)
        .await;
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(&kinds[..2], ["memory", "memory"], "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"done"));
    assert_eq!(events[0].data["kind"], "experience");
    assert_eq!(events[0].data["outcome"], "recalled");
    assert_eq!(events[1].data["items"][0]["title"], "Take a break");
    let answer = events.last().unwrap().data["answer"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(answer, "The break is over.");

    let run = h
        .until(&format!("/api/agent/runs/{run_id}"), |b| {
            b["distilling"] == false && b["memory"].as_array().is_some_and(|m| m.len() >= 3)
        })
        .await;
    let outcomes: Vec<(String, String)> = run["memory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["kind"].as_str().unwrap().to_owned(),
                n["outcome"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("experience", "recalled"),
            ("action", "recalled"),
            ("experience", "merged")
        ]
        .map(|(k, o)| (k.to_owned(), o.to_owned())),
        "{run}"
    );
    let conv = h.get(&format!("/api/conversations/{conversation}")).await;
    let message = &conv.body["messages"][1];
    assert_eq!(message["role"], "assistant");
    assert_eq!(message["memory"].as_array().unwrap().len(), 3, "{message}");
    assert!(
        conv.body["messages"][0].get("memory").is_none(),
        "user messages have no cards"
    );
    let e = h.get("/api/memory/experiences").await;
    assert_eq!(e.body["items"][0]["hits"], 1);
    assert!(
        e.body["items"][0]["recipe"]
            .as_str()
            .unwrap()
            .starts_with("Run the action Take a break; it waits")
    );
    let a = h.get("/api/memory/actions/Take%20a%20break").await;
    assert_eq!(a.body["hits"], 2, "recalled once, run once");
    recalled_then_distilled_with_reasoning_off(&model);
}

/// The run's first request has the recalled recipe after the system prompt and `run_action`,
/// reasoning left on; the distilling call after it turns reasoning off (in every dialect).
fn recalled_then_distilled_with_reasoning_off(model: &ScriptedModel) {
    let requests = model.requests();
    assert_eq!(
        requests.len(),
        3,
        "two for the run, one to distil its recipe (it acted only through run_action)"
    );
    let first = &requests[0];
    assert!(first.tool_names().contains(&"run_action".to_owned()));
    let sections: Vec<&str> = first
        .messages()
        .iter()
        .filter(|m| m["role"] == "system")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(
        sections[1..]
            .iter()
            .any(|s| s.contains("Run the action Take a break, then say")),
        "the recalled recipe follows the system prompt: {sections:?}"
    );
    assert!(
        first.body.get("thinking").is_none(),
        "the run's own calls leave reasoning on"
    );
    let distilling = &requests[2].body;
    assert_eq!(distilling["thinking"], json!({"type": "disabled"}));
    assert_eq!(distilling["enable_thinking"], false);
    assert_eq!(
        distilling["chat_template_kwargs"],
        json!({"enable_thinking": false, "thinking": false})
    );
    assert!(distilling.get("tools").is_none());
    assert!(distilling.get("max_tokens").is_none());
}

/// Starts a chat run of `prompt` on the fixture and waits until it is distilled; its memory
/// notes as (kind, outcome).
async fn distilled_run(h: &ConsoleHub, prompt: &str) -> Vec<(String, String)> {
    let started = h
        .post(
            "/api/agent/run",
            &json!({"prompt": prompt, "device": "fixture"}),
        )
        .await;
    assert_eq!(started.status, 202, "{}", started.body);
    let run_id = started.body["run_id"].as_str().unwrap().to_owned();
    h.events(&format!("/api/agent/stream?run_id={run_id}"), None)
        .await;
    let run = h
        .until(&format!("/api/agent/runs/{run_id}"), |b| {
            b["distilling"] == false && b["memory"].as_array().is_some_and(|m| m.len() >= 3)
        })
        .await;
    run["memory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["kind"].as_str().unwrap().to_owned(),
                n["outcome"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// OpenAI's API refuses any field it does not know ("Unrecognized request argument supplied:
/// thinking"). The server makes a new model client for each run, each distilling pass and each
/// audit; the endpoint refuses the reasoning-off fields once, and no later call sends them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_strict_endpoint_refuses_reasoning_off_once_for_the_servers_life() {
    let recipe = json!({"title": "Take a break", "recipe": "Run the action Take a break; it waits a moment. Then tell the person the break is over."}).to_string();
    let mut turns = the_run();
    turns.push(Reply::text(&recipe).into());
    turns.extend(the_run());
    turns.push(Reply::text(&recipe).into());
    turns.push(audit_answer(&[]));
    let model = ScriptedModel::start_with(
        turns,
        ModelOptions {
            strict: true,
            ..Default::default()
        },
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub_with_model(dir.path(), &model, None).await;
    seed(&h).await;
    let merged = ("experience".to_owned(), "merged".to_owned());
    for prompt in [
        "take a break on the fixture",
        "take a short break on the fixture",
    ] {
        let notes = distilled_run(&h, prompt).await;
        assert_eq!(notes[2], merged, "{notes:?}");
    }
    assert_eq!(h.post("/api/memory/audit", &json!({})).await.status, 202);
    let audits = h
        .until("/api/memory/audits", |b| {
            b["items"][0]["status"] != "running"
        })
        .await;
    assert_eq!(audits["items"][0]["status"], "ok", "{audits}");
    assert_eq!(audits["items"][0]["reviewed"], 1);
    let with: Vec<bool> = model
        .requests()
        .iter()
        .map(|r| r.body.get("thinking").is_some())
        .collect();
    assert_eq!(
        with,
        [
            false, false, true,
            false, // run 1, its distilling refused once then asked without
            false, false, false, // run 2 and its distilling: no refused request
            false  // the audit
        ]
    );
}

/// A designer run explores on its own: with the libraries holding an experience and an action
/// for its very prompt, nothing is recalled (no card, no section, no `run_action`) and its
/// completed run, which acted, is not distilled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_designer_run_neither_recalls_nor_is_distilled() {
    let model = ScriptedModel::start(vec![
        Reply::tool_call("noop", json!({})).into(),
        Reply::tool_call(
            "submit_task",
            json!({"task": {"name": "take a break", "steps": [{"type": "wait", "seconds": 0.01}]}}),
        )
        .into(),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub_with_model(dir.path(), &model, None).await;
    seed(&h).await;
    let started = h
        .post(
            "/api/agent/run",
            &json!({"prompt": "take a break on the fixture", "device": "fixture", "mode": "designer"}),
        )
        .await;
    assert_eq!(started.status, 202, "{}", started.body);
    let run_id = started.body["run_id"].as_str().unwrap().to_owned();
    let (_, events) = h
        .events(&format!("/api/agent/stream?run_id={run_id}"), None)
        .await;
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
    assert!(!kinds.contains(&"memory"), "{kinds:?}");
    let done = &events.last().unwrap().data;
    assert_eq!(
        (done["status"].clone(), done["draft"]["name"].clone()),
        (json!("completed"), json!("take a break")),
        "{done}"
    );
    // Marked before done is released had it been going to distil.
    let run = h.get(&format!("/api/agent/runs/{run_id}")).await.body;
    assert_eq!(run["distilling"], false, "{run}");
    assert_eq!(run["memory"], json!([]), "{run}");

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let tools = requests[0].tool_names();
    assert!(tools.contains(&"submit_task".to_owned()), "{tools:?}");
    assert!(!tools.contains(&"run_action".to_owned()), "{tools:?}");
    let prompt = serde_json::to_string(requests[0].messages()).unwrap();
    assert!(!prompt.contains("Run the action Take a break"), "{prompt}");
    let e = h.get("/api/memory/experiences").await;
    assert_eq!(e.body["items"][0]["hits"], 0, "not recalled");
    assert_eq!(e.body["total"], 1, "nothing distilled");
    let a = h.get("/api/memory/actions/Take%20a%20break").await;
    assert_eq!(a.body["hits"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn done_is_sent_before_distilling_starts() {
    let mut turns = the_run();
    // The distilling answer takes 40 s to stream; done must not wait for it.
    turns.push(
        Reply::text(&"x".repeat(40))
            .with_delay(Duration::from_secs(1))
            .into(),
    );
    let model = ScriptedModel::start(turns).await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub_with_model(dir.path(), &model, None).await;
    seed(&h).await;
    let started = h
        .post(
            "/api/agent/run",
            &json!({"prompt": "take a break on the fixture", "device": "fixture"}),
        )
        .await;
    let run_id = started.body["run_id"].as_str().unwrap().to_owned();
    let (_, events) = h
        .events(&format!("/api/agent/stream?run_id={run_id}"), None)
        .await;
    assert_eq!(events.last().unwrap().kind, "done");
    let run = h.get(&format!("/api/agent/runs/{run_id}")).await;
    assert_eq!(run.body["status"], "completed");
    assert_eq!(run.body["distilling"], true, "{}", run.body);
    assert_eq!(
        h.get("/api/agent/run").await.body["run"],
        Value::Null,
        "the slot is free"
    );
}

/// Seeds experiences titled `titles` through the API.
async fn experiences(h: &ConsoleHub, titles: &[&str]) -> Vec<String> {
    let mut ids = Vec::new();
    for t in titles {
        let e = h
            .post(
                "/api/memory/experiences",
                &json!({"task": format!("task {t}"), "title": t, "recipe": format!("recipe {t}")}),
            )
            .await;
        ids.push(e.body["id"].as_str().unwrap().to_owned());
    }
    ids
}

/// An audit answer that deletes the entries titled `delete`, keeps the rest.
fn audit_answer(delete: &'static [&'static str]) -> Turn {
    turn(move |req| {
        let text = req.messages()[1]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let reviews: Vec<Value> = text
            .lines()
            .filter_map(|l| l.strip_prefix('['))
            .filter_map(|l| l.split_once("] "))
            .map(|(n, title)| {
                let verdict = if delete.contains(&title) { "delete" } else { "keep" };
                json!({"n": n.parse::<u64>().unwrap(), "verdict": verdict, "score": 30, "reason": format!("{verdict} {title}")})
            })
            .collect();
        Reply::text(&json!({"reviews": reviews}).to_string())
    })
}

fn ms(rfc3339: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(rfc3339)
        .unwrap()
        .timestamp_millis()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daily_audit_fires_on_the_clock_and_waits_for_a_person() {
    // 2026-12-02T12:00:00Z.
    let clock = Arc::new(ManualClock::new(1_796_212_800_000));
    let model = ScriptedModel::start(vec![
        audit_answer(&["vague", "broken"]),
        audit_answer(&["useful"]),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub_with_model(dir.path(), &model, Some(clock.clone())).await;
    let ids = experiences(&h, &["useful", "vague", "broken"]).await;
    let state = h.get("/api/memory/audit").await;
    assert_eq!(
        state.body["schedule"]["cron"], "47 3 * * *",
        "{}",
        state.body
    );
    assert_eq!(state.body["running"], Value::Null);
    let first = ms(state.body["schedule"]["next_fire_at"].as_str().unwrap());
    assert!(first > clock_now(&clock) && first - clock_now(&clock) <= 86_400_000);

    clock.set(first + 1_000);
    let passes = h
        .until("/api/memory/audits", |b| {
            b["items"]
                .as_array()
                .is_some_and(|a| a.len() == 1 && a[0]["status"] == "ok")
        })
        .await;
    assert_eq!(passes["items"][0]["trigger"], "schedule");
    assert_eq!(
        (
            passes["items"][0]["reviewed"].clone(),
            passes["items"][0]["suggested"].clone()
        ),
        (json!(3), json!(2))
    );
    let pending = h.get("/api/memory/experiences?state=pending").await;
    assert_eq!(pending.body["total"], 2, "marked, not deleted");
    let vague = h.get(&format!("/api/memory/experiences/{}", ids[1])).await;
    assert_eq!(vague.body["audit"]["reason"], "delete vague");
    assert_eq!(vague.body["reviews"][0]["verdict"], "delete");

    // A person keeps "vague" and confirms deleting "broken".
    assert_eq!(
        h.post(
            &format!("/api/memory/experiences/{}/keep", ids[1]),
            &json!({})
        )
        .await
        .status,
        200
    );
    assert_eq!(
        h.delete(&format!("/api/memory/experiences/{}", ids[2]))
            .await
            .status,
        204
    );
    let vague = h.get(&format!("/api/memory/experiences/{}", ids[1])).await;
    assert_eq!(vague.body["reviews"][0]["decision"], "kept");

    // The next day's audit: the kept entry is never shown to the model again.
    let next = ms(
        h.get("/api/memory/audit").await.body["schedule"]["next_fire_at"]
            .as_str()
            .unwrap(),
    );
    assert_eq!(next, first + 86_400_000);
    clock.set(next + 1_000);
    h.until("/api/memory/audits", |b| {
        b["items"]
            .as_array()
            .is_some_and(|a| a.len() == 2 && a[0]["status"] == "ok")
    })
    .await;
    let shown = model.requests()[1].messages()[1]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(shown.contains("] useful"), "{shown}");
    assert!(
        !shown.contains("vague") && !shown.contains("broken"),
        "{shown}"
    );
    assert_eq!(
        h.get(&format!("/api/memory/experiences/{}", ids[1]))
            .await
            .body["audit"]["state"],
        "kept"
    );
    assert_eq!(
        h.get(&format!("/api/memory/experiences/{}", ids[0]))
            .await
            .body["audit"]["state"],
        "pending"
    );
}

/// The notifications of kind `audit_suggestion`, as (level, title, link).
async fn audit_notices(h: &ConsoleHub) -> Vec<(String, String, String)> {
    let list = h.get("/api/notifications?limit=200").await;
    assert_eq!(list.status, 200, "{}", list.body);
    list.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["kind"] == "audit_suggestion")
        .map(|n| {
            let s = |k: &str| n[k].as_str().unwrap().to_owned();
            (s("level"), s("title"), s("link"))
        })
        .collect()
}

/// Starts an audit pass now and waits until `passes` passes ended.
async fn audit_now(h: &ConsoleHub, passes: usize) {
    assert_eq!(h.post("/api/memory/audit", &json!({})).await.status, 202);
    h.until("/api/memory/audits", |b| {
        b["items"]
            .as_array()
            .is_some_and(|a| a.len() == passes && a[0]["status"] == "ok")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_pass_with_suggestions_notifies_once() {
    let model =
        ScriptedModel::start(vec![audit_answer(&["vague", "broken"]), audit_answer(&[])]).await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub_with_model(dir.path(), &model, None).await;
    experiences(&h, &["useful", "vague", "broken"]).await;

    // Two suggestions: one notification for the pass, linking to the memory page.
    audit_now(&h, 1).await;
    h.until("/api/notifications", |b| b["total"].as_u64() > Some(0))
        .await;
    let one = vec![(
        "info".to_owned(),
        "The memory audit suggests deleting 2 experiences".to_owned(),
        "/memory".to_owned(),
    )];
    assert_eq!(audit_notices(&h).await, one);

    // A pass that suggests nothing sends nothing.
    audit_now(&h, 2).await;
    let list = h.get("/api/notifications").await;
    assert_eq!(list.body["total"], 1, "{}", list.body);
    assert_eq!(audit_notices(&h).await, one);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_runs_on_demand_and_its_schedule_is_checked_at_its_field() {
    let model = ScriptedModel::start(vec![audit_answer(&[])]).await;
    let dir = tempfile::tempdir().unwrap();
    let h = hub_with_model(dir.path(), &model, None).await;
    experiences(&h, &["useful"]).await;
    let now = h.post("/api/memory/audit", &json!({})).await;
    assert_eq!(now.status, 202, "{}", now.body);
    assert_eq!(now.body["trigger"], "manual");
    let bad = h
        .send(
            "PUT",
            "/api/memory/audit/schedule",
            &json!({"cron": "61 3 * * *"}),
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert_eq!(paths(&bad.body), ["cron"]);
    let bad_tz = h
        .send(
            "PUT",
            "/api/memory/audit/schedule",
            &json!({"tz": "Mars/Olympus"}),
        )
        .await;
    assert_eq!(paths(&bad_tz.body), ["tz"]);
    let moved = h
        .send(
            "PUT",
            "/api/memory/audit/schedule",
            &json!({"cron": "0 4 * * *", "tz": "UTC"}),
        )
        .await;
    assert_eq!(moved.status, 200, "{}", moved.body);
    assert_eq!(moved.body["description"], "every day at 04:00 (UTC)");
    h.until("/api/memory/audits", |b| b["items"][0]["status"] == "ok")
        .await;
    let again = h.post("/api/memory/audit", &json!({})).await;
    assert_eq!(again.status, 202, "the first pass ended: {}", again.body);
}

fn clock_now(clock: &ManualClock) -> i64 {
    use deft_app::scheduler::Clock;
    clock.now_ms()
}
