//! `deft mcp NAME`: serve a builtin tool server to outside MCP clients (Claude Desktop, Cursor, …).

use std::net::SocketAddr;
use std::process::ExitCode;

use anyhow::Context;

use crate::{Globals, builtins};

/// `deft mcp` arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Builtin server to serve (`deft mcp --list` shows them).
    #[arg(required_unless_present = "list")]
    name: Option<String>,
    /// List the builtin servers and exit.
    #[arg(long)]
    list: bool,
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (default 127.0.0.1:8010).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8010")]
    http: Option<SocketAddr>,
    /// Bearer token HTTP clients must send; required when ADDR is not loopback.
    #[arg(long, env = "DEFT_MCP_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Server options as JSON (as `options:` in the routing table), e.g. '{"allow":["git"]}'.
    #[arg(long, value_name = "JSON")]
    options: Option<String>,
}

/// Serves until the client leaves (stdio) or Ctrl-C (HTTP).
pub async fn run(args: Args, globals: &Globals) -> anyhow::Result<ExitCode> {
    let registry = builtins::registry(globals);
    if args.list {
        for (name, about) in registry.list() {
            println!("{name:12} {about}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let name = args.name.unwrap_or_default();
    let factory = registry.get(&name).with_context(|| {
        format!(
            "no builtin server named '{name}'; known: {}",
            registry.names()
        )
    })?;
    let options = match &args.options {
        Some(text) => serde_json::from_str(text).context("--options is not valid JSON")?,
        None => serde_json::Value::Null,
    };
    match args.http {
        None => factory
            .serve_stdio(&options)
            .await
            .map_err(anyhow::Error::msg)?,
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on {addr}"))?;
            let bound = listener.local_addr()?;
            eprintln!("serving MCP server '{name}' at http://{bound}/mcp (Ctrl-C to stop)");
            let shutdown = async {
                let _ = crate::signals::stop_requested().await;
            };
            deft_tools::host::serve_http(
                factory.as_ref(),
                &options,
                listener,
                args.token,
                shutdown,
            )
            .await?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
