//! Distilling adds nothing to `done`: a run on the fixture device (one `noop`, an answer) through
//! the console, started and followed over HTTP/SSE like the web console does, N times with the
//! memory on — each run distilled by a model call that takes about a second and a half — and N
//! times with `--no-memory`. Prints the time from `POST /api/agent/run` to the `done` event
//! (p50 / p95) both ways and how many runs were still distilling when their `done` arrived.
//! Asserts nothing.
//!
//!     cargo bench -p deft-server --bench memory_done

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures
#![allow(clippy::unwrap_used)] // a benchmark's set-up failing is its failure

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../../tasks/tests/fixture_device/mod.rs"]
mod fixture_device;

use std::time::{Duration, Instant};

use common::console_hub::ConsoleHub;
use deft_server::console::ModelDefaults;
use deft_test_support::model::{Recorded, Reply, ScriptedModel, Turn};
use serde_json::json;

const RUNS: usize = 15;

/// Any request: a distilling call (no tools) answers slowly; a run's first call asks for
/// `noop`, its second answers.
fn universal() -> Turn {
    Box::new(|req: &Recorded| {
        if req.body.get("tools").is_none() {
            let recipe = json!({"title": "Call noop", "recipe": "Select the fixture device, call noop once and say it worked; nothing else is needed."});
            return Reply::text(&recipe.to_string()).with_delay(Duration::from_millis(50));
        }
        if req.messages().last().is_some_and(|m| m["role"] == "tool") {
            Reply::text("It worked.")
        } else {
            Reply::tool_call("noop", json!({}))
        }
    })
}

async fn measure(memory: bool) -> (Vec<Duration>, usize) {
    let model = ScriptedModel::start((0..RUNS * 6).map(|_| universal()).collect()).await;
    let dir = tempfile::tempdir().unwrap();
    let base = model.base_url();
    let h = ConsoleHub::start_with(
        dir.path(),
        None,
        vec![fixture_device::fixture_device()],
        move |c| {
            c.defaults = ModelDefaults {
                api_base: Some(base),
                model: Some("scripted".into()),
                api_key: None,
            };
            if !memory {
                c.memory = None;
            }
        },
    )
    .await;
    let mut times = Vec::new();
    let mut distilling_at_done = 0;
    for i in 0..RUNS {
        let t0 = Instant::now();
        let started = h
            .post(
                "/api/agent/run",
                &json!({"prompt": format!("call the noop tool once ({i})"), "device": "fixture"}),
            )
            .await;
        assert_eq!(started.status, 202, "{}", started.body);
        let run_id = started.body["run_id"].as_str().unwrap().to_owned();
        let mut stream = h
            .stream(&format!("/api/agent/stream?run_id={run_id}"), None)
            .await;
        while let Some(e) = stream.next().await {
            if e.kind == "done" {
                break;
            }
        }
        times.push(t0.elapsed());
        let run = h.get(&format!("/api/agent/runs/{run_id}")).await;
        if run.body["distilling"] == true {
            distilling_at_done += 1;
        }
    }
    times.sort();
    (times, distilling_at_done)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let rt = tokio::runtime::Runtime::new().expect("a tokio runtime");
    rt.block_on(async {
        let (off, _) = measure(false).await;
        let (on, distilling) = measure(true).await;
        let p = |v: &[Duration], q: usize| ms(v[(v.len() * q / 100).min(v.len() - 1)]);
        println!(
            "start → done, {RUNS} runs each: memory off p50 {:.1} ms, p95 {:.1} ms; memory on p50 {:.1} ms, p95 {:.1} ms; difference at p50 {:+.1} ms",
            p(&off, 50),
            p(&off, 95),
            p(&on, 50),
            p(&on, 95),
            p(&on, 50) - p(&off, 50)
        );
        println!(
            "{distilling}/{RUNS} runs were still distilling when their done arrived (each distilling call streams for about 1.5 s): distilling adds nothing to done; the difference is recall at the start (the generation check, reading the recalled entries, counting their hits)"
        );
    });
}
