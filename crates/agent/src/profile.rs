//! A run's profile: what differs between a chat and designer mode (and whatever mode comes
//! next) — the system prompt, the output cap per model call, the limits on model and tool
//! calls, whether the conversation's history is sent, the extra platform tools, and the hooks
//! that watch the run's steps and say what its `done` carries. The loop itself is the same for
//! every profile; a new mode is a new profile, not a branch in the loop.

use std::borrow::Cow;
use std::sync::Arc;

use deft_protocol::{DoneStatus, DraftOutcome, RunMode, ToolStep};
use serde_json::{Map, Value};

use crate::platform::PlatformTool;

/// The chat system prompt.
const CHAT_PROMPT: &str = include_str!("../prompts/system.j2");

/// A system prompt: a minijinja template (strict: a missing variable is an error) rendered with
/// `device`, `profile`, `tools` (the names the model can call) and `vars`.
#[derive(Debug, Clone)]
pub struct PromptTemplate {
    /// Its name, for errors.
    pub name: &'static str,
    /// The template text.
    pub source: Cow<'static, str>,
    /// More variables.
    pub vars: Map<String, Value>,
}

impl PromptTemplate {
    /// The chat prompt, `prompts/system.j2`.
    pub fn chat() -> Self {
        PromptTemplate {
            name: "system",
            source: Cow::Borrowed(CHAT_PROMPT),
            vars: Map::new(),
        }
    }
}

/// Watches a run and says what its `done` carries beyond the answer.
pub trait RunHooks: Send + Sync {
    /// A tool call finished (device or platform tool), as its `step` event says; in order.
    fn step(&self, _step: &ToolStep) {}

    /// The run ended with `status` and `answer`: the draft (or why there is none) that `done`
    /// carries; `None` when the mode has no draft.
    fn finish(&self, status: DoneStatus, answer: &str) -> Option<DraftOutcome>;
}

/// What kind of run, and everything that differs with it.
#[derive(Clone)]
pub struct RunProfile {
    /// The mode `done` names.
    pub mode: RunMode,
    /// The system prompt.
    pub prompt: PromptTemplate,
    /// The most tokens the model may write per call; `None`: the endpoint's default.
    pub max_output_tokens: Option<u32>,
    /// The most tool calls in the run: the next one is refused and the run ends (`max_steps`).
    pub max_tool_calls: Option<u32>,
    /// The most model calls, replacing the agent's `max_steps`.
    pub max_model_calls: Option<u32>,
    /// Whether the conversation's earlier messages are sent.
    pub history: bool,
    /// Whether reaching the model-call limit asks the model for a summary (a chat's answer).
    pub summary_at_limit: bool,
    /// Platform tools beside `list_devices`.
    pub tools: Vec<Arc<dyn PlatformTool>>,
    /// Watches the steps and shapes `done`.
    pub hooks: Option<Arc<dyn RunHooks>>,
}

impl RunProfile {
    /// A chat: the chat prompt, history, no caps beyond the agent's settings.
    pub fn chat() -> Self {
        RunProfile {
            mode: RunMode::Chat,
            prompt: PromptTemplate::chat(),
            max_output_tokens: None,
            max_tool_calls: None,
            max_model_calls: None,
            history: true,
            summary_at_limit: true,
            tools: Vec::new(),
            hooks: None,
        }
    }
}

impl Default for RunProfile {
    fn default() -> Self {
        RunProfile::chat()
    }
}

impl std::fmt::Debug for RunProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunProfile")
            .field("mode", &self.mode)
            .field("prompt", &self.prompt.name)
            .field("max_output_tokens", &self.max_output_tokens)
            .field("max_tool_calls", &self.max_tool_calls)
            .field("max_model_calls", &self.max_model_calls)
            .field("history", &self.history)
            .field(
                "tools",
                &self.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}
