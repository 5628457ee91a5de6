//! Warnings: valid but suspect — a step the chosen device cannot do, `click_xy` without a
//! note, empty branches, unused variables, key combinations spelled in words, a wait past its
//! own timeout, steps after the run ends. A task with warnings is still valid.

mod common;

use common::{assert_issues, report_of, task_of};
use deft_tasks::validate::{DeviceKind, Options, validate_task};
use serde_json::{Value, json};

fn on(device: &str, steps: Value) -> deft_tasks::Report {
    report_of(
        &json!({"name": "t", "device": device, "steps": steps}),
        &Options::default(),
    )
}

#[test]
fn steps_the_desktop_cannot_do() {
    let r = on(
        "local",
        json!([
            {"type": "screen_on"}, {"type": "screen_off"}, {"type": "keep_screen", "on": true},
            {"type": "open_app", "url": "https://example.org"},
            {"type": "gesture", "points": [{"x": 0, "y": 0}, {"x": 0.5, "y": 0.5}, {"x": 1, "y": 0}]},
            {"type": "gesture", "points": [{"x": 0, "y": 0}, {"x": 1, "y": 1}]},
            {"type": "open_app", "app": "mousepad"}, {"type": "stop_app", "app": "mousepad"}
        ]),
    );
    assert!(r.is_valid(), "{r}");
    assert_issues(
        &r.warnings,
        &[
            (
                "steps[0]",
                "the desktop has no screen power: screen_on fails there with \"not supported on this device\"",
            ),
            (
                "steps[1]",
                "the desktop has no screen power: screen_off fails there",
            ),
            (
                "steps[2]",
                "the desktop has no screen to keep awake: keep_screen does nothing there",
            ),
            (
                "steps[3]",
                "the desktop opens applications, not addresses: open a url on a browser device",
            ),
            (
                "steps[4]",
                "the desktop drags in a straight line from the first point to the last",
            ),
        ],
    );
}

#[test]
fn steps_a_browser_cannot_do() {
    let r = on(
        "browser",
        json!([
            {"type": "open_app", "app": "mousepad"}, {"type": "stop_app", "app": "mousepad"},
            {"type": "screen_off"}, {"type": "open_app", "url": "https://example.org"},
            {"type": "stop_app", "app": "example.org"}
        ]),
    );
    assert_issues(
        &r.warnings,
        &[
            (
                "steps[0]",
                "a browser device opens addresses, not applications",
            ),
            (
                "steps[1]",
                "a browser device has no applications to stop: there stop_app closes the tabs of a site",
            ),
            ("steps[2]", "a browser device has no screen power"),
        ],
    );
}

#[test]
fn the_device_kind_comes_from_the_options_or_the_device_id() {
    let steps = json!([{"type": "screen_on"}]);
    assert!(
        on("phone-7", steps.clone()).warnings.is_empty(),
        "a remote device of unknown kind"
    );
    assert!(
        report_of(&task_of(steps.clone()), &Options::default())
            .warnings
            .is_empty(),
        "no device"
    );
    let opts = Options {
        device: Some(DeviceKind::Desktop),
        ..Options::default()
    };
    assert_eq!(report_of(&task_of(steps.clone()), &opts).warnings.len(), 1);
    let android = Options {
        device: Some(DeviceKind::Android),
        ..Options::default()
    };
    assert!(
        report_of(
            &json!({"name": "t", "device": "local", "steps": steps}),
            &android
        )
        .warnings
        .is_empty(),
        "the options win"
    );
    assert_eq!(DeviceKind::of_device("local"), DeviceKind::Desktop);
    assert_eq!(DeviceKind::of_device("browser"), DeviceKind::Browser);
    assert_eq!(DeviceKind::of_device("laptop-3"), DeviceKind::Remote);
    use deft_tasks::StepType;
    use deft_tasks::validate::unsupported_types;
    assert_eq!(
        unsupported_types(DeviceKind::Browser),
        [
            StepType::ScreenOn,
            StepType::ScreenOff,
            StepType::KeepScreen
        ]
    );
    assert!(
        unsupported_types(DeviceKind::Android).is_empty(),
        "a phone carries every step type"
    );
    // a phone opens a link in the app that handles it, and reaches its clipboard through
    // the helper: no warnings
    for step in [
        json!({"type": "open_app", "url": "https://example.org"}),
        json!({"type": "clipboard", "set": "x"}),
    ] {
        let on_phone = report_of(&task_of(json!([step])), &android);
        assert!(on_phone.warnings.is_empty(), "{:?}", on_phone.warnings);
    }
}

#[test]
fn suspect_steps_in_any_task() {
    let r = report_of(
        &task_of(json!([
            {"type": "click_xy", "x": 0.5, "y": 0.5},
            {"type": "click_xy", "x": 0.5, "y": 0.5, "note": "the canvas has no controls"},
            {"type": "if_el", "selector": {"text": "x"}, "then": [], "else": [{"type": "wait", "seconds": 1}]},
            {"type": "loop", "times": 2, "steps": []},
            {"type": "group", "name": "g", "steps": []},
            {"type": "key_event", "keys": "Ctrl+S"},
            {"type": "key_event", "keys": "enter"},
            {"type": "wait", "seconds": 30, "timeout_s": 10},
            {"type": "mark_done"},
            {"type": "notify", "message": "never"}
        ])),
        &Options::default(),
    );
    assert!(r.is_valid(), "{r}");
    assert_issues(
        &r.warnings,
        &[
            (
                "steps[0]",
                "click_xy clicks wherever the point falls once the window is another size",
            ),
            (
                "steps[2].then",
                "if_el's then has no steps; to act only when the control is absent, set \"gone\": true",
            ),
            ("steps[3].steps", "loop has no steps: it does nothing"),
            ("steps[4].steps", "group has no steps: it does nothing"),
            (
                "steps[5].keys",
                "\"Ctrl+S\" types those letters (and + means Shift in the key syntax); for the key combination write \"^s\"",
            ),
            ("steps[6].keys", "\"enter\" types those letters"),
            (
                "steps[7].timeout_s",
                "the wait of 30 s outlasts the step's timeout_s of 10 s: the step always fails",
            ),
            (
                "steps[9]",
                "this step never runs: mark_done at steps[8] ends the run before it",
            ),
        ],
    );
    assert!(r.warnings[5].message.ends_with("write \"{ENTER}\""), "{r}");
    let v = validate_task(&task_of(json!([])), &Options::default());
    assert!(v.value.is_some());
    assert_issues(
        &v.report.warnings,
        &[("steps", "there are no steps: a run does nothing")],
    );
}

#[test]
fn unused_variables() {
    let r = report_of(
        &json!({"name": "t", "variables": {"used": "1", "spare": "2"}, "steps": [
            {"type": "notify", "message": "{{used}}"},
            {"type": "clipboard", "read_into": "copied"},
            {"type": "group", "name": "g", "steps": [{"type": "clipboard", "read_into": "shown"}]},
            {"type": "notify", "message": "{{ shown }}"}
        ]}),
        &Options::default(),
    );
    assert!(r.is_valid(), "{r}");
    assert_issues(
        &r.warnings,
        &[
            (
                "variables.spare",
                "the variable spare is never used (no step has {{spare}})",
            ),
            (
                "steps[1].read_into",
                "the clipboard is read into copied, but no later step uses {{copied}}",
            ),
        ],
    );
}
