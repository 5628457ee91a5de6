//! Retries and loops over data on the real browser device. A step retried after its control
//! appears works on its second attempt — the control appears when the test opens the page
//! server's gate at the step's first `task_step_retry` event, and the run goes on only once the
//! page has shown it, so nothing hangs on a timer; retries that run out say how many attempts
//! were made; a stop cuts a retry's pause short. `for_each` types each item of a list, of a
//! variable (a JSON array, lines) and each row of a CSV file (a header column, UTF-8, a quoted
//! comma) into a page, in order, nested in `loop` and `if_el` and around them; each round's
//! values are events. A CSV file outside the allowed folders (or reached through a link out of
//! them) is refused, and more than 1,000 rounds stop the loop before its first.

mod browser_device;
mod fixture_device;

use std::sync::Arc;
use std::time::Duration;

use browser_device::{browser_device, pages};
use deft_protocol::task_run::{StepStatus, TaskRound, TaskStepRetry};
use deft_protocol::{AgentEvent, DoneStatus, EventKind, EventSink};
use deft_tasks::runner::{RunReport, RunRequest, run_task};
use deft_test_support::web::PageServer;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// Opens the page server's gate at a step's first failed attempt and holds the run until the
/// page has shown what the gate lets it show.
struct OpenGateOnRetry(Arc<PageServer>);

impl EventSink for OpenGateOnRetry {
    fn send(&self, event: &AgentEvent) {
        if matches!(event.kind, EventKind::TaskStepRetry(_)) {
            self.0.open_gate();
            let shown =
                tokio::task::block_in_place(|| self.0.wait_gate_done(Duration::from_secs(60)));
            assert!(shown, "gate.html never showed its button");
        }
    }
}

fn retries(events: &[AgentEvent]) -> Vec<TaskStepRetry> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TaskStepRetry(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

fn rounds(events: &[AgentEvent]) -> Vec<TaskRound> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TaskRound(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

/// Runs `task` on a fresh browser device with `request` (and `extra` sinks): the report and
/// every event.
async fn run_in_browser(
    task: &deft_tasks::Task,
    request: &RunRequest,
    extra: Option<Arc<dyn EventSink>>,
) -> (RunReport, Vec<AgentEvent>) {
    let (rec, mut sinks, _rx) = fixture_device::recorder();
    sinks.events.extend(extra);
    let report = run_task(
        task,
        &browser_device(),
        request,
        sinks,
        CancellationToken::new(),
    )
    .await;
    let events = rec.events.lock().clone();
    (report, events)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_retried_after_its_control_appears_works_on_the_second_attempt() {
    let pages = Arc::new(pages().await);
    let t = fixture_device::task(json!({"name": "retry until ready", "steps": [
        {"type": "open_app", "url": pages.url("gate.html")},
        {"type": "click", "selector": {"text": "Ready", "type": "button", "match": "exact"},
         "retry": {"times": 3, "delay_s": 0}},
        {"type": "wait_el", "selector": {"text": "ready clicked", "match": "exact"}, "timeout_s": 10},
    ]}));
    let gate: Arc<dyn EventSink> = Arc::new(OpenGateOnRetry(pages.clone()));
    let (report, events) = run_in_browser(&t, &RunRequest::default(), Some(gate)).await;
    let lines = fixture_device::step_lines(&report);
    assert_eq!(report.status, DoneStatus::Completed, "{lines:#?}");
    let tried = retries(&events);
    assert_eq!(tried.len(), 1, "{tried:#?}");
    assert_eq!(
        (tried[0].path.as_str(), tried[0].attempt, tried[0].attempts),
        ("steps[1]", 1, 4)
    );
    assert!(
        tried[0]
            .error
            .starts_with("no control matches button \"Ready\" (exact)"),
        "{tried:#?}"
    );
    let clicked = &report.steps[1];
    assert_eq!(clicked.status, StepStatus::Ok, "{lines:#?}");
    assert_eq!(clicked.message.as_deref(), Some("on attempt 2 of 4"));
    assert_eq!(
        clicked.matched.as_ref().map(|m| m.name.as_str()),
        Some("Ready")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_that_run_out_say_how_many_attempts_were_made() {
    let pages = pages().await;
    let t = fixture_device::task(json!({"name": "never ready", "steps": [
        {"type": "open_app", "url": pages.url("gate.html")},
        {"type": "click", "selector": {"text": "Ready", "type": "button", "match": "exact"},
         "retry": {"times": 2, "delay_s": 0.05, "backoff": 2}},
    ]}));
    let (report, events) = run_in_browser(&t, &RunRequest::default(), None).await;
    let lines = fixture_device::step_lines(&report);
    assert_eq!(report.status, DoneStatus::Failed, "{lines:#?}");
    let failed = &report.steps[1];
    let error = failed.error.as_deref().unwrap_or_default();
    assert!(
        error.starts_with(
            "failed 3 attempts; the last: no control matches button \"Ready\" (exact)"
        ),
        "{lines:#?}"
    );
    let tried: Vec<(u32, u32, u64)> = retries(&events)
        .iter()
        .map(|r| (r.attempt, r.attempts, r.delay_ms))
        .collect();
    assert_eq!(tried, [(1, 3, 50), (2, 3, 100)], "the pause doubles");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_during_a_retry_pause_ends_the_run_without_waiting_it_out() {
    let pages = pages().await;
    let t = fixture_device::task(json!({"name": "stopped while pausing", "steps": [
        {"type": "open_app", "url": pages.url("gate.html")},
        {"type": "click", "selector": {"text": "Ready", "type": "button", "match": "exact"},
         "retry": {"times": 5, "delay_s": 600}},
        {"type": "notify", "message": "never"},
    ]}));
    let (rec, sinks, mut rx) = fixture_device::recorder();
    let cancel = CancellationToken::new();
    let device = browser_device();
    let run = tokio::spawn({
        let cancel = cancel.clone();
        async move { run_task(&t, &device, &RunRequest::default(), sinks, cancel).await }
    });
    while let Some(e) = rx.recv().await {
        match e.kind {
            EventKind::TaskStepRetry(_) => {
                cancel.cancel();
                break;
            }
            EventKind::Done { .. } => panic!("the run ended without a retry"),
            _ => {}
        }
    }
    // A guard, not a timing: a pause not cut short would hold the run for 600 s.
    let report = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the stop cut the 600 s pause short")
        .unwrap();
    let lines = fixture_device::step_lines(&report);
    assert_eq!(report.status, DoneStatus::Stopped, "{lines:#?}");
    assert_eq!(
        report.steps[1].error.as_deref(),
        Some("stopped by a person"),
        "{lines:#?}"
    );
    assert_eq!(report.steps[2].status, StepStatus::Skipped);
    assert_eq!(retries(&rec.events.lock()).len(), 1, "no second attempt");
}

/// The two steps that add `text` to for_each.html's list.
fn add(text: &str) -> serde_json::Value {
    json!([
        {"type": "input_text", "selector": {"text": "Entry", "type": "edit"}, "text": text},
        {"type": "click", "selector": {"text": "Add", "type": "button", "match": "exact"}},
    ])
}

/// A step that checks for_each.html's list holds `line` (`3: Zoë`).
fn added(line: &str) -> serde_json::Value {
    json!({"type": "wait_el", "selector": {"text": line, "match": "exact"}, "timeout_s": 0})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn for_each_adds_items_a_variables_lines_and_json_and_csv_rows_in_order() {
    let pages = pages().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("orders.csv"),
        "Order,Name\r\n1001,\"Zoë, Jr.\"\r\n1002,Straße 苏州\r\n",
    )
    .unwrap();
    let t = fixture_device::task(json!({
        "name": "for each",
        "variables": {"people": "[{\"n\": \"Ana\"}, {\"n\": \"Bo\"}]", "folder": "/nowhere", "lines": ""},
        "steps": [
            {"type": "open_app", "url": pages.url("for_each.html")},
            {"type": "for_each", "items": ["Zoë", "Омар"], "steps": add("{{item}}")},
            {"type": "for_each", "items": [{"name": "pen", "qty": 2}], "as": "o", "steps": add("{{o.name}} ×{{o.qty}}")},
            {"type": "for_each", "variable": "lines", "as": "line", "steps": add("{{line}}")},
            {"type": "for_each", "variable": "people", "steps": add("{{item.n}}")},
            {"type": "for_each", "csv": "{{folder}}/orders.csv", "as": "row", "steps": add("{{row.Order}} {{row.Name}}")},
            added("1: Zoë"), added("2: Омар"), added("3: pen ×2"), added("4: alpha"), added("5: beta"),
            added("6: Ana"), added("7: Bo"), added("8: 1001 Zoë, Jr."), added("9: 1002 Straße 苏州"),
            {"type": "wait_el", "selector": {"text": "9 added", "match": "exact"}, "timeout_s": 0},
        ],
    }));
    let request = RunRequest {
        variables: [
            ("lines".to_owned(), "alpha\n\nbeta\n".to_owned()),
            ("folder".to_owned(), dir.path().display().to_string()),
        ]
        .into(),
        csv_dirs: vec![dir.path().to_path_buf()],
        ..RunRequest::default()
    };
    let (report, events) = run_in_browser(&t, &request, None).await;
    let lines = fixture_device::step_lines(&report);
    assert_eq!(report.status, DoneStatus::Completed, "{lines:#?}");
    let by_path = |p: &str| report.steps.iter().find(|s| s.path == p).unwrap();
    assert_eq!(by_path("steps[5]").message.as_deref(), Some("2 rounds"));
    assert_eq!(by_path("steps[5].steps[0]#2").status, StepStatus::Ok);
    let csv: Vec<String> = rounds(&events)
        .into_iter()
        .filter(|r| r.path == "steps[5]")
        .map(|r| format!("{}/{} {:?}", r.round, r.rounds, r.values))
        .collect();
    assert_eq!(
        csv,
        [
            r#"1/2 {"row.Name": "Zoë, Jr.", "row.Order": "1001"}"#,
            r#"2/2 {"row.Name": "Straße 苏州", "row.Order": "1002"}"#,
        ]
    );
    let first = rounds(&events).remove(0);
    assert_eq!(
        (
            first.path.as_str(),
            first.values.get("item").map(String::as_str)
        ),
        ("steps[1]", Some("Zoë"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn for_each_nests_in_loop_and_if_el_and_they_in_it() {
    let pages = pages().await;
    let mut inner = add("{{item}} {{n.k}}").as_array().unwrap().clone();
    inner.insert(
        0,
        json!({"type": "if_el", "selector": {"text": "Add", "type": "button"},
               "then": add("{{item}}"), "else": [{"type": "stop_self", "message": "no Add button"}]}),
    );
    let t = fixture_device::task(json!({"name": "nested", "steps": [
        {"type": "open_app", "url": pages.url("for_each.html")},
        {"type": "loop", "times": 2, "steps": [
            {"type": "for_each", "items": ["a", "b"], "steps": [
                {"type": "for_each", "items": [{"k": "x"}], "as": "n", "steps": inner},
            ]},
        ]},
        added("1: a"), added("2: a x"), added("3: b"), added("4: b x"),
        added("5: a"), added("6: a x"), added("7: b"), added("8: b x"),
    ]}));
    let (report, events) = run_in_browser(&t, &RunRequest::default(), None).await;
    let lines = fixture_device::step_lines(&report);
    assert_eq!(report.status, DoneStatus::Completed, "{lines:#?}");
    let paths: Vec<(String, u32)> = rounds(&events)
        .into_iter()
        .map(|r| (r.path, r.round))
        .collect();
    assert_eq!(
        paths[..3],
        [
            ("steps[1].steps[0]#1".to_owned(), 1),
            ("steps[1].steps[0]#1.steps[0]#1".to_owned(), 1),
            ("steps[1].steps[0]#1".to_owned(), 2),
        ]
    );
    assert_eq!(
        paths.len(),
        8,
        "2 loop rounds × 2 items × (a round and its inner one)"
    );
}

#[tokio::test]
async fn a_csv_outside_the_allowed_folders_is_refused_even_through_a_link() {
    let root = tempfile::tempdir().unwrap();
    let allowed = root.path().join("allowed");
    let other = root.path().join("other");
    std::fs::create_dir_all(&allowed).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("secret.csv"), "a\n1\n").unwrap();
    std::os::unix::fs::symlink(other.join("secret.csv"), allowed.join("link.csv")).unwrap();
    let request = RunRequest {
        variables: Default::default(),
        csv_dirs: vec![allowed.clone()],
        ..RunRequest::default()
    };
    for (file, leads) in [
        (other.join("secret.csv"), false),
        (allowed.join("link.csv"), true),
    ] {
        let t = fixture_device::task(json!({"name": "outside", "steps": [
            {"type": "for_each", "csv": file.display().to_string(), "steps": [{"type": "notify", "message": "{{item.a}}"}]},
        ]}));
        let (report, events) = fixture_device::run_on_fixture(&t, &request).await;
        assert_eq!(report.status, DoneStatus::Failed);
        let error = report.steps[0].error.clone().unwrap_or_default();
        let via = format!(" (it leads to {})", other.join("secret.csv").display());
        let expected = format!(
            "the csv file {}{} is outside the folders a task may read ({}): move it into one of them, or add its folder to DEFT_DOCUMENT_DIRS where deft runs",
            file.display(),
            if leads { via.as_str() } else { "" },
            allowed.display()
        );
        assert_eq!(error, expected);
        assert!(rounds(&events).is_empty(), "no round ran");
    }
}

#[tokio::test]
async fn more_than_1000_rounds_stop_the_loop_before_its_first() {
    let many: String = (0..1001).map(|i| format!("line {i}\n")).collect();
    let t = fixture_device::task(
        json!({"name": "too many", "variables": {"many": ""}, "steps": [
            {"type": "for_each", "variable": "many", "steps": [{"type": "notify", "message": "{{item}}"}]},
        ]}),
    );
    let request = RunRequest {
        variables: [("many".to_owned(), many)].into(),
        ..RunRequest::default()
    };
    let (report, events) = fixture_device::run_on_fixture(&t, &request).await;
    assert_eq!(report.status, DoneStatus::Failed);
    assert_eq!(
        report.steps[0].error.as_deref(),
        Some(
            "the variable many has 1001 items; for_each runs at most 1000 rounds, so none was run: split the data over several files or tasks"
        )
    );
    assert!(rounds(&events).is_empty());
    // 1,000 is allowed.
    let thousand: String = (0..1000).map(|i| format!("{i}\n")).collect();
    let request = RunRequest {
        variables: [("many".to_owned(), thousand)].into(),
        ..RunRequest::default()
    };
    let (report, events) = fixture_device::run_on_fixture(&t, &request).await;
    assert_eq!(report.status, DoneStatus::Completed, "{}", report.message);
    assert_eq!(rounds(&events).len(), 1000);
}
