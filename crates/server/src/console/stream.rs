//! `GET /api/agent/stream?run_id=…`: a run's events as Server-Sent Events, from after
//! `Last-Event-ID` (or `after=`), else from the start; live events follow until `done`.
//! A finished run is served from memory or, after a restart, from the store. A watcher that
//! reconnects after `done` gets 204, which tells `EventSource` to stop reconnecting.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::StreamExt;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::run_log::{LoggedEvent, RunLog};
use super::texts;
use crate::AppState;
use crate::api::ApiError;

/// How often a quiet stream sends a comment (keeps proxies from closing it).
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Query of the stream route.
#[derive(Debug, Deserialize)]
pub struct StreamQuery {
    run_id: String,
    #[serde(default)]
    after: Option<u64>,
}

fn last_event_id(headers: &HeaderMap) -> Option<u64> {
    headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

/// `GET /api/agent/stream`.
pub async fn events(
    State(app): State<AppState>,
    Query(query): Query<StreamQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let console = app.console()?;
    let after = last_event_id(&headers).or(query.after).unwrap_or(0);
    let log = match console.runs().log(&query.run_id) {
        Some(log) => log,
        None => {
            let store = console.store();
            if store.run(&query.run_id).await?.is_none() {
                return Err(ApiError(
                    StatusCode::NOT_FOUND,
                    texts::unknown_run(&query.run_id),
                ));
            }
            let rows = store.events(&query.run_id, after).await?;
            RunLog::finished(
                rows.into_iter()
                    .map(|(seq, json)| LoggedEvent::from_json(seq, json))
                    .collect(),
            )
        }
    };
    let (pending, closed) = log.since(after);
    if pending.is_empty() && closed {
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    Ok(sse_response(log, after, app.stopping.clone()))
}

/// The streaming response: frames of `log` after `after`, with keep-alive comments, until the
/// log closes or the server stops.
pub fn sse_response(log: Arc<RunLog>, after: u64, stopping: CancellationToken) -> Response {
    let events = log
        .subscribe(after)
        .map(|e| e.frame)
        .take_until(stopping.cancelled_owned());
    let body = keep_alive(events.boxed(), KEEP_ALIVE);
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache, no-store"),
            (header::HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        Body::from_stream(body.map(Ok::<_, std::convert::Infallible>)),
    )
        .into_response()
}

/// Interleaves `: keep-alive` comments into `frames` whenever `every` passes without one.
fn keep_alive(
    frames: futures::stream::BoxStream<'static, Bytes>,
    every: Duration,
) -> impl futures::Stream<Item = Bytes> + Send + 'static {
    futures::stream::unfold(Some(frames), move |state| async move {
        let mut frames = state?;
        tokio::select! {
            next = frames.next() => next.map(|f| (f, Some(frames))),
            _ = tokio::time::sleep(every) => Some((Bytes::from_static(b": keep-alive\n\n"), Some(frames))),
        }
    })
}
