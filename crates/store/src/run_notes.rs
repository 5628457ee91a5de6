//! What memory did for each run: its notes (the `memory` event's body) in order — recalled at
//! the start, saved, merged or dropped after the end — so a conversation read later shows the
//! same cards as the live run.

use deft_protocol::memory::MemoryNote;
use sqlx::AssertSqlSafe;

use crate::Store;
use crate::convert::{column, from_json, to_json};
use crate::error::{Result, db, is_unique_violation};
use crate::select::placeholders;

/// Attempts to append when another writer took the same positions meanwhile.
const APPEND_ATTEMPTS: u32 = 5;

impl Store {
    /// Appends notes to a run's memory, after the ones it has.
    pub async fn append_run_notes(&self, run_id: &str, notes: &[MemoryNote]) -> Result<()> {
        if notes.is_empty() {
            return Ok(());
        }
        let action = "storing a run's memory notes";
        for attempt in 1..=APPEND_ATTEMPTS {
            // Each insert reads the next position and writes in one statement: SQLite takes
            // its write lock at once (waiting its busy timeout), and PostgreSQL writers that
            // raced for a position retry.
            let mut tx = self.pool.begin().await.map_err(db(action))?;
            let mut conflict = false;
            for note in notes {
                let inserted = sqlx::query(
                    "INSERT INTO run_memory (run_id, position, note) \
                     SELECT $1, COALESCE(MAX(position) + 1, 0), $2 FROM run_memory \
                     WHERE run_id = $1",
                )
                .bind(run_id)
                .bind(to_json(note))
                .execute(&mut *tx)
                .await;
                match inserted {
                    Ok(_) => {}
                    Err(e) if is_unique_violation(&e) && attempt < APPEND_ATTEMPTS => {
                        conflict = true;
                        break;
                    }
                    Err(e) => return Err(db(action)(e)),
                }
            }
            if !conflict {
                tx.commit().await.map_err(db(action))?;
                return Ok(());
            }
        }
        Ok(())
    }

    /// The memory notes of these runs, each run's in order: `(run_id, note)`.
    pub async fn run_notes(&self, run_ids: &[String]) -> Result<Vec<(String, MemoryNote)>> {
        const READ: &str = "reading runs' memory notes";
        let mut out = Vec::new();
        for chunk in run_ids.chunks(500) {
            let sql = format!(
                "SELECT run_id, position, note FROM run_memory WHERE run_id IN ({}) \
                 ORDER BY run_id, position",
                placeholders(1, chunk.len())
            );
            let mut q = sqlx::query(AssertSqlSafe(sql));
            for id in chunk {
                q = q.bind(id);
            }
            let rows = q.fetch_all(&self.pool).await.map_err(db(READ))?;
            for row in &rows {
                let run_id: String = column(row, "run_id", READ)?;
                let note: String = column(row, "note", READ)?;
                let note = from_json(&format!("run {run_id}, memory note"), &note)?;
                out.push((run_id, note));
            }
        }
        Ok(out)
    }
}
