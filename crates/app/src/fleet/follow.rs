//! Watching a run another server of the fleet executes: its events are read from the shared
//! store into a live [`RunLog`] — woken by the owner's `NOTIFY` after each stored batch, and
//! looking every second besides — until its `done`. One follower per run and server, shared by
//! every watcher here; it stops when the last watcher leaves. The store is the truth, so the
//! seqs, the replay and `Last-Event-ID` are the owner's, with nothing lost or doubled.

use std::sync::Arc;
use std::time::Duration;

use deft_store::{Channel, StoreError};
use tokio::sync::broadcast::error::RecvError;

use crate::app::App;
use crate::event_writer::EventStore;
use crate::run_log::{LoggedEvent, RunLog};

/// How often a follower looks at the store without a wake-up.
const LOOK_EVERY: Duration = Duration::from_secs(1);

impl App {
    /// The live log of a running run (`log` names it) that another server executes, fed from
    /// the store.
    pub(crate) fn follow_elsewhere(&self, kept: EventStore) -> Option<Arc<RunLog>> {
        let fleet = self.fleet()?;
        let mut followed = fleet.followed.lock();
        followed.retain(|_, log| log.strong_count() > 0);
        if let Some(log) = followed
            .get(kept.run_id())
            .and_then(std::sync::Weak::upgrade)
        {
            return Some(log);
        }
        let live = RunLog::new();
        followed.insert(kept.run_id().to_owned(), Arc::downgrade(&live));
        let woken = fleet.signals();
        tokio::spawn(feed(self.clone(), kept, Arc::downgrade(&live), woken));
        Some(live)
    }
}

/// Copies the run's stored events (`kept` names its log) into `log` until its `done`, or until nobody holds the
/// log any more.
async fn feed(
    app: App,
    kept: EventStore,
    log: std::sync::Weak<RunLog>,
    mut woken: tokio::sync::broadcast::Receiver<(Channel, String)>,
) {
    let run_id = kept.run_id().to_owned();
    let mut after = 0;
    loop {
        let Some(live) = log.upgrade() else { return };
        match read_into(&app, &kept, &live, after).await {
            Ok(Some(last)) => after = last,
            Ok(None) => return, // done, or the run ended without one: closed
            Err(e) => {
                tracing::warn!(run = %run_id, error = %e, "cannot read a followed run's events")
            }
        }
        drop(live);
        let wait = async {
            loop {
                match woken.recv().await {
                    Ok((Channel::RunEvents, id)) if id == run_id => return,
                    Ok(_) => {}
                    Err(RecvError::Lagged(_)) => return,
                    Err(RecvError::Closed) => std::future::pending::<()>().await,
                }
            }
        };
        let _ = tokio::time::timeout(LOOK_EVERY, wait).await;
    }
}

/// Pushes the events after `after` into `log`; the new last seq, or `None` once the log is
/// closed (the run's `done` came, or it ended without one).
async fn read_into(
    app: &App,
    kept: &EventStore,
    log: &Arc<RunLog>,
    after: u64,
) -> Result<Option<u64>, StoreError> {
    let store = app.store();
    let rows = kept.read(store, after).await?;
    let mut last = after;
    for (seq, json) in rows {
        last = seq;
        log.push(LoggedEvent::from_json(seq, json));
    }
    if log.is_closed() {
        return Ok(None);
    }
    if last == after {
        // Nothing new: a run that ended without a `done` (its record says so) closes the log.
        let ended = match kept {
            EventStore::Task(id) | EventStore::FencedTask(id, _) => {
                store.task_run(id).await?.status != deft_store::TaskRunStatus::Running
            }
            _ => store
                .run(kept.run_id())
                .await?
                .is_none_or(|r| r.finished_at_ms.is_some()),
        };
        if ended && kept.read(store, last).await?.is_empty() {
            log.close();
            return Ok(None);
        }
    }
    Ok(Some(last))
}
