//! The agent's extension point: what a run takes from outside the agent. When a run starts,
//! each [`RunExtension`] may add system-prompt sections, events to show before the first model
//! call, and [`PlatformTool`]s the model can call beside `list_devices`; afterwards it hears
//! of every tool call the run makes ([`RunExtension::called`]). deft-memory is one (recall at
//! the start, the trajectory it distils after the end); the agent knows nothing of what an
//! extension does with it.

use std::sync::Arc;

use deft_protocol::{CommandResult, EventKind, ImageSink, ToolType};
use deft_tools::Device;
use futures::future::BoxFuture;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// What an extension learns when a run starts.
#[derive(Clone, Copy)]
pub struct Starting<'a> {
    /// The person's goal.
    pub goal: &'a str,
    /// The device the run operates.
    pub device: &'a Device,
}

/// What an extension adds to a run.
#[derive(Default)]
pub struct Preparation {
    /// System-prompt sections, placed after the system prompt (empty ones are left out).
    pub context: Vec<String>,
    /// Events emitted before the first model call (e.g. `memory` cards).
    pub events: Vec<EventKind>,
    /// Tools the model may call, answered by the extension.
    pub tools: Vec<Arc<dyn PlatformTool>>,
}

/// One tool call the run made, as an extension hears of it.
pub struct CallRecord<'a> {
    /// The tool's real name.
    pub tool: &'a str,
    /// Observation or action (`None` for a platform tool).
    pub tool_type: Option<ToolType>,
    /// The root of the application selected when the call ran (`gnome-calculator`), if any.
    pub app: Option<&'a str>,
    /// Its arguments.
    pub args: &'a Value,
    /// What came back.
    pub result: &'a CommandResult,
}

/// Something that takes part in every run of an agent (see the module docs).
pub trait RunExtension: Send + Sync {
    /// Called once when a run starts, after the device's tools are known and before the
    /// first model call. It should answer quickly: the run waits for it.
    fn start<'a>(&'a self, start: Starting<'a>) -> BoxFuture<'a, Preparation>;

    /// Called after each tool call ran (not for calls that never ran: an unknown tool, bad
    /// arguments, a denied approval). Must not block.
    fn called(&self, call: &CallRecord<'_>) {
        let _ = call;
    }
}

/// What a platform tool is given for one call.
pub struct PlatformCall<'a> {
    /// The call's id.
    pub call_id: &'a str,
    /// Its arguments (a JSON object).
    pub args: &'a Map<String, Value>,
    /// The run's device: the only one the tool may act on.
    pub device: &'a Device,
    /// Where images the tool produces go (the events carry their ids).
    pub images: Arc<dyn ImageSink>,
    /// The run's stop.
    pub cancel: &'a CancellationToken,
}

/// A tool answered by the platform rather than a device's tool servers (e.g. deft-memory's
/// `run_action`).
pub trait PlatformTool: Send + Sync {
    /// The name the model calls (letters, digits, `_` and `-`).
    fn name(&self) -> &str;

    /// What the model reads about it.
    fn description(&self) -> String;

    /// Its parameters as a JSON Schema object.
    fn parameters(&self) -> Value;

    /// Runs one call. The Result's `call_id` is set by the agent.
    fn call<'a>(&'a self, call: PlatformCall<'a>) -> BoxFuture<'a, CommandResult>;
}
