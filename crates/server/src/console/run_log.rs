//! One run's events, fanned out to every watcher.
//!
//! The log is append-only and shared: each subscriber keeps its own cursor into it, so every
//! subscriber gets every event (seed 001 §3.3: never one queue split between two pages), a late
//! subscriber starts from any point of the backlog, and a subscriber that stops reading holds
//! nothing but its cursor — the run appends and never waits for anyone.
//!
//! Events are stored pre-framed as Server-Sent Events (`id`, `event`, `data`), so a thousand
//! subscribers share one copy of each frame.

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use deft_protocol::AgentEvent;
use futures::Stream;
use tokio::sync::Notify;

/// One event, as JSON and as an SSE frame.
#[derive(Debug, Clone)]
pub struct LoggedEvent {
    /// Its `seq`.
    pub seq: u64,
    /// The event as JSON (`{"seq", "type", …}`).
    pub json: Arc<str>,
    /// The SSE frame: `id: seq\nevent: type\ndata: json\n\n`.
    pub frame: Bytes,
}

impl LoggedEvent {
    /// Frames `event`.
    pub fn new(event: &AgentEvent) -> LoggedEvent {
        let json = serde_json::to_string(event).unwrap_or_else(|_| "{}".to_owned());
        Self::from_json(event.seq, json)
    }

    /// Frames an event already serialised (read back from the store). The type is read from
    /// the JSON's `type` field.
    pub fn from_json(seq: u64, json: String) -> LoggedEvent {
        let kind = serde_json::from_str::<serde_json::Value>(&json)
            .ok()
            .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_owned))
            .unwrap_or_else(|| "message".to_owned());
        let frame = Bytes::from(sse_frame(seq, &kind, &json));
        LoggedEvent {
            seq,
            json: Arc::from(json),
            frame,
        }
    }

    /// Whether this is the run's final `done` event.
    pub fn is_done(&self) -> bool {
        self.json.contains("\"type\":\"done\"")
    }
}

/// `id:`/`event:`/`data:` lines. JSON from serde has no raw newlines, so one `data:` line holds it.
fn sse_frame(seq: u64, kind: &str, json: &str) -> String {
    format!("id: {seq}\nevent: {kind}\ndata: {json}\n\n")
}

#[derive(Default)]
struct Inner {
    events: Vec<LoggedEvent>,
    closed: bool,
}

/// The fan-out log of one run.
#[derive(Default)]
pub struct RunLog {
    inner: Mutex<Inner>,
    grew: Notify,
}

impl RunLog {
    /// An empty, open log.
    pub fn new() -> Arc<RunLog> {
        Arc::new(RunLog::default())
    }

    /// A closed log holding `events` (a finished run read back from the store).
    pub fn finished(events: Vec<LoggedEvent>) -> Arc<RunLog> {
        Arc::new(RunLog {
            inner: Mutex::new(Inner {
                events,
                closed: true,
            }),
            grew: Notify::new(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Appends an event and wakes every waiting subscriber. A `done` event closes the log.
    /// Events after the log closed are dropped.
    pub fn push(&self, event: LoggedEvent) {
        {
            let mut inner = self.lock();
            if inner.closed {
                return;
            }
            inner.closed = event.is_done();
            inner.events.push(event);
        }
        self.grew.notify_waiters();
    }

    /// Closes the log without a `done` (the run's task ended abnormally); subscribers finish.
    pub fn close(&self) {
        self.lock().closed = true;
        self.grew.notify_waiters();
    }

    /// The `seq` of the newest event (0 when empty).
    pub fn last_seq(&self) -> u64 {
        self.lock().events.last().map_or(0, |e| e.seq)
    }

    /// Whether the log is closed.
    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Events with `seq > after`, and whether the log is closed.
    pub fn since(&self, after: u64) -> (Vec<LoggedEvent>, bool) {
        let inner = self.lock();
        // seq starts at 1 and grows by 1, so the index of seq s is s - 1; fall back to a search
        // when a log has gaps.
        let start = match inner.events.get(after as usize) {
            Some(e) if e.seq == after + 1 => after as usize,
            _ => inner.events.partition_point(|e| e.seq <= after),
        };
        (inner.events[start..].to_vec(), inner.closed)
    }

    /// Every event after `after`, then the live ones, ending after the log closes.
    pub fn subscribe(self: Arc<Self>, after: u64) -> impl Stream<Item = LoggedEvent> + Send {
        futures::stream::unfold(
            (self, after, Vec::<LoggedEvent>::new().into_iter(), false),
            |(log, mut cursor, mut pending, mut ended)| async move {
                loop {
                    if let Some(e) = pending.next() {
                        cursor = e.seq;
                        return Some((e, (log, cursor, pending, ended)));
                    }
                    if ended {
                        return None;
                    }
                    let grew = log.grew.notified();
                    tokio::pin!(grew);
                    // Register before looking, so a push between the look and the wait wakes us.
                    grew.as_mut().enable();
                    let (batch, closed) = log.since(cursor);
                    if batch.is_empty() {
                        if closed {
                            return None;
                        }
                        grew.await;
                        continue;
                    }
                    ended = closed;
                    pending = batch.into_iter();
                }
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deft_protocol::{DeltaKind, DoneStatus, EventKind, Usage};
    use futures::StreamExt;

    fn delta(seq: u64, text: &str) -> LoggedEvent {
        LoggedEvent::new(&AgentEvent {
            seq,
            kind: EventKind::Delta {
                text: text.to_owned(),
                kind: DeltaKind::Content,
            },
        })
    }

    fn done(seq: u64) -> LoggedEvent {
        LoggedEvent::new(&AgentEvent {
            seq,
            kind: EventKind::Done {
                answer: "ok".into(),
                usage: Usage::default(),
                status: DoneStatus::Completed,
            },
        })
    }

    #[test]
    fn frames_are_sse() {
        let e = delta(3, "a\nb");
        let text = std::str::from_utf8(&e.frame).unwrap();
        assert!(text.starts_with("id: 3\nevent: delta\ndata: {"), "{text}");
        assert!(text.ends_with("}\n\n"));
        assert_eq!(text.matches('\n').count(), 4, "one data line: {text}");
        assert!(done(9).is_done() && !e.is_done());
    }

    #[tokio::test]
    async fn every_subscriber_gets_every_event_and_done_ends_all() {
        let log = RunLog::new();
        log.push(delta(1, "a"));
        let early = tokio::spawn(log.clone().subscribe(0).collect::<Vec<_>>());
        let mid = tokio::spawn(log.clone().subscribe(1).collect::<Vec<_>>());
        for s in 2..=50 {
            log.push(delta(s, "x"));
            if s % 7 == 0 {
                tokio::task::yield_now().await;
            }
        }
        log.push(done(51));
        log.push(delta(52, "after done is dropped"));
        let late = log.clone().subscribe(40).collect::<Vec<_>>().await;
        let seqs = |v: Vec<LoggedEvent>| v.into_iter().map(|e| e.seq).collect::<Vec<_>>();
        assert_eq!(seqs(early.await.unwrap()), (1..=51).collect::<Vec<_>>());
        assert_eq!(seqs(mid.await.unwrap()), (2..=51).collect::<Vec<_>>());
        assert_eq!(seqs(late), (41..=51).collect::<Vec<_>>());
        assert_eq!(log.last_seq(), 51);
    }

    #[tokio::test]
    async fn a_subscriber_that_never_reads_holds_nothing_up() {
        let log = RunLog::new();
        let _stalled = log.clone().subscribe(0);
        let reader = tokio::spawn(log.clone().subscribe(0).count());
        for s in 1..=10_000 {
            log.push(delta(s, "x"));
        }
        log.push(done(10_001));
        assert_eq!(reader.await.unwrap(), 10_001);
    }

    #[tokio::test]
    async fn close_without_done_ends_subscribers() {
        let log = RunLog::new();
        log.push(delta(1, "a"));
        let sub = tokio::spawn(log.clone().subscribe(0).count());
        tokio::task::yield_now().await;
        log.close();
        assert_eq!(sub.await.unwrap(), 1);
        assert!(log.is_closed());
    }

    #[test]
    fn since_handles_gaps() {
        let log = RunLog::finished(vec![delta(1, "a"), delta(3, "b"), delta(4, "c")]);
        let (after_1, closed) = log.since(1);
        assert!(closed);
        assert_eq!(after_1.iter().map(|e| e.seq).collect::<Vec<_>>(), [3, 4]);
        assert_eq!(log.since(2).0.len(), 2);
        assert!(log.since(4).0.is_empty());
    }
}
