//! Experiences: create, read, list (filtered, paged), edit, delete (a person's decision),
//! keep; the recall keys and the hit counter; and the generation that tells each server when
//! its recall index is stale.

use sqlx::AssertSqlSafe;
use sqlx::any::AnyRow;

use crate::convert::{column, from_db, now_ms};
use crate::error::{Result, StoreError, db};
use crate::lookup;
use crate::select::{self, PageQuery, like_pattern, placeholders};
use crate::{
    AuditState, Decision, Experience, ExperienceFilter, ExperienceKey, NewExperience, Page, Paged,
    Store,
};

pub(crate) const EXPERIENCE_COLUMNS: &str = "id, task, title, recipe, source_run, hits, \
     last_used_at_ms, audit_state, audit_score, audit_reason, audited_at_ms, created_at_ms, \
     updated_at_ms";

impl Store {
    /// Stores a new experience (audit state `none`). [`StoreError::Invalid`] for a blank task,
    /// title or recipe.
    pub async fn create_experience(&self, new: &NewExperience) -> Result<Experience> {
        check_experience(new)?;
        let action = "creating an experience";
        let id = uuid::Uuid::new_v4().to_string();
        let now = now_ms();
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        sqlx::query(
            "INSERT INTO experiences (id, task, title, recipe, source_run, hits, audit_state, \
             created_at_ms, updated_at_ms) VALUES ($1, $2, $3, $4, $5, 0, $6, $7, $7)",
        )
        .bind(&id)
        .bind(&new.task)
        .bind(&new.title)
        .bind(&new.recipe)
        .bind(new.source_run.as_deref())
        .bind(AuditState::None.as_str())
        .bind(now)
        .execute(&mut *tx)
        .await
        .map_err(db(action))?;
        bump_generation(&mut tx).await?;
        tx.commit().await.map_err(db(action))?;
        self.experience(&id).await
    }

    /// The experience with this id; [`StoreError::NotFound`] when there is none.
    pub async fn experience(&self, id: &str) -> Result<Experience> {
        let sql = format!("SELECT {EXPERIENCE_COLUMNS} FROM experiences WHERE id = $1");
        lookup::optional(
            &self.pool,
            sql,
            id,
            "reading an experience",
            experience_from_row,
        )
        .await?
        .ok_or_else(|| no_experience(id))
    }

    /// The experiences with these ids that exist, in no particular order.
    pub async fn experiences_by_ids(&self, ids: &[String]) -> Result<Vec<Experience>> {
        select::by_ids(
            &self.pool,
            EXPERIENCE_COLUMNS,
            "experiences",
            ids,
            "reading experiences",
            experience_from_row,
        )
        .await
    }

    /// A page of experiences, most recently changed first.
    pub async fn experiences(
        &self,
        filter: &ExperienceFilter,
        page: Page,
    ) -> Result<Paged<Experience>> {
        let pattern = filter.text.as_deref().map(like_pattern);
        let query = PageQuery {
            columns: EXPERIENCE_COLUMNS,
            table: "experiences",
            cond: "($1 IS NULL OR audit_state = $1) AND ($2 IS NULL OR \
                   LOWER(task) LIKE $2 ESCAPE '\\' OR LOWER(title) LIKE $2 ESCAPE '\\' \
                   OR LOWER(recipe) LIKE $2 ESCAPE '\\')",
            order: "updated_at_ms DESC, id",
            params: &[
                filter.audit_state.map(AuditState::as_str),
                pattern.as_deref(),
            ],
        };
        select::page_of(
            &self.pool,
            &query,
            page,
            "listing experiences",
            experience_from_row,
        )
        .await
    }

    /// Replaces an experience's task, title, recipe and source. `clear_pending`: a pending
    /// deletion suggestion no longer applies (the recipe was replaced by a newer one) and the
    /// entry goes back to `none`; a `kept` entry stays kept. [`StoreError::NotFound`] for an
    /// unknown id.
    pub async fn update_experience(
        &self,
        id: &str,
        new: &NewExperience,
        clear_pending: bool,
    ) -> Result<Experience> {
        check_experience(new)?;
        let action = "updating an experience";
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        let done = sqlx::query(
            "UPDATE experiences SET task = $2, title = $3, recipe = $4, source_run = $5, \
             updated_at_ms = $6, \
             audit_state = CASE WHEN $7 = 1 AND audit_state = 'pending' THEN 'none' \
             ELSE audit_state END WHERE id = $1",
        )
        .bind(id)
        .bind(&new.task)
        .bind(&new.title)
        .bind(&new.recipe)
        .bind(new.source_run.as_deref())
        .bind(now_ms())
        .bind(i64::from(clear_pending))
        .execute(&mut *tx)
        .await
        .map_err(db(action))?;
        if done.rows_affected() == 0 {
            return Err(no_experience(id));
        }
        bump_generation(&mut tx).await?;
        tx.commit().await.map_err(db(action))?;
        self.experience(id).await
    }

    /// Deletes an experience — only ever on a person's word (the audit only suggests). A
    /// pending suggestion is recorded as decided `deleted`. [`StoreError::NotFound`] for an
    /// unknown id.
    pub async fn delete_experience(&self, id: &str) -> Result<()> {
        let action = "deleting an experience";
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        decide(&mut tx, id, Decision::Deleted).await?;
        let done = sqlx::query("DELETE FROM experiences WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db(action))?;
        if done.rows_affected() == 0 {
            return Err(no_experience(id));
        }
        bump_generation(&mut tx).await?;
        tx.commit().await.map_err(db(action))?;
        Ok(())
    }

    /// A person keeps an experience: its state becomes `kept` (the audit never suggests it
    /// again) and a pending suggestion is recorded as decided `kept`. [`StoreError::NotFound`]
    /// for an unknown id.
    pub async fn keep_experience(&self, id: &str) -> Result<Experience> {
        let action = "keeping an experience";
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        let done = sqlx::query("UPDATE experiences SET audit_state = $2 WHERE id = $1")
            .bind(id)
            .bind(AuditState::Kept.as_str())
            .execute(&mut *tx)
            .await
            .map_err(db(action))?;
        if done.rows_affected() == 0 {
            return Err(no_experience(id));
        }
        decide(&mut tx, id, Decision::Kept).await?;
        tx.commit().await.map_err(db(action))?;
        self.experience(id).await
    }

    /// What recall compares, for every experience.
    pub async fn experience_keys(&self) -> Result<Vec<ExperienceKey>> {
        const READ: &str = "reading the experience keys";
        let rows = sqlx::query("SELECT id, task, title FROM experiences ORDER BY id")
            .fetch_all(&self.pool)
            .await
            .map_err(db(READ))?;
        rows.iter()
            .map(|r| {
                Ok(ExperienceKey {
                    id: column(r, "id", READ)?,
                    task: column(r, "task", READ)?,
                    title: column(r, "title", READ)?,
                })
            })
            .collect()
    }

    /// Counts a recall of these experiences: one hit each, last used at `at_ms`. Unknown ids
    /// are passed over.
    pub async fn record_experience_hits(&self, ids: &[String], at_ms: i64) -> Result<()> {
        record_hits(self, "experiences", ids, at_ms).await
    }

    /// The recall generation: it grows with every change to what recall compares.
    pub async fn memory_generation(&self) -> Result<u64> {
        let g: i64 = sqlx::query_scalar("SELECT generation FROM memory_generation WHERE id = 1")
            .fetch_one(&self.pool)
            .await
            .map_err(db("reading the memory generation"))?;
        from_db("the memory generation", g)
    }
}

/// One hit and `last_used_at_ms` for each of `ids` in `table` (`experiences` or `actions`).
pub(crate) async fn record_hits(
    store: &Store,
    table: &'static str,
    ids: &[String],
    at_ms: i64,
) -> Result<()> {
    for chunk in ids.chunks(500) {
        let sql = format!(
            "UPDATE {table} SET hits = hits + 1, last_used_at_ms = $1 WHERE id IN ({})",
            placeholders(2, chunk.len())
        );
        let mut q = sqlx::query(AssertSqlSafe(sql)).bind(at_ms);
        for id in chunk {
            q = q.bind(id);
        }
        q.execute(&store.pool)
            .await
            .map_err(db("counting memory hits"))?;
    }
    Ok(())
}

/// Records a person's decision on an experience's undecided delete suggestions.
async fn decide(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    experience_id: &str,
    decision: Decision,
) -> Result<()> {
    sqlx::query(
        "UPDATE experience_audits SET decision = $2, decided_at_ms = $3 \
         WHERE experience_id = $1 AND verdict = 'delete' AND decision IS NULL",
    )
    .bind(experience_id)
    .bind(decision.as_str())
    .bind(now_ms())
    .execute(&mut **tx)
    .await
    .map_err(db("recording a decision on an audit suggestion"))?;
    Ok(())
}

/// Moves the recall generation on (in the caller's transaction).
pub(crate) async fn bump_generation(tx: &mut sqlx::Transaction<'_, sqlx::Any>) -> Result<()> {
    sqlx::query("UPDATE memory_generation SET generation = generation + 1 WHERE id = 1")
        .execute(&mut **tx)
        .await
        .map_err(db("moving the memory generation on"))?;
    Ok(())
}

fn check_experience(new: &NewExperience) -> Result<()> {
    for (field, value) in [
        ("task", &new.task),
        ("title", &new.title),
        ("recipe", &new.recipe),
    ] {
        if value.trim().is_empty() {
            return Err(StoreError::Invalid(format!(
                "an experience needs a {field}"
            )));
        }
    }
    Ok(())
}

fn no_experience(id: &str) -> StoreError {
    StoreError::NotFound(format!("no experience has the id {id:?}"))
}

pub(crate) fn experience_from_row(row: &AnyRow) -> Result<Experience> {
    const READ: &str = "reading an experience";
    let id: String = column(row, "id", READ)?;
    let state: String = column(row, "audit_state", READ)?;
    let audit_state = AuditState::from_name(&state).ok_or_else(|| StoreError::Corrupt {
        what: format!("experience {id}, column audit_state"),
        cause: format!("unknown audit state {state:?}"),
    })?;
    let score: Option<i64> = column(row, "audit_score", READ)?;
    Ok(Experience {
        task: column(row, "task", READ)?,
        title: column(row, "title", READ)?,
        recipe: column(row, "recipe", READ)?,
        source_run: column(row, "source_run", READ)?,
        hits: from_db(
            &format!("experience {id}, hits"),
            column(row, "hits", READ)?,
        )?,
        last_used_at_ms: column(row, "last_used_at_ms", READ)?,
        audit_state,
        audit_score: score.map(|s| s.clamp(0, 100) as u8),
        audit_reason: column(row, "audit_reason", READ)?,
        audited_at_ms: column(row, "audited_at_ms", READ)?,
        created_at_ms: column(row, "created_at_ms", READ)?,
        updated_at_ms: column(row, "updated_at_ms", READ)?,
        id,
    })
}
