//! `deft exec`: run JSON batches on this machine in one device session and print the Results.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use deft_protocol::{CommandResult, ExecInput, ResultStatus};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, Devices, ExecContext, LocalDispatcher, StaticDevices, devices};

use crate::{Globals, builtins, paths};

/// `deft exec` arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Batch file (JSON), or `-` for standard input.
    #[arg(value_name = "FILE|-")]
    file: PathBuf,
    /// Device to run on (only `local` until remote devices exist).
    #[arg(long, default_value = devices::LOCAL)]
    device: String,
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
    let single = matches!(input, ExecInput::One(_));
    let table = Arc::new(RoutingTable::from_path_or_env(
        globals.tools_config.as_deref(),
    )?);
    let deadline = match args.deadline {
        Some(s) if s.is_finite() && s > 0.0 => Duration::from_secs_f64(s),
        Some(s) => anyhow::bail!("--deadline must be a positive number of seconds, got {s}"),
        None => table.timeouts.batch(),
    };
    let profile = devices::local_profile(Some(&paths::desktop_state(&globals.data_dir)));
    let dispatcher = Arc::new(LocalDispatcher::new(table, builtins::registry()));
    let directory = StaticDevices::new(vec![Device::new(devices::LOCAL, profile, dispatcher)]);
    let device = directory.get(&args.device).with_context(|| {
        let known: Vec<_> = directory.list().into_iter().map(|d| d.id).collect();
        format!(
            "unknown device '{}'; known devices: {}",
            args.device,
            known.join(", ")
        )
    })?;
    let _busy = device
        .try_reserve()
        .with_context(|| format!("the device '{}' is busy", device.id))?;

    let mut all: Vec<Vec<CommandResult>> = Vec::new();
    for batch in input.into_batches() {
        let mut ctx = ExecContext::new(
            &device.id,
            batch.profile.as_deref().unwrap_or(&device.profile),
        );
        ctx.agent = batch.agent;
        ctx.process = batch.process;
        ctx.root = batch.root;
        ctx.early_exit = batch.early_exit;
        ctx.deadline = deadline;
        let cancel = ctx.cancel.clone();
        let run = device.dispatcher.execute(&ctx, batch.commands);
        tokio::pin!(run);
        let results = tokio::select! {
            r = &mut run => r,
            _ = tokio::signal::ctrl_c() => {
                eprintln!("stopping: cancelling the command in flight…");
                cancel.cancel();
                run.await
            }
        };
        all.push(results);
    }
    let failed = all
        .iter()
        .flatten()
        .any(|r| r.status == ResultStatus::Failure);
    let value = if single {
        serde_json::to_value(&all[0])?
    } else {
        serde_json::to_value(&all)?
    };
    let out = if args.compact {
        serde_json::to_string(&value)?
    } else {
        serde_json::to_string_pretty(&value)?
    };
    println!("{out}");
    Ok(if failed && args.strict {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
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
