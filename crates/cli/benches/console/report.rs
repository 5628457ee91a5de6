//! The benchmark's figures: what the subscribers received, checked against the run, and the
//! table printed at the end.

use std::time::{Duration, Instant};

use crate::paced_model::Script;
use crate::serve_process::mb;
use crate::subscribers::Received;

/// Everything the fan-out part measured.
pub struct FanOut {
    /// The model's script.
    pub script: Script,
    /// Subscribers started.
    pub subscribers: usize,
    /// From the first subscriber's request to the last one's connected response.
    pub connect_time: Duration,
    /// The run's final status (`GET /api/agent/runs/{id}`).
    pub run_status: String,
    /// The run's last seq, so N.
    pub last_seq: usize,
    /// Chat requests the model answered.
    pub model_requests: usize,
    /// The model's first and last chunk send and how many chunks it sent.
    pub sent_span: Option<(Instant, Instant, usize)>,
    /// What each subscriber that finished received.
    pub received: Vec<Received>,
    /// Subscribers that failed, and why.
    pub failures: Vec<String>,
    /// Highest `VmRSS` of the server sampled during the run, KiB.
    pub peak_rss_kib: u64,
    /// `VmHWM` of the server after the run, KiB.
    pub hwm_kib: u64,
    /// The machine's load average.
    pub load: String,
    /// CPU time the server and this harness used from the model's release to the last
    /// subscriber's end, and that span's wall time.
    pub cpu: CpuUse,
}

/// CPU time used during the fan-out.
pub struct CpuUse {
    /// By `deft serve`.
    pub server: Duration,
    /// By this harness (subscribers and the paced model).
    pub harness: Duration,
    /// Wall time of the span.
    pub wall: Duration,
}

/// Counts of what went wrong across subscribers.
#[derive(Debug, Default)]
pub struct Checks {
    /// Seqs in 1..=N a subscriber never got, summed.
    pub lost: usize,
    /// Extra copies of a seq, summed.
    pub duplicated: usize,
    /// Seqs above N or 0.
    pub unexpected: usize,
    /// Events that came after a higher seq.
    pub out_of_order: usize,
    /// Chunks of the script a subscriber got no delta for, summed.
    pub chunks_lost: usize,
    /// Deltas whose chunk was not recorded as sent, or carried no tag.
    pub unmatched_deltas: usize,
    /// Subscribers without `done`, or with one that differs from the first subscriber's.
    pub done_mismatch: usize,
    /// Events after `done`.
    pub after_done: usize,
    /// `step` events without an image id, or with image bytes.
    pub steps_without_image_url: usize,
}

impl Checks {
    fn clean(&self) -> bool {
        self.lost == 0
            && self.duplicated == 0
            && self.unexpected == 0
            && self.out_of_order == 0
            && self.chunks_lost == 0
            && self.unmatched_deltas == 0
            && self.done_mismatch == 0
            && self.after_done == 0
            && self.steps_without_image_url == 0
    }
}

impl FanOut {
    /// Checks every subscriber against seq 1..=N, the script's chunks and the first `done`.
    pub fn checks(&self) -> Checks {
        let n = self.last_seq;
        let first_done = self.received.first().and_then(|r| r.done.as_deref());
        let mut c = Checks::default();
        for r in &self.received {
            for seq in 0..r.seq_counts.len().max(n + 1) {
                let count = r.seq_counts.get(seq).copied().unwrap_or(0) as usize;
                if seq == 0 || seq > n {
                    c.unexpected += count;
                } else if count == 0 {
                    c.lost += 1;
                } else {
                    c.duplicated += count - 1;
                }
            }
            c.out_of_order += r.out_of_order;
            c.chunks_lost += r.chunk_counts.iter().filter(|x| **x == 0).count();
            c.duplicated += r
                .chunk_counts
                .iter()
                .map(|x| (*x as usize).saturating_sub(1))
                .sum::<usize>();
            c.unmatched_deltas += r.unsent + r.untagged;
            if r.done.is_none() || r.done.as_deref() != first_done {
                c.done_mismatch += 1;
            }
            c.after_done += r.after_done;
            c.steps_without_image_url += r.steps - r.steps_with_image_url;
        }
        // A subscriber that failed lost everything it did not report.
        c.lost += self.failures.len() * n;
        c
    }

    /// Per chunk, the latency to the first subscriber that got it (what the pipeline before
    /// the fan-out costs: model → agent → log), sorted.
    fn first_delivery_us(&self) -> Vec<u32> {
        let chunks = self.script.deltas();
        let mut first: Vec<u32> = (0..chunks)
            .filter_map(|i| {
                self.received
                    .iter()
                    .filter_map(|r| r.latency_by_chunk_us.get(i).copied())
                    .filter(|&us| us != u32::MAX)
                    .min()
            })
            .collect();
        first.sort_unstable();
        first
    }

    fn latencies_us(&self) -> Vec<u32> {
        let mut all: Vec<u32> = self
            .received
            .iter()
            .flat_map(|r| r.latencies_us.iter().copied())
            .collect();
        all.sort_unstable();
        all
    }
}

/// All figures of one benchmark run.
pub struct Figures {
    /// What was done about the open-file limit.
    pub fd_limit: String,
    /// Time to the first `/health` 200 of each cold start.
    pub cold_starts: Vec<Duration>,
    /// `VmRSS` ~2 s after start, KiB.
    pub idle_rss_kib: u64,
    /// `VmHWM` at the same moment, KiB.
    pub idle_hwm_kib: u64,
    /// The fan-out part.
    pub fan_out: FanOut,
}

/// The value at quantile `q` (nearest rank) of sorted `v`.
fn quantile<T: Copy>(v: &[T], q: f64) -> Option<T> {
    if v.is_empty() {
        return None;
    }
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v.get(rank - 1).copied()
}

fn ms_us(us: Option<u32>) -> String {
    us.map_or("–".to_owned(), |u| format!("{:.2} ms", u as f64 / 1e3))
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1e3)
}

fn row(name: &str, value: &str, target: &str) {
    println!("  {name:<46} {value:<30} {target}");
}

impl Figures {
    /// Prints the table.
    pub fn print(&self) {
        self.print_header();
        row("figure", "value", "target");
        self.print_fan_out();
        self.print_resources();
    }

    /// What was measured, and how.
    fn print_header(&self) {
        let f = &self.fan_out;
        println!();
        println!(
            "console speed — `deft serve` (release) as a child process, embedded SQLite, --no-desktop"
        );
        println!(
            "harness: this process, {} SSE subscribers over HTTP/1.1 (one connection each, one tokio runtime), API-token auth; {}",
            f.subscribers, self.fd_limit
        );
        println!(
            "run: {} model turns ({} `image` tool calls + answer), {} chunks per turn, one chunk per {} ms; status {}; {} model requests; load average {}",
            f.script.turns(),
            f.script.tool_turns,
            f.script.chunks_per_turn,
            f.script.chunk_interval.as_millis(),
            f.run_status,
            f.model_requests,
            f.load
        );
        println!();
    }

    /// The fan-out rows: delivery, loss, order, latency.
    fn print_fan_out(&self) {
        let f = &self.fan_out;
        let checks = f.checks();
        let events: Vec<usize> = {
            let mut e: Vec<usize> = f.received.iter().map(|r| r.events).collect();
            e.sort_unstable();
            e
        };
        let deltas = f.received.first().map_or(0, |r| r.latencies_us.len());
        let steps = f.received.first().map_or(0, |r| r.steps);
        row(
            "fan-out: subscribers finished / failed",
            &format!("{} / {}", f.received.len(), f.failures.len()),
            &format!("{} / 0", f.subscribers),
        );
        row(
            "fan-out: all subscribers connected in",
            &ms(f.connect_time),
            "(before the first event)",
        );
        row(
            "fan-out: events in the run (N = last seq)",
            &format!("{} ({deltas} delta, {steps} step)", f.last_seq),
            "~2,000 delta, 40 step",
        );
        row(
            "fan-out: steps with an image by URL, no bytes",
            &format!(
                "{} of {steps} (all subscribers: {} without)",
                f.received.first().map_or(0, |r| r.steps_with_image_url),
                checks.steps_without_image_url
            ),
            "every step",
        );
        row(
            "fan-out: events per subscriber (min / max)",
            &format!(
                "{} / {}",
                events.first().copied().unwrap_or(0),
                events.last().copied().unwrap_or(0)
            ),
            &format!("{0} / {0}", f.last_seq),
        );
        row(
            "fan-out: events lost",
            &checks.lost.to_string(),
            "must be 0",
        );
        row(
            "fan-out: duplicated / out of order / after done",
            &format!(
                "{} / {} / {}",
                checks.duplicated, checks.out_of_order, checks.after_done
            ),
            "0 / 0 / 0",
        );
        row(
            "fan-out: same `done` at every subscriber",
            if checks.done_mismatch == 0 {
                "yes"
            } else {
                "NO"
            },
            "yes",
        );
        self.print_latency();
    }

    /// The fan-out's rates and delivery latencies.
    fn print_latency(&self) {
        let f = &self.fan_out;
        let lat = f.latencies_us();
        let rates: Vec<f64> = {
            let mut v: Vec<f64> = f
                .received
                .iter()
                .filter_map(|r| {
                    let (a, b) = r.span?;
                    let secs = (b - a).as_secs_f64();
                    (secs > 0.0).then(|| (r.events.saturating_sub(1)) as f64 / secs)
                })
                .collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let model_rate = f.sent_span.and_then(|(a, b, n)| {
            let secs = (b - a).as_secs_f64();
            (secs > 0.0).then(|| (n.saturating_sub(1)) as f64 / secs)
        });
        row(
            "fan-out: emission rate (model / subscriber p50)",
            &format!(
                "{:.0} deltas/s / {:.0} events/s",
                model_rate.unwrap_or(f64::NAN),
                quantile(&rates, 0.5).unwrap_or(f64::NAN)
            ),
            "~200 events/s",
        );
        row(
            "fan-out: delivery latency p50",
            &ms_us(quantile(&lat, 0.5)),
            "",
        );
        row(
            "fan-out: delivery latency p90",
            &ms_us(quantile(&lat, 0.9)),
            "",
        );
        row(
            "fan-out: delivery latency p99",
            &ms_us(quantile(&lat, 0.99)),
            "≤ 50 ms",
        );
        row(
            "fan-out: delivery latency max",
            &ms_us(lat.last().copied()),
            "",
        );
        let first = f.first_delivery_us();
        row(
            "  of which to the first subscriber p50 / p99",
            &format!(
                "{} / {}",
                ms_us(quantile(&first, 0.5)),
                ms_us(quantile(&first, 0.99))
            ),
            "(model → agent → log)",
        );
        row(
            "fan-out: deliveries measured",
            &format!("{} deltas", lat.len()),
            &format!("{} × {}", f.subscribers, f.script.deltas()),
        );
    }

    /// CPU, memory, cold start, and what failed.
    fn print_resources(&self) {
        let f = &self.fan_out;
        let checks = f.checks();
        let mut cold = self.cold_starts.clone();
        cold.sort();
        let share = |d: Duration| 100.0 * d.as_secs_f64() / f.cpu.wall.as_secs_f64().max(1e-9);
        row(
            "CPU during fan-out: server / harness",
            &format!(
                "{:.1} s ({:.0}%) / {:.1} s ({:.0}%) of {:.1} s",
                f.cpu.server.as_secs_f64(),
                share(f.cpu.server),
                f.cpu.harness.as_secs_f64(),
                share(f.cpu.harness),
                f.cpu.wall.as_secs_f64()
            ),
            "(100% = one core)",
        );
        row(
            "server RSS peak during fan-out (VmRSS / VmHWM)",
            &format!("{:.1} MB / {:.1} MB", mb(f.peak_rss_kib), mb(f.hwm_kib)),
            "",
        );
        row(
            "idle RSS after ~2 s (VmRSS / VmHWM)",
            &format!(
                "{:.1} MB / {:.1} MB",
                mb(self.idle_rss_kib),
                mb(self.idle_hwm_kib)
            ),
            "≤ 50 MB",
        );
        row(
            &format!("cold start to /health 200 (median of {})", cold.len()),
            &quantile(&cold, 0.5).map_or("–".to_owned(), ms),
            "≤ 1 s",
        );
        row(
            "cold start: each, in order",
            &self
                .cold_starts
                .iter()
                .map(|d| ms(*d))
                .collect::<Vec<_>>()
                .join(", "),
            "",
        );
        for failure in f.failures.iter().take(5) {
            println!("  subscriber failed: {failure}");
        }
        if !checks.clean() {
            println!("  fan-out checks: {checks:?}");
        }
    }

    /// Fails when the fan-out lost, repeated, reordered or mismatched anything.
    pub fn verdict(&self) -> anyhow::Result<()> {
        let checks = self.fan_out.checks();
        if !checks.clean() || !self.fan_out.failures.is_empty() {
            anyhow::bail!("the fan-out did not deliver every event exactly once: {checks:?}");
        }
        if self.fan_out.run_status != "completed" {
            anyhow::bail!("the run ended {}, not completed", self.fan_out.run_status);
        }
        Ok(())
    }
}
