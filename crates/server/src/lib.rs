//! `deft serve`: one HTTP listener for the device endpoint `/ws`, the JSON API and (later) the
//! console.
//!
//! - [`ws`]: `/ws`, where `deft client` devices connect (device token checked at upgrade, refused
//!   with close code 1008), register and answer batches through a [`deft_link::RemoteDispatcher`].
//! - [`registry::Registry`]: the device directory behind the contract's [`deft_tools::Devices`]
//!   trait — the server's own devices (`local`, …), its phones ([`phones`]: kept current by
//!   the caller from the adb server's list) and every connected client.
//! - [`api`]: `GET /api/devices`, `GET /api/devices/{id}`, `POST /api/devices/{id}/exec`
//!   (Bearer API token, see [`auth`]); `GET /health` is open.
//! - [`mcp_devices`]: `/mcp/devices/{id}`, each device as one MCP endpoint (streamable HTTP,
//!   the API's authentication).
//! - [`api_client::ApiClient`]: the same routes from the caller's side (`deft devices`,
//!   `deft exec --server`).
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use deft_server::{Server, ServerConfig};
//! let config = ServerConfig::new("127.0.0.1:8030".parse().unwrap(), "device-token", "api-token");
//! let server = Server::bind(config).await?;
//! tracing::info!("listening on {}", server.local_addr());
//! server.serve(tokio_util::sync::CancellationToken::new()).await
//! # }
//! ```
//!
//! - [`console`]: with a [`console::Console`] in the config, the web console and its API
//!   (logins, settings, conversations, the run slot, SSE, approvals, live view).
//! - [`openapi`]: `GET /api/openapi.json`, the OpenAPI 3.1 document of every route, written
//!   from its route catalogue and the schemas of the types the handlers serialize.
//!
//! The server holds no agent logic and runs no tools itself: batches go to a device's
//! dispatcher, runs to `deft_agent`. API access is decided in one place,
//! [`console::sessions::authorize`].

#![forbid(unsafe_code)]

pub mod api;
pub mod api_client;
pub mod auth;
pub mod console;
pub mod mcp_devices;
pub mod openapi;
pub mod phones;
pub mod registry;
pub mod texts;
pub mod ws;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use deft_tools::Device;
use deft_tools::authority::{self, HostPolicy};
use deft_tools::table::RoutingTable;
use tokio_util::sync::CancellationToken;

pub use phones::{PhoneGone, PhoneSeen};
pub use registry::Registry;

/// The routing-table profile of phones.
pub const PHONE_PROFILE: &str = "android";
pub use ws::LinkLimits;

/// What `deft serve` is started with.
#[derive(Clone)]
pub struct ServerConfig {
    /// Listen address (default `127.0.0.1:8030`).
    pub bind: SocketAddr,
    /// The token devices present on `/ws`.
    pub device_token: String,
    /// The token API callers present as Bearer.
    pub api_token: String,
    /// The server's own devices (`local`, later `browser`).
    pub devices: Vec<Device>,
    /// Device-endpoint limits.
    pub limits: LinkLimits,
    /// Default batch deadline of the exec route (600 s).
    pub batch_deadline: Duration,
    /// The largest request body the API reads (1 MiB, [`api::MAX_JSON_BODY`]); a larger one is
    /// answered 413. Device messages on `/ws` have their own limit ([`LinkLimits`]).
    pub max_body: usize,
    /// Host names accepted besides this machine's on a loopback address (a proxy in front that
    /// passes its own name); see [`deft_tools::authority`].
    pub allowed_hosts: Vec<String>,
    /// The console (logins, settings, conversations, runs, web UI); `None` serves only the
    /// device endpoint and the API-token routes.
    pub console: Option<console::Console>,
    /// The routing table the server's devices route by (`deft serve`: its `--tools-config`;
    /// default: the built-in one): the device MCP endpoints name from it the application whose
    /// window brings a tool asked for too early.
    pub routing_table: Arc<RoutingTable>,
}

impl ServerConfig {
    /// A configuration with no own devices and the default limits.
    pub fn new(bind: SocketAddr, device_token: &str, api_token: &str) -> Self {
        ServerConfig {
            bind,
            device_token: device_token.to_owned(),
            api_token: api_token.to_owned(),
            devices: Vec::new(),
            limits: LinkLimits::default(),
            batch_deadline: Duration::from_secs(600),
            max_body: api::MAX_JSON_BODY,
            allowed_hosts: Vec::new(),
            console: None,
            routing_table: Arc::new(RoutingTable::builtin()),
        }
    }
}

/// Shared by every route.
#[derive(Clone)]
pub struct AppState {
    /// The device directory.
    pub registry: Registry,
    /// The console, when the server has one.
    pub console: Option<console::Console>,
    /// The API token (Bearer).
    pub api_token: Arc<str>,
    device_token: Arc<str>,
    limits: LinkLimits,
    batch_deadline: Duration,
    /// The largest request body the API reads.
    pub max_body: usize,
    /// What every request's `Host` and `Origin` must say.
    hosts: Arc<HostPolicy>,
    /// Fires when the server stops: device connections close with 1001, SSE and live streams
    /// end.
    pub(crate) stopping: CancellationToken,
    /// Each device's MCP endpoint (`/mcp/devices/{id}`).
    mcp: mcp_devices::McpEndpoints,
    /// The routing table the devices route by.
    routing_table: Arc<RoutingTable>,
}

impl AppState {
    /// State for `config`.
    pub fn new(config: &ServerConfig) -> Self {
        AppState {
            registry: Registry::new(config.devices.clone()),
            console: config.console.clone(),
            api_token: Arc::from(config.api_token.as_str()),
            device_token: Arc::from(config.device_token.as_str()),
            limits: config.limits.clone(),
            batch_deadline: config.batch_deadline,
            max_body: config.max_body,
            hosts: Arc::new(HostPolicy::new(config.bind, &config.allowed_hosts)),
            stopping: CancellationToken::new(),
            mcp: mcp_devices::McpEndpoints::default(),
            routing_table: config.routing_table.clone(),
        }
    }
}

impl AppState {
    /// The console, or 404 when this server runs without one.
    pub fn console(&self) -> Result<&console::Console, api::ApiError> {
        self.console.as_ref().ok_or_else(|| {
            api::ApiError(
                StatusCode::NOT_FOUND,
                "this server runs without the console".to_owned(),
            )
        })
    }
}

/// Lets a request into `/api` when [`console::sessions::authorize`] says so.
async fn require_api_auth(
    State(app): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    match console::sessions::authorize(
        &app.api_token,
        app.console.as_ref(),
        request.method(),
        request.headers(),
    )
    .await
    {
        Ok(principal) => {
            let method = request.method().clone();
            // The whole path: inside `/api`'s nested router the URI has lost its prefix.
            let path = request
                .extensions()
                .get::<axum::extract::OriginalUri>()
                .map_or_else(|| request.uri().path(), |u| u.path())
                .to_owned();
            // The token whose calls are logged: a named one, or the server's own.
            let logged = match &principal {
                console::sessions::Principal::Token(token) => Some(token.id.clone()),
                console::sessions::Principal::ApiToken => {
                    Some(deft_store::SERVER_TOKEN_ID.to_owned())
                }
                console::sessions::Principal::User { .. } => None,
            };
            let answer = match &principal {
                console::sessions::Principal::Token(token) => {
                    let within_api = path.strip_prefix("/api").unwrap_or(&path);
                    let needed = console::token_access::required(&method, within_api);
                    // The document describes the API to whoever may call any of it.
                    let permitted = if within_api == openapi::PATH_IN_API {
                        Ok(())
                    } else {
                        console::token_access::permit(token, needed)
                    };
                    match permitted {
                        Ok(()) => {
                            let name = token.name.clone();
                            request.extensions_mut().insert(principal);
                            let answer = next.run(request).await;
                            match &app.console {
                                Some(console) => console::token_streams::ending_with_token(
                                    answer,
                                    console.store().clone(),
                                    name,
                                ),
                                None => answer,
                            }
                        }
                        Err(refused) => refused.into_response(),
                    }
                }
                // Who is calling, for the routes that record it (who set a secret).
                _ => {
                    request.extensions_mut().insert(principal);
                    next.run(request).await
                }
            };
            if let (Some(console), Some(token_id)) = (&app.console, logged) {
                console
                    .token_calls()
                    .record(&token_id, method.as_str(), &path, answer.status());
            }
            answer
        }
        Err(e) => e.into_response(),
    }
}

/// Lets a request in when its `Host` and `Origin` are what this listener takes (the check
/// `deft mcp … --http` makes too): against DNS rebinding and cross-origin requests.
async fn check_host(State(app): State<AppState>, request: Request, next: Next) -> Response {
    match authority::check(request.headers(), &app.hosts) {
        Ok(()) => next.run(request).await,
        Err(refused) => {
            let mut answer =
                api::ApiError(refused.status(), refused.text().to_owned()).into_response();
            // The body is never read: the connection cannot carry another request.
            answer
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            answer
        }
    }
}

async fn health() -> Response {
    axum::Json(api::Health { status: "ok" }).into_response()
}

/// All routes: `/health`, `/ws`, the API under `/api` and, with a console, its routes and web UI.
pub fn router(state: AppState) -> Router {
    let with_console = state.console.is_some();
    let mut api = Router::new()
        .route("/devices", get(api::devices))
        .route("/devices/{id}", get(api::device))
        .route("/devices/{id}/exec", post(api::exec))
        .route(openapi::PATH_IN_API, get(openapi::serve));
    if with_console {
        api = api.merge(console::api_routes());
    }
    let mut api = api.route_layer(axum::middleware::from_fn_with_state(
        state.clone(),
        require_api_auth,
    ));
    let mcp = Router::new()
        .route(
            "/mcp/devices/{id}",
            get(mcp_devices::endpoint)
                .post(mcp_devices::endpoint)
                .delete(mcp_devices::endpoint),
        )
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            require_api_auth,
        ));
    if with_console {
        api = api.merge(console::open_routes());
    }
    let mut app = Router::new()
        .route("/health", get(health))
        .route("/ws", get(ws::upgrade))
        .nest("/api", api)
        .merge(mcp);
    if with_console {
        app = app.fallback(console::assets::serve);
    }
    app.layer(axum::middleware::from_fn_with_state(
        state.clone(),
        check_host,
    ))
    .with_state(state)
}

/// How long connections may take to finish after the server starts stopping.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// A bound server, ready to serve.
pub struct Server {
    listener: tokio::net::TcpListener,
    state: AppState,
}

impl Server {
    /// Binds the listener.
    pub async fn bind(config: ServerConfig) -> std::io::Result<Server> {
        let listener = tokio::net::TcpListener::bind(config.bind).await?;
        Ok(Server {
            listener,
            state: AppState::new(&config),
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// The device directory.
    pub fn registry(&self) -> Registry {
        self.state.registry.clone()
    }

    /// Serves until `shutdown` fires, with the task scheduler running (when there is a
    /// console); then stops the scheduler, the active run and the task runs (their watchers
    /// see `done`),
    /// ends every stream, closes every device connection (code 1001) and waits a moment for
    /// the close frames to go out. A connection still open [`SHUTDOWN_GRACE`] later is cut.
    pub async fn serve(self, shutdown: CancellationToken) -> std::io::Result<()> {
        let stopping = self.state.stopping.clone();
        let registry = self.state.registry.clone();
        let console = self.state.console.clone();
        let scheduler_stop = CancellationToken::new();
        let scheduler = console::tasks::fire::start_scheduler(&self.state, scheduler_stop.clone());
        let fleet_stop = CancellationToken::new();
        let membership = console.as_ref().map(|c| {
            tokio::spawn(deft_app::fleet::keep_membership(
                c.app().clone(),
                fleet_stop.clone(),
            ))
        });
        if let Some(c) = &console {
            // Runs other servers of the fleet ask for on the devices connected here.
            tokio::spawn(deft_app::fleet::serve_jobs(
                c.app().clone(),
                Arc::new(registry.clone()),
                fleet_stop.clone(),
            ));
            tokio::spawn(deft_app::task_runs::liveness::keep_alive(
                c.app().clone(),
                scheduler_stop.clone(),
            ));
            // Retention: a pass now, then daily.
            tokio::spawn(console::retention::daily(c.clone(), scheduler_stop.clone()));
            // Webhooks: the due deliveries (those a previous process left pending too).
            tokio::spawn(deft_app::webhooks::sender::run(
                c.app().clone(),
                scheduler_stop.clone(),
            ));
        }
        let app = router(self.state).into_make_service_with_connect_info::<SocketAddr>();
        let signal = stopping.clone();
        let graceful = axum::serve(self.listener.tap_io(deft_tools::host::no_delay), app)
            .with_graceful_shutdown(async move {
                shutdown.cancelled().await;
                // No fire starts a run from now on; the runs under way stop.
                scheduler_stop.cancel();
                if let Some(console) = console {
                    tokio::join!(
                        console.stop_active_run(Duration::from_secs(3)),
                        console.stop_task_runs(Duration::from_secs(3)),
                    );
                }
                signal.cancel();
            });
        let served = tokio::select! {
            served = graceful.into_future() => served,
            () = async {
                stopping.cancelled().await;
                tokio::time::sleep(SHUTDOWN_GRACE).await;
            } => Ok(()),
        };
        if let Some(scheduler) = scheduler {
            // It records the fires still waiting for a busy task as skipped (bounded).
            let _ = tokio::time::timeout(Duration::from_secs(6), scheduler).await;
        }
        for _ in 0..50 {
            if registry.remote_count() == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Last: the fleet hears this server stopped, and its leases go with it.
        fleet_stop.cancel();
        if let Some(membership) = membership {
            let _ = tokio::time::timeout(Duration::from_secs(3), membership).await;
        }
        served
    }
}
