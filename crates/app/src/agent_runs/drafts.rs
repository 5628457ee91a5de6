//! Designer mode's draft: the latest valid task draft a designer run ended with, kept in
//! `app_meta` as `agent_task_draft = {draft, warnings, prompt, created, run_id, device}` — one
//! only, replaced by the next, never a task until a person saves it.

use deft_protocol::DraftIssue;
use deft_store::{Store, StoreError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::app::now_ms;

/// The `app_meta` key of the kept draft.
pub const DRAFT_KEY: &str = "agent_task_draft";

/// The kept draft, as stored and as the console's `GET /api/agent/draft` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "TaskDraft"))]
#[schemars(rename = "TaskDraft")]
pub struct KeptDraft {
    /// The task file (valid when it was drafted).
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub draft: Value,
    /// What is suspect in it, at its paths.
    pub warnings: Vec<DraftIssue>,
    /// What the person asked for.
    pub prompt: String,
    /// When it was drafted (ISO-8601 UTC).
    pub created: String,
    /// The designer run that drafted it (its events show the exploration).
    pub run_id: String,
    /// The device it was explored on.
    pub device: String,
}

/// Keeps `draft` as the latest, replacing the one before.
pub async fn keep(store: &Store, draft: &KeptDraft) -> Result<(), StoreError> {
    let text = serde_json::to_string(draft).unwrap_or_default();
    store.set_meta(DRAFT_KEY, &text).await
}

/// A kept draft from what designer run `run_id` on `device` drafted for `prompt`.
pub fn drafted(
    draft: Value,
    warnings: Vec<DraftIssue>,
    prompt: &str,
    run_id: &str,
    device: &str,
) -> KeptDraft {
    KeptDraft {
        draft,
        warnings,
        prompt: prompt.to_owned(),
        created: deft_protocol::time::iso8601_ms(now_ms()),
        run_id: run_id.to_owned(),
        device: device.to_owned(),
    }
}

/// The kept draft, if any (an unreadable one counts as none, with a warning in the log).
pub async fn kept(store: &Store) -> Result<Option<KeptDraft>, StoreError> {
    let Some(text) = store.meta(DRAFT_KEY).await? else {
        return Ok(None);
    };
    match serde_json::from_str(&text) {
        Ok(d) => Ok(Some(d)),
        Err(e) => {
            tracing::warn!(error = %e, "the kept task draft is unreadable; it counts as none");
            Ok(None)
        }
    }
}
