//! `deft fleet`: the servers on a server's database (several `deft serve` on one PostgreSQL),
//! each with its state and the devices it holds.

use std::process::ExitCode;

use deft_server::api_client::ApiClient;
use serde_json::Value;

use crate::cmd_devices::{Args, print_table};

/// Lists the fleet.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let api = ApiClient::new(&args.server, &args.api_token)?;
    let fleet = api.fleet().await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&fleet)?);
        return Ok(ExitCode::SUCCESS);
    }
    if fleet["enabled"] != Value::Bool(true) {
        println!(
            "this server is not in a fleet: it keeps its data in SQLite; servers share devices \
             when they run on one PostgreSQL database (deft serve --database-url postgres://…)"
        );
        return Ok(ExitCode::SUCCESS);
    }
    let this = fleet["this_server"].as_str().unwrap_or_default();
    let rows: Vec<Vec<String>> = fleet["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| row(s, this))
        .collect();
    print_table(
        &[
            "NAME",
            "STATE",
            "ADDRESS",
            "VERSION",
            "LAST HEARTBEAT",
            "DEVICES",
        ],
        &rows,
    );
    Ok(ExitCode::SUCCESS)
}

fn row(server: &Value, this: &str) -> Vec<String> {
    let text = |key: &str| server[key].as_str().unwrap_or_default().to_owned();
    let mut name = text("name");
    if server["id"].as_str() == Some(this) {
        name.push_str(" (this one)");
    }
    let devices: Vec<String> = server["devices"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            format!(
                "{} (epoch {})",
                d["id"].as_str().unwrap_or_default(),
                d["epoch"]
            )
        })
        .collect();
    vec![
        name,
        text("state"),
        text("address"),
        text("version"),
        text("last_heartbeat"),
        if devices.is_empty() {
            "-".to_owned()
        } else {
            devices.join(", ")
        },
    ]
}
