//! The two result schemas (`schema/instantiation_schema.json` for instantiation results,
//! `schema/execution_schema.json` for execution and dataflow results — shipped in this crate,
//! replaceable by the config), compiled once, and the check every result goes through before it
//! is saved. A violation never stops the save: it is reported with its path.

use std::path::Path;

use serde_json::Value;

use crate::config::{Config, Mode};
use crate::texts;

/// The shipped instantiation schema.
pub const INSTANTIATION_SCHEMA: &str = include_str!("../schema/instantiation_schema.json");
/// The shipped execution schema.
pub const EXECUTION_SCHEMA: &str = include_str!("../schema/execution_schema.json");

/// One way a result differs from its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Where in the result, as a JSON pointer (`/time_cost/total`); empty for the whole.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{at}: {}", self.message)
    }
}

/// Both schemas, compiled, with the names they are reported by.
pub struct Schemas {
    instantiation: (jsonschema::Validator, String),
    execution: (jsonschema::Validator, String),
}

impl Schemas {
    /// The schemas `config` names (the shipped ones unless it names files).
    pub fn load(config: &Config) -> Result<Schemas, String> {
        Ok(Schemas {
            instantiation: compile(
                config.instantiation_schema.as_deref(),
                INSTANTIATION_SCHEMA,
                "instantiation_schema.json",
            )?,
            execution: compile(
                config.execution_schema.as_deref(),
                EXECUTION_SCHEMA,
                "execution_schema.json",
            )?,
        })
    }

    /// The shipped schemas.
    pub fn shipped() -> Schemas {
        let build = |text: &str, name: &str| {
            let schema: Value = serde_json::from_str(text).expect("the shipped schema is JSON");
            let v = jsonschema::validator_for(&schema).expect("the shipped schema compiles");
            (v, name.to_owned())
        };
        Schemas {
            instantiation: build(INSTANTIATION_SCHEMA, "instantiation_schema.json"),
            execution: build(EXECUTION_SCHEMA, "execution_schema.json"),
        }
    }

    /// The name of the schema `mode`'s results are checked against.
    pub fn name(&self, mode: Mode) -> &str {
        &self.pick(mode).1
    }

    fn pick(&self, mode: Mode) -> &(jsonschema::Validator, String) {
        match mode {
            Mode::Instantiation => &self.instantiation,
            Mode::Execution | Mode::Dataflow => &self.execution,
        }
    }

    /// Every violation of `result` against `mode`'s schema, in document order.
    pub fn check(&self, mode: Mode, result: &Value) -> Vec<Violation> {
        let mut out: Vec<Violation> = self
            .pick(mode)
            .0
            .iter_errors(result)
            .map(|e| Violation {
                path: e.instance_path().to_string(),
                message: e.to_string(),
            })
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }
}

fn compile(
    file: Option<&Path>,
    shipped: &str,
    name: &str,
) -> Result<(jsonschema::Validator, String), String> {
    let (text, name) = match file {
        None => (shipped.to_owned(), name.to_owned()),
        Some(p) => (
            std::fs::read_to_string(p).map_err(|e| texts::schema_unreadable(p, &e))?,
            p.display().to_string(),
        ),
    };
    let schema: Value =
        serde_json::from_str(&text).map_err(|e| texts::schema_invalid(&name, &e.to_string()))?;
    let validator = jsonschema::validator_for(&schema)
        .map_err(|e| texts::schema_invalid(&name, &e.to_string()))?;
    Ok((validator, name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn instantiated() -> Value {
        json!({
            "unique_id": "5", "app": "word",
            "original": {"original_task": "Bullets", "original_steps": ["1. a", "2. b"]},
            "execution_result": {"result": null, "error": null},
            "instantiation_result": {
                "choose_template": {"result": "results/saved_document/bulleted.docx", "error": null},
                "prefill": {"result": {"instantiated_request": "Turn it into a list.", "instantiated_plan": [
                    {"Step": 1, "Subtask": "select", "ControlLabel": null, "ControlText": "", "Function": "select_text", "Args": {"text": "x"}},
                    {"Step": 2, "Subtask": "click", "ControlLabel": null, "ControlText": "Bullets", "Function": "click_input", "Args": {"button": "left", "double": false}}
                ]}, "error": null},
                "instantiation_evaluation": {"result": {"judge": true, "thought": "fine", "request_type": "None"}, "error": null}
            },
            "time_cost": {"choose_template": 0.012, "prefill": 15.649, "instantiation_evaluation": 2.469,
                          "execute": null, "execute_eval": null, "total": 18.13}
        })
    }

    fn executed() -> Value {
        let mut v = instantiated();
        for step in v["instantiation_result"]["prefill"]["result"]["instantiated_plan"]
            .as_array_mut()
            .unwrap()
        {
            step["Success"] = json!(true);
            step["MatchedControlText"] = Value::Null;
        }
        v["execution_result"] = json!({"result": {"reason": "done", "sub_scores": {"text selection": "yes"},
            "complete": "yes"}, "error": null});
        v["time_cost"]["execute"] = json!(5.8);
        v["time_cost"]["execute_eval"] = json!(8.7);
        v
    }

    #[test]
    fn the_seeds_examples_match_their_schemas() {
        let s = Schemas::shipped();
        assert_eq!(s.check(Mode::Instantiation, &instantiated()), vec![]);
        assert_eq!(s.check(Mode::Dataflow, &executed()), vec![]);
        assert_eq!(s.name(Mode::Execution), "execution_schema.json");
    }

    #[test]
    fn the_two_schemas_differ_where_the_seed_says() {
        let s = Schemas::shipped();
        // An instantiation result lacks the execution fields of each step and time_cost.
        let mut inst = instantiated();
        inst["time_cost"].as_object_mut().unwrap().remove("execute");
        assert_eq!(s.check(Mode::Instantiation, &inst), vec![]);
        let paths: Vec<String> = s
            .check(Mode::Execution, &inst)
            .into_iter()
            .map(|v| v.path)
            .collect();
        assert!(paths.contains(&"/time_cost".to_owned()), "{paths:?}");
        assert!(
            paths.contains(&"/instantiation_result/prefill/result/instantiated_plan/0".to_owned()),
            "{paths:?}"
        );
        // An executed result is not an instantiation result: its execution_result must be null.
        let v = s.check(Mode::Instantiation, &executed());
        assert!(
            v.iter().any(|v| v.path == "/execution_result/result"),
            "{v:?}"
        );
    }

    #[test]
    fn violations_name_their_path() {
        let s = Schemas::shipped();
        let mut bad = executed();
        bad["instantiation_result"]["prefill"]["result"]["instantiated_plan"][1]["Step"] =
            json!("2");
        bad["execution_result"]["result"]["sub_scores"] =
            json!([{"name": "x", "evaluation": "yes"}]);
        bad["execution_result"]["error"] = json!({"type": "X"});
        bad.as_object_mut().unwrap().remove("unique_id");
        let v = s.check(Mode::Dataflow, &bad);
        let shown: Vec<String> = v.iter().map(ToString::to_string).collect();
        assert_eq!(v.len(), 5, "{shown:#?}");
        assert!(
            shown[0].starts_with("/: ") && shown[0].contains("unique_id"),
            "{shown:?}"
        );
        assert!(
            shown
                .iter()
                .any(|s| s.starts_with("/execution_result/error: "))
        );
        assert!(
            shown
                .iter()
                .any(|s| s.starts_with("/execution_result/result/sub_scores: "))
        );
        assert!(shown.iter().any(|s| {
            s.starts_with("/instantiation_result/prefill/result/instantiated_plan/1/Step: ")
        }));
    }

    #[test]
    fn a_configured_schema_file_is_used_and_a_broken_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        let strict = dir.path().join("strict.json");
        std::fs::write(&strict, r#"{"type": "object", "required": ["extra"]}"#).unwrap();
        let mut c = Config::defaults(dir.path());
        c.instantiation_schema = Some(strict.clone());
        let s = Schemas::load(&c).unwrap();
        assert_eq!(s.check(Mode::Instantiation, &instantiated()).len(), 1);
        assert!(s.name(Mode::Instantiation).ends_with("strict.json"));
        std::fs::write(&strict, r#"{"type": 7}"#).unwrap();
        let err = Schemas::load(&c).err().unwrap();
        assert!(err.contains("strict.json"), "{err}");
        c.instantiation_schema = Some(dir.path().join("missing.json"));
        assert!(Schemas::load(&c).err().unwrap().contains("missing.json"));
    }
}
