//! Builtin tool servers: MCP servers compiled into deft, run in-process over an in-memory duplex
//! stream, and servable standalone over stdio or streamable HTTP (`deft mcp NAME`).

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::{ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::io::DuplexStream;

/// Wraps a server so that a tool that panics answers with a tool error instead of never
/// answering (rmcp runs each request as a task; a panic there would leave the caller waiting
/// for the tool's whole time limit).
pub struct PanicGuard<H>(Arc<H>);

impl<H> Clone for PanicGuard<H> {
    fn clone(&self) -> Self {
        PanicGuard(self.0.clone())
    }
}

impl<H: ServerHandler + Send + Sync + 'static> ServerHandler for PanicGuard<H> {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        self.0.get_info()
    }

    async fn list_tools(
        &self,
        request: Option<rmcp::model::PaginatedRequestParams>,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, rmcp::ErrorData> {
        self.0.list_tools(request, context).await
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.0.get_tool(name)
    }

    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        use futures::FutureExt;
        let name = request.name.to_string();
        match std::panic::AssertUnwindSafe(self.0.call_tool(request, context))
            .catch_unwind()
            .await
        {
            Ok(answer) => answer,
            Err(payload) => {
                let why = payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "no message".to_owned());
                tracing::error!(tool = %name, "a builtin tool panicked: {why}");
                Ok(rmcp::model::CallToolResponse::Complete(
                    rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(
                        crate::texts::tool_panicked(&name, &why),
                    )]),
                ))
            }
        }
    }
}

/// Buffer of the in-process duplex pipe.
const DUPLEX_BUFFER: usize = 256 * 1024;

/// A tool server compiled into deft, known by name.
pub trait BuiltinFactory: Send + Sync {
    /// Registry name (`shell`, …).
    fn name(&self) -> &str;
    /// One line on what it offers.
    fn description(&self) -> &str;
    /// Builds a server from its routing-table `options` and serves it in-process; returns the
    /// client end of the pipe. An error (bad options, no display, …) leaves its tools out.
    fn spawn_in_process(&self, options: &Value) -> Result<DuplexStream, String>;
    /// Serves a new instance on this process's stdin/stdout until the client goes away.
    fn serve_stdio(&self, options: &Value) -> BoxFuture<'static, Result<(), String>>;
    /// A streamable-HTTP MCP service for a new instance per session.
    fn http_service(
        &self,
        options: &Value,
        config: rmcp::transport::streamable_http_server::StreamableHttpServerConfig,
    ) -> Result<axum::Router, String>;
}

/// A [`BuiltinFactory`] made from a constructor `Fn(&options) -> Result<H, String>`.
pub struct Builtin<H, F> {
    name: String,
    description: String,
    make: Arc<F>,
    _handler: PhantomData<fn() -> H>,
}

impl<H, F> Builtin<H, F>
where
    H: ServerHandler + Send + Sync + 'static,
    F: Fn(&Value) -> Result<H, String> + Send + Sync + 'static,
{
    /// A factory named `name` whose instances come from `make`.
    pub fn new(name: &str, description: &str, make: F) -> Self {
        Builtin {
            name: name.to_owned(),
            description: description.to_owned(),
            make: Arc::new(make),
            _handler: PhantomData,
        }
    }
}

impl<H, F> BuiltinFactory for Builtin<H, F>
where
    H: ServerHandler + Send + Sync + 'static,
    F: Fn(&Value) -> Result<H, String> + Send + Sync + 'static,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn spawn_in_process(&self, options: &Value) -> Result<DuplexStream, String> {
        let server = PanicGuard(Arc::new((self.make)(options)?));
        let (server_io, client_io) = tokio::io::duplex(DUPLEX_BUFFER);
        let name = self.name.clone();
        tokio::spawn(async move {
            match server.serve(server_io).await {
                Ok(running) => {
                    let _ = running.waiting().await;
                }
                Err(e) => {
                    tracing::warn!(server = %name, "in-process MCP server did not start: {e}")
                }
            }
        });
        Ok(client_io)
    }

    fn serve_stdio(&self, options: &Value) -> BoxFuture<'static, Result<(), String>> {
        let made = (self.make)(options);
        Box::pin(async move {
            let server = PanicGuard(Arc::new(made?));
            let running = server
                .serve(rmcp::transport::stdio())
                .await
                .map_err(|e| format!("MCP initialisation over stdio failed: {e}"))?;
            running
                .waiting()
                .await
                .map_err(|e| format!("MCP server task failed: {e}"))?;
            Ok(())
        })
    }

    fn http_service(
        &self,
        options: &Value,
        config: rmcp::transport::streamable_http_server::StreamableHttpServerConfig,
    ) -> Result<axum::Router, String> {
        use rmcp::transport::streamable_http_server::{
            StreamableHttpService, session::local::LocalSessionManager,
        };
        // Build one instance now so bad options fail at start, not at the first request.
        (self.make)(options)?;
        let make = self.make.clone();
        let options = options.clone();
        let service = StreamableHttpService::new(
            move || {
                make(&options)
                    .map(|h| PanicGuard(Arc::new(h)))
                    .map_err(std::io::Error::other)
            },
            LocalSessionManager::default().into(),
            config,
        );
        Ok(axum::Router::new().nest_service("/mcp", service))
    }
}

/// The builtin servers a process knows, by name, and the environment of the device they work
/// for, when it has one of its own.
#[derive(Clone, Default)]
pub struct BuiltinRegistry {
    factories: BTreeMap<String, Arc<dyn BuiltinFactory>>,
    device_env: Option<crate::device_env::Source>,
}

impl BuiltinRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a factory under its name.
    pub fn register(&mut self, factory: impl BuiltinFactory + 'static) -> &mut Self {
        self.factories
            .insert(factory.name().to_owned(), Arc::new(factory));
        self
    }

    /// The device these servers work for has an environment of its own (a managed desktop's):
    /// the stdio tool servers started for it get it ([`crate::device_env::apply`]).
    pub fn with_device_env(&mut self, source: crate::device_env::Source) -> &mut Self {
        self.device_env = Some(source);
        self
    }

    /// The device's environment now, when it has one of its own.
    pub fn device_env(&self) -> Option<Vec<(String, String)>> {
        self.device_env.as_ref().map(|source| source())
    }

    /// The factory named `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn BuiltinFactory>> {
        self.factories.get(name).cloned()
    }

    /// `(name, description)` of every factory, sorted by name.
    pub fn list(&self) -> Vec<(&str, &str)> {
        self.factories
            .values()
            .map(|f| (f.name(), f.description()))
            .collect()
    }

    /// The names, comma-separated (for error messages).
    pub fn names(&self) -> String {
        self.factories
            .keys()
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    }
}
