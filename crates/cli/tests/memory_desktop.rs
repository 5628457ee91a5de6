//! The memory end to end, as a person meets it in `deft run` on the managed virtual desktop:
//! the first run computes 7 × 8 in gnome-calculator step by step and is distilled into an
//! experience and an action (in the data folder's store); the second, similar run starts with
//! both in its first request, calls `run_action` — the task runner types 12*9 into the
//! calculator the first run left open (open_app selects it), waits for the display to show the
//! result and says what it saw — and answers, in fewer model calls than the first.

#![allow(clippy::unwrap_used)] // test code: an unwrap that fails is a failing test

#[path = "common/desktop.rs"]
mod desktop;

use std::path::Path;

use deft_test_support::desktop::require_program;
use deft_test_support::model::{Recorded, Reply, ScriptedModel, Turn, find_control};
use serde_json::{Value, json};

fn turn(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Turn {
    Box::new(f)
}

/// `deft` for the test's data folder, as an async command.
fn deft(data: &Path) -> tokio::process::Command {
    tokio::process::Command::from(desktop::deft(data))
}

/// The recipe the first run is distilled into.
const RECIPE: &str = "Launch gnome-calculator and select its window. Type the expression with \
                      the keys (* for ×) and press Enter, or click the buttons by their names; \
                      then read the result from the display, an edit whose value is the result.";

/// The first run: launch, select, list, four clicks, list again, answer (6 model calls); then
/// the experience and the action distilled from it.
fn first_run() -> Vec<Turn> {
    vec![
        Reply::tool_call("launch_app", json!({"app": "gnome-calculator"})).into(),
        turn(|req| {
            let out: Value =
                serde_json::from_str(req.last_tool_output().unwrap_or("")).unwrap_or_default();
            let w = &out["window"];
            Reply::tool_call(
                "select_application_window",
                json!({"id": w["id"], "name": w["name"]}),
            )
        }),
        Reply::tool_call("get_app_window_controls_info", json!({})).into(),
        turn(|req| {
            let listing = req.last_tool_output().unwrap_or_default();
            let calls = ["7", "×", "8", "="]
                .iter()
                .map(|label| {
                    let id = find_control(listing, "button", label)
                        .unwrap_or_else(|| panic!("no button {label:?} in:\n{listing}"));
                    ("click_input", json!({"id": id, "name": label}))
                })
                .collect();
            Reply::tool_calls(calls)
        }),
        Reply::tool_call("get_app_window_controls_info", json!({})).into(),
        turn(|req| {
            let listing = req.last_tool_output().unwrap_or_default();
            Reply::text(if listing.contains("= \"56\"") {
                "7 × 8 = 56: the calculator shows 56."
            } else {
                "The display does not show 56."
            })
        }),
        Reply::text(
            &json!({"title": "Multiply in gnome-calculator", "recipe": RECIPE}).to_string(),
        )
        .into(),
        Reply::text(
            &json!({"actions": [{
                "name": "Calculate in gnome-calculator",
                "aliases": ["calculator"],
                "description": "Opens gnome-calculator, types an expression and reads the display.",
                "variables": {"expression": "7*8"},
                "steps": [
                    {"type": "open_app", "app": "gnome-calculator"},
                    {"type": "key_event", "keys": "{{expression}}{ENTER}"},
                    // The result: the display holds only digits once the expression is
                    // computed (it shows "12×9" first).
                    {"type": "wait_el", "selector": {"type": "edit", "text": "^\\d+$", "match": "regex"}}
                ]
            }]})
            .to_string(),
        )
        .into(),
    ]
}

/// The second run: `run_action` (whose answer says what the action's `wait_el` saw on the
/// display), then the answer (2 model calls); then its experience (it acted through
/// `run_action`).
fn second_run() -> Vec<Turn> {
    vec![
        Reply::tool_call(
            "run_action",
            json!({"name": "Calculate in gnome-calculator", "variables": {"expression": "12*9"}}),
        )
        .into(),
        turn(|req| {
            // run_action's answer is JSON: its step lines' quotes are escaped.
            let answer = req.last_tool_output().unwrap_or_default();
            Reply::text(if answer.contains(r#"it saw edit \"\" = \"108\""#) {
                "12 × 9 = 108: the calculator shows 108."
            } else {
                "The display does not show 108."
            })
        }),
        Reply::text(
            &json!({"title": "Multiply in gnome-calculator", "recipe": RECIPE}).to_string(),
        )
        .into(),
    ]
}

/// The model calls a run made, from the done line (`Completed · N model calls · …`).
fn model_calls(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| {
            let (_, rest) = l.split_once(" · ")?;
            rest.split_once(" model calls")?.0.trim().parse().ok()
        })
        .unwrap_or_else(|| panic!("no done line in:\n{stderr}"))
}

async fn run(data: &Path, model: &ScriptedModel, goal: &str) -> (String, String) {
    let out = deft(data)
        .args(["run", goal])
        .env("AGENT_API_BASE", model.base_url())
        .env("AGENT_MODEL", "scripted")
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    (stdout, stderr)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_repeated_calculator_task_recalls_and_runs_the_action_in_fewer_calls() {
    require_program("gnome-calculator", "gnome-calculator");
    require_program("Xvfb", "xvfb");
    let data = tempfile::tempdir().unwrap();
    let _desktop = desktop::Desktop::start(data.path());

    let mut turns = first_run();
    turns.extend(second_run());
    let model = ScriptedModel::start(turns).await;

    let (stdout, stderr) = run(data.path(), &model, "compute 7 × 8 in the calculator").await;
    assert!(
        stdout.contains("the calculator shows 56"),
        "{stdout}\n{stderr}"
    );
    assert!(
        stderr.contains("🧠 Saved 1 new experience from this run"),
        "{stderr}"
    );
    assert!(
        stderr.contains("🧠 Saved 1 new action from this run"),
        "{stderr}"
    );
    let first_calls = model_calls(&stderr);
    assert_eq!(first_calls, 6);
    let before = model.requests().len();
    assert_eq!(before, 8, "six run calls and two distilling calls");

    let (stdout, stderr) = run(data.path(), &model, "compute 12 × 9 in the calculator").await;
    let outputs: Vec<String> = model.requests()[before..]
        .iter()
        .map(|r| {
            r.last_tool_output()
                .unwrap_or_default()
                .chars()
                .take(600)
                .collect()
        })
        .collect();
    assert!(
        stdout.contains("the calculator shows 108"),
        "{stdout}\n{stderr}\n{outputs:#?}"
    );
    assert!(
        stderr.contains("🧠 Recalled 1 similar experience into the prompt"),
        "{stderr}"
    );
    assert!(
        stderr.contains("🧠 Recalled 1 similar action into the prompt"),
        "{stderr}"
    );
    assert!(stderr.contains("✓ run_action"), "{stderr}");
    let second_calls = model_calls(&stderr);
    assert!(
        second_calls < first_calls,
        "the second run took {second_calls} model calls, the first {first_calls}"
    );

    let requests = model.requests();
    let first = &requests[before];
    let systems: Vec<&str> = first
        .messages()
        .iter()
        .filter(|m| m["role"] == "system")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(
        systems
            .iter()
            .any(|s| s.starts_with("## Experience from similar tasks") && s.contains(RECIPE)),
        "{systems:#?}"
    );
    assert!(
        systems.iter().any(|s| s.starts_with("## Reusable actions")
            && s.contains("### Calculate in gnome-calculator (also: calculator)")
            && s.contains(r#"{"keys":"{{expression}}{ENTER}","type":"key_event"}"#)),
        "{systems:#?}"
    );
    assert!(first.tool_names().contains(&"run_action".to_owned()));
    let action_answer = requests[before + 1].last_tool_output().unwrap_or_default();
    assert!(
        action_answer.contains("completed: 3 step(s) ok")
            && action_answer.contains("steps[2] wait_el: ok")
            && action_answer.contains("it saw edit")
            && action_answer.contains("\"root_name\":\"gnome-calculator\""),
        "run_action answers each step, what it saw and the window it left selected: {action_answer}"
    );
    assert_eq!(
        model.turns_left(),
        0,
        "the second run's experience was distilled too"
    );
}
