//! Where a run's events and images go: the traits every consumer of the event stream implements
//! (the trace, the console, the CLI), beside [`AgentEvent`] so consumers depend on the protocol,
//! not on the agent that produces the stream.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::AgentEvent;

/// Receives every event of a run, in order. Must not block.
pub trait EventSink: Send + Sync {
    /// One event.
    fn send(&self, event: &AgentEvent);
}

/// Stores image bytes and names them; events carry only the names.
pub trait ImageSink: Send + Sync {
    /// Stores `bytes` (`mime`, e.g. `image/png`) and returns its id.
    fn store(&self, bytes: &[u8], mime: &str) -> String;
}

/// Drops every event.
pub struct NullEvents;

impl EventSink for NullEvents {
    fn send(&self, _: &AgentEvent) {}
}

/// Drops images, naming them by counter (`img-1`, `img-2`, …).
#[derive(Default)]
pub struct NullImages(AtomicU64);

impl ImageSink for NullImages {
    fn store(&self, _: &[u8], _: &str) -> String {
        format!("img-{}", self.0.fetch_add(1, Ordering::Relaxed) + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_images_name_images_in_order() {
        let sink = NullImages::default();
        assert_eq!(sink.store(b"a", "image/png"), "img-1");
        assert_eq!(sink.store(b"b", "image/jpeg"), "img-2");
    }
}
