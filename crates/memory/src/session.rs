//! A run's session with the memory: the agent's extension. At the start it recalls (within
//! [`crate::MemoryConfig::recall_limit`]; a store that fails or stalls only means no memories),
//! puts the sections into the prompt, shows the cards, counts the hits and offers `run_action`
//! when actions were recalled; while the run goes it records the calls; after `done` was sent,
//! [`MemorySession::distil`] turns a completed run that acted into experiences and actions.

use std::sync::Arc;

use deft_agent::llm::LlmClient;
use deft_agent::{CallRecord, Preparation, RunExtension, RunOutcome, Starting};
use deft_protocol::DoneStatus;
use deft_protocol::memory::{MemoryKind, MemoryNote};
use futures::future::BoxFuture;
use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

use crate::action::run::RunActionTool;
use crate::distilled::RunFacts;
use crate::trajectory::Trajectory;
use crate::{Memory, action, experience};

/// One run's session (see the module docs).
pub struct MemorySession {
    memory: Memory,
    run_id: Option<String>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    goal: String,
    recalled: Vec<MemoryNote>,
    trajectory: Trajectory,
}

impl MemorySession {
    pub(crate) fn new(memory: Memory, run_id: Option<String>) -> Self {
        MemorySession {
            memory,
            run_id,
            state: Mutex::new(State::default()),
        }
    }

    /// The cards of what was recalled into the run's prompt.
    pub fn recalled(&self) -> Vec<MemoryNote> {
        self.state.lock().recalled.clone()
    }

    /// The calls recorded so far.
    pub fn trajectory(&self) -> Trajectory {
        self.state.lock().trajectory.clone()
    }

    /// Whether [`MemorySession::distil`] has anything to do for this outcome: the run completed and
    /// some device action of it worked.
    pub fn will_distil(&self, outcome: &RunOutcome) -> bool {
        outcome.status == DoneStatus::Completed && self.state.lock().trajectory.acted()
    }

    /// Distils the run into the libraries — only a completed run that acted — and returns the
    /// cards of what was saved, merged or dropped (and why). Call it after `done` was sent: it
    /// makes model calls.
    pub async fn distil(
        &self,
        llm: &LlmClient,
        outcome: &RunOutcome,
        cancel: &CancellationToken,
    ) -> Vec<MemoryNote> {
        let (goal, trajectory, recalled) = {
            let s = self.state.lock();
            let recalled: Vec<String> = s
                .recalled
                .iter()
                .filter(|n| n.kind == MemoryKind::Experience)
                .flat_map(|n| n.items.iter().filter_map(|i| i.id.clone()))
                .collect();
            (s.goal.clone(), s.trajectory.clone(), recalled)
        };
        if !self.will_distil(outcome) {
            tracing::debug!(
                run = self.run_id.as_deref().unwrap_or("-"),
                status = %outcome.status,
                "not distilled: only a completed run whose actions worked is"
            );
            return Vec::new();
        }
        let facts = RunFacts {
            task: &goal,
            answer: &outcome.answer,
            run_id: self.run_id.as_deref(),
            recalled: &recalled,
        };
        let mut notes =
            experience::distil::distil(&self.memory, llm, &facts, &trajectory, cancel).await;
        notes.extend(action::distil::distil(&self.memory, llm, &facts, &trajectory, cancel).await);
        // Rebuild the recall index now, after the answer went out, so the next run's start
        // finds it current instead of rebuilding it.
        if let Err(e) = self.memory.index().await {
            tracing::warn!(error = %e, "cannot refresh the recall index");
        }
        notes
    }

    /// Recall for `goal`, bounded in time; failures are logged and mean no memories.
    async fn prepare(&self, goal: &str) -> Preparation {
        let limit = self.memory.config().recall_limit;
        let run = self.run_id.as_deref().unwrap_or("-");
        let recalled = match tokio::time::timeout(limit, self.memory.recall(goal)).await {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                tracing::warn!(run, error = %e, "recall failed; the run starts without memories");
                return Preparation::default();
            }
            Err(_) => {
                tracing::warn!(
                    run,
                    ?limit,
                    "recall took too long; the run starts without memories"
                );
                return Preparation::default();
            }
        };
        if recalled.is_empty() {
            return Preparation::default();
        }
        if let Err(e) = self.memory.count_hits(&recalled).await {
            tracing::warn!(run, error = %e, "cannot count the recalled memories' hits");
        }
        let notes = recalled.notes();
        for note in &notes {
            tracing::info!(run, kind = note.kind.as_str(), "{}", note.line());
        }
        self.state.lock().recalled = notes.clone();
        let offered: Vec<String> = recalled
            .actions
            .iter()
            .map(|(a, _)| a.name.clone())
            .collect();
        let mut tools: Vec<Arc<dyn deft_agent::PlatformTool>> = Vec::new();
        if !offered.is_empty() {
            tools.push(Arc::new(RunActionTool::new(self.memory.clone(), offered)));
        }
        Preparation {
            context: recalled.sections(),
            events: notes
                .into_iter()
                .map(deft_protocol::EventKind::Memory)
                .collect(),
            tools,
        }
    }
}

impl RunExtension for MemorySession {
    fn start<'a>(&'a self, start: Starting<'a>) -> BoxFuture<'a, Preparation> {
        self.state.lock().goal = start.goal.to_owned();
        Box::pin(self.prepare(start.goal))
    }

    fn called(&self, call: &CallRecord<'_>) {
        self.state.lock().trajectory.record(call);
    }
}
