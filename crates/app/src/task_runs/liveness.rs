//! Which task runs still have a server: every run records the server that runs it (its id,
//! kept in the data folder) and that server's heartbeat, refreshed every [`HEARTBEAT`] while
//! it runs. A run whose heartbeat is older than [`STALE_AFTER`] belongs to a server that
//! stopped (crashed, killed, cut off from the database): whichever server sees it first marks
//! it `interrupted` and closes its stream. At start-up a server also ends, at once, the runs its
//! own previous process left. So with several servers on one PostgreSQL only the runs of a
//! dead server are interrupted, never those another server is running.

use std::time::Duration;

use deft_store::{StoreError, TaskRun, TaskRunStatus};
use tokio_util::sync::CancellationToken;

use super::{done_logged, done_of, record};
use crate::app::{App, now_ms};
use crate::texts;

/// How often a server says its runs go on.
pub const HEARTBEAT: Duration = Duration::from_secs(15);

/// How old a heartbeat may get before its run counts as its server's last word (three missed
/// beats, as a device's link counts one silent for 45 s as gone).
pub const STALE_AFTER: Duration = Duration::from_secs(45);

/// Start-up: ends the runs this server's previous process left and those whose server went
/// silent.
pub async fn recover_interrupted(app: &App) -> Result<(), StoreError> {
    sweep(app, true).await.map(|_| ())
}

/// Until `stop`: every [`HEARTBEAT`] (on the app's clock) refreshes the heartbeat of this
/// server's runs, then ends the runs of silent servers. A failing store is logged and tried
/// again at the next beat.
pub async fn keep_alive(app: App, stop: CancellationToken) {
    let clock = app.clock().clone();
    let beat = i64::try_from(HEARTBEAT.as_millis()).unwrap_or(i64::MAX);
    loop {
        let next = clock.now_ms().saturating_add(beat);
        tokio::select! {
            () = stop.cancelled() => return,
            () = clock.sleep_until(next) => {}
        }
        let store = app.store();
        if let Err(e) = store
            .heartbeat_task_runs(app.server_id(), clock.now_ms())
            .await
        {
            tracing::warn!(error = %e, "cannot refresh the heartbeat of this server's task runs");
        }
        if let Err(e) = sweep(&app, false).await {
            tracing::warn!(error = %e, "cannot look for task runs of silent servers");
        }
    }
}

/// Ends every running run without a server; how many it ended.
async fn sweep(app: &App, at_start: bool) -> Result<usize, StoreError> {
    let now = app.clock().now_ms();
    let mut ended = 0;
    for run in app.store().running_task_runs().await? {
        if orphaned(app, &run, at_start, now) && interrupt(app, &run).await? {
            ended += 1;
        }
    }
    Ok(ended)
}

/// Whether no server runs `run` any more: recorded before servers said so, left by this
/// server's previous process (at start-up), or silent for longer than [`STALE_AFTER`]. A run
/// of this server's own is never orphaned while it runs here.
fn orphaned(app: &App, run: &TaskRun, at_start: bool, now_ms: i64) -> bool {
    let mine = run.owner.as_deref() == Some(app.server_id());
    match (&run.owner, run.heartbeat_at_ms) {
        (None, _) | (_, None) => true,
        _ if mine && at_start => true,
        _ if mine && app.task_runs().active(&run.id).is_some() => false,
        (_, Some(beat)) => {
            now_ms.saturating_sub(beat) > i64::try_from(STALE_AFTER.as_millis()).unwrap_or(0)
        }
    }
}

/// Marks `run` interrupted and closes its stream with a `done` numbered after the last event
/// it stored (no watcher saw a later one). `false` when it had ended meanwhile (its server
/// finished it, or another server marked it first: that one closes the stream).
async fn interrupt(app: &App, run: &TaskRun) -> Result<bool, StoreError> {
    let store = app.store();
    // Taken over first: the silent server's late writes are refused from here on (its fence).
    if !store
        .take_over_task_run(&run.id, run.owner.as_deref(), app.server_id())
        .await?
    {
        return Ok(false);
    }
    match store
        .finish_task_run(
            &run.id,
            TaskRunStatus::Interrupted,
            Some(texts::TASK_RUN_INTERRUPTED),
            now_ms(),
        )
        .await
    {
        Ok(_) => {}
        Err(StoreError::Conflict(_)) => return Ok(false),
        Err(e) => return Err(e),
    }
    let last = record::past_events(app, &run.id)
        .await?
        .last()
        .map_or(0, |e| e.seq);
    let done = done_logged(
        last + 1,
        texts::TASK_RUN_INTERRUPTED,
        done_of(TaskRunStatus::Interrupted),
    );
    store
        .append_task_run_events(&run.id, &[(done.seq, done.json.to_string())])
        .await?;
    tracing::info!(run = %run.id, task = %run.task_name, owner = ?run.owner, "marked a task run whose server stopped as interrupted");
    let end = crate::notices::RunEnd {
        run_id: &run.id,
        task_id: &run.task_id,
        task_name: &run.task_name,
        device: &run.device,
        status: TaskRunStatus::Interrupted,
        message: texts::TASK_RUN_INTERRUPTED,
    };
    app.notifier().run_ended(&end).await;
    Ok(true)
}
