//! The five stages of seed 004, each in its own module, each filling its part of the result and
//! timed into `time_cost`: [`template`] (`choose_template`), [`prefill`], [`judge`]
//! (`instantiation_evaluation`), [`execute`] and [`evaluate`] (`execute_eval`). A stage's failure
//! is recorded where the schema says and ends the task's chain; the run goes on.

pub mod evaluate;
pub mod execute;
pub mod judge;
pub mod prefill;
pub mod template;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use deft_tools::Device;
use tokio_util::sync::CancellationToken;

use crate::config::{AppSpec, Config};
use crate::log::{StepEnd, TaskLog};
use crate::model::Model;
use crate::result::{ResultDoc, StageError};
use crate::task::Task;
use crate::texts;

/// Everything one task's stages share.
pub struct TaskCtx<'a> {
    /// The run's settings.
    pub config: &'a Config,
    /// The model.
    pub model: &'a Model,
    /// The device the task's document opens on.
    pub device: &'a Device,
    /// The task.
    pub task: &'a Task,
    /// The app's key (`word`).
    pub app_name: &'a str,
    /// How the app's documents are handled.
    pub spec: &'a AppSpec,
    /// The result being filled.
    pub doc: ResultDoc,
    /// The task's log.
    pub log: TaskLog,
    /// Stops the task (Ctrl-C).
    pub cancel: CancellationToken,
}

impl TaskCtx<'_> {
    /// The document the template stage chose, as a path the device can open (absolute).
    pub fn document(&self) -> Result<PathBuf, StageError> {
        let stored = self
            .doc
            .document()
            .ok_or_else(|| StageError::new("MissingInput", texts::NO_DOCUMENT))?;
        let path = self.config.resolve(stored);
        Ok(std::path::absolute(&path).unwrap_or(path))
    }

    /// Starts timing stage `name` (logged as a step of the task).
    pub fn begin(&mut self, name: &str) -> Instant {
        self.log.step_start(name, "stage", None);
        Instant::now()
    }

    /// Ends stage `name`: its time into `time_cost`, its end into the log. Returns its duration.
    pub fn end(&mut self, name: &str, started: Instant, error: Option<&StageError>) -> Duration {
        let took = started.elapsed();
        self.doc.set_time(name, took.as_secs_f64());
        self.log
            .step_end(StepEnd::stage(name, took, error.map(StageError::as_text)));
        took
    }

    /// Whether the run was stopped.
    pub fn stopped(&self) -> bool {
        self.cancel.is_cancelled()
    }
}

/// A tool's parameters in a line: `name(arg: type, arg?: type)`, leaving out `id` and `name`
/// (the executor fills them from the matched control).
pub fn signature(info: &deft_protocol::ToolInfo) -> String {
    let schema = info.input_schema.as_ref();
    let required: Vec<&str> = schema
        .and_then(|s| s.get("required"))
        .and_then(|r| r.as_array())
        .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let params: Vec<String> = schema
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.as_object())
        .map(|props| {
            props
                .iter()
                .filter(|(k, _)| {
                    !takes_control(info) || (k.as_str() != "id" && k.as_str() != "name")
                })
                .map(|(k, v)| {
                    let ty = v
                        .get("type")
                        .map(type_name)
                        .unwrap_or_else(|| "any".to_owned());
                    let opt = if required.contains(&k.as_str()) {
                        ""
                    } else {
                        "?"
                    };
                    format!("{k}{opt}: {ty}")
                })
                .collect()
        })
        .unwrap_or_default();
    format!("{}({})", info.tool_name, params.join(", "))
}

/// Whether the tool acts on a control by `id`.
pub fn takes_control(info: &deft_protocol::ToolInfo) -> bool {
    takes_option(info, "id")
}

/// Whether the tool's input schema has the argument `name`.
pub fn takes_option(info: &deft_protocol::ToolInfo, name: &str) -> bool {
    info.input_schema
        .as_ref()
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.get(name))
        .is_some()
}

fn type_name(t: &serde_json::Value) -> String {
    match t {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) => items
            .iter()
            .filter_map(|v| v.as_str())
            .filter(|s| *s != "null")
            .collect::<Vec<_>>()
            .join("|"),
        _ => "any".to_owned(),
    }
}

/// The first line of a tool's description, at most 240 characters.
pub fn summary(info: &deft_protocol::ToolInfo) -> String {
    let d = info.description.as_deref().unwrap_or("").trim();
    let line = d.lines().next().unwrap_or("");
    if line.chars().count() > 240 {
        format!("{}…", line.chars().take(240).collect::<String>())
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deft_protocol::{ToolInfo, ToolType};
    use serde_json::json;

    fn info(name: &str, schema: serde_json::Value) -> ToolInfo {
        serde_json::from_value(
            json!({"tool_key": format!("action::{name}"), "tool_name": name,
            "namespace": "x", "tool_type": ToolType::Action, "description": "Does it.\nMore.",
            "input_schema": schema}),
        )
        .unwrap()
    }

    #[test]
    fn signatures_leave_the_control_out() {
        let click = info(
            "click_input",
            json!({"type": "object", "required": ["id"], "properties": {
            "id": {"type": "string"}, "name": {"type": ["string", "null"]}, "double": {"type": ["boolean", "null"]}}}),
        );
        assert_eq!(signature(&click), "click_input(double?: boolean)");
        assert!(takes_control(&click));
        let table = info(
            "insert_table",
            json!({"type": "object", "required": ["rows", "columns"], "properties": {
            "rows": {"type": "integer"}, "columns": {"type": "integer"}, "name": {"type": "string"}}}),
        );
        assert_eq!(
            signature(&table),
            "insert_table(columns: integer, name?: string, rows: integer)"
        );
        assert_eq!(summary(&table), "Does it.");
    }
}
