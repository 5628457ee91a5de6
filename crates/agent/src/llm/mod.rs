//! The OpenAI-compatible streaming chat client: `POST {base}/chat/completions` with
//! `stream: true`, deltas accumulated into a [`Completion`]; [`ask`], one question without tools
//! (the answer cap, a time limit, the usage) for the parts that ask rather than loop.

mod accumulate;
mod ask;
mod client;
mod endpoint;
mod schema;

pub use accumulate::{Accumulator, Completion, ToolCall};
pub use ask::{AskError, AskOptions, Asked, ask};
pub use client::{CallOptions, CapParam, LlmClient, LlmConfig, LlmError};
pub use schema::{function_schema, sanitize_tool_name};

/// Token usage of one model call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallUsage {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Both.
    pub total_tokens: u64,
}

/// A piece of streamed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delta {
    /// Answer text.
    Content(String),
    /// Reasoning text.
    Reasoning(String),
}
