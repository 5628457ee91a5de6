//! Secrets through the console API of a real server on loopback (SQLite file): names checked,
//! values never answered, listed with the tasks that use them, a delete refused while a task
//! uses one; a task run typing one on the fixture device records no trace of the value — not in
//! its events, its record, its trace folder or the database files — and a run whose secret is
//! missing is refused before it starts, naming it.

#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test

mod common;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use common::console_hub::ConsoleHub;
use serde_json::{Value, json};

const VALUE: &str = "Tr0ub4dor&3-never-shown";

fn login_task(name: &str, secret: &str) -> Value {
    json!({
        "name": name,
        "device": "fixture",
        "variables": {"pw": {"secret": secret}, "user": "ann"},
        "steps": [{"type": "key_event", "keys": "{{user}}{TAB}{{pw}}{ENTER}"}]
    })
}

/// Every file under `dir` that holds `needle`, by path.
fn files_holding(dir: &std::path::Path, needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path)
                && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
            {
                out.push(path.display().to_string());
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_are_kept_sealed_listed_by_name_and_typed_without_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    let h = ConsoleHub::start(dir.path(), None, vec![fixture_device::fixture_device()]).await;

    let bad = h
        .send("PUT", "/api/secrets/9lives", &json!({"value": "x"}))
        .await;
    assert_eq!(bad.status, 400);
    assert_eq!(
        bad.body["error"],
        "\"9lives\" is not a secret's name: use a letter, then letters, digits and _ (at most 64 characters), e.g. LOGIN_PW"
    );
    let empty = h
        .send("PUT", "/api/secrets/LOGIN_PW", &json!({"value": ""}))
        .await;
    assert_eq!(empty.status, 400);
    assert_eq!(
        empty.body["error"],
        "the value of the secret LOGIN_PW is empty: give the value to keep (a task types it as it is)"
    );
    let anonymous = reqwest::Client::new()
        .get(format!("{}/api/secrets", h.url))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status().as_u16(), 401, "only the admin");

    let set = h
        .send("PUT", "/api/secrets/LOGIN_PW", &json!({"value": VALUE}))
        .await;
    assert_eq!(set.status, 200, "{}", set.body);
    assert_eq!(set.body["name"], "LOGIN_PW");
    assert_eq!(set.body["set_by"], "api token");
    let task = h.post("/api/tasks", &login_task("login", "LOGIN_PW")).await;
    assert_eq!(task.status, 201, "{}", task.body);
    let listed = h.get("/api/secrets").await;
    assert_eq!(listed.body["items"][0]["used_by"], json!(["login"]));
    let refused = h.delete("/api/secrets/LOGIN_PW").await;
    assert_eq!(refused.status, 409);
    assert_eq!(
        refused.body["error"],
        "the secret LOGIN_PW is used by the tasks login: remove it from their variables first, or replace its value instead of deleting it"
    );

    let started = h.post("/api/tasks/login/run", &json!({})).await;
    assert_eq!(started.status, 202, "{}", started.body);
    let run_id = started.body["id"].as_str().unwrap().to_owned();
    let run_path = format!("/api/task-runs/{run_id}");
    let run = h.until(&run_path, |r| r["status"] != "running").await;
    assert_eq!(run["status"], "ok", "{run}");
    let (_, events) = h.events(&format!("{run_path}/events"), None).await;
    let typed = events
        .iter()
        .find(|e| e.kind == "step")
        .expect("the key_event's tool call");
    assert_eq!(
        typed.data["args"]["keys"], "ann{TAB}••••(secret LOGIN_PW){ENTER}",
        "the value was filled in, and is shown by its name"
    );
    let mut answers = vec![set.body, listed.body, run.clone(), task.body];
    answers.extend(events.iter().map(|e| e.data.clone()));
    answers.push(h.get("/api/task-runs?task=login").await.body);
    answers.push(h.get("/api/tasks/login").await.body);
    for a in &answers {
        assert!(!a.to_string().contains(VALUE), "an answer shows it: {a}");
    }
    h.console.store().close().await;
    assert_eq!(
        files_holding(dir.path(), VALUE),
        Vec::<String>::new(),
        "no stored byte — database, WAL, trace, report.html — holds the value"
    );
    assert!(
        !files_holding(&h.console.task_trace_dir(&run_id), "••••(secret LOGIN_PW)").is_empty(),
        "the trace shows the secret by name"
    );

    let dir2 = tempfile::tempdir().unwrap();
    let h2 = ConsoleHub::start(dir2.path(), None, vec![fixture_device::fixture_device()]).await;
    h2.post("/api/tasks", &login_task("needs other", "OTHER_PW"))
        .await;
    let missing = h2.post("/api/tasks/needs%20other/run", &json!({})).await;
    assert_eq!(missing.status, 400, "{}", missing.body);
    assert_eq!(missing.body["errors"][0]["path"], "variables");
    assert_eq!(
        missing.body["errors"][0]["message"],
        "the task uses the secrets OTHER_PW, which this server does not have; set it (deft secret set NAME, or the console's Secrets page) and start the run again"
    );
    assert_eq!(
        h2.get("/api/task-runs").await.body["total"],
        0,
        "refused before it started"
    );
    assert_eq!(h2.delete("/api/secrets/OTHER_PW").await.status, 404);
    h2.send("PUT", "/api/secrets/OTHER_PW", &json!({"value": "v"}))
        .await;
    assert_eq!(h2.delete("/api/tasks/needs%20other").await.status, 204);
    assert_eq!(h2.delete("/api/secrets/OTHER_PW").await.status, 204);
    assert_eq!(h2.get("/api/secrets").await.body["items"], json!([]));
}
