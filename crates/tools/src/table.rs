//! The routing table: profile → agent → application root → `{data_collection, action}` server lists.
//!
//! YAML, with a compiled-in default (`default_tools.yaml`) that `--tools-config` /
//! `DEFT_TOOLS_CONFIG` replace. Every error names the file, the key and what was expected.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use deft_protocol::ToolType;
use serde::Deserialize;
use serde_json::Value;

/// The compiled-in routing table.
pub const DEFAULT_TABLE: &str = include_str!("default_tools.yaml");

/// The name the compiled-in table goes by in error messages.
pub const DEFAULT_TABLE_NAME: &str = "<built-in routing table>";

/// The environment variable that names a routing-table file.
pub const TABLE_ENV: &str = "DEFT_TOOLS_CONFIG";

/// The root every agent section must have; unknown roots fall back to it.
pub const DEFAULT_ROOT: &str = "default";

/// A routing table could not be read, parsed or validated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// The file could not be read.
    #[error("cannot read routing table {file}: {reason}")]
    Read {
        /// The file.
        file: String,
        /// The OS error.
        reason: String,
    },
    /// The YAML is malformed or has the wrong shape.
    #[error("routing table {file}: {message}")]
    Parse {
        /// The file.
        file: String,
        /// What the parser said, with the key path and line.
        message: String,
    },
    /// A key holds something it must not.
    #[error("routing table {file}: at {key}: expected {expected}")]
    Invalid {
        /// The file.
        file: String,
        /// Dotted path of the offending key, e.g. `profiles.shell.HostAgent.default.action[0]`.
        key: String,
        /// What was expected there.
        expected: String,
    },
}

/// Time limits of the tool layer (docs/design.md "Timeouts").
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Timeouts {
    /// Call limit for a tool that declares no limit of its own.
    pub tool_default_secs: f64,
    /// Added to a tool's own (declared or configured) limit.
    pub grace_secs: f64,
    /// A whole batch.
    pub batch_secs: f64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            tool_default_secs: 120.0,
            grace_secs: 10.0,
            batch_secs: 600.0,
        }
    }
}

impl Timeouts {
    /// The call limit for a tool: its own limit (config first, then what the server declares)
    /// plus the grace, or the default when neither says.
    pub fn for_tool(&self, configured: Option<f64>, declared: Option<f64>) -> Duration {
        let secs = match configured.or(declared) {
            Some(own) => own + self.grace_secs,
            None => self.tool_default_secs,
        };
        Duration::from_secs_f64(secs.max(0.0))
    }

    /// The batch deadline.
    pub fn batch(&self) -> Duration {
        Duration::from_secs_f64(self.batch_secs.max(0.0))
    }
}

/// How to reach a tool server.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerKind {
    /// A server compiled into deft, run in-process.
    Builtin {
        /// Registry name (`shell`, …).
        name: String,
        /// Server-specific options (`options:` in YAML).
        options: Value,
    },
    /// A child process speaking MCP over stdio.
    Stdio {
        /// Program.
        command: String,
        /// Arguments.
        args: Vec<String>,
        /// Extra environment.
        env: BTreeMap<String, String>,
        /// Working directory.
        cwd: Option<String>,
    },
    /// A streamable-HTTP MCP server.
    Http {
        /// Endpoint URL.
        url: String,
        /// Extra request headers (e.g. `Authorization`).
        headers: BTreeMap<String, String>,
    },
}

/// One server entry of a root's `data_collection` or `action` list.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    /// Namespace reported in Results.
    pub namespace: String,
    /// How to reach it.
    pub kind: ServerKind,
    /// A fresh instance per `process` instead of one per device session.
    pub reset: bool,
    /// Only these tools of the server are registered (all when `None`).
    pub tools: Option<Vec<String>>,
    /// Per-tool limits in seconds, overriding what the server declares.
    pub timeouts: BTreeMap<String, f64>,
}

impl ServerSpec {
    /// The identity that decides which Computers share an instance (kind, name/command, args, …).
    pub fn instance_key(&self) -> String {
        match &self.kind {
            ServerKind::Builtin { name, options } => format!("builtin:{name}:{options}"),
            ServerKind::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                format!("stdio:{command}:{args:?}:{env:?}:{cwd:?}")
            }
            ServerKind::Http { url, headers } => format!("http:{url}:{headers:?}"),
        }
    }

    /// The spec of a `reset: true` instance bound to one window: a builtin finds
    /// `binding: {process, root}` in its options, a stdio server the environment variables
    /// `DEFT_PROCESS` and `DEFT_ROOT` (UFO's API servers are made for one `process_name` the
    /// same way). HTTP servers are reached as configured.
    pub fn bound_to(&self, process: &str, root: &str) -> ServerSpec {
        let mut spec = self.clone();
        match &mut spec.kind {
            ServerKind::Builtin { options, .. } => {
                if !options.is_object() {
                    *options = Value::Object(serde_json::Map::new());
                }
                if let Some(map) = options.as_object_mut() {
                    map.insert(
                        "binding".to_owned(),
                        serde_json::json!({ "process": process, "root": root }),
                    );
                }
            }
            ServerKind::Stdio { env, .. } => {
                env.insert("DEFT_PROCESS".to_owned(), process.to_owned());
                env.insert("DEFT_ROOT".to_owned(), root.to_owned());
            }
            ServerKind::Http { .. } => {}
        }
        spec
    }

    /// Whether the `tools:` filter lets `tool` through.
    pub fn offers(&self, tool: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|t| t.iter().any(|n| n == tool))
    }
}

/// The servers of one application root.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RootEntry {
    /// Observation servers.
    pub data_collection: Vec<ServerSpec>,
    /// Action servers.
    pub action: Vec<ServerSpec>,
}

impl RootEntry {
    /// The server list of one tool type.
    pub fn servers(&self, tool_type: ToolType) -> &[ServerSpec] {
        match tool_type {
            ToolType::DataCollection => &self.data_collection,
            ToolType::Action => &self.action,
        }
    }
}

/// A validated routing table.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutingTable {
    /// Where it came from (a path or [`DEFAULT_TABLE_NAME`]), for error messages.
    pub source: String,
    /// Time limits.
    pub timeouts: Timeouts,
    /// profile → agent → root → servers.
    pub profiles: BTreeMap<String, BTreeMap<String, BTreeMap<String, RootEntry>>>,
}

/// Where a lookup landed: the root key actually used and its entry.
#[derive(Debug, Clone, Copy)]
pub struct Route<'a> {
    /// The root key used (`default` when the asked-for root has no entry).
    pub root: &'a str,
    /// Its servers.
    pub entry: &'a RootEntry,
}

/// A profile or agent the table does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("routing table {file}: {what} '{name}' is not configured; expected one of: {known}")]
pub struct LookupError {
    /// The table's source.
    pub file: String,
    /// `profile` or `agent`.
    pub what: &'static str,
    /// The name asked for.
    pub name: String,
    /// What exists, comma-separated.
    pub known: String,
}

impl RoutingTable {
    /// The compiled-in table.
    pub fn builtin() -> Self {
        Self::parse(DEFAULT_TABLE, DEFAULT_TABLE_NAME)
            .unwrap_or_else(|e| panic!("the built-in routing table is invalid: {e}"))
    }

    /// Reads and validates a table file.
    pub fn load(path: &Path) -> Result<Self, TableError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| TableError::Read {
            file: file.clone(),
            reason: e.to_string(),
        })?;
        Self::parse(&text, &file)
    }

    /// The table named by `path`, else by `DEFT_TOOLS_CONFIG`, else the built-in one.
    pub fn from_path_or_env(path: Option<&Path>) -> Result<Self, TableError> {
        match path {
            Some(p) => Self::load(p),
            None => match std::env::var_os(TABLE_ENV) {
                Some(p) if !p.is_empty() => Self::load(Path::new(&p)),
                _ => Ok(Self::builtin()),
            },
        }
    }

    /// Parses and validates YAML text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Self, TableError> {
        let raw: RawTable = serde_yaml::from_str(text).map_err(|e| TableError::Parse {
            file: file.to_owned(),
            message: e.to_string(),
        })?;
        let invalid = |key: String, expected: &str| TableError::Invalid {
            file: file.to_owned(),
            key,
            expected: expected.to_owned(),
        };
        let t = raw.timeouts;
        for (k, v) in [
            ("tool_default_secs", t.tool_default_secs),
            ("grace_secs", t.grace_secs),
            ("batch_secs", t.batch_secs),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(invalid(format!("timeouts.{k}"), "a number of seconds ≥ 0"));
            }
        }
        if raw.profiles.is_empty() {
            return Err(invalid("profiles".into(), "at least one profile"));
        }
        let mut profiles = BTreeMap::new();
        for (pname, agents) in raw.profiles {
            if agents.is_empty() {
                return Err(invalid(
                    format!("profiles.{pname}"),
                    "at least one agent (e.g. HostAgent)",
                ));
            }
            let mut out_agents = BTreeMap::new();
            for (aname, roots) in agents {
                let at = format!("profiles.{pname}.{aname}");
                if !roots.contains_key(DEFAULT_ROOT) {
                    return Err(invalid(
                        at,
                        "a 'default' root (used for every root not listed)",
                    ));
                }
                let mut out_roots = BTreeMap::new();
                for (rname, entry) in roots {
                    let at = format!("profiles.{pname}.{aname}.{rname}");
                    let mut out = RootEntry::default();
                    for tool_type in ToolType::ALL {
                        let list = match tool_type {
                            ToolType::DataCollection => &entry.data_collection,
                            ToolType::Action => &entry.action,
                        };
                        for (i, server) in list.iter().enumerate() {
                            let key = format!("{at}.{tool_type}[{i}]");
                            let spec = server.validate().map_err(|exp| invalid(key, &exp))?;
                            match tool_type {
                                ToolType::DataCollection => out.data_collection.push(spec),
                                ToolType::Action => out.action.push(spec),
                            }
                        }
                    }
                    check_filters_unique(&out)
                        .map_err(|(key, exp)| invalid(format!("{at}.{key}"), &exp))?;
                    out_roots.insert(rname, out);
                }
                out_agents.insert(aname, out_roots);
            }
            profiles.insert(pname, out_agents);
        }
        Ok(RoutingTable {
            source: file.to_owned(),
            timeouts: raw.timeouts,
            profiles,
        })
    }

    /// The profile names.
    pub fn profile_names(&self) -> Vec<&str> {
        self.profiles.keys().map(String::as_str).collect()
    }

    /// The application roots of `profile` whose AppAgent servers name `tool` in their `tools:`
    /// list while the `default` root's do not, sorted: which applications' windows bring a tool
    /// that not every window has (a document's `insert_table` comes with `libreoffice-writer`;
    /// `click_input`, which every window has, comes with none in particular).
    pub fn app_roots_offering(&self, profile: &str, tool: &str) -> Vec<String> {
        let Some(roots) = self.profiles.get(profile).and_then(|a| a.get("AppAgent")) else {
            return Vec::new();
        };
        let names = |entry: &RootEntry| {
            [ToolType::DataCollection, ToolType::Action]
                .into_iter()
                .flat_map(|t| entry.servers(t))
                .any(|s| {
                    s.tools
                        .as_ref()
                        .is_some_and(|t| t.iter().any(|n| n == tool))
                })
        };
        if roots.get(DEFAULT_ROOT).is_some_and(names) {
            return Vec::new();
        }
        roots
            .iter()
            .filter(|(root, entry)| root.as_str() != DEFAULT_ROOT && names(entry))
            .map(|(root, _)| root.clone())
            .collect()
    }

    /// Resolves profile → agent → root (unknown root → `default`).
    pub fn route(&self, profile: &str, agent: &str, root: &str) -> Result<Route<'_>, LookupError> {
        let lookup_error = |what, name: &str, known: Vec<&String>| LookupError {
            file: self.source.clone(),
            what,
            name: name.to_owned(),
            known: known
                .into_iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", "),
        };
        let agents = self
            .profiles
            .get(profile)
            .ok_or_else(|| lookup_error("profile", profile, self.profiles.keys().collect()))?;
        let roots = agents
            .get(agent)
            .ok_or_else(|| lookup_error("agent", agent, agents.keys().collect()))?;
        let (root, entry) = match roots.get_key_value(root) {
            Some((k, e)) => (k.as_str(), e),
            None => roots
                .get_key_value(DEFAULT_ROOT)
                .map(|(k, e)| (k.as_str(), e))
                .ok_or_else(|| lookup_error("root", DEFAULT_ROOT, roots.keys().collect()))?,
        };
        Ok(Route { root, entry })
    }
}

/// A tool named in two `tools:` filters of one root is offered twice.
fn check_filters_unique(entry: &RootEntry) -> Result<(), (String, String)> {
    let mut seen: BTreeMap<&str, String> = BTreeMap::new();
    for tool_type in ToolType::ALL {
        for (i, spec) in entry.servers(tool_type).iter().enumerate() {
            for tool in spec.tools.iter().flatten() {
                let here = format!("{tool_type}[{i}].tools");
                if let Some(first) = seen.insert(tool, here.clone()) {
                    return Err((
                        here,
                        format!(
                            "each tool offered once per root, but '{tool}' is already offered at {first}"
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    #[serde(default)]
    timeouts: Timeouts,
    /// A place for YAML anchors; not read otherwise.
    #[serde(default)]
    #[allow(dead_code)]
    definitions: Option<serde_yaml::Value>,
    profiles: BTreeMap<String, BTreeMap<String, BTreeMap<String, RawRoot>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRoot {
    #[serde(default)]
    data_collection: Vec<RawServer>,
    #[serde(default)]
    action: Vec<RawServer>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
enum RawKind {
    Builtin,
    Stdio,
    Http,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    namespace: String,
    #[serde(rename = "type")]
    kind: RawKind,
    name: Option<String>,
    options: Option<Value>,
    command: Option<String>,
    args: Option<Vec<String>>,
    env: Option<BTreeMap<String, String>>,
    cwd: Option<String>,
    url: Option<String>,
    headers: Option<BTreeMap<String, String>>,
    #[serde(default)]
    reset: bool,
    tools: Option<Vec<String>>,
    #[serde(default)]
    timeouts: BTreeMap<String, f64>,
}

impl RawServer {
    fn validate(&self) -> Result<ServerSpec, String> {
        if self.namespace.trim().is_empty() {
            return Err("a non-empty 'namespace'".into());
        }
        let present = |k: &str| -> bool {
            match k {
                "name" => self.name.is_some(),
                "options" => self.options.is_some(),
                "command" => self.command.is_some(),
                "args" => self.args.is_some(),
                "env" => self.env.is_some(),
                "cwd" => self.cwd.is_some(),
                "url" => self.url.is_some(),
                "headers" => self.headers.is_some(),
                _ => false,
            }
        };
        let (kind_name, allowed): (&str, &[&str]) = match self.kind {
            RawKind::Builtin => ("builtin", &["name", "options"]),
            RawKind::Stdio => ("stdio", &["command", "args", "env", "cwd"]),
            RawKind::Http => ("http", &["url", "headers"]),
        };
        let all = [
            "name", "options", "command", "args", "env", "cwd", "url", "headers",
        ];
        if let Some(stray) = all.iter().find(|k| present(k) && !allowed.contains(k)) {
            return Err(format!(
                "only {} with type {kind_name} (found '{stray}')",
                allowed
                    .iter()
                    .map(|k| format!("'{k}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let non_empty = |v: &Option<String>, what: &str| match v {
            Some(s) if !s.trim().is_empty() => Ok(s.clone()),
            _ => Err(format!("a non-empty '{what}' for type {kind_name}")),
        };
        let kind = match self.kind {
            RawKind::Builtin => ServerKind::Builtin {
                name: non_empty(&self.name, "name")?,
                options: self.options.clone().unwrap_or(Value::Null),
            },
            RawKind::Stdio => ServerKind::Stdio {
                command: non_empty(&self.command, "command")?,
                args: self.args.clone().unwrap_or_default(),
                env: self.env.clone().unwrap_or_default(),
                cwd: self.cwd.clone(),
            },
            RawKind::Http => {
                let url = non_empty(&self.url, "url")?;
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(format!("an http:// or https:// 'url' (found '{url}')"));
                }
                ServerKind::Http {
                    url,
                    headers: self.headers.clone().unwrap_or_default(),
                }
            }
        };
        if let Some(tools) = &self.tools {
            if tools.is_empty() {
                return Err("a non-empty 'tools' list (omit it to register every tool)".into());
            }
            let mut seen = std::collections::BTreeSet::new();
            if let Some(dup) = tools.iter().find(|t| !seen.insert(t.as_str())) {
                return Err(format!(
                    "each tool once in 'tools' ('{dup}' is listed twice)"
                ));
            }
        }
        if let Some((tool, secs)) = self
            .timeouts
            .iter()
            .find(|(_, s)| !(s.is_finite() && **s >= 0.0))
        {
            return Err(format!(
                "a number of seconds ≥ 0 in timeouts.{tool} (found {secs})"
            ));
        }
        Ok(ServerSpec {
            namespace: self.namespace.clone(),
            kind,
            reset: self.reset,
            tools: self.tools.clone(),
            timeouts: self.timeouts.clone(),
        })
    }
}
