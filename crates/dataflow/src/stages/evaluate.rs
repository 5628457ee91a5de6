//! `execute_eval`: the model judges the ORIGINAL task (not the instantiated one) from the step
//! log, the final screenshot and the document's text, answering `{reason, sub_scores, complete}`.
//! `sub_scores` given as UFO's current prompt writes them — a list of `{name, evaluation}` — is
//! turned into the object the schema wants; `complete` is read without regard to case. Whatever
//! else the model answers is kept as it is and left for the schema check to flag.

use serde_json::{Map, Value, json};

use super::TaskCtx;
use super::execute::Executed;
use crate::model::Question;
use crate::result::{EXECUTE_EVAL, StageError};
use crate::texts;

/// Runs the stage on `cx` with what execution left.
pub async fn run(cx: &mut TaskCtx<'_>, executed: Executed) -> Result<(), StageError> {
    let started = cx.begin(EXECUTE_EVAL);
    let outcome = evaluate(cx, executed).await;
    match &outcome {
        Ok(result) => cx.doc.set_execution_result(result.clone()),
        Err(e) => cx.doc.set_execution_error(e),
    }
    cx.end(EXECUTE_EVAL, started, outcome.as_ref().err());
    outcome.map(|_| ())
}

async fn evaluate(cx: &mut TaskCtx<'_>, executed: Executed) -> Result<Value, StageError> {
    let has_image = executed.screenshot.is_some() && cx.model.visual();
    let q = Question {
        stage: EXECUTE_EVAL,
        system: texts::eval_system(&cx.spec.label),
        user: texts::eval_user(
            &cx.task.task,
            &executed.steps.join("\n"),
            executed.text.as_deref(),
            has_image,
        ),
        images: executed.screenshot.into_iter().collect(),
    };
    let (answer, _) = cx.model.ask(q, &mut cx.log, &cx.cancel).await?;
    Ok(normalize(answer))
}

/// The evaluation as the schema wants it, as far as the answer allows.
fn normalize(mut answer: Map<String, Value>) -> Value {
    if let Some(Value::Array(items)) = answer.get("sub_scores") {
        let scores: Map<String, Value> = items
            .iter()
            .filter_map(|i| {
                let name = i.get("name").or_else(|| i.get("subgoal"))?.as_str()?;
                let score = i.get("evaluation").or_else(|| i.get("score"))?;
                Some((name.to_owned(), Value::String(as_text(score))))
            })
            .collect();
        answer.insert("sub_scores".into(), Value::Object(scores));
    }
    if let Some(Value::Object(scores)) = answer.get_mut("sub_scores") {
        for v in scores.values_mut() {
            if !v.is_string() {
                *v = Value::String(as_text(v));
            }
        }
    }
    if let Some(Value::String(c)) = answer.get("complete") {
        let low = c.trim().to_lowercase();
        if ["yes", "no", "unsure"].contains(&low.as_str()) {
            answer.insert("complete".into(), json!(low));
        }
    }
    Value::Object(answer)
}

fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ufos_list_of_sub_scores_becomes_an_object_and_complete_is_lowercased() {
        let m = |v: Value| v.as_object().unwrap().clone();
        let v = normalize(m(json!({"reason": "r", "complete": " Yes ",
            "sub_scores": [{"name": "bold", "evaluation": "yes"}, {"name": "size", "evaluation": true}]})));
        assert_eq!(
            v,
            json!({"reason": "r", "complete": "yes", "sub_scores": {"bold": "yes", "size": "true"}})
        );
        let v = normalize(m(
            json!({"reason": "r", "complete": "maybe", "sub_scores": {"a": 1}}),
        ));
        assert_eq!(
            v,
            json!({"reason": "r", "complete": "maybe", "sub_scores": {"a": "1"}})
        );
        let v = normalize(m(json!({"reason": "r"})));
        assert_eq!(v, json!({"reason": "r"}));
    }
}
