//! The console's speed (issue #7): a real `deft serve` child process (release binary, embedded
//! SQLite in a fresh data folder, `--no-desktop`, the fixture MCP server as a stdio tool server)
//! measured from this separate harness process.
//!
//! 1. **Fan-out**: a 40-step run (40 `image` tool calls and a final answer, 50 content/reasoning
//!    chunks per model turn: ~2,050 `delta` and 40 `step` events, each step with its image by
//!    URL and no image bytes) streamed by
//!    the paced scripted model at ~200 events/s and watched by 1,000 SSE subscribers
//!    (`Authorization: Bearer`, HTTP/1.1, one connection each, all from this process's one tokio
//!    runtime). Each chunk's text carries its index; the model records when it sent each index
//!    and each subscriber when it received it (one process clock) → delivery latency. Every
//!    subscriber must get every seq 1..N exactly once and the same `done`.
//! 2. **Idle RSS** of `deft serve` ~2 s after start, no run.
//! 3. **Cold start** to the first `GET /health` 200 on a fresh data folder (median of 5).
//!
//! Prints the figures and targets; exits non-zero only when the fan-out lost, repeated or
//! reordered events (timings are never asserted).
//!
//!     cargo bench -p deft --bench console

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures

#[path = "../tests/common/console.rs"]
mod support;

#[path = "console/paced_model.rs"]
mod paced_model;
#[path = "console/report.rs"]
mod report;
#[path = "console/serve_process.rs"]
mod serve_process;
#[path = "console/subscribers.rs"]
mod subscribers;

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use deft_test_support::TempDataDir;
use paced_model::{PacedModel, Script};
use report::{CpuUse, FanOut, Figures};
use serde_json::json;
use serve_process::{FdLimit, RssSampler, ensure_fd_limit, status_kib, wait_for_health};
use subscribers::{Connected, Received, subscribe};
use support::{API_TOKEN, Serve, ServeOptions};

/// Concurrent SSE subscribers of the run.
const SUBSCRIBERS: usize = 1000;

/// 40 tool turns and a final answer, 50 chunks each, one chunk every 5 ms (≈ 200 events/s
/// with the `step_start`, `step` and `usage` events of each turn).
const SCRIPT: Script = Script {
    tool_turns: 40,
    chunks_per_turn: 50,
    chunk_interval: Duration::from_millis(5),
};

/// Starts timed for the cold-start figure.
const COLD_STARTS: usize = 5;

/// Open files this process needs: the subscribers' sockets and some spare.
const FD_NEED: u64 = SUBSCRIBERS as u64 + 1024;

fn main() -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("the harness runtime")?;
    rt.block_on(bench())
}

async fn bench() -> anyhow::Result<()> {
    let fd_limit = ensure_fd_limit(FD_NEED)?;
    let model = PacedModel::start(SCRIPT)?;
    let dir = TempDataDir::new().context("a data folder")?;
    // Writes the routing table (building the fixture MCP server first if it is missing), so
    // nothing of that lands in a timed start.
    let opts = ServeOptions::shell(&model.base_url(), dir.path());
    let http = reqwest::Client::new();

    let mut cold = Vec::with_capacity(COLD_STARTS);
    for _ in 0..COLD_STARTS {
        cold.push(cold_start(&http, &opts).await?);
    }

    let serve = tokio::task::block_in_place(|| Serve::start(dir.path(), &opts));
    let pid = serve.child.pid();
    wait_for_health(&http, &serve.url, Duration::from_secs(30)).await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle_rss = status_kib(pid, "VmRSS")?;
    let idle_hwm = status_kib(pid, "VmHWM")?;

    let fan_out = fan_out(&serve, &model).await?;
    let figures = Figures {
        fd_limit: match fd_limit {
            FdLimit::Enough(n) => format!("soft RLIMIT_NOFILE {n}, enough (no change)"),
            FdLimit::Raised(from, to) => format!("soft RLIMIT_NOFILE raised from {from} to {to}"),
        },
        cold_starts: cold,
        idle_rss_kib: idle_rss,
        idle_hwm_kib: idle_hwm,
        fan_out,
    };
    figures.print();
    drop(serve);
    figures.verdict()
}

/// Spawns `deft serve` on a fresh data folder; the time until `/health` answers 200.
async fn cold_start(http: &reqwest::Client, opts: &ServeOptions) -> anyhow::Result<Duration> {
    let data = TempDataDir::new().context("a data folder")?;
    let t0 = Instant::now();
    let serve = tokio::task::block_in_place(|| Serve::start(data.path(), opts));
    let answered = wait_for_health(http, &serve.url, Duration::from_secs(30)).await?;
    Ok(answered - t0)
}

async fn fan_out(serve: &Serve, model: &PacedModel) -> anyhow::Result<FanOut> {
    let pid = serve.child.pid();
    let api = serve.api();
    let settings = api
        .send(
            "PUT",
            "/api/settings",
            Some(&json!({"max_steps": SCRIPT.turns()})),
        )
        .await;
    if settings.status != 200 {
        bail!("PUT /api/settings: {} {}", settings.status, settings.text);
    }
    let sampler = RssSampler::start(pid, Duration::from_millis(50));
    let (run_id, _) = api
        .run(json!({"prompt": "fan-out benchmark", "device": "local"}))
        .await;

    let client = reqwest::Client::builder()
        .tcp_nodelay(true)
        .build()
        .context("the subscribers' HTTP client")?;
    let url: String = format!("{}/api/agent/stream?run_id={run_id}", serve.url);
    let token: Arc<str> = Arc::from(API_TOKEN);
    let connected = Arc::new(Connected::default());
    let connecting = Instant::now();
    let tasks: Vec<_> = (0..SUBSCRIBERS)
        .map(|_| {
            tokio::spawn(subscribe(
                client.clone(),
                url.clone(),
                token.clone(),
                model.sent(),
                connected.clone(),
            ))
        })
        .collect();
    if tokio::time::timeout(Duration::from_secs(60), connected.wait_for(SUBSCRIBERS))
        .await
        .is_err()
    {
        bail!(
            "only {} of {SUBSCRIBERS} subscribers connected within 60 s",
            connected.count()
        );
    }
    let connect_time = connecting.elapsed();
    let load_at_start = serve_process::load_average();
    let cpu_at_start = (
        serve_process::cpu_time(&pid.to_string())?,
        serve_process::cpu_time("self")?,
        Instant::now(),
    );
    model.release();

    let mut received: Vec<Received> = Vec::with_capacity(SUBSCRIBERS);
    let mut failures = Vec::new();
    for task in tasks {
        match tokio::time::timeout(Duration::from_secs(300), task).await {
            Ok(Ok(Ok(r))) => received.push(r),
            Ok(Ok(Err(e))) => failures.push(format!("{e:#}")),
            Ok(Err(e)) => failures.push(format!("subscriber task: {e}")),
            Err(_) => failures.push("subscriber still reading after 300 s".to_owned()),
        }
    }
    let cpu = CpuUse {
        server: serve_process::cpu_time(&pid.to_string())?.saturating_sub(cpu_at_start.0),
        harness: serve_process::cpu_time("self")?.saturating_sub(cpu_at_start.1),
        wall: cpu_at_start.2.elapsed(),
    };
    let peak_rss = sampler.finish().await;
    let hwm = status_kib(pid, "VmHWM")?;
    let run = api.get(&format!("/api/agent/runs/{run_id}")).await;
    let last_seq = run.body["last_seq"]
        .as_u64()
        .with_context(|| format!("no last_seq in the run: {}", run.text))?;
    Ok(FanOut {
        script: SCRIPT,
        subscribers: SUBSCRIBERS,
        connect_time,
        run_status: run.body["status"].as_str().unwrap_or("?").to_owned(),
        last_seq: last_seq as usize,
        model_requests: model.requests(),
        sent_span: model.sent().span(),
        received,
        failures,
        peak_rss_kib: peak_rss,
        hwm_kib: hwm,
        load: format!(
            "{load_at_start} at the start, {} at the end",
            serve_process::load_average()
        ),
        cpu,
    })
}
