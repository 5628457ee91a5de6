//! deft's agent: turns a goal into tool calls on one device and streams what happens.
//!
//! - [`llm`]: the OpenAI-compatible streaming client (any server: OpenAI, DeepSeek, Qwen, vLLM,
//!   llama.cpp, Ollama) with retries, error texts people can act on, per-call options (the
//!   output cap, reasoning off) and a fallback for each field a gateway may reject.
//! - [`answer`]: JSON read tolerantly out of a model's answer (fences, chatter, trailing commas,
//!   a cut-off answer's complete objects) — the one reader of every part that asks for JSON.
//! - [`Agent::run`]: the tool-calling loop (seed 001 §3.1): system prompt + extra context +
//!   history (12 rounds) + goal; up to `max_steps` model calls; tool calls become Commands sent
//!   through the device's [`deft_tools::Dispatcher`]; results go back as contiguous tool messages,
//!   images as one user message after them (only the newest two kept as images); host → app
//!   hand-off after `select_application_window`; approvals for sensitive actions; stop, step limit
//!   and run timeout.
//! - [`RunProfile`]: what differs between a chat and designer mode (prompt, output cap, tool-call
//!   limit, history, the [`RunExtension`]s that take part); the loop is the same for every
//!   profile.
//! - [`extension`]: the one way a run takes from outside — prompt sections, first events,
//!   [`PlatformTool`]s, the record of each call, what `done` carries. Designer mode's
//!   `submit_task` and deft-memory's recall and `run_action` plug in here.
//! - Events ([`deft_protocol::AgentEvent`]) go to an [`EventSink`]; image bytes go to an
//!   [`ImageSink`] and events carry only their ids.
//!
//! ```no_run
//! # async fn demo(device: deft_tools::Device, devices: std::sync::Arc<dyn deft_tools::Devices>) {
//! use std::sync::Arc;
//! use deft_agent::{Agent, AgentConfig, RunIo, RunRequest, llm::{LlmClient, LlmConfig}};
//! let llm = LlmClient::new(LlmConfig::new("http://127.0.0.1:8000/v1", "qwen3", None)).unwrap();
//! let agent = Agent::new(Arc::new(llm), AgentConfig::default(), devices);
//! let outcome = agent
//!     .run(&device, RunRequest::new("what kernel is this?"), RunIo::discard(), Default::default())
//!     .await;
//! println!("{:?}: {}", outcome.status, outcome.answer);
//! # }
//! ```
//!
//! The agent neither renders nor stores: the CLI, the console and `deft-trace` consume its events.

#![forbid(unsafe_code)]

pub mod answer;
mod config;
mod context;
pub mod extension;
mod images;
pub mod llm;
pub mod output;
pub mod platform;
pub mod profile;
mod prompt;
mod run;
mod sinks;
pub mod texts;
mod toolset;

pub use config::{AgentConfig, ConfirmPolicy};
pub use deft_protocol::{EventSink, ImageSink, NullImages};
pub use extension::{CallRecord, Preparation, RunExtension, Starting};
pub use images::{ModelImage, decode_data_uri, downscale_for_model, downscale_to_jpeg};
pub use output::{OutputSchema, SchemaError};
pub use platform::{PlatformAnswer, PlatformCall, PlatformTool};
pub use profile::{PromptTemplate, RunProfile};
pub use run::{Agent, HistoryMessage, RunOutcome, RunRequest, RunTimings};
pub use sinks::{Approver, ChannelSink, FixedApproval, RunIo};
