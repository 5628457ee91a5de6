//! The runner on the managed virtual desktop (the `local` device through the real tool layer):
//! examples/tasks/calculator.json as it is committed — gnome-calculator computes 7 × 8 by
//! selectors, `wait_el` sees 56 on the display, `if_el` takes `then`, `stop_app` closes it; and
//! a mousepad task that types non-ASCII text with `input_text` and `key_event`, whose document
//! is then read back through `find_controls`, then stopped. Tasks that act on applications
//! opened by hand (the GTK form, mousepad): `open_app` selects their window; look-once
//! `wait_el` / `if_el` steps look, short waits say what they waited for, and ties and nameless
//! matches are said in the step results.

mod desktop_device;
mod fixture_device;

use deft_protocol::task_run::{StepStatus, TaskStepResult};
use deft_protocol::{DoneStatus, ResultStatus, ToolType};
use deft_tasks::runner::RunReport;
use deft_tools::{AppSelection, Device};
use serde_json::{Value, json};

async fn run(task: &deft_tasks::Task, device: &Device) -> RunReport {
    fixture_device::run_on(task, device).await
}

fn lines(report: &RunReport) -> Vec<String> {
    fixture_device::step_lines(report)
}

fn step<'a>(report: &'a RunReport, path: &str) -> &'a TaskStepResult {
    report
        .steps
        .iter()
        .find(|s| s.path == path)
        .unwrap_or_else(|| panic!("no {path} in {:#?}", lines(report)))
}

/// One tool call on the device (the HostAgent's, or the AppAgent's of `app` when given), which
/// must succeed: its result.
async fn call(
    device: &Device,
    kind: ToolType,
    tool: &str,
    args: Value,
    app: Option<&AppSelection>,
) -> Value {
    let r = desktop_device::call(device, kind, tool, args, app).await;
    assert_eq!(r.status, ResultStatus::Success, "{tool}: {r:?}");
    r.result
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_calculator_example_computes_7_times_8_by_selectors() {
    desktop_device::require_apps(&[("gnome-calculator", "gnome-calculator")]);
    let task = desktop_device::example("calculator.json");
    let desk = desktop_device::start().await;
    let report = run(&task, &desk.device).await;
    let all = lines(&report);
    assert_eq!(
        report.status,
        DoneStatus::Completed,
        "{}\n{all:#?}",
        report.message
    );
    for (path, name) in [
        ("steps[1]", "7"),
        ("steps[2]", "×"),
        ("steps[3]", "8"),
        ("steps[4]", "="),
    ] {
        let s = step(&report, path);
        let m = s.matched.as_ref().unwrap_or_else(|| panic!("{all:#?}"));
        assert_eq!(
            (m.kind.as_str(), m.score, s.healed_from.as_deref()),
            ("button", 100, None),
            "{path} clicks button {name} as written: {all:#?}"
        );
    }
    let shown = step(&report, "steps[5]");
    assert_eq!(
        shown.matched.as_ref().map(|m| m.kind.as_str()),
        Some("edit"),
        "{all:#?}"
    );
    assert_eq!(step(&report, "steps[6].then[0]").status, StepStatus::Ok);
    assert_eq!(
        step(&report, "steps[6].then[0]").message.as_deref(),
        Some("info: 7 × 8 = 56")
    );
    assert_eq!(
        step(&report, "steps[6].else[0]").status,
        StepStatus::Skipped
    );
    let stopped = step(&report, "steps[7]");
    assert!(
        stopped
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("Closed gnome-calculator: 1 window(s) closed")),
        "{all:#?}"
    );
    // Nothing of it is left on the desktop.
    let windows = call(
        &desk.device,
        ToolType::DataCollection,
        "get_desktop_app_info",
        json!({}),
        None,
    )
    .await;
    assert!(
        !windows.to_string().contains("gnome-calculator"),
        "{windows}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mousepad_takes_non_ascii_text_and_keys_and_is_stopped() {
    desktop_device::require_apps(&[("mousepad", "mousepad")]);
    let desk = desktop_device::start().await;
    let write = fixture_device::task(
        json!({"name": "mousepad: a note", "device": "local", "steps": [
            {"type": "open_app", "app": "mousepad"},
            {"type": "wait_el", "selector": {"type": "edit"}, "timeout_s": 30},
            {"type": "input_text", "selector": {"type": "edit"}, "text": "Grüße, 苏州 ✓"},
            {"type": "key_event", "selector": {"type": "edit"}, "keys": "^{END}{ENTER}Zoë 東京{+}1"},
            {"type": "wait_el", "selector": {"type": "edit", "text": "Zoë 東京+1", "match": "contains"}, "timeout_s": 10},
        ]}),
    );
    let report = run(&write, &desk.device).await;
    let all = lines(&report);
    assert_eq!(
        report.status,
        DoneStatus::Completed,
        "{}\n{all:#?}",
        report.message
    );
    let edit = step(&report, "steps[2]")
        .matched
        .clone()
        .unwrap_or_else(|| panic!("{all:#?}"));
    assert_eq!(edit.kind, "edit");

    // The document as the device lists it: exactly what was typed, on two lines.
    let selected = call(
        &desk.device,
        ToolType::DataCollection,
        "get_desktop_app_info",
        json!({}),
        None,
    )
    .await;
    let window = selected["windows"]
        .as_array()
        .and_then(|ws| ws.iter().find(|w| w["app"] == "mousepad"))
        .cloned()
        .unwrap_or_else(|| panic!("{selected}"));
    let chosen = call(
        &desk.device,
        ToolType::Action,
        "select_application_window",
        json!({"id": window["id"]}),
        None,
    )
    .await;
    let app = AppSelection::from_result(&deft_protocol::CommandResult::success("t", chosen, None))
        .expect("a selection");
    let found = call(
        &desk.device,
        ToolType::DataCollection,
        "find_controls",
        json!({"selector": {"type": "edit"}, "format": "json"}),
        Some(&app),
    )
    .await;
    let doc = found["matches"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["id"] == edit.id.as_str()))
        .unwrap_or_else(|| panic!("the edit {} in {found}", edit.id));
    assert_eq!(
        doc["value"].as_str(),
        Some("Grüße, 苏州 ✓\nZoë 東京+1"),
        "{doc}"
    );

    // An edited document: the close asks to save, so the process is ended by a signal.
    let stop = fixture_device::task(json!({"name": "stop mousepad", "steps": [
        {"type": "stop_app", "app": "mousepad"},
    ]}));
    let report = run(&stop, &desk.device).await;
    let all = lines(&report);
    assert_eq!(report.status, DoneStatus::Completed, "{all:#?}");
    let windows = call(
        &desk.device,
        ToolType::DataCollection,
        "get_desktop_app_info",
        json!({}),
        None,
    )
    .await;
    assert!(!windows.to_string().contains("\"mousepad\""), "{windows}");
    let again = run(&stop, &desk.device).await;
    assert_eq!(again.status, DoneStatus::Failed);
    assert!(
        again.steps[0]
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("No window or process of mousepad is running")),
        "{:#?}",
        lines(&again)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mousepad_example_runs() {
    desktop_device::require_apps(&[("mousepad", "mousepad")]);
    let task = desktop_device::example("mousepad.json");
    let desk = desktop_device::start().await;
    let report = run(&task, &desk.device).await;
    let all = lines(&report);
    assert_eq!(
        report.status,
        DoneStatus::Completed,
        "{}\n{all:#?}",
        report.message
    );
    assert_eq!(report.count(StepStatus::Failed), 0, "{all:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clipboard_steps_paste_into_mousepad_and_read_what_it_copies_into_a_variable() {
    desktop_device::require_apps(&[("mousepad", "mousepad")]);
    let desk = desktop_device::start().await;
    let edit = json!({"type": "edit"});
    let task = fixture_device::task(
        json!({"name": "mousepad: clipboard", "device": "local", "steps": [
            {"type": "clipboard", "set": "Grüße, 苏州 ✓"},
            {"type": "open_app", "app": "mousepad"},
            {"type": "wait_el", "selector": edit, "timeout_s": 30},
            {"type": "key_event", "selector": edit, "keys": "^v"},
            {"type": "wait_el", "selector": {"type": "edit", "text": "Grüße, 苏州 ✓", "match": "exact"}, "timeout_s": 10},
            {"type": "input_text", "selector": edit, "text": "ORD-2024-117 Zoë"},
            {"type": "key_event", "selector": edit, "keys": "^a^c"},
            {"type": "clipboard", "read_into": "order"},
            {"type": "input_text", "selector": edit, "text": "found {{order}}"},
            {"type": "wait_el", "selector": {"type": "edit", "text": "found ORD-2024-117 Zoë", "match": "exact"}, "timeout_s": 10},
            {"type": "click", "selector": {"type": "slider"}, "on_error": "continue", "note": "no such control: a failure keeps a screenshot"},
        ]}),
    );
    let (rec, sinks, _rx, kept) = fixture_device::recorder_keeping_images();
    let report = deft_tasks::runner::run_task(
        &task,
        &desk.device,
        &deft_tasks::runner::RunRequest::default(),
        sinks,
        tokio_util::sync::CancellationToken::new(),
    )
    .await;
    let all = lines(&report);
    assert_eq!(report.count(StepStatus::Failed), 1, "{all:#?}");
    assert_eq!(report.status, DoneStatus::Completed, "{all:#?}");
    assert_eq!(
        step(&report, "steps[0]").message.as_deref(),
        Some("put 11 characters on the clipboard")
    );
    assert_eq!(
        step(&report, "steps[7]").message.as_deref(),
        Some("read 16 characters into {{order}}")
    );
    // The failed click keeps a screenshot of mousepad's window.
    let failed = step(&report, "steps[10]");
    assert_eq!(failed.image_ids, ["shot-1"], "{all:#?}");
    let (png, mime) = kept.images.lock()[0].clone();
    assert_eq!(mime, "image/png");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 1_000);
    let shot_tool = rec.events.lock().iter().find_map(|e| match &e.kind {
        deft_protocol::EventKind::Step(s) if s.image_ids == ["shot-1"] => Some(s.tool.clone()),
        _ => None,
    });
    assert_eq!(shot_tool.as_deref(), Some("capture_window_screenshot"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn look_once_steps_look_and_a_short_wait_says_what_it_waited_for() {
    desktop_device::require_apps(&[]);
    let desk = desktop_device::start().await;
    let _form = deft_test_support::desktop::AppProcess::form_app(&desk.env).expect("form app");
    desktop_device::window_of(&desk.device, "form_app.py").await;
    let submit = json!({"text": "Submit", "type": "button", "match": "exact"});
    let missing = json!({"text": "No such control", "match": "exact"});
    let task = fixture_device::task(json!({"name": "look once", "device": "local", "steps": [
        {"type": "open_app", "app": "form_app.py"},
        {"type": "wait_el", "selector": submit, "timeout_s": 30},
        {"type": "wait_el", "selector": submit, "timeout_s": 0},
        {"type": "if_el", "selector": submit,
         "then": [{"type": "notify", "message": "Submit shows"}],
         "else": [{"type": "stop_self", "message": "the look-once if_el saw nothing"}]},
        {"type": "wait_el", "selector": missing, "timeout_s": 0.5, "on_error": "continue"},
        {"type": "wait_el", "selector": missing, "timeout_s": 0, "on_error": "continue"},
        {"type": "if_el", "selector": missing, "then": [{"type": "notify", "message": "then"}],
         "else": [{"type": "notify", "message": "no such control: else"}]},
        {"type": "wait_el", "selector": {"type": "button"}, "timeout_s": 0},
    ]}));
    let report = run(&task, &desk.device).await;
    let all = lines(&report);
    assert_eq!(report.status, DoneStatus::Completed, "{all:#?}");
    let opened = step(&report, "steps[0]")
        .message
        .clone()
        .unwrap_or_default();
    assert!(
        opened.starts_with("form_app.py opened in window ")
            && opened.ends_with(" (already open: nothing was started)"),
        "{all:#?}"
    );
    for path in [
        "steps[2]",
        "steps[3]",
        "steps[3].then[0]",
        "steps[6].else[0]",
    ] {
        assert_eq!(
            step(&report, path).status,
            StepStatus::Ok,
            "{path}: {all:#?}"
        );
    }
    let short = |path: &str| step(&report, path).error.clone().unwrap_or_default();
    for (path, secs) in [("steps[4]", "0.5"), ("steps[5]", "0")] {
        assert_eq!(
            short(path),
            format!(
                "No control matched \"No such control\" (exact) within {secs} s. Check the selector with find_controls, or wait longer."
            ),
            "{all:#?}"
        );
    }
    // A type alone matches every button equally: the first in document order, and the tie said.
    let tied = step(&report, "steps[7]")
        .matched
        .clone()
        .unwrap_or_else(|| panic!("{all:#?}"));
    let tie = tied.tie.unwrap_or_else(|| panic!("no tie note: {all:#?}"));
    assert!(
        tie.contains(" controls score ")
            && tie.ends_with(&format!("; index 0 in document order picks id {}", tied.id)),
        "{tie}"
    );
}

/// The `launch_app` answers among a run's events, in order.
fn launch_answers(events: &[deft_protocol::AgentEvent]) -> Vec<Value> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            deft_protocol::EventKind::Step(s) if s.tool == "launch_app" => Some(s.result.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_app_selects_a_mousepad_opened_by_hand_and_with_new_instance_its_new_tab() {
    desktop_device::require_apps(&[("mousepad", "mousepad")]);
    let desk = desktop_device::start().await;
    let pad = deft_test_support::desktop::AppProcess::spawn("mousepad", &[], &desk.env)
        .expect("mousepad starts");
    desktop_device::window_of(&desk.device, "mousepad").await;
    let typed = json!({"type": "edit", "text": "typed by the task", "match": "exact"});
    let task = fixture_device::task(
        json!({"name": "mousepad opened by hand", "device": "local", "steps": [
            {"type": "open_app", "app": "mousepad"},
            {"type": "input_text", "selector": {"type": "edit"}, "text": "typed by the task"},
            {"type": "wait_el", "selector": typed, "timeout_s": 10},
            {"type": "open_app", "app": "mousepad", "title": "no such document", "on_error": "continue"},
            {"type": "open_app", "app": "mousepad", "new_instance": true},
            {"type": "wait_el", "selector": typed, "gone": true, "timeout_s": 10},
            {"type": "input_text", "selector": {"type": "edit"}, "text": "in the new tab"},
        ]}),
    );
    let (rec, sinks, _rx) = fixture_device::recorder();
    let report = deft_tasks::runner::run_task(
        &task,
        &desk.device,
        &deft_tasks::runner::RunRequest::default(),
        sinks,
        tokio_util::sync::CancellationToken::new(),
    )
    .await;
    let all = lines(&report);
    assert_eq!(report.status, DoneStatus::Completed, "{all:#?}");
    assert_eq!(report.count(StepStatus::Failed), 1, "{all:#?}");
    let said = |path: &str| step(&report, path).message.clone().unwrap_or_default();
    assert!(
        said("steps[0]").ends_with("\"Untitled 1 - Mousepad\" (already open: nothing was started)"),
        "{all:#?}"
    );
    assert!(
        step(&report, "steps[3]").error.as_deref().is_some_and(|e| e.starts_with(
            "mousepad has no open window whose title contains \"no such document\" (its windows: \"*Untitled 1 - Mousepad\")."
        )),
        "{all:#?}"
    );
    assert!(
        said("steps[4]").ends_with(
            "\"Untitled 2 - Mousepad\" (its running instance took the request: a new tab)"
        ),
        "{all:#?}"
    );
    // Both times the process opened by hand: nothing else was started, or is left running.
    let answers = launch_answers(&rec.events.lock());
    let pid = Some(u64::from(pad.pid()));
    let got: Vec<(Option<&str>, Option<u64>)> = answers
        .iter()
        .filter(|a| a["status"] == "success")
        .map(|a| {
            (
                a["result"]["found_by"].as_str(),
                a["result"]["pid"].as_u64(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [(Some("already_open"), pid), (Some("new_tab"), pid)],
        "{answers:#?}"
    );
}
