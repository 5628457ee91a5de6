//! Finding the `adb` program on PATH and starting its server (`adb -P PORT start-server`) — the
//! one time this crate runs `adb`.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Stdio;

/// The executable `adb` in the folders of `path` (a PATH value; `None`: this process's PATH).
pub(crate) fn find_adb(path: Option<&OsStr>) -> Option<PathBuf> {
    let path = path
        .map(OsStr::to_owned)
        .or_else(|| std::env::var_os("PATH"))?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("adb"))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
}

/// Runs `adb -P port start-server` with `env` added to its environment; `Err` says why it did
/// not succeed (its exit status and the last line it printed). The server it forks lives on
/// after it returns (writing to its own log, not to our pipe).
pub(crate) async fn start_server(
    adb: &PathBuf,
    port: u16,
    env: &[(OsString, OsString)],
) -> Result<(), String> {
    let out = tokio::process::Command::new(adb)
        .arg("-P")
        .arg(port.to_string())
        .arg("start-server")
        .env("ANDROID_ADB_SERVER_PORT", port.to_string())
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .await
        .map_err(|e| format!("{}: {e}", adb.display()))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    match stderr.lines().rev().find(|line| !line.trim().is_empty()) {
        Some(said) => Err(format!("{}; it said: {}", out.status, said.trim())),
        None => Err(out.status.to_string()),
    }
}
