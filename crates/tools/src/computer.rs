//! A Computer: the tool registry of one `agent::process::root`, keyed `tool_type::tool_name`,
//! each tool bound to the server instance that offers it, plus the `list_tools` meta tool.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use deft_protocol::{Command, CommandResult, TIMEOUT_META_KEY, ToolInfo, ToolType};
use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::{Value, json};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::pool::ServerPool;
use crate::server::{CallError, ServerHandle};
use crate::table::{RootEntry, Timeouts};
use crate::texts;

/// The meta tool every Computer offers under both tool types.
pub const LIST_TOOLS: &str = "list_tools";

/// The namespace reported for meta tools.
pub const META_NAMESPACE: &str = "computer";

/// A tool as registered in a Computer.
#[derive(Clone)]
pub struct RegisteredTool {
    /// What `list_tools` reports.
    pub info: ToolInfo,
    /// How long a call may run.
    pub limit: Duration,
    server: Option<Arc<ServerHandle>>,
}

/// Where a Computer sits in the routing table, for messages.
#[derive(Debug, Clone)]
pub struct Placement {
    /// The routing table's source.
    pub file: String,
    /// Dotted key of the root entry, e.g. `profiles.shell.HostAgent.default`.
    pub key: String,
}

/// A Computer could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "routing table {file}: at {key}: expected each tool name once per computer, but '{tool}' is offered by both '{first}' and '{second}' (use 'tools: [...]' to split a server's tools)"
)]
pub struct DuplicateTool {
    /// The routing table's source.
    pub file: String,
    /// The server entry that offered it second.
    pub key: String,
    /// The tool.
    pub tool: String,
    /// Namespace that offered it first.
    pub first: String,
    /// Namespace that offered it again.
    pub second: String,
}

/// The tool registry of one `agent::process::root`.
pub struct Computer {
    name: String,
    /// By tool type (`slot`), then tool name.
    tools: [HashMap<String, RegisteredTool>; 2],
    warnings: Vec<String>,
}

impl Computer {
    /// Builds the registry for `entry` (the Computer of `process` under `root`): starts (or
    /// reuses) each server from `pool`, lists their tools concurrently and registers them. A server that cannot start leaves its tools out with
    /// a warning; a tool name offered twice is an error.
    pub async fn build(
        name: String,
        (process, root): (&str, &str),
        entry: &RootEntry,
        pool: &ServerPool,
        timeouts: &Timeouts,
        at: &Placement,
    ) -> Result<Self, DuplicateTool> {
        let mut slots = Vec::new();
        for tool_type in ToolType::ALL {
            for (i, spec) in entry.servers(tool_type).iter().enumerate() {
                slots.push((tool_type, i, spec, pool.get(spec, process, root)));
            }
        }
        let listed =
            futures::future::join_all(slots.iter().map(|(_, _, _, server)| server.tools())).await;

        let mut tools: [HashMap<String, RegisteredTool>; 2] = Default::default();
        let mut owner: BTreeMap<String, String> = BTreeMap::new();
        let mut warnings = Vec::new();
        for ((tool_type, i, spec, server), listing) in slots.iter().zip(listed) {
            let offered = match listing {
                Ok(t) => t,
                Err(reason) => {
                    let w = format!("{reason}; its {tool_type} tools are left out of {name}");
                    tracing::warn!("{w}");
                    warnings.push(w);
                    continue;
                }
            };
            for wanted in spec.tools.iter().flatten() {
                if !offered.iter().any(|t| t.name == *wanted) {
                    let w = format!(
                        "tool server '{}' does not offer '{wanted}' (listed in {}.{tool_type}[{i}].tools)",
                        spec.namespace, at.key
                    );
                    tracing::warn!("{w}");
                    warnings.push(w);
                }
            }
            for tool in offered.iter().filter(|t| spec.offers(&t.name)) {
                let tool_name = tool.name.to_string();
                if let Some(first) = owner.insert(tool_name.clone(), spec.namespace.clone()) {
                    return Err(DuplicateTool {
                        file: at.file.clone(),
                        key: format!("{}.{tool_type}[{i}]", at.key),
                        tool: tool_name,
                        first,
                        second: spec.namespace.clone(),
                    });
                }
                let limit =
                    timeouts.for_tool(spec.timeouts.get(&tool_name).copied(), declared_limit(tool));
                let info = tool_info(tool, *tool_type, &spec.namespace);
                tools[slot(*tool_type)].insert(
                    info.tool_name.clone(),
                    RegisteredTool {
                        info,
                        limit,
                        server: Some(server.clone()),
                    },
                );
            }
        }
        for tool_type in ToolType::ALL {
            let info = list_tools_info(tool_type);
            tools[slot(tool_type)].insert(
                info.tool_name.clone(),
                RegisteredTool {
                    info,
                    limit: timeouts.for_tool(None, None),
                    server: None,
                },
            );
        }
        Ok(Computer {
            name,
            tools,
            warnings,
        })
    }

    /// `agent::process::root`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Servers that could not start or tools that were missing, as logged when it was built.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Registered tools (meta tools excluded), filtered by type and namespace, sorted by key.
    pub fn tool_infos(
        &self,
        tool_type: Option<ToolType>,
        namespace: Option<&str>,
    ) -> Vec<ToolInfo> {
        let mut out: Vec<ToolInfo> = self
            .tools
            .iter()
            .flat_map(HashMap::values)
            .filter(|t| t.server.is_some())
            .filter(|t| tool_type.is_none_or(|ty| t.info.tool_type == ty))
            .filter(|t| namespace.is_none_or(|ns| t.info.namespace == ns))
            .map(|t| t.info.clone())
            .collect();
        out.sort_by(|a, b| a.tool_key.cmp(&b.tool_key));
        out
    }

    /// The tool a command names: its type when given, else data_collection first, then action.
    pub fn resolve(&self, command: &Command) -> Result<&RegisteredTool, String> {
        let types: &[ToolType] = match &command.tool_type {
            Some(t) => std::slice::from_ref(t),
            None => &ToolType::ALL,
        };
        types
            .iter()
            .find_map(|t| self.tools[slot(*t)].get(command.tool_name.as_str()))
            .ok_or_else(|| {
                let key = match command.tool_type {
                    Some(t) => format!("{t}::{}", command.tool_name),
                    None => command.tool_name.clone(),
                };
                texts::unknown_tool(&key, &self.name, &self.closest(&command.tool_name))
            })
    }

    /// Up to three registered tool names that look like `name`.
    fn closest(&self, name: &str) -> Vec<String> {
        let wanted = name.to_lowercase();
        let mut scored: Vec<(f64, &str)> = self
            .tools
            .iter()
            .flat_map(HashMap::values)
            .map(|t| t.info.tool_name.as_str())
            .map(|n| {
                let lower = n.to_lowercase();
                let mut score = strsim::jaro_winkler(&wanted, &lower);
                if !wanted.is_empty() && (lower.contains(&wanted) || wanted.contains(&lower)) {
                    score = score.max(0.9);
                }
                (score, n)
            })
            .filter(|(s, _)| *s >= 0.75)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        scored.dedup_by(|a, b| a.1 == b.1);
        scored
            .into_iter()
            .take(3)
            .map(|(_, n)| n.to_owned())
            .collect()
    }

    /// Runs one command to a Result (never fails to answer). `deadline` is the batch deadline
    /// and its length; the call is bounded by the earlier of it and the tool's limit.
    pub async fn run(
        &self,
        command: &Command,
        deadline: Option<(Instant, Duration)>,
        cancel: &CancellationToken,
    ) -> CommandResult {
        let id = command.call_id.as_str();
        let tool = match self.resolve(command) {
            Ok(t) => t,
            Err(text) => return CommandResult::failure(id, text, None),
        };
        let ns = tool.info.namespace.as_str();
        let Some(server) = &tool.server else {
            return self.list_tools(command);
        };
        let now = Instant::now();
        let (limit, deadline_bounds) = match deadline {
            Some((at, _)) if at.saturating_duration_since(now) < tool.limit => {
                (at.saturating_duration_since(now), true)
            }
            _ => (tool.limit, false),
        };
        let name = tool.info.tool_name.as_str();
        match server
            .call(name, command.parameters.clone(), limit, cancel)
            .await
        {
            Ok(result) => to_command_result(id, ns, result),
            Err(CallError::Timeout(_)) if deadline_bounds => {
                let batch = deadline.map(|(_, d)| d).unwrap_or_default();
                CommandResult::failure(id, texts::deadline_while_running(batch), Some(ns))
            }
            Err(CallError::Timeout(d)) => {
                CommandResult::failure(id, texts::tool_timeout(name, d), Some(ns))
            }
            Err(CallError::Cancelled) => CommandResult::failure(id, texts::STOPPED, Some(ns)),
            Err(CallError::Closed(server_ns)) => {
                CommandResult::failure(id, texts::server_died(name, &server_ns), Some(ns))
            }
            Err(CallError::Start(reason)) => {
                CommandResult::failure(id, texts::server_unavailable(name, &reason), Some(ns))
            }
            Err(CallError::Protocol(message)) => {
                CommandResult::failure(id, texts::protocol_error(name, &message), Some(ns))
            }
        }
    }

    /// The `list_tools` meta tool: `{tool_type?, namespace?}` → ToolInfo list.
    fn list_tools(&self, command: &Command) -> CommandResult {
        let id = command.call_id.as_str();
        let tool_type = match command.parameters.get("tool_type") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::String(s)) => match s.parse::<ToolType>() {
                Ok(t) => Some(t),
                Err(e) => {
                    return CommandResult::failure(
                        id,
                        texts::bad_list_filter(&e),
                        Some(META_NAMESPACE),
                    );
                }
            },
            Some(other) => {
                return CommandResult::failure(
                    id,
                    texts::bad_list_filter(&format!("tool_type must be a string, got {other}")),
                    Some(META_NAMESPACE),
                );
            }
        };
        let namespace = command.parameters.get("namespace").and_then(Value::as_str);
        let infos = self.tool_infos(tool_type, namespace);
        CommandResult::success(
            id,
            serde_json::to_value(infos).unwrap_or(Value::Null),
            Some(META_NAMESPACE),
        )
    }
}

/// The registry half of a tool type.
fn slot(tool_type: ToolType) -> usize {
    match tool_type {
        ToolType::DataCollection => 0,
        ToolType::Action => 1,
    }
}

/// The limit a server declares in the tool's `_meta`.
fn declared_limit(tool: &Tool) -> Option<f64> {
    tool.meta
        .as_ref()
        .and_then(|m| m.get(TIMEOUT_META_KEY))
        .and_then(Value::as_f64)
        .filter(|s| s.is_finite() && *s >= 0.0)
}

fn tool_info(tool: &Tool, tool_type: ToolType, namespace: &str) -> ToolInfo {
    ToolInfo {
        tool_key: format!("{tool_type}::{}", tool.name),
        tool_name: tool.name.to_string(),
        title: tool.title.clone(),
        namespace: namespace.to_owned(),
        tool_type,
        description: tool.description.as_ref().map(|d| d.to_string()),
        input_schema: Some(Value::Object((*tool.input_schema).clone())),
        output_schema: tool
            .output_schema
            .as_ref()
            .map(|s| Value::Object((**s).clone())),
        meta: tool
            .meta
            .as_ref()
            .and_then(|m| serde_json::to_value(m).ok()),
        annotations: tool
            .annotations
            .as_ref()
            .and_then(|a| serde_json::to_value(a).ok()),
    }
}

fn list_tools_info(tool_type: ToolType) -> ToolInfo {
    ToolInfo {
        tool_key: format!("{tool_type}::{LIST_TOOLS}"),
        tool_name: LIST_TOOLS.to_owned(),
        title: None,
        namespace: META_NAMESPACE.to_owned(),
        tool_type,
        description: Some("List the tools this computer offers, optionally filtered by tool_type (data_collection or action) and namespace.".to_owned()),
        input_schema: Some(json!({
            "type": "object",
            "properties": {
                "tool_type": {"type": "string", "enum": ["data_collection", "action"]},
                "namespace": {"type": "string"}
            }
        })),
        output_schema: None,
        meta: None,
        annotations: None,
    }
}

/// Maps an MCP tool result to the Result envelope: an error → `failure` with the first text;
/// otherwise structured content (or the text) as `result`; images as data URIs either way.
pub fn to_command_result(call_id: &str, namespace: &str, result: CallToolResult) -> CommandResult {
    let mut texts_out = Vec::new();
    let mut images = Vec::new();
    for content in &result.content {
        match content {
            ContentBlock::Text(t) => texts_out.push(t.text.clone()),
            ContentBlock::Image(img) => images.push(data_uri(&img.mime_type, &img.data)),
            _ => {}
        }
    }
    let mut out = if result.is_error == Some(true) {
        let text = texts_out
            .into_iter()
            .next()
            .unwrap_or_else(|| texts::TOOL_ERROR_WITHOUT_TEXT.to_owned());
        CommandResult::failure(call_id, text, Some(namespace))
    } else {
        let value = match result.structured_content {
            Some(v) => v,
            None if texts_out.is_empty() => Value::Null,
            None => Value::String(texts_out.join("\n")),
        };
        CommandResult::success(call_id, value, Some(namespace))
    };
    out.images = images;
    out
}

/// `data:<mime>;base64,<data>` (MCP image content is already base64).
fn data_uri(mime: &str, data: &str) -> String {
    format!("data:{mime};base64,{data}")
}
