//! The Command and Result envelopes, and ToolInfo (docs/design.md "One step, end to end").

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::lenient::null_default;

/// Which half of a Computer's registry a tool lives in.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ToolType {
    /// Observation tools: they read the device and change nothing.
    DataCollection,
    /// Tools that act on the device.
    Action,
}

impl ToolType {
    /// Both types, in the order an untyped command resolves them.
    pub const ALL: [ToolType; 2] = [ToolType::DataCollection, ToolType::Action];

    /// The wire string: `data_collection` or `action`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolType::DataCollection => "data_collection",
            ToolType::Action => "action",
        }
    }
}

impl std::fmt::Display for ToolType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ToolType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "data_collection" => Ok(ToolType::DataCollection),
            "action" => Ok(ToolType::Action),
            other => Err(format!(
                "unknown tool_type '{other}': expected 'data_collection' or 'action'"
            )),
        }
    }
}

/// `tool_type` on input: a type, or `null`/`""`/absent meaning "resolve data_collection first, then action".
fn tool_type_lenient<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ToolType>, D::Error> {
    match Option::<String>::deserialize(d)?.as_deref() {
        None | Some("") => Ok(None),
        Some(s) => s.parse().map(Some).map_err(serde::de::Error::custom),
    }
}

/// One tool call, as it travels from the agent through dispatchers and routers to a tool server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Command {
    /// Correlates the Result with this Command. Kept when given; dispatchers fill an empty one.
    #[serde(default, deserialize_with = "null_default")]
    pub call_id: String,
    /// The tool to run. Empty means "no action" and succeeds with "No action taken.".
    #[serde(default, deserialize_with = "null_default")]
    pub tool_name: String,
    /// The tool's arguments.
    #[serde(default, deserialize_with = "null_default")]
    pub parameters: Map<String, Value>,
    /// Which registry half to look in; `None` tries data_collection, then action.
    #[serde(default, deserialize_with = "tool_type_lenient")]
    pub tool_type: Option<ToolType>,
}

impl Command {
    /// A command for `tool_name` with `parameters` (must be a JSON object; anything else is dropped).
    pub fn new(
        tool_name: impl Into<String>,
        tool_type: Option<ToolType>,
        parameters: Value,
    ) -> Self {
        let parameters = match parameters {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Command {
            call_id: String::new(),
            tool_name: tool_name.into(),
            parameters,
            tool_type,
        }
    }

    /// The same command with `call_id` set.
    pub fn with_call_id(mut self, call_id: impl Into<String>) -> Self {
        self.call_id = call_id.into();
        self
    }
}

impl std::fmt::Display for Command {
    /// `tool_name(parameters)`, the way error texts name a command.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}({})",
            self.tool_name,
            Value::Object(self.parameters.clone())
        )
    }
}

/// The outcome of one Command.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultStatus {
    /// The tool ran and reported success.
    Success,
    /// The tool could not run, or ran and reported an error.
    Failure,
    /// The command was not run (an earlier one failed with early exit on).
    Skipped,
}

impl<'de> Deserialize<'de> for ResultStatus {
    /// Accepts `success`, `failure`, `skipped`, and UFO's `none` (read as `skipped`: nothing ran).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        match s.as_str() {
            "success" => Ok(ResultStatus::Success),
            "failure" => Ok(ResultStatus::Failure),
            "skipped" | "none" => Ok(ResultStatus::Skipped),
            other => Err(serde::de::Error::custom(format!(
                "unknown result status '{other}': expected success, failure or skipped"
            ))),
        }
    }
}

/// The Result envelope: what came of one Command.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CommandResult {
    /// Echoes the Command's `call_id`.
    #[serde(default, deserialize_with = "null_default")]
    pub call_id: String,
    /// success, failure or skipped.
    pub status: ResultStatus,
    /// The tool's structured content (or its text) on success; `null` otherwise.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub result: Value,
    /// What went wrong, written for the model.
    #[serde(default)]
    pub error: Option<String>,
    /// The namespace of the tool server that answered.
    #[serde(default)]
    pub namespace: Option<String>,
    /// Images the tool returned, as `data:<mime>;base64,…` URIs.
    #[serde(default, deserialize_with = "null_default")]
    pub images: Vec<String>,
}

impl CommandResult {
    /// A success carrying `result`.
    pub fn success(call_id: &str, result: Value, namespace: Option<&str>) -> Self {
        CommandResult {
            call_id: call_id.to_owned(),
            status: ResultStatus::Success,
            result,
            error: None,
            namespace: namespace.map(str::to_owned),
            images: Vec::new(),
        }
    }

    /// A failure with a model-readable `error`.
    pub fn failure(call_id: &str, error: impl Into<String>, namespace: Option<&str>) -> Self {
        CommandResult {
            call_id: call_id.to_owned(),
            status: ResultStatus::Failure,
            result: Value::Null,
            error: Some(error.into()),
            namespace: namespace.map(str::to_owned),
            images: Vec::new(),
        }
    }

    /// A command that did not run, with the reason.
    pub fn skipped(call_id: &str, reason: impl Into<String>) -> Self {
        CommandResult {
            call_id: call_id.to_owned(),
            status: ResultStatus::Skipped,
            result: Value::Null,
            error: Some(reason.into()),
            namespace: None,
            images: Vec::new(),
        }
    }

    /// True for `success`.
    pub fn is_success(&self) -> bool {
        self.status == ResultStatus::Success
    }
}

/// What `list_tools` reports about one registered tool (UFO's `MCPToolInfo`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInfo {
    /// `<tool_type>::<tool_name>`.
    pub tool_key: String,
    /// The name the model calls.
    pub tool_name: String,
    /// A human title, when the server gives one.
    #[serde(default)]
    pub title: Option<String>,
    /// The namespace of the server that offers it.
    #[serde(default, deserialize_with = "null_default")]
    pub namespace: String,
    /// data_collection or action.
    pub tool_type: ToolType,
    /// What the tool does, written for the model.
    #[serde(default)]
    pub description: Option<String>,
    /// JSON Schema of the arguments.
    #[serde(default)]
    pub input_schema: Option<Value>,
    /// JSON Schema of the structured result, when declared.
    #[serde(default)]
    pub output_schema: Option<Value>,
    /// The server's `_meta` for the tool.
    #[serde(default)]
    pub meta: Option<Value>,
    /// MCP tool annotations (read-only hint, destructive hint, …).
    #[serde(default)]
    pub annotations: Option<Value>,
}

/// Key in a tool's MCP `_meta` where a server declares the tool's own time limit in seconds
/// (`run_shell`: 120, `wait`: 300). The tool layer allows that limit plus a grace period; a
/// routing-table `timeouts:` entry overrides the declared value.
pub const TIMEOUT_META_KEY: &str = "deft/timeout_secs";

/// A tool's MCP `_meta` object declaring its own time limit of `secs` under
/// [`TIMEOUT_META_KEY`] (wrap it in the MCP SDK's meta type).
pub fn timeout_meta(secs: u64) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(TIMEOUT_META_KEY.to_owned(), secs.into());
    meta
}

/// Splits a `data:<mime>;base64,<data>` URI (a Result's `images`) into mime and bytes; `None`
/// when it is not one.
pub fn decode_data_uri(uri: &str) -> Option<(String, Vec<u8>)> {
    use base64::Engine as _;
    let rest = uri.strip_prefix("data:")?;
    let (meta, data) = rest.split_once(',')?;
    let mime = meta.strip_suffix(";base64")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .ok()?;
    Some((mime.to_owned(), bytes))
}
