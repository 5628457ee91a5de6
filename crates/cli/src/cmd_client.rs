//! `deft client`: connect this machine to a deft server as a device (and, with `--phones`, each
//! phone of its adb server as a device of its own). Batches run through this machine's own
//! routing table and tool servers.

use std::collections::BTreeSet;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use deft_link::{ClientConfig, ClientStatus, DeviceClient};
use deft_tools::table::RoutingTable;
use deft_tools::{LocalDispatcher, devices};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::{Globals, builtins, client_phones, paths};

/// `deft client` arguments.
#[derive(clap::Args)]
pub struct Args {
    /// The server's address: http(s)://host:port or ws(s)://host:port/ws. For a fleet (several
    /// servers on one database), give each server (repeat the flag or separate by commas): when
    /// the connection is lost or refused the client tries the next one.
    #[arg(
        long,
        env = "DEFT_SERVER",
        value_name = "URL",
        value_delimiter = ',',
        required = true
    )]
    server: Vec<String>,
    /// The server's device token.
    #[arg(
        long,
        env = "DEFT_DEVICE_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    token: String,
    /// This device's id (default: the host name). `local` and `browser` are reserved.
    #[arg(long)]
    id: Option<String>,
    /// Routing-table profile (default: `desktop` when a display is reachable, else `shell`).
    #[arg(long)]
    profile: Option<String>,
    /// Heartbeat interval in seconds.
    #[arg(long, default_value_t = 15.0, hide = true)]
    heartbeat_secs: f64,
    /// Seconds of silence after which the server counts as gone (and the next is tried).
    #[arg(long, default_value_t = 45.0, hide = true)]
    silence_secs: f64,
    /// Longest wait between reconnection attempts, in seconds.
    #[arg(long, default_value_t = 30.0, hide = true)]
    backoff_max_secs: f64,
    /// Also offer every phone of this machine's adb server, each as a device named by its
    /// serial (profile `android`), as they come and go.
    #[arg(long)]
    phones: bool,
}

/// The device endpoints of `--server`: the first, and the fleet's others to try in turn.
fn device_urls(servers: &[String]) -> anyhow::Result<(String, Vec<String>)> {
    let mut urls = servers
        .iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| deft_link::address::device_url(s.trim()))
        .collect::<Result<Vec<String>, _>>()?;
    anyhow::ensure!(!urls.is_empty(), "--server needs the server's address");
    let first = urls.remove(0);
    Ok((first, urls))
}

fn secs(value: f64, flag: &str) -> anyhow::Result<Duration> {
    if value.is_finite() && value > 0.0 {
        Ok(Duration::from_secs_f64(value))
    } else {
        anyhow::bail!("{flag} must be a positive number of seconds, got {value}")
    }
}

/// Runs the client until Ctrl-C or a refusal.
pub async fn run(args: Args, globals: &Globals) -> anyhow::Result<ExitCode> {
    let (url, fallback_urls) = device_urls(&args.server)?;
    let system = deft_backend_shell::sysinfo::collect()
        .await
        .context("collecting system information")?;
    let id = match args.id {
        Some(id) => id,
        None => system
            .hostname
            .clone()
            .filter(|h| !h.is_empty())
            .context("this machine has no host name; give the device an id with --id")?,
    };
    if id.trim().is_empty() {
        anyhow::bail!("--id must not be empty");
    }
    if devices::RESERVED_IDS.contains(&id.as_str()) {
        anyhow::bail!(
            "the device id '{id}' is reserved (local and browser name the server's own devices); choose another --id"
        );
    }
    let table = Arc::new(RoutingTable::from_path_or_env(
        globals.tools_config.as_deref(),
    )?);
    let profile = args.profile.unwrap_or_else(|| {
        devices::local_profile(Some(&paths::desktop_state(&globals.data_dir))).to_owned()
    });
    let Some(sections) = table.profiles.get(&profile) else {
        anyhow::bail!(
            "the routing table {} has no profile '{profile}'; it has: {}",
            table.source,
            table.profile_names().join(", ")
        );
    };
    let tools: BTreeSet<String> = sections
        .values()
        .flat_map(|roots| roots.values())
        .flat_map(|entry| entry.data_collection.iter().chain(entry.action.iter()))
        .map(|spec| spec.namespace.clone())
        .collect();
    let metadata = json!({
        "platform": std::env::consts::OS,
        "profile": profile,
        "tools": tools,
        "system_info": system,
        "screen": screen_size(&globals.data_dir).await,
        "registration_time": deft_link::now_iso8601(),
    });
    let dispatcher = Arc::new(LocalDispatcher::new(
        table.clone(),
        builtins::registry(globals),
    ));
    let mut config = ClientConfig::new(&url, &args.token, &id, &profile);
    config.metadata = metadata;
    config.fallback_urls = fallback_urls;
    config.heartbeat = secs(args.heartbeat_secs, "--heartbeat-secs")?;
    config.backoff_max = secs(args.backoff_max_secs, "--backoff-max-secs")?;
    config.silence = secs(args.silence_secs, "--silence-secs")?;
    let phones = if args.phones {
        Some(client_phones::prepare(&url, &args.token, table, &config)?)
    } else {
        None
    };
    let client = DeviceClient::new(config, dispatcher);

    let mut status = client.status();
    let device = id.clone();
    tokio::spawn(async move {
        while status.changed().await.is_ok() {
            let now = status.borrow_and_update().clone();
            match now {
                ClientStatus::Registered(server) => {
                    eprintln!("registered with {server} as '{device}'")
                }
                ClientStatus::Disconnected { reason, retry_in } => eprintln!(
                    "disconnected: {reason}; reconnecting in {:.1} s",
                    retry_in.as_secs_f64()
                ),
                ClientStatus::Connecting(_) => {}
            }
        }
    });

    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    tokio::spawn(async move {
        let _ = crate::signals::stop_requested().await;
        eprintln!("stopping the client…");
        stop.cancel();
    });
    if let Some((adb, links)) = phones {
        tokio::spawn(client_phones::offer(
            globals.clone(),
            adb,
            links,
            shutdown.clone(),
        ));
    }
    client.run(shutdown).await?;
    Ok(ExitCode::SUCCESS)
}

/// The screen size of the display this device's desktop tools use (`DISPLAY`, else the managed
/// virtual desktop's), as `{display, width, height}`; `null` without a reachable display.
async fn screen_size(data_dir: &std::path::Path) -> serde_json::Value {
    let display_name = std::env::var("DISPLAY")
        .ok()
        .filter(|d| !d.is_empty())
        .or_else(|| {
            deft_backend_desktop::vdesktop::DesktopState::load(&paths::desktop_state(data_dir))
                .ok()
                .flatten()
                .map(|s| s.display)
        });
    let Some(display_name) = display_name else {
        return serde_json::Value::Null;
    };
    let probe = {
        let target = display_name.clone();
        tokio::task::spawn_blocking(move || {
            use x11rb::connection::Connection;
            let (conn, screen) = x11rb::connect(Some(&target)).ok()?;
            let root = conn.setup().roots.get(screen)?;
            Some((root.width_in_pixels, root.height_in_pixels))
        })
    };
    match tokio::time::timeout(Duration::from_secs(3), probe).await {
        Ok(Ok(Some((width, height)))) => {
            json!({"display": display_name, "width": width, "height": height})
        }
        _ => {
            tracing::warn!("cannot read the screen size of display {display_name}");
            serde_json::Value::Null
        }
    }
}
