//! `deft run --designer --device browser --out task.json`: the scripted model explores the
//! fixture order form in real headless Chromium, submits a draft with an unknown step type,
//! reads the validator's path, fixes it, is held back on a selector it never saw, checks it
//! with find_controls and submits again; the validated draft is written out, and `deft task run`
//! plays it in a fresh browser, where the page answers as it did for the model. A run that
//! never submits exits 1 and writes nothing; `--out` needs `--designer`.

use std::path::Path;
use std::process::Output;

use deft_test_support::model::{Recorded, Reply, ScriptedModel, Turn, fill_order_form};
use deft_test_support::web::PageServer;
use serde_json::{Value, json};

fn turn(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Turn {
    Box::new(f)
}

async fn deft(data: &Path, model: &ScriptedModel, args: &[&str]) -> Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_deft"))
        .args(args)
        .arg("--data-dir")
        .arg(data)
        .env("AGENT_API_BASE", model.base_url())
        .env("AGENT_MODEL", "scripted")
        .env_remove("DEFT_TOOLS_CONFIG")
        .env_remove("DISPLAY")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("run deft")
}

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The task the model means; `fill` is the step that types the name.
fn draft(url: &str, fill: Value) -> Value {
    json!({"name": "Order form: Zoë", "steps": [
        {"type": "open_app", "url": url},
        fill,
        {"type": "click", "selector": {"text": "I agree", "type": "checkbox"}},
        {"type": "click", "selector": {"text": "Submit", "type": "button", "match": "exact"}},
        {"type": "wait_el", "selector": {"text": "Hello, Zoë"}, "timeout_s": 20}
    ]})
}

fn script(url: String) -> Vec<Turn> {
    let fill = json!({"type": "input_text", "selector": {"text": "Name", "type": "edit", "match": "exact"}, "text": "Zoë"});
    let (u1, u2, u3) = (url.clone(), url.clone(), url.clone());
    let (f2, f3) = (fill.clone(), fill.clone());
    vec![
        Reply::tool_call("new_tab", json!({"url": url})).into(),
        Reply::tool_call("get_app_window_controls_info", json!({})).into(),
        turn(|req| fill_order_form(req, "Zoë")),
        turn(move |_| {
            let typo = json!({"type": "type_text", "selector": {"text": "Name"}, "text": "Zoë"});
            Reply::tool_call("submit_task", json!({"task": draft(&u1, typo)}))
        }),
        turn(move |req| {
            let out = req.last_tool_output().unwrap_or_default();
            assert!(
                out.contains("- steps[1].type: unknown step type \"type_text\""),
                "{out}"
            );
            Reply::tool_call("submit_task", json!({"task": draft(&u2, f2.clone())}))
        }),
        turn(|req| {
            let out = req.last_tool_output().unwrap_or_default();
            assert!(
                out.contains("Not accepted yet: 1 selector")
                    && out.contains("- steps[4].selector: no control seen during the exploration matches \"Hello, Zoë\""),
                "{out}"
            );
            Reply::tool_call("find_controls", json!({"selector": {"text": "Hello, Zoë"}}))
        }),
        turn(move |req| {
            let out = req.last_tool_output().unwrap_or_default();
            assert!(!out.contains("chosen=none"), "{out}");
            Reply::tool_call("submit_task", json!({"task": draft(&u3, f3.clone())}))
        }),
    ]
}

#[tokio::test]
async fn a_designer_run_writes_the_draft_and_the_runner_plays_it_in_a_fresh_browser() {
    let pages = PageServer::start().await.expect("page server");
    let url = pages.url("form.html");
    let model = ScriptedModel::start(script(url.clone())).await;
    let data = tempfile::tempdir().unwrap();
    let file = data.path().join("order.json");
    let file_arg = file.to_str().unwrap();
    let out = deft(
        data.path(),
        &model,
        &[
            "run",
            "--designer",
            "fill in the order form as Zoë and submit it",
            "--device",
            "browser",
            "--out",
            file_arg,
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(model.turns_left(), 0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("task draft written to") && !stderr.contains("warning:"),
        "{stderr}"
    );
    let first = &model.requests()[0];
    assert_eq!(first.body["max_tokens"], 8192);
    assert!(first.tool_names().contains(&"submit_task".to_owned()));

    let task: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(task["device"], "browser");
    assert_eq!(task["steps"][0]["url"], url.as_str());
    let validated = tokio::process::Command::new(env!("CARGO_BIN_EXE_deft"))
        .args(["task", "validate", file_arg])
        .output()
        .await
        .unwrap();
    assert!(validated.status.success(), "{}", text(&validated));

    let played = deft(
        data.path(),
        &model,
        &["task", "run", file_arg, "--device", "browser"],
    )
    .await;
    assert_eq!(played.status.code(), Some(0), "{}", text(&played));
    let stderr = String::from_utf8_lossy(&played.stderr);
    assert!(
        stderr.contains("✓ steps[4] wait_el") && stderr.contains("Hello, Zoë"),
        "the page answered in the fresh browser: {stderr}"
    );
}

#[tokio::test]
async fn a_designer_run_without_a_draft_exits_1_and_writes_nothing() {
    let model = ScriptedModel::start(vec![
        Reply::text("There is no such application here.").into(),
    ])
    .await;
    let data = tempfile::tempdir().unwrap();
    let file = data.path().join("none.json");
    let out = deft(
        data.path(),
        &model,
        &[
            "run",
            "--designer",
            "order pizza",
            "--device",
            "browser",
            "--out",
            file.to_str().unwrap(),
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "no task draft: the model ended without submitting a task: \"There is no such application here.\""
        ),
        "{}",
        text(&out)
    );
    assert!(!file.exists());

    let misuse = deft(data.path(), &model, &["run", "x", "--out", "t.json"]).await;
    assert_eq!(misuse.status.code(), Some(2), "{}", text(&misuse));
    assert!(
        String::from_utf8_lossy(&misuse.stderr).contains("--designer"),
        "{}",
        text(&misuse)
    );
}
