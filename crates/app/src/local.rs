//! Runs on this machine without a server (`deft run`): the memory a chat takes part in, opened
//! from the data folder's store, and the distilling after its answer — so the CLI opens neither
//! the store nor the memory itself.

use std::path::Path;
use std::sync::Arc;

use deft_agent::llm::LlmClient;
use deft_agent::{RunOutcome, RunProfile};
use deft_memory::{Memory, MemoryConfig, MemorySession};
use deft_protocol::memory::MemoryNote;
use deft_store::{Store, StoreError};
use tokio_util::sync::CancellationToken;

/// A chat on this machine: the profile the agent runs with, and — when the memory takes part
/// — what distils the run after its answer.
pub struct LocalChat {
    /// The run's profile (a chat's, with the memory's session as its extension).
    pub profile: RunProfile,
    /// Distils the run after its answer; `None` without the memory.
    pub distiller: Option<Distiller>,
}

/// A chat on this machine: with the memory of the data folder's store (or of `database_url`'s
/// database) when `with_memory`, for run `run_id`. A store that cannot be opened is the error;
/// the caller may go on with [`LocalChat::plain`].
pub async fn chat(
    with_memory: bool,
    data_dir: &Path,
    database_url: Option<&str>,
    run_id: &str,
) -> Result<LocalChat, StoreError> {
    if !with_memory {
        return Ok(LocalChat::plain());
    }
    let store = Store::open(data_dir, database_url).await?;
    let memory = Memory::new(store, MemoryConfig::default());
    Ok(LocalChat::with_memory(&memory, run_id))
}

impl LocalChat {
    /// A chat without the memory.
    pub fn plain() -> LocalChat {
        LocalChat {
            profile: RunProfile::chat(),
            distiller: None,
        }
    }

    /// A chat with `memory`'s session for run `run_id` taking part.
    pub fn with_memory(memory: &Memory, run_id: &str) -> LocalChat {
        let session = memory.session(Some(run_id));
        LocalChat {
            profile: RunProfile::chat().with_extension(session.clone()),
            distiller: Some(Distiller { session }),
        }
    }
}

/// Distils a finished run into the memory.
pub struct Distiller {
    session: Arc<MemorySession>,
}

impl Distiller {
    /// Whether `outcome` is distilled (the run completed and acted).
    pub fn will_distil(&self, outcome: &RunOutcome) -> bool {
        self.session.will_distil(outcome)
    }

    /// Distils the run with the memory's settings of `llm`'s model; what was saved, merged or
    /// dropped. Nothing when the run is not distilled or no model client can be made.
    pub async fn distil(
        &self,
        llm: &LlmClient,
        outcome: &RunOutcome,
        cancel: &CancellationToken,
    ) -> Vec<MemoryNote> {
        if !self.will_distil(outcome) {
            return Vec::new();
        }
        match LlmClient::new(deft_memory::model_config(llm.config())) {
            Ok(llm) => self.session.distil(&llm, outcome, cancel).await,
            Err(e) => {
                tracing::warn!(error = %e, "no model client to distil with");
                Vec::new()
            }
        }
    }
}
