//! The fence on a run's writes. A run on a leased device carries the lease epoch it started
//! under; its writes (events, steps, its end) go through [`Store::fenced`], which first checks,
//! inside the write's own transaction, that the device's lease still has that epoch, and
//! refuses the write with [`StoreError::Fenced`] when it does not. On PostgreSQL the check
//! holds the lease row with `FOR SHARE` until the write commits, so a takeover (an UPDATE of
//! that row) waits for the writes in flight and every write after it is judged against the new
//! epoch: a server that was paused while its lease moved cannot land a late write. Writes made
//! through the [`Store`] itself are unfenced (one server; or the server ending another's
//! abandoned run).

use sqlx::{AnyConnection, AssertSqlSafe};

use crate::error::{Result, StoreError, db};
use crate::{Backend, Store, TaskRun, TaskRunStatus, TaskRunStep, Usage};
use deft_protocol::DoneStatus;

/// The lease a writer acts under: a device and the epoch of its lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    /// The leased device.
    pub device: String,
    /// The lease epoch the writer holds.
    pub epoch: u64,
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

/// Refuses the write under `fence` when the device's lease has another epoch (or none); call
/// inside the write's transaction, before the write.
pub(crate) async fn check(
    conn: &mut AnyConnection,
    backend: Backend,
    fence: Option<&Fence>,
) -> Result<()> {
    let Some(fence) = fence else {
        return Ok(());
    };
    let lock = match backend {
        Backend::Postgres => " FOR SHARE",
        Backend::Sqlite => "",
    };
    let sql = format!("SELECT epoch, server_id FROM device_leases WHERE device_id = $1{lock}");
    let lease: Option<(i64, String)> = sqlx::query_as(AssertSqlSafe(sql))
        .bind(&fence.device)
        .fetch_optional(&mut *conn)
        .await
        .map_err(db("checking a device lease"))?;
    let held = i64::try_from(fence.epoch).ok();
    match lease {
        Some((epoch, _)) if Some(epoch) == held => Ok(()),
        Some((epoch, holder)) => Err(StoreError::Fenced(format!(
            "this write was made under lease epoch {} of device {:?}, which server {holder:?} \
             now holds in epoch {epoch}: it is refused, nothing was written",
            fence.epoch, fence.device
        ))),
        None => Err(StoreError::Fenced(format!(
            "this write was made under lease epoch {} of device {:?}, which has no lease: it \
             is refused, nothing was written",
            fence.epoch, fence.device
        ))),
    }
}
