//! The runner on the real browser device (headless Chromium over CDP, routed by the built-in
//! table's `browser` profile): a button that appears 300 ms after a click is waited for by
//! `wait_el` (the device's event-driven `wait_for_control`), clicked by its selector, and a
//! button renamed under the task heals through the fuzzy retry with `healed_from`; `if_el`
//! then reads the page's answer. Variables expand in the selector of every step type that
//! takes one (and in their `within`s), conditions included; one without a value fails its
//! step and never reaches the device. A step past its own short `timeout_s` says so, not the
//! batch deadline of its tool calls.

mod browser_device;
mod fixture_device;

use browser_device::{browser_device, pages};
use deft_protocol::DoneStatus;
use deft_protocol::task_run::StepStatus;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_button_is_waited_for_and_a_renamed_one_heals() {
    let pages = pages().await;
    let t = fixture_device::task(json!({"name": "late button", "steps": [
        {"type": "open_app", "url": pages.url("appear.html?ms=300")},
        {"type": "click", "selector": {"text": "Show the button later", "type": "button"}},
        {"type": "wait_el", "selector": {"text": "Appeared", "type": "button", "match": "exact"}, "timeout_s": 20},
        {"type": "click", "selector": {"text": "Appeared", "type": "button", "match": "exact"}},
        {"type": "wait_el", "selector": {"text": "appeared clicked"}, "timeout_s": 20},
        {"type": "click", "selector": {"text": "Rename the save button"}},
        {"type": "click", "selector": {"text": "Save draft", "type": "button", "match": "exact"}},
        {"type": "if_el", "selector": {"text": "draft saved"}, "wait_s": 20,
         "then": [{"type": "mark_done", "message": "saved"}],
         "else": [{"type": "stop_self", "message": "the draft was not saved"}]},
    ]}));
    let report = fixture_device::run_on(&t, &browser_device()).await;
    let lines = fixture_device::step_lines(&report);
    assert_eq!(
        report.status,
        DoneStatus::Completed,
        "{}\n{lines:#?}",
        report.message
    );
    assert!(report.message.ends_with(": saved"), "{}", report.message);
    let by_path = |p: &str| {
        report
            .steps
            .iter()
            .find(|s| s.path == p)
            .unwrap_or_else(|| panic!("{p} in {lines:#?}"))
    };
    let waited = by_path("steps[2]");
    assert_eq!(
        waited.matched.as_ref().map(|m| m.name.as_str()),
        Some("Appeared")
    );
    let healed = by_path("steps[6]");
    assert_eq!(healed.status, StepStatus::Ok);
    assert_eq!(
        healed.healed_from.as_deref(),
        Some("button \"Save draft\" (exact)")
    );
    let m = healed.matched.as_ref().unwrap();
    assert_eq!(
        (m.name.as_str(), m.kind.as_str()),
        ("Save a draft", "button")
    );
    assert!((70..100).contains(&m.score), "a fuzzy score: {}", m.score);
    assert_eq!(by_path("steps[7].else[0]").status, StepStatus::Skipped);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_app_closes_the_tabs_of_a_site_and_then_finds_none() {
    let pages = pages().await;
    let t = fixture_device::task(
        json!({"name": "close a site", "on_error": "continue", "steps": [
            {"type": "open_app", "url": pages.url("appear.html?ms=300")},
            {"type": "open_app", "url": pages.url("appear.html?ms=900"), "new_tab": true},
            {"type": "stop_app", "app": "127.0.0.1"},
            {"type": "stop_app", "app": "127.0.0.1"},
        ]}),
    );
    let report = fixture_device::run_on(&t, &browser_device()).await;
    let lines = fixture_device::step_lines(&report);
    let closed = &report.steps[2];
    assert_eq!(closed.status, StepStatus::Ok, "{lines:#?}");
    assert_eq!(
        closed.message.as_deref(),
        Some("closed 2 tab(s) of 127.0.0.1"),
        "{lines:#?}"
    );
    let again = &report.steps[3];
    assert_eq!(again.status, StepStatus::Failed, "{lines:#?}");
    assert!(
        again
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("no tab of 127.0.0.1 is open on browser")),
        "{lines:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_click_holds_the_button_for_its_duration() {
    let pages = pages().await;
    let t = fixture_device::task(json!({"name": "long press", "steps": [
        {"type": "open_app", "url": pages.url("press.html")},
        {"type": "long_click", "selector": {"text": "Press and hold", "type": "button"}, "duration_s": 0.5},
        {"type": "wait_el", "selector": {"text": "^held \\d+ ms$", "match": "regex"}, "timeout_s": 20},
        {"type": "wait_el", "selector": {"text": "clicked", "match": "exact"}, "timeout_s": 20},
        // The page's own clock: 500 ms or more between mousedown and mouseup.
        {"type": "if_el", "selector": {"text": "^held ([5-9]\\d\\d|\\d{4,}) ms$", "match": "regex"},
         "then": [{"type": "mark_done", "message": "held long enough"}],
         "else": [{"type": "stop_self", "message": "released too early"}]},
    ]}));
    let report = fixture_device::run_on(&t, &browser_device()).await;
    fixture_device::assert_completed_with(&report, ": held long enough");
    let lines = fixture_device::step_lines(&report);
    let held = &report.steps[1];
    assert_eq!(
        held.matched.as_ref().map(|m| m.name.as_str()),
        Some("Press and hold")
    );
    assert!(held.duration_ms >= 500, "{lines:#?}");
}

/// docs/tasks.md "Timeouts": a step past its own `timeout_s` fails with its own text, never the
/// tool layer's batch deadline it derives — here a leaf step that is not a wait: a 3 s hold
/// with a 0.5 s limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leaf_step_past_its_own_short_timeout_says_so_not_the_batch_deadline() {
    let pages = pages().await;
    let t = fixture_device::task(json!({"name": "hold too long", "steps": [
        {"type": "open_app", "url": pages.url("press.html")},
        {"type": "long_click", "selector": {"text": "Press and hold", "type": "button"},
         "duration_s": 3, "timeout_s": 0.5},
    ]}));
    let report = fixture_device::run_on(&t, &browser_device()).await;
    let lines = fixture_device::step_lines(&report);
    assert_eq!(report.status, DoneStatus::Failed, "{lines:#?}");
    assert_eq!(
        report.steps[1].error.as_deref(),
        Some("the step did not finish within its timeout of 0.5 s"),
        "{lines:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_step_keeps_a_screenshot_of_the_page() {
    let pages = pages().await;
    let t = fixture_device::task(json!({"name": "missing button", "steps": [
        {"type": "open_app", "url": pages.url("appear.html?ms=300")},
        {"type": "click", "selector": {"text": "No such button at all", "type": "button", "match": "exact"}},
    ]}));
    let (rec, sinks, _rx, kept) = fixture_device::recorder_keeping_images();
    let report = deft_tasks::runner::run_task(
        &t,
        &browser_device(),
        &deft_tasks::runner::RunRequest::default(),
        sinks,
        tokio_util::sync::CancellationToken::new(),
    )
    .await;
    assert_eq!(report.status, DoneStatus::Failed, "{}", report.message);
    assert!(
        report.steps[0].image_ids.is_empty(),
        "an ok step keeps none"
    );
    assert_eq!(report.steps[1].image_ids, ["shot-1"]);
    let kept = kept.images.lock();
    let (bytes, mime) = &kept[0];
    assert_eq!(mime, "image/png");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 1_000);
    let shot = rec
        .events
        .lock()
        .iter()
        .find_map(|e| match &e.kind {
            deft_protocol::EventKind::Step(s) if s.image_ids == ["shot-1"] => Some(s.tool.clone()),
            _ => None,
        })
        .expect("the screenshot's own step event");
    assert_eq!(
        shot, "capture_window_screenshot",
        "the page, not the screen"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clipboard_steps_read_a_copy_button_into_a_variable_and_paste_with_keys() {
    let pages = pages().await;
    let search = json!({"type": "edit", "text": "Search"});
    let t = fixture_device::task(
        json!({"name": "copy an order number into the search", "steps": [
            {"type": "open_app", "url": pages.url("clipboard.html")},
            {"type": "click", "selector": {"text": "Copy order number", "type": "button"}},
            {"type": "wait_el", "selector": {"text": "copied the order number"}, "timeout_s": 10},
            {"type": "clipboard", "read_into": "order_id"},
            {"type": "input_text", "selector": search, "text": "{{order_id}}"},
            {"type": "wait_el", "selector": {"text": "search: ORD-2024-117", "match": "exact"}, "timeout_s": 10},
            {"type": "clipboard", "set": "Grüße, 苏州 ✓"},
            {"type": "key_event", "selector": search, "keys": "^a^v"},
            {"type": "wait_el", "selector": {"text": "search: Grüße, 苏州 ✓", "match": "exact"}, "timeout_s": 10},
        ]}),
    );
    let report = fixture_device::run_on(&t, &browser_device()).await;
    let lines = fixture_device::step_lines(&report);
    assert_eq!(report.status, DoneStatus::Completed, "{lines:#?}");
    assert_eq!(
        report.steps[3].message.as_deref(),
        Some("read 12 characters into {{order_id}}"),
        "{lines:#?}"
    );
}

/// The selector of a control of the fieldset `{{section}}` of task_vars.html.
fn in_section(selector: serde_json::Value) -> serde_json::Value {
    let mut s = selector;
    s["within"] = json!({"type": "group", "text": "{{section}}"});
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn variables_expand_in_the_selector_of_every_step_type_conditions_included() {
    let pages = pages().await;
    let note = in_section(json!({"text": "Note for {{order}}", "type": "edit"}));
    let rows = json!({"text": "Rows of {{order}}", "type": "list"});
    let status = |text: &str| json!({"type": "wait_el", "selector": {"text": text, "match": "exact"}, "timeout_s": 10});
    let t = fixture_device::task(json!({
        "name": "an order's controls by variables",
        "variables": {"order": "ORD-7", "section": "Open orders"},
        "steps": [
            {"type": "open_app", "url": pages.url("task_vars.html")},
            {"type": "click", "selector": in_section(json!({"text": "Open {{order}}", "type": "button", "match": "exact"}))},
            status("Open orders: opened"),
            {"type": "long_click", "selector": in_section(json!({"text": "Hold {{order}}", "type": "button"})), "duration_s": 0.2},
            status("Open orders: held"),
            {"type": "input_text", "selector": note, "text": "{{order}} note"},
            {"type": "key_event", "selector": note, "keys": "!"},
            {"type": "wait_el", "selector": {"text": "{{section}}: note {{order}} note!", "match": "exact"}, "timeout_s": 10},
            {"type": "swipe", "direction": "up", "area": rows},
            status("rows scrolled"),
            {"type": "swipe_until", "selector": {"text": "Row 40 of {{order}}", "match": "exact"}, "direction": "up", "area": rows, "max_swipes": 20},
            {"type": "if_el", "selector": {"text": "{{section}}: note {{order}} note!", "match": "exact"},
             "then": [{"type": "notify", "message": "the note of {{order}} is there"}],
             "else": [{"type": "stop_self", "message": "if_el looked for its selector as written"}]},
            {"type": "loop", "while": in_section(json!({"text": "Pending {{order}}", "type": "button"})), "max": 5,
             "steps": [{"type": "click", "selector": {"text": "Pending {{order}}", "type": "button"}}]},
            {"type": "loop", "until": {"text": "Done with {{order}}", "type": "button"}, "max": 5,
             "steps": [{"type": "click", "selector": {"text": "Next {{order}}", "type": "button"}}]},
            {"type": "if_el", "selector": in_section(json!({"text": "Pending {{order}}"})), "gone": true,
             "then": [{"type": "mark_done", "message": "every pending order of {{section}} is gone"}]},
        ]
    }));
    let (rec, sinks, _rx) = fixture_device::recorder();
    let report = deft_tasks::runner::run_task(
        &t,
        &browser_device(),
        &deft_tasks::runner::RunRequest::default(),
        sinks,
        tokio_util::sync::CancellationToken::new(),
    )
    .await;
    let lines = fixture_device::step_lines(&report);
    assert_eq!(
        report.status,
        DoneStatus::Completed,
        "{}\n{lines:#?}",
        report.message
    );
    assert_eq!(report.count(StepStatus::Failed), 0, "{lines:#?}");
    assert!(
        report
            .message
            .ends_with(": every pending order of Open orders is gone"),
        "{}",
        report.message
    );
    let by_path = |p: &str| {
        report
            .steps
            .iter()
            .find(|s| s.path == p)
            .unwrap_or_else(|| panic!("{p} in {lines:#?}"))
    };
    assert_eq!(
        by_path("steps[11].then[0]").message.as_deref(),
        Some("info: the note of ORD-7 is there"),
        "{lines:#?}"
    );
    assert_eq!(by_path("steps[12]").message.as_deref(), Some("2 rounds"));
    assert_eq!(by_path("steps[13]").message.as_deref(), Some("3 rounds"));
    assert_eq!(
        by_path("steps[10]")
            .matched
            .as_ref()
            .map(|m| m.name.as_str()),
        Some("Row 40 of ORD-7")
    );
    // Every selector reached the device expanded.
    let events = rec.events.lock();
    let sent: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            deft_protocol::EventKind::StepStart { args, .. } => Some(args.to_string()),
            _ => None,
        })
        .collect();
    assert!(sent.iter().all(|a| !a.contains("{{")), "{sent:#?}");
    assert!(
        sent.iter()
            .any(|a| a.contains("\"Pending ORD-7\"") && a.contains("\"Open orders\"")),
        "the loop's condition with its within: {sent:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_selector_variable_without_a_value_fails_its_step_and_reaches_no_device() {
    let pages = pages().await;
    let missing = "no value for {{later}} (in selector.text): give it in the task's variables or the run request, or read it with a clipboard step that runs before this one";
    let later = json!({"text": "{{later}}", "type": "button"});
    let t = fixture_device::task(json!({
        "name": "a value read in a branch not taken",
        "on_error": "continue",
        "variables": {"section": "Open orders"},
        "steps": [
            {"type": "open_app", "url": pages.url("task_vars.html")},
            {"type": "if_el", "selector": {"text": "No such text on the page", "match": "exact"},
             "then": [{"type": "clipboard", "read_into": "later"}],
             "else": [{"type": "notify", "message": "nothing read"}]},
            {"type": "if_el", "selector": later,
             "then": [{"type": "notify", "message": "then"}], "else": [{"type": "notify", "message": "else"}]},
            {"type": "loop", "until": later, "steps": [{"type": "wait", "seconds": 0}]},
            {"type": "wait_el", "selector": {"text": "Open ORD-7", "within": {"type": "group", "text": "{{section}}", "within": {"text": "{{later}}"}}}, "timeout_s": 1},
            {"type": "click", "selector": later},
        ]
    }));
    let (rec, sinks, _rx) = fixture_device::recorder();
    let report = deft_tasks::runner::run_task(
        &t,
        &browser_device(),
        &deft_tasks::runner::RunRequest::default(),
        sinks,
        tokio_util::sync::CancellationToken::new(),
    )
    .await;
    let lines = fixture_device::step_lines(&report);
    let failed: Vec<(&str, &str)> = report
        .steps
        .iter()
        .filter(|s| s.status == StepStatus::Failed)
        .map(|s| (s.path.as_str(), s.error.as_deref().unwrap_or_default()))
        .collect();
    assert_eq!(
        failed,
        [
            ("steps[2]", missing),
            (
                "steps[3]",
                "no value for {{later}} (in until.text): give it in the task's variables or the run request, or read it with a clipboard step that runs before this one"
            ),
            (
                "steps[4]",
                "no value for {{later}} (in selector.within.within.text): give it in the task's variables or the run request, or read it with a clipboard step that runs before this one"
            ),
            ("steps[5]", missing),
        ],
        "{lines:#?}"
    );
    let branches: Vec<(&str, StepStatus, &str)> = report
        .steps
        .iter()
        .filter(|s| s.path.starts_with("steps[2]."))
        .map(|s| {
            (
                s.path.as_str(),
                s.status,
                s.error.as_deref().unwrap_or_default(),
            )
        })
        .collect();
    let unasked = "not run: the condition could not be checked";
    assert_eq!(
        branches,
        [
            ("steps[2].then[0]", StepStatus::Skipped, unasked),
            ("steps[2].else[0]", StepStatus::Skipped, unasked),
        ],
        "neither branch of a condition that could not be asked runs: {lines:#?}"
    );
    let events = rec.events.lock();
    let leaked: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            deft_protocol::EventKind::StepStart { args, .. } if args.to_string().contains("{{") => {
                Some(args.to_string())
            }
            _ => None,
        })
        .collect();
    assert!(leaked.is_empty(), "sent to the device: {leaked:#?}");
}
