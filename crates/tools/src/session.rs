//! One recorded tool call (docs/design.md "One recorded tool call"): the agent, the task runner and
//! the dataflow all call a device's tools through a [`DeviceSession`]. A call builds the
//! [`ExecContext`] (the HostAgent Computer, or the selected application's AppAgent Computer) and
//! the [`Command`], sends it as a one-command batch through the device's Dispatcher, times it,
//! emits `step_start` and then the `step` event made by [`ToolStep::from_result`] (images to the
//! run's image sink, ids in the event), and follows a window selection the Result reports
//! ([`AppSelection::from_result`]: HostAgent → AppAgent).
//!
//! What differs between callers are parameters of the [`Call`]: the call id (the model's, or a
//! fresh one), the tool type (none: wherever the device routes the tool), which Computer, and a
//! deadline or cancellation of the call's own (a task step's screenshot, the dataflow's cleanup).
//! A call answered elsewhere (the agent's platform tools) is recorded the same way with
//! [`DeviceSession::record`].

use std::future::Future;
use std::time::{Duration, Instant};

use deft_protocol::{Command, CommandResult, EventKind, ToolStep, ToolType};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::computer::LIST_TOOLS;
use crate::devices::Device;
use crate::dispatcher::ExecContext;
use crate::emitter::Emitter;
use crate::selection::AppSelection;
use crate::texts;

/// One run's session on its device: the device, the application selected now, the run's
/// cancellation, the calls' deadline and the run's event stream.
pub struct DeviceSession<'a> {
    device: &'a Device,
    cancel: CancellationToken,
    deadline: Option<Duration>,
    app: Option<AppSelection>,
    em: Emitter,
    tool_time: Duration,
    calls: u64,
}

/// One tool call: the tool, its arguments, where it runs, and what bounds it.
#[derive(Debug, Clone)]
pub struct Call<'c> {
    /// The call's id (the model's); `None`: a fresh one.
    pub call_id: Option<String>,
    /// The tool's type; `None`: the tool wherever the device routes it by name.
    pub tool_type: Option<ToolType>,
    /// The tool's name.
    pub tool: &'c str,
    /// Its arguments as the `step_start` event shows them (an object is sent as the parameters;
    /// anything else sends none).
    pub args: Value,
    /// On the selected application's AppAgent Computer (the HostAgent's when none is selected).
    pub on_app: bool,
    /// The batch deadline of this call; `None`: the session's.
    pub deadline: Option<Duration>,
    /// The cancellation of this call; `None`: the session's.
    pub cancel: Option<CancellationToken>,
}

impl<'c> Call<'c> {
    /// `tool` with `args` (`tool_type` none: routed by name), on the selected application when
    /// `on_app`.
    pub fn new(tool_type: Option<ToolType>, tool: &'c str, args: Value, on_app: bool) -> Self {
        Call {
            call_id: None,
            tool_type,
            tool,
            args,
            on_app,
            deadline: None,
            cancel: None,
        }
    }

    /// Builder: the call's id.
    pub fn with_id(mut self, call_id: &str) -> Self {
        self.call_id = Some(call_id.to_owned());
        self
    }

    /// Builder: a batch deadline of its own.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Builder: a cancellation of its own (a cleanup that runs after a stop).
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = Some(cancel);
        self
    }
}

/// What a call brought back.
#[derive(Debug, Clone)]
pub struct Called {
    /// The Result (a failure when the device answered none).
    pub result: CommandResult,
    /// The ids the Result's images were kept under.
    pub image_ids: Vec<String>,
    /// How long the call took.
    pub took: Duration,
}

impl<'a> DeviceSession<'a> {
    /// A session on `device`: `cancel` stops its calls, events and images go to `em`; no
    /// application is selected and calls get [`ExecContext`]'s default deadline.
    pub fn new(device: &'a Device, cancel: CancellationToken, em: Emitter) -> Self {
        DeviceSession {
            device,
            cancel,
            deadline: None,
            app: None,
            em,
            tool_time: Duration::ZERO,
            calls: 0,
        }
    }

    /// Builder: every call's batch deadline (unless a [`Call`] has its own).
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// The device.
    pub fn device(&self) -> &'a Device {
        self.device
    }

    /// The run's event stream.
    pub fn emitter(&self) -> &Emitter {
        &self.em
    }

    /// The run's cancellation.
    pub fn cancel(&self) -> &CancellationToken {
        &self.cancel
    }

    /// The application selected now.
    pub fn app(&self) -> Option<&AppSelection> {
        self.app.as_ref()
    }

    /// Selects `app` (a hand-off reported elsewhere), or drops the selection (its application
    /// was stopped).
    pub fn select(&mut self, app: Option<AppSelection>) {
        self.app = app;
    }

    /// Time spent inside recorded calls.
    pub fn tool_time(&self) -> Duration {
        self.tool_time
    }

    /// Recorded calls made.
    pub fn calls(&self) -> u64 {
        self.calls
    }

    /// The context of a call on the HostAgent Computer, or on the selected application's
    /// AppAgent Computer when `on_app` (and one is selected).
    pub fn context(&self, on_app: bool) -> ExecContext {
        let mut ctx = ExecContext::new(&self.device.id, &self.device.profile);
        ctx.cancel = self.cancel.clone();
        if let Some(deadline) = self.deadline {
            ctx.deadline = deadline;
        }
        if on_app && let Some(app) = &self.app {
            app.apply(&mut ctx);
        }
        ctx
    }

    /// Runs `call` on the device and records it (see the module docs).
    pub async fn call(&mut self, call: Call<'_>) -> Called {
        self.call_seen(call, |_, _| {}).await
    }

    /// [`DeviceSession::call`], handing the finished step and its Result to `seen` before the
    /// `step` event is emitted (the agent's extensions hear of every call that way).
    pub async fn call_seen(
        &mut self,
        call: Call<'_>,
        seen: impl FnOnce(&ToolStep, &CommandResult),
    ) -> Called {
        let mut ctx = self.context(call.on_app);
        if let Some(deadline) = call.deadline {
            ctx.deadline = deadline;
        }
        if let Some(cancel) = call.cancel {
            ctx.cancel = cancel;
        }
        let call_id = call
            .call_id
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let parameters = match &call.args {
            Value::Object(m) => m.clone(),
            _ => Map::new(),
        };
        let cmd_id = call_id.clone();
        let cmd = Command {
            call_id: call_id.clone(),
            tool_name: call.tool.to_owned(),
            parameters,
            tool_type: call.tool_type,
        };
        let device = self.device;
        let run = async move {
            device
                .dispatcher
                .execute(&ctx, vec![cmd])
                .await
                .pop()
                .unwrap_or_else(|| CommandResult::failure(&cmd_id, texts::NO_RESULT, None))
        };
        self.record(&call_id, call.tool, call.args, run, seen).await
    }

    /// Records a call whose Result `run` brings (a tool answered outside the device, such as the
    /// agent's platform tools) as [`DeviceSession::call`] records a device call: `step_start`,
    /// the timing, the `step` event (after `seen`), the window selection it reports.
    pub async fn record(
        &mut self,
        call_id: &str,
        tool: &str,
        args: Value,
        run: impl Future<Output = CommandResult>,
        seen: impl FnOnce(&ToolStep, &CommandResult),
    ) -> Called {
        self.em.emit(EventKind::StepStart {
            call_id: call_id.to_owned(),
            tool: tool.to_owned(),
            args: args.clone(),
        });
        let started = Instant::now();
        let result = run.await;
        let took = started.elapsed();
        self.tool_time += took;
        self.calls += 1;
        let mut step = ToolStep::from_result(tool, args, &result, self.em.images().as_ref(), took);
        step.call_id = call_id.to_owned();
        if tool == LIST_TOOLS {
            // The record names the tools; their schemas would drown the report.
            step.result["result"] = json!(tool_names(&result.result));
        }
        seen(&step, &result);
        let image_ids = step.image_ids.clone();
        self.em.emit(EventKind::Step(step));
        if let Some(selection) = AppSelection::from_result(&result) {
            self.app = Some(selection);
        }
        Called {
            result,
            image_ids,
            took,
        }
    }
}

/// The names in a `list_tools` answer.
fn tool_names(listed: &Value) -> Vec<&str> {
    listed
        .as_array()
        .map(|a| a.iter().filter_map(|t| t["tool_name"].as_str()).collect())
        .unwrap_or_default()
}
