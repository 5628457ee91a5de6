//! `deft serve`: deft's main job — the web console (chat with a device, live screen, settings),
//! its JSON API, the device endpoint `/ws` and the health check on one listener, loopback by
//! default, over an embedded SQLite store (or PostgreSQL by `DATABASE_URL`). With no display it
//! starts the managed virtual desktop, so `local` can show and operate GUI apps.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use deft_backend_desktop::vdesktop;
use deft_server::auth::{self, Token, TokenOrigin};
use deft_server::console::{Console, ConsoleConfig, ModelDefaults};
use deft_server::{Server, ServerConfig};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, Devices};
use tokio_util::sync::CancellationToken;

use crate::{Globals, local_devices, paths};

/// `deft serve` arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on. Anything but loopback exposes the server to the network.
    #[arg(long, default_value = "127.0.0.1:8030", value_name = "ADDR:PORT")]
    bind: SocketAddr,
    /// A host name the server answers to besides localhost on a loopback address: the public
    /// name of a proxy in front that passes it on (repeatable; comma-separated in the variable).
    #[arg(
        long = "allow-host",
        env = "DEFT_ALLOW_HOSTS",
        value_delimiter = ',',
        value_name = "NAME"
    )]
    allow_hosts: Vec<String>,
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
    /// The largest request body the API reads, in bytes (an exec batch, a JSON body); a larger
    /// one is answered 413.
    #[arg(long, default_value_t = deft_server::api::MAX_JSON_BODY, value_name = "BYTES")]
    max_body: usize,
    /// The console's database: `postgres://…` or `sqlite://…` (default: deft.db in the data folder).
    #[arg(long, env = "DATABASE_URL", hide_env_values = true, value_name = "URL")]
    database_url: Option<String>,
    /// OpenAI-compatible base URL used until one is set in the console's settings.
    #[arg(long, env = "AGENT_API_BASE", value_name = "URL")]
    api_base: Option<String>,
    /// Model name used until one is set in the console's settings.
    #[arg(long, env = "AGENT_MODEL")]
    model: Option<String>,
    /// API key used until one is set in the console's settings.
    #[arg(long, env = "AGENT_API_KEY", hide_env_values = true)]
    api_key: Option<String>,
    /// Password of the console's `admin` account, created on the first start (otherwise the
    /// first start prints a one-time setup link).
    #[arg(long, env = "DEFT_ADMIN_PASSWORD", hide_env_values = true, hide = true)]
    admin_password: Option<String>,
    /// Don't start the managed virtual desktop when no display is set.
    #[arg(long)]
    no_desktop: bool,
    /// Don't follow the adb server's phones (by default every phone it lists is a device, and
    /// an adb server is started when none runs and `adb` is installed).
    #[arg(long, env = "DEFT_NO_PHONES", value_parser = clap::builder::BoolishValueParser::new())]
    no_phones: bool,
    /// Send the session cookie without `Secure` (only for plain-HTTP access from other
    /// machines; prefer TLS in front of deft).
    #[arg(long)]
    cookie_insecure: bool,
    /// Don't recall experiences and actions into runs, nor distil runs afterwards (the
    /// libraries' routes and the daily audit stay).
    #[arg(long)]
    no_memory: bool,
    /// Let webhooks reach loopback, private (RFC 1918), link-local and other addresses of this
    /// machine and its networks (refused by default, so a webhook cannot probe them).
    #[arg(long, env = "DEFT_WEBHOOKS_ALLOW_PRIVATE", value_parser = clap::builder::BoolishValueParser::new())]
    webhooks_allow_private: bool,
    /// The waits before a failed webhook delivery is tried again, in seconds, comma-separated
    /// (each wait varies by ±20 %); a delivery gets one attempt more than there are waits.
    #[arg(
        long,
        env = "DEFT_WEBHOOK_RETRY_DELAYS",
        value_name = "SECS,…",
        value_delimiter = ',',
        default_value = "10,60,300,1800,7200"
    )]
    webhook_retry_delays: Vec<f64>,
    /// On PostgreSQL: this server's name in the fleet (default: this machine's host name and
    /// the port it listens on).
    #[arg(long, env = "DEFT_FLEET_NAME", value_name = "NAME")]
    fleet_name: Option<String>,
    /// On PostgreSQL: the URL the fleet's other servers and people reach this server's console
    /// at (default: http:// and the address it listens on).
    #[arg(long, env = "DEFT_FLEET_ADDRESS", value_name = "URL")]
    fleet_address: Option<String>,
    /// On PostgreSQL: seconds a device lease lasts without renewal — how long after this
    /// server dies its devices can connect to another (renewed five times as often).
    #[arg(
        long,
        env = "DEFT_FLEET_LEASE_SECS",
        default_value_t = 10.0,
        value_name = "SECS"
    )]
    fleet_lease_secs: f64,
}

/// The numbers of `args` checked, and how webhooks are delivered (from
/// `--webhooks-allow-private` and `--webhook-retry-delays`).
fn checked(args: &Args) -> anyhow::Result<deft_app::webhooks::WebhookConfig> {
    if !(args.silence_secs.is_finite() && args.silence_secs > 0.0) {
        anyhow::bail!("--silence-secs must be a positive number of seconds");
    }
    if args.max_body == 0 {
        anyhow::bail!("--max-body must be a positive number of bytes");
    }
    if !(args.fleet_lease_secs.is_finite() && (0.5..=3_600.0).contains(&args.fleet_lease_secs)) {
        anyhow::bail!("--fleet-lease-secs must be a number of seconds from 0.5 to 3600");
    }
    let week = 7.0 * 86_400.0;
    if let Some(bad) = args
        .webhook_retry_delays
        .iter()
        .find(|s| !(s.is_finite() && (0.0..=week).contains(*s)))
    {
        anyhow::bail!("--webhook-retry-delays: {bad} is not a number of seconds from 0 to {week}");
    }
    Ok(deft_app::webhooks::WebhookConfig {
        allow_private: args.webhooks_allow_private,
        retry_delays: args
            .webhook_retry_delays
            .iter()
            .map(|s| Duration::from_secs_f64(*s))
            .collect(),
        ..deft_app::webhooks::WebhookConfig::default()
    })
}

/// How this server takes part in a fleet (`--fleet-lease-secs`; its name and address come
/// once it listens).
fn fleet_config(args: &Args) -> deft_app::fleet::FleetConfig {
    let lease = Duration::from_secs_f64(args.fleet_lease_secs);
    deft_app::fleet::FleetConfig {
        heartbeat: lease / 5,
        lease_ttl: lease,
        ..deft_app::fleet::FleetConfig::new("", "")
    }
}

/// In a fleet: names this server (`--fleet-name`, else host and port) at its address
/// (`--fleet-address`, else where it listens) and says so.
fn locate_in_fleet(console: &Console, args: &Args, addr: SocketAddr) {
    let Some(fleet) = console.app().fleet() else {
        return;
    };
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "deft".to_owned());
    let name = args
        .fleet_name
        .clone()
        .unwrap_or_else(|| format!("{host}:{}", addr.port()));
    let address = args
        .fleet_address
        .clone()
        .unwrap_or_else(|| format!("http://{addr}"));
    fleet.locate(&name, &address);
    println!("fleet: this server is {name:?} ({address}) on the shared database");
}

/// Serves until Ctrl-C.
pub async fn run(args: Args, globals: &Globals) -> anyhow::Result<ExitCode> {
    let webhooks = checked(&args)?;
    // Before anything starts: a stop request from now on shuts down cleanly once serving.
    let stop_signals =
        crate::signals::StopSignals::install().context("cannot install the stop handlers")?;
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
    // Kept in the data folder or generated: no tool's output may show them.
    deft_tools::secrets::remember(&device_token.value);
    deft_tools::secrets::remember(&api_token.value);
    let table = RoutingTable::from_path_or_env(globals.tools_config.as_deref())?;
    let desktop = ManagedDesktop::start_unless_display(globals, args.no_desktop).await;
    let mut console_config =
        ConsoleConfig::open(globals.data_dir.clone(), args.database_url.as_deref())
            .await
            .context("cannot open the console's database")?;
    let database = match &args.database_url {
        Some(_) => format!("{:?} from DATABASE_URL", console_config.store.backend()),
        None => globals.data_dir.join("deft.db").display().to_string(),
    };
    console_config.defaults = ModelDefaults {
        api_base: args.api_base.clone(),
        model: args.model.clone(),
        api_key: args.api_key.clone(),
    };
    console_config.admin_password = args.admin_password.clone();
    console_config.cookie_secure = !args.cookie_insecure;
    if args.no_memory {
        console_config.memory = None;
    }
    console_config.webhooks = webhooks;
    // Taken up on PostgreSQL only: on SQLite this server is alone.
    console_config.fleet = Some(fleet_config(&args));
    let console = Console::start(console_config)
        .await
        .context("cannot start the console")?;
    // The server's own devices: `local`, and `browser` when the routing table has its profile.
    let own = local_devices::directory(globals)?;
    let own_devices: Vec<Device> = own.list().iter().filter_map(|d| own.get(&d.id)).collect();
    let mut config = ServerConfig::new(args.bind, &device_token.value, &api_token.value);
    config.devices = own_devices;
    config.limits.silence = Duration::from_secs_f64(args.silence_secs);
    config.batch_deadline = table.timeouts.batch();
    config.routing_table = std::sync::Arc::new(table);
    config.max_body = args.max_body;
    config.allowed_hosts = args.allow_hosts.clone();
    config.console = Some(console.clone());
    let server = Server::bind(config)
        .await
        .with_context(|| format!("cannot listen on {}", args.bind))?;
    let phones = match (args.no_phones, deft_adb::AdbClient::from_env()) {
        (true, _) => None,
        (false, Ok(adb)) => Some(crate::phones::follow(
            globals,
            adb,
            server.registry(),
            console.app().clone(),
        )),
        (false, Err(e)) => {
            eprintln!("warning: phones are not followed: {e}");
            None
        }
    };
    let addr = server.local_addr();
    locate_in_fleet(&console, &args, addr);
    if !addr.ip().is_loopback() {
        eprintln!(
            "warning: listening on {addr}, reachable from other machines; anyone with a token can drive the devices"
        );
    }
    println!("deft serve listening on http://{addr} (devices connect to ws://{addr}/ws)");
    println!("console: http://{addr}/  (database: {database})");
    if let Some(token) = console.setup_token() {
        println!("first start: create the admin account at http://{addr}/#setup={token}");
    }
    show_token("device token", &device_token);
    show_token("API token", &api_token);
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    tokio::spawn(async move {
        stop_signals.recv().await;
        eprintln!("stopping the server…");
        stop.cancel();
    });
    let served = server.serve(shutdown).await.context("the server stopped");
    if let Some(phones) = phones {
        phones.abort();
    }
    console.store().close().await;
    drop(desktop);
    served?;
    Ok(ExitCode::SUCCESS)
}

/// The managed virtual desktop, when this `deft serve` started it: stopped when this value is
/// dropped (a normal exit, an error on the way up), and by a watchdog process when `deft serve`
/// is killed outright.
struct ManagedDesktop(Option<(std::path::PathBuf, Option<std::process::Child>)>);

impl ManagedDesktop {
    /// Starts the managed desktop when no `DISPLAY` is set and `--no-desktop` is not given. A
    /// desktop that cannot start leaves `local` on the `shell` profile, with a warning.
    async fn start_unless_display(globals: &Globals, no_desktop: bool) -> ManagedDesktop {
        let display = std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty());
        if display || no_desktop {
            return ManagedDesktop(None);
        }
        let state_file = paths::desktop_state(&globals.data_dir);
        let work_dir = globals.data_dir.join(vdesktop::WORK_DIR);
        match vdesktop::start(&state_file, &work_dir).await {
            Ok((state, true)) => {
                println!(
                    "started the managed desktop on {} for the device 'local'",
                    state.display
                );
                let watchdog = crate::cmd_desktop::spawn_watchdog(&globals.data_dir)
                    .inspect_err(|e| {
                        eprintln!(
                            "warning: no watchdog for the managed desktop ({e}); if deft serve is killed with SIGKILL, stop it with `deft desktop stop`"
                        )
                    })
                    .ok();
                ManagedDesktop(Some((state_file, watchdog)))
            }
            Ok((state, false)) => {
                println!("using the managed desktop on {}", state.display);
                ManagedDesktop(None)
            }
            Err(e) => {
                eprintln!(
                    "warning: no display and the managed desktop did not start ({e}); the device 'local' has shell tools only"
                );
                ManagedDesktop(None)
            }
        }
    }
}

impl Drop for ManagedDesktop {
    fn drop(&mut self) {
        let Some((state_file, watchdog)) = self.0.take() else {
            return;
        };
        if let Err(e) = vdesktop::stop(&state_file) {
            eprintln!("warning: cannot stop the managed desktop: {e}");
        }
        if let Some(mut w) = watchdog {
            let _ = w.kill();
            let _ = w.wait();
        }
    }
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
