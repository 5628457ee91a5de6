//! The audit (seed 001 §4.3): the model reviews each experience not kept by a person — keep or
//! suggest deleting it, a score and a reason — in batches, reasoning off, its answer read
//! truncation tolerant; an answer with no review of an entry shown is asked again once, saying
//! why, and then fails the pass with the reason. A suggestion only marks the experience `pending`; a person deletes it or
//! keeps it (kept: never suggested again). One audit at a time across servers (the store's
//! claim); the daily run is the job [`AUDIT_JOB`] on the scheduler.

use deft_agent::llm::LlmClient;
use deft_store::{
    AuditRun, AuditState, AuditStatus, AuditTrigger, Experience, ExperienceFilter,
    ExperienceReview, Page, StoreError, Verdict,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::model::{Answer, Question};
use crate::trajectory::cut;
use crate::{Memory, texts};
use deft_agent::answer::salvage;

/// The job name of the daily audit on the scheduler.
pub const AUDIT_JOB: &str = "experience_audit";

/// When the audit runs unless a person changes it: daily at 03:47, server time.
pub const DEFAULT_AUDIT_CRON: &str = "47 3 * * *";

/// Characters of a recipe shown to the reviewer.
const RECIPE_CHARS: usize = 800;
/// Characters of a review's reason kept.
const REASON_CHARS: usize = 300;

/// Why an audit did not run or did not finish.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// Another audit is running (here or on another server).
    #[error("an audit is already running")]
    Busy,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Memory {
    /// Records the start of an audit pass (`Busy` when one runs); [`Memory::audit`] runs it.
    pub async fn start_audit(
        &self,
        trigger: AuditTrigger,
        now_ms: i64,
    ) -> Result<AuditRun, AuditError> {
        let stale = i64::try_from(self.config().audit_stale.as_millis()).unwrap_or(i64::MAX);
        self.store()
            .start_audit(trigger, now_ms, now_ms.saturating_sub(stale))
            .await?
            .ok_or(AuditError::Busy)
    }

    /// Runs a started audit pass to its end with `llm` (`None`: no model configured, the pass
    /// fails saying so) and records how it went.
    pub async fn audit(
        &self,
        run: &AuditRun,
        llm: Option<&LlmClient>,
        now_ms: i64,
        cancel: &CancellationToken,
    ) -> Result<AuditRun, StoreError> {
        let Some(llm) = llm else {
            tracing::warn!(audit = %run.id, "{}", texts::AUDIT_NO_MODEL);
            return self
                .store()
                .finish_audit(
                    &run.id,
                    AuditStatus::Failed,
                    0,
                    0,
                    Some(texts::AUDIT_NO_MODEL),
                )
                .await;
        };
        let entries = self.to_review().await?;
        let (mut reviewed, mut suggested) = (0u64, 0u64);
        for batch in entries.chunks(self.config().audit_batch.max(1)) {
            match self.review_batch(run, llm, batch, now_ms, cancel).await {
                Ok((r, s)) => {
                    reviewed += r;
                    suggested += s;
                }
                Err(why) => {
                    tracing::warn!(audit = %run.id, reviewed, %why, "the audit stopped");
                    return self
                        .store()
                        .finish_audit(
                            &run.id,
                            AuditStatus::Failed,
                            reviewed,
                            suggested,
                            Some(&why),
                        )
                        .await;
                }
            }
        }
        tracing::info!(audit = %run.id, reviewed, suggested, "audit finished");
        self.store()
            .finish_audit(&run.id, AuditStatus::Ok, reviewed, suggested, None)
            .await
    }

    /// Every experience in state `none` (pending ones wait for a person, kept ones are done),
    /// oldest first.
    async fn to_review(&self) -> Result<Vec<Experience>, StoreError> {
        let filter = ExperienceFilter {
            audit_state: Some(AuditState::None),
            text: None,
        };
        let mut out = Vec::new();
        loop {
            let page = Page {
                limit: deft_store::MAX_PAGE,
                offset: out.len() as u64,
            };
            let got = self.store().experiences(&filter, page).await?;
            let n = got.items.len();
            out.extend(got.items);
            if n == 0 || out.len() as u64 >= got.total {
                out.sort_by(|a, b| (a.created_at_ms, &a.id).cmp(&(b.created_at_ms, &b.id)));
                return Ok(out);
            }
        }
    }

    /// One model call over a batch; its reviews recorded. `(reviewed, suggested)`, or why the
    /// call brought nothing.
    async fn review_batch(
        &self,
        run: &AuditRun,
        llm: &LlmClient,
        batch: &[Experience],
        now_ms: i64,
        cancel: &CancellationToken,
    ) -> Result<(u64, u64), String> {
        let entries: Vec<(String, String, String, u64)> = batch
            .iter()
            .map(|e| {
                (
                    e.title.clone(),
                    e.task.clone(),
                    cut(&e.recipe, RECIPE_CHARS),
                    e.hits,
                )
            })
            .collect();
        let question = Question {
            system: texts::AUDIT_SYSTEM,
            user: &texts::audit_request(&entries),
            shape: texts::AUDIT_SHAPE,
        };
        let reviews = self
            .ask_usable(llm, &question, cancel, |a| read_reviews(a, batch.len()))
            .await
            .map_err(|e| e.0)?;
        let (mut reviewed, mut suggested) = (0, 0);
        let mut seen = vec![false; batch.len()];
        for (n, review) in reviews {
            seen[n] = true;
            let review = ExperienceReview {
                audit_id: run.id.clone(),
                experience_id: batch[n].id.clone(),
                created_at_ms: now_ms,
                ..review
            };
            match self.store().record_review(&review).await {
                Ok(true) => {
                    reviewed += 1;
                    suggested += u64::from(review.verdict == Verdict::Delete);
                }
                Ok(false) => {}
                Err(e) => return Err(texts::store_failed(&e.to_string())),
            }
        }
        for (n, _) in seen.iter().enumerate().filter(|(_, s)| !**s) {
            tracing::warn!(audit = %run.id, experience = %batch[n].id, "{}", texts::review_missing(n + 1));
        }
        Ok((reviewed, suggested))
    }
}

/// The reviews of an audit answer over `entries` entries: each entry's first valid review, by
/// its index. `Err`: why the answer is unusable — no JSON, no reviews, or none of an entry shown
/// (a cut-off answer keeps the reviews it completed).
fn read_reviews(answer: &Answer, entries: usize) -> Result<Vec<(usize, ExperienceReview)>, String> {
    let salvaged = salvage(&answer.text).ok_or_else(|| texts::NOT_JSON.to_owned())?;
    let objects = salvaged.objects("reviews");
    let reviewish = |o: &Value| o.get("n").is_some() || o.get("verdict").is_some();
    if !objects.iter().any(reviewish) {
        return Err(texts::NO_REVIEWS.to_owned());
    }
    let mut seen = vec![false; entries];
    let reviews: Vec<(usize, ExperienceReview)> = objects
        .iter()
        .filter_map(|r| read_review(r, entries))
        .filter(|(n, _)| !std::mem::replace(&mut seen[*n], true))
        .collect();
    if reviews.is_empty() {
        return Err(texts::no_review_of_an_entry(entries));
    }
    Ok(reviews)
}

/// A review object: its entry's index (from the 1-based `n`) and the review (ids unset).
fn read_review(v: &Value, entries: usize) -> Option<(usize, ExperienceReview)> {
    let n = v.get("n").and_then(Value::as_u64)? as usize;
    if n == 0 || n > entries {
        return None;
    }
    let verdict = match v.get("verdict").and_then(Value::as_str)?.trim() {
        "keep" => Verdict::Keep,
        "delete" => Verdict::Delete,
        _ => return None,
    };
    let score = v
        .get("score")
        .and_then(Value::as_f64)
        .map_or(50, |s| s.clamp(0.0, 100.0).round() as u8);
    let reason = v
        .get("reason")
        .and_then(Value::as_str)
        .map(|r| cut(r.trim(), REASON_CHARS))
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| texts::NO_REASON.to_owned());
    Some((
        n - 1,
        ExperienceReview {
            audit_id: String::new(),
            experience_id: String::new(),
            verdict,
            score,
            reason,
            created_at_ms: 0,
            decision: None,
            decided_at_ms: None,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reviews_are_read_leniently_and_bad_ones_passed_over() {
        let (n, r) = read_review(
            &json!({"n": 2, "verdict": "delete", "score": 12.6, "reason": " vague "}),
            3,
        )
        .unwrap();
        assert_eq!(
            (n, r.verdict, r.score, r.reason.as_str()),
            (1, Verdict::Delete, 13, "vague")
        );
        let (_, r) = read_review(&json!({"n": 1, "verdict": "keep", "score": 400}), 3).unwrap();
        assert_eq!((r.score, r.reason.as_str()), (100, "no reason given"));
        assert!(read_review(&json!({"n": 4, "verdict": "keep"}), 3).is_none());
        assert!(read_review(&json!({"n": 0, "verdict": "keep"}), 3).is_none());
        assert!(read_review(&json!({"n": 1, "verdict": "maybe"}), 3).is_none());
        assert!(read_review(&json!({"verdict": "keep"}), 3).is_none());
    }
}
