//! The batch format `deft exec` reads: one batch, or a list run in order in one device session.

use serde::{Deserialize, Serialize};

use crate::envelope::Command;
use crate::lenient::null_default;

fn default_agent() -> String {
    "HostAgent".to_owned()
}

fn default_true() -> bool {
    true
}

/// One batch of commands for one Computer (`agent::process::root`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecBatch {
    /// Routing-table profile; the device's own profile when absent.
    #[serde(default)]
    pub profile: Option<String>,
    /// Agent section of the profile (`HostAgent`, `AppAgent`, …). Default `HostAgent`.
    #[serde(default = "default_agent")]
    pub agent: String,
    /// Process (window title) the Computer is bound to.
    #[serde(default, deserialize_with = "null_default")]
    pub process: String,
    /// Application root; unknown roots fall back to `default`.
    #[serde(default, deserialize_with = "null_default")]
    pub root: String,
    /// Skip the rest after the first failure. Default true.
    #[serde(default = "default_true")]
    pub early_exit: bool,
    /// The commands, run in order.
    pub commands: Vec<Command>,
}

/// What `deft exec` accepts: a single batch or a list of batches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ExecInput {
    /// One batch.
    One(ExecBatch),
    /// Several batches, run in order within one device session.
    Many(Vec<ExecBatch>),
}

impl ExecInput {
    /// The batches in order.
    pub fn into_batches(self) -> Vec<ExecBatch> {
        match self {
            ExecInput::One(b) => vec![b],
            ExecInput::Many(v) => v,
        }
    }

    /// Parses a batch file's text, with an error that says what shape was expected.
    pub fn parse(text: &str) -> Result<Self, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        let parse_one = |v: serde_json::Value, at: &str| {
            serde_json::from_value::<ExecBatch>(v).map_err(|e| {
                format!("{at}: {e} (expected {{\"agent\"?, \"process\"?, \"root\"?, \"profile\"?, \"early_exit\"?, \"commands\": [...]}})")
            })
        };
        match value {
            serde_json::Value::Array(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| parse_one(v, &format!("batch [{i}]")))
                .collect::<Result<Vec<_>, _>>()
                .map(ExecInput::Many),
            v @ serde_json::Value::Object(_) => parse_one(v, "batch").map(ExecInput::One),
            _ => Err("expected a batch object or a list of batch objects".to_owned()),
        }
    }
}
