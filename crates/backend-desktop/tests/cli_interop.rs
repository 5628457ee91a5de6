//! `deft desktop start|status|stop` as a person runs them, and `deft mcp desktop` driven by a
//! client not written here: the official Python MCP SDK (scripts/interop/desktop_client.py).

use std::process::Command;
use std::time::Duration;

use deft_backend_desktop::vdesktop::{self, DesktopState};
use deft_test_support::desktop::AppProcess;
use deft_test_support::proc::workspace_bin;
use deft_test_support::repo_root;

fn deft(data: &std::path::Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(workspace_bin("deft", "deft"))
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .env_remove("DISPLAY")
        .output()
        .expect("run deft");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn deft_desktop_commands_and_the_python_sdk_over_deft_mcp_desktop() {
    let python = deft_test_support::interop_python();
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path();

    let (code, out) = deft(data, &["desktop", "status"]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("not running (start it with `deft desktop start`)"),
        "{out}"
    );

    let (code, out) = deft(data, &["desktop", "start"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("started the managed desktop on :"), "{out}");
    let state_file = vdesktop::state_path(data);
    let state = DesktopState::load(&state_file)
        .unwrap()
        .expect("state file");
    assert!(
        out.contains(&format!("export DISPLAY='{}'", state.display)),
        "{out}"
    );

    let (code, out) = deft(data, &["desktop", "start"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with(&format!(
            "the managed desktop already runs on {}",
            state.display
        )),
        "{out}"
    );
    let (code, out) = deft(data, &["desktop", "status"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with(&format!("running on {}", state.display)),
        "{out}"
    );
    assert!(out.contains("registryd") && !out.contains(" gone"), "{out}");

    let app = AppProcess::form_app(&state.env()).expect("form app");
    assert!(
        app.wait_record(Duration::from_secs(10), |r| r["event"] == "ready")
            .is_some()
    );
    let out = Command::new(&python)
        .arg(repo_root().join("scripts/interop/desktop_client.py"))
        .arg(workspace_bin("deft", "deft"))
        .arg(&state_file)
        .env_remove("DISPLAY")
        .output()
        .expect("run the interop script");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "interop failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("form submitted"), "{stdout}");
    let submit = app
        .wait_record(Duration::from_secs(10), |r| r["event"] == "submit")
        .unwrap_or_else(|| panic!("no submit: {:?}", app.lines()));
    assert_eq!(submit["name"], "Ada Lovelace ü 苏州");
    assert_eq!(submit["via"], "pointer");
    drop(app);

    let (code, out) = deft(data, &["desktop", "stop"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with(&format!("stopped the managed desktop on {}", state.display)),
        "{out}"
    );
    assert!(vdesktop::group_members(state.pgid).is_empty());
    for (part, pid) in &state.pids {
        assert!(
            !vdesktop::pid_alive(*pid),
            "{part} survived deft desktop stop"
        );
    }
    let (code, out) = deft(data, &["desktop", "stop"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("no managed desktop runs"), "{out}");
}

#[test]
fn deft_mcp_desktop_without_a_desktop_says_how_to_start_one() {
    let tmp = tempfile::tempdir().unwrap();
    let state = vdesktop::state_path(tmp.path());
    let (code, out) = deft(
        tmp.path(),
        &[
            "mcp",
            "desktop",
            "--options",
            &format!("{{\"state_file\": {:?}}}", state.display().to_string()),
        ],
    );
    assert_ne!(code, 0, "{out}");
    assert!(
        out.contains(&format!(
            "No desktop to operate: DISPLAY is not set and no managed virtual desktop runs (state file {}). Start one with `deft desktop start`",
            state.display()
        )),
        "{out}"
    );
}
