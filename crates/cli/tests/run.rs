//! `deft run` against the scripted OpenAI-compatible server, as a person runs it.

use deft_test_support::model::{Recorded, Reply, ScriptedModel, Turn};
use serde_json::json;

fn turn(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Turn {
    Box::new(f)
}

async fn deft_run(base: &str, data: &std::path::Path, extra: &[&str]) -> std::process::Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_deft"))
        .args(["run", "what kernel runs here?", "--data-dir"])
        .arg(data)
        .args(extra)
        .env("AGENT_API_BASE", base)
        .env("AGENT_MODEL", "scripted")
        .env_remove("AGENT_API_KEY")
        .env_remove("DISPLAY")
        .env_remove("DEFT_TOOLS_CONFIG")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("run deft")
}

#[tokio::test]
async fn run_with_yes_executes_the_shell_call_and_leaves_a_trace() {
    let model = ScriptedModel::start(vec![
        Reply::tool_call("run_shell", json!({"command": "uname -s"}))
            .with_reasoning("Ask uname.")
            .into(),
        turn(|req| {
            let out = req.last_tool_output().unwrap_or("");
            let v: serde_json::Value = serde_json::from_str(out).unwrap_or_default();
            Reply::text(&format!(
                "The kernel is {}.",
                v["stdout"].as_str().unwrap_or("?").trim()
            ))
        }),
    ])
    .await;
    let data = tempfile::tempdir().unwrap();
    let out = deft_run(&model.base_url(), data.path(), &["--yes"]).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(stdout.contains("The kernel is Linux."), "{stdout}");
    assert!(stderr.contains("✓ run_shell ("), "{stderr}");
    let trace_line = stderr
        .lines()
        .find(|l| l.starts_with("trace: "))
        .expect("trace path printed");
    let report = std::path::PathBuf::from(trace_line.trim_start_matches("trace: "));
    assert!(
        report.starts_with(data.path().join("traces")),
        "{}",
        report.display()
    );
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("run_shell"), "{html}");
    assert!(html.contains("The kernel is Linux."));
    let jsonl = std::fs::read_to_string(report.with_file_name("trace.jsonl")).unwrap();
    let last: serde_json::Value = serde_json::from_str(jsonl.lines().last().unwrap()).unwrap();
    assert_eq!(last["event"]["type"], "done");
    assert_eq!(last["event"]["status"], "completed");
}

#[tokio::test]
async fn without_a_terminal_or_yes_sensitive_calls_are_denied() {
    let model = ScriptedModel::start(vec![
        Reply::tool_call("run_shell", json!({"command": "uname -s"})).into(),
        turn(|req| Reply::text(req.last_tool_output().unwrap_or(""))),
    ])
    .await;
    let data = tempfile::tempdir().unwrap();
    let out = deft_run(&model.base_url(), data.path(), &[]).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout.contains("the user did not approve this run_shell call"),
        "{stdout}"
    );
}

#[tokio::test]
async fn missing_model_configuration_is_exit_2() {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_deft"))
        .args(["run", "x"])
        .env_remove("AGENT_API_BASE")
        .env_remove("AGENT_MODEL")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("no model configured: set AGENT_API_BASE and AGENT_MODEL")
    );
}

#[tokio::test]
async fn a_failed_run_is_exit_1() {
    let model = ScriptedModel::start(vec![Reply::status(401, "bad key").into()]).await;
    let data = tempfile::tempdir().unwrap();
    let out = deft_run(&model.base_url(), data.path(), &[]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("error: the API key is invalid or expired (HTTP 401")
    );
}

/// A schema file in `dir`.
fn schema_file(dir: &std::path::Path, schema: &str) -> std::path::PathBuf {
    let path = dir.join("schema.json");
    std::fs::write(&path, schema).expect("write the schema file");
    path
}

const KERNEL_SCHEMA: &str =
    r#"{"type": "object", "properties": {"kernel": {"type": "string"}}, "required": ["kernel"]}"#;

#[tokio::test]
async fn output_schema_prints_only_the_json_value_after_a_repair() {
    let model = ScriptedModel::start(vec![
        Reply::tool_call("get_system_info", json!({})).into(),
        Reply::text("It is Linux.").into(),
        turn(|req| {
            let repair = req.messages().last().and_then(|m| m["content"].as_str());
            Reply::text(match repair {
                Some(t) if t.contains("(the answer): the answer is not JSON") => {
                    "```json\n{\"kernel\": \"Linux\"}\n```"
                }
                _ => "no repair message",
            })
        }),
    ])
    .await;
    let data = tempfile::tempdir().unwrap();
    let schema = schema_file(data.path(), KERNEL_SCHEMA);
    let out = deft_run(
        &model.base_url(),
        data.path(),
        &["--output-schema", schema.to_str().unwrap()],
    )
    .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    let value: serde_json::Value = serde_json::from_str(&stdout).expect("only JSON on stdout");
    assert_eq!(value, json!({"kernel": "Linux"}));
    assert!(
        stderr.contains("It is Linux."),
        "the model's text on stderr: {stderr}"
    );
    let reqs = model.requests();
    assert_eq!(
        reqs[0].body["response_format"]["json_schema"]["schema"]["required"],
        json!(["kernel"])
    );
    let trace_line = stderr.lines().find(|l| l.starts_with("trace: ")).unwrap();
    let report = std::path::PathBuf::from(trace_line.trim_start_matches("trace: "));
    let jsonl = std::fs::read_to_string(report.with_file_name("trace.jsonl")).unwrap();
    let last: serde_json::Value = serde_json::from_str(jsonl.lines().last().unwrap()).unwrap();
    assert_eq!(
        last["event"]["output"],
        json!({"valid": true, "value": {"kernel": "Linux"}, "repaired": true})
    );
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("Typed result: valid"), "{html}");
}

#[tokio::test]
async fn output_schema_still_invalid_is_exit_3_with_the_errors() {
    let model = ScriptedModel::start(vec![
        Reply::text(r#"{"kernel": 6}"#).into(),
        Reply::text(r#"{"kernel": 6}"#).into(),
    ])
    .await;
    let data = tempfile::tempdir().unwrap();
    let schema = schema_file(data.path(), KERNEL_SCHEMA);
    let out = deft_run(
        &model.base_url(),
        data.path(),
        &[
            "--output-schema",
            schema.to_str().unwrap(),
            "--no-structured-output",
        ],
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing unchecked on stdout");
    assert!(
        stderr.contains("the answer is not valid against the output schema:\n  /kernel: 6 is not of type \"string\""),
        "{stderr}"
    );
    let reqs = model.requests();
    assert_eq!(reqs.len(), 2);
    assert!(reqs[0].body.get("response_format").is_none());
    assert!(reqs[0].text().contains("JSON Schema:\n{"));
}

#[tokio::test]
async fn a_bad_or_unreadable_output_schema_fails_before_the_run() {
    let model = ScriptedModel::start(vec![]).await;
    let data = tempfile::tempdir().unwrap();
    let bad = schema_file(
        data.path(),
        r#"{"type": "object", "properties": {"a": {"type": "nope"}}}"#,
    );
    let out = deft_run(
        &model.base_url(),
        data.path(),
        &["--output-schema", bad.to_str().unwrap()],
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the output schema is not a valid JSON Schema (draft 2020-12 unless its $schema says another): at /properties/a/type: "),
        "{stderr}"
    );
    let missing = data.path().join("nope.json");
    let out = deft_run(
        &model.base_url(),
        data.path(),
        &["--output-schema", missing.to_str().unwrap()],
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot read the output schema"), "{stderr}");
    assert!(model.requests().is_empty(), "no model call");
}
