//! The runner on a phone (the simulated phone of deft-test-support behind the real adb server,
//! driven by deft's Android tool server and the built-in table's `android` profile): a task of
//! thirteen step types — apps opened by label (one only the home screen names), a calculation by
//! selectors, a list scrolled until a row shows, Chinese typed into a field, the screen off and
//! on, keep awake, a dialog answered by `if_el`, a gesture, apps stopped; a link opened in the
//! phone's browser and the clipboard set, pasted, copied and read.

mod fixture_device;

use std::sync::Arc;

use deft_protocol::DoneStatus;
use deft_test_support::adb_double::{AdbHarness, DoubleConfig};
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, LocalDispatcher};
use serde_json::json;

/// The phone of `harness` as a device of the `android` profile.
fn phone_device(harness: &AdbHarness) -> Device {
    phone_device_with(harness, Vec::new())
}

/// The phone of `harness` as a device of the `android` profile, APKs (and the clipboard
/// helper) allowed from `apk_dirs`.
fn phone_device_with(harness: &AdbHarness, apk_dirs: Vec<std::path::PathBuf>) -> Device {
    let serial = harness.double(0).serial();
    let port = harness.port();
    let mut r = BuiltinRegistry::new();
    r.register(Builtin::new(
        deft_backend_android::NAME,
        "phone",
        move |_| {
            Ok::<_, String>(deft_backend_android::AndroidServer::new(
                deft_backend_android::AndroidConfig {
                    serial: Some(serial.clone()),
                    adb_port: Some(port),
                    apk_dirs: apk_dirs.clone(),
                    ..Default::default()
                },
            ))
        },
    ));
    let d = LocalDispatcher::new(Arc::new(RoutingTable::builtin()), Arc::new(r));
    Device::new(&harness.double(0).serial(), "android", Arc::new(d))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_of_thirteen_step_types_runs_on_a_phone() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let t = fixture_device::task(json!({"name": "phone tour", "steps": [
        {"type": "open_app", "app": "Calculator"},
        {"type": "click", "selector": {"text": "7", "type": "button", "match": "exact"}},
        {"type": "click", "selector": {"text": "+", "type": "button", "match": "exact"}},
        {"type": "click", "selector": {"text": "8", "type": "button", "match": "exact"}},
        {"type": "click", "selector": {"text": "=", "type": "button", "match": "exact"}},
        {"type": "if_el", "selector": {"text": "15", "match": "exact"},
         "then": [{"type": "stop_app", "app": "Calculator"}],
         "else": [{"type": "stop_self", "message": "7 + 8 did not show 15"}]},
        {"type": "open_app", "app": "Settings"},
        {"type": "swipe_until", "selector": {"text": "About phone", "match": "exact"}, "direction": "up", "max_swipes": 10},
        {"type": "click", "selector": {"text": "About phone", "match": "exact"}},
        {"type": "key_event", "keys": "{GO_BACK}{GO_HOME}"},
        {"type": "open_app", "app": "记事本"},
        {"type": "input_text", "selector": {"type": "edit"}, "text": "苏州 天气"},
        {"type": "screen_off"},
        {"type": "screen_on"},
        {"type": "keep_screen", "on": true},
        {"type": "open_app", "app": "com.example.form"},
        {"type": "click", "selector": {"text": "Submit", "type": "button", "match": "exact"}},
        {"type": "if_el", "selector": {"text": "Saved", "match": "exact"}, "wait_s": 5,
         "then": [{"type": "click", "selector": {"text": "OK", "type": "button", "match": "exact"}}],
         "else": [{"type": "stop_self", "message": "no dialog"}]},
        {"type": "gesture", "points": [{"x": 0.2, "y": 0.5}, {"x": 0.5, "y": 0.3}, {"x": 0.8, "y": 0.5}], "duration_s": 0.4},
        {"type": "stop_app", "app": "com.example.form"},
        {"type": "swipe", "direction": "left", "amount": 0.5},
        {"type": "mark_done", "message": "toured"},
    ]}));
    let report = fixture_device::run_on(&t, &phone_device(&harness)).await;
    fixture_device::assert_completed_with(&report, ": toured");
    let lines = fixture_device::step_lines(&report);
    let double = harness.double(0);
    assert_eq!(
        double.field_text("com.example.notes:id/note").as_deref(),
        Some("苏州 天气")
    );
    assert!(double.screen_on());
    assert_eq!(double.stay_on(), 7, "keep_screen on: svc power stayon true");
    assert_eq!(double.foreground(), "com.android.launcher3");
    let swiped = report
        .steps
        .iter()
        .find(|s| s.path == "steps[7]")
        .expect("swipe_until ran");
    let swipes = swiped.message.as_deref().unwrap_or_default();
    assert!(
        swipes.ends_with(" swipes") && swipes != "0 swipes",
        "About phone is below the first screen: {lines:#?}"
    );
    let motions = double
        .inputs()
        .into_iter()
        .filter(|i| matches!(i, deft_test_support::adb_double::Input::Motion(..)))
        .count();
    assert_eq!(motions, 3, "one touch through three points");
    // A left swipe on a phone: the finger moves left across the middle of the screen.
    let last_swipe = double
        .inputs()
        .into_iter()
        .rev()
        .find_map(|i| match i {
            deft_test_support::adb_double::Input::Swipe(s) => Some(s),
            _ => None,
        })
        .expect("a swipe");
    assert_eq!(&last_swipe[..4], &[810, 1200, 270, 1200]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_opens_in_the_phones_browser_and_the_clipboard_goes_both_ways() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let helper = tempfile::tempdir().unwrap();
    std::fs::write(helper.path().join("devicekit.dex"), b"dex\n035\0").unwrap();
    let t = fixture_device::task(json!({"name": "link and clipboard", "steps": [
        {"type": "open_app", "url": "https://example.org/orders/42"},
        {"type": "wait_el", "selector": {"text": "Page at https://example.org/orders/42", "match": "exact"}, "timeout_s": 5},
        {"type": "clipboard", "set": "订单 42"},
        {"type": "open_app", "app": "记事本"},
        {"type": "click", "selector": {"type": "edit"}},
        {"type": "key_event", "keys": "^v"},
        {"type": "input_text", "selector": {"type": "edit"}, "text": "苏州"},
        {"type": "key_event", "keys": "^c"},
        {"type": "clipboard", "read_into": "copied"},
        {"type": "mark_done", "message": "copied {{copied}}"},
    ]}));
    let device = phone_device_with(&harness, vec![helper.path().to_owned()]);
    let report = fixture_device::run_on(&t, &device).await;
    fixture_device::assert_completed_with(&report, ": copied 苏州");
    let double = harness.double(0);
    assert_eq!(double.clipboard().as_deref(), Some("苏州"));
    assert_eq!(
        double.field_text("com.example.notes:id/note").as_deref(),
        Some("苏州"),
        "input_text replaced what ^v pasted"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screen_steps_are_not_supported_where_the_device_has_no_screen_power() {
    let t = fixture_device::task(json!({"name": "t", "steps": [{"type": "screen_on"}]}));
    let table = Arc::new(RoutingTable::builtin());
    let device = Device::new(
        "local",
        "shell",
        Arc::new(LocalDispatcher::new(
            table,
            Arc::new(BuiltinRegistry::new()),
        )),
    );
    let report = fixture_device::run_on(&t, &device).await;
    assert_eq!(report.status, DoneStatus::Failed);
    assert_eq!(
        report.steps[0].error.as_deref(),
        Some("screen_on is not supported on this device (local): it has no tool for it"),
        "{:#?}",
        fixture_device::step_lines(&report)
    );
}
