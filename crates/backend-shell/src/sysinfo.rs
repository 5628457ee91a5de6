//! `get_system_info`: facts about this machine read straight from `/proc`, `/etc` and system
//! calls — no subprocesses. A fact that cannot be read is `None` rather than an error, so one
//! missing file does not hide the rest.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::texts;

/// What `get_system_info` returns as structured content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(description = texts::OUT_SYSTEM_INFO)]
pub struct SystemInfo {
    /// `PRETTY_NAME` from `/etc/os-release`, e.g. "Debian GNU/Linux 12 (bookworm)".
    #[schemars(description = texts::SYS_OS)]
    pub os: Option<String>,
    /// Kernel release from `/proc/sys/kernel/osrelease`.
    #[schemars(description = texts::SYS_KERNEL)]
    pub kernel: Option<String>,
    /// From `/proc/sys/kernel/hostname`.
    #[schemars(description = texts::SYS_HOSTNAME)]
    pub hostname: Option<String>,
    /// CPU architecture, e.g. "x86_64".
    #[schemars(description = texts::SYS_ARCH)]
    pub arch: String,
    /// Online CPUs (at least 1).
    #[schemars(description = texts::SYS_CPUS)]
    pub cpus: usize,
    /// 1, 5 and 15 minute load averages from `/proc/loadavg`.
    #[schemars(description = texts::SYS_LOAD)]
    pub load_average: Option<[f64; 3]>,
    /// Seconds since boot from `/proc/uptime`.
    #[schemars(description = texts::SYS_UPTIME)]
    pub uptime_secs: Option<u64>,
    /// `MemTotal` from `/proc/meminfo`, in bytes.
    #[schemars(description = texts::SYS_MEM_TOTAL)]
    pub memory_total_bytes: Option<u64>,
    /// `MemAvailable` from `/proc/meminfo`, in bytes.
    #[schemars(description = texts::SYS_MEM_AVAILABLE)]
    pub memory_available_bytes: Option<u64>,
    /// Size and free space of the root filesystem.
    #[schemars(description = texts::SYS_DISK_ROOT)]
    pub disk_root: Option<DiskUsage>,
    /// The effective user's name (or `uid N` when it has none).
    #[schemars(description = texts::SYS_USER)]
    pub user: Option<String>,
}

/// Size and space available to unprivileged users of one filesystem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(description = texts::SYS_DISK_ROOT)]
pub struct DiskUsage {
    /// Total size in bytes.
    #[schemars(description = texts::SYS_DISK_TOTAL)]
    pub total_bytes: u64,
    /// Bytes available to unprivileged users.
    #[schemars(description = texts::SYS_DISK_AVAILABLE)]
    pub available_bytes: u64,
}

/// Collects [`SystemInfo`] on a blocking thread (file reads and `statvfs` never touch the
/// runtime's workers).
pub async fn collect() -> Result<SystemInfo, tokio::task::JoinError> {
    tokio::task::spawn_blocking(collect_blocking).await
}

/// Collects [`SystemInfo`] on the current thread.
pub fn collect_blocking() -> SystemInfo {
    let meminfo = read("/proc/meminfo");
    SystemInfo {
        os: read("/etc/os-release")
            .or_else(|| read("/usr/lib/os-release"))
            .and_then(|text| pretty_name(&text)),
        kernel: read_trimmed("/proc/sys/kernel/osrelease"),
        hostname: read_trimmed("/proc/sys/kernel/hostname"),
        arch: std::env::consts::ARCH.to_owned(),
        cpus: online_cpus(),
        load_average: read("/proc/loadavg").and_then(|text| load_average(&text)),
        uptime_secs: read("/proc/uptime").and_then(|text| uptime_secs(&text)),
        memory_total_bytes: meminfo
            .as_deref()
            .and_then(|m| meminfo_bytes(m, "MemTotal")),
        memory_available_bytes: meminfo
            .as_deref()
            .and_then(|m| meminfo_bytes(m, "MemAvailable")),
        disk_root: disk_usage(Path::new("/")),
        user: user_name(),
    }
}

fn read(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn read_trimmed(path: &str) -> Option<String> {
    read(path)
        .map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty())
}

/// `PRETTY_NAME` from os-release text, unquoted.
fn pretty_name(os_release: &str) -> Option<String> {
    let value = os_release
        .lines()
        .find_map(|line| line.trim().strip_prefix("PRETTY_NAME="))?;
    let value = value.trim();
    let unquoted = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .unwrap_or(value);
    let mut text = String::with_capacity(unquoted.len());
    let mut chars = unquoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => text.extend(chars.next()),
            c => text.push(c),
        }
    }
    Some(text).filter(|t| !t.is_empty())
}

fn load_average(loadavg: &str) -> Option<[f64; 3]> {
    let mut fields = loadavg.split_whitespace().map(str::parse::<f64>);
    Some([
        fields.next()?.ok()?,
        fields.next()?.ok()?,
        fields.next()?.ok()?,
    ])
}

fn uptime_secs(uptime: &str) -> Option<u64> {
    let secs: f64 = uptime.split_whitespace().next()?.parse().ok()?;
    // Whole seconds since boot; the fraction is dropped on purpose.
    Some(secs.max(0.0) as u64)
}

/// A `/proc/meminfo` field (given in kB) in bytes.
fn meminfo_bytes(meminfo: &str, field: &str) -> Option<u64> {
    meminfo.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?.strip_prefix(':')?;
        let kib: u64 = rest.split_whitespace().next()?.parse().ok()?;
        kib.checked_mul(1024)
    })
}

/// CPUs the kernel has online (`/sys/devices/system/cpu/online`), else the ones this process
/// may use.
fn online_cpus() -> usize {
    read("/sys/devices/system/cpu/online")
        .and_then(|list| count_cpu_list(&list))
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// Counts a kernel CPU list such as `0-3,8,10-11`; `None` when it is malformed or empty.
fn count_cpu_list(list: &str) -> Option<usize> {
    let mut count = 0usize;
    for part in list.trim().split(',') {
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (a.parse::<usize>().ok()?, b.parse::<usize>().ok()?),
            None => {
                let n = part.parse::<usize>().ok()?;
                (n, n)
            }
        };
        count += last.checked_sub(first)? + 1;
    }
    (count > 0).then_some(count)
}

fn disk_usage(path: &Path) -> Option<DiskUsage> {
    let stat = rustix::fs::statvfs(path).ok()?;
    let (fragment, blocks, available, block) =
        (stat.f_frsize, stat.f_blocks, stat.f_bavail, stat.f_bsize);
    let unit = if fragment > 0 { fragment } else { block };
    Some(DiskUsage {
        total_bytes: blocks.saturating_mul(unit),
        available_bytes: available.saturating_mul(unit),
    })
}

/// The effective user's name from `/etc/passwd`, then `$USER`, then `uid N`.
fn user_name() -> Option<String> {
    let uid = rustix::process::geteuid().as_raw();
    let from_passwd = read("/etc/passwd").and_then(|passwd| {
        passwd.lines().find_map(|line| {
            let mut fields = line.split(':');
            let name = fields.next()?;
            let uid_field = fields.nth(1)?;
            (uid_field.parse::<u32>().ok()? == uid).then(|| name.to_owned())
        })
    });
    from_passwd
        .or_else(|| std::env::var("USER").ok().filter(|u| !u.is_empty()))
        .or_else(|| Some(format!("uid {uid}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_kernel_cpu_lists() {
        assert_eq!(count_cpu_list("0\n"), Some(1));
        assert_eq!(count_cpu_list("0-3"), Some(4));
        assert_eq!(count_cpu_list("0-3,8,10-11\n"), Some(7));
        assert_eq!(count_cpu_list(""), None);
        assert_eq!(count_cpu_list("3-1"), None);
        assert_eq!(count_cpu_list("x"), None);
    }

    #[test]
    fn parses_proc_formats() {
        assert_eq!(
            pretty_name("NAME=x\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n").as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
        assert_eq!(pretty_name("PRETTY_NAME=Plain").as_deref(), Some("Plain"));
        assert_eq!(
            load_average("0.50 1.25 2.00 1/234 5678\n"),
            Some([0.5, 1.25, 2.0])
        );
        assert_eq!(uptime_secs("12345.67 999.00\n"), Some(12345));
        let meminfo = "MemTotal:       16384 kB\nMemFree: 1 kB\nMemAvailable:    8192 kB\n";
        assert_eq!(meminfo_bytes(meminfo, "MemTotal"), Some(16384 * 1024));
        assert_eq!(meminfo_bytes(meminfo, "MemAvailable"), Some(8192 * 1024));
        assert_eq!(meminfo_bytes(meminfo, "Missing"), None);
    }
}
