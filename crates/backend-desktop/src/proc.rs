//! Processes: liveness, process group and name from `/proc`, programs on PATH, signals, waiting
//! for a process to exit (a pidfd: woken by the exit itself), and descriptors a child inherits (rustix's safe wrappers: std has no kill(2) for a process, or
//! a process group, that is not a `Child` of ours, nor a way to pass a descriptor other than
//! stdio to a child).

use std::fs;
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::time::Duration;

use rustix::event::{PollFd, PollFlags};
pub use rustix::process::Signal;
use rustix::process::{Pid, PidfdFlags, kill_process, kill_process_group, pidfd_open};

/// Sends `signal` to process `pid` (ignored for pids below 1, which name groups or everyone).
pub fn signal(pid: i32, signal: Signal) {
    if let Some(pid) = Pid::from_raw(pid).filter(|p| p.as_raw_nonzero().get() >= 1) {
        let _ = kill_process(pid, signal);
    }
}

/// Sends `signal` to every process of group `pgid` (ignored for groups below 2: 0 is our own
/// group and 1 would be init's).
pub fn signal_group(pgid: i32, signal: Signal) {
    if pgid >= 2
        && let Some(pgid) = Pid::from_raw(pgid)
    {
        let _ = kill_process_group(pgid, signal);
    }
}

/// Lets descriptor `fd` pass to the programs this process starts next (clears its
/// close-on-exec flag); the caller closes its own copy after the spawn.
pub fn inheritable(fd: &impl AsFd) -> std::io::Result<()> {
    let flags = rustix::io::fcntl_getfd(fd)?;
    rustix::io::fcntl_setfd(fd, flags - rustix::io::FdFlags::CLOEXEC)?;
    Ok(())
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

/// The parent of process `pid`, if it can be read.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// The live descendants of process `pid` (its children, theirs, …), from `/proc`.
pub fn descendants(pid: u32) -> std::collections::HashSet<u32> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Default::default();
    };
    let mut children: std::collections::HashMap<u32, Vec<u32>> = Default::default();
    for child in dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok()) {
        if let Some(parent) = parent_of(child) {
            children.entry(parent).or_default().push(child);
        }
    }
    let mut out = std::collections::HashSet::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        for &c in children.get(&p).into_iter().flatten() {
            if out.insert(c) {
                todo.push(c);
            }
        }
    }
    out
}

/// Whether process `pid` was started with `key=value` in its environment (inherited by every
/// program it starts, whoever becomes their parent). False when it cannot be read.
pub fn has_env(pid: u32, key: &str, value: &str) -> bool {
    let want = format!("{key}={value}");
    fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|b| *b == 0).any(|kv| kv == want.as_bytes()))
}

/// The live processes started with `key=value` in their environment (those this user may read).
pub fn marked(key: &str, value: &str) -> Vec<u32> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| has_env(pid, key, value))
        .filter(|&pid| i32::try_from(pid).is_ok_and(pid_alive))
        .collect()
}

/// `program` on PATH.
pub fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// Waits until every process of `pids` has exited, for at most `within`; answers the ones still
/// alive then. Each wait is woken by the exit itself (a pidfd becomes readable); where a pidfd
/// cannot be had (an old kernel), `/proc` is looked at every 20 ms instead.
pub async fn wait_exits(pids: &[i32], within: Duration) -> Vec<i32> {
    let waits = pids.iter().map(|&pid| async move {
        let exited = exit_of(pid, within).await;
        (pid, exited)
    });
    futures::future::join_all(waits)
        .await
        .into_iter()
        .filter(|&(pid, exited)| !exited && pid_alive(pid))
        .map(|(pid, _)| pid)
        .collect()
}

/// Returns once process `pid` has exited (at once when it is gone or a zombie). The pidfd is
/// polled on a blocking thread, for at most `within`.
async fn exit_of(pid: i32, within: Duration) -> bool {
    let Some(fd) = Pid::from_raw(pid).and_then(|p| pidfd_open(p, PidfdFlags::empty()).ok()) else {
        return !pid_alive(pid) || poll_proc(pid, within).await;
    };
    let polled = tokio::task::spawn_blocking(move || {
        let timeout = rustix::event::Timespec::try_from(within).ok();
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        loop {
            match rustix::event::poll(&mut fds, timeout.as_ref()) {
                Ok(n) => return Some(n > 0),
                Err(rustix::io::Errno::INTR) => {}
                Err(_) => return None,
            }
        }
    })
    .await
    .ok()
    .flatten();
    match polled {
        Some(exited) => exited,
        // The descriptor was of no use: look at /proc instead.
        None => poll_proc(pid, within).await,
    }
}

/// Looks at `/proc` every 20 ms until `pid` is gone or `within` has passed.
async fn poll_proc(pid: i32, within: Duration) -> bool {
    let until = tokio::time::Instant::now() + within;
    while pid_alive(pid) {
        if tokio::time::Instant::now() >= until {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}
