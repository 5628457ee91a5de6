//! The run history: task runs filtered by any combination of task, schedule, status, trigger,
//! device and start, sorted by start, duration or status either way, read in keyset pages — a
//! page continues from a cursor holding the last row's sort key, so the 900th page costs what
//! the first does (OFFSET would read and drop every row before it).

use std::fmt;

use sqlx::AssertSqlSafe;
use sqlx::any::AnyRow;

use crate::convert::{column, from_db};
use crate::error::{Result, StoreError, db};
use crate::task_run_row::{RUN_COLUMNS, task_run_from_row};
use crate::{MAX_PAGE, Store, TaskRun, TaskRunFilter, TaskRunStatus};

/// What the history is sorted by. Ties fall to the start, then to the id, in the same
/// direction, so every order is total and a cursor names one place in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunSortKey {
    /// When the run started.
    #[default]
    Started,
    /// How long it took (a running run has no duration yet: it sorts before every ended one).
    Duration,
    /// Its status name, alphabetically.
    Status,
}

impl RunSortKey {
    /// Every key, in the order the API lists them.
    pub const ALL: [RunSortKey; 3] = [
        RunSortKey::Started,
        RunSortKey::Duration,
        RunSortKey::Status,
    ];

    /// The key's name in the API (`started`, `duration`, `status`).
    pub fn as_str(self) -> &'static str {
        match self {
            RunSortKey::Started => "started",
            RunSortKey::Duration => "duration",
            RunSortKey::Status => "status",
        }
    }

    /// The key named `name`, if any.
    pub fn from_name(name: &str) -> Option<RunSortKey> {
        RunSortKey::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The columns the order compares, most significant first (the last two are always the
    /// start and the id).
    fn columns(self) -> &'static [&'static str] {
        match self {
            RunSortKey::Started => &["started_at_ms", "id"],
            RunSortKey::Duration => &["duration_ms", "started_at_ms", "id"],
            RunSortKey::Status => &["status", "started_at_ms", "id"],
        }
    }
}

/// How the history is sorted: a key and a direction. The default is newest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOrder {
    /// What is compared.
    pub key: RunSortKey,
    /// Largest first.
    pub descending: bool,
}

impl Default for RunOrder {
    /// Newest first.
    fn default() -> Self {
        RunOrder {
            key: RunSortKey::Started,
            descending: true,
        }
    }
}

impl RunOrder {
    /// `asc` or `desc`.
    pub fn direction(self) -> &'static str {
        if self.descending { "desc" } else { "asc" }
    }

    /// `ORDER BY` text, every column prefixed by `table`.
    fn sql(self, table: &str) -> String {
        let dir = if self.descending { "DESC" } else { "ASC" };
        self.key
            .columns()
            .iter()
            .map(|c| format!("{table}{c} {dir}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Where a page ends: the sort key of its last run. Its text form
/// (`<key>~<direction>~<value>[~<started>]~<id>`) is what the API hands out as `next_cursor`;
/// it holds values, not a row, so it stays valid when that run is deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunCursor {
    order: RunOrder,
    /// The leading sort value when it is not the start (duration or status), as text.
    lead: Option<String>,
    started_at_ms: i64,
    id: String,
}

/// Why a cursor's text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    /// It is not a cursor this store wrote.
    #[error("it is not a cursor a page of the run history handed out")]
    Malformed,
    /// It continues another sort.
    #[error("it continues the sort {found}, not {wanted}")]
    OtherSort {
        /// The sort the cursor belongs to (`key direction`).
        found: String,
        /// The sort asked for.
        wanted: String,
    },
}

impl RunCursor {
    /// The cursor after `run` in `order`.
    pub fn after(run: &TaskRun, order: RunOrder) -> RunCursor {
        let lead = match order.key {
            RunSortKey::Started => None,
            RunSortKey::Duration => Some(duration_key(run).to_string()),
            RunSortKey::Status => Some(run.status.as_str().to_owned()),
        };
        RunCursor {
            order,
            lead,
            started_at_ms: run.started_at_ms,
            id: run.id.clone(),
        }
    }

    /// Reads a cursor's text for a page in `order`.
    pub fn parse(text: &str, order: RunOrder) -> Result<RunCursor, CursorError> {
        let parts: Vec<&str> = text.split('~').collect();
        let (&[key, dir], rest) = parts.split_at_checked(2).ok_or(CursorError::Malformed)? else {
            return Err(CursorError::Malformed);
        };
        let found_key = RunSortKey::from_name(key).ok_or(CursorError::Malformed)?;
        let descending = match dir {
            "desc" => true,
            "asc" => false,
            _ => return Err(CursorError::Malformed),
        };
        let found = RunOrder {
            key: found_key,
            descending,
        };
        if found != order {
            return Err(CursorError::OtherSort {
                found: format!("{key} {dir}"),
                wanted: format!("{} {}", order.key.as_str(), order.direction()),
            });
        }
        let (lead, started, id) = match (order.key, rest) {
            (RunSortKey::Started, [started, id]) => (None, *started, *id),
            (RunSortKey::Duration, [lead, started, id]) => {
                lead.parse::<i64>().map_err(|_| CursorError::Malformed)?;
                (Some((*lead).to_owned()), *started, *id)
            }
            (RunSortKey::Status, [lead, started, id]) => {
                TaskRunStatus::from_name(lead).ok_or(CursorError::Malformed)?;
                (Some((*lead).to_owned()), *started, *id)
            }
            _ => return Err(CursorError::Malformed),
        };
        if id.is_empty() {
            return Err(CursorError::Malformed);
        }
        Ok(RunCursor {
            order,
            lead,
            started_at_ms: started.parse().map_err(|_| CursorError::Malformed)?,
            id: id.to_owned(),
        })
    }

    /// The values the keyset condition compares with, in the order's columns' order.
    fn values(&self) -> Vec<Param> {
        let mut out = Vec::with_capacity(3);
        match (self.order.key, &self.lead) {
            (RunSortKey::Duration, Some(d)) => out.push(Param::Int(d.parse().unwrap_or(-1))),
            (RunSortKey::Status, Some(s)) => out.push(Param::Text(s.clone())),
            _ => {}
        }
        out.push(Param::Int(self.started_at_ms));
        out.push(Param::Text(self.id.clone()));
        out
    }
}

impl fmt::Display for RunCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}~{}~", self.order.key.as_str(), self.order.direction())?;
        if let Some(lead) = &self.lead {
            write!(f, "{lead}~")?;
        }
        write!(f, "{}~{}", self.started_at_ms, self.id)
    }
}

/// The duration column's value for a run: how long it took, -1 while it runs.
fn duration_key(run: &TaskRun) -> i64 {
    run.ended_at_ms.map_or(-1, |end| end - run.started_at_ms)
}

/// One keyset page of the history.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPage {
    /// The runs of the page, in the order asked for.
    pub items: Vec<TaskRun>,
    /// How many runs match the filter in all.
    pub total: u64,
    /// Where the next page starts; `None` when this page is the last.
    pub next: Option<RunCursor>,
}

/// A statement parameter.
#[derive(Debug, Clone)]
pub(crate) enum Param {
    Text(String),
    Int(i64),
}

/// The `WHERE` text of `filter` (only the conditions it sets, so each can use its index;
/// `TRUE` when it sets none) and its parameters, numbered from `$1`.
pub(crate) fn filter_sql(filter: &TaskRunFilter) -> (String, Vec<Param>) {
    let mut conds = Vec::new();
    let mut params = Vec::new();
    let mut add = |cond: &str, p: Param| {
        params.push(p);
        conds.push(format!("{cond} ${}", params.len()));
    };
    if let Some(t) = &filter.task_id {
        add("task_id =", Param::Text(t.clone()));
    }
    if let Some(s) = &filter.schedule_id {
        add("schedule_id =", Param::Text(s.clone()));
    }
    if let Some(s) = filter.status {
        add("status =", Param::Text(s.as_str().to_owned()));
    }
    if let Some(t) = filter.trigger {
        add("triggered_by =", Param::Text(t.as_str().to_owned()));
    }
    if let Some(d) = &filter.device {
        add("device =", Param::Text(d.clone()));
    }
    if let Some(from) = filter.started_from_ms {
        add("started_at_ms >=", Param::Int(from));
    }
    if let Some(before) = filter.started_before_ms {
        add("started_at_ms <", Param::Int(before));
    }
    if conds.is_empty() {
        conds.push("1 = 1".to_owned());
    }
    (conds.join(" AND "), params)
}

/// The keyset condition "after `values` in `order`", with parameters from `$first`: the
/// leading column bounded alone first (an index range), then the exact comparison
/// `a > x OR (a = x AND (b > y OR (b = y AND c > z)))`.
fn after_sql(order: RunOrder, first: usize) -> String {
    let op = if order.descending { "<" } else { ">" };
    let cols = order.key.columns();
    let mut cond = String::new();
    for (i, col) in cols.iter().enumerate().rev() {
        let p = first + i;
        cond = if cond.is_empty() {
            format!("{col} {op} ${p}")
        } else {
            format!("({col} {op} ${p} OR ({col} = ${p} AND {cond}))")
        };
    }
    format!("{} {op}= ${first} AND {cond}", cols[0])
}

pub(crate) fn bind_all<'q>(
    mut q: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    params: &'q [Param],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    for p in params {
        q = match p {
            Param::Text(t) => q.bind(t.as_str()),
            Param::Int(i) => q.bind(*i),
        };
    }
    q
}

impl Store {
    /// A keyset page of the task runs matching `filter` in `order`: at most `limit` runs
    /// (1 to [`MAX_PAGE`]) after `after` (the start when `None`), how many match in all, and the
    /// cursor of the next page. The count and the page are one statement, so one snapshot.
    pub async fn task_run_page(
        &self,
        filter: &TaskRunFilter,
        order: RunOrder,
        after: Option<&RunCursor>,
        limit: u32,
    ) -> Result<RunPage> {
        self.history_page(filter, order, after, limit, true).await
    }

    /// As [`Store::task_run_page`] without the total (answered as 0): an export reads the
    /// history page after page and needs no count.
    pub async fn task_run_page_uncounted(
        &self,
        filter: &TaskRunFilter,
        order: RunOrder,
        after: Option<&RunCursor>,
        limit: u32,
    ) -> Result<RunPage> {
        self.history_page(filter, order, after, limit, false).await
    }

    async fn history_page(
        &self,
        filter: &TaskRunFilter,
        order: RunOrder,
        after: Option<&RunCursor>,
        limit: u32,
        count: bool,
    ) -> Result<RunPage> {
        const ACTION: &str = "listing task runs";
        if limit == 0 || limit > MAX_PAGE {
            return Err(StoreError::Invalid(format!(
                "a page holds 1 to {MAX_PAGE} items, not {limit}"
            )));
        }
        if after.is_some_and(|c| c.order != order) {
            return Err(StoreError::Invalid(
                "the cursor continues another sort".to_owned(),
            ));
        }
        let (cond, mut params) = filter_sql(filter);
        let mut page_cond = cond.clone();
        if let Some(cursor) = after {
            page_cond = format!("{cond} AND {}", after_sql(order, params.len() + 1));
            params.extend(cursor.values());
        }
        // One more than asked: whether it comes tells whether there is a next page.
        let fetch = i64::from(limit) + 1;
        let limit_param = params.len() + 1;
        let page = format!(
            "SELECT {RUN_COLUMNS}, duration_ms FROM task_runs WHERE {page_cond} ORDER BY {} LIMIT ${limit_param}",
            order.sql("")
        );
        let sql = if count {
            // The count is one row and the page joins it, so an empty page still answers it.
            format!(
                "SELECT c.total, p.* FROM (SELECT COUNT(*) AS total FROM task_runs WHERE {cond}) c \
                 LEFT JOIN ({page}) p ON 1 = 1 ORDER BY {}",
                order.sql("p.")
            )
        } else {
            page
        };
        let q = bind_all(sqlx::query(AssertSqlSafe(sql)), &params).bind(fetch);
        let rows = q.fetch_all(&self.pool).await.map_err(db(ACTION))?;
        let total: i64 = match rows.first() {
            Some(row) if count => column(row, "total", ACTION)?,
            _ => 0,
        };
        let mut items = Vec::with_capacity(rows.len());
        for row in &rows {
            if has_run(row)? {
                items.push(task_run_from_row(row, "")?);
            }
        }
        let more = items.len() > limit as usize;
        items.truncate(limit as usize);
        let next = if more {
            items.last().map(|run| RunCursor::after(run, order))
        } else {
            None
        };
        Ok(RunPage {
            items,
            total: from_db("task run count", total)?,
            next,
        })
    }
}

/// Whether a row of the joined statement holds a run (the row of an empty page does not).
fn has_run(row: &AnyRow) -> Result<bool> {
    Ok(column::<Option<String>>(row, "id", "listing task runs")?.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyset_condition_bounds_the_leading_column_first() {
        let order = RunOrder {
            key: RunSortKey::Duration,
            descending: false,
        };
        assert_eq!(
            after_sql(order, 3),
            "duration_ms >= $3 AND (duration_ms > $3 OR (duration_ms = $3 AND \
             (started_at_ms > $4 OR (started_at_ms = $4 AND id > $5))))"
        );
    }

    #[test]
    fn cursors_round_trip_and_refuse_another_sort() {
        let order = RunOrder {
            key: RunSortKey::Status,
            descending: true,
        };
        let text = "status~desc~failed~1700~run-1";
        let cursor = RunCursor::parse(text, order).unwrap();
        assert_eq!(cursor.to_string(), text);
        assert_eq!(
            RunCursor::parse(text, RunOrder::default()),
            Err(CursorError::OtherSort {
                found: "status desc".into(),
                wanted: "started desc".into()
            })
        );
        for bad in [
            "",
            "x",
            "started~desc~abc~id",
            "started~desc~1~2~id",
            "started~up~1~id",
        ] {
            assert_eq!(
                RunCursor::parse(bad, RunOrder::default()).err(),
                Some(CursorError::Malformed),
                "{bad}"
            );
        }
    }
}
