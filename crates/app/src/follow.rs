//! Following a run: the log of its events a watcher reads after a seq — the run's own while it
//! is in memory (live events follow until `done`), a live one fed from the store while another
//! server of the fleet runs it, else one read back from the store (a run that ended before this
//! process started, or long ago). Chat and designer runs and task runs alike.

use std::sync::Arc;

use deft_store::StoreError;

use crate::app::App;
use crate::event_writer::EventStore;
use crate::run_log::{LoggedEvent, RunLog};
use crate::task_runs::record;
use crate::texts;

/// Why a run cannot be followed.
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    /// No run has this id; the text says so.
    #[error("{0}")]
    UnknownRun(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl App {
    /// The events of chat or designer run `run_id` after seq `after`.
    pub async fn follow_run(&self, run_id: &str, after: u64) -> Result<Arc<RunLog>, FollowError> {
        if let Some(log) = self.agent_runs().log(run_id) {
            return Ok(log);
        }
        let store = self.store();
        let Some(record) = store.run(run_id).await? else {
            return Err(FollowError::UnknownRun(texts::unknown_run(run_id)));
        };
        // Running on another server of the fleet: followed live from the store.
        if record.finished_at_ms.is_none()
            && record
                .owner
                .as_deref()
                .is_some_and(|o| o != self.server_id())
            && let Some(log) = self.follow_elsewhere(EventStore::Agent(run_id.to_owned()))
        {
            return Ok(log);
        }
        let rows = store.events(run_id, after).await?;
        Ok(RunLog::finished(
            rows.into_iter()
                .map(|(seq, json)| LoggedEvent::from_json(seq, json))
                .collect(),
        ))
    }

    /// The events of task run `run_id`.
    pub async fn follow_task_run(&self, run_id: &str) -> Result<Arc<RunLog>, FollowError> {
        if let Some(log) = self.task_runs().log(run_id) {
            return Ok(log);
        }
        let run = self.store().task_run(run_id).await.map_err(|e| match e {
            StoreError::NotFound(_) => FollowError::UnknownRun(texts::unknown_task_run(run_id)),
            other => FollowError::Store(other),
        })?;
        // Running on another server of the fleet: followed live from the store.
        if run.status == deft_store::TaskRunStatus::Running
            && run.owner.as_deref().is_some_and(|o| o != self.server_id())
            && let Some(log) = self.follow_elsewhere(EventStore::Task(run_id.to_owned()))
        {
            return Ok(log);
        }
        Ok(record::stored_log(self, &run).await?)
    }
}
