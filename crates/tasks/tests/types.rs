//! Every step type: a good instance (and what it parses into, defaults included) and bad
//! ones — a missing parameter, a wrong type, a value out of range, an unknown field — each
//! error at its exact path.

mod common;

use common::{bad, good};
use deft_protocol::selector::MatchMode;
use deft_tasks::step::*;
use serde_json::json;

#[test]
fn open_app_takes_an_app_or_a_url() {
    let s = good(json!({"type": "open_app", "app": "mousepad"}));
    assert_eq!(
        s.action,
        Action::OpenApp(OpenApp::App {
            app: "mousepad".into(),
            args: vec![],
            title: None,
            new_instance: false,
        })
    );
    let s = good(json!({"type": "open_app", "app": "mousepad", "args": ["/tmp/a.txt"]}));
    assert!(
        matches!(s.action, Action::OpenApp(OpenApp::App { ref args, .. }) if args == &["/tmp/a.txt"])
    );
    let s = good(json!({"type": "open_app", "url": "https://example.org", "new_tab": true}));
    assert_eq!(
        s.action,
        Action::OpenApp(OpenApp::Url {
            url: "https://example.org".into(),
            new_tab: true
        })
    );
    bad(
        json!({"type": "open_app"}),
        &[("steps[0]", "open_app needs an app (a desktop entry name")],
    );
    bad(
        json!({"type": "open_app", "app": "a", "url": "https://b"}),
        &[("steps[0]", "open_app takes an app or a url, not both")],
    );
    bad(
        json!({"type": "open_app", "app": " "}),
        &[(
            "steps[0].app",
            "open_app's app must be a non-blank text of at most 10000 characters, not a blank text",
        )],
    );
    bad(
        json!({"type": "open_app", "app": 7}),
        &[(
            "steps[0].app",
            "open_app's app must be a non-blank text of at most 10000 characters, not 7",
        )],
    );
    bad(
        json!({"type": "open_app", "app": "a", "args": ["x", 1]}),
        &[("steps[0].args[1]", "open_app's args must be a text")],
    );
    bad(
        json!({"type": "open_app", "app": "a", "new_tab": true}),
        &[("steps[0].new_tab", "open_app's new_tab goes with url")],
    );
    bad(
        json!({"type": "open_app", "url": "https://a", "args": ["x"]}),
        &[("steps[0].args", "open_app's args goes with app")],
    );
    bad(
        json!({"type": "open_app", "url": "example.org"}),
        &[(
            "steps[0].url",
            "open_app's url needs a scheme: write \"https://example.org\"",
        )],
    );
    bad(
        json!({"type": "open_app", "app": "a", "application": "b"}),
        &[(
            "steps[0].application",
            "open_app has no field \"application\"; open_app takes app, args, title, new_instance, url, new_tab, and every step takes timeout_s, on_error, note",
        )],
    );
}

#[test]
fn open_app_takes_a_title_or_new_instance_with_an_app() {
    let s = good(json!({"type": "open_app", "app": "mousepad", "title": "notes.txt"}));
    assert!(
        matches!(s.action, Action::OpenApp(OpenApp::App { ref title, new_instance: false, .. }) if title.as_deref() == Some("notes.txt"))
    );
    let s = good(json!({"type": "open_app", "app": "mousepad", "new_instance": true}));
    assert!(matches!(
        s.action,
        Action::OpenApp(OpenApp::App {
            title: None,
            new_instance: true,
            ..
        })
    ));
    for both in [
        json!({"type": "open_app", "app": "mousepad", "title": "notes", "new_instance": true}),
        json!({"type": "open_app", "app": "mousepad", "title": "notes", "args": ["/tmp/a.txt"]}),
    ] {
        bad(
            both,
            &[(
                "steps[0].title",
                "open_app's title picks a window of the app that is already open, while new_instance: true and args start the app: give title alone, or leave it out",
            )],
        );
    }
    bad(
        json!({"type": "open_app", "url": "https://a", "title": "x", "new_instance": false}),
        &[
            ("steps[0].title", "open_app's title goes with app"),
            (
                "steps[0].new_instance",
                "open_app's new_instance goes with app",
            ),
        ],
    );
    bad(
        json!({"type": "open_app", "app": "a", "new_instance": "yes"}),
        &[("steps[0].new_instance", "open_app's new_instance must be")],
    );
}

#[test]
fn stop_app_takes_an_app() {
    let s = good(json!({"type": "stop_app", "app": "gnome-calculator"}));
    assert_eq!(
        s.action,
        Action::StopApp(StopApp {
            app: "gnome-calculator".into()
        })
    );
    bad(
        json!({"type": "stop_app"}),
        &[("steps[0].app", "stop_app needs an app: a non-blank text")],
    );
    bad(
        json!({"type": "stop_app", "app": ["a"]}),
        &[(
            "steps[0].app",
            "stop_app's app must be a non-blank text of at most 10000 characters, not a list",
        )],
    );
    bad(
        json!({"type": "stop_app", "app": "a", "ap": "b"}),
        &[(
            "steps[0].ap",
            "stop_app has no field \"ap\"; did you mean \"app\"? stop_app takes app,",
        )],
    );
}

#[test]
fn screen_on_and_off_take_nothing() {
    assert_eq!(good(json!({"type": "screen_on"})).action, Action::ScreenOn);
    assert_eq!(
        good(json!({"type": "screen_off"})).action,
        Action::ScreenOff
    );
    bad(
        json!({"type": "screen_off", "level": 1}),
        &[(
            "steps[0].level",
            "screen_off has no field \"level\"; screen_off takes no parameters, and every step takes timeout_s, on_error, note",
        )],
    );
}

#[test]
fn key_event_takes_keys_in_the_shared_syntax() {
    let s = good(json!({"type": "key_event", "keys": "^s"}));
    assert_eq!(
        s.action,
        Action::KeyEvent(KeyEvent {
            keys: "^s".into(),
            selector: None
        })
    );
    let s = good(json!({"type": "key_event", "keys": "{ENTER 2}", "selector": {"type": "edit"}}));
    assert!(matches!(
        s.action,
        Action::KeyEvent(KeyEvent {
            selector: Some(_),
            ..
        })
    ));
    bad(
        json!({"type": "key_event"}),
        &[("steps[0].keys", "key_event needs keys: a non-blank text")],
    );
    bad(
        json!({"type": "key_event", "keys": 13}),
        &[(
            "steps[0].keys",
            "key_event's keys must be a non-blank text of at most 10000 characters, not 13",
        )],
    );
    bad(
        json!({"type": "key_event", "keys": "ab{BOGUS}"}),
        &[("steps[0].keys", "Unknown key '{BOGUS}' at position 2.")],
    );
    bad(
        json!({"type": "key_event", "keys": "(a(b))"}),
        &[("steps[0].keys", "Nested '(' at position 2")],
    );
    bad(
        json!({"type": "key_event", "keys": "a", "key": "b"}),
        &[(
            "steps[0].key",
            "key_event has no field \"key\"; did you mean \"keys\"? key_event takes keys, selector,",
        )],
    );
}

#[test]
fn swipe_takes_a_direction_and_an_amount() {
    let s = good(json!({"type": "swipe", "direction": "up"}));
    assert_eq!(
        s.action,
        Action::Swipe(Swipe {
            direction: Direction::Up,
            amount: 0.5,
            area: None
        })
    );
    let s =
        good(json!({"type": "swipe", "direction": "left", "amount": 1, "area": {"type": "list"}}));
    assert!(
        matches!(s.action, Action::Swipe(Swipe { amount, area: Some(_), .. }) if amount == 1.0)
    );
    bad(
        json!({"type": "swipe"}),
        &[(
            "steps[0].direction",
            "swipe needs a direction: one of \"up\", \"down\", \"left\", \"right\"",
        )],
    );
    bad(
        json!({"type": "swipe", "direction": "upward"}),
        &[(
            "steps[0].direction",
            "swipe's direction must be one of \"up\", \"down\", \"left\", \"right\", not the string \"upward\"",
        )],
    );
    bad(
        json!({"type": "swipe", "direction": "up", "amount": 0}),
        &[(
            "steps[0].amount",
            "swipe's amount must be a share of the area from 0.01 to 1, not 0",
        )],
    );
    bad(
        json!({"type": "swipe", "direction": "up", "amount": 2}),
        &[(
            "steps[0].amount",
            "swipe's amount must be a share of the area from 0.01 to 1, not 2",
        )],
    );
    bad(
        json!({"type": "swipe", "direction": "up", "area": "List"}),
        &[(
            "steps[0].area",
            "swipe's area must be an object such as {\"text\": \"OK\", \"type\": \"button\"} (fields text, type, match, index, within), not a string; write {\"text\": \"List\"}",
        )],
    );
}

#[test]
fn swipe_until_is_bounded() {
    let s =
        good(json!({"type": "swipe_until", "selector": {"text": "Item 80"}, "direction": "up"}));
    let Action::SwipeUntil(su) = s.action else {
        panic!("{s:?}")
    };
    assert_eq!(
        (su.max_swipes, su.amount, su.direction),
        (10, 0.5, Direction::Up)
    );
    good(
        json!({"type": "swipe_until", "selector": {"text": "x"}, "direction": "down", "max_swipes": 100, "area": {"type": "list"}}),
    );
    bad(
        json!({"type": "swipe_until", "direction": "up"}),
        &[(
            "steps[0].selector",
            "swipe_until needs a selector: an object such as",
        )],
    );
    bad(
        json!({"type": "swipe_until", "selector": {"text": "x"}, "direction": "up", "max_swipes": 101}),
        &[(
            "steps[0].max_swipes",
            "swipe_until's max_swipes must be a whole number from 1 to 100, not 101",
        )],
    );
    bad(
        json!({"type": "swipe_until", "selector": {"text": "x"}, "direction": "up", "max_swipes": 2.5}),
        &[(
            "steps[0].max_swipes",
            "swipe_until's max_swipes must be a whole number from 1 to 100, not 2.5",
        )],
    );
    bad(
        json!({"type": "swipe_until", "selector": {"text": "x"}, "direction": "up", "max": 3}),
        &[(
            "steps[0].max",
            "swipe_until has no field \"max\"; swipe_until takes selector, direction, amount, max_swipes, area,",
        )],
    );
}

#[test]
fn click_needs_a_selector_that_can_match() {
    let s = good(
        json!({"type": "click", "selector": {"text": "OK", "type": "button", "match": "exact"}}),
    );
    let Action::Click(c) = s.action else {
        panic!("{s:?}")
    };
    assert_eq!(c.selector.mode, MatchMode::Exact);
    assert_eq!((c.button, c.double), (MouseButton::Left, false));
    let s = good(
        json!({"type": "click", "selector": {"text": "Row", "index": 2, "within": {"type": "table"}}, "button": "right", "double": true}),
    );
    assert!(matches!(
        s.action,
        Action::Click(Click {
            button: MouseButton::Right,
            double: true,
            ..
        })
    ));
    bad(
        json!({"type": "click"}),
        &[(
            "steps[0].selector",
            "click needs a selector: an object such as {\"text\": \"OK\", \"type\": \"button\"}",
        )],
    );
    bad(
        json!({"type": "click", "selector": {}}),
        &[("steps[0].selector", "a selector needs a text or a type")],
    );
    bad(
        json!({"type": "click", "selector": {"type": "buton"}}),
        &[("steps[0].selector.type", "unknown control type \"buton\"")],
    );
    bad(
        json!({"type": "click", "selector": {"text": "(", "match": "regex"}}),
        &[("steps[0].selector.text", "the regex does not compile")],
    );
    bad(
        json!({"type": "click", "selector": {"text": "a", "within": {"match": "exact"}}}),
        &[(
            "steps[0].selector.within",
            "a selector needs a text or a type",
        )],
    );
    bad(
        json!({"type": "click", "selector": {"text": "a", "index": -1}}),
        &[(
            "steps[0].selector.index",
            "the selector's index must be a whole number from 0 to 10000, not -1",
        )],
    );
    bad(
        json!({"type": "click", "selector": {"txt": "a"}}),
        &[(
            "steps[0].selector.txt",
            "the selector has no field \"txt\"; did you mean \"text\"? the selector takes text, type, match, index, within",
        )],
    );
    bad(
        json!({"type": "click", "selector": {"text": "a"}, "button": "primary", "double": "yes"}),
        &[
            (
                "steps[0].button",
                "click's button must be one of \"left\", \"right\", \"middle\", not the string \"primary\"",
            ),
            (
                "steps[0].double",
                "click's double must be true or false, not the string \"yes\"",
            ),
        ],
    );
    bad(
        json!({"type": "click", "text": "OK"}),
        &[
            ("steps[0].selector", "click needs a selector"),
            (
                "steps[0].text",
                "click has no field \"text\": it is a selector field and goes inside \"selector\"",
            ),
        ],
    );
}

#[test]
fn long_click_holds_for_a_bounded_time() {
    let s = good(json!({"type": "long_click", "selector": {"text": "Photo"}}));
    assert!(
        matches!(s.action, Action::LongClick(LongClick { duration_s, .. }) if duration_s == 1.0)
    );
    good(json!({"type": "long_click", "selector": {"text": "Photo"}, "duration_s": 0.1}));
    bad(
        json!({"type": "long_click", "selector": {"text": "Photo"}, "duration_s": 11}),
        &[(
            "steps[0].duration_s",
            "long_click's duration_s must be a number of seconds from 0.1 to 10, not 11",
        )],
    );
    bad(
        json!({"type": "long_click", "duration_s": 1}),
        &[("steps[0].selector", "long_click needs a selector")],
    );
}

#[test]
fn wait_el_waits_up_to_its_timeout() {
    let s = good(json!({"type": "wait_el", "selector": {"text": "Done"}}));
    assert_eq!(s.timeout_s, None, "the runner applies the 10 s default");
    let s = good(
        json!({"type": "wait_el", "selector": {"text": "Spinner"}, "gone": true, "timeout_s": 0}),
    );
    assert!(matches!(
        s.action,
        Action::WaitEl(WaitEl { gone: true, .. })
    ));
    assert_eq!(s.timeout_s, Some(0.0));
    good(json!({"type": "wait_el", "selector": {"text": "Done"}, "timeout_s": 300}));
    bad(
        json!({"type": "wait_el", "selector": {"text": "Done"}, "timeout_s": 301}),
        &[(
            "steps[0].timeout_s",
            "wait_el's timeout_s must be a number of seconds from 0 to 300, not 301",
        )],
    );
    bad(
        json!({"type": "wait_el", "selector": {"text": "Done"}, "gone": "no"}),
        &[(
            "steps[0].gone",
            "wait_el's gone must be true or false, not the string \"no\"",
        )],
    );
    bad(
        json!({"type": "wait_el", "selector": {"text": "Done"}, "timeout": 5}),
        &[(
            "steps[0].timeout",
            "wait_el has no field \"timeout\"; did you mean \"timeout_s\"?",
        )],
    );
}

#[test]
fn input_text_replaces_or_appends_any_text() {
    let s =
        good(json!({"type": "input_text", "selector": {"type": "edit"}, "text": "Grüße aus 苏州"}));
    assert_eq!(
        s.action,
        Action::InputText(InputText {
            selector: deft_protocol::selector::Selector::default().with_type("edit"),
            text: "Grüße aus 苏州".into(),
            mode: InputMode::Replace
        })
    );
    let s = good(
        json!({"type": "input_text", "selector": {"type": "edit"}, "text": "", "mode": "append"}),
    );
    assert!(matches!(
        s.action,
        Action::InputText(InputText {
            mode: InputMode::Append,
            ..
        })
    ));
    bad(
        json!({"type": "input_text", "selector": {"type": "edit"}}),
        &[(
            "steps[0].text",
            "input_text needs a text: a text of at most 10000 characters",
        )],
    );
    bad(
        json!({"type": "input_text", "selector": {"type": "edit"}, "text": "x", "mode": "insert"}),
        &[(
            "steps[0].mode",
            "input_text's mode must be one of \"replace\", \"append\", not the string \"insert\"",
        )],
    );
    bad(
        json!({"type": "input_text", "selector": {"type": "edit"}, "text": "é".repeat(10_001)}),
        &[(
            "steps[0].text",
            "input_text's text must be a text of at most 10000 characters, not a text of 10001 characters",
        )],
    );
}

#[test]
fn clipboard_sets_or_reads_into_a_variable() {
    let s = good(json!({"type": "clipboard", "set": "ORD-1"}));
    assert_eq!(
        s.action,
        Action::Clipboard(Clipboard::Set {
            text: "ORD-1".into()
        })
    );
    let r = common::report_of(
        &common::task_of(json!([
            {"type": "clipboard", "read_into": "order_id"},
            {"type": "notify", "message": "{{order_id}}"}
        ])),
        &Default::default(),
    );
    assert!(r.errors.is_empty() && r.warnings.is_empty(), "{r}");
    bad(
        json!({"type": "clipboard"}),
        &[(
            "steps[0]",
            "clipboard needs set (the text to put on the clipboard) or read_into",
        )],
    );
    bad(
        json!({"type": "clipboard", "set": "a", "read_into": "b"}),
        &[("steps[0]", "clipboard takes set or read_into, not both")],
    );
    bad(
        json!({"type": "clipboard", "read_into": "1st"}),
        &[("steps[0].read_into", "\"1st\" is not a variable name")],
    );
    bad(
        json!({"type": "clipboard", "get": "x"}),
        &[
            ("steps[0]", "clipboard needs set"),
            (
                "steps[0].get",
                "clipboard has no field \"get\"; did you mean \"set\"? clipboard takes set, read_into,",
            ),
        ],
    );
}

#[test]
fn wait_is_at_most_five_minutes() {
    let s = good(json!({"type": "wait", "seconds": 1.5}));
    assert_eq!(s.action, Action::Wait(Wait { seconds: 1.5 }));
    good(json!({"type": "wait", "seconds": 0}));
    good(json!({"type": "wait", "seconds": 300}));
    for (v, got) in [
        (json!(-1), "-1"),
        (json!(300.5), "300.5"),
        (json!("5"), "the string \"5\""),
    ] {
        bad(
            json!({"type": "wait", "seconds": v}),
            &[(
                "steps[0].seconds",
                &format!("wait's seconds must be a number of seconds from 0 to 300, not {got}"),
            )],
        );
    }
    bad(
        json!({"type": "wait"}),
        &[(
            "steps[0].seconds",
            "wait needs seconds: a number of seconds from 0 to 300",
        )],
    );
}

#[test]
fn loop_is_bounded_by_times_or_a_cap() {
    let s = good(json!({"type": "loop", "times": 3, "steps": [{"type": "wait", "seconds": 1}]}));
    let Action::Loop(l) = &s.action else {
        panic!("{s:?}")
    };
    assert_eq!(l.repeat, Repeat::Times { times: 3 });
    assert_eq!(l.steps.len(), 1);
    let s = good(
        json!({"type": "loop", "while": {"text": "Next"}, "max": 50, "steps": [{"type": "click", "selector": {"text": "Next"}}]}),
    );
    assert!(matches!(
        &s.action,
        Action::Loop(Loop {
            repeat: Repeat::While { max: 50, .. },
            ..
        })
    ));
    let s = good(
        json!({"type": "loop", "until": {"text": "Done"}, "steps": [{"type": "click", "selector": {"text": "Next"}}]}),
    );
    assert!(matches!(
        &s.action,
        Action::Loop(Loop {
            repeat: Repeat::Until { max: 100, .. },
            ..
        })
    ));
    bad(
        json!({"type": "loop", "steps": []}),
        &[(
            "steps[0]",
            "loop needs times (a whole number from 1 to 1000), while or until",
        )],
    );
    bad(
        json!({"type": "loop", "times": 2, "while": {"text": "x"}, "steps": []}),
        &[("steps[0]", "loop takes one of times, while and until")],
    );
    bad(
        json!({"type": "loop", "times": 1001, "steps": []}),
        &[(
            "steps[0].times",
            "loop's times must be a whole number from 1 to 1000, not 1001",
        )],
    );
    bad(
        json!({"type": "loop", "times": 0, "steps": []}),
        &[(
            "steps[0].times",
            "loop's times must be a whole number from 1 to 1000, not 0",
        )],
    );
    bad(
        json!({"type": "loop", "until": {"text": "x"}, "max": 5000, "steps": []}),
        &[(
            "steps[0].max",
            "loop's max must be a whole number from 1 to 1000, not 5000",
        )],
    );
    bad(
        json!({"type": "loop", "times": 2, "max": 3, "steps": []}),
        &[("steps[0].max", "loop's max goes with while or until")],
    );
    bad(
        json!({"type": "loop", "times": 2}),
        &[(
            "steps[0].steps",
            "loop needs steps: a list of steps such as",
        )],
    );
    bad(
        json!({"type": "loop", "times": 2, "steps": {"type": "wait"}}),
        &[(
            "steps[0].steps",
            "loop's steps must be a list of steps such as [{\"type\": \"click\", \"selector\": {\"text\": \"OK\"}}], not an object",
        )],
    );
    bad(
        json!({"type": "loop", "times": 2, "steps": [{"type": "wait", "seconds": 999}]}),
        &[("steps[0].steps[0].seconds", "wait's seconds must be")],
    );
}

#[test]
fn group_has_a_name_and_steps() {
    let s =
        good(json!({"type": "group", "name": "log in", "steps": [{"type": "wait", "seconds": 1}]}));
    assert!(matches!(&s.action, Action::Group(g) if g.name == "log in" && g.steps.len() == 1));
    bad(
        json!({"type": "group", "steps": [{"type": "wait", "seconds": 1}]}),
        &[(
            "steps[0].name",
            "group needs a name: a non-blank text of at most 200 characters",
        )],
    );
    bad(
        json!({"type": "group", "name": "x".repeat(201), "steps": [{"type": "wait", "seconds": 1}]}),
        &[(
            "steps[0].name",
            "group's name must be a non-blank text of at most 200 characters, not a text of 201 characters",
        )],
    );
    bad(
        json!({"type": "group", "name": "g"}),
        &[("steps[0].steps", "group needs steps")],
    );
}

#[test]
fn if_el_branches_on_a_control() {
    let s = good(json!({
        "type": "if_el", "selector": {"text": "Accept cookies"}, "wait_s": 2,
        "then": [{"type": "click", "selector": {"text": "Accept cookies"}}],
        "else": [{"type": "wait", "seconds": 1}]
    }));
    let Action::IfEl(i) = &s.action else {
        panic!("{s:?}")
    };
    assert_eq!(
        (i.gone, i.wait_s, i.then.len(), i.otherwise.len()),
        (false, 2.0, 1, 1)
    );
    let s = good(
        json!({"type": "if_el", "selector": {"text": "Error"}, "gone": true, "then": [{"type": "wait", "seconds": 1}]}),
    );
    assert!(
        matches!(&s.action, Action::IfEl(IfEl { gone: true, otherwise, .. }) if otherwise.is_empty())
    );
    bad(
        json!({"type": "if_el", "selector": {"text": "x"}}),
        &[("steps[0].then", "if_el needs then: a list of steps")],
    );
    bad(
        json!({"type": "if_el", "selector": {"text": "x"}, "then": [], "else": "no"}),
        &[("steps[0].else", "if_el's else must be a list of steps")],
    );
    bad(
        json!({"type": "if_el", "selector": {"text": "x"}, "wait_s": 301, "then": []}),
        &[(
            "steps[0].wait_s",
            "if_el's wait_s must be a number of seconds from 0 to 300, not 301",
        )],
    );
    bad(
        json!({"type": "if_el", "selector": {"text": "x"}, "then": [{"type": "click"}], "else": [{"type": "click"}]}),
        &[
            ("steps[0].then[0].selector", "click needs a selector"),
            ("steps[0].else[0].selector", "click needs a selector"),
        ],
    );
}

#[test]
fn click_xy_takes_window_fractions() {
    let s =
        good(json!({"type": "click_xy", "x": 0.5, "y": 0.25, "note": "a canvas without controls"}));
    assert_eq!(
        s.action,
        Action::ClickXy(ClickXy {
            x: 0.5,
            y: 0.25,
            button: MouseButton::Left,
            double: false
        })
    );
    bad(
        json!({"type": "click_xy", "x": 1.5, "note": "n"}),
        &[
            (
                "steps[0].x",
                "click_xy's x must be a fraction of the window's width from 0 to 1, not 1.5",
            ),
            (
                "steps[0].y",
                "click_xy needs y: a fraction of the window's height from 0 to 1",
            ),
        ],
    );
}

#[test]
fn gesture_takes_two_to_fifty_points() {
    let s =
        good(json!({"type": "gesture", "points": [{"x": 0.5, "y": 0.8}, {"x": 0.5, "y": 0.2}]}));
    assert!(matches!(&s.action, Action::Gesture(g) if g.points.len() == 2 && g.duration_s == 0.5));
    bad(
        json!({"type": "gesture", "points": [{"x": 0.5, "y": 0.8}]}),
        &[(
            "steps[0].points",
            "gesture's points must be a list of 2 to 50 points such as",
        )],
    );
    let many: Vec<_> = (0..51).map(|_| json!({"x": 0.1, "y": 0.1})).collect();
    bad(
        json!({"type": "gesture", "points": many}),
        &[(
            "steps[0].points",
            "gesture's points must be a list of 2 to 50 points",
        )],
    );
    bad(
        json!({"type": "gesture", "points": [{"x": 2, "y": 0.8}, {"x": 0.5, "y": 0.2, "z": 1}, [0, 1]]}),
        &[
            (
                "steps[0].points[0].x",
                "the point's x must be a fraction of the window's width from 0 to 1, not 2",
            ),
            (
                "steps[0].points[1].z",
                "the point has no field \"z\"; the point takes x, y",
            ),
            (
                "steps[0].points[2]",
                "gesture's point must be an object such as {\"x\": 0.5, \"y\": 0.8}, not a list",
            ),
        ],
    );
    bad(
        json!({"type": "gesture", "points": [{"x": 0, "y": 0}, {"x": 1, "y": 1}], "duration_s": 0}),
        &[(
            "steps[0].duration_s",
            "gesture's duration_s must be a number of seconds from 0.05 to 10, not 0",
        )],
    );
}

#[test]
fn keep_screen_notify_and_the_enders() {
    assert_eq!(
        good(json!({"type": "keep_screen", "on": true})).action,
        Action::KeepScreen(KeepScreen { on: true })
    );
    bad(
        json!({"type": "keep_screen"}),
        &[("steps[0].on", "keep_screen needs on: true or false")],
    );
    bad(
        json!({"type": "keep_screen", "on": "yes"}),
        &[(
            "steps[0].on",
            "keep_screen's on must be true or false, not the string \"yes\"",
        )],
    );
    let s = good(json!({"type": "notify", "message": "Backup done", "level": "warning"}));
    assert_eq!(
        s.action,
        Action::Notify(Notify {
            message: "Backup done".into(),
            level: NotifyLevel::Warning
        })
    );
    bad(
        json!({"type": "notify", "message": ""}),
        &[(
            "steps[0].message",
            "notify's message must be a non-blank text of at most 10000 characters, not an empty text",
        )],
    );
    bad(
        json!({"type": "notify", "message": "m", "level": "fatal"}),
        &[(
            "steps[0].level",
            "notify's level must be one of \"info\", \"warning\", \"error\", not the string \"fatal\"",
        )],
    );
    assert_eq!(
        good(json!({"type": "stop_self"})).action,
        Action::StopSelf(Finish { message: None })
    );
    assert_eq!(
        good(json!({"type": "mark_done", "message": "nothing new"})).action,
        Action::MarkDone(Finish {
            message: Some("nothing new".into())
        })
    );
    bad(
        json!({"type": "mark_done", "message": 3}),
        &[(
            "steps[0].message",
            "mark_done's message must be a text of at most 10000 characters, not 3",
        )],
    );
}

#[test]
fn every_step_takes_timeout_on_error_and_note() {
    let s = good(
        json!({"type": "click", "selector": {"text": "OK"}, "timeout_s": 20, "on_error": "continue", "note": "the dialog may not show"}),
    );
    assert_eq!(s.timeout_s, Some(20.0));
    assert_eq!(s.on_error, Some(OnError::Continue));
    assert_eq!(s.note.as_deref(), Some("the dialog may not show"));
    let s = good(
        json!({"type": "click", "selector": {"text": "OK"}, "timeout_s": null, "on_error": null, "note": null}),
    );
    assert_eq!(
        (s.timeout_s, s.on_error, s.note),
        (None, None, None),
        "null is absent"
    );
    bad(
        json!({"type": "click", "selector": {"text": "OK"}, "timeout_s": 0, "on_error": "ignore", "note": "n".repeat(1001)}),
        &[
            (
                "steps[0].timeout_s",
                "click's timeout_s must be a number of seconds above 0 and at most 3600, not 0",
            ),
            (
                "steps[0].on_error",
                "click's on_error must be one of \"stop\", \"continue\", not the string \"ignore\"",
            ),
            (
                "steps[0].note",
                "click's note must be a text of at most 1000 characters, not a text of 1001 characters",
            ),
        ],
    );
    bad(
        json!({"type": "group", "name": "g", "steps": [], "timeout_s": 3601}),
        &[(
            "steps[0].timeout_s",
            "group's timeout_s must be a number of seconds above 0 and at most 3600, not 3601",
        )],
    );
}

#[test]
fn the_type_must_be_known() {
    bad(
        json!({"selector": {"text": "OK"}}),
        &[(
            "steps[0].type",
            "a step needs a type: one of open_app, stop_app,",
        )],
    );
    bad(
        json!({"type": 3}),
        &[(
            "steps[0].type",
            "a step's type must be a string such as \"click\", not 3",
        )],
    );
    bad(
        json!({"type": "clik", "selector": {"text": "OK"}}),
        &[(
            "steps[0].type",
            "unknown step type \"clik\"; did you mean \"click\"? The types: open_app, stop_app,",
        )],
    );
    bad(
        json!({"type": "Click", "selector": {"text": "OK"}}),
        &[(
            "steps[0].type",
            "unknown step type \"Click\"; did you mean \"click\"?",
        )],
    );
    bad(
        json!({"type": "scroll"}),
        &[(
            "steps[0].type",
            "unknown step type \"scroll\"; the types: open_app,",
        )],
    );
    bad(
        json!(["click"]),
        &[(
            "steps[0]",
            "a step is an object such as {\"type\": \"click\"",
        )],
    );
}
