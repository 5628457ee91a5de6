//! Running a stored action: `run_action {name, variables?}`, the platform tool the agent is
//! offered when actions were recalled, and "try it" from the console. The steps are checked
//! again (library mode) and played by deft-tasks' runner on the run's device — the memory never
//! touches a device any other way — and the answer says how each step went: the control it
//! matched, a selector that had to be healed, the step that failed and why. A completed
//! action that left an application window selected (its `open_app`) answers with that window
//! as `select_application_window` does, so the agent goes on with that app's tools.

use std::collections::BTreeMap;
use std::sync::Arc;

use deft_agent::{PlatformAnswer, PlatformCall, PlatformTool};
use deft_protocol::task_run::StepStatus;
use deft_protocol::{AgentEvent, CommandResult, DoneStatus, EventKind, EventSink, ImageSink};
use deft_store::Action;
use deft_tasks::runner::{RunReport, RunRequest, RunSinks, run_task};
use deft_tools::Device;
use futures::future::BoxFuture;
use parking_lot::Mutex;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::check::{as_task, as_text};
use crate::{Memory, now_ms, texts};

/// The platform tool's name.
pub const RUN_ACTION: &str = "run_action";

/// How a run of an action went.
#[derive(Debug, Clone)]
pub struct ActionRun {
    /// The action.
    pub action: String,
    /// Every step completed.
    pub completed: bool,
    /// What the runner reported (`None` when the action could not start: a bad variable, steps
    /// that no longer validate).
    pub report: Option<RunReport>,
    /// The answer for the model or a person: a line per step.
    pub text: String,
}

impl ActionRun {
    /// The answer as a tool Result: a completed run's lines (with the window it left selected,
    /// in the shape of a window selection, so the caller's hand-off picks it up), or a failure
    /// with them.
    pub fn result(&self, call_id: &str) -> CommandResult {
        if !self.completed {
            return CommandResult::failure(call_id, &self.text, Some("memory"));
        }
        let selected = self.report.as_ref().and_then(|r| r.app.as_ref());
        let Some(app) = selected else {
            return CommandResult::success(
                call_id,
                Value::String(self.text.clone()),
                Some("memory"),
            );
        };
        let mut lines: Vec<&str> = self.text.lines().collect();
        lines.pop(); // the hint: replaced by the one that names the window
        let result = json!({
            "summary": lines.first().copied().unwrap_or(""),
            "steps": lines.iter().skip(1).collect::<Vec<_>>(),
            "selected": texts::action_selected(&app.root, &app.process),
            "root_name": app.root,
            "window_info": {"name": app.process},
        });
        CommandResult::success(call_id, result, Some("memory"))
    }
}

impl Memory {
    /// Runs `action` on `device` through the task runner, `given` over its variables' defaults.
    pub async fn run_action(
        &self,
        action: &Action,
        given: &Map<String, Value>,
        device: &Device,
        images: Arc<dyn ImageSink>,
        cancel: &CancellationToken,
    ) -> ActionRun {
        let fail = |text: String| ActionRun {
            action: action.name.clone(),
            completed: false,
            report: None,
            text,
        };
        let known: Vec<String> = action.variables.keys().cloned().collect();
        let mut variables: BTreeMap<String, String> = BTreeMap::new();
        for (name, value) in given {
            if !action.variables.contains_key(name) {
                return fail(texts::unknown_variable(name, &action.name, &known));
            }
            variables.insert(name.clone(), as_text(value));
        }
        let timeout = self.config().action_timeout.as_secs_f64();
        let task = match as_task(&action.name, &action.steps, &action.variables, timeout) {
            Ok(task) => task,
            Err(report) => {
                let errors: Vec<String> = report
                    .errors
                    .iter()
                    .take(3)
                    .map(ToString::to_string)
                    .collect();
                return fail(texts::action_invalid(&action.name, &errors.join("; ")));
            }
        };
        let seen = Arc::new(Seen::default());
        let sinks = RunSinks {
            events: vec![seen.clone()],
            images,
        };
        let report = run_task(
            &task,
            device,
            &RunRequest::new(variables, BTreeMap::new()),
            sinks,
            cancel.child_token(),
        )
        .await;
        if let Err(e) = self
            .store()
            .record_action_hits(std::slice::from_ref(&action.id), now_ms())
            .await
        {
            tracing::warn!(action = %action.name, error = %e, "cannot count an action's use");
        }
        let completed = report.status == DoneStatus::Completed;
        tracing::info!(action = %action.name, device = %device.id, completed, steps = report.steps.len(), "action ran");
        ActionRun {
            action: action.name.clone(),
            completed,
            text: describe(&action.name, &report, &seen.lines.lock()),
            report: Some(report),
        }
    }

    /// The action named `name` (its name or an alias, without regard to case).
    pub async fn find_action(&self, name: &str) -> Result<Option<Action>, deft_store::StoreError> {
        if let Some(a) = self.store().action_by_name(name).await? {
            return Ok(Some(a));
        }
        let index = self.index().await?;
        match index.action_by_label(name) {
            Some(id) => Ok(Some(self.store().action(id).await?)),
            None => Ok(None),
        }
    }
}

/// What the action's observations saw, by step path: the control a `wait_el` (or a selector's
/// `find_controls`) found last, with its value — the display's result after a calculation, the
/// text of a field — so the model need not look again.
#[derive(Default)]
struct Seen {
    current: Mutex<String>,
    lines: Mutex<Vec<(String, String)>>,
}

impl EventSink for Seen {
    fn send(&self, event: &AgentEvent) {
        match &event.kind {
            EventKind::TaskStepStart(s) => *self.current.lock() = s.path.clone(),
            EventKind::Step(step) if step.tool == "wait_for_control" => {
                if let Some(line) = found_control(&step.result) {
                    let path = self.current.lock().clone();
                    let mut lines = self.lines.lock();
                    lines.retain(|(p, _)| *p != path);
                    lines.push((path, line));
                }
            }
            _ => {}
        }
    }
}

/// `edit "" = "108"`: the control a `wait_for_control` answer chose.
fn found_control(result: &Value) -> Option<String> {
    let c = result.get("result")?.get("control")?;
    let value = c
        .get("value")
        .and_then(Value::as_str)
        .map(|v| crate::trajectory::cut(v, 200));
    Some(texts::seen_control(
        c.get("type")?.as_str()?,
        c.get("name").and_then(Value::as_str).unwrap_or(""),
        value.as_deref(),
    ))
}

/// The answer: a summary line, a line per step (with what its wait saw), a hint.
fn describe(action: &str, report: &RunReport, seen: &[(String, String)]) -> String {
    let completed = report.status == DoneStatus::Completed;
    let mut out = texts::action_ran(
        action,
        report.count(StepStatus::Ok),
        report.count(StepStatus::Failed),
        report.count(StepStatus::Skipped),
        completed,
    );
    for step in &report.steps {
        let saw = seen.iter().find(|(p, _)| *p == step.path).map(|(_, s)| s);
        out.push('\n');
        out.push_str(&texts::step_line(step, saw.map(String::as_str)));
    }
    if !completed && report.steps.iter().all(|s| s.status != StepStatus::Failed) {
        out.push('\n');
        out.push_str(&report.message);
    }
    out.push('\n');
    out.push_str(if completed {
        texts::ACTION_DONE_HINT
    } else {
        texts::ACTION_FAILED_HINT
    });
    out
}

/// `run_action` for one run: the actions recalled into its prompt are the ones it names in its
/// errors; any action of the library may be run by name.
pub struct RunActionTool {
    memory: Memory,
    offered: Vec<String>,
}

impl RunActionTool {
    /// The tool for a run whose prompt offered `offered`.
    pub fn new(memory: Memory, offered: Vec<String>) -> Self {
        RunActionTool { memory, offered }
    }

    /// One call's Result: the action found by its name (or an alias), played on the run's
    /// device, described step by step.
    async fn answer(&self, call: PlatformCall<'_>) -> CommandResult {
        let fail = |text: String| CommandResult::failure(call.call_id, &text, Some("memory"));
        let Some(name) = call.args.get("name").and_then(Value::as_str) else {
            return fail(texts::RUN_ACTION_NEEDS_NAME.to_owned());
        };
        let action = match self.memory.find_action(name).await {
            Ok(Some(a)) => a,
            Ok(None) => return fail(texts::no_such_action(name, &self.offered)),
            Err(e) => return fail(texts::store_failed(&e.to_string())),
        };
        let empty = Map::new();
        let given = call
            .args
            .get("variables")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let ran = self
            .memory
            .run_action(
                &action,
                given,
                call.device,
                call.images.clone(),
                call.cancel,
            )
            .await;
        ran.result(call.call_id)
    }
}

impl PlatformTool for RunActionTool {
    fn name(&self) -> &str {
        RUN_ACTION
    }

    fn description(&self) -> &str {
        texts::RUN_ACTION_DESCRIPTION
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": texts::RUN_ACTION_NAME},
                "variables": {
                    "type": "object",
                    "description": texts::RUN_ACTION_VARIABLES,
                    "additionalProperties": {"type": "string"}
                }
            },
            "required": ["name"]
        })
    }

    fn call<'a>(&'a self, call: PlatformCall<'a>) -> BoxFuture<'a, PlatformAnswer> {
        Box::pin(async move { PlatformAnswer::result(self.answer(call).await) })
    }
}
