//! What the generated schema says that the step types alone do not (each applied by the type's
//! `#[schemars(transform = …)]`): the task's `$schema` and its variables' names, closed steps,
//! either-or parameter sets.

use schemars::Schema;
use serde_json::{Value, json};

use crate::step::limits::{MAX_VARIABLE_NAME_CHARS, MAX_VARIABLES};

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
/// evaluated through the `oneOf` branch, hence `unevaluatedProperties`).
pub(crate) fn closed(schema: &mut Schema) {
    schema.insert("unevaluatedProperties".to_owned(), Value::Bool(false));
}

/// An either-or parameter set (`app` or `url`, `set` or `read_into`, `times`, `while` or
/// `until`): exactly one alternative, not any.
pub(crate) fn exclusive(schema: &mut Schema) {
    if let Some(any) = schema.remove("anyOf") {
        schema.insert("oneOf".to_owned(), any);
    }
}
