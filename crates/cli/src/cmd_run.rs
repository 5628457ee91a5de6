//! `deft run`: run the agent (being built; see the open issue).

use std::process::ExitCode;

use crate::Globals;

/// `deft run` arguments.
#[derive(clap::Args)]
pub struct Args {}

/// Not available yet.
pub async fn run(_args: Args, _globals: &Globals) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`deft run` is not available in this build yet")
}
