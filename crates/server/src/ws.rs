//! The device endpoint `/ws`: token check at upgrade, the registration handshake, identity
//! pinning, and the receive loop that hands `command_results` to the device's Remote dispatcher.

use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use deft_link::{RemoteDispatcher, Resolution, close, texts};
use deft_protocol::link::{
    ClientMessage, ClientMessageType, ClientType, ServerMessage, ServerMessageType, TaskStatus,
};
use futures::stream::{SplitSink, SplitStream};
use futures::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::AppState;
use crate::auth;
use crate::registry::Refusal;

/// Limits of the device endpoint.
#[derive(Debug, Clone)]
pub struct LinkLimits {
    /// A device silent this long is gone (45 s).
    pub silence: Duration,
    /// How long a new connection has to send `register` (10 s).
    pub register_within: Duration,
    /// Largest message accepted (64 MiB).
    pub max_message_size: usize,
    /// Per-connection read buffer (small: 1,000 idle devices must fit in 100 MB).
    pub read_buffer: usize,
}

impl Default for LinkLimits {
    fn default() -> Self {
        LinkLimits {
            silence: Duration::from_secs(45),
            register_within: Duration::from_secs(10),
            max_message_size: deft_link::MAX_MESSAGE_SIZE,
            read_buffer: 4 << 10,
        }
    }
}

/// `GET /ws`: upgrades, then refuses a wrong device token with close code 1008 before reading
/// any frame.
pub async fn upgrade(
    State(app): State<AppState>,
    ws: WebSocketUpgrade,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let given = auth::bearer(&headers)
        .map(str::to_owned)
        .or_else(|| auth::query_token(uri.query()));
    let allowed = auth::matches(given.as_deref(), &app.device_token);
    let limits = app.limits.clone();
    ws.read_buffer_size(limits.read_buffer)
        .write_buffer_size(0)
        .max_message_size(limits.max_message_size)
        .max_frame_size(limits.max_message_size)
        .on_upgrade(move |socket| async move {
            if allowed {
                connection(socket, app).await;
            } else {
                tracing::warn!("refused a device connection: wrong or missing device token");
                let (mut sink, _) = socket.split();
                close_with(&mut sink, close::TOKEN_REFUSED, texts::TOKEN_REFUSED).await;
            }
        })
}

type Sink = SplitSink<WebSocket, Message>;

fn frame(m: &ServerMessage) -> Message {
    Message::text(serde_json::to_string(m).unwrap_or_else(|_| "{}".to_owned()))
}

fn error_message(text: &str) -> ServerMessage {
    let mut m = ServerMessage::new(ServerMessageType::Error, TaskStatus::Error);
    m.error = Some(text.to_owned());
    m.timestamp = Some(deft_link::now_iso8601());
    m
}

fn heartbeat_ok() -> ServerMessage {
    let mut m = ServerMessage::new(ServerMessageType::Heartbeat, TaskStatus::Ok);
    m.timestamp = Some(deft_link::now_iso8601());
    m
}

async fn close_with(sink: &mut Sink, code: u16, reason: &str) {
    // A close frame's reason may hold at most 123 bytes.
    let mut end = reason.len().min(120);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    let reason = &reason[..end];
    let _ = sink
        .send(Message::Close(Some(CloseFrame {
            code,
            reason: reason.into(),
        })))
        .await;
    let _ = sink.close().await;
}

async fn refuse(sink: &mut Sink, code: u16, text: &str) {
    let _ = sink.send(frame(&error_message(text))).await;
    let reason = match code {
        close::DUPLICATE_ID => "duplicate device id",
        _ => "registration refused",
    };
    close_with(sink, code, reason).await;
}

async fn connection(socket: WebSocket, app: AppState) {
    let (mut sink, mut stream) = socket.split();
    let first = tokio::time::timeout(app.limits.register_within, stream.next()).await;
    let register = match first {
        Ok(Some(Ok(Message::Text(text)))) => serde_json::from_str::<ClientMessage>(&text).ok(),
        _ => None,
    };
    let Some(register) = register.filter(|m| m.kind == ClientMessageType::Register) else {
        refuse(
            &mut sink,
            close::REGISTRATION_REFUSED,
            texts::REGISTER_FIRST,
        )
        .await;
        return;
    };
    if register.client_type != ClientType::Device {
        refuse(&mut sink, close::REGISTRATION_REFUSED, texts::DEVICES_ONLY).await;
        return;
    }
    let id = register.client_id.clone().unwrap_or_default();
    if id.trim().is_empty() {
        refuse(&mut sink, close::REGISTRATION_REFUSED, texts::EMPTY_ID).await;
        return;
    }
    let (outbox, inbox) = mpsc::channel::<ServerMessage>(16);
    let dispatcher = RemoteDispatcher::new(&id, outbox.clone());
    let metadata = register.metadata.unwrap_or(serde_json::Value::Null);
    let registration = match app.registry.register(&id, metadata, dispatcher.clone()) {
        Ok(r) => r,
        Err(Refusal::Reserved) => {
            refuse(
                &mut sink,
                close::REGISTRATION_REFUSED,
                &texts::reserved_id(&id),
            )
            .await;
            return;
        }
        Err(Refusal::Duplicate) => {
            tracing::warn!(device = %id, "refused a second live registration");
            refuse(&mut sink, close::DUPLICATE_ID, &texts::duplicate_id(&id)).await;
            return;
        }
    };
    // In a fleet, the device is this server's only while it holds the device's lease.
    if let Some(console) = &app.console {
        match console.app().hold_device(&id).await {
            Ok(Some(_)) => {
                // How this server lists it, for the other servers' lists.
                if let Some(details) = app.registry.details().into_iter().find(|d| d.id == id)
                    && let Ok(json) = serde_json::to_string(&details)
                {
                    console.app().describe_held_device(&id, &json).await;
                }
            }
            Ok(None) => {}
            Err(e @ deft_app::fleet::HoldError::HeldElsewhere { .. }) => {
                tracing::warn!(device = %id, "refused: another server of the fleet holds it");
                drop(registration);
                refuse(&mut sink, close::DUPLICATE_ID, &e.to_string()).await;
                return;
            }
            Err(e) => {
                tracing::warn!(device = %id, error = %e, "cannot take the device's lease");
                drop(registration);
                refuse(
                    &mut sink,
                    close::DUPLICATE_ID,
                    &crate::texts::lease_unavailable(&id, &e),
                )
                .await;
                return;
            }
        }
    }
    if sink.send(frame(&heartbeat_ok())).await.is_err() {
        dispatcher.disconnect();
        return;
    }

    let done = CancellationToken::new();
    let writer = tokio::spawn(write_loop(sink, inbox, done.clone()));
    let (code, reason) =
        read_loop(&mut stream, &app, &id, &registration, &dispatcher, &outbox).await;
    // Fail the pending batch at once, then let the writer finish what is queued and close.
    dispatcher.disconnect();
    // The lease first: while the registration lives no other connection of this id can take
    // it here, so the release cannot drop a newer connection's lease.
    if let Some(console) = &app.console {
        console.app().let_go_device(&id).await;
    }
    drop(registration);
    done.cancel();
    if let Ok(mut sink) = writer.await {
        close_with(&mut sink, code, &reason).await;
    }
    tracing::info!(device = %id, %reason, "device connection ended");
    // A device that went away while the server runs on is news; the server's own stop is not.
    if let Some(console) = app
        .console
        .as_ref()
        .filter(|_| !app.stopping.is_cancelled())
    {
        console.app().notifier().device_offline(&id, &reason).await;
    }
}

async fn write_loop(
    mut sink: Sink,
    mut inbox: mpsc::Receiver<ServerMessage>,
    done: CancellationToken,
) -> Sink {
    loop {
        tokio::select! {
            biased;
            m = inbox.recv() => match m {
                Some(m) => {
                    if sink.send(frame(&m)).await.is_err() {
                        break;
                    }
                }
                None => break,
            },
            _ = done.cancelled() => break,
        }
    }
    sink
}

/// Reads until the connection ends; returns the close code and reason to send.
async fn read_loop(
    stream: &mut SplitStream<WebSocket>,
    app: &AppState,
    id: &str,
    registration: &crate::registry::Registration,
    dispatcher: &RemoteDispatcher,
    outbox: &mpsc::Sender<ServerMessage>,
) -> (u16, String) {
    let silence = app.limits.silence;
    let mut last_heard = tokio::time::Instant::now();
    loop {
        let next = tokio::select! {
            n = stream.next() => n,
            _ = app.stopping.cancelled() => return (1001, "the server is stopping".into()),
            _ = tokio::time::sleep_until(last_heard + silence) => {
                tracing::warn!(device = %id, "device silent for {} s; considered gone", silence.as_secs());
                return (close::SILENT, texts::silent(silence.as_secs()));
            }
        };
        last_heard = tokio::time::Instant::now();
        registration.heard();
        let text = match next {
            None => return (1000, "connection closed".into()),
            Some(Err(e)) => {
                tracing::warn!(device = %id, "device connection error: {e}");
                return (close_code(&e), format!("connection error: {e}"));
            }
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Binary(_))) => {
                let _ = outbox.send(error_message(texts::BINARY_FRAME)).await;
                continue;
            }
            Some(Ok(Message::Close(_))) => return (1000, "closed by the device".into()),
            Some(Ok(_)) => continue,
        };
        if let Some(reply) = on_message(&text, id, dispatcher)
            && outbox.send(reply).await.is_err()
        {
            return (1011, "the connection's writer stopped".into());
        }
    }
}

/// The close code that fits a connection error: too big, a broken frame, or a connection that
/// failed underneath (a reset), which hears nothing more.
fn close_code(e: &axum::Error) -> u16 {
    use std::error::Error as _;
    match e
        .source()
        .and_then(|s| s.downcast_ref::<tungstenite::Error>())
    {
        Some(tungstenite::Error::Capacity(_)) => close::TOO_BIG,
        Some(tungstenite::Error::Protocol(_) | tungstenite::Error::Utf8(_)) => {
            close::PROTOCOL_ERROR
        }
        _ => close::ABNORMAL,
    }
}

/// At most `max` characters of a value a device sent, for logs and echoes (a device may claim a
/// megabyte-long id).
fn clip(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}… ({} bytes)", &text[..at], text.len()).into(),
        None => text.into(),
    }
}

/// Handles one text frame from a registered device; returns the reply to send, if any.
fn on_message(text: &str, id: &str, dispatcher: &RemoteDispatcher) -> Option<ServerMessage> {
    let message: ClientMessage = match serde_json::from_str(text) {
        Ok(m) => m,
        Err(e) => return Some(error_message(&texts::malformed(&clip(&e.to_string(), 300)))),
    };
    if let Some(claimed) = message.client_id.as_deref().filter(|c| *c != id) {
        let claimed = clip(claimed, 100);
        tracing::warn!(device = %id, %claimed, "refused a message claiming another device id");
        return Some(error_message(&texts::identity_mismatch(&claimed, id)));
    }
    if message.client_type != ClientType::Device {
        return Some(error_message(texts::CLIENT_TYPE_MISMATCH));
    }
    match message.kind {
        ClientMessageType::Heartbeat => Some(heartbeat_ok()),
        ClientMessageType::CommandResults => {
            let Some(rid) = message.prev_response_id.filter(|r| !r.is_empty()) else {
                return Some(error_message(texts::RESULTS_WITHOUT_ID));
            };
            let results = message.action_results.unwrap_or_default();
            match dispatcher.resolve(&rid, results) {
                Resolution::Delivered => None,
                Resolution::NotPending => {
                    let rid = clip(&rid, 100);
                    tracing::warn!(device = %id, response_id = %rid, "ignored results no batch is waiting for");
                    Some(error_message(&texts::results_not_pending(&rid)))
                }
            }
        }
        ClientMessageType::CommandResult => {
            // One finished command of a batch still running: kept for the batch, no answer.
            let Some(rid) = message.prev_response_id.filter(|r| !r.is_empty()) else {
                return Some(error_message(texts::RESULTS_WITHOUT_ID));
            };
            let results = message.action_results.unwrap_or_default();
            let _ = dispatcher.record_finished(&rid, results);
            None
        }
        ClientMessageType::Register => Some(error_message(texts::ALREADY_REGISTERED)),
        ClientMessageType::Error => {
            let reported = clip(message.error.as_deref().unwrap_or("(no text)"), 2_000);
            tracing::warn!(device = %id, "device reported: {reported}");
            None
        }
        other => Some(error_message(&texts::unsupported_type(
            &deft_protocol::wire_name(&other),
        ))),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn what_a_device_sent_is_clipped_for_logs() {
        assert_eq!(super::clip("pc1", 100), "pc1");
        let long = "é".repeat(1000);
        let clipped = super::clip(&long, 100);
        assert!(clipped.starts_with(&"é".repeat(100)), "{clipped}");
        assert!(clipped.ends_with("… (2000 bytes)"), "{clipped}");
    }
}
