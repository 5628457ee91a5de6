//! Retention: the ended task runs started before a moment, listed (their images go) or removed
//! with their steps and events. A running run is never touched.

use sqlx::{AssertSqlSafe, Row};

use crate::error::{Result, db};
use crate::{Store, TaskRunStatus};

/// The condition of the runs a retention pass may touch: ended, started before `$1`.
const OLD_ENDED: &str = "started_at_ms < $1 AND status <> $2";

impl Store {
    /// The ids of the ended runs started before `before_ms` (the runs whose images a retention
    /// pass removes).
    pub async fn ended_task_runs_before(&self, before_ms: i64) -> Result<Vec<String>> {
        let sql = format!("SELECT id FROM task_runs WHERE {OLD_ENDED} ORDER BY started_at_ms, id");
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(before_ms)
            .bind(TaskRunStatus::Running.as_str())
            .fetch_all(&self.pool)
            .await
            .map_err(db("listing old task runs"))?;
        rows.iter()
            .map(|r| r.try_get::<String, _>("id"))
            .collect::<std::result::Result<_, _>>()
            .map_err(db("listing old task runs"))
    }

    /// Removes the ended runs started before `before_ms` with their steps and events, in one
    /// transaction; the ids it removed (their trace folders are the caller's).
    pub async fn purge_task_runs_before(&self, before_ms: i64) -> Result<Vec<String>> {
        let action = "removing old task runs";
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        // A write first: on SQLite a transaction that reads before it writes cannot take the
        // write lock once another connection has written since its read (SQLITE_BUSY at once,
        // no waiting), which a busy server's heartbeats do all the time.
        for table in ["task_run_steps", "task_run_events"] {
            let sql = format!(
                "DELETE FROM {table} WHERE run_id IN (SELECT id FROM task_runs WHERE {OLD_ENDED})"
            );
            sqlx::query(AssertSqlSafe(sql))
                .bind(before_ms)
                .bind(TaskRunStatus::Running.as_str())
                .execute(&mut *tx)
                .await
                .map_err(db(action))?;
        }
        let sql = format!("SELECT id FROM task_runs WHERE {OLD_ENDED} ORDER BY started_at_ms, id");
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(before_ms)
            .bind(TaskRunStatus::Running.as_str())
            .fetch_all(&mut *tx)
            .await
            .map_err(db(action))?;
        let ids = rows
            .iter()
            .map(|r| r.try_get::<String, _>("id"))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(db(action))?;
        let sql = format!("DELETE FROM task_runs WHERE {OLD_ENDED}");
        sqlx::query(AssertSqlSafe(sql))
            .bind(before_ms)
            .bind(TaskRunStatus::Running.as_str())
            .execute(&mut *tx)
            .await
            .map_err(db(action))?;
        tx.commit().await.map_err(db(action))?;
        Ok(ids)
    }
}
