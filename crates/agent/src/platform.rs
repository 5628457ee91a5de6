//! Platform tools: tools the agent answers itself, never through MCP or the device's Dispatcher
//! (`list_devices`; designer mode's `submit_task`, deft-memory's `run_action` — whatever a run's
//! [`crate::RunExtension`]s add). A tool is a [`PlatformTool`]; the model sees it beside the
//! device's tools (a device tool of the same name is not offered: the platform's prompts name
//! its tools, and a device must not take them over), its calls are recorded as steps like any
//! other, and its answer may end the run.

use std::sync::Arc;

use deft_protocol::{CommandResult, ImageSink};
use deft_tools::{Device, Devices};
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::texts;

/// One call of a platform tool.
pub struct PlatformCall<'a> {
    /// The call's id (the agent sets it on the Result in any case).
    pub call_id: &'a str,
    /// The arguments the model gave (a JSON object).
    pub args: &'a Map<String, Value>,
    /// The device the run operates: the only one the tool may act on.
    pub device: &'a Device,
    /// Where images the tool produces go (the events carry their ids).
    pub images: Arc<dyn ImageSink>,
    /// The run's stop.
    pub cancel: &'a CancellationToken,
}

/// What a platform tool answers.
#[derive(Debug, Clone)]
pub struct PlatformAnswer {
    /// The Result, as a device tool's would be (its text goes back to the model).
    pub result: CommandResult,
    /// Ends the run after this call, as completed, with this final answer.
    pub finish: Option<String>,
}

impl PlatformAnswer {
    /// A Result that does not end the run.
    pub fn result(result: CommandResult) -> Self {
        PlatformAnswer {
            result,
            finish: None,
        }
    }
}

/// A tool the agent answers itself.
pub trait PlatformTool: Send + Sync {
    /// The name the model calls (letters, digits, `_`, `-`).
    fn name(&self) -> &str;
    /// What it does, for the model.
    fn description(&self) -> &str;
    /// Its parameters, as a JSON Schema object.
    fn parameters(&self) -> Value;
    /// Answers one call.
    fn call<'a>(&'a self, call: PlatformCall<'a>) -> BoxFuture<'a, PlatformAnswer>;
}

/// The namespace platform tools' Results carry.
pub const NAMESPACE: &str = "platform";

/// `list_devices`: the devices deft knows (id, profile, busy). Read-only.
pub struct ListDevices(pub Arc<dyn Devices>);

/// The name of [`ListDevices`].
pub const LIST_DEVICES: &str = "list_devices";

impl PlatformTool for ListDevices {
    fn name(&self) -> &str {
        LIST_DEVICES
    }

    fn description(&self) -> &str {
        texts::LIST_DEVICES_DESCRIPTION
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }

    fn call<'a>(&'a self, call: PlatformCall<'a>) -> BoxFuture<'a, PlatformAnswer> {
        let list = serde_json::to_value(self.0.list()).unwrap_or(Value::Null);
        let result = CommandResult::success(call.call_id, list, Some(NAMESPACE));
        Box::pin(async move { PlatformAnswer::result(result) })
    }
}
