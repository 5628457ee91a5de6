//! `deft dataflow (--dataflow | --instantiation | --execution) [--task-path FILE|DIR]
//! [--config FILE] [--jobs N] [--devices ID,…] [--force]`: seed 004's batch pipeline over task
//! files, with a progress bar (done / total, pass / fail / unsure, ETA), a line per task, a summary
//! table, and an exit status that counts the failed tasks.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use deft_agent::llm::{LlmClient, LlmConfig};
use deft_dataflow::{
    Config, Mode, Model, Observer, Pipeline, RunSummary, Schemas, TaskOutcome, TaskStatus, Verdict,
};
use indicatif::{ProgressBar, ProgressStyle};
use parking_lot::Mutex;

use crate::cmd_run::short;
use crate::office::ExtraDocumentDirs;
use crate::{Globals, dataflow_devices};

/// Exit status when the run could not start (configuration, schemas, devices, model).
pub const EXIT_NOT_STARTED: u8 = 101;
/// Exit status after Ctrl-C or SIGTERM.
pub const EXIT_INTERRUPTED: u8 = 130;
/// The highest count of failed tasks the exit status reports.
pub const EXIT_MAX_FAILED: usize = 100;

/// `deft dataflow` arguments.
#[derive(clap::Args)]
#[command(
    after_help = "Exit status: 0 when no task failed; N (1-100) when N tasks failed (100: a \
hundred or more); 101 when the run could not start; 130 when it was interrupted."
)]
pub struct Args {
    /// Instantiate, then execute and evaluate (the whole pipeline). Wins over the other modes.
    #[arg(long)]
    dataflow: bool,
    /// Only instantiate: choose a template, prefill a request and a plan, judge it.
    #[arg(long)]
    instantiation: bool,
    /// Only execute and evaluate instantiated results (the files of an --instantiation run).
    #[arg(long)]
    execution: bool,
    /// A task file, or a folder of them (default: TASKS_HUB of the config).
    #[arg(long, value_name = "FILE|DIR")]
    task_path: Option<PathBuf>,
    /// The dataflow config (YAML, seed 004's keys); relative paths in it start at its folder.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Tasks at once, each on a managed desktop of its own.
    #[arg(long, default_value_t = 1, value_name = "N")]
    jobs: usize,
    /// Run on these devices instead (one task at a time on each): `local`, or clients of the
    /// deft server given by --server.
    #[arg(long, value_delimiter = ',', value_name = "ID,…")]
    devices: Vec<String>,
    /// Run tasks whose result exists again (default: skip them, so a stopped run resumes).
    #[arg(long)]
    force: bool,
    /// The deft server whose devices --devices names (http(s)://host:port).
    #[arg(long, env = "DEFT_SERVER", value_name = "URL")]
    server: Option<String>,
    /// The server's API token.
    #[arg(
        long,
        env = "DEFT_API_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    api_token: Option<String>,
    /// OpenAI-compatible API base URL (else API_BASE of the config).
    #[arg(long, env = "AGENT_API_BASE")]
    api_base: Option<String>,
    /// Model name (else API_MODEL of the config).
    #[arg(long, env = "AGENT_MODEL")]
    model: Option<String>,
    /// API key (else API_KEY of the config).
    #[arg(long, env = "AGENT_API_KEY", hide_env_values = true)]
    api_key: Option<String>,
}

impl Args {
    /// The mode the flags ask for: dataflow > instantiation > execution.
    fn mode(&self) -> Option<Mode> {
        if self.dataflow {
            Some(Mode::Dataflow)
        } else if self.instantiation {
            Some(Mode::Instantiation)
        } else if self.execution {
            Some(Mode::Execution)
        } else {
            None
        }
    }
}

/// Runs `deft dataflow`.
pub async fn run(args: Args, globals: &Globals) -> anyhow::Result<ExitCode> {
    match start(&args, globals).await {
        Ok(code) => Ok(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            Ok(ExitCode::from(EXIT_NOT_STARTED))
        }
    }
}

async fn start(args: &Args, globals: &Globals) -> anyhow::Result<ExitCode> {
    let mode = args.mode().context(
        "say which pipeline to run: --dataflow (all stages), --instantiation or --execution",
    )?;
    if args.jobs == 0 {
        anyhow::bail!("--jobs must be at least 1");
    }
    let (config, warnings) = match &args.config {
        Some(path) => Config::load(path)?,
        None => (Config::defaults(std::path::Path::new(".")), Vec::new()),
    };
    for w in warnings {
        eprintln!("warning: {w}");
    }
    let schemas = Schemas::load(&config).map_err(anyhow::Error::msg)?;
    let model = model(args, &config)?;
    let task_path = args
        .task_path
        .clone()
        .unwrap_or_else(|| config.tasks_hub.clone());
    let files = deft_dataflow::task::task_files(&task_path)
        .with_context(|| format!("cannot read the tasks at {}", task_path.display()))?;
    if files.is_empty() {
        anyhow::bail!("no task files (*.json) in {}", task_path.display());
    }
    let documents = documents_folder(&config)?;
    let (devices, desktops) = if args.devices.is_empty() {
        let n = args.jobs.min(files.len());
        let (devices, desktops) = dataflow_devices::managed(globals, n, &documents).await?;
        (devices, Some(desktops))
    } else {
        if args.jobs != 1 {
            eprintln!(
                "warning: --jobs is ignored with --devices: one task at a time runs on each device"
            );
        }
        let d = dataflow_devices::named(
            globals,
            &args.devices,
            args.server.as_deref(),
            args.api_token.as_deref(),
            &documents,
        )
        .await?;
        (d, None)
    };
    let pipeline = Arc::new(Pipeline {
        config,
        schemas,
        model,
        mode,
        force: args.force,
    });
    let summary = go(&pipeline, files, devices).await;
    drop(desktops);
    print_summary(&pipeline, &summary);
    Ok(exit_code(&summary))
}

/// The model: flags and `AGENT_*` first, then the config's `API_*`.
/// The folder the tasks' documents are copied to and opened from (`saved_document/`), made
/// now so the devices' apps may open documents there.
fn documents_folder(config: &Config) -> anyhow::Result<ExtraDocumentDirs> {
    let dir = std::path::absolute(config.saved_document_dir())?;
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot make the documents folder {}", dir.display()))?;
    Ok(ExtraDocumentDirs::new(vec![dir]))
}

fn model(args: &Args, config: &Config) -> anyhow::Result<Model> {
    let base = args
        .api_base
        .clone()
        .or_else(|| config.model.api_base.clone());
    let name = args
        .model
        .clone()
        .or_else(|| config.model.api_model.clone());
    let key = args
        .api_key
        .clone()
        .or_else(|| config.model.api_key.clone());
    let (Some(base), Some(name)) = (base, name) else {
        anyhow::bail!(
            "no model configured: set AGENT_API_BASE and AGENT_MODEL (and AGENT_API_KEY if the server needs one), pass --api-base and --model, or give API_BASE and API_MODEL in the config"
        );
    };
    let llm = LlmClient::new(LlmConfig::new(&base, &name, key))?;
    Ok(Model::new(llm, config.visual_mode))
}

/// Runs the tasks with a progress bar; the first Ctrl-C stops the run (finished results stay).
async fn go(
    pipeline: &Arc<Pipeline>,
    files: Vec<PathBuf>,
    devices: Vec<deft_tools::Device>,
) -> RunSummary {
    let total = files.len();
    eprintln!(
        "{} {} task{} on {} device{} ({})",
        pipeline.mode.as_str(),
        total,
        if total == 1 { "" } else { "s" },
        devices.len(),
        if devices.len() == 1 { "" } else { "s" },
        devices
            .iter()
            .map(|d| d.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let progress = Arc::new(Progress::new(total as u64));
    let cancel = tokio_util::sync::CancellationToken::new();
    let stopper = cancel.clone();
    let bar = progress.bar.clone();
    tokio::spawn(async move {
        if crate::signals::stop_requested().await.is_ok() {
            bar.println("stopping: the tasks in progress are abandoned, finished results stay");
            if bar.is_hidden() {
                eprintln!("stopping: the tasks in progress are abandoned, finished results stay");
            }
            stopper.cancel();
        }
    });
    let summary = pipeline.run(files, devices, progress.clone(), cancel).await;
    progress.bar.finish_and_clear();
    summary
}

/// The progress bar and its counters.
struct Progress {
    bar: ProgressBar,
    counts: Mutex<[usize; 3]>,
    running: Mutex<Vec<(String, String)>>,
}

impl Progress {
    fn new(total: u64) -> Progress {
        let bar = if std::io::stderr().is_terminal() {
            ProgressBar::new(total)
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} {msg} · ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.enable_steady_tick(Duration::from_millis(500));
        Progress {
            bar,
            counts: Mutex::new([0; 3]),
            running: Mutex::new(Vec::new()),
        }
    }

    fn refresh(&self) {
        let [pass, fail, unsure] = *self.counts.lock();
        let running: Vec<String> = self
            .running
            .lock()
            .iter()
            .map(|(t, d)| format!("{t}@{d}"))
            .collect();
        let now = if running.is_empty() {
            String::new()
        } else {
            format!(" · {}", running.join(" "))
        };
        self.bar
            .set_message(format!("pass {pass} fail {fail} unsure {unsure}{now}"));
    }

    fn line(&self, text: String) {
        if self.bar.is_hidden() {
            eprintln!("{text}");
        } else {
            self.bar.println(text);
        }
    }
}

impl Observer for Progress {
    fn started(&self, task: &str, device: &str) {
        self.running
            .lock()
            .push((task.to_owned(), device.to_owned()));
        self.refresh();
    }

    fn finished(&self, o: &TaskOutcome) {
        self.running
            .lock()
            .retain(|(t, d)| !(t == &o.name && d == &o.device));
        if let Some(v) = o.verdict() {
            let slot = match v {
                Verdict::Pass => 0,
                Verdict::Fail => 1,
                Verdict::Unsure => 2,
            };
            self.counts.lock()[slot] += 1;
        }
        if !matches!(o.status, TaskStatus::Interrupted) {
            self.bar.inc(1);
        }
        self.line(task_line(o));
        if !o.violations.is_empty() {
            self.line(format!(
                "  warning: the result does not match {} — it was saved; check it by hand:",
                o.schema
            ));
            for v in &o.violations {
                self.line(format!("    {v}"));
            }
        }
        self.refresh();
    }
}

/// One line per finished task.
fn task_line(o: &TaskOutcome) -> String {
    let (mark, what) = match &o.status {
        TaskStatus::Saved { bucket, path } => (
            match bucket.verdict() {
                Verdict::Pass => "✓",
                Verdict::Fail => "✗",
                Verdict::Unsure => "?",
            },
            format!("{} → {}", bucket.as_str(), path.display()),
        ),
        TaskStatus::Skipped { bucket, .. } => (
            "·",
            format!("skipped: its result exists ({})", bucket.as_str()),
        ),
        TaskStatus::Interrupted => (
            "!",
            "interrupted: nothing saved, a rerun does it".to_owned(),
        ),
        TaskStatus::NotSaved(why) => ("✗", why.clone()),
    };
    let mut line = format!(
        "{mark} {} [{}] {what} ({:.1} s)",
        o.name,
        o.device,
        o.wall.as_secs_f64()
    );
    for e in &o.errors {
        line.push_str(&format!("\n    {}", short(&e.replace('\n', " "), 300)));
    }
    line
}

/// The table at the end: a row per task, then the counts, the reformat and the timings.
fn print_summary(pipeline: &Pipeline, s: &RunSummary) {
    let name_w = s
        .outcomes
        .iter()
        .map(|o| o.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    println!();
    println!(
        "{:name_w$}  {:18}  {:>8}  {:>7}  note",
        "task", "result", "time s", "schema"
    );
    for o in &s.outcomes {
        let result = match &o.status {
            TaskStatus::Saved { bucket, .. } => bucket.as_str().to_owned(),
            TaskStatus::Skipped { bucket, .. } => format!("{} (kept)", bucket.as_str()),
            TaskStatus::Interrupted => "interrupted".to_owned(),
            TaskStatus::NotSaved(_) => "not saved".to_owned(),
        };
        let schema = match (&o.status, o.violations.len()) {
            (TaskStatus::Skipped { .. } | TaskStatus::Interrupted, _) => "-".to_owned(),
            (_, 0) => "ok".to_owned(),
            (_, n) => format!("{n} off"),
        };
        let note = o
            .errors
            .first()
            .map(|e| short(&e.replace('\n', " "), 90))
            .unwrap_or_default();
        println!(
            "{:name_w$}  {result:18}  {:>8.1}  {schema:>7}  {note}",
            o.name,
            o.wall.as_secs_f64()
        );
    }
    let ran: Vec<&TaskOutcome> = s
        .outcomes
        .iter()
        .filter(|o| matches!(o.status, TaskStatus::Saved { .. } | TaskStatus::NotSaved(_)))
        .collect();
    println!(
        "\npass {}  fail {}  unsure {}  · {} run, {} skipped, {} interrupted · {:.1} s",
        s.count(Verdict::Pass),
        s.count(Verdict::Fail),
        s.count(Verdict::Unsure),
        ran.len(),
        s.outcomes
            .iter()
            .filter(|o| matches!(o.status, TaskStatus::Skipped { .. }))
            .count(),
        s.outcomes
            .iter()
            .filter(|o| matches!(o.status, TaskStatus::Interrupted))
            .count(),
        s.wall.as_secs_f64(),
    );
    if !ran.is_empty() {
        let n = ran.len() as f64;
        let mean = |f: &dyn Fn(&TaskOutcome) -> Duration| {
            ran.iter().map(|o| f(o).as_secs_f64()).sum::<f64>() / n
        };
        println!(
            "per task: {:.2} s wall, {:.2} s model, {:.2} s device, {:.3} s pipeline",
            mean(&|o| o.wall),
            mean(&|o| o.model_time),
            mean(&|o| o.tool_time),
            mean(&|o| o.overhead()),
        );
    }
    println!(
        "results: {}",
        pipeline.config.result_dir(pipeline.mode).display()
    );
    match &s.reformatted {
        Some(Ok(r)) => println!(
            "reformatted to batch: {} task{} in {}{}",
            r.tasks.len(),
            if r.tasks.len() == 1 { "" } else { "s" },
            pipeline.config.reformat_hub.join("tasks").display(),
            if r.skipped.is_empty() {
                String::new()
            } else {
                format!(" ({} left out)", r.skipped.len())
            }
        ),
        Some(Err(e)) => eprintln!("warning: the reformat to batch failed: {e}"),
        None => {}
    }
}

fn exit_code(s: &RunSummary) -> ExitCode {
    if s.interrupted {
        return ExitCode::from(EXIT_INTERRUPTED);
    }
    let failed = s.failed().min(EXIT_MAX_FAILED);
    ExitCode::from(u8::try_from(failed).unwrap_or(u8::MAX))
}
