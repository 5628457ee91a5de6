//! A run's profile: what differs between a chat and designer mode (and whatever mode comes
//! next) — the system prompt, the output cap per model call, the limits on model and tool
//! calls, whether the conversation's history is sent, and the [`RunExtension`]s that take part
//! (their prompt sections, platform tools, the calls they hear of, what `done` carries). The
//! loop itself is the same for every profile; a new mode is a new profile, not a branch in the
//! loop, and a new feature is an extension.

use std::borrow::Cow;
use std::sync::Arc;

use deft_protocol::RunMode;
use serde_json::{Map, Value};

use crate::extension::RunExtension;

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
    /// What takes part in the run, in order: their prompt sections, events and platform tools
    /// come in this order, and the first to have a draft gives `done` its draft.
    pub extensions: Vec<Arc<dyn RunExtension>>,
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
            extensions: Vec::new(),
        }
    }

    /// Builder: `extension` takes part in the run, after those already listed.
    pub fn with_extension(mut self, extension: Arc<dyn RunExtension>) -> Self {
        self.extensions.push(extension);
        self
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
            .field("summary_at_limit", &self.summary_at_limit)
            .field("extensions", &self.extensions.len())
            .finish_non_exhaustive()
    }
}
