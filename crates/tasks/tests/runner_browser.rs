//! The runner on the real browser device (headless Chromium over CDP, routed by the built-in
//! table's `browser` profile): a button that appears 300 ms after a click is waited for by
//! `wait_el` (the device's event-driven `wait_for_control`), clicked by its selector, and a
//! button renamed under the task heals through the fuzzy retry with `healed_from`; `if_el`
//! then reads the page's answer.

mod fixture_device;

use std::sync::Arc;

use deft_protocol::DoneStatus;
use deft_protocol::task_run::StepStatus;
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, LocalDispatcher};
use serde_json::json;

fn browser_device() -> Device {
    let mut r = BuiltinRegistry::new();
    r.register(Builtin::new(deft_backend_shell::NAME, "shell", |o| {
        deft_backend_shell::ShellPolicy::from_options(o).map(deft_backend_shell::ShellServer::new)
    }));
    r.register(Builtin::new(deft_backend_browser::NAME, "browser", |o| {
        deft_backend_browser::BrowserConfig::from_options(o)
            .map(deft_backend_browser::BrowserServer::new)
    }));
    let d = LocalDispatcher::new(Arc::new(RoutingTable::builtin()), Arc::new(r));
    Device::new("browser", "browser", Arc::new(d))
}

/// A page server, once Chromium is known to be there (tests never skip).
async fn pages() -> deft_test_support::web::PageServer {
    if let Err(e) = deft_backend_browser::launch::find_chromium(None) {
        panic!("{e} (scripts/test.sh installs it)");
    }
    deft_test_support::web::PageServer::start()
        .await
        .expect("page server")
}

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
    let lines = fixture_device::step_lines(&report);
    assert_eq!(
        report.status,
        DoneStatus::Completed,
        "{}\n{lines:#?}",
        report.message
    );
    assert!(
        report.message.ends_with(": held long enough"),
        "{}",
        report.message
    );
    let held = &report.steps[1];
    assert_eq!(
        held.matched.as_ref().map(|m| m.name.as_str()),
        Some("Press and hold")
    );
    assert!(held.duration_ms >= 500, "{lines:#?}");
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
