//! The diff on hand-written versions: fields, and steps added, removed, changed and moved, at
//! the top and in nested bodies.

use serde_json::{Value, json};

use super::{FieldChange, Side, StepChangeKind, TaskDiff, diff};

fn side<'a>(definition: &'a Value, tags: &'a [String]) -> Side<'a> {
    Side {
        name: "nightly",
        device: "local",
        enabled: true,
        folder: "finance",
        tags,
        definition,
    }
}

fn steps_diff(old: Value, new: Value) -> TaskDiff {
    let (o, n) = (
        json!({"name": "t", "steps": old}),
        json!({"name": "t", "steps": new}),
    );
    diff(&side(&o, &[]), &side(&n, &[]))
}

/// (kind, path, old_path) of each step change.
fn shape(d: &TaskDiff) -> Vec<(StepChangeKind, String, Option<String>)> {
    d.steps
        .iter()
        .map(|c| (c.kind, c.path.clone(), c.old_path.clone()))
        .collect()
}

fn click(text: &str) -> Value {
    json!({"type": "click", "selector": {"text": text}})
}

fn change(field: &str, old: Value, new: Value) -> FieldChange {
    FieldChange {
        field: field.into(),
        old,
        new,
    }
}

#[test]
fn identical_versions_have_no_changes() {
    let d = steps_diff(
        json!([click("A"), click("B")]),
        json!([click("A"), click("B")]),
    );
    assert!(d.is_empty(), "{d:?}");
}

#[test]
fn record_fields_variables_and_settings() {
    let old = json!({"name": "t", "steps": [], "variables": {"who": "ada", "gone": "x"},
                     "on_error": "stop"});
    let new = json!({"name": "t", "steps": [], "variables": {"who": "bob", "new": {"secret": "K"}},
                     "timeout_s": 60, "on_error": "stop"});
    let old_tags = ["Daily".to_owned(), "pdf".to_owned()];
    let new_tags = ["pdf".to_owned(), "DAILY".to_owned(), "x".to_owned()];
    let mut after = side(&new, &new_tags);
    after.name = "nightly 2";
    after.enabled = false;
    after.folder = "finance/reports";
    let d = diff(&side(&old, &old_tags), &after);
    assert_eq!(
        d.fields,
        [
            change("name", json!("nightly"), json!("nightly 2")),
            change("enabled", json!(true), json!(false)),
            change("folder", json!("finance"), json!("finance/reports")),
            change(
                "tags",
                json!(["Daily", "pdf"]),
                json!(["DAILY", "pdf", "x"])
            ),
            change("variables.gone", json!("x"), Value::Null),
            change("variables.new", Value::Null, json!({"secret": "K"})),
            change("variables.who", json!("ada"), json!("bob")),
            change("timeout_s", Value::Null, json!(60)),
        ]
    );
    assert!(d.steps.is_empty());
    // The same tags in another order are no change.
    let reordered = ["pdf".to_owned(), "Daily".to_owned()];
    assert!(diff(&side(&old, &old_tags), &side(&old, &reordered)).is_empty());
}

#[test]
fn added_and_removed_steps_keep_the_rest_unchanged() {
    let d = steps_diff(
        json!([click("A"), click("B"), click("C")]),
        json!([click("A"), {"type": "wait", "seconds": 1}, click("C"), click("D")]),
    );
    assert_eq!(
        shape(&d),
        [
            (StepChangeKind::Removed, "steps[1]".into(), None),
            (StepChangeKind::Added, "steps[1]".into(), None),
            (StepChangeKind::Added, "steps[3]".into(), None),
        ]
    );
    assert_eq!(d.steps[0].step, Some(click("B")));
    assert_eq!(d.steps[2].step, Some(click("D")));
}

#[test]
fn a_changed_step_lists_its_parameters_old_to_new() {
    let d = steps_diff(
        json!([{"type": "wait", "seconds": 1}, click("OK"), click("Z")]),
        json!([click("Z0"), {"type": "wait", "seconds": 1},
               {"type": "click", "selector": {"text": "Cancel"}, "on_error": "continue"}, click("Z")]),
    );
    assert_eq!(
        shape(&d),
        [
            (StepChangeKind::Added, "steps[0]".into(), None),
            (
                StepChangeKind::Changed,
                "steps[2]".into(),
                Some("steps[1]".into())
            ),
        ]
    );
    assert_eq!(
        d.steps[1].params,
        [
            change("on_error", Value::Null, json!("continue")),
            change("selector.text", json!("OK"), json!("Cancel")),
        ]
    );
    assert_eq!(d.steps[1].step_type, "click");
}

#[test]
fn a_step_of_another_type_in_its_place_is_removed_and_added() {
    let d = steps_diff(json!([click("A")]), json!([{"type": "wait", "seconds": 2}]));
    assert_eq!(
        shape(&d),
        [
            (StepChangeKind::Removed, "steps[0]".into(), None),
            (StepChangeKind::Added, "steps[0]".into(), None),
        ]
    );
}

#[test]
fn moved_steps_name_both_places() {
    let d = steps_diff(
        json!([click("A"), click("B"), click("C"), click("D")]),
        json!([click("D"), click("A"), click("B"), click("C")]),
    );
    assert_eq!(
        shape(&d),
        [(
            StepChangeKind::Moved,
            "steps[0]".into(),
            Some("steps[3]".into())
        )]
    );
}

#[test]
fn nested_bodies_are_compared_step_by_step() {
    let old = json!([
        click("start"),
        {"type": "if_el", "condition": {"exists": {"text": "Save"}},
         "then": [click("Save"), click("Close")],
         "else": [{"type": "wait", "seconds": 1}]},
        {"type": "loop", "times": 3, "steps": [click("Next")]},
    ]);
    let new = json!([
        click("start"),
        {"type": "if_el", "condition": {"exists": {"text": "Save"}},
         "then": [click("Close"), click("Save As")],
         "else": [{"type": "wait", "seconds": 1}, click("Retry")]},
        {"type": "loop", "times": 5, "steps": [click("Next"),
            {"type": "for_each", "items": ["a"], "steps": [click("Item")]}]},
    ]);
    let d = steps_diff(old, new);
    assert_eq!(
        shape(&d),
        [
            (StepChangeKind::Added, "steps[1].else[1]".into(), None),
            (StepChangeKind::Removed, "steps[1].then[0]".into(), None),
            (StepChangeKind::Added, "steps[1].then[1]".into(), None),
            (StepChangeKind::Changed, "steps[2]".into(), None),
            (StepChangeKind::Added, "steps[2].steps[1]".into(), None),
        ]
    );
    assert_eq!(d.steps[3].params, [change("times", json!(3), json!(5))]);
    assert!(
        d.steps[3].params.iter().all(|p| p.field != "steps"),
        "a body is not a parameter"
    );
    // A change deep inside a body names its full path.
    let deep_old = json!([{"type": "group", "steps": [{"type": "loop", "times": 2,
        "steps": [click("x")]}]}]);
    let deep_new = json!([{"type": "group", "steps": [{"type": "loop", "times": 2,
        "steps": [click("y")]}]}]);
    let d = steps_diff(deep_old, deep_new);
    assert_eq!(
        shape(&d),
        [(
            StepChangeKind::Changed,
            "steps[0].steps[0].steps[0]".into(),
            None
        )]
    );
    assert_eq!(
        d.steps[0].params,
        [change("selector.text", json!("x"), json!("y"))]
    );
}

#[test]
fn a_body_emptied_reports_its_steps_removed() {
    let d = steps_diff(
        json!([{"type": "group", "steps": [click("a"), click("b")]}]),
        json!([{"type": "group", "steps": []}]),
    );
    assert_eq!(
        shape(&d),
        [
            (StepChangeKind::Removed, "steps[0].steps[0]".into(), None),
            (StepChangeKind::Removed, "steps[0].steps[1]".into(), None),
        ]
    );
}

#[test]
fn the_diff_serializes_for_the_console() {
    let d = steps_diff(json!([click("A")]), json!([click("B")]));
    assert_eq!(
        serde_json::to_value(&d).unwrap(),
        json!({"fields": [], "steps": [{"kind": "changed", "path": "steps[0]", "type": "click",
            "params": [{"field": "selector.text", "old": "A", "new": "B"}]}]})
    );
}
