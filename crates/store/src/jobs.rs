//! Jobs: the schedules of the server's own work (the daily experience audit), by name. What the
//! scheduler needs is what it needs of task schedules — the earliest next fire, the due ones,
//! and the claim of one fire (a compare-and-set on the version), so with several servers on one
//! database each fire runs once.

use sqlx::AssertSqlSafe;
use sqlx::any::AnyRow;

use crate::convert::{column, flag, flag_from, from_db, now_ms, to_db};
use crate::error::{Result, StoreError, db};
use crate::lookup;
use crate::schedules::{kind_from_row, spec_columns};
use crate::{Job, JobClaim, NewJob, Store};

const JOB_COLUMNS: &str = "name, kind, cron_expr, cron_tz, every_seconds, once_at_ms, enabled, \
     next_fire_at_ms, last_fire_at_ms, version, updated_at_ms";

const FIRING: &str = "FROM jobs WHERE enabled = 1 AND next_fire_at_ms IS NOT NULL";

impl Store {
    /// The job `name` as stored; when there is none, stores `new` under it first. Servers
    /// starting at once agree: the first insert wins and the others read it.
    pub async fn ensure_job(&self, name: &str, new: &NewJob) -> Result<Job> {
        let insert = "INSERT INTO jobs (name, kind, cron_expr, cron_tz, every_seconds, \
             once_at_ms, enabled, next_fire_at_ms, updated_at_ms, version) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0) ON CONFLICT (name) DO NOTHING";
        bind_job(sqlx::query(insert), name, new)?
            .execute(&self.pool)
            .await
            .map_err(db("creating a job"))?;
        self.job(name).await
    }

    /// The job `name`; [`StoreError::NotFound`] when there is none.
    pub async fn job(&self, name: &str) -> Result<Job> {
        let sql = format!("SELECT {JOB_COLUMNS} FROM jobs WHERE name = $1");
        lookup::optional(&self.pool, sql, name, "reading a job", job_from_row)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("no job is named {name:?}")))
    }

    /// Replaces a job's spec, switch and next fire (a claim racing this loses).
    /// [`StoreError::NotFound`] for an unknown name.
    pub async fn update_job(&self, name: &str, new: &NewJob) -> Result<Job> {
        let update = "UPDATE jobs SET kind = $2, cron_expr = $3, cron_tz = $4, \
             every_seconds = $5, once_at_ms = $6, enabled = $7, next_fire_at_ms = $8, \
             updated_at_ms = $9, version = version + 1 WHERE name = $1";
        let done = bind_job(sqlx::query(update), name, new)?
            .execute(&self.pool)
            .await
            .map_err(db("updating a job"))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("no job is named {name:?}")));
        }
        self.job(name).await
    }

    /// The earliest next fire among enabled jobs.
    pub async fn earliest_job_fire_at(&self) -> Result<Option<i64>> {
        let sql = format!("SELECT next_fire_at_ms {FIRING} ORDER BY next_fire_at_ms LIMIT 1");
        sqlx::query_scalar(AssertSqlSafe(sql))
            .fetch_optional(&self.pool)
            .await
            .map_err(db("reading the earliest job fire"))
    }

    /// Up to `limit` enabled jobs due at `now_ms`, earliest first.
    pub async fn due_jobs(&self, now_ms: i64, limit: u32) -> Result<Vec<Job>> {
        let sql = format!(
            "SELECT {JOB_COLUMNS} {FIRING} AND next_fire_at_ms <= $1 \
             ORDER BY next_fire_at_ms, name LIMIT $2"
        );
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(now_ms)
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await
            .map_err(db("reading due jobs"))?;
        rows.iter().map(job_from_row).collect()
    }

    /// Claims one job fire (as [`Store::claim_fire`] does for a schedule): `true` when this
    /// caller owns it.
    pub async fn claim_job_fire(&self, claim: &JobClaim) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE jobs SET next_fire_at_ms = $4, last_fire_at_ms = $3, version = version + 1 \
             WHERE name = $1 AND version = $2 AND next_fire_at_ms = $3 AND enabled = 1",
        )
        .bind(&claim.name)
        .bind(to_db("a job version", claim.version)?)
        .bind(claim.fire_at_ms)
        .bind(claim.next_fire_at_ms)
        .execute(&self.pool)
        .await
        .map_err(db("claiming a job fire"))?;
        Ok(done.rows_affected() == 1)
    }
}

/// Binds `$1` = `name`, `$2…$6` = the spec columns, `$7` = the switch, `$8` = the next fire,
/// `$9` = now (the statements that write a job take them in this order).
fn bind_job<'q>(
    q: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    name: &'q str,
    new: &'q NewJob,
) -> Result<sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>> {
    let (kind, expr, tz, every, at) = spec_columns(&new.kind)?;
    Ok(q.bind(name)
        .bind(kind)
        .bind(expr)
        .bind(tz)
        .bind(every)
        .bind(at)
        .bind(flag(new.enabled))
        .bind(new.next_fire_at_ms)
        .bind(now_ms()))
}

fn job_from_row(row: &AnyRow) -> Result<Job> {
    const READ: &str = "reading a job";
    let name: String = column(row, "name", READ)?;
    let owner = format!("job {name}");
    Ok(Job {
        kind: kind_from_row(row, &owner, READ)?,
        enabled: flag_from(row, "enabled", READ)?,
        next_fire_at_ms: column(row, "next_fire_at_ms", READ)?,
        last_fire_at_ms: column(row, "last_fire_at_ms", READ)?,
        version: from_db(&format!("{owner}, version"), column(row, "version", READ)?)?,
        updated_at_ms: column(row, "updated_at_ms", READ)?,
        name,
    })
}
