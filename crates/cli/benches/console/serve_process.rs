//! Measuring a `deft serve` child process: its memory from `/proc/PID/status`, a sampler of
//! its resident set while something runs, the time until `/health` answers, and the open-file
//! limit the 1,000 connections need.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// A field of `/proc/PID/status` in KiB (`VmRSS`, `VmHWM`).
pub fn status_kib(pid: i32, field: &str) -> anyhow::Result<u64> {
    let path = format!("/proc/{pid}/status");
    let text = std::fs::read_to_string(&path).with_context(|| format!("read {path}"))?;
    let line = text
        .lines()
        .find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))
        .with_context(|| format!("no {field} in {path}"))?;
    line.split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .with_context(|| format!("unreadable {field} line in {path}: {line:?}"))
}

/// CPU time (user + system) a process has used so far, from `/proc/PID/stat` (`self` for this
/// process).
pub fn cpu_time(pid: &str) -> anyhow::Result<Duration> {
    let path = format!("/proc/{pid}/stat");
    let text = std::fs::read_to_string(&path).with_context(|| format!("read {path}"))?;
    // Fields after the command name (which may hold spaces) start at field 3; utime and stime
    // are fields 14 and 15.
    let rest = text
        .rsplit_once(')')
        .map(|(_, r)| r)
        .with_context(|| format!("unreadable {path}"))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12]
        .iter()
        .map(|&i| fields.get(i).and_then(|v| v.parse::<u64>().ok()))
        .sum::<Option<u64>>()
        .with_context(|| format!("no utime/stime in {path}"))?;
    let hz = rustix::param::clock_ticks_per_second().max(1);
    Ok(Duration::from_secs_f64(ticks as f64 / hz as f64))
}

/// KiB as MB (MiB, as `ps` and `top` count).
pub fn mb(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Samples a process's `VmRSS` every `every` until stopped; keeps the highest.
pub struct RssSampler {
    peak_kib: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl RssSampler {
    /// Starts sampling `pid`.
    pub fn start(pid: i32, every: Duration) -> RssSampler {
        let peak_kib = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (peak, halt) = (peak_kib.clone(), stop.clone());
        let task = tokio::spawn(async move {
            while !halt.load(Ordering::Relaxed) {
                if let Ok(kib) = status_kib(pid, "VmRSS") {
                    peak.fetch_max(kib, Ordering::Relaxed);
                }
                tokio::time::sleep(every).await;
            }
        });
        RssSampler {
            peak_kib,
            stop,
            task,
        }
    }

    /// Stops and returns the highest `VmRSS` seen, in KiB.
    pub async fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.task.await;
        self.peak_kib.load(Ordering::Relaxed)
    }
}

/// Asks `GET {base}/health` until it answers 200; the instant it did.
pub async fn wait_for_health(
    http: &reqwest::Client,
    base: &str,
    limit: Duration,
) -> anyhow::Result<Instant> {
    let url = format!("{base}/health");
    let until = Instant::now() + limit;
    loop {
        if let Ok(r) = http.get(&url).send().await
            && r.status() == 200
        {
            return Ok(Instant::now());
        }
        if Instant::now() > until {
            bail!("{url} did not answer 200 within {limit:?}");
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// What happened to the open-file limit.
pub enum FdLimit {
    /// The soft limit was high enough already.
    Enough(u64),
    /// The soft limit was raised from the first value to the second.
    Raised(u64, u64),
}

/// Makes sure this process (and the `deft serve` children, which inherit it) may open `need`
/// files, raising the soft `RLIMIT_NOFILE` up to the hard one.
pub fn ensure_fd_limit(need: u64) -> anyhow::Result<FdLimit> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    // `None` is RLIM_INFINITY.
    let lim = getrlimit(Resource::Nofile);
    let soft = lim.current.unwrap_or(u64::MAX);
    if soft >= need {
        return Ok(FdLimit::Enough(soft));
    }
    let hard = lim.maximum.unwrap_or(u64::MAX);
    if hard < need {
        bail!(
            "the hard open-file limit is {hard} but the benchmark needs {need}; raise it (ulimit -Hn)"
        );
    }
    setrlimit(
        Resource::Nofile,
        Rlimit {
            current: Some(need),
            maximum: lim.maximum,
        },
    )
    .map_err(|e| anyhow::anyhow!("setrlimit: {e}"))?;
    Ok(FdLimit::Raised(soft, need))
}

/// The 1-minute load average (other work on the machine skews the figures).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}
