//! Helpers for the validator tests: a step wrapped in a task, and assertions on the report
//! that compare paths exactly and messages by their start (or whole).

#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test
#![allow(dead_code)] // each test file uses some of them

use deft_tasks::Step;
use deft_tasks::validate::{Options, Report, validate_task};
use serde_json::{Value, json};

/// A task holding these steps.
pub fn task_of(steps: Value) -> Value {
    json!({"name": "t", "steps": steps})
}

/// The report of a task holding one step.
pub fn report(step: Value) -> Report {
    validate_task(&task_of(json!([step])), &Options::default()).report
}

/// The report of a task value.
pub fn report_of(task: &Value, opts: &Options) -> Report {
    validate_task(task, opts).report
}

/// The one step, which must be valid without warnings.
pub fn good(step: Value) -> Step {
    let v = validate_task(&task_of(json!([step.clone()])), &Options::default());
    assert!(
        v.report.errors.is_empty() && v.report.warnings.is_empty(),
        "{step}\n{}",
        v.report
    );
    v.value.unwrap().steps.remove(0)
}

/// Errors as (path, message).
pub fn pairs(issues: &[deft_tasks::validate::Issue]) -> Vec<(String, String)> {
    issues
        .iter()
        .map(|i| (i.path.clone(), i.message.clone()))
        .collect()
}

/// Exactly these errors, in order: each path equal, each message starting with its text.
pub fn assert_issues(issues: &[deft_tasks::validate::Issue], expected: &[(&str, &str)]) {
    let got = pairs(issues);
    assert_eq!(
        got.len(),
        expected.len(),
        "expected {expected:#?}\ngot {got:#?}"
    );
    for ((path, message), (want_path, want)) in got.iter().zip(expected) {
        assert_eq!(path, want_path, "{got:#?}");
        assert!(
            message.starts_with(want),
            "at {path}:\n  got  {message}\n  want {want}…"
        );
    }
}

/// The one step has exactly these errors.
pub fn bad(step: Value, expected: &[(&str, &str)]) {
    let r = report(step.clone());
    assert!(!r.is_valid(), "{step} was accepted");
    assert_issues(&r.errors, expected);
}
