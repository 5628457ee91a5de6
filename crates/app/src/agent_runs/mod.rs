//! Chat and designer runs: the run slot (one run at a time, platform-wide) and the life of a
//! run. A run is a chat or designer mode ([`RunMode`]); both take the same slot, and a designer
//! run's valid draft is kept ([`drafts`]) before its `done` is shown. A chat takes part in the
//! memory (its session recalls at the start and distils after `done`,
//! [`crate::run_memory`]); a designer run does not.
//!
//! [`start`] checks a request, takes the slot and the device, records the run and starts the
//! agent; [`summary`] is what a run's message keeps besides the answer; [`finish`] stores a
//! run's end (and ends the runs a previous process left running); [`control`] stops a run and
//! answers its questions ([`approvals`]), which [`noticed`] tells the notifications.
//!
//! A run's events go to three places through one sink: its [`RunLog`] (what watchers read),
//! the store (batched by a writer task, so a restart can replay it), and the summary. The
//! `done` event is held back until the store has the whole run and the slot is free again, so
//! whoever sees `done` can start the next run at once and finds the conversation complete.

pub mod approvals;
pub mod control;
pub mod drafts;
pub mod finish;
pub mod noticed;
pub mod start;
mod summary;

use std::collections::VecDeque;
use std::sync::Arc;

use deft_protocol::{RunMode, Usage};
use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

use crate::run_log::RunLog;
use approvals::Approvals;

/// Finished runs whose logs stay in memory (older ones are read back from the store).
const RECENT_LOGS: usize = 16;

/// The run in the slot.
pub struct ActiveRun {
    /// Run id.
    pub run_id: String,
    /// Its conversation.
    pub conversation: String,
    /// The device it operates.
    pub device: String,
    /// What was asked.
    pub prompt: String,
    /// A chat, or designer mode.
    pub mode: RunMode,
    /// When it started.
    pub started_at_ms: i64,
    /// Its events.
    pub log: Arc<RunLog>,
    /// Its open questions.
    pub approvals: Approvals,
    /// The lease its writes are made under (a device this server holds in a fleet).
    pub fence: Option<deft_store::Fence>,
    cancel: CancellationToken,
    usage: Mutex<Usage>,
}

impl ActiveRun {
    /// Where its events are stored (under its fence, when it has one).
    pub(crate) fn event_store(&self) -> crate::event_writer::EventStore {
        use crate::event_writer::EventStore;
        match &self.fence {
            Some(fence) => EventStore::FencedAgent(self.run_id.clone(), fence.clone()),
            None => EventStore::Agent(self.run_id.clone()),
        }
    }

    /// Asks the run to stop (it ends within about 2 s, status `stopped`).
    pub fn stop(&self) {
        self.cancel.cancel();
    }

    /// Token usage so far.
    pub fn usage(&self) -> Usage {
        *self.usage.lock()
    }
}

/// The slot and the logs of recent runs.
#[derive(Default)]
pub struct AgentRuns {
    slot: Mutex<Option<Arc<ActiveRun>>>,
    recent: Mutex<VecDeque<(String, Arc<RunLog>)>>,
}

impl AgentRuns {
    /// The active run.
    pub fn active(&self) -> Option<Arc<ActiveRun>> {
        self.slot.lock().clone()
    }

    /// The in-memory log of a run (active or recent).
    pub fn log(&self, run_id: &str) -> Option<Arc<RunLog>> {
        if let Some(a) = self.active().filter(|a| a.run_id == run_id) {
            return Some(a.log.clone());
        }
        self.recent
            .lock()
            .iter()
            .find(|(id, _)| id == run_id)
            .map(|(_, log)| log.clone())
    }

    fn claim(&self, run: Arc<ActiveRun>) -> bool {
        let mut slot = self.slot.lock();
        if slot.is_some() {
            return false;
        }
        *slot = Some(run);
        true
    }

    /// Frees the slot held by `run_id` for a run that never started (its device was busy):
    /// nothing of it is kept.
    fn unclaim(&self, run_id: &str) {
        self.slot.lock().take_if(|r| r.run_id == run_id);
    }

    /// Frees the slot held by `run_id`, keeping its log among the recent ones.
    fn release(&self, run_id: &str) {
        let mut slot = self.slot.lock();
        if let Some(run) = slot.take_if(|r| r.run_id == run_id) {
            let mut recent = self.recent.lock();
            recent.push_back((run.run_id.clone(), run.log.clone()));
            while recent.len() > RECENT_LOGS {
                recent.pop_front();
            }
        }
    }
}
