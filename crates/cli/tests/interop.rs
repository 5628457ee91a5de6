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
