//! `deft webhook create NAME --url URL --event … | list | test NAME | deliveries NAME | delete
//! NAME` against a `deft serve`: where it POSTs its events (docs/console-api.md "Webhooks").
//! `create` prints the signing secret alone on stdout (it is never shown again), so a script
//! can capture it; everything else goes to stderr or is a table.

use std::process::ExitCode;

use serde_json::Value;

use crate::cmd_devices::print_items;
use crate::cmd_task_server::{ServerArgs, text};

/// `deft webhook` arguments.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: WebhookCommand,
}

#[derive(clap::Subcommand)]
enum WebhookCommand {
    /// Make a webhook; prints its signing secret, which is shown only this once.
    Create {
        /// The webhook's name.
        name: String,
        /// Where deft POSTs (http or https).
        #[arg(long)]
        url: String,
        /// The events it receives, comma-separated: run.ended, task_run.ended,
        /// audit.suggestion, device.offline.
        #[arg(long, value_delimiter = ',', required = true)]
        event: Vec<String>,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// List the webhooks: URL, events, state and last delivery.
    List {
        #[command(flatten)]
        server: ServerArgs,
        /// Print the JSON the server answers.
        #[arg(long)]
        json: bool,
    },
    /// Send a test (a `ping` delivery) to a webhook.
    Test {
        /// The webhook's name or id.
        name: String,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// A webhook's newest deliveries.
    Deliveries {
        /// The webhook's name or id.
        name: String,
        /// How many (1–1000).
        #[arg(long, default_value_t = 20)]
        limit: u32,
        #[command(flatten)]
        server: ServerArgs,
        /// Print the JSON the server answers.
        #[arg(long)]
        json: bool,
    },
    /// Delete a webhook and its deliveries.
    Delete {
        /// The webhook's name or id.
        name: String,
        #[command(flatten)]
        server: ServerArgs,
    },
}

/// Runs `deft webhook …`.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        WebhookCommand::Create {
            name,
            url,
            event,
            server,
        } => {
            let made = server.client()?.create_webhook(&name, &url, &event).await?;
            eprintln!("webhook {name} made; its signing secret, shown only now:");
            println!("{}", text(&made, "secret"));
        }
        WebhookCommand::List { server, json } => {
            let hooks = server.client()?.webhooks().await?;
            let header = ["NAME", "STATE", "EVENTS", "URL", "LAST DELIVERY"];
            print_items(&hooks, json, &header, |h| {
                vec![
                    text(h, "name"),
                    text(h, "state"),
                    joined(&h["events"]),
                    text(h, "url"),
                    last_delivery(&h["last_delivery"]),
                ]
            })?;
        }
        WebhookCommand::Test { name, server } => {
            let sent = server.client()?.test_webhook(&name).await?;
            eprintln!(
                "ping queued for {name} (delivery {}); `deft webhook deliveries {name}` shows how it went",
                text(&sent["delivery"], "id")
            );
        }
        WebhookCommand::Deliveries {
            name,
            limit,
            server,
            json,
        } => {
            let page = server.client()?.webhook_deliveries(&name, limit).await?;
            let header = [
                "AT", "EVENT", "STATE", "CODE", "ATTEMPTS", "MS", "ERROR", "ID",
            ];
            print_items(&page, json, &header, delivery_row)?;
        }
        WebhookCommand::Delete { name, server } => {
            server.client()?.delete_webhook(&name).await?;
            eprintln!("webhook {name} deleted");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn joined(list: &Value) -> String {
    let items: Vec<&str> = list
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    items.join(",")
}

fn last_delivery(d: &Value) -> String {
    if d.is_null() {
        return "-".to_owned();
    }
    format!(
        "{} {} {}",
        text(d, "event"),
        text(d, "state"),
        text(d, "updated_at")
    )
}

fn delivery_row(d: &Value) -> Vec<String> {
    let code = d["response_code"]
        .as_u64()
        .map_or("-".to_owned(), |c| c.to_string());
    let ms = d["duration_ms"]
        .as_i64()
        .map_or("-".to_owned(), |m| m.to_string());
    vec![
        text(d, "updated_at"),
        text(d, "event"),
        text(d, "state"),
        code,
        format!("{}/{}", d["attempts"], d["max_attempts"]),
        ms,
        text(d, "error"),
        text(d, "id"),
    ]
}
