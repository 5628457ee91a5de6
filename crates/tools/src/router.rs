//! CommandRouter: runs one batch on the Computer of `agent::process::root`, in order, one Result
//! per Command with its call_id, early exit after the first failure, no pause between commands.

use std::sync::Arc;
use std::time::Duration;

use deft_protocol::{Command, CommandResult, ResultStatus};
use serde_json::Value;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::manager::{ComputerManager, RouteError};
use crate::texts;

/// Where and how a batch runs.
#[derive(Debug, Clone)]
pub struct Batch<'a> {
    /// Agent section (`HostAgent`, `AppAgent`, …).
    pub agent: &'a str,
    /// Process (window title) the Computer is bound to.
    pub process: &'a str,
    /// Application root.
    pub root: &'a str,
    /// Skip the rest after the first failure.
    pub early_exit: bool,
    /// When the batch must be over, and its length (for the message).
    pub deadline: Option<(Instant, Duration)>,
    /// Gets each Result as soon as it is known ([`crate::ExecContext::progress`]).
    pub progress: Option<&'a tokio::sync::mpsc::UnboundedSender<CommandResult>>,
}

/// Routes batches to the Computers of one device session.
pub struct CommandRouter {
    manager: Arc<ComputerManager>,
}

impl CommandRouter {
    /// A router over `manager`'s Computers.
    pub fn new(manager: Arc<ComputerManager>) -> Self {
        CommandRouter { manager }
    }

    /// The manager.
    pub fn manager(&self) -> &Arc<ComputerManager> {
        &self.manager
    }

    /// Runs `commands`; `Err` only when the Computer itself cannot be had (the dispatcher turns
    /// that into a failure per command).
    pub async fn execute(
        &self,
        batch: &Batch<'_>,
        commands: &[Command],
        cancel: &CancellationToken,
    ) -> Result<Vec<CommandResult>, RouteError> {
        let computer = self
            .manager
            .get_or_create(batch.agent, batch.process, batch.root)
            .await?;
        let mut results = Vec::with_capacity(commands.len());
        let mut failed = false;
        for command in commands {
            let id = command.call_id.as_str();
            let result = if command.tool_name.is_empty() {
                CommandResult {
                    error: Some(String::new()),
                    ..CommandResult::success(id, Value::String(texts::NO_ACTION.into()), None)
                }
            } else if cancel.is_cancelled() {
                CommandResult::failure(id, texts::STOPPED, None)
            } else if let Some((at, len)) = batch.deadline
                && Instant::now() >= at
            {
                CommandResult::failure(id, texts::deadline_not_run(len), None)
            } else if batch.early_exit && failed {
                CommandResult::skipped(id, texts::SKIPPED_EARLY_EXIT)
            } else {
                computer.run(command, batch.deadline, cancel).await
            };
            failed |= result.status == ResultStatus::Failure;
            if let Some(progress) = batch.progress {
                let _ = progress.send(result.clone());
            }
            results.push(result);
        }
        Ok(results)
    }
}
