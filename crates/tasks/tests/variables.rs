//! Variables: which `{{name}}`s a step may use (declared, provided by the run, or read by an
//! earlier clipboard step), the checks that see the previewed values, and the expansion the
//! runner calls, with its error for a missing value.

mod common;

use std::collections::BTreeMap;

use common::{assert_issues, report_of, task_of};
use deft_tasks::step::{Action, Clipboard, OpenApp};
use deft_tasks::validate::{Options, validate_task};
use deft_tasks::vars::{Vars, expand, references};
use serde_json::json;

#[test]
fn references_are_names_in_double_braces() {
    fn names(s: &str) -> Vec<&str> {
        references(s).into_iter().map(|r| r.name).collect()
    }
    assert_eq!(names("{{a}} and {{ b_2 }} and {{_c}}"), ["a", "b_2", "_c"]);
    assert!(names("{{}} {{1a}} {{a-b}} {{ a b }} {a} {{a}").is_empty());
    assert_eq!(names("{{{a}}}"), ["a"], "the innermost pair");
    assert!(
        names("^{{}x{}}").is_empty(),
        "the key syntax's {{{{}} and {{}}}} are text"
    );
    let r = &references("x{{ v }}y")[0];
    assert_eq!(r.range, 1..8);
}

#[test]
fn expansion_replaces_every_reference_or_names_the_missing_ones() {
    let mut vars = Vars::default();
    vars.set("who", "Zoë");
    vars.set("n", "3");
    assert_eq!(
        expand("Hi {{who}}, {{n}} × {{ n }}", &vars).unwrap(),
        "Hi Zoë, 3 × 3"
    );
    assert_eq!(expand("no refs {{}}", &vars).unwrap(), "no refs {{}}");
    let e = expand("{{who}} {{a}} {{b}}", &vars).unwrap_err();
    assert_eq!(
        e.missing,
        [
            ("".to_owned(), "a".to_owned()),
            ("".to_owned(), "b".to_owned())
        ]
    );
    assert_eq!(
        e.to_string(),
        "no value for {{a}}, {{b}}: give it in the task's variables or the run request, or read it with a clipboard step that runs before this one"
    );
}

#[test]
fn a_step_expands_its_own_parameters_only() {
    let task = validate_task(
        &json!({"name": "t", "variables": {"row": "Invoice 7", "app": "mousepad", "text": "héllo"}, "steps": [
            {"type": "if_el", "selector": {"text": "{{row}}", "within": {"text": "{{row}} list"}},
             "then": [{"type": "input_text", "selector": {"type": "edit"}, "text": "{{text}} {{text}}"}]},
            {"type": "open_app", "app": "{{app}}", "args": ["--name={{row}}"]}
        ]}),
        &Options::default(),
    )
    .value
    .unwrap();
    let vars = Vars::for_run(
        &task,
        &BTreeMap::from([("row".to_owned(), "Invoice 9".to_owned())]),
        &BTreeMap::new(),
    );
    let Action::IfEl(i) = task.steps[0].action.expanded(&vars).unwrap() else {
        panic!()
    };
    assert_eq!(
        i.selector.text.as_deref(),
        Some("Invoice 9"),
        "the run request wins"
    );
    assert_eq!(
        i.selector.within.unwrap().text.as_deref(),
        Some("Invoice 9 list")
    );
    let Action::InputText(t) = &i.then[0].action else {
        panic!()
    };
    assert_eq!(
        t.text, "{{text}} {{text}}",
        "sub-steps expand when they run"
    );
    let Action::InputText(t) = i.then[0].action.expanded(&vars).unwrap() else {
        panic!()
    };
    assert_eq!(t.text, "héllo héllo");
    assert_eq!(
        task.steps[1].action.expanded(&vars).unwrap(),
        Action::OpenApp(OpenApp::App {
            app: "mousepad".into(),
            args: vec!["--name=Invoice 9".into()],
            title: None,
            new_instance: false,
        })
    );
    let e = task.steps[0].action.expanded(&Vars::default()).unwrap_err();
    assert_eq!(
        e.missing,
        [
            ("selector.text".to_owned(), "row".to_owned()),
            ("selector.within.text".to_owned(), "row".to_owned())
        ]
    );
    assert!(e.to_string().starts_with(
        "no value for {{row}} (in selector.text), {{row}} (in selector.within.text): "
    ));
}

#[test]
fn names_and_notes_never_expand() {
    let task = validate_task(
        &json!({"name": "t", "variables": {"v": "x"}, "steps": [
            {"type": "group", "name": "{{v}}", "note": "{{v}}", "steps": [{"type": "notify", "message": "{{v}}"}]}
        ]}),
        &Options::default(),
    )
    .value
    .unwrap();
    assert!(task.steps[0].action.references().is_empty());
    let mut vars = Vars::default();
    vars.set("v", "y");
    let Action::Group(g) = task.steps[0].action.expanded(&vars).unwrap() else {
        panic!()
    };
    assert_eq!(g.name, "{{v}}");
}

#[test]
fn an_unknown_variable_is_an_error_unless_something_sets_it_first() {
    let r = report_of(
        &json!({"name": "t", "variables": {"customer": "ACME"}, "steps": [
            {"type": "click", "selector": {"text": "{{custmer}}"}},
            {"type": "notify", "message": "{{order}} {{run_id}}"},
            {"type": "clipboard", "read_into": "order"},
            {"type": "notify", "message": "{{order}} for {{customer}}"},
            {"type": "loop", "until": {"text": "{{later}}"}, "steps": [{"type": "clipboard", "read_into": "later"}]}
        ]}),
        &Options {
            provided: vec!["run_id".to_owned()],
            ..Options::default()
        },
    );
    assert_issues(
        &r.errors,
        &[
            (
                "steps[0].selector.text",
                "unknown variable {{custmer}}; did you mean {{customer}}? Or declare it in the task's variables (\"variables\": {\"custmer\": \"default value\"}) or read it with a clipboard step before this one",
            ),
            ("steps[1].message", "unknown variable {{order}}; declare it"),
            (
                "steps[4].until.text",
                "unknown variable {{later}}; declare it",
            ),
        ],
    );
}

#[test]
fn checks_see_the_values_the_runner_will() {
    // A regex selector built from a variable: compiled with the declared value.
    let r = report_of(
        &json!({"name": "t", "variables": {"pat": "(unclosed"}, "steps": [
            {"type": "wait_el", "selector": {"text": "^{{pat}}$", "match": "regex"}}
        ]}),
        &Options::default(),
    );
    assert_issues(
        &r.errors,
        &[("steps[0].selector.text", "the regex does not compile")],
    );
    // A value known only at run time is checked then, not now.
    let r = report_of(
        &json!({"name": "t", "variables": {"base": ""}, "steps": [
            {"type": "clipboard", "read_into": "pat"},
            {"type": "wait_el", "selector": {"text": "^{{pat}}$", "match": "regex"}},
            {"type": "open_app", "url": "{{base}}/orders"},
            {"type": "key_event", "keys": "{{pat}}{ENTER}"}
        ]}),
        &Options::default(),
    );
    assert!(r.errors.is_empty(), "{r}");
    let r = report_of(
        &json!({"name": "t", "variables": {"host": "example.org", "key": "{BAD}"}, "steps": [
            {"type": "open_app", "url": "{{host}}/orders"},
            {"type": "key_event", "keys": "{{key}}"}
        ]}),
        &Options::default(),
    );
    assert_issues(
        &r.errors,
        &[
            (
                "steps[0].url",
                "open_app's url needs a scheme: write \"https://example.org/orders\"",
            ),
            ("steps[1].keys", "Unknown key '{BAD}' at position 0."),
        ],
    );
}

#[test]
fn variable_names_and_values_are_checked() {
    let mut many = serde_json::Map::new();
    for i in 0..101 {
        many.insert(format!("v{i}"), json!(""));
    }
    let r = report_of(
        &json!({"name": "t", "variables": many, "steps": []}),
        &Options::default(),
    );
    assert_issues(
        &r.errors,
        &[("variables", "the task declares 101 variables; at most 100")],
    );
    let r = report_of(
        &json!({"name": "t", "variables": {"ok": "", "9lives": "", "a b": "", "n": 5, "long": "x".repeat(10_001)}, "steps": []}),
        &Options::default(),
    );
    let mut errors = r.errors.clone();
    errors.sort_by(|a, b| a.path.cmp(&b.path));
    assert_issues(
        &errors,
        &[
            (
                "variables.9lives",
                "\"9lives\" is not a variable name: use letters, digits and _",
            ),
            ("variables.a b", "\"a b\" is not a variable name"),
            (
                "variables.long",
                "the variable long's value must be a text of at most 10000 characters, not a text of 10001 characters",
            ),
            (
                "variables.n",
                "the variable n's value must be a text of at most 10000 characters, not 5",
            ),
        ],
    );
    let v = validate_task(
        &task_of(
            json!([{"type": "clipboard", "read_into": "x"}, {"type": "clipboard", "set": "{{x}}"}]),
        ),
        &Options::default(),
    );
    assert!(
        matches!(&v.value.unwrap().steps[1].action, Action::Clipboard(Clipboard::Set { text }) if text == "{{x}}")
    );
}

#[test]
fn a_secret_variable_names_a_secret_and_can_only_be_typed() {
    let ok = validate_task(
        &json!({"name": "login", "variables": {"pw": {"secret": "LOGIN_PW"}, "user": "ann"},
            "steps": [
                {"type": "input_text", "selector": {"type": "edit"}, "text": "{{pw}}"},
                {"type": "key_event", "keys": "{{user}}{TAB}{{pw}}{ENTER}"}]}),
        &Options::default(),
    );
    assert!(ok.report.is_valid(), "{}", ok.report);
    let task = ok.value.unwrap();
    assert_eq!(task.secret_names(), ["LOGIN_PW"]);
    assert_eq!(task.variables["pw"].secret(), Some("LOGIN_PW"));
    assert_eq!(
        serde_json::to_value(&task).unwrap()["variables"],
        json!({"pw": {"secret": "LOGIN_PW"}, "user": "ann"}),
        "it serializes back as written"
    );

    let bad = report_of(
        &json!({"name": "t", "variables": {
                "a": {"secret": "9lives"}, "b": {"secret": "X", "other": 1}, "c": {"secret": "OK"}},
            "steps": [
                {"type": "click", "selector": {"text": "{{c}}"}},
                {"type": "notify", "message": "pw is {{c}}"}]}),
        &Options::default(),
    );
    assert_issues(
        &bad.errors,
        &[
            ("variables.a.secret", "\"9lives\" is not a secret's name"),
            (
                "variables.b",
                "the variable b is an object; a variable's value is a text, or {\"secret\": \"NAME\"}",
            ),
            (
                "steps[0].selector.text",
                "{{c}} is the secret OK; a secret can only be typed",
            ),
            (
                "steps[1].message",
                "{{c}} is the secret OK; a secret can only be typed",
            ),
        ],
    );

    // a for_each over a secret would hand its lines to steps that show them
    let looped = report_of(
        &json!({"name": "t", "variables": {"pw": {"secret": "PW"}},
            "steps": [{"type": "for_each", "variable": "pw",
                "steps": [{"type": "notify", "message": "{{item}}"}]}]}),
        &Options::default(),
    );
    assert_issues(
        &looped.errors,
        &[(
            "steps[0].variable",
            "{{pw}} is the secret PW; a secret can only be typed (input_text's text, key_event's keys), never used in a for_each's variable",
        )],
    );

    let provided = report_of(
        &json!({"name": "t", "variables": {"pw": {"secret": "PW"}},
            "steps": [{"type": "key_event", "keys": "{{pw}}"}]}),
        &Options {
            provided: vec!["pw".to_owned()],
            ..Options::default()
        },
    );
    assert_issues(
        &provided.errors,
        &[(
            "variables.pw",
            "the variable pw is the secret PW, so a run cannot give it a value",
        )],
    );

    let library = report_of(
        &json!({"name": "t", "variables": {"pw": {"secret": "PW"}},
            "steps": [{"type": "key_event", "keys": "{{pw}}"}]}),
        &Options::library(),
    );
    assert_issues(
        &library.errors,
        &[(
            "variables.pw",
            "the variable pw is a secret; an action of the library cannot use secrets",
        )],
    );
}

#[test]
fn secret_values_come_from_the_run_and_never_from_its_request() {
    let task = validate_task(
        &json!({"name": "t", "variables": {"pw": {"secret": "PW"}, "user": "ann"},
            "steps": [{"type": "key_event", "keys": "{{user}}:{{pw}}"}]}),
        &Options::default(),
    )
    .value
    .unwrap();
    let secrets = BTreeMap::from([("PW".to_owned(), "hunter2".to_owned())]);
    let request = BTreeMap::from([
        ("pw".to_owned(), "not-the-secret".to_owned()),
        ("user".to_owned(), "bob".to_owned()),
    ]);
    let vars = Vars::for_run(&task, &request, &secrets);
    assert_eq!(vars.get("pw"), Some("hunter2"));
    assert_eq!(vars.get("user"), Some("bob"));
    assert_eq!(vars.redactor().text("bob:hunter2"), "bob:••••(secret PW)");
    let without = Vars::for_run(&task, &BTreeMap::new(), &BTreeMap::new());
    assert_eq!(without.get("pw"), None, "a missing secret leaves it unset");
    assert_eq!(
        deft_tasks::vars::secret_names_in(
            r#"{"variables": {"a": {"secret": "B"}, "c": {"secret": "A"}, "d": "x", "e": {"secret": "B"}}, "steps": 3}"#
        ),
        ["A", "B"],
        "read from a raw file, valid or not"
    );
}
