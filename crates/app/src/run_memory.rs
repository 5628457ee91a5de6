//! What runs do with the memory: the experience and action libraries, whether runs recall and
//! distil (`deft serve --no-memory` turns it off), and the runs still distilling. A chat's
//! session is the agent's extension (recall at the start, the `memory` cards, `run_action`);
//! after `done` went out — never before, so it never delays it — the run's notes are stored
//! (what was recalled, then what distilling saved, merged or dropped), and whoever asks about
//! the run sees `distilling` until they are.

use std::collections::HashSet;
use std::sync::Arc;

use deft_agent::RunOutcome;
use deft_agent::llm::LlmClient;
use deft_memory::{Memory, MemoryConfig, MemorySession};
use deft_protocol::memory::MemoryNote;
use deft_store::Store;
use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

/// The libraries and what runs are doing with them.
pub struct RunMemory {
    library: Memory,
    store: Store,
    /// Runs recall and distil.
    for_runs: bool,
    /// Runs whose distilling has not finished.
    distilling: Mutex<HashSet<String>>,
}

impl RunMemory {
    /// The libraries over `store`; `config` `None`: runs neither recall nor distil.
    pub fn new(store: &Store, config: Option<MemoryConfig>) -> Self {
        RunMemory {
            for_runs: config.is_some(),
            library: Memory::new(store.clone(), config.unwrap_or_default()),
            store: store.clone(),
            distilling: Mutex::new(HashSet::new()),
        }
    }

    /// The libraries.
    pub fn library(&self) -> &Memory {
        &self.library
    }

    /// Whether runs use the memory.
    pub fn for_runs(&self) -> bool {
        self.for_runs
    }

    /// A run's session, when runs use the memory.
    pub fn session(&self, run_id: &str) -> Option<Arc<MemorySession>> {
        self.for_runs.then(|| self.library.session(Some(run_id)))
    }

    /// Whether the run's distilling is still going on.
    pub fn is_distilling(&self, run_id: &str) -> bool {
        self.distilling.lock().contains(run_id)
    }

    /// The libraries changed: the recall index is rebuilt in the background, so the next run's
    /// start finds it current.
    pub fn changed(&self) {
        let memory = self.library.clone();
        tokio::spawn(async move {
            if let Err(e) = memory.index().await {
                tracing::warn!(error = %e, "cannot refresh the recall index");
            }
        });
    }

    fn set_distilling(&self, run_id: &str, on: bool) {
        let mut set = self.distilling.lock();
        if on {
            set.insert(run_id.to_owned());
        } else {
            set.remove(run_id);
        }
    }

    /// Marks the run as distilling when its outcome will be distilled. Call it before `done` is
    /// released, so whoever sees `done` and asks finds the mark.
    pub fn mark_before_done(
        &self,
        run_id: &str,
        session: Option<&MemorySession>,
        outcome: &RunOutcome,
    ) {
        if session.is_some_and(|s| s.will_distil(outcome)) {
            self.set_distilling(run_id, true);
        }
    }

    /// After `done`: stores what was recalled, distils (when marked) and stores what that did.
    pub fn after_done(
        self: &Arc<Self>,
        run_id: &str,
        session: Option<Arc<MemorySession>>,
        llm: Arc<LlmClient>,
        outcome: RunOutcome,
    ) {
        let Some(session) = session else {
            return;
        };
        let memory = self.clone();
        let run_id = run_id.to_owned();
        tokio::spawn(async move {
            memory.store_notes(&run_id, &session.recalled()).await;
            if memory.is_distilling(&run_id) {
                let notes = match LlmClient::new(deft_memory::model_config(llm.config())) {
                    Ok(llm) => {
                        session
                            .distil(&llm, &outcome, &CancellationToken::new())
                            .await
                    }
                    Err(e) => {
                        tracing::warn!(run = %run_id, error = %e, "no model client to distil with");
                        Vec::new()
                    }
                };
                memory.store_notes(&run_id, &notes).await;
                memory.set_distilling(&run_id, false);
            }
        });
    }

    async fn store_notes(&self, run_id: &str, notes: &[MemoryNote]) {
        if let Err(e) = self.store.append_run_notes(run_id, notes).await {
            tracing::warn!(run = %run_id, error = %e, "cannot store the run's memory notes");
        }
    }
}
