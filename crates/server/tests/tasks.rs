//! Tasks through the console API of a real server on loopback (SQLite file, and the test
//! PostgreSQL): CRUD and validation with bad bodies, run now with its SSE stream and replay,
//! stop, the device-busy rule both ways, a schedule firing through the real scheduler, a task
//! on a remote client, and a restart.

#![allow(clippy::unwrap_used)] // test helpers below: a failed set-up is a failed test

mod common;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use std::time::{Duration, Instant};

use common::console_hub::{ConsoleHub, Sse};
use common::{recv, send};
use deft_app::scheduler::{Clock, ManualClock};
use deft_protocol::CommandResult;
use deft_protocol::link::{ClientMessage, ClientMessageType, TaskStatus};
use serde_json::{Value, json};

async fn hub(dir: &std::path::Path) -> ConsoleHub {
    ConsoleHub::start(dir, None, vec![fixture_device::fixture_device()]).await
}

fn keys_task(name: &str) -> Value {
    json!({
        "name": name,
        "device": "fixture",
        "variables": {"second": "b"},
        "steps": [
            {"type": "key_event", "keys": "a"},
            {"type": "group", "name": "more", "steps": [
                {"type": "key_event", "keys": "{{second}}", "note": "from a variable"}
            ]}
        ]
    })
}

fn waiting_task(name: &str) -> Value {
    json!({
        "name": name,
        "device": "fixture",
        "steps": [{"type": "wait", "seconds": 300}, {"type": "key_event", "keys": "never"}]
    })
}

async fn create(h: &ConsoleHub, task: &Value) -> Value {
    let a = h.post("/api/tasks", task).await;
    assert_eq!(a.status, 201, "{}", a.body);
    a.body
}

fn paths(body: &Value) -> Vec<String> {
    body["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("no errors in {body}"))
        .iter()
        .map(|e| e["path"].as_str().unwrap().to_owned())
        .collect()
}

fn kinds(events: &[Sse]) -> Vec<&str> {
    events.iter().map(|e| e.kind.as_str()).collect()
}

/// Reads `stream` until an event of `kind` (returns it).
async fn until_event(stream: &mut common::console_hub::SseReader, kind: &str) -> Sse {
    loop {
        let e = stream.next().await.expect("the stream ended early");
        if e.kind == kind {
            return e;
        }
    }
}

/// A page with at least one run.
fn any_item(page: &Value) -> bool {
    page["items"].as_array().is_some_and(|a| !a.is_empty())
}

#[tokio::test]
#[allow(clippy::too_many_lines)] // one walk through every refusal, then the happy path
async fn bad_tasks_are_refused_with_their_paths_and_nothing_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;

    let a = h
        .post_raw("/api/tasks", br#"{"name": "x", "steps": ["#.to_vec())
        .await;
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(paths(&a.body), [""]);
    assert!(a.body["errors"][0]["line"].is_number(), "{}", a.body);
    assert!(
        a.body["error"]
            .as_str()
            .unwrap()
            .starts_with("the task is invalid")
    );

    let bad = json!({"name": "bad", "device": "fixture", "steps": [
        {"type": "wiat", "seconds": 1},
        {"type": "click", "selector": {"text": "(", "match": "regex"}},
        {"type": "loop", "times": 1000000, "steps": [{"type": "wait", "seconds": 1}]},
        {"type": "wait", "seconds": 301},
        {"type": "click"}
    ]});
    let a = h.post("/api/tasks", &bad).await;
    assert_eq!(a.status, 400, "{}", a.body);
    let got = paths(&a.body);
    assert_eq!(got.len(), 5, "every error at once: {}", a.body);
    for (want, path) in [
        "steps[0].type",
        "steps[1].selector",
        "steps[2].times",
        "steps[3].seconds",
        "steps[4].selector",
    ]
    .iter()
    .zip(&got)
    {
        assert!(
            path.starts_with(want),
            "{path} should start with {want}: {}",
            a.body
        );
    }
    assert!(a.body["error"].as_str().unwrap().contains("and 4 more"));

    let a = h
        .post(
            "/api/tasks",
            &json!({"name": "nodev", "device": "nope", "steps": [{"type": "wait", "seconds": 1}]}),
        )
        .await;
    assert_eq!(
        (a.status, paths(&a.body)),
        (400, vec!["device".to_owned()]),
        "{}",
        a.body
    );
    assert!(
        a.body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("fixture"),
        "names the known devices: {}",
        a.body
    );

    let mut huge = br#"{"name": "huge", "steps": [], "note": ""#.to_vec();
    huge.extend(std::iter::repeat_n(b'x', 10 << 20));
    huge.extend(br#""}"#);
    let a = h.post_raw("/api/tasks", huge).await;
    assert_eq!(
        (a.status, paths(&a.body)),
        (400, vec![String::new()]),
        "{}",
        a.body
    );

    // validate answers the report and stores nothing
    let a = h.post("/api/tasks/validate", &bad).await;
    assert_eq!(a.status, 200);
    assert_eq!(a.body["valid"], false);
    assert_eq!(paths(&a.body).len(), 5);
    let a = h.post("/api/tasks/validate", &keys_task("ok")).await;
    assert_eq!(
        (a.body["valid"].clone(), a.body["errors"].clone()),
        (json!(true), json!([]))
    );

    assert_eq!(h.get("/api/tasks").await.body["total"], 0, "nothing stored");

    // the happy path, and the CRUD around it
    let t = create(&h, &keys_task("daily report")).await;
    let id = t["id"].as_str().unwrap().to_owned();
    assert_eq!(
        (t["name"].clone(), t["device"].clone(), t["enabled"].clone()),
        (json!("daily report"), json!("fixture"), json!(true))
    );
    assert_eq!(t["definition"]["steps"][1]["type"], "group");
    let a = h.post("/api/tasks", &keys_task("daily report")).await;
    assert_eq!(a.status, 409, "{}", a.body);
    let by_name = h.get("/api/tasks/daily%20report").await;
    assert_eq!(
        (by_name.status, by_name.body["id"].clone()),
        (200, json!(id))
    );
    let a = h
        .send(
            "PUT",
            &format!("/api/tasks/{id}"),
            &keys_task("nightly report"),
        )
        .await;
    assert_eq!(
        (a.status, a.body["name"].clone()),
        (200, json!("nightly report")),
        "{}",
        a.body
    );
    let a = h.send("PUT", &format!("/api/tasks/{id}"), &bad).await;
    assert_eq!(a.status, 400);
    assert_eq!(
        h.get(&format!("/api/tasks/{id}")).await.body["name"],
        "nightly report",
        "a refused replace changes nothing"
    );
    let a = h
        .send(
            "PATCH",
            &format!("/api/tasks/{id}"),
            &json!({"enabled": false}),
        )
        .await;
    assert_eq!(a.body["enabled"], false);
    let list = h.get("/api/tasks").await.body;
    assert_eq!(
        (list["total"].clone(), list["items"][0]["name"].clone()),
        (json!(1), json!("nightly report"))
    );

    // schedules: each bad one at its field, nothing stored
    let s = format!("/api/tasks/{id}/schedules");
    for (body, path) in [
        (json!({"kind": "cron", "expr": "61 * * * *"}), "expr"),
        (
            json!({"kind": "cron", "expr": "0 3 * * *", "tz": "Europe/Berlim"}),
            "tz",
        ),
        (json!({"kind": "weekly"}), "kind"),
        (json!({"kind": "every", "seconds": 0}), "seconds"),
        (json!({"kind": "every", "seconds": "5m"}), "seconds"),
        (json!({"kind": "once", "at": "2001-01-01T00:00:00Z"}), "at"),
        (json!({"kind": "once", "at": "tomorrow"}), "at"),
        (
            json!({"kind": "every", "seconds": 60, "busy": "queue"}),
            "busy",
        ),
        (
            json!({"kind": "every", "seconds": 60, "colour": "red"}),
            "colour",
        ),
    ] {
        let a = h.post(&s, &body).await;
        assert_eq!(
            (a.status, paths(&a.body)),
            (400, vec![path.to_owned()]),
            "{body}: {}",
            a.body
        );
    }
    assert_eq!(h.get(&s).await.body, json!([]));
    let a = h
        .post(
            &s,
            &json!({"kind": "cron", "expr": "47 3 * * 1-5", "tz": "Europe/Berlin", "busy": "wait"}),
        )
        .await;
    assert_eq!(a.status, 201, "{}", a.body);
    assert!(
        a.body["description"].as_str().unwrap().contains("03:47"),
        "{}",
        a.body
    );
    assert_eq!(
        a.body["next_fires"].as_array().unwrap().len(),
        3,
        "{}",
        a.body
    );
    assert_eq!(
        (a.body["busy"].clone(), a.body["misfire"].clone()),
        (json!("wait"), json!("run_once"))
    );
    let sid = a.body["id"].as_str().unwrap().to_owned();
    let a = h
        .send("PATCH", &format!("{s}/{sid}"), &json!({"enabled": false}))
        .await;
    assert_eq!(
        (a.body["enabled"].clone(), a.body["next_fires"].clone()),
        (json!(false), json!([]))
    );
    let a = h
        .send(
            "PUT",
            &format!("{s}/{sid}"),
            &json!({"kind": "every", "seconds": 900}),
        )
        .await;
    assert_eq!(
        (
            a.status,
            a.body["description"]
                .as_str()
                .map(|d| d.contains("15 minutes"))
        ),
        (200, Some(true)),
        "{}",
        a.body
    );
    assert_eq!(
        h.get(&format!("/api/tasks/{id}")).await.body["schedules"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(h.delete(&format!("{s}/{sid}")).await.status, 204);

    assert_eq!(h.delete(&format!("/api/tasks/{id}")).await.status, 204);
    assert_eq!(h.get(&format!("/api/tasks/{id}")).await.status, 404);
    h.shutdown().await;
}

#[tokio::test]
async fn a_name_over_200_characters_is_refused_at_its_field_and_one_of_200_is_stored_whole() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let task = |name: &str| json!({"name": name, "device": "fixture", "steps": [{"type": "wait", "seconds": 1}]});
    // Characters, not bytes: 200 of "ö" (400 bytes) are a name, 201 are not.
    let at_limit = "ö".repeat(200);
    let over = "ö".repeat(201);

    let a = h.post("/api/tasks", &task(&over)).await;
    assert_eq!(
        (a.status, paths(&a.body)),
        (400, vec!["name".to_owned()]),
        "{}",
        a.body
    );
    assert_eq!(
        a.body["errors"][0]["message"],
        "the task's name must be a non-blank text of at most 200 characters, not a text of 201 characters"
    );
    let listed = h.get("/api/tasks?q=%C3%B6%C3%B6%C3%B6").await;
    assert_eq!(listed.body["total"], 0, "nothing stored: {}", listed.body);

    let made = create(&h, &task(&at_limit)).await;
    assert_eq!(made["name"], at_limit.as_str(), "stored whole, not cut");
    let id = made["id"].as_str().unwrap();
    let a = h
        .send("PUT", &format!("/api/tasks/{id}"), &task(&over))
        .await;
    assert_eq!(
        (a.status, paths(&a.body)),
        (400, vec!["name".to_owned()]),
        "{}",
        a.body
    );
    assert_eq!(
        h.get(&format!("/api/tasks/{id}")).await.body["name"],
        at_limit.as_str()
    );
}

#[tokio::test]
async fn the_task_list_filters_by_name_and_says_each_schedule_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    for name in ["daily Report", "nightly REPORT", "backup 100%"] {
        create(&h, &keys_task(name)).await;
    }
    let s = "/api/tasks/daily%20Report/schedules";
    let cron = h
        .post(
            s,
            &json!({"kind": "cron", "expr": "47 3 * * 1-5", "tz": "Europe/Berlin"}),
        )
        .await;
    assert_eq!(cron.status, 201, "{}", cron.body);
    let every = h
        .post(
            s,
            &json!({"kind": "every", "seconds": 900, "enabled": false}),
        )
        .await;
    assert_eq!(every.status, 201, "{}", every.body);

    let names = |page: &Value| -> Vec<String> {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let a = h.get("/api/tasks?q=report").await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        names(&a.body),
        ["daily Report", "nightly REPORT"],
        "any case"
    );
    assert_eq!(a.body["total"], 2, "the total counts the matches");
    let daily = &a.body["items"][0];
    assert_eq!(
        daily["schedule_summaries"],
        json!([
            {"id": cron.body["id"], "description": cron.body["description"], "enabled": true},
            {"id": every.body["id"], "description": every.body["description"], "enabled": false}
        ]),
        "{daily}"
    );
    assert!(
        cron.body["description"].as_str().unwrap().contains("03:47"),
        "{}",
        cron.body
    );
    assert_eq!(a.body["items"][1]["schedule_summaries"], json!([]));

    let a = h.get("/api/tasks?q=100%25").await;
    assert_eq!(names(&a.body), ["backup 100%"], "% is a plain character");
    let a = h.get("/api/tasks?q=%25%25").await;
    assert_eq!(names(&a.body), Vec::<String>::new());
    let a = h.get("/api/tasks?q=&limit=1&offset=1").await;
    assert_eq!(
        (names(&a.body), a.body["total"].clone()),
        (vec!["daily Report".to_owned()], json!(3)),
        "an empty filter lists every task, by name"
    );
    let a = h.get("/api/tasks?colour=red").await;
    assert_eq!(a.status, 400, "{}", a.body);
    h.shutdown().await;
}

#[tokio::test]
async fn the_task_routes_need_a_login_and_cookie_changes_need_the_csrf_token() {
    let dir = tempfile::tempdir().unwrap();
    let h = ConsoleHub::start_with(
        dir.path(),
        None,
        vec![fixture_device::fixture_device()],
        |c| {
            c.admin_password = Some("correct horse battery".to_owned());
            c.cookie_secure = false;
        },
    )
    .await;
    let http = reqwest::Client::new();
    for (method, path) in [
        ("GET", "/api/tasks"),
        ("POST", "/api/tasks"),
        ("POST", "/api/tasks/validate"),
        ("GET", "/api/task-runs"),
        ("POST", "/api/task-runs/x/stop"),
    ] {
        let r = http
            .request(
                reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
                format!("{}{path}", h.url),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401, "{method} {path}");
    }
    let (cookie, csrf) = h.login().await;
    let post = |with_csrf: bool| {
        let mut r = http
            .post(format!("{}/api/tasks", h.url))
            .header("cookie", &cookie)
            .json(&keys_task("by a person"));
        if with_csrf {
            r = r.header("x-csrf-token", &csrf);
        }
        r.send()
    };
    assert_eq!(post(false).await.unwrap().status(), 403);
    assert_eq!(
        h.get("/api/tasks").await.body["total"],
        0,
        "nothing stored without the token"
    );
    assert_eq!(post(true).await.unwrap().status(), 201);
    let run = http
        .post(format!("{}/api/tasks/by%20a%20person/run", h.url))
        .header("cookie", &cookie)
        .header("x-csrf-token", &csrf)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(run.status(), 202);
    assert_eq!(
        run.json::<Value>().await.unwrap()["trigger"],
        "manual",
        "a person's run from the console"
    );
    h.shutdown().await;
}

/// Runs a task now and checks its stream, replay, stored steps and trace.
#[allow(clippy::too_many_lines)] // one run followed through every view of it
async fn run_now_and_replay(h: &ConsoleHub) {
    let t = create(h, &keys_task("keys")).await;
    let id = t["id"].as_str().unwrap();
    let a = h
        .post(
            &format!("/api/tasks/{id}/run"),
            &json!({"variables": {"second": "c"}}),
        )
        .await;
    assert_eq!(a.status, 202, "{}", a.body);
    assert_eq!(
        (a.body["trigger"].clone(), a.body["status"].clone()),
        (json!("api"), json!("running"))
    );
    let run = a.body["id"].as_str().unwrap().to_owned();
    let events_path = format!("/api/task-runs/{run}/events");
    let (status, live) = h.events(&events_path, None).await;
    assert_eq!(status, 200);
    let seqs: Vec<u64> = live.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (1..=live.len() as u64).collect::<Vec<_>>(),
        "every event once, in order"
    );
    assert_eq!(kinds(&live).iter().filter(|k| **k == "done").count(), 1);
    let done = live.last().unwrap();
    assert_eq!(
        (done.kind.as_str(), done.data["status"].as_str()),
        ("done", Some("completed")),
        "{:?}",
        kinds(&live)
    );
    assert_eq!(
        kinds(&live).iter().filter(|k| **k == "task_step").count(),
        3,
        "{:?}",
        kinds(&live)
    );
    let typed: Vec<&Value> = live
        .iter()
        .filter(|e| e.kind == "step")
        .map(|e| &e.data["args"])
        .collect();
    assert!(
        typed.iter().any(|a| a.to_string().contains('c')),
        "the run's variable was used: {typed:?}"
    );

    let (status, replay) = h.events(&events_path, Some(2)).await;
    assert_eq!(status, 200);
    assert_eq!(
        replay.iter().map(|e| e.seq).collect::<Vec<_>>(),
        seqs[2..].to_vec()
    );
    assert_eq!(replay.last().unwrap().data, done.data);
    let (status, nothing) = h.events(&events_path, Some(done.seq)).await;
    assert_eq!(
        (status, nothing.len()),
        (204, 0),
        "a watcher that saw done stops reconnecting"
    );

    let r = h.get(&format!("/api/task-runs/{run}")).await.body;
    assert_eq!(
        (
            r["status"].clone(),
            r["steps"]["ok"].clone(),
            r["last_seq"].clone()
        ),
        (json!("ok"), json!(3), json!(done.seq)),
        "{r}"
    );
    let steps: Vec<&str> = r["step_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["steps[0]", "steps[1].steps[0]", "steps[1]"]);
    assert_eq!(r["variables"], json!({"second": "c"}));
    assert_eq!(
        h.get(&format!("/api/task-runs/{run}/images/img-1"))
            .await
            .status,
        404,
        "no step kept an image"
    );

    let runs = h
        .get("/api/task-runs?task=keys&status=ok&limit=5&offset=0")
        .await
        .body;
    assert_eq!(
        (runs["total"].clone(), runs["items"][0]["id"].clone()),
        (json!(1), json!(run))
    );
    assert_eq!(
        h.get("/api/task-runs?task=keys&status=failed").await.body["total"],
        0
    );
    let a = h.get("/api/task-runs?status=bogus").await;
    assert_eq!((a.status, paths(&a.body)), (400, vec!["status".to_owned()]));
    assert_eq!(
        h.get("/api/tasks").await.body["items"][0]["last_run"]["id"],
        json!(run)
    );
}

#[tokio::test]
async fn run_now_streams_once_replays_from_last_event_id_and_stores_the_steps() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    run_now_and_replay(&h).await;
    let run = h.get("/api/task-runs").await.body["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let trace = dir.path().join("task-runs").join(&run);
    assert!(
        trace.join("report.html").is_file(),
        "a trace with report.html like agent runs"
    );
    assert!(trace.join("trace.jsonl").is_file());
    h.shutdown().await;
}

#[tokio::test]
async fn run_now_works_the_same_on_postgresql() {
    deft_test_support::postgres::with_scratch_database(|url| async move {
        let dir = tempfile::tempdir().unwrap();
        let h = ConsoleHub::start(
            dir.path(),
            Some(&url),
            vec![fixture_device::fixture_device()],
        )
        .await;
        run_now_and_replay(&h).await;
        h.shutdown().await;
    })
    .await;
}

#[tokio::test]
#[allow(clippy::too_many_lines)] // the busy rule both ways around one held device
async fn a_task_holds_its_device_and_stop_ends_it_as_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let t = create(&h, &waiting_task("long wait")).await;
    let id = t["id"].as_str().unwrap().to_owned();
    let a = h
        .post(
            &format!("/api/tasks/{id}/run"),
            &json!({"trigger": "manual"}),
        )
        .await;
    assert_eq!(
        (a.status, a.body["trigger"].clone()),
        (202, json!("manual")),
        "{}",
        a.body
    );
    let run = a.body["id"].as_str().unwrap().to_owned();
    let mut stream = h
        .stream(&format!("/api/task-runs/{run}/events"), None)
        .await;
    let started = until_event(&mut stream, "task_step_start").await;
    assert_eq!(started.data["step_type"], "wait");
    let r = h.get(&format!("/api/task-runs/{run}")).await.body;
    assert_eq!(
        (r["status"].clone(), r["current_step"]["path"].clone()),
        (json!("running"), json!("steps[0]"))
    );

    // AI does not fight tasks for a device: an agent run, a batch and a second run get 409.
    let a = h
        .post(
            "/api/agent/run",
            &json!({"prompt": "do something", "device": "fixture"}),
        )
        .await;
    assert_eq!(a.status, 409, "{}", a.body);
    let text = a.body["error"].as_str().unwrap();
    assert!(
        text.contains("is running task \"long wait\"") && text.contains(&run),
        "{text}"
    );
    assert_eq!(
        h.get("/api/agent/run").await.body["run"],
        Value::Null,
        "the refused agent run left nothing"
    );
    let a = h
        .post(
            "/api/devices/fixture/exec",
            &json!({"commands": [{"tool_name": "noop"}]}),
        )
        .await;
    assert_eq!(a.status, 409);
    assert!(
        a.body["error"].as_str().unwrap().contains("long wait"),
        "{}",
        a.body
    );
    let a = h.post(&format!("/api/tasks/{id}/run"), &json!({})).await;
    assert_eq!(a.status, 409);
    assert!(
        a.body["error"].as_str().unwrap().contains("long wait"),
        "{}",
        a.body
    );
    assert_eq!(
        h.delete(&format!("/api/tasks/{id}")).await.status,
        409,
        "a running task is not deleted"
    );

    let asked = Instant::now();
    let a = h
        .post(&format!("/api/task-runs/{run}/stop"), &json!({}))
        .await;
    assert_eq!((a.status, a.body["stopping"].clone()), (200, json!(true)));
    let done = until_event(&mut stream, "done").await;
    let took = asked.elapsed();
    assert!(
        took < Duration::from_secs(10),
        "a stop ends the run promptly (took {took:?})"
    );
    eprintln!("stop → done: {took:?}");
    assert_eq!(done.data["status"], "stopped");
    assert!(stream.next().await.is_none(), "the stream ends after done");
    let r = h.get(&format!("/api/task-runs/{run}")).await.body;
    assert_eq!(r["status"], "stopped", "{r}");
    assert_eq!(r["step_results"][0]["status"], "failed", "{r}");
    let a = h
        .post(&format!("/api/task-runs/{run}/stop"), &json!({}))
        .await;
    assert_eq!(a.status, 409, "{}", a.body);
    assert_eq!(
        h.post("/api/task-runs/nope/stop", &json!({})).await.status,
        404
    );

    // The device is free the moment done is seen.
    let a = h
        .post(
            "/api/devices/fixture/exec",
            &json!({"commands": [{"tool_name": "noop"}]}),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);

    // A task whose device is gone: 400 at device.
    let a = h
        .post(&format!("/api/tasks/{id}/run"), &json!({"device": "gone"}))
        .await;
    assert_eq!(
        (a.status, paths(&a.body)),
        (400, vec!["device".to_owned()]),
        "{}",
        a.body
    );
    h.shutdown().await;
}

#[tokio::test]
async fn schedules_fire_through_the_real_scheduler_and_a_busy_device_skips_per_policy() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let t = create(&h, &keys_task("every second")).await;
    let id = t["id"].as_str().unwrap().to_owned();
    let a = h
        .post(
            &format!("/api/tasks/{id}/schedules"),
            &json!({"kind": "every", "seconds": 1}),
        )
        .await;
    assert_eq!(a.status, 201, "{}", a.body);
    let sid = a.body["id"].as_str().unwrap().to_owned();
    let runs = h
        .until(
            &format!("/api/task-runs?schedule={sid}&status=ok"),
            any_item,
        )
        .await;
    let first = &runs["items"][0];
    assert_eq!(
        (first["trigger"].clone(), first["schedule_id"].clone()),
        (json!("schedule"), json!(sid))
    );
    assert!(first["fire_at"].is_string());
    assert_eq!(
        h.get(&format!("/api/task-runs/{}", first["id"].as_str().unwrap()))
            .await
            .body["steps"]["ok"],
        3
    );

    // Hold the device with a long exec batch: the next fires are skipped (busy: skip), and
    // each skip is recorded with why.
    let hold = json!({"commands": [{"tool_name": "sleep", "parameters": {"ms": 60000}}]});
    let skipped_path = format!("/api/task-runs?schedule={sid}&status=skipped");
    let skipped = loop {
        let batch = h.post("/api/devices/fixture/exec", &hold);
        let skipped = h.until(&skipped_path, any_item);
        tokio::select! {
            s = skipped => break s,
            // A scheduled run held the device at that moment: hold it again.
            a = batch => assert_eq!(a.status, 409, "the batch ended first: {a:?}"),
        }
    };
    let why = skipped["items"][0]["error"].as_str().unwrap();
    assert!(why.contains("busy"), "{why}");
    // The held batch was dropped with the select; switch the schedule off.
    let a = h
        .send(
            "PATCH",
            &format!("/api/tasks/{id}/schedules/{sid}"),
            &json!({"enabled": false}),
        )
        .await;
    assert_eq!(a.body["enabled"], false);
    h.shutdown().await;
}

/// Waits (30 s at most) for a scheduler event `pick` accepts.
async fn scheduler_event(
    events: &mut tokio::sync::broadcast::Receiver<deft_app::scheduler::SchedulerEvent>,
    pick: impl Fn(&deft_app::scheduler::SchedulerEvent) -> bool,
) -> deft_app::scheduler::SchedulerEvent {
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let e = events.recv().await.unwrap();
            if pick(&e) {
                return e;
            }
        }
    })
    .await
    .expect("the scheduler event within 30 s")
}

#[tokio::test]
async fn a_fire_on_a_busy_device_waits_and_runs_the_moment_the_device_is_free() {
    use deft_app::scheduler::SchedulerEvent;
    let dir = tempfile::tempdir().unwrap();
    // No periodic recheck within the test: only the device's release can start the run.
    let h = ConsoleHub::start_with(
        dir.path(),
        None,
        vec![fixture_device::fixture_device()],
        |c| {
            c.scheduler.busy_recheck = Duration::from_secs(3_600);
        },
    )
    .await;
    // The scheduler starts with serve, which the hub spawned.
    let mut events = loop {
        match h.console.tasks().scheduler_events() {
            Some(e) => break e,
            None => tokio::task::yield_now().await,
        }
    };
    let t = create(&h, &keys_task("waits for the device")).await;
    let id = t["id"].as_str().unwrap().to_owned();
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
    let soon = deft_server::console::now_ms() + 1_000;
    let a = h
        .post(
            &format!("/api/tasks/{id}/schedules"),
            &json!({"kind": "once", "at_ms": soon, "busy": "wait"}),
        )
        .await;
    assert_eq!(a.status, 201, "{}", a.body);
    let waiting =
        scheduler_event(&mut events, |e| matches!(e, SchedulerEvent::Waiting { .. })).await;
    let SchedulerEvent::Waiting { reason, .. } = waiting else {
        unreachable!()
    };
    assert!(reason.contains("busy"), "{reason}");
    // The caller goes away: the batch is cancelled and the device freed.
    drop(batch);
    let started =
        scheduler_event(&mut events, |e| matches!(e, SchedulerEvent::Started { .. })).await;
    let SchedulerEvent::Started { fire, run_id } = started else {
        unreachable!()
    };
    assert_eq!((fire.fire_at_ms, fire.attempt), (soon, 2));
    let r = h
        .until(&format!("/api/task-runs/{run_id}"), |b| b["status"] == "ok")
        .await;
    assert_eq!(r["trigger"], "schedule");
    assert_eq!(
        h.get(&format!("/api/task-runs?task={id}&status=skipped"))
            .await
            .body["total"],
        0,
        "nothing skipped"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn an_agent_run_on_the_device_makes_fires_skip_or_wait_per_their_busy_policy() {
    use deft_app::scheduler::SchedulerEvent;
    use deft_test_support::model::{Reply, ScriptedModel};
    // An answer that streams for minutes: the agent run holds the device until it is stopped.
    let slow = Reply::text(&"slowly ".repeat(2_000)).with_delay(Duration::from_millis(100));
    let model = ScriptedModel::start(vec![slow.into()]).await;
    let dir = tempfile::tempdir().unwrap();
    let h = ConsoleHub::start_with(
        dir.path(),
        None,
        vec![fixture_device::fixture_device()],
        |c| {
            c.defaults.api_base = Some(model.base_url());
            c.scheduler.busy_recheck = Duration::from_secs(3_600);
        },
    )
    .await;
    let mut events = loop {
        match h.console.tasks().scheduler_events() {
            Some(e) => break e,
            None => tokio::task::yield_now().await,
        }
    };
    let skips = create(&h, &keys_task("skips")).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let waits = create(&h, &keys_task("waits")).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let a = h
        .post(
            "/api/agent/run",
            &json!({"prompt": "talk slowly", "device": "fixture"}),
        )
        .await;
    assert_eq!(a.status, 202, "{}", a.body);
    let agent_run = a.body["run_id"].as_str().unwrap().to_owned();
    let soon = deft_server::console::now_ms() + 1_000;
    for (task, busy) in [(&skips, "skip"), (&waits, "wait")] {
        let a = h
            .post(
                &format!("/api/tasks/{task}/schedules"),
                &json!({"kind": "once", "at_ms": soon, "busy": busy}),
            )
            .await;
        assert_eq!(a.status, 201, "{}", a.body);
    }
    let (mut skipped, mut waiting) = (None, None);
    while skipped.is_none() || waiting.is_none() {
        match scheduler_event(&mut events, |_| true).await {
            SchedulerEvent::Skipped {
                fire,
                run_id,
                reason,
            } if fire.task_id == skips => skipped = Some((run_id, reason)),
            SchedulerEvent::Waiting { fire, .. } if fire.task_id == waits => waiting = Some(fire),
            other => panic!("unexpected while the agent runs: {other:?}"),
        }
    }
    let (skipped_run, reason) = skipped.unwrap();
    assert!(reason.contains("busy"), "{reason}");
    let r = h.get(&format!("/api/task-runs/{skipped_run}")).await.body;
    assert_eq!(
        (r["status"].clone(), r["trigger"].clone()),
        (json!("skipped"), json!("schedule")),
        "recorded: {r}"
    );
    assert_eq!(
        h.get("/api/agent/run").await.body["run"]["run_id"],
        json!(agent_run),
        "the agent run went on"
    );

    let a = h
        .post("/api/agent/stop", &json!({"run_id": agent_run}))
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    let started =
        scheduler_event(&mut events, |e| matches!(e, SchedulerEvent::Started { .. })).await;
    let SchedulerEvent::Started { fire, run_id } = started else {
        unreachable!()
    };
    assert_eq!(fire.task_id, waits);
    let r = h
        .until(&format!("/api/task-runs/{run_id}"), |b| b["status"] == "ok")
        .await;
    assert_eq!(r["schedule_id"], json!(fire.schedule_id));
    h.shutdown().await;
}

/// A raw WebSocket device that answers every command with success and reports the tools it
/// was asked for.
async fn remote_device(
    h: &ConsoleHub,
    id: &'static str,
) -> tokio::sync::mpsc::UnboundedReceiver<String> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{}/ws", h.addr).into_client_request().unwrap();
    req.headers_mut().insert(
        "authorization",
        format!("Bearer {}", common::DEVICE_TOKEN).parse().unwrap(),
    );
    let mut ws = tokio_tungstenite::connect_async(req).await.unwrap().0;
    send(&mut ws, &common::register(id)).await;
    let _ack = recv(&mut ws).await;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let m = recv(&mut ws).await;
            let (Some(actions), Some(rid)) = (m.actions, m.response_id) else {
                continue;
            };
            let results = actions
                .iter()
                .map(|c| {
                    let _ = tx.send(c.tool_name.clone());
                    CommandResult::success(&c.call_id, json!("done"), None)
                })
                .collect();
            let mut answer =
                ClientMessage::new(ClientMessageType::CommandResults, TaskStatus::Continue);
            answer.client_id = Some(id.to_owned());
            answer.prev_response_id = Some(rid);
            answer.action_results = Some(results);
            send(&mut ws, &answer).await;
        }
    });
    rx
}

#[tokio::test]
async fn a_task_runs_on_a_remote_client_through_its_link() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let mut calls = remote_device(&h, "remote-1").await;
    let mut task = keys_task("remote keys");
    task["device"] = json!("remote-1");
    let t = create(&h, &task).await;
    assert_eq!(t["device"], "remote-1");
    let a = h
        .post(
            &format!("/api/tasks/{}/run", t["id"].as_str().unwrap()),
            &json!({}),
        )
        .await;
    assert_eq!(a.status, 202, "{}", a.body);
    let run = a.body["id"].as_str().unwrap().to_owned();
    let (_, events) = h
        .events(&format!("/api/task-runs/{run}/events"), None)
        .await;
    assert_eq!(
        events.last().unwrap().data["status"],
        "completed",
        "{:?}",
        kinds(&events)
    );
    let mut tools = Vec::new();
    while let Ok(t) = calls.try_recv() {
        tools.push(t);
    }
    assert_eq!(
        tools,
        ["keyboard_input", "keyboard_input"],
        "the steps ran on the client"
    );
    let r = h.get(&format!("/api/task-runs/{run}")).await.body;
    assert_eq!(
        (r["device"].clone(), r["status"].clone()),
        (json!("remote-1"), json!("ok"))
    );
    h.shutdown().await;
}

#[tokio::test]
async fn after_a_restart_runs_left_running_are_interrupted_and_finished_ones_replay() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let t = create(&h, &keys_task("before")).await;
    let id = t["id"].as_str().unwrap().to_owned();
    let run = run_now(&h, &id).await;
    let (_, before) = h
        .events(&format!("/api/task-runs/{run}/events"), None)
        .await;
    // A run a crashed server left running (recorded, never finished).
    let left = match h
        .console
        .store()
        .start_task_run(&deft_store::NewTaskRun {
            task_id: id.clone(),
            trigger: deft_store::TaskTrigger::Manual,
            schedule_id: None,
            fire_at_ms: None,
            device: None,
            variables: serde_json::Map::new(),
            started_at_ms: 1,
            owner: None,
            task_version: None,
        })
        .await
        .unwrap()
    {
        deft_store::RunStart::Started(r) => r.id,
        other => panic!("{other:?}"),
    };
    h.shutdown().await;

    let h = hub(dir.path()).await;
    let r = h.get(&format!("/api/task-runs/{left}")).await.body;
    assert_eq!(r["status"], "interrupted", "{r}");
    let (_, closing) = h
        .events(&format!("/api/task-runs/{left}/events"), None)
        .await;
    assert_eq!(kinds(&closing), ["done"]);
    assert_eq!(closing[0].data["status"], "failed");
    let (_, after) = h
        .events(&format!("/api/task-runs/{run}/events"), None)
        .await;
    assert_eq!(
        after
            .iter()
            .map(|e| (e.seq, e.data.clone()))
            .collect::<Vec<_>>(),
        before
            .iter()
            .map(|e| (e.seq, e.data.clone()))
            .collect::<Vec<_>>(),
        "a finished run replays from its trace after the restart"
    );
    let a = h.post(&format!("/api/tasks/{id}/run"), &json!({})).await;
    assert_eq!(a.status, 202, "the task runs again: {}", a.body);
    h.shutdown().await;
}

#[tokio::test]
async fn shutdown_stops_the_task_runs_and_stores_their_end_before_it_returns() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let (run, _stream) = start_waiting(&h, "long wait").await;
    h.shutdown().await;
    let store = deft_store::Store::open(dir.path(), None).await.unwrap();
    let r = store.task_run(&run).await.unwrap();
    assert_eq!(
        (r.status, r.steps.failed, r.steps.skipped),
        (deft_store::TaskRunStatus::Stopped, 1, 1),
        "stopped and stored, not left running: {r:?}"
    );
    store.close().await;
}

#[tokio::test]
async fn a_failed_step_keeps_a_screenshot_the_api_lists_and_serves() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let t = create(
        &h,
        &json!({"name": "fails", "device": "fixture", "steps": [
            {"type": "notify", "message": "starting"},
            {"type": "click", "selector": {"text": "OK"}},
        ]}),
    )
    .await;
    let id = t["id"].as_str().unwrap();
    let run = run_now(&h, id).await;
    let (_, events) = h
        .events(&format!("/api/task-runs/{run}/events"), None)
        .await;
    assert_eq!(events.last().unwrap().data["status"], "failed");
    let r = h.get(&format!("/api/task-runs/{run}")).await.body;
    let steps = r["step_results"].as_array().unwrap();
    assert_eq!(
        (steps[0]["message"].clone(), steps[0]["image_ids"].clone()),
        (json!("info: starting"), json!([])),
        "{r}"
    );
    let ids = steps[1]["image_ids"].as_array().unwrap();
    assert_eq!(ids.len(), 1, "{r}");
    let image = ids[0].as_str().unwrap();
    let (status, kind, bytes) = h
        .get_bytes(&format!("/api/task-runs/{run}/images/{image}"))
        .await;
    assert_eq!((status, kind.as_str()), (200, "image/png"));
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    let step = events
        .iter()
        .find(|e| e.kind == "task_step" && e.data["path"] == "steps[1]")
        .unwrap();
    assert_eq!(
        step.data["image_ids"],
        json!([image]),
        "the event says the same"
    );
    let (status, _, _) = h
        .get_bytes(&format!("/api/task-runs/{run}/images/img-99"))
        .await;
    assert_eq!(status, 404);
    h.shutdown().await;
}

/// Runs task `id` now on `h` (as the API's caller): the run's id.
async fn run_now(h: &ConsoleHub, id: &str) -> String {
    let a = h.post(&format!("/api/tasks/{id}/run"), &json!({})).await;
    assert_eq!(a.status, 202, "{}", a.body);
    a.body["id"].as_str().unwrap().to_owned()
}

/// Creates `waiting_task(name)` on `h`, runs it and waits until its first step runs: the run's
/// id and its event stream.
async fn start_waiting(h: &ConsoleHub, name: &str) -> (String, common::console_hub::SseReader) {
    let t = create(h, &waiting_task(name)).await;
    let id = t["id"].as_str().unwrap();
    let run = run_now(h, id).await;
    let mut stream = h
        .stream(&format!("/api/task-runs/{run}/events"), None)
        .await;
    until_event(&mut stream, "task_step_start").await;
    (run, stream)
}

/// A hub on `url` (none: a SQLite file in `dir`) with the fixture device whose clock is `clock`.
async fn hub_on(dir: &std::path::Path, url: Option<&str>, clock: &ManualClock) -> ConsoleHub {
    let clock = clock.clone();
    ConsoleHub::start_with(
        dir,
        url,
        vec![fixture_device::fixture_device()],
        move |cc| cc.clock = std::sync::Arc::new(clock),
    )
    .await
}

/// Records a running run of a new task `name` as server `owner` (one that says nothing more).
async fn run_of(h: &ConsoleHub, name: &str, owner: &str, at_ms: i64) -> String {
    let task = create(h, &keys_task(name)).await;
    let new = deft_store::NewTaskRun {
        task_id: task["id"].as_str().unwrap().to_owned(),
        trigger: deft_store::TaskTrigger::Manual,
        schedule_id: None,
        fire_at_ms: None,
        device: None,
        variables: serde_json::Map::new(),
        started_at_ms: at_ms,
        owner: Some(owner.to_owned()),
        task_version: None,
    };
    match h.console.store().start_task_run(&new).await.unwrap() {
        deft_store::RunStart::Started(r) => r.id,
        other => panic!("{other:?}"),
    }
}

async fn status_of(h: &ConsoleHub, run: &str) -> String {
    let r = h.get(&format!("/api/task-runs/{run}")).await.body;
    r["status"].as_str().unwrap_or_default().to_owned()
}

/// Waits until this server's beat at `now` reached run `run` (it is recorded as this server's).
async fn until_beat(h: &ConsoleHub, run: &str, now: i64) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while h
        .console
        .store()
        .task_run(run)
        .await
        .unwrap()
        .heartbeat_at_ms
        != Some(now)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "no beat at {now} reached {run}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A draft being tried (designer mode's "try it") is this server's run as a task's is: recorded
/// with the server and beating, so the sweep for runs of silent servers leaves it alone. (A try
/// recorded without its server was taken for a dead server's run and interrupted mid-run at the
/// first beat.)
#[tokio::test]
async fn a_draft_being_tried_is_this_servers_run_and_outlives_the_sweeps() {
    use deft_app::task_runs::liveness::HEARTBEAT;
    let clock = ManualClock::new(deft_server::console::now_ms());
    let dir = tempfile::tempdir().unwrap();
    let h = hub_on(dir.path(), None, &clock).await;
    let a = h
        .post(
            "/api/agent/draft/try",
            &json!({"draft": waiting_task("a long try")}),
        )
        .await;
    assert_eq!(a.status, 202, "{}", a.body);
    let run = a.body["id"].as_str().unwrap().to_owned();
    let mut stream = h
        .stream(&format!("/api/task-runs/{run}/events"), None)
        .await;
    until_event(&mut stream, "task_step_start").await;
    let stored = h.console.store().task_run(&run).await.unwrap();
    assert_eq!(stored.owner.as_deref(), Some(h.console.server_id()));

    // A minute of beats (past the 45 s a silent server's run lasts): the try goes on.
    for _ in 0..4 {
        clock.advance(HEARTBEAT);
        until_beat(&h, &run, clock.now_ms()).await;
        assert_eq!(status_of(&h, &run).await, "running");
    }
    h.post(&format!("/api/task-runs/{run}/stop"), &json!({}))
        .await;
    assert_eq!(
        until_event(&mut stream, "done").await.data["status"],
        "stopped"
    );
    assert_eq!(status_of(&h, &run).await, "stopped");
    h.shutdown().await;
}

#[tokio::test]
async fn two_servers_on_postgres_interrupt_only_the_runs_of_a_silent_server() {
    use deft_app::task_runs::liveness::HEARTBEAT;
    deft_test_support::postgres::with_scratch_database(|url| async move {
        let clock = ManualClock::new(deft_server::console::now_ms());
        let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let a = hub_on(dir_a.path(), Some(&url), &clock).await;
        let (live, mut stream) = start_waiting(&a, "long wait on A").await;

        // B starts on the same database: A's run is A's, B's start-up leaves it alone.
        let b = hub_on(dir_b.path(), Some(&url), &clock).await;
        assert_ne!(a.console.server_id(), b.console.server_id());
        assert_eq!(status_of(&b, &live).await, "running");
        // A run of a server that died: it never beats again.
        let dead = run_of(&b, "on a dead server", "a server that died", clock.now_ms()).await;

        // A minute passes: A's heartbeat keeps its run; the silent one is ended after 45 s.
        for beat in 1..=4 {
            clock.advance(HEARTBEAT);
            until_beat(&b, &live, clock.now_ms()).await;
            if beat < 4 {
                assert_eq!(
                    status_of(&b, &dead).await,
                    "running",
                    "45 s, not more: {beat}"
                );
            }
        }
        b.until(&format!("/api/task-runs/{dead}"), |r| {
            r["status"] == "interrupted"
        })
        .await;
        assert_eq!(status_of(&a, &live).await, "running", "A's run goes on");
        let (_, closing) = b
            .events(&format!("/api/task-runs/{dead}/events"), None)
            .await;
        assert_eq!(kinds(&closing), ["done"]);
        assert_eq!(closing[0].data["status"], "failed");

        // B restarts: what its previous process left ends at once (no wait for the beat),
        // what A runs does not.
        let left = run_of(&b, "left by B", b.console.server_id(), clock.now_ms()).await;
        let b_id = b.console.server_id().to_owned();
        b.shutdown().await;
        let b = hub_on(dir_b.path(), Some(&url), &clock).await;
        assert_eq!(
            b.console.server_id(),
            b_id,
            "the same server after a restart"
        );
        assert_eq!(status_of(&b, &left).await, "interrupted");
        assert_eq!(status_of(&b, &live).await, "running");

        a.post(&format!("/api/task-runs/{live}/stop"), &json!({}))
            .await;
        assert_eq!(
            until_event(&mut stream, "done").await.data["status"],
            "stopped"
        );
        b.shutdown().await;
        a.shutdown().await;
    })
    .await;
}
