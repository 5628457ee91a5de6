//! `deft run --device browser`: the agent fills the fixture form in real headless Chromium,
//! driven by a scripted model that reads each listing to find the controls (no hard-coded ids).

use deft_test_support::model::{Recorded, Reply, ScriptedModel, Turn, fill_order_form};
use deft_test_support::web::PageServer;
use serde_json::json;

fn turn(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Turn {
    Box::new(f)
}

#[tokio::test]
async fn the_agent_fills_and_submits_the_form_in_the_browser() {
    let pages = PageServer::start().await.expect("page server");
    let url = pages.url("form.html");
    let model = ScriptedModel::start(vec![
        Reply::tool_call("new_tab", json!({"url": url})).into(),
        turn(|req| {
            let names = req.tool_names();
            assert!(
                names.contains(&"get_app_window_controls_info".to_owned()),
                "no hand-off: {names:?}"
            );
            Reply::tool_call("get_app_window_controls_info", json!({}))
        }),
        turn(|req| fill_order_form(req, "Zoë 苏州")),
        Reply::tool_call("get_page_text", json!({})).into(),
        turn(|req| {
            let text = req.last_tool_output().unwrap_or_default();
            let line = text
                .lines()
                .find(|l| l.contains("Hello,"))
                .unwrap_or("no result on the page");
            Reply::text(&format!("The page says: {line}"))
        }),
    ])
    .await;
    let data = tempfile::tempdir().unwrap();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_deft"))
        .args([
            "run",
            "fill in the order form as Zoë 苏州, agree, and submit it",
            "--device",
            "browser",
            "--data-dir",
        ])
        .arg(data.path())
        .env("AGENT_API_BASE", model.base_url())
        .env("AGENT_MODEL", "scripted")
        .env_remove("DEFT_TOOLS_CONFIG")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("run deft");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        stdout.contains("The page says: Hello, Zoë 苏州 (Red, small, agreed)"),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert_eq!(model.turns_left(), 0);
    assert!(stderr.contains("✓ click_input"), "{stderr}");
}
