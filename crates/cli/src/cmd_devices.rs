//! `deft devices`: list the devices a server knows.

use std::process::ExitCode;

use deft_server::api_client::ApiClient;
use serde_json::Value;

use crate::Globals;

/// `deft devices` (and `deft fleet`) arguments.
#[derive(clap::Args)]
pub struct Args {
    /// The server's address: http(s)://host:port (any server of a fleet).
    #[arg(long, env = "DEFT_SERVER", value_name = "URL")]
    pub(crate) server: String,
    /// The server's API token (or a named token with devices:read).
    #[arg(
        long,
        env = "DEFT_API_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub(crate) api_token: String,
    /// Print the JSON the server answers.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Lists the devices.
pub async fn run(args: Args, _globals: &Globals) -> anyhow::Result<ExitCode> {
    let api = ApiClient::new(&args.server, &args.api_token)?;
    let devices = api.devices().await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&devices)?);
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<Vec<String>> = devices
        .as_array()
        .map(|a| a.iter().map(|d| row(d).to_vec()).collect())
        .unwrap_or_default();
    print_table(
        &[
            "ID",
            "PROFILE",
            "STATE",
            "KIND",
            "WHAT",
            "LAST HEARTBEAT",
            "TOOLS",
        ],
        &rows,
    );
    // What to do about devices that cannot be used yet (a phone to authorize …).
    for d in devices.as_array().into_iter().flatten() {
        if let (Some(id), Some(note)) = (
            d.get("id").and_then(Value::as_str),
            d.get("note").and_then(Value::as_str),
        ) {
            println!("{id}: {note}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints a list the server answered (`{"items": [...], …}`): as its JSON with `json`, else a
/// table of one `row` per item under `header`.
pub(crate) fn print_items(
    answer: &serde_json::Value,
    json: bool,
    header: &[&str],
    row: impl Fn(&serde_json::Value) -> Vec<String>,
) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(answer)?);
    } else {
        let rows: Vec<Vec<String>> = answer["items"]
            .as_array()
            .into_iter()
            .flatten()
            .map(row)
            .collect();
        print_table(header, &rows);
    }
    Ok(())
}

/// Prints `rows` under `header` in left-aligned columns as wide as their widest cell.
pub(crate) fn print_table(header: &[&str], rows: &[Vec<String>]) {
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    let mut widths: Vec<usize> = header.iter().map(String::len).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    for r in std::iter::once(&header).chain(rows.iter()) {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        println!("{}", line.join("  ").trim_end());
    }
}

fn row(d: &Value) -> [String; 7] {
    let s = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("-").to_owned();
    let busy = d.get("busy").and_then(Value::as_bool).unwrap_or(false);
    let tools = d
        .get("tools")
        .and_then(Value::as_array)
        .map(|t| {
            t.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(",")
        })
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "-".into());
    // A phone not ready shows its adb state (unauthorized, offline …) instead of idle.
    let state = match d.get("state").and_then(Value::as_str) {
        Some(state) if state != "device" => state.to_owned(),
        _ if busy => "busy".to_owned(),
        _ => "idle".to_owned(),
    };
    [
        s("id"),
        s("profile"),
        state,
        s("kind"),
        s("label"),
        s("last_heartbeat"),
        tools,
    ]
}
