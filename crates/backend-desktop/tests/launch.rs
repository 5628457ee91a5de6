//! `launch_app` of programs that never open a window: a capped wait, then an error that names
//! the program and what to try, saying whether it still runs; an exited one leaves nothing.

mod common;

use std::time::{Duration, Instant};

use common::Harness;
use deft_backend_desktop::LaunchPolicy;
use serde_json::json;

const WAIT: Duration = Duration::from_secs(2);

async fn harness() -> Harness {
    Harness::with_launch(LaunchPolicy::allowing(&["sleep", "false", "true"]).with_window_wait(WAIT))
        .await
}

fn proc_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // pid (comm) S ...
    stat.rsplit(')').next()?.trim().chars().next()
}

fn which(program: &str) -> String {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{program} is not on PATH"))
        .display()
        .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_program_that_keeps_running_without_a_window_is_reported_running() {
    let h = harness().await;
    let started = Instant::now();
    let e = h
        .err("launch_app", json!({"app": "sleep", "args": ["60"]}))
        .await;
    let waited = started.elapsed();
    assert!(waited >= WAIT, "answered after {waited:?}, before the wait");
    assert!(
        waited < WAIT + Duration::from_secs(3),
        "answered after {waited:?}"
    );
    let pid: u32 = e
        .split("pid ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {e}"));
    assert_eq!(
        e,
        format!(
            "sleep ({}, pid {pid}) was started but showed no window within 2 s; it is still running. If it is still starting, wait and call get_desktop_app_info to look for its window; if it never opens one (a command-line or background program), use run_shell for it instead.",
            which("sleep")
        )
    );
    // It really still runs, as said.
    assert!(
        matches!(proc_state(pid), Some('S' | 'R')),
        "{:?}",
        proc_state(pid)
    );
    deft_test_support::proc::signal_process(pid as i32, deft_test_support::proc::Signal::KILL);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_program_that_exits_without_a_window_fails_at_once_and_leaves_nothing() {
    let h = harness().await;
    let started = Instant::now();
    let e = h.err("launch_app", json!({"app": "false"})).await;
    assert!(
        started.elapsed() < WAIT,
        "a failed program ends the wait at once ({:?})",
        started.elapsed()
    );
    assert_eq!(
        e,
        format!(
            "false ({}) exited with exit code 1 without opening a window; nothing of it is left running. It may be a command-line program (use run_shell for those) or need other arguments.",
            which("false")
        )
    );
    // A successful exit may be a hand-off to a running instance: looked for, up to the wait.
    let started = Instant::now();
    let e = h.err("launch_app", json!({"app": "true"})).await;
    assert!(started.elapsed() >= WAIT, "{:?}", started.elapsed());
    assert!(
        e.contains(") exited with exit code 0 without opening a window"),
        "{e}"
    );
    // No process of either is left, not even a zombie.
    let leftovers: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                (s.contains("(false)") || s.contains("(true)"))
                    && std::fs::read_to_string(format!("/proc/{pid}/status"))
                        .is_ok_and(|st| st.contains(&format!("PPid:\t{}", std::process::id())))
            })
        })
        .map(|pid| pid.to_string())
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
}
