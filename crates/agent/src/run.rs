//! The tool-calling loop (seed 001 §3.1).

use std::sync::Arc;
use std::time::Instant;

use deft_protocol::event::DeltaKind;
use deft_protocol::{
    CommandResult, DoneStatus, DraftOutcome, EventKind, OutputError, ResultStatus, RunMode,
    ToolStep, TypedResult, Usage,
};
use deft_tools::emitter::Emitter;
use deft_tools::session::{Call, Called, DeviceSession};
use deft_tools::{AppSelection, Device, Devices};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::context::Conversation;
use crate::extension::{CallRecord, Starting};
use crate::images::{decode_data_uri, downscale_for_model};
use crate::llm::{CallOptions, CallUsage, Completion, Delta, LlmClient, LlmError, ToolCall};
use crate::output::OutputSchema;
use crate::platform::{ListDevices, PlatformCall, PlatformTool};
use crate::profile::RunProfile;
use crate::toolset::{self, Target, ToolSet};
use crate::{AgentConfig, Approver, RunIo, prompt, texts};

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
    /// Earlier messages of the conversation, oldest first (the last rounds are kept; none are
    /// sent when the profile says so).
    pub history: Vec<HistoryMessage>,
    /// Extra system context (experiences, actions) placed after the system prompt.
    pub extra_context: Vec<String>,
    /// What kind of run (default: a chat).
    pub profile: RunProfile,
    /// The schema the final answer must be valid against (a typed result: see
    /// [`crate::output`]); `None`: any answer.
    pub output_schema: Option<OutputSchema>,
}

impl RunRequest {
    /// A goal with no history.
    pub fn new(goal: &str) -> Self {
        RunRequest {
            goal: goal.to_owned(),
            ..Default::default()
        }
    }

    /// Builder: the run's profile.
    pub fn with_profile(mut self, profile: RunProfile) -> Self {
        self.profile = profile;
        self
    }

    /// Builder: the schema the final answer must be valid against.
    pub fn with_output_schema(mut self, schema: Option<OutputSchema>) -> Self {
        self.output_schema = schema;
        self
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
    /// Tool calls made (not those skipped after a failure in the same turn, nor the one the
    /// tool-call limit refused).
    pub tool_calls: u32,
    /// Where the time went.
    pub timings: RunTimings,
    /// The run's mode.
    pub mode: RunMode,
    /// Designer mode: the draft, or why there is none.
    pub draft: Option<DraftOutcome>,
    /// With an output schema: the final answer checked against it.
    pub output: Option<TypedResult>,
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

/// Why the loop stopped.
enum Stop {
    Done(DoneStatus, String),
}

impl Stop {
    /// A person stopped the run.
    fn stopped() -> Self {
        Stop::Done(DoneStatus::Stopped, "stopped".to_owned())
    }
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
        mut request: RunRequest,
        io: RunIo,
        cancel: CancellationToken,
    ) -> RunOutcome {
        let started = Instant::now();
        let profile = std::mem::take(&mut request.profile);
        let platform: Vec<Arc<dyn PlatformTool>> =
            vec![Arc::new(ListDevices(self.devices.clone()))];
        let em = Emitter::new(io.events, io.images);
        let output_schema = request.output_schema.take();
        let mut run = RunState {
            output_schema: output_schema.as_ref(),
            typed: None,
            session: DeviceSession::new(device, cancel.clone(), em.clone()),
            cancel: &cancel,
            em,
            approver: io.approver,
            timings: RunTimings::default(),
            usage: Usage::default(),
            steps: 0,
            tool_calls: 0,
            host_tools: Vec::new(),
            app_tools: Vec::new(),
            platform,
            tools: ToolSet::default(),
            failures: FailureStreak::default(),
            profile: &profile,
        };
        let deadline = tokio::time::Instant::now() + self.config.run_timeout;
        let (status, answer) =
            match tokio::time::timeout_at(deadline, self.run_inner(&mut run, request)).await {
                Ok(Stop::Done(status, answer)) => (status, answer),
                Err(_) => {
                    cancel.cancel();
                    let msg = texts::run_timeout(self.config.run_timeout);
                    run.fail_event(&msg);
                    (DoneStatus::Timeout, msg)
                }
            };
        let draft = profile
            .extensions
            .iter()
            .find_map(|e| e.finish(status, &answer));
        let output = output_schema.as_ref().map(|_| {
            run.typed.take().unwrap_or_else(|| {
                let error = OutputError {
                    path: String::new(),
                    message: texts::no_final_answer(status.as_str()),
                };
                TypedResult::invalid(vec![error], answer.clone())
            })
        });
        run.em.emit(
            EventKind::agent_done(
                answer.clone(),
                run.usage,
                status,
                profile.mode,
                draft.as_ref(),
            )
            .with_output(output.clone()),
        );
        let mut timings = run.timings;
        timings.total = started.elapsed();
        RunOutcome {
            answer,
            status,
            usage: run.usage,
            steps: run.steps,
            tool_calls: run.tool_calls,
            timings,
            mode: profile.mode,
            draft,
            output,
        }
    }

    /// Learns the tools, builds the conversation, then runs model turns up to the step limit,
    /// and asks for a summary when it is reached.
    async fn run_inner(&self, run: &mut RunState<'_>, request: RunRequest) -> Stop {
        let mut convo = match self.start_conversation(run, &request).await {
            Ok(convo) => convo,
            Err(stop) => return stop,
        };
        let limit = run.profile.max_model_calls.unwrap_or(self.config.max_steps);
        while run.steps < limit {
            run.steps += 1;
            if let Some(stop) = self.turn(run, &mut convo).await {
                return match (run.output_schema, stop) {
                    (Some(schema), Stop::Done(DoneStatus::Completed, answer)) => {
                        self.typed_answer(run, &mut convo, schema, answer).await
                    }
                    (_, stop) => stop,
                };
            }
        }
        if !run.profile.summary_at_limit {
            return Stop::Done(DoneStatus::MaxSteps, texts::model_call_limit(limit));
        }
        // Step limit: one more call without tools for a summary.
        convo.push(json!({"role": "user", "content": texts::STEP_LIMIT_SUMMARY}));
        match self.call_model(run, &convo, &[]).await {
            Ok(c) => Stop::Done(DoneStatus::MaxSteps, c.content),
            Err(stop) => stop,
        }
    }

    /// A typed run's final answer checked against its schema; when it is not valid, exactly one
    /// repair turn (the validator's errors, no tools) and the second answer checked in turn.
    /// The result is kept for `done`; the answer stays the model's text.
    async fn typed_answer(
        &self,
        run: &mut RunState<'_>,
        convo: &mut Conversation,
        schema: &OutputSchema,
        answer: String,
    ) -> Stop {
        let first = schema.check(&answer);
        if first.valid {
            run.typed = Some(first);
            return Stop::Done(DoneStatus::Completed, answer);
        }
        convo.push(json!({"role": "assistant", "content": answer}));
        convo.push(json!({"role": "user", "content": texts::output_repair(&first.errors)}));
        run.steps += 1;
        match self.call_model(run, convo, &[]).await {
            Ok(c) => {
                run.typed = Some(schema.check(&c.content).with_repaired(true));
                Stop::Done(DoneStatus::Completed, c.content)
            }
            Err(stop) => {
                run.typed = Some(first.with_repaired(true));
                stop
            }
        }
    }

    /// Learns the device's host tools, asks the extensions what they add, and builds the
    /// conversation: system prompt, the extensions' sections, extra context, the last history
    /// rounds, the goal.
    async fn start_conversation(
        &self,
        run: &mut RunState<'_>,
        request: &RunRequest,
    ) -> Result<Conversation, Stop> {
        let listed = Instant::now();
        let device = run.session.device();
        let ctx = run.session.context(false);
        let host_tools = toolset::list_tools(device.dispatcher.as_ref(), &ctx).await;
        run.timings.tools += listed.elapsed();
        run.host_tools = host_tools.map_err(|e| {
            let msg = format!("cannot learn the tools of device '{}': {e}", device.id);
            run.fail(msg)
        })?;
        let sections = self.prepare_extensions(run, &request.goal).await;
        run.tools = ToolSet::new(&run.host_tools, &run.app_tools, &run.platform);
        let names = run.tools.names();
        let system =
            prompt::system_prompt(&run.profile.prompt, &device.id, &device.profile, &names)
                .map_err(|e| run.fail(e))?;
        let mut convo = Conversation::new(self.config.keep_images);
        convo.push(json!({"role": "system", "content": system}));
        for extra in sections
            .iter()
            .chain(&request.extra_context)
            .filter(|e| !e.trim().is_empty())
        {
            convo.push(json!({"role": "system", "content": extra}));
        }
        let history: &[HistoryMessage] = if run.profile.history {
            &request.history
        } else {
            &[]
        };
        let keep = history.len().saturating_sub(self.config.history_rounds * 2);
        for m in &history[keep..] {
            convo.push(json!({"role": m.role, "content": m.content}));
        }
        convo.push(json!({"role": "user", "content": request.goal}));
        Ok(convo)
    }

    /// Asks each of the profile's extensions what it adds to this run: its events are emitted
    /// now, its tools join the run's platform tools, its prompt sections are returned.
    async fn prepare_extensions(&self, run: &mut RunState<'_>, goal: &str) -> Vec<String> {
        let mut sections = Vec::new();
        let profile = run.profile;
        for extension in &profile.extensions {
            let start = Starting {
                goal,
                device: run.session.device(),
            };
            let prepared = extension.start(start).await;
            for event in prepared.events {
                run.em.emit(event);
            }
            run.platform.extend(prepared.tools);
            sections.extend(prepared.context);
        }
        sections
    }

    /// One model call and the tool calls it asked for, in order. After a failed call the rest
    /// of the turn is skipped; the same call failing `max_repeated_failures` times in a row
    /// ends the run.
    async fn turn(&self, run: &mut RunState<'_>, convo: &mut Conversation) -> Option<Stop> {
        let schemas = run.tools.schemas();
        let completion = match self.call_model(run, convo, &schemas).await {
            Ok(c) => c,
            Err(stop) => return Some(stop),
        };
        if completion.tool_calls.is_empty() {
            return Some(Stop::Done(DoneStatus::Completed, completion.content));
        }
        convo.push(assistant_message(&completion));
        let mut images = Vec::new();
        let mut failed_in_turn = false;
        for call in &completion.tool_calls {
            if run.cancel.is_cancelled() {
                return Some(Stop::stopped());
            }
            let (text, result, finish) = if failed_in_turn {
                (texts::SKIPPED_AFTER_FAILURE.to_owned(), None, None)
            } else {
                if let Some(stop) = run.over_tool_limit(convo, call) {
                    return Some(stop);
                }
                run.tool_calls += 1;
                let (text, result, finish) = self.execute_call(run, call, &mut images).await;
                (run.with_calls_left(text), result, finish)
            };
            if !failed_in_turn {
                let failed = result
                    .as_ref()
                    .is_none_or(|r| r.status != ResultStatus::Success);
                if failed {
                    failed_in_turn = true;
                    let times = run.failures.failed(call);
                    if times >= self.config.max_repeated_failures {
                        convo.push(tool_message(&call.id, &text));
                        return Some(run.fail(texts::repeated_failure(&call.name, times)));
                    }
                } else if result.is_some() {
                    run.failures.succeeded();
                }
            }
            if run.cancel.is_cancelled() {
                return Some(Stop::stopped());
            }
            convo.push(tool_message(&call.id, &text));
            if let Some(answer) = finish {
                return Some(Stop::Done(DoneStatus::Completed, answer));
            }
            if let Some(result) = &result {
                self.hand_off(run, result).await;
            }
        }
        convo.push_images(images);
        None
    }

    /// A hand-off: a successful result naming a window's root (select_application_window, a
    /// new browser tab, an action that left a window selected) switches the AppAgent Computer;
    /// the next calls see the app's tools.
    async fn hand_off(&self, run: &mut RunState<'_>, result: &CommandResult) {
        let Some(selection) = AppSelection::from_result(result) else {
            return;
        };
        run.session.select(Some(selection));
        let device = run.session.device();
        let ctx = run.session.context(true);
        match toolset::list_tools(device.dispatcher.as_ref(), &ctx).await {
            Ok(t) => run.app_tools = t,
            Err(e) => run.fail_event(&format!(
                "cannot learn the tools of the selected application: {e}"
            )),
        }
        run.tools = ToolSet::new(&run.host_tools, &run.app_tools, &run.platform);
    }

    async fn call_model(
        &self,
        run: &mut RunState<'_>,
        convo: &Conversation,
        tools: &[Value],
    ) -> Result<Completion, Stop> {
        let messages = convo.request();
        let asked = Instant::now();
        let em = &run.em;
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
            let options = CallOptions {
                max_output_tokens: run.profile.max_output_tokens,
                ..CallOptions::default()
            };
            self.llm
                .complete_typed(
                    &messages,
                    tools,
                    &options,
                    run.output_schema,
                    run.cancel,
                    &mut on_delta,
                )
                .await
        };
        run.timings.model += asked.elapsed();
        match result {
            Ok(c) => {
                CallUsage::add_to(c.usage, &mut run.usage);
                run.em.emit(EventKind::Usage(run.usage));
                Ok(c)
            }
            Err(LlmError::Cancelled) => Err(Stop::stopped()),
            Err(e) => Err(run.fail(e.to_string())),
        }
    }

    /// Runs one tool call; returns the tool message text, the Result (None when it never ran:
    /// an unknown tool, bad arguments, a denied approval) and, when a platform tool ends the
    /// run with it, the final answer.
    async fn execute_call(
        &self,
        run: &mut RunState<'_>,
        call: &ToolCall,
        images: &mut Vec<String>,
    ) -> (String, Option<CommandResult>, Option<String>) {
        // The tool's real name and where it runs (the model may call a sanitized name).
        let Some((tool, target)) = run
            .tools
            .get(&call.name)
            .map(|o| (o.name.clone(), o.target.clone()))
        else {
            return (
                texts::unknown_tool(&call.name, &run.tools.names()),
                None,
                None,
            );
        };
        let args = match parse_arguments(&call.arguments) {
            Ok(a) => a,
            Err(detail) => return (texts::invalid_arguments(&call.name, &detail), None, None),
        };
        if !self.approved(run, call, &tool, &args).await {
            return (texts::denied(&tool), None, None);
        }
        let tool_type = match &target {
            Target::Host(t) | Target::App(t) => Some(*t),
            Target::Platform(_) => None,
        };
        // The app the call ran on: the one selected before it (a hand-off it reports follows).
        let app = run.session.app().map(|a| a.root.clone());
        let profile = run.profile;
        let heard = |step: &ToolStep, result: &CommandResult| {
            let record = CallRecord {
                step,
                result,
                tool_type,
                app: app.as_deref(),
            };
            for extension in &profile.extensions {
                extension.called(&record);
            }
        };
        let (called, finish) = match &target {
            Target::Platform(platform) => {
                let images = run.em.images().clone();
                let device = run.session.device();
                let answer = platform.call(PlatformCall {
                    call_id: &call.id,
                    args: &args,
                    device,
                    images,
                    cancel: run.cancel,
                });
                let mut finish = None;
                let answered = async {
                    let answer = answer.await;
                    finish = answer.finish;
                    CommandResult {
                        call_id: call.id.clone(),
                        ..answer.result
                    }
                };
                let called = run
                    .session
                    .record(
                        &call.id,
                        &tool,
                        Value::Object(args.clone()),
                        answered,
                        heard,
                    )
                    .await;
                (called, finish)
            }
            Target::Host(tool_type) | Target::App(tool_type) => {
                let on_app = matches!(target, Target::App(_));
                let device_call = Call::new(Some(*tool_type), &tool, Value::Object(args), on_app)
                    .with_id(&call.id);
                (run.session.call_seen(device_call, heard).await, None)
            }
        };
        let Called { result, took, .. } = called;
        run.timings.tools += took;
        self.model_images(run, &tool, &result, images);
        (tool_text(&result), Some(result), finish)
    }

    /// Whether the call may run: asks the approver when the confirm policy names a reason
    /// (denied on timeout or stop).
    async fn approved(
        &self,
        run: &mut RunState<'_>,
        call: &ToolCall,
        tool: &str,
        args: &Map<String, Value>,
    ) -> bool {
        let Some(reason) = self.config.confirm.reason(tool, args) else {
            return true;
        };
        let args = Value::Object(args.clone());
        run.em.emit(EventKind::Confirm {
            call_id: call.id.clone(),
            tool: tool.to_owned(),
            args: args.clone(),
            reason: reason.clone(),
        });
        let approver = run.approver.clone();
        let asked = approver.approve(&call.id, tool, &args, &reason);
        let answer = tokio::select! {
            a = tokio::time::timeout(self.config.confirm.timeout, asked) => a.unwrap_or(false),
            _ = run.cancel.cancelled() => false,
        };
        run.em.emit(EventKind::Confirmed {
            call_id: call.id.clone(),
            approve: answer,
        });
        answer
    }

    /// Queues the model's downscaled copies of a result's images in `images` (the image sink
    /// got the originals with the step event).
    fn model_images(
        &self,
        run: &mut RunState<'_>,
        tool: &str,
        result: &CommandResult,
        images: &mut Vec<String>,
    ) {
        for uri in &result.images {
            let Some((_, bytes)) = decode_data_uri(uri) else {
                continue;
            };
            let converting = Instant::now();
            match downscale_for_model(
                &bytes,
                self.config.image_max_width,
                self.config.jpeg_quality,
            ) {
                Ok(img) => images.push(img.data_uri),
                Err(e) => {
                    tracing::warn!("an image from {tool} could not be prepared for the model: {e}")
                }
            }
            run.timings.images += converting.elapsed();
        }
    }
}

/// The state of one run, passed to each step of the loop.
struct RunState<'a> {
    /// The device, the application selected now, the run's recorded calls.
    session: DeviceSession<'a>,
    cancel: &'a CancellationToken,
    /// The run's event stream (the session's).
    em: Emitter,
    approver: Arc<dyn Approver>,
    timings: RunTimings,
    usage: Usage,
    /// Model calls made.
    steps: u32,
    /// Tool calls made.
    tool_calls: u32,
    /// What kind of run.
    profile: &'a RunProfile,
    /// `list_devices` and the extensions' platform tools.
    platform: Vec<Arc<dyn PlatformTool>>,
    host_tools: Vec<deft_protocol::ToolInfo>,
    app_tools: Vec<deft_protocol::ToolInfo>,
    /// What the model sees now: the host tools and the selected app's.
    tools: ToolSet,
    failures: FailureStreak,
    /// The schema the final answer must be valid against.
    output_schema: Option<&'a OutputSchema>,
    /// The final answer checked against it, once it was.
    typed: Option<TypedResult>,
}

impl RunState<'_> {
    /// Emits `message` as an `error` event.
    fn fail_event(&mut self, message: &str) {
        self.em.emit(EventKind::Error {
            message: message.to_owned(),
        });
    }

    /// Emits `message` as an `error` event and ends the run with it, failed.
    fn fail(&mut self, message: String) -> Stop {
        self.fail_event(&message);
        Stop::Done(DoneStatus::Failed, message)
    }

    /// When the profile's tool calls are used up: refuses `call` (its tool message says why,
    /// and so does an `error` event) and ends the run at its limit.
    fn over_tool_limit(&mut self, convo: &mut Conversation, call: &ToolCall) -> Option<Stop> {
        let limit = self.profile.max_tool_calls?;
        if self.tool_calls < limit {
            return None;
        }
        let text = texts::tool_call_limit(limit);
        convo.push(tool_message(&call.id, &format!("Error: {text}.")));
        self.fail_event(&text);
        Some(Stop::Done(DoneStatus::MaxSteps, text))
    }

    /// `text` with a note of the tool calls left, once few are.
    fn with_calls_left(&self, text: String) -> String {
        match self.profile.max_tool_calls {
            Some(limit) if limit.saturating_sub(self.tool_calls) <= CALLS_LEFT_NOTE => {
                text + &texts::calls_left(limit.saturating_sub(self.tool_calls))
            }
            _ => text,
        }
    }
}

/// From how many tool calls left on, each tool message says how many are.
const CALLS_LEFT_NOTE: u32 = 5;

/// The same call (name and normalized arguments) failing again and again.
#[derive(Default)]
struct FailureStreak {
    last: Option<(String, String, u32)>,
}

impl FailureStreak {
    /// Records a failure of `call`; returns how many times in a row it has failed.
    fn failed(&mut self, call: &ToolCall) -> u32 {
        let args = normalize_args(&call.arguments);
        let times = match &self.last {
            Some((name, a, n)) if *name == call.name && *a == args => n + 1,
            _ => 1,
        };
        self.last = Some((call.name.clone(), args, times));
        times
    }

    /// A call succeeded: the streak is broken.
    fn succeeded(&mut self) {
        self.last = None;
    }
}

fn parse_arguments(text: &str) -> Result<Map<String, Value>, String> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(format!(
            "expected an object, got {}",
            texts::json_kind(&other)
        )),
        Err(e) => Err(e.to_string()),
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
