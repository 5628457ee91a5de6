//! `deft task list|run NAME|stop RUN_ID|runs [NAME] [--export csv|json]` against a `deft serve`: the server's
//! stored tasks, started there (trigger `manual`) and followed on its event stream with the
//! same progress lines as a local run; Ctrl-C stops the run on the server.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use deft_protocol::{DoneStatus, EventKind};
use deft_server::api_client::{ApiClient, RunQuery};
use serde_json::Value;

use crate::cmd_devices::print_table;
use crate::cmd_run;

/// Which server, with which token.
#[derive(clap::Args)]
pub struct ServerArgs {
    /// The server's address: http(s)://host:port.
    #[arg(long, env = "DEFT_SERVER", value_name = "URL")]
    server: String,
    /// The server's API token.
    #[arg(
        long,
        env = "DEFT_API_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    api_token: String,
}

impl ServerArgs {
    /// From `deft task run`'s optional flags.
    pub fn new(server: String, api_token: Option<String>) -> anyhow::Result<Self> {
        let api_token = api_token.context(
            "--server needs the server's API token: pass --api-token or set DEFT_API_TOKEN",
        )?;
        Ok(ServerArgs { server, api_token })
    }

    /// A client of the server with the token.
    pub fn client(&self) -> anyhow::Result<ApiClient> {
        Ok(ApiClient::new(&self.server, &self.api_token)?)
    }
}

/// `v[key]` as text, `-` when it is not one.
pub fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("-").to_owned()
}

/// `deft task list`.
pub async fn list(server: &ServerArgs, json: bool) -> anyhow::Result<ExitCode> {
    let tasks = server.client()?.tasks().await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&tasks)?);
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<Vec<String>> = tasks["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            let last = &t["last_run"];
            vec![
                text(t, "name"),
                text(t, "device"),
                if t["enabled"] == true { "on" } else { "off" }.to_owned(),
                t["schedule_count"].to_string(),
                text(t, "next_fire_at"),
                if last.is_null() {
                    "-".to_owned()
                } else {
                    format!("{} {}", text(last, "status"), text(last, "started_at"))
                },
                text(t, "id"),
            ]
        })
        .collect();
    print_table(
        &[
            "NAME",
            "DEVICE",
            "STATE",
            "SCHEDULES",
            "NEXT RUN",
            "LAST RUN",
            "ID",
        ],
        &rows,
    );
    Ok(ExitCode::SUCCESS)
}

/// `deft task runs [NAME]`: a page of the run history, with how many the filters select and
/// the cursor of the next page.
pub async fn runs(server: &ServerArgs, query: &RunQuery, json: bool) -> anyhow::Result<ExitCode> {
    let runs = server.client()?.task_runs(query).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&runs)?);
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<Vec<String>> = runs["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let steps = &r["steps"];
            vec![
                text(r, "id"),
                text(r, "task_name"),
                text(r, "status"),
                text(r, "trigger"),
                text(r, "device"),
                text(r, "started_at"),
                format!(
                    "{} ok, {} failed, {} skipped",
                    steps["ok"], steps["failed"], steps["skipped"]
                ),
                r.get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            ]
        })
        .collect();
    print_table(
        &[
            "RUN", "TASK", "STATUS", "TRIGGER", "DEVICE", "STARTED", "STEPS", "ERROR",
        ],
        &rows,
    );
    println!("{} of {} runs", rows.len(), runs["total"]);
    if let Some(next) = runs.get("next_cursor").and_then(Value::as_str) {
        println!("next page: --cursor {next}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `deft task runs [NAME] --export csv|json [-o FILE]`: every run the filters select, written
/// as the server streams it (never held whole), to `output` or standard output.
pub async fn export_runs(
    server: &ServerArgs,
    format: &str,
    mut query: RunQuery,
    output: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    query.limit = None;
    let mut response = server.client()?.task_runs_export(format, &query).await?;
    let mut out: Box<dyn Write> = match output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write the export to {}", path.display()))?,
        )),
        None => Box::new(std::io::stdout().lock()),
    };
    while let Some(chunk) = response
        .chunk()
        .await
        .context("the server's export broke off")?
    {
        out.write_all(&chunk)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `deft task stop RUN_ID`.
pub async fn stop(server: &ServerArgs, run_id: &str) -> anyhow::Result<ExitCode> {
    server.client()?.stop_task_run(run_id).await?;
    eprintln!("stopping task run {run_id}");
    Ok(ExitCode::SUCCESS)
}

/// `deft task run NAME --server`: starts the stored task and prints its steps as they run;
/// exit status 0 when it completed, 1 otherwise.
pub async fn run(
    server: &ServerArgs,
    task: &str,
    variables: &BTreeMap<String, String>,
) -> anyhow::Result<ExitCode> {
    let api = server.client()?;
    let run = api.run_task(task, variables).await?;
    let run_id = text(&run, "id");
    eprintln!(
        "task run {run_id} of {:?} on {}",
        text(&run, "task_name"),
        text(&run, "device")
    );
    let mut events = api.task_events(&run_id).await?;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let printer = tokio::spawn(cmd_run::print_events(
        rx,
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    ));
    let stopper = {
        let (url, token, run_id) = (
            server.server.clone(),
            server.api_token.clone(),
            run_id.clone(),
        );
        tokio::spawn(async move {
            if crate::signals::stop_requested().await.is_ok() {
                eprintln!("\nstopping…");
                if let Ok(api) = ApiClient::new(&url, &token)
                    && let Err(e) = api.stop_task_run(&run_id).await
                {
                    eprintln!("cannot stop the run: {e}");
                }
            }
        })
    };
    let mut status = None;
    while let Some(event) = events.next().await? {
        if let EventKind::Done { status: s, .. } = &event.kind {
            status = Some(*s);
        }
        let _ = tx.send(event);
    }
    drop(tx);
    stopper.abort();
    let _ = printer.await;
    eprintln!("see it with: deft task runs {task:?}");
    Ok(match status {
        Some(DoneStatus::Completed) => ExitCode::SUCCESS,
        Some(_) => ExitCode::from(1),
        None => {
            eprintln!("the server's event stream ended before the run did");
            ExitCode::from(1)
        }
    })
}
