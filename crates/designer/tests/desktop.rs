//! A designer run on the managed virtual desktop (gnome-calculator through AT-SPI and XTest):
//! the scripted model explores — launches the calculator, lists its keys, computes 7 × 8,
//! checks the display with find_controls — then submits a draft with errors, reads the
//! validator's paths, fixes them, is refused a coordinate click where it had seen the button,
//! and submits the draft that is accepted. The draft, played by the task runner on a freshly
//! started calculator, computes 56 again.

#[path = "../../agent/tests/common/mod.rs"]
mod common;
#[path = "../../tasks/tests/desktop_device/mod.rs"]
mod desktop_device;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use std::sync::Arc;

use common::{Collect, agent, io, quiet_config};
use deft_agent::RunRequest;
use deft_protocol::{DoneStatus, DraftOutcome, ResultStatus, ToolType};
use deft_test_support::model::{
    Recorded, Reply, ScriptedModel, Turn, click_buttons, select_launched_window,
};
use deft_tools::{AppSelection, Device, StaticDevices};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn turn(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Turn {
    Box::new(f)
}

/// Closes the calculator (its windows, then its processes).
async fn close_calculator(device: &Device) {
    let closed = desktop_device::call(
        device,
        ToolType::Action,
        "close_app",
        json!({"app": "gnome-calculator"}),
        None,
    )
    .await;
    assert_eq!(closed.status, ResultStatus::Success, "{closed:?}");
}

fn key(label: &str) -> Value {
    json!({"text": label, "type": "button", "match": "exact"})
}

/// The task the model means, with `click` on the = key written as `eq`.
fn draft(eq: Value) -> Value {
    json!({"name": "Calculator: 7 × 8", "steps": [
        {"type": "open_app", "app": "gnome-calculator"},
        {"type": "click", "selector": key("7")},
        {"type": "click", "selector": key("×")},
        {"type": "click", "selector": key("8")},
        eq,
        {"type": "wait_el", "selector": {"text": "56", "type": "edit", "match": "exact"}, "timeout_s": 10}
    ]})
}

fn the_script() -> Vec<Turn> {
    vec![
        Reply::tool_call("launch_app", json!({"app": "gnome-calculator"})).into(),
        turn(select_launched_window),
        Reply::tool_call("get_app_window_controls_info", json!({})).into(),
        turn(|req| click_buttons(req, &["7", "×", "8", "="])),
        Reply::tool_call(
            "find_controls",
            json!({"selector": {"text": "56", "type": "edit", "match": "exact"}}),
        )
        .into(),
        turn(|req| {
            let found = req.last_tool_output().unwrap_or_default();
            assert!(
                !found.contains("chosen=none"),
                "the display shows 56:\n{found}"
            );
            // Two mistakes: a misspelt type and a misspelt field.
            let mut bad = draft(json!({"type": "click", "selector": key("=")}));
            bad["steps"][1]["type"] = json!("clik");
            bad["steps"][2]["buton"] = json!("left");
            Reply::tool_call("submit_task", json!({"task": bad}))
        }),
        turn(|req| {
            let out = req.last_tool_output().unwrap_or_default();
            assert!(
                out.contains(
                    "- steps[1].type: unknown step type \"clik\"; did you mean \"click\"?"
                ) && out.contains(
                    "- steps[2].buton: click has no field \"buton\"; did you mean \"button\"?"
                ),
                "the validator's paths:\n{out}"
            );
            // Fixed — but = pressed as a point of the window.
            let eq = json!({"type": "click_xy", "x": 0.8, "y": 0.9});
            Reply::tool_call("submit_task", json!({"task": draft(eq)}))
        }),
        turn(|req| {
            let out = req.last_tool_output().unwrap_or_default();
            assert!(
                out.contains("- steps[4].type: click_xy uses coordinates, but your exploration listed controls"),
                "{out}"
            );
            let eq = json!({"type": "click", "selector": key("=")});
            Reply::tool_call("submit_task", json!({"task": draft(eq)}))
        }),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_designer_run_drafts_the_calculator_task_and_the_runner_replays_it() {
    desktop_device::require_apps(&[("gnome-calculator", "gnome-calculator")]);
    let desk = desktop_device::start().await;
    let device = desk.device.clone();
    let devices = Arc::new(StaticDevices::new(vec![device.clone()]));
    let model = ScriptedModel::start(the_script()).await;
    let events = Arc::new(Collect::default());
    let request = RunRequest::new("every morning, compute 7 × 8 in the calculator")
        .with_profile(deft_designer::profile(&device));
    let out = agent(&model.base_url(), devices, quiet_config())
        .run(&device, request, io(&events), CancellationToken::new())
        .await;
    assert_eq!(out.status, DoneStatus::Completed, "{}", out.answer);
    assert_eq!(model.turns_left(), 0);
    assert_eq!(
        out.answer,
        "Drafted the task \"Calculator: 7 × 8\": 6 steps, 0 warnings."
    );
    let (task, warnings) = match out.draft {
        Some(DraftOutcome::Draft { task, warnings }) => (task, warnings),
        other => panic!("no draft: {other:?}"),
    };
    assert!(warnings.is_empty(), "every selector was seen: {warnings:?}");
    assert_eq!(task["device"], "local");

    // A fresh start: close the explored calculator, then play the draft.
    close_calculator(&device).await;
    let report = fixture_device::run_on(&fixture_device::task(task), &device).await;
    let lines = fixture_device::step_lines(&report);
    assert_eq!(
        report.status,
        DoneStatus::Completed,
        "{}\n{lines:#?}",
        report.message
    );
    assert!(
        report.steps.iter().all(|s| s.healed_from.is_none()),
        "every selector matched as written: {lines:#?}"
    );

    // The effect is on the real app: its display reads 56.
    let windows = desktop_device::call(
        &device,
        ToolType::DataCollection,
        "get_desktop_app_info",
        json!({}),
        None,
    )
    .await;
    let calc = windows.result["windows"]
        .as_array()
        .and_then(|ws| ws.iter().find(|w| w["app"] == "gnome-calculator").cloned())
        .unwrap_or_else(|| panic!("no calculator window: {windows:?}"));
    let selected = desktop_device::call(
        &device,
        ToolType::Action,
        "select_application_window",
        json!({"id": calc["id"], "name": calc["name"]}),
        None,
    )
    .await;
    let app = AppSelection::from_result(&selected).expect("the calculator is selected");
    let found = desktop_device::call(
        &device,
        ToolType::DataCollection,
        "find_controls",
        json!({"selector": {"text": "56", "type": "edit", "match": "exact"}, "format": "json"}),
        Some(&app),
    )
    .await;
    assert!(
        !found.result["chosen"].is_null(),
        "the display should read 56: {found:?}"
    );
    close_calculator(&device).await;
}
