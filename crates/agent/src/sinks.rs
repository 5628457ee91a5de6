//! Where a run's events, images and approval questions go.

use std::sync::Arc;

use deft_protocol::AgentEvent;
use futures::future::BoxFuture;

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

/// Answers `confirm` questions.
pub trait Approver: Send + Sync {
    /// Whether the call may run.
    fn approve<'a>(
        &'a self,
        call_id: &'a str,
        tool: &'a str,
        args: &'a serde_json::Value,
        reason: &'a str,
    ) -> BoxFuture<'a, bool>;
}

/// Approves everything (`--yes`).
pub struct AutoApprove;

impl Approver for AutoApprove {
    fn approve<'a>(
        &'a self,
        _: &'a str,
        _: &'a str,
        _: &'a serde_json::Value,
        _: &'a str,
    ) -> BoxFuture<'a, bool> {
        Box::pin(async { true })
    }
}

/// Denies everything (non-interactive runs without `--yes`).
pub struct DenyAll;

impl Approver for DenyAll {
    fn approve<'a>(
        &'a self,
        _: &'a str,
        _: &'a str,
        _: &'a serde_json::Value,
        _: &'a str,
    ) -> BoxFuture<'a, bool> {
        Box::pin(async { false })
    }
}

/// Forwards events into an unbounded channel (never blocks the run).
pub struct ChannelSink(pub tokio::sync::mpsc::UnboundedSender<AgentEvent>);

impl EventSink for ChannelSink {
    fn send(&self, event: &AgentEvent) {
        let _ = self.0.send(event.clone());
    }
}

/// Drops images, naming them by counter.
#[derive(Default)]
pub struct NullImages(std::sync::atomic::AtomicU64);

impl ImageSink for NullImages {
    fn store(&self, _: &[u8], _: &str) -> String {
        format!(
            "img-{}",
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
        )
    }
}

struct NullEvents;

impl EventSink for NullEvents {
    fn send(&self, _: &AgentEvent) {}
}

/// The sinks of one run.
#[derive(Clone)]
pub struct RunIo {
    /// Events (several consumers: wrap them in a fan-out of your own).
    pub events: Vec<Arc<dyn EventSink>>,
    /// Images.
    pub images: Arc<dyn ImageSink>,
    /// Approvals.
    pub approver: Arc<dyn Approver>,
}

impl RunIo {
    /// Events and images dropped, approvals denied.
    pub fn discard() -> Self {
        RunIo {
            events: vec![Arc::new(NullEvents)],
            images: Arc::new(NullImages::default()),
            approver: Arc::new(DenyAll),
        }
    }
}
