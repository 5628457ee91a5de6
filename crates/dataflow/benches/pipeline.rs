//! The dataflow pipeline on real devices (managed desktops, Mousepad documents), with the scripted
//! model over HTTP. Prints, asserts nothing:
//!
//! - the pipeline's own time per task — wall time less the time inside model calls and device
//!   calls (the target: ≤ 0.5 s);
//! - throughput with one device and with two (`--jobs 1` / `--jobs 2`; target: two ≥ 1.5 × one),
//!   once with the model answering at once and once with 0.4 s per answer, as a fast hosted model.
//!
//!     cargo bench -p deft-dataflow --bench pipeline

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures
#![allow(clippy::unwrap_used)] // a failed set-up is a failed bench

#[path = "../tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Workspace, desktop, pipeline, workspace};
use deft_dataflow::{Mode, Quiet, RunSummary};
use deft_test_support::model::{Reply, Route, ScriptedModel, routed};
use tokio_util::sync::CancellationToken;

const TASKS: usize = 8;

/// `answer` streamed in one chunk, taking about `latency` (the stream has five lines).
fn reply(answer: &str, latency: Duration) -> Reply {
    let mut r = Reply::text(answer).with_delay(latency / 5);
    if let Reply::Stream(s) = &mut r {
        s.chunk_chars = usize::MAX;
    }
    r
}

/// `TASKS` tasks in `ws`, and the model's answers to them, each taking `latency`.
fn tasks(ws: &Workspace, latency: Duration) -> Vec<Route> {
    let words: Vec<String> = (0..TASKS).map(|i| format!("word{i:02}")).collect();
    let pairs: Vec<(&str, &str)> = words.iter().map(|w| (w.as_str(), "yes")).collect();
    ws.add_line_tasks(&pairs)
        .into_iter()
        .map(|mut r| {
            if let Reply::Stream(s) = &r.reply {
                r.reply = reply(&s.content, latency);
            }
            r
        })
        .collect()
}

async fn run(devices: &[deft_tools::Device], latency: Duration) -> RunSummary {
    let ws = workspace("REFORMAT_TO_BATCH: false\n");
    let model = ScriptedModel::start(routed(tasks(&ws, latency), TASKS * 4 + 4)).await;
    let p = pipeline(&ws, &model, Mode::Dataflow, false);
    let files = deft_dataflow::task::task_files(&ws.path().join("tasks")).unwrap();
    let s = p
        .run(
            files,
            devices.to_vec(),
            Arc::new(Quiet),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(
        s.count(deft_dataflow::Verdict::Pass),
        TASKS,
        "{:#?}",
        s.outcomes
    );
    s
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn overhead(s: &RunSummary) {
    let mut per: Vec<Duration> = s.outcomes.iter().map(|o| o.overhead()).collect();
    per.sort();
    let n = per.len() as f64;
    let mean = |f: &dyn Fn(&deft_dataflow::TaskOutcome) -> Duration| {
        s.outcomes.iter().map(|o| ms(f(o))).sum::<f64>() / n
    };
    println!(
        "per task ({TASKS} tasks, one device, model answering at once): wall {:.0} ms = model {:.0} ms + device {:.0} ms + pipeline {:.1} ms",
        mean(&|o| o.wall),
        mean(&|o| o.model_time),
        mean(&|o| o.tool_time),
        mean(&|o| o.overhead()),
    );
    let worst = per.last().copied().unwrap_or_default();
    println!(
        "pipeline overhead per task: p50 {:.1} ms, max {:.1} ms (target ≤ 500 ms: {})",
        ms(per[per.len() / 2]),
        ms(worst),
        if worst <= Duration::from_millis(500) {
            "met"
        } else {
            "MISSED"
        }
    );
}

fn main() {
    common::require(&[("mousepad", "mousepad")]);
    let rt = tokio::runtime::Runtime::new().expect("a tokio runtime");
    rt.block_on(async {
        let (a, b) = tokio::join!(desktop("desk-1"), desktop("desk-2"));
        // Warm both desktops (the first launch of an app pays for its caches).
        run(std::slice::from_ref(&a.device), Duration::ZERO).await;
        run(std::slice::from_ref(&b.device), Duration::ZERO).await;
        overhead(&run(std::slice::from_ref(&a.device), Duration::ZERO).await);
        for latency in [Duration::ZERO, Duration::from_millis(400)] {
            let mut per_min = Vec::new();
            for devices in [vec![a.device.clone()], vec![a.device.clone(), b.device.clone()]] {
                let started = Instant::now();
                let s = run(&devices, latency).await;
                let took = started.elapsed();
                let rate = TASKS as f64 / took.as_secs_f64() * 60.0;
                println!(
                    "--jobs {} (model {} ms per answer): {TASKS} tasks in {:.1} s = {rate:.1} tasks/min (mean model time per task {:.0} ms)",
                    devices.len(),
                    latency.as_millis(),
                    took.as_secs_f64(),
                    s.outcomes.iter().map(|o| ms(o.model_time)).sum::<f64>() / TASKS as f64,
                );
                per_min.push(rate);
            }
            let ratio = per_min[1] / per_min[0];
            println!(
                "  --jobs 2 / --jobs 1 = {ratio:.2}× (target ≥ 1.5×: {})",
                if ratio >= 1.5 { "met" } else { "MISSED" }
            );
        }
    });
}
