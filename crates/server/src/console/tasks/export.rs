//! `GET /api/task-runs/export`: the filtered run history as a CSV or JSON download, streamed —
//! read from the store a keyset page at a time and written out as it comes, so a history of
//! 100,000 runs is never held whole in memory.
//!
//! CSV is RFC 4180 (a header row, CRLF line ends, a field with a comma, quote or line break
//! quoted with its quotes doubled), and a text cell that a spreadsheet would read as a formula
//! (starting with `=`, `+`, `-` or `@`) is prefixed with `'`. JSON is an array of the runs as
//! `GET /api/task-runs` lists them.

use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use deft_store::{RunCursor, Store, TaskRun};

use super::TaskError;
use super::history::{History, HistoryQuery};
use super::views::TaskRunView;
use crate::AppState;
use crate::console::{rfc3339, texts};

/// Runs read from the store per step of the stream.
const CHUNK: u32 = 500;

/// The CSV columns, in order.
pub const CSV_HEADER: [&str; 15] = [
    "id",
    "task_id",
    "task_name",
    "trigger",
    "schedule_id",
    "device",
    "status",
    "started_at",
    "ended_at",
    "duration_ms",
    "steps_ok",
    "steps_failed",
    "steps_skipped",
    "steps_healed",
    "error",
];

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Csv,
    Json,
}

/// `GET /api/task-runs/export?format=csv|json&…`: the runs the same filters and sort select,
/// every one, as an attachment.
pub async fn export(
    State(app): State<AppState>,
    Query(q): Query<HistoryQuery>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let format = match q.format.as_deref().map(str::trim) {
        Some("csv") => Format::Csv,
        Some("json") => Format::Json,
        other => {
            return Err(TaskError::param(
                "format",
                texts::bad_export_format(other.unwrap_or_default()),
            ));
        }
    };
    let history = q.history(console).await?;
    let (kind, name) = match format {
        Format::Csv => ("text/csv; charset=utf-8", "task-runs.csv"),
        Format::Json => ("application/json", "task-runs.json"),
    };
    let body = Body::from_stream(stream(console.store().clone(), history, format));
    Ok((
        [
            (header::CONTENT_TYPE, kind.to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        body,
    )
        .into_response())
}

/// Where the stream is.
enum Step {
    /// Nothing written yet.
    Start,
    /// The next page starts after this cursor (`None`: the first page, once the header is out).
    Page(Option<RunCursor>, bool),
    /// Everything written.
    Done,
}

/// The export's bytes: the header, then a chunk per page of runs, then the end.
fn stream(
    store: Store,
    history: History,
    format: Format,
) -> impl futures::Stream<Item = Result<Bytes, std::io::Error>> {
    let start = (Step::Start, store, history);
    futures::stream::unfold(start, move |(step, store, history)| async move {
        match step {
            Step::Start => {
                let head = match format {
                    Format::Csv => csv_row(CSV_HEADER.iter().map(|h| (*h).to_owned())),
                    Format::Json => "[".to_owned(),
                };
                let after = history.after.clone();
                Some((
                    Ok(Bytes::from(head)),
                    (Step::Page(after, true), store, history),
                ))
            }
            Step::Page(after, first) => {
                let read = store
                    .task_run_page_uncounted(&history.filter, history.order, after.as_ref(), CHUNK)
                    .await;
                let page = match read {
                    Ok(page) => page,
                    // The download ends broken rather than looking complete.
                    Err(e) => {
                        tracing::warn!(error = %e, "exporting task runs failed");
                        let err = std::io::Error::other(e.to_string());
                        return Some((Err(err), (Step::Done, store, history)));
                    }
                };
                let mut out = String::new();
                for (i, run) in page.items.iter().enumerate() {
                    match format {
                        Format::Csv => out.push_str(&csv_row(csv_cells(run))),
                        Format::Json => {
                            if !(first && i == 0) {
                                out.push(',');
                            }
                            let view = TaskRunView::from(run);
                            out.push_str(&serde_json::to_string(&view).unwrap_or_default());
                        }
                    }
                }
                let more = !page.items.is_empty();
                let next = match page.next {
                    Some(cursor) => Step::Page(Some(cursor), first && !more),
                    None if format == Format::Json => {
                        out.push(']');
                        Step::Done
                    }
                    None => Step::Done,
                };
                Some((Ok(Bytes::from(out)), (next, store, history)))
            }
            Step::Done => None,
        }
    })
}

/// A run's CSV cells, in [`CSV_HEADER`]'s order.
fn csv_cells(run: &TaskRun) -> impl Iterator<Item = String> {
    let text = |v: &str| formula_safe(v);
    let count = |n: u64| n.to_string();
    [
        text(&run.id),
        text(&run.task_id),
        text(&run.task_name),
        run.trigger.as_str().to_owned(),
        text(run.schedule_id.as_deref().unwrap_or_default()),
        text(&run.device),
        run.status.as_str().to_owned(),
        rfc3339(run.started_at_ms),
        run.ended_at_ms.map(rfc3339).unwrap_or_default(),
        run.ended_at_ms
            .map(|end| (end - run.started_at_ms).to_string())
            .unwrap_or_default(),
        count(run.steps.ok),
        count(run.steps.failed),
        count(run.steps.skipped),
        count(run.steps.healed),
        text(run.error.as_deref().unwrap_or_default()),
    ]
    .into_iter()
}

/// A text cell a spreadsheet will not run: one that starts with `=`, `+`, `-` or `@` gets a
/// leading `'`.
pub fn formula_safe(cell: &str) -> String {
    if cell.starts_with(['=', '+', '-', '@']) {
        format!("'{cell}")
    } else {
        cell.to_owned()
    }
}

/// One RFC 4180 record: fields joined by commas, each quoted when it holds a comma, a quote or
/// a line break (its quotes doubled), ended by CRLF.
pub fn csv_row(cells: impl Iterator<Item = String>) -> String {
    let mut out = String::new();
    for (i, cell) in cells.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if cell.contains([',', '"', '\r', '\n']) {
            out.push('"');
            out.push_str(&cell.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(&cell);
        }
    }
    out.push_str("\r\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_per_rfc_4180_and_defuses_formulas() {
        let cells = [
            "plain",
            "a,b",
            "say \"hi\"",
            "two\nlines",
            "=1+2",
            "-3",
            "+x",
            "@SUM(A1)",
        ];
        assert_eq!(
            csv_row(cells.iter().map(|c| formula_safe(c))),
            "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",'=1+2,'-3,'+x,'@SUM(A1)\r\n"
        );
        assert_eq!(formula_safe("a=b"), "a=b");
    }
}
