//! The audit of experiences: passes (one running at a time across servers), each review
//! (keep / delete + score + reason), and what reviews do to an experience's state — a delete
//! verdict only marks it `pending`; a `kept` experience is never marked again.

use sqlx::AssertSqlSafe;
use sqlx::any::AnyRow;

use crate::convert::{column, from_db, now_ms, to_db};
use crate::error::{Result, StoreError, db, is_unique_violation};
use crate::lookup;
use crate::select::{self, PageQuery};
use crate::{
    AuditRun, AuditState, AuditStatus, AuditTrigger, Decision, ExperienceReview, Page, Paged,
    Store, Verdict,
};

const AUDIT_COLUMNS: &str =
    "id, trigger_kind, status, started_at_ms, finished_at_ms, reviewed, suggested, error";

const REVIEW_COLUMNS: &str = "audit_id, experience_id, verdict, score, reason, created_at_ms, \
     decision, decided_at_ms";

impl Store {
    /// Records the start of an audit pass, unless one is running (on any server): `None` then.
    /// A pass running since before `stale_before_ms` is taken for dead (its server stopped
    /// mid-way) and recorded as failed first.
    pub async fn start_audit(
        &self,
        trigger: AuditTrigger,
        started_at_ms: i64,
        stale_before_ms: i64,
    ) -> Result<Option<AuditRun>> {
        let action = "starting an audit";
        sqlx::query(
            "UPDATE memory_audits SET status = $1, finished_at_ms = $2, error = $3 \
             WHERE status = 'running' AND started_at_ms < $4",
        )
        .bind(AuditStatus::Failed.as_str())
        .bind(started_at_ms)
        .bind("the server running this audit stopped before it finished")
        .bind(stale_before_ms)
        .execute(&self.pool)
        .await
        .map_err(db(action))?;
        let id = uuid::Uuid::new_v4().to_string();
        let inserted = sqlx::query(
            "INSERT INTO memory_audits (id, trigger_kind, status, started_at_ms, reviewed, \
             suggested) VALUES ($1, $2, $3, $4, 0, 0)",
        )
        .bind(&id)
        .bind(trigger.as_str())
        .bind(AuditStatus::Running.as_str())
        .bind(started_at_ms)
        .execute(&self.pool)
        .await;
        match inserted {
            Ok(_) => self.audit(&id).await.map(Some),
            Err(e) if is_unique_violation(&e) => Ok(None),
            Err(e) => Err(db(action)(e)),
        }
    }

    /// Records the end of an audit pass.
    pub async fn finish_audit(
        &self,
        id: &str,
        status: AuditStatus,
        reviewed: u64,
        suggested: u64,
        error: Option<&str>,
    ) -> Result<AuditRun> {
        let done = sqlx::query(
            "UPDATE memory_audits SET status = $2, finished_at_ms = $3, reviewed = $4, \
             suggested = $5, error = $6 WHERE id = $1",
        )
        .bind(id)
        .bind(status.as_str())
        .bind(now_ms())
        .bind(to_db("reviewed experiences", reviewed)?)
        .bind(to_db("suggested experiences", suggested)?)
        .bind(error)
        .execute(&self.pool)
        .await
        .map_err(db("finishing an audit"))?;
        if done.rows_affected() == 0 {
            return Err(no_audit(id));
        }
        self.audit(id).await
    }

    /// The audit pass with this id.
    pub async fn audit(&self, id: &str) -> Result<AuditRun> {
        let sql = format!("SELECT {AUDIT_COLUMNS} FROM memory_audits WHERE id = $1");
        lookup::optional(&self.pool, sql, id, "reading an audit", audit_from_row)
            .await?
            .ok_or_else(|| no_audit(id))
    }

    /// A page of audit passes, newest first.
    pub async fn audits(&self, page: Page) -> Result<Paged<AuditRun>> {
        let query = PageQuery {
            columns: AUDIT_COLUMNS,
            table: "memory_audits",
            cond: "1 = 1",
            order: "started_at_ms DESC, id DESC",
            params: &[],
        };
        select::page_of(&self.pool, &query, page, "listing audits", audit_from_row).await
    }

    /// Records the audit's review of one experience. A `delete` verdict marks the experience
    /// `pending` (a person decides); `keep` leaves its state. Either way the review's score and
    /// reason become the experience's latest. An experience a person kept is not touched (the
    /// review is not recorded): `false` then, and for an experience deleted meanwhile.
    pub async fn record_review(&self, review: &ExperienceReview) -> Result<bool> {
        let action = "recording an audit review";
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        let to_pending = review.verdict == Verdict::Delete;
        let done = sqlx::query(
            "UPDATE experiences SET audit_score = $2, audit_reason = $3, audited_at_ms = $4, \
             audit_state = CASE WHEN $5 = 1 THEN 'pending' ELSE audit_state END \
             WHERE id = $1 AND audit_state <> $6",
        )
        .bind(&review.experience_id)
        .bind(i64::from(review.score.min(100)))
        .bind(&review.reason)
        .bind(review.created_at_ms)
        .bind(i64::from(to_pending))
        .bind(AuditState::Kept.as_str())
        .execute(&mut *tx)
        .await
        .map_err(db(action))?;
        if done.rows_affected() == 0 {
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO experience_audits (audit_id, experience_id, verdict, score, reason, \
             created_at_ms) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&review.audit_id)
        .bind(&review.experience_id)
        .bind(review.verdict.as_str())
        .bind(i64::from(review.score.min(100)))
        .bind(&review.reason)
        .bind(review.created_at_ms)
        .execute(&mut *tx)
        .await
        .map_err(|e| {
            if is_unique_violation(&e) {
                StoreError::Conflict(format!(
                    "audit {} already reviewed experience {}",
                    review.audit_id, review.experience_id
                ))
            } else {
                db(action)(e)
            }
        })?;
        tx.commit().await.map_err(db(action))?;
        Ok(true)
    }

    /// Every review of an experience, newest first.
    pub async fn experience_reviews(&self, experience_id: &str) -> Result<Vec<ExperienceReview>> {
        let sql = format!(
            "SELECT {REVIEW_COLUMNS} FROM experience_audits WHERE experience_id = $1 \
             ORDER BY created_at_ms DESC, audit_id DESC"
        );
        let rows = sqlx::query(AssertSqlSafe(sql))
            .bind(experience_id)
            .fetch_all(&self.pool)
            .await
            .map_err(db("reading audit reviews"))?;
        rows.iter().map(review_from_row).collect()
    }
}

fn no_audit(id: &str) -> StoreError {
    StoreError::NotFound(format!("no audit has the id {id:?}"))
}

fn audit_from_row(row: &AnyRow) -> Result<AuditRun> {
    const READ: &str = "reading an audit";
    let id: String = column(row, "id", READ)?;
    let corrupt = |c: &str, v: &str| StoreError::Corrupt {
        what: format!("audit {id}, column {c}"),
        cause: format!("unknown value {v:?}"),
    };
    let trigger: String = column(row, "trigger_kind", READ)?;
    let status: String = column(row, "status", READ)?;
    Ok(AuditRun {
        trigger: AuditTrigger::from_name(&trigger)
            .ok_or_else(|| corrupt("trigger_kind", &trigger))?,
        status: AuditStatus::from_name(&status).ok_or_else(|| corrupt("status", &status))?,
        started_at_ms: column(row, "started_at_ms", READ)?,
        finished_at_ms: column(row, "finished_at_ms", READ)?,
        reviewed: from_db("reviewed", column(row, "reviewed", READ)?)?,
        suggested: from_db("suggested", column(row, "suggested", READ)?)?,
        error: column(row, "error", READ)?,
        id,
    })
}

fn review_from_row(row: &AnyRow) -> Result<ExperienceReview> {
    const READ: &str = "reading an audit review";
    let audit_id: String = column(row, "audit_id", READ)?;
    let corrupt = |c: &str, v: &str| StoreError::Corrupt {
        what: format!("review of audit {audit_id}, column {c}"),
        cause: format!("unknown value {v:?}"),
    };
    let verdict: String = column(row, "verdict", READ)?;
    let decision: Option<String> = column(row, "decision", READ)?;
    let score: i64 = column(row, "score", READ)?;
    Ok(ExperienceReview {
        experience_id: column(row, "experience_id", READ)?,
        verdict: Verdict::from_name(&verdict).ok_or_else(|| corrupt("verdict", &verdict))?,
        score: score.clamp(0, 100) as u8,
        reason: column(row, "reason", READ)?,
        created_at_ms: column(row, "created_at_ms", READ)?,
        decision: decision
            .map(|d| Decision::from_name(&d).ok_or_else(|| corrupt("decision", &d)))
            .transpose()?,
        decided_at_ms: column(row, "decided_at_ms", READ)?,
        audit_id,
    })
}
