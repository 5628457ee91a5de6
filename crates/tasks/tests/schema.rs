//! The JSON Schema: the committed docs/task.schema.json is the one the step types generate
//! (`DEFT_UPDATE_SCHEMA=1` rewrites it); it names exactly the fields the validator accepts
//! for each type; and every example — examples/tasks/*.json and each ```json block of
//! docs/tasks.md — passes both the validator and the schema, while typical mistakes fail the
//! schema too.

#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test

use std::collections::BTreeSet;
use std::path::PathBuf;

use deft_tasks::StepType;
use deft_tasks::validate::{Options, fields_of, validate_task};
use deft_tasks::vars::references;
use serde_json::{Value, json};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn schema_path() -> PathBuf {
    repo().join("docs/task.schema.json")
}

fn committed_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(schema_path()).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

fn schema_errors(v: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn the_committed_schema_is_the_generated_one() {
    let generated = deft_tasks::schema::task_schema_text();
    let path = schema_path();
    if std::env::var_os("DEFT_UPDATE_SCHEMA").is_some() {
        // Atomically: the other tests of this file read it meanwhile.
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, &generated).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} differs from the schema the step types generate; run `DEFT_UPDATE_SCHEMA=1 cargo test -p deft-tasks --test schema` and commit it",
        path.display()
    );
}

/// The property names a schema (and the `$ref`s and `oneOf`/`anyOf` branches in it) lists.
fn properties(root: &Value, schema: &Value, out: &mut BTreeSet<String>) {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.trim_start_matches("#/$defs/");
        properties(root, &root["$defs"][name], out);
    }
    if let Some(p) = schema["properties"].as_object() {
        out.extend(p.keys().cloned());
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        for branch in schema[key].as_array().into_iter().flatten() {
            properties(root, branch, out);
        }
    }
}

#[test]
fn the_schema_names_the_fields_the_validator_takes() {
    let root = deft_tasks::schema::task_schema();
    let step = &root["$defs"]["Step"];
    let common: BTreeSet<String> = step["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    for kind in StepType::ALL {
        let branch = step["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["properties"]["type"]["const"] == kind.as_str())
            .unwrap_or_else(|| panic!("no schema branch for {kind}"));
        let mut fields = common.clone();
        properties(&root, branch, &mut fields);
        fields.remove("type");
        let taken: BTreeSet<String> = fields_of(kind).into_iter().map(str::to_owned).collect();
        assert_eq!(fields, taken, "{kind}: schema vs validator");
    }
}

/// The round names (`as`, default `item`) of every `for_each` in `v`.
fn round_names(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            if o.get("type") == Some(&json!("for_each")) {
                out.push(
                    o.get("as")
                        .and_then(Value::as_str)
                        .unwrap_or("item")
                        .to_owned(),
                );
            }
            o.values().for_each(|x| round_names(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| round_names(x, out)),
        _ => {}
    }
}

/// Validates one example, a task or a single step, with the validator (no errors, no
/// warnings) and the committed schema; the task it is or is wrapped in.
fn check_example(what: &str, example: &Value, schema: &jsonschema::Validator) -> deft_tasks::Task {
    let task = if example.get("type").is_some() {
        json!({"name": "example", "steps": [example]})
    } else if example.get("steps").is_some() && example.get("name").is_some() {
        example.clone()
    } else {
        panic!("{what}: a ```json example must be a task or a step:\n{example}");
    };
    let text = task.to_string();
    let mut rounds = Vec::new();
    round_names(&task, &mut rounds);
    // What the example uses is given by the run, but a for_each's round names are its own
    // and a secret variable's value is the server's, which a run cannot give.
    let secret = |name: &str| task["variables"][name].get("secret").is_some();
    let provided = references(&text)
        .into_iter()
        .map(|r| r.name.to_owned())
        .filter(|n| !rounds.contains(&n.split('.').next().unwrap_or_default().to_owned()))
        .filter(|name| !secret(name))
        .collect();
    let opts = Options {
        provided,
        ..Options::default()
    };
    let v = validate_task(&task, &opts);
    assert!(
        v.report.errors.is_empty() && v.report.warnings.is_empty(),
        "{what}:\n{example}\n{}",
        v.report
    );
    let errors = schema_errors(schema, &task);
    assert!(
        errors.is_empty(),
        "{what} fails the schema:\n{}",
        errors.join("\n")
    );
    v.value.unwrap()
}

#[test]
fn every_example_task_is_valid() {
    let schema = committed_validator();
    let dir = repo().join("examples/tasks");
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let bytes = std::fs::read(&path).unwrap();
            let v = validate_task(&bytes, &Options::default());
            assert!(
                v.report.errors.is_empty() && v.report.warnings.is_empty(),
                "{}:\n{}",
                path.display(),
                v.report
            );
            let example = serde_json::from_slice(&bytes).unwrap();
            check_example(&path.display().to_string(), &example, &schema);
            seen.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    for needed in ["calculator.json", "mousepad.json", "browser-search.json"] {
        assert!(
            seen.iter().any(|s| s == needed),
            "examples/tasks/{needed} is missing"
        );
    }
}

/// The ```json blocks of a Markdown text, with their first line numbers.
fn json_blocks(md: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (n, line) in md.lines().enumerate() {
        match &mut current {
            None if line.trim() == "```json" => current = Some((n + 2, String::new())),
            Some(_) if line.trim() == "```" => out.extend(current.take()),
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    out
}

#[test]
fn every_json_example_in_the_docs_is_valid() {
    let schema = committed_validator();
    let md = std::fs::read_to_string(repo().join("docs/tasks.md")).unwrap();
    let blocks = json_blocks(&md);
    assert!(
        blocks.len() >= 25,
        "only {} ```json blocks in docs/tasks.md",
        blocks.len()
    );
    let mut types = BTreeSet::new();
    for (line, text) in blocks {
        let what = format!("docs/tasks.md:{line}");
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{what}: {e}"));
        let task = check_example(&what, &v, &schema);
        for (_, r) in task.walk() {
            types.insert(r.step.step_type());
        }
    }
    let missing: Vec<&str> = StepType::ALL
        .into_iter()
        .filter(|t| !types.contains(t))
        .map(StepType::as_str)
        .collect();
    assert!(
        missing.is_empty(),
        "docs/tasks.md has no example of {missing:?}"
    );
}

#[test]
fn the_schema_accepts_the_edges_the_validator_accepts() {
    let schema = committed_validator();
    let task = |step: Value| json!({"name": "t", "steps": [step]});
    let accepted = [
        task(json!({"type": "wait_el", "selector": {"type": "edit"}, "timeout_s": 0})),
        task(json!({"type": "wait", "seconds": 300})),
        task(json!({"type": "wait", "seconds": 0})),
        task(json!({"type": "loop", "times": 1000, "steps": [{"type": "wait", "seconds": 1}]})),
        task(
            json!({"type": "loop", "while": {"text": "x"}, "max": 1000, "steps": [{"type": "wait", "seconds": 1}]}),
        ),
        task(json!({"type": "input_text", "selector": {"type": "edit"}, "text": ""})),
        task(json!({"type": "clipboard", "set": ""})),
        task(
            json!({"type": "click", "selector": {"text": "a"}, "timeout_s": null, "note": null, "on_error": null}),
        ),
        json!({"name": "t", "device": null, "timeout_s": 86400, "variables": {"_a1": ""}, "steps": []}),
        task(
            json!({"type": "click", "selector": {"text": "a"}, "retry": {"times": 10, "delay_s": 600, "backoff": 10}}),
        ),
        task(json!({"type": "wait_el", "selector": {"text": "a"}, "retry": {"times": 1}})),
        task(
            json!({"type": "for_each", "items": ["a", {"n": "b", "q": 2}], "as": "row", "steps": [{"type": "notify", "message": "{{row}}"}]}),
        ),
        task(
            json!({"type": "for_each", "csv": "/a/b.csv", "steps": [{"type": "notify", "message": "{{item.x}}"}]}),
        ),
    ];
    for good in accepted {
        assert!(
            validate_task(&good, &Options::default()).report.is_valid(),
            "the validator refuses {good}"
        );
        let errors = schema_errors(&schema, &good);
        assert!(errors.is_empty(), "the schema refuses {good}: {errors:?}");
    }
}

#[test]
fn the_schema_refuses_what_the_validator_refuses() {
    let schema = committed_validator();
    let task = |step: Value| json!({"name": "t", "steps": [step]});
    let refused = [
        task(json!({"type": "click", "selector": {"text": "OK"}, "colour": "red"})),
        task(json!({"type": "clik", "selector": {"text": "OK"}})),
        task(json!({"type": "click"})),
        task(json!({"type": "click", "selector": {"txt": "OK"}})),
        task(json!({"type": "open_app", "app": "a", "url": "https://b"})),
        task(json!({"type": "open_app", "app": "a", "new_tab": true})),
        task(json!({"type": "loop", "times": 2, "while": {"text": "x"}, "steps": []})),
        task(json!({"type": "wait", "seconds": 301})),
        task(json!({"type": "gesture", "points": [{"x": 0, "y": 0, "z": 0}, {"x": 1, "y": 1}]})),
        task(json!({"type": "clipboard", "set": "a", "read_into": "b"})),
        json!({"steps": []}),
        json!({"name": "t", "steps": [], "extra": 1}),
        json!({"name": "t", "steps": [], "variables": {"bad-name": ""}}),
        task(json!({"type": "wait", "seconds": 1, "retry": {"times": 1}})),
        task(json!({"type": "click", "selector": {"text": "a"}, "retry": {"times": 0}})),
        task(json!({"type": "click", "selector": {"text": "a"}, "retry": {"times": 11}})),
        task(json!({"type": "click", "selector": {"text": "a"}, "retry": {"delay_s": 1}})),
        task(json!({"type": "for_each", "items": ["a"], "csv": "/a.csv", "steps": []})),
        task(json!({"type": "for_each", "steps": []})),
        task(json!({"type": "for_each", "items": ["a"], "as": "1x", "steps": []})),
        task(json!({"type": "group", "name": "g", "steps": [], "retry": {"times": 1}})),
    ];
    for bad in refused {
        assert!(!schema.is_valid(&bad), "the schema accepts {bad}");
        assert!(
            !validate_task(&bad, &Options::default()).report.is_valid(),
            "the validator accepts {bad}"
        );
    }
}
