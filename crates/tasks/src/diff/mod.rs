//! The structural difference between two versions of a task: the record's fields (name,
//! device, switch, folder, tags), the definition's variables and settings, and its steps —
//! added, removed, changed (with each changed parameter, old → new) or moved — matched in
//! the step tree, nested `if_el` / `loop` / `for_each` / `group` bodies included.
//!
//! It reads definitions as JSON, so a version stored before a step type existed, or one the
//! validator would refuse today, still compares. A step list is any list whose items are
//! objects with a `type`.

mod steps;

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::{Map, Value};

pub use steps::{StepChange, StepChangeKind};

/// One side of a comparison: a task's record as one version saved it.
#[derive(Debug, Clone, PartialEq)]
pub struct Side<'a> {
    /// The task's name.
    pub name: &'a str,
    /// Its device.
    pub device: &'a str,
    /// Its switch.
    pub enabled: bool,
    /// Its folder.
    pub folder: &'a str,
    /// Its tags.
    pub tags: &'a [String],
    /// Its definition (a task file as JSON).
    pub definition: &'a Value,
}

/// A changed value: a field of the record or the definition, or a step's parameter.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct FieldChange {
    /// Its name: `name`, `folder`, `variables.who`, `timeout_s`; a step's `selector.text`.
    pub field: String,
    /// Its value before (`null`: it was not set).
    pub old: Value,
    /// Its value after (`null`: it is not set any more).
    pub new: Value,
}

/// What changed from one version to another.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TaskDiff {
    /// The changed fields of the record (name, device, enabled, folder, tags), then the
    /// definition's variables (`variables.NAME`) and settings (`on_error`, `timeout_s`, …).
    pub fields: Vec<FieldChange>,
    /// The steps' changes, in the order of the newer version (removed steps where they were).
    pub steps: Vec<StepChange>,
}

impl TaskDiff {
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty() && self.steps.is_empty()
    }
}

/// The definition keys that are not settings: the name and device (the record's count), the
/// steps and the variables (compared on their own).
const NOT_SETTINGS: [&str; 4] = ["name", "device", "steps", "variables"];

/// What changed from `old` to `new`.
pub fn diff(old: &Side<'_>, new: &Side<'_>) -> TaskDiff {
    let mut fields = Vec::new();
    let mut field = |name: &str, o: Value, n: Value| {
        if o != n {
            fields.push(FieldChange {
                field: name.to_owned(),
                old: o,
                new: n,
            });
        }
    };
    field("name", old.name.into(), new.name.into());
    field("device", old.device.into(), new.device.into());
    field("enabled", old.enabled.into(), new.enabled.into());
    field("folder", old.folder.into(), new.folder.into());
    field("tags", tags_value(old.tags), tags_value(new.tags));
    let (old_vars, new_vars) = (
        object_at(old.definition, "variables"),
        object_at(new.definition, "variables"),
    );
    for name in keys(&old_vars, &new_vars) {
        field(
            &format!("variables.{name}"),
            old_vars.get(&name).cloned().unwrap_or(Value::Null),
            new_vars.get(&name).cloned().unwrap_or(Value::Null),
        );
    }
    let (old_top, new_top) = (as_object(old.definition), as_object(new.definition));
    for key in keys(&old_top, &new_top) {
        if NOT_SETTINGS.contains(&key.as_str()) {
            continue;
        }
        field(
            &key,
            old_top.get(&key).cloned().unwrap_or(Value::Null),
            new_top.get(&key).cloned().unwrap_or(Value::Null),
        );
    }
    TaskDiff {
        fields,
        steps: steps::diff_lists(
            "",
            "steps",
            list_at(old.definition, "steps"),
            list_at(new.definition, "steps"),
        ),
    }
}

/// Tags compared as a set ignoring case (their order is not a change), shown as given.
fn tags_value(tags: &[String]) -> Value {
    let mut sorted: Vec<&String> = tags.iter().collect();
    sorted.sort_by_key(|t| t.to_lowercase());
    Value::Array(
        sorted
            .into_iter()
            .map(|t| Value::String(t.clone()))
            .collect(),
    )
}

fn as_object(v: &Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

fn object_at(v: &Value, key: &str) -> Map<String, Value> {
    v.get(key).map(as_object).unwrap_or_default()
}

fn list_at<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The keys of both objects, sorted.
fn keys(a: &Map<String, Value>, b: &Map<String, Value>) -> BTreeSet<String> {
    a.keys().chain(b.keys()).cloned().collect()
}

#[cfg(test)]
mod tests;
