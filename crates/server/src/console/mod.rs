//! The console: what `deft serve` offers a person in the browser (docs/console-api.md).
//!
//! - [`sessions`]: the admin account, logins (rate-limited), session cookies, CSRF, first-start
//!   setup — and [`sessions::authorize`], the one place an API request is let in.
//! - [`settings`]: the model settings in `app_meta`, the API key sealed by [`secrets`].
//! - [`vault`]: the secrets tasks type, sealed by [`secrets`] too, listed by name only.
//! - [`api_tokens`]: named API tokens (made, listed, revoked; their calls logged) and
//!   [`token_access`], what each may reach (scopes per route).
//! - [`conversations`]: conversations and their messages.
//! - [`runs`]: the routes of chat and designer runs (start, stop, approve; the application
//!   owns their life, [`deft_app::agent_runs`]); [`drafts`]: designer mode's kept draft and
//!   "try it"; [`stream`] serves a run's events as SSE, [`images`] the step images.
//! - [`tasks`]: tasks, their schedules and runs (each run holds its device), the scheduler's
//!   fire handler.
//! - [`memory`]: the experience and action libraries (deft-memory) — their routes, the audit
//!   (on demand and as the scheduler's job), and distilling after a run's `done`.
//! - [`notifications`]: the bell's list, each reader's read state and the live feed of new
//!   ones (what is sent is decided by [`deft_app::notices`]).
//! - [`fleet`]: the fleet's servers and the devices each holds.
//! - [`webhooks`]: the webhooks deft POSTs its events to and their delivery log (deft-app's
//!   [`deft_app::webhooks`] checks, queues and sends).
//! - [`live`]: MJPEG of a device's screen, captured only while someone watches.
//! - [`token_streams`]: the streams a named token opened end when it is revoked or expires.
//! - [`assets`]: the web UI bundle embedded in the binary.

pub mod api_tokens;
pub mod assets;
pub mod conversations;
pub mod drafts;
pub mod fleet;
pub mod images;
pub mod live;
pub mod memory;
pub mod notifications;
pub mod passwords;
pub mod retention;
pub mod runs;
pub mod secrets;
pub mod sessions;
pub mod settings;
pub mod stream;
pub mod tasks;
pub mod texts;
pub mod token_access;
pub mod token_streams;
pub mod vault;
pub mod views;
pub mod webhooks;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::routing::{get, post};
use deft_agent::AgentConfig;
use deft_app::task_runs::TaskRuns;
use deft_app::{App, AppConfig};
use deft_store::Store;

use crate::AppState;

/// Model settings used when the store has none (from `deft serve` flags or the environment).
#[derive(Debug, Clone, Default)]
pub struct ModelDefaults {
    /// OpenAI-compatible base URL.
    pub api_base: Option<String>,
    /// Model name.
    pub model: Option<String>,
    /// API key.
    pub api_key: Option<String>,
}

/// What the console is started with.
#[derive(Clone)]
pub struct ConsoleConfig {
    /// The store.
    pub store: Store,
    /// deft's data folder (key file, run images).
    pub data_dir: PathBuf,
    /// Model settings the store does not override.
    pub defaults: ModelDefaults,
    /// Creates the admin on first start (`DEFT_ADMIN_PASSWORD`).
    pub admin_password: Option<String>,
    /// Mark the session cookie `Secure` (default true; browsers accept it on loopback HTTP).
    pub cookie_secure: bool,
    /// The agent's settings; `max_steps` is replaced by the stored setting for each run.
    pub agent: AgentConfig,
    /// Frames per second of the live view.
    pub live_fps: f64,
    /// The scheduler's clock (the system clock; tests may pass a manual one).
    pub clock: Arc<dyn deft_app::scheduler::Clock>,
    /// The scheduler's settings.
    pub scheduler: deft_app::scheduler::SchedulerConfig,
    /// The experience and action libraries' settings; `None`: runs neither recall nor distil
    /// (`deft serve --no-memory`), the library routes still work.
    pub memory: Option<deft_app::libraries::MemoryConfig>,
    /// How webhooks are delivered (`deft serve --webhooks-allow-private`, the retry waits).
    pub webhooks: deft_app::webhooks::WebhookConfig,
    /// How this server takes part in a fleet; taken up only on PostgreSQL (on SQLite a server
    /// is alone). `None`: alone.
    pub fleet: Option<deft_app::fleet::FleetConfig>,
}

impl ConsoleConfig {
    /// The defaults over the store of `data_dir` (SQLite there) or of `database_url`
    /// (`postgres://…`, `sqlite://…`).
    pub async fn open(data_dir: PathBuf, database_url: Option<&str>) -> Result<Self, ConsoleError> {
        let store = Store::open(&data_dir, database_url).await?;
        Ok(ConsoleConfig::new(store, data_dir))
    }

    /// A configuration with the defaults.
    pub fn new(store: Store, data_dir: PathBuf) -> Self {
        ConsoleConfig {
            store,
            data_dir,
            defaults: ModelDefaults::default(),
            admin_password: None,
            cookie_secure: true,
            agent: AgentConfig::default(),
            live_fps: 2.0,
            clock: Arc::new(deft_app::scheduler::SystemClock),
            scheduler: deft_app::scheduler::SchedulerConfig::default(),
            memory: Some(deft_app::libraries::MemoryConfig::default()),
            webhooks: deft_app::webhooks::WebhookConfig::default(),
            fleet: None,
        }
    }
}

/// The console's shared state.
#[derive(Clone)]
pub struct Console {
    inner: Arc<Inner>,
}

struct Inner {
    settings: Arc<settings::StoredSettings>,
    /// Seals the secrets tasks use (the same key as the API key's).
    sealer: secrets::SecretBox,
    cookie_secure: bool,
    setup: sessions::Setup,
    logins: sessions::LoginLimiter,
    live: live::LiveFeeds,
    scheduler: deft_app::scheduler::SchedulerConfig,
    /// The runs' application core (the store, this server's id, the clock, the task runs).
    app: App,
    /// The log of named API tokens' calls.
    token_calls: api_tokens::CallLedger,
}

/// The file in the data folder that keeps the server's id.
const SERVER_ID_FILE: &str = "server-id";

/// Starting the console failed.
#[derive(Debug, thiserror::Error)]
pub enum ConsoleError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] deft_store::StoreError),
    /// The key file failed.
    #[error(transparent)]
    Secret(#[from] secrets::SecretError),
    /// A configuration value is unusable.
    #[error("{0}")]
    Config(String),
}

impl Console {
    /// Opens the console: the sealing key, the admin account (from `admin_password`, else a
    /// one-time setup token), and ends runs a previous process left unfinished.
    pub async fn start(config: ConsoleConfig) -> Result<Console, ConsoleError> {
        let secrets = secrets::SecretBox::load_or_create(&config.data_dir)?;
        let server_id =
            crate::auth::load_or_generate(None, &config.data_dir, SERVER_ID_FILE, "server id")
                .map_err(|e| ConsoleError::Config(e.to_string()))?
                .value;
        let setup = sessions::Setup::prepare(&config.store, config.admin_password.as_deref())
            .await
            .map_err(|e| match e {
                sessions::SetupError::Store(s) => ConsoleError::Store(s),
                other => ConsoleError::Config(other.to_string()),
            })?;
        let stored_settings = Arc::new(settings::StoredSettings::new(
            config.store.clone(),
            secrets.clone(),
            config.defaults,
        ));
        let stored_secrets = Arc::new(vault::StoredSecrets::new(
            config.store.clone(),
            secrets.clone(),
        ));
        let on_postgres = config.store.backend() == deft_store::Backend::Postgres;
        let fleet = config.fleet.filter(|_| on_postgres);
        let app = App::new(AppConfig {
            store: config.store,
            data_dir: config.data_dir.clone(),
            server_id,
            clock: config.clock,
            agent: config.agent,
            memory: config.memory,
            settings: stored_settings.clone(),
            secrets: stored_secrets,
            webhooks: config.webhooks,
            sealer: Arc::new(secrets.clone()),
            fleet,
        });
        let console = Console {
            inner: Arc::new(Inner {
                settings: stored_settings,
                sealer: secrets,
                cookie_secure: config.cookie_secure,
                setup,
                logins: sessions::LoginLimiter::default(),
                live: live::LiveFeeds::new(Duration::from_secs_f64(
                    1.0 / config.live_fps.clamp(0.1, 30.0),
                )),
                scheduler: config.scheduler,
                token_calls: api_tokens::CallLedger::start(app.store().clone()),
                app,
            }),
        };
        deft_app::agent_runs::finish::recover_interrupted(console.app()).await?;
        deft_app::task_runs::liveness::recover_interrupted(console.app()).await?;
        Ok(console)
    }

    /// This server's id (kept in the data folder, so a restart is the same server).
    pub fn server_id(&self) -> &str {
        self.inner.app.server_id()
    }

    /// The runs' application core.
    pub fn app(&self) -> &App {
        &self.inner.app
    }

    /// Seals values with the data folder's key.
    pub fn sealer(&self) -> &secrets::SecretBox {
        &self.inner.sealer
    }

    /// The store.
    pub fn store(&self) -> &Store {
        self.inner.app.store()
    }

    /// The one-time setup token, while no admin exists.
    pub fn setup_token(&self) -> Option<String> {
        self.inner.setup.token()
    }

    /// The task runs.
    pub fn tasks(&self) -> &TaskRuns {
        self.inner.app.task_runs()
    }

    /// The task runs, shared (a [`deft_app::task_runs::FreeNotice`] keeps them).
    pub fn task_runs(&self) -> &Arc<TaskRuns> {
        self.inner.app.task_runs()
    }

    /// The memory libraries and what runs do with them.
    pub fn memory(&self) -> &deft_app::run_memory::RunMemory {
        self.inner.app.memory()
    }

    /// The 409 text for a busy device: which task run holds it, when one does.
    pub fn device_busy_text(&self, device: &str) -> String {
        self.inner.app.device_busy_text(device)
    }

    /// Stops every task run of this server and waits up to `limit` for their ends to be
    /// stored and their `done` shown (server shutdown; woken by each run's end).
    pub async fn stop_task_runs(&self, limit: Duration) {
        self.inner.app.stop_task_runs(limit).await;
    }

    /// Where task runs' trace folders go.
    pub fn task_traces_dir(&self) -> PathBuf {
        self.inner.app.task_traces_dir()
    }

    /// The trace folder of a task run.
    pub fn task_trace_dir(&self, run_id: &str) -> PathBuf {
        self.inner.app.task_trace_dir(run_id)
    }

    /// Stops the active run, if any, and waits up to `limit` for it to be stored and its
    /// `done` shown (server shutdown; woken by the run's end).
    pub async fn stop_active_run(&self, limit: Duration) {
        self.inner.app.stop_active_run(limit).await;
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// RFC 3339 (UTC, seconds) of a millisecond timestamp.
pub fn rfc3339(ms: i64) -> String {
    deft_protocol::time::iso8601_ms(ms)
}

/// The console routes that need a login (nested under `/api`).
pub fn api_routes() -> Router<AppState> {
    Router::new()
        .route("/auth/logout", post(sessions::logout))
        .route("/auth/me", get(sessions::me))
        .route(
            "/settings",
            get(settings::get_settings).put(settings::put_settings),
        )
        .route(
            "/settings/retention",
            get(retention::get_retention).put(retention::put_retention),
        )
        .route(
            "/conversations",
            get(conversations::list).post(conversations::create),
        )
        .route(
            "/conversations/{id}",
            get(conversations::get_one)
                .patch(conversations::rename)
                .delete(conversations::delete),
        )
        .route("/agent/run", get(runs::current).post(runs::start))
        .route("/agent/runs/{id}", get(runs::get_run))
        .route("/agent/stop", post(runs::stop))
        .route("/agent/confirm", post(runs::confirm))
        .route("/agent/stream", get(stream::events))
        .route(
            "/agent/draft",
            get(drafts::get_draft).delete(drafts::discard),
        )
        .route("/agent/draft/try", post(drafts::try_draft))
        .route("/runs/{run_id}/images/{image_id}", get(images::serve))
        .route("/devices/{id}/live", get(live::serve))
        .route("/fleet", get(fleet::view))
        .route("/notifications", get(notifications::list))
        .route("/notifications/read-all", post(notifications::read_all))
        .route("/notifications/stream", get(notifications::stream))
        .route("/notifications/{id}/read", post(notifications::read_one))
        .merge(tasks::routes())
        .merge(memory::routes())
        .merge(vault::routes())
        .merge(api_tokens::routes())
        .merge(webhooks::routes())
}

/// The console routes open to everyone (nested under `/api`).
pub fn open_routes() -> Router<AppState> {
    Router::new()
        .route("/auth/state", get(sessions::state))
        .route("/auth/login", post(sessions::login))
        .route("/auth/setup", post(sessions::setup))
}
