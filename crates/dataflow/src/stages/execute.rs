//! `execute`: the instantiated plan runs on the reopened document. Every step's `Success` and
//! `MatchedControlText` start null; a step's control is found by its `ControlText` with the
//! device's `find_controls` under `MATCH_STRATEGY` (the best score wins, and it must be above 0;
//! an empty text means the window itself); its tool runs through the Dispatcher with the matched
//! control's id. Success sets `Success`, `ControlLabel` (the matched id) and
//! `MatchedControlText`; the first failure sets `Success: false` and ends the plan. A plan longer
//! than `MAX_STEPS` does not run at all. Then a final screenshot, the document's text, a save
//! (only after a plan that ran through) and the app closed.

use std::collections::BTreeMap;
use std::time::Instant;

use deft_protocol::selector::Fit;
use deft_protocol::task_run::StepStatus;
use deft_protocol::{ToolInfo, ToolType};
use serde_json::{Map, Value, json};

use super::{TaskCtx, takes_control, takes_option};
use crate::device::{DocSession, Found, plan_may_use};
use crate::log::StepEnd;
use crate::result::{EXECUTE, StageError};
use crate::texts;

/// What the evaluation reads of an execution.
#[derive(Debug, Clone, Default)]
pub struct Executed {
    /// One line per step: what ran, on what, and how it ended.
    pub steps: Vec<String>,
    /// The window after the last step.
    pub screenshot: Option<Vec<u8>>,
    /// The document's text after the last step.
    pub text: Option<String>,
}

/// Runs the stage on `cx`: the plan's step fields and the time are recorded, an error goes to
/// `execution_result.error`.
pub async fn run(cx: &mut TaskCtx<'_>) -> Result<Executed, StageError> {
    let started = cx.begin(EXECUTE);
    cx.doc.reset_step_outcomes();
    let mut plan = cx.doc.plan_mut().cloned();
    let outcome = match plan.as_mut() {
        None => Err(StageError::new("MissingInput", texts::NO_PLAN).at(EXECUTE)),
        Some(plan) => execute(cx, plan).await,
    };
    if let (Some(plan), Some(slot)) = (plan, cx.doc.plan_mut()) {
        *slot = plan;
    }
    if let Err(e) = &outcome {
        cx.doc.set_execution_error(e);
    }
    cx.end(EXECUTE, started, outcome.as_ref().err());
    outcome
}

async fn execute(cx: &mut TaskCtx<'_>, plan: &mut [Value]) -> Result<Executed, StageError> {
    if plan.len() > cx.config.max_steps {
        return Err(StageError::new(
            "PlanError",
            texts::too_many_steps(plan.len(), cx.config.max_steps),
        )
        .at(EXECUTE));
    }
    let document = cx.document()?;
    let mut session = DocSession::new(cx.device, cx.spec, &document, cx.cancel.clone(), &cx.log);
    let mut executed = Executed::default();
    let ran = run_plan(cx, &mut session, plan, &mut executed).await;
    if session.is_open() {
        executed.screenshot = session.screenshot(&mut cx.log).await;
        executed.text = session.text(&mut cx.log).await;
    }
    let saved = match (&ran, session.is_open()) {
        (Ok(()), true) => session.save(&mut cx.log).await,
        _ => Ok(()),
    };
    let closed = if session.is_open() {
        session.close(&mut cx.log).await
    } else {
        Ok(())
    };
    if let (Err(e), true) = (&closed, ran.is_err() || saved.is_err()) {
        cx.log.error(e.as_text());
    }
    ran.and(saved).and(closed).map(|()| executed)
}

/// Opens the document and runs the steps in order until one fails.
async fn run_plan(
    cx: &mut TaskCtx<'_>,
    session: &mut DocSession<'_>,
    plan: &mut [Value],
    executed: &mut Executed,
) -> Result<(), StageError> {
    session.open(&mut cx.log).await.map_err(|e| e.at(EXECUTE))?;
    let tools = session.tools(&mut cx.log).await?.clone();
    if let Some(shot) = session.screenshot(&mut cx.log).await {
        let id = cx.log.image(&shot);
        cx.log.step_end(StepEnd {
            image_ids: vec![id],
            message: Some("the document before step 1".to_owned()),
            ..StepEnd::stage("execute.steps[0]", std::time::Duration::ZERO, None)
        });
    }
    for (i, step) in plan.iter_mut().enumerate() {
        let n = i + 1;
        let Value::Object(fields) = step else {
            return Err(StageError::new("PlanError", texts::step_not_object(n)).at(EXECUTE));
        };
        let parsed = PlanStep::read(n, fields);
        cx.log.step_start(
            &parsed.path(),
            &parsed.function,
            Some(parsed.subtask.clone()),
        );
        let started = Instant::now();
        let outcome = match &parsed.problem {
            Some(p) => Err(p.clone()),
            None => run_step(cx, session, &tools, &parsed).await,
        };
        let (status, matched, error) = match &outcome {
            Ok(m) => {
                fields.insert("Success".into(), json!(true));
                fields.insert(
                    "ControlLabel".into(),
                    json!(m.as_ref().map(|m| &m.control.id)),
                );
                fields.insert(
                    "MatchedControlText".into(),
                    json!(m.as_ref().map(|m| &m.text)),
                );
                let note = m.as_ref().and_then(|m| match_note(&parsed.control_text, m));
                if let Some(note) = note {
                    fields.insert("MatchNote".into(), json!(note));
                }
                (StepStatus::Ok, m.as_ref().map(|m| m.control.clone()), None)
            }
            Err(why) => {
                fields.insert("Success".into(), json!(false));
                (StepStatus::Failed, None, Some(why.clone()))
            }
        };
        executed.steps.push(parsed.log_line(&outcome));
        cx.log.step_end(StepEnd {
            path: parsed.path(),
            step_type: parsed.function.clone(),
            status,
            duration: started.elapsed(),
            matched,
            error: error.clone(),
            message: None,
            image_ids: Vec::new(),
        });
        if let Some(why) = error {
            let kind = if cx.stopped() {
                "Interrupted"
            } else {
                "ExecutionError"
            };
            return Err(
                StageError::new(kind, texts::step_failed(n, &why)).at(texts::step_trace(
                    n,
                    &parsed.function,
                    &parsed.control_text,
                )),
            );
        }
    }
    Ok(())
}

/// One step as the executor reads it.
struct PlanStep {
    n: usize,
    subtask: String,
    control_text: String,
    function: String,
    args: Map<String, Value>,
    /// Why the step cannot run as written.
    problem: Option<String>,
}

impl PlanStep {
    fn read(n: usize, fields: &Map<String, Value>) -> PlanStep {
        let text = |k: &str| match fields.get(k) {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        };
        let function = text("Function").trim().to_owned();
        let (args, args_problem) = match fields.get("Args") {
            None | Some(Value::Null) => (Map::new(), None),
            Some(Value::Object(m)) => (unescape_newlines(m), None),
            Some(_) => (Map::new(), Some(texts::step_args_not_object(n))),
        };
        let problem = if function.is_empty() {
            Some(texts::step_without_function(n))
        } else {
            args_problem
        };
        PlanStep {
            n,
            subtask: text("Subtask"),
            control_text: text("ControlText").trim().to_owned(),
            function,
            args,
            problem,
        }
    }

    fn path(&self) -> String {
        format!("execute.steps[{}]", self.n)
    }

    fn log_line(&self, outcome: &Result<Option<Found>, String>) -> String {
        let on = match (&self.control_text, outcome) {
            (t, _) if t.is_empty() => "the window".to_owned(),
            (t, Ok(Some(m))) => match match_note(t, m) {
                None => format!("{t:?} (matched {} {:?})", m.control.kind, m.text),
                Some(note) => format!("{t:?} (matched {} {:?}: {note})", m.control.kind, m.text),
            },
            (t, _) => format!("{t:?}"),
        };
        let args = Value::Object(self.args.clone());
        let end = match outcome {
            Ok(_) => "succeeded".to_owned(),
            Err(e) => format!("FAILED: {e}"),
        };
        format!(
            "{}. {} — {}({args}) on {on}: {end}",
            self.n, self.subtask, self.function
        )
    }
}

/// Runs one step: finds its control, runs its tool. The matched control, or the error text.
async fn run_step(
    cx: &mut TaskCtx<'_>,
    session: &mut DocSession<'_>,
    tools: &BTreeMap<String, ToolInfo>,
    step: &PlanStep,
) -> Result<Option<Found>, String> {
    let info = tools
        .get(&step.function)
        .filter(|_| plan_may_use(cx.spec, &step.function))
        .ok_or_else(|| {
            let usable: Vec<String> = tools
                .keys()
                .filter(|k| plan_may_use(cx.spec, k))
                .cloned()
                .collect();
            texts::unknown_function(step.n, &step.function, &usable)
        })?;
    let matched = if step.control_text.is_empty() {
        None
    } else {
        let found = session
            .find(&mut cx.log, &step.control_text, cx.config.match_strategy)
            .await
            .map_err(|e| e.message)?;
        let m = found.ok_or_else(|| {
            texts::control_not_found(&step.control_text, cx.config.match_strategy.as_str())
        })?;
        Some(m)
    };
    let mut args = step.args.clone();
    match &matched {
        Some(m) if takes_control(info) => {
            args.insert("id".into(), json!(m.control.id));
            args.insert("name".into(), json!(m.control.name));
        }
        // No control text means the window itself: keys go to whatever has the focus there,
        // not to a control the step never named.
        None if takes_option(info, "control_focus") && !args.contains_key("control_focus") => {
            args.insert("control_focus".into(), json!(false));
        }
        _ => {}
    }
    let tool_type = if info.tool_type == ToolType::DataCollection {
        ToolType::DataCollection
    } else {
        ToolType::Action
    };
    session
        .act(&mut cx.log, &step.function, tool_type, args)
        .await
        .map(|_| matched)
        .map_err(|e| e.message)
}

/// What a step's record says when the control it acted on is not named by the step's text
/// itself: a longer name holding it, part of it, or a fuzzy likeness. `None` for an exact match.
fn match_note(asked: &str, m: &Found) -> Option<String> {
    match m.fit {
        Fit::Exact => None,
        Fit::Contains => Some(texts::match_contains(asked, &m.text)),
        Fit::Partial => Some(texts::match_partial(asked, &m.text, m.control.score)),
    }
}

/// Args with `\n` written as two characters turned into line breaks (models escape twice).
fn unescape_newlines(args: &Map<String, Value>) -> Map<String, Value> {
    args.iter()
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => Value::String(s.replace("\\n", "\n")),
                other => other.clone(),
            };
            (k.clone(), v)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_read_loosely_and_say_what_is_missing() {
        let m = |v: Value| v.as_object().unwrap().clone();
        let s = PlanStep::read(
            2,
            &m(
                json!({"Subtask": "type", "ControlText": " Body ", "Function": "set_edit_text",
            "Args": {"text": "a\\nb", "n": 3}}),
            ),
        );
        assert_eq!(
            (s.control_text.as_str(), s.function.as_str()),
            ("Body", "set_edit_text")
        );
        assert_eq!(s.args["text"], "a\nb");
        assert!(s.problem.is_none());
        assert_eq!(s.path(), "execute.steps[2]");
        let line = s.log_line(&Err("no such control".into()));
        assert!(
            line.starts_with("2. type — set_edit_text(")
                && line.ends_with("FAILED: no such control"),
            "{line}"
        );
        let s = PlanStep::read(3, &m(json!({"Function": "", "Args": {}})));
        assert_eq!(s.problem.as_deref(), Some("step 3 names no Function"));
        let s = PlanStep::read(4, &m(json!({"Function": "f", "Args": [1]})));
        assert!(s.problem.unwrap().contains("Args must be an object"));
        let s = PlanStep::read(5, &m(json!({"Function": "f"})));
        assert!(s.problem.is_none() && s.args.is_empty() && s.control_text.is_empty());
    }
}
