//! `deft tools`: what a Computer offers.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use deft_tools::table::RoutingTable;
use deft_tools::{ComputerManager, devices};

use crate::{Globals, builtins, paths};

/// `deft tools` arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Routing-table profile (default: this machine's, `desktop` with a display, else `shell`).
    #[arg(long)]
    profile: Option<String>,
    /// Agent section.
    #[arg(long, default_value = "HostAgent")]
    agent: String,
    /// Application root (unknown roots use `default`).
    #[arg(long, default_value = "")]
    root: String,
    /// Process (window title) the Computer is bound to.
    #[arg(long, default_value = "")]
    process: String,
    /// Print ToolInfo JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Lists the tools.
pub async fn run(args: Args, globals: &Globals) -> anyhow::Result<ExitCode> {
    let table = Arc::new(RoutingTable::from_path_or_env(
        globals.tools_config.as_deref(),
    )?);
    let profile = args.profile.unwrap_or_else(|| {
        devices::local_profile(Some(&paths::desktop_state(&globals.data_dir))).to_owned()
    });
    let manager = ComputerManager::new(table, &profile, builtins::registry(globals))?;
    let computer = manager
        .get_or_create(&args.agent, &args.process, &args.root)
        .await?;
    let tools = computer.tool_infos(None, None);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&tools).context("encoding tools")?
        );
    } else {
        println!("{} (profile {profile})", computer.name());
        let width = tools.iter().map(|t| t.tool_key.len()).max().unwrap_or(0);
        for t in &tools {
            let about = t
                .description
                .as_deref()
                .unwrap_or("")
                .lines()
                .next()
                .unwrap_or("");
            println!("  {:width$}  {:10}  {about}", t.tool_key, t.namespace);
        }
        println!("  (plus list_tools under both types)");
    }
    for w in computer.warnings() {
        eprintln!("warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}
