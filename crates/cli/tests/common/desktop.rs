//! The `deft` binary on the managed virtual desktop of a test's data folder: the command with
//! the test's data folder and no inherited display or tools config, and the desktop itself,
//! started for the test and stopped when the guard drops, whatever the test did.

#![allow(dead_code)] // each test file uses a part
#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test

use std::path::{Path, PathBuf};
use std::process::Stdio;

/// `deft --data-dir DATA …` without `DISPLAY`, `DEFT_TOOLS_CONFIG`, `DEFT_DATA_DIR` or
/// `DATABASE_URL` from the environment, stdin closed. (`tokio::process::Command::from` it for
/// async tests.)
pub fn deft(data: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_deft"));
    c.arg("--data-dir")
        .arg(data)
        .env_remove("DISPLAY")
        .env_remove("DEFT_TOOLS_CONFIG")
        .env_remove("DEFT_DATA_DIR")
        .env_remove("DATABASE_URL")
        .stdin(Stdio::null());
    c
}

/// The managed desktop of a data folder; stopped when dropped.
pub struct Desktop(PathBuf);

impl Desktop {
    /// Starts it with `deft desktop start` (the test fails with its stderr when it cannot).
    pub fn start(data: &Path) -> Desktop {
        let started = deft(data).args(["desktop", "start"]).output().unwrap();
        assert!(
            started.status.success(),
            "deft desktop start: {}",
            String::from_utf8_lossy(&started.stderr)
        );
        Desktop(data.to_owned())
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        let _ = deft(&self.0).args(["desktop", "stop"]).output();
    }
}
