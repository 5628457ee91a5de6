//! A lean Chrome DevTools Protocol client: one WebSocket to the browser, flat sessions.
//!
//! [`Cdp::call`] sends `{id, method, params, sessionId?}` and waits for the answer with that id;
//! every message without an id is an event, broadcast to [`Cdp::events`] subscribers. One task
//! reads the socket; writers share a channel. When the socket closes, pending calls fail with
//! [`CdpError::Closed`].

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

/// What can go wrong talking CDP.
#[derive(Debug, thiserror::Error)]
pub enum CdpError {
    /// The WebSocket could not be opened.
    #[error("cannot connect to the browser's DevTools socket {url}: {reason}")]
    Connect {
        /// The ws:// URL tried.
        url: String,
        /// Why.
        reason: String,
    },
    /// The browser closed the connection (it exited or was stopped).
    #[error("the connection to the browser was closed")]
    Closed,
    /// The browser answered with a protocol error.
    #[error("{method} failed: {message}")]
    Protocol {
        /// The CDP method called.
        method: String,
        /// The browser's error message.
        message: String,
    },
    /// No answer within the limit.
    #[error("{method} got no answer within {secs} s")]
    Timeout {
        /// The CDP method called.
        method: String,
        /// The limit.
        secs: u64,
    },
}

/// One CDP event: `method`, `params` and the flat session it came from (`None`: the browser).
#[derive(Debug, Clone)]
pub struct CdpEvent {
    /// e.g. `Page.javascriptDialogOpening`.
    pub method: String,
    /// The event's parameters.
    pub params: Value,
    /// The session id, for events of an attached target.
    pub session: Option<String>,
}

/// A call's answer: its result, or the browser's protocol error.
pub type Answer = Result<Value, CdpError>;

/// The calls sent and not yet answered: their method (for the error) and who waits.
type Pending = Arc<Mutex<HashMap<u64, (String, oneshot::Sender<Answer>)>>>;

/// A connection to a browser's DevTools WebSocket. Cheap to clone.
#[derive(Clone)]
pub struct Cdp {
    out: mpsc::UnboundedSender<String>,
    pending: Pending,
    next_id: Arc<AtomicU64>,
    events: broadcast::Sender<CdpEvent>,
}

impl std::fmt::Debug for Cdp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cdp").finish_non_exhaustive()
    }
}

/// How long one CDP call may take before it is given up.
pub const CALL_LIMIT: Duration = Duration::from_secs(30);

impl Cdp {
    /// Connects to `ws_url` (the browser's `webSocketDebuggerUrl`); every event is broadcast.
    pub async fn connect(ws_url: &str) -> Result<Self, CdpError> {
        Self::connect_for(ws_url, None).await
    }

    /// Connects to `ws_url`, broadcasting only the events named in `wanted` (`None`: all): a
    /// connection that enables a chatty domain for its side effects drops its events unread.
    pub async fn connect_for(
        ws_url: &str,
        wanted: Option<&'static [&'static str]>,
    ) -> Result<Self, CdpError> {
        let mut config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default();
        config.max_message_size = Some(256 << 20);
        config.max_frame_size = Some(256 << 20);
        let (socket, _) = tokio_tungstenite::connect_async_with_config(ws_url, Some(config), false)
            .await
            .map_err(|e| CdpError::Connect {
                url: ws_url.to_owned(),
                reason: e.to_string(),
            })?;
        let (mut sink, mut stream) = socket.split();
        let (out, mut out_rx) = mpsc::unbounded_channel::<String>();
        let pending: Pending = Arc::default();
        let (events, _) = broadcast::channel(4096);

        tokio::spawn(async move {
            while let Some(text) = out_rx.recv().await {
                if sink.send(Message::text(text)).await.is_err() {
                    break;
                }
            }
            let _ = sink.close().await;
        });
        let reader_pending = pending.clone();
        let reader_events = events.clone();
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                let text = match msg {
                    Message::Text(t) => t.to_string(),
                    Message::Binary(b) => String::from_utf8_lossy(&b).into_owned(),
                    Message::Close(_) => break,
                    _ => continue,
                };
                if wanted.is_some_and(|w| unwanted_event(&text, w)) {
                    continue;
                }
                let Ok(mut v) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                if let Some(id) = v.get("id").and_then(Value::as_u64) {
                    let waiting = reader_pending.lock().remove(&id);
                    if let Some((method, tx)) = waiting {
                        let answer = match v.get_mut("error") {
                            Some(err) => Err(CdpError::Protocol {
                                method,
                                message: err
                                    .get("message")
                                    .and_then(Value::as_str)
                                    .unwrap_or("unknown error")
                                    .to_owned(),
                            }),
                            None => Ok(v.get_mut("result").map(Value::take).unwrap_or(Value::Null)),
                        };
                        let _ = tx.send(answer);
                    }
                } else if let Some(method) = v.get("method").and_then(Value::as_str)
                    && wanted.is_none_or(|w| w.contains(&method))
                {
                    let _ = reader_events.send(CdpEvent {
                        method: method.to_owned(),
                        params: v.get_mut("params").map(Value::take).unwrap_or(Value::Null),
                        session: v
                            .get("sessionId")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                    });
                }
            }
            // Dropping the senders fails every pending call with `Closed`.
            reader_pending.lock().clear();
            tracing::debug!("CDP connection closed");
        });
        Ok(Cdp {
            out,
            pending,
            next_id: Arc::new(AtomicU64::new(1)),
            events,
        })
    }

    /// Subscribes to every event from now on.
    pub fn events(&self) -> broadcast::Receiver<CdpEvent> {
        self.events.subscribe()
    }

    /// Calls `method` with `params` on `session` (`None`: the browser target), within [`CALL_LIMIT`].
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, CdpError> {
        let rx = self.send(session, method, params)?;
        match tokio::time::timeout(CALL_LIMIT, rx).await {
            Err(_) => Err(CdpError::Timeout {
                method: method.to_owned(),
                secs: CALL_LIMIT.as_secs(),
            }),
            Ok(Err(_)) => Err(CdpError::Closed),
            Ok(Ok(answer)) => answer,
        }
    }

    /// Sends a call and returns the receiver of its raw answer, for callers that race it
    /// against events (a click that opens a dialog is answered only after the dialog closes).
    pub fn send(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<oneshot::Receiver<Answer>, CdpError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = Value::String(s.to_owned());
        }
        let (tx, rx) = oneshot::channel();
        self.pending.lock().insert(id, (method.to_owned(), tx));
        if self.out.send(msg.to_string()).is_err() {
            self.pending.lock().remove(&id);
            return Err(CdpError::Closed);
        }
        Ok(rx)
    }
}

/// Whether raw message `text` is an event whose method is not in `wanted`, told from the text
/// before it is parsed (Chromium writes an event's method first; other messages are parsed).
fn unwanted_event(text: &str, wanted: &[&str]) -> bool {
    text.strip_prefix("{\"method\":\"")
        .and_then(|rest| rest.split('"').next())
        .is_some_and(|method| !wanted.contains(&method))
}

/// Resolves when a JavaScript dialog opens on any session (`Page.javascriptDialogOpening`);
/// never when the connection closes first (the pending call fails instead).
pub async fn dialog_opening(events: &mut broadcast::Receiver<CdpEvent>) {
    loop {
        match events.recv().await {
            Ok(e) if e.method == "Page.javascriptDialogOpening" => return,
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(broadcast::error::RecvError::Closed) => std::future::pending::<()>().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::unwanted_event;

    #[test]
    fn unwanted_events_are_told_from_their_text() {
        let wanted = &["Fetch.requestPaused"];
        assert!(unwanted_event(
            r#"{"method":"Network.requestWillBeSent","params":{}}"#,
            wanted
        ));
        assert!(!unwanted_event(
            r#"{"method":"Fetch.requestPaused","params":{}}"#,
            wanted
        ));
        assert!(
            !unwanted_event(r#"{"id":3,"result":{}}"#, wanted),
            "answers are always read"
        );
        assert!(
            !unwanted_event(r#"{"params":{},"method":"Network.x"}"#, wanted),
            "left to the parsed check"
        );
    }
}
