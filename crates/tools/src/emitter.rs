//! A run's event stream: the one place that numbers events by `seq` (per run, from 1, without
//! gaps), hands each to every sink in that order and makes sure exactly one `done` ends the
//! stream (events after it are dropped). Whoever emits into one run — the agent, the task runner,
//! the dataflow's task log and the [`crate::session::DeviceSession`] their tool calls go through —
//! holds a clone of the same [`Emitter`], so they share one numbering.

use std::sync::Arc;

use deft_protocol::{AgentEvent, EventKind, EventSink, ImageSink, NullImages};
use parking_lot::Mutex;

/// Numbers a run's events and fans them out (see the module docs). Clones emit into the same
/// stream.
#[derive(Clone)]
pub struct Emitter {
    inner: Arc<Inner>,
}

struct Inner {
    events: Vec<Arc<dyn EventSink>>,
    images: Arc<dyn ImageSink>,
    /// The last seq given, and whether `done` was emitted. Held while the sinks are called, so
    /// they see the events in seq order whoever emits.
    state: Mutex<(u64, bool)>,
}

impl Emitter {
    /// A stream into `events` (every event, in order), whose image bytes go to `images`.
    pub fn new(events: Vec<Arc<dyn EventSink>>, images: Arc<dyn ImageSink>) -> Emitter {
        Emitter {
            inner: Arc::new(Inner {
                events,
                images,
                state: Mutex::new((0, false)),
            }),
        }
    }

    /// A stream that keeps nothing (events dropped, images named by counter).
    pub fn discard() -> Emitter {
        Emitter::new(Vec::new(), Arc::new(NullImages::default()))
    }

    /// Emits `kind` as the stream's next event; nothing once `done` was emitted.
    pub fn emit(&self, kind: EventKind) {
        let mut state = self.inner.state.lock();
        let (seq, done) = &mut *state;
        if *done {
            return;
        }
        *done = matches!(kind, EventKind::Done { .. });
        *seq += 1;
        let event = AgentEvent { seq: *seq, kind };
        for sink in &self.inner.events {
            sink.send(&event);
        }
    }

    /// Where the run's image bytes go (events carry their ids).
    pub fn images(&self) -> &Arc<dyn ImageSink> {
        &self.inner.images
    }

    /// Whether `done` was emitted (the stream is closed).
    pub fn is_done(&self) -> bool {
        self.inner.state.lock().1
    }
}

#[cfg(test)]
mod tests {
    use deft_protocol::{DoneStatus, Usage};

    use super::*;

    #[derive(Default)]
    struct Seqs(Mutex<Vec<u64>>);

    impl EventSink for Seqs {
        fn send(&self, event: &AgentEvent) {
            self.0.lock().push(event.seq);
        }
    }

    fn error(text: &str) -> EventKind {
        EventKind::Error {
            message: text.to_owned(),
        }
    }

    #[test]
    fn clones_share_one_numbering_and_nothing_follows_done() {
        let seqs = Arc::new(Seqs::default());
        let em = Emitter::new(vec![seqs.clone()], Arc::new(NullImages::default()));
        let other = em.clone();
        em.emit(error("a"));
        other.emit(error("b"));
        em.emit(error("c"));
        assert!(!other.is_done());
        other.emit(EventKind::done(
            "end",
            Usage::default(),
            DoneStatus::Completed,
        ));
        em.emit(error("after done"));
        other.emit(EventKind::done(
            "again",
            Usage::default(),
            DoneStatus::Failed,
        ));
        assert_eq!(*seqs.0.lock(), [1, 2, 3, 4]);
        assert!(em.is_done());
    }

    #[test]
    fn images_go_to_the_streams_sink() {
        let em = Emitter::discard();
        assert_eq!(em.images().store(b"x", "image/png"), "img-1");
        assert_eq!(em.clone().images().store(b"y", "image/png"), "img-2");
    }
}
