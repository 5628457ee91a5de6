//! An agent run on this machine without a server (`deft run`): a chat — with the memory of the
//! data folder's store taking part and distilling it after its answer — or designer mode; the
//! device held, its events to the trace folder and to the front end's watcher.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use deft_agent::llm::LlmClient;
use deft_agent::{
    Agent, AgentConfig, Approver, OutputSchema, RunIo, RunOutcome, RunProfile, RunRequest,
};
use deft_memory::{Memory, MemoryConfig, MemorySession};
use deft_protocol::EventSink;
use deft_protocol::memory::MemoryNote;
use deft_store::{Store, StoreError};
use deft_tools::{Device, Devices};
use deft_trace::{TraceMeta, TraceWriter};
use tokio_util::sync::CancellationToken;

use super::{LocalError, reserve, trace_folder};

/// A chat on this machine: the profile the agent runs with, and — when the memory takes part
/// — what distils the run after its answer.
pub struct LocalChat {
    /// The run's profile (a chat's, with the memory's session as its extension).
    pub profile: RunProfile,
    /// Distils the run after its answer; `None` without the memory.
    pub distiller: Option<Distiller>,
}

/// A chat on this machine: with the memory of the data folder's store (or of `database_url`'s
/// database) when `with_memory`, for run `run_id` (see [`super::new_run_id`]). A store that cannot be opened is the error;
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
    /// Designer mode on `device`: it explores on its own, with no recall and no distilling.
    pub fn designer(device: &Device) -> LocalChat {
        LocalChat {
            profile: deft_designer::profile(device),
            distiller: None,
        }
    }

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

/// An agent run to make on a device of this machine.
pub struct LocalChatRun {
    /// The run's id (its trace folder's name).
    pub run_id: String,
    /// What the person asks.
    pub goal: String,
    /// The device it operates.
    pub device: Device,
    /// The devices the agent may reach.
    pub devices: Arc<dyn Devices>,
    /// The model.
    pub llm: Arc<LlmClient>,
    /// Model calls at most.
    pub max_steps: u32,
    /// A chat (with or without the memory) or designer mode.
    pub chat: LocalChat,
    /// Where the run's trace folder goes.
    pub trace_root: PathBuf,
    /// Who answers the run's questions.
    pub approver: Arc<dyn Approver>,
    /// The schema the final answer must be valid against (`deft run --output-schema`).
    pub output_schema: Option<OutputSchema>,
}

/// How a local agent run ended: its outcome, what distils it, its trace (still open: close it
/// with [`TraceWriter::finish`] once the front end is done with the run).
pub struct LocalChatEnd {
    /// The agent's outcome.
    pub outcome: RunOutcome,
    /// Distils the run; `None` without the memory or in designer mode.
    pub distiller: Option<Distiller>,
    /// The run's trace.
    pub trace: Arc<TraceWriter>,
}

impl LocalChatRun {
    /// Holds the device and runs the agent to its end (or until `cancel`), its events to the
    /// trace and to `watcher`.
    pub async fn run(
        self,
        watcher: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> Result<LocalChatEnd, LocalError> {
        let _busy = reserve(&self.device)?;
        let trace = trace_folder(
            &self.trace_root,
            &self.run_id,
            TraceMeta {
                goal: self.goal.clone(),
                device: self.device.id.clone(),
                model: self.llm.config().model.clone(),
            },
        )?;
        let agent = Agent::new(
            self.llm.clone(),
            AgentConfig::default().with_max_steps(self.max_steps),
            self.devices,
        );
        let io = RunIo {
            events: vec![watcher, trace.clone()],
            images: trace.clone(),
            approver: self.approver,
        };
        let request = RunRequest::new(&self.goal)
            .with_profile(self.chat.profile)
            .with_output_schema(self.output_schema);
        let outcome = agent.run(&self.device, request, io, cancel).await;
        Ok(LocalChatEnd {
            outcome,
            distiller: self.chat.distiller,
            trace,
        })
    }
}
