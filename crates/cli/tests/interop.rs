//! A client not written here — the official Python MCP SDK (2.x) — drives `deft mcp shell`
//! over stdio and over streamable HTTP (scripts/interop/mcp_client.py).

use std::process::Command;

use deft_test_support::{interop_python, repo_root};

#[test]
fn official_python_sdk_lists_and_calls_deft_mcp_shell() {
    let python = interop_python();
    let out = Command::new(&python)
        .arg(repo_root().join("scripts/interop/mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_deft"))
        .output()
        .expect("run the interop script");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "interop failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        stdout.contains("stdio: listed 2 tools, 3 calls checked"),
        "{stdout}"
    );
    assert!(
        stdout.contains("http: listed 2 tools, 3 calls checked"),
        "{stdout}"
    );
}

/// The official Python SDK's clients of `deft mcp device` (no display: the `shell` profile) in
/// both MCP eras: run_shell refused for a client that cannot ask a person, asked through the
/// SDK's elicitation callback otherwise, run only on a yes (scripts/interop/device_client.py).
#[test]
fn official_python_sdk_is_asked_before_a_sensitive_device_call() {
    let python = interop_python();
    for (mode, modern) in [("auto", true), ("legacy", false)] {
        let data = tempfile::tempdir().unwrap();
        let out = Command::new(&python)
            .arg(repo_root().join("scripts/interop/device_client.py"))
            .args(["approvals", mode])
            .arg(env!("CARGO_BIN_EXE_deft"))
            .arg(data.path())
            .env_remove("DISPLAY")
            .env("DEFT_NO_PHONES", "1")
            .output()
            .expect("run the interop script");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{mode}: stdout:\n{stdout}\nstderr:\n{stderr}"
        );
        let report: serde_json::Value =
            serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
        let protocol = report["protocol"].as_str().unwrap();
        assert_eq!(protocol >= "2026-07-28", modern, "{mode}: {protocol}");
    }
}
