//! A task's versions, folders and tags through the console API of a real server on loopback:
//! every save a version, the history, the structural diff, restore, the version a run ran,
//! the list's folder and tag filters, and every refusal (400, 404, 409).

#![allow(clippy::unwrap_used)] // test helpers below: a failed set-up is a failed test

mod common;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use common::console_hub::ConsoleHub;
use serde_json::{Value, json};

async fn hub(dir: &std::path::Path) -> ConsoleHub {
    ConsoleHub::start(dir, None, vec![fixture_device::fixture_device()]).await
}

fn keys_task(name: &str, first: &str) -> Value {
    json!({
        "name": name,
        "device": "fixture",
        "steps": [
            {"type": "key_event", "keys": first},
            {"type": "group", "name": "more", "steps": [{"type": "key_event", "keys": "b"}]}
        ]
    })
}

/// `(status, body)` of a GET.
async fn get(h: &ConsoleHub, path: &str) -> (u16, Value) {
    let a = h.get(path).await;
    (a.status, a.body)
}

fn error_of(body: &Value) -> &str {
    body["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error in {body}"))
}

#[tokio::test]
#[allow(clippy::too_many_lines)] // one task's history walked through, then every refusal
async fn every_save_is_a_version_with_history_diff_and_restore() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;

    let a = h
        .post(
            "/api/tasks?folder=finance/nightly&tags=Daily,%20pdf&note=first%20cut",
            &keys_task("report", "a"),
        )
        .await;
    assert_eq!(a.status, 201, "{}", a.body);
    assert_eq!(
        (&a.body["version"], &a.body["folder"], &a.body["tags"]),
        (
            &json!(1),
            &json!("finance/nightly"),
            &json!(["Daily", "pdf"])
        )
    );
    let id = a.body["id"].as_str().unwrap().to_owned();

    // An edit: the first key changed, a step added; folder and tags stay.
    let mut edited = keys_task("report", "x");
    edited["steps"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "wait", "seconds": 1}));
    let a = h
        .send("PUT", "/api/tasks/report?note=faster", &edited)
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        (&a.body["version"], &a.body["folder"]),
        (&json!(2), &json!("finance/nightly"))
    );

    let (status, page) = get(&h, &format!("/api/tasks/{id}/versions")).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["total"], 2);
    let shown: Vec<(i64, &str, &str, &str)> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["version"].as_i64().unwrap(),
                v["author"].as_str().unwrap(),
                v["cause"].as_str().unwrap(),
                v["note"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            (2, "api", "edit", "faster"),
            (1, "api", "create", "first cut")
        ],
        "newest first, by the API token's author"
    );
    assert!(
        page["items"][0].get("definition").is_none(),
        "the list leaves definitions out"
    );
    let (status, one) = get(&h, "/api/tasks/report/versions/1").await;
    assert_eq!(status, 200, "{one}");
    assert_eq!(one["definition"], keys_task("report", "a"));

    let (status, d) = get(&h, "/api/tasks/report/versions/diff?from=1&to=2").await;
    assert_eq!(status, 200, "{d}");
    assert_eq!(
        d,
        json!({"from": 1, "to": 2, "fields": [], "steps": [
            {"kind": "changed", "path": "steps[0]", "type": "key_event",
             "params": [{"field": "keys", "old": "a", "new": "x"}]},
            {"kind": "added", "path": "steps[2]", "type": "wait",
             "step": {"type": "wait", "seconds": 1}}
        ]})
    );

    // Restore version 1: version 3, saying so, and nothing differs from 1.
    let a = h
        .post(&format!("/api/tasks/{id}/versions/1/restore"), &json!({}))
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["version"], 3);
    assert_eq!(a.body["definition"], keys_task("report", "a"));
    let (_, page) = get(&h, "/api/tasks/report/versions?limit=1").await;
    assert_eq!(
        (
            &page["total"],
            &page["items"][0]["cause"],
            &page["items"][0]["note"]
        ),
        (&json!(3), &json!("restore"), &json!("restored from 1"))
    );
    let (_, d) = get(&h, "/api/tasks/report/versions/diff?from=1&to=3").await;
    assert_eq!((&d["fields"], &d["steps"]), (&json!([]), &json!([])));

    // A run records the version it ran.
    let a = h.post("/api/tasks/report/run", &json!({})).await;
    assert_eq!(a.status, 202, "{}", a.body);
    assert_eq!(a.body["task_version"], 3);
    let run = a.body["id"].as_str().unwrap().to_owned();
    let r = h
        .until(&format!("/api/task-runs/{run}"), |b| b["status"] == "ok")
        .await;
    assert_eq!(r["task_version"], 3);

    // Refusals.
    let (status, body) = get(&h, "/api/tasks/report/versions/9").await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(
        error_of(&body),
        "task \"report\" has no version 9; its versions are 1 to 3"
    );
    let (status, _) = get(&h, "/api/tasks/ghost/versions").await;
    assert_eq!(status, 404);
    let (status, body) = get(&h, "/api/tasks/report/versions/first").await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        error_of(&body),
        "version must be a version number (1, 2, …), not \"first\""
    );
    let (status, body) = get(&h, "/api/tasks/report/versions/diff?from=0&to=2").await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        error_of(&body),
        "from must be a version number (1, 2, …), not \"0\""
    );
    let (status, _) = get(&h, "/api/tasks/report/versions/diff?from=1").await;
    assert_eq!(status, 400);
    let (status, _) = get(&h, "/api/tasks/report/versions/diff?from=1&to=7").await;
    assert_eq!(status, 404);
    let a = h
        .post("/api/tasks/report/versions/7/restore", &json!({}))
        .await;
    assert_eq!(a.status, 404, "{}", a.body);

    // A version whose name another task has taken since is a 409, and saves nothing.
    let a = h
        .send("PUT", "/api/tasks/report", &keys_task("report 2", "a"))
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    let a = h.post("/api/tasks", &keys_task("report", "z")).await;
    assert_eq!(a.status, 201, "{}", a.body);
    let a = h
        .post(&format!("/api/tasks/{id}/versions/1/restore"), &json!({}))
        .await;
    assert_eq!(a.status, 409, "{}", a.body);
    let (_, page) = get(&h, &format!("/api/tasks/{id}/versions")).await;
    assert_eq!(page["total"], 4, "the refused restore wrote no version");
    h.shutdown().await;
}

#[tokio::test]
async fn the_task_list_filters_by_folder_and_tag() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    for (name, query) in [
        ("a", "folder=finance&tags=Daily"),
        ("b", "folder=finance/nightly&tags=daily,pdf"),
        ("c", "folder=finance_x"),
        ("d", "tags=PDF"),
    ] {
        let a = h
            .post(&format!("/api/tasks?{query}"), &keys_task(name, "a"))
            .await;
        assert_eq!(a.status, 201, "{}", a.body);
    }
    let names = |body: &Value| -> Vec<String> {
        body["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    for (query, expected) in [
        ("folder=finance", &["a", "b"][..]),
        ("folder=finance/nightly", &["b"][..]),
        ("tag=pdf", &["b", "d"][..]),
        ("folder=finance&tag=PDF", &["b"][..]),
        ("tag=weekly", &[][..]),
    ] {
        let (status, body) = get(&h, &format!("/api/tasks?{query}")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(names(&body), expected, "{query}");
        assert_eq!(body["total"], expected.len(), "{query}");
    }
    let (status, folders) = get(&h, "/api/tasks/folders").await;
    assert_eq!(status, 200, "{folders}");
    assert_eq!(
        folders["items"],
        json!([{"folder": "finance", "count": 2}, {"folder": "finance/nightly", "count": 1},
               {"folder": "finance_x", "count": 1}])
    );
    let (_, tags) = get(&h, "/api/tasks/tags").await;
    assert_eq!(
        tags["items"],
        json!([{"tag": "Daily", "count": 2}, {"tag": "pdf", "count": 2}])
    );

    let (status, body) = get(&h, "/api/tasks?folder=a//b").await;
    assert_eq!(status, 400, "{body}");
    assert!(error_of(&body).contains("has an empty segment"), "{body}");
    let a = h
        .post("/api/tasks?tags=x,X", &keys_task("dup tags", "a"))
        .await;
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(
        error_of(&a.body),
        "tags \"x\" and \"X\" are the same tag (case is ignored); keep one"
    );
    let (_, all) = get(&h, "/api/tasks").await;
    assert_eq!(all["total"], 4, "the refused task was not stored");
    h.shutdown().await;
}
