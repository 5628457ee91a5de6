//! `deft serve`: the deft server (being built; see the open issue).

use std::process::ExitCode;

use crate::Globals;

/// `deft serve` arguments.
#[derive(clap::Args)]
pub struct Args {}

/// Not available yet.
pub async fn run(_args: Args, _globals: &Globals) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`deft serve` is not available in this build yet")
}
