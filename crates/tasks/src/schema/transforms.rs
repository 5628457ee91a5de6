//! What the generated schema says that the step types alone do not (each applied by the type's
//! `#[schemars(transform = …)]`): the task's `$schema` and its variables' names, closed steps,
//! either-or parameter sets.

use schemars::Schema;
use serde_json::{Value, json};

use crate::step::kind::StepType;
use crate::step::limits::{
    MAX_RETRIES, MAX_RETRY_BACKOFF, MAX_RETRY_DELAY_S, MAX_VARIABLE_NAME_CHARS, MAX_VARIABLES,
};

/// The task object also takes `$schema` (an editor's pointer to this file), and its
/// variables' names are names.
pub(crate) fn task_root(schema: &mut Schema) {
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        props.insert(
            "$schema".to_owned(),
            json!({"type": "string", "description": "The schema's location, for editors (ignored by deft)."}),
        );
        if let Some(Value::Object(vars)) = props.get_mut("variables") {
            vars.insert("maxProperties".to_owned(), json!(MAX_VARIABLES));
            vars.insert(
                "propertyNames".to_owned(),
                json!({"pattern": "^[A-Za-z_][A-Za-z0-9_]*$", "maxLength": MAX_VARIABLE_NAME_CHARS}),
            );
        }
    }
}

/// A step takes no field its type and the common fields do not name (the type's fields are
/// evaluated through the `oneOf` branch, hence `unevaluatedProperties`); the types that take
/// `retry` list it in their branch.
pub(crate) fn closed(schema: &mut Schema) {
    schema.insert("unevaluatedProperties".to_owned(), Value::Bool(false));
    let retrying: Vec<&str> = StepType::retrying().map(StepType::as_str).collect();
    let Some(Value::Array(branches)) = schema.get_mut("oneOf") else {
        return;
    };
    for branch in branches {
        let kind = branch
            .pointer("/properties/type/const")
            .and_then(Value::as_str);
        if kind.is_some_and(|k| retrying.contains(&k))
            && let Some(Value::Object(props)) = branch.get_mut("properties")
        {
            props.insert("retry".to_owned(), retry_schema());
        }
    }
}

/// `retry`'s schema (the field is the common `Step`'s, skipped there).
fn retry_schema() -> Value {
    json!({
        "description": "Try the step again after it failed: `times` more attempts (1–10), the first after `delay_s` seconds (0–600, default 0), each later pause `backoff` times the one before (1–10, default 1; a pause is at most 600 s).",
        "type": ["object", "null"],
        "properties": {
            "times": {"type": "integer", "minimum": 1, "maximum": MAX_RETRIES},
            "delay_s": {"type": "number", "minimum": 0, "maximum": MAX_RETRY_DELAY_S},
            "backoff": {"type": "number", "minimum": 1, "maximum": MAX_RETRY_BACKOFF}
        },
        "required": ["times"],
        "additionalProperties": false
    })
}

/// An either-or parameter set (`app` or `url`, `set` or `read_into`, `times`, `while` or
/// `until`): exactly one alternative, not any.
pub(crate) fn exclusive(schema: &mut Schema) {
    if let Some(any) = schema.remove("anyOf") {
        schema.insert("oneOf".to_owned(), any);
    }
}

/// A `for_each` item's fields may be texts, numbers or true/false (the validator reads them as
/// text).
pub(crate) fn item_fields(schema: &mut Schema) {
    let Some(Value::Array(branches)) = schema.get_mut("anyOf") else {
        return;
    };
    for branch in branches {
        if branch.get("type") == Some(&json!("object")) {
            branch["additionalProperties"] = json!({"type": ["string", "number", "boolean"]});
        }
    }
}
