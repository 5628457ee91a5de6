//! The tools the model sees: the union of the HostAgent and (once an app is selected) AppAgent
//! Computers' tools, learned with `list_tools` through the Dispatcher, plus the run's platform
//! tools. A name present in both Computers runs on the AppAgent one; a platform tool's name
//! shadows a device tool's (the platform's prompts name its tools, and a device — a remote one
//! too — must not take them over), and of two platform tools of one name the first is offered
//! (`list_devices` comes first).

use std::collections::BTreeMap;
use std::sync::Arc;

use deft_protocol::{ToolInfo, ToolType};
use serde_json::Value;

use crate::llm::{function_schema, sanitize_tool_name};
use crate::platform::PlatformTool;

/// Where a tool call goes.
#[derive(Clone)]
pub enum Target {
    /// The HostAgent Computer.
    Host(ToolType),
    /// The AppAgent Computer of the selected application.
    App(ToolType),
    /// Answered by the agent itself.
    Platform(Arc<dyn PlatformTool>),
}

/// One tool as offered to the model.
#[derive(Clone)]
pub struct Offered {
    /// The real tool name.
    pub name: String,
    /// Where it runs.
    pub target: Target,
    /// The OpenAI function definition.
    pub schema: Value,
}

/// The model's tools, by the (sanitized) name the model calls.
#[derive(Clone, Default)]
pub struct ToolSet {
    by_name: BTreeMap<String, Offered>,
}

impl ToolSet {
    /// Builds the set from the Host tools, the App tools (if an app is selected) and the
    /// platform tools.
    pub fn new(host: &[ToolInfo], app: &[ToolInfo], platform: &[Arc<dyn PlatformTool>]) -> Self {
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
        for tool in platform {
            let name = tool.name().to_owned();
            let key = sanitize_tool_name(&name);
            match by_name.get(&key).map(|o| &o.target) {
                Some(Target::Platform(_)) => {
                    tracing::warn!(tool = %name, "two platform tools have this name; the first is offered");
                    continue;
                }
                Some(_) => {
                    tracing::warn!(tool = %name, "the device has a tool named like a platform tool; the platform's is offered");
                }
                None => {}
            }
            by_name.insert(
                key,
                Offered {
                    schema: function_schema(&name, tool.description(), Some(&tool.parameters())),
                    name,
                    target: Target::Platform(tool.clone()),
                },
            );
        }
        ToolSet { by_name }
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

pub use deft_tools::dispatcher::list_tools;
