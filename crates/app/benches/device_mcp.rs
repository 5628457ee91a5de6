//! What a device's MCP endpoint costs beyond the tool layer: one no-op call straight through the
//! device's dispatcher, then the same call from an MCP client (rmcp, in-process duplex) through
//! `DeviceEndpoint` — the listing lookup, the approval rule, the device held, the recorded call —
//! without and with its trace folder; and `tools/list`. Prints p50/p99; asserts nothing.
//!
//!     cargo bench -p deft-app --bench device_mcp

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures
#![allow(clippy::unwrap_used)] // bench set-up: a failed unwrap is a failed run

use std::sync::Arc;
use std::time::{Duration, Instant};

use deft_app::device_mcp::{DeviceEndpoint, EndpointConfig};
use deft_protocol::{Command, ToolType};
use deft_test_support::fixture::FixtureServer;
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, Devices, ExecContext, LocalDispatcher, StaticDevices};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;

const CALLS: usize = 3_000;

fn device() -> Device {
    let yaml = "profiles:\n  bench:\n    HostAgent:\n      default:\n        action:\n          - {namespace: fx, type: builtin, name: fixture}\n";
    let mut r = BuiltinRegistry::new();
    r.register(Builtin::new("fixture", "bench", |_| {
        Ok(FixtureServer::new())
    }));
    let d = LocalDispatcher::new(
        Arc::new(RoutingTable::parse(yaml, "bench.yaml").unwrap()),
        Arc::new(r),
    );
    Device::new("bench", "bench", Arc::new(d))
}

fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    (at(0.50), at(0.99))
}

fn row(label: &str, samples: Vec<Duration>) -> Duration {
    let (p50, p99) = percentiles(samples);
    println!(
        "{label:<44} p50 {:>9.1} µs   p99 {:>9.1} µs",
        p50.as_secs_f64() * 1e6,
        p99.as_secs_f64() * 1e6
    );
    p50
}

async fn direct(device: &Device) -> Vec<Duration> {
    let ctx = ExecContext::new("bench", "bench");
    let cmd = || Command::new("noop", Some(ToolType::Action), serde_json::json!({}));
    for _ in 0..200 {
        device.dispatcher.execute(&ctx, vec![cmd()]).await;
    }
    let mut samples = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let t = Instant::now();
        device.dispatcher.execute(&ctx, vec![cmd()]).await;
        samples.push(t.elapsed());
    }
    samples
}

/// Calls and lists through an endpoint of `device`: (call samples, list samples).
async fn through_endpoint(
    device: Device,
    config: EndpointConfig,
) -> (Vec<Duration>, Vec<Duration>) {
    let devices: Arc<dyn Devices> = Arc::new(StaticDevices::new(vec![device]));
    let endpoint = DeviceEndpoint::new(devices, "bench", config);
    let (server_io, client_io) = tokio::io::duplex(256 * 1024);
    let handler = endpoint.handler();
    tokio::spawn(async move {
        if let Ok(s) = handler.serve(server_io).await {
            let _ = s.waiting().await;
        }
    });
    let client = ().serve(client_io).await.unwrap();
    for _ in 0..200 {
        let r = client
            .call_tool(CallToolRequestParams::new("noop"))
            .await
            .unwrap();
        assert_ne!(r.is_error, Some(true), "{r:?}");
    }
    let mut calls = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let t = Instant::now();
        client
            .call_tool(CallToolRequestParams::new("noop"))
            .await
            .unwrap();
        calls.push(t.elapsed());
    }
    let mut lists = Vec::with_capacity(1_000);
    for _ in 0..1_000 {
        let t = Instant::now();
        client.list_all_tools().await.unwrap();
        lists.push(t.elapsed());
    }
    client.cancel().await.unwrap();
    (calls, lists)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        println!("deft's device MCP endpoint: one no-op call ({CALLS} samples)\n");
        let base = row("dispatcher (the tool layer alone)", direct(&device()).await);
        let (calls, lists) = through_endpoint(device(), EndpointConfig::default()).await;
        let plain = row("MCP client → endpoint, no trace", calls);
        let traces = tempfile::tempdir().unwrap();
        let traced = EndpointConfig {
            trace_root: Some(traces.path().to_owned()),
            ..EndpointConfig::default()
        };
        let (calls_traced, _) = through_endpoint(device(), traced).await;
        let with_trace = row("MCP client → endpoint, trace folder", calls_traced);
        row("tools/list (cached listing)", lists);
        println!(
            "\nendpoint overhead beyond the tool layer: {:.1} µs p50 ({:.1} µs with the trace folder)",
            (plain.saturating_sub(base)).as_secs_f64() * 1e6,
            (with_trace.saturating_sub(base)).as_secs_f64() * 1e6
        );
    });
}
