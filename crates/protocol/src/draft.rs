//! What designer mode's `done` carries (docs/design.md "Events"): the task draft with its warnings,
//! or why the run ended without one. The draft itself is a task file (docs/tasks.md) as JSON;
//! the language's types live in `deft-tasks`, which this crate does not know.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Something suspect in a draft, at its path (`steps[3].selector`): a validator warning, or a
/// selector no control matched during the exploration.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DraftIssue {
    /// Where, as the validator writes paths (`""` for the task as a whole).
    pub path: String,
    /// What is suspect and what to check.
    pub message: String,
}

impl DraftIssue {
    /// An issue at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        DraftIssue {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for DraftIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// How a designer run ended, as far as its draft goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DraftOutcome {
    /// A draft the validator accepted.
    Draft {
        /// The task file.
        task: Value,
        /// What is suspect in it.
        warnings: Vec<DraftIssue>,
    },
    /// No valid draft, and why (the tool-call limit, a stop, the model gave up).
    Failed(String),
}

impl DraftOutcome {
    /// The draft, when there is one.
    pub fn task(&self) -> Option<&Value> {
        match self {
            DraftOutcome::Draft { task, .. } => Some(task),
            DraftOutcome::Failed(_) => None,
        }
    }
}
