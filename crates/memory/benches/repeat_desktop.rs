//! The memory's payoff, measured: a calculator task done twice on the managed desktop with the
//! scripted model. The first run explores (launch, select, list, click 7 × 8 =, list, answer);
//! it is distilled into an experience and an action; the second, similar run gets both in its
//! prompt, calls `run_action` (the runner types 12*9 and leaves the window selected), reads
//! the display and answers. Prints each run's model calls and tokens (cl100k over each
//! request's messages and tools, and each answer) and the ratio; the issue's target: the
//! second run ≤ ½ the first in both. Distilling's own calls are printed apart (they happen
//! after the answer). Asserts nothing.
//!
//!     cargo bench -p deft-memory --bench repeat_desktop

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures
#![allow(clippy::unwrap_used)] // a benchmark's set-up failing is its failure

#[path = "../../tasks/tests/desktop_device/mod.rs"]
mod desktop_device;

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use deft_agent::llm::{LlmClient, LlmConfig};
use deft_agent::{Agent, AgentConfig, ConfirmPolicy, RunIo, RunOutcome, RunProfile, RunRequest};
use deft_memory::{Memory, MemoryConfig};
use deft_store::Store;
use deft_test_support::model::{Recorded, Reply, ScriptedModel, Turn, find_control};
use deft_tools::StaticDevices;
use serde_json::{Value, json};

static BPE: LazyLock<tiktoken_rs::CoreBPE> =
    LazyLock::new(|| tiktoken_rs::cl100k_base().expect("cl100k tables ship with tiktoken-rs"));

fn tokens(text: &str) -> u64 {
    BPE.encode_with_special_tokens(text).len() as u64
}

/// A turn whose reply reports usage counted with cl100k: the request's messages and tools in,
/// the reply's text and tool calls out.
fn metered(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Turn {
    Box::new(move |req| {
        let prompt = tokens(&req.body["messages"].to_string())
            + req.body.get("tools").map_or(0, |t| tokens(&t.to_string()));
        match f(req) {
            Reply::Stream(mut s) => {
                let out = s.content.clone()
                    + &s.tool_calls
                        .iter()
                        .map(|(_, n, a)| format!("{n}{a}"))
                        .collect::<String>();
                s.usage = Some((prompt, tokens(&out)));
                Reply::Stream(s)
            }
            other => other,
        }
    })
}

fn fixed(reply: Reply) -> Turn {
    metered(move |_| reply.clone())
}

const RECIPE: &str = "Launch gnome-calculator and select its window. Type the expression with the \
                      keys (* for ×) and press Enter, or click the buttons by their names; then \
                      read the result from the display, an edit whose value is the result.";

fn first_run() -> Vec<Turn> {
    vec![
        fixed(Reply::tool_call("launch_app", json!({"app": "gnome-calculator"}))),
        metered(|req| {
            let out: Value =
                serde_json::from_str(req.last_tool_output().unwrap_or("")).unwrap_or_default();
            Reply::tool_call(
                "select_application_window",
                json!({"id": out["window"]["id"], "name": out["window"]["name"]}),
            )
        }),
        fixed(Reply::tool_call("get_app_window_controls_info", json!({}))),
        metered(|req| {
            let listing = req.last_tool_output().unwrap_or_default();
            Reply::tool_calls(
                ["7", "×", "8", "="]
                    .iter()
                    .map(|l| {
                        let id = find_control(listing, "button", l).unwrap_or_default();
                        ("click_input", json!({"id": id, "name": l}))
                    })
                    .collect(),
            )
        }),
        fixed(Reply::tool_call("get_app_window_controls_info", json!({}))),
        metered(|req| {
            let ok = req.last_tool_output().unwrap_or_default().contains("= \"56\"");
            Reply::text(if ok { "7 × 8 = 56." } else { "The display does not show 56." })
        }),
        fixed(Reply::text(
            &json!({"title": "Multiply in gnome-calculator", "recipe": RECIPE}).to_string(),
        )),
        fixed(Reply::text(
            &json!({"actions": [{"name": "Calculate in gnome-calculator", "aliases": ["calculator"],
                "description": "Opens gnome-calculator, types an expression and reads the display.",
                "variables": {"expression": "7*8"},
                "steps": [{"type": "open_app", "app": "gnome-calculator"},
                          {"type": "key_event", "keys": "{{expression}}{ENTER}"},
                          {"type": "wait_el", "selector": {"type": "edit"}}]}]})
            .to_string(),
        )),
    ]
}

fn second_run() -> Vec<Turn> {
    vec![
        fixed(Reply::tool_call(
            "run_action",
            json!({"name": "Calculate in gnome-calculator", "variables": {"expression": "12*9"}}),
        )),
        metered(|req| {
            // run_action's answer is JSON: its step lines' quotes are escaped.
            let ok = req
                .last_tool_output()
                .unwrap_or_default()
                .contains(r#"it saw edit \"\" = \"108\""#);
            Reply::text(if ok {
                "12 × 9 = 108."
            } else {
                "The display does not show 108."
            })
        }),
        fixed(Reply::text(
            &json!({"title": "Multiply in gnome-calculator", "recipe": RECIPE}).to_string(),
        )),
    ]
}

fn line(what: &str, o: &RunOutcome) -> String {
    format!(
        "{what}: {:?}, {} model calls, {} prompt + {} completion = {} tokens, {:.1} s — {:?}",
        o.status,
        o.usage.calls,
        o.usage.prompt_tokens,
        o.usage.completion_tokens,
        o.usage.total_tokens,
        o.timings.total.as_secs_f64(),
        o.answer
    )
}

fn main() {
    desktop_device::require_apps(&[("gnome-calculator", "gnome-calculator")]);
    let rt = tokio::runtime::Runtime::new().expect("a tokio runtime");
    rt.block_on(async {
        let desk = desktop_device::start().await;
        let dir = tempfile::tempdir().unwrap();
        let memory = Memory::new(
            Store::open(dir.path(), None).await.unwrap(),
            MemoryConfig::default(),
        );
        let mut turns = first_run();
        turns.extend(second_run());
        let model = ScriptedModel::start(turns).await;
        let mut config = LlmConfig::new(&model.base_url(), "scripted", None);
        config.backoff = Duration::from_millis(50);
        let llm = Arc::new(LlmClient::new(config).unwrap());
        let devices = Arc::new(StaticDevices::new(vec![desk.device.clone()]));
        let agent_config = AgentConfig {
            confirm: ConfirmPolicy::none(),
            ..AgentConfig::default()
        };
        let mut outcomes = Vec::new();
        for (i, goal) in ["compute 7 × 8 in the calculator", "compute 12 × 9 in the calculator"]
            .iter()
            .enumerate()
        {
            let session = memory.session(Some(&format!("run-{}", i + 1)));
            let agent = Agent::new(llm.clone(), agent_config.clone(), devices.clone());
            let request = RunRequest::new(goal)
                .with_profile(RunProfile::chat().with_extension(session.clone()));
            let outcome = agent
                .run(&desk.device, request, RunIo::discard(), Default::default())
                .await;
            println!("{}", line(&format!("run {} ({goal})", i + 1), &outcome));
            for note in session.recalled() {
                println!("  recalled: {}", note.line());
            }
            let before = model.requests().len();
            for note in session.distil(&llm, &outcome, &Default::default()).await {
                println!("  distilled: {}", note.line());
            }
            let distil_tokens: u64 = model.requests()[before..]
                .iter()
                .map(|r| tokens(&r.body["messages"].to_string()))
                .sum();
            println!(
                "  distilling after the answer: {} model calls, about {distil_tokens} prompt tokens",
                model.requests().len() - before
            );
            outcomes.push(outcome);
        }
        let (a, b) = (&outcomes[0].usage, &outcomes[1].usage);
        println!(
            "run 2 / run 1: model calls {} / {} = {:.2}, tokens {} / {} = {:.2} (target ≤ 0.5 each)",
            b.calls,
            a.calls,
            b.calls as f64 / a.calls as f64,
            b.total_tokens,
            a.total_tokens,
            b.total_tokens as f64 / a.total_tokens as f64
        );
    });
}
