//! deft's memory (seed 001 §4, §5): two libraries that make the agent faster the more it is used.
//!
//! - The **experience library**: task-level recipes in words. After a run that completed and
//!   acted, the model distils the task and its tool calls into a recipe (reasoning off, a quality
//!   gate, truncation-tolerant parsing, near-duplicates merged); when a run starts, recipes of
//!   similar tasks (character bigrams and words, a threshold, the best two) go into its system
//!   prompt; a daily audit by the model suggests deleting weak ones — only a person deletes.
//! - The **action library**: named actions as steps of the task step language with element
//!   selectors (library mode of deft-tasks' validator: sixteen types, no coordinates), distilled
//!   from a run's successful steps, recalled by name or alias, and run in one call by the
//!   `run_action` platform tool through the task runner on the run's device.
//!
//! A run meets the memory through a [`MemorySession`], a [`deft_agent::RunExtension`] in the run's
//! profile (a chat's: designer runs take no part): recall at the start (a prompt section, a
//! `memory` event, hits counted, `run_action` offered when actions were recalled), the
//! trajectory while it runs, [`MemorySession::distil`] after `done` was sent (never before: it must not delay it). Every
//! outcome is logged and comes back as a [`deft_protocol::memory::MemoryNote`] for the run's
//! cards.
//!
//! ```no_run
//! # async fn demo(store: deft_store::Store, llm: deft_agent::llm::LlmClient,
//! #               device: deft_tools::Device, devices: std::sync::Arc<dyn deft_tools::Devices>) {
//! use std::sync::Arc;
//! use deft_memory::{Memory, MemoryConfig};
//! let memory = Memory::new(store, MemoryConfig::default());
//! let session = memory.session(Some("run-1"));
//! let llm = Arc::new(llm);
//! let agent = deft_agent::Agent::new(llm.clone(), Default::default(), devices);
//! let request = deft_agent::RunRequest::new("compute 7 × 8")
//!     .with_profile(deft_agent::RunProfile::chat().with_extension(session.clone()));
//! let outcome = agent
//!     .run(&device, request, deft_agent::RunIo::discard(), Default::default())
//!     .await;
//! // after `done` went out:
//! let notes = session.distil(&llm, &outcome, &Default::default()).await;
//! # }
//! ```
//!
//! **Invariants:** the memory reaches a device only through the task runner (`run_action`,
//! trying an action), never a backend or a dispatcher of its own; it never deletes an
//! experience — the audit marks `pending`, a person deletes or keeps; nothing half-valid is
//! stored: a candidate is whole and checked, or dropped with its reason.

#![forbid(unsafe_code)]

pub mod action;
mod audit;
mod distilled;
pub mod experience;
mod index;
mod model;
mod recall;
mod session;
pub mod similar;
pub mod texts;
mod trajectory;

use std::sync::Arc;
use std::time::Duration;

use deft_store::{Store, StoreError};

pub use action::check::{ActionSubmission, MAX_ACTION_STEPS, check_submission};
pub use action::run::{ActionRun, RUN_ACTION};
pub use audit::{AUDIT_JOB, AuditError, DEFAULT_AUDIT_CRON};
pub use index::{Hit, RecallIndex};
pub use recall::Recalled;
pub use session::MemorySession;
pub use trajectory::{Call, Trajectory};

/// The memory's knobs. [`MemoryConfig::default`] suits `deft serve` and `deft run`.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryConfig {
    /// Least similarity (weighted Dice, 0–1) of a recalled experience.
    pub experience_threshold: f32,
    /// Most experiences recalled into one run.
    pub experience_top: usize,
    /// Least score (0–1) of a recalled action.
    pub action_threshold: f32,
    /// Most actions recalled into one run.
    pub action_top: usize,
    /// Similarity at which a new experience is merged into an existing one.
    pub merge_threshold: f32,
    /// Most bytes of a model's answer read (a longer one is cut there).
    pub answer_cap: usize,
    /// Longest a distilling or audit call may take.
    pub call_limit: Duration,
    /// Longest recall may hold up a run's start (then the run starts without memories).
    pub recall_limit: Duration,
    /// Experiences reviewed per audit call.
    pub audit_batch: usize,
    /// An audit still `running` after this long was cut off by its server's end.
    pub audit_stale: Duration,
    /// Longest an action may run (`run_action`, trying an action).
    pub action_timeout: Duration,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            experience_threshold: 0.3,
            experience_top: 2,
            action_threshold: 0.5,
            action_top: 3,
            merge_threshold: 0.8,
            answer_cap: 64 * 1024,
            call_limit: Duration::from_secs(120),
            recall_limit: Duration::from_secs(5),
            audit_batch: 20,
            audit_stale: Duration::from_secs(30 * 60),
            action_timeout: Duration::from_secs(120),
        }
    }
}

/// The memory: the libraries in the store and the recall index over them. Cheap to clone.
#[derive(Clone)]
pub struct Memory {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    config: MemoryConfig,
    /// The recall index as of the store's memory generation it was built at.
    index: tokio::sync::Mutex<Option<Arc<RecallIndex>>>,
}

impl Memory {
    /// The memory over `store`.
    pub fn new(store: Store, config: MemoryConfig) -> Memory {
        Memory {
            inner: Arc::new(Inner {
                store,
                config,
                index: tokio::sync::Mutex::new(None),
            }),
        }
    }

    /// The store the libraries live in.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The knobs.
    pub fn config(&self) -> &MemoryConfig {
        &self.inner.config
    }

    /// A run's session with the memory (its [`deft_agent::RunExtension`]); `run_id` names the
    /// run in logs and as the source of what is distilled from it.
    pub fn session(&self, run_id: Option<&str>) -> Arc<MemorySession> {
        Arc::new(MemorySession::new(self.clone(), run_id.map(str::to_owned)))
    }

    /// The recall index, rebuilt from the store when its memory generation moved on since it
    /// was built (one small query when it did not). Callers that change the libraries call it
    /// afterwards (off the path a person waits on) so that a run's start finds it current;
    /// concurrent callers wait for one rebuild instead of each making their own.
    pub async fn index(&self) -> Result<Arc<RecallIndex>, StoreError> {
        let store = &self.inner.store;
        let generation = store.memory_generation().await?;
        let mut cached = self.inner.index.lock().await;
        if let Some(index) = cached.as_ref().filter(|i| i.generation == generation) {
            return Ok(index.clone());
        }
        let started = std::time::Instant::now();
        let experiences = store.experience_keys().await?;
        let actions = store.action_keys().await?;
        let index = Arc::new(RecallIndex::build(generation, &experiences, &actions));
        tracing::debug!(
            generation,
            experiences = experiences.len(),
            actions = actions.len(),
            took_ms = started.elapsed().as_millis() as u64,
            "recall index rebuilt"
        );
        *cached = Some(index.clone());
        Ok(index)
    }
}

/// The model client settings for the memory's own calls (distilling, the audit): the run's, with
/// one retry — they are best effort, run after the person got the answer, and must not keep
/// anyone waiting through a long backoff.
pub fn model_config(run: &deft_agent::llm::LlmConfig) -> deft_agent::llm::LlmConfig {
    deft_agent::llm::LlmConfig {
        max_retries: 1,
        ..run.clone()
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
