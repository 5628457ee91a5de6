//! The Dispatcher seam (docs/design.md "Dispatcher"): the agent hands a batch to a device's
//! dispatcher and gets one Result per Command back, whether the device is this machine or a remote
//! one.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use deft_protocol::{Command, CommandResult, ToolInfo, ToolType};
use futures::future::BoxFuture;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::builtin::BuiltinRegistry;
use crate::manager::ComputerManager;
use crate::router::{Batch, CommandRouter};
use crate::table::RoutingTable;
use crate::texts;

/// Everything a dispatcher needs to know about a batch besides its commands.
#[derive(Debug, Clone)]
pub struct ExecContext {
    /// Device id (`local`, `browser`, a client id).
    pub device: String,
    /// Routing-table profile.
    pub profile: String,
    /// Agent section.
    pub agent: String,
    /// Process (window title).
    pub process: String,
    /// Application root.
    pub root: String,
    /// Skip the rest after the first failure.
    pub early_exit: bool,
    /// How long the whole batch may take.
    pub deadline: Duration,
    /// Stop: cancels the command in flight and fails the rest.
    pub cancel: CancellationToken,
    /// Where each command's Result goes the moment it is known, before the batch answers (the
    /// device client sends them on, so a dropped link costs at most the command in flight).
    pub progress: Option<tokio::sync::mpsc::UnboundedSender<CommandResult>>,
}

impl ExecContext {
    /// A context for `device`/`profile` with `HostAgent`, no process, the default root, early
    /// exit on, the default batch deadline (600 s) and a fresh cancellation token.
    pub fn new(device: &str, profile: &str) -> Self {
        ExecContext {
            device: device.to_owned(),
            profile: profile.to_owned(),
            agent: "HostAgent".to_owned(),
            process: String::new(),
            root: String::new(),
            early_exit: true,
            deadline: crate::table::Timeouts::default().batch(),
            cancel: CancellationToken::new(),
            progress: None,
        }
    }
}

/// Runs command batches on one device. Always answers: `len(results) == len(commands)`, in
/// order, each Result with its Command's call_id.
pub trait Dispatcher: Send + Sync {
    /// Executes `commands`; empty call_ids are filled before they run.
    fn execute<'a>(
        &'a self,
        ctx: &'a ExecContext,
        commands: Vec<Command>,
    ) -> BoxFuture<'a, Vec<CommandResult>>;
}

/// Gives every command without a call_id a fresh one; keeps the given ones.
pub fn fill_call_ids(commands: &mut [Command]) {
    for c in commands.iter_mut().filter(|c| c.call_id.is_empty()) {
        c.call_id = uuid::Uuid::new_v4().to_string();
    }
}

/// One failure Result per command with the dispatcher's error text.
pub fn error_results(commands: &[Command], error: &str) -> Vec<CommandResult> {
    commands
        .iter()
        .map(|c| CommandResult::failure(&c.call_id, texts::dispatch_error(c, error), None))
        .collect()
}

/// The dispatcher of this machine: runs batches through its own CommandRouters, one device
/// session (ComputerManager) per profile it is asked for.
pub struct LocalDispatcher {
    table: Arc<RoutingTable>,
    builtins: Arc<BuiltinRegistry>,
    routers: Mutex<HashMap<String, Arc<CommandRouter>>>,
}

impl LocalDispatcher {
    /// A dispatcher over `table` whose builtin servers come from `builtins`.
    pub fn new(table: Arc<RoutingTable>, builtins: Arc<BuiltinRegistry>) -> Self {
        LocalDispatcher {
            table,
            builtins,
            routers: Mutex::new(HashMap::new()),
        }
    }

    /// The routing table.
    pub fn table(&self) -> &Arc<RoutingTable> {
        &self.table
    }

    /// The router (device session) for `profile`, created on first use.
    pub fn router(&self, profile: &str) -> Result<Arc<CommandRouter>, String> {
        let mut routers = self.routers.lock();
        if let Some(r) = routers.get(profile) {
            return Ok(r.clone());
        }
        let manager = ComputerManager::new(self.table.clone(), profile, self.builtins.clone())
            .map_err(|e| e.to_string())?;
        let router = Arc::new(CommandRouter::new(Arc::new(manager)));
        routers.insert(profile.to_owned(), router.clone());
        Ok(router)
    }
}

impl Dispatcher for LocalDispatcher {
    fn execute<'a>(
        &'a self,
        ctx: &'a ExecContext,
        mut commands: Vec<Command>,
    ) -> BoxFuture<'a, Vec<CommandResult>> {
        Box::pin(async move {
            fill_call_ids(&mut commands);
            let router = match self.router(&ctx.profile) {
                Ok(r) => r,
                Err(e) => return error_results(&commands, &e),
            };
            let deadline = Instant::now() + ctx.deadline;
            let batch = Batch {
                agent: &ctx.agent,
                process: &ctx.process,
                root: &ctx.root,
                early_exit: ctx.early_exit,
                deadline: Some((deadline, ctx.deadline)),
                progress: ctx.progress.as_ref(),
            };
            // The router bounds every call by the deadline; this outer bound only catches a
            // Computer whose servers hang while starting.
            let run = router.execute(&batch, &commands, &ctx.cancel);
            match tokio::time::timeout_at(deadline + Duration::from_secs(1), run).await {
                Ok(Ok(results)) => results,
                Ok(Err(e)) => error_results(&commands, &e.to_string()),
                Err(_) => commands
                    .iter()
                    .map(|c| {
                        CommandResult::failure(
                            &c.call_id,
                            texts::deadline_not_run(ctx.deadline),
                            None,
                        )
                    })
                    .collect(),
            }
        })
    }
}

/// The tools of the Computer `ctx` names, learned through `dispatcher` with `list_tools` (what
/// the agent offers its model, and what a device's MCP endpoint lists).
pub async fn list_tools(
    dispatcher: &dyn Dispatcher,
    ctx: &ExecContext,
) -> Result<Vec<ToolInfo>, String> {
    let cmd = Command::new(
        crate::computer::LIST_TOOLS,
        Some(ToolType::DataCollection),
        serde_json::json!({}),
    );
    let mut results = dispatcher.execute(ctx, vec![cmd]).await;
    let r = results.pop().ok_or(texts::LIST_TOOLS_NO_RESULT)?;
    if !r.is_success() {
        return Err(r
            .error
            .unwrap_or_else(|| texts::LIST_TOOLS_FAILED.to_owned()));
    }
    serde_json::from_value(r.result).map_err(|e| texts::list_tools_unreadable(&e.to_string()))
}
