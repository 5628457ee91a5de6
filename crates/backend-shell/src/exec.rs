//! Running one argv: no shell, its own process group, stdin closed, capped output, a time limit
//! that kills the whole group, and nothing left running afterwards.
//!
//! Everything here is async (`tokio::process`); the runtime is never blocked while a program runs.

use std::fmt;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop, ProcessGroup};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::{Instant, sleep_until, timeout};

use crate::limits::Limits;
use crate::output::ShellOutput;
use crate::texts;

/// Bytes kept of stdout, and separately of stderr; the rest is read and dropped.
pub const OUTPUT_CAP: usize = 64 * 1024;
/// Time limit when the call gives none.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;
/// The largest time limit a call may ask for; also what `run_shell` declares in its `_meta`.
pub const MAX_TIMEOUT_SECS: u64 = 120;

/// How long the pipes may stay open after the group was killed (a process that left the group).
const PIPE_GRACE: Duration = Duration::from_secs(2);
/// How long reaping the killed group leader may take.
const REAP_GRACE: Duration = Duration::from_secs(5);
/// Used when `PATH` is unset.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// One finished run: the output and the pid of the group leader (which is also the group id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    /// What the program printed and how it ended.
    pub output: ShellOutput,
    /// The leader's pid, equal to the process group id.
    pub pid: u32,
}

/// Why a program could not be run. Displays as the model-facing text.
#[derive(Debug)]
pub enum ExecError {
    /// The argv was empty.
    NoProgram,
    /// The program is not on `PATH`.
    NotFound {
        /// The bare name looked up.
        program: String,
        /// The `PATH` searched.
        path: String,
    },
    /// The working directory does not exist.
    CwdMissing {
        /// The directory as given.
        cwd: String,
    },
    /// The working directory is not a directory.
    CwdNotDirectory {
        /// The directory as given.
        cwd: String,
    },
    /// The working directory could not be inspected.
    CwdUnusable {
        /// The directory as given.
        cwd: String,
        /// The underlying error.
        source: io::Error,
    },
    /// Spawning failed.
    Spawn {
        /// The program.
        program: String,
        /// The underlying error.
        source: io::Error,
    },
    /// Waiting for the program failed.
    Wait {
        /// The underlying error.
        source: io::Error,
    },
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            ExecError::NoProgram => texts::NO_PROGRAM.to_owned(),
            ExecError::NotFound { program, path } => texts::not_found_on_path(program, path),
            ExecError::CwdMissing { cwd } => texts::cwd_missing(cwd),
            ExecError::CwdNotDirectory { cwd } => texts::cwd_not_directory(cwd),
            ExecError::CwdUnusable { cwd, source } => texts::cwd_unusable(cwd, source),
            ExecError::Spawn { program, source } => texts::spawn_failed(program, source),
            ExecError::Wait { source } => texts::wait_failed(source),
        };
        f.write_str(&text)
    }
}

impl std::error::Error for ExecError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExecError::CwdUnusable { source, .. }
            | ExecError::Spawn { source, .. }
            | ExecError::Wait { source } => Some(source),
            _ => None,
        }
    }
}

/// The time limit for a requested number of seconds: default when absent, clamped to
/// 1..=[`MAX_TIMEOUT_SECS`].
pub fn clamp_timeout(requested: Option<i64>) -> Duration {
    let secs = match requested {
        None => DEFAULT_TIMEOUT_SECS,
        Some(secs) => secs.clamp(1, MAX_TIMEOUT_SECS as i64).unsigned_abs(),
    };
    Duration::from_secs(secs)
}

/// Checks that `cwd` is an existing directory and returns it made absolute.
pub async fn check_cwd(cwd: &str) -> Result<PathBuf, ExecError> {
    match tokio::fs::metadata(cwd).await {
        Ok(meta) if meta.is_dir() => {
            tokio::fs::canonicalize(cwd)
                .await
                .map_err(|source| ExecError::CwdUnusable {
                    cwd: cwd.to_owned(),
                    source,
                })
        }
        Ok(_) => Err(ExecError::CwdNotDirectory {
            cwd: cwd.to_owned(),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(ExecError::CwdMissing {
            cwd: cwd.to_owned(),
        }),
        Err(source) => Err(ExecError::CwdUnusable {
            cwd: cwd.to_owned(),
            source,
        }),
    }
}

/// Finds a bare program name on `PATH` (absolute entries only) as a shell would: the first
/// executable regular file.
pub async fn resolve_program(name: &str) -> Result<PathBuf, ExecError> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| DEFAULT_PATH.into());
    for dir in std::env::split_paths(&path).filter(|dir| dir.is_absolute()) {
        let candidate = dir.join(name);
        if let Ok(meta) = tokio::fs::metadata(&candidate).await
            && meta.is_file()
            && meta.permissions().mode() & 0o111 != 0
        {
            return Ok(candidate);
        }
    }
    Err(ExecError::NotFound {
        program: name.to_owned(),
        path: path.to_string_lossy().into_owned(),
    })
}

/// Runs `argv` without a shell and waits for it, at most `limit`: [`run_limited`] with deft's
/// own resource limits.
pub async fn run_argv(
    argv: &[String],
    limit: Duration,
    cwd: Option<&Path>,
    cap: usize,
) -> Result<Execution, ExecError> {
    run_limited(argv, limit, cwd, cap, &Limits::default(), None).await
}

/// Runs `argv` without a shell under `limits` and waits for it, at most `limit`.
///
/// `argv[0]` is a bare name looked up on `PATH`, or a path used as given. The program runs as the
/// leader of its own process group with stdin closed. stdout and stderr are each kept up to `cap`
/// bytes and drained to the end past it, so the program never blocks on a full pipe. When the
/// leader exits, anything it left running in its group is killed; when `limit` passes first, the
/// whole group is killed with SIGKILL and the output says `timed_out`. Dropping the returned
/// future (a cancelled call) kills the group too. `limits` hold from the program's first
/// instruction (set by util-linux's `prlimit`, which then executes it; without `prlimit`, set
/// right after the start). The program gets the environment of the device it runs for when that
/// has one (`device_env`: a managed desktop's display, buses and home,
/// [`deft_tools::device_env::apply`]), else deft's own; deft's secrets taken out either way.
pub async fn run_limited(
    argv: &[String],
    limit: Duration,
    cwd: Option<&Path>,
    cap: usize,
    limits: &Limits,
    device_env: Option<&[(String, String)]>,
) -> Result<Execution, ExecError> {
    let Some((name, args)) = argv.split_first() else {
        return Err(ExecError::NoProgram);
    };
    let program = if name.contains('/') {
        PathBuf::from(name)
    } else {
        resolve_program(name).await?
    };

    let mut command = limited_command(&program, name, args, cwd, limits, device_env);
    command.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
    let child = command.spawn().map_err(|source| ExecError::Spawn {
        program: name.clone(),
        source,
    })?;
    let mut group = GroupGuard { child, armed: true };
    let pid = group.child.id().unwrap_or_default();
    crate::limits::apply(pid, limits);
    let stdout = group.child.stdout().take();
    let stderr = group.child.stderr().take();

    let mut out = Capture::new(cap);
    let mut err = Capture::new(cap);
    let deadline = Instant::now() + limit;
    let (waited, timed_out) = {
        let io = async {
            tokio::join!(out.drain(stdout), err.drain(stderr));
        };
        tokio::pin!(io);
        let mut io_done = false;
        let waited = {
            let mut wait = group.child.wait();
            loop {
                tokio::select! {
                    () = &mut io, if !io_done => io_done = true,
                    status = &mut wait => break Some(status),
                    () = sleep_until(deadline) => break None,
                }
            }
        };
        // After a normal exit this removes whatever the program left in its group; after the
        // deadline it kills the whole group. ESRCH (nobody left) is the usual, harmless answer.
        let _ = group.child.start_kill();
        let timed_out = waited.is_none();
        if timed_out {
            // Reap the killed leader; its status is not reported.
            let _ = timeout(REAP_GRACE, group.child.wait()).await;
        }
        if !io_done {
            // The group is gone, so the pipes close unless a process left the group.
            let _ = timeout(PIPE_GRACE, &mut io).await;
        }
        (waited, timed_out)
    };
    group.armed = false;

    let status: Option<ExitStatus> = match waited {
        Some(result) => Some(result.map_err(|source| ExecError::Wait { source })?),
        None => None,
    };
    let truncated = out.truncated || err.truncated;
    let stdout = out.into_text();
    let mut stderr = err.into_text();
    let (exit_code, note) = match status {
        None => (None, Some(texts::timed_out(limit.as_secs()))),
        Some(status) => match status.code() {
            Some(code) => (Some(code), None),
            None => (None, status.signal().map(texts::killed_by_signal)),
        },
    };
    if let Some(note) = note {
        if !stderr.is_empty() && !stderr.ends_with('\n') {
            stderr.push('\n');
        }
        stderr.push_str(&note);
    }
    Ok(Execution {
        output: ShellOutput {
            exit_code,
            stdout,
            stderr,
            timed_out,
            truncated,
        },
        pid,
    })
}

/// The command that starts `program` (called `name`) with `args` in `cwd` under `limits`, with
/// `device_env` when given: through `prlimit` when it is there, so the limits hold from the
/// program's first instruction.
fn limited_command(
    program: &Path,
    name: &str,
    args: &[String],
    cwd: Option<&Path>,
    limits: &Limits,
    device_env: Option<&[(String, String)]>,
) -> CommandWrap {
    let wrapper = crate::limits::wrapper(limits);
    let started = wrapper
        .as_ref()
        .map_or(program, |(prlimit, _)| prlimit.as_path());
    CommandWrap::with_new(started, |cmd| {
        match device_env {
            Some(env) => deft_tools::device_env::apply(cmd.as_std_mut(), env),
            None => deft_tools::secrets::scrub_env(cmd.as_std_mut()),
        };
        match &wrapper {
            // `prlimit` executes the program by its name (so it calls itself `sort`, as
            // without the wrapper), found first in the folder it was resolved to.
            Some((_, limit_args)) => {
                if let Some(dir) = program.parent() {
                    let path = std::env::var_os("PATH").unwrap_or_default();
                    let mut first = std::ffi::OsString::from(dir);
                    first.push(":");
                    first.push(path);
                    cmd.env("PATH", first);
                }
                cmd.args(limit_args).arg("--").arg(name)
            }
            None => cmd.arg0(name),
        };
        cmd.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = cwd {
            cmd.current_dir(dir).env("PWD", dir);
        }
    })
}

/// Owns the spawned group; dropping it while armed (a cancelled call) SIGKILLs the whole group.
struct GroupGuard {
    child: Box<dyn ChildWrapper>,
    armed: bool,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            let _ = self.child.start_kill();
        }
    }
}

/// One output stream: the first `cap` bytes, and whether more came.
struct Capture {
    bytes: Vec<u8>,
    cap: usize,
    truncated: bool,
}

impl Capture {
    fn new(cap: usize) -> Self {
        Self {
            bytes: Vec::new(),
            cap,
            truncated: false,
        }
    }

    /// Reads `pipe` to its end, keeping what fits.
    async fn drain<R: AsyncRead + Unpin>(&mut self, pipe: Option<R>) {
        let Some(mut pipe) = pipe else { return };
        let mut chunk = vec![0u8; 16 * 1024];
        loop {
            match pipe.read(&mut chunk).await {
                Ok(0) => return,
                Ok(n) => self.push(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    tracing::debug!(error = %e, "reading a child pipe failed");
                    return;
                }
            }
        }
    }

    fn push(&mut self, data: &[u8]) {
        let room = self.cap.saturating_sub(self.bytes.len());
        let keep = room.min(data.len());
        self.bytes.extend_from_slice(&data[..keep]);
        if keep < data.len() {
            self.truncated = true;
        }
    }

    /// The kept bytes as text; a character cut in half by the cap is dropped, not replaced.
    fn into_text(mut self) -> String {
        if self.truncated {
            let cut = incomplete_utf8_tail(&self.bytes);
            self.bytes.truncate(self.bytes.len() - cut);
        }
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// Length of a UTF-8 sequence at the end of `bytes` that was started but not finished.
fn incomplete_utf8_tail(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let byte = bytes[bytes.len() - back];
        if byte & 0b1100_0000 == 0b1000_0000 {
            continue; // a continuation byte: look further back for the lead byte
        }
        let needed = match byte {
            0xF0.. => 4,
            0xE0.. => 3,
            0xC0.. => 2,
            _ => 1,
        };
        return if needed > back { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_is_clamped() {
        assert_eq!(
            clamp_timeout(None),
            Duration::from_secs(DEFAULT_TIMEOUT_SECS)
        );
        assert_eq!(clamp_timeout(Some(0)), Duration::from_secs(1));
        assert_eq!(clamp_timeout(Some(-5)), Duration::from_secs(1));
        assert_eq!(clamp_timeout(Some(7)), Duration::from_secs(7));
        assert_eq!(
            clamp_timeout(Some(10_000)),
            Duration::from_secs(MAX_TIMEOUT_SECS)
        );
    }

    #[test]
    fn a_character_cut_by_the_cap_is_dropped() {
        let mut capture = Capture::new(4);
        capture.push("abé".as_bytes()); // 'é' is 2 bytes: 4 fit exactly
        capture.push(b"!");
        assert_eq!(capture.into_text(), "abé");

        let mut capture = Capture::new(3);
        capture.push("abé".as_bytes()); // the cap falls inside 'é'
        assert!(capture.truncated);
        assert_eq!(capture.into_text(), "ab");

        assert_eq!(incomplete_utf8_tail("a€".as_bytes()), 0);
        assert_eq!(incomplete_utf8_tail(&"a€".as_bytes()[..3]), 2);
        assert_eq!(incomplete_utf8_tail(&[0xF0, 0x9F, 0x98]), 3);
    }
}
