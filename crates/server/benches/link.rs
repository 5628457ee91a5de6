//! The device link's speed: round trip of a one-command batch with a no-op tool over loopback
//! (p50, target ≤ 300 µs), commands/s with batches of 10 no-op commands across 4 devices
//! (target ≥ 10,000), and the server's RSS with 1,000 idle connected devices (target ≤ 100 MB;
//! the server runs in a separate process, the 1,000 connections come from this one).
//! Prints the figures; asserts nothing (timings are not tests).
//!
//!     cargo bench -p deft-server --bench link
//!
//! The devices of the first two parts are real `DeviceClient`s (the `deft client` loop) over
//! real WebSocket connections on loopback, running the fixture MCP server's `noop` through a
//! LocalDispatcher; the server side is a real `deft serve` listener driven through the device
//! registry's Remote dispatchers.

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures

use std::sync::Arc;
use std::time::{Duration, Instant};

use deft_link::{ClientConfig, DeviceClient};
use deft_protocol::link::{ClientMessage, ClientMessageType, TaskStatus};
use deft_protocol::{Command, ResultStatus, ToolType};
use deft_server::{Registry, Server, ServerConfig};
use deft_test_support::fixture::FixtureServer;
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Devices, ExecContext, LocalDispatcher};
use futures::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

const TOKEN: &str = "bench-device-token";
const SERVE_ENV: &str = "DEFT_LINK_BENCH_SERVE";

fn local_dispatcher() -> Arc<LocalDispatcher> {
    let yaml = "profiles:\n  bench:\n    HostAgent:\n      default:\n        action:\n          - {namespace: fixture, type: builtin, name: fixture}\n";
    let table = RoutingTable::parse(yaml, "bench.yaml").unwrap_or_else(|e| panic!("{e}"));
    let mut r = BuiltinRegistry::new();
    r.register(Builtin::new("fixture", "bench", |_| {
        Ok(FixtureServer::new())
    }));
    Arc::new(LocalDispatcher::new(Arc::new(table), Arc::new(r)))
}

async fn start_server(bind: &str) -> (String, Registry, CancellationToken) {
    let config = ServerConfig::new(bind.parse().expect("address"), TOKEN, "bench-api-token");
    let server = Server::bind(config).await.expect("bind");
    let url = format!("ws://{}/ws", server.local_addr());
    let registry = server.registry();
    let stop = CancellationToken::new();
    tokio::spawn(server.serve(stop.clone()));
    (url, registry, stop)
}

async fn start_device(url: &str, id: &str, stop: &CancellationToken, registry: &Registry) {
    let client = DeviceClient::new(
        ClientConfig::new(url, TOKEN, id, "bench"),
        local_dispatcher(),
    );
    let stop = stop.clone();
    tokio::spawn(async move { client.run(stop).await });
    while registry.get(id).is_none() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn noops(n: usize) -> Vec<Command> {
    (0..n)
        .map(|i| {
            Command::new("noop", Some(ToolType::Action), serde_json::json!({}))
                .with_call_id(format!("c{i}"))
        })
        .collect()
}

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

async fn round_trip(registry: &Registry) {
    let device = registry.get("rt").expect("device");
    let ctx = ExecContext::new("rt", "bench");
    for _ in 0..200 {
        device.dispatcher.execute(&ctx, noops(1)).await;
    }
    let mut samples = Vec::with_capacity(3000);
    for _ in 0..3000 {
        let t = Instant::now();
        let r = device.dispatcher.execute(&ctx, noops(1)).await;
        samples.push(t.elapsed());
        assert_eq!(r[0].status, ResultStatus::Success, "{r:?}");
    }
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "round trip, one no-op command over loopback: p50 {}  p90 {}  p99 {}  (target p50 ≤ 300 µs)",
        us(at(0.5)),
        us(at(0.9)),
        us(at(0.99))
    );
}

async fn throughput(registry: &Registry, ids: &[String]) {
    let run_for = Duration::from_secs(3);
    let start = Instant::now();
    let tasks: Vec<_> = ids
        .iter()
        .map(|id| {
            let device = registry.get(id).expect("device");
            let id = id.clone();
            tokio::spawn(async move {
                let ctx = ExecContext::new(&id, "bench");
                let mut done = 0usize;
                while start.elapsed() < run_for {
                    let r = device.dispatcher.execute(&ctx, noops(10)).await;
                    assert!(r.iter().all(|r| r.status == ResultStatus::Success));
                    done += r.len();
                }
                done
            })
        })
        .collect();
    let mut total = 0;
    for t in tasks {
        total += t.await.expect("task");
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "throughput, batches of 10 no-op commands across {} devices: {:.0} commands/s  (target ≥ 10,000)",
        ids.len(),
        total as f64 / secs
    );
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

async fn idle_devices_rss(n: usize) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port();
    let exe = std::env::current_exe().expect("current exe");
    let mut child = std::process::Command::new(exe)
        .env(SERVE_ENV, format!("127.0.0.1:{port}"))
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn the server process");
    let url = format!("ws://127.0.0.1:{port}/ws");
    let mut waited = 0;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += 1;
        assert!(waited < 500, "the server process did not listen");
    }
    let before = rss_kib(child.id());
    let mut sockets = Vec::with_capacity(n);
    for i in 0..n {
        let mut req =
            tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(
                url.as_str(),
            )
            .expect("request");
        req.headers_mut().insert(
            "authorization",
            format!("Bearer {TOKEN}").parse().expect("header"),
        );
        let (mut ws, _) = tokio_tungstenite::connect_async(req)
            .await
            .expect("connect");
        let mut m = ClientMessage::new(ClientMessageType::Register, TaskStatus::Ok);
        m.client_id = Some(format!("idle-{i:04}"));
        m.metadata = Some(
            serde_json::json!({"profile": "shell", "tools": ["shell"], "platform": "linux",
            "system_info": {"os": "Debian GNU/Linux 13", "cpus": 2, "memory_total_bytes": 25_000_000_000u64, "hostname": format!("host-{i}")}}),
        );
        ws.send(Message::text(serde_json::to_string(&m).expect("json")))
            .await
            .expect("register");
        let ack = ws.next().await;
        assert!(
            matches!(ack, Some(Ok(Message::Text(_)))),
            "no ack for device {i}: {ack:?}"
        );
        sockets.push(ws);
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = rss_kib(child.id());
    println!(
        "server RSS with {n} idle connected devices: {:.1} MB  (before: {:.1} MB; {:.1} KB per device; target ≤ 100 MB)",
        after as f64 / 1024.0,
        before as f64 / 1024.0,
        (after.saturating_sub(before)) as f64 / n as f64
    );
    drop(sockets);
    let _ = child.kill();
    let _ = child.wait();
}

fn main() {
    if let Ok(bind) = std::env::var(SERVE_ENV) {
        // The separate server process of the RSS part.
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let (_url, _registry, stop) = start_server(&bind).await;
            stop.cancelled().await;
        });
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let (url, registry, stop) = start_server("127.0.0.1:0").await;
        start_device(&url, "rt", &stop, &registry).await;
        round_trip(&registry).await;
        let ids: Vec<String> = (0..4).map(|i| format!("tp{i}")).collect();
        for id in &ids {
            start_device(&url, id, &stop, &registry).await;
        }
        throughput(&registry, &ids).await;
        stop.cancel();
        idle_devices_rss(1000).await;
    });
}
