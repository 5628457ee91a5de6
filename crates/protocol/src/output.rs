//! A typed result (docs/console-api.md "Typed results"): what a run with an output schema ends
//! with. Either the final answer parsed as JSON and valid against the schema, or the errors of
//! its last attempt with the answer's text — never an unchecked value.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One way the answer failed its schema: where in the answer (a JSON Pointer, `""` for the
/// whole answer) and what is wrong there.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OutputError {
    /// The instance path (`/items/0/price`), `""` for the answer as a whole.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

/// The checked final answer of a run with an output schema. On the wire:
/// `{"valid": true, "value": …, "repaired": false}` or
/// `{"valid": false, "errors": [{"path", "message"}], "raw": "…", "repaired": true}`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TypedResult {
    /// Whether the answer is JSON valid against the schema.
    pub valid: bool,
    /// The parsed answer (only when valid).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "unknown"))]
    pub value: Option<Value>,
    /// Why it is not valid (only when not valid; at most [`TypedResult::MAX_ERRORS`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional, as = "Option<Vec<OutputError>>"))]
    pub errors: Vec<OutputError>,
    /// The answer's text as the model wrote it (only when not valid).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub raw: Option<String>,
    /// Whether a repair turn was asked for (the first answer was not valid).
    #[serde(default)]
    pub repaired: bool,
}

impl TypedResult {
    /// The most errors a result (and a repair turn) carries.
    pub const MAX_ERRORS: usize = 20;

    /// A valid answer.
    pub fn valid(value: Value) -> Self {
        TypedResult {
            valid: true,
            value: Some(value),
            errors: Vec::new(),
            raw: None,
            repaired: false,
        }
    }

    /// An answer that is not valid: its errors (cut to [`TypedResult::MAX_ERRORS`]) and text.
    pub fn invalid(mut errors: Vec<OutputError>, raw: impl Into<String>) -> Self {
        errors.truncate(Self::MAX_ERRORS);
        TypedResult {
            valid: false,
            value: None,
            errors,
            raw: Some(raw.into()),
            repaired: false,
        }
    }

    /// Builder: whether a repair turn was asked for.
    pub fn with_repaired(mut self, repaired: bool) -> Self {
        self.repaired = repaired;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_wire_shapes() {
        let ok = TypedResult::valid(json!({"n": 1}));
        assert_eq!(
            serde_json::to_value(&ok).unwrap(),
            json!({"valid": true, "value": {"n": 1}, "repaired": false})
        );
        let errors = (0..30)
            .map(|i| OutputError {
                path: format!("/{i}"),
                message: "bad".to_owned(),
            })
            .collect();
        let bad = TypedResult::invalid(errors, "[…]").with_repaired(true);
        let wire = serde_json::to_value(&bad).unwrap();
        assert_eq!(wire["valid"], false);
        assert_eq!(wire["raw"], "[…]");
        assert_eq!(wire["repaired"], true);
        assert!(wire.get("value").is_none());
        assert_eq!(wire["errors"].as_array().unwrap().len(), 20);
        assert_eq!(serde_json::from_value::<TypedResult>(wire).unwrap(), bad);
    }
}
