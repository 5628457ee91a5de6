//! `deft task validate FILE` and `deft task run FILE`: check a task file against the step
//! language (docs/tasks.md), and run one on a device of this machine without a server — a
//! line per step, a trace, exit status 0 when it completed and 1 otherwise. The subcommands
//! that talk to a `deft serve` (`list`, `run NAME --server`, `stop`, `runs`) are in
//! [`crate::cmd_task_server`], `export` and `import` in [`crate::cmd_task_transfer`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use deft_app::local::task::LocalTaskRun;
use deft_protocol::DoneStatus;
use deft_server::api_client::RunQuery;
use deft_tasks::validate::{DeviceKind, Mode, Options};
use deft_tools::devices;

use crate::cmd_task_server::{self, ServerArgs};
use crate::cmd_task_transfer;
use crate::{Globals, cmd_run, local_devices};

/// `deft task` arguments.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: TaskCommand,
}

#[derive(clap::Subcommand)]
enum TaskCommand {
    /// Check a task file: every error and warning with its path; exit 1 when it is invalid.
    Validate {
        /// The task file (JSON).
        file: PathBuf,
        /// Check it as action-library steps: the sixteen library types, no coordinates.
        #[arg(long)]
        library: bool,
        /// Warn about steps this device cannot do (local, browser, or a client's id).
        #[arg(long)]
        device: Option<String>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run a task file on a device of this machine, without a server; or, with --server, a
    /// stored task by its name or id on that server (following its steps until it ends).
    Run {
        /// The task file (JSON), or with --server a task's name or id.
        file: PathBuf,
        /// Run the stored task of this server instead of a file (http(s)://host:port).
        #[arg(long, env = "DEFT_SERVER", value_name = "URL")]
        server: Option<String>,
        /// The server's API token (with --server).
        #[arg(
            long,
            env = "DEFT_API_TOKEN",
            hide_env_values = true,
            value_name = "TOKEN"
        )]
        api_token: Option<String>,
        /// The device (default: the task's own, else local).
        #[arg(long)]
        device: Option<String>,
        /// A variable's value for this run: NAME=VALUE (repeatable).
        #[arg(long = "var", value_name = "NAME=VALUE")]
        vars: Vec<String>,
        /// Where the run's trace goes (default: <data dir>/traces).
        #[arg(long, value_name = "DIR")]
        trace_dir: Option<PathBuf>,
    },
    /// List a server's tasks: device, schedules, next run, last result.
    List {
        #[command(flatten)]
        server: ServerArgs,
        /// Print the JSON the server answers.
        #[arg(long)]
        json: bool,
    },
    /// Export a server's tasks with their schedules as one JSON document: one task, a folder
    /// (its subfolders included) or all of them.
    Export {
        /// One task, by name or id.
        #[arg(long, conflicts_with_all = ["folder", "all"])]
        task: Option<String>,
        /// Every task of this folder and its subfolders (e.g. finance/nightly).
        #[arg(long, conflicts_with = "all")]
        folder: Option<String>,
        /// Every task.
        #[arg(long)]
        all: bool,
        /// Write the document here (default: standard output).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Import an export document into a server: every task validated first, all or nothing;
    /// exit 1 when the server refuses it.
    Import {
        /// The export document (JSON).
        file: PathBuf,
        /// Only say what would be created, replaced, skipped or renamed.
        #[arg(long)]
        dry_run: bool,
        /// A task whose name the server has: refuse the import, skip it, replace the
        /// server's (a new version) or rename it ("name (2)").
        #[arg(long, default_value = "fail", value_parser = ["fail", "skip", "replace", "rename"])]
        on_clash: String,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// Stop a task run on a server (it ends within a second as stopped).
    Stop {
        /// The run's id.
        run_id: String,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// A server's task runs, newest first: all, or one task's (by name or id), filtered, sorted
    /// and paged as the console's run history, or exported whole (--export).
    Runs {
        /// Only this task's runs.
        task: Option<String>,
        #[command(flatten)]
        query: RunsQueryArgs,
        /// Write every run the filters select (all pages) as csv or json instead of a page.
        #[arg(long, value_name = "FORMAT")]
        export: Option<String>,
        /// With --export: the file to write (default: standard output).
        #[arg(short = 'o', long, value_name = "FILE", requires = "export")]
        output: Option<PathBuf>,
        #[command(flatten)]
        server: ServerArgs,
        /// Print the JSON the server answers.
        #[arg(long, conflicts_with = "export")]
        json: bool,
    },
}

/// `deft task runs`' filters, sort and page: passed to the server as given, which answers a
/// bad one with what it takes.
#[derive(clap::Args)]
pub struct RunsQueryArgs {
    /// Only runs with this status (running, ok, failed, stopped, skipped, timed_out,
    /// interrupted).
    #[arg(long)]
    status: Option<String>,
    /// Only runs started so (manual, schedule, api, try).
    #[arg(long)]
    trigger: Option<String>,
    /// Only runs on this device.
    #[arg(long)]
    device: Option<String>,
    /// Only runs started at or after: a date (2026-03-01, UTC) or an ISO-8601 moment.
    #[arg(long, value_name = "WHEN")]
    from: Option<String>,
    /// Only runs started at or before: a date (that whole day, UTC) or an ISO-8601 moment.
    #[arg(long, value_name = "WHEN")]
    to: Option<String>,
    /// Sort by started (default), duration or status.
    #[arg(long)]
    sort: Option<String>,
    /// desc (default) or asc.
    #[arg(long)]
    order: Option<String>,
    /// Start after this cursor: the "next page" cursor a listing printed (same sort and order).
    #[arg(long)]
    cursor: Option<String>,
    /// How many on a page (1–1,000).
    #[arg(long, default_value_t = 20)]
    limit: u32,
}

impl RunsQueryArgs {
    /// The server's query for `task`'s runs (every task's when `None`).
    fn query(self, task: Option<String>) -> RunQuery {
        RunQuery {
            task,
            status: self.status,
            trigger: self.trigger,
            device: self.device,
            from: self.from,
            to: self.to,
            sort: self.sort,
            order: self.order,
            cursor: self.cursor,
            limit: Some(self.limit),
        }
    }
}

/// Runs `deft task …`.
pub async fn run(args: Args, globals: &Globals) -> anyhow::Result<ExitCode> {
    match args.command {
        TaskCommand::Validate {
            file,
            library,
            device,
            json,
        } => validate(&file, library, device.as_deref(), json),
        TaskCommand::Run {
            file,
            server,
            api_token,
            device,
            vars,
            trace_dir,
        } => match server {
            // A file that exists runs here; anything else with a server is a stored task.
            Some(url) if !file.is_file() => {
                let server = ServerArgs::new(url, api_token)?;
                if device.is_some() || trace_dir.is_some() {
                    anyhow::bail!(
                        "--device and --trace-dir are for task files; a server's task runs on its own device and keeps its trace on the server"
                    );
                }
                cmd_task_server::run(&server, &file.to_string_lossy(), &parse_vars(&vars)?).await
            }
            _ => run_file(&file, device, &vars, trace_dir, globals).await,
        },
        TaskCommand::List { server, json } => cmd_task_server::list(&server, json).await,
        TaskCommand::Export {
            task,
            folder,
            all,
            output,
            server,
        } => {
            let which = match (task, folder, all) {
                (Some(t), _, _) => ("task", t),
                (None, Some(f), _) => ("folder", f),
                (None, None, true) => ("all", "true".to_owned()),
                (None, None, false) => {
                    anyhow::bail!("say which tasks to export: --task NAME, --folder PATH or --all")
                }
            };
            cmd_task_transfer::export(&server, which, output.as_deref()).await
        }
        TaskCommand::Import {
            file,
            dry_run,
            on_clash,
            server,
        } => cmd_task_transfer::import(&server, &file, dry_run, &on_clash).await,
        TaskCommand::Stop { run_id, server } => cmd_task_server::stop(&server, &run_id).await,
        TaskCommand::Runs {
            task,
            query,
            export,
            output,
            server,
            json,
        } => {
            let query = query.query(task);
            match export {
                Some(format) => {
                    cmd_task_server::export_runs(&server, &format, query, output.as_deref()).await
                }
                None => cmd_task_server::runs(&server, &query, json).await,
            }
        }
    }
}

fn read(file: &std::path::Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))
}

fn validate(
    file: &std::path::Path,
    library: bool,
    device: Option<&str>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let bytes = read(file)?;
    let opts = Options {
        mode: if library { Mode::Library } else { Mode::Task },
        device: device.map(DeviceKind::of_device),
        ..Options::default()
    };
    let v = deft_tasks::validate_task(&bytes, &opts);
    if json {
        println!("{}", serde_json::to_string_pretty(&v.report)?);
    } else {
        eprintln!("{}", v.report);
    }
    Ok(if v.report.is_valid() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `NAME=VALUE` pairs.
pub(crate) fn parse_vars(pairs: &[String]) -> anyhow::Result<BTreeMap<String, String>> {
    pairs
        .iter()
        .map(|p| {
            p.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.to_owned()))
                .with_context(|| format!("--var {p:?}: write NAME=VALUE"))
        })
        .collect()
}

async fn run_file(
    file: &std::path::Path,
    device: Option<String>,
    vars: &[String],
    trace_dir: Option<PathBuf>,
    globals: &Globals,
) -> anyhow::Result<ExitCode> {
    let bytes = read(file)?;
    let variables = parse_vars(vars)?;
    let opts = Options {
        provided: variables.keys().cloned().collect(),
        ..Options::default()
    };
    let (task, warnings) = match deft_tasks::validate_task(&bytes, &opts).into_result() {
        Ok(ok) => ok,
        Err(report) => {
            eprintln!("{report}");
            return Ok(ExitCode::from(1));
        }
    };
    if !warnings.warnings.is_empty() {
        eprintln!("{warnings}");
    }
    let device_id = device
        .or_else(|| task.device.clone())
        .unwrap_or_else(|| devices::LOCAL.to_owned());
    let directory = local_devices::directory(globals)?;
    let run = LocalTaskRun {
        task,
        device: local_devices::pick_or_phone(globals, &directory, &device_id).await?,
        variables,
        trace_root: trace_dir.unwrap_or_else(|| globals.data_dir.join("traces")),
    };
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let printer = tokio::spawn(cmd_run::print_events(
        rx,
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    ));
    let cancel = crate::signals::cancel_on_stop("\nstopping…");
    let ended = run.run(Arc::new(deft_agent::ChannelSink(tx)), cancel).await;
    let _ = printer.await;
    let end = ended?;
    eprintln!("trace: {}", end.trace_report.display());
    let report = end.report;
    Ok(match report.status {
        DoneStatus::Completed => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}
