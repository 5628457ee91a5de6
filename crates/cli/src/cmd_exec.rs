//! `deft exec`: run JSON batches on this machine in one device session — or, with `--server`, on
//! any device of a deft server through its API — and print the Results.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use deft_protocol::{ExecInput, ResultStatus};
use deft_tools::devices;
use deft_tools::table::RoutingTable;

use crate::{Globals, local_devices};

/// `deft exec` arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Batch file (JSON), or `-` for standard input.
    #[arg(value_name = "FILE|-")]
    file: PathBuf,
    /// Device to run on (`local` here; with --server any device the server lists).
    #[arg(long, default_value = devices::LOCAL)]
    device: String,
    /// Run on a deft server's device instead of this machine: http(s)://host:port.
    #[arg(long, value_name = "URL")]
    server: Option<String>,
    /// The server's API token (with --server).
    #[arg(
        long,
        env = "DEFT_API_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    api_token: Option<String>,
    /// Batch deadline in seconds (default: the routing table's, 600).
    #[arg(long, value_name = "SECS")]
    deadline: Option<f64>,
    /// Exit with status 1 when any command failed.
    #[arg(long)]
    strict: bool,
    /// Print compact JSON (one line).
    #[arg(long)]
    compact: bool,
}

/// Runs the batches.
pub async fn run(args: Args, globals: &Globals) -> anyhow::Result<ExitCode> {
    let text = read_input(&args.file)?;
    let input =
        ExecInput::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    if let Some(server) = args.server.as_deref() {
        return run_remote(&args, server, text).await;
    }
    let single = matches!(input, ExecInput::One(_));
    let table = Arc::new(RoutingTable::from_path_or_env(
        globals.tools_config.as_deref(),
    )?);
    let deadline = match args.deadline {
        Some(s) if s.is_finite() && s > 0.0 => Duration::from_secs_f64(s),
        Some(s) => anyhow::bail!("--deadline must be a positive number of seconds, got {s}"),
        None => table.timeouts.batch(),
    };
    let directory = local_devices::directory_with(globals, table);
    let device = local_devices::pick_or_phone(globals, &directory, &args.device).await?;
    let _busy = device
        .try_reserve()
        .with_context(|| format!("the device '{}' is busy", device.id))?;

    let cancel = crate::signals::cancel_on_stop("stopping: cancelling the command in flight…");
    let all = device
        .run_batches(input.into_batches(), deadline, &cancel)
        .await;
    let failed = all
        .iter()
        .flatten()
        .any(|r| r.status == ResultStatus::Failure);
    let value = if single {
        serde_json::to_value(&all[0])?
    } else {
        serde_json::to_value(&all)?
    };
    print_results(&args, &value, failed)
}

fn print_results(args: &Args, value: &serde_json::Value, failed: bool) -> anyhow::Result<ExitCode> {
    let out = if args.compact {
        serde_json::to_string(value)?
    } else {
        serde_json::to_string_pretty(value)?
    };
    println!("{out}");
    Ok(if failed && args.strict {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--server`: the batches go to the server's exec route, which holds the device busy.
async fn run_remote(args: &Args, server: &str, text: String) -> anyhow::Result<ExitCode> {
    let token = args
        .api_token
        .as_deref()
        .context("--server needs the server's API token: --api-token or DEFT_API_TOKEN")?;
    let deadline = match args.deadline {
        Some(s) if s.is_finite() && s > 0.0 => Some(s),
        Some(s) => anyhow::bail!("--deadline must be a positive number of seconds, got {s}"),
        None => None,
    };
    let api = deft_server::api_client::ApiClient::new(server, token)?;
    let value = api.exec(&args.device, text, deadline).await?;
    let failed = any_failure(&value);
    print_results(args, &value, failed)
}

fn read_input(file: &Path) -> anyhow::Result<String> {
    if file.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the batch from standard input")?;
        Ok(s)
    } else {
        std::fs::read_to_string(file)
            .with_context(|| format!("cannot read batch file {}", file.display()))
    }
}

/// Whether a Result list (or a list of them) holds a failure.
fn any_failure(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::Array(items) => items.iter().any(any_failure),
        v => v.get("status").and_then(|s| s.as_str()) == Some("failure"),
    }
}
