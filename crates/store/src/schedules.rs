//! Schedules of tasks: create, read, replace, switch, delete; and what the scheduler needs —
//! the earliest next fire, the due schedules, and the claim of one fire (a compare-and-set on
//! the schedule's version, so with several servers on one database each fire runs once).

use sqlx::AssertSqlSafe;
use sqlx::any::AnyRow;

use crate::convert::{column, flag, flag_from, from_db, now_ms, to_db};
use crate::error::{Result, StoreError, db, is_foreign_key_violation, no_task};
use crate::lookup;
use crate::{BusyPolicy, FireClaim, MisfirePolicy, NewSchedule, Schedule, ScheduleKind, Store};

const SCHEDULE_COLUMNS: &str = "id, task_id, kind, cron_expr, cron_tz, every_seconds, once_at_ms, \
     misfire, busy, enabled, next_fire_at_ms, last_fire_at_ms, version, created_at_ms, \
     updated_at_ms";

/// The schedules that may fire: enabled, of an enabled task, with a next fire — exactly the
/// rows of the `schedules_firing` partial index, so both backends walk it in fire order.
const FIRING: &str =
    "FROM schedules WHERE enabled = 1 AND task_enabled = 1 AND next_fire_at_ms IS NOT NULL";

/// The spec columns of a kind: (kind, cron_expr, cron_tz, every_seconds, once_at_ms).
pub(crate) type SpecColumns<'a> = (
    &'static str,
    Option<&'a str>,
    Option<&'a str>,
    Option<i64>,
    Option<i64>,
);

impl Store {
    /// Adds a schedule to a task. [`StoreError::NotFound`] for an unknown task.
    pub async fn create_schedule(&self, task_id: &str, new: &NewSchedule) -> Result<Schedule> {
        let mut tx = self.pool.begin().await.map_err(db("creating a schedule"))?;
        let id = insert_schedule(&mut tx, task_id, new, now_ms()).await?;
        tx.commit().await.map_err(db("creating a schedule"))?;
        self.schedule(&id).await
    }

    /// The schedule with this id; [`StoreError::NotFound`] when there is none.
    pub async fn schedule(&self, id: &str) -> Result<Schedule> {
        let sql = format!("SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE id = $1");
        let missing = || no_schedule(id);
        lookup::one(
            &self.pool,
            sql,
            id,
            "reading a schedule",
            schedule_from_row,
            missing,
        )
        .await
    }

    /// A task's schedules, oldest first. [`StoreError::NotFound`] for an unknown task.
    pub async fn schedules_of_task(&self, task_id: &str) -> Result<Vec<Schedule>> {
        let sql = format!(
            "SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE task_id = $1 \
             ORDER BY created_at_ms, id"
        );
        lookup::children(
            &self.pool,
            "SELECT id FROM tasks WHERE id = $1",
            sql,
            task_id,
            "listing a task's schedules",
            schedule_from_row,
            || no_task(task_id),
        )
        .await
    }

    /// The schedules of these tasks (unknown ids have none), by task, oldest first: one query
    /// for a page of the task list.
    pub(crate) async fn schedules_of_tasks(&self, task_ids: &[String]) -> Result<Vec<Schedule>> {
        if task_ids.is_empty() {
            return Ok(Vec::new());
        }
        let marks: Vec<String> = (1..=task_ids.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE task_id IN ({}) \
             ORDER BY task_id, created_at_ms, id",
            marks.join(", ")
        );
        let mut query = sqlx::query(AssertSqlSafe(sql));
        for id in task_ids {
            query = query.bind(id);
        }
        let rows = query
            .fetch_all(&self.pool)
            .await
            .map_err(db("listing the schedules of a page of tasks"))?;
        rows.iter().map(schedule_from_row).collect()
    }

    /// Replaces a schedule's spec, policies, switch and next fire (a claim racing this loses).
    /// [`StoreError::NotFound`] for an unknown id.
    pub async fn update_schedule(&self, id: &str, new: &NewSchedule) -> Result<Schedule> {
        let (kind, expr, tz, every, at) = spec_columns(&new.kind)?;
        let done = sqlx::query(
            "UPDATE schedules SET kind = $2, cron_expr = $3, cron_tz = $4, every_seconds = $5, \
             once_at_ms = $6, misfire = $7, busy = $8, enabled = $9, next_fire_at_ms = $10, \
             version = version + 1, updated_at_ms = $11 WHERE id = $1",
        )
        .bind(id)
        .bind(kind)
        .bind(expr)
        .bind(tz)
        .bind(every)
        .bind(at)
        .bind(new.misfire.as_str())
        .bind(new.busy.as_str())
        .bind(flag(new.enabled))
        .bind(new.next_fire_at_ms)
        .bind(now_ms())
        .execute(&self.pool)
        .await
        .map_err(db("updating a schedule"))?;
        if done.rows_affected() == 0 {
            return Err(no_schedule(id));
        }
        self.schedule(id).await
    }

    /// Switches a schedule on or off, with its next fire (when switching on: computed from
    /// now, so the time it was off does not count as missed). [`StoreError::NotFound`] for an
    /// unknown id.
    pub async fn set_schedule_enabled(
        &self,
        id: &str,
        enabled: bool,
        next_fire_at_ms: Option<i64>,
    ) -> Result<Schedule> {
        let done = sqlx::query(
            "UPDATE schedules SET enabled = $2, next_fire_at_ms = $3, version = version + 1, \
             updated_at_ms = $4 WHERE id = $1",
        )
        .bind(id)
        .bind(flag(enabled))
        .bind(next_fire_at_ms)
        .bind(now_ms())
        .execute(&self.pool)
        .await
        .map_err(db("switching a schedule"))?;
        if done.rows_affected() == 0 {
            return Err(no_schedule(id));
        }
        self.schedule(id).await
    }

    /// Deletes a schedule. [`StoreError::NotFound`] for an unknown id.
    pub async fn delete_schedule(&self, id: &str) -> Result<()> {
        let done = sqlx::query("DELETE FROM schedules WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await
            .map_err(db("deleting a schedule"))?;
        if done.rows_affected() == 0 {
            return Err(no_schedule(id));
        }
        Ok(())
    }

    /// The earliest next fire among schedules that may fire (enabled, of an enabled task);
    /// `None` when none will.
    pub async fn earliest_fire_at(&self) -> Result<Option<i64>> {
        let sql = format!("SELECT next_fire_at_ms {FIRING} ORDER BY next_fire_at_ms LIMIT 1");
        sqlx::query_scalar(AssertSqlSafe(sql))
            .fetch_optional(&self.pool)
            .await
            .map_err(db("reading the earliest fire"))
    }

    /// Up to `limit` schedules that may fire and are due at `now_ms` (next fire at or before
    /// it), earliest first.
    pub async fn due_schedules(&self, now_ms: i64, limit: u32) -> Result<Vec<Schedule>> {
        let sql = format!(
            "SELECT {SCHEDULE_COLUMNS} {FIRING} AND next_fire_at_ms <= $1 \
             ORDER BY next_fire_at_ms, id LIMIT $2"
        );
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(now_ms)
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await
            .map_err(db("reading due schedules"))?;
        rows.iter().map(schedule_from_row).collect()
    }

    /// Claims one fire: moves the schedule to its next fire and records the fire as its last,
    /// only if it (and its task) is still enabled, at the version read and due at the fire
    /// claimed. `true`:
    /// this caller owns the fire and runs it; `false`: another server claimed it first or
    /// someone changed the schedule (read it again). One UPDATE, atomic on both backends.
    pub async fn claim_fire(&self, claim: &FireClaim) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE schedules SET next_fire_at_ms = $4, last_fire_at_ms = $3, \
             version = version + 1 \
             WHERE id = $1 AND version = $2 AND next_fire_at_ms = $3 AND enabled = 1 \
             AND task_enabled = 1",
        )
        .bind(&claim.schedule_id)
        .bind(to_db("a schedule version", claim.version)?)
        .bind(claim.fire_at_ms)
        .bind(claim.next_fire_at_ms)
        .execute(&self.pool)
        .await
        .map_err(db("claiming a fire"))?;
        Ok(done.rows_affected() == 1)
    }
}

fn no_schedule(id: &str) -> StoreError {
    StoreError::NotFound(format!("no schedule has the id {id:?}"))
}

/// The columns a kind sets.
pub(crate) fn spec_columns(kind: &ScheduleKind) -> Result<SpecColumns<'_>> {
    Ok(match kind {
        ScheduleKind::Cron { expr, tz } => {
            ("cron", Some(expr.as_str()), Some(tz.as_str()), None, None)
        }
        ScheduleKind::Every { seconds } => (
            "every",
            None,
            None,
            Some(to_db("an interval in seconds", *seconds)?),
            None,
        ),
        ScheduleKind::Once { at_ms } => ("once", None, None, None, Some(*at_ms)),
    })
}

fn schedule_from_row(row: &AnyRow) -> Result<Schedule> {
    const READ: &str = "reading a schedule";
    let id: String = column(row, "id", READ)?;
    let what = |c: &str| format!("schedule {id}, column {c}");
    let corrupt = |c: &str, cause: String| StoreError::Corrupt {
        what: what(c),
        cause,
    };
    let kind = kind_from_row(row, &format!("schedule {id}"), READ)?;
    let misfire: String = column(row, "misfire", READ)?;
    let busy: String = column(row, "busy", READ)?;
    Ok(Schedule {
        task_id: column(row, "task_id", READ)?,
        kind,
        misfire: MisfirePolicy::from_name(&misfire)
            .ok_or_else(|| corrupt("misfire", format!("unknown misfire policy {misfire:?}")))?,
        busy: BusyPolicy::from_name(&busy)
            .ok_or_else(|| corrupt("busy", format!("unknown busy policy {busy:?}")))?,
        enabled: flag_from(row, "enabled", READ)?,
        next_fire_at_ms: column(row, "next_fire_at_ms", READ)?,
        last_fire_at_ms: column(row, "last_fire_at_ms", READ)?,
        version: from_db(&what("version"), column(row, "version", READ)?)?,
        created_at_ms: column(row, "created_at_ms", READ)?,
        updated_at_ms: column(row, "updated_at_ms", READ)?,
        id,
    })
}

/// The spec of a schedule or job row (its `kind` and spec columns); `owner` names the row in
/// errors ("schedule …", "job …").
pub(crate) fn kind_from_row(row: &AnyRow, owner: &str, read: &'static str) -> Result<ScheduleKind> {
    let what = |c: &str| format!("{owner}, column {c}");
    let corrupt = |c: &str, cause: String| StoreError::Corrupt {
        what: what(c),
        cause,
    };
    let kind: String = column(row, "kind", read)?;
    let missing = |c: &str| corrupt(c, format!("the {kind} schedule has no {c}"));
    Ok(match kind.as_str() {
        "cron" => ScheduleKind::Cron {
            expr: column::<Option<String>>(row, "cron_expr", read)?
                .ok_or_else(|| missing("cron_expr"))?,
            tz: column::<Option<String>>(row, "cron_tz", read)?
                .ok_or_else(|| missing("cron_tz"))?,
        },
        "every" => ScheduleKind::Every {
            seconds: from_db(
                &what("every_seconds"),
                column::<Option<i64>>(row, "every_seconds", read)?
                    .ok_or_else(|| missing("every_seconds"))?,
            )?,
        },
        "once" => ScheduleKind::Once {
            at_ms: column::<Option<i64>>(row, "once_at_ms", read)?
                .ok_or_else(|| missing("once_at_ms"))?,
        },
        other => return Err(corrupt("kind", format!("unknown schedule kind {other:?}"))),
    })
}

/// Adds a schedule to a task in the caller's transaction; its id. [`StoreError::NotFound`]
/// for an unknown task.
pub(crate) async fn insert_schedule(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    task_id: &str,
    new: &NewSchedule,
    now: i64,
) -> Result<String> {
    let (kind, expr, tz, every, at) = spec_columns(&new.kind)?;
    let id = uuid::Uuid::new_v4().to_string();
    // The task's switch is copied in the same statement; no row inserted: no such task.
    let sql = format!(
        "INSERT INTO schedules ({SCHEDULE_COLUMNS}, task_enabled) \
         SELECT $1, t.id, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL, 0, $12, $12, t.enabled \
         FROM tasks t WHERE t.id = $2"
    );
    let done = sqlx::query(AssertSqlSafe(sql))
        .bind(&id)
        .bind(task_id)
        .bind(kind)
        .bind(expr)
        .bind(tz)
        .bind(every)
        .bind(at)
        .bind(new.misfire.as_str())
        .bind(new.busy.as_str())
        .bind(flag(new.enabled))
        .bind(new.next_fire_at_ms)
        .bind(now)
        .execute(&mut **tx)
        .await
        .map_err(|e| {
            if is_foreign_key_violation(&e) {
                no_task(task_id)
            } else {
                db("creating a schedule")(e)
            }
        })?;
    if done.rows_affected() == 0 {
        return Err(no_task(task_id));
    }
    Ok(id)
}
