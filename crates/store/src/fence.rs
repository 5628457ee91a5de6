//! The fence on a run's writes. A run's writes (events, steps, its end) in a fleet go through
//! [`Store::fenced`], which first checks, inside the write's own transaction, that
//! - the run still belongs to the server writing (another server takes over the run of a
//!   server that went silent, to end it as interrupted), and
//! - when the run's device is leased, that the lease still has the epoch the run started under,
//!
//! and refuses the write with [`StoreError::Fenced`] otherwise. On PostgreSQL the check holds
//! the lease and run rows with `FOR SHARE` until the write commits, so a takeover (an UPDATE of
//! either row) waits for the writes in flight and every write after it is judged against the
//! new epoch or owner: a server that was paused while its lease or its run moved cannot land a
//! late write. Writes made through the [`Store`] itself are unfenced (one server; or the server
//! ending another's abandoned run).

use sqlx::{AnyConnection, AssertSqlSafe};

use crate::error::{Result, StoreError, db};
use crate::{Backend, Store, TaskRun, TaskRunStatus, TaskRunStep, Usage};
use deft_protocol::DoneStatus;

/// What a writer acts as: the server that owns the runs it writes, on a device, under the
/// device's lease epoch when the device is leased.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    /// The server writing (the owner of the runs it writes).
    pub server: String,
    /// The device the runs act on.
    pub device: String,
    /// The lease epoch the writer holds on `device`; none for a server's own device (its
    /// desktop, its browser), which has no lease.
    pub epoch: Option<u64>,
}

/// Where a write goes: a chat / designer run or a task run, by id.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Written<'a> {
    /// A run of `runs`.
    Run(&'a str),
    /// A run of `task_runs`.
    TaskRun(&'a str),
}

impl Written<'_> {
    /// The run's table, its id, what a person calls it and the status it has while running.
    fn parts(&self) -> (&'static str, &str, &'static str, &'static str) {
        match self {
            Written::Run(id) => ("runs", id, "run", deft_protocol::RunStatus::RUNNING),
            Written::TaskRun(id) => ("task_runs", id, "task run", TaskRunStatus::Running.as_str()),
        }
    }
}

/// Makes `new_owner` the server of the running run `written` if `owner` still is (`None`: a
/// run recorded without one): of servers racing to end an abandoned run, exactly one gets
/// `true` (and ends it), and the old owner's fenced writes are refused from then on.
pub(crate) async fn take_over(
    pool: &sqlx::AnyPool,
    written: Written<'_>,
    owner: Option<&str>,
    new_owner: &str,
) -> Result<bool> {
    let (table, run_id, _, running) = written.parts();
    let sql = format!(
        "UPDATE {table} SET owner = $3 WHERE id = $1 AND status = $4 \
         AND (owner = $2 OR (owner IS NULL AND $2 IS NULL))"
    );
    let done = sqlx::query(AssertSqlSafe(sql))
        .bind(run_id)
        .bind(owner)
        .bind(new_owner)
        .bind(running)
        .execute(pool)
        .await
        .map_err(db("taking over an abandoned run"))?;
    Ok(done.rows_affected() > 0)
}

/// The store as a writer under a [`Fence`] sees it: the writes of a run, each refused once the
/// device's lease has another epoch. Cheap to clone.
#[derive(Debug, Clone)]
pub struct FencedStore {
    pub(crate) store: Store,
    pub(crate) fence: Fence,
}

impl Store {
    /// The writes of a run under `fence`.
    pub fn fenced(&self, fence: Fence) -> FencedStore {
        FencedStore {
            store: self.clone(),
            fence,
        }
    }
}

impl FencedStore {
    /// The fence the writes carry.
    pub fn fence(&self) -> &Fence {
        &self.fence
    }

    /// The store behind (its reads and unfenced writes).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// [`Store::append_events`] under the fence.
    pub async fn append_events(&self, run_id: &str, events: &[(u64, String)]) -> Result<()> {
        let fence = Some(&self.fence);
        self.store.append_events_as(fence, run_id, events).await
    }

    /// [`Store::finish_run`] under the fence.
    pub async fn finish_run(
        &self,
        run_id: &str,
        status: DoneStatus,
        answer: &str,
        usage: &Usage,
        finished_at_ms: i64,
    ) -> Result<()> {
        let fence = Some(&self.fence);
        self.store
            .finish_run_as(fence, run_id, status, answer, usage, finished_at_ms)
            .await
    }

    /// [`Store::append_task_run_events`] under the fence.
    pub async fn append_task_run_events(
        &self,
        run_id: &str,
        events: &[(u64, String)],
    ) -> Result<()> {
        let fence = Some(&self.fence);
        self.store
            .append_task_run_events_as(fence, run_id, events)
            .await
    }

    /// [`Store::append_task_run_step`] under the fence.
    pub async fn append_task_run_step(&self, run_id: &str, step: &TaskRunStep) -> Result<()> {
        let fence = Some(&self.fence);
        self.store
            .append_task_run_step_as(fence, run_id, step)
            .await
    }

    /// [`Store::finish_task_run`] under the fence.
    pub async fn finish_task_run(
        &self,
        run_id: &str,
        status: TaskRunStatus,
        error: Option<&str>,
        ended_at_ms: i64,
    ) -> Result<TaskRun> {
        let fence = Some(&self.fence);
        self.store
            .finish_task_run_as(fence, run_id, status, error, ended_at_ms)
            .await
    }
}

/// Refuses the write to `written` under `fence` when the run has another owner, or the
/// device's lease another epoch (or none); call inside the write's transaction, before the
/// write.
pub(crate) async fn check(
    conn: &mut AnyConnection,
    backend: Backend,
    fence: Option<&Fence>,
    written: Written<'_>,
) -> Result<()> {
    let Some(fence) = fence else {
        return Ok(());
    };
    let lock = match backend {
        Backend::Postgres => " FOR SHARE",
        Backend::Sqlite => "",
    };
    if let Some(held) = fence.epoch {
        check_lease(conn, lock, fence, held).await?;
    }
    let (table, run_id, what, _) = written.parts();
    let sql = format!("SELECT owner FROM {table} WHERE id = $1{lock}");
    let owner: Option<(Option<String>,)> = sqlx::query_as(AssertSqlSafe(sql))
        .bind(run_id)
        .fetch_optional(&mut *conn)
        .await
        .map_err(db("checking a run's owner"))?;
    match owner {
        Some((Some(owner),)) if owner != fence.server => Err(StoreError::Fenced(format!(
            "this write was made by server {:?} for {what} {run_id:?}, which server {owner:?} \
             has taken over (it ended the {what} as interrupted): it is refused, nothing was \
             written",
            fence.server
        ))),
        // Its own run; or none (the write itself says so).
        _ => Ok(()),
    }
}

/// Refuses the write when `fence.device`'s lease has another epoch than `held`, or none.
async fn check_lease(conn: &mut AnyConnection, lock: &str, fence: &Fence, held: u64) -> Result<()> {
    let sql = format!("SELECT epoch, server_id FROM device_leases WHERE device_id = $1{lock}");
    let lease: Option<(i64, String)> = sqlx::query_as(AssertSqlSafe(sql))
        .bind(&fence.device)
        .fetch_optional(&mut *conn)
        .await
        .map_err(db("checking a device lease"))?;
    match lease {
        Some((epoch, _)) if i64::try_from(held).ok() == Some(epoch) => Ok(()),
        Some((epoch, holder)) => Err(StoreError::Fenced(format!(
            "this write was made under lease epoch {held} of device {:?}, which server \
             {holder:?} now holds in epoch {epoch}: it is refused, nothing was written",
            fence.device
        ))),
        None => Err(StoreError::Fenced(format!(
            "this write was made under lease epoch {held} of device {:?}, which has no lease: \
             it is refused, nothing was written",
            fence.device
        ))),
    }
}
