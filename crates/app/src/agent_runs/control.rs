//! What a front end does to the run in the slot: read it, stop it, answer its questions.

use std::sync::Arc;

use super::ActiveRun;
use crate::app::App;
use crate::texts;

/// Why a question could not be answered.
#[derive(Debug, Clone, PartialEq)]
pub enum ApproveError {
    /// No active run has this id.
    UnknownRun(String),
    /// The run asks nothing about this call.
    NoQuestion(String),
}

impl ApproveError {
    /// What to tell the person.
    pub fn text(&self) -> String {
        match self {
            ApproveError::UnknownRun(id) => texts::unknown_run(id),
            ApproveError::NoQuestion(call) => texts::no_question(call),
        }
    }
}

impl App {
    /// The active chat or designer run, if any.
    pub fn current_run(&self) -> Option<Arc<ActiveRun>> {
        self.agent_runs().active()
    }

    /// Stops the active run (the one with `run_id`, when given); `None` when no such run is
    /// active. The run ends within about 2 s as `stopped`.
    pub fn stop_run(&self, run_id: Option<&str>) -> Option<Arc<ActiveRun>> {
        let run = self
            .current_run()
            .filter(|r| run_id.is_none_or(|id| id == r.run_id))?;
        run.stop();
        Some(run)
    }

    /// Answers the active run `run_id`'s question about the tool call `call_id`.
    pub fn approve(&self, run_id: &str, call_id: &str, approve: bool) -> Result<(), ApproveError> {
        let run = self
            .current_run()
            .filter(|r| r.run_id == run_id)
            .ok_or_else(|| ApproveError::UnknownRun(run_id.to_owned()))?;
        if run.approvals.answer(call_id, approve) {
            Ok(())
        } else {
            Err(ApproveError::NoQuestion(call_id.to_owned()))
        }
    }

    /// Stops the active run, if any, and waits up to `limit` for it to be stored and its
    /// `done` shown (shutdown; woken by the run's end).
    pub async fn stop_active_run(&self, limit: std::time::Duration) {
        let Some(run) = self.stop_run(None) else {
            return;
        };
        let _ = tokio::time::timeout(limit, run.log.closed()).await;
    }
}
