//! The result file (UFO's dataflow result, docs/dataflow.md): a skeleton with every field the schemas require, filled stage
//! by stage. Kept as JSON, not typed structs, so an execution run can update a result file another
//! tool wrote (UFO's own included) without losing a field it does not know.
//!
//! Where errors go: the instantiation stages' `error` fields are strings (the schemas say so; UFO
//! wrote objects there and failed its own schema); `execution_result.error` is
//! `{type, message, traceback}`.

use serde_json::{Map, Value, json};

use crate::task::Task;

/// The instantiation stages, by their key under `instantiation_result` and in `time_cost`.
pub const CHOOSE_TEMPLATE: &str = "choose_template";
/// See [`CHOOSE_TEMPLATE`].
pub const PREFILL: &str = "prefill";
/// See [`CHOOSE_TEMPLATE`].
pub const INSTANTIATION_EVALUATION: &str = "instantiation_evaluation";
/// The execution stages' keys in `time_cost`.
pub const EXECUTE: &str = "execute";
/// See [`EXECUTE`].
pub const EXECUTE_EVAL: &str = "execute_eval";

/// Every `time_cost` key but `total`, in stage order.
pub const STAGES: [&str; 5] = [
    CHOOSE_TEMPLATE,
    PREFILL,
    INSTANTIATION_EVALUATION,
    EXECUTE,
    EXECUTE_EVAL,
];

/// What went wrong in a stage: its kind (`ModelAnswerError`, `DeviceError`, …), what happened,
/// and where (the stage, the step, the tool's own text) — the `traceback` of UFO's error objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageError {
    /// A short kind, CamelCase.
    pub kind: &'static str,
    /// What happened, for a person.
    pub message: String,
    /// Where it happened and what led there.
    pub trace: String,
}

impl StageError {
    /// An error of `kind`.
    pub fn new(kind: &'static str, message: impl Into<String>) -> Self {
        StageError {
            kind,
            message: message.into(),
            trace: String::new(),
        }
    }

    /// Adds where it happened.
    pub fn at(mut self, trace: impl Into<String>) -> Self {
        self.trace = trace.into();
        self
    }

    /// The string an instantiation stage's `error` holds: `Kind: message`.
    pub fn as_text(&self) -> String {
        format!("{}: {}", self.kind, self.message)
    }

    /// The object `execution_result.error` holds.
    pub fn as_object(&self) -> Value {
        json!({"type": self.kind, "message": self.message, "traceback": self.trace})
    }
}

impl std::fmt::Display for StageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.as_text())
    }
}

/// One task's result document.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultDoc(pub Map<String, Value>);

impl ResultDoc {
    /// The skeleton of `task`: ids, the original task, every stage `{result: null, error: null}`,
    /// every time null.
    pub fn skeleton(task: &Task) -> ResultDoc {
        let stage = || json!({"result": null, "error": null});
        let times: Map<String, Value> = STAGES
            .iter()
            .chain(&["total"])
            .map(|k| ((*k).to_owned(), Value::Null))
            .collect();
        let doc = json!({
            "unique_id": task.unique_id,
            "app": task.app,
            "original": {"original_task": task.task, "original_steps": task.steps},
            "execution_result": stage(),
            "instantiation_result": {
                CHOOSE_TEMPLATE: stage(),
                PREFILL: stage(),
                INSTANTIATION_EVALUATION: stage(),
            },
            "time_cost": times,
        });
        match doc {
            Value::Object(m) => ResultDoc(m),
            _ => ResultDoc(Map::new()),
        }
    }

    /// An instantiated result (execution mode): the file as read, with what execution needs
    /// made present (`execution_result`, the `time_cost` keys) and the top-level fields it lacks
    /// taken from `task`'s skeleton.
    pub fn from_prior(prior: Map<String, Value>, task: &Task) -> ResultDoc {
        let mut doc = ResultDoc(prior);
        for (key, value) in ResultDoc::skeleton(task).0 {
            doc.0.entry(key).or_insert(value);
        }
        if !doc.0.get("execution_result").is_some_and(Value::is_object) {
            doc.0.insert(
                "execution_result".into(),
                json!({"result": null, "error": null}),
            );
        }
        let times = doc.object_mut("time_cost");
        for key in STAGES.iter().chain(&["total"]) {
            times.entry(*key).or_insert(Value::Null);
        }
        doc
    }

    /// The whole document.
    pub fn value(&self) -> Value {
        Value::Object(self.0.clone())
    }

    fn object_mut(&mut self, key: &str) -> &mut Map<String, Value> {
        let slot = self.0.entry(key).or_insert_with(|| json!({}));
        if !slot.is_object() {
            *slot = json!({});
        }
        slot.as_object_mut()
            .expect("the slot was just made an object")
    }

    /// `instantiation_result.<stage>` as `{result, error}`.
    fn stage_mut(&mut self, stage: &str) -> &mut Map<String, Value> {
        let inst = self.object_mut("instantiation_result");
        let slot = inst
            .entry(stage)
            .or_insert_with(|| json!({"result": null, "error": null}));
        if !slot.is_object() {
            *slot = json!({"result": null, "error": null});
        }
        slot.as_object_mut()
            .expect("the slot was just made an object")
    }

    /// Sets an instantiation stage's result.
    pub fn set_stage_result(&mut self, stage: &str, result: Value) {
        self.stage_mut(stage).insert("result".into(), result);
    }

    /// Records an instantiation stage's error (a string, as the schemas say).
    pub fn set_stage_error(&mut self, stage: &str, error: &StageError) {
        self.stage_mut(stage)
            .insert("error".into(), Value::String(error.as_text()));
    }

    /// An extra field beside a stage's `result` and `error` (the schemas allow them).
    pub fn set_stage_field(&mut self, stage: &str, key: &str, value: Value) {
        self.stage_mut(stage).insert(key.into(), value);
    }

    /// `instantiation_result.<stage>.result`.
    pub fn stage_result(&self, stage: &str) -> Option<&Value> {
        self.0
            .get("instantiation_result")?
            .get(stage)?
            .get("result")
            .filter(|v| !v.is_null())
    }

    /// `execution_result.result` = the evaluation.
    pub fn set_execution_result(&mut self, result: Value) {
        self.object_mut("execution_result")
            .insert("result".into(), result);
    }

    /// `execution_result.error` = `{type, message, traceback}`.
    pub fn set_execution_error(&mut self, error: &StageError) {
        self.object_mut("execution_result")
            .insert("error".into(), error.as_object());
    }

    /// `execution_result.result`, when set.
    pub fn execution_result(&self) -> Option<&Value> {
        self.0
            .get("execution_result")?
            .get("result")
            .filter(|v| !v.is_null())
    }

    /// The instantiated plan, when prefill made one.
    pub fn plan_mut(&mut self) -> Option<&mut Vec<Value>> {
        self.0
            .get_mut("instantiation_result")?
            .get_mut(PREFILL)?
            .get_mut("result")?
            .get_mut("instantiated_plan")?
            .as_array_mut()
    }

    /// Sets every plan step's `Success` and `MatchedControlText` to null (nothing ran yet).
    pub fn reset_step_outcomes(&mut self) {
        for step in self.plan_mut().into_iter().flatten() {
            if let Value::Object(m) = step {
                m.insert("Success".into(), Value::Null);
                m.insert("MatchedControlText".into(), Value::Null);
            }
        }
    }

    /// The instantiated request, when prefill made one.
    pub fn instantiated_request(&self) -> Option<&str> {
        self.stage_result(PREFILL)?
            .get("instantiated_request")?
            .as_str()
    }

    /// `instantiation_evaluation.result.judge`, when it is a boolean.
    pub fn judge(&self) -> Option<bool> {
        self.stage_result(INSTANTIATION_EVALUATION)?
            .get("judge")?
            .as_bool()
    }

    /// The document the template stage copied (`choose_template.result`).
    pub fn document(&self) -> Option<&str> {
        self.stage_result(CHOOSE_TEMPLATE)?.as_str()
    }

    /// Sets one stage's time, in seconds (rounded to milliseconds).
    pub fn set_time(&mut self, stage: &str, seconds: f64) {
        self.object_mut("time_cost")
            .insert(stage.into(), json!(round_ms(seconds)));
    }

    /// `time_cost.total` = what it was (a result run again accumulates) + `seconds`.
    pub fn add_total(&mut self, seconds: f64) {
        let times = self.object_mut("time_cost");
        let before = times.get("total").and_then(Value::as_f64).unwrap_or(0.0);
        times.insert("total".into(), json!(round_ms(before + seconds)));
    }

    /// `time_cost.total`, when set.
    pub fn total(&self) -> Option<f64> {
        self.0.get("time_cost")?.get("total")?.as_f64()
    }
}

fn round_ms(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task() -> Task {
        Task {
            name: "t".into(),
            file: "t.json".into(),
            unique_id: "1".into(),
            app: "word".into(),
            task: "Bullets".into(),
            steps: vec!["a".into()],
            prior: None,
        }
    }

    #[test]
    fn the_skeleton_has_every_field_null_and_stages_fill_it() {
        let mut doc = ResultDoc::skeleton(&task());
        let v = doc.value();
        assert_eq!(v["original"]["original_steps"][0], "a");
        assert!(v["instantiation_result"]["prefill"]["result"].is_null());
        assert!(v["time_cost"]["execute_eval"].is_null() && v["time_cost"]["total"].is_null());
        doc.set_stage_result(CHOOSE_TEMPLATE, json!("/r/saved_document/t.docx"));
        doc.set_stage_error(PREFILL, &StageError::new("ModelAnswerError", "no JSON"));
        doc.set_time(PREFILL, 1.23456);
        doc.add_total(2.0);
        doc.add_total(0.5);
        let v = doc.value();
        assert_eq!(doc.document(), Some("/r/saved_document/t.docx"));
        assert_eq!(
            v["instantiation_result"]["prefill"]["error"],
            "ModelAnswerError: no JSON"
        );
        assert_eq!(v["time_cost"]["prefill"], 1.235);
        assert_eq!(doc.total(), Some(2.5));
        doc.set_execution_error(&StageError::new("DeviceError", "gone").at("execute › step 2"));
        assert_eq!(
            doc.value()["execution_result"]["error"],
            json!({"type": "DeviceError", "message": "gone", "traceback": "execute › step 2"})
        );
    }

    #[test]
    fn a_prior_result_keeps_its_fields_and_gains_the_execution_ones() {
        let prior = json!({"unique_id": "5", "extra": {"kept": true}, "time_cost": {"total": 3.0},
            "instantiation_result": {"prefill": {"result": {"instantiated_plan": [{"Step": 1}]}}}});
        let Value::Object(m) = prior else { panic!() };
        let mut doc = ResultDoc::from_prior(m, &task());
        assert_eq!(doc.value()["extra"]["kept"], true);
        assert!(doc.value()["time_cost"]["execute"].is_null());
        assert_eq!(doc.plan_mut().unwrap().len(), 1);
        doc.add_total(1.0);
        assert_eq!(doc.total(), Some(4.0));
    }
}
