//! Binaries and processes: find the workspace's binaries, run children in their own process
//! group, kill the group on drop, and check that nothing was left behind.

use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use rustix::process::Pid;
pub use rustix::process::Signal;

/// The directory cargo put this test's binaries in (`target/<profile>`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current_exe: {e}"));
    let mut dir = exe.parent().map(PathBuf::from).unwrap_or_default();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir
}

/// The path of workspace binary `name`, building it with cargo when it is missing.
pub fn workspace_bin(name: &str, package: &str) -> PathBuf {
    let path = target_dir().join(name);
    if !path.exists() {
        let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cargo.args(["build", "-q", "-p", package, "--bin", name]);
        if target_dir().ends_with("release") {
            cargo.arg("--release");
        }
        let status = cargo
            .status()
            .unwrap_or_else(|e| panic!("cannot run cargo to build {name}: {e}"));
        assert!(status.success(), "building {name} failed");
    }
    assert!(path.exists(), "{} does not exist", path.display());
    path
}

/// The fixture MCP server binary.
pub fn fixture_bin() -> PathBuf {
    workspace_bin("deft-fixture-mcp", "deft-test-support")
}

/// A command for the `deft` binary at `bin` with none of the caller's deft settings: every
/// `DEFT_*` and `AGENT_*` variable, `DATABASE_URL`, the display and the TLS trust settings are
/// removed (a test sets what it means), the log level is `warn`, and `deft serve` follows no
/// phones (`DEFT_NO_PHONES=1`: it would start the machine's adb server; a phone test removes
/// it and names its own adb server with `ANDROID_ADB_SERVER_PORT`).
pub fn deft_command(bin: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(bin);
    for (var, _) in std::env::vars_os() {
        let name = var.to_string_lossy();
        if name.starts_with("DEFT_") || name.starts_with("AGENT_") {
            cmd.env_remove(&var);
        }
    }
    for var in [
        "DATABASE_URL",
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("DEFT_LOG", "warn").env("DEFT_NO_PHONES", "1");
    cmd
}

/// Writes `dir/tools.yaml`: a routing table whose `shell` profile has the shell tools and the
/// fixture MCP server (as a stdio child), for `deft client` processes in tests and benches.
pub fn shell_with_fixture_table(dir: &std::path::Path) -> PathBuf {
    let path = dir.join("tools.yaml");
    let yaml = format!(
        "profiles:\n  shell:\n    HostAgent:\n      default:\n        data_collection:\n          - {{namespace: shell, type: builtin, name: shell, tools: [get_system_info]}}\n        action:\n          - {{namespace: shell, type: builtin, name: shell, tools: [run_shell]}}\n          - {{namespace: fixture, type: stdio, command: \"{}\"}}\n",
        fixture_bin().display()
    );
    std::fs::write(&path, yaml).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    path
}

/// A child in its own process group; the whole group is killed when this is dropped.
pub struct GroupChild {
    /// The child.
    pub child: Child,
}

impl GroupChild {
    /// Spawns `cmd` as the leader of a new process group.
    pub fn spawn(mut cmd: Command) -> std::io::Result<Self> {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
        cmd.spawn().map(|child| GroupChild { child })
    }

    /// The child's pid (= its process group id).
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }
}

impl Drop for GroupChild {
    fn drop(&mut self) {
        kill_group(self.pid());
        let _ = self.child.wait();
    }
}

/// SIGKILLs process group `pgid` (nothing when it is gone or not a valid id).
pub fn kill_group(pgid: i32) {
    signal_group(pgid, Signal::KILL);
}

/// Sends `signal` to process group `pgid` (nothing when it is gone or not a valid id).
pub fn signal_group(pgid: i32, signal: Signal) {
    if let Some(pgid) = Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(pgid, signal);
    }
}

/// Sends `signal` to process `pid` (nothing when it is gone or not a valid id).
pub fn signal_process(pid: i32, signal: Signal) {
    if let Some(pid) = Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(pid, signal);
    }
}

/// Live (non-zombie) processes whose process group is `pgid`.
pub fn group_members(pgid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // Fields after the command name (which may contain spaces) start after the last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let (state, pgrp) = (
            fields.first().copied(),
            fields.get(2).and_then(|p| p.parse::<i32>().ok()),
        );
        if pgrp == Some(pgid) && state != Some("Z") {
            out.push(pid);
        }
    }
    out
}

/// Waits until process group `pgid` has no live member; false after `timeout`.
pub fn wait_group_gone(pgid: i32, timeout: Duration) -> bool {
    let until = Instant::now() + timeout;
    loop {
        if group_members(pgid).is_empty() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether process `pid` is alive (and not a zombie).
pub fn is_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, r)| r.split_whitespace().next() != Some("Z"))
            .unwrap_or(false),
        Err(_) => false,
    }
}
