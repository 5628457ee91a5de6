//! `deft serve`: the deft server — the device endpoint `/ws`, the health check and the API —
//! on one listener, loopback by default.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use deft_server::auth::{self, Token, TokenOrigin};
use deft_server::{Server, ServerConfig};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, Devices};
use tokio_util::sync::CancellationToken;

use crate::{Globals, local_devices};

/// `deft serve` arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on. Anything but loopback exposes the server to the network.
    #[arg(long, default_value = "127.0.0.1:8030", value_name = "ADDR:PORT")]
    bind: SocketAddr,
    /// Token devices present on /ws (generated and kept in the data folder when not given).
    #[arg(
        long,
        env = "DEFT_DEVICE_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    device_token: Option<String>,
    /// Token API callers present as Bearer (generated and kept in the data folder when not given).
    #[arg(
        long,
        env = "DEFT_API_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    api_token: Option<String>,
    /// Seconds of silence after which a device counts as gone.
    #[arg(long, default_value_t = 45.0, hide = true)]
    silence_secs: f64,
}

/// Serves until Ctrl-C.
pub async fn run(args: Args, globals: &Globals) -> anyhow::Result<ExitCode> {
    if !(args.silence_secs.is_finite() && args.silence_secs > 0.0) {
        anyhow::bail!("--silence-secs must be a positive number of seconds");
    }
    let device_token = auth::load_or_generate(
        args.device_token.as_deref(),
        &globals.data_dir,
        "device-token",
        "device token",
    )?;
    let api_token = auth::load_or_generate(
        args.api_token.as_deref(),
        &globals.data_dir,
        "api-token",
        "API token",
    )?;
    let table = RoutingTable::from_path_or_env(globals.tools_config.as_deref())?;
    // The server's own devices: `local`, and `browser` when the routing table has its profile.
    let own = local_devices::directory(globals)?;
    let own_devices: Vec<Device> = own.list().iter().filter_map(|d| own.get(&d.id)).collect();
    let mut config = ServerConfig::new(args.bind, &device_token.value, &api_token.value);
    config.devices = own_devices;
    config.limits.silence = Duration::from_secs_f64(args.silence_secs);
    config.batch_deadline = table.timeouts.batch();
    let server = Server::bind(config)
        .await
        .with_context(|| format!("cannot listen on {}", args.bind))?;
    let addr = server.local_addr();
    if !addr.ip().is_loopback() {
        eprintln!(
            "warning: listening on {addr}, reachable from other machines; anyone with a token can drive the devices"
        );
    }
    println!("deft serve listening on http://{addr} (devices connect to ws://{addr}/ws)");
    show_token("device token", &device_token);
    show_token("API token", &api_token);
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        eprintln!("stopping the server…");
        stop.cancel();
    });
    server.serve(shutdown).await.context("the server stopped")?;
    Ok(ExitCode::SUCCESS)
}

fn show_token(what: &str, token: &Token) {
    let file = token
        .file
        .as_ref()
        .map(|f| f.display().to_string())
        .unwrap_or_default();
    match token.origin {
        TokenOrigin::Configured => println!("{what}: as configured"),
        TokenOrigin::Stored => println!("{what}: {} (kept in {file})", token.value),
        TokenOrigin::Generated => println!("{what}: {} (new, kept in {file})", token.value),
    }
}
