//! [`App`]: the one handle the front ends hold. It keeps what every run needs — the store, the
//! data folder, this server's id, the clock — and the runs in progress; the operations on runs
//! are methods here and in the modules of each kind of run.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use deft_agent::AgentConfig;
use deft_memory::MemoryConfig;
use deft_store::Store;

use crate::agent_runs::AgentRuns;
use crate::fleet::member::{Fleet, FleetConfig};
use crate::notices::Notifier;
use crate::run_memory::RunMemory;
use crate::scheduler::Clock;
use crate::secrets::SecretSource;
use crate::settings::{RunSettings, SettingsError, SettingsSource};
use crate::task_runs::TaskRuns;
use crate::webhooks::{Sealer, WebhookConfig, Webhooks};

/// What an [`App`] is built from.
pub struct AppConfig {
    /// The store.
    pub store: Store,
    /// deft's data folder (task runs' trace folders go under it).
    pub data_dir: PathBuf,
    /// This server's id (the owner recorded on the runs it runs).
    pub server_id: String,
    /// The clock of schedules and heartbeats (the system's; tests may pass a manual one).
    pub clock: Arc<dyn Clock>,
    /// The agent's settings; `max_steps` is replaced by the settings' for each run.
    pub agent: AgentConfig,
    /// The experience and action libraries' settings; `None`: runs neither recall nor distil
    /// (the libraries still work).
    pub memory: Option<MemoryConfig>,
    /// Where the model settings in force come from.
    pub settings: Arc<dyn SettingsSource>,
    /// Where task runs' secret values come from.
    pub secrets: Arc<dyn SecretSource>,
    /// How webhooks are delivered.
    pub webhooks: WebhookConfig,
    /// Seals the webhooks' signing secrets.
    pub sealer: Arc<dyn Sealer>,
    /// How this server takes part in a fleet (PostgreSQL only); `None`: it is alone.
    pub fleet: Option<FleetConfig>,
}

/// The application: every run's life, behind one cheap-to-clone handle.
#[derive(Clone)]
pub struct App {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    data_dir: PathBuf,
    server_id: String,
    clock: Arc<dyn Clock>,
    agent: AgentConfig,
    settings: Arc<dyn SettingsSource>,
    secrets: Arc<dyn SecretSource>,
    task_runs: Arc<TaskRuns>,
    agent_runs: AgentRuns,
    memory: Arc<RunMemory>,
    notifier: Notifier,
    webhooks: Webhooks,
    fleet: Option<Fleet>,
}

impl App {
    /// An application over `config`'s store and data folder, with no run in progress.
    pub fn new(config: AppConfig) -> App {
        let webhooks = Webhooks::new(&config.store, config.sealer, config.webhooks);
        App {
            inner: Arc::new(Inner {
                memory: Arc::new(RunMemory::new(&config.store, config.memory)),
                notifier: Notifier::new(&config.store, webhooks.clone()),
                webhooks,
                store: config.store,
                data_dir: config.data_dir,
                server_id: config.server_id,
                clock: config.clock,
                agent: config.agent,
                settings: config.settings,
                secrets: config.secrets,
                task_runs: Arc::new(TaskRuns::default()),
                agent_runs: AgentRuns::default(),
                fleet: config.fleet.map(Fleet::new),
            }),
        }
    }

    /// Where task runs' secret values come from.
    pub fn secrets(&self) -> &dyn SecretSource {
        self.inner.secrets.as_ref()
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// deft's data folder.
    pub fn data_dir(&self) -> &Path {
        &self.inner.data_dir
    }

    /// This server's id.
    pub fn server_id(&self) -> &str {
        &self.inner.server_id
    }

    /// The clock of schedules and heartbeats.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.inner.clock
    }

    /// The agent's settings.
    pub fn agent_config(&self) -> &AgentConfig {
        &self.inner.agent
    }

    /// The model settings in force now.
    pub async fn run_settings(&self) -> Result<RunSettings, SettingsError> {
        self.inner.settings.run_settings().await
    }

    /// The chat or designer run in the slot, and recent runs' logs.
    pub fn agent_runs(&self) -> &AgentRuns {
        &self.inner.agent_runs
    }

    /// The memory libraries and what runs do with them.
    pub fn memory(&self) -> &Arc<RunMemory> {
        &self.inner.memory
    }

    /// Where notifications go (and the live feed of new ones).
    pub fn notifier(&self) -> &Notifier {
        &self.inner.notifier
    }

    /// The webhooks: their settings, what the front ends do to them, the events queued.
    pub fn webhooks(&self) -> &Webhooks {
        &self.inner.webhooks
    }

    /// This server's fleet membership, when it is in a fleet.
    pub fn fleet(&self) -> Option<&Fleet> {
        self.inner.fleet.as_ref()
    }

    /// The folder of a chat or designer run's step images.
    pub fn run_images_dir(&self, run_id: &str) -> PathBuf {
        self.inner.data_dir.join("runs").join(run_id)
    }

    /// The task runs in progress (shared: a [`crate::task_runs::FreeNotice`] keeps them).
    pub fn task_runs(&self) -> &Arc<TaskRuns> {
        &self.inner.task_runs
    }

    /// Stops every task run of this server and waits up to `limit` for their ends to be
    /// stored and their `done` shown (shutdown; woken by each run's end).
    pub async fn stop_task_runs(&self, limit: Duration) {
        let running = self.inner.task_runs.all_active();
        for run in &running {
            run.stop();
        }
        let ended = futures::future::join_all(running.iter().map(|r| r.log.closed()));
        let _ = tokio::time::timeout(limit, ended).await;
    }

    /// Where task runs' trace folders go.
    pub fn task_traces_dir(&self) -> PathBuf {
        self.inner.data_dir.join("task-runs")
    }

    /// The trace folder of a task run.
    pub fn task_trace_dir(&self, run_id: &str) -> PathBuf {
        self.task_traces_dir().join(deft_trace::sanitize(run_id))
    }
}

/// Now, in ms since the Unix epoch (the system clock: the moments runs record).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
