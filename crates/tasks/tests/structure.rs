//! The task as a whole: its own fields, nesting and step-count limits, library mode, every
//! error at once in document order, the size cap, malformed JSON with its position, the cap
//! on listed errors, the steps-only entry, and the round trip through serialization.

mod common;

use common::{assert_issues, report_of, task_of};
use deft_tasks::validate::{MAX_ISSUES, Mode, Options, validate_steps, validate_task};
use deft_tasks::{Action, StepType, Task};
use serde_json::{Value, json};

fn wait() -> Value {
    json!({"type": "wait", "seconds": 1})
}

/// `depth` groups inside each other around one wait.
fn nested(depth: usize) -> Value {
    let mut v = wait();
    for i in 0..depth {
        v = json!({"type": "group", "name": format!("g{i}"), "steps": [v]});
    }
    v
}

#[test]
fn the_task_fields_are_checked_and_unknown_ones_refused() {
    let v = validate_task(
        &json!({"name": "n", "device": "local", "on_error": "continue", "timeout_s": 600,
                "variables": {"city": "苏州"}, "$schema": "../docs/task.schema.json",
                "screenshots": "every_step",
                "steps": [{"type": "notify", "message": "{{city}}"}]}),
        &Options::default(),
    );
    let task = v.value.expect("valid");
    assert_eq!(task.device.as_deref(), Some("local"));
    assert_eq!(task.on_error, deft_tasks::step::OnError::Continue);
    assert_eq!(task.timeout_s, Some(600.0));
    assert_eq!(task.variables["city"], "苏州".into());
    assert_eq!(task.screenshots, deft_tasks::step::Screenshots::EveryStep);
    let plain = validate_task(&task_of(json!([wait()])), &Options::default());
    assert_eq!(
        plain.value.expect("valid").screenshots,
        deft_tasks::step::Screenshots::OnFailure,
        "the default"
    );
    let r = report_of(
        &json!({"name": "  ", "device": "", "on_error": "retry", "timeout_s": 90000,
                "variables": ["a"], "stpes": [], "$schema": 1, "screenshots": "always"}),
        &Options::default(),
    );
    assert_issues(
        &r.errors,
        &[
            ("$schema", "the task's $schema must be a string, not 1"),
            (
                "name",
                "the task's name must be a non-blank text of at most 200 characters, not a blank text",
            ),
            (
                "device",
                "the task's device must be a non-blank text of at most 200 characters, not an empty text",
            ),
            (
                "on_error",
                "the task's on_error must be one of \"stop\", \"continue\", not the string \"retry\"",
            ),
            (
                "timeout_s",
                "the task's timeout_s must be a number of seconds above 0 and at most 86400, not 90000",
            ),
            (
                "variables",
                "the task's variables must be an object of names and text values such as {\"city\": \"Suzhou\"} (a secret: {\"password\": {\"secret\": \"LOGIN_PW\"}}), not a list",
            ),
            (
                "screenshots",
                "the task's screenshots must be one of \"on_failure\", \"every_step\", \"never\", not the string \"always\"",
            ),
            (
                "stpes",
                "the task has no field \"stpes\"; did you mean \"steps\"? the task takes name, device, on_error, timeout_s, variables, screenshots, steps",
            ),
            ("steps", "the task needs steps: a list of steps such as"),
        ],
    );
    let r = report_of(&json!(["not", "a", "task"]), &Options::default());
    assert_issues(
        &r.errors,
        &[(
            "",
            "a task is a JSON object such as {\"name\": \"…\", \"steps\": [ … ]}, not a list",
        )],
    );
}

#[test]
fn nesting_stops_at_eight_levels() {
    let v = validate_task(&task_of(json!([nested(8)])), &Options::default());
    let task = v.value.expect("eight levels are allowed");
    assert_eq!(task.step_count(), 9);
    let deepest = task
        .walk()
        .last()
        .map(|(p, r)| (p.clone(), r.depth))
        .unwrap();
    assert_eq!(deepest, (format!("steps[0]{}", ".steps[0]".repeat(8)), 8));
    let r = report_of(&task_of(json!([nested(9)])), &Options::default());
    assert_issues(
        &r.errors,
        &[(
            &format!("steps[0]{}.steps", ".steps[0]".repeat(8)),
            "steps nest more than 8 deep (group, loop, if_el and for_each inside each other)",
        )],
    );
    // Through if_el and loop lists the same.
    let mut v = wait();
    for _ in 0..9 {
        v = json!({"type": "if_el", "selector": {"text": "x"}, "then": [wait()], "else": [v]});
    }
    let r = report_of(&task_of(json!([v])), &Options::default());
    let deep = format!("steps[0]{}", ".else[0]".repeat(8));
    let paths: Vec<&str> = r.errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        paths,
        [format!("{deep}.then"), format!("{deep}.else")],
        "{r}"
    );
}

#[test]
fn at_most_five_hundred_steps_counting_nested_ones() {
    let flat: Vec<Value> = (0..500).map(|_| wait()).collect();
    assert!(
        validate_task(&task_of(json!(flat)), &Options::default())
            .value
            .is_some()
    );
    // 250 groups of one wait each: 500 steps.
    let groups: Vec<Value> = (0..250).map(|_| nested(1)).collect();
    assert!(
        validate_task(&task_of(json!(groups)), &Options::default())
            .value
            .is_some()
    );
    let mut groups: Vec<Value> = (0..250).map(|_| nested(1)).collect();
    groups.push(wait());
    let r = report_of(&task_of(json!(groups)), &Options::default());
    assert_issues(
        &r.errors,
        &[(
            "steps",
            "the task has 501 steps, nested ones counted; at most 500: split it into several tasks",
        )],
    );
}

#[test]
fn library_mode_admits_the_sixteen_types_only() {
    let lib = Options::library();
    let good = json!([
        {"type": "open_app", "app": "mousepad"},
        {"type": "group", "name": "g", "steps": [
            {"type": "loop", "times": 2, "steps": [{"type": "click", "selector": {"text": "OK"}}]},
            {"type": "if_el", "selector": {"text": "x"}, "then": [{"type": "wait", "seconds": 1}]}
        ]}
    ]);
    let v = validate_steps(&good, &lib);
    assert!(v.report.errors.is_empty(), "{}", v.report);
    assert_eq!(v.value.unwrap().len(), 2);
    for kind in StepType::ALL.into_iter().filter(|t| !t.is_library()) {
        let step = json!({"type": kind.as_str()});
        let r = validate_steps(
            &json!([{"type": "group", "name": "g", "steps": [step]}]),
            &lib,
        )
        .report;
        assert_issues(
            &r.errors,
            &[(
                "steps[0].steps[0].type",
                &format!("{kind} is not allowed in the action library: "),
            )],
        );
    }
    let r = validate_steps(&json!([{"type": "click_xy", "x": 0.1, "y": 0.1}]), &lib).report;
    assert!(
        r.errors[0]
            .message
            .contains("coordinates break on another screen"),
        "{r}"
    );
    let r = validate_steps(
        &json!([{"type": "click", "selector": {"text": "OK"}, "x": 0.5, "y": 0.5}]),
        &lib,
    )
    .report;
    assert_issues(
        &r.errors,
        &[
            (
                "steps[0].x",
                "click has no field \"x\", and the action library admits no coordinates",
            ),
            (
                "steps[0].y",
                "click has no field \"y\", and the action library admits no coordinates",
            ),
        ],
    );
    let r = validate_steps(&json!([{"type": "clik"}]), &lib).report;
    assert!(
        r.errors[0].message.ends_with("group, if_el"),
        "library mode lists the library's types: {r}"
    );
    // A whole task in library mode, too.
    let r = report_of(
        &task_of(json!([{"type": "notify", "message": "m"}])),
        &Options {
            mode: Mode::Library,
            ..Options::default()
        },
    );
    assert_eq!(r.errors[0].path, "steps[0].type");
}

#[test]
fn every_error_comes_back_at_once_in_document_order() {
    let task = json!({
        "name": "",
        "steps": [
            {"type": "click"},
            {"type": "wait", "seconds": 301},
            {"type": "group", "name": "g", "steps": [
                {"type": "if_el", "selector": {"text": "a"}, "then": [{"type": "click", "selector": {"text": "("  , "match": "regex"}}]},
                {"type": "swipe", "direction": "sideways"}
            ]},
            {"type": "input_text", "selector": {"type": "edit"}, "txt": "hi", "text": "hi"},
            {"type": "nope"}
        ]
    });
    let r = report_of(&task, &Options::default());
    assert_issues(
        &r.errors,
        &[
            ("name", "the task's name must be"),
            ("steps[0].selector", "click needs a selector"),
            (
                "steps[1].seconds",
                "wait's seconds must be a number of seconds from 0 to 300, not 301",
            ),
            (
                "steps[2].steps[0].then[0].selector.text",
                "the regex does not compile",
            ),
            (
                "steps[2].steps[1].direction",
                "swipe's direction must be one of",
            ),
            (
                "steps[3].txt",
                "input_text has no field \"txt\"; did you mean \"text\"?",
            ),
            ("steps[4].type", "unknown step type \"nope\""),
        ],
    );
    assert!(validate_task(&task, &Options::default()).value.is_none());
}

#[test]
fn a_file_past_one_mebibyte_is_refused_unread() {
    let mut big = br#"{"name": "big", "steps": [], "pad": ""#.to_vec();
    big.resize(1 << 20, b' ');
    big.extend_from_slice(br#""}"#);
    let r = validate_task(&big, &Options::default()).report;
    assert_issues(
        &r.errors,
        &[(
            "",
            &format!(
                "the task is {} bytes; at most 1048576 (1024 KiB) are read",
                big.len()
            ),
        )],
    );
    let value =
        json!({"name": "big", "steps": [{"type": "notify", "message": "x".repeat(1 << 20)}]});
    let r = validate_task(&value, &Options::default()).report;
    assert_eq!(r.errors.len(), 1, "{r}");
    assert!(r.errors[0].message.starts_with("the task is 10"), "{r}");
}

#[test]
fn malformed_json_is_reported_at_its_line_and_column() {
    let text =
        "{\n  \"name\": \"t\",\n  \"steps\": [\n    {\"type\": \"wait\" \"seconds\": 1}\n  ]\n}\n";
    let r = validate_task(text, &Options::default()).report;
    assert_eq!(r.errors.len(), 1);
    let e = &r.errors[0];
    assert_eq!((e.path.as_str(), e.line, e.column), ("", Some(4), Some(21)));
    assert_eq!(
        e.message,
        "the file is not valid JSON: line 4, column 21: expected `,` or `}`"
    );
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["errors"][0]["line"], 4);
    assert_eq!(json["valid"], false);
    let r = validate_task("", &Options::default()).report;
    assert!(
        r.errors[0]
            .message
            .starts_with("the file is not valid JSON: line 1, column 0: EOF while parsing"),
        "{r}"
    );
    let r = validate_task(
        "{\"name\": \"t\", \"steps\": []} trailing",
        &Options::default(),
    )
    .report;
    assert!(r.errors[0].message.contains("trailing characters"), "{r}");
    // A byte-order mark is not an error.
    let with_bom = [
        b"\xEF\xBB\xBF".as_slice(),
        br#"{"name": "t", "steps": [{"type": "wait", "seconds": 1}]}"#,
    ]
    .concat();
    assert!(
        validate_task(&with_bom, &Options::default())
            .value
            .is_some()
    );
}

#[test]
fn the_report_lists_two_hundred_errors_and_counts_the_rest() {
    let steps: Vec<Value> = (0..300).map(|_| json!({"type": "click"})).collect();
    let r = report_of(&task_of(json!(steps)), &Options::default());
    assert_eq!(r.errors.len(), MAX_ISSUES + 1);
    assert_eq!(
        r.errors[MAX_ISSUES].message,
        "… and 100 more errors not listed"
    );
    assert_eq!(r.errors[MAX_ISSUES - 1].path, "steps[199].selector");
}

#[test]
fn the_report_reads_as_text_and_as_json() {
    let r = report_of(
        &json!({"name": "t", "device": "local", "steps": [{"type": "click"}, {"type": "screen_on"}]}),
        &Options::default(),
    );
    assert_eq!(
        r.to_string(),
        "error: steps[0].selector: click needs a selector: an object such as {\"text\": \"OK\", \"type\": \"button\"} (fields text, type, match, index, within)\n\
         warning: steps[1]: the desktop has no screen power: screen_on fails there with \"not supported on this device\"\n\
         invalid: 1 error, 1 warning"
    );
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(
        json,
        json!({"valid": false,
               "errors": [{"path": "steps[0].selector", "message": r.errors[0].message}],
               "warnings": [{"path": "steps[1]", "message": r.warnings[0].message}]})
    );
    let ok = report_of(&task_of(json!([wait()])), &Options::default());
    assert_eq!(ok.to_string(), "valid");
    assert_eq!(
        serde_json::to_value(&ok).unwrap(),
        json!({"valid": true, "errors": [], "warnings": []})
    );
}

#[test]
fn steps_alone_validate_from_steps_zero() {
    let r = validate_steps(&json!({"steps": []}), &Options::default()).report;
    assert_issues(
        &r.errors,
        &[("steps", "the steps must be a list of steps such as")],
    );
    let v = validate_steps(r#"[{"type": "wait", "seconds": 2}]"#, &Options::default());
    assert!(matches!(v.value.as_deref(), Some([s]) if matches!(s.action, Action::Wait(_))));
    let r = validate_steps(r#"[{"type": "wait"}]"#, &Options::default()).report;
    assert_issues(&r.errors, &[("steps[0].seconds", "wait needs seconds")]);
}

#[test]
fn a_valid_task_serializes_back_to_itself() {
    let task = json!({
        "name": "round trip", "device": "browser", "variables": {"q": "x"},
        "steps": [
            {"type": "open_app", "url": "https://example.org/?q={{q}}"},
            {"type": "loop", "until": {"text": "End", "within": {"type": "list"}}, "steps": [
                {"type": "swipe", "direction": "up", "amount": 0.8}
            ]},
            {"type": "if_el", "selector": {"text": "Next", "index": 1}, "then": [{"type": "click", "selector": {"text": "Next"}, "on_error": "continue"}], "else": [{"type": "clipboard", "set": "none"}]},
            {"type": "gesture", "points": [{"x": 0.1, "y": 0.2}, {"x": 0.3, "y": 0.4}], "timeout_s": 5},
            {"type": "mark_done"}
        ]
    });
    let first: Task = validate_task(&task, &Options::default())
        .value
        .expect("valid");
    let written = serde_json::to_value(&first).unwrap();
    assert_eq!(written["steps"][1]["max"], 100, "defaults are written out");
    assert_eq!(written["steps"][1]["until"]["match"], "contains");
    let second = validate_task(&written, &Options::default())
        .value
        .expect("still valid");
    assert_eq!(first, second);
}

#[test]
fn deserializing_a_task_goes_through_the_validator() {
    let t: Task =
        serde_json::from_str(r#"{"name": "t", "steps": [{"type": "wait", "seconds": 1}]}"#)
            .unwrap();
    assert_eq!(t.steps.len(), 1);
    let e = serde_json::from_str::<Task>(
        r#"{"name": "t", "steps": [{"type": "wait"}, {"type": "click"}]}"#,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "steps[0].seconds: wait needs seconds: a number of seconds from 0 to 300; steps[1].selector: click needs a selector: an object such as {\"text\": \"OK\", \"type\": \"button\"} (fields text, type, match, index, within)"
    );
}

#[test]
fn walking_gives_every_step_with_its_path() {
    let task: Task = serde_json::from_value(json!({"name": "t", "steps": [
        {"type": "group", "name": "g", "steps": [wait(), {"type": "if_el", "selector": {"text": "x"}, "then": [wait()], "else": [wait()]}]},
        wait()
    ]}))
    .unwrap();
    let paths: Vec<String> = task.walk().into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        paths,
        [
            "steps[0]",
            "steps[0].steps[0]",
            "steps[0].steps[1]",
            "steps[0].steps[1].then[0]",
            "steps[0].steps[1].else[0]",
            "steps[1]"
        ]
    );
    assert!(matches!(
        task.step_at("steps[0].steps[1]").map(|s| s.step_type()),
        Some(StepType::IfEl)
    ));
    assert!(task.step_at("steps[9]").is_none());
}
