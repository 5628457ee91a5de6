//! An idle fleet's CPU (the fleet issue's target: ≤ 1 % of one core per server): three real
//! `deft serve` processes (release binary, `--no-desktop --no-memory`, no phones, default
//! lease of 10 s, so a beat every 2 s) on one scratch database of the test PostgreSQL
//! (`DEFT_TEST_DATABASE_URL`), with 100 devices spread over them — real `DeviceClient`s (the
//! `deft client` loop with its default 15 s heartbeat) in this process, over loopback
//! WebSockets. Once `GET /api/fleet` shows every device held, nothing is asked for [`IDLE`]:
//! each server's CPU time (utime + stime from `/proc/PID/stat`) over that span as a share of
//! one core, the device clients' (this process) and the scratch database's PostgreSQL
//! backends'.
//!
//! Prints the figures; asserts nothing (timings are not tests).
//!
//!     cargo bench -p deft --bench fleet_idle

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures
#![allow(clippy::unwrap_used)] // a benchmark's set-up failing is its failure

#[path = "../tests/common/console.rs"]
mod support;

#[path = "fleet/device.rs"]
mod device;

// The console benchmark's process helpers; this one reads CPU time only.
#[allow(dead_code)]
#[path = "console/serve_process.rs"]
mod serve_process;

use std::path::Path;
use std::time::{Duration, Instant};

use deft_link::DeviceClient;
use deft_test_support::TempDataDir;
use deft_test_support::postgres::with_scratch_database;
use device::{device, dispatcher};
use serde_json::Value;
use serve_process::cpu_time;
use support::{Serve, ServeOptions};
use tokio_util::sync::CancellationToken;

/// Servers of the fleet.
const SERVERS: usize = 3;
/// Devices, connected round-robin to the servers.
const DEVICES: usize = 100;
/// How long the idle fleet is measured.
const IDLE: Duration = Duration::from_secs(20);
/// The servers' routing table: the shell only (no tool server to start).
const SHELL_TABLE: &str = "profiles:\n  shell:\n    HostAgent:\n      default:\n        data_collection:\n          - {namespace: shell, type: builtin, name: shell, tools: [get_system_info]}\n        action:\n          - {namespace: shell, type: builtin, name: shell, tools: [run_shell]}\n";

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(with_scratch_database(bench));
}

async fn bench(database: String) {
    let dirs: Vec<TempDataDir> = (0..SERVERS).map(|_| TempDataDir::new().unwrap()).collect();
    let servers: Vec<Serve> = dirs
        .iter()
        .enumerate()
        .map(|(i, dir)| {
            let opts = options(dir.path(), &database, &name(i));
            tokio::task::block_in_place(|| Serve::start(dir.path(), &opts))
        })
        .collect();
    let stop = CancellationToken::new();
    let dispatcher = dispatcher();
    for i in 0..DEVICES {
        let url = servers[i % SERVERS].url.replacen("http://", "ws://", 1) + "/ws";
        let client = DeviceClient::new(
            device(&url, &format!("idle-{i:03}"), &format!("host-{i}")),
            dispatcher.clone(),
        );
        let stop = stop.clone();
        tokio::spawn(async move { client.run(stop).await });
    }
    let took = Instant::now();
    let held = until_held(&servers[0]).await;
    println!(
        "idle fleet: {SERVERS} servers, {DEVICES} devices held ({}) {:.1} s after the clients \
         started",
        held.join(", "),
        took.elapsed().as_secs_f64()
    );
    // One beat more, so the lease takes of the arrival are over.
    tokio::time::sleep(Duration::from_secs(3)).await;
    measure(&servers, &database).await;
    stop.cancel();
    drop(servers);
}

fn name(i: usize) -> String {
    ["a", "b", "c"]
        .get(i)
        .map_or(format!("s{i}"), |n| (*n).to_owned())
}

/// A fleet member called `name` on `database`, with the shell-only table.
fn options(dir: &Path, database: &str, name: &str) -> ServeOptions {
    let tools = dir.join("tools.yaml");
    std::fs::write(&tools, SHELL_TABLE).unwrap();
    ServeOptions {
        model_url: "http://127.0.0.1:9".into(),
        tools: Some(tools),
        desktop: false,
        admin_password: true,
        env: vec![
            ("DATABASE_URL".into(), database.into()),
            ("DEFT_FLEET_NAME".into(), name.into()),
            ("DEFT_NO_PHONES".into(), "1".into()),
        ],
        memory: false,
        bind: None,
    }
}

/// Asks `server` for the fleet until every device is held (60 s at most); how many each
/// server holds, by name.
async fn until_held(server: &Serve) -> Vec<String> {
    let api = server.api();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let view = api.get("/api/fleet").await.body;
        let per_server: Vec<(String, usize)> = view["servers"]
            .as_array()
            .map(|servers| {
                servers
                    .iter()
                    .map(|s| {
                        let held = s["devices"].as_array().map_or(0, |d| {
                            d.iter().filter(|d| is_bench_device(&d["id"])).count()
                        });
                        (s["name"].as_str().unwrap_or("?").to_owned(), held)
                    })
                    .collect()
            })
            .unwrap_or_default();
        if per_server.iter().map(|(_, n)| n).sum::<usize>() == DEVICES {
            return per_server
                .into_iter()
                .map(|(name, n)| format!("{name}: {n}"))
                .collect();
        }
        assert!(
            Instant::now() < deadline,
            "the fleet did not hold all {DEVICES} devices within 60 s: {view:#}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn is_bench_device(id: &Value) -> bool {
    id.as_str().is_some_and(|id| id.starts_with("idle-"))
}

/// CPU over [`IDLE`] of each server, this process and the database's backends; prints them.
async fn measure(servers: &[Serve], database: &str) {
    let pids: Vec<String> = servers.iter().map(|s| s.child.pid().to_string()).collect();
    let db_name = database.rsplit('/').next().unwrap_or_default().to_owned();
    let backends = backends_of(&db_name);
    let start = Instant::now();
    let before: Vec<Duration> = pids.iter().map(|p| cpu_time(p).unwrap()).collect();
    let me_before = cpu_time("self").unwrap();
    let pg_before = cpu_of(&backends);
    tokio::time::sleep(IDLE).await;
    let after: Vec<Duration> = pids.iter().map(|p| cpu_time(p).unwrap()).collect();
    let me_after = cpu_time("self").unwrap();
    let pg_after = cpu_of(&backends);
    let wall = start.elapsed().as_secs_f64();
    let share = |used: Duration| used.as_secs_f64() / wall * 100.0;
    let tick_ms = 1e3 / rustix::param::clock_ticks_per_second().max(1) as f64;
    println!(
        "idle fleet, CPU over {wall:.1} s (share of one core; CPU times are counted in \
         {tick_ms:.0} ms ticks):"
    );
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        let used = a.saturating_sub(*b);
        println!(
            "  server {} (pid {}): {:.2} %  ({:.0} ms CPU)  (target ≤ 1 %)",
            name(i),
            pids[i],
            share(used),
            used.as_secs_f64() * 1e3
        );
    }
    let used = me_after.saturating_sub(me_before);
    println!(
        "  the {DEVICES} device clients (this process, in-process DeviceClients): {:.2} %  ({:.0} \
         ms CPU)",
        share(used),
        used.as_secs_f64() * 1e3
    );
    let alive = pg_before
        .keys()
        .filter(|p| pg_after.contains_key(*p))
        .count();
    let used: Duration = pg_after
        .iter()
        .filter_map(|(pid, a)| pg_before.get(pid).map(|b| a.saturating_sub(*b)))
        .sum();
    println!(
        "  PostgreSQL backends of the scratch database ({alive} connections there throughout, \
         of {} at the start): {:.2} % together  ({:.0} ms CPU)",
        backends.len(),
        share(used),
        used.as_secs_f64() * 1e3
    );
}

/// The PostgreSQL backend processes connected to database `name` (their title names it).
fn backends_of(name: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|pid| pid.bytes().all(|b| b.is_ascii_digit()))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                let title = String::from_utf8_lossy(&c);
                title.starts_with("postgres:") && title.split_whitespace().any(|w| w == name)
            })
        })
        .collect()
}

/// CPU used so far by each of `pids` still there.
fn cpu_of(pids: &[String]) -> std::collections::HashMap<String, Duration> {
    pids.iter()
        .filter_map(|p| cpu_time(p).ok().map(|t| (p.clone(), t)))
        .collect()
}
