//! Persistence for the console: app settings (`app_meta`), the admin user and login sessions,
//! conversations with their messages, agent runs with their event log (the SSE replay
//! source), tasks with their schedules and task runs (with each run's step results), and the
//! memory libraries (experiences with their audits, actions, each run's memory notes) with the
//! jobs that schedule the server's own work, the notifications with each reader's read state, the secrets tasks use (sealed by the server), and the webhooks with their deliveries. One interface over two backends: a SQLite file in
//! the data folder by default, or PostgreSQL when a `postgres://` URL is given.
//!
//! ```no_run
//! # async fn demo() -> Result<(), deft_store::StoreError> {
//! let store = deft_store::Store::open("/var/lib/deft".as_ref(), None).await?; // …/deft.db
//! let conv = store.create_conversation("Rename the files").await?;
//! store.append_message(&conv.id, &deft_store::Message {
//!     role: "user".into(), content: "Rename the files".into(), created_at_ms: 0,
//!     run_id: None, status: None, usage: None, reasoning: None, steps: vec![],
//! }).await?;
//! # Ok(()) }
//! ```
//!
//! **Invariant:** no SQL leaves this crate; callers see only the types below. The store knows
//! nothing of HTTP, passwords (it keeps the hash it is given) or the agent; it keeps a task's
//! definition and a schedule's spec as given and never computes a fire time (deft-tasks does).
//!
//! Deleting a task deletes its schedules and keeps its runs: the history (with the task's name
//! at the time) stays readable until [`Store::delete_task_runs`] purges it.

#![forbid(unsafe_code)]

mod actions;
mod api_tokens;
mod audits;
mod connect;
mod conversations;
mod convert;
mod error;
mod event_log;
mod experiences;
mod fence;
mod fleet;
mod fleet_jobs;
mod jobs;
mod lookup;
mod memory_types;
mod meta;
mod notifications;
mod retention;
mod run_history;
mod run_notes;
mod runs;
mod schedules;
mod secrets;
mod select;
mod signals;
mod task_import;
mod task_meta;
mod task_run_row;
mod task_runs;
mod task_versions;
mod tasks;
mod types;
mod users;
mod webhooks;

use std::path::Path;

use sqlx::AnyPool;

pub use api_tokens::{ApiToken, ApiTokenCall, NewApiToken, SERVER_TOKEN_ID};
pub use deft_protocol::Usage;
pub use error::{Result, StoreError};
pub use fence::{Fence, FencedStore};
pub use fleet::{DeviceLease, FleetServer, LeaseTake};
pub use fleet_jobs::{FleetJob, FleetJobState, NewFleetJob};
pub use memory_types::{
    Action, ActionKey, AuditRun, AuditState, AuditStatus, AuditTrigger, Decision, Experience,
    ExperienceFilter, ExperienceKey, ExperienceReview, Job, JobClaim, NewAction, NewExperience,
    NewJob, Verdict,
};
pub use notifications::{MAX_NOTIFICATIONS, NotificationPage, Reader};
pub use run_history::{CursorError, RunCursor, RunOrder, RunPage, RunSortKey};
pub use signals::{Channel, Listener};
pub use task_import::ImportTask;
pub use task_meta::{
    FolderCount, MAX_FOLDER_CHARS, MAX_FOLDER_LEVELS, MAX_TAG_CHARS, MAX_TAGS, TagCount,
    check_folder, check_tags,
};
pub use task_runs::DRAFT_TASK_ID;
pub use task_versions::{MAX_NOTE_CHARS, TaskVersion, VersionCause, VersionStamp};
pub use webhooks::{
    AttemptRecord, DELIVERIES_KEPT, DeliveryPage, DeliveryState, NewDelivery, NewWebhook, Webhook,
    WebhookChange, WebhookDelivery,
};
// the protocol's schedule and task-run kinds, which the store maps to its columns
pub use deft_protocol::schedule::{BusyPolicy, MisfirePolicy, ScheduleKind};
pub use deft_protocol::task_run::{TaskRunStatus, TaskTrigger};
// a notification's kind and level, kept by their wire names
pub use deft_protocol::notification::{NotificationKind, NotificationLevel};
pub use types::{
    Conversation, ConversationSummary, FireClaim, MatchedControl, Message, NewDraftRun,
    NewNotification, NewSchedule, NewTask, NewTaskRun, Notification, Page, Paged, RunRecord,
    RunStart, Schedule, SecretEntry, SessionRow, StepCounts, StepStatus, Task, TaskFilter,
    TaskListing, TaskNotify, TaskRun, TaskRunFilter, TaskRunStep, User,
};

/// A conversation keeps at most this many messages; appending drops the oldest.
pub const MAX_MESSAGES: usize = 60;

/// A message's stored reasoning is cut to this many characters.
pub const MAX_REASONING_CHARS: usize = 6_000;

/// A page of a list holds at most this many items.
pub const MAX_PAGE: u32 = 1_000;

/// Which database a [`Store`] talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// A SQLite file (the default).
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

/// The handle to the database. Cheap to clone: clones share one connection pool.
#[derive(Debug, Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    /// A PostgreSQL store's URL, for its listening connections ([`Store::listen`]).
    url: Option<RedactedUrl>,
}

/// A URL kept for connecting again, shown without its password.
#[derive(Clone)]
struct RedactedUrl(String);

impl std::fmt::Debug for RedactedUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&connect::redact(&self.0))
    }
}

impl std::ops::Deref for RedactedUrl {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl Store {
    /// Opens the database named by `url` (`postgres://…` or `sqlite://…`) when given, else the
    /// SQLite file `data_dir/deft.db` (folder and file created when missing, WAL journaling,
    /// foreign keys on, 5 s busy timeout). An empty or blank `url` counts as none (an unset
    /// `DATABASE_URL=` in an env file). Applies the migrations.
    pub async fn open(data_dir: &Path, url: Option<&str>) -> Result<Store> {
        if let Some(url) = url.filter(|u| !u.trim().is_empty()) {
            return Store::connect(url).await;
        }
        std::fs::create_dir_all(data_dir).map_err(|e| StoreError::Unavailable {
            target: data_dir.display().to_string(),
            cause: format!("cannot create the data folder: {e}"),
        })?;
        let file = data_dir.join(connect::DB_FILE);
        let url = connect::sqlite_file_url(&file)?;
        let pool = connect::open_pool(&url, Backend::Sqlite, &file.display().to_string()).await?;
        Ok(Store {
            pool,
            backend: Backend::Sqlite,
            url: None,
        })
    }

    /// Opens the database at a DATABASE_URL-style `url` (`postgres://…`, `postgresql://…` or
    /// `sqlite://PATH`; add `?mode=rwc` to create a missing SQLite file) and applies the
    /// migrations.
    pub async fn connect(url: &str) -> Result<Store> {
        let target = connect::redact(url);
        let backend = connect::backend_of(url).ok_or(StoreError::UnsupportedUrl {
            url: target.clone(),
        })?;
        let pool = connect::open_pool(url, backend, &target).await?;
        let url = (backend == Backend::Postgres).then(|| RedactedUrl(url.to_owned()));
        Ok(Store { pool, backend, url })
    }

    /// The backend behind this store.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Closes every pooled connection, waiting for those in use to come back. Calls made
    /// afterwards fail.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}
