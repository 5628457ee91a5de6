//! One task run as a row: the columns a query selects and the reader that turns them into a
//! [`TaskRun`], shared by the run records and the run history.

use serde_json::{Map, Value};
use sqlx::any::AnyRow;

use crate::convert::{column, from_db, from_json};
use crate::error::{Result, StoreError};
use crate::select::prefixed;
use crate::{StepCounts, TaskRun, TaskRunStatus, TaskTrigger};

/// The columns of `task_runs` that [`task_run_from_row`] reads, in one list for every query.
pub(crate) const RUN_COLUMNS: &str = "id, task_id, task_name, triggered_by, schedule_id, fire_at_ms, device, \
     status, started_at_ms, ended_at_ms, error, variables, steps_ok, steps_failed, steps_skipped, \
     steps_healed, owner, heartbeat_at_ms, task_version";

/// The run columns of table alias `table`, renamed with `prefix` (for joins).
pub(crate) fn prefixed_run_columns(table: &str, prefix: &str) -> String {
    prefixed(table, prefix, RUN_COLUMNS)
}

/// A task run from columns named `prefix` + the column.
pub(crate) fn task_run_from_row(row: &AnyRow, prefix: &str) -> Result<TaskRun> {
    const READ: &str = "reading a task run";
    let col = |name: &str| format!("{prefix}{name}");
    let id: String = column(row, &col("id"), READ)?;
    let what = |c: &str| format!("task run {id}, column {c}");
    let count = |c: &str| -> Result<u64> { from_db(&what(c), column(row, &col(c), READ)?) };
    let trigger: String = column(row, &col("triggered_by"), READ)?;
    let status: String = column(row, &col("status"), READ)?;
    let variables: String = column(row, &col("variables"), READ)?;
    Ok(TaskRun {
        task_id: column(row, &col("task_id"), READ)?,
        task_name: column(row, &col("task_name"), READ)?,
        trigger: TaskTrigger::from_name(&trigger).ok_or_else(|| StoreError::Corrupt {
            what: what("triggered_by"),
            cause: format!("unknown trigger {trigger:?}"),
        })?,
        schedule_id: column(row, &col("schedule_id"), READ)?,
        fire_at_ms: column(row, &col("fire_at_ms"), READ)?,
        device: column(row, &col("device"), READ)?,
        status: TaskRunStatus::from_name(&status).ok_or_else(|| StoreError::Corrupt {
            what: what("status"),
            cause: format!("unknown task run status {status:?}"),
        })?,
        started_at_ms: column(row, &col("started_at_ms"), READ)?,
        ended_at_ms: column(row, &col("ended_at_ms"), READ)?,
        error: column(row, &col("error"), READ)?,
        variables: from_json::<Map<String, Value>>(&what("variables"), &variables)?,
        steps: StepCounts {
            ok: count("steps_ok")?,
            failed: count("steps_failed")?,
            skipped: count("steps_skipped")?,
            healed: count("steps_healed")?,
        },
        owner: column(row, &col("owner"), READ)?,
        heartbeat_at_ms: column(row, &col("heartbeat_at_ms"), READ)?,
        task_version: column(row, &col("task_version"), READ)?,
        id,
    })
}
