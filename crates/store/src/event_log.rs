//! The event logs of runs — an agent run's (`run_events`) and a task run's
//! (`task_run_events`), one shape for both: `(seq, event JSON)` rows appended in one
//! transaction, idempotent on `(run, seq)`, read back in order after a seq. The console's
//! replay source, also after a restart.

use sqlx::{AnyPool, AssertSqlSafe};

use crate::Backend;
use crate::convert::{column, from_db, to_db};
use crate::error::{Result, StoreError, db, is_foreign_key_violation};
use crate::fence::{self, Fence, Written};
use crate::signals::{self, Channel};

/// Events per INSERT statement (3 bind values each, well under every backend's limit).
const EVENTS_PER_STATEMENT: usize = 300;

/// Which run's log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Log {
    /// An agent run's (`runs`).
    Agent,
    /// A task run's (`task_runs`).
    Task,
}

impl Log {
    fn table(self) -> &'static str {
        match self {
            Log::Agent => "run_events",
            Log::Task => "task_run_events",
        }
    }

    fn run(self) -> &'static str {
        match self {
            Log::Agent => "run",
            Log::Task => "task run",
        }
    }

    /// The run a write to this log of `run_id` is for.
    fn written(self, run_id: &str) -> Written<'_> {
        match self {
            Log::Agent => Written::Run(run_id),
            Log::Task => Written::TaskRun(run_id),
        }
    }
}

/// Appends `(seq, event JSON)` pairs to a run's log in one transaction. Re-appending an
/// existing seq is ignored (the first text stays). [`StoreError::NotFound`] for an unknown run,
/// [`StoreError::Fenced`] under a stale `fence`.
pub(crate) async fn append(
    pool: &AnyPool,
    backend: Backend,
    log: Log,
    run_id: &str,
    events: &[(u64, String)],
    fence: Option<&Fence>,
) -> Result<()> {
    if events.is_empty() {
        return Ok(());
    }
    let seqs = events
        .iter()
        .map(|(seq, _)| to_db("an event's seq", *seq))
        .collect::<Result<Vec<i64>>>()?;
    let not_found_or = |e: sqlx::Error| {
        if is_foreign_key_violation(&e) {
            StoreError::NotFound(format!(
                "cannot append events to {} {run_id:?}: no such {}",
                log.run(),
                log.run()
            ))
        } else {
            db("appending run events")(e)
        }
    };
    let mut tx = pool.begin().await.map_err(db("appending run events"))?;
    fence::check(&mut tx, backend, fence, log.written(run_id)).await?;
    signals::notify(&mut tx, backend, Channel::RunEvents, run_id).await?;
    for (chunk, chunk_seqs) in events
        .chunks(EVENTS_PER_STATEMENT)
        .zip(seqs.chunks(EVENTS_PER_STATEMENT))
    {
        let sql = insert_sql(log, chunk.len());
        let mut query = sqlx::query(AssertSqlSafe(sql));
        for ((_, data), seq) in chunk.iter().zip(chunk_seqs) {
            query = query.bind(run_id).bind(*seq).bind(data.as_str());
        }
        query.execute(&mut *tx).await.map_err(not_found_or)?;
    }
    tx.commit().await.map_err(not_found_or)?;
    Ok(())
}

/// A run's events with `seq > after`, ascending.
pub(crate) async fn read(
    pool: &AnyPool,
    log: Log,
    run_id: &str,
    after: u64,
) -> Result<Vec<(u64, String)>> {
    let Ok(after) = i64::try_from(after) else {
        return Ok(Vec::new()); // no stored seq is that large
    };
    let sql = format!(
        "SELECT seq, data FROM {} WHERE run_id = $1 AND seq > $2 ORDER BY seq",
        log.table()
    );
    let rows = sqlx::query(AssertSqlSafe(sql))
        .bind(run_id)
        .bind(after)
        .fetch_all(pool)
        .await
        .map_err(db("reading run events"))?;
    rows.iter()
        .map(|row| {
            let seq: i64 = column(row, "seq", "reading run events")?;
            let data: String = column(row, "data", "reading run events")?;
            Ok((from_db(&format!("event of run {run_id}"), seq)?, data))
        })
        .collect()
}

/// The newest event of each of `run_ids` that has one, as `(run id, event JSON)` (a finished
/// run's is its `done`).
pub(crate) async fn newest(
    pool: &AnyPool,
    log: Log,
    run_ids: &[String],
) -> Result<Vec<(String, String)>> {
    if run_ids.is_empty() {
        return Ok(Vec::new());
    }
    let marks: Vec<String> = (1..=run_ids.len()).map(|n| format!("${n}")).collect();
    let sql = format!(
        "SELECT e.run_id, e.data FROM {table} e JOIN \
         (SELECT run_id, MAX(seq) AS seq FROM {table} WHERE run_id IN ({marks}) GROUP BY run_id) m \
         ON e.run_id = m.run_id AND e.seq = m.seq",
        table = log.table(),
        marks = marks.join(", ")
    );
    let mut query = sqlx::query(AssertSqlSafe(sql));
    for id in run_ids {
        query = query.bind(id.as_str());
    }
    let rows = query
        .fetch_all(pool)
        .await
        .map_err(db("reading the newest run events"))?;
    rows.iter()
        .map(|row| {
            Ok((
                column(row, "run_id", "reading the newest run events")?,
                column(row, "data", "reading the newest run events")?,
            ))
        })
        .collect()
}

/// `INSERT … VALUES ($1, $2, $3), ($4, $5, $6), … ON CONFLICT DO NOTHING` for `rows` events.
fn insert_sql(log: Log, rows: usize) -> String {
    let mut sql = format!("INSERT INTO {} (run_id, seq, data) VALUES ", log.table());
    for i in 0..rows {
        let p = i * 3;
        if i > 0 {
            sql.push_str(", ");
        }
        sql.push_str(&format!("(${}, ${}, ${})", p + 1, p + 2, p + 3));
    }
    sql.push_str(" ON CONFLICT (run_id, seq) DO NOTHING");
    sql
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_sql_numbers_placeholders() {
        assert_eq!(
            insert_sql(Log::Agent, 2),
            "INSERT INTO run_events (run_id, seq, data) VALUES ($1, $2, $3), ($4, $5, $6) \
             ON CONFLICT (run_id, seq) DO NOTHING"
        );
        assert!(insert_sql(Log::Task, 1).starts_with("INSERT INTO task_run_events "));
    }
}
