//! The memory routes' response shapes (docs/console-api.md "Memory"); `web/src/types.ts` is
//! generated from them with the console's other types.

use std::collections::BTreeMap;

use deft_protocol::task_run::TaskStepResult;
use deft_store::{Action, AuditRun, Experience, ExperienceReview, Job, ScheduleKind};
use serde::Serialize;

use crate::console::rfc3339;

/// Where an experience stands with the audit: its state, and the latest review.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ExperienceAudit"))]
#[schemars(rename = "ExperienceAudit")]
pub struct AuditMarkView {
    /// `none`, `pending` (the audit suggests deleting it; a person decides) or `kept`.
    #[cfg_attr(test, ts(type = r#""none" | "pending" | "kept""#))]
    pub state: String,
    /// The latest review's score, 0–100.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub score: Option<u8>,
    /// The latest review's reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub reason: Option<String>,
    /// When it was last reviewed (ISO-8601 UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub audited_at: Option<String>,
}

/// An experience.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "Experience"))]
#[schemars(rename = "Experience")]
pub struct ExperienceView {
    /// Its id.
    pub id: String,
    /// The task it is for.
    pub task: String,
    /// Its title.
    pub title: String,
    /// The recipe.
    pub recipe: String,
    /// The run it was distilled (or last merged) from; absent when a person wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub source_run: Option<String>,
    /// How often it was recalled.
    pub hits: u64,
    /// Its last recall (ISO-8601 UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub last_used_at: Option<String>,
    /// The audit's mark.
    pub audit: AuditMarkView,
    /// Created (ISO-8601 UTC).
    pub created_at: String,
    /// Last changed (ISO-8601 UTC).
    pub updated_at: String,
}

impl From<&Experience> for ExperienceView {
    fn from(e: &Experience) -> Self {
        ExperienceView {
            id: e.id.clone(),
            task: e.task.clone(),
            title: e.title.clone(),
            recipe: e.recipe.clone(),
            source_run: e.source_run.clone(),
            hits: e.hits,
            last_used_at: e.last_used_at_ms.map(rfc3339),
            audit: AuditMarkView {
                state: e.audit_state.as_str().to_owned(),
                score: e.audit_score,
                reason: e.audit_reason.clone(),
                audited_at: e.audited_at_ms.map(rfc3339),
            },
            created_at: rfc3339(e.created_at_ms),
            updated_at: rfc3339(e.updated_at_ms),
        }
    }
}

/// One review of an experience by the audit, and a person's decision on it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ExperienceReview"))]
#[schemars(rename = "ExperienceReview")]
pub struct ReviewView {
    /// The audit pass.
    pub audit_id: String,
    /// `keep` or `delete`.
    #[cfg_attr(test, ts(type = r#""keep" | "delete""#))]
    pub verdict: String,
    /// 0–100.
    pub score: u8,
    /// Why.
    pub reason: String,
    /// When (ISO-8601 UTC).
    pub created_at: String,
    /// What a person did with a delete suggestion: `kept` or `deleted`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = r#""kept" | "deleted""#))]
    pub decision: Option<String>,
    /// When they did (ISO-8601 UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub decided_at: Option<String>,
}

impl From<&ExperienceReview> for ReviewView {
    fn from(r: &ExperienceReview) -> Self {
        ReviewView {
            audit_id: r.audit_id.clone(),
            verdict: r.verdict.as_str().to_owned(),
            score: r.score,
            reason: r.reason.clone(),
            created_at: rfc3339(r.created_at_ms),
            decision: r.decision.map(|d| d.as_str().to_owned()),
            decided_at: r.decided_at_ms.map(rfc3339),
        }
    }
}

/// An experience with its reviews, newest first.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ExperienceDetail"))]
#[schemars(rename = "ExperienceDetail")]
pub struct ExperienceDetailView {
    /// The experience.
    #[serde(flatten)]
    pub experience: ExperienceView,
    /// The audit's reviews of it.
    pub reviews: Vec<ReviewView>,
}

/// An action of the action library.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "LibraryAction"))]
#[schemars(rename = "LibraryAction")]
pub struct ActionView {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Other names.
    pub aliases: Vec<String>,
    /// What it does.
    pub description: String,
    /// The application it works in.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub app: Option<String>,
    /// Its variables and their defaults.
    pub variables: BTreeMap<String, String>,
    /// Its steps (the task step language, library mode).
    #[cfg_attr(test, ts(type = "Array<unknown>"))]
    pub steps: serde_json::Value,
    /// The run it was distilled (or last merged) from.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub source_run: Option<String>,
    /// How often it was recalled or run.
    pub hits: u64,
    /// Its last recall or run (ISO-8601 UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub last_used_at: Option<String>,
    /// Created (ISO-8601 UTC).
    pub created_at: String,
    /// Last changed (ISO-8601 UTC).
    pub updated_at: String,
}

impl From<&Action> for ActionView {
    fn from(a: &Action) -> Self {
        ActionView {
            id: a.id.clone(),
            name: a.name.clone(),
            aliases: a.aliases.clone(),
            description: a.description.clone(),
            app: a.app.clone(),
            variables: a.variables.clone(),
            steps: a.steps.clone(),
            source_run: a.source_run.clone(),
            hits: a.hits,
            last_used_at: a.last_used_at_ms.map(rfc3339),
            created_at: rfc3339(a.created_at_ms),
            updated_at: rfc3339(a.updated_at_ms),
        }
    }
}

/// How trying an action on a device went.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ActionTry"))]
#[schemars(rename = "ActionTry")]
pub struct ActionTryView {
    /// The action's name.
    pub action: String,
    /// Where the steps' images are: `/api/runs/{run_id}/images/{image_id}`.
    pub run_id: String,
    /// The device it ran on.
    pub device: String,
    /// Every step completed.
    pub completed: bool,
    /// A line per step, as `run_action` answers the model.
    pub text: String,
    /// Each step's result.
    pub steps: Vec<TaskStepResult>,
}

/// One audit pass.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "AuditRun"))]
#[schemars(rename = "AuditRun")]
pub struct AuditRunView {
    /// Its id.
    pub id: String,
    /// `schedule` or `manual`.
    #[cfg_attr(test, ts(type = r#""schedule" | "manual""#))]
    pub trigger: String,
    /// `running`, `ok` or `failed`.
    #[cfg_attr(test, ts(type = r#""running" | "ok" | "failed""#))]
    pub status: String,
    /// Started (ISO-8601 UTC).
    pub started_at: String,
    /// Ended (ISO-8601 UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub finished_at: Option<String>,
    /// Experiences reviewed.
    pub reviewed: u64,
    /// Of those, suggested for deletion.
    pub suggested: u64,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub error: Option<String>,
}

impl From<&AuditRun> for AuditRunView {
    fn from(r: &AuditRun) -> Self {
        AuditRunView {
            id: r.id.clone(),
            trigger: r.trigger.as_str().to_owned(),
            status: r.status.as_str().to_owned(),
            started_at: rfc3339(r.started_at_ms),
            finished_at: r.finished_at_ms.map(rfc3339),
            reviewed: r.reviewed,
            suggested: r.suggested,
            error: r.error.clone(),
        }
    }
}

/// When the daily audit runs.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "AuditSchedule"))]
#[schemars(rename = "AuditSchedule")]
pub struct AuditScheduleView {
    /// The cron expression (5 fields).
    pub cron: String,
    /// Its IANA time zone (the server's by default).
    pub tz: String,
    /// Whether it fires.
    pub enabled: bool,
    /// The next fire (ISO-8601 UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub next_fire_at: Option<String>,
    /// In words ("every day at 03:47 (Europe/Berlin)").
    pub description: String,
}

impl From<&Job> for AuditScheduleView {
    fn from(j: &Job) -> Self {
        let (cron, tz) = match &j.kind {
            ScheduleKind::Cron { expr, tz } => (expr.clone(), tz.clone()),
            other => (String::new(), deft_app::task_language::describe(other)),
        };
        AuditScheduleView {
            cron,
            tz,
            enabled: j.enabled,
            next_fire_at: j.next_fire_at_ms.filter(|_| j.enabled).map(rfc3339),
            description: deft_app::task_language::describe(&j.kind),
        }
    }
}

/// `GET /api/memory/audit`: the running pass, the last finished one, the schedule.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "AuditState"))]
#[schemars(rename = "AuditState")]
pub struct AuditStateView {
    /// The pass under way, if any.
    pub running: Option<AuditRunView>,
    /// The newest finished pass.
    pub last: Option<AuditRunView>,
    /// When the daily audit runs.
    pub schedule: AuditScheduleView,
}

#[cfg(test)]
pub(crate) mod ts_decls {
    //! The TypeScript declarations of the memory views (the console's types test uses them).

    use ts_rs::{Config, TS};

    use super::*;

    /// The declarations, in the order `types.ts` has them.
    pub fn declarations(cfg: &Config) -> Vec<String> {
        vec![
            AuditMarkView::decl(cfg),
            ExperienceView::decl(cfg),
            ReviewView::decl(cfg),
            ExperienceDetailView::decl(cfg),
            ActionView::decl(cfg),
            ActionTryView::decl(cfg),
            AuditRunView::decl(cfg),
            AuditScheduleView::decl(cfg),
            AuditStateView::decl(cfg),
        ]
    }
}
