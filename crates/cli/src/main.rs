//! `deft`: the command-line front end. Wires the parts together; all terminal output lives here.

mod builtins;
mod cmd_exec;
mod cmd_mcp;
mod cmd_tools;
mod paths;

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(&cli.log);
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
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Tools(args) => cmd_tools::run(args, cli.tools_config.as_deref()).await,
            Command::Exec(args) => cmd_exec::run(args, cli.tools_config.as_deref()).await,
            Command::Mcp(args) => cmd_mcp::run(args).await,
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
