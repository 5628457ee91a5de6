//! Which of a task's steps a run plays (docs/tasks.md "Authoring: run to here"): the whole task,
//! the task from its first step up to and including one step (`until`), or one step alone
//! (`only`), addressed by the paths the validator and the step results use (`steps[2]`,
//! `steps[2].then[0]`).

use super::texts;
use crate::step::Task;

/// The part of a task a run plays.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Scope {
    /// Every step (a run, a try).
    #[default]
    Whole,
    /// From the first step up to and including the step at this path; the run then ends as
    /// completed, the steps after it neither run nor recorded, the device left as it is.
    Until(String),
    /// The step at this path alone (a container with its sub-steps), on the device as it is.
    Only(String),
}

impl Scope {
    /// The scope a request's `until` / `only` fields ask for (both: refused by the caller's
    /// own check, [`Scope::both_given`]).
    pub fn of(until: Option<String>, only: Option<String>) -> Scope {
        match (until, only) {
            (Some(p), _) => Scope::Until(p),
            (None, Some(p)) => Scope::Only(p),
            (None, None) => Scope::Whole,
        }
    }

    /// The text of a request that gives both `until` and `only`.
    pub fn both_given() -> &'static str {
        texts::SCOPE_BOTH
    }

    /// The request field this scope came from (`until`, `only`), none for the whole task.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            Scope::Whole => None,
            Scope::Until(_) => Some("until"),
            Scope::Only(_) => Some("only"),
        }
    }

    /// The path of the step the scope names.
    pub fn path(&self) -> Option<&str> {
        match self {
            Scope::Whole => None,
            Scope::Until(p) | Scope::Only(p) => Some(p),
        }
    }

    /// Whether the scope names a step of `task`; the error text names the path otherwise.
    pub fn check(&self, task: &Task) -> Result<(), String> {
        match self.path() {
            None => Ok(()),
            Some(p) if task.step_at(p).is_some() => Ok(()),
            Some(p) => Err(texts::no_step_at(p, task.steps.len())),
        }
    }
}
