//! The runner's flow on a device whose tools are the fixture server's, through the real tool
//! layer: paths and rounds, `on_error`, the steps skipped after a stop, `mark_done`, a person's
//! stop mid-step, the run timeout, variables, and the event stream's shape (`seq` from 1, one
//! `done`, last).

mod fixture_device;

use std::sync::Arc;
use std::time::Duration;

use deft_protocol::task_run::StepStatus;
use deft_protocol::{DoneStatus, EventKind};
use deft_tasks::runner::{RunRequest, run_task};
use fixture_device::{
    KeptImages, first_tool_step, fixture_device, kinds, recorder, recorder_keeping_images,
    run_on_fixture, step_results, task,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn loops_groups_and_paths_with_rounds() {
    let t = task(json!({"name": "flow", "steps": [
        {"type": "key_event", "keys": "a"},
        {"type": "loop", "times": 2, "steps": [
            {"type": "group", "name": "g", "steps": [{"type": "key_event", "keys": "b"}]}
        ]},
    ]}));
    let (report, events) = run_on_fixture(&t, &RunRequest::default()).await;
    assert_eq!(report.status, DoneStatus::Completed, "{}", report.message);
    let paths: Vec<(String, StepStatus)> = report
        .steps
        .iter()
        .map(|s| (s.path.clone(), s.status))
        .collect();
    let ok = StepStatus::Ok;
    assert_eq!(
        paths,
        vec![
            ("steps[0]".into(), ok),
            ("steps[1].steps[0]#1.steps[0]".into(), ok),
            ("steps[1].steps[0]#1".into(), ok),
            ("steps[1].steps[0]#2.steps[0]".into(), ok),
            ("steps[1].steps[0]#2".into(), ok),
            ("steps[1]".into(), ok),
        ]
    );
    assert_eq!(
        report.calls, 3,
        "three key_event calls through the tool layer"
    );
    assert_eq!(report.message, "6 ok, 0 failed, 0 skipped");
    assert!(
        events
            .iter()
            .enumerate()
            .all(|(i, e)| e.seq == i as u64 + 1),
        "seq counts from 1"
    );
    assert_eq!(kinds(&events).iter().filter(|k| **k == "done").count(), 1);
    assert_eq!(*kinds(&events).last().unwrap(), "done");
    // Each key_event is task_step_start, step_start, step, task_step.
    assert_eq!(
        &kinds(&events)[..4],
        ["task_step_start", "step_start", "step", "task_step"]
    );
    let step = first_tool_step(&events);
    assert_eq!(step.tool, "keyboard_input");
    assert_eq!(step.result["result"]["keys"], "a");
}

#[tokio::test]
async fn a_failure_stops_the_run_unless_the_step_says_continue() {
    let t = task(json!({"name": "errors", "steps": [
        {"type": "open_app", "app": "mousepad", "on_error": "continue"},
        {"type": "key_event", "keys": "x"},
        {"type": "open_app", "app": "mousepad"},
        {"type": "key_event", "keys": "never"},
        {"type": "group", "name": "later", "steps": [{"type": "key_event", "keys": "never"}]},
    ]}));
    let (report, events) = run_on_fixture(&t, &RunRequest::default()).await;
    assert_eq!(report.status, DoneStatus::Failed);
    let s = &report.steps;
    assert_eq!(
        s.iter().map(|s| s.status).collect::<Vec<_>>(),
        [
            StepStatus::Failed,
            StepStatus::Ok,
            StepStatus::Failed,
            StepStatus::Skipped,
            StepStatus::Skipped,
        ]
    );
    let err = s[0].error.as_deref().unwrap();
    assert!(
        err.contains("launch_app"),
        "the tool layer's own error names the tool: {err}"
    );
    assert_eq!(
        s[3].error.as_deref(),
        Some("not run: the run ended at steps[2]")
    );
    assert_eq!(report.message, "1 ok, 2 failed, 2 skipped: steps[2] failed");
    let done = events.last().unwrap();
    assert!(
        matches!(&done.kind, EventKind::Done { status: DoneStatus::Failed, answer, .. } if answer == &report.message)
    );
    assert_eq!(
        step_results(&events).len(),
        5,
        "every step, run or not, has a result event"
    );
    let images: Vec<Vec<String>> = s.iter().map(|s| s.image_ids.clone()).collect();
    assert_eq!(
        images,
        [
            vec!["img-1".to_owned()],
            vec![],
            vec!["img-2".to_owned()],
            vec![],
            vec![],
        ],
        "a failed step keeps a screenshot (screenshots: on_failure by default)"
    );
}

async fn run_keeping_images(
    t: &deft_tasks::Task,
) -> (
    deft_tasks::runner::RunReport,
    Vec<deft_protocol::AgentEvent>,
    Arc<KeptImages>,
) {
    let (rec, sinks, _rx, kept) = recorder_keeping_images();
    let report = run_task(
        t,
        &fixture_device(),
        &RunRequest::default(),
        sinks,
        CancellationToken::new(),
    )
    .await;
    let events = rec.events.lock().clone();
    (report, events, kept)
}

#[tokio::test]
async fn screenshots_follow_the_task_every_step_on_failure_or_never() {
    let steps = json!([
        {"type": "key_event", "keys": "a"},
        {"type": "group", "name": "g", "on_error": "continue", "steps": [
            {"type": "click", "selector": {"text": "OK"}},
        ]},
        {"type": "key_event", "keys": "b"},
    ]);
    let every = task(json!({"name": "every", "screenshots": "every_step", "steps": steps}));
    let (report, events, kept) = run_keeping_images(&every).await;
    let by_path: Vec<(String, Vec<String>)> = report
        .steps
        .iter()
        .map(|s| (s.path.clone(), s.image_ids.clone()))
        .collect();
    let shot = |n: usize| vec![format!("shot-{n}")];
    assert_eq!(
        by_path,
        [
            ("steps[0]".to_owned(), shot(1)),
            ("steps[1].steps[0]".to_owned(), shot(2)),
            ("steps[1]".to_owned(), vec![]),
            ("steps[2]".to_owned(), shot(3)),
        ],
        "every leaf step that ran, not the group"
    );
    let images = kept.images.lock().clone();
    assert_eq!(images.len(), 3);
    for (bytes, mime) in &images {
        assert_eq!(mime, "image/png");
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "PNG bytes");
    }
    // The screenshots are tool calls of their own in the stream, between the step's calls
    // and its result.
    let tools: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Step(s) => Some(s.tool.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        tools,
        [
            "keyboard_input",
            "capture_desktop_screenshot",
            "capture_desktop_screenshot",
            "keyboard_input",
            "capture_desktop_screenshot",
        ]
    );

    let never = task(
        json!({"name": "never", "screenshots": "never", "on_error": "continue", "steps": [
            {"type": "click", "selector": {"text": "OK"}},
        ]}),
    );
    let (report, _events, kept) = run_keeping_images(&never).await;
    assert_eq!(report.steps[0].status, StepStatus::Failed);
    assert!(report.steps[0].image_ids.is_empty() && kept.images.lock().is_empty());
    assert_eq!(report.calls, 0, "no screenshot call either");
}

/// Runs `t` on the fixture device and stops it the moment its first step starts.
async fn stopped_at_the_first_step(t: &deft_tasks::Task) -> deft_tasks::runner::RunReport {
    let (_rec, sinks, mut rx) = recorder();
    let cancel = CancellationToken::new();
    let device = fixture_device();
    let req = RunRequest::default();
    let run = run_task(t, &device, &req, sinks, cancel.clone());
    let watch = async {
        while let Some(e) = rx.recv().await {
            if matches!(e.kind, EventKind::TaskStepStart(_)) {
                cancel.cancel();
                break;
            }
        }
    };
    let (report, ()) =
        tokio::time::timeout(Duration::from_secs(60), async { tokio::join!(run, watch) })
            .await
            .expect("a stopped run ends");
    report
}

#[tokio::test]
async fn a_stop_takes_no_screenshot_and_a_run_timeout_does() {
    let t = task(json!({"name": "long", "steps": [{"type": "wait", "seconds": 300}]}));
    let report = stopped_at_the_first_step(&t).await;
    assert_eq!(report.status, DoneStatus::Stopped);
    assert!(
        report.steps[0].image_ids.is_empty(),
        "a stop is not held up"
    );
    assert_eq!(report.calls, 0);

    let t = task(
        json!({"name": "slow", "timeout_s": 0.5, "steps": [{"type": "wait", "seconds": 300}]}),
    );
    let (report, _events, kept) = run_keeping_images(&t).await;
    assert_eq!(report.status, DoneStatus::Timeout);
    assert_eq!(
        report.steps[0].image_ids,
        ["shot-1"],
        "what the screen showed when time ran out"
    );
    assert_eq!(kept.images.lock().len(), 1);
}

#[tokio::test]
async fn mark_done_ends_the_run_completed_and_the_rest_is_skipped() {
    let t = task(json!({"name": "done early", "steps": [
        {"type": "group", "name": "g", "steps": [
            {"type": "mark_done", "message": "nothing to do today"},
            {"type": "key_event", "keys": "never"},
        ]},
        {"type": "key_event", "keys": "never"},
    ]}));
    let (report, _events) = run_on_fixture(&t, &RunRequest::default()).await;
    assert_eq!(report.status, DoneStatus::Completed);
    assert!(
        report.message.ends_with(": nothing to do today"),
        "{}",
        report.message
    );
    assert_eq!(report.count(StepStatus::Skipped), 2);
    assert_eq!(report.calls, 0);
}

#[tokio::test]
async fn a_stop_ends_a_step_in_flight_and_skips_the_rest() {
    let t = task(json!({"name": "long", "steps": [
        {"type": "wait", "seconds": 300},
        {"type": "key_event", "keys": "never"},
    ]}));
    let report = stopped_at_the_first_step(&t).await;
    assert_eq!(report.status, DoneStatus::Stopped);
    assert_eq!(report.steps[0].status, StepStatus::Failed);
    assert_eq!(
        report.steps[0].error.as_deref(),
        Some("stopped by a person")
    );
    assert_eq!(report.steps[1].status, StepStatus::Skipped);
}

#[tokio::test(start_paused = true)]
async fn the_run_timeout_ends_it_as_timeout_and_records_every_step() {
    let t = task(json!({"name": "slow", "timeout_s": 5, "steps": [
        {"type": "key_event", "keys": "a"},
        {"type": "group", "name": "slow part", "on_error": "continue", "steps": [
            {"type": "wait", "seconds": 60},
            {"type": "key_event", "keys": "never"},
        ]},
        {"type": "key_event", "keys": "never either"},
    ]}));
    let (report, events) = run_on_fixture(&t, &RunRequest::default()).await;
    assert_eq!(report.status, DoneStatus::Timeout);
    assert_eq!(
        report.message,
        "1 ok, 2 failed, 2 skipped: the run passed its timeout of 5 s"
    );
    let got: Vec<(String, StepStatus, Option<String>)> = report
        .steps
        .iter()
        .map(|s| (s.path.clone(), s.status, s.error.clone()))
        .collect();
    let in_step = Some("the run passed its timeout of 5 s while this step ran".to_owned());
    let not_run = |at: &str| Some(format!("not run: the run ended at {at}"));
    assert_eq!(
        got,
        [
            ("steps[0]".to_owned(), StepStatus::Ok, None),
            (
                "steps[1].steps[0]".to_owned(),
                StepStatus::Failed,
                in_step.clone()
            ),
            (
                "steps[1].steps[1]".to_owned(),
                StepStatus::Skipped,
                not_run("steps[1].steps[0]")
            ),
            ("steps[1]".to_owned(), StepStatus::Failed, in_step),
            (
                "steps[2]".to_owned(),
                StepStatus::Skipped,
                not_run("steps[1]")
            ),
        ],
        "the step in flight (and its group) failed with the timeout, the rest skipped"
    );
    assert_eq!(
        step_results(&events),
        report.steps,
        "every result is an event"
    );
    assert_eq!(kinds(&events).last(), Some(&"done"));
}

#[tokio::test(start_paused = true)]
async fn a_containers_timeout_cuts_the_step_in_flight_and_fails_the_container() {
    let t = task(json!({"name": "bounded", "steps": [
        {"type": "group", "name": "slow part", "timeout_s": 0.5, "on_error": "continue", "steps": [
            {"type": "wait", "seconds": 300},
            {"type": "key_event", "keys": "never"},
        ]},
        {"type": "loop", "times": 1000, "timeout_s": 2, "on_error": "continue", "steps": [
            {"type": "wait", "seconds": 0.3},
        ]},
        {"type": "key_event", "keys": "after"},
    ]}));
    let (report, _events) = run_on_fixture(&t, &RunRequest::default()).await;
    let got: Vec<(String, StepStatus, Option<String>)> = report
        .steps
        .iter()
        .filter(|s| !s.path.starts_with("steps[1].steps[0]#") || s.status != StepStatus::Ok)
        .map(|s| (s.path.clone(), s.status, s.error.clone()))
        .collect();
    let s = |t: &str| Some(t.to_owned());
    assert_eq!(
        got,
        [
            (
                "steps[0].steps[0]".to_owned(),
                StepStatus::Failed,
                s("the group at steps[0] passed its timeout of 0.5 s while this step ran")
            ),
            (
                "steps[0].steps[1]".to_owned(),
                StepStatus::Skipped,
                s("not run: the group at steps[0] had passed its timeout")
            ),
            (
                "steps[0]".to_owned(),
                StepStatus::Failed,
                s("the step did not finish within its timeout of 0.5 s")
            ),
            (
                "steps[1].steps[0]#7".to_owned(),
                StepStatus::Failed,
                s("the loop at steps[1] passed its timeout of 2 s while this step ran")
            ),
            (
                "steps[1].steps[0]#8".to_owned(),
                StepStatus::Skipped,
                s("not run: the loop at steps[1] had passed its timeout")
            ),
            (
                "steps[1]".to_owned(),
                StepStatus::Failed,
                s("the step did not finish within its timeout of 2 s")
            ),
            ("steps[2]".to_owned(), StepStatus::Ok, None),
        ],
        "{:#?}",
        report.steps
    );
    assert_eq!(report.status, DoneStatus::Completed, "{}", report.message);
}

#[tokio::test]
async fn variables_come_from_the_task_and_the_request() {
    let t = task(
        json!({"name": "vars", "variables": {"word": "default", "other": "kept"}, "steps": [
            {"type": "key_event", "keys": "{{word}} {{other}}"},
        ]}),
    );
    let req = RunRequest {
        variables: [("word".to_owned(), "苏州".to_owned())].into(),
        ..RunRequest::default()
    };
    let (report, events) = run_on_fixture(&t, &req).await;
    assert_eq!(report.status, DoneStatus::Completed, "{}", report.message);
    let step = first_tool_step(&events);
    assert_eq!(step.result["result"]["keys"], "苏州 kept");
}

#[tokio::test]
async fn control_steps_without_a_window_say_what_to_do_first() {
    let t = task(
        json!({"name": "no window", "steps": [{"type": "click", "selector": {"text": "OK"}}]}),
    );
    let (report, _events) = run_on_fixture(&t, &RunRequest::default()).await;
    assert_eq!(report.status, DoneStatus::Failed);
    assert!(
        report.steps[0]
            .error
            .as_deref()
            .unwrap()
            .starts_with("no window is selected: start the task with open_app")
    );
}

#[tokio::test]
async fn secret_values_reach_the_device_and_no_record_of_the_run() {
    let t = task(
        json!({"name": "login", "variables": {"pw": {"secret": "LOGIN_PW"}, "user": "ann"},
        "steps": [
            {"type": "key_event", "keys": "{{user}} {{pw}}"},
            {"type": "key_event", "keys": "{{pw}}"},
        ]}),
    );
    let secret = "s3cr\"et-Ümlaut";
    let req = RunRequest {
        secrets: [("LOGIN_PW".to_owned(), secret.to_owned())].into(),
        ..RunRequest::default()
    };
    let (report, events) = run_on_fixture(&t, &req).await;
    let step = first_tool_step(&events);
    assert_eq!(step.args["keys"], "ann ••••(secret LOGIN_PW)");
    assert_eq!(step.result["result"]["keys"], "ann ••••(secret LOGIN_PW)");
    let recorded = format!(
        "{}{}{:?}",
        serde_json::to_string(&events).unwrap(),
        report.message,
        report.steps
    );
    for form in [secret, "s3cr\\\"et", "s3cr"] {
        assert!(!recorded.contains(form), "{form:?} leaked: {recorded}");
    }
    assert!(
        format!("{req:?}").contains("LOGIN_PW") && !format!("{req:?}").contains("s3cr"),
        "a request prints the secrets' names only"
    );
}
