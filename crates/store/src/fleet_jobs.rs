//! The fleet's job queue: a run asked for on one server for a device another server holds is
//! a job row; the holder claims it (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so servers claiming
//! at once never wait on each other nor take one job twice) under its lease epoch, runs it and
//! records the outcome. A claimed job whose claim epoch is no longer the device's lease is
//! ended `interrupted` once, by whoever sees it first — never run again.

use serde::{Deserialize, Serialize};
use sqlx::AssertSqlSafe;
use sqlx::any::AnyRow;

use crate::convert::{column, from_db};
use crate::error::{Result, StoreError, db, is_unique_violation};
use crate::signals::{self, Channel};
use crate::{Backend, Store};

const COLUMNS: &str = "id, device_id, kind, payload, origin_server, state, claimed_by, \
     lease_epoch, claimed_at_ms, outcome, created_at_ms, updated_at_ms";
const READ: &str = "reading fleet jobs";

deft_protocol::named_enum! {
    /// Where a fleet job stands.
    FleetJobState {
        /// Waiting for its device's holder.
        Queued = "queued",
        /// Taken by its device's holder, running.
        Claimed = "claimed",
        /// Ran; the outcome says what it started.
        Done = "done",
        /// Could not run; the outcome says why.
        Failed = "failed",
        /// Its server lost the device while it ran.
        Interrupted = "interrupted",
    }
}

/// What [`Store::enqueue_fleet_job`] takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFleetJob {
    /// v4 UUID.
    pub id: String,
    /// The device it must run on.
    pub device_id: String,
    /// What to run (`chat`, `task`, …).
    pub kind: String,
    /// The request, JSON.
    pub payload: String,
    /// The server it was asked on.
    pub origin_server: String,
    /// Now, ms since the epoch.
    pub created_at_ms: i64,
}

/// A job of the queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetJob {
    /// v4 UUID.
    pub id: String,
    /// The device it must run on.
    pub device_id: String,
    /// What to run.
    pub kind: String,
    /// The request, JSON.
    pub payload: String,
    /// The server it was asked on.
    pub origin_server: String,
    /// Where it stands.
    pub state: FleetJobState,
    /// The server that claimed it.
    pub claimed_by: Option<String>,
    /// The lease epoch it was claimed under.
    pub lease_epoch: Option<u64>,
    /// When it was claimed.
    pub claimed_at_ms: Option<i64>,
    /// What it started (a run id) or why it failed.
    pub outcome: Option<String>,
    /// When it was asked for.
    pub created_at_ms: i64,
    /// Its last change.
    pub updated_at_ms: i64,
}

impl Store {
    /// Queues a job. [`StoreError::Conflict`] when the id is taken.
    pub async fn enqueue_fleet_job(&self, new: &NewFleetJob) -> Result<FleetJob> {
        let sql = format!(
            "INSERT INTO fleet_jobs ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, NULL, NULL, \
             NULL, NULL, $7, $7) RETURNING {COLUMNS}"
        );
        let mut tx = self
            .pool
            .begin()
            .await
            .map_err(db("queueing a fleet job"))?;
        signals::notify(&mut tx, self.backend, Channel::JobQueued, &new.device_id).await?;
        let row = sqlx::query(AssertSqlSafe(sql))
            .bind(&new.id)
            .bind(&new.device_id)
            .bind(&new.kind)
            .bind(&new.payload)
            .bind(&new.origin_server)
            .bind(FleetJobState::Queued.as_str())
            .bind(new.created_at_ms)
            .fetch_one(&mut *tx)
            .await
            .map_err(|e| {
                if is_unique_violation(&e) {
                    StoreError::Conflict(format!("a fleet job with id {:?} exists", new.id))
                } else {
                    db("queueing a fleet job")(e)
                }
            })?;
        tx.commit().await.map_err(db("queueing a fleet job"))?;
        job_from_row(&row)
    }

    /// Withdraws queued job `id` (its asker stopped waiting) as failed with `outcome`; `false`
    /// when it is no longer queued (its holder claimed it meanwhile).
    pub async fn cancel_fleet_job(&self, id: &str, outcome: &str, now_ms: i64) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE fleet_jobs SET state = $2, outcome = $3, updated_at_ms = $4 \
             WHERE id = $1 AND state = $5",
        )
        .bind(id)
        .bind(FleetJobState::Failed.as_str())
        .bind(outcome)
        .bind(now_ms)
        .bind(FleetJobState::Queued.as_str())
        .execute(&self.pool)
        .await
        .map_err(db("withdrawing a fleet job"))?;
        Ok(done.rows_affected() > 0)
    }

    /// Claims up to `limit` queued jobs, oldest first, of the devices `server` holds a live
    /// lease of at `now_ms`; each is claimed under that lease's epoch. Servers claiming at once
    /// get disjoint jobs.
    pub async fn claim_fleet_jobs(
        &self,
        server: &str,
        now_ms: i64,
        limit: u32,
    ) -> Result<Vec<FleetJob>> {
        let skip_locked = match self.backend {
            Backend::Postgres => " FOR UPDATE OF j SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let sql = format!(
            "UPDATE fleet_jobs SET state = $4, claimed_by = $1, claimed_at_ms = $2, \
             updated_at_ms = $2, lease_epoch = (SELECT l.epoch FROM device_leases l \
             WHERE l.device_id = fleet_jobs.device_id) \
             WHERE state = $5 AND id IN (SELECT j.id FROM fleet_jobs j \
             JOIN device_leases l ON l.device_id = j.device_id \
             WHERE j.state = $5 AND l.server_id = $1 AND l.expires_at_ms > $2 \
             ORDER BY j.created_at_ms, j.id LIMIT $3{skip_locked}) \
             RETURNING {COLUMNS}"
        );
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(server)
            .bind(now_ms)
            .bind(i64::from(limit))
            .bind(FleetJobState::Claimed.as_str())
            .bind(FleetJobState::Queued.as_str())
            .fetch_all(&self.pool)
            .await
            .map_err(db("claiming fleet jobs"))?;
        let mut jobs: Vec<FleetJob> = rows.iter().map(job_from_row).collect::<Result<_>>()?;
        jobs.sort_by(|a, b| (a.created_at_ms, &a.id).cmp(&(b.created_at_ms, &b.id)));
        Ok(jobs)
    }

    /// Records how claimed job `id` ended (`done` with what it started, `failed` with why).
    /// [`StoreError::Conflict`] when `server` does not hold its claim any more (another server
    /// ended it as interrupted); [`StoreError::NotFound`] for an unknown id;
    /// [`StoreError::Invalid`] for a state that is not an end.
    pub async fn finish_fleet_job(
        &self,
        id: &str,
        server: &str,
        state: FleetJobState,
        outcome: &str,
        now_ms: i64,
    ) -> Result<FleetJob> {
        if matches!(state, FleetJobState::Queued | FleetJobState::Claimed) {
            return Err(StoreError::Invalid(format!(
                "cannot end fleet job {id:?} as {state}: give how it ended"
            )));
        }
        let mut tx = self.pool.begin().await.map_err(db("ending a fleet job"))?;
        signals::notify(&mut tx, self.backend, Channel::JobEnded, id).await?;
        // The ended job as this write left it (read after the commit, the asker may have
        // deleted it already).
        let sql = format!(
            "UPDATE fleet_jobs SET state = $3, outcome = $4, updated_at_ms = $5 \
             WHERE id = $1 AND claimed_by = $2 AND state = $6 RETURNING {COLUMNS}"
        );
        let ended = sqlx::query(AssertSqlSafe(sql))
            .bind(id)
            .bind(server)
            .bind(state.as_str())
            .bind(outcome)
            .bind(now_ms)
            .bind(FleetJobState::Claimed.as_str())
            .fetch_optional(&mut *tx)
            .await
            .map_err(db("ending a fleet job"))?;
        tx.commit().await.map_err(db("ending a fleet job"))?;
        match ended {
            Some(row) => job_from_row(&row),
            None => {
                let job = self.fleet_job(id).await?;
                Err(StoreError::Conflict(format!(
                    "fleet job {id:?} is {} (claimed by {:?}), not claimed by server {server:?}",
                    job.state, job.claimed_by
                )))
            }
        }
    }

    /// The job `id`; [`StoreError::NotFound`] when there is none.
    pub async fn fleet_job(&self, id: &str) -> Result<FleetJob> {
        let sql = format!("SELECT {COLUMNS} FROM fleet_jobs WHERE id = $1");
        crate::lookup::one(&self.pool, sql, id, READ, job_from_row, || {
            StoreError::NotFound(format!("no fleet job has the id {id:?}"))
        })
        .await
    }

    /// Deletes the jobs that ended before `before_ms` (their answers were read long ago; the
    /// runs they started keep their own records). How many it deleted.
    pub async fn prune_fleet_jobs(&self, before_ms: i64) -> Result<u64> {
        let done = sqlx::query(
            "DELETE FROM fleet_jobs WHERE state <> $1 AND state <> $2 AND updated_at_ms < $3",
        )
        .bind(FleetJobState::Queued.as_str())
        .bind(FleetJobState::Claimed.as_str())
        .bind(before_ms)
        .execute(&self.pool)
        .await
        .map_err(db("pruning ended fleet jobs"))?;
        Ok(done.rows_affected())
    }

    /// Deletes ended job `id` at once (its answer was read and is bulky: a screenshot); a job
    /// still queued or claimed stays. Whether it deleted it.
    pub async fn forget_fleet_job(&self, id: &str) -> Result<bool> {
        let done =
            sqlx::query("DELETE FROM fleet_jobs WHERE id = $1 AND state <> $2 AND state <> $3")
                .bind(id)
                .bind(FleetJobState::Queued.as_str())
                .bind(FleetJobState::Claimed.as_str())
                .execute(&self.pool)
                .await
                .map_err(db("forgetting a fleet job"))?;
        Ok(done.rows_affected() > 0)
    }

    /// Ends as `interrupted` every claimed job whose device's lease has moved on from the
    /// epoch it was claimed under, or lapsed at `now_ms`; returns them. Each is returned to
    /// exactly one caller, however many servers sweep at once.
    pub async fn interrupt_lost_fleet_jobs(
        &self,
        now_ms: i64,
        outcome: &str,
    ) -> Result<Vec<FleetJob>> {
        let sql = format!(
            "UPDATE fleet_jobs SET state = $1, outcome = $2, updated_at_ms = $3 \
             WHERE state = $4 AND NOT EXISTS (SELECT 1 FROM device_leases l \
             WHERE l.device_id = fleet_jobs.device_id AND l.epoch = fleet_jobs.lease_epoch \
             AND l.server_id = fleet_jobs.claimed_by AND l.expires_at_ms > $3) \
             RETURNING {COLUMNS}"
        );
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(FleetJobState::Interrupted.as_str())
            .bind(outcome)
            .bind(now_ms)
            .bind(FleetJobState::Claimed.as_str())
            .fetch_all(&self.pool)
            .await
            .map_err(db("interrupting lost fleet jobs"))?;
        rows.iter().map(job_from_row).collect()
    }
}

fn job_from_row(row: &AnyRow) -> Result<FleetJob> {
    let id: String = column(row, "id", READ)?;
    let state: String = column(row, "state", READ)?;
    let state = FleetJobState::from_name(&state).ok_or_else(|| StoreError::Corrupt {
        what: format!("the state of fleet job {id}"),
        cause: format!("unknown state {state:?}"),
    })?;
    let epoch: Option<i64> = column(row, "lease_epoch", READ)?;
    Ok(FleetJob {
        lease_epoch: epoch
            .map(|e| from_db(&format!("the lease epoch of fleet job {id}"), e))
            .transpose()?,
        device_id: column(row, "device_id", READ)?,
        kind: column(row, "kind", READ)?,
        payload: column(row, "payload", READ)?,
        origin_server: column(row, "origin_server", READ)?,
        state,
        claimed_by: column(row, "claimed_by", READ)?,
        claimed_at_ms: column(row, "claimed_at_ms", READ)?,
        outcome: column(row, "outcome", READ)?,
        created_at_ms: column(row, "created_at_ms", READ)?,
        updated_at_ms: column(row, "updated_at_ms", READ)?,
        id,
    })
}
