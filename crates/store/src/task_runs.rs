//! Task runs and their step results: starting a run (at most one running per task, across
//! servers), starting a run of a draft that is no stored task (one at a time), recording a run
//! that never started, finishing, the paged history (newest first), the running instance of a
//! task, and each run's executed steps.

use serde_json::Value;
use sqlx::AssertSqlSafe;
use sqlx::any::AnyRow;

use crate::convert::{column, from_db, from_json, page_bounds, to_db, to_json};
use crate::error::{Result, StoreError, db, is_unique_violation, no_task};
use crate::event_log::{self, Log};
use crate::fence::{self, Fence, Written};
use crate::lookup;
use crate::run_history;
use crate::select::prefixed;
use crate::task_run_row::{RUN_COLUMNS, task_run_from_row};
use crate::{
    MatchedControl, NewDraftRun, NewTaskRun, Page, Paged, RunStart, StepStatus, Store, TaskRun,
    TaskRunFilter, TaskRunStatus, TaskRunStep, TaskTrigger,
};

const STEP_COLUMNS: &str = "seq, path, step_type, status, started_at_ms, duration_ms, matched, \
     healed_from, error, message, image_ids";

/// How often [`Store::start_task_run`] retries when the run that made it busy ended before it
/// could be read.
const START_ATTEMPTS: usize = 3;

impl Store {
    /// Records a run of a task as running, unless another run of the task is running: then
    /// nothing is recorded and the answer is [`RunStart::Busy`] with that run. The check and
    /// the insert are one statement against a unique index, so two servers on one database
    /// never both start the task. The task's name (and device when `new.device` is `None`) are
    /// copied into the run. [`StoreError::NotFound`] for an unknown task.
    pub async fn start_task_run(&self, new: &NewTaskRun) -> Result<RunStart> {
        self.start_run(&new.task_id, || {
            self.insert_run(new, TaskRunStatus::Running, None)
        })
        .await
    }

    /// Records a run of a draft that is not a stored task (designer mode's "try it") as
    /// running, with the task id [`DRAFT_TASK_ID`] and the trigger [`TaskTrigger::Try`]: one
    /// draft runs at a time (the answer is [`RunStart::Busy`] with the one that does), across
    /// servers as for a task.
    pub async fn start_draft_run(&self, new: &NewDraftRun) -> Result<RunStart> {
        self.start_run(DRAFT_TASK_ID, || self.insert_draft_run(new))
            .await
    }

    /// Inserts with `insert` unless a run of `task_id` is running (then that one is the
    /// answer).
    async fn start_run<F, Fut>(&self, task_id: &str, insert: F) -> Result<RunStart>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<TaskRun, InsertError>>,
    {
        for _ in 0..START_ATTEMPTS {
            match insert().await {
                Ok(run) => return Ok(RunStart::Started(run)),
                Err(InsertError::Busy) => {
                    if let Some(running) = self.running_task_run(task_id).await? {
                        return Ok(RunStart::Busy(running));
                    }
                    // It ended between the insert and the read: try again.
                }
                Err(InsertError::Store(e)) => return Err(e),
            }
        }
        Err(StoreError::Conflict(format!(
            "task {task_id:?} kept starting and ending runs; try again"
        )))
    }

    /// Records a run that never started, as `status` ([`TaskRunStatus::Skipped`] or
    /// [`TaskRunStatus::Failed`]) with `reason`, ended when it started. Any other status is
    /// [`StoreError::Invalid`]; an unknown task [`StoreError::NotFound`].
    pub async fn record_unstarted_run(
        &self,
        new: &NewTaskRun,
        status: TaskRunStatus,
        reason: &str,
    ) -> Result<TaskRun> {
        if !matches!(status, TaskRunStatus::Skipped | TaskRunStatus::Failed) {
            return Err(StoreError::Invalid(format!(
                "a run that never started is recorded as skipped or failed, not {status}"
            )));
        }
        match self.insert_run(new, status, Some(reason)).await {
            Ok(run) => Ok(run),
            Err(InsertError::Busy) => Err(StoreError::Conflict(format!(
                "cannot record an unstarted run of task {:?}",
                new.task_id
            ))),
            Err(InsertError::Store(e)) => Err(e),
        }
    }

    /// Ends a running run with its outcome (`error`: why it failed or was stopped) and returns
    /// it. [`StoreError::NotFound`] for an unknown run, [`StoreError::Conflict`] when it has
    /// already ended (a stop racing the last step), [`StoreError::Invalid`] for
    /// [`TaskRunStatus::Running`].
    pub async fn finish_task_run(
        &self,
        run_id: &str,
        status: TaskRunStatus,
        error: Option<&str>,
        ended_at_ms: i64,
    ) -> Result<TaskRun> {
        self.finish_task_run_as(None, run_id, status, error, ended_at_ms)
            .await
    }

    /// [`Store::finish_task_run`], refused under a stale `fence`.
    pub(crate) async fn finish_task_run_as(
        &self,
        fence: Option<&Fence>,
        run_id: &str,
        status: TaskRunStatus,
        error: Option<&str>,
        ended_at_ms: i64,
    ) -> Result<TaskRun> {
        if status == TaskRunStatus::Running {
            return Err(StoreError::Invalid(format!(
                "cannot finish task run {run_id:?} as running: give how it ended"
            )));
        }
        let mut tx = self
            .pool
            .begin()
            .await
            .map_err(db("finishing a task run"))?;
        fence::check(&mut tx, self.backend, fence, Written::TaskRun(run_id)).await?;
        let done = sqlx::query(
            "UPDATE task_runs SET status = $2, error = $3, ended_at_ms = $4, \
             duration_ms = $4 - started_at_ms WHERE id = $1 AND status = $5",
        )
        .bind(run_id)
        .bind(status.as_str())
        .bind(error)
        .bind(ended_at_ms)
        .bind(TaskRunStatus::Running.as_str())
        .execute(&mut *tx)
        .await
        .map_err(db("finishing a task run"))?;
        tx.commit().await.map_err(db("finishing a task run"))?;
        let run = self.task_run(run_id).await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::Conflict(format!(
                "task run {run_id:?} has already ended ({})",
                run.status
            )));
        }
        Ok(run)
    }

    /// Makes `new_owner` the server of running task run `run_id` if `owner` still is (`None`:
    /// a run recorded without one): of servers racing to end an abandoned run, exactly one
    /// gets `true`, and the old owner's writes are refused from then on (its fence).
    pub async fn take_over_task_run(
        &self,
        run_id: &str,
        owner: Option<&str>,
        new_owner: &str,
    ) -> Result<bool> {
        fence::take_over(&self.pool, Written::TaskRun(run_id), owner, new_owner).await
    }

    /// The task run with this id; [`StoreError::NotFound`] when there is none.
    pub async fn task_run(&self, run_id: &str) -> Result<TaskRun> {
        let sql = format!("SELECT {RUN_COLUMNS} FROM task_runs WHERE id = $1");
        let read = |row: &AnyRow| task_run_from_row(row, "");
        let missing = || no_run(run_id);
        lookup::one(&self.pool, sql, run_id, "reading a task run", read, missing).await
    }

    /// The running instance of a task, if any (there is at most one).
    pub async fn running_task_run(&self, task_id: &str) -> Result<Option<TaskRun>> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM task_runs WHERE task_id = $1 AND status = '{}'",
            TaskRunStatus::Running.as_str()
        );
        let read = |row: &AnyRow| task_run_from_row(row, "");
        lookup::optional(
            &self.pool,
            sql,
            task_id,
            "reading a task's running run",
            read,
        )
        .await
    }

    /// Every running task run, oldest first: the monitor's list, and after a restart the runs
    /// it cut off.
    pub async fn running_task_runs(&self) -> Result<Vec<TaskRun>> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM task_runs WHERE status = $1 ORDER BY started_at_ms, id"
        );
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(TaskRunStatus::Running.as_str())
            .fetch_all(&self.pool)
            .await
            .map_err(db("listing running task runs"))?;
        rows.iter().map(|r| task_run_from_row(r, "")).collect()
    }

    /// Refreshes the heartbeat of every running run `owner` runs (a server saying its runs go
    /// on); how many it refreshed.
    pub async fn heartbeat_task_runs(&self, owner: &str, now_ms: i64) -> Result<u64> {
        let done = sqlx::query(
            "UPDATE task_runs SET heartbeat_at_ms = $2 WHERE owner = $1 AND status = $3",
        )
        .bind(owner)
        .bind(now_ms)
        .bind(TaskRunStatus::Running.as_str())
        .execute(&self.pool)
        .await
        .map_err(db("refreshing task run heartbeats"))?;
        Ok(done.rows_affected())
    }

    /// A page of task runs matching `filter`, newest first (by start), with how many match
    /// in all. One statement — the count joined to the page — so the total and the page are
    /// one snapshot of the table on both backends (a run started between two reads cannot
    /// make the total disagree with the page).
    pub async fn task_runs(&self, filter: &TaskRunFilter, page: Page) -> Result<Paged<TaskRun>> {
        let (limit, offset) = page_bounds(page)?;
        let action = "listing task runs";
        let (filter_sql, params) = run_history::filter_sql(filter);
        let n = params.len();
        // The count is one row; the page joins it, so an empty page (past the end) still
        // answers the total, with the page's columns NULL.
        let page_cols = prefixed("p", "", RUN_COLUMNS);
        let sql = format!(
            "SELECT c.total, {page_cols} \
             FROM (SELECT COUNT(*) AS total FROM task_runs WHERE {filter_sql}) c \
             LEFT JOIN (SELECT {RUN_COLUMNS} FROM task_runs WHERE {filter_sql} \
             ORDER BY started_at_ms DESC, id DESC LIMIT ${} OFFSET ${}) p ON 1 = 1 \
             ORDER BY p.started_at_ms DESC, p.id DESC",
            n + 1,
            n + 2
        );
        let rows = run_history::bind_all(sqlx::query(AssertSqlSafe(sql)), &params)
            .bind(limit)
            .bind(offset)
            .fetch_all(&self.pool)
            .await
            .map_err(db(action))?;
        let total: i64 = match rows.first() {
            Some(row) => column(row, "total", action)?,
            None => 0,
        };
        let mut items = Vec::with_capacity(rows.len());
        for row in &rows {
            if column::<Option<String>>(row, "id", action)?.is_some() {
                items.push(task_run_from_row(row, "")?);
            }
        }
        Ok(Paged {
            items,
            total: from_db("task run count", total)?,
        })
    }

    /// Deletes a task's ended runs and their steps (a running one stays); how many went.
    pub async fn delete_task_runs(&self, task_id: &str) -> Result<u64> {
        let action = "deleting task runs";
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        for table in ["task_run_steps", "task_run_events"] {
            let sql = format!(
                "DELETE FROM {table} WHERE run_id IN \
                 (SELECT id FROM task_runs WHERE task_id = $1 AND status <> $2)"
            );
            sqlx::query(AssertSqlSafe(sql))
                .bind(task_id)
                .bind(TaskRunStatus::Running.as_str())
                .execute(&mut *tx)
                .await
                .map_err(db(action))?;
        }
        let done = sqlx::query("DELETE FROM task_runs WHERE task_id = $1 AND status <> $2")
            .bind(task_id)
            .bind(TaskRunStatus::Running.as_str())
            .execute(&mut *tx)
            .await
            .map_err(db(action))?;
        tx.commit().await.map_err(db(action))?;
        Ok(done.rows_affected())
    }

    /// Appends `(seq, event JSON)` pairs to a task run's event log in one transaction, as
    /// [`Store::append_events`] does for agent runs. [`StoreError::NotFound`] for an unknown
    /// run.
    pub async fn append_task_run_events(
        &self,
        run_id: &str,
        events: &[(u64, String)],
    ) -> Result<()> {
        self.append_task_run_events_as(None, run_id, events).await
    }

    /// [`Store::append_task_run_events`], refused under a stale `fence`.
    pub(crate) async fn append_task_run_events_as(
        &self,
        fence: Option<&Fence>,
        run_id: &str,
        events: &[(u64, String)],
    ) -> Result<()> {
        event_log::append(&self.pool, self.backend, Log::Task, run_id, events, fence).await
    }

    /// A task run's stored events with `seq > after`, ascending (none for a run from before
    /// the store kept them: its trace has them).
    pub async fn task_run_events(&self, run_id: &str, after: u64) -> Result<Vec<(u64, String)>> {
        event_log::read(&self.pool, Log::Task, run_id, after).await
    }

    /// Appends one executed step to a run and adds it to the run's counts, in one transaction.
    /// [`StoreError::NotFound`] for an unknown run, [`StoreError::Conflict`] when the run already
    /// has a step with this `seq`.
    pub async fn append_task_run_step(&self, run_id: &str, step: &TaskRunStep) -> Result<()> {
        self.append_task_run_step_as(None, run_id, step).await
    }

    /// [`Store::append_task_run_step`], refused under a stale `fence`.
    pub(crate) async fn append_task_run_step_as(
        &self,
        fence: Option<&Fence>,
        run_id: &str,
        step: &TaskRunStep,
    ) -> Result<()> {
        let action = "recording a task run step";
        let seq = to_db("a step's seq", step.seq)?;
        let duration = to_db("a step's duration", step.duration_ms)?;
        let count = |status: StepStatus| i64::from(step.status == status);
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        fence::check(&mut tx, self.backend, fence, Written::TaskRun(run_id)).await?;
        // The UPDATE first: it takes the run's write lock before the insert.
        let done = sqlx::query(
            "UPDATE task_runs SET steps_ok = steps_ok + $2, steps_failed = steps_failed + $3, \
             steps_skipped = steps_skipped + $4, steps_healed = steps_healed + $5 WHERE id = $1",
        )
        .bind(run_id)
        .bind(count(StepStatus::Ok))
        .bind(count(StepStatus::Failed))
        .bind(count(StepStatus::Skipped))
        .bind(i64::from(step.healed_from.is_some()))
        .execute(&mut *tx)
        .await
        .map_err(db(action))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!(
                "cannot record a step of task run {run_id:?}: no such run"
            )));
        }
        let sql = format!(
            "INSERT INTO task_run_steps (run_id, {STEP_COLUMNS}) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
        );
        sqlx::query(AssertSqlSafe(sql))
            .bind(run_id)
            .bind(seq)
            .bind(&step.path)
            .bind(&step.step_type)
            .bind(step.status.as_str())
            .bind(step.started_at_ms)
            .bind(duration)
            .bind(step.matched.as_ref().map(to_json))
            .bind(step.healed_from.as_ref().map(to_json))
            .bind(step.error.as_deref())
            .bind(step.message.as_deref())
            .bind(to_json(&step.image_ids))
            .execute(&mut *tx)
            .await
            .map_err(|e| {
                if is_unique_violation(&e) {
                    StoreError::Conflict(format!(
                        "task run {run_id:?} already has a step {}",
                        step.seq
                    ))
                } else {
                    db(action)(e)
                }
            })?;
        tx.commit().await.map_err(db(action))?;
        Ok(())
    }

    /// A run's executed steps in order. [`StoreError::NotFound`] for an unknown run.
    pub async fn task_run_steps(&self, run_id: &str) -> Result<Vec<TaskRunStep>> {
        let sql =
            format!("SELECT {STEP_COLUMNS} FROM task_run_steps WHERE run_id = $1 ORDER BY seq");
        lookup::children(
            &self.pool,
            "SELECT id FROM task_runs WHERE id = $1",
            sql,
            run_id,
            "reading task run steps",
            |r| step_from_row(r, run_id),
            || no_run(run_id),
        )
        .await
    }

    /// Inserts a run row copied from its task; [`InsertError::Busy`] when the task's
    /// one-running index refuses it.
    async fn insert_run(
        &self,
        new: &NewTaskRun,
        status: TaskRunStatus,
        error: Option<&str>,
    ) -> Result<TaskRun, InsertError> {
        let id = uuid::Uuid::new_v4().to_string();
        let running = status == TaskRunStatus::Running;
        let ended = (!running).then_some(new.started_at_ms);
        // A running run's owner said so at its start.
        let (owner, heartbeat) = match &new.owner {
            Some(o) if running => (Some(o.as_str()), Some(new.started_at_ms)),
            _ => (None, None),
        };
        let done = sqlx::query(
            "INSERT INTO task_runs (id, task_id, task_name, triggered_by, schedule_id, \
             fire_at_ms, device, status, started_at_ms, ended_at_ms, error, variables, owner, \
             heartbeat_at_ms, duration_ms, task_version) \
             SELECT $1, t.id, t.name, $3, $4, $5, COALESCE($6, t.device), $7, $8, $9, $10, $11, \
             $12, $13, $14, COALESCE($15, t.version) FROM tasks t WHERE t.id = $2",
        )
        .bind(&id)
        .bind(&new.task_id)
        .bind(new.trigger.as_str())
        .bind(new.schedule_id.as_deref())
        .bind(new.fire_at_ms)
        .bind(new.device.as_deref())
        .bind(status.as_str())
        .bind(new.started_at_ms)
        .bind(ended)
        .bind(error)
        .bind(to_json(&new.variables))
        .bind(owner)
        .bind(heartbeat)
        // A run that never started took no time; a running one has no duration yet.
        .bind(if running { -1_i64 } else { 0 })
        .bind(new.task_version)
        .execute(&self.pool)
        .await
        .map_err(insert_error)?;
        if done.rows_affected() == 0 {
            return Err(InsertError::Store(no_task(&new.task_id)));
        }
        self.task_run(&id).await.map_err(InsertError::Store)
    }

    /// Inserts a running run of a draft (its owner's first heartbeat is its start).
    async fn insert_draft_run(&self, new: &NewDraftRun) -> Result<TaskRun, InsertError> {
        let id = uuid::Uuid::new_v4().to_string();
        let heartbeat = new.owner.as_ref().map(|_| new.started_at_ms);
        sqlx::query(
            "INSERT INTO task_runs (id, task_id, task_name, triggered_by, device, status, \
             started_at_ms, variables, owner, heartbeat_at_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(&id)
        .bind(DRAFT_TASK_ID)
        .bind(&new.name)
        .bind(TaskTrigger::Try.as_str())
        .bind(&new.device)
        .bind(TaskRunStatus::Running.as_str())
        .bind(new.started_at_ms)
        .bind(to_json(&new.variables))
        .bind(new.owner.as_deref())
        .bind(heartbeat)
        .execute(&self.pool)
        .await
        .map_err(insert_error)?;
        self.task_run(&id).await.map_err(InsertError::Store)
    }
}

/// The task id of every run of a draft (no stored task has it: theirs are UUIDs).
pub const DRAFT_TASK_ID: &str = "draft";

/// A failed run insert: the one-running index refused it, or the database failed.
fn insert_error(e: sqlx::Error) -> InsertError {
    if is_unique_violation(&e) {
        InsertError::Busy
    } else {
        InsertError::Store(db("recording a task run")(e))
    }
}

/// Why [`Store::insert_run`] did not insert.
enum InsertError {
    /// Another run of the task is running.
    Busy,
    /// Anything else.
    Store(StoreError),
}

fn no_run(run_id: &str) -> StoreError {
    StoreError::NotFound(format!("no task run has the id {run_id:?}"))
}

fn step_from_row(row: &AnyRow, run_id: &str) -> Result<TaskRunStep> {
    const READ: &str = "reading task run steps";
    let seq: i64 = column(row, "seq", READ)?;
    let what = |c: &str| format!("step {seq} of task run {run_id}, column {c}");
    let status: String = column(row, "status", READ)?;
    let matched = match column::<Option<String>>(row, "matched", READ)? {
        Some(json) => Some(from_json::<MatchedControl>(&what("matched"), &json)?),
        None => None,
    };
    let healed_from = match column::<Option<String>>(row, "healed_from", READ)? {
        Some(json) => Some(from_json::<Value>(&what("healed_from"), &json)?),
        None => None,
    };
    Ok(TaskRunStep {
        seq: from_db(&what("seq"), seq)?,
        path: column(row, "path", READ)?,
        step_type: column(row, "step_type", READ)?,
        status: StepStatus::from_name(&status).ok_or_else(|| StoreError::Corrupt {
            what: what("status"),
            cause: format!("unknown step status {status:?}"),
        })?,
        started_at_ms: column(row, "started_at_ms", READ)?,
        duration_ms: from_db(&what("duration_ms"), column(row, "duration_ms", READ)?)?,
        matched,
        healed_from,
        error: column(row, "error", READ)?,
        message: column(row, "message", READ)?,
        image_ids: from_json(
            &what("image_ids"),
            &column::<String>(row, "image_ids", READ)?,
        )?,
    })
}
