//! The tools the model sees: the union of the HostAgent and (once an app is selected) AppAgent
//! Computers' tools, learned with `list_tools` through the Dispatcher, plus platform tools. A name
//! present in both Computers runs on the AppAgent one.

use std::collections::BTreeMap;
use std::sync::Arc;

use deft_protocol::{Command, ToolInfo, ToolType};
use deft_tools::{ExecContext, dispatcher::Dispatcher};
use serde_json::{Value, json};

use crate::extension::PlatformTool;
use crate::llm::{function_schema, sanitize_tool_name};

/// The platform tool that lists devices.
pub const LIST_DEVICES: &str = "list_devices";

/// Where a tool call goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The HostAgent Computer.
    Host(ToolType),
    /// The AppAgent Computer of the selected application.
    App(ToolType),
    /// Answered by the agent itself.
    Platform,
    /// Answered by an extension's platform tool (its index among the run's platform tools).
    Extension(usize),
}

/// One tool as offered to the model.
#[derive(Debug, Clone)]
pub struct Offered {
    /// The real tool name.
    pub name: String,
    /// Where it runs.
    pub target: Target,
    /// The OpenAI function definition.
    pub schema: Value,
}

/// The model's tools, by the (sanitized) name the model calls.
#[derive(Debug, Clone, Default)]
pub struct ToolSet {
    by_name: BTreeMap<String, Offered>,
}

impl ToolSet {
    /// Builds the set from the Host tools, the App tools (if an app is selected) and the
    /// platform tools.
    pub fn new(host: &[ToolInfo], app: &[ToolInfo]) -> Self {
        let mut by_name = BTreeMap::new();
        for (infos, is_app) in [(host, false), (app, true)] {
            for info in infos {
                let target = if is_app {
                    Target::App(info.tool_type)
                } else {
                    Target::Host(info.tool_type)
                };
                let schema = function_schema(
                    &info.tool_name,
                    info.description.as_deref().unwrap_or(""),
                    info.input_schema.as_ref(),
                );
                by_name.insert(
                    sanitize_tool_name(&info.tool_name),
                    Offered {
                        name: info.tool_name.clone(),
                        target,
                        schema,
                    },
                );
            }
        }
        by_name.insert(
            LIST_DEVICES.to_owned(),
            Offered {
                name: LIST_DEVICES.to_owned(),
                target: Target::Platform,
                schema: function_schema(
                    LIST_DEVICES,
                    "List the devices deft knows (id, profile, busy). Read-only: this run operates only its own device.",
                    Some(&json!({"type": "object", "properties": {}})),
                ),
            },
        );
        ToolSet { by_name }
    }

    /// Adds the extensions' platform tools (a name the set has already keeps its first owner:
    /// a device tool is never shadowed).
    pub fn with_platform(mut self, tools: &[Arc<dyn PlatformTool>]) -> Self {
        for (i, tool) in tools.iter().enumerate() {
            let name = sanitize_tool_name(tool.name());
            if self.by_name.contains_key(&name) {
                tracing::warn!(tool = %name, "a platform tool has the name of another tool; it is not offered");
                continue;
            }
            let parameters = tool.parameters();
            let schema = function_schema(tool.name(), &tool.description(), Some(&parameters));
            self.by_name.insert(
                name,
                Offered {
                    name: tool.name().to_owned(),
                    target: Target::Extension(i),
                    schema,
                },
            );
        }
        self
    }

    /// The tool the model called `name`.
    pub fn get(&self, name: &str) -> Option<&Offered> {
        self.by_name.get(name)
    }

    /// Function definitions for the request.
    pub fn schemas(&self) -> Vec<Value> {
        self.by_name.values().map(|o| o.schema.clone()).collect()
    }

    /// Names the model can call.
    pub fn names(&self) -> Vec<String> {
        self.by_name.keys().cloned().collect()
    }
}

/// The tools of the Computer `ctx` names, learned through the dispatcher with `list_tools`.
pub async fn list_tools(
    dispatcher: &dyn Dispatcher,
    ctx: &ExecContext,
) -> Result<Vec<ToolInfo>, String> {
    let cmd = Command::new("list_tools", Some(ToolType::DataCollection), json!({}));
    let mut results = dispatcher.execute(ctx, vec![cmd]).await;
    let r = results
        .pop()
        .ok_or("the device answered list_tools with no result")?;
    if !r.is_success() {
        return Err(r.error.unwrap_or_else(|| "list_tools failed".to_owned()));
    }
    serde_json::from_value(r.result)
        .map_err(|e| format!("list_tools answered something unreadable: {e}"))
}
