//! Latency of one command through Dispatcher → Router → Computer → MCP server → back, for a
//! no-op tool on each transport (in-process builtin, stdio child, streamable HTTP), plus batch
//! throughput. Prints p50/p99; asserts nothing (timings are not tests).
//!
//!     cargo bench -p deft-tools --bench dispatch

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures

use std::sync::Arc;
use std::time::{Duration, Instant};

use deft_protocol::{Command, ResultStatus, ToolType};
use deft_test_support::fixture::FixtureServer;
use deft_test_support::proc::fixture_bin;
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Dispatcher, ExecContext, LocalDispatcher};
use rmcp::ServiceExt;

fn table(server: &str) -> RoutingTable {
    let yaml = format!(
        "profiles:\n  bench:\n    HostAgent:\n      default:\n        action:\n          - {server}\n"
    );
    RoutingTable::parse(&yaml, "bench.yaml").unwrap_or_else(|e| panic!("{e}"))
}

fn registry() -> Arc<BuiltinRegistry> {
    let mut r = BuiltinRegistry::new();
    r.register(Builtin::new("fixture", "bench", |_| {
        Ok(FixtureServer::new())
    }));
    Arc::new(r)
}

struct Stats {
    p50: Duration,
    p99: Duration,
    mean: Duration,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    let total: Duration = samples.iter().sum();
    Stats {
        p50: at(0.50),
        p99: at(0.99),
        mean: total / samples.len() as u32,
    }
}

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

async fn measure(d: &LocalDispatcher, batch_len: usize, iterations: usize) -> Stats {
    let ctx = ExecContext::new("local", "bench");
    let batch: Vec<Command> = (0..batch_len)
        .map(|i| {
            Command::new("noop", Some(ToolType::Action), serde_json::json!({}))
                .with_call_id(format!("c{i}"))
        })
        .collect();
    for _ in 0..200 {
        let r = d.execute(&ctx, batch.clone()).await;
        assert!(r.iter().all(|r| r.status == ResultStatus::Success), "{r:?}");
    }
    let mut samples = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let cmds = batch.clone();
        let t = Instant::now();
        let r = d.execute(&ctx, cmds).await;
        samples.push(t.elapsed());
        debug_assert_eq!(r.len(), batch_len);
    }
    stats(samples)
}

async fn rmcp_duplex_baseline(iterations: usize) -> Stats {
    let (server_io, client_io) = tokio::io::duplex(256 * 1024);
    tokio::spawn(async move {
        if let Ok(s) = FixtureServer::new().serve(server_io).await {
            let _ = s.waiting().await;
        }
    });
    let client = ().serve(client_io).await.unwrap_or_else(|e| panic!("{e}"));
    let call = || rmcp::model::CallToolRequestParams::new("noop");
    for _ in 0..200 {
        client
            .call_tool(call())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let mut samples = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let t = Instant::now();
        client
            .call_tool(call())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        samples.push(t.elapsed());
    }
    stats(samples)
}

fn row(label: &str, s: &Stats, target: &str) {
    println!(
        "{label:<34} p50 {:>10}  p99 {:>10}  mean {:>10}  {:>8.0} batches/s   target {target}",
        us(s.p50),
        us(s.p99),
        us(s.mean),
        1.0 / s.mean.as_secs_f64()
    );
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    rt.block_on(async {
        println!("deft tool layer: one no-op command per batch (Dispatcher → Router → Computer → server)\n");
        let baseline = rmcp_duplex_baseline(5_000).await;
        row("rmcp duplex call alone (reference)", &baseline, "-");

        let builtin = LocalDispatcher::new(
            Arc::new(table("{namespace: fx, type: builtin, name: fixture}")),
            registry(),
        );
        row("builtin in-process", &measure(&builtin, 1, 5_000).await, "≤ 47 µs p50");

        let stdio = LocalDispatcher::new(
            Arc::new(table(&format!(
                "{{namespace: fx, type: stdio, command: \"{}\"}}",
                fixture_bin().display()
            ))),
            registry(),
        );
        row("stdio child", &measure(&stdio, 1, 3_000).await, "≤ 300 µs p50");

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("{e}"));
        let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
        tokio::spawn(async move {
            let factory = Builtin::new("fixture", "bench", |_| Ok(FixtureServer::new()));
            let _ = deft_tools::host::serve_http(&factory, &serde_json::Value::Null, listener, None, std::future::pending()).await;
        });
        let http = LocalDispatcher::new(
            Arc::new(table(&format!("{{namespace: fx, type: http, url: \"http://{addr}/mcp\"}}"))),
            registry(),
        );
        row("streamable HTTP (loopback)", &measure(&http, 1, 2_000).await, "≤ 1 ms p50");

        println!("\nbatches of 10 no-op commands:");
        let b = measure(&builtin, 10, 1_000).await;
        row("builtin in-process ×10", &b, "-");
        println!("{:<34} {:.0} commands/s", "", 10.0 / b.mean.as_secs_f64());
        let s = measure(&stdio, 10, 500).await;
        row("stdio child ×10", &s, "-");
        println!("{:<34} {:.0} commands/s", "", 10.0 / s.mean.as_secs_f64());
    });
}
