//! `prefill`: the copied document is opened in the real app on the device; the model gets the
//! window's control listing and screenshot, the task and its reference steps, and the tools the
//! window offers (GUI and the app's API tools), and answers a concrete request and a plan of
//! `{Step, Subtask, ControlLabel, ControlText, Function, Args}` steps. A plan naming a tool the
//! device does not have is an error here already, with the plan kept for a person to read. The
//! app is closed again whatever happened.

use std::collections::BTreeMap;

use deft_protocol::{ToolInfo, ToolType};
use serde_json::{Value, json};

use super::{TaskCtx, signature, summary};
use crate::config::AppSpec;
use crate::device::{DocSession, plan_may_use};
use crate::model::Question;
use crate::result::{PREFILL, StageError};
use crate::texts;

/// Runs the stage on `cx`.
pub async fn run(cx: &mut TaskCtx<'_>) -> Result<(), StageError> {
    let started = cx.begin(PREFILL);
    let outcome = prefill(cx).await;
    let error = match outcome {
        Ok((result, None)) => {
            cx.doc.set_stage_result(PREFILL, result);
            None
        }
        Ok((result, Some(e))) => {
            cx.doc.set_stage_result(PREFILL, result);
            Some(e)
        }
        Err(e) => Some(e),
    };
    if let Some(e) = &error {
        cx.doc.set_stage_error(PREFILL, e);
    }
    cx.end(PREFILL, started, error.as_ref());
    error.map_or(Ok(()), Err)
}

/// The prefill result, and the error that makes it unusable (a plan with unknown tools).
async fn prefill(cx: &mut TaskCtx<'_>) -> Result<(Value, Option<StageError>), StageError> {
    let document = cx.document()?;
    let mut session = DocSession::new(cx.device, cx.spec, &document, cx.cancel.clone(), &cx.log);
    let observed = observe(cx, &mut session).await;
    if session.is_open()
        && let Err(e) = session.close(&mut cx.log).await
    {
        cx.log.error(e.as_text());
    }
    let (listing, shot, tools) = observed?;
    let q = Question {
        stage: PREFILL,
        system: texts::prefill_system(&cx.spec.label, &describe(&tools)),
        user: texts::prefill_user(
            &cx.task.task,
            &cx.task.steps,
            &listing,
            shot.is_some() && cx.model.visual(),
        ),
        images: shot.into_iter().collect(),
    };
    let (answer, text) = cx.model.ask(q, &mut cx.log, &cx.cancel).await?;
    let request = answer
        .get("New_task")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| lacks("a \"New_task\" text", &text))?;
    let plan = match answer.get("Actions_plan") {
        Some(Value::Array(steps)) => steps.clone(),
        _ => return Err(lacks("an \"Actions_plan\" list", &text)),
    };
    let problems = unknown_tools(&plan, &tools);
    let result = json!({"instantiated_request": request, "instantiated_plan": plan});
    let error = (!problems.is_empty()).then(|| {
        StageError::new("PlanError", texts::plan_names_unknown_tools(&problems)).at(PREFILL)
    });
    Ok((result, error))
}

/// Opens the document and reads the window: listing, screenshot, the tools a plan may use.
async fn observe(
    cx: &mut TaskCtx<'_>,
    session: &mut DocSession<'_>,
) -> Result<(String, Option<Vec<u8>>, BTreeMap<String, ToolInfo>), StageError> {
    session.open(&mut cx.log).await?;
    let tools = plan_tools(session.tools(&mut cx.log).await?, cx.spec);
    let listing = session.listing(&mut cx.log).await?;
    let shot = session.screenshot(&mut cx.log).await;
    Ok((listing, shot, tools))
}

fn lacks(what: &str, answer: &str) -> StageError {
    StageError::new(
        "ModelAnswerError",
        texts::answer_lacks(PREFILL, what, answer),
    )
    .at(PREFILL)
}

/// The action tools a plan for `spec`'s documents may name.
pub fn plan_tools(all: &BTreeMap<String, ToolInfo>, spec: &AppSpec) -> BTreeMap<String, ToolInfo> {
    all.iter()
        .filter(|(name, info)| info.tool_type == ToolType::Action && plan_may_use(spec, name))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// One line per tool: its signature and what it does.
fn describe(tools: &BTreeMap<String, ToolInfo>) -> String {
    tools
        .values()
        .map(|t| format!("- {}: {}", signature(t), summary(t)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Each plan step whose `Function` is not a tool the plan may use.
fn unknown_tools(plan: &[Value], tools: &BTreeMap<String, ToolInfo>) -> Vec<String> {
    let names: Vec<String> = tools.keys().cloned().collect();
    plan.iter()
        .enumerate()
        .filter_map(|(i, step)| {
            let n = i + 1;
            match step.get("Function").and_then(Value::as_str) {
                None => Some(texts::step_without_function(n)),
                Some(f) if !tools.contains_key(f) => Some(texts::unknown_function(n, f, &names)),
                Some(_) => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, ty: ToolType) -> ToolInfo {
        serde_json::from_value(
            json!({"tool_key": format!("{ty}::{name}"), "tool_name": name,
            "namespace": "x", "tool_type": ty}),
        )
        .unwrap()
    }

    #[test]
    fn plans_may_use_the_windows_action_tools_but_not_the_shell_nor_the_apps_close() {
        let all: BTreeMap<String, ToolInfo> = [
            tool("click_input", ToolType::Action),
            tool("run_shell", ToolType::Action),
            tool("close_document", ToolType::Action),
            tool("get_app_window_controls_info", ToolType::DataCollection),
            tool("insert_table", ToolType::Action),
        ]
        .into_iter()
        .map(|t| (t.tool_name.clone(), t))
        .collect();
        let word = &crate::config::builtin_apps()["word"];
        let usable = plan_tools(&all, word);
        assert_eq!(
            usable.keys().collect::<Vec<_>>(),
            ["click_input", "insert_table"]
        );
        let plan = vec![
            json!({"Step": 1, "Function": "click_input"}),
            json!({"Step": 2, "Function": "run_shell"}),
            json!({"Step": 3}),
        ];
        let problems = unknown_tools(&plan, &usable);
        assert_eq!(problems.len(), 2);
        assert!(
            problems[0].starts_with("step 2 names the tool 'run_shell'"),
            "{problems:?}"
        );
        assert!(problems[0].contains("click_input, insert_table"));
        assert_eq!(problems[1], "step 3 names no Function");
    }
}
