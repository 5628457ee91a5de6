//! The watching side of the fan-out benchmark: many SSE subscribers of one run over plain
//! HTTP/1.1 connections (one `reqwest` client, one connection each), each recording what it
//! received — every `seq` and how often, each delta's chunk index and its delivery latency
//! (receive instant minus the model's send instant), and the `done` event.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};
use tokio::sync::Notify;

use crate::paced_model::{SendLog, chunk_index};

/// Counts connected subscribers and wakes whoever waits for all of them.
#[derive(Default)]
pub struct Connected {
    count: AtomicUsize,
    changed: Notify,
}

impl Connected {
    fn add(&self) {
        self.count.fetch_add(1, Ordering::AcqRel);
        self.changed.notify_waiters();
    }

    /// Waits until `n` subscribers are connected.
    pub async fn wait_for(&self, n: usize) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if self.count.load(Ordering::Acquire) >= n {
                return;
            }
            changed.await;
        }
    }

    /// Subscribers connected so far.
    pub fn count(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }
}

/// What one subscriber received.
#[derive(Debug, Default)]
pub struct Received {
    /// Events (SSE frames with an `id:`).
    pub events: usize,
    /// How often each seq arrived (index = seq).
    pub seq_counts: Vec<u8>,
    /// Seqs that arrived out of order (not above the highest one before).
    pub out_of_order: usize,
    last_seq: usize,
    /// How often each chunk index arrived in a delta (index = chunk index).
    pub chunk_counts: Vec<u8>,
    /// Delivery latency of each delta, in microseconds.
    pub latencies_us: Vec<u32>,
    /// Delivery latency by chunk index, in microseconds (`u32::MAX`: not received).
    pub latency_by_chunk_us: Vec<u32>,
    /// Deltas whose chunk the model had not recorded as sent (clock or tagging error).
    pub unsent: usize,
    /// Deltas without a chunk tag.
    pub untagged: usize,
    /// The `data:` of `done`.
    pub done: Option<String>,
    /// Events after `done`.
    pub after_done: usize,
    /// `step` events.
    pub steps: usize,
    /// `step` events that carry an image id and no image bytes.
    pub steps_with_image_url: usize,
    /// When the first and the last event arrived.
    pub span: Option<(Instant, Instant)>,
}

/// Subscribes to `run_id` from its first event and reads until the server ends the stream.
pub async fn subscribe(
    http: reqwest::Client,
    url: String,
    token: Arc<str>,
    sent: Arc<SendLog>,
    connected: Arc<Connected>,
) -> anyhow::Result<Received> {
    let mut response = http
        .get(&url)
        .bearer_auth(&*token)
        .send()
        .await
        .with_context(|| format!("GET {url}"))?;
    if response.status() != 200 {
        bail!("GET {url}: status {}", response.status());
    }
    let mut got = Received {
        chunk_counts: vec![0; sent.chunks()],
        latency_by_chunk_us: vec![u32::MAX; sent.chunks()],
        ..Received::default()
    };
    connected.add();
    let mut buffer: Vec<u8> = Vec::with_capacity(16 * 1024);
    while let Some(chunk) = response.chunk().await.context("reading the stream")? {
        let now = Instant::now();
        buffer.extend_from_slice(&chunk);
        let mut start = 0;
        while let Some(end) = find_blank_line(&buffer[start..]) {
            got.frame(&buffer[start..start + end], now, &sent);
            start += end + 2;
        }
        buffer.drain(..start);
    }
    if !buffer.iter().all(u8::is_ascii_whitespace) {
        bail!(
            "the stream ended inside a frame: {:?}",
            String::from_utf8_lossy(&buffer)
        );
    }
    Ok(got)
}

fn find_blank_line(b: &[u8]) -> Option<usize> {
    b.windows(2).position(|w| w == b"\n\n")
}

impl Received {
    fn frame(&mut self, frame: &[u8], now: Instant, sent: &SendLog) {
        let mut seq = None;
        let mut kind: &[u8] = b"";
        let mut data: &[u8] = b"";
        for line in frame.split(|b| *b == b'\n') {
            if let Some(v) = line.strip_prefix(b"id: ") {
                seq = std::str::from_utf8(v)
                    .ok()
                    .and_then(|v| v.parse::<usize>().ok());
            } else if let Some(v) = line.strip_prefix(b"event: ") {
                kind = v;
            } else if let Some(v) = line.strip_prefix(b"data: ") {
                data = v;
            }
        }
        let Some(seq) = seq else {
            return; // a `: keep-alive` comment
        };
        self.events += 1;
        self.span = Some((self.span.map_or(now, |s| s.0), now));
        if self.done.is_some() {
            self.after_done += 1;
        }
        if seq <= self.last_seq {
            self.out_of_order += 1;
        }
        self.last_seq = self.last_seq.max(seq);
        if self.seq_counts.len() <= seq {
            self.seq_counts.resize(seq + 1, 0);
        }
        self.seq_counts[seq] = self.seq_counts[seq].saturating_add(1);
        match kind {
            b"delta" => match chunk_index(data) {
                Some(i) if i < self.chunk_counts.len() => {
                    self.chunk_counts[i] = self.chunk_counts[i].saturating_add(1);
                    match sent.sent_at(i) {
                        Some(at) => {
                            let us = now.saturating_duration_since(at).as_micros();
                            let us = u32::try_from(us).unwrap_or(u32::MAX);
                            self.latencies_us.push(us);
                            self.latency_by_chunk_us[i] = us;
                        }
                        None => self.unsent += 1,
                    }
                }
                _ => self.untagged += 1,
            },
            b"step" => {
                self.steps += 1;
                let has = |needle: &[u8]| data.windows(needle.len()).any(|w| w == needle);
                if has(b"\"image_ids\":[\"") && !has(b"base64") {
                    self.steps_with_image_url += 1;
                }
            }
            b"done" => self.done = Some(String::from_utf8_lossy(data).into_owned()),
            _ => {}
        }
    }
}
