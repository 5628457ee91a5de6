//! How much one program may take: its address space (`RLIMIT_AS`) and the processes and threads
//! its user may have (`RLIMIT_NPROC`), and how to tell that a program stopped because it ran out
//! of memory. No code runs between fork and exec here (the workspace has no unsafe code), so the
//! program is started through util-linux's `prlimit` ([`wrapper`]), which sets the limits on
//! itself and then executes it: no moment of the program runs unlimited (set from outside after
//! the start, a program under load could allocate first). Without `prlimit` installed, the limits
//! are set from outside the moment the program has started ([`apply`]).
//!
//! `tail /dev/zero` reached 5–6 GB in 3 s without a limit; with one, its next allocation past
//! the limit fails and it exits ("memory exhausted"). `RLIMIT_NPROC` counts every process and
//! thread of the user, so the cap is the user's count when the program starts plus the
//! allowance; the kernel does not apply it to root.

use rustix::process::{Pid, Resource, Rlimit, prlimit};

use crate::output::ShellOutput;

/// Memory a program may use by default, in MiB.
pub const DEFAULT_MEMORY_MIB: u64 = 1024;
/// Processes and threads a program may add by default.
pub const DEFAULT_MAX_PROCESSES: u64 = 64;

/// What stderr says when an allocation failed: coreutils and glibc programs, Python, C++, Rust.
const OUT_OF_MEMORY: &[&str] = &[
    "memory exhausted",
    "cannot allocate memory",
    "out of memory",
    "memoryerror",
    "bad_alloc",
    "memory allocation of",
];

/// The limits a program runs under; `None` leaves one as deft's own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Its address space, in bytes (`RLIMIT_AS`).
    pub memory_bytes: Option<u64>,
    /// Processes and threads its user may have in all (`RLIMIT_NPROC`).
    pub processes: Option<u64>,
}

impl Limits {
    /// The limits of a `run_shell` call: `memory_mib`, and `max_processes` more processes and
    /// threads than the user has now.
    pub fn for_call(memory_mib: u64, max_processes: u64) -> Limits {
        Limits {
            memory_bytes: Some(memory_mib.saturating_mul(1 << 20)),
            processes: Some(user_tasks().saturating_add(max_processes)),
        }
    }
}

/// The `prlimit` program and its arguments (up to the `--` before the program) that start a
/// program under `limits`; `None` when it is not installed or nothing is limited. The values are
/// those [`apply`] sets: soft and hard, never above deft's own hard limits.
pub(crate) fn wrapper(limits: &Limits) -> Option<(std::path::PathBuf, Vec<String>)> {
    let program = ["/usr/bin/prlimit", "/bin/prlimit"]
        .into_iter()
        .map(std::path::PathBuf::from)
        .find(|p| p.is_file())?;
    let args: Vec<String> = [
        ("as", Resource::As, limits.memory_bytes),
        ("nproc", Resource::Nproc, limits.processes),
    ]
    .into_iter()
    .filter_map(|(flag, resource, value)| {
        let value = within_own(resource, value?);
        Some(format!("--{flag}={value}:{value}"))
    })
    .collect();
    (!args.is_empty()).then_some((program, args))
}

/// `value`, but never above this process's own hard limit of `resource`.
fn within_own(resource: Resource, value: u64) -> u64 {
    let own = rustix::process::getrlimit(resource);
    own.maximum.map_or(value, |max| value.min(max))
}

/// Sets `limits` on process `pid` (soft and hard, so it cannot raise them), never above deft's
/// own hard limits. A program that already ended is no error.
pub(crate) fn apply(pid: u32, limits: &Limits) {
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return;
    };
    for (resource, value) in [
        (Resource::As, limits.memory_bytes),
        (Resource::Nproc, limits.processes),
    ] {
        let Some(value) = value else { continue };
        let value = within_own(resource, value);
        let limit = Rlimit {
            current: Some(value),
            maximum: Some(value),
        };
        if let Err(e) = prlimit(Some(pid), resource, limit) {
            tracing::debug!(error = %e, ?resource, "cannot limit a run_shell program");
        }
    }
}

/// The processes and threads of this process's real user, as `RLIMIT_NPROC` counts them.
pub fn user_tasks() -> u64 {
    let uid = rustix::process::getuid().as_raw().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("status")).ok())
        .filter(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|ids| ids.split_whitespace().next())
                == Some(uid.as_str())
        })
        .map(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|n| n.trim().parse::<u64>().ok())
                .unwrap_or(1)
        })
        .sum()
}

/// Whether a program that failed did so because an allocation failed (under the memory limit).
pub fn ran_out_of_memory(output: &ShellOutput) -> bool {
    if output.exit_code == Some(0) || output.timed_out {
        return false;
    }
    let stderr = output.stderr.to_lowercase();
    OUT_OF_MEMORY.iter().any(|phrase| stderr.contains(phrase))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_among_its_user_s_tasks() {
        let own_threads = std::fs::read_dir("/proc/self/task")
            .expect("threads")
            .count() as u64;
        assert!(user_tasks() >= own_threads);
    }

    #[test]
    fn an_allocation_failure_is_told_from_other_failures() {
        let out = |exit_code, stderr: &str| ShellOutput {
            exit_code,
            stdout: String::new(),
            stderr: stderr.to_owned(),
            timed_out: false,
            truncated: false,
        };
        assert!(ran_out_of_memory(&out(Some(1), "tail: memory exhausted\n")));
        assert!(ran_out_of_memory(&out(
            None,
            "memory allocation of 8 bytes failed\n"
        )));
        assert!(!ran_out_of_memory(&out(Some(2), "ls: cannot access 'x'\n")));
        assert!(!ran_out_of_memory(&out(Some(0), "memory exhausted\n")));
    }
}
