//! Notifications through the console API of a real server on loopback with the fixture device:
//! a task run that fails (started now, or fired by the real scheduler) sends exactly one, a
//! success none unless its task asks, a `notify` step one at its level when asked; each reader
//! keeps their own read state; the live feed tells of new ones; bad parameters and ids are
//! 400s and 404s at their names; a run the liveness sweep interrupts sends one.

#![allow(clippy::unwrap_used)] // test helpers below: a failed set-up is a failed test

mod common;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use common::console_hub::ConsoleHub;
use serde_json::{Value, json};

async fn hub(dir: &std::path::Path) -> ConsoleHub {
    ConsoleHub::start_with(dir, None, vec![fixture_device::fixture_device()], |c| {
        c.admin_password = Some("correct horse battery".to_owned());
        c.cookie_secure = false;
    })
    .await
}

/// A task whose run says `warning: disk almost full` and then fails (nothing to click).
fn failing(name: &str) -> Value {
    json!({"name": name, "device": "fixture", "steps": [
        {"type": "notify", "message": "disk almost full", "level": "warning"},
        {"type": "click", "selector": {"text": "OK"}},
    ]})
}

/// A task whose run succeeds.
fn succeeding(name: &str) -> Value {
    json!({"name": name, "device": "fixture", "steps": [{"type": "key_event", "keys": "a"}]})
}

async fn create(h: &ConsoleHub, task: &Value) -> String {
    let a = h.post("/api/tasks", task).await;
    assert_eq!(a.status, 201, "{}", a.body);
    a.body["id"].as_str().unwrap().to_owned()
}

/// Runs task `id` now and waits for its end (its stream's `done`): the run's id.
async fn run_to_end(h: &ConsoleHub, id: &str) -> String {
    let a = h.post(&format!("/api/tasks/{id}/run"), &json!({})).await;
    assert_eq!(a.status, 202, "{}", a.body);
    let run = a.body["id"].as_str().unwrap().to_owned();
    let (_, events) = h
        .events(&format!("/api/task-runs/{run}/events"), None)
        .await;
    assert_eq!(events.last().unwrap().kind, "done");
    run
}

/// The notifications about `run`, as (kind, level, body).
async fn about(h: &ConsoleHub, run: &str) -> Vec<(String, String, String)> {
    let list = h.get("/api/notifications?limit=200").await;
    assert_eq!(list.status, 200, "{}", list.body);
    list.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["run_id"] == run)
        .map(|n| {
            let s = |k: &str| n[k].as_str().unwrap().to_owned();
            (s("kind"), s("level"), s("body"))
        })
        .collect()
}

async fn set_notify(h: &ConsoleHub, id: &str, notify: Value) -> Value {
    let a = h
        .send(
            "PATCH",
            &format!("/api/tasks/{id}"),
            &json!({ "notify": notify }),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    a.body["notify"].clone()
}

#[tokio::test]
async fn runs_notify_per_their_tasks_settings() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let fails = create(&h, &failing("nightly backup")).await;
    assert_eq!(
        h.get(&format!("/api/tasks/{fails}")).await.body["notify"],
        json!({"on_failure": true, "on_success": false, "on_notify_step": false}),
        "the defaults"
    );

    // A failure: exactly one, linking to the run; the notify step is not sent by default.
    let run = run_to_end(&h, &fails).await;
    let sent = about(&h, &run).await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(
        (sent[0].0.as_str(), sent[0].1.as_str()),
        ("task_run_failed", "error")
    );
    let list = h.get("/api/notifications").await.body;
    let n = &list["items"][0];
    assert_eq!(
        (
            n["title"].clone(),
            n["link"].clone(),
            n["task_id"].clone(),
            n["read"].clone()
        ),
        (
            json!("Task \"nightly backup\" failed"),
            json!(format!("/task-runs/{run}")),
            json!(fails),
            json!(false)
        )
    );
    assert_eq!(
        (list["total"].clone(), list["unread_count"].clone()),
        (json!(1), json!(1))
    );

    // Notify steps on, failures off: the step's text at its level, and nothing for the end.
    assert_eq!(
        set_notify(
            &h,
            &fails,
            json!({"on_notify_step": true, "on_failure": false})
        )
        .await,
        json!({"on_failure": false, "on_success": false, "on_notify_step": true})
    );
    let run = run_to_end(&h, &fails).await;
    assert_eq!(
        about(&h, &run).await,
        [(
            "notify_step".to_owned(),
            "warning".to_owned(),
            "disk almost full".to_owned()
        )]
    );

    // A success sends nothing by default, one when its task asks.
    let works = create(&h, &succeeding("tidy up")).await;
    let run = run_to_end(&h, &works).await;
    assert_eq!(about(&h, &run).await, []);
    set_notify(&h, &works, json!({"on_success": true})).await;
    let run = run_to_end(&h, &works).await;
    let sent = about(&h, &run).await;
    assert_eq!(
        sent.iter()
            .map(|s| (s.0.as_str(), s.1.as_str()))
            .collect::<Vec<_>>(),
        [("task_run_succeeded", "info")]
    );
    assert_eq!(h.get("/api/notifications").await.body["unread_count"], 3);
    h.shutdown().await;
}

#[tokio::test]
async fn a_scheduled_run_that_fails_notifies_once_per_run() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let id = create(&h, &failing("every second")).await;
    let a = h
        .post(
            &format!("/api/tasks/{id}/schedules"),
            &json!({"kind": "every", "seconds": 1}),
        )
        .await;
    assert_eq!(a.status, 201, "{}", a.body);
    let sid = a.body["id"].as_str().unwrap().to_owned();
    h.until("/api/notifications", listed_any).await;
    let off = h
        .send(
            "PATCH",
            &format!("/api/tasks/{id}/schedules/{sid}"),
            &json!({"enabled": false}),
        )
        .await;
    assert_eq!(off.status, 200, "{}", off.body);
    // Once no run of the schedule runs, each failed run has its one notification.
    let runs = h
        .until(&format!("/api/task-runs?schedule={sid}&limit=1000"), |b| {
            b["items"]
                .as_array()
                .is_some_and(|a| a.iter().all(|r| r["status"] != "running"))
        })
        .await;
    let failed: Vec<&str> = runs["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "failed")
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(!failed.is_empty(), "{runs}");
    assert!(
        runs["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["trigger"] == "schedule")
    );
    for run in &failed {
        assert_eq!(about(&h, run).await.len(), 1, "run {run}");
    }
    let all = h.get("/api/notifications?limit=200").await.body;
    assert_eq!(all["total"], failed.len(), "{all}");
    h.shutdown().await;
}

#[tokio::test]
async fn each_reader_keeps_their_own_read_state_and_the_feed_tells_of_new_ones() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let mut feed = h.stream("/api/notifications/stream", None).await;
    assert_eq!(feed.status, 200);
    let first = feed.next().await.unwrap();
    assert_eq!(
        (first.kind.as_str(), first.data.clone()),
        ("unread", json!({"unread_count": 0}))
    );

    let id = create(&h, &failing("a")).await;
    let run_a = run_to_end(&h, &id).await;
    let live = feed.next().await.unwrap();
    assert_eq!(live.kind, "notification");
    assert_eq!(
        (
            live.data["notification"]["run_id"].clone(),
            live.data["unread_count"].clone()
        ),
        (json!(run_a), json!(1))
    );
    let run_b = run_to_end(&h, &id).await;
    assert_eq!(feed.next().await.unwrap().data["unread_count"], 2);
    let list = h.get("/api/notifications").await.body;
    let newest = list["items"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(list["items"][0]["run_id"], json!(run_b));

    // The admin reads one and then all; the API token's state is its own.
    let (cookie, csrf) = h.login().await;
    let http = reqwest::Client::new();
    let as_admin = |method: reqwest::Method, path: &str| {
        http.request(method, format!("{}{path}", h.url))
            .header("cookie", &cookie)
            .header("x-csrf-token", &csrf)
    };
    let read = as_admin(
        reqwest::Method::POST,
        &format!("/api/notifications/{newest}/read"),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(read.status(), 200);
    assert_eq!(
        read.json::<Value>().await.unwrap(),
        json!({"unread_count": 1})
    );
    let mine = as_admin(reqwest::Method::GET, "/api/notifications?unread=1")
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(mine["items"].as_array().unwrap().len(), 1);
    assert_eq!(mine["items"][0]["run_id"], json!(run_a));
    assert_eq!(h.get("/api/notifications").await.body["unread_count"], 2);
    let all = as_admin(reqwest::Method::POST, "/api/notifications/read-all")
        .send()
        .await
        .unwrap();
    assert_eq!(
        all.json::<Value>().await.unwrap(),
        json!({"unread_count": 0})
    );
    assert_eq!(h.get("/api/notifications").await.body["unread_count"], 2);
    let a = h.post("/api/notifications/read-all", &json!({})).await;
    assert_eq!(
        (a.status, a.body.clone()),
        (200, json!({"unread_count": 0}))
    );
    h.shutdown().await;
}

#[tokio::test]
async fn bad_parameters_and_ids_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let id = create(&h, &failing("a")).await;
    for (query, error) in [
        (
            "unread=yes",
            "unread=\"yes\" is not valid: unread takes 1 or 0",
        ),
        (
            "limit=0",
            "limit=\"0\" is not valid: limit takes a whole number from 1 to 200",
        ),
        (
            "limit=201",
            "limit=\"201\" is not valid: limit takes a whole number from 1 to 200",
        ),
        (
            "offset=-1",
            "offset=\"-1\" is not valid: offset takes a whole number, 0 or more",
        ),
    ] {
        let a = h.get(&format!("/api/notifications?{query}")).await;
        assert_eq!(
            (a.status, a.body["error"].as_str()),
            (400, Some(error)),
            "{query}"
        );
    }
    let a = h.post("/api/notifications/nope/read", &json!({})).await;
    assert_eq!(
        (a.status, a.body["error"].as_str()),
        (
            404,
            Some(
                "no notification has the id \"nope\" (it may have been pruned): list them with GET /api/notifications"
            )
        )
    );
    let a = h
        .send("PATCH", &format!("/api/tasks/{id}"), &json!({}))
        .await;
    assert_eq!(a.status, 400, "{}", a.body);
    assert!(
        a.body["error"]
            .as_str()
            .unwrap()
            .starts_with("nothing to change"),
        "{}",
        a.body
    );
    let a = h
        .send(
            "PATCH",
            &format!("/api/tasks/{id}"),
            &json!({"notify": {"loud": true}}),
        )
        .await;
    assert_eq!(a.status, 400, "{}", a.body);
    h.shutdown().await;
}

/// Whether a page of notifications lists any (its items, not its total: a notification made
/// between the page's read and its count is counted but not listed).
fn listed_any(page: &Value) -> bool {
    page["items"]
        .as_array()
        .is_some_and(|items| !items.is_empty())
}

/// Connects a remote device `id` over the device link and registers it.
async fn link_device(h: &ConsoleHub, id: &str) -> common::Ws {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{}/ws", h.addr).into_client_request().unwrap();
    req.headers_mut().insert(
        "authorization",
        format!("Bearer {}", common::DEVICE_TOKEN).parse().unwrap(),
    );
    let mut ws = tokio_tungstenite::connect_async(req).await.unwrap().0;
    common::send(&mut ws, &common::register(id)).await;
    let _ack = common::recv(&mut ws).await;
    ws
}

#[tokio::test]
async fn a_device_that_disconnects_notifies() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let mut ws = link_device(&h, "phone-1").await;
    ws.close(None).await.unwrap();
    let list = h.until("/api/notifications", listed_any).await;
    let n = &list["items"][0];
    assert_eq!(
        (
            n["kind"].clone(),
            n["level"].clone(),
            n["title"].clone(),
            n["device"].clone()
        ),
        (
            json!("device_offline"),
            json!("warning"),
            json!("Device \"phone-1\" went offline"),
            json!("phone-1")
        )
    );
    assert_eq!(list["total"], 1, "{list}");

    h.shutdown().await;
}

/// A run whose server went silent is interrupted by this server's liveness sweep, which sends
/// exactly one `task_run_interrupted` (failures are reported by default).
#[tokio::test]
async fn a_run_the_sweep_interrupts_notifies_once() {
    use deft_app::scheduler::{Clock, ManualClock};
    use deft_app::task_runs::liveness::{HEARTBEAT, STALE_AFTER};
    let clock = ManualClock::new(deft_server::console::now_ms());
    let dir = tempfile::tempdir().unwrap();
    let ticking = clock.clone();
    let h = ConsoleHub::start_with(
        dir.path(),
        None,
        vec![fixture_device::fixture_device()],
        move |c| c.clock = std::sync::Arc::new(ticking),
    )
    .await;
    let task = create(&h, &succeeding("on a dead server")).await;
    // A run another server started and then fell silent (it never beats again).
    let new = deft_store::NewTaskRun {
        task_id: task,
        trigger: deft_store::TaskTrigger::Manual,
        schedule_id: None,
        fire_at_ms: None,
        device: None,
        variables: serde_json::Map::new(),
        started_at_ms: clock.now_ms(),
        owner: Some("a server that died".to_owned()),
        task_version: None,
    };
    let run = match h.console.store().start_task_run(&new).await.unwrap() {
        deft_store::RunStart::Started(r) => r.id,
        other => panic!("{other:?}"),
    };
    assert_eq!(about(&h, &run).await, [], "running: nothing yet");

    // Past the silence a run outlives: the next beat's sweep interrupts it.
    clock.advance(STALE_AFTER + HEARTBEAT);
    h.until("/api/notifications", |b| {
        b["items"]
            .as_array()
            .is_some_and(|items| items.iter().any(|n| n["run_id"] == run.as_str()))
    })
    .await;
    let r = h.get(&format!("/api/task-runs/{run}")).await.body;
    assert_eq!(r["status"], "interrupted", "{r}");
    let sent = about(&h, &run).await;
    assert_eq!(
        sent,
        [(
            "task_run_interrupted".to_owned(),
            "warning".to_owned(),
            "the server stopped while this task ran; the run was cut off (its steps so far are kept)"
                .to_owned()
        )]
    );
    h.shutdown().await;
}
