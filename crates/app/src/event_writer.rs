//! A run's events on their way to its watchers, for agent runs and task runs alike: each batch
//! is stored first (with whatever else it carries: a task step's row), and only then shown in
//! the run's [`RunLog`](crate::run_log::RunLog). So a seq a watcher saw is in the store and
//! names the same event after any crash, and recovery numbers its closing events after it. The
//! run itself never waits: it only queues.

use std::time::Duration;

use deft_store::{Fence, Store, StoreError};
use tokio::sync::mpsc;

use crate::run_log::LoggedEvent;

/// Most events stored in one batch.
const BATCH: usize = 500;

/// Where a run's events are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventStore {
    /// An agent run's log.
    Agent(String),
    /// An agent run's log, written under the lease of its device: refused once the lease moved.
    FencedAgent(String, Fence),
    /// A task run's log.
    Task(String),
    /// A task run's log, written under the lease of its device.
    FencedTask(String, Fence),
}

impl EventStore {
    /// The run's id.
    pub fn run_id(&self) -> &str {
        match self {
            EventStore::Agent(id)
            | EventStore::FencedAgent(id, _)
            | EventStore::Task(id)
            | EventStore::FencedTask(id, _) => id,
        }
    }

    async fn append(&self, store: &Store, rows: &[(u64, String)]) -> Result<(), StoreError> {
        match self {
            EventStore::Agent(id) => store.append_events(id, rows).await,
            EventStore::FencedAgent(id, fence) => {
                store.fenced(fence.clone()).append_events(id, rows).await
            }
            EventStore::Task(id) => store.append_task_run_events(id, rows).await,
            EventStore::FencedTask(id, fence) => {
                store
                    .fenced(fence.clone())
                    .append_task_run_events(id, rows)
                    .await
            }
        }
    }

    /// The stored events with `seq > after`, ascending.
    pub async fn read(&self, store: &Store, after: u64) -> Result<Vec<(u64, String)>, StoreError> {
        match self {
            EventStore::Agent(id) | EventStore::FencedAgent(id, _) => store.events(id, after).await,
            EventStore::Task(id) | EventStore::FencedTask(id, _) => {
                store.task_run_events(id, after).await
            }
        }
    }
}

/// Takes the run's queued items in batches until every sender is gone: `keep` stores a batch
/// (and returns when the store has it), then `show` hands each item to the watchers.
pub async fn write_batches<T>(
    mut rx: mpsc::UnboundedReceiver<T>,
    mut keep: impl AsyncFnMut(&[T]),
    mut show: impl FnMut(T),
) {
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(item) => batch.push(item),
                Err(_) => break,
            }
        }
        keep(&batch).await;
        for item in batch {
            show(item);
        }
    }
}

/// Appends `batch` to the run's stored log, retrying with backoff (at most 2 s apart) until the
/// store takes it: a stalled database stalls the watchers, never the run. `false` when the store
/// refused it for good: the run's device lease moved to another server (its writes are fenced
/// off; the run must end here without writing).
pub async fn store_until_done(store: &Store, log: &EventStore, batch: &[LoggedEvent]) -> bool {
    let rows: Vec<(u64, String)> = batch.iter().map(|e| (e.seq, e.json.to_string())).collect();
    let run_id = log.run_id();
    for attempt in 0u32.. {
        match log.append(store, &rows).await {
            Ok(()) => return true,
            Err(StoreError::Fenced(why)) => {
                tracing::error!(run = %run_id, %why, "run events refused: the device moved to another server");
                return false;
            }
            Err(e) => {
                if attempt % 10 == 4 {
                    tracing::error!(run = %run_id, attempt, error = %e, "run events still not stored; watchers wait for them");
                } else {
                    tracing::warn!(run = %run_id, attempt, error = %e, "cannot store run events; retrying");
                }
                let backoff = 100u64.saturating_mul(1 << attempt.min(5)).min(2_000);
                tokio::time::sleep(Duration::from_millis(backoff)).await;
            }
        }
    }
    false // after 2^32 attempts
}
