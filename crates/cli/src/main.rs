//! `deft`: the command-line front end. Wires the parts together; all terminal output lives here.

#![forbid(unsafe_code)]
// The one crate that prints to a terminal (ARCHITECTURE.md, "Lints").
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod builtins;
mod client_phones;
mod cmd_client;
mod cmd_dataflow;
mod cmd_desktop;
mod cmd_devices;
mod cmd_exec;
mod cmd_fleet;
mod cmd_mcp;
mod cmd_run;
mod cmd_secret;
mod cmd_serve;
mod cmd_task;
mod cmd_task_server;
mod cmd_task_transfer;
mod cmd_token;
mod cmd_tools;
mod cmd_webhook;
mod dataflow_devices;
mod local_devices;
mod office;
mod paths;
mod phones;
mod signals;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// deft — an LLM agent platform that operates real applications and devices.
#[derive(Parser)]
#[command(name = "deft", version, about, long_about = None)]
struct Cli {
    /// Routing table (YAML) to use instead of the built-in one.
    #[arg(long, global = true, env = "DEFT_TOOLS_CONFIG", value_name = "FILE")]
    tools_config: Option<PathBuf>,

    /// deft's data folder (default: `$XDG_DATA_HOME/deft` or `~/.local/share/deft`).
    #[arg(long, global = true, env = "DEFT_DATA_DIR", value_name = "DIR")]
    data_dir: Option<PathBuf>,

    /// Log filter for stderr (e.g. `info`, `deft_tools=debug`); `DEFT_LOG` also works.
    #[arg(
        long,
        global = true,
        env = "DEFT_LOG",
        default_value = "warn",
        value_name = "FILTER"
    )]
    log: String,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the tools a Computer offers (what the model would see).
    Tools(cmd_tools::Args),
    /// Run a JSON batch (or a list of batches) of commands on this machine; prints the Results.
    Exec(cmd_exec::Args),
    /// Serve a builtin tool server to any MCP client, over stdio or streamable HTTP.
    Mcp(cmd_mcp::Args),
    /// Run the agent on a device: `deft run "goal"`.
    Run(cmd_run::Args),
    /// The managed virtual desktop: start, stop, status.
    Desktop(cmd_desktop::Args),
    /// Serve deft: the device endpoint and the API.
    Serve(cmd_serve::Args),
    /// Connect this machine to a deft server as a device.
    Client(cmd_client::Args),
    /// List the devices a server knows.
    Devices(cmd_devices::Args),
    /// List the servers of a fleet (several `deft serve` on one PostgreSQL) and the devices
    /// each holds.
    Fleet(cmd_devices::Args),
    /// Tasks (docs/tasks.md): validate a task file, run one on a device of this machine, or
    /// list, run and stop a server's tasks.
    Task(cmd_task::Args),
    /// A server's secrets, which tasks type without showing: set (the value from stdin or a
    /// prompt, never the command line), list, delete.
    Secret(cmd_secret::Args),
    /// A server's named API tokens, for other software: create (with scopes and an expiry;
    /// the value is printed once), list, show (with the calls it made), revoke.
    Token(cmd_token::Args),
    /// A server's webhooks, where it POSTs its events: create (the signing secret is printed
    /// once), list, test (a ping), deliveries (the log), delete.
    Webhook(cmd_webhook::Args),
    /// Seed 004's dataflow: instantiate, execute and judge document tasks in bulk, into
    /// schema-checked result files.
    Dataflow(cmd_dataflow::Args),
}

/// Settings every subcommand sees.
#[derive(Debug, Clone)]
pub struct Globals {
    /// `--tools-config` / `DEFT_TOOLS_CONFIG`.
    pub tools_config: Option<PathBuf>,
    /// deft's data folder.
    pub data_dir: PathBuf,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(&cli.log);
    warn_about_secret_flags();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let globals = Globals {
        tools_config: cli.tools_config,
        data_dir: cli.data_dir.unwrap_or_else(paths::default_data_dir),
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Tools(args) => cmd_tools::run(args, &globals).await,
            Command::Exec(args) => cmd_exec::run(args, &globals).await,
            Command::Mcp(args) => cmd_mcp::run(args, &globals).await,
            Command::Run(args) => cmd_run::run(args, &globals).await,
            Command::Desktop(args) => cmd_desktop::run(args, &globals).await,
            Command::Serve(args) => cmd_serve::run(args, &globals).await,
            Command::Client(args) => cmd_client::run(args, &globals).await,
            Command::Devices(args) => cmd_devices::run(args, &globals).await,
            Command::Fleet(args) => cmd_fleet::run(args).await,
            Command::Task(args) => cmd_task::run(args, &globals).await,
            Command::Secret(args) => cmd_secret::run(args).await,
            Command::Token(args) => cmd_token::run(args).await,
            Command::Webhook(args) => cmd_webhook::run(args).await,
            Command::Dataflow(args) => cmd_dataflow::run(args, &globals).await,
        }
    });
    // Tool servers (stdio children) are torn down when the runtime drops.
    drop(runtime);
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn init_logging(filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .compact()
        .init();
}

/// A secret on the command line is visible to every program on this machine (`ps`), a model's
/// shell commands included: say so, and which variable to use instead.
fn warn_about_secret_flags() {
    let args: Vec<String> = std::env::args().collect();
    for (flag, variable) in deft_tools::secrets::flags_given(&args) {
        eprintln!(
            "warning: {flag} on the command line is visible to every program on this machine (ps); set {variable} instead"
        );
    }
}
