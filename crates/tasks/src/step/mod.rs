//! The step language's types (docs/tasks.md): a [`Task`] is a named list of [`Step`]s, each an
//! [`Action`] (its `type` and parameters) with the fields every step takes. The validator
//! (`crate::validate`) is the only way in: it walks the raw JSON, reports every problem with its
//! path and builds these types, so a value of them is always well formed. They serialize back to
//! the same JSON (with defaults written out), and the JSON Schema is generated from them.
//!
//! ```
//! use deft_tasks::step::{Action, Step};
//! let task = deft_tasks::validate::validate_task(
//!     br#"{"name": "hello", "steps": [{"type": "click", "selector": {"text": "OK"}}]}"#.as_slice(),
//!     &Default::default(),
//! ).value.unwrap();
//! match &task.steps[0].action {
//!     Action::Click(c) => assert_eq!(c.selector.text.as_deref(), Some("OK")),
//!     other => panic!("{other:?}"),
//! }
//! ```

pub(crate) mod kind;
pub mod limits;
mod params;
mod walk;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

pub use kind::StepType;
pub use params::*;
pub use walk::{StepRef, child_path};

/// A task: steps deft runs on a device without a model, now or on a schedule.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "deft task", transform = crate::schema::transforms::task_root)]
pub struct Task {
    /// What the task is called in the console and the CLI (1–200 characters).
    #[schemars(length(min = 1, max = 200))]
    pub name: String,
    /// The device it runs on unless the run names another: `local` (this machine's desktop),
    /// `browser` (the managed Chromium) or a remote client's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 200))]
    pub device: Option<String>,
    /// The steps, in order (at most 500 counting nested ones).
    pub steps: Vec<Step>,
    /// What a failed step does unless it says otherwise: `stop` the run (the default) or
    /// `continue` with the next step.
    #[serde(default)]
    pub on_error: OnError,
    /// The longest the whole run may take, in seconds (at most 86,400; default 3,600).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 86400.0), extend("exclusiveMinimum" = 0))]
    pub timeout_s: Option<f64>,
    /// Variables and their default values; `{{name}}` in a step's text parameters is replaced by
    /// the value (a run request may give other values). Names: letters, digits and `_`, not
    /// starting with a digit. A value `{"secret": "NAME"}` is the secret NAME of deft serve's
    /// store, typed by `input_text` or `key_event` and shown nowhere.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, Variable>,
    /// When the run keeps a screenshot of the window with a step's result: `on_failure` (the
    /// default), `every_step` or `never`.
    #[serde(default)]
    pub screenshots: Screenshots,
}

/// A task variable's default: a text, or a secret of deft serve's store by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Variable {
    /// A text (a run request may give another).
    Text(String),
    /// A secret: its value is filled in when the step that types it is played, and every
    /// record of the run shows `••••(secret NAME)` instead.
    Secret(SecretRef),
}

impl Variable {
    /// The secret's name, for a secret variable.
    pub fn secret(&self) -> Option<&str> {
        match self {
            Variable::Secret(s) => Some(&s.secret),
            Variable::Text(_) => None,
        }
    }
}

impl From<&str> for Variable {
    fn from(text: &str) -> Self {
        Variable::Text(text.to_owned())
    }
}

/// `{"secret": "NAME"}`: a variable whose value is the secret NAME of deft serve's store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SecretRef {
    /// The secret's name: a letter, then letters, digits and `_` (at most 64 characters).
    #[schemars(regex(pattern = r"^[A-Za-z][A-Za-z0-9_]{0,63}$"))]
    pub secret: String,
}

impl Task {
    /// The text variables and their defaults (secret variables left out: a library's steps,
    /// which the validator keeps from having any).
    pub fn text_variables(&self) -> BTreeMap<String, String> {
        self.variables
            .iter()
            .filter_map(|(name, v)| match v {
                Variable::Text(t) => Some((name.clone(), t.clone())),
                Variable::Secret(_) => None,
            })
            .collect()
    }

    /// The names of the secrets the task's variables use, each once, in order.
    pub fn secret_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .variables
            .values()
            .filter_map(|v| v.secret().map(str::to_owned))
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// When a run keeps a screenshot of the window (of the screen when no window is selected)
/// with a step's result, so the run history shows what the device showed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Screenshots {
    /// After a step that failed (the default).
    #[default]
    OnFailure,
    /// After every step that ran (sub-steps of `group`, `loop` and `if_el`, not the
    /// containers themselves).
    EveryStep,
    /// Never.
    Never,
}

impl Screenshots {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Screenshots::OnFailure => "on_failure",
            Screenshots::EveryStep => "every_step",
            Screenshots::Never => "never",
        }
    }
}

/// One step: its `type` and parameters, and the fields every type takes.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(transform = crate::schema::transforms::closed)]
pub struct Step {
    /// The step's type and its parameters.
    #[serde(flatten)]
    pub action: Action,
    /// The longest this step may take, in seconds, above 0 and at most 3,600 (for `wait_el`:
    /// how long to wait, 0–300, default 10; for `group`, `loop` and `if_el`: the whole step
    /// with its sub-steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 3600.0))]
    pub timeout_s: Option<f64>,
    /// What this step's failure does: `stop` the run or `continue` with the next step (default:
    /// the enclosing `group`'s, `loop`'s, `if_el`'s or `for_each`'s, else the task's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_error: Option<OnError>,
    /// Try the step again after it failed (the steps that act or wait only; the schema lists it
    /// in their branches: `schema::transforms::closed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub retry: Option<Retry>,
    /// A remark for people (shown in the editor and the run history; at most 1,000 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1000))]
    pub note: Option<String>,
}

impl Step {
    /// A step with no timeout, `on_error` or note of its own.
    pub fn new(action: Action) -> Self {
        Step {
            action,
            timeout_s: None,
            on_error: None,
            retry: None,
            note: None,
        }
    }

    /// The step's type.
    pub fn step_type(&self) -> StepType {
        self.action.step_type()
    }
}

/// How a failed step is tried again: `times` more attempts at most, the first after
/// `delay_s`, each later pause `backoff` times the one before.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Retry {
    /// How many more times to try after the first attempt failed (1–10).
    #[schemars(range(min = 1, max = limits::MAX_RETRIES))]
    pub times: u32,
    /// Seconds to wait before the first retry (0–600, default 0).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = limits::MAX_RETRY_DELAY_S))]
    pub delay_s: f64,
    /// What each later pause is multiplied by (1–10, default 1: the same pause each time).
    #[serde(default = "Retry::default_backoff")]
    #[schemars(range(min = 1.0, max = limits::MAX_RETRY_BACKOFF))]
    pub backoff: f64,
}

impl Retry {
    fn default_backoff() -> f64 {
        1.0
    }

    /// How many attempts the step gets in all.
    pub fn attempts(&self) -> u32 {
        self.times + 1
    }

    /// The pause before retry `n` (1 for the first), capped at the longest pause allowed.
    pub fn delay(&self, n: u32) -> std::time::Duration {
        let exp = i32::try_from(n.saturating_sub(1)).unwrap_or(i32::MAX);
        let secs = (self.delay_s * self.backoff.powi(exp)).min(limits::MAX_RETRY_DELAY_S);
        std::time::Duration::from_secs_f64(secs.max(0.0))
    }
}

/// What a failed step does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// End the run as failed (the default).
    #[default]
    Stop,
    /// Record the failure and go on with the next step.
    Continue,
}

impl OnError {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            OnError::Stop => "stop",
            OnError::Continue => "continue",
        }
    }
}

/// What a step does: its `type` and parameters. The first sixteen are the action library's
/// ([`StepType::is_library`]); the rest are valid in tasks only.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Start an application by name, or open a URL in a browser.
    OpenApp(OpenApp),
    /// Close an application's windows, then end its processes.
    StopApp(StopApp),
    /// Switch the screen on (devices with a screen power).
    ScreenOn,
    /// Switch the screen off (devices with a screen power).
    ScreenOff,
    /// Press keys, in the shared key syntax.
    KeyEvent(KeyEvent),
    /// Scroll or drag the view by a direction and an amount.
    Swipe(Swipe),
    /// Swipe until a control appears, at most `max_swipes` times.
    SwipeUntil(SwipeUntil),
    /// Click a control.
    Click(Click),
    /// Press a control and hold.
    LongClick(LongClick),
    /// Wait for a control to appear (or to be gone).
    WaitEl(WaitEl),
    /// Type text into a control, replacing or appending.
    InputText(InputText),
    /// Set the clipboard, or read it into a variable.
    Clipboard(Clipboard),
    /// Pause for a number of seconds.
    Wait(Wait),
    /// Repeat sub-steps a number of times, or while (until) a control shows.
    Loop(Loop),
    /// Named sub-steps.
    Group(Group),
    /// Sub-steps depending on whether a control shows.
    IfEl(IfEl),
    /// Sub-steps once for each item of a list, a variable or a CSV file (tasks only).
    ForEach(ForEach),
    /// Click a point given as fractions of the window (tasks only: coordinates).
    ClickXy(ClickXy),
    /// Move through points given as fractions of the window (tasks only: coordinates).
    Gesture(Gesture),
    /// Keep the screen awake, or let it sleep again (tasks only).
    KeepScreen(KeepScreen),
    /// Send a notification to the console (tasks only).
    Notify(Notify),
    /// End the run here as stopped (tasks only).
    StopSelf(Finish),
    /// End the run here as completed (tasks only).
    MarkDone(Finish),
}

impl Action {
    /// The step type of this action.
    pub fn step_type(&self) -> StepType {
        match self {
            Action::OpenApp(_) => StepType::OpenApp,
            Action::StopApp(_) => StepType::StopApp,
            Action::ScreenOn => StepType::ScreenOn,
            Action::ScreenOff => StepType::ScreenOff,
            Action::KeyEvent(_) => StepType::KeyEvent,
            Action::Swipe(_) => StepType::Swipe,
            Action::SwipeUntil(_) => StepType::SwipeUntil,
            Action::Click(_) => StepType::Click,
            Action::LongClick(_) => StepType::LongClick,
            Action::WaitEl(_) => StepType::WaitEl,
            Action::InputText(_) => StepType::InputText,
            Action::Clipboard(_) => StepType::Clipboard,
            Action::Wait(_) => StepType::Wait,
            Action::Loop(_) => StepType::Loop,
            Action::Group(_) => StepType::Group,
            Action::IfEl(_) => StepType::IfEl,
            Action::ForEach(_) => StepType::ForEach,
            Action::ClickXy(_) => StepType::ClickXy,
            Action::Gesture(_) => StepType::Gesture,
            Action::KeepScreen(_) => StepType::KeepScreen,
            Action::Notify(_) => StepType::Notify,
            Action::StopSelf(_) => StepType::StopSelf,
            Action::MarkDone(_) => StepType::MarkDone,
        }
    }
}
