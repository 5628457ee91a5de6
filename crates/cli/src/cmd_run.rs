//! `deft run "goal"`: run the agent on a device and stream what it does to the terminal;
//! `deft run --designer "automation" --out task.json`: designer mode — the model explores the
//! device and drafts a task, which is written out once the validator accepted it.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use deft_agent::llm::{LlmClient, LlmConfig};
use deft_agent::{Approver, ChannelSink, FixedApproval, OutputSchema};
use deft_app::local::chat::{Distiller, LocalChat, LocalChatRun};
use deft_protocol::event::DeltaKind;
use deft_protocol::{
    AgentEvent, DoneStatus, DraftOutcome, EventKind, ResultStatus, ToolStep, TypedResult,
};
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
    /// Designer mode: the model explores the device and drafts a task for the described
    /// automation (at most 40 tool calls; --max-steps does not apply).
    #[arg(long)]
    designer: bool,
    /// With --designer: where the validated draft goes (default: standard output, the model's
    /// text then going to standard error).
    #[arg(long, value_name = "FILE", requires = "designer")]
    out: Option<std::path::PathBuf>,
    /// Don't recall experiences and actions into the run, nor distil it afterwards (a
    /// --designer run never does).
    #[arg(long)]
    no_memory: bool,
    /// The database the memory lives in: `postgres://…` or `sqlite://…` (default: deft.db in
    /// the data folder, the one `deft serve` uses).
    #[arg(long, env = "DATABASE_URL", hide_env_values = true, value_name = "URL")]
    database_url: Option<String>,
    /// A JSON Schema (draft 2020-12 unless its $schema says another) the final answer must be
    /// valid against: standard output gets only the answer's JSON (the model's text goes to
    /// standard error); exit 3 when it is still not valid after one repair turn.
    #[arg(long, value_name = "FILE", conflicts_with = "designer")]
    output_schema: Option<std::path::PathBuf>,
    /// Never send the output schema as the provider's structured output (`response_format`):
    /// put it in the system prompt (for a provider that lacks structured output).
    #[arg(long, env = "AGENT_NO_STRUCTURED_OUTPUT")]
    no_structured_output: bool,
}

/// `deft run --output-schema`'s exit code when the answer is still not valid after its repair.
const EXIT_INVALID_OUTPUT: u8 = 3;

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
    let output_schema = args
        .output_schema
        .as_deref()
        .map(read_output_schema)
        .transpose()?;
    let directory = local_devices::directory(globals)?;
    let device = local_devices::pick_or_phone(globals, &directory, &args.device).await?;
    let mut llm_config = LlmConfig::new(&base, &model, args.api_key.clone());
    llm_config.structured_output = !args.no_structured_output;
    let llm = Arc::new(LlmClient::new(llm_config)?);
    let run_id = deft_app::local::new_run_id();
    let chat = chat(&args, globals, &device, &run_id).await;
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let approver: Arc<dyn Approver> = if args.yes {
        Arc::new(FixedApproval(true))
    } else if interactive {
        Arc::new(PromptApprover)
    } else {
        Arc::new(FixedApproval(false))
    };
    let run = LocalChatRun {
        run_id,
        goal: args.goal.clone(),
        device,
        devices: directory.clone(),
        llm: llm.clone(),
        max_steps: args.max_steps,
        chat,
        trace_root: args
            .trace_dir
            .clone()
            .unwrap_or_else(|| globals.data_dir.join("traces")),
        approver,
        output_schema,
    };
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let answer_to_stderr = (args.designer && args.out.is_none()) || args.output_schema.is_some();
    let printer = tokio::spawn(print_events_with(
        rx,
        std::io::stderr().is_terminal(),
        answer_to_stderr,
    ));
    let cancel = crate::signals::cancel_on_stop("\nstopping…");
    let ended = run.run(Arc::new(ChannelSink(tx)), cancel.clone()).await;
    let _ = printer.await;
    let end = ended?;
    if let Some(distiller) = &end.distiller {
        distil(distiller, &llm, &end.outcome, &cancel).await;
    }
    eprintln!("trace: {}", end.trace.finish().display());
    let outcome = end.outcome;
    match (&outcome.draft, &outcome.output) {
        (Some(draft), _) => write_draft(draft, args.out.as_deref()),
        (None, Some(typed)) if outcome.status == DoneStatus::Completed => write_typed(typed),
        (None, _) => Ok(match outcome.status {
            DoneStatus::Completed => ExitCode::SUCCESS,
            _ => ExitCode::from(1),
        }),
    }
}

/// `--output-schema`'s file, read and checked before the run.
fn read_output_schema(path: &std::path::Path) -> anyhow::Result<OutputSchema> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the output schema {}", path.display()))?;
    OutputSchema::parse(&text).with_context(|| format!("--output-schema {}", path.display()))
}

/// A typed run's result: the value as JSON on standard output, exit 0; or the errors on
/// standard error, exit [`EXIT_INVALID_OUTPUT`].
fn write_typed(typed: &TypedResult) -> anyhow::Result<ExitCode> {
    match (&typed.value, typed.valid) {
        (Some(value), true) => {
            println!("{}", serde_json::to_string_pretty(value)?);
            Ok(ExitCode::SUCCESS)
        }
        _ => {
            eprintln!("the answer is not valid against the output schema:");
            for e in &typed.errors {
                let path = if e.path.is_empty() {
                    "(the answer)"
                } else {
                    &e.path
                };
                eprintln!("  {path}: {}", e.message);
            }
            Ok(ExitCode::from(EXIT_INVALID_OUTPUT))
        }
    }
}

/// Designer mode's result: the draft to `out` (or standard output) with its warnings on
/// standard error, exit 0; or why there is none, exit 1.
fn write_draft(draft: &DraftOutcome, out: Option<&std::path::Path>) -> anyhow::Result<ExitCode> {
    let (task, warnings) = match draft {
        DraftOutcome::Draft { task, warnings } => (task, warnings),
        DraftOutcome::Failed(why) => {
            eprintln!("no task draft: {why}");
            return Ok(ExitCode::from(1));
        }
    };
    let mut text = serde_json::to_string_pretty(task)?;
    text.push('\n');
    for w in warnings {
        eprintln!("warning: {w}");
    }
    match out {
        Some(path) => {
            std::fs::write(path, text)
                .with_context(|| format!("cannot write the draft to {}", path.display()))?;
            eprintln!(
                "task draft written to {}; check it with `deft task validate`, play it with `deft task run`",
                path.display()
            );
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The run's part: designer mode's, or a chat's with the memory taking part (its distiller
/// distils after the answer). A designer run explores on its own: no recall, no distilling
/// (see deft-designer). A memory that cannot be opened is said on the terminal: the run goes on
/// without memories.
async fn chat(
    args: &Args,
    globals: &Globals,
    device: &deft_tools::Device,
    run_id: &str,
) -> LocalChat {
    if args.designer {
        return LocalChat::designer(device);
    }
    deft_app::local::chat::chat(
        !args.no_memory,
        &globals.data_dir,
        args.database_url.as_deref(),
        run_id,
    )
    .await
    .unwrap_or_else(|e| {
        eprintln!("warning: running without the memory: {e}");
        LocalChat::plain()
    })
}

/// After the answer: distils the run into the memory (when it completed and acted), with a
/// spinner, and prints what was saved, merged or dropped.
async fn distil(
    distiller: &Distiller,
    llm: &LlmClient,
    outcome: &deft_agent::RunOutcome,
    cancel: &tokio_util::sync::CancellationToken,
) {
    if !distiller.will_distil(outcome) {
        return;
    }
    let spinner = std::io::stderr().is_terminal().then(|| {
        let pb = ProgressBar::new_spinner();
        pb.set_message("distilling this run into the memory…");
        pb.enable_steady_tick(Duration::from_millis(100));
        pb
    });
    let notes = distiller.distil(llm, outcome, cancel).await;
    if let Some(pb) = spinner {
        pb.finish_and_clear();
    }
    for note in notes {
        eprintln!("🧠 {}", note.line());
    }
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

/// Renders the event stream: reasoning dimmed, the answer as it arrives, a spinner per tool step.
pub(crate) async fn print_events(
    rx: tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
    color: bool,
) {
    print_events_with(rx, color, false).await;
}

/// [`print_events`], the answer on standard error when `answer_to_stderr` (standard output
/// is for a designer run's draft).
async fn print_events_with(
    mut rx: tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
    color: bool,
    answer_to_stderr: bool,
) {
    let mut printer = Printer {
        color,
        spinner: None,
        answer_streamed: false,
        in_reasoning: false,
        answer_to_stderr,
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
    answer_to_stderr: bool,
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
                self.answer(&text);
            }
            EventKind::StepStart { tool, args, .. } => self.step_start(&tool, &args),
            EventKind::Step(step) => self.step(&step),
            EventKind::TaskStepStart(_) => {}
            EventKind::TaskStep(step) => self.task_step(&step),
            EventKind::TaskStepRetry(r) => eprintln!("{}", task_retry_line(&r)),
            EventKind::TaskRound(r) => eprintln!("{}", task_round_line(&r)),
            EventKind::Confirm { .. } | EventKind::Usage(_) => {}
            EventKind::Confirmed { approve, .. } => {
                eprintln!("{}", if approve { "approved" } else { "denied" })
            }
            EventKind::Memory(note) => eprintln!("🧠 {}", note.line()),
            EventKind::Error { message } => eprintln!("error: {message}"),
            EventKind::Done {
                answer,
                usage,
                status,
                ..
            } => self.done(&answer, &usage, status),
        }
    }

    /// Answer text, where answers go.
    fn answer(&self, text: &str) {
        if self.answer_to_stderr {
            eprint!("{text}");
            let _ = std::io::stderr().flush();
        } else {
            print!("{text}");
            let _ = std::io::stdout().flush();
        }
    }

    /// Ends a line of streamed text before something else is printed.
    fn end_text(&mut self) {
        if self.answer_streamed {
            self.answer("\n");
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

    /// One line per finished task step (see [`task_step_line`]).
    fn task_step(&mut self, step: &deft_protocol::task_run::TaskStepResult) {
        eprintln!("{}", task_step_line(step));
    }

    fn done(&mut self, answer: &str, usage: &deft_protocol::Usage, status: DoneStatus) {
        if let Some(pb) = self.spinner.take() {
            pb.finish_and_clear();
        }
        if self.in_reasoning {
            eprintln!();
        }
        if self.answer_streamed {
            self.answer("\n");
        } else if !answer.is_empty() {
            self.answer(&format!("{answer}\n"));
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

/// A finished task step as one line: its mark, path, type and time; the control it matched
/// (its name, or its value as `= "56"` when it has none) and how a tie among equal matches was
/// broken; a healed selector; the error (whole), else what the step has to say.
pub(crate) fn task_step_line(step: &deft_protocol::task_run::TaskStepResult) -> String {
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
        line.push_str(&format!(" → {} {}", m.id, m.kind));
        match (&m.value, m.name.is_empty()) {
            (Some(v), true) => line.push_str(&format!(" = {:?}", short(v, 40))),
            _ => line.push_str(&format!(" {:?}", short(&m.name, 40))),
        }
        if let Some(tie) = &m.tie {
            line.push_str(&format!(" (tie: {})", short(tie, 120)));
        }
    }
    if let Some(h) = &step.healed_from {
        line.push_str(&format!(" (healed from {})", short(h, 60)));
    }
    match (&step.error, &step.message) {
        // Whole: what went wrong is what a person reads the line for.
        (Some(e), _) => line.push_str(&format!(": {e}")),
        (None, Some(m)) if !m.is_empty() => line.push_str(&format!(" — {}", short(m, 160))),
        _ => {}
    }
    line
}

/// A failed attempt of a step that is tried again: `↻ steps[1] click attempt 1 of 3 failed:
/// <error>; again in 2 s`.
pub(crate) fn task_retry_line(r: &deft_protocol::task_run::TaskStepRetry) -> String {
    format!(
        "↻ {} {} attempt {} of {} failed: {}; again in {} s",
        r.path,
        r.step_type,
        r.attempt,
        r.attempts,
        r.error,
        r.delay_ms as f64 / 1000.0
    )
}

/// A `for_each` round starting: `⟳ steps[2] round 1 of 3: row.Order=1001, row.Name="Zoë"`.
pub(crate) fn task_round_line(r: &deft_protocol::task_run::TaskRound) -> String {
    let values: Vec<String> = r
        .values
        .iter()
        .map(|(k, v)| format!("{k}={:?}", short(v, 60)))
        .collect();
    format!(
        "⟳ {} round {} of {}: {}",
        r.path,
        r.round,
        r.rounds,
        values.join(", ")
    )
}

/// `s` cut to `n` characters, with `…` when cut.
pub(crate) fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use deft_protocol::task_run::{MatchedControl, StepStatus, TaskStepResult};

    fn step(matched: MatchedControl) -> TaskStepResult {
        TaskStepResult {
            path: "steps[5]".into(),
            step_type: "wait_el".into(),
            status: StepStatus::Ok,
            duration_ms: 12,
            matched: Some(matched),
            healed_from: None,
            error: None,
            message: Some("waited 3 ms".into()),
            image_ids: Vec::new(),
        }
    }

    #[test]
    fn a_step_line_shows_a_nameless_match_by_its_value_and_says_a_tie() {
        let display = MatchedControl {
            id: "12".into(),
            kind: "edit".into(),
            score: 100,
            value: Some("56".into()),
            ..MatchedControl::default()
        };
        assert_eq!(
            super::task_step_line(&step(display)),
            "✓ steps[5] wait_el (12 ms) → 12 edit = \"56\" — waited 3 ms"
        );
        let tied = MatchedControl {
            id: "7".into(),
            name: "OK".into(),
            kind: "button".into(),
            score: 100,
            value: None,
            tie: Some("2 controls score 100; index 0 in document order picks id 7".into()),
        };
        assert_eq!(
            super::task_step_line(&step(tied)),
            "✓ steps[5] wait_el (12 ms) → 7 button \"OK\" (tie: 2 controls score 100; index 0 in document order picks id 7) — waited 3 ms"
        );
    }

    #[test]
    fn a_retry_and_a_round_print_as_lines() {
        let retry = deft_protocol::task_run::TaskStepRetry {
            path: "steps[1]".into(),
            step_type: "click".into(),
            attempt: 1,
            attempts: 3,
            error: "no control matches \"Save\"".into(),
            delay_ms: 1500,
        };
        assert_eq!(
            super::task_retry_line(&retry),
            "↻ steps[1] click attempt 1 of 3 failed: no control matches \"Save\"; again in 1.5 s"
        );
        let round = deft_protocol::task_run::TaskRound {
            path: "steps[2]".into(),
            round: 2,
            rounds: 3,
            values: [
                ("row.Name".to_owned(), "Zoë, Jr.".to_owned()),
                ("row.Order".to_owned(), "1001".to_owned()),
            ]
            .into(),
        };
        assert_eq!(
            super::task_round_line(&round),
            "⟳ steps[2] round 2 of 3: row.Name=\"Zoë, Jr.\", row.Order=\"1001\""
        );
    }
}
