//! Designer mode (seed 001 §1, §3.1): a person describes an automation, the model explores the
//! real device and writes the path that worked as one task in the step language, which it
//! submits with the local platform tool `submit_task`. The run is the agent's ordinary loop with
//! a [`RunProfile`] of its own:
//!
//! - the designer prompt (`prompts/designer.j2`) with the step language described from the
//!   step types themselves ([`language::summary`]);
//! - at most [`MAX_OUTPUT_TOKENS`] tokens per model call, [`MAX_TOOL_CALLS`] tool calls, no chat
//!   history;
//! - one [`deft_agent::RunExtension`], the run's session: it offers `submit_task` ([`submit`]:
//!   the task validator, then coordinates refused where the exploration listed controls, then
//!   selectors that matched nothing the exploration saw held back once ([`evidence`]); an
//!   accepted draft ends the run), records what each call observed, and makes `done` carry the
//!   draft and its warnings, or why there is none (`draft_error`).
//!
//! Nothing else takes part: the profile brings no memory (no recall, no distilling — the
//! designer explores the device itself, so every selector of its draft is checked against what
//! this run saw, and its exploration is not a recipe to keep).
//!
//! ```no_run
//! # async fn demo(agent: deft_agent::Agent, device: deft_tools::Device) {
//! use deft_agent::{RunIo, RunRequest};
//! let request = RunRequest::new("every morning, compute 7 × 8 in the calculator")
//!     .with_profile(deft_designer::profile(&device));
//! let outcome = agent.run(&device, request, RunIo::discard(), Default::default()).await;
//! if let Some(task) = outcome.draft.as_ref().and_then(|d| d.task()) {
//!     println!("{task}");
//! }
//! # }
//! ```
//!
//! The draft is not a task: storing it, showing it and saving it are the server's and the CLI's.

#![forbid(unsafe_code)]

pub mod evidence;
pub mod language;
pub mod submit;
pub mod texts;

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use deft_agent::{
    CallRecord, PlatformAnswer, PlatformCall, PlatformTool, Preparation, PromptTemplate,
    RunExtension, RunProfile, Starting,
};
use deft_protocol::{CommandResult, DoneStatus, DraftOutcome, RunMode};
use deft_tasks::validate::DeviceKind;
use deft_tools::Device;
use futures::future::BoxFuture;
use parking_lot::Mutex;
use serde_json::{Value, json};

use evidence::Evidence;
use submit::{Submissions, Verdict};

/// The most tool calls a designer run makes (`submit_task` included); the next is refused and
/// the run ends without a draft.
pub const MAX_TOOL_CALLS: u32 = 40;

/// The most tokens the model may write in one call of a designer run (a whole task file fits).
pub const MAX_OUTPUT_TOKENS: u32 = 8192;

/// The platform tool that submits the draft.
pub const SUBMIT_TASK: &str = "submit_task";

const PROMPT: &str = include_str!("../prompts/designer.j2");

/// The designer profile of one run on `device`: a fresh session (observations, submissions).
pub fn profile(device: &Device) -> RunProfile {
    let session = Arc::new(DesignerRun::new(device));
    let mut vars = serde_json::Map::new();
    vars.insert(
        "step_language".into(),
        Value::String(step_language().to_owned()),
    );
    vars.insert("max_tool_calls".into(), json!(MAX_TOOL_CALLS));
    vars.insert("submit_task".into(), json!(SUBMIT_TASK));
    RunProfile {
        mode: RunMode::Designer,
        prompt: PromptTemplate {
            name: "designer",
            source: Cow::Borrowed(PROMPT),
            vars,
        },
        max_output_tokens: Some(MAX_OUTPUT_TOKENS),
        max_tool_calls: Some(MAX_TOOL_CALLS),
        // Every turn but the last makes a tool call, so the tool calls bound the model calls.
        max_model_calls: Some(MAX_TOOL_CALLS + 1),
        history: false,
        summary_at_limit: false,
        extensions: vec![session],
    }
}

/// The step language's summary, built once.
fn step_language() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(language::summary)
}

/// One designer run: what it saw, what it submitted, and the accepted draft. The run's
/// extension.
struct DesignerRun {
    submit: Arc<SubmitTask>,
}

/// `submit_task` for one run: judges a draft against what the run saw.
struct SubmitTask {
    device: String,
    kind: DeviceKind,
    state: Arc<Mutex<State>>,
}

#[derive(Default)]
struct State {
    evidence: Evidence,
    submissions: Submissions,
    accepted: Option<DraftOutcome>,
}

impl DesignerRun {
    fn new(device: &Device) -> Self {
        DesignerRun {
            submit: Arc::new(SubmitTask {
                device: device.id.clone(),
                kind: DeviceKind::of_profile(&device.profile),
                state: Arc::new(Mutex::new(State::default())),
            }),
        }
    }
}

impl PlatformTool for SubmitTask {
    fn name(&self) -> &str {
        SUBMIT_TASK
    }

    fn description(&self) -> &str {
        texts::SUBMIT_DESCRIPTION
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"task": {"type": "object", "description": texts::TASK_PARAMETER}},
            "required": ["task"]
        })
    }

    fn call<'a>(&'a self, call: PlatformCall<'a>) -> BoxFuture<'a, PlatformAnswer> {
        // Judging a large draft against a long exploration takes a while: off the runtime, so
        // other runs' events keep flowing.
        let state = self.state.clone();
        let (args, device, kind) = (call.args.clone(), self.device.clone(), self.kind);
        let call_id = call.call_id.to_owned();
        Box::pin(async move {
            let judged = tokio::task::spawn_blocking(move || {
                let mut state = state.lock();
                let State {
                    evidence,
                    submissions,
                    accepted,
                } = &mut *state;
                let verdict = submissions.judge(&args, &device, kind, evidence);
                if let Verdict::Accepted { draft, .. } = &verdict {
                    *accepted = Some(draft.clone());
                }
                verdict
            })
            .await;
            answer(
                &call_id,
                judged.unwrap_or_else(|e| Verdict::Refused(texts::crashed(&e.to_string()))),
            )
        })
    }
}

/// The platform answer of a verdict: a failure the model reads, or the accepted draft, which
/// ends the run.
fn answer(call_id: &str, verdict: Verdict) -> PlatformAnswer {
    let ns = Some(deft_agent::platform::NAMESPACE);
    match verdict {
        Verdict::Refused(text) => PlatformAnswer::result(CommandResult::failure(call_id, text, ns)),
        Verdict::Accepted { reply, answer, .. } => PlatformAnswer {
            result: CommandResult::success(call_id, Value::String(reply), ns),
            finish: Some(answer),
        },
    }
}

impl RunExtension for DesignerRun {
    fn start<'a>(&'a self, _: Starting<'a>) -> BoxFuture<'a, Preparation> {
        let tools: Vec<Arc<dyn PlatformTool>> = vec![self.submit.clone()];
        Box::pin(async move {
            Preparation {
                tools,
                ..Preparation::default()
            }
        })
    }

    fn called(&self, call: &CallRecord<'_>) {
        self.submit.state.lock().evidence.record(call.step);
    }

    fn finish(&self, status: DoneStatus, answer: &str) -> Option<DraftOutcome> {
        let state = self.submit.state.lock();
        if let Some(draft) = &state.accepted {
            return Some(draft.clone());
        }
        let s = &state.submissions;
        let refused = (s.refused > 0).then_some((s.refused, s.last_errors));
        Some(DraftOutcome::Failed(texts::no_draft(
            status,
            answer,
            MAX_TOOL_CALLS,
            refused,
        )))
    }
}
