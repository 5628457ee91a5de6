//! The runner's own cost per step: 1,000 key_event steps (a loop of 4 × 250, one tool call each) on
//! a device whose tools are the fixture server's, through the real tool layer. Prints the
//! whole run, the time inside tool calls and the overhead per step (target ≤ 1 ms). Asserts
//! nothing.
//!
//!     cargo bench -p deft-tasks --bench runner

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures

#[path = "../tests/fixture_device/mod.rs"]
mod fixture_device;

use deft_protocol::DoneStatus;
use deft_tasks::runner::{RunRequest, run_task};
use tokio_util::sync::CancellationToken;

fn main() {
    let rt = tokio::runtime::Runtime::new().expect("a tokio runtime");
    rt.block_on(async {
        let steps: Vec<_> = (0..250)
            .map(|i| serde_json::json!({"type": "key_event", "keys": format!("k{i}")}))
            .collect();
        let t = fixture_device::task(serde_json::json!({"name": "bench", "steps": [
            {"type": "loop", "times": 4, "steps": steps},
        ]}));
        let device = fixture_device::fixture_device();
        // Warm up: the fixture server starts on the first call.
        let warm = fixture_device::task(serde_json::json!({"name": "warm", "steps": [{"type": "key_event", "keys": "w"}]}));
        run_task(&warm, &device, &RunRequest::default(), deft_tasks::runner::RunSinks::null(), CancellationToken::new()).await;
        for round in 1..=3 {
            let (rec, sinks, _rx) = fixture_device::recorder();
            let r = run_task(&t, &device, &RunRequest::default(), sinks, CancellationToken::new()).await;
            assert_eq!(r.status, DoneStatus::Completed, "{}", r.message);
            let leaf = r.calls as f64;
            let overhead = r.total.saturating_sub(r.tool_time);
            println!(
                "round {round}: {} tool calls, {} events; total {:.1} ms, in tool calls {:.1} ms, runner overhead {:.1} µs per step",
                r.calls,
                rec.events.lock().len(),
                r.total.as_secs_f64() * 1e3,
                r.tool_time.as_secs_f64() * 1e3,
                overhead.as_secs_f64() * 1e6 / leaf,
            );
        }
    });
}
