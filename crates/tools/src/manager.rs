//! ComputerManager: one per device session; builds and caches one Computer per
//! `agent::process::root`, building each only once even when asked concurrently.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use tokio::sync::OnceCell;

use crate::builtin::BuiltinRegistry;
use crate::computer::{Computer, DuplicateTool, Placement};
use crate::pool::ServerPool;
use crate::table::{LookupError, RoutingTable};

/// A Computer could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RouteError {
    /// Unknown profile or agent.
    #[error(transparent)]
    Lookup(#[from] LookupError),
    /// A tool name offered twice.
    #[error(transparent)]
    Duplicate(#[from] DuplicateTool),
}

/// The Computers of one device session and the server instances they share.
pub struct ComputerManager {
    table: Arc<RoutingTable>,
    profile: String,
    pool: ServerPool,
    computers: Mutex<HashMap<String, Arc<OnceCell<Arc<Computer>>>>>,
}

impl ComputerManager {
    /// A manager for `profile` of `table`; fails when the table has no such profile.
    pub fn new(
        table: Arc<RoutingTable>,
        profile: &str,
        builtins: Arc<BuiltinRegistry>,
    ) -> Result<Self, LookupError> {
        if !table.profiles.contains_key(profile) {
            return Err(LookupError {
                file: table.source.clone(),
                what: "profile",
                name: profile.to_owned(),
                known: table.profile_names().join(", "),
            });
        }
        Ok(ComputerManager {
            table,
            profile: profile.to_owned(),
            pool: ServerPool::new(builtins),
            computers: Mutex::new(HashMap::new()),
        })
    }

    /// The profile this session serves.
    pub fn profile(&self) -> &str {
        &self.profile
    }

    /// The routing table.
    pub fn table(&self) -> &RoutingTable {
        &self.table
    }

    /// The session's server instances.
    pub fn pool(&self) -> &ServerPool {
        &self.pool
    }

    /// The Computer for `agent::process::root` (unknown root → `default`), built on first use.
    pub async fn get_or_create(
        &self,
        agent: &str,
        process: &str,
        root: &str,
    ) -> Result<Arc<Computer>, RouteError> {
        let route = self.table.route(&self.profile, agent, root)?;
        let key = format!("{agent}::{process}::{}", route.root);
        let cell = {
            let mut computers = self.computers.lock();
            match computers.get(&key) {
                Some(cell) => cell.clone(),
                None => computers.entry(key.clone()).or_default().clone(),
            }
        };
        if let Some(built) = cell.get() {
            return Ok(built.clone());
        }
        cell.get_or_try_init(|| async {
            let placement = Placement {
                file: self.table.source.clone(),
                key: format!("profiles.{}.{agent}.{}", self.profile, route.root),
            };
            Computer::build(
                key,
                (process, root),
                route.entry,
                &self.pool,
                &self.table.timeouts,
                &placement,
            )
            .await
            .map(Arc::new)
        })
        .await
        .cloned()
        .map_err(RouteError::from)
    }
}
