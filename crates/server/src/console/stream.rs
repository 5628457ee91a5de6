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

use crate::AppState;
use crate::api::ApiError;
use deft_app::follow::FollowError;
use deft_app::run_log::RunLog;

/// How often a quiet stream sends a comment (keeps proxies from closing it).
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Query of the stream route.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct StreamQuery {
    run_id: String,
    #[serde(default)]
    after: Option<u64>,
}

/// The `Last-Event-ID` header's seq.
pub(crate) fn last_event_id(headers: &HeaderMap) -> Option<u64> {
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
    let log = console
        .app()
        .follow_run(&query.run_id, after)
        .await
        .map_err(follow_error)?;
    Ok(serve_log(log, after, app.stopping.clone()))
}

/// A 404 for a run that is not there, a 500 for a failed store.
pub(crate) fn follow_error(e: FollowError) -> ApiError {
    match e {
        FollowError::UnknownRun(text) => ApiError(StatusCode::NOT_FOUND, text),
        FollowError::Store(e) => e.into(),
    }
}

/// A run log's stream after `after` (agent runs and task runs alike): 204 when the log is
/// closed and nothing is left to send (tells `EventSource` to stop reconnecting), else SSE.
pub fn serve_log(log: Arc<RunLog>, after: u64, stopping: CancellationToken) -> Response {
    let (pending, closed) = log.since(after);
    if pending.is_empty() && closed {
        return StatusCode::NO_CONTENT.into_response();
    }
    sse_response(log, after, stopping)
}

/// The streaming response: frames of `log` after `after`, with keep-alive comments, until the
/// log closes, or the server stops while the log is still open (a run that did not end in the
/// shutdown's time). Events that arrived together go out as one chunk; a closed log is sent to
/// its end (its `done` included) even when the server stops meanwhile.
pub fn sse_response(log: Arc<RunLog>, after: u64, stopping: CancellationToken) -> Response {
    let open = log.clone();
    let cut = async move {
        stopping.cancelled().await;
        if open.is_closed() {
            // The stream ends by itself after the last frame.
            std::future::pending::<()>().await;
        }
    };
    let events = log.frames(after).take_until(cut);
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

/// The comment a quiet stream sends.
const KEEP_ALIVE_FRAME: &[u8] = b": keep-alive\n\n";

/// Interleaves `: keep-alive` comments into `frames` when a whole period of `every` passed
/// without a frame. One timer per stream, armed once per period (not once per frame: a
/// thousand watchers of a busy run would otherwise churn the timer wheel).
pub(crate) fn keep_alive(
    frames: futures::stream::BoxStream<'static, Bytes>,
    every: Duration,
) -> impl futures::Stream<Item = Bytes> + Send + 'static {
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    futures::stream::unfold(
        (frames, tick, false),
        |(mut frames, mut tick, mut sent)| async move {
            loop {
                tokio::select! {
                    biased;
                    next = frames.next() => return next.map(|f| (f, (frames, tick, true))),
                    _ = tick.tick() => {
                        if !std::mem::take(&mut sent) {
                            return Some((Bytes::from_static(KEEP_ALIVE_FRAME), (frames, tick, false)));
                        }
                    }
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_quiet_stream_gets_keep_alives_and_a_busy_one_does_not() {
        let (tx, rx) = futures::channel::mpsc::unbounded::<Bytes>();
        let out = keep_alive(rx.boxed(), Duration::from_secs(15));
        let collector = tokio::spawn(out.collect::<Vec<_>>());
        // Quiet for 31 s: a comment at 15 s and at 30 s.
        tokio::time::sleep(Duration::from_secs(31)).await;
        // Busy for 40 s, a frame every 5 s: no comment.
        for i in 0..8u8 {
            tx.unbounded_send(Bytes::from(vec![i])).unwrap();
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
        drop(tx);
        let got = collector.await.unwrap();
        let mut want = vec![Bytes::from_static(KEEP_ALIVE_FRAME); 2];
        want.extend((0..8u8).map(|i| Bytes::from(vec![i])));
        assert_eq!(got, want);
    }
}
