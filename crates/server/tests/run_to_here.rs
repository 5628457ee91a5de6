//! Run to here and run this step (docs/tasks.md "Authoring: run to here") through the console
//! API of a real server on loopback, on a real headless Chromium serving the page server's
//! pages: a run to `steps[1]` of a three-step draft stops after it and leaves the browser on the
//! page it opened, which the selector picker's calls then list; a nested step runs alone in the
//! window the run left selected; a path the task does not have is a 400 naming it; a busy
//! device is a 409 as for any run; and none of it is a run of a stored task.

#![allow(clippy::unwrap_used)] // test helpers below: a failed set-up is a failed test

#[path = "../../tasks/tests/browser_device/mod.rs"]
mod browser_device;
mod common;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use common::console_hub::ConsoleHub;
use serde_json::{Value, json};

/// Opens the order form, follows its link to the inventory, then (in a group) edits item 3
/// and waits for the page to say so.
fn three_steps(form: &str) -> Value {
    json!({
        "name": "inventory edit",
        "device": "browser",
        "steps": [
            {"type": "open_app", "url": form},
            {"type": "click", "selector": {"text": "Go to the table", "type": "link", "match": "exact"}},
            {"type": "group", "name": "edit", "steps": [
                {"type": "click", "selector": {"text": "Edit 3", "type": "button", "match": "exact"}},
                {"type": "wait_el", "selector": {"text": "Editing item 3", "match": "exact"}, "timeout_s": 10}
            ]}
        ]
    })
}

/// Tries `body` and waits for the try's end: its detail and its step results' paths.
async fn tried(h: &ConsoleHub, body: &Value) -> (Value, Vec<String>) {
    let a = h.post("/api/agent/draft/try", body).await;
    assert_eq!(a.status, 202, "{}", a.body);
    assert_eq!(a.body["trigger"], "try", "recorded as a try");
    let id = a.body["id"].as_str().unwrap().to_owned();
    // Its stream ends with `done`, sent once the device is free again.
    let (_, events) = h.events(&format!("/api/task-runs/{id}/events"), None).await;
    assert_eq!(events.last().map(|e| e.kind.as_str()), Some("done"));
    let detail = h.get(&format!("/api/task-runs/{id}")).await.body;
    let paths = detail["step_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap().to_owned())
        .collect();
    (detail, paths)
}

/// One call on the browser device through the exec API, as the picker makes it: its value.
async fn exec(h: &ConsoleHub, batch: Value) -> Value {
    let a = h.post("/api/devices/browser/exec", &json!([batch])).await;
    assert_eq!(a.status, 200, "{}", a.body);
    let r = &a.body[0][0];
    assert_eq!(r["status"], "success", "{r}");
    match &r["result"] {
        Value::String(s) => serde_json::from_str(s).unwrap_or(Value::String(s.clone())),
        other => other.clone(),
    }
}

/// What the selector picker lists: the browser's tabs, then the controls matching `text` in the
/// tab named `tab`.
async fn picker_lists(h: &ConsoleHub, tab: &str, text: &str) -> (Vec<String>, Vec<String>) {
    let info = exec(
        h,
        json!({"commands": [{"tool_name": "get_desktop_app_info", "tool_type": "data_collection", "parameters": {}}]}),
    )
    .await;
    let wins = info
        .as_array()
        .cloned()
        .or_else(|| info["windows"].as_array().cloned())
        .unwrap();
    let names = wins
        .iter()
        .map(|w| w["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    let Some(win) = wins.iter().find(|w| w["name"] == tab) else {
        return (names, Vec::new());
    };
    let sel = exec(
        h,
        json!({"commands": [{"tool_name": "select_application_window", "tool_type": "action",
            "parameters": {"id": win["id"].to_string().trim_matches('"'), "name": tab}}]}),
    )
    .await;
    let found = exec(
        h,
        json!({"agent": "AppAgent", "root": sel["root_name"], "process": sel["window_info"]["name"],
            "commands": [{"tool_name": "find_controls", "tool_type": "data_collection",
                "parameters": {"selector": {"text": text, "match": "contains"}, "limit": 50, "format": "json"}}]}),
    )
    .await;
    let controls = found["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    (names, controls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_to_here_leaves_the_browser_where_the_step_left_it_and_a_nested_step_runs_alone() {
    let pages = browser_device::pages().await;
    let dir = tempfile::tempdir().unwrap();
    let h = ConsoleHub::start(dir.path(), None, vec![browser_device::browser_device()]).await;
    let task = three_steps(&pages.url("form.html"));

    let (detail, paths) = tried(&h, &json!({"draft": task, "until": "steps[1]"})).await;
    assert_eq!(detail["status"], "ok", "{detail}");
    assert_eq!(
        paths,
        ["steps[0]", "steps[1]"],
        "nothing after steps[1] runs"
    );
    let (_, edited) = picker_lists(&h, "Inventory", "Editing item 3").await;
    assert!(edited.is_empty(), "steps[2] never ran: {edited:?}");
    let (tabs, controls) = picker_lists(&h, "Inventory", "Edit 3").await;
    assert!(
        tabs.iter().any(|t| t == "Inventory"),
        "the page steps[1] opened is still open: {tabs:?}"
    );
    assert!(
        controls.iter().any(|c| c == "Edit 3"),
        "the picker lists the page's controls: {controls:?}"
    );

    // Run this step: the nested click alone, in the tab the run left selected.
    let (detail, paths) = tried(&h, &json!({"draft": task, "only": "steps[2].steps[0]"})).await;
    assert_eq!(detail["status"], "ok", "{detail}");
    assert_eq!(paths, ["steps[2].steps[0]"]);
    let (_, edited) = picker_lists(&h, "Inventory", "Editing item 3").await;
    assert_eq!(
        edited,
        ["Editing item 3"],
        "the click happened on the page as it was"
    );
    assert_eq!(
        h.get("/api/tasks").await.body["total"],
        0,
        "no task was saved"
    );
}

#[tokio::test]
async fn a_path_the_task_does_not_have_is_a_400_naming_it_and_a_busy_device_a_409() {
    let dir = tempfile::tempdir().unwrap();
    let h = ConsoleHub::start(dir.path(), None, vec![fixture_device::fixture_device()]).await;
    let keys = json!({"name": "keys", "device": "fixture", "steps": [
        {"type": "key_event", "keys": "a"},
        {"type": "group", "name": "more", "steps": [{"type": "key_event", "keys": "b"}]}
    ]});
    let bad = h
        .post(
            "/api/agent/draft/try",
            &json!({"draft": keys, "until": "steps[1].steps[4]"}),
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert_eq!(bad.body["errors"][0]["path"], "until", "{}", bad.body);
    assert_eq!(
        bad.body["errors"][0]["message"],
        "the task has no step at steps[1].steps[4] (its top-level steps are steps[0] to steps[1]); give the path of one of its steps as the validator writes it, such as steps[1] or steps[2].then[0]"
    );
    let both = h
        .post(
            "/api/agent/draft/try",
            &json!({"draft": keys, "until": "steps[0]", "only": "steps[1]"}),
        )
        .await;
    assert_eq!(both.status, 400, "{}", both.body);
    assert_eq!(both.body["errors"][0]["path"], "only", "{}", both.body);
    let invalid = h
        .post("/api/agent/draft/try", &json!({"draft": {"name": "x", "device": "fixture", "steps": [{"type": "wiat"}]}, "only": "steps[0]"}))
        .await;
    assert_eq!(
        invalid.status, 400,
        "the whole task is validated first: {}",
        invalid.body
    );
    assert_eq!(
        invalid.body["errors"][0]["path"], "steps[0].type",
        "{}",
        invalid.body
    );

    // A stored task's run holds the device: a run to here on it waits its turn as any run.
    let waiting = json!({"name": "waits", "device": "fixture",
        "steps": [{"type": "wait", "seconds": 300}]});
    let task = h.post("/api/tasks", &waiting).await;
    assert_eq!(task.status, 201, "{}", task.body);
    let id = task.body["id"].as_str().unwrap();
    let run = h.post(&format!("/api/tasks/{id}/run"), &json!({})).await;
    assert_eq!(run.status, 202, "{}", run.body);
    let busy = h
        .post(
            "/api/agent/draft/try",
            &json!({"draft": keys, "until": "steps[0]"}),
        )
        .await;
    assert_eq!(busy.status, 409, "{}", busy.body);
    let run_id = run.body["id"].as_str().unwrap();
    let stop = h
        .post(&format!("/api/task-runs/{run_id}/stop"), &json!({}))
        .await;
    assert!(stop.status < 300, "{}", stop.body);
}
