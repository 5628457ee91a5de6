//! The validator on `retry` and `for_each`: what they parse into, defaults included, and every
//! bad shape with its exact path and text — retry on a type that does not take it, `times` 0
//! and 11, an unknown field of retry; for_each with two sources or none, a bad `as`, an `as`
//! that hides a variable, items past 1,000 or of the wrong kind, a relative csv path, fields
//! read outside their loop or not among the items' fields.

mod common;

use common::{assert_issues, bad, good, report_of, task_of};
use deft_tasks::StepType;
use deft_tasks::step::*;
use deft_tasks::validate::Options;
use serde_json::json;

fn click() -> serde_json::Value {
    json!({"type": "click", "selector": {"text": "OK"}})
}

fn with(mut step: serde_json::Value, key: &str, value: serde_json::Value) -> serde_json::Value {
    step[key] = value;
    step
}

#[test]
fn retry_takes_times_delay_and_backoff_with_their_defaults() {
    let s = good(with(click(), "retry", json!({"times": 3})));
    assert_eq!(
        s.retry,
        Some(Retry {
            times: 3,
            delay_s: 0.0,
            backoff: 1.0
        })
    );
    let s = good(with(
        click(),
        "retry",
        json!({"times": 10, "delay_s": 600, "backoff": 10}),
    ));
    let r = s.retry.unwrap();
    assert_eq!(r.attempts(), 11);
    assert_eq!(r.delay(1).as_secs(), 600);
    assert_eq!(r.delay(2).as_secs(), 600, "a pause is at most 600 s");
    let r = Retry {
        times: 3,
        delay_s: 1.5,
        backoff: 2.0,
    };
    assert_eq!(
        [r.delay(1), r.delay(2), r.delay(3)].map(|d| d.as_millis()),
        [1500, 3000, 6000]
    );
}

#[test]
fn retry_refuses_its_bad_shapes() {
    bad(
        with(click(), "retry", json!({"times": 0})),
        &[(
            "steps[0].retry.times",
            "retry's times must be a whole number from 1 to 10, not 0",
        )],
    );
    bad(
        with(click(), "retry", json!({"times": 11})),
        &[(
            "steps[0].retry.times",
            "retry's times must be a whole number from 1 to 10, not 11",
        )],
    );
    bad(
        with(click(), "retry", json!({"delay_s": 1})),
        &[(
            "steps[0].retry.times",
            "retry needs times: a whole number from 1 to 10",
        )],
    );
    bad(
        with(
            click(),
            "retry",
            json!({"times": 1, "delay_s": 601, "backoff": 0.5, "tries": 2}),
        ),
        &[
            (
                "steps[0].retry.delay_s",
                "retry's delay_s must be a number of seconds from 0 to 600, not 601",
            ),
            (
                "steps[0].retry.backoff",
                "retry's backoff must be a number from 1 to 10, not 0.5",
            ),
            (
                "steps[0].retry.tries",
                "retry has no field \"tries\"; retry takes times, delay_s, backoff",
            ),
        ],
    );
    bad(
        with(click(), "retry", json!(3)),
        &[(
            "steps[0].retry",
            "click's retry must be an object such as {\"times\": 3, \"delay_s\": 2, \"backoff\": 2} (times 1–10, delay_s 0–600 seconds, backoff 1–10), not 3",
        )],
    );
    bad(
        with(click(), "retyr", json!({"times": 1})),
        &[(
            "steps[0].retyr",
            "click has no field \"retyr\"; did you mean \"retry\"? click takes selector, button, double, and every step takes timeout_s, on_error, note",
        )],
    );
}

#[test]
fn retry_is_refused_on_the_types_that_neither_act_nor_wait() {
    let retrying = StepType::retrying()
        .map(StepType::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    let retry = json!({"times": 2});
    for (step, why) in [
        (json!({"type": "wait", "seconds": 1}), "a pause cannot fail"),
        (
            json!({"type": "notify", "message": "hi"}),
            "it does not act on the device",
        ),
        (
            json!({"type": "mark_done"}),
            "it does not act on the device",
        ),
        (
            json!({"type": "group", "name": "g", "steps": [click()]}),
            "its sub-steps take their own retry",
        ),
        (
            json!({"type": "for_each", "items": ["a"], "steps": [click()]}),
            "its sub-steps take their own retry",
        ),
    ] {
        let kind = step["type"].as_str().unwrap().to_owned();
        bad(
            with(step, "retry", retry.clone()),
            &[(
                "steps[0].retry",
                &format!(
                    "{kind} takes no retry: {why}; retry is for the steps that act or wait ({retrying})"
                ),
            )],
        );
    }
    for kind in ["loop", "if_el", "stop_self"] {
        assert!(!kind.parse::<StepType>().unwrap().takes_retry(), "{kind}");
    }
    assert!(retrying.starts_with("open_app, stop_app, screen_on"));
    assert!(retrying.contains("wait_el") && !retrying.contains("wait,"));
}

#[test]
fn for_each_takes_items_a_variable_or_a_csv_file() {
    let s = good(
        json!({"type": "for_each", "items": ["Zoë", {"name": "pen", "qty": 2, "ok": true}],
        "steps": [{"type": "notify", "message": "{{item}}"}]}),
    );
    let Action::ForEach(f) = &s.action else {
        panic!("{s:?}")
    };
    assert_eq!(f.name, "item");
    assert_eq!(
        f.source,
        Source::Items {
            items: vec![
                Item::Text("Zoë".into()),
                Item::Fields(
                    [
                        ("name".to_owned(), "pen".to_owned()),
                        ("ok".to_owned(), "true".to_owned()),
                        ("qty".to_owned(), "2".to_owned())
                    ]
                    .into()
                ),
            ]
        }
    );
    let task = json!({"name": "t", "variables": {"orders": "a\nb"}, "steps": [
        {"type": "for_each", "variable": "orders", "as": "order", "steps": [
            {"type": "notify", "message": "{{order}} {{order.id}}"}]},
        {"type": "for_each", "csv": "/data/orders.csv", "as": "row", "steps": [
            {"type": "input_text", "selector": {"text": "Order {{row.Order ID}}"}, "text": "{{row.Straße}}"}]},
    ]});
    let v = deft_tasks::validate_task(&task, &Options::default());
    assert!(v.report.is_valid(), "{}", v.report);
    let t = v.value.unwrap();
    assert!(
        matches!(&t.steps[1].action, Action::ForEach(ForEach { source: Source::Csv { csv }, name, .. }) if csv == "/data/orders.csv" && name == "row")
    );
}

#[test]
fn for_each_refuses_its_bad_shapes() {
    let steps = json!([{"type": "notify", "message": "{{item}}"}]);
    bad(
        json!({"type": "for_each", "items": ["a"], "csv": "/a.csv", "steps": steps}),
        &[(
            "steps[0]",
            "for_each takes one of items, variable and csv: use one for_each per source",
        )],
    );
    bad(
        json!({"type": "for_each", "steps": steps}),
        &[(
            "steps[0]",
            "for_each needs one source of items: items (a list",
        )],
    );
    bad(
        json!({"type": "for_each", "items": ["a"], "as": "1st", "steps": []}),
        &[(
            "steps[0].as",
            "\"1st\" is not a variable name: use letters, digits and _, not starting with a digit",
        )],
    );
    bad(
        json!({"type": "for_each", "items": ["a"], "as": "row.x", "steps": []}),
        &[("steps[0].as", "\"row.x\" is not a variable name")],
    );
    bad(
        json!({"type": "for_each", "items": "a,b", "steps": steps}),
        &[(
            "steps[0].items",
            "for_each's items must be a list of texts or of objects",
        )],
    );
    bad(
        json!({"type": "for_each", "items": [1, {"a": [1]}, {"bad.key": "x"}], "steps": steps}),
        &[
            (
                "steps[0].items[0]",
                "an item must be a text (\"Zoë\") or an object",
            ),
            (
                "steps[0].items[1].a",
                "an item must be a text (\"Zoë\") or an object",
            ),
            (
                "steps[0].items[2].bad.key",
                "\"bad.key\" cannot be read as {{item.bad.key}}",
            ),
        ],
    );
    let many: Vec<String> = (0..1001).map(|i| i.to_string()).collect();
    bad(
        json!({"type": "for_each", "items": many, "steps": steps}),
        &[(
            "steps[0].items",
            "items has 1001 items; for_each runs at most 1000 rounds: split the list over several steps or tasks",
        )],
    );
    bad(
        json!({"type": "for_each", "csv": "orders.csv", "steps": steps}),
        &[(
            "steps[0].csv",
            "csv must be an absolute path such as \"/home/me/Documents/orders.csv\", not \"orders.csv\"",
        )],
    );
    bad(
        json!({"type": "for_each", "variable": "nope", "steps": steps}),
        &[("steps[0].variable", "unknown variable {{nope}}")],
    );
    bad(
        json!({"type": "for_each", "items": ["a"], "steps": steps, "step": []}),
        &[(
            "steps[0].step",
            "for_each has no field \"step\"; did you mean \"steps\"? for_each takes items, variable, csv, as, steps, and every step takes timeout_s, on_error, note",
        )],
    );
}

#[test]
fn round_names_and_fields_are_known_inside_their_loop_only() {
    let r = report_of(
        &task_of(json!([
            {"type": "for_each", "items": [{"name": "a"}], "steps": [
                {"type": "notify", "message": "{{item.nme}}"}]},
            {"type": "notify", "message": "{{item}}"},
            {"type": "for_each", "items": ["text", {"a": "1"}, {"b": "2"}], "steps": [
                {"type": "notify", "message": "{{item}} {{item.a}} {{item.b}} {{item.zzz}}"}]},
            {"type": "for_each", "items": ["only", "texts"], "steps": [
                {"type": "notify", "message": "{{item.a}}"}]},
        ])),
        &Options::default(),
    );
    assert_issues(
        &r.errors,
        &[
            (
                "steps[0].steps[0].message",
                "unknown field {{item.nme}}; did you mean {{item.name}}? A field is read inside a for_each whose as is \"item\"",
            ),
            ("steps[1].message", "unknown variable {{item}}"),
            (
                "steps[2].steps[0].message",
                "unknown field {{item.zzz}}; a field is read inside a for_each whose as is \"item\"",
            ),
            (
                "steps[3].steps[0].message",
                "unknown field {{item.a}}; did you mean {{item}}? A field is read",
            ),
        ],
    );
    let r = report_of(
        &json!({"name": "t", "variables": {"row": "x"}, "steps": [
            {"type": "for_each", "items": ["a"], "as": "row", "steps": [
                {"type": "for_each", "items": ["b"], "as": "row", "steps": []}]},
        ]}),
        &Options::default(),
    );
    assert_issues(
        &r.errors,
        &[
            (
                "steps[0].as",
                "for_each's as \"row\" is already a variable of the task: give the round another name",
            ),
            (
                "steps[0].steps[0].as",
                "for_each's as \"row\" is already the round name of an enclosing for_each",
            ),
        ],
    );
}
