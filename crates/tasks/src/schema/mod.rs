//! The task file's JSON Schema (draft 2020-12), generated from the step types (schemars) and
//! committed as docs/task.schema.json; a test fails when the committed file differs, and
//! another checks every example against it. The validator stays the authority (it also knows
//! the variables in scope, the key syntax and the limits across steps); the schema is for
//! editors and other tools.

pub(crate) mod transforms;

use schemars::generate::SchemaSettings;
use serde_json::Value;

use crate::step::Task;

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
