//! The device link under faults, from outside: a real `deft client` process runs batches from a
//! real server on loopback while it is killed (`kill -9`) or paused (`SIGSTOP` past the batch
//! deadline) at varied moments mid-batch. Each batch's marker commands leave files, so the
//! figures compare what the device really did with what the server reported: commands run
//! twice, finished commands whose results were lost, and results that said "not executed" or
//! "success" against the facts. Prints the figures; asserts nothing.
//!
//! `cargo bench -p deft --bench link_faults` (`DEFT_BENCH_ROUNDS=N`, default 30).

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures
#![allow(clippy::unwrap_used)] // bench set-up: a failed unwrap is a failed run

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use deft_protocol::{Command as Cmd, CommandResult, ResultStatus, ToolType};
use deft_server::{Registry, Server, ServerConfig};
use deft_test_support::TempDataDir;
use deft_test_support::proc::{
    GroupChild, Signal, kill_group, shell_with_fixture_table, signal_group,
};
use deft_tools::{Devices, ExecContext};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const DEVICE_TOKEN: &str = "bench-device-token";
const API_TOKEN: &str = "bench-api-token";
/// Marker commands per batch (a short sleep between each two).
const MARKERS: usize = 3;
const DEADLINE: Duration = Duration::from_millis(1500);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Fault {
    None,
    Kill,
    Pause,
}

#[derive(Default)]
struct Figures {
    batches: usize,
    kills: usize,
    pauses: usize,
    markers: usize,
    ran: usize,
    doubled: usize,
    /// Ran and finished, but reported as unknown ("may have run").
    lost: usize,
    /// Reported "not executed" although it ran, or "success" although it did not.
    misreported: usize,
    unknown: usize,
}

fn client(url: &str, data: &Path, tools: &Path) -> GroupChild {
    let mut cmd = deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"));
    cmd.env("DEFT_LOG", "error")
        .arg("--data-dir")
        .arg(data)
        .arg("--tools-config")
        .arg(tools)
        .args([
            "client",
            "--server",
            url,
            "--id",
            "pc1",
            "--profile",
            "shell",
        ])
        .env("DEFT_DEVICE_TOKEN", DEVICE_TOKEN)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    GroupChild::spawn(cmd).expect("spawn deft client")
}

async fn wait_registered(registry: &Registry) {
    for _ in 0..2000 {
        if registry
            .remote_dispatcher("pc1")
            .is_some_and(|d| !d.is_disconnected())
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the client did not register within 20 s");
}

fn batch(dirs: &[PathBuf]) -> Vec<Cmd> {
    let mut out = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        if i > 0 {
            out.push(Cmd::new(
                "sleep",
                Some(ToolType::Action),
                json!({"ms": 120}),
            ));
        }
        out.push(Cmd::new(
            "rendezvous",
            Some(ToolType::Action),
            json!({"dir": dir.to_str().unwrap(), "parties": 1, "timeout_ms": 1000}),
        ));
    }
    out
}

fn runs_of(dir: &Path) -> usize {
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

/// Compares what each marker command did (its files) with what was reported.
fn judge(figures: &mut Figures, dirs: &[PathBuf], results: &[CommandResult]) {
    // Markers are every other command: 0, 2, 4, …
    for (dir, result) in dirs.iter().zip(results.iter().step_by(2)) {
        let runs = runs_of(dir);
        let error = result.error.as_deref().unwrap_or("");
        figures.markers += 1;
        figures.ran += usize::from(runs > 0);
        figures.doubled += usize::from(runs > 1);
        let unknown = result.status != ResultStatus::Success && error.contains("may");
        figures.unknown += usize::from(unknown);
        if runs > 0 && unknown {
            figures.lost += 1;
        }
        let says_not_run = error.contains("not executed");
        let says_done = result.status == ResultStatus::Success;
        if (runs > 0 && says_not_run) || (runs == 0 && says_done) {
            figures.misreported += 1;
        }
    }
}

fn main() {
    let rounds: usize = std::env::var("DEFT_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(run(rounds));
}

async fn run(rounds: usize) {
    let server = Server::bind(ServerConfig::new(
        "127.0.0.1:0".parse().unwrap(),
        DEVICE_TOKEN,
        API_TOKEN,
    ))
    .await
    .expect("bind");
    let url = format!("http://{}", server.local_addr());
    let registry = server.registry();
    let stop = CancellationToken::new();
    tokio::spawn(server.serve(stop.clone()));
    let data = TempDataDir::new().unwrap();
    let tools = shell_with_fixture_table(data.path());
    let work = tempfile::tempdir().unwrap();
    let mut device = client(&url, data.path(), &tools);
    wait_registered(&registry).await;

    let mut figures = Figures::default();
    let started = Instant::now();
    for round in 0..rounds {
        let fault = match round % 3 {
            0 => Fault::None,
            1 => Fault::Kill,
            _ => Fault::Pause,
        };
        let dirs: Vec<PathBuf> = (0..MARKERS)
            .map(|j| {
                let d = work.path().join(format!("r{round}-m{j}"));
                std::fs::create_dir_all(&d).unwrap();
                d
            })
            .collect();
        let commands = batch(&dirs);
        let dispatcher = registry.get("pc1").expect("registered").dispatcher;
        let running = tokio::spawn(async move {
            let mut ctx = ExecContext::new("pc1", "shell");
            ctx.deadline = DEADLINE;
            dispatcher.execute(&ctx, commands).await
        });
        // The fault lands somewhere in the batch: before, between or during the markers.
        tokio::time::sleep(Duration::from_millis(((round * 37) % 300) as u64)).await;
        match fault {
            Fault::None => {}
            Fault::Kill => {
                figures.kills += 1;
                kill_group(device.pid());
            }
            Fault::Pause => {
                figures.pauses += 1;
                signal_group(device.pid(), Signal::STOP);
            }
        }
        let results = running.await.unwrap();
        figures.batches += 1;
        match fault {
            Fault::None => {}
            Fault::Kill => {
                drop(device);
                device = client(&url, data.path(), &tools);
            }
            Fault::Pause => signal_group(device.pid(), Signal::CONT),
        }
        wait_registered(&registry).await;
        // Let a resumed or reconnected device settle, then count again: nothing may re-run.
        tokio::time::sleep(Duration::from_millis(300)).await;
        judge(&mut figures, &dirs, &results);
    }
    stop.cancel();
    let f = figures;
    println!();
    println!(
        "device link under faults — a real `deft client` over loopback, {} s",
        started.elapsed().as_secs()
    );
    println!(
        "  batches                              {:>6}  ({} killed mid-batch, {} paused past the deadline)",
        f.batches, f.kills, f.pauses
    );
    println!(
        "  marker commands                      {:>6}  ({} ran on the device)",
        f.markers, f.ran
    );
    println!(
        "  ran twice                            {:>6}  (target 0)",
        f.doubled
    );
    println!(
        "  reported \"not executed\"/\"success\" against the facts {:>3}  (target 0)",
        f.misreported
    );
    println!("  reported \"may have run\"              {:>6}", f.unknown);
    println!(
        "  of which had run and finished (lost) {:>6}  (at most the command in flight at each fault)",
        f.lost
    );
}
