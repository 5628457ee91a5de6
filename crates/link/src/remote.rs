//! The Remote dispatcher: the same [`Dispatcher`] interface as the local one, for a device
//! connected over the link. Each batch gets a fresh `response_id` and a pending reply; the
//! device's `command_results` resolve it once; deadline, stop and disconnect resolve it with the
//! contract's failure texts; the pending entry is always removed.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use deft_protocol::link::{ServerMessage, ServerMessageType, TaskStatus};
use deft_protocol::{Command, CommandResult};
use deft_tools::dispatcher::{ExecContext, fill_call_ids};
use deft_tools::{Dispatcher, texts as tool_texts};
use futures::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::texts;

/// How long after a stop the dispatcher waits for the device's own per-command answer before
/// answering with the stop text itself (the contract: stop takes effect within 2 s).
pub const STOP_WAIT: Duration = Duration::from_millis(1500);

/// How long past the batch deadline the dispatcher waits for the device, whose own deadline
/// answer is preferred because it knows which commands ran.
pub const DEADLINE_GRACE: Duration = Duration::from_secs(2);

/// What became of a `command_results` message handed to [`RemoteDispatcher::resolve`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// A batch was waiting for it and got it.
    Delivered,
    /// No batch of this device waits for that id: late, duplicate or not sent to this device.
    NotPending,
}

struct Pending {
    reply: oneshot::Sender<Vec<CommandResult>>,
    /// Results the device sent one by one as its commands finished (`command_result`).
    finished: Vec<CommandResult>,
}

struct Shared {
    device: String,
    outbox: mpsc::Sender<ServerMessage>,
    pending: Mutex<HashMap<String, Pending>>,
    gone: CancellationToken,
    /// One batch at a time per device, in the order they were asked for.
    order: tokio::sync::Mutex<()>,
}

/// Dispatches batches to one connected device. Cheap to clone; all clones share the pending
/// table and the connection.
#[derive(Clone)]
pub struct RemoteDispatcher {
    shared: Arc<Shared>,
}

/// Removes a pending entry however the wait ends; a batch abandoned before its answer (its
/// caller went away) is cancelled on the device.
struct PendingGuard<'a> {
    shared: &'a Shared,
    response_id: String,
    answered: bool,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        let removed = self.shared.pending.lock().remove(&self.response_id);
        if removed.is_some() && !self.answered && !self.shared.gone.is_cancelled() {
            let _ = self
                .shared
                .outbox
                .try_send(cancel_message(&self.response_id));
        }
    }
}

fn cancel_message(response_id: &str) -> ServerMessage {
    let mut m = ServerMessage::new(ServerMessageType::Cancel, TaskStatus::Continue);
    m.response_id = Some(response_id.to_owned());
    m
}

impl RemoteDispatcher {
    /// A dispatcher for `device` whose messages go to `outbox` (the connection's writer).
    pub fn new(device: &str, outbox: mpsc::Sender<ServerMessage>) -> Self {
        RemoteDispatcher {
            shared: Arc::new(Shared {
                device: device.to_owned(),
                outbox,
                pending: Mutex::new(HashMap::new()),
                gone: CancellationToken::new(),
                order: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// The device id.
    pub fn device(&self) -> &str {
        &self.shared.device
    }

    /// Hands the device's results for `response_id` to the batch waiting for them. Late and
    /// duplicate replies, and replies for batches not sent to this device, are `NotPending`.
    pub fn resolve(&self, response_id: &str, results: Vec<CommandResult>) -> Resolution {
        let entry = self.shared.pending.lock().remove(response_id);
        match entry {
            Some(p) => {
                // The waiter may have just given up (deadline, stop); then the reply is late.
                if p.reply.send(results).is_ok() {
                    Resolution::Delivered
                } else {
                    Resolution::NotPending
                }
            }
            None => Resolution::NotPending,
        }
    }

    /// Keeps results the device sent as its commands finished, so a batch cut off later still
    /// answers them as they were. `NotPending` when no batch waits for `response_id`.
    pub fn record_finished(&self, response_id: &str, results: Vec<CommandResult>) -> Resolution {
        match self.shared.pending.lock().get_mut(response_id) {
            Some(p) => {
                p.finished.extend(results);
                Resolution::Delivered
            }
            None => Resolution::NotPending,
        }
    }

    /// The connection is gone: every waiting batch fails at once with the disconnect text, and
    /// every later batch fails without being sent.
    pub fn disconnect(&self) {
        self.shared.gone.cancel();
    }

    /// Whether the connection is gone.
    pub fn is_disconnected(&self) -> bool {
        self.shared.gone.is_cancelled()
    }

    /// How many results the device has reported finished for the batches waiting now.
    pub fn finished_count(&self) -> usize {
        self.shared
            .pending
            .lock()
            .values()
            .map(|p| p.finished.len())
            .sum()
    }

    /// How many batches wait for an answer (0 or 1 in normal operation).
    pub fn pending_count(&self) -> usize {
        self.shared.pending.lock().len()
    }

    async fn run(&self, ctx: &ExecContext, commands: Vec<Command>) -> Vec<CommandResult> {
        let shared = &*self.shared;
        let disconnected = |commands: &[Command]| all_failed(commands, tool_texts::DISCONNECTED);
        let stopped = |commands: &[Command]| all_failed(commands, tool_texts::STOPPED);
        // After the batch was sent: what the device reported finished, `text` for the rest.
        let cut_off = |response_id: &str, commands: &[Command], text: &str| {
            let finished = shared
                .pending
                .lock()
                .get(response_id)
                .map(|p| p.finished.clone())
                .unwrap_or_default();
            finished_or(commands, finished, text)
        };
        let deadline_at = tokio::time::Instant::now() + ctx.deadline;

        // Wait for the device's earlier batch; a stop, the deadline or a disconnect meanwhile
        // means this batch never ran.
        let _turn = tokio::select! {
            biased;
            _ = shared.gone.cancelled() => return disconnected(&commands),
            _ = ctx.cancel.cancelled() => return stopped(&commands),
            _ = tokio::time::sleep_until(deadline_at) => return deadline_results(ctx, &commands),
            turn = shared.order.lock() => turn,
        };

        let response_id = uuid::Uuid::new_v4().to_string();
        let (tx, mut rx) = oneshot::channel();
        shared.pending.lock().insert(
            response_id.clone(),
            Pending {
                reply: tx,
                finished: Vec::new(),
            },
        );
        let mut guard = PendingGuard {
            shared,
            response_id: response_id.clone(),
            answered: false,
        };

        let remaining = deadline_at.saturating_duration_since(tokio::time::Instant::now());
        let mut message = ServerMessage::new(ServerMessageType::Command, TaskStatus::Continue);
        message.agent_name = Some(ctx.agent.clone());
        message.process_name = Some(ctx.process.clone());
        message.root_name = Some(ctx.root.clone());
        message.actions = Some(commands.clone());
        message.response_id = Some(response_id.clone());
        message.early_exit = Some(ctx.early_exit);
        message.deadline_ms = Some(remaining.as_millis().min(u128::from(u64::MAX)) as u64);
        message.timestamp = Some(crate::now_iso8601());
        let sent = tokio::select! {
            biased;
            _ = shared.gone.cancelled() => false,
            r = shared.outbox.send(message) => r.is_ok(),
        };
        if !sent {
            guard.answered = true;
            return disconnected(&commands);
        }

        let gone = tool_texts::DISCONNECTED;
        tokio::select! {
            biased;
            r = &mut rx => {
                guard.answered = true;
                match r {
                    Ok(results) => complete(&commands, results),
                    Err(_) => disconnected(&commands),
                }
            }
            _ = shared.gone.cancelled() => {
                guard.answered = true;
                cut_off(&response_id, &commands, gone)
            }
            _ = ctx.cancel.cancelled() => {
                let _ = shared.outbox.try_send(cancel_message(&response_id));
                guard.answered = true;
                tokio::select! {
                    biased;
                    r = &mut rx => match r {
                        Ok(results) => complete(&commands, results),
                        Err(_) => stopped(&commands),
                    },
                    _ = shared.gone.cancelled() => cut_off(&response_id, &commands, gone),
                    _ = tokio::time::sleep(STOP_WAIT) => cut_off(&response_id, &commands, tool_texts::STOPPED),
                }
            }
            _ = tokio::time::sleep_until(deadline_at + DEADLINE_GRACE) => {
                tracing::warn!(device = %shared.device, %response_id, "no answer by the batch deadline; cancelling it on the device");
                let _ = shared.outbox.try_send(cancel_message(&response_id));
                guard.answered = true;
                // The batch was sent: whether each unreported command ran is unknown, never
                // "not executed".
                cut_off(&response_id, &commands, &tool_texts::deadline_unanswered(ctx.deadline))
            }
        }
    }
}

impl Dispatcher for RemoteDispatcher {
    fn execute<'a>(
        &'a self,
        ctx: &'a ExecContext,
        mut commands: Vec<Command>,
    ) -> BoxFuture<'a, Vec<CommandResult>> {
        Box::pin(async move {
            fill_call_ids(&mut commands);
            if commands.is_empty() {
                return Vec::new();
            }
            self.run(ctx, commands).await
        })
    }
}

fn all_failed(commands: &[Command], text: &str) -> Vec<CommandResult> {
    commands
        .iter()
        .map(|c| CommandResult::failure(&c.call_id, text, None))
        .collect()
}

/// One Result per command: the one the device reported finished, else a failure with `text`.
fn finished_or(
    commands: &[Command],
    finished: Vec<CommandResult>,
    text: &str,
) -> Vec<CommandResult> {
    let mut by_id: HashMap<String, CommandResult> = HashMap::new();
    for r in finished {
        by_id.entry(r.call_id.clone()).or_insert(r);
    }
    commands
        .iter()
        .map(|c| {
            by_id
                .remove(&c.call_id)
                .unwrap_or_else(|| CommandResult::failure(&c.call_id, text, None))
        })
        .collect()
}

fn deadline_results(ctx: &ExecContext, commands: &[Command]) -> Vec<CommandResult> {
    all_failed(commands, &tool_texts::deadline_not_run(ctx.deadline))
}

/// Lines the device's results up with the commands: one per command, in order, with its
/// call_id. A command the device gave no Result for fails with [`texts::NO_RESULT`].
pub fn complete(commands: &[Command], results: Vec<CommandResult>) -> Vec<CommandResult> {
    let in_order = results.len() == commands.len()
        && results
            .iter()
            .zip(commands)
            .all(|(r, c)| r.call_id == c.call_id);
    if in_order {
        return results;
    }
    tracing::warn!(
        "the device answered {} results for {} commands, or out of order; matching them by call_id",
        results.len(),
        commands.len()
    );
    finished_or(commands, results, texts::NO_RESULT)
}
