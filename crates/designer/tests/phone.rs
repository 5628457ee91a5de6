//! A designer run on a phone (the simulated phone of deft-test-support behind the real adb
//! server, driven by deft's Android tool server and the built-in table's `android` profile):
//! the scripted model opens the calculator by its label, lists its keys, computes 7 + 8, checks
//! the result with find_controls and submits a draft; the runner plays the draft on the phone
//! after the calculator was stopped, and it computes 15 again.

#[path = "../../agent/tests/common/mod.rs"]
mod common;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use std::sync::Arc;

use common::{Collect, agent, io, quiet_config};
use deft_agent::RunRequest;
use deft_protocol::{DoneStatus, DraftOutcome};
use deft_test_support::adb_double::{AdbHarness, DoubleConfig};
use deft_test_support::model::{
    Recorded, Reply, ScriptedModel, Turn, click_buttons, select_launched_window,
};
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, LocalDispatcher, StaticDevices};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn turn(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Turn {
    Box::new(f)
}

/// The phone of `harness` as a device of the `android` profile.
fn phone_device(harness: &AdbHarness) -> Device {
    let serial = harness.double(0).serial();
    let port = harness.port();
    let config = deft_backend_android::AndroidConfig {
        serial: Some(serial.clone()),
        adb_port: Some(port),
        ..Default::default()
    };
    let mut r = BuiltinRegistry::new();
    r.register(Builtin::new(
        deft_backend_android::NAME,
        "phone",
        move |_| Ok::<_, String>(deft_backend_android::AndroidServer::new(config.clone())),
    ));
    let d = LocalDispatcher::new(Arc::new(RoutingTable::builtin()), Arc::new(r));
    Device::new(&serial, "android", Arc::new(d))
}

fn key(label: &str) -> Value {
    json!({"text": label, "type": "button", "match": "exact"})
}

fn draft() -> Value {
    json!({"name": "Calculator: 7 + 8 on the phone", "steps": [
        {"type": "open_app", "app": "Calculator"},
        {"type": "click", "selector": key("7")},
        {"type": "click", "selector": key("+")},
        {"type": "click", "selector": key("8")},
        {"type": "click", "selector": key("=")},
        {"type": "wait_el", "selector": {"text": "15", "match": "exact"}, "timeout_s": 10}
    ]})
}

fn the_script() -> Vec<Turn> {
    vec![
        Reply::tool_call("launch_app", json!({"app": "Calculator"})).into(),
        turn(select_launched_window),
        Reply::tool_call("get_app_window_controls_info", json!({})).into(),
        turn(|req| click_buttons(req, &["7", "+", "8", "="])),
        Reply::tool_call(
            "find_controls",
            json!({"selector": {"text": "15", "match": "exact"}}),
        )
        .into(),
        turn(|req| {
            let found = req.last_tool_output().unwrap_or_default();
            assert!(
                !found.contains("chosen=none"),
                "the result shows 15:\n{found}"
            );
            Reply::tool_call("submit_task", json!({"task": draft()}))
        }),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_designer_run_drafts_a_phone_task_and_the_runner_replays_it() {
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let device = phone_device(&harness);
    let devices = Arc::new(StaticDevices::new(vec![device.clone()]));
    let model = ScriptedModel::start(the_script()).await;
    let events = Arc::new(Collect::default());
    let request = RunRequest::new("every morning, add 7 and 8 in the phone's calculator")
        .with_profile(deft_designer::profile(&device));
    let out = agent(&model.base_url(), devices, quiet_config())
        .run(&device, request, io(&events), CancellationToken::new())
        .await;
    assert_eq!(out.status, DoneStatus::Completed, "{}", out.answer);
    assert_eq!(model.turns_left(), 0);
    let (task, warnings) = match out.draft {
        Some(DraftOutcome::Draft { task, warnings }) => (task, warnings),
        other => panic!("no draft: {other:?}"),
    };
    assert!(warnings.is_empty(), "every selector was seen: {warnings:?}");
    assert_eq!(task["device"], harness.double(0).serial());

    // A fresh start: stop the explored calculator, then play the draft.
    harness.adb_ok(&[
        "-s",
        &harness.double(0).serial(),
        "shell",
        "am",
        "force-stop",
        "com.android.calculator2",
    ]);
    let report = fixture_device::run_on(&fixture_device::task(task), &device).await;
    let lines = fixture_device::step_lines(&report);
    assert_eq!(
        report.status,
        DoneStatus::Completed,
        "{}\n{lines:#?}",
        report.message
    );
    assert_eq!(
        harness.double(0).calculator().map(|(_, result)| result),
        Some("15".to_owned())
    );
}
