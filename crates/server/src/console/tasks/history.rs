//! The run history's query: `GET /api/task-runs` and its export read the same filters (task,
//! schedule, status, trigger, device, started from / to), sort and cursor from the query
//! string; a bad value is a 400 at its parameter saying what it takes.

use axum::http::StatusCode;
use chrono::{DateTime, NaiveDate};
use deft_store::{RunCursor, RunOrder, RunSortKey, TaskRunFilter, TaskRunStatus, TaskTrigger};
use serde::Deserialize;

use super::TaskError;
use super::crud::resolve;
use crate::api::ApiError;
use crate::console::{Console, texts};

/// The query of `GET /api/task-runs` and `GET /api/task-runs/export`. Every value is taken as
/// text and read here, so a bad one is refused at its name.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryQuery {
    /// A task's id or name.
    #[serde(default)]
    pub task: Option<String>,
    /// A schedule's id.
    #[serde(default)]
    pub schedule: Option<String>,
    /// A status name.
    #[serde(default)]
    pub status: Option<String>,
    /// A trigger name (`manual`, `schedule`, `api`, `try`).
    #[serde(default)]
    pub trigger: Option<String>,
    /// A device name.
    #[serde(default)]
    pub device: Option<String>,
    /// Started at or after: an ISO-8601 moment or a date (that day's start, UTC).
    #[serde(default)]
    pub from: Option<String>,
    /// Started at or before: an ISO-8601 moment, or a date (that whole day, UTC).
    #[serde(default)]
    pub to: Option<String>,
    /// `started` (default), `duration` or `status`.
    #[serde(default)]
    pub sort: Option<String>,
    /// `desc` (default) or `asc`.
    #[serde(default)]
    pub order: Option<String>,
    /// At most this many (1–1,000, default 50).
    #[serde(default)]
    pub limit: Option<String>,
    /// Where the page starts: a `next_cursor` the page before answered.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Skip this many (the older paging, newest first only; `cursor` pages every sort).
    #[serde(default)]
    pub offset: Option<String>,
    /// The export's format: `csv` or `json`.
    #[serde(default)]
    pub format: Option<String>,
}

/// A history query read: what to list, in which order, from where.
#[derive(Debug, Clone)]
pub struct History {
    /// Which runs.
    pub filter: TaskRunFilter,
    /// In which order.
    pub order: RunOrder,
    /// After this cursor.
    pub after: Option<RunCursor>,
}

/// A set value: `None` for a missing or empty parameter.
fn given(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

impl HistoryQuery {
    /// Reads the filters, the sort and the cursor; the task by id or name (a deleted task's
    /// runs stay listed by its id).
    pub async fn history(&self, console: &Console) -> Result<History, TaskError> {
        let task_id = match given(&self.task) {
            None => None,
            Some(t) => Some(match resolve(console, t).await {
                Ok(task) => task.id,
                Err(ApiError(StatusCode::NOT_FOUND, _)) => t.to_owned(),
                Err(e) => return Err(e.into()),
            }),
        };
        let status = match given(&self.status) {
            None => None,
            Some(s) => Some(
                TaskRunStatus::from_name(s)
                    .ok_or_else(|| TaskError::param("status", texts::bad_run_status(s)))?,
            ),
        };
        let trigger = match given(&self.trigger) {
            None => None,
            Some(t) => Some(
                TaskTrigger::from_name(t)
                    .ok_or_else(|| TaskError::param("trigger", texts::bad_history_trigger(t)))?,
            ),
        };
        let started_from_ms = match given(&self.from) {
            None => None,
            Some(v) => Some(moment(v, Bound::From).ok_or_else(|| bad_moment("from", v))?),
        };
        let started_before_ms = match given(&self.to) {
            None => None,
            Some(v) => Some(moment(v, Bound::To).ok_or_else(|| bad_moment("to", v))?),
        };
        if let (Some(from), Some(before)) = (started_from_ms, started_before_ms)
            && before <= from
        {
            return Err(TaskError::param("to", texts::HISTORY_TO_BEFORE_FROM));
        }
        let order = self.order()?;
        let after = match given(&self.cursor) {
            None => None,
            Some(c) => Some(
                RunCursor::parse(c, order)
                    .map_err(|e| TaskError::param("cursor", texts::bad_cursor(&e.to_string())))?,
            ),
        };
        Ok(History {
            filter: TaskRunFilter {
                task_id,
                schedule_id: given(&self.schedule).map(str::to_owned),
                status,
                trigger,
                device: given(&self.device).map(str::to_owned),
                started_from_ms,
                started_before_ms,
            },
            order,
            after,
        })
    }

    fn order(&self) -> Result<RunOrder, TaskError> {
        let key = match given(&self.sort) {
            None => RunSortKey::Started,
            Some(s) => RunSortKey::from_name(s)
                .ok_or_else(|| TaskError::param("sort", texts::bad_history_sort(s)))?,
        };
        let descending = match given(&self.order) {
            None | Some("desc") => true,
            Some("asc") => false,
            Some(o) => return Err(TaskError::param("order", texts::bad_history_order(o))),
        };
        Ok(RunOrder { key, descending })
    }

    /// The page size: 1 to [`deft_store::MAX_PAGE`], 50 when not given.
    pub fn limit(&self) -> Result<u32, TaskError> {
        match given(&self.limit) {
            None => Ok(50),
            Some(l) => l
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=deft_store::MAX_PAGE).contains(n))
                .ok_or_else(|| TaskError::param("limit", texts::bad_history_limit(l))),
        }
    }

    /// The offset of the older paging, if given: only newest first, never with a cursor.
    pub fn offset(&self, history: &History) -> Result<Option<u64>, TaskError> {
        let Some(o) = given(&self.offset) else {
            return Ok(None);
        };
        let n = o
            .parse::<u64>()
            .map_err(|_| TaskError::param("offset", texts::bad_history_offset(o)))?;
        if history.after.is_some() || history.order != RunOrder::default() {
            return Err(TaskError::param("offset", texts::HISTORY_OFFSET_WITH_SORT));
        }
        Ok(Some(n))
    }
}

/// Which end of the range a moment bounds.
#[derive(Clone, Copy)]
enum Bound {
    /// Inclusive start: a date is its first millisecond.
    From,
    /// Inclusive end, answered as the exclusive bound after it: a date is the next day's
    /// start, a moment the millisecond after it.
    To,
}

/// A query's moment in ms since the epoch: an RFC 3339 / ISO-8601 moment with its offset, or
/// a `YYYY-MM-DD` date (UTC).
fn moment(text: &str, bound: Bound) -> Option<i64> {
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        let day = match bound {
            Bound::From => date,
            Bound::To => date.succ_opt()?,
        };
        return Some(day.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis());
    }
    let at = DateTime::parse_from_rfc3339(text).ok()?.timestamp_millis();
    match bound {
        Bound::From => Some(at),
        Bound::To => at.checked_add(1),
    }
}

fn bad_moment(param: &str, given: &str) -> TaskError {
    TaskError::param(param, texts::bad_history_moment(param, given))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_cover_their_whole_day_and_moments_keep_their_offset() {
        assert_eq!(moment("2026-03-01", Bound::From), Some(1_772_323_200_000));
        assert_eq!(
            moment("2026-03-01", Bound::To),
            Some(1_772_323_200_000 + 86_400_000)
        );
        assert_eq!(
            moment("2026-03-01T01:00:00+01:00", Bound::From),
            Some(1_772_323_200_000)
        );
        assert_eq!(
            moment("2026-03-01T00:00:00.005Z", Bound::To),
            Some(1_772_323_200_006)
        );
        for bad in [
            "yesterday",
            "2026-02-30",
            "2026-03-01 10:00",
            "1772323200000",
        ] {
            assert_eq!(moment(bad, Bound::From), None, "{bad}");
        }
    }
}
