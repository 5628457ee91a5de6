//! The model side of the fan-out benchmark: an OpenAI-compatible chat server that streams a
//! fixed script in the real SSE wire format (the lines of [`sse_lines`]), sends its
//! content/reasoning chunks at a fixed pace, tags each chunk's text with its global index
//! (`[i000123] …`) and records the instant it sent each index, on the clock the subscribers
//! read too.
//!
//! It runs on its own single-threaded runtime in its own thread, so the 1,000 subscribers of
//! the same process do not delay its pacing. The first turn waits for [`PacedModel::release`],
//! so the run's first event comes after every subscriber is connected.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::serve::ListenerExt;
use deft_test_support::model::{Streamed, sse_lines};
use serde_json::{Value, json};
use tokio::sync::watch;

/// Characters of one chunk's text: the 10-character tag `[iNNNNNN] ` and 6 of filler.
pub const CHUNK_CHARS: usize = 16;

/// The tool every tool turn calls: the fixture MCP server's `image` (a text and a small PNG), so
/// each step event carries an image by URL (`image_ids`), as a screenshot step does.
pub const TOOL: &str = "image";

/// The shape of the scripted run.
#[derive(Debug, Clone, Copy)]
pub struct Script {
    /// Turns answering with one tool call (each becomes one `step`).
    pub tool_turns: usize,
    /// Content/reasoning chunks per turn (each becomes one `delta`).
    pub chunks_per_turn: usize,
    /// Pause between two chunks of a turn.
    pub chunk_interval: Duration,
}

impl Script {
    /// Model turns: the tool turns and the final answer.
    pub fn turns(&self) -> usize {
        self.tool_turns + 1
    }

    /// Chunks of the whole run, so `delta` events.
    pub fn deltas(&self) -> usize {
        self.turns() * self.chunks_per_turn
    }

    /// The reply of turn `turn` (0-based): chunks `turn * chunks_per_turn ..` of the run.
    fn reply(&self, turn: usize) -> Streamed {
        let first = turn * self.chunks_per_turn;
        let chunk = |i: usize, filler: &str| format!("[i{i:06}] {filler}");
        let mut s = Streamed {
            usage: Some((100, 20)),
            chunk_chars: CHUNK_CHARS,
            ..Default::default()
        };
        if turn < self.tool_turns {
            let half = self.chunks_per_turn / 2;
            s.reasoning = (first..first + half).map(|i| chunk(i, "think ")).collect();
            s.content = (first + half..first + self.chunks_per_turn)
                .map(|i| chunk(i, "write "))
                .collect();
            s.tool_calls = vec![(
                format!("call_{turn}"),
                TOOL.to_owned(),
                json!({}).to_string(),
            )];
        } else {
            s.content = (first..first + self.chunks_per_turn)
                .map(|i| chunk(i, "done. "))
                .collect();
        }
        s
    }
}

/// The index a chunk's text (or an SSE line or event carrying it) is tagged with.
pub fn chunk_index(text: &[u8]) -> Option<usize> {
    let at = text.windows(2).position(|w| w == b"[i")?;
    let digits = text.get(at + 2..at + 8)?;
    if text.get(at + 8) != Some(&b']') || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// When each chunk index was sent, as nanoseconds after `base` plus one (0 = not sent yet).
pub struct SendLog {
    base: Instant,
    sent: Vec<AtomicU64>,
}

impl SendLog {
    fn new(chunks: usize) -> SendLog {
        SendLog {
            base: Instant::now(),
            sent: (0..chunks).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    fn record(&self, index: usize) {
        if let Some(slot) = self.sent.get(index) {
            let ns = self.base.elapsed().as_nanos() as u64;
            slot.store(ns + 1, Ordering::Release);
        }
    }

    /// When chunk `index` was sent, if it was.
    pub fn sent_at(&self, index: usize) -> Option<Instant> {
        let ns = self.sent.get(index)?.load(Ordering::Acquire);
        (ns != 0).then(|| self.base + Duration::from_nanos(ns - 1))
    }

    /// Chunks of the script.
    pub fn chunks(&self) -> usize {
        self.sent.len()
    }

    /// The first and last send instants, and how many chunks were sent.
    pub fn span(&self) -> Option<(Instant, Instant, usize)> {
        let sent: Vec<Instant> = (0..self.sent.len())
            .filter_map(|i| self.sent_at(i))
            .collect();
        Some((*sent.iter().min()?, *sent.iter().max()?, sent.len()))
    }
}

struct Shared {
    script: Script,
    sent: Arc<SendLog>,
    requests: AtomicUsize,
    gate: watch::Receiver<bool>,
}

/// The running server; stops when dropped.
pub struct PacedModel {
    addr: std::net::SocketAddr,
    sent: Arc<SendLog>,
    shared: Arc<Shared>,
    gate: watch::Sender<bool>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl PacedModel {
    /// Starts the server for `script` on a loopback port, in its own thread.
    pub fn start(script: Script) -> anyhow::Result<PacedModel> {
        let (gate_tx, gate_rx) = watch::channel(false);
        let sent = Arc::new(SendLog::new(script.deltas()));
        let shared = Arc::new(Shared {
            script,
            sent: sent.clone(),
            requests: AtomicUsize::new(0),
            gate: gate_rx,
        });
        let listener = std::net::TcpListener::bind("127.0.0.1:0").context("bind the model")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let app = Router::new()
            .route("/v1/chat/completions", post(complete))
            .with_state(shared.clone());
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("the model's runtime")?;
        let thread = std::thread::Builder::new()
            .name("paced-model".into())
            .spawn(move || {
                rt.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(l) => l,
                        Err(e) => {
                            eprintln!("paced model: cannot listen: {e}");
                            return;
                        }
                    };
                    let _ = axum::serve(listener.tap_io(deft_test_support::net::no_delay), app)
                        .with_graceful_shutdown(async {
                            let _ = stop_rx.await;
                        })
                        .await;
                });
            })
            .context("start the model's thread")?;
        Ok(PacedModel {
            addr,
            sent,
            shared,
            gate: gate_tx,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Lets the first turn stream.
    pub fn release(&self) {
        let _ = self.gate.send(true);
    }

    /// The send instants.
    pub fn sent(&self) -> Arc<SendLog> {
        self.sent.clone()
    }

    /// Requests answered so far.
    pub fn requests(&self) -> usize {
        self.shared.requests.load(Ordering::Relaxed)
    }
}

impl Drop for PacedModel {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn complete(State(shared): State<Arc<Shared>>, body: String) -> Response {
    let request: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let turn = shared.requests.fetch_add(1, Ordering::Relaxed);
    if turn >= shared.script.turns() {
        let body = json!({"error": {"message": "the paced model has no more turns", "code": 500}});
        return (StatusCode::INTERNAL_SERVER_ERROR, body.to_string()).into_response();
    }
    let mut gate = shared.gate.clone();
    let _ = gate.wait_for(|open| *open).await;
    let include_usage = request["stream_options"]["include_usage"] == true;
    let lines = sse_lines(&shared.script.reply(turn), include_usage, "scripted");
    let interval = shared.script.chunk_interval;
    let sent = shared.sent.clone();
    let start = tokio::time::Instant::now();
    let state = (lines.into_iter(), 0u32);
    let body = futures::stream::unfold(state, move |(mut lines, mut tagged)| {
        let sent = sent.clone();
        async move {
            let line = lines.next()?;
            if let Some(index) = chunk_index(line.as_bytes()) {
                tokio::time::sleep_until(start + interval * tagged).await;
                tagged += 1;
                sent.record(index);
            }
            let frame = format!("data: {line}\n\n");
            Some((Ok::<_, std::convert::Infallible>(frame), (lines, tagged)))
        }
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}
