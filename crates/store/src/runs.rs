//! Agent runs and their event log: the console's replay source for SSE, also after a restart.

use sqlx::AssertSqlSafe;
use sqlx::any::AnyRow;

use crate::convert::{column, usage_from_row, usage_to_db};
use crate::error::{Result, StoreError, db, is_unique_violation};
use crate::event_log::{self, Log};
use crate::fence::{self, Fence, Written};
use crate::lookup;
use crate::{RunRecord, Store, Usage};
use deft_protocol::{DoneStatus, RunMode, RunStatus};

const RUN_COLUMNS: &str = "id, conversation_id, device, prompt, mode, status, answer, \
     prompt_tokens, completion_tokens, total_tokens, calls, started_at_ms, finished_at_ms, owner";

impl Store {
    /// Records a new run as given (normally with status [`RunStatus::Running`]).
    /// [`StoreError::Conflict`] when the id is taken.
    pub async fn create_run(&self, r: &RunRecord) -> Result<()> {
        let usage = usage_to_db(&r.usage)?;
        sqlx::query(
            "INSERT INTO runs (id, conversation_id, device, prompt, mode, status, answer, \
             prompt_tokens, completion_tokens, total_tokens, calls, started_at_ms, finished_at_ms, \
             owner) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        )
        .bind(&r.id)
        .bind(&r.conversation_id)
        .bind(&r.device)
        .bind(&r.prompt)
        .bind(r.mode.as_str())
        .bind(r.status.as_str())
        .bind(&r.answer)
        .bind(usage[0])
        .bind(usage[1])
        .bind(usage[2])
        .bind(usage[3])
        .bind(r.started_at_ms)
        .bind(r.finished_at_ms)
        .bind(&r.owner)
        .execute(&self.pool)
        .await
        .map_err(|e| {
            if is_unique_violation(&e) {
                StoreError::Conflict(format!("a run with id {:?} already exists", r.id))
            } else {
                db("recording a run")(e)
            }
        })?;
        Ok(())
    }

    /// Marks a run finished with its outcome. [`StoreError::NotFound`] for an unknown run.
    pub async fn finish_run(
        &self,
        run_id: &str,
        status: DoneStatus,
        answer: &str,
        usage: &Usage,
        finished_at_ms: i64,
    ) -> Result<()> {
        self.finish_run_as(None, run_id, status, answer, usage, finished_at_ms)
            .await
    }

    /// [`Store::finish_run`], refused under a stale `fence`.
    pub(crate) async fn finish_run_as(
        &self,
        fence: Option<&Fence>,
        run_id: &str,
        status: DoneStatus,
        answer: &str,
        usage: &Usage,
        finished_at_ms: i64,
    ) -> Result<()> {
        let usage = usage_to_db(usage)?;
        let mut tx = self.pool.begin().await.map_err(db("finishing a run"))?;
        fence::check(&mut tx, self.backend, fence, Written::Run(run_id)).await?;
        let done = sqlx::query(
            "UPDATE runs SET status = $2, answer = $3, prompt_tokens = $4, \
             completion_tokens = $5, total_tokens = $6, calls = $7, finished_at_ms = $8 \
             WHERE id = $1",
        )
        .bind(run_id)
        .bind(status.as_str())
        .bind(answer)
        .bind(usage[0])
        .bind(usage[1])
        .bind(usage[2])
        .bind(usage[3])
        .bind(finished_at_ms)
        .execute(&mut *tx)
        .await
        .map_err(db("finishing a run"))?;
        tx.commit().await.map_err(db("finishing a run"))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!(
                "cannot finish run {run_id:?}: no such run"
            )));
        }
        Ok(())
    }

    /// The run with this id.
    pub async fn run(&self, run_id: &str) -> Result<Option<RunRecord>> {
        let sql = format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = $1");
        lookup::optional(&self.pool, sql, run_id, "reading a run", run_from_row).await
    }

    /// Runs still marked [`RunStatus::Running`] (after a restart: the ones the restart cut off), oldest
    /// first.
    pub async fn unfinished_runs(&self) -> Result<Vec<RunRecord>> {
        let sql =
            format!("SELECT {RUN_COLUMNS} FROM runs WHERE status = $1 ORDER BY started_at_ms, id");
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(RunStatus::RUNNING)
            .fetch_all(&self.pool)
            .await
            .map_err(db("listing unfinished runs"))?;
        rows.iter().map(run_from_row).collect()
    }

    /// Makes `new_owner` the server of running run `run_id` if `owner` still is (`None`: a run
    /// recorded without one): of servers racing to end an abandoned run, exactly one gets
    /// `true` and ends it.
    pub async fn take_over_run(
        &self,
        run_id: &str,
        owner: Option<&str>,
        new_owner: &str,
    ) -> Result<bool> {
        fence::take_over(&self.pool, Written::Run(run_id), owner, new_owner).await
    }

    /// Appends `(seq, event JSON)` pairs to a run's log in one transaction. Idempotent on
    /// `(run_id, seq)`: re-appending an existing seq is ignored (the first text stays).
    /// [`StoreError::NotFound`] for an unknown run.
    pub async fn append_events(&self, run_id: &str, events: &[(u64, String)]) -> Result<()> {
        self.append_events_as(None, run_id, events).await
    }

    /// [`Store::append_events`], refused under a stale `fence`.
    pub(crate) async fn append_events_as(
        &self,
        fence: Option<&Fence>,
        run_id: &str,
        events: &[(u64, String)],
    ) -> Result<()> {
        event_log::append(&self.pool, self.backend, Log::Agent, run_id, events, fence).await
    }

    /// A run's events with `seq > after`, ascending.
    pub async fn events(&self, run_id: &str, after: u64) -> Result<Vec<(u64, String)>> {
        event_log::read(&self.pool, Log::Agent, run_id, after).await
    }

    /// The newest event of each of these runs that has one, as `(run id, event JSON)`: a
    /// finished run's `done` (what a conversation shows of its runs' typed results).
    pub async fn newest_events(&self, run_ids: &[String]) -> Result<Vec<(String, String)>> {
        event_log::newest(&self.pool, Log::Agent, run_ids).await
    }
}

fn run_from_row(row: &AnyRow) -> Result<RunRecord> {
    const READ: &str = "reading a run";
    let id: String = column(row, "id", READ)?;
    Ok(RunRecord {
        conversation_id: column(row, "conversation_id", READ)?,
        device: column(row, "device", READ)?,
        prompt: column(row, "prompt", READ)?,
        mode: run_mode(&column::<String>(row, "mode", READ)?, &id)?,
        status: run_status(&column::<String>(row, "status", READ)?, &id)?,
        answer: column(row, "answer", READ)?,
        usage: usage_from_row(row, &format!("run {id}"))?,
        started_at_ms: column(row, "started_at_ms", READ)?,
        finished_at_ms: column(row, "finished_at_ms", READ)?,
        owner: column(row, "owner", READ)?,
        id,
    })
}

/// A stored run mode, read back.
fn run_mode(name: &str, run_id: &str) -> Result<RunMode> {
    RunMode::from_name(name).ok_or_else(|| StoreError::Corrupt {
        what: format!("run {run_id}, column mode"),
        cause: format!("unknown run mode {name:?}"),
    })
}

/// A stored run status, read back.
fn run_status(name: &str, run_id: &str) -> Result<RunStatus> {
    RunStatus::from_name(name).ok_or_else(|| StoreError::Corrupt {
        what: format!("run {run_id}, column status"),
        cause: format!("unknown run status {name:?}"),
    })
}
