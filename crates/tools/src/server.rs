//! One tool server as the tool layer sees it: an MCP client connection that is opened on first
//! use, re-opened after the server dies, and called with a timeout and cancellation.

use std::sync::Arc;

use parking_lot::Mutex;

use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{Peer, RunningService};
use rmcp::{RoleClient, ServiceExt};
use tokio_util::sync::CancellationToken;

use crate::builtin::BuiltinRegistry;
use crate::table::{ServerKind, ServerSpec};

/// How long a server may take to start and answer `initialize` and `tools/list`.
pub const START_TIMEOUT: Duration = Duration::from_secs(20);

/// Why a call to a server produced no tool result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The server could not be started or reached.
    #[error("{0}")]
    Start(String),
    /// The call ran past its limit; MCP cancellation was sent.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The caller cancelled; MCP cancellation was sent.
    #[error("cancelled")]
    Cancelled,
    /// The connection closed mid-call (the server died or went away).
    #[error("the tool server '{0}' closed the connection during the call")]
    Closed(String),
    /// The server answered with a protocol error (e.g. invalid arguments).
    #[error("{0}")]
    Protocol(String),
}

type Client = RunningService<RoleClient, ()>;

/// A live client connection and its generation (bumped at every reconnect).
struct Connection {
    client: Client,
    generation: u64,
}

/// A lazily connected MCP server. Cheap to share (`Arc`); calls run concurrently.
pub struct ServerHandle {
    spec: ServerSpec,
    builtins: Arc<BuiltinRegistry>,
    conn: tokio::sync::Mutex<Option<Connection>>,
    /// Fast path: the peer of a live connection, read without awaiting a lock.
    peer: Mutex<Option<(u64, Peer<RoleClient>)>>,
    generations: std::sync::atomic::AtomicU64,
    tools: tokio::sync::OnceCell<Vec<Tool>>,
}

impl ServerHandle {
    /// A handle for `spec`; nothing starts until first use.
    pub fn new(spec: ServerSpec, builtins: Arc<BuiltinRegistry>) -> Self {
        ServerHandle {
            spec,
            builtins,
            conn: tokio::sync::Mutex::new(None),
            peer: Mutex::new(None),
            generations: std::sync::atomic::AtomicU64::new(0),
            tools: tokio::sync::OnceCell::new(),
        }
    }

    /// The spec this handle serves.
    pub fn spec(&self) -> &ServerSpec {
        &self.spec
    }

    /// The namespace.
    pub fn namespace(&self) -> &str {
        &self.spec.namespace
    }

    /// The server's tools, listed once and remembered.
    pub async fn tools(&self) -> Result<&[Tool], String> {
        self.tools
            .get_or_try_init(|| async {
                let (_, peer) = self.connected_peer().await?;
                tokio::time::timeout(START_TIMEOUT, peer.list_all_tools())
                    .await
                    .map_err(|_| {
                        format!(
                            "tool server '{}' did not list its tools within {START_TIMEOUT:?}",
                            self.spec.namespace
                        )
                    })?
                    .map_err(|e| {
                        format!(
                            "tool server '{}' failed to list its tools: {e}",
                            self.spec.namespace
                        )
                    })
            })
            .await
            .map(Vec::as_slice)
    }

    /// Calls `name` with `arguments`, bounded by `limit` and `cancel`.
    pub async fn call(
        &self,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
        limit: Duration,
        cancel: &CancellationToken,
    ) -> Result<CallToolResult, CallError> {
        let (generation, peer) = self.connected_peer().await.map_err(CallError::Start)?;
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        // Dropping the call future sends MCP `notifications/cancelled` (rmcp cancels on drop).
        let outcome = tokio::select! {
            biased;
            r = peer.call_tool(params) => r,
            _ = tokio::time::sleep(limit) => return Err(CallError::Timeout(limit)),
            _ = cancel.cancelled() => return Err(CallError::Cancelled),
        };
        match outcome {
            Ok(result) => Ok(result),
            Err(rmcp::ServiceError::McpError(e)) => Err(CallError::Protocol(e.message.to_string())),
            Err(rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_)) => {
                self.forget(generation).await;
                Err(CallError::Closed(self.spec.namespace.clone()))
            }
            Err(e) => {
                if peer.is_transport_closed() {
                    self.forget(generation).await;
                    return Err(CallError::Closed(self.spec.namespace.clone()));
                }
                Err(CallError::Protocol(e.to_string()))
            }
        }
    }

    /// Drops connection `generation` if it is still the current one, so the next use reconnects.
    async fn forget(&self, generation: u64) {
        let mut conn = self.conn.lock().await;
        if conn.as_ref().is_some_and(|c| c.generation == generation) {
            *conn = None;
            *self.lock_peer() = None;
        }
    }

    fn lock_peer(&self) -> parking_lot::MutexGuard<'_, Option<(u64, Peer<RoleClient>)>> {
        self.peer.lock()
    }

    /// The peer of a live connection, connecting (or reconnecting after a death) when needed.
    async fn connected_peer(&self) -> Result<(u64, Peer<RoleClient>), String> {
        if let Some((generation, peer)) = self.lock_peer().as_ref()
            && !peer.is_transport_closed()
        {
            return Ok((*generation, peer.clone()));
        }
        let mut conn = self.conn.lock().await;
        if let Some(c) = conn.as_ref() {
            if !c.client.is_closed() && !c.client.peer().is_transport_closed() {
                return Ok((c.generation, c.client.peer().clone()));
            }
            tracing::warn!(server = %self.spec.namespace, "tool server connection was lost; restarting it");
        }
        let client = tokio::time::timeout(START_TIMEOUT, self.connect())
            .await
            .map_err(|_| {
                format!(
                    "tool server '{}' did not start within {START_TIMEOUT:?}",
                    self.spec.namespace
                )
            })??;
        let generation = self
            .generations
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        let peer = client.peer().clone();
        *conn = Some(Connection { client, generation });
        *self.lock_peer() = Some((generation, peer.clone()));
        Ok((generation, peer))
    }

    async fn connect(&self) -> Result<Client, String> {
        let ns = &self.spec.namespace;
        match &self.spec.kind {
            ServerKind::Builtin { name, options } => {
                let factory = self.builtins.get(name).ok_or_else(|| {
                    format!(
                        "tool server '{ns}': no builtin server named '{name}' (known: {})",
                        self.builtins.names()
                    )
                })?;
                let io = factory.spawn_in_process(options).map_err(|e| {
                    format!("tool server '{ns}' (builtin '{name}') cannot start: {e}")
                })?;
                ().serve(io).await.map_err(|e| {
                    format!("tool server '{ns}' (builtin '{name}') failed to initialise: {e}")
                })
            }
            ServerKind::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let device_env = self.builtins.device_env();
                let child = crate::child::spawn_stdio(
                    ns,
                    command,
                    args,
                    env,
                    cwd.as_deref(),
                    device_env.as_deref(),
                )?;
                ().serve(child).await.map_err(|e| {
                    format!("tool server '{ns}' ({command}) failed to initialise over stdio: {e}")
                })
            }
            ServerKind::Http { url, headers } => {
                let transport = crate::child::http_transport(ns, url, headers)?;
                ().serve(transport)
                    .await
                    .map_err(|e| format!("tool server '{ns}' at {url} failed to initialise: {e}"))
            }
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        // Closing the client closes the pipe; a stdio child's process group is killed on drop.
        if let Ok(mut conn) = self.conn.try_lock() {
            conn.take();
        }
    }
}
