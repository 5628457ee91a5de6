//! The agent's event stream (docs/design.md "Events"): what the CLI, the console and traces
//! consume. Events never carry image bytes, only image ids.

use serde::{Deserialize, Serialize};

use crate::ResultStatus;
use serde_json::Value;

/// One event of a run, numbered by `seq` (the SSE id).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AgentEvent {
    /// Per-run sequence number, starting at 1.
    pub seq: u64,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// Whether streamed text is the answer or the model's reasoning.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeltaKind {
    /// Answer text.
    Content,
    /// Reasoning text (DeepSeek/Qwen `reasoning_content`).
    Reasoning,
}

/// Token usage, summed over the model calls of a run.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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

impl DoneStatus {
    /// Every status, in declaration order.
    pub const ALL: [DoneStatus; 5] = [
        DoneStatus::Completed,
        DoneStatus::Failed,
        DoneStatus::Stopped,
        DoneStatus::Timeout,
        DoneStatus::MaxSteps,
    ];

    /// The wire name (`completed`, `max_steps`, …), as serde writes it.
    pub const fn as_str(self) -> &'static str {
        match self {
            DoneStatus::Completed => "completed",
            DoneStatus::Failed => "failed",
            DoneStatus::Stopped => "stopped",
            DoneStatus::Timeout => "timeout",
            DoneStatus::MaxSteps => "max_steps",
        }
    }

    /// The status with this wire name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl std::fmt::Display for DoneStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of agent run: a chat, or designer mode (the model explores the device and drafts
/// a task). Both share the one run slot.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RunMode {
    /// A conversation: the answer is text (the default).
    #[default]
    Chat,
    /// Designer mode: the answer is a task draft.
    Designer,
}

impl RunMode {
    /// Every mode, in declaration order.
    pub const ALL: [RunMode; 2] = [RunMode::Chat, RunMode::Designer];

    /// The wire name (`chat`, `designer`), as serde writes it.
    pub const fn as_str(self) -> &'static str {
        match self {
            RunMode::Chat => "chat",
            RunMode::Designer => "designer",
        }
    }

    /// The mode with this wire name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == name)
    }
}

impl std::fmt::Display for RunMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A run's state: still running, or how it ended. On the wire (and in the store) a plain
/// string: `running` or a [`DoneStatus`] name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// Not finished yet.
    Running,
    /// Finished this way.
    Done(DoneStatus),
}

impl RunStatus {
    /// The wire name of [`RunStatus::Running`].
    pub const RUNNING: &'static str = "running";

    /// The wire name: `running`, or the [`DoneStatus`] name.
    pub const fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => Self::RUNNING,
            RunStatus::Done(status) => status.as_str(),
        }
    }

    /// The status with this wire name.
    pub fn from_name(name: &str) -> Option<Self> {
        if name == Self::RUNNING {
            Some(RunStatus::Running)
        } else {
            DoneStatus::from_name(name).map(RunStatus::Done)
        }
    }
}

impl From<DoneStatus> for RunStatus {
    fn from(status: DoneStatus) -> Self {
        RunStatus::Done(status)
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RunStatus {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl schemars::JsonSchema for RunStatus {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RunStatus".into()
    }

    /// `running` or one of [`DoneStatus`]'s names, as [`RunStatus::as_str`] writes them.
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let done = generator.subschema_for::<DoneStatus>();
        schemars::json_schema!({
            "description": "A run's state: `running`, or how it ended.",
            "anyOf": [{"const": Self::RUNNING}, done],
        })
    }
}

impl<'de> Deserialize<'de> for RunStatus {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        RunStatus::from_name(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown run status {name:?}: expected running, completed, failed, stopped, \
                 timeout or max_steps"
            ))
        })
    }
}

impl EventKind {
    /// Every event type name, in declaration order (the `type` field on the wire).
    pub const NAMES: [&'static str; 13] = [
        "delta",
        "step_start",
        "step",
        "usage",
        "confirm",
        "confirmed",
        "task_step_start",
        "task_step",
        "task_step_retry",
        "task_round",
        "memory",
        "error",
        "done",
    ];

    /// The event's `type` on the wire.
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::Delta { .. } => "delta",
            EventKind::StepStart { .. } => "step_start",
            EventKind::Step(_) => "step",
            EventKind::Usage(_) => "usage",
            EventKind::Confirm { .. } => "confirm",
            EventKind::Confirmed { .. } => "confirmed",
            EventKind::TaskStepStart(_) => "task_step_start",
            EventKind::TaskStep(_) => "task_step",
            EventKind::TaskStepRetry(_) => "task_step_retry",
            EventKind::TaskRound(_) => "task_round",
            EventKind::Memory(_) => "memory",
            EventKind::Error { .. } => "error",
            EventKind::Done { .. } => "done",
        }
    }
}

/// A finished tool call, as a `step` event carries it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolStep {
    /// The call's id.
    pub call_id: String,
    /// Tool name.
    pub tool: String,
    /// Its arguments.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub args: Value,
    /// The Result envelope, images replaced by ids.
    #[cfg_attr(feature = "ts", ts(type = "CommandResult"))]
    pub result: Value,
    /// Ids of the images the call returned.
    #[serde(default)]
    pub image_ids: Vec<String>,
    /// Wall time of the call.
    pub duration_ms: u64,
    /// `changed` / `no_change` where the backend can tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
}

impl ToolStep {
    /// The `step` event of a finished call: the Result's images go to `images` and the event
    /// carries their ids (in `image_ids` and in the Result's `images`), and `effect` is read off
    /// the Result. The agent and the task runner record their calls with it.
    pub fn from_result(
        tool: &str,
        args: Value,
        result: &crate::CommandResult,
        images: &dyn crate::ImageSink,
        duration: std::time::Duration,
    ) -> ToolStep {
        let image_ids: Vec<String> = result
            .images
            .iter()
            .filter_map(|uri| crate::envelope::decode_data_uri(uri))
            .map(|(mime, bytes)| images.store(&bytes, &mime))
            .collect();
        let effect = result
            .result
            .get("effect")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut shown = serde_json::to_value(result).unwrap_or(Value::Null);
        if let Some(m) = shown.as_object_mut() {
            m.insert("images".into(), serde_json::json!(image_ids));
        }
        ToolStep {
            call_id: result.call_id.clone(),
            tool: tool.to_owned(),
            args,
            result: shown,
            image_ids,
            duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
            effect,
        }
    }

    /// The Result's `status`, when it has a known one.
    pub fn status(&self) -> Option<ResultStatus> {
        ResultStatus::deserialize(self.result.get("status")?).ok()
    }

    /// What a conversation keeps of the step: everything but the result's content.
    pub fn summary(&self) -> StepSummary {
        StepSummary {
            call_id: self.call_id.clone(),
            tool: self.tool.clone(),
            args: self.args.clone(),
            image_ids: self.image_ids.clone(),
            duration_ms: self.duration_ms,
            status: self.status(),
            effect: self.effect.clone(),
        }
    }
}

/// A tool step as a conversation's assistant message keeps it (the console's step cards).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StepSummary {
    /// The call's id.
    pub call_id: String,
    /// Tool name.
    pub tool: String,
    /// Its arguments.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub args: Value,
    /// Ids of the images the call returned.
    #[serde(default)]
    pub image_ids: Vec<String>,
    /// Wall time of the call.
    #[serde(default)]
    pub duration_ms: u64,
    /// The Result's status (`None` when it had none).
    #[serde(default)]
    pub status: Option<ResultStatus>,
    /// `changed` / `no_change` where the backend could tell.
    #[serde(default)]
    pub effect: Option<String>,
}

/// The event types of docs/design.md "Events", tagged by `type`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
        #[cfg_attr(feature = "ts", ts(type = "unknown"))]
        args: Value,
    },
    /// A tool call finished.
    Step(ToolStep),
    /// Usage so far.
    Usage(Usage),
    /// A call waits for a person's approval.
    Confirm {
        /// The call's id.
        call_id: String,
        /// Tool name.
        tool: String,
        /// Its arguments.
        #[cfg_attr(feature = "ts", ts(type = "unknown"))]
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
    /// A task step is about to run (task runs only).
    TaskStepStart(crate::task_run::TaskStepStart),
    /// A task step finished (task runs only).
    TaskStep(crate::task_run::TaskStepResult),
    /// A task step's attempt failed and it is tried again (task runs only).
    TaskStepRetry(crate::task_run::TaskStepRetry),
    /// A `for_each` round starts (task runs only).
    TaskRound(crate::task_run::TaskRound),
    /// Memories recalled into the run's prompt (the console's pseudo-card).
    Memory(crate::memory::MemoryNote),
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
        /// `chat` or `designer` (agent runs; task runs leave it out).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        mode: Option<RunMode>,
        /// Designer mode: the validated task file the run drafted (not a task until a person
        /// saves it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional, type = "unknown"))]
        draft: Option<Value>,
        /// Designer mode, with `draft`: what is valid but suspect in it (the validator's
        /// warnings, selectors the exploration never saw match), each at its path.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        warnings: Option<Vec<crate::draft::DraftIssue>>,
        /// Designer mode, without `draft`: why the run ended with no valid draft (the tool-call
        /// limit, a stop, the model gave up or never submitted).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        draft_error: Option<String>,
        /// A run with an output schema: its final answer checked against the schema — the
        /// parsed value, or the errors and the answer's text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        output: Option<crate::output::TypedResult>,
    },
}

impl EventKind {
    /// A `done` without a mode or a draft (task runs).
    pub fn done(answer: impl Into<String>, usage: Usage, status: DoneStatus) -> EventKind {
        EventKind::Done {
            answer: answer.into(),
            usage,
            status,
            mode: None,
            draft: None,
            warnings: None,
            draft_error: None,
            output: None,
        }
    }

    /// An agent run's `done`: its mode, and in designer mode the draft or why there is none.
    pub fn agent_done(
        answer: impl Into<String>,
        usage: Usage,
        status: DoneStatus,
        mode: RunMode,
        draft: Option<&crate::draft::DraftOutcome>,
    ) -> EventKind {
        use crate::draft::DraftOutcome;
        let (draft, warnings, draft_error) = match draft {
            None => (None, None, None),
            Some(DraftOutcome::Draft { task, warnings }) => {
                (Some(task.clone()), Some(warnings.clone()), None)
            }
            Some(DraftOutcome::Failed(why)) => (None, None, Some(why.clone())),
        };
        EventKind::Done {
            answer: answer.into(),
            usage,
            status,
            mode: Some(mode),
            draft,
            warnings,
            draft_error,
            output: None,
        }
    }

    /// Builder: a `done` that carries a typed result (`output`); any other event is returned
    /// as it is.
    pub fn with_output(mut self, typed: Option<crate::output::TypedResult>) -> EventKind {
        if let EventKind::Done { output, .. } = &mut self {
            *output = typed;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_are_the_serde_names() {
        for status in DoneStatus::ALL {
            let wire = serde_json::to_value(status).unwrap();
            assert_eq!(wire, status.as_str(), "{status:?}");
            assert_eq!(DoneStatus::from_name(status.as_str()), Some(status));
            let run = RunStatus::from(status);
            assert_eq!(serde_json::to_value(run).unwrap(), status.as_str());
            assert_eq!(serde_json::from_value::<RunStatus>(wire).unwrap(), run);
        }
        assert_eq!(
            serde_json::to_value(RunStatus::Running).unwrap(),
            RunStatus::RUNNING
        );
        assert_eq!(RunStatus::from_name("running"), Some(RunStatus::Running));
    }

    #[test]
    fn mode_names_are_the_serde_names() {
        for mode in RunMode::ALL {
            assert_eq!(serde_json::to_value(mode).unwrap(), mode.as_str());
            assert_eq!(RunMode::from_name(mode.as_str()), Some(mode));
        }
        assert_eq!(RunMode::default(), RunMode::Chat);
        assert_eq!(RunMode::from_name("Designer"), None);
    }

    #[test]
    fn an_unknown_run_status_is_refused_by_name() {
        let err = serde_json::from_value::<RunStatus>("paused".into()).unwrap_err();
        assert!(
            err.to_string().contains("unknown run status \"paused\""),
            "{err}"
        );
        assert_eq!(DoneStatus::from_name("running"), None);
    }
}
