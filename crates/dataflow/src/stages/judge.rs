//! `instantiation_evaluation`: the model judges whether the instantiated request can be done in
//! the app alone — `{judge, thought, type}`, stored as `{judge, thought, request_type}`. `judge`
//! written as text ("true", "yes") is read as the boolean it means; anything else is an error.

use serde_json::{Map, Value, json};

use super::TaskCtx;
use crate::model::Question;
use crate::result::{INSTANTIATION_EVALUATION, StageError};
use crate::texts;

/// Runs the stage on `cx`.
pub async fn run(cx: &mut TaskCtx<'_>) -> Result<(), StageError> {
    let started = cx.begin(INSTANTIATION_EVALUATION);
    let outcome = judge(cx).await;
    match &outcome {
        Ok(result) => cx
            .doc
            .set_stage_result(INSTANTIATION_EVALUATION, result.clone()),
        Err(e) => cx.doc.set_stage_error(INSTANTIATION_EVALUATION, e),
    }
    cx.end(INSTANTIATION_EVALUATION, started, outcome.as_ref().err());
    outcome.map(|_| ())
}

async fn judge(cx: &mut TaskCtx<'_>) -> Result<Value, StageError> {
    let request = cx
        .doc
        .instantiated_request()
        .ok_or_else(|| StageError::new("MissingInput", texts::NO_REQUEST))?
        .to_owned();
    let q = Question {
        stage: INSTANTIATION_EVALUATION,
        system: texts::filter_system(&cx.spec.label),
        user: texts::filter_user(&request),
        images: Vec::new(),
    };
    let (answer, text) = cx.model.ask(q, &mut cx.log, &cx.cancel).await?;
    read(&answer).ok_or_else(|| {
        StageError::new(
            "ModelAnswerError",
            texts::answer_lacks(INSTANTIATION_EVALUATION, "a true or false \"judge\"", &text),
        )
        .at(INSTANTIATION_EVALUATION)
    })
}

/// `{judge, thought, request_type}` from the model's object.
fn read(answer: &Map<String, Value>) -> Option<Value> {
    let judge = match answer.get("judge")? {
        Value::Bool(b) => *b,
        Value::String(s) => match s.trim().to_lowercase().as_str() {
            "true" | "yes" => true,
            "false" | "no" => false,
            _ => return None,
        },
        _ => return None,
    };
    let thought = answer
        .get("thought")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let request_type = match answer.get("type").or_else(|| answer.get("request_type")) {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => "None".to_owned(),
        Some(other) => other.to_string(),
    };
    Some(json!({"judge": judge, "thought": thought, "request_type": request_type}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judgements_are_read_with_their_type() {
        let m = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(
            read(&m(json!({"judge": true, "thought": "ok", "type": "None"}))),
            Some(json!({"judge": true, "thought": "ok", "request_type": "None"}))
        );
        assert_eq!(
            read(&m(json!({"judge": "No", "type": null}))),
            Some(json!({"judge": false, "thought": "", "request_type": "None"}))
        );
        assert_eq!(read(&m(json!({"judge": "perhaps"}))), None);
        assert_eq!(read(&m(json!({"thought": "?"}))), None);
    }
}
