//! `launch_app` of programs that never open a window: a capped wait, then an error that names
//! the program and what to try, saying whether it still runs; an exited one leaves nothing.
//! Launchers that start the application as a child, or fork it and exit, get the application's
//! window, and the answer says which rule recognised it — so does an entry whose launcher has
//! another process start the app, by its `StartupWMClass`; a single-instance application that
//! only comes to the front gets its running instance's window.

mod common;

use std::os::unix::process::CommandExt;
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

/// An executable shell script `name` in `dir` with `body`; its path.
fn script(dir: &std::path::Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("the script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .expect("the script is executable");
    path.display().to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn launchers_that_start_the_app_as_a_child_or_fork_it_get_its_window() {
    deft_test_support::desktop::require_program("mousepad", "mousepad");
    let dir = tempfile::tempdir().unwrap();
    // A wrapper that starts the app without exec, and waits for it.
    let child = script(dir.path(), "notes-launcher.sh", "mousepad \"$@\"\nexit 0");
    // One that forks it off and exits at once (the app is nobody's child of the launch then).
    let forking = script(
        dir.path(),
        "notes-forking.sh",
        "(mousepad \"$@\" &)\nexit 0",
    );
    let h = Harness::with_launch(
        LaunchPolicy::allowing(&[child.as_str(), forking.as_str()])
            .with_window_wait(Duration::from_secs(25)),
    )
    .await;
    for launcher in [&child, &forking] {
        let got = h.ok("launch_app", json!({"app": launcher})).await;
        assert_eq!(got["found_by"], "descendant", "{launcher}: {got}");
        assert_eq!(got["window"]["app"], "mousepad", "{launcher}: {got}");
        // Closed before the next one, which would otherwise hand its request to this mousepad.
        let closed = h.ok("close_app", json!({"app": "mousepad"})).await;
        assert_eq!(
            closed["closed_windows"].as_array().map(Vec::len),
            Some(1),
            "{closed}"
        );
    }
}

/// Set in the copy of the test binary that runs
/// [`a_window_of_no_process_of_the_launch_is_recognised_by_the_entrys_startup_wm_class`]: the
/// folder of its desktop entry, its launcher and their FIFOs, which is also its
/// `XDG_DATA_HOME` (deft reads desktop entries from its own environment, which a test cannot
/// change in its own process).
const ENTRY_HOME: &str = "DEFT_TEST_ENTRY_HOME";

/// A process the test started, killed and reaped when the test ends however it ends.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_window_of_no_process_of_the_launch_is_recognised_by_the_entrys_startup_wm_class() {
    deft_test_support::desktop::require_program("mousepad", "mousepad");
    let Some(home) = std::env::var_os(ENTRY_HOME).map(std::path::PathBuf::from) else {
        // The entry names a launcher that only asks a process started beforehand — as D-Bus
        // activation or a running service does — to start the app: the window's process is
        // neither the launch's, nor its descendant, nor marked by it, nor in its group, and its
        // root name is mousepad's, not the entry's. Only StartupWMClass ties it to the launch.
        let dir = tempfile::tempdir().unwrap();
        let launcher = script(
            dir.path(),
            "notes-detached.sh",
            &format!(
                "echo go > '{0}/go'\nread _ < '{0}/back'\nexit 0",
                dir.path().display()
            ),
        );
        let apps = dir.path().join("applications");
        std::fs::create_dir(&apps).unwrap();
        std::fs::write(
            apps.join("notes-detached.desktop"),
            format!(
                "[Desktop Entry]\nType=Application\nName=Detached notes\nExec={launcher}\nStartupWMClass=Mousepad\n"
            ),
        )
        .unwrap();
        let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "a_window_of_no_process_of_the_launch_is_recognised_by_the_entrys_startup_wm_class",
                "--exact",
                "--nocapture",
            ])
            .env(ENTRY_HOME, dir.path())
            .env("XDG_DATA_HOME", dir.path())
            .output()
            .expect("the test binary runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "with the entry: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    };
    for fifo in ["go", "back"] {
        let made = std::process::Command::new("mkfifo")
            .arg(home.join(fifo))
            .status()
            .expect("mkfifo runs");
        assert!(made.success(), "mkfifo {fifo}");
    }
    let h =
        Harness::with_launch(LaunchPolicy::allowing(&[]).with_window_wait(Duration::from_secs(25)))
            .await;
    // The service: started by the test in a process group of its own, it starts mousepad when
    // the launcher asks, and lets the launcher end when mousepad does.
    let _service = Reaped(
        std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "read _ < '{0}/go'; mousepad; echo done > '{0}/back'",
                home.display()
            ))
            .envs(h.env())
            .process_group(0)
            .stdin(std::process::Stdio::null())
            .spawn()
            .expect("the service starts"),
    );
    let got = h.ok("launch_app", json!({"app": "notes-detached"})).await;
    assert_eq!(got["found_by"], "wm_class", "{got}");
    assert_eq!(got["window"]["app"], "mousepad", "{got}");
    let closed = h.ok("close_app", json!({"app": "mousepad"})).await;
    assert_eq!(
        closed["closed_windows"].as_array().map(Vec::len),
        Some(1),
        "{closed}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_single_instance_app_that_only_comes_to_the_front_answers_with_its_window() {
    deft_test_support::desktop::require_program(
        deft_test_support::desktop::SYSTEM_PYTHON,
        "python3-gi gir1.2-gtk-3.0",
    );
    let dir = tempfile::tempdir().unwrap();
    // The fixture as an executable of its own (its #! line names Debian's Python), so its
    // root name is the script's, as launch_app starts it.
    let fixture = deft_test_support::desktop::form_app_path().with_file_name("single_app.py");
    let app = dir.path().join("single_app.py");
    std::fs::copy(&fixture, &app).unwrap();
    std::fs::set_permissions(&app, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let app = app.display().to_string();
    let h = Harness::with_launch(
        LaunchPolicy::allowing(&[app.as_str()]).with_window_wait(Duration::from_secs(25)),
    )
    .await;
    let first = h.ok("launch_app", json!({"app": app})).await;
    assert_eq!(first["found_by"], "process", "{first}");
    assert_eq!(first["window"]["name"], "Single instance", "{first}");
    // Started again: it hands the request over and exits 0; nothing new shows.
    let again = h
        .ok("launch_app", json!({"app": app, "new_instance": true}))
        .await;
    assert_eq!(again["found_by"], "running_instance", "{again}");
    assert_eq!(again["window"]["id"], first["window"]["id"], "{again}");
    assert_eq!(
        again["pid"], first["pid"],
        "the running instance's process: {again}"
    );
    // Without new_instance nothing starts: its window is already open.
    let open = h.ok("launch_app", json!({"app": app})).await;
    assert_eq!(open["found_by"], "already_open", "{open}");
    assert_eq!(open["window"]["id"], first["window"]["id"], "{open}");
}
