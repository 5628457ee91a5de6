//! Agent overhead per step (everything but waiting for the model and the tools, trace writing
//! included, image conversion excluded), image downscale + encode of a 1280×1024 screenshot, and
//! peak RSS of a 40-step run with a screenshot per step. Prints figures; asserts nothing.
//!
//!     cargo bench -p deft-agent --bench agent

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures

use std::sync::Arc;
use std::time::{Duration, Instant};

use deft_agent::llm::{LlmClient, LlmConfig};
use deft_agent::{Agent, AgentConfig, ConfirmPolicy, RunIo, RunRequest};
use deft_test_support::fixture::{FixtureServer, screen_png};
use deft_test_support::model::{Reply, ScriptedModel, Turn};
use deft_tools::builtin::{Builtin, BuiltinRegistry};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, LocalDispatcher, StaticDevices};
use serde_json::json;

const TABLE: &str = "profiles:\n  bench:\n    HostAgent:\n      default:\n        action:\n          - {namespace: fx, type: builtin, name: fixture}\n";

fn device() -> (Device, Arc<StaticDevices>) {
    let mut r = BuiltinRegistry::new();
    r.register(Builtin::new("fixture", "bench", |_| {
        Ok(FixtureServer::new())
    }));
    let table = RoutingTable::parse(TABLE, "bench.yaml").unwrap_or_else(|e| panic!("{e}"));
    let d = Device::new(
        "local",
        "bench",
        Arc::new(LocalDispatcher::new(Arc::new(table), Arc::new(r))),
    );
    let all = Arc::new(StaticDevices::new(vec![d.clone()]));
    (d, all)
}

async fn run(
    steps: usize,
    tool: &str,
    args: serde_json::Value,
    trace_root: &std::path::Path,
) -> deft_agent::RunOutcome {
    let mut turns: Vec<Turn> = (0..steps)
        .map(|_| Reply::tool_call(tool, args.clone()).into())
        .collect();
    turns.push(Reply::text("done").into());
    let model = ScriptedModel::start(turns).await;
    let (d, all) = device();
    let llm = LlmClient::new(LlmConfig::new(&model.base_url(), "bench", None))
        .unwrap_or_else(|e| panic!("{e}"));
    let config = AgentConfig {
        confirm: ConfirmPolicy::none(),
        ..AgentConfig::default()
    }
    .with_max_steps(200);
    let agent = Agent::new(Arc::new(llm), config, all);
    let trace = Arc::new(
        deft_trace::TraceWriter::create(
            trace_root,
            &format!("bench-{tool}-{}", uuid()),
            deft_trace::TraceMeta {
                goal: "bench".into(),
                device: "local".into(),
                model: "bench".into(),
            },
        )
        .unwrap_or_else(|e| panic!("{e}")),
    );
    let mut io = RunIo::discard();
    io.events = vec![trace.clone()];
    io.images = trace.clone();
    agent
        .run(&d, RunRequest::new("bench"), io, Default::default())
        .await
}

fn uuid() -> String {
    format!("{:?}", Instant::now())
        .chars()
        .filter(char::is_ascii_digit)
        .collect()
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(str::to_owned)
        })
        .and_then(|l| {
            l.split_whitespace()
                .nth(1)
                .and_then(|k| k.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

const RSS_CHILD: &str = "DEFT_BENCH_RSS_CHILD";

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    if std::env::var_os(RSS_CHILD).is_some() {
        // Peak RSS of a 40-step run with a 1280×1024 screenshot per step, in a fresh process.
        rt.block_on(async {
            let out = run(40, "screenshot", json!({"width": 1280, "height": 1024}), dir.path()).await;
            println!(
                "40-step run with a 1280×1024 screenshot per step: {} model calls, peak RSS {:.1} MB (target ≤ 100 MB; the process also holds the scripted model server, which keeps every request, and the tool server)",
                out.steps,
                peak_rss_mb()
            );
        });
        return;
    }
    rt.block_on(async {
        // Overhead per step: 5 runs of 40 no-op steps.
        let mut per_step = Vec::new();
        for _ in 0..5 {
            let out = run(40, "noop", json!({}), dir.path()).await;
            let t = out.timings;
            let overhead = t.total.saturating_sub(t.model + t.tools + t.images);
            per_step.push(overhead / (out.steps.max(1)));
        }
        per_step.sort();
        println!("agent overhead per step (40-step runs, trace written): p50 {:.3} ms (target ≤ 2 ms)", per_step[2].as_secs_f64() * 1e3);

        // Image downscale + encode of a 1280×1024 PNG screenshot (and of a 2560×2048 one).
        for (w, h) in [(1280u32, 1024u32), (2560, 2048)] {
            let png = screen_png(w, h);
            let mut samples: Vec<Duration> = (0..30)
                .map(|_| {
                    let t = Instant::now();
                    let _ = deft_agent::downscale_for_model(&png, 1280, 80).unwrap_or_else(|e| panic!("{e}"));
                    t.elapsed()
                })
                .collect();
            samples.sort();
            println!("image to model JPEG, {w}×{h} PNG ({} KiB): p50 {:.1} ms (target ≤ 25 ms for 1280×1024)", png.len() / 1024, samples[15].as_secs_f64() * 1e3);
        }

    });
    let child =
        std::process::Command::new(std::env::current_exe().unwrap_or_else(|e| panic!("{e}")))
            .env(RSS_CHILD, "1")
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
    print!("{}", String::from_utf8_lossy(&child.stdout));
}
