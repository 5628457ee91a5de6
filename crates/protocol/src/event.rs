//! The agent's event stream (DESIGN.md "Events"): what the CLI, the console and traces consume.
//! Events never carry image bytes, only image ids.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One event of a run, numbered by `seq` (the SSE id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentEvent {
    /// Per-run sequence number, starting at 1.
    pub seq: u64,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// Whether streamed text is the answer or the model's reasoning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeltaKind {
    /// Answer text.
    Content,
    /// Reasoning text (DeepSeek/Qwen `reasoning_content`).
    Reasoning,
}

/// Token usage, summed over the model calls of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Both.
    pub total_tokens: u64,
    /// Number of model calls.
    pub calls: u64,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DoneStatus {
    /// The model gave a final answer.
    Completed,
    /// An error ended the run.
    Failed,
    /// A person stopped it.
    Stopped,
    /// The run timeout passed.
    Timeout,
    /// The step limit was reached.
    MaxSteps,
}

/// The event types of DESIGN.md, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// Streamed model text.
    Delta {
        /// The new text.
        text: String,
        /// content or reasoning.
        kind: DeltaKind,
    },
    /// A tool call is about to run.
    StepStart {
        /// The call's id.
        call_id: String,
        /// Tool name.
        tool: String,
        /// Its arguments.
        args: Value,
    },
    /// A tool call finished.
    Step {
        /// The call's id.
        call_id: String,
        /// Tool name.
        tool: String,
        /// Its arguments.
        args: Value,
        /// The Result envelope, images replaced by ids.
        result: Value,
        /// Ids of the images the call returned.
        #[serde(default)]
        image_ids: Vec<String>,
        /// Wall time of the call.
        duration_ms: u64,
        /// `changed` / `no_change` where the backend can tell.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        effect: Option<String>,
    },
    /// Usage so far.
    Usage(Usage),
    /// A call waits for a person's approval.
    Confirm {
        /// The call's id.
        call_id: String,
        /// Tool name.
        tool: String,
        /// Its arguments.
        args: Value,
        /// Why it needs approval.
        reason: String,
    },
    /// A person answered a `confirm`.
    Confirmed {
        /// The call's id.
        call_id: String,
        /// Whether it was approved.
        approve: bool,
    },
    /// Something went wrong; the run may go on.
    Error {
        /// What happened.
        message: String,
    },
    /// The run ended. Exactly one per run, always last.
    Done {
        /// The final answer (may be empty).
        answer: String,
        /// Total usage.
        usage: Usage,
        /// How it ended.
        status: DoneStatus,
    },
}
