//! `deft tools`, `deft exec` and `deft mcp` as a person runs them.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn deft() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_deft"));
    c.env_remove("DEFT_TOOLS_CONFIG")
        .env_remove("DISPLAY")
        .env("DEFT_LOG", "warn")
        .env("DEFT_NO_PHONES", "1");
    c
}

fn exec_stdin(args: &[&str], input: &str) -> Output {
    let mut child = deft()
        .arg("exec")
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn deft");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write batch");
    child.wait_with_output().expect("deft exec")
}

fn json_out(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

#[test]
fn exec_three_commands_second_failing_gives_success_failure_skipped() {
    let batch = r#"{"commands":[
        {"call_id":"one","tool_name":"run_shell","tool_type":"action","parameters":{"command":"echo hi"}},
        {"call_id":"two","tool_name":"run_shell","tool_type":"action","parameters":{"command":"cat /etc/hostname; reboot"}},
        {"call_id":"three","tool_name":"get_system_info","parameters":{}}]}"#;
    let v = json_out(&exec_stdin(&[], batch));
    let statuses: Vec<_> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    let ids: Vec<_> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["call_id"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["success", "failure", "skipped"]);
    assert_eq!(ids, ["one", "two", "three"]);
    assert_eq!(v[0]["result"]["stdout"], "hi\n");
    assert!(
        v[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("Refused: the command contains ';'"),
        "{v}"
    );
    // --strict turns a failure into exit status 1.
    let out = exec_stdin(&["--strict"], batch);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn exec_a_list_of_batches_runs_them_in_order_in_one_session() {
    let batches = r#"[
        {"commands":[{"tool_name":"run_shell","parameters":{"command":"pwd"}}]},
        {"agent":"AppAgent","root":"whatever","early_exit":false,"commands":[
            {"tool_name":"nope"},{"tool_name":"","call_id":"empty"}]}]"#;
    let v = json_out(&exec_stdin(&["--compact"], batches));
    assert_eq!(v.as_array().unwrap().len(), 2);
    assert_eq!(v[0][0]["status"], "success");
    assert_eq!(v[1][0]["status"], "failure");
    assert!(
        v[1][0]["error"]
            .as_str()
            .unwrap()
            .contains("is not registered in current computer: AppAgent::::default"),
        "{v}"
    );
    assert_eq!(v[1][1]["result"], "No action taken.");
    assert_eq!(v[1][1]["call_id"], "empty");
    assert!(uuid_like(v[0][0]["call_id"].as_str().unwrap()));
}

fn uuid_like(s: &str) -> bool {
    s.len() == 36 && s.chars().filter(|c| *c == '-').count() == 4
}

#[test]
fn exec_the_shipped_example() {
    let out = deft()
        .args([
            "exec",
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../examples/inspect-machine.json"
            ),
        ])
        .output()
        .unwrap();
    let v = json_out(&out);
    assert!(
        v.as_array()
            .unwrap()
            .iter()
            .all(|r| r["status"] == "success"),
        "{v}"
    );
}

#[test]
fn exec_bad_input_is_a_clear_error() {
    let out = exec_stdin(&[], "{\"commands\": [");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error: -: not valid JSON"), "{err}");

    let out = exec_stdin(&[], r#"{"commandz": []}"#);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown field `commandz`"));

    let out = deft()
        .args(["exec", "/nonexistent/batch.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("cannot read batch file /nonexistent/batch.json")
    );

    let out = exec_stdin(&["--device", "phone"], r#"{"commands": []}"#);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "unknown device 'phone'; known devices: browser, local (phones are not asked: DEFT_NO_PHONES is set)"
        ),
        "{err}"
    );
}

#[test]
fn exec_unknown_profile_fails_each_command_with_the_reason() {
    let v = json_out(&exec_stdin(
        &[],
        r#"{"profile":"tablet","commands":[{"tool_name":"run_shell","call_id":"x"}]}"#,
    ));
    let e = v[0]["error"].as_str().unwrap();
    assert!(e.starts_with("Error occurred while executing command run_shell({}): routing table <built-in routing table>: profile 'tablet' is not configured; expected one of: android, browser, desktop, shell"), "{e}");
    assert_eq!(v[0]["call_id"], "x");
}

#[test]
fn tools_lists_what_the_model_sees() {
    let out = deft().args(["tools", "--json"]).output().unwrap();
    let v = json_out(&out);
    let keys: Vec<_> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tool_key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        ["action::run_shell", "data_collection::get_system_info"]
    );
    let out = deft()
        .args(["tools", "--profile", "desktop", "--agent", "AppAgent"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("AppAgent::::default (profile desktop)"),
        "{text}"
    );
    assert!(text.contains("action::run_shell"));
}

#[test]
fn a_bad_routing_table_names_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.yaml");
    std::fs::write(&path, "profiles:\n  p:\n    HostAgent:\n      default:\n        action:\n          - {namespace: s, type: stdio}\n").unwrap();
    let out = deft()
        .args(["tools", "--tools-config"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("routing table {}: at profiles.p.HostAgent.default.action[0]: expected a non-empty 'command' for type stdio", path.display())), "{err}");
    // The environment variable works the same way.
    let out = deft()
        .arg("tools")
        .env("DEFT_TOOLS_CONFIG", &path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_table_server_that_cannot_start_is_a_warning_not_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.yaml");
    std::fs::write(
        &path,
        "profiles:\n  shell:\n    HostAgent:\n      default:\n        action:\n          - {namespace: shell, type: builtin, name: shell}\n          - {namespace: gone, type: stdio, command: /nonexistent/server}\n",
    )
    .unwrap();
    let out = deft()
        .args(["tools", "--profile", "shell", "--tools-config"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("action::run_shell"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "warning: tool server 'gone' cannot start: program '/nonexistent/server' was not found"
        ),
        "{err}"
    );
}

#[test]
fn mcp_lists_builtins_and_refuses_unknown_names_and_open_binds_without_token() {
    let out = deft().args(["mcp", "--list"]).output().unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.lines().any(|l| l.starts_with("shell ")), "{listed}");
    let out = deft().args(["mcp", "nosuch"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let known = err
        .split("no builtin server named 'nosuch'; known: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{err}"));
    for name in ["desktop", "shell"] {
        assert!(known.split([',', ' ', '\n']).any(|n| n == name), "{err}");
    }
    let out = deft()
        .args(["mcp", "shell", "--http", "0.0.0.0:0"])
        .env_remove("DEFT_MCP_TOKEN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to serve MCP on 0.0.0.0:"));
}
