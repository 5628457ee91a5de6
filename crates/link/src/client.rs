//! The device client loop (`deft client`): connect out to the server, register, heartbeat,
//! run `command` batches one at a time through this device's own dispatcher, answer every one,
//! honour `cancel`, and reconnect with capped exponential backoff.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use deft_protocol::link::{
    ClientMessage, ClientMessageType, ServerMessage, ServerMessageType, TaskStatus,
};
use deft_protocol::{Command, CommandResult};
use deft_tools::dispatcher::{ExecContext, fill_call_ids};
use deft_tools::{Dispatcher, texts as tool_texts};
use futures::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::sync::{mpsc, watch};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::protocol::frame::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Message, http};
use tokio_util::sync::CancellationToken;

use crate::{close, remote, texts};

/// How a device client connects and behaves.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// The device endpoint (`ws(s)://host:port/ws`, see [`crate::address::device_url`]).
    pub url: String,
    /// Further endpoints of the same fleet, tried in turn after `url` whenever a connection
    /// is lost or refused (failover: a device reconnects to a surviving server).
    pub fallback_urls: Vec<String>,
    /// The server's device token.
    pub token: String,
    /// This device's id.
    pub id: String,
    /// Its routing-table profile.
    pub profile: String,
    /// The registration's `metadata` (system info, profile, tool servers).
    pub metadata: Value,
    /// Heartbeat interval (15 s).
    pub heartbeat: Duration,
    /// A server silent this long is considered gone (45 s).
    pub silence: Duration,
    /// First reconnection delay (0.5 s); doubles per failed attempt.
    pub backoff_start: Duration,
    /// Reconnection delay cap (30 s).
    pub backoff_max: Duration,
    /// Largest message accepted (64 MiB).
    pub max_message_size: usize,
    /// Batch deadline when a `command` carries none (600 s).
    pub default_deadline: Duration,
}

impl ClientConfig {
    /// The defaults of the contract for device `id` with `profile` at `url`.
    pub fn new(url: &str, token: &str, id: &str, profile: &str) -> Self {
        ClientConfig {
            url: url.to_owned(),
            fallback_urls: Vec::new(),
            token: token.to_owned(),
            id: id.to_owned(),
            profile: profile.to_owned(),
            metadata: Value::Null,
            heartbeat: Duration::from_secs(15),
            silence: Duration::from_secs(45),
            backoff_start: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            max_message_size: crate::MAX_MESSAGE_SIZE,
            default_deadline: Duration::from_secs(600),
        }
    }
}

/// Why the client stopped for good.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// The server closed the connection with 1008: the device token is wrong.
    #[error(
        "the server refused the device token ({0}); start the client with the server's device token (--token or DEFT_DEVICE_TOKEN; `deft serve` prints it and keeps it in its data folder)"
    )]
    TokenRefused(String),
    /// The server refused the registration for a reason retrying cannot fix.
    #[error("the server refused this device's registration: {0}")]
    RegistrationRefused(String),
    /// The device URL cannot be used.
    #[error("cannot use the server address '{url}': {reason}")]
    BadUrl {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
}

/// Where the client is, for whoever shows it (the CLI prints the changes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientStatus {
    /// Connecting (attempt number, from 1).
    Connecting(u32),
    /// Registered with the server at this endpoint.
    Registered(String),
    /// The connection ended; it will retry after the delay.
    Disconnected {
        /// What happened.
        reason: String,
        /// The delay before the next attempt.
        retry_in: Duration,
    },
}

enum Outcome {
    Shutdown,
    Fatal(ClientError),
    Lost { registered: bool, reason: String },
}

/// A device client: [`DeviceClient::run`] until shutdown or a refusal.
pub struct DeviceClient {
    config: ClientConfig,
    dispatcher: Arc<dyn Dispatcher>,
    status: watch::Sender<ClientStatus>,
}

type Inflight = Arc<Mutex<HashMap<String, CancellationToken>>>;

struct Job {
    message: ServerMessage,
    response_id: String,
    cancel: CancellationToken,
}

struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl DeviceClient {
    /// A client that runs its batches through `dispatcher`.
    pub fn new(config: ClientConfig, dispatcher: Arc<dyn Dispatcher>) -> Self {
        let (status, _) = watch::channel(ClientStatus::Connecting(1));
        DeviceClient {
            config,
            dispatcher,
            status,
        }
    }

    /// Follows the client's status.
    pub fn status(&self) -> watch::Receiver<ClientStatus> {
        self.status.subscribe()
    }

    /// Connects, serves and reconnects until `shutdown` fires (`Ok`) or the server refuses the
    /// token or the registration (`Err`).
    pub async fn run(&self, shutdown: CancellationToken) -> Result<(), ClientError> {
        let mut backoff = self.config.backoff_start;
        let mut attempt = 1;
        let urls: Vec<&str> = std::iter::once(self.config.url.as_str())
            .chain(self.config.fallback_urls.iter().map(String::as_str))
            .collect();
        let mut next = 0;
        loop {
            self.status.send_replace(ClientStatus::Connecting(attempt));
            let url = urls[next % urls.len()];
            match self.session(url, &shutdown).await {
                Outcome::Shutdown => return Ok(()),
                Outcome::Fatal(e) => return Err(e),
                Outcome::Lost { registered, reason } => {
                    if registered {
                        backoff = self.config.backoff_start;
                        attempt = 1;
                    }
                    tracing::info!(%reason, retry_in = ?backoff, "connection to the server lost");
                    self.status.send_replace(ClientStatus::Disconnected {
                        reason,
                        retry_in: backoff,
                    });
                }
            }
            // The next server of the fleet, if there are several: this one went away or
            // refused (another may hold the device's lease until it lapses).
            next += 1;
            // A whole round over the fleet failed (or there is one server): wait.
            if next % urls.len() == 0 || urls.len() == 1 {
                tokio::select! {
                    _ = shutdown.cancelled() => return Ok(()),
                    _ = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(self.config.backoff_max);
            }
            attempt += 1;
        }
    }

    fn register_message(&self) -> ClientMessage {
        let mut m = ClientMessage::new(ClientMessageType::Register, TaskStatus::Ok);
        m.client_id = Some(self.config.id.clone());
        m.timestamp = Some(crate::now_iso8601());
        m.metadata = Some(self.config.metadata.clone());
        m
    }

    async fn session(&self, url: &str, shutdown: &CancellationToken) -> Outcome {
        let cfg = &self.config;
        let bad_url = |reason: String| {
            Outcome::Fatal(ClientError::BadUrl {
                url: url.to_owned(),
                reason,
            })
        };
        let mut request = match url.into_client_request() {
            Ok(r) => r,
            Err(e) => return bad_url(e.to_string()),
        };
        match http::HeaderValue::from_str(&format!("Bearer {}", cfg.token)) {
            Ok(v) => {
                request.headers_mut().insert(http::header::AUTHORIZATION, v);
            }
            Err(_) => {
                return Outcome::Fatal(ClientError::TokenRefused(
                    "the token contains characters not allowed in an HTTP header".into(),
                ));
            }
        }
        let ws_config = WebSocketConfig::default()
            .max_message_size(Some(cfg.max_message_size))
            .max_frame_size(Some(cfg.max_message_size));
        let connect = tokio_tungstenite::connect_async_with_config(request, Some(ws_config), true);
        let ws = tokio::select! {
            _ = shutdown.cancelled() => return Outcome::Shutdown,
            // A server that accepts but never answers (paused) counts as gone as one silent.
            r = tokio::time::timeout(cfg.silence.min(Duration::from_secs(10)), connect) => match r {
                Ok(Ok((ws, _))) => ws,
                Ok(Err(tokio_tungstenite::tungstenite::Error::Url(e))) => return bad_url(e.to_string()),
                Ok(Err(e)) => return Outcome::Lost { registered: false, reason: format!("cannot connect to {url}: {e}") },
                Err(_) => return Outcome::Lost { registered: false, reason: format!("connecting to {url} timed out") },
            },
        };
        let (mut sink, mut stream) = ws.split();
        if let Err(e) = sink.send(to_frame(&self.register_message())).await {
            return Outcome::Lost {
                registered: false,
                reason: format!("sending the registration failed: {e}"),
            };
        }

        // The ack (heartbeat/ok), or an error and a close.
        let mut last_error: Option<String> = None;
        loop {
            let next = tokio::select! {
                _ = shutdown.cancelled() => return Outcome::Shutdown,
                n = tokio::time::timeout(cfg.silence, stream.next()) => n,
            };
            let frame = match next {
                Err(_) => {
                    return Outcome::Lost {
                        registered: false,
                        reason: "the server did not answer the registration".into(),
                    };
                }
                Ok(None) => {
                    return Outcome::Lost {
                        registered: false,
                        reason: "the server closed the connection during registration".into(),
                    };
                }
                Ok(Some(Err(e))) => {
                    return Outcome::Lost {
                        registered: false,
                        reason: format!("registration failed: {e}"),
                    };
                }
                Ok(Some(Ok(f))) => f,
            };
            match frame {
                Message::Text(text) => match serde_json::from_str::<ServerMessage>(&text) {
                    Ok(m)
                        if m.kind == ServerMessageType::Heartbeat && m.status == TaskStatus::Ok =>
                    {
                        break;
                    }
                    Ok(m) if m.kind == ServerMessageType::Error => last_error = m.error,
                    Ok(m) => tracing::debug!(kind = ?m.kind, "ignored before the registration ack"),
                    Err(e) => tracing::debug!("unreadable frame before the ack: {e}"),
                },
                Message::Close(frame) => return refusal(frame, last_error),
                _ => {}
            }
        }
        tracing::info!(id = %cfg.id, %url, "registered");
        self.status
            .send_replace(ClientStatus::Registered(url.to_owned()));
        self.serve(sink, stream, shutdown).await
    }

    async fn serve<S, R>(&self, mut sink: S, mut stream: R, shutdown: &CancellationToken) -> Outcome
    where
        S: futures::Sink<Message, Error = tokio_tungstenite::tungstenite::Error>
            + Unpin
            + Send
            + 'static,
        R: futures::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
    {
        let cfg = &self.config;
        let (out_tx, mut out_rx) = mpsc::channel::<Message>(64);
        let writer = tokio::spawn(async move {
            while let Some(m) = out_rx.recv().await {
                let closing = matches!(m, Message::Close(_));
                if sink.send(m).await.is_err() || closing {
                    break;
                }
            }
            let _ = sink.close().await;
        });
        let _writer_guard = AbortOnDrop(writer.abort_handle());

        let inflight: Inflight = Arc::new(Mutex::new(HashMap::new()));
        let (job_tx, mut job_rx) = mpsc::unbounded_channel::<Job>();
        let executor = {
            let dispatcher = self.dispatcher.clone();
            let cfg = cfg.clone();
            let out = out_tx.clone();
            let inflight = inflight.clone();
            tokio::spawn(async move {
                while let Some(job) = job_rx.recv().await {
                    let response_id = job.response_id.clone();
                    let reply = run_job(&dispatcher, &cfg, job, &out).await;
                    inflight.lock().remove(&response_id);
                    if out.send(to_frame(&reply)).await.is_err() {
                        break;
                    }
                }
            })
        };
        let _executor_guard = AbortOnDrop(executor.abort_handle());

        let mut heartbeat = tokio::time::interval(cfg.heartbeat);
        heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        heartbeat.tick().await;
        let mut last_heard = tokio::time::Instant::now();
        let outcome = loop {
            let silence_at = last_heard + cfg.silence;
            tokio::select! {
                _ = shutdown.cancelled() => {
                    let _ = out_tx.send(Message::Close(Some(CloseFrame {
                        code: CloseCode::Normal,
                        reason: "device client stopping".into(),
                    }))).await;
                    break Outcome::Shutdown;
                }
                _ = heartbeat.tick() => {
                    let mut m = ClientMessage::new(ClientMessageType::Heartbeat, TaskStatus::Ok);
                    m.client_id = Some(cfg.id.clone());
                    m.timestamp = Some(crate::now_iso8601());
                    if out_tx.send(to_frame(&m)).await.is_err() {
                        break Outcome::Lost { registered: true, reason: "the connection closed".into() };
                    }
                }
                _ = tokio::time::sleep_until(silence_at) => {
                    break Outcome::Lost { registered: true, reason: format!("no message from the server for {} s", cfg.silence.as_secs()) };
                }
                frame = stream.next() => {
                    last_heard = tokio::time::Instant::now();
                    let frame = match frame {
                        None => break Outcome::Lost { registered: true, reason: "the server closed the connection".into() },
                        Some(Err(e)) => break Outcome::Lost { registered: true, reason: format!("connection error: {e}") },
                        Some(Ok(f)) => f,
                    };
                    match frame {
                        Message::Text(text) => {
                            if let Some(reply) = self.on_text(&text, &inflight, &job_tx) {
                                let _ = out_tx.send(to_frame(&reply)).await;
                            }
                        }
                        Message::Binary(_) => {
                            let _ = out_tx.send(to_frame(&error_message(&cfg.id, texts::BINARY_FRAME))).await;
                        }
                        Message::Close(frame) => {
                            break Outcome::Lost { registered: true, reason: close_reason(frame.as_ref()) };
                        }
                        _ => {}
                    }
                }
            }
        };
        // Whatever was running or queued belongs to a connection that is gone: the server has
        // failed it already, and nothing is run again later.
        for (_, token) in inflight.lock().drain() {
            token.cancel();
        }
        if matches!(outcome, Outcome::Shutdown) {
            drop(out_tx);
            let _ = tokio::time::timeout(Duration::from_secs(2), writer).await;
        }
        outcome
    }

    fn on_text(
        &self,
        text: &str,
        inflight: &Inflight,
        jobs: &mpsc::UnboundedSender<Job>,
    ) -> Option<ClientMessage> {
        let id = &self.config.id;
        let message: ServerMessage = match serde_json::from_str(text) {
            Ok(m) => m,
            Err(e) => return Some(error_message(id, &texts::malformed(&e.to_string()))),
        };
        match message.kind {
            ServerMessageType::Command => {
                let Some(response_id) = message.response_id.clone().filter(|r| !r.is_empty())
                else {
                    return Some(error_message(id, texts::COMMAND_WITHOUT_ID));
                };
                let cancel = CancellationToken::new();
                inflight.lock().insert(response_id.clone(), cancel.clone());
                let _ = jobs.send(Job {
                    message,
                    response_id,
                    cancel,
                });
                None
            }
            ServerMessageType::Cancel => {
                let rid = message.response_id.unwrap_or_default();
                match inflight.lock().get(&rid) {
                    Some(token) => {
                        tracing::info!(response_id = %rid, "cancelling the batch on the server's request");
                        token.cancel();
                    }
                    None => {
                        tracing::debug!(response_id = %rid, "cancel for a batch that is not running")
                    }
                }
                None
            }
            ServerMessageType::Heartbeat => None,
            ServerMessageType::Error => {
                tracing::warn!(
                    "the server reported: {}",
                    message.error.as_deref().unwrap_or("(no text)")
                );
                None
            }
            other => Some(error_message(
                id,
                &texts::unsupported_type(&deft_protocol::wire_name(&other)),
            )),
        }
    }
}

/// Runs one `command` message and builds its `command_results`. Always answers, one Result per
/// action: a panic in the tool layer and a stop the tool layer does not honour in time become
/// failure Results.
async fn run_job(
    dispatcher: &Arc<dyn Dispatcher>,
    cfg: &ClientConfig,
    job: Job,
    out: &mpsc::Sender<Message>,
) -> ClientMessage {
    let m = job.message;
    let mut commands: Vec<Command> = m.actions.clone().unwrap_or_default();
    fill_call_ids(&mut commands);
    let mut ctx = ExecContext::new(&cfg.id, &cfg.profile);
    if let Some(a) = m.agent_name.clone().filter(|a| !a.is_empty()) {
        ctx.agent = a;
    }
    ctx.process = m.process_name.clone().unwrap_or_default();
    ctx.root = m.root_name.clone().unwrap_or_default();
    ctx.early_exit = m.early_exit.unwrap_or(true);
    ctx.deadline = m
        .deadline_ms
        .map(Duration::from_millis)
        .unwrap_or(cfg.default_deadline);
    ctx.cancel = job.cancel.clone();
    // Each command's Result goes to the server the moment it is known (`command_result`), so a
    // link that drops mid-batch costs at most the command in flight. Only a deft server (its
    // commands carry `deadline_ms`) hears of them; UFO's gets the batch reply alone.
    let forward = m.deadline_ms.is_some().then(|| {
        let (progress, mut finished) = mpsc::unbounded_channel::<CommandResult>();
        ctx.progress = Some(progress);
        let out = out.clone();
        let base = finished_message(cfg, &m, &job.response_id);
        tokio::spawn(async move {
            while let Some(result) = finished.recv().await {
                let mut message = base.clone();
                message.action_results = Some(vec![result]);
                if out.send(to_frame(&message)).await.is_err() {
                    break;
                }
            }
        })
    });

    let results: Vec<CommandResult> = if commands.is_empty() {
        Vec::new()
    } else {
        let task = {
            let dispatcher = dispatcher.clone();
            let ctx = ctx.clone();
            let commands = commands.clone();
            tokio::spawn(async move { dispatcher.execute(&ctx, commands).await })
        };
        let _abort = AbortOnDrop(task.abort_handle());
        let stop_overdue = async {
            job.cancel.cancelled().await;
            tokio::time::sleep(crate::CLIENT_STOP_WAIT).await;
        };
        tokio::select! {
            r = task => match r {
                Ok(results) => results,
                Err(e) => {
                    let text = texts::tool_layer_crashed(&e.to_string());
                    commands.iter().map(|c| CommandResult::failure(&c.call_id, text.clone(), None)).collect()
                }
            },
            _ = stop_overdue => commands
                .iter()
                .map(|c| CommandResult::failure(&c.call_id, tool_texts::STOPPED, None))
                .collect(),
        }
    };
    // The per-command messages go out before the batch's answer.
    drop(ctx);
    if let Some(forward) = forward {
        let _ = forward.await;
    }
    let results = remote::complete(&commands, results);
    let mut reply = ClientMessage::new(ClientMessageType::CommandResults, m.status);
    reply.client_id = Some(cfg.id.clone());
    reply.session_id = m.session_id;
    reply.prev_response_id = Some(job.response_id);
    reply.request_id = Some(uuid::Uuid::new_v4().to_string());
    reply.timestamp = Some(crate::now_iso8601());
    reply.action_results = Some(results);
    reply
}

/// The `command_result` envelope for one finished command of the batch `response_id`.
fn finished_message(cfg: &ClientConfig, m: &ServerMessage, response_id: &str) -> ClientMessage {
    let mut message = ClientMessage::new(ClientMessageType::CommandResult, m.status);
    message.client_id = Some(cfg.id.clone());
    message.session_id = m.session_id.clone();
    message.prev_response_id = Some(response_id.to_owned());
    message
}

fn error_message(id: &str, text: &str) -> ClientMessage {
    let mut m = ClientMessage::new(ClientMessageType::Error, TaskStatus::Error);
    m.client_id = Some(id.to_owned());
    m.error = Some(text.to_owned());
    m.timestamp = Some(crate::now_iso8601());
    m
}

fn to_frame<T: serde::Serialize>(m: &T) -> Message {
    // Serializing these plain structs cannot fail; an empty object keeps the loop alive if it did.
    Message::text(serde_json::to_string(m).unwrap_or_else(|_| "{}".to_owned()))
}

fn close_reason(frame: Option<&CloseFrame>) -> String {
    match frame {
        Some(f) => format!(
            "the server closed the connection (code {}: {})",
            u16::from(f.code),
            f.reason
        ),
        None => "the server closed the connection".into(),
    }
}

fn refusal(frame: Option<CloseFrame>, last_error: Option<String>) -> Outcome {
    let code = frame.as_ref().map(|f| u16::from(f.code));
    let reason = last_error
        .clone()
        .or_else(|| frame.as_ref().map(|f| f.reason.to_string()))
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "no reason given".into());
    match code {
        Some(close::TOKEN_REFUSED) => Outcome::Fatal(ClientError::TokenRefused(
            frame
                .map(|f| f.reason.to_string())
                .filter(|r| !r.is_empty())
                .unwrap_or(reason),
        )),
        Some(close::REGISTRATION_REFUSED) => {
            Outcome::Fatal(ClientError::RegistrationRefused(reason))
        }
        _ => Outcome::Lost {
            registered: false,
            reason,
        },
    }
}
