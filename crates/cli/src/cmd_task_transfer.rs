//! `deft task export` and `deft task import` against a `deft serve`: a server's tasks with
//! their schedules as one JSON document, and such a document brought into a server — what was
//! created, replaced, skipped or renamed, the clashes and the warnings, a line each.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use serde_json::Value;

use crate::cmd_task_server::ServerArgs;

/// `deft task export`: the document to `output` (else standard output); `which` is the
/// query's key and value (`task`, `folder` or `all`).
pub async fn export(
    server: &ServerArgs,
    which: (&str, String),
    output: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let doc = server.client()?.export_tasks(which.0, &which.1).await?;
    let text = serde_json::to_string_pretty(&doc)?;
    let count = doc["tasks"].as_array().map_or(0, Vec::len);
    match output {
        Some(path) => {
            std::fs::write(path, format!("{text}\n"))
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!("exported {count} task(s) to {}", path.display());
        }
        None => println!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// `deft task import FILE`: the server's report as lines; a refusal is an error (exit 1) with
/// the server's reasons.
pub async fn import(
    server: &ServerArgs,
    file: &Path,
    dry_run: bool,
    on_clash: &str,
) -> anyhow::Result<ExitCode> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let doc: Value = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{} is not JSON: import the file `deft task export` wrote",
            file.display()
        )
    })?;
    let report = server
        .client()?
        .import_tasks(&doc, dry_run, on_clash)
        .await
        .context("nothing was imported")?;
    for line in report_lines(&report) {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The report as lines: `created NAME` (`would create` on a dry run), `replaced`, `skipped`,
/// `renamed FROM → TO`, then `clash: NAME` and `warning: TASK: TEXT`.
fn report_lines(report: &Value) -> Vec<String> {
    let dry = report["dry_run"] == true;
    let names = |key: &str| -> Vec<String> {
        report[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    let mut lines = Vec::new();
    for (key, done, would) in [
        ("created", "created", "would create"),
        ("replaced", "replaced", "would replace"),
        ("skipped", "skipped", "would skip"),
    ] {
        let verb = if dry { would } else { done };
        lines.extend(names(key).into_iter().map(|n| format!("{verb} {n}")));
    }
    let verb = if dry { "would rename" } else { "renamed" };
    for r in report["renamed"].as_array().into_iter().flatten() {
        let (from, to) = (
            r["from"].as_str().unwrap_or("-"),
            r["to"].as_str().unwrap_or("-"),
        );
        lines.push(format!("{verb} {from} → {to}"));
    }
    lines.extend(names("clashes").into_iter().map(|n| format!("clash: {n}")));
    for w in report["warnings"].as_array().into_iter().flatten() {
        let (task, message) = (
            w["task"].as_str().unwrap_or("-"),
            w["message"].as_str().unwrap_or(""),
        );
        lines.push(format!("warning: {task}: {message}"));
    }
    lines
}
