//! Documents through the `deft` binary: LibreOffice started by `launch_app` belongs to the deft
//! process that started it — killed with it, even by SIGKILL — and `deft run` with a scripted
//! model builds a real document with GUI and API tools together.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use deft_test_support::office;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::json;

fn deft(data: &Path) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_deft"));
    c.arg("--data-dir")
        .arg(data)
        .env_remove("DISPLAY")
        .env_remove("DEFT_TOOLS_CONFIG")
        .env_remove("DEFT_DATA_DIR")
        .env_remove("DEFT_DOCUMENT_DIRS")
        .stdin(Stdio::null());
    c
}

/// Starts the managed desktop of `data`; stops it when dropped, whatever the test did.
struct Desktop(std::path::PathBuf);

impl Desktop {
    async fn start(data: &Path) -> Desktop {
        let out = deft(data)
            .args(["desktop", "start"])
            .output()
            .await
            .unwrap();
        assert!(
            out.status.success(),
            "deft desktop start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Desktop(data.to_owned())
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        let _ = std::process::Command::new(env!("CARGO_BIN_EXE_deft"))
            .arg("--data-dir")
            .arg(&self.0)
            .args(["desktop", "stop"])
            .output();
    }
}

fn gone(pids: &[i32], limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if pids.iter().all(|p| !deft_test_support::proc::is_alive(*p)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_deft_leaves_no_libreoffice_behind() {
    office::require_office();
    let data = tempfile::tempdir().unwrap();
    let docs = data.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let _desktop = Desktop::start(data.path()).await;
    let doc = office::document_from_html(&docs, "orphan", "<p>kill me</p>", "docx");

    let mut cmd = deft(data.path());
    cmd.args(["mcp", "desktop"])
        .env("DEFT_DOCUMENT_DIRS", &docs);
    let transport = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
    let deft_pid = transport.id().unwrap() as i32;
    let client = ().serve(transport).await.unwrap();
    let r = client
        .call_tool(
            CallToolRequestParams::new("launch_app")
                .with_arguments(json!({"app": doc}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let pids = office::soffice_pids(&format!("deft-office-{deft_pid}-"));
    assert_eq!(pids.len(), 1, "one soffice.bin for the session: {pids:?}");

    // SIGKILL: no handler of deft's runs; the kernel ends LibreOffice (parent-death signal).
    deft_test_support::proc::signal_process(deft_pid, deft_test_support::proc::Signal::KILL);
    drop(client);
    assert!(
        gone(&pids, Duration::from_secs(15)),
        "soffice.bin {pids:?} outlived deft"
    );

    // The next deft on the same data folder clears the dead one's profile folder (and starts
    // from the profile template the first one set up).
    let office_dir = data.path().join("office");
    let mut cmd = deft(data.path());
    cmd.args(["mcp", "desktop"])
        .env("DEFT_DOCUMENT_DIRS", &docs);
    let transport = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
    let client = ().serve(transport).await.unwrap();
    let r = client
        .call_tool(
            CallToolRequestParams::new("launch_app")
                .with_arguments(json!({"app": doc}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let left: Vec<String> = std::fs::read_dir(&office_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("deft-office-"))
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(
        !left[0].starts_with(&format!("deft-office-{deft_pid}-")),
        "{left:?}"
    );
    client.cancel().await.unwrap();
}
