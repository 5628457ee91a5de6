//! The pipeline's settings: a YAML file with seed 004's keys (UFO's `config_dev.yaml` names and
//! defaults), plus the apps table — which tool opens, reads, saves and closes a document of each
//! app. Relative paths are read from the config file's folder (the current folder without one).
//!
//! ```
//! let (config, warnings) = deft_dataflow::Config::from_yaml("MAX_STEPS: 12\nMATCH_STRATEGY: contains\n", ".".as_ref()).unwrap();
//! assert_eq!(config.max_steps, 12);
//! assert!(warnings.is_empty());
//! assert_eq!(config.result_dir(deft_dataflow::Mode::Dataflow), std::path::Path::new("./results/dataflow"));
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use deft_protocol::selector::MatchMode;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::texts;

/// Which pipeline a run is (the `--dataflow` / `--instantiation` / `--execution` flag); also the
/// `{task_type}` of `RESULT_HUB`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// choose_template → prefill → instantiation_evaluation.
    Instantiation,
    /// execute → execute_eval on an instantiated result file.
    Execution,
    /// Both, one after the other.
    Dataflow,
}

impl Mode {
    /// `instantiation`, `execution` or `dataflow`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Instantiation => "instantiation",
            Mode::Execution => "execution",
            Mode::Dataflow => "dataflow",
        }
    }

    /// Whether this mode instantiates (chooses a template, prefills, judges).
    pub fn instantiates(self) -> bool {
        matches!(self, Mode::Instantiation | Mode::Dataflow)
    }

    /// Whether this mode executes the plan and evaluates it.
    pub fn executes(self) -> bool {
        matches!(self, Mode::Execution | Mode::Dataflow)
    }
}

/// How a template is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateMethod {
    /// The model reads the descriptions and picks one (UFO's `LLM`).
    Llm,
}

/// Which Computer of the device a document call goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    /// The HostAgent Computer (launching and closing apps).
    Host,
    /// The AppAgent Computer of the document's window (the app's own tools).
    App,
}

/// One tool call of an app's document life cycle. String values of `args` may hold
/// placeholders: `{path}` (the document, absolute), `{dir}`, `{name}` (file name), `{stem}`,
/// `{ext}` (with its dot), `{root}` (the window's application root, once selected).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocCall {
    /// The tool.
    pub tool: String,
    /// Its arguments.
    #[serde(default = "empty_object")]
    pub args: Value,
    /// Its Computer (default: the app's, except for `open` and `close`).
    #[serde(default)]
    pub agent: Option<Agent>,
}

fn empty_object() -> Value {
    json!({})
}

/// How deft handles one app of the task files (`word`, `excel`, `powerpoint`, or one a config
/// adds).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppSpec {
    /// Shown to the model: what program runs the documents.
    pub label: String,
    /// The documents' extension, with its dot (`.docx`).
    pub extension: String,
    /// Opens `{path}` in a window (HostAgent); its result names the window (`window.id`).
    pub open: DocCall,
    /// Reads the document's text for the evaluation (AppAgent); none: the evaluation sees the
    /// screenshot and the steps only.
    #[serde(default)]
    pub text: Option<DocCall>,
    /// Saves the document in place (AppAgent).
    pub save: DocCall,
    /// Closes the app (HostAgent).
    pub close: DocCall,
}

impl AppSpec {
    /// The Computer `call` goes to: its own `agent`, else `default`.
    pub fn agent_of(call: &DocCall, default: Agent) -> Agent {
        call.agent.unwrap_or(default)
    }
}

/// The model's address, when the config gives one (`AGENT_*` in the environment wins).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelSettings {
    /// `API_BASE`.
    pub api_base: Option<String>,
    /// `API_MODEL`.
    pub api_model: Option<String>,
    /// `API_KEY`.
    pub api_key: Option<String>,
}

/// The settings of a run.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where relative paths start: the config file's folder.
    pub base_dir: PathBuf,
    /// `RESULT_HUB`, with `{task_type}`.
    pub result_hub: String,
    /// `INSTANTIATION_RESULT_SCHEMA`; `None`: the schema deft ships.
    pub instantiation_schema: Option<PathBuf>,
    /// `EXECUTION_RESULT_SCHEMA`; `None`: the schema deft ships.
    pub execution_schema: Option<PathBuf>,
    /// `REFORMAT_TO_BATCH`.
    pub reformat_to_batch: bool,
    /// `REFORMAT_TO_BATCH_HUB`.
    pub reformat_hub: PathBuf,
    /// `TASKS_HUB`: the tasks when `--task-path` is not given.
    pub tasks_hub: PathBuf,
    /// `TEMPLATE_PATH`: `<app>/description.json` and the template files.
    pub template_path: PathBuf,
    /// `LOG_PATH`, with `{task}`.
    pub log_path: String,
    /// `MAX_STEPS`: the longest plan execute runs.
    pub max_steps: usize,
    /// `TEMPLATE_METHOD`.
    pub template_method: TemplateMethod,
    /// `MATCH_STRATEGY`: how `ControlText` finds its control.
    pub match_strategy: MatchMode,
    /// `VISUAL_MODE`: send screenshots to the model.
    pub visual_mode: bool,
    /// `API_BASE`, `API_MODEL`, `API_KEY`.
    pub model: ModelSettings,
    /// `APPS`: the built-in word, excel and powerpoint, plus the config's.
    pub apps: BTreeMap<String, AppSpec>,
}

/// The config file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Unreadable file.
    #[error("cannot read the dataflow config {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not YAML of the expected shape.
    #[error("the dataflow config {path} is invalid: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong, with its key and line.
        message: String,
    },
}

/// The file as written: seed 004's keys, anything else collected for a warning.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawConfig {
    #[serde(rename = "RESULT_HUB")]
    result_hub: Option<String>,
    #[serde(rename = "INSTANTIATION_RESULT_SCHEMA")]
    instantiation_schema: Option<String>,
    #[serde(rename = "EXECUTION_RESULT_SCHEMA")]
    execution_schema: Option<String>,
    #[serde(rename = "REFORMAT_TO_BATCH")]
    reformat_to_batch: Option<bool>,
    #[serde(rename = "REFORMAT_TO_BATCH_HUB")]
    reformat_hub: Option<String>,
    #[serde(rename = "TASKS_HUB")]
    tasks_hub: Option<String>,
    #[serde(rename = "TEMPLATE_PATH")]
    template_path: Option<String>,
    #[serde(rename = "LOG_PATH")]
    log_path: Option<String>,
    #[serde(rename = "MAX_STEPS")]
    max_steps: Option<usize>,
    #[serde(rename = "TEMPLATE_METHOD")]
    template_method: Option<String>,
    #[serde(rename = "MATCH_STRATEGY")]
    match_strategy: Option<String>,
    #[serde(rename = "VISUAL_MODE")]
    visual_mode: Option<bool>,
    #[serde(rename = "API_BASE")]
    api_base: Option<String>,
    #[serde(rename = "API_MODEL")]
    api_model: Option<String>,
    #[serde(rename = "API_KEY")]
    api_key: Option<String>,
    #[serde(rename = "APPS")]
    apps: BTreeMap<String, AppSpec>,
    #[serde(flatten)]
    other: BTreeMap<String, serde_yaml::Value>,
}

/// UFO's keys that deft reads without using (its Windows control backend, embedding filters,
/// per-agent prompts): no warning for them.
const UFO_KEYS_IGNORED: &[&str] = &[
    "CONTROL_BACKEND",
    "CONTROL_LIST",
    "PRINT_LOG",
    "LOG_LEVEL",
    "PREFILL_PROMPT",
    "FILTER_PROMPT",
    "PREFILL_EXAMPLE_PROMPT",
    "API_PROMPT",
    "TEMPLATE_PROMPT",
    "CONTROL_FILTER_TYPE",
    "CONTROL_FILTER_MODEL_SEMANTIC_NAME",
    "CONTROL_EMBEDDING_CACHE_PATH",
    "CONTROL_FILTER_TOP_K_PLAN",
    "PREFILL_LOG_PATH",
    "FILTER_LOG_PATH",
    "EXECUTE_LOG_PATH",
];

impl Config {
    /// The defaults (seed 004's), relative to `base_dir`.
    pub fn defaults(base_dir: &Path) -> Config {
        Config {
            base_dir: base_dir.to_owned(),
            result_hub: "results/{task_type}".to_owned(),
            instantiation_schema: None,
            execution_schema: None,
            reformat_to_batch: true,
            reformat_hub: base_dir.join("datasUFO"),
            tasks_hub: base_dir.join("tasks"),
            template_path: base_dir.join("templates"),
            log_path: "logs/{task}".to_owned(),
            max_steps: DEFAULT_MAX_STEPS,
            template_method: TemplateMethod::Llm,
            match_strategy: MatchMode::Fuzzy,
            visual_mode: true,
            model: ModelSettings::default(),
            apps: builtin_apps(),
        }
    }

    /// Reads `path`; the warnings name keys deft does not know.
    pub fn load(path: &Path) -> Result<(Config, Vec<String>), ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        let base = if base.as_os_str().is_empty() {
            Path::new(".")
        } else {
            base
        };
        Config::from_yaml(&text, base).map_err(|e| match e {
            ConfigError::Invalid { message, .. } => ConfigError::Invalid {
                path: path.display().to_string(),
                message,
            },
            other => other,
        })
    }

    /// Reads YAML text whose relative paths start at `base_dir`.
    pub fn from_yaml(text: &str, base_dir: &Path) -> Result<(Config, Vec<String>), ConfigError> {
        let invalid = |message: String| ConfigError::Invalid {
            path: "(text)".to_owned(),
            message,
        };
        let raw: RawConfig = if text.trim().is_empty() {
            RawConfig::default()
        } else {
            serde_yaml::from_str(text).map_err(|e| invalid(e.to_string()))?
        };
        Config::build(raw, base_dir).map_err(invalid)
    }

    fn build(raw: RawConfig, base_dir: &Path) -> Result<(Config, Vec<String>), String> {
        let warnings = raw
            .other
            .keys()
            .filter(|k| !UFO_KEYS_IGNORED.contains(&k.as_str()))
            .map(|k| texts::unknown_config_key(k))
            .collect();
        let mut c = Config::defaults(base_dir);
        if let Some(m) = raw.template_method.as_deref().map(str::trim)
            && !m.is_empty()
            && !m.eq_ignore_ascii_case("llm")
        {
            return Err(texts::unknown_template_method(m));
        }
        if let Some(s) = raw.match_strategy.as_deref().map(str::trim)
            && !s.is_empty()
        {
            c.match_strategy = parse_strategy(s)?;
        }
        if let Some(n) = raw.max_steps {
            if n == 0 {
                return Err(texts::ZERO_MAX_STEPS.to_owned());
            }
            c.max_steps = n;
        }
        for (name, spec) in raw.apps {
            check_app(&name, &spec)?;
            c.apps.insert(name.to_lowercase(), spec);
        }
        let path = |p: Option<String>| p.filter(|s| !s.trim().is_empty()).map(|s| base_dir.join(s));
        c.instantiation_schema = path(raw.instantiation_schema);
        c.execution_schema = path(raw.execution_schema);
        c.reformat_hub = path(raw.reformat_hub).unwrap_or(c.reformat_hub);
        c.tasks_hub = path(raw.tasks_hub).unwrap_or(c.tasks_hub);
        c.template_path = path(raw.template_path).unwrap_or(c.template_path);
        c.result_hub = raw.result_hub.unwrap_or(c.result_hub);
        c.log_path = raw.log_path.unwrap_or(c.log_path);
        c.reformat_to_batch = raw.reformat_to_batch.unwrap_or(c.reformat_to_batch);
        c.visual_mode = raw.visual_mode.unwrap_or(c.visual_mode);
        c.model = ModelSettings {
            api_base: raw.api_base.filter(|s| !s.is_empty()),
            api_model: raw.api_model.filter(|s| !s.is_empty()),
            api_key: raw.api_key.filter(|s| !s.is_empty()),
        };
        Ok((c, warnings))
    }

    /// `RESULT_HUB` for `mode`: where its pass / fail (/ unsure) folders are.
    pub fn result_dir(&self, mode: Mode) -> PathBuf {
        self.base_dir
            .join(self.result_hub.replace("{task_type}", mode.as_str()))
    }

    /// `saved_document/`, beside the modes' result folders.
    pub fn saved_document_dir(&self) -> PathBuf {
        if self.result_hub.contains("{task_type}") {
            self.base_dir
                .join(self.result_hub.replace("{task_type}", SAVED_DOCUMENT))
        } else {
            self.base_dir.join(&self.result_hub).join(SAVED_DOCUMENT)
        }
    }

    /// The log folder of task `name` (`LOG_PATH` with `{task}`).
    pub fn log_dir(&self, name: &str) -> PathBuf {
        let safe = deft_trace::sanitize(name);
        if self.log_path.contains("{task}") {
            self.base_dir.join(self.log_path.replace("{task}", &safe))
        } else {
            self.base_dir.join(&self.log_path).join(safe)
        }
    }

    /// `path` as a result file records it: relative to the config's folder when it is inside it
    /// (results stay readable when the folder moves), else as given.
    pub fn stored_path(&self, path: &Path) -> String {
        let base = std::path::absolute(&self.base_dir).unwrap_or_else(|_| self.base_dir.clone());
        let full = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
        full.strip_prefix(&base)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| path.to_string_lossy().into_owned())
    }

    /// A path a result file records, from here.
    pub fn resolve(&self, stored: &str) -> PathBuf {
        self.base_dir.join(stored)
    }

    /// The app a task file names (case ignored), or the error listing the known ones.
    pub fn app(&self, name: &str) -> Result<(&str, &AppSpec), String> {
        let key = name.trim().to_lowercase();
        self.apps
            .get_key_value(&key)
            .map(|(k, v)| (k.as_str(), v))
            .ok_or_else(|| texts::unknown_app(name, self.apps.keys()))
    }
}

/// The folder name of the documents the pipeline works on.
pub const SAVED_DOCUMENT: &str = "saved_document";

/// `MAX_STEPS` unless configured (UFO's).
pub const DEFAULT_MAX_STEPS: usize = 30;

fn parse_strategy(s: &str) -> Result<MatchMode, String> {
    match s.to_lowercase().as_str() {
        "contains" => Ok(MatchMode::Contains),
        "fuzzy" => Ok(MatchMode::Fuzzy),
        "regex" => Ok(MatchMode::Regex),
        "exact" => Ok(MatchMode::Exact),
        _ => Err(texts::unknown_match_strategy(s)),
    }
}

fn check_app(name: &str, spec: &AppSpec) -> Result<(), String> {
    if !spec.extension.starts_with('.') || spec.extension.len() < 2 {
        return Err(texts::bad_extension(name, &spec.extension));
    }
    for (what, call) in [
        ("open", &spec.open),
        ("save", &spec.save),
        ("close", &spec.close),
    ] {
        if call.tool.trim().is_empty() {
            return Err(texts::app_call_without_tool(name, what));
        }
    }
    Ok(())
}

/// The apps of seed 004 on LibreOffice: word → Writer, excel → Calc, powerpoint → Impress. A
/// document opens in the device's LibreOffice by `launch_app`; its text comes from the office API
/// (`get_document_text`, the first sheet by `table2markdown`, `get_slides_text`); `save` stores
/// it in place in its own format and `close_document` closes it (LibreOffice stays for the next
/// task).
pub fn builtin_apps() -> BTreeMap<String, AppSpec> {
    let call = |tool: &str, args: Value, agent: Option<Agent>| DocCall {
        tool: tool.to_owned(),
        args,
        agent,
    };
    let office = |label: &str, module: &str, ext: &str, text: DocCall| AppSpec {
        label: label.to_owned(),
        extension: ext.to_owned(),
        open: call(
            "launch_app",
            json!({"app": module, "args": ["{path}"]}),
            None,
        ),
        text: Some(text),
        save: call("save", json!({}), None),
        close: call("close_document", json!({}), Some(Agent::App)),
    };
    BTreeMap::from([
        (
            "word".to_owned(),
            office(
                "LibreOffice Writer (Word documents)",
                "libreoffice-writer",
                ".docx",
                call("get_document_text", json!({}), None),
            ),
        ),
        (
            "excel".to_owned(),
            office(
                "LibreOffice Calc (Excel workbooks)",
                "libreoffice-calc",
                ".xlsx",
                call("table2markdown", json!({"sheet_name": 1}), None),
            ),
        ),
        (
            "powerpoint".to_owned(),
            office(
                "LibreOffice Impress (PowerPoint presentations)",
                "libreoffice-impress",
                ".pptx",
                call("get_slides_text", json!({}), None),
            ),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_defaults_and_the_derived_folders() {
        let c = Config::defaults(Path::new("/data"));
        assert_eq!(
            c.result_dir(Mode::Instantiation),
            Path::new("/data/results/instantiation")
        );
        assert_eq!(
            c.saved_document_dir(),
            Path::new("/data/results/saved_document")
        );
        assert_eq!(c.log_dir("a b"), Path::new("/data/logs/a_b"));
        assert_eq!(c.tasks_hub, Path::new("/data/tasks"));
        assert_eq!(c.reformat_hub, Path::new("/data/datasUFO"));
        assert_eq!((c.max_steps, c.match_strategy), (30, MatchMode::Fuzzy));
        assert!(c.reformat_to_batch && c.visual_mode);
        assert_eq!(c.template_method, TemplateMethod::Llm);
        assert_eq!(c.app("Word").unwrap().1.extension, ".docx");
        assert_eq!(c.app("POWERPOINT").unwrap().1.extension, ".pptx");
        let err = c.app("outlook").unwrap_err();
        assert!(
            err.contains("'outlook'") && err.contains("excel, powerpoint, word"),
            "{err}"
        );
    }

    #[test]
    fn keys_are_read_and_unknown_ones_warned_about() {
        let yaml = "RESULT_HUB: out/{task_type}\nLOG_PATH: l\nMATCH_STRATEGY: REGEX\nTEMPLATE_METHOD: LLM\n\
                    CONTROL_BACKEND: uia\nFOO: 1\nAPI_MODEL: m\nAPPS:\n  notes:\n    label: Mousepad\n    extension: .txt\n\
                    \x20   open: {tool: launch_app, args: {app: mousepad, args: ['{path}']}}\n\
                    \x20   save: {tool: keyboard_input, args: {keys: '^s'}}\n\
                    \x20   close: {tool: close_app, args: {app: mousepad}}\n";
        let (c, warnings) = Config::from_yaml(yaml, Path::new("/b")).unwrap();
        assert_eq!(c.saved_document_dir(), Path::new("/b/out/saved_document"));
        assert_eq!(c.log_dir("t"), Path::new("/b/l/t"));
        assert_eq!(c.match_strategy, MatchMode::Regex);
        assert_eq!(c.model.api_model.as_deref(), Some("m"));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("FOO"));
        let (name, notes) = c.app("Notes").unwrap();
        assert_eq!((name, notes.extension.as_str()), ("notes", ".txt"));
        assert!(notes.text.is_none());
    }

    #[test]
    fn bad_values_name_their_key() {
        for (yaml, needle) in [
            ("MATCH_STRATEGY: nearest", "MATCH_STRATEGY"),
            ("TEMPLATE_METHOD: SemanticSimilarity", "TEMPLATE_METHOD"),
            ("MAX_STEPS: 0", "MAX_STEPS"),
            ("MAX_STEPS: many", "MAX_STEPS"),
            (
                "APPS: {x: {label: X, extension: txt, open: {tool: a}, save: {tool: b}, close: {tool: c}}}",
                "extension",
            ),
            (
                "APPS: {x: {label: X, extension: .t, open: {tool: a}, save: {tool: b}}}",
                "close",
            ),
        ] {
            let err = Config::from_yaml(yaml, Path::new("."))
                .unwrap_err()
                .to_string();
            assert!(err.contains(needle), "{yaml}: {err}");
        }
    }
}
