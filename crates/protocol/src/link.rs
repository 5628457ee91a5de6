//! Device-link messages, field-compatible with UFO's AIP (docs/design.md "Device link"): one JSON object per
//! WebSocket text frame, snake_case keys, lowercase enum strings. Unset optional fields serialize as
//! `null` (as UFO's pydantic models do); on input unknown fields are ignored and `null` is accepted
//! for every optional field.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::envelope::{Command, CommandResult};

/// The `status` every message carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Work goes on (TASK, COMMAND).
    Continue,
    /// A task finished well.
    Completed,
    /// A task failed.
    Failed,
    /// Acks and heartbeats.
    Ok,
    /// ERROR messages.
    Error,
}

/// Message types a device (client) sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientMessageType {
    /// A device-initiated task.
    Task,
    /// Keep-alive.
    Heartbeat,
    /// Results of a COMMAND batch.
    CommandResults,
    /// One command's Result as soon as it finished (deft's addition; `command_results` still
    /// answers the whole batch, for peers that expect only it).
    CommandResult,
    /// An error report.
    Error,
    /// The first frame: who this device is.
    Register,
    /// A task ended.
    TaskEnd,
    /// Asks for device info.
    DeviceInfoRequest,
    /// Answers a device-info request.
    DeviceInfoResponse,
}

/// Message types the server sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerMessageType {
    /// A task assignment.
    Task,
    /// Keep-alive, and the registration ack (status `ok`).
    Heartbeat,
    /// A task ended.
    TaskEnd,
    /// A batch of commands to execute.
    Command,
    /// Cancel the batch named by `response_id` (deft's addition: stop within 2 s).
    Cancel,
    /// An error report.
    Error,
    /// Asks the device for its info.
    DeviceInfoRequest,
    /// Answers a device-info request.
    DeviceInfoResponse,
}

/// Who is on the other end of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientType {
    /// A device that executes commands.
    #[default]
    Device,
    /// An orchestrator (UFO's Galaxy).
    Constellation,
}

/// Server → client (UFO's `ServerMessage`), plus `early_exit` and `deadline_ms` on COMMAND.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerMessage {
    /// Message type.
    #[serde(rename = "type")]
    pub kind: ServerMessageType,
    /// Status.
    pub status: TaskStatus,
    /// TASK: the request text.
    #[serde(default)]
    pub user_request: Option<String>,
    /// COMMAND: agent section of the routing table.
    #[serde(default)]
    pub agent_name: Option<String>,
    /// COMMAND: the selected window's title.
    #[serde(default)]
    pub process_name: Option<String>,
    /// COMMAND: the selected application's root.
    #[serde(default)]
    pub root_name: Option<String>,
    /// COMMAND: the batch.
    #[serde(default)]
    pub actions: Option<Vec<Command>>,
    /// Unused in practice; kept for compatibility.
    #[serde(default)]
    pub messages: Option<Vec<String>>,
    /// ERROR / TASK_END text.
    #[serde(default)]
    pub error: Option<String>,
    /// Session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Task name.
    #[serde(default)]
    pub task_name: Option<String>,
    /// ISO-8601 UTC.
    #[serde(default)]
    pub timestamp: Option<String>,
    /// Correlation id; COMMAND_RESULTS echo it as `prev_response_id`.
    #[serde(default)]
    pub response_id: Option<String>,
    /// TASK_END / DEVICE_INFO_RESPONSE payload.
    #[serde(default)]
    pub result: Option<Value>,
    /// COMMAND: skip the rest after the first failure (deft).
    #[serde(default)]
    pub early_exit: Option<bool>,
    /// COMMAND: the batch deadline in milliseconds from receipt (deft).
    #[serde(default)]
    pub deadline_ms: Option<u64>,
}

impl ServerMessage {
    /// A message of `kind` with `status` and every optional field unset.
    pub fn new(kind: ServerMessageType, status: TaskStatus) -> Self {
        ServerMessage {
            kind,
            status,
            user_request: None,
            agent_name: None,
            process_name: None,
            root_name: None,
            actions: None,
            messages: None,
            error: None,
            session_id: None,
            task_name: None,
            timestamp: None,
            response_id: None,
            result: None,
            early_exit: None,
            deadline_ms: None,
        }
    }
}

/// Client → server (UFO's `ClientMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientMessage {
    /// Message type.
    #[serde(rename = "type")]
    pub kind: ClientMessageType,
    /// Status.
    pub status: TaskStatus,
    /// device or constellation.
    #[serde(default, deserialize_with = "crate::lenient::null_default")]
    pub client_type: ClientType,
    /// Session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Task name.
    #[serde(default)]
    pub task_name: Option<String>,
    /// The device's id.
    #[serde(default)]
    pub client_id: Option<String>,
    /// Constellation → the device it targets.
    #[serde(default)]
    pub target_id: Option<String>,
    /// TASK text.
    #[serde(default)]
    pub request: Option<String>,
    /// COMMAND_RESULTS. Each entry is read on its own: one that is not a readable Result
    /// becomes a failure saying why ([`unreadable_result`]), so it never costs the others.
    #[serde(default, deserialize_with = "results_one_by_one")]
    pub action_results: Option<Vec<CommandResult>>,
    /// ISO-8601 UTC.
    #[serde(default)]
    pub timestamp: Option<String>,
    /// Request id.
    #[serde(default)]
    pub request_id: Option<String>,
    /// COMMAND_RESULTS → the COMMAND's `response_id`.
    #[serde(default)]
    pub prev_response_id: Option<String>,
    /// ERROR text.
    #[serde(default)]
    pub error: Option<String>,
    /// REGISTER system info, TASK `{platform}`, HEARTBEAT extras.
    #[serde(default)]
    pub metadata: Option<Value>,
}

impl ClientMessage {
    /// A message of `kind` with `status` and every optional field unset.
    pub fn new(kind: ClientMessageType, status: TaskStatus) -> Self {
        ClientMessage {
            kind,
            status,
            client_type: ClientType::Device,
            session_id: None,
            task_name: None,
            client_id: None,
            target_id: None,
            request: None,
            action_results: None,
            timestamp: None,
            request_id: None,
            prev_response_id: None,
            error: None,
            metadata: None,
        }
    }
}

/// The error of a result entry the receiver could not read: its outcome is unknown.
pub fn unreadable_result(detail: &str) -> String {
    format!(
        "The device's result for this command could not be read ({detail}); the command may have run — observe again before retrying."
    )
}

/// Reads `action_results` entry by entry (see [`ClientMessage::action_results`]); an unreadable
/// entry keeps its `call_id` when it has one, so it still lines up with its command.
fn results_one_by_one<'de, D>(d: D) -> Result<Option<Vec<CommandResult>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let Some(entries) = Option::<Vec<serde_json::Value>>::deserialize(d)? else {
        return Ok(None);
    };
    let results = entries
        .into_iter()
        .map(|entry| {
            CommandResult::deserialize(&entry).unwrap_or_else(|e| {
                let call_id = entry.get("call_id").and_then(|c| c.as_str()).unwrap_or("");
                CommandResult::failure(call_id, unreadable_result(&e.to_string()), None)
            })
        })
        .collect();
    Ok(Some(results))
}
