//! A stream a named API token opened — a run's events, the notification feed, a live view, an
//! MCP session's stream — ends when the token is revoked or expires: while the stream is open
//! the token is looked up again every [`CHECK_EVERY`], so a revocation holds at once for the
//! streams already open as well as for the next request (on every server of a fleet, which
//! share the tokens).

use std::time::Duration;

use axum::body::Body;
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use deft_store::Store;

use super::now_ms;

/// How often an open stream's token is looked up again.
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

/// `answer` ending once token `name` is revoked or expired, when it is a stream (server-sent
/// events, an MJPEG feed); any other answer as it is.
pub fn ending_with_token(answer: Response, store: Store, name: String) -> Response {
    if !is_stream(&answer) {
        return answer;
    }
    let (parts, body) = answer.into_parts();
    let gone = async move {
        loop {
            tokio::time::sleep(CHECK_EVERY).await;
            match store.api_token(&name).await {
                Ok(Some(token))
                    if token.revoked_at_ms.is_none()
                        && token.expires_at_ms.is_none_or(|at| at > now_ms()) => {}
                Ok(_) => return,
                // A failing store ends nothing: the next look decides.
                Err(e) => {
                    tracing::debug!(token = %name, error = %e, "cannot look up a stream's token")
                }
            }
        }
    };
    let stream = futures::StreamExt::take_until(body.into_data_stream(), gone);
    Response::from_parts(parts, Body::from_stream(stream))
}

/// Whether `answer` streams: server-sent events or an MJPEG feed.
fn is_stream(answer: &Response) -> bool {
    answer
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|kind| {
            kind.starts_with("text/event-stream") || kind.starts_with("multipart/x-mixed-replace")
        })
}
