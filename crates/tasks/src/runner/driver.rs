//! The runner's only way to a device: tool calls through the device's Dispatcher, made as the
//! agent makes them — through a `deft_tools::session::DeviceSession`, which records them as
//! `step_start` / `step` events and follows window selections from the HostAgent to the AppAgent
//! Computer — and controls located with the device's own `find_controls`, so a selector means the
//! same for a task, a model and the dataflow pipeline.

use std::time::Duration;

use deft_protocol::found::chosen_control;
use deft_protocol::selector::{MatchMode, Selector};
use deft_protocol::{CommandResult, ResultStatus, ToolType};
use deft_tools::emitter::Emitter;
use deft_tools::session::{Call, DeviceSession};
use deft_tools::{AppSelection, Device};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::bounds::{DEFAULT_STEP_TIMEOUT, Limit};
use super::outcome::{Located, StepError};
use super::texts;

/// How many matches a locate asks for: the chosen one and a few to report ambiguity with.
const LOCATE_LIMIT: usize = 5;

/// The longest a step's screenshot may take.
pub(crate) const SCREENSHOT_LIMIT: Duration = Duration::from_secs(10);

/// The screenshot tools every device with a screen has (docs/observation.md).
const WINDOW_SHOT: &str = "capture_window_screenshot";
const DESKTOP_SHOT: &str = "capture_desktop_screenshot";

/// One task run's session on its device.
pub(crate) struct Driver<'a> {
    /// The device, the window selected now, the recorded calls.
    session: DeviceSession<'a>,
    /// The run's stop (the session's).
    pub(crate) cancel: CancellationToken,
    /// The run's event stream (the session's).
    pub(crate) em: Emitter,
    /// The time the step running now may take: its tool calls' batch deadlines follow it.
    pub(crate) limit: Limit,
}

impl<'a> Driver<'a> {
    pub(crate) fn new(device: &'a Device, cancel: CancellationToken, em: Emitter) -> Self {
        Driver {
            session: DeviceSession::new(device, cancel.clone(), em.clone()),
            cancel,
            em,
            limit: Limit::of(DEFAULT_STEP_TIMEOUT, Duration::ZERO, &[]),
        }
    }

    /// The device's id.
    pub(crate) fn device_id(&self) -> &str {
        &self.session.device().id
    }

    /// The device's profile (`desktop`, `browser`, …): which tools it has.
    pub(crate) fn profile(&self) -> &str {
        &self.session.device().profile
    }

    /// Starts in `app` (a window selected before the run).
    pub(crate) fn start_in(&mut self, app: AppSelection) {
        self.session.select(Some(app));
    }

    /// Drops the window selection (its application was stopped).
    pub(crate) fn forget_app(&mut self) {
        self.session.select(None);
    }

    /// Whether an application window is selected (controls can be located).
    pub(crate) fn has_app(&self) -> bool {
        self.session.app().is_some()
    }

    /// The application window selected now.
    pub(crate) fn selection(&self) -> Option<&AppSelection> {
        self.session.app()
    }

    /// Time spent inside tool calls (the runner's own overhead is the rest).
    pub(crate) fn tool_time(&self) -> Duration {
        self.session.tool_time()
    }

    /// Tool calls made.
    pub(crate) fn calls(&self) -> u64 {
        self.session.calls()
    }

    /// Runs one tool call on the device and records it; follows a window selection it reports.
    /// Its batch deadline follows the step's limit.
    pub(crate) async fn call(
        &mut self,
        tool_type: ToolType,
        tool: &str,
        args: Value,
        on_app: bool,
    ) -> CommandResult {
        let call = Call::new(Some(tool_type), tool, args, on_app)
            .with_deadline(self.limit.call_deadline());
        self.session.call(call).await.result
    }

    /// A screenshot of the selected window (of the screen when none is selected, or when the
    /// window cannot be captured), kept through the run's image sink: the ids of its images,
    /// none when the device could not take one. Each capture may take [`SCREENSHOT_LIMIT`],
    /// whatever the step's own limit; a run whose time is up still gets it.
    pub(crate) async fn screenshot(&mut self) -> Vec<String> {
        if self.has_app() {
            let ids = self.capture(WINDOW_SHOT, true).await;
            if !ids.is_empty() {
                return ids;
            }
        }
        self.capture(DESKTOP_SHOT, false).await
    }

    async fn capture(&mut self, tool: &str, on_app: bool) -> Vec<String> {
        // By name alone: the desktop and the browser route their screenshots as observations,
        // and other devices may route them otherwise.
        let mut call = Call::new(None, tool, json!({}), on_app).with_deadline(SCREENSHOT_LIMIT);
        if self.cancel.is_cancelled() {
            call = call.with_cancel(CancellationToken::new());
        }
        let called = self.session.call(call).await;
        if called.result.status == ResultStatus::Success {
            called.image_ids
        } else {
            Vec::new()
        }
    }

    /// A call whose failure fails the step: the Result's value, or its error text.
    pub(crate) async fn must(
        &mut self,
        tool_type: ToolType,
        tool: &str,
        args: Value,
        on_app: bool,
    ) -> Result<Value, StepError> {
        let r = self.call(tool_type, tool, args, on_app).await;
        match r.status {
            ResultStatus::Success => Ok(r.result),
            _ => Err(StepError(
                r.error
                    .unwrap_or_else(|| texts::tool_failed_without_text(tool)),
            )),
        }
    }

    /// An action on the selected application.
    pub(crate) async fn act(&mut self, tool: &str, args: Value) -> Result<Value, StepError> {
        self.must(ToolType::Action, tool, args, true).await
    }

    /// An observation of the selected application.
    pub(crate) async fn observe(&mut self, tool: &str, args: Value) -> Result<Value, StepError> {
        self.must(ToolType::DataCollection, tool, args, true).await
    }

    /// The control `selector` picks in the selected window. When it matches nothing, a text
    /// selector is tried once more with fuzzy matching; a control found that way is returned
    /// with `healed_from`, so the step result shows what drifted.
    pub(crate) async fn locate(&mut self, selector: &Selector) -> Result<Located, StepError> {
        if !self.has_app() {
            return Err(StepError(texts::NO_WINDOW.to_owned()));
        }
        let found = self.find(selector).await?;
        if let Some(control) = chosen_control(&found) {
            return Ok(Located {
                control,
                healed_from: None,
            });
        }
        let note = found["note"].as_str().unwrap_or_default().to_owned();
        if selector.text.is_some() && selector.mode != MatchMode::Fuzzy {
            let fuzzy = selector.clone().with_mode(MatchMode::Fuzzy);
            let healed = self.find(&fuzzy).await?;
            if let Some(control) = chosen_control(&healed) {
                return Ok(Located {
                    control,
                    healed_from: Some(selector.to_string()),
                });
            }
        }
        Err(StepError(texts::not_found(selector, &note)))
    }

    /// Whether anything matches `selector` now (no healing: a condition is asked as written).
    pub(crate) async fn present(&mut self, selector: &Selector) -> Result<bool, StepError> {
        if !self.has_app() {
            return Err(StepError(texts::NO_WINDOW.to_owned()));
        }
        let found = self.find(selector).await?;
        Ok(!found["chosen"].is_null())
    }

    async fn find(&mut self, selector: &Selector) -> Result<Value, StepError> {
        let value = self
            .observe(
                "find_controls",
                json!({"selector": selector, "limit": LOCATE_LIMIT, "format": "json"}),
            )
            .await?;
        // Structured content arrives as JSON; a text answer would be a device without the
        // JSON form.
        match value {
            Value::String(s) => {
                serde_json::from_str(&s).map_err(|_| StepError(texts::find_answer_unreadable(&s)))
            }
            other => Ok(other),
        }
    }
}
