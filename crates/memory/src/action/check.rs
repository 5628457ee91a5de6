//! What may enter the action library, checked the same way whoever writes it (seed 001 §5.2):
//! its steps through deft-tasks' validator in library mode (the sixteen library types, each with
//! its required parameters, element selectors, no coordinates), its name, aliases, description
//! and variables by the limits below. A person's submission (the API) gets every problem at its
//! path; a distilled candidate is first tidied — coordinate steps removed, cut to
//! [`MAX_DISTILLED_STEPS`] steps — and then must pass whole, or it is dropped with the reason.

use std::collections::BTreeMap;

use deft_store::NewAction;
use deft_tasks::validate::{Issue, Options, Report, validate_task};
use deft_tasks::{StepType, Task};
use serde_json::{Map, Value, json};

use crate::texts;

/// Longest action name and alias, in characters.
pub const MAX_NAME_CHARS: usize = 80;
/// Most aliases.
pub const MAX_ALIASES: usize = 8;
/// Longest description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 500;
/// Most steps of an action a person writes (nested ones counted).
pub const MAX_ACTION_STEPS: usize = 20;
/// Most steps of a distilled action (seed 001 §5.2).
pub const MAX_DISTILLED_STEPS: usize = 4;
/// Aliases a distilled action keeps.
const DISTILLED_ALIASES: usize = 5;

/// The fields an action takes.
const FIELDS: &[&str] = &[
    "name",
    "aliases",
    "description",
    "app",
    "variables",
    "steps",
];

/// A checked submission: what to store, and the validator's warnings.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionSubmission {
    /// The action (its `source_run` unset).
    pub action: NewAction,
    /// What is valid but suspect.
    pub warnings: Vec<Issue>,
}

/// Checks an action a person (or a program) submits: every problem at its path (`name`,
/// `aliases[1]`, `steps[2].selector`, `variables.x`), nothing half-valid.
pub fn check_submission(body: &Value) -> Result<ActionSubmission, Report> {
    let mut errors = Vec::new();
    let Some(obj) = body.as_object() else {
        return Err(report(vec![Issue::new(
            "",
            texts::wrong_type("an action", "a JSON object"),
        )]));
    };
    for key in obj.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
        errors.push(Issue::new(key.clone(), texts::unknown_field(key)));
    }
    let name = match obj.get("name").and_then(Value::as_str).map(str::trim) {
        Some(n) if !n.is_empty() && n.chars().count() <= MAX_NAME_CHARS => n.to_owned(),
        _ => {
            errors.push(Issue::new("name", texts::bad_name(MAX_NAME_CHARS)));
            String::new()
        }
    };
    let aliases = aliases(obj.get("aliases"), &mut errors);
    let description = text_field(obj, "description", MAX_DESCRIPTION_CHARS, &mut errors);
    let app = text_field(obj, "app", MAX_NAME_CHARS * 2, &mut errors);
    let variables = obj.get("variables").cloned().unwrap_or_else(|| json!({}));
    let steps = obj.get("steps").cloned().unwrap_or(Value::Null);
    let validated = validate(&name, &steps, &variables);
    let warnings;
    match validated {
        Ok((task, report)) => {
            warnings = report.warnings;
            if task.step_count() > MAX_ACTION_STEPS {
                errors.push(Issue::new(
                    "steps",
                    texts::too_many_steps(task.step_count(), MAX_ACTION_STEPS),
                ));
            }
            if errors.is_empty() {
                return Ok(ActionSubmission {
                    action: NewAction {
                        name,
                        aliases,
                        description: description.unwrap_or_default(),
                        app: app.filter(|a| !a.is_empty()),
                        variables: task.text_variables(),
                        steps,
                        source_run: None,
                    },
                    warnings,
                });
            }
        }
        Err(report) => {
            errors.extend(report.errors);
            warnings = report.warnings;
        }
    }
    Err(Report { errors, warnings })
}

/// A distilled candidate, tidied and checked: the action and what was changed, or why it was
/// dropped.
pub fn check_candidate(obj: &Value) -> Result<(NewAction, Vec<String>), String> {
    let Some(obj) = obj.as_object() else {
        return Err(texts::NO_NAME.to_owned());
    };
    let name = obj
        .get("name")
        .and_then(Value::as_str)
        .map(|n| crate::trajectory::cut(n.trim(), MAX_NAME_CHARS))
        .filter(|n| !n.is_empty())
        .ok_or_else(|| texts::NO_NAME.to_owned())?;
    let mut notes = Vec::new();
    let steps = tidy_steps(obj.get("steps"), &mut notes)?;
    let variables = Value::Object(
        obj.get("variables")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), Value::String(as_text(v))))
                    .collect()
            })
            .unwrap_or_default(),
    );
    let (task, _) = validate(&name, &steps, &variables).map_err(|report| {
        let first: Vec<String> = report
            .errors
            .iter()
            .take(3)
            .map(ToString::to_string)
            .collect();
        texts::action_refused(&first.join("; "))
    })?;
    let aliases: Vec<String> = obj
        .get("aliases")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(|s| crate::trajectory::cut(s.trim(), MAX_NAME_CHARS))
                .filter(|s| !s.is_empty() && !s.eq_ignore_ascii_case(&name))
                .take(DISTILLED_ALIASES)
                .collect()
        })
        .unwrap_or_default();
    let description = obj
        .get("description")
        .and_then(Value::as_str)
        .map(|d| crate::trajectory::cut(d.trim(), MAX_DESCRIPTION_CHARS))
        .unwrap_or_default();
    Ok((
        NewAction {
            name,
            aliases,
            description,
            app: None,
            variables: task.text_variables(),
            steps,
            source_run: None,
        },
        notes,
    ))
}

/// The candidate's steps without coordinate steps and cut to [`MAX_DISTILLED_STEPS`].
fn tidy_steps(steps: Option<&Value>, notes: &mut Vec<String>) -> Result<Value, String> {
    let Some(list) = steps.and_then(Value::as_array) else {
        return Err(texts::NO_STEPS.to_owned());
    };
    let coordinate = |s: &&Value| {
        let kind = s.get("type").and_then(Value::as_str).unwrap_or("");
        matches!(
            kind.parse::<StepType>(),
            Ok(StepType::ClickXy | StepType::Gesture)
        )
    };
    let removed = list.iter().filter(coordinate).count();
    if removed > 0 {
        notes.push(texts::coordinate_steps(removed));
    }
    let kept: Vec<Value> = list.iter().filter(|s| !coordinate(s)).cloned().collect();
    if kept.is_empty() {
        return Err(texts::NO_STEPS.to_owned());
    }
    if kept.len() > MAX_DISTILLED_STEPS {
        notes.push(texts::steps_trimmed(kept.len(), MAX_DISTILLED_STEPS));
    }
    Ok(Value::Array(
        kept.into_iter().take(MAX_DISTILLED_STEPS).collect(),
    ))
}

/// Runs the validator in library mode over the action as a task document (so paths read
/// `steps[2].selector`, `variables.x`).
pub fn validate(name: &str, steps: &Value, variables: &Value) -> Result<(Task, Report), Report> {
    let doc = json!({
        "name": if name.is_empty() { "action" } else { name },
        "steps": steps,
        "variables": variables,
    });
    validate_task(&doc, &Options::library()).into_result()
}

/// The stored action as the task the runner plays: its variables with `given` over the
/// defaults.
pub fn as_task(
    name: &str,
    steps: &Value,
    defaults: &BTreeMap<String, String>,
    timeout_s: f64,
) -> Result<Task, Report> {
    let doc = json!({
        "name": name,
        "steps": steps,
        "variables": defaults,
        "timeout_s": timeout_s,
    });
    validate_task(&doc, &Options::library())
        .into_result()
        .map(|(task, _)| task)
}

fn aliases(v: Option<&Value>, errors: &mut Vec<Issue>) -> Vec<String> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Vec::new();
    };
    let Some(list) = v.as_array() else {
        errors.push(Issue::new(
            "aliases",
            texts::wrong_type("aliases", "a list of strings"),
        ));
        return Vec::new();
    };
    if list.len() > MAX_ALIASES {
        errors.push(Issue::new(
            "aliases",
            texts::bad_aliases(MAX_ALIASES, MAX_NAME_CHARS),
        ));
    }
    let mut out = Vec::new();
    for (i, a) in list.iter().enumerate() {
        match a.as_str().map(str::trim) {
            Some(s) if !s.is_empty() && s.chars().count() <= MAX_NAME_CHARS => {
                out.push(s.to_owned());
            }
            _ => errors.push(Issue::new(
                format!("aliases[{i}]"),
                texts::bad_aliases(MAX_ALIASES, MAX_NAME_CHARS),
            )),
        }
    }
    out
}

fn text_field(
    obj: &Map<String, Value>,
    key: &str,
    max: usize,
    errors: &mut Vec<Issue>,
) -> Option<String> {
    match obj.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.chars().count() <= max => Some(s.trim().to_owned()),
        Some(Value::String(_)) => {
            errors.push(Issue::new(key, texts::bad_description(max)));
            None
        }
        Some(_) => {
            errors.push(Issue::new(key, texts::wrong_type(key, "a string")));
            None
        }
    }
}

/// A JSON value as a variable's text.
pub fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn report(errors: Vec<Issue>) -> Report {
    Report {
        errors,
        warnings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_loses_its_coordinate_steps_and_is_cut_to_four() {
        let c = json!({"name": " Calculate ", "aliases": ["calc", 3, "", "Calculate"],
        "variables": {"expr": 56},
        "steps": [
            {"type": "open_app", "app": "gnome-calculator"},
            {"type": "click_xy", "x": 0.5, "y": 0.5},
            {"type": "input_text", "selector": {"type": "edit"}, "text": "{{expr}}"},
            {"type": "key_event", "keys": "{ENTER}"},
            {"type": "wait", "seconds": 1},
            {"type": "wait", "seconds": 2}
        ]});
        let (action, notes) = check_candidate(&c).unwrap();
        assert_eq!(action.name, "Calculate");
        assert_eq!(action.aliases, ["calc"]);
        assert_eq!(action.variables["expr"], "56");
        assert_eq!(action.steps.as_array().unwrap().len(), 4);
        assert_eq!(
            notes,
            [texts::coordinate_steps(1), texts::steps_trimmed(5, 4)]
        );
    }

    #[test]
    fn a_candidate_that_does_not_validate_is_dropped_whole() {
        let nested = json!({"name": "x", "steps": [
            {"type": "group", "name": "g", "steps": [{"type": "click_xy", "x": 0.1, "y": 0.2}]}]});
        let why = check_candidate(&nested).unwrap_err();
        assert!(
            why.starts_with("the steps are not valid library steps: steps[0].steps[0]"),
            "{why}"
        );
        let swipe_xy =
            json!({"name": "x", "steps": [{"type": "swipe", "direction": "up", "x": 3}]});
        assert!(
            check_candidate(&swipe_xy)
                .unwrap_err()
                .contains("no coordinates")
        );
        assert_eq!(
            check_candidate(&json!({"steps": []})).unwrap_err(),
            texts::NO_NAME
        );
        assert_eq!(
            check_candidate(
                &json!({"name": "x", "steps": [{"type": "click_xy", "x": 0.1, "y": 0.1}]})
            )
            .unwrap_err(),
            texts::NO_STEPS
        );
    }

    #[test]
    fn a_submission_gets_every_problem_at_its_path() {
        let body = json!({"name": "", "aliases": ["ok", 7], "colour": "red",
            "steps": [{"type": "click"}, {"type": "click_xy", "x": 0.5, "y": 0.5},
                      {"type": "input_text", "selector": {"text": "A"}, "text": "{{who}}"}]});
        let report = check_submission(&body).unwrap_err();
        let paths: Vec<&str> = report.errors.iter().map(|e| e.path.as_str()).collect();
        for want in [
            "colour",
            "name",
            "aliases[1]",
            "steps[0].selector",
            "steps[1].type",
            "steps[2].text",
        ] {
            assert!(paths.contains(&want), "{want} missing from {paths:?}");
        }
        let ok = check_submission(&json!({"name": "Open", "variables": {"who": "me"},
            "steps": [{"type": "input_text", "selector": {"text": "A"}, "text": "{{who}}"}]}))
        .unwrap();
        assert_eq!(ok.action.variables["who"], "me");
        let long: Vec<Value> = (0..21)
            .map(|_| json!({"type": "wait", "seconds": 1}))
            .collect();
        let report = check_submission(&json!({"name": "Long", "steps": long})).unwrap_err();
        assert_eq!(report.errors[0].path, "steps");
    }
}
