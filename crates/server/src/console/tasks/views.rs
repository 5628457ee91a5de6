//! The task routes' response shapes (docs/console-api.md "Tasks"); `web/src/types.ts` is
//! generated from them with the console's other types.

use deft_app::task_language::ScheduleSpec;
use deft_app::task_language::{Issue, Report};
use deft_store::{
    BusyPolicy, MisfirePolicy, Schedule, ScheduleKind, StepCounts, TaskListing, TaskRun,
    TaskRunStatus, TaskRunStep, TaskTrigger,
};
use serde::Serialize;

use crate::console::rfc3339;

/// How many coming fire times a schedule view lists.
pub const NEXT_FIRES: usize = 3;

/// The validator's report: `{"valid", "errors": [{path, message, line?, column?}], "warnings"}`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct ValidationView(pub Report);

/// A task as listed.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "Task"))]
#[schemars(rename = "Task")]
pub struct TaskView {
    /// Task id.
    pub id: String,
    /// Its unique name.
    pub name: String,
    /// The device its runs use.
    pub device: String,
    /// Off: its schedules do not fire.
    pub enabled: bool,
    /// What its runs report as notifications.
    pub notify: NotifyView,
    /// Its folder (`""`: the top).
    pub folder: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// The number of its newest version.
    pub version: i64,
    /// How many schedules it has.
    pub schedule_count: u64,
    /// Its schedules in words, oldest first (the task list shows them).
    pub schedule_summaries: Vec<ScheduleSummary>,
    /// The earliest next fire of its enabled schedules (ISO-8601 UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub next_fire_at: Option<String>,
    /// Its most recent run.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub last_run: Option<TaskRunView>,
    /// Created (ISO-8601 UTC).
    pub created_at: String,
    /// Last changed (ISO-8601 UTC).
    pub updated_at: String,
}

impl From<&TaskListing> for TaskView {
    fn from(l: &TaskListing) -> Self {
        TaskView {
            id: l.task.id.clone(),
            name: l.task.name.clone(),
            device: l.task.device.clone(),
            enabled: l.task.enabled,
            notify: NotifyView::from(l.task.notify),
            folder: l.task.folder.clone(),
            tags: l.task.tags.clone(),
            version: l.task.version,
            schedule_count: l.schedule_count,
            schedule_summaries: l.schedules.iter().map(ScheduleSummary::from).collect(),
            next_fire_at: l.next_fire_at_ms.map(rfc3339),
            last_run: l.last_run.as_ref().map(TaskRunView::from),
            created_at: rfc3339(l.task.created_at_ms),
            updated_at: rfc3339(l.task.updated_at_ms),
        }
    }
}

/// What a task's runs report as notifications.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "TaskNotify"))]
#[schemars(rename = "TaskNotify")]
pub struct NotifyView {
    /// A run that fails, times out or is interrupted.
    pub on_failure: bool,
    /// A run that succeeds.
    pub on_success: bool,
    /// Each `notify` step a run carries out.
    pub on_notify_step: bool,
}

impl From<deft_store::TaskNotify> for NotifyView {
    fn from(n: deft_store::TaskNotify) -> Self {
        NotifyView {
            on_failure: n.on_failure,
            on_success: n.on_success,
            on_notify_step: n.on_notify_step,
        }
    }
}

/// A schedule as the task list shows it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ScheduleSummary"))]
#[schemars(rename = "ScheduleSummary")]
pub struct ScheduleSummary {
    /// Schedule id.
    pub id: String,
    /// When it fires, in words ("every 15 minutes").
    pub description: String,
    /// Off: it does not fire.
    pub enabled: bool,
}

impl From<&Schedule> for ScheduleSummary {
    fn from(s: &Schedule) -> Self {
        ScheduleSummary {
            id: s.id.clone(),
            description: deft_app::task_language::describe(&s.kind),
            enabled: s.enabled,
        }
    }
}

/// One task with its definition (the task file as stored) and its schedules.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "TaskDetail"))]
#[schemars(rename = "TaskDetail")]
pub struct TaskDetailView {
    /// The listing.
    #[serde(flatten)]
    pub task: TaskView,
    /// The task file.
    #[cfg_attr(test, ts(type = "unknown"))]
    pub definition: serde_json::Value,
    /// Its schedules, oldest first.
    pub schedules: Vec<ScheduleView>,
    /// What the validator found suspect when it was stored by this request (else empty).
    #[cfg_attr(test, ts(type = "Array<Issue>"))]
    pub warnings: Vec<Issue>,
}

impl TaskDetailView {
    /// The view of `listing`'s task with `schedules`; `report`'s warnings.
    pub fn new(listing: &TaskListing, schedules: &[Schedule], report: Report) -> Self {
        TaskDetailView {
            task: TaskView::from(listing),
            definition: serde_json::from_str(&listing.task.definition)
                .unwrap_or(serde_json::Value::Null),
            schedules: schedules.iter().map(ScheduleView::from).collect(),
            warnings: report.warnings,
        }
    }
}

/// A schedule of a task.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "Schedule"))]
#[schemars(rename = "Schedule")]
pub struct ScheduleView {
    /// Schedule id.
    pub id: String,
    /// Its task.
    pub task_id: String,
    /// `cron`, `every` or `once`.
    #[cfg_attr(test, ts(type = r#""cron" | "every" | "once""#))]
    pub kind: &'static str,
    /// The cron expression (cron).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub expr: Option<String>,
    /// The IANA time zone (cron).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub tz: Option<String>,
    /// The interval in seconds (every).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub seconds: Option<u64>,
    /// The moment (once, ISO-8601 UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub at: Option<String>,
    /// When it fires, in words ("every day at 03:47 (Europe/Berlin)").
    pub description: String,
    /// A missed fire: `run_once` or `skip`.
    #[cfg_attr(test, ts(type = r#""run_once" | "skip""#))]
    pub misfire: MisfirePolicy,
    /// A fire while the task runs or its device is busy: `wait` or `skip`.
    #[cfg_attr(test, ts(type = r#""wait" | "skip""#))]
    pub busy: BusyPolicy,
    /// Off: it does not fire.
    pub enabled: bool,
    /// The coming fires (ISO-8601 UTC), at most three; empty when nothing is due (off, a
    /// once schedule that fired).
    pub next_fires: Vec<String>,
    /// The last fire claimed (ISO-8601 UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub last_fire_at: Option<String>,
    /// Created (ISO-8601 UTC).
    pub created_at: String,
    /// Last changed by a person (ISO-8601 UTC).
    pub updated_at: String,
}

impl From<&Schedule> for ScheduleView {
    fn from(s: &Schedule) -> Self {
        let spec = ScheduleSpec::parse(&s.kind).ok();
        let mut next_fires = Vec::new();
        if let (Some(spec), Some(first)) = (&spec, s.next_fire_at_ms.filter(|_| s.enabled)) {
            let mut at = Some(first);
            while let Some(t) = at.filter(|_| next_fires.len() < NEXT_FIRES) {
                next_fires.push(rfc3339(t));
                at = spec.next_after(t);
            }
        }
        let (kind, expr, tz, seconds, at) = match &s.kind {
            ScheduleKind::Cron { expr, tz } => {
                ("cron", Some(expr.clone()), Some(tz.clone()), None, None)
            }
            ScheduleKind::Every { seconds } => ("every", None, None, Some(*seconds), None),
            ScheduleKind::Once { at_ms } => ("once", None, None, None, Some(rfc3339(*at_ms))),
        };
        ScheduleView {
            id: s.id.clone(),
            task_id: s.task_id.clone(),
            kind,
            expr,
            tz,
            seconds,
            at,
            description: deft_app::task_language::describe(&s.kind),
            misfire: s.misfire,
            busy: s.busy,
            enabled: s.enabled,
            next_fires,
            last_fire_at: s.last_fire_at_ms.map(rfc3339),
            created_at: rfc3339(s.created_at_ms),
            updated_at: rfc3339(s.updated_at_ms),
        }
    }
}

/// How many of a run's executed steps ended each way.
#[derive(Debug, Clone, Copy, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "StepCounts"))]
#[schemars(rename = "StepCounts")]
pub struct StepCountsView {
    /// Succeeded.
    pub ok: u64,
    /// Failed.
    pub failed: u64,
    /// Skipped.
    pub skipped: u64,
    /// Found their control only by the fuzzy fallback.
    pub healed: u64,
}

impl From<StepCounts> for StepCountsView {
    fn from(c: StepCounts) -> Self {
        StepCountsView {
            ok: c.ok,
            failed: c.failed,
            skipped: c.skipped,
            healed: c.healed,
        }
    }
}

/// A task run.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "TaskRun"))]
#[schemars(rename = "TaskRun")]
pub struct TaskRunView {
    /// Run id.
    pub id: String,
    /// Its task (which may since have been deleted).
    pub task_id: String,
    /// The task's name when it ran.
    pub task_name: String,
    /// What started it.
    #[cfg_attr(test, ts(type = "TaskTrigger"))]
    pub trigger: TaskTrigger,
    /// The schedule that fired.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub schedule_id: Option<String>,
    /// When that fire was due (ISO-8601 UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub fire_at: Option<String>,
    /// The device it ran on.
    pub device: String,
    /// Where it is, or how it ended.
    #[cfg_attr(test, ts(type = "TaskRunStatus"))]
    pub status: TaskRunStatus,
    /// Started (ISO-8601 UTC).
    pub started_at: String,
    /// Ended (ISO-8601 UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub ended_at: Option<String>,
    /// Why it failed, was stopped or skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub error: Option<String>,
    /// The variables it ran with.
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub variables: serde_json::Map<String, serde_json::Value>,
    /// Its executed steps by outcome.
    pub steps: StepCountsView,
    /// The version of the task it ran (none for a draft's try).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub task_version: Option<i64>,
}

impl From<&TaskRun> for TaskRunView {
    fn from(r: &TaskRun) -> Self {
        TaskRunView {
            id: r.id.clone(),
            task_id: r.task_id.clone(),
            task_name: r.task_name.clone(),
            trigger: r.trigger,
            schedule_id: r.schedule_id.clone(),
            fire_at: r.fire_at_ms.map(rfc3339),
            device: r.device.clone(),
            status: r.status,
            started_at: rfc3339(r.started_at_ms),
            ended_at: r.ended_at_ms.map(rfc3339),
            error: r.error.clone(),
            variables: r.variables.clone(),
            steps: r.steps.into(),
            task_version: r.task_version,
        }
    }
}

/// One executed step of a run.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "TaskRunStep"))]
#[schemars(rename = "TaskRunStep")]
pub struct TaskRunStepView {
    /// Execution order, from 0.
    pub seq: u64,
    /// Where the step is in the task (`steps[3].then[0]`).
    pub path: String,
    /// Its type.
    pub step_type: String,
    /// `ok`, `failed` or `skipped`.
    #[cfg_attr(test, ts(type = "StepStatus"))]
    #[schemars(with = "deft_protocol::task_run::StepStatus")]
    pub status: deft_store::StepStatus,
    /// Started (ISO-8601 UTC).
    pub started_at: String,
    /// How long it took.
    pub duration_ms: u64,
    /// The control it acted on: `{id, name, type, score, value?, tie?}` (steps stored before
    /// the type, value and tie were kept have an empty type and neither).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "MatchedControl"))]
    pub matched: Option<deft_store::MatchedControl>,
    /// The selector as written when only the fuzzy fallback found the control.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "unknown"))]
    pub healed_from: Option<serde_json::Value>,
    /// What went wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub error: Option<String>,
    /// What it had to say when it worked (a `notify` text, a loop's rounds, a wait's length).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub message: Option<String>,
    /// Screenshots kept with it (the task's `screenshots`), served at
    /// `/api/task-runs/{run id}/images/{image id}`.
    pub image_ids: Vec<String>,
}

impl From<&TaskRunStep> for TaskRunStepView {
    fn from(s: &TaskRunStep) -> Self {
        TaskRunStepView {
            seq: s.seq,
            path: s.path.clone(),
            step_type: s.step_type.clone(),
            status: s.status,
            started_at: rfc3339(s.started_at_ms),
            duration_ms: s.duration_ms,
            matched: s.matched.clone(),
            healed_from: s.healed_from.clone(),
            error: s.error.clone(),
            message: s.message.clone(),
            image_ids: s.image_ids.clone(),
        }
    }
}

/// `GET /api/task-runs/{id}`: a run with its executed steps.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "TaskRunDetail"))]
#[schemars(rename = "TaskRunDetail")]
pub struct TaskRunDetailView {
    /// The run.
    #[serde(flatten)]
    pub run: TaskRunView,
    /// Its executed steps, in order.
    pub step_results: Vec<TaskRunStepView>,
    /// The step running now (a running run).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub current_step: Option<deft_protocol::task_run::TaskStepStart>,
    /// The newest event's seq (0 before the first); the event stream continues after it.
    pub last_seq: u64,
}

#[cfg(test)]
pub(crate) mod ts_decls {
    //! The TypeScript declarations of the task views (the console's types test uses them).

    use ts_rs::{Config, TS};

    use super::*;

    fn union(names: impl Iterator<Item = &'static str>) -> String {
        names
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(" | ")
    }

    /// The declarations, in the order `types.ts` has them.
    pub fn declarations(cfg: &Config) -> Vec<String> {
        vec![
            "/** One problem the validator found, at its path. */\ntype Issue = { path: string, message: string, line?: number, column?: number, };".to_owned(),
            "/** The validator's report. */\ntype ValidationReport = { valid: boolean, errors: Array<Issue>, warnings: Array<Issue>, };".to_owned(),
            format!(
                "/** What started a task run. */\ntype TaskTrigger = {};",
                union(TaskTrigger::ALL.iter().map(|t| t.as_str()))
            ),
            format!(
                "/** Where a task run is, or how it ended. */\ntype TaskRunStatus = {};",
                union(TaskRunStatus::ALL.iter().map(|t| t.as_str()))
            ),
            StepCountsView::decl(cfg),
            TaskRunView::decl(cfg),
            TaskRunStepView::decl(cfg),
            TaskRunDetailView::decl(cfg),
            ScheduleView::decl(cfg),
            ScheduleSummary::decl(cfg),
            NotifyView::decl(cfg),
            TaskView::decl(cfg),
            TaskDetailView::decl(cfg),
        ]
    }
}
