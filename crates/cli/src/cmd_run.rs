//! `deft run "goal"`: run the agent on a device and stream what it does to the terminal.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use deft_agent::llm::{LlmClient, LlmConfig};
use deft_agent::{Agent, AgentConfig, Approver, ChannelSink, FixedApproval, RunIo, RunRequest};
use deft_protocol::event::DeltaKind;
use deft_protocol::{AgentEvent, DoneStatus, EventKind, ResultStatus, ToolStep};
use deft_tools::devices;
use futures::future::BoxFuture;
use indicatif::{ProgressBar, ProgressStyle};

use crate::{Globals, local_devices};

/// `deft run` arguments.
#[derive(clap::Args)]
pub struct Args {
    /// What to do, in plain words.
    goal: String,
    /// Device to operate.
    #[arg(long, default_value = devices::LOCAL)]
    device: String,
    /// Model calls at most (1–200).
    #[arg(long, default_value_t = 40)]
    max_steps: u32,
    /// OpenAI-compatible API base URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1.
    #[arg(long, env = "AGENT_API_BASE")]
    api_base: Option<String>,
    /// Model name.
    #[arg(long, env = "AGENT_MODEL")]
    model: Option<String>,
    /// API key (sent as a Bearer token).
    #[arg(long, env = "AGENT_API_KEY", hide_env_values = true)]
    api_key: Option<String>,
    /// Approve every sensitive action without asking.
    #[arg(long)]
    yes: bool,
    /// Where run traces go (default: <data dir>/traces).
    #[arg(long, value_name = "DIR")]
    trace_dir: Option<std::path::PathBuf>,
}

/// Runs the agent.
pub async fn run(args: Args, globals: &Globals) -> anyhow::Result<ExitCode> {
    let (Some(base), Some(model)) = (args.api_base.clone(), args.model.clone()) else {
        anyhow::bail!(
            "no model configured: set AGENT_API_BASE and AGENT_MODEL (and AGENT_API_KEY if the server needs one), or pass --api-base and --model"
        );
    };
    if !(1..=200).contains(&args.max_steps) {
        anyhow::bail!(
            "--max-steps must be between 1 and 200, got {}",
            args.max_steps
        );
    }
    let directory = local_devices::directory(globals)?;
    let device = local_devices::pick(&directory, &args.device)?;
    let _busy = device.try_reserve().context("the device is busy")?;

    let llm = LlmClient::new(LlmConfig::new(&base, &model, args.api_key.clone()))?;
    let agent = Agent::new(
        Arc::new(llm),
        AgentConfig::default().with_max_steps(args.max_steps),
        directory.clone(),
    );

    let run_id = run_id();
    let trace_root = args
        .trace_dir
        .clone()
        .unwrap_or_else(|| globals.data_dir.join("traces"));
    let trace = Arc::new(
        deft_trace::TraceWriter::create(
            &trace_root,
            &run_id,
            deft_trace::TraceMeta {
                goal: args.goal.clone(),
                device: device.id.clone(),
                model: model.clone(),
            },
        )
        .with_context(|| {
            format!(
                "cannot create the trace folder under {}",
                trace_root.display()
            )
        })?,
    );
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let approver: Arc<dyn Approver> = if args.yes {
        Arc::new(FixedApproval(true))
    } else if interactive {
        Arc::new(PromptApprover)
    } else {
        Arc::new(FixedApproval(false))
    };
    let io = RunIo {
        events: vec![Arc::new(ChannelSink(tx)), trace.clone()],
        images: trace.clone(),
        approver,
    };
    let printer = tokio::spawn(print_events(rx, std::io::stderr().is_terminal()));

    let cancel = tokio_util::sync::CancellationToken::new();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        if crate::signals::stop_requested().await.is_ok() {
            eprintln!("\nstopping…");
            stopper.cancel();
        }
    });
    let outcome = agent
        .run(&device, RunRequest::new(&args.goal), io, cancel)
        .await;
    let _ = printer.await;
    let report = trace.finish();
    eprintln!("trace: {}", report.display());
    Ok(match outcome.status {
        DoneStatus::Completed => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}

/// Asks on the terminal; no answer within the policy's timeout denies (the agent enforces it).
struct PromptApprover;

impl Approver for PromptApprover {
    fn approve<'a>(
        &'a self,
        _call_id: &'a str,
        tool: &'a str,
        args: &'a serde_json::Value,
        reason: &'a str,
    ) -> BoxFuture<'a, bool> {
        let question = format!("\n{reason}.\nAllow {tool} {args}? [y/N] ");
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                eprint!("{question}");
                let _ = std::io::stderr().flush();
                let mut line = String::new();
                std::io::stdin().read_line(&mut line).is_ok()
                    && matches!(line.trim(), "y" | "Y" | "yes")
            })
            .await
            .unwrap_or(false)
        })
    }
}

/// A fresh run id: seconds since the epoch and a random suffix (the trace folder's name).
pub(crate) fn run_id() -> String {
    format!(
        "{}-{}",
        unix_secs(),
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    )
}

/// Renders the event stream: reasoning dimmed, the answer as it arrives, a spinner per tool step.
pub(crate) async fn print_events(
    mut rx: tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
    color: bool,
) {
    let mut printer = Printer {
        color,
        spinner: None,
        answer_streamed: false,
        in_reasoning: false,
    };
    while let Some(ev) = rx.recv().await {
        printer.print(ev.kind);
    }
}

/// What the terminal shows of a run: reasoning dimmed on stderr, the answer on stdout, one line
/// per tool step (a spinner while it runs, on a colour terminal).
struct Printer {
    color: bool,
    spinner: Option<ProgressBar>,
    answer_streamed: bool,
    in_reasoning: bool,
}

impl Printer {
    fn dim(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[2m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }

    fn print(&mut self, kind: EventKind) {
        let is_delta = matches!(kind, EventKind::Delta { .. });
        if !is_delta
            && (self.in_reasoning || self.answer_streamed)
            && !matches!(kind, EventKind::Done { .. } | EventKind::Usage(_))
        {
            self.end_text();
        }
        match kind {
            EventKind::Delta {
                text,
                kind: DeltaKind::Reasoning,
            } => {
                self.in_reasoning = true;
                eprint!("{}", self.dim(&text));
            }
            EventKind::Delta {
                text,
                kind: DeltaKind::Content,
            } => {
                if self.in_reasoning {
                    eprintln!();
                    self.in_reasoning = false;
                }
                self.answer_streamed = true;
                print!("{text}");
                let _ = std::io::stdout().flush();
            }
            EventKind::StepStart { tool, args, .. } => self.step_start(&tool, &args),
            EventKind::Step(step) => self.step(&step),
            EventKind::TaskStepStart(_) => {}
            EventKind::TaskStep(step) => self.task_step(&step),
            EventKind::Confirm { .. } | EventKind::Usage(_) => {}
            EventKind::Confirmed { approve, .. } => {
                eprintln!("{}", if approve { "approved" } else { "denied" })
            }
            EventKind::Error { message } => eprintln!("error: {message}"),
            EventKind::Done {
                answer,
                usage,
                status,
            } => self.done(&answer, &usage, status),
        }
    }

    /// Ends a line of streamed text before something else is printed.
    fn end_text(&mut self) {
        if self.answer_streamed {
            println!();
        } else {
            eprintln!();
        }
        self.answer_streamed = false;
        self.in_reasoning = false;
    }

    fn step_start(&mut self, tool: &str, args: &serde_json::Value) {
        if !self.color {
            return;
        }
        let pb = ProgressBar::new_spinner();
        pb.set_style(
            ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        pb.set_message(format!("{tool} {}", short(&args.to_string(), 80)));
        pb.enable_steady_tick(Duration::from_millis(100));
        self.spinner = Some(pb);
    }

    fn step(&mut self, step: &ToolStep) {
        let ok = step.status() == Some(ResultStatus::Success);
        let mark = if ok { "✓" } else { "✗" };
        let mut line = format!("{mark} {} ({} ms)", step.tool, step.duration_ms);
        if let Some(e) = &step.effect {
            line.push_str(&format!(" {e}"));
        }
        if !step.image_ids.is_empty() {
            line.push_str(&format!(" [{} image(s)]", step.image_ids.len()));
        }
        if !ok && let Some(err) = step.result["error"].as_str() {
            line.push_str(&format!(": {}", short(err, 160)));
        }
        match self.spinner.take() {
            Some(pb) => pb.finish_with_message(line),
            None => eprintln!("{line}"),
        }
    }

    /// One line per finished task step: its mark, type and path, the control it matched, a
    /// healed selector, the error.
    fn task_step(&mut self, step: &deft_protocol::task_run::TaskStepResult) {
        use deft_protocol::task_run::StepStatus;
        let mark = match step.status {
            StepStatus::Ok => "✓",
            StepStatus::Failed => "✗",
            StepStatus::Skipped => "–",
        };
        let mut line = format!(
            "{mark} {} {} ({} ms)",
            step.path, step.step_type, step.duration_ms
        );
        if let Some(m) = &step.matched {
            line.push_str(&format!(" → {} {} {:?}", m.id, m.kind, short(&m.name, 40)));
        }
        if let Some(h) = &step.healed_from {
            line.push_str(&format!(" (healed from {})", short(h, 60)));
        }
        if let Some(e) = &step.error {
            line.push_str(&format!(": {}", short(e, 160)));
        }
        eprintln!("{line}");
    }

    fn done(&mut self, answer: &str, usage: &deft_protocol::Usage, status: DoneStatus) {
        if let Some(pb) = self.spinner.take() {
            pb.finish_and_clear();
        }
        if self.in_reasoning {
            eprintln!();
        }
        if self.answer_streamed {
            println!();
        } else if !answer.is_empty() {
            println!("{answer}");
        }
        eprintln!(
            "{}",
            self.dim(&format!(
                "{status:?} · {} model calls · {} prompt + {} completion tokens",
                usage.calls, usage.prompt_tokens, usage.completion_tokens
            ))
        );
    }
}

/// `s` cut to `n` characters, with `…` when cut.
pub(crate) fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

fn unix_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
