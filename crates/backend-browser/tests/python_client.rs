//! A client not written here — the official Python MCP SDK (2.x) — drives `deft mcp browser`
//! over stdio (scripts/interop/browser_client.py), and no Chromium outlives the server.

mod common;

use std::time::{Duration, Instant};

use deft_test_support::repo_root;
use deft_test_support::web::PageServer;

/// Live processes whose command line contains `needle`.
fn with_cmdline(needle: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit(')')
            .next()
            .is_some_and(|s| s.trim_start().starts_with('Z'));
        if !zombie && String::from_utf8_lossy(&cmdline).contains(needle) {
            out.push(pid);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_python_sdk_drives_deft_mcp_browser() {
    common::require_chromium();
    let python = deft_test_support::interop_python();
    let deft = deft_test_support::proc::workspace_bin("deft", "deft");
    let pages = PageServer::start().await.expect("page server");
    let marker = format!("deft-interop-{}", std::process::id());
    let out = tokio::process::Command::new(&python)
        .arg(repo_root().join("scripts/interop/browser_client.py"))
        .arg(&deft)
        .arg(pages.url("form.html"))
        .arg(&marker)
        .output()
        .await
        .expect("run the interop script");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "interop failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        stdout.contains("browser stdio: listed 27 tools, form submitted with trusted input"),
        "{stdout}"
    );
    // The server stopped its browser when the client went away.
    let start = Instant::now();
    let mut left = with_cmdline(&marker);
    while !left.is_empty() && start.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        left = with_cmdline(&marker);
    }
    assert!(
        left.is_empty(),
        "Chromium processes outlived deft mcp browser: {left:?}"
    );
}
