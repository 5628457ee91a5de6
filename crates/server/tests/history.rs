//! The run history through the console API of a real server on loopback: every filter and sort
//! as query parameters, pages followed by `next_cursor`, each bad parameter refused at its name
//! with its text, and the export — CSV quoted per RFC 4180 with formulas defused, JSON the
//! list's items — streamed over more runs than one read of the store holds.

#![allow(clippy::unwrap_used)] // a failed set-up is a failed test

mod common;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use common::console_hub::ConsoleHub;
use deft_server::console::texts;
use deft_store::{NewTaskRun, RunStart, TaskRunStatus, TaskTrigger};
use serde_json::{Value, json};

const DAY_MS: i64 = 86_400_000;
/// 2026-03-01T00:00:00Z.
const MARCH_1: i64 = 1_772_323_200_000;

async fn hub(dir: &std::path::Path) -> ConsoleHub {
    ConsoleHub::start(dir, None, vec![fixture_device::fixture_device()]).await
}

async fn task(h: &ConsoleHub, name: &str) -> String {
    let body =
        json!({"name": name, "device": "fixture", "steps": [{"type": "key_event", "keys": "a"}]});
    let a = h.post("/api/tasks", &body).await;
    assert_eq!(a.status, 201, "{}", a.body);
    a.body["id"].as_str().unwrap().to_owned()
}

fn new_run(task_id: &str, trigger: TaskTrigger, device: &str, at_ms: i64) -> NewTaskRun {
    NewTaskRun {
        task_id: task_id.to_owned(),
        trigger,
        schedule_id: (trigger == TaskTrigger::Schedule).then(|| "nightly".to_owned()),
        fire_at_ms: None,
        device: Some(device.to_owned()),
        variables: serde_json::Map::new(),
        started_at_ms: at_ms,
        owner: None,
        task_version: None,
    }
}

/// A run that ran for `took_ms` and ended `status` with `error`.
async fn ran(
    h: &ConsoleHub,
    new: &NewTaskRun,
    took_ms: i64,
    status: TaskRunStatus,
    error: Option<&str>,
) -> String {
    let store = h.console.store();
    let RunStart::Started(run) = store.start_task_run(new).await.unwrap() else {
        panic!("busy");
    };
    store
        .finish_task_run(&run.id, status, error, new.started_at_ms + took_ms)
        .await
        .unwrap();
    run.id
}

fn ids(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Every page of `query`, two at a time, following `next_cursor`.
async fn walk(h: &ConsoleHub, query: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut path = format!("/api/task-runs?{query}&limit=2");
    loop {
        let a = h.get(&path).await;
        assert_eq!(a.status, 200, "{path}: {}", a.body);
        out.extend(ids(&a.body));
        match a.body["next_cursor"].as_str() {
            Some(c) => path = format!("/api/task-runs?{query}&limit=2&cursor={c}"),
            None => return out,
        }
    }
}

/// Five runs of two tasks over five days, newest last: each filter and sort tells them apart.
async fn five_runs(h: &ConsoleHub) -> [String; 5] {
    let backup = task(h, "backup").await;
    let report = task(h, "report").await;
    // Five runs over five days, newest last.
    let r0 = ran(
        h,
        &new_run(&backup, TaskTrigger::Schedule, "fixture", MARCH_1),
        500,
        TaskRunStatus::Ok,
        None,
    )
    .await;
    let r1 = ran(
        h,
        &new_run(&report, TaskTrigger::Api, "fixture", MARCH_1 + DAY_MS),
        100,
        TaskRunStatus::Failed,
        Some("no"),
    )
    .await;
    let r2 = ran(
        h,
        &new_run(&backup, TaskTrigger::Manual, "other", MARCH_1 + 2 * DAY_MS),
        300,
        TaskRunStatus::Ok,
        None,
    )
    .await;
    let r3 = ran(
        h,
        &new_run(
            &report,
            TaskTrigger::Schedule,
            "other",
            MARCH_1 + 3 * DAY_MS,
        ),
        200,
        TaskRunStatus::Ok,
        None,
    )
    .await;
    let r4 = ran(
        h,
        &new_run(
            &backup,
            TaskTrigger::Api,
            "fixture",
            MARCH_1 + 4 * DAY_MS - 1,
        ),
        400,
        TaskRunStatus::Failed,
        Some("no"),
    )
    .await;

    [r0, r1, r2, r3, r4]
}

#[tokio::test]
async fn the_history_filters_sorts_and_pages_by_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let [r0, r1, r2, r3, r4] = five_runs(&h).await;
    let (r0, r1, r2, r3, r4) = (
        r0.as_str(),
        r1.as_str(),
        r2.as_str(),
        r3.as_str(),
        r4.as_str(),
    );
    assert_eq!(walk(&h, "").await, [r4, r3, r2, r1, r0]);
    assert_eq!(
        walk(&h, "sort=started&order=asc").await,
        [r0, r1, r2, r3, r4]
    );
    assert_eq!(
        walk(&h, "sort=duration&order=desc").await,
        [r0, r4, r2, r3, r1]
    );
    assert_eq!(
        walk(&h, "sort=status&order=asc").await,
        [r1, r4, r0, r2, r3]
    );
    assert_eq!(
        walk(&h, "task=backup").await,
        [r4, r2, r0],
        "a task by its name"
    );
    assert_eq!(walk(&h, "trigger=api").await, [r4, r1]);
    assert_eq!(
        walk(&h, "trigger=schedule&schedule=nightly").await,
        [r3, r0]
    );
    assert_eq!(walk(&h, "status=failed").await, [r4, r1]);
    assert_eq!(walk(&h, "device=other").await, [r3, r2]);
    // A date covers its whole day; a moment bounds to the millisecond, its end included.
    assert_eq!(
        walk(&h, "from=2026-03-02&to=2026-03-04").await,
        [r4, r3, r2, r1]
    );
    assert_eq!(walk(&h, "to=2026-03-02").await, [r1, r0]);
    assert_eq!(
        walk(&h, "from=2026-03-02T00:00:00Z&to=2026-03-04T23:59:59.998Z").await,
        [r3, r2, r1],
        "the end moment is inclusive, the millisecond after it is not"
    );
    assert_eq!(
        walk(&h, "from=2026-03-02T01:00:00%2B01:00&to=2026-03-02").await,
        [r1],
        "an offset counts"
    );
    assert_eq!(
        walk(
            &h,
            "task=backup&trigger=api&status=failed&device=fixture&from=2026-03-04&sort=duration"
        )
        .await,
        [r4],
        "the filters combine"
    );
    let first = h.get("/api/task-runs?limit=2&device=fixture").await.body;
    assert_eq!(
        (first["total"].clone(), ids(&first)),
        (json!(3), vec![r4.to_owned(), r1.to_owned()])
    );
    let last = h.get("/api/task-runs?limit=5&device=fixture").await.body;
    assert_eq!(last.get("next_cursor"), None, "the last page has no cursor");
    h.shutdown().await;
}

#[tokio::test]
async fn bad_history_parameters_are_refused_at_their_name() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let newest = h.get("/api/task-runs?limit=1").await;
    assert_eq!(newest.status, 200);
    let by_status_cursor = "status~asc~ok~1~x";
    let cases: Vec<(String, &str, String)> = vec![
        (
            "status=bogus".into(),
            "status",
            texts::bad_run_status("bogus"),
        ),
        (
            "trigger=cron".into(),
            "trigger",
            texts::bad_history_trigger("cron"),
        ),
        (
            "from=yesterday".into(),
            "from",
            texts::bad_history_moment("from", "yesterday"),
        ),
        (
            "to=2026-02-30".into(),
            "to",
            texts::bad_history_moment("to", "2026-02-30"),
        ),
        (
            "from=2026-03-02&to=2026-03-01".into(),
            "to",
            texts::HISTORY_TO_BEFORE_FROM.into(),
        ),
        ("sort=name".into(), "sort", texts::bad_history_sort("name")),
        ("order=up".into(), "order", texts::bad_history_order("up")),
        ("limit=0".into(), "limit", texts::bad_history_limit("0")),
        (
            "limit=1001".into(),
            "limit",
            texts::bad_history_limit("1001"),
        ),
        ("limit=ten".into(), "limit", texts::bad_history_limit("ten")),
        (
            "offset=-1".into(),
            "offset",
            texts::bad_history_offset("-1"),
        ),
        (
            "offset=10&sort=duration".into(),
            "offset",
            texts::HISTORY_OFFSET_WITH_SORT.into(),
        ),
        (
            "cursor=garbage".into(),
            "cursor",
            texts::bad_cursor("it is not a cursor a page of the run history handed out"),
        ),
        (
            format!("cursor={by_status_cursor}"),
            "cursor",
            texts::bad_cursor("it continues the sort status asc, not started desc"),
        ),
    ];
    for (query, param, text) in &cases {
        for route in ["/api/task-runs", "/api/task-runs/export"] {
            let path = if route.ends_with("export") {
                format!("{route}?format=csv&{query}")
            } else {
                format!("{route}?{query}")
            };
            if route.ends_with("export") && ["limit", "offset"].contains(param) {
                continue; // the export reads every run: no page size, no offset
            }
            let a = h.get(&path).await;
            assert_eq!(a.status, 400, "{path}: {}", a.body);
            assert_eq!(
                a.body["errors"],
                json!([{"path": param, "message": text}]),
                "{path}"
            );
            assert_eq!(
                a.body["error"],
                json!(format!("the query is invalid: {param}: {text}")),
                "a query's problem, not a task's: {path}"
            );
        }
    }
    for (query, given) in [("", ""), ("format=xml", "xml")] {
        let a = h.get(&format!("/api/task-runs/export?{query}")).await;
        assert_eq!(a.status, 400, "{query}");
        assert_eq!(
            a.body["errors"],
            json!([{"path": "format", "message": texts::bad_export_format(given)}])
        );
    }
    h.shutdown().await;
}

#[tokio::test]
async fn the_export_streams_every_filtered_run_as_quoted_csv_and_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let h = hub(dir.path()).await;
    let id = task(&h, "=cmd|' /C calc'!A0").await;
    let tricky = "failed, said \"no\"\nthen =SUM(A1)";
    let special = ran(
        &h,
        &new_run(&id, TaskTrigger::Api, "fixture", MARCH_1),
        1_500,
        TaskRunStatus::Failed,
        Some(tricky),
    )
    .await;
    ran(
        &h,
        &new_run(&id, TaskTrigger::Manual, "@desk", MARCH_1 + 1),
        20,
        TaskRunStatus::Failed,
        Some("-1 + 1"),
    )
    .await;
    // More runs than one read of the store (500): the export goes on past it.
    let store = h.console.store();
    for i in 0..1_203 {
        let new = new_run(&id, TaskTrigger::Schedule, "fixture", MARCH_1 + 10 + i);
        store
            .record_unstarted_run(&new, TaskRunStatus::Skipped, "busy")
            .await
            .unwrap();
    }

    let (status, kind, csv) = h
        .get_bytes("/api/task-runs/export?format=csv&trigger=api")
        .await;
    assert_eq!((status, kind.as_str()), (200, "text/csv; charset=utf-8"));
    let csv = String::from_utf8(csv).unwrap();
    assert_eq!(
        csv,
        format!(
            "id,task_id,task_name,trigger,schedule_id,device,status,started_at,ended_at,\
             duration_ms,steps_ok,steps_failed,steps_skipped,steps_healed,error\r\n\
             {special},{id},'=cmd|' /C calc'!A0,api,,fixture,failed,2026-03-01T00:00:00.000Z,\
             2026-03-01T00:00:01.500Z,1500,0,0,0,0,\"failed, said \"\"no\"\"\nthen =SUM(A1)\"\r\n"
        )
    );
    let (_, _, manual) = h
        .get_bytes("/api/task-runs/export?format=csv&trigger=manual")
        .await;
    let manual = String::from_utf8(manual).unwrap();
    assert!(
        manual.lines().nth(1).unwrap().contains(",'@desk,failed,"),
        "{manual}"
    );
    assert!(manual.ends_with(",20,0,0,0,0,'-1 + 1\r\n"), "{manual}");

    let (_, _, all) = h
        .get_bytes(&format!("/api/task-runs/export?format=csv&task={id}"))
        .await;
    assert_eq!(
        String::from_utf8(all).unwrap().matches("\r\n").count(),
        1 + 1_205,
        "a header and every run"
    );

    let (status, kind, json) = h
        .get_bytes("/api/task-runs/export?format=json&sort=started&order=asc")
        .await;
    assert_eq!((status, kind.as_str()), (200, "application/json"));
    let json: Vec<Value> = serde_json::from_slice(&json).unwrap();
    assert_eq!(json.len(), 1_205);
    assert_eq!(json[0]["id"], json!(special), "oldest first, as asked");
    let listed = h
        .get("/api/task-runs?sort=started&order=asc&limit=3")
        .await
        .body;
    assert_eq!(
        json[..3],
        listed["items"].as_array().unwrap()[..],
        "the list's items, same shape"
    );
    let (_, _, none) = h
        .get_bytes("/api/task-runs/export?format=json&device=nowhere")
        .await;
    assert_eq!(none, b"[]");
    h.shutdown().await;
}

/// A run's trace folder with a trace file and one image of `image_bytes` bytes; the folder's
/// bytes in all.
fn trace_with_image(h: &ConsoleHub, run: &str, image_bytes: usize) -> u64 {
    let dir = h.console.task_trace_dir(run);
    std::fs::create_dir_all(dir.join("images")).unwrap();
    std::fs::write(dir.join("trace.jsonl"), "{}\n").unwrap();
    std::fs::write(
        dir.join("images").join("img-1.png"),
        vec![7_u8; image_bytes],
    )
    .unwrap();
    3 + image_bytes as u64
}

/// A retention past the longest is a 400 naming the field; with one field refused neither is
/// stored.
async fn too_long_retention_is_refused_whole(h: &ConsoleHub) {
    let bad = h
        .send(
            "PUT",
            "/api/settings/retention",
            &json!({"run_days": 40_000}),
        )
        .await;
    assert_eq!(
        (bad.status, bad.body["error"].clone()),
        (
            400,
            json!(
                "run_days 40000 is too long: give a number of days up to 36500 (about a century), or 0 to keep forever"
            )
        )
    );
    let half = h
        .send(
            "PUT",
            "/api/settings/retention",
            &json!({"run_days": 30, "image_days": 40_000}),
        )
        .await;
    assert_eq!(half.status, 400, "{}", half.body);
    let kept = h.get("/api/settings/retention").await;
    assert_eq!(kept.body["run_days"], Value::Null, "{}", kept.body);
}

/// Waits until the retention pass recorded is the one at `at_ms` (the daily job's).
async fn until_pass(h: &ConsoleHub, at_ms: i64) -> Value {
    let at = deft_server::console::rfc3339(at_ms);
    h.until("/api/settings/retention", |b| b["last"]["at"] == json!(at))
        .await
}

/// Runs started 31, 30, 11 and 9 days before `now` (ended, each with a trace folder and an
/// image), and one started 60 days before that still runs; the oldest's folder's bytes.
async fn runs_to_retain(h: &ConsoleHub, now: i64) -> ([String; 5], u64) {
    use deft_server::console::retention::DAY_MS as DAY;
    let id = task(h, "nightly").await;
    let at = |days_ago: i64| now - days_ago * DAY;
    let old = ran(
        h,
        &new_run(&id, TaskTrigger::Schedule, "fixture", at(31)),
        10,
        TaskRunStatus::Ok,
        None,
    )
    .await;
    let edge = ran(
        h,
        &new_run(&id, TaskTrigger::Schedule, "fixture", at(30)),
        10,
        TaskRunStatus::Ok,
        None,
    )
    .await;
    let middle = ran(
        h,
        &new_run(&id, TaskTrigger::Schedule, "fixture", at(11)),
        10,
        TaskRunStatus::Ok,
        None,
    )
    .await;
    let recent = ran(
        h,
        &new_run(&id, TaskTrigger::Schedule, "fixture", at(9)),
        10,
        TaskRunStatus::Ok,
        None,
    )
    .await;
    let other = task(h, "long").await;
    let RunStart::Started(running) = h
        .console
        .store()
        .start_task_run(&NewTaskRun {
            // This server's: its heartbeat goes on, so no sweep takes it for a dead server's.
            owner: Some(h.console.app().server_id().to_owned()),
            task_version: None,
            ..new_run(&other, TaskTrigger::Manual, "fixture", at(60))
        })
        .await
        .unwrap()
    else {
        panic!("busy")
    };
    let old_bytes = trace_with_image(h, &old, 100);
    trace_with_image(h, &edge, 100);
    trace_with_image(h, &middle, 50);
    trace_with_image(h, &recent, 50);
    trace_with_image(h, &running.id, 50);

    ([old, edge, middle, recent, running.id], old_bytes)
}

#[tokio::test]
async fn retention_removes_exactly_the_older_runs_and_images_at_start_and_daily() {
    use deft_app::scheduler::ManualClock;
    use deft_server::console::retention::DAY_MS as DAY;
    let dir = tempfile::tempdir().unwrap();
    let start = MARCH_1 + 100 * DAY;
    let clock = ManualClock::new(start);
    let c = clock.clone();
    let h = ConsoleHub::start_with(
        dir.path(),
        None,
        vec![fixture_device::fixture_device()],
        move |cc| cc.clock = std::sync::Arc::new(c),
    )
    .await;
    // The pass at start-up: nothing set, nothing removed.
    let first = until_pass(&h, start).await;
    assert_eq!(
        first["last"],
        json!({"at": deft_server::console::rfc3339(start), "runs": 0, "images": 0, "bytes": 0})
    );

    let now = start + DAY; // the next daily pass
    let ([old, edge, middle, recent, running], old_bytes) = runs_to_retain(&h, now).await;

    too_long_retention_is_refused_whole(&h).await;
    let set = h
        .send(
            "PUT",
            "/api/settings/retention",
            &json!({"run_days": 30, "image_days": 10}),
        )
        .await;
    assert_eq!(
        (
            set.status,
            set.body["run_days"].clone(),
            set.body["image_days"].clone()
        ),
        (200, json!(30), json!(10))
    );

    clock.set(now);
    let pass = until_pass(&h, now).await;
    // Removed: the run started 31 days ago (its folder, its image); the images of those started
    // 30 and 11 days ago. Kept: exactly 30 days is not older; the running run, however old.
    assert_eq!(pass["last"]["runs"], 1);
    assert_eq!(
        pass["last"]["images"], 3,
        "the removed run's image and two kept runs' images"
    );
    assert_eq!(pass["last"]["bytes"], json!(old_bytes + 100 + 50));
    assert_eq!(h.get(&format!("/api/task-runs/{old}")).await.status, 404);
    assert!(!h.console.task_trace_dir(&old).exists());
    for kept in [&edge, &middle, &recent, &running] {
        assert_eq!(
            h.get(&format!("/api/task-runs/{kept}")).await.status,
            200,
            "{kept}"
        );
        assert!(h.console.task_trace_dir(kept).join("trace.jsonl").exists());
    }
    for (run, image) in [
        (&edge, false),
        (&middle, false),
        (&recent, true),
        (&running, true),
    ] {
        let kept = h
            .console
            .task_trace_dir(run)
            .join("images")
            .join("img-1.png")
            .exists();
        assert_eq!(kept, image, "{run}");
    }
    // Forever again: the next pass removes nothing.
    h.send(
        "PUT",
        "/api/settings/retention",
        &json!({"run_days": 0, "image_days": null}),
    )
    .await;
    clock.set(now + DAY);
    let pass = until_pass(&h, now + DAY).await;
    assert_eq!(
        (pass["run_days"].clone(), pass["last"]["runs"].clone()),
        (Value::Null, json!(0))
    );
    h.shutdown().await;
}
