//! A task run's event stream: numbers events by `seq`, hands them to every sink, and makes sure
//! exactly one `done` ends the stream (later events are dropped, as the agent's emitter does).

use std::sync::Arc;

use deft_protocol::{AgentEvent, EventKind, EventSink, ImageSink};

/// Where a task run's events and images go.
#[derive(Clone)]
pub struct RunSinks {
    /// Every event, in order (the trace, the console's run log, the CLI printer).
    pub events: Vec<Arc<dyn EventSink>>,
    /// Image bytes (screenshots a tool returned).
    pub images: Arc<dyn ImageSink>,
}

impl RunSinks {
    /// Sinks that drop everything.
    pub fn null() -> Self {
        RunSinks {
            events: Vec::new(),
            images: Arc::new(deft_protocol::NullImages::default()),
        }
    }
}

/// Assigns `seq` and fans events out; nothing after `done`.
pub(crate) struct Emitter {
    sinks: RunSinks,
    seq: u64,
    done: bool,
}

impl Emitter {
    pub(crate) fn new(sinks: RunSinks) -> Self {
        Emitter {
            sinks,
            seq: 0,
            done: false,
        }
    }

    pub(crate) fn images(&self) -> &dyn ImageSink {
        self.sinks.images.as_ref()
    }

    pub(crate) fn emit(&mut self, kind: EventKind) {
        if self.done {
            return;
        }
        self.done = matches!(kind, EventKind::Done { .. });
        self.seq += 1;
        let event = AgentEvent {
            seq: self.seq,
            kind,
        };
        for sink in &self.sinks.events {
            sink.send(&event);
        }
    }
}
