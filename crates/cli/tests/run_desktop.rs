//! `deft run` on the managed virtual desktop: the agent computes 12 × 7 in gnome-calculator,
//! driven by a scripted model that reads each listing to find the buttons (no hard-coded ids).

#[path = "common/desktop.rs"]
mod desktop;

use std::path::Path;

use deft_test_support::desktop::require_program;
use deft_test_support::model::{
    Recorded, Reply, ScriptedModel, Turn, click_buttons, select_launched_window,
};
use serde_json::json;

fn turn(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Turn {
    Box::new(f)
}

/// `deft` for the test's data folder, as an async command.
fn deft(data: &Path) -> tokio::process::Command {
    tokio::process::Command::from(desktop::deft(data))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_agent_computes_12_times_7_in_the_calculator() {
    require_program("gnome-calculator", "gnome-calculator");
    require_program("Xvfb", "xvfb");
    let data = tempfile::tempdir().unwrap();
    let _desktop = desktop::Desktop::start(data.path());

    let model = ScriptedModel::start(vec![
        Reply::tool_call("launch_app", json!({"app": "gnome-calculator"})).into(),
        turn(select_launched_window),
        Reply::tool_call("get_app_window_controls_info", json!({})).into(),
        turn(|req| click_buttons(req, &["1", "2", "×", "7", "="])),
        Reply::tool_call("get_app_window_controls_info", json!({})).into(),
        turn(|req| {
            let listing = req.last_tool_output().unwrap_or_default();
            assert!(
                listing.contains("= \"84\""),
                "the display should read 84:\n{listing}"
            );
            Reply::tool_call("capture_window_screenshot", json!({"annotated": true}))
        }),
        turn(|req| {
            let listing = req
                .messages()
                .iter()
                .rev()
                .filter(|m| m["role"] == "tool")
                .nth(1)
                .and_then(|m| m["content"].as_str())
                .unwrap_or_default()
                .to_owned();
            let display = listing
                .lines()
                .find(|l| l.contains(" edit ") && l.contains("= \"84\""));
            Reply::text(match display {
                Some(_) => "12 × 7 = 84: the calculator shows 84.",
                None => "The display does not show 84.",
            })
        }),
    ])
    .await;
    let out = deft(data.path())
        .args(["run", "compute 12 × 7 in the calculator"])
        .env("AGENT_API_BASE", model.base_url())
        .env("AGENT_MODEL", "scripted")
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        stdout.contains("the calculator shows 84"),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert_eq!(model.turns_left(), 0);
    assert_eq!(stderr.matches("✓ click_input").count(), 5, "{stderr}");
    let report = stderr
        .lines()
        .find_map(|l| l.strip_prefix("trace: "))
        .expect("trace path");
    assert!(Path::new(report).exists());
}
