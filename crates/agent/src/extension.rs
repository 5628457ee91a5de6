//! The agent's extension point: what a run takes from outside the agent. A run's profile lists
//! its [`RunExtension`]s; when the run starts, each may add system-prompt sections, events to
//! show before the first model call and [`PlatformTool`]s the model can call beside
//! `list_devices`; while the run goes it hears of every tool call ([`RunExtension::called`]);
//! when it ends it may say what `done` carries beyond the answer ([`RunExtension::finish`]).
//! deft-memory's session is one (recall at the start, the trajectory it distils after the end),
//! designer mode's is another (`submit_task`, the observations it checks a draft against, the
//! draft); the agent knows nothing of what an extension does with it, and its loop has no
//! branch for any of them.

use std::sync::Arc;

use deft_protocol::{CommandResult, DoneStatus, DraftOutcome, EventKind, ToolStep, ToolType};
use deft_tools::Device;
use futures::future::BoxFuture;

use crate::platform::PlatformTool;

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
    /// System-prompt sections, placed after the system prompt and before the request's own
    /// extra context (empty ones are left out).
    pub context: Vec<String>,
    /// Events emitted before the first model call (e.g. `memory` cards).
    pub events: Vec<EventKind>,
    /// Tools the model may call, answered by the extension.
    pub tools: Vec<Arc<dyn PlatformTool>>,
}

/// One tool call the run made, as an extension hears of it.
pub struct CallRecord<'a> {
    /// The call as its `step` event shows it (the tool's real name, the arguments, the Result
    /// with images replaced by ids).
    pub step: &'a ToolStep,
    /// What came back, as the tool answered it.
    pub result: &'a CommandResult,
    /// Observation or action (`None` for a platform tool).
    pub tool_type: Option<ToolType>,
    /// The root of the application selected when the call ran (`gnome-calculator`), if any.
    pub app: Option<&'a str>,
}

/// Something that takes part in a run (see the module docs). Every method has a default that
/// does nothing, so an extension implements only what it needs.
pub trait RunExtension: Send + Sync {
    /// Called once when the run starts, after the device's tools are known and before the
    /// system prompt is written (its tools are in the prompt's list) and the first model call.
    /// It should answer quickly: the run waits for it.
    fn start<'a>(&'a self, start: Starting<'a>) -> BoxFuture<'a, Preparation> {
        let _ = start;
        Box::pin(async { Preparation::default() })
    }

    /// Called after each tool call ran (device or platform tool), in order, before its `step`
    /// event is emitted; not for calls that never ran (an unknown tool, bad arguments, a denied
    /// approval, the call a tool-call limit refused). Must not block.
    fn called(&self, call: &CallRecord<'_>) {
        let _ = call;
    }

    /// The run ended with `status` and `answer`: the draft (or why there is none) that `done`
    /// carries; `None` when the extension has no draft (the first extension that answers one
    /// decides).
    fn finish(&self, status: DoneStatus, answer: &str) -> Option<DraftOutcome> {
        let _ = (status, answer);
        None
    }
}
