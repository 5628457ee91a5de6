//! What a task run reports of each step (docs/tasks.md "Runs"): the `task_step_start` and
//! `task_step` events of the run's stream, which the console's monitor, the trace and the store
//! read. A task run's stream is an agent run's stream without model text: the tool calls a step
//! makes are `step_start` / `step` events as an agent's are, each step adds these two, and one
//! `done` ends it.

use serde::{Deserialize, Serialize};

/// How one step ended.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// It did what it says.
    Ok,
    /// It did not; `error` says why.
    Failed,
    /// It did not run: an `if_el` branch not taken, the steps after a stopping failure, a stop.
    Skipped,
}

impl StepStatus {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            StepStatus::Ok => "ok",
            StepStatus::Failed => "failed",
            StepStatus::Skipped => "skipped",
        }
    }
}

/// The control a step's selector picked.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MatchedControl {
    /// Its id in the device session.
    pub id: String,
    /// Its name when it matched.
    pub name: String,
    /// Its listed type (empty in records made before it was kept).
    #[serde(rename = "type", default)]
    pub kind: String,
    /// The match score, 1–100.
    pub score: u8,
    /// Its value when it matched (an edit's text, a display's "56"): what a person reads of a
    /// control without a name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub value: Option<String>,
    /// How a tie was broken when several controls matched equally well (`2 controls score
    /// 100; index 0 in document order picks id 7`): the step may have acted on another
    /// control than the one meant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub tie: Option<String>,
}

impl MatchedControl {
    /// What a person reads of it: its name, else its value (a display's "56"), else nothing.
    pub fn label(&self) -> &str {
        if self.name.is_empty() {
            self.value.as_deref().unwrap_or_default()
        } else {
            &self.name
        }
    }
}

/// A step is about to run.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TaskStepStart {
    /// Where the step is in the task: `steps[3]`, `steps[3].then[0]`; a loop's round is
    /// `steps[2].steps[0]#4` (round 4, from 1).
    pub path: String,
    /// The step type (`click`, `wait_el`, …).
    pub step_type: String,
    /// The step's `note`, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A step finished.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TaskStepResult {
    /// As in [`TaskStepStart::path`].
    pub path: String,
    /// The step type.
    pub step_type: String,
    /// How it ended.
    pub status: StepStatus,
    /// Wall time, tool calls included.
    pub duration_ms: u64,
    /// The control its selector picked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched: Option<MatchedControl>,
    /// The selector as written when it matched nothing and the fuzzy retry found `matched`
    /// instead: what drifted on the device (a renamed button).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub healed_from: Option<String>,
    /// Why it failed or was skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the step has to say when it worked: a `notify` text, a `mark_done` reason, the
    /// variable a clipboard read filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Ids of images the step kept (a screenshot at a failure).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_ids: Vec<String>,
}

/// A step's attempt failed and the step is tried again after `delay_ms` (its `retry`); the
/// step's `task_step` follows once an attempt works or the last one failed.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TaskStepRetry {
    /// As in [`TaskStepStart::path`].
    pub path: String,
    /// The step type.
    pub step_type: String,
    /// The attempt that failed, from 1.
    pub attempt: u32,
    /// How many attempts the step gets in all (`retry.times` + 1).
    pub attempts: u32,
    /// Why the attempt failed.
    pub error: String,
    /// The pause before the next attempt (a stop cuts it short).
    pub delay_ms: u64,
}

/// A `for_each` round is about to run: its number, and the variables it sets (an item's text
/// as `item`, an object's fields or a CSV row's columns as `row.Order`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TaskRound {
    /// The `for_each` step's path; its sub-steps' paths this round end in `#round`.
    pub path: String,
    /// The round, from 1.
    pub round: u32,
    /// How many rounds the loop has.
    pub rounds: u32,
    /// The round's variables and their values, by name.
    pub values: std::collections::BTreeMap<String, String>,
}

crate::named_enum! {
    /// What started a task run.
    TaskTrigger {
        /// A person, from the console or the CLI.
        Manual = "manual",
        /// A schedule fired.
        Schedule = "schedule",
        /// A program, through the API.
        Api = "api",
        /// A person trying designer mode's draft before saving it (the run's task is
        /// the store's draft task id).
        Try = "try",
    }
}

crate::named_enum! {
    /// Where a task run is, or how it ended.
    TaskRunStatus {
        /// Not finished yet.
        Running = "running",
        /// Every step that ran succeeded (or failed under `on_error: continue`).
        Ok = "ok",
        /// A step failed and stopped the run, or the run could not start.
        Failed = "failed",
        /// Someone stopped it, or a step ended it on purpose (`stop_self`).
        Stopped = "stopped",
        /// It never started: the task was busy or the fire was missed.
        Skipped = "skipped",
        /// It timed out (the task's `timeout_s`).
        TimedOut = "timed_out",
        /// A restart cut it off.
        Interrupted = "interrupted",
    }
}
