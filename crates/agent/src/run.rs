//! The tool-calling loop (seed 001 §3.1).

use std::sync::Arc;
use std::time::Instant;

use deft_protocol::event::DeltaKind;
use deft_protocol::{
    AgentEvent, Command, CommandResult, DoneStatus, EventKind, ResultStatus, Usage,
};
use deft_tools::{Device, Devices, ExecContext};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::context::Conversation;
use crate::images::{decode_data_uri, downscale_for_model};
use crate::llm::{Completion, Delta, LlmClient, LlmError, ToolCall};
use crate::toolset::{self, Target, ToolSet};
use crate::{AgentConfig, RunIo, prompt, texts};

/// One earlier message of the conversation (role/content only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// Its text.
    pub content: String,
}

/// What to do.
#[derive(Debug, Clone, Default)]
pub struct RunRequest {
    /// The goal.
    pub goal: String,
    /// Earlier messages of the conversation, oldest first (the last rounds are kept).
    pub history: Vec<HistoryMessage>,
    /// Extra system context (experiences, actions) placed after the system prompt.
    pub extra_context: Vec<String>,
}

impl RunRequest {
    /// A goal with no history.
    pub fn new(goal: &str) -> Self {
        RunRequest {
            goal: goal.to_owned(),
            ..Default::default()
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// Final answer (or summary, or the error).
    pub answer: String,
    /// How it ended.
    pub status: DoneStatus,
    /// Tokens over all model calls.
    pub usage: Usage,
    /// Model calls made.
    pub steps: u32,
    /// Where the time went.
    pub timings: RunTimings,
}

/// Where a run's time went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunTimings {
    /// The whole run.
    pub total: std::time::Duration,
    /// Waiting for the model (requests and streaming).
    pub model: std::time::Duration,
    /// Waiting for tools (dispatcher calls, including `list_tools`).
    pub tools: std::time::Duration,
    /// Preparing images for the model (decode, downscale, encode).
    pub images: std::time::Duration,
}

/// The agent: a model client, settings, and the device directory (for `list_devices`).
pub struct Agent {
    llm: Arc<LlmClient>,
    config: AgentConfig,
    devices: Arc<dyn Devices>,
}

/// Assigns `seq` and fans events out; guarantees exactly one `done`.
struct Emitter {
    io: RunIo,
    seq: u64,
    done: bool,
    timings: RunTimings,
}

impl Emitter {
    fn emit(&mut self, kind: EventKind) {
        if self.done {
            return;
        }
        self.done = matches!(kind, EventKind::Done { .. });
        self.seq += 1;
        let event = AgentEvent {
            seq: self.seq,
            kind,
        };
        for sink in &self.io.events {
            sink.send(&event);
        }
    }
}

/// The selected application: the AppAgent Computer's process and root.
#[derive(Debug, Clone)]
struct AppSelection {
    process: String,
    root: String,
}

/// Why the loop stopped early.
enum Stop {
    Done(DoneStatus, String),
}

impl Agent {
    /// An agent over `llm`.
    pub fn new(llm: Arc<LlmClient>, config: AgentConfig, devices: Arc<dyn Devices>) -> Self {
        Agent {
            llm,
            config,
            devices,
        }
    }

    /// The settings.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// Runs `request` on `device` until an answer, the step limit, the run timeout or `cancel`.
    /// Always emits exactly one `done` event, last.
    pub async fn run(
        &self,
        device: &Device,
        request: RunRequest,
        io: RunIo,
        cancel: CancellationToken,
    ) -> RunOutcome {
        let started = Instant::now();
        let mut em = Emitter {
            io,
            seq: 0,
            done: false,
            timings: RunTimings::default(),
        };
        let mut usage = Usage::default();
        let mut steps = 0u32;
        let deadline = tokio::time::Instant::now() + self.config.run_timeout;
        let run = self.run_inner(device, request, &mut em, &mut usage, &mut steps, &cancel);
        let (status, answer) = match tokio::time::timeout_at(deadline, run).await {
            Ok(Stop::Done(status, answer)) => (status, answer),
            Err(_) => {
                cancel.cancel();
                let msg = texts::run_timeout(self.config.run_timeout);
                em.emit(EventKind::Error {
                    message: msg.clone(),
                });
                (DoneStatus::Timeout, msg)
            }
        };
        em.emit(EventKind::Done {
            answer: answer.clone(),
            usage,
            status,
        });
        let mut timings = em.timings;
        timings.total = started.elapsed();
        RunOutcome {
            answer,
            status,
            usage,
            steps,
            timings,
        }
    }

    async fn run_inner(
        &self,
        device: &Device,
        request: RunRequest,
        em: &mut Emitter,
        usage: &mut Usage,
        steps: &mut u32,
        cancel: &CancellationToken,
    ) -> Stop {
        let mut app: Option<AppSelection> = None;
        let mut app_tools = Vec::new();
        let listed = Instant::now();
        let host_tools =
            toolset::list_tools(device.dispatcher.as_ref(), &self.ctx(device, None, cancel)).await;
        em.timings.tools += listed.elapsed();
        let host_tools = match host_tools {
            Ok(t) => t,
            Err(e) => {
                let msg = format!("cannot learn the tools of device '{}': {e}", device.id);
                em.emit(EventKind::Error {
                    message: msg.clone(),
                });
                return Stop::Done(DoneStatus::Failed, msg);
            }
        };
        let mut tools = ToolSet::new(&host_tools, &app_tools);
        let system = match prompt::system_prompt(&device.id, &device.profile, &tools.names()) {
            Ok(s) => s,
            Err(e) => {
                em.emit(EventKind::Error { message: e.clone() });
                return Stop::Done(DoneStatus::Failed, e);
            }
        };
        let mut convo = Conversation::new(self.config.keep_images);
        convo.push(json!({"role": "system", "content": system}));
        for extra in request
            .extra_context
            .iter()
            .filter(|e| !e.trim().is_empty())
        {
            convo.push(json!({"role": "system", "content": extra}));
        }
        let keep = request
            .history
            .len()
            .saturating_sub(self.config.history_rounds * 2);
        for m in &request.history[keep..] {
            convo.push(json!({"role": m.role, "content": m.content}));
        }
        convo.push(json!({"role": "user", "content": request.goal}));

        let mut last_failure: Option<(String, String, u32)> = None;
        while *steps < self.config.max_steps {
            *steps += 1;
            let completion = match self
                .call_model(&convo, &tools.schemas(), em, usage, cancel)
                .await
            {
                Ok(c) => c,
                Err(stop) => return stop,
            };
            if completion.tool_calls.is_empty() {
                return Stop::Done(DoneStatus::Completed, completion.content);
            }
            convo.push(assistant_message(&completion));
            let mut images = Vec::new();
            let mut failed_in_turn = false;
            for call in &completion.tool_calls {
                if cancel.is_cancelled() {
                    return Stop::Done(DoneStatus::Stopped, "stopped".to_owned());
                }
                let (text, result) = if failed_in_turn {
                    (texts::SKIPPED_AFTER_FAILURE.to_owned(), None)
                } else {
                    self.execute_call(device, &tools, &mut app, call, em, &mut images, cancel)
                        .await
                };
                let failed = result
                    .as_ref()
                    .is_none_or(|r| r.status != ResultStatus::Success)
                    && !failed_in_turn;
                if failed {
                    failed_in_turn = true;
                    let same = last_failure.as_ref().is_some_and(|(n, a, _)| {
                        *n == call.name && *a == normalize_args(&call.arguments)
                    });
                    let times = if same {
                        last_failure.as_ref().map_or(1, |f| f.2 + 1)
                    } else {
                        1
                    };
                    last_failure =
                        Some((call.name.clone(), normalize_args(&call.arguments), times));
                    if times >= self.config.max_repeated_failures {
                        convo.push(tool_message(&call.id, &text));
                        let msg = texts::repeated_failure(&call.name, times);
                        em.emit(EventKind::Error {
                            message: msg.clone(),
                        });
                        return Stop::Done(DoneStatus::Failed, msg);
                    }
                } else if result.is_some() {
                    last_failure = None;
                }
                if cancel.is_cancelled() {
                    return Stop::Done(DoneStatus::Stopped, "stopped".to_owned());
                }
                convo.push(tool_message(&call.id, &text));
                // A hand-off: a result naming a window's root (select_application_window, a new
                // browser tab) switches the AppAgent Computer; the next calls see the app's tools.
                if let Some(r) = &result
                    && r.status == ResultStatus::Success
                    && let Some(sel) = selection_from(r)
                {
                    let ctx = self.ctx(device, Some(&sel), cancel);
                    match toolset::list_tools(device.dispatcher.as_ref(), &ctx).await {
                        Ok(t) => app_tools = t,
                        Err(e) => em.emit(EventKind::Error {
                            message: format!(
                                "cannot learn the tools of the selected application: {e}"
                            ),
                        }),
                    }
                    app = Some(sel);
                    tools = ToolSet::new(&host_tools, &app_tools);
                }
            }
            convo.push_images(images);
        }
        // Step limit: one more call without tools for a summary.
        convo.push(json!({"role": "user", "content": texts::STEP_LIMIT_SUMMARY}));
        match self.call_model(&convo, &[], em, usage, cancel).await {
            Ok(c) => Stop::Done(DoneStatus::MaxSteps, c.content),
            Err(stop) => stop,
        }
    }

    fn ctx(
        &self,
        device: &Device,
        app: Option<&AppSelection>,
        cancel: &CancellationToken,
    ) -> ExecContext {
        let mut ctx = ExecContext::new(&device.id, &device.profile);
        ctx.cancel = cancel.clone();
        if let Some(a) = app {
            ctx.agent = "AppAgent".to_owned();
            ctx.process = a.process.clone();
            ctx.root = a.root.clone();
        }
        ctx
    }

    async fn call_model(
        &self,
        convo: &Conversation,
        tools: &[Value],
        em: &mut Emitter,
        usage: &mut Usage,
        cancel: &CancellationToken,
    ) -> Result<Completion, Stop> {
        let messages = convo.request();
        let asked = Instant::now();
        let result = {
            let mut on_delta = |d: Delta| match d {
                Delta::Content(text) => em.emit(EventKind::Delta {
                    text,
                    kind: DeltaKind::Content,
                }),
                Delta::Reasoning(text) => em.emit(EventKind::Delta {
                    text,
                    kind: DeltaKind::Reasoning,
                }),
            };
            self.llm
                .complete(&messages, tools, cancel, &mut on_delta)
                .await
        };
        em.timings.model += asked.elapsed();
        match result {
            Ok(c) => {
                usage.calls += 1;
                if let Some(u) = c.usage {
                    usage.prompt_tokens += u.prompt_tokens;
                    usage.completion_tokens += u.completion_tokens;
                    usage.total_tokens += u.total_tokens;
                }
                em.emit(EventKind::Usage(*usage));
                Ok(c)
            }
            Err(LlmError::Cancelled) => Err(Stop::Done(DoneStatus::Stopped, "stopped".to_owned())),
            Err(e) => {
                let msg = e.to_string();
                em.emit(EventKind::Error {
                    message: msg.clone(),
                });
                Err(Stop::Done(DoneStatus::Failed, msg))
            }
        }
    }

    /// Runs one tool call; returns the tool message text and the Result (None when it never ran).
    #[allow(clippy::too_many_arguments)]
    async fn execute_call(
        &self,
        device: &Device,
        tools: &ToolSet,
        app: &mut Option<AppSelection>,
        call: &ToolCall,
        em: &mut Emitter,
        images: &mut Vec<String>,
        cancel: &CancellationToken,
    ) -> (String, Option<CommandResult>) {
        let Some(offered) = tools.get(&call.name) else {
            return (texts::unknown_tool(&call.name, &tools.names()), None);
        };
        let args = match parse_arguments(&call.arguments) {
            Ok(a) => a,
            Err(detail) => return (texts::invalid_arguments(&call.name, &detail), None),
        };
        let args_value = Value::Object(args.clone());
        if let Some(reason) = self.config.confirm.reason(&offered.name, &args) {
            em.emit(EventKind::Confirm {
                call_id: call.id.clone(),
                tool: offered.name.clone(),
                args: args_value.clone(),
                reason: reason.clone(),
            });
            let approver = em.io.approver.clone();
            let answer = tokio::select! {
                a = tokio::time::timeout(self.config.confirm.timeout, approver.approve(&call.id, &offered.name, &args_value, &reason)) => a.unwrap_or(false),
                _ = cancel.cancelled() => false,
            };
            em.emit(EventKind::Confirmed {
                call_id: call.id.clone(),
                approve: answer,
            });
            if !answer {
                return (texts::denied(&offered.name), None);
            }
        }
        em.emit(EventKind::StepStart {
            call_id: call.id.clone(),
            tool: offered.name.clone(),
            args: args_value.clone(),
        });
        let started = Instant::now();
        let result = match &offered.target {
            Target::Platform => {
                let list = serde_json::to_value(self.devices.list()).unwrap_or(Value::Null);
                CommandResult::success(&call.id, list, Some("platform"))
            }
            Target::Host(tool_type) | Target::App(tool_type) => {
                let on_app = matches!(offered.target, Target::App(_));
                let ctx = self.ctx(device, if on_app { app.as_ref() } else { None }, cancel);
                let cmd = Command {
                    call_id: call.id.clone(),
                    tool_name: offered.name.clone(),
                    parameters: args,
                    tool_type: Some(*tool_type),
                };
                device
                    .dispatcher
                    .execute(&ctx, vec![cmd])
                    .await
                    .pop()
                    .unwrap_or_else(|| {
                        CommandResult::failure(&call.id, "the device returned no result", None)
                    })
            }
        };
        let took = started.elapsed();
        em.timings.tools += took;
        let duration_ms = took.as_millis() as u64;
        let mut image_ids = Vec::new();
        for uri in &result.images {
            if let Some((mime, bytes)) = decode_data_uri(uri) {
                image_ids.push(em.io.images.store(&bytes, &mime));
                let converting = Instant::now();
                match downscale_for_model(
                    &bytes,
                    self.config.image_max_width,
                    self.config.jpeg_quality,
                ) {
                    Ok(img) => images.push(img.data_uri),
                    Err(e) => tracing::warn!(
                        "an image from {} could not be prepared for the model: {e}",
                        offered.name
                    ),
                }
                em.timings.images += converting.elapsed();
            }
        }
        let effect = result
            .result
            .get("effect")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut shown = serde_json::to_value(&result).unwrap_or(Value::Null);
        if let Some(m) = shown.as_object_mut() {
            m.insert("images".into(), json!(image_ids));
        }
        em.emit(EventKind::Step {
            call_id: call.id.clone(),
            tool: offered.name.clone(),
            args: args_value,
            result: shown,
            image_ids,
            duration_ms,
            effect,
        });
        (tool_text(&result), Some(result))
    }
}

fn parse_arguments(text: &str) -> Result<Map<String, Value>, String> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(format!("expected an object, got {}", kind_of(&other))),
        Err(e) => Err(e.to_string()),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn normalize_args(text: &str) -> String {
    serde_json::from_str::<Value>(text)
        .map(|v| v.to_string())
        .unwrap_or_else(|_| text.trim().to_owned())
}

/// The tool message text: a string result verbatim (listings stay compact), other results as
/// compact JSON, failures as `Error: …`.
fn tool_text(r: &CommandResult) -> String {
    match r.status {
        ResultStatus::Success => match &r.result {
            Value::String(s) => s.clone(),
            Value::Null => texts::DONE_NO_RESULT.to_owned(),
            v => v.to_string(),
        },
        ResultStatus::Failure => {
            format!("Error: {}", r.error.as_deref().unwrap_or("the tool failed"))
        }
        ResultStatus::Skipped => {
            format!("Skipped: {}", r.error.as_deref().unwrap_or("not executed"))
        }
    }
}

fn tool_message(call_id: &str, text: &str) -> Value {
    json!({"role": "tool", "tool_call_id": call_id, "content": text})
}

fn assistant_message(c: &Completion) -> Value {
    let calls: Vec<Value> = c
        .tool_calls
        .iter()
        .map(|t| json!({"id": t.id, "type": "function", "function": {"name": t.name, "arguments": t.arguments}}))
        .collect();
    let content = if c.content.is_empty() {
        Value::Null
    } else {
        Value::String(c.content.clone())
    };
    json!({"role": "assistant", "content": content, "tool_calls": calls})
}

/// The AppAgent selection a result reports: `{root_name, window_info: {name, …}}`.
fn selection_from(r: &CommandResult) -> Option<AppSelection> {
    let root = r.result.get("root_name")?.as_str()?.to_owned();
    r.result.get("window_info")?.as_object()?;
    let process = r
        .result
        .pointer("/window_info/name")
        .or_else(|| r.result.pointer("/window_info/title"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    Some(AppSelection { process, root })
}
