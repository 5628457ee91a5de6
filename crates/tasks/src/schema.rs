//! The task file's JSON Schema (draft 2020-12), generated from the step types (schemars) and
//! committed as docs/task.schema.json; a test fails when the committed file differs, and
//! another checks every example against it. The validator stays the authority (it also knows
//! the variables in scope, the key syntax and the limits across steps); the schema is for
//! editors and other tools.

use schemars::Schema;
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};

use crate::step::Task;
use crate::step::limits::{MAX_VARIABLE_NAME_CHARS, MAX_VARIABLES};

/// The schema of a task file.
pub fn task_schema() -> Value {
    let generator = SchemaSettings::draft2020_12().into_generator();
    generator.into_root_schema_for::<Task>().to_value()
}

/// The schema as docs/task.schema.json holds it: pretty JSON and a final newline.
pub fn task_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&task_schema()).unwrap_or_default();
    text.push('\n');
    text
}

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
