//! The pipeline's only way to an app: a document session on one device, every call a Command
//! through the device's Dispatcher (docs/design.md "Parts": the dataflow talks to apps only through
//! the Dispatcher), recorded in the task's log. It opens the document with the app's `open` call,
//! selects its window (the AppAgent Computer of the window's root then serves the app's GUI and API
//! tools), lists, captures, finds controls with the device's own `find_controls` (the one matcher),
//! runs tools, reads the text, saves and closes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use deft_protocol::selector::{Fit, MatchMode, Selector};
use deft_protocol::task_run::MatchedControl;
use deft_protocol::{CommandResult, ResultStatus, ToolInfo, ToolType};
use deft_tools::computer::LIST_TOOLS;
use deft_tools::session::{self, DeviceSession};
use deft_tools::{AppSelection, Device};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::config::{Agent, AppSpec, DocCall};
use crate::log::TaskLog;
use crate::result::StageError;
use crate::texts;

/// Tools a plan may not use, though the device has them: the Computer's meta tool and the shell.
pub const NOT_FOR_PLANS: [&str; 3] = [LIST_TOOLS, "run_shell", "get_system_info"];

/// Whether a plan for `spec`'s documents may call `tool`: not one of [`NOT_FOR_PLANS`], nor the
/// app's own `open` or `close` call (the pipeline opens and closes the document itself; a plan
/// that closed it would leave nothing to save).
pub fn plan_may_use(spec: &AppSpec, tool: &str) -> bool {
    !NOT_FOR_PLANS.contains(&tool) && tool != spec.open.tool && tool != spec.close.tool
}

/// How many matches a control lookup asks for.
const FIND_LIMIT: usize = 5;

/// How long one device call may take (a tool's own limit still applies inside it).
const CALL_DEADLINE: Duration = Duration::from_secs(180);

/// How long closing may take after a stop (the run's own token is cancelled by then).
const CLEANUP_DEADLINE: Duration = Duration::from_secs(20);

/// One document open on one device.
pub struct DocSession<'a> {
    /// The device, the window selected now; its calls are recorded in the task's log.
    session: DeviceSession<'a>,
    spec: &'a AppSpec,
    document: PathBuf,
    tools: Option<BTreeMap<String, ToolInfo>>,
}

impl<'a> DocSession<'a> {
    /// A session for `document` (absolute) of the app `spec` on `device`, recorded in `log`;
    /// nothing is opened yet.
    pub fn new(
        device: &'a Device,
        spec: &'a AppSpec,
        document: &Path,
        cancel: CancellationToken,
        log: &TaskLog,
    ) -> Self {
        let session =
            DeviceSession::new(device, cancel, log.emitter().clone()).with_deadline(CALL_DEADLINE);
        DocSession {
            session,
            spec,
            document: document.to_owned(),
            tools: None,
        }
    }

    /// One call through the device session, its time added to `log`'s; a window it selects
    /// brings other tools.
    async fn call_as(&mut self, log: &mut TaskLog, call: session::Call<'_>) -> CommandResult {
        let called = self.session.call(call).await;
        log.tool_time += called.took;
        if AppSelection::from_result(&called.result).is_some() {
            self.tools = None;
        }
        called.result
    }

    async fn call(&mut self, log: &mut TaskLog, call: Call<'_>) -> CommandResult {
        self.call_as(log, call.into_session()).await
    }

    /// A call whose failure is a stage error.
    async fn must(&mut self, log: &mut TaskLog, call: Call<'_>) -> Result<Value, StageError> {
        let tool = call.tool;
        let r = self.call(log, call).await;
        match r.status {
            ResultStatus::Success => Ok(r.result),
            _ => Err(self.device_error(tool, r.error)),
        }
    }

    fn device_error(&self, tool: &str, error: Option<String>) -> StageError {
        let kind = if self.session.cancel().is_cancelled() {
            "Interrupted"
        } else {
            "DeviceError"
        };
        let why = error.unwrap_or_else(|| "no error text".to_owned());
        StageError::new(kind, texts::device_call_failed(tool, &why))
    }

    /// The arguments of `call` with its placeholders filled in.
    fn args_of(&self, call: &DocCall) -> Map<String, Value> {
        let root = self
            .session
            .app()
            .map(|a| a.root.clone())
            .unwrap_or_default();
        let fill = |s: &str| fill_placeholders(s, &self.document, &root);
        match substitute(&call.args, &fill) {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    /// Opens the document and selects its window.
    pub async fn open(&mut self, log: &mut TaskLog) -> Result<(), StageError> {
        let call = self.spec.open.clone();
        let agent = AppSpec::agent_of(&call, Agent::Host);
        let args = self.args_of(&call);
        let opened = self
            .must(
                log,
                Call::new(agent, Some(ToolType::Action), &call.tool, args),
            )
            .await
            .map_err(|e| e.at("open"))?;
        if self.is_open() {
            return Ok(());
        }
        let Some(id) = window_id(&opened) else {
            return Err(
                StageError::new("DeviceError", texts::open_named_no_window(&call.tool)).at("open"),
            );
        };
        let mut args = Map::new();
        args.insert("id".into(), json!(id));
        self.must(
            log,
            Call::new(
                Agent::Host,
                Some(ToolType::Action),
                "select_application_window",
                args,
            ),
        )
        .await
        .map_err(|e| e.at("open"))?;
        if !self.is_open() {
            return Err(StageError::new(
                "DeviceError",
                texts::open_named_no_window("select_application_window"),
            )
            .at("open"));
        }
        Ok(())
    }

    /// The tools the window's AppAgent Computer offers, by name.
    pub async fn tools(
        &mut self,
        log: &mut TaskLog,
    ) -> Result<&BTreeMap<String, ToolInfo>, StageError> {
        if self.tools.is_none() {
            let value = self
                .must(log, Call::observe(LIST_TOOLS, Map::new()))
                .await?;
            let infos: Vec<ToolInfo> = serde_json::from_value(value).map_err(|e| {
                StageError::new(
                    "DeviceError",
                    texts::device_call_failed(LIST_TOOLS, &e.to_string()),
                )
            })?;
            self.tools = Some(
                infos
                    .into_iter()
                    .map(|t| (t.tool_name.clone(), t))
                    .collect(),
            );
        }
        Ok(self.tools.get_or_insert_with(BTreeMap::new))
    }

    /// The window's control listing (compact).
    pub async fn listing(&mut self, log: &mut TaskLog) -> Result<String, StageError> {
        let v = self
            .must(
                log,
                Call::observe("get_app_window_controls_info", Map::new()),
            )
            .await?;
        Ok(match v {
            Value::String(s) => s,
            other => other.to_string(),
        })
    }

    /// A screenshot of the window (PNG or JPEG bytes), or `None` when the device gave none.
    pub async fn screenshot(&mut self, log: &mut TaskLog) -> Option<Vec<u8>> {
        let r = self
            .call(log, Call::observe("capture_window_screenshot", Map::new()))
            .await;
        r.images
            .iter()
            .find_map(|uri| deft_protocol::envelope::decode_data_uri(uri))
            .map(|(_, bytes)| bytes)
    }

    /// The control whose name or value matches `text` best under `mode` (highest score, > 0),
    /// by the device's `find_controls`.
    pub async fn find(
        &mut self,
        log: &mut TaskLog,
        text: &str,
        mode: MatchMode,
    ) -> Result<Option<Found>, StageError> {
        let selector = Selector::text(text).with_mode(mode);
        let mut args = Map::new();
        args.insert("selector".into(), json!(selector));
        args.insert("limit".into(), json!(FIND_LIMIT));
        args.insert("format".into(), json!("json"));
        let v = self.must(log, Call::observe("find_controls", args)).await?;
        let found = match v {
            Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::Null),
            other => other,
        };
        Ok(chosen(&found).filter(|m| m.control.score > 0))
    }

    /// Runs `tool` with `args` on the window's Computer; the tool's error text on failure.
    pub async fn act(
        &mut self,
        log: &mut TaskLog,
        tool: &str,
        tool_type: ToolType,
        args: Map<String, Value>,
    ) -> Result<Value, StageError> {
        self.must(log, Call::new(Agent::App, Some(tool_type), tool, args))
            .await
    }

    /// The document's text by the app's `text` call, if it has one and it answers.
    pub async fn text(&mut self, log: &mut TaskLog) -> Option<String> {
        let call = self.spec.text.clone()?;
        let agent = AppSpec::agent_of(&call, Agent::App);
        let args = self.args_of(&call);
        let r = self
            .call(log, Call::new(agent, None, &call.tool, args))
            .await;
        if r.status != ResultStatus::Success {
            log.error(texts::device_call_failed(
                &call.tool,
                r.error.as_deref().unwrap_or(""),
            ));
            return None;
        }
        Some(match r.result {
            Value::String(s) => s,
            other => serde_json::to_string_pretty(&other).unwrap_or_default(),
        })
    }

    /// Saves the document in place.
    pub async fn save(&mut self, log: &mut TaskLog) -> Result<(), StageError> {
        let call = self.spec.save.clone();
        let agent = AppSpec::agent_of(&call, Agent::App);
        let args = self.args_of(&call);
        self.must(log, Call::new(agent, None, &call.tool, args))
            .await
            .map(|_| ())
            .map_err(|e| e.at("save"))
    }

    /// Closes the app; runs even after a stop (with a short deadline of its own).
    pub async fn close(&mut self, log: &mut TaskLog) -> Result<(), StageError> {
        let call = self.spec.close.clone();
        let agent = AppSpec::agent_of(&call, Agent::Host);
        let args = self.args_of(&call);
        let close = Call::new(agent, Some(ToolType::Action), &call.tool, args)
            .into_session()
            .with_cancel(CancellationToken::new())
            .with_deadline(CLEANUP_DEADLINE);
        let r = self.call_as(log, close).await;
        self.session.select(None);
        self.tools = None;
        match r.status {
            ResultStatus::Success => Ok(()),
            _ => Err(StageError::new(
                "DeviceError",
                texts::device_call_failed(&call.tool, r.error.as_deref().unwrap_or("")),
            )
            .at("close")),
        }
    }

    /// Whether the document's window is selected.
    pub fn is_open(&self) -> bool {
        self.session.app().is_some()
    }
}

/// One tool call: which Computer, the tool and its arguments.
struct Call<'t> {
    agent: Agent,
    tool_type: Option<ToolType>,
    tool: &'t str,
    args: Map<String, Value>,
}

impl<'t> Call<'t> {
    fn new(
        agent: Agent,
        tool_type: Option<ToolType>,
        tool: &'t str,
        args: Map<String, Value>,
    ) -> Self {
        Call {
            agent,
            tool_type,
            tool,
            args,
        }
    }

    /// An observation of the document's window.
    fn observe(tool: &'t str, args: Map<String, Value>) -> Self {
        Call::new(Agent::App, Some(ToolType::DataCollection), tool, args)
    }

    /// The device session's call: on the window's Computer for [`Agent::App`].
    fn into_session(self) -> session::Call<'t> {
        session::Call::new(
            self.tool_type,
            self.tool,
            Value::Object(self.args),
            self.agent == Agent::App,
        )
    }
}

/// The window id an `open` result names: `window.id`, or `id`.
fn window_id(v: &Value) -> Option<String> {
    let id = v.pointer("/window/id").or_else(|| v.get("id"))?;
    match id {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A control `find_controls` chose, and the text of it that matched (its name, or its value
/// when the value matched).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The control.
    pub control: MatchedControl,
    /// The text that matched.
    pub text: String,
    /// How much of the asked text that text covers.
    pub fit: Fit,
}

/// The chosen match of a `find_controls` JSON answer (docs/observation.md "Finding controls").
fn chosen(found: &Value) -> Option<Found> {
    let id = found["chosen"].as_str()?;
    let m = found["matches"]
        .as_array()?
        .iter()
        .find(|m| m["id"].as_str() == Some(id))?;
    let name = m["name"].as_str().unwrap_or_default().to_owned();
    let text = match m["on"].as_str() {
        Some("value") => m["value"].as_str().unwrap_or_default().to_owned(),
        _ => name.clone(),
    };
    let fit = match m["fit"].as_str() {
        Some("exact") => Fit::Exact,
        Some("contains") => Fit::Contains,
        // A device that does not say how well its match fits is not trusted to be exact.
        _ => Fit::Partial,
    };
    Some(Found {
        fit,
        control: MatchedControl {
            id: id.to_owned(),
            name,
            kind: m["type"].as_str().unwrap_or_default().to_owned(),
            score: m["score"]
                .as_u64()
                .and_then(|s| u8::try_from(s).ok())
                .unwrap_or(0),
            ..MatchedControl::default()
        },
        text,
    })
}

/// `{path}`, `{dir}`, `{name}`, `{stem}`, `{ext}` of `document` and `{root}` filled into `s`.
pub fn fill_placeholders(s: &str, document: &Path, root: &str) -> String {
    let part = |p: Option<&std::ffi::OsStr>| {
        p.map(|x| x.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let ext = document
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    s.replace("{path}", &document.to_string_lossy())
        .replace("{dir}", &part(document.parent().map(Path::as_os_str)))
        .replace("{name}", &part(document.file_name()))
        .replace("{stem}", &part(document.file_stem()))
        .replace("{ext}", &ext)
        .replace("{root}", root)
}

/// `value` with `fill` applied to every string in it.
fn substitute(value: &Value, fill: &dyn Fn(&str) -> String) -> Value {
    match value {
        Value::String(s) => Value::String(fill(s)),
        Value::Array(items) => Value::Array(items.iter().map(|v| substitute(v, fill)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), substitute(v, fill)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_name_the_document_and_the_root() {
        let doc = Path::new("/r/saved_document/bullets.docx");
        let args = json!({"a": ["{path}", 3], "b": {"dir": "{dir}", "f": "{stem}{ext}", "n": "{name}", "r": "{root}"}});
        let filled = substitute(&args, &|s| fill_placeholders(s, doc, "soffice.bin"));
        assert_eq!(
            filled,
            json!({"a": ["/r/saved_document/bullets.docx", 3], "b": {"dir": "/r/saved_document",
                   "f": "bullets.docx", "n": "bullets.docx", "r": "soffice.bin"}})
        );
    }

    #[test]
    fn the_chosen_match_and_the_window_id_are_read_off_the_answers() {
        let found = json!({"matches": [{"id": "9", "name": "Bold", "type": "button", "score": 100},
                                       {"id": "4", "name": "Bullets", "type": "button", "score": 100}],
                           "chosen": "4"});
        let m = chosen(&found).unwrap();
        assert_eq!(
            (
                m.control.id.as_str(),
                m.control.name.as_str(),
                m.control.score
            ),
            ("4", "Bullets", 100)
        );
        assert_eq!(m.text, "Bullets");
        let by_value = json!({"matches": [{"id": "8", "name": "", "type": "edit", "value": "alpha", "on": "value", "score": 100}],
                              "chosen": "8"});
        assert_eq!(chosen(&by_value).unwrap().text, "alpha");
        assert_eq!(chosen(&json!({"matches": [], "chosen": null})), None);
        assert_eq!(
            window_id(&json!({"window": {"id": "3"}, "pid": 9})).as_deref(),
            Some("3")
        );
        assert_eq!(window_id(&json!({"id": 5})).as_deref(), Some("5"));
        assert_eq!(window_id(&json!({"pid": 9})), None);
    }
}
