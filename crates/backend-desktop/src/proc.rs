//! Processes: liveness, process group and name from `/proc`, programs on PATH, signals, and
//! descriptors a child inherits — the one place this crate calls libc (kill(2) has no safe std
//! form for a process, or a process group, that is not a `Child` of ours; std offers no way to
//! pass a descriptor other than stdio to a child).

use std::fs;
use std::os::fd::{AsFd, AsRawFd, RawFd};
use std::path::PathBuf;

/// Sends `signal` to process `pid` (ignored for pids below 1, which name groups or everyone).
pub fn signal(pid: i32, signal: libc::c_int) {
    if pid >= 1 {
        send(pid, signal);
    }
}

/// Sends `signal` to every process of group `pgid` (ignored for groups below 2: 0 is our own
/// group and 1 would be init's).
pub fn signal_group(pgid: i32, signal: libc::c_int) {
    if pgid >= 2 {
        send(-pgid, signal);
    }
}

/// Lets descriptor `fd` pass to the programs this process starts next (clears its
/// close-on-exec flag); the caller closes its own copy after the spawn.
pub fn inheritable(fd: &impl AsFd) -> std::io::Result<()> {
    clear_cloexec(fd.as_fd().as_raw_fd())
}

#[allow(unsafe_code)]
fn clear_cloexec(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: fcntl(2) with F_GETFD reads the flags of a descriptor the caller keeps open for
    // the call (borrowed above); no memory of ours is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
    if flags < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: as above, F_SETFD only sets that descriptor's flags.
    if unsafe { libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[allow(unsafe_code)]
fn send(target: i32, signal: libc::c_int) {
    // SAFETY: kill(2) takes two integers and reads or writes no memory of this process; the
    // callers above rule out the targets 0 and -1 (our own group, every process).
    unsafe { libc::kill(target, signal) };
}

/// Whether process `pid` is alive and not a zombie.
pub fn pid_alive(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|s| s != "Z" && s != "X"),
        Err(_) => false,
    }
}

/// The process group of process `pid`, if it can be read.
pub fn process_pgid(pid: i32) -> Option<i32> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(2)?.parse().ok()
}

/// The command name of process `pid` (`/proc/PID/comm`).
pub fn process_name(pid: i32) -> Option<String> {
    fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|s| s.trim().to_owned())
}

/// Pids of live (not zombie) processes in process group `pgid`.
pub fn group_members(pgid: i32) -> Vec<i32> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| process_pgid(*pid) == Some(pgid) && pid_alive(*pid))
        .collect()
}

/// `program` on PATH.
pub fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}
