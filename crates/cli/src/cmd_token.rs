//! `deft token create NAME --scope … | list | show NAME | revoke NAME` against a `deft serve`:
//! the named API tokens other software calls the API with (docs/console-api.md "API tokens").
//! `create` prints the token's value alone on stdout (it is never shown again), so a script can
//! capture it; everything else goes to stderr.

use std::process::ExitCode;

use deft_server::console::api_tokens::SERVER_TOKEN_ID;
use serde_json::Value;

use crate::cmd_devices::{print_items, print_table};
use crate::cmd_task_server::{ServerArgs, text};

/// `deft token` arguments.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: TokenCommand,
}

#[derive(clap::Subcommand)]
enum TokenCommand {
    /// Make a token with scopes; prints its value, which is shown only this once.
    Create {
        /// The token's name (1–64 letters, digits, spaces, '-', '_' or '.').
        name: String,
        /// What it may reach, comma-separated: devices:read, devices:exec, runs, tasks:read,
        /// tasks:write, tasks:run, memory:read, memory:write, notifications.
        #[arg(long, value_delimiter = ',', required = true)]
        scope: Vec<String>,
        /// Days until it stops working (1–3650); without it, it works until revoked.
        #[arg(long, value_name = "DAYS")]
        expires_in_days: Option<u32>,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// List the tokens: scopes, state, expiry and last use.
    List {
        #[command(flatten)]
        server: ServerArgs,
        /// Print the JSON the server answers.
        #[arg(long)]
        json: bool,
    },
    /// One token and the calls it made, newest first (`api-token`: the server's own API
    /// token's calls).
    Show {
        /// The token's name, or `api-token`.
        name: String,
        #[command(flatten)]
        server: ServerArgs,
        /// Print the JSON the server answers.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a token: its next call is refused.
    Revoke {
        /// The token's name.
        name: String,
        #[command(flatten)]
        server: ServerArgs,
    },
}

/// Runs `deft token …`.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        TokenCommand::Create {
            name,
            scope,
            expires_in_days,
            server,
        } => {
            let made = server
                .client()?
                .create_token(&name, &scope, expires_in_days)
                .await?;
            eprintln!(
                "token {name} made ({}); its value, shown only now:",
                scopes_of(&made["token"])
            );
            println!("{}", text(&made, "value"));
        }
        TokenCommand::List { server, json } => {
            let tokens = server.client()?.tokens().await?;
            print_items(&tokens, json, &TOKEN_HEADER, token_row)?;
        }
        TokenCommand::Show { name, server, json } if name == SERVER_TOKEN_ID => {
            let shown = server.client()?.token_calls(&name).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&shown)?);
            } else {
                eprintln!("the server's API token ({SERVER_TOKEN_ID}): its newest calls");
                print_calls(&shown["items"]);
            }
        }
        TokenCommand::Show { name, server, json } => {
            let shown = server.client()?.token(&name).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&shown)?);
            } else {
                print_table(&TOKEN_HEADER, &[token_row(&shown["token"])]);
                println!();
                print_calls(&shown["calls"]);
            }
        }
        TokenCommand::Revoke { name, server } => {
            server.client()?.revoke_token(&name).await?;
            eprintln!("token {name} revoked");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints calls (`[{"at", "method", "path", "status"}]`) as a table.
fn print_calls(calls: &Value) {
    let rows: Vec<Vec<String>> = calls
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            vec![
                text(c, "at"),
                text(c, "method"),
                text(c, "path"),
                c["status"].to_string(),
            ]
        })
        .collect();
    print_table(&["AT", "METHOD", "PATH", "STATUS"], &rows);
}

fn scopes_of(token: &Value) -> String {
    let scopes: Vec<&str> = token["scopes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    scopes.join(",")
}

/// The columns of [`token_row`].
const TOKEN_HEADER: [&str; 6] = ["NAME", "SCOPES", "STATE", "EXPIRES", "LAST USED", "PREFIX"];

fn token_row(t: &Value) -> Vec<String> {
    vec![
        text(t, "name"),
        scopes_of(t),
        text(t, "state"),
        text(t, "expires_at"),
        text(t, "last_used_at"),
        format!("{}…", text(t, "prefix")),
    ]
}
