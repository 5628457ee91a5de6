//! The agent's side of a run's I/O: who answers approval questions, and the bundle of sinks one
//! run writes to. The event and image sink traits live in `deft-protocol` beside `AgentEvent`.

use std::sync::Arc;

use deft_protocol::{AgentEvent, EventSink, ImageSink, NullEvents, NullImages};
use futures::future::BoxFuture;

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

/// Answers every question the same way: `FixedApproval(true)` approves everything (`--yes`),
/// `FixedApproval(false)` denies everything (runs nobody can answer for).
pub struct FixedApproval(pub bool);

impl Approver for FixedApproval {
    fn approve<'a>(
        &'a self,
        _: &'a str,
        _: &'a str,
        _: &'a serde_json::Value,
        _: &'a str,
    ) -> BoxFuture<'a, bool> {
        let answer = self.0;
        Box::pin(async move { answer })
    }
}

/// Forwards events into an unbounded channel (never blocks the run).
pub struct ChannelSink(pub tokio::sync::mpsc::UnboundedSender<AgentEvent>);

impl EventSink for ChannelSink {
    fn send(&self, event: &AgentEvent) {
        let _ = self.0.send(event.clone());
    }
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
            approver: Arc::new(FixedApproval(false)),
        }
    }
}
