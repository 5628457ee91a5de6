//! `deft mcp NAME`: serve a builtin tool server to outside MCP clients (Claude Desktop, Cursor, …);
//! `deft mcp device [ID]`: serve a whole device with routing (deft-app's `device_mcp`).

use std::net::SocketAddr;
use std::process::ExitCode;

use std::sync::Arc;

use anyhow::Context;
use deft_app::device_mcp::{ApprovalRule, DeviceEndpoint, EndpointConfig};
use deft_tools::table::RoutingTable;
use deft_tools::{Devices, StaticDevices};
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::{
    StreamableHttpService, session::local::LocalSessionManager,
};

use crate::{Globals, builtins, local_devices};

/// `deft mcp` arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Builtin server to serve (`deft mcp --list` shows them), or `device` for a whole device.
    #[arg(required_unless_present = "list")]
    name: Option<String>,
    /// With `device`: the device to serve (`local`, `browser` or a phone's serial; default
    /// `local`).
    #[arg(value_name = "ID")]
    device: Option<String>,
    /// List the builtin servers and exit.
    #[arg(long)]
    list: bool,
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (default 127.0.0.1:8010).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8010")]
    http: Option<SocketAddr>,
    /// Bearer token HTTP clients must send; required when ADDR is not loopback.
    #[arg(long, env = "DEFT_MCP_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Server options as JSON (as `options:` in the routing table), e.g. '{"allow":["git"]}'.
    #[arg(long, value_name = "JSON")]
    options: Option<String>,
    /// With `device`: approve every sensitive call without asking (by default a client that
    /// supports elicitation is asked, and any other client's sensitive calls are refused).
    #[arg(long)]
    yes: bool,
    /// With `device`: where the session's trace goes (default: <data dir>/traces).
    #[arg(long, value_name = "DIR")]
    trace_dir: Option<std::path::PathBuf>,
}

/// The name that serves a whole device instead of one builtin server.
const DEVICE: &str = "device";

/// Serves until the client leaves (stdio) or Ctrl-C (HTTP).
pub async fn run(args: Args, globals: &Globals) -> anyhow::Result<ExitCode> {
    let registry = builtins::registry(globals);
    if args.list {
        for (name, about) in registry.list() {
            println!("{name:12} {about}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let name = args.name.clone().unwrap_or_default();
    if name == DEVICE {
        return serve_device(args, globals).await;
    }
    if args.device.is_some() || args.yes || args.trace_dir.is_some() {
        anyhow::bail!("a device ID, --yes and --trace-dir go with `deft mcp device` only");
    }
    let factory = registry.get(&name).with_context(|| {
        format!(
            "no builtin server named '{name}'; known: {}",
            registry.names()
        )
    })?;
    let options = match &args.options {
        Some(text) => serde_json::from_str(text).context("--options is not valid JSON")?,
        None => serde_json::Value::Null,
    };
    match args.http {
        None => factory
            .serve_stdio(&options)
            .await
            .map_err(anyhow::Error::msg)?,
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on {addr}"))?;
            let bound = listener.local_addr()?;
            eprintln!("serving MCP server '{name}' at http://{bound}/mcp (Ctrl-C to stop)");
            deft_tools::host::serve_http(
                factory.as_ref(),
                &options,
                listener,
                args.token,
                stopped(),
            )
            .await?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Resolves on Ctrl-C or SIGTERM.
async fn stopped() {
    let _ = crate::signals::stop_requested().await;
}

/// `deft mcp device [ID]`: the device's endpoint over stdio or streamable HTTP.
async fn serve_device(args: Args, globals: &Globals) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        args.options.is_none(),
        "--options is for builtin servers; a device's servers come from the routing table (--tools-config)"
    );
    let id = args.device.as_deref().unwrap_or(deft_tools::devices::LOCAL);
    let table = Arc::new(RoutingTable::from_path_or_env(
        globals.tools_config.as_deref(),
    )?);
    let directory = local_devices::directory_with(globals, table.clone());
    let device = local_devices::pick_or_phone(globals, &directory, id).await?;
    let config = EndpointConfig {
        approvals: ApprovalRule {
            approve_all: args.yes,
            ..ApprovalRule::default()
        },
        trace_root: Some(
            args.trace_dir
                .clone()
                .unwrap_or_else(|| globals.data_dir.join("traces")),
        ),
        table: Some(table),
        deadline: None,
    };
    let profile = device.profile.clone();
    let devices: Arc<dyn Devices> = Arc::new(StaticDevices::new(vec![device]));
    let endpoint = DeviceEndpoint::new(devices, id, config);
    match args.http {
        None => {
            eprintln!("serving the device '{id}' ({profile}) over stdio");
            let running = endpoint
                .handler()
                .serve(rmcp::transport::stdio())
                .await
                .context("MCP initialisation over stdio failed")?;
            running.waiting().await.context("the MCP session failed")?;
        }
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on {addr}"))?;
            let bound = listener.local_addr()?;
            let served = endpoint.clone();
            let service = StreamableHttpService::new(
                move || Ok(served.handler()),
                LocalSessionManager::default().into(),
                deft_tools::host::unguarded_config(),
            );
            let app = axum::Router::new().nest_service("/mcp", service);
            eprintln!(
                "serving the device '{id}' ({profile}) at http://{bound}/mcp (Ctrl-C to stop)"
            );
            deft_tools::host::serve_guarded(app, listener, args.token, stopped()).await?;
        }
    }
    if let Some(trace) = endpoint.trace_dir().await {
        eprintln!("trace: {}", trace.join("report.html").display());
    }
    Ok(ExitCode::SUCCESS)
}
