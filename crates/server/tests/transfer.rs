//! Export and import through the console API of real servers on loopback: a folder exported
//! with its schedules and imported into a fresh server, the dry run, each `on_clash`, and
//! documents refused whole (an invalid third task, too large, not a document).

#![allow(clippy::unwrap_used)] // test helpers below: a failed set-up is a failed test

mod common;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use common::console_hub::ConsoleHub;
use serde_json::{Value, json};

async fn hub(dir: &std::path::Path) -> ConsoleHub {
    ConsoleHub::start(dir, None, vec![fixture_device::fixture_device()]).await
}

fn task(name: &str, key: &str) -> Value {
    json!({"name": name, "device": "fixture",
           "variables": {"pw": {"secret": "LOGIN_PW"}},
           "steps": [{"type": "key_event", "keys": key}]})
}

async fn names(h: &ConsoleHub) -> Vec<String> {
    let a = h.get("/api/tasks").await;
    a.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Two tasks in `finance` (one with a schedule) and one elsewhere; the export of `finance`.
async fn exported(h: &ConsoleHub) -> Value {
    for (name, query) in [
        ("a", "folder=finance&tags=x"),
        ("b", "folder=finance/n"),
        ("c", ""),
    ] {
        let a = h
            .post(&format!("/api/tasks?{query}"), &task(name, "k"))
            .await;
        assert_eq!(a.status, 201, "{}", a.body);
    }
    let s = h
        .post(
            "/api/tasks/a/schedules",
            &json!({"kind": "cron", "expr": "47 3 * * 1-5", "tz": "Europe/Berlin", "busy": "wait"}),
        )
        .await;
    assert_eq!(s.status, 201, "{}", s.body);
    let a = h.get("/api/tasks/export?folder=finance").await;
    assert_eq!(a.status, 200, "{}", a.body);
    a.body
}

#[tokio::test]
async fn a_folder_exported_is_imported_into_a_fresh_server_with_its_schedules() {
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let h = hub(one.path()).await;
    let doc = exported(&h).await;
    assert_eq!(
        (&doc["format"], &doc["format_version"]),
        (&json!("deft-tasks"), &json!(1))
    );
    assert!(doc["deft_version"].is_string());
    let entries = doc["tasks"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "the folder and its subfolder, not c");
    assert_eq!(
        entries[0],
        json!({"name": "a", "device": "fixture", "enabled": true, "folder": "finance",
               "tags": ["x"], "definition": task("a", "k"),
               "notify": {"on_failure": true, "on_success": false, "on_notify_step": false},
               "schedules": [{"kind": "cron", "expr": "47 3 * * 1-5", "tz": "Europe/Berlin",
                              "misfire": "run_once", "busy": "wait", "enabled": true}]})
    );
    assert!(
        !doc.to_string().contains("hunter2"),
        "secret references only, never values"
    );
    let one_task = h.get("/api/tasks/export?task=c").await;
    assert_eq!(one_task.body["tasks"].as_array().unwrap().len(), 1);
    let all = h.get("/api/tasks/export?all=true").await;
    assert_eq!(all.body["tasks"].as_array().unwrap().len(), 3);
    let bad = h.get("/api/tasks/export?task=c&all=true").await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert_eq!(
        bad.body["error"],
        "say which tasks to export: task=ID or NAME, folder=PATH, or all=true (one of them)"
    );
    h.shutdown().await;

    let fresh = hub(two.path()).await;
    let dry = fresh.post("/api/tasks/import?dry_run=true", &doc).await;
    assert_eq!(dry.status, 200, "{}", dry.body);
    assert_eq!(dry.body["created"], json!(["a", "b"]));
    assert_eq!(
        dry.body["warnings"][0]["message"],
        "the secret LOGIN_PW does not exist on this server: add it under Secrets before the task runs"
    );
    assert!(names(&fresh).await.is_empty(), "a dry run stores nothing");

    let done = fresh.post("/api/tasks/import", &doc).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert_eq!(names(&fresh).await, ["a", "b"]);
    let again = fresh.get("/api/tasks/export?all=true").await;
    assert_eq!(
        again.body["tasks"], doc["tasks"],
        "the round trip keeps every field"
    );
    let v = fresh.get("/api/tasks/a/versions").await;
    assert_eq!(
        (&v.body["items"][0]["cause"], &v.body["items"][0]["note"]),
        (&json!("import"), &json!("imported"))
    );
    fresh.shutdown().await;
}

#[tokio::test]
#[allow(clippy::too_many_lines)] // each on_clash in turn, then the refused documents
async fn clashes_are_listed_and_settled_by_on_clash() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let doc = exported(&h).await;
    let mut changed = doc.clone();
    changed["tasks"][0]["definition"]["steps"][0]["keys"] = json!("changed");

    let refused = h.post("/api/tasks/import", &changed).await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert_eq!(refused.body["clashes"], json!(["a", "b"]));
    assert_eq!(
        refused.body["error"],
        "nothing was imported: tasks named \"a\", \"b\" exist already; choose on_clash=skip, replace or rename"
    );
    let dry = h.post("/api/tasks/import?dry_run=true", &changed).await;
    assert_eq!(
        (dry.status, &dry.body["clashes"]),
        (409, &json!(["a", "b"]))
    );

    let skipped = h.post("/api/tasks/import?on_clash=skip", &changed).await;
    assert_eq!(skipped.status, 200, "{}", skipped.body);
    assert_eq!(skipped.body["skipped"], json!(["a", "b"]));
    assert_eq!(h.get("/api/tasks/a").await.body["version"], 1);

    let replaced = h.post("/api/tasks/import?on_clash=replace", &changed).await;
    assert_eq!(replaced.status, 200, "{}", replaced.body);
    assert_eq!(replaced.body["replaced"], json!(["a", "b"]));
    let a = h.get("/api/tasks/a").await.body;
    assert_eq!(
        (&a["version"], &a["definition"]["steps"][0]["keys"]),
        (&json!(2), &json!("changed"))
    );
    assert_eq!(
        a["schedules"].as_array().unwrap().len(),
        1,
        "replaced, not doubled"
    );

    let renamed = h.post("/api/tasks/import?on_clash=rename", &changed).await;
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    assert_eq!(
        renamed.body["renamed"],
        json!([{"from": "a", "to": "a (2)"}, {"from": "b", "to": "b (2)"}])
    );
    assert_eq!(names(&h).await, ["a", "a (2)", "b", "b (2)", "c"]);
    assert_eq!(
        h.get("/api/tasks/a%20(2)").await.body["definition"]["name"],
        "a (2)"
    );

    // A third task that does not validate: every error listed, nothing stored.
    let bad = json!({"format": "deft-tasks", "format_version": 1, "tasks": [
        {"name": "n1", "device": "fixture", "enabled": true, "definition": task("n1", "k")},
        {"name": "n2", "device": "fixture", "enabled": true, "definition": task("n2", "k"),
         "schedules": [{"kind": "every", "seconds": 60}]},
        {"name": "n3", "device": "fixture", "enabled": true, "folder": "x//y",
         "definition": {"name": "n3", "device": "fixture", "steps": [{"type": "wiat"}]},
         "schedules": [{"kind": "cron", "expr": "nope"}]}
    ]});
    let a = h.post("/api/tasks/import", &bad).await;
    assert_eq!(a.status, 400, "{}", a.body);
    let paths: Vec<&str> = a.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "tasks[2].definition.steps[0].type",
            "tasks[2].folder",
            "tasks[2].schedules[0].expr"
        ]
    );
    assert_eq!(a.body["errors"][0]["task"], "n3");
    assert_eq!(names(&h).await.len(), 5, "nothing half-imported");

    // Two tasks of one document with one name: refused at the second, nothing imported.
    let twice = json!({"format": "deft-tasks", "format_version": 1, "tasks": [
        {"name": "t", "device": "fixture", "enabled": true, "definition": task("t", "k")},
        {"name": "t", "device": "fixture", "enabled": true, "definition": task("t", "k")}
    ]});
    let a = h.post("/api/tasks/import?on_clash=rename", &twice).await;
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(a.body["errors"][0]["path"], "tasks[1].name", "{}", a.body);
    assert_eq!(
        a.body["errors"][0]["message"],
        "the document has two tasks named \"t\": rename one of them"
    );
    assert_eq!(names(&h).await.len(), 5, "nothing imported");

    let not_doc = h
        .post("/api/tasks/import", &json!({"name": "x", "steps": []}))
        .await;
    assert_eq!(not_doc.status, 400);
    assert_eq!(
        not_doc.body["error"],
        "this is not a deft task export: its \"format\" must be \"deft-tasks\"; export the tasks with deft first"
    );
    let many: Vec<Value> = (0..1_001)
        .map(|i| json!({"name": format!("t{i}"), "device": "fixture", "enabled": true, "definition": {}}))
        .collect();
    let a = h
        .post(
            "/api/tasks/import",
            &json!({"format": "deft-tasks", "format_version": 1, "tasks": many}),
        )
        .await;
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(
        a.body["error"],
        "the document has 1001 tasks; an import takes at most 1000: export a folder at a time"
    );
    let huge = vec![b' '; 16 * 1024 * 1024 + 1];
    let a = h.post_raw("/api/tasks/import", huge).await;
    assert_eq!(a.status, 413, "{}", a.body);
    assert_eq!(
        a.body["error"],
        "the document is larger than 16 MiB: export fewer tasks (one folder at a time) and import each document"
    );
    h.shutdown().await;
}
