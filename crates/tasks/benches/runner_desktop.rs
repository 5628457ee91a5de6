//! The calculator task replayed by the runner on the managed desktop (examples/tasks/
//! calculator.json: open gnome-calculator, 7 × 8 = by selectors, wait for 56, if_el, stop_app),
//! a few times on one device: the whole run against the time inside its tool calls (the
//! issue's target: total ≤ 1.5 × tool time). Prints, asserts nothing.
//!
//!     cargo bench -p deft-tasks --bench runner_desktop

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures

#[path = "../tests/desktop_device/mod.rs"]
mod desktop_device;
#[path = "../tests/fixture_device/mod.rs"]
mod fixture_device;

use deft_protocol::DoneStatus;
use deft_tasks::runner::{RunRequest, RunSinks, run_task};
use tokio_util::sync::CancellationToken;

const RUNS: usize = 5;

fn main() {
    desktop_device::require_apps(&[("gnome-calculator", "gnome-calculator")]);
    let rt = tokio::runtime::Runtime::new().expect("a tokio runtime");
    rt.block_on(async {
        let task = desktop_device::example("calculator.json");
        let desk = desktop_device::start().await;
        let mut ratios = Vec::new();
        for run in 1..=RUNS {
            let r = run_task(
                &task,
                &desk.device,
                &RunRequest::default(),
                RunSinks::null(),
                CancellationToken::new(),
            )
            .await;
            assert_eq!(r.status, DoneStatus::Completed, "{}", r.message);
            let total = r.total.as_secs_f64() * 1e3;
            let tools = r.tool_time.as_secs_f64() * 1e3;
            let ratio = total / tools;
            ratios.push(ratio);
            let steps: Vec<String> = r
                .steps
                .iter()
                .filter(|s| !s.path.contains('.'))
                .map(|s| format!("{} {} ms", s.step_type, s.duration_ms))
                .collect();
            println!(
                "run {run}: {} tool calls; total {total:.1} ms, in tool calls {tools:.1} ms, runner {:.2} ms; total / tool time = {ratio:.4} (target ≤ 1.5)\n  {}",
                r.calls,
                total - tools,
                steps.join(", ")
            );
        }
        ratios.sort_by(f64::total_cmp);
        println!(
            "{RUNS} runs: total / tool time median {:.4}, worst {:.4}",
            ratios[RUNS / 2],
            ratios[RUNS - 1]
        );
    });
}
