//! One run's events, fanned out to every watcher.
//!
//! The log is append-only and shared: each subscriber keeps its own cursor into it, so every
//! subscriber gets every event (seed 001 §3.3: never one queue split between two pages), a late
//! subscriber starts from any point of the backlog, and a subscriber that stops reading holds
//! nothing but its cursor — the run appends and never waits for anyone.
//!
//! Events are stored pre-framed as Server-Sent Events (`id`, `event`, `data`), so a thousand
//! subscribers share one copy of each frame; bursts wake the subscribers at most once per
//! [`WAKE_WINDOW`], and each takes everything new in one batch.

use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use deft_protocol::AgentEvent;
use futures::{Stream, StreamExt};
use tokio::sync::Notify;
use tokio::time::Instant;

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

/// The shortest time between two wake-ups of the subscribers (about one display frame). An
/// event after a quiet spell wakes them at once; events that follow within the window wait for
/// its end and go out together, so a burst of deltas costs each watcher one wake-up and one
/// socket write per window instead of one per event.
pub const WAKE_WINDOW: Duration = Duration::from_millis(16);

#[derive(Default)]
struct Inner {
    events: Vec<LoggedEvent>,
    closed: bool,
    /// When the subscribers were last woken.
    last_wake: Option<Instant>,
    /// Whether a wake-up at the end of the current window is scheduled.
    wake_scheduled: bool,
    /// The frames last built by [`RunLog::frames_since`].
    shared: Option<SharedBatch>,
}

impl Inner {
    /// The index of the first event with `seq > after`.
    fn index_after(&self, after: u64) -> usize {
        // seq starts at 1 and grows by 1, so the index of seq s is s - 1; fall back to a search
        // when a log has gaps.
        match self.events.get(after as usize) {
            Some(e) if e.seq == after + 1 => after as usize,
            _ => self.events.partition_point(|e| e.seq <= after),
        }
    }
}

/// What a look at the log found: what is new with its last seq (None when nothing is), and
/// whether the log is closed.
pub type Taken<T> = (Option<(T, u64)>, bool);

/// The frames of the events in `after+1 ..= upto`, as one buffer.
struct SharedBatch {
    after: u64,
    upto: u64,
    bytes: Bytes,
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
                ..Inner::default()
            }),
            grew: Notify::new(),
        })
    }

    fn lock(&self) -> parking_lot::MutexGuard<'_, Inner> {
        self.inner.lock()
    }

    /// Appends an event and wakes the waiting subscribers — at once after a quiet spell, else
    /// at the end of the [`WAKE_WINDOW`]. A `done` event closes the log and wakes them at once.
    /// Events after the log closed are dropped.
    pub fn push(self: &Arc<Self>, event: LoggedEvent) {
        let wake_now = {
            let mut inner = self.lock();
            if inner.closed {
                return;
            }
            inner.closed = event.is_done();
            inner.events.push(event);
            let now = Instant::now();
            match inner.last_wake {
                _ if inner.closed => true,
                Some(last) if now.duration_since(last) < WAKE_WINDOW => {
                    if !inner.wake_scheduled {
                        inner.wake_scheduled = self.schedule_wake(last + WAKE_WINDOW);
                        // Outside a runtime nothing can wait: wake now.
                        !inner.wake_scheduled
                    } else {
                        false
                    }
                }
                _ => true,
            }
        };
        if wake_now {
            self.wake();
        }
    }

    /// Wakes the subscribers at `at`; false when there is no runtime to wait in.
    fn schedule_wake(self: &Arc<Self>, at: Instant) -> bool {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return false;
        };
        let log = Arc::downgrade(self);
        runtime.spawn(async move {
            tokio::time::sleep_until(at).await;
            if let Some(log) = log.upgrade() {
                log.wake();
            }
        });
        true
    }

    fn wake(&self) {
        {
            let mut inner = self.lock();
            inner.last_wake = Some(Instant::now());
            inner.wake_scheduled = false;
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

    /// Returns once the log is closed (its `done` is in, or the run's task ended without one);
    /// at once when it is. Woken by the push that closes it, never by polling.
    pub async fn closed(&self) {
        loop {
            let grew = self.grew.notified();
            tokio::pin!(grew);
            // Registered before the look, so a close between the look and the wait wakes it.
            grew.as_mut().enable();
            if self.is_closed() {
                return;
            }
            grew.await;
        }
    }

    /// Events with `seq > after`, and whether the log is closed.
    pub fn since(&self, after: u64) -> (Vec<LoggedEvent>, bool) {
        let inner = self.lock();
        let start = inner.index_after(after);
        (inner.events[start..].to_vec(), inner.closed)
    }

    /// The SSE frames of the events with `seq > after` as one buffer with the last one's seq
    /// (None when there is none), and whether the log is closed. Subscribers that are caught
    /// up ask for the same range after each wake-up, so the buffer is built once and shared.
    pub fn frames_since(&self, after: u64) -> Taken<Bytes> {
        let mut inner = self.lock();
        let closed = inner.closed;
        let Some(upto) = inner.events.last().map(|e| e.seq).filter(|&s| s > after) else {
            return (None, closed);
        };
        if let Some(shared) = &inner.shared
            && shared.after == after
            && shared.upto == upto
        {
            return (Some((shared.bytes.clone(), upto)), closed);
        }
        let new = &inner.events[inner.index_after(after)..];
        let bytes = match new {
            [one] => one.frame.clone(),
            many => {
                let mut buf = BytesMut::with_capacity(many.iter().map(|e| e.frame.len()).sum());
                for e in many {
                    buf.extend_from_slice(&e.frame);
                }
                buf.freeze()
            }
        };
        inner.shared = Some(SharedBatch {
            after,
            upto,
            bytes: bytes.clone(),
        });
        (Some((bytes, upto)), closed)
    }

    /// Every event after `after`, then the live ones, ending after the log closes.
    pub fn subscribe(self: Arc<Self>, after: u64) -> impl Stream<Item = LoggedEvent> + Send {
        self.batches(after).flat_map(futures::stream::iter)
    }

    /// The same events as [`RunLog::subscribe`], in batches: each batch is everything that
    /// arrived since the subscriber last looked. A subscriber that falls behind catches up in
    /// one batch instead of one wake-up per event.
    pub fn batches(self: Arc<Self>, after: u64) -> impl Stream<Item = Vec<LoggedEvent>> + Send {
        self.follow(after, |log, cursor| {
            let (batch, closed) = log.since(cursor);
            let last = batch.last().map(|e| e.seq);
            (last.map(|seq| (batch, seq)), closed)
        })
    }

    /// The batches of [`RunLog::batches`] as SSE bytes (one socket write per batch).
    pub fn frames(self: Arc<Self>, after: u64) -> impl Stream<Item = Bytes> + Send {
        self.follow(after, RunLog::frames_since)
    }

    /// Follows the log from `after`: `take(log, cursor)` returns what is new with its last
    /// seq, and whether the log is closed; waits for pushes while nothing is new; ends after
    /// the log closes.
    fn follow<T: Send + 'static>(
        self: Arc<Self>,
        after: u64,
        take: fn(&RunLog, u64) -> Taken<T>,
    ) -> impl Stream<Item = T> + Send {
        futures::stream::unfold(
            (self, after, false),
            move |(log, cursor, ended)| async move {
                if ended {
                    return None;
                }
                loop {
                    let (new, closed) = {
                        let grew = log.grew.notified();
                        tokio::pin!(grew);
                        // Register before looking, so a push between the look and the wait wakes us.
                        grew.as_mut().enable();
                        let (new, closed) = take(&log, cursor);
                        if new.is_none() && !closed {
                            grew.await;
                            continue;
                        }
                        (new, closed)
                    };
                    // Nothing new and closed: the stream ends.
                    let (item, cursor) = new?;
                    return Some((item, (log, cursor, closed)));
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
            kind: EventKind::done("ok", Usage::default(), DoneStatus::Completed),
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
    async fn a_subscriber_that_falls_behind_catches_up_in_one_batch() {
        let log = RunLog::new();
        let mut batches = Box::pin(log.clone().batches(0));
        log.push(delta(1, "a"));
        assert_eq!(batches.next().await.unwrap().len(), 1);
        for s in 2..=30 {
            log.push(delta(s, "x"));
        }
        log.push(done(31));
        let behind = batches.next().await.unwrap();
        assert_eq!(
            behind.iter().map(|e| e.seq).collect::<Vec<_>>(),
            (2..=31).collect::<Vec<_>>()
        );
        assert!(batches.next().await.is_none(), "done ends the stream");
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_wakes_waiting_subscribers_once_per_window() {
        let log = RunLog::new();
        let t0 = Instant::now();
        // A waiting subscriber: records each batch's seqs and when it came.
        let watcher = tokio::spawn(
            log.clone()
                .batches(0)
                .map(move |b| {
                    let seqs: Vec<u64> = b.iter().map(|e| e.seq).collect();
                    (seqs, t0.elapsed())
                })
                .collect::<Vec<_>>(),
        );
        tokio::task::yield_now().await;
        log.push(delta(1, "after a quiet spell"));
        tokio::task::yield_now().await;
        for s in 2..=5 {
            log.push(delta(s, "burst"));
        }
        tokio::time::sleep(WAKE_WINDOW + Duration::from_millis(30)).await;
        let quiet_again = t0.elapsed();
        log.push(delta(6, "after another quiet spell"));
        tokio::task::yield_now().await;
        log.push(done(7));
        let got = watcher.await.unwrap();
        assert_eq!(
            got,
            [
                (vec![1], Duration::ZERO),
                (vec![2, 3, 4, 5], WAKE_WINDOW),
                (vec![6], quiet_again),
                (vec![7], quiet_again),
            ],
            "the first event after a quiet spell and done go out at once, a burst at the window's end"
        );
    }

    #[tokio::test]
    async fn frames_are_the_batches_as_bytes_built_once_for_everyone() {
        let log = RunLog::new();
        let (a, b, c) = (delta(1, "a"), delta(2, "b"), done(3));
        for e in [&a, &b, &c] {
            log.push(e.clone());
        }
        let all: Vec<u8> = [&a, &b, &c].iter().flat_map(|e| e.frame.to_vec()).collect();
        let first = log.frames_since(0);
        let second = log.frames_since(0);
        assert_eq!(first.0.as_ref().unwrap().0, all);
        assert_eq!(first.0.as_ref().unwrap().1, 3);
        assert!(first.1, "closed by done");
        assert_eq!(
            first.0.unwrap().0.as_ptr(),
            second.0.unwrap().0.as_ptr(),
            "one shared buffer"
        );
        let (one, _) = log.frames_since(2);
        assert_eq!(one.unwrap().0, c.frame, "a single event is its own frame");
        assert!(log.frames_since(3).0.is_none());
        let streamed: Vec<Bytes> = log.clone().frames(1).collect().await;
        assert_eq!(
            streamed.concat(),
            [b.frame.to_vec(), c.frame.to_vec()].concat()
        );
    }

    #[tokio::test]
    async fn closed_returns_when_done_is_in_and_not_before() {
        let log = RunLog::new();
        log.push(delta(1, "a"));
        let waiting = tokio::spawn({
            let log = log.clone();
            async move { log.closed().await }
        });
        for s in 2..=20 {
            log.push(delta(s, "x"));
            tokio::task::yield_now().await;
        }
        assert!(!waiting.is_finished(), "open while events come");
        log.push(done(21));
        tokio::time::timeout(Duration::from_secs(10), waiting)
            .await
            .expect("woken by done")
            .unwrap();
        tokio::time::timeout(Duration::from_secs(10), log.closed())
            .await
            .expect("a closed log answers at once");
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
