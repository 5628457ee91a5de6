//! Runs over a folder on real devices (Mousepad on managed desktops): a stopped run keeps every
//! finished result and saves nothing of the task it cut short, a rerun skips what exists and
//! does the rest, `force` runs a task again and adds to its total; two devices give the same
//! results as one.

#![allow(clippy::unwrap_used)] // helpers outside #[test] functions: a failed set-up is a failed test

mod common;

use std::sync::Arc;

use common::{Workspace, desktop, pipeline, scripted};
use deft_dataflow::pipeline::{Observer, TaskOutcome, TaskStatus};
use deft_dataflow::{Mode, Quiet};
use deft_test_support::model::Route;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

const WORDS: [&str; 4] = ["one", "two", "three", "four"];

/// Four tasks, each adding its word to the notes; every stage answered.
fn four_tasks(ws: &Workspace) -> Vec<Route> {
    ws.add_line_tasks(&WORDS.map(|w| (w, "yes")))
}

/// Stops the run the moment a given task starts.
struct StopAt {
    task: &'static str,
    cancel: CancellationToken,
}

impl Observer for StopAt {
    fn started(&self, task: &str, _device: &str) {
        if task == self.task {
            self.cancel.cancel();
        }
    }
}

fn statuses(outcomes: &[TaskOutcome]) -> Vec<(String, &'static str)> {
    outcomes
        .iter()
        .map(|o| {
            let s = match &o.status {
                TaskStatus::Saved { .. } => "saved",
                TaskStatus::Skipped { .. } => "skipped",
                TaskStatus::Interrupted => "interrupted",
                TaskStatus::NotSaved(_) => "not saved",
            };
            (o.name.clone(), s)
        })
        .collect()
}

fn names(pairs: &[(&str, &'static str)]) -> Vec<(String, &'static str)> {
    pairs.iter().map(|(n, s)| ((*n).to_owned(), *s)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_run_keeps_what_finished_and_a_rerun_does_the_rest() {
    let ws = common::workspace("REFORMAT_TO_BATCH: false\n");
    let model = scripted(four_tasks(&ws), 40).await;
    let desk = desktop("desk-1").await;
    let files = deft_dataflow::task::task_files(&ws.path().join("tasks")).unwrap();
    // Files in name order: four, one, three, two. Stop while "three" runs.
    let cancel = CancellationToken::new();
    let stop = Arc::new(StopAt {
        task: "three",
        cancel: cancel.clone(),
    });
    let p = pipeline(&ws, &model, Mode::Dataflow, false);
    let first = p
        .run(files.clone(), vec![desk.device.clone()], stop, cancel)
        .await;
    assert!(first.interrupted && first.reformatted.is_none());
    assert_eq!(
        statuses(&first.outcomes),
        names(&[
            ("four", "saved"),
            ("one", "saved"),
            ("three", "interrupted")
        ])
    );
    let kept = ws.results("dataflow");
    assert_eq!(
        kept.keys().collect::<Vec<_>>(),
        ["execution_pass/four.json", "execution_pass/one.json"]
    );
    assert!(
        first.outcomes[2].report.is_some(),
        "the cut task's log says it was stopped"
    );

    // The rerun skips the two, does the other two; the kept results are untouched.
    let second = p
        .run(
            files.clone(),
            vec![desk.device.clone()],
            Arc::new(Quiet),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(
        statuses(&second.outcomes),
        names(&[
            ("four", "skipped"),
            ("one", "skipped"),
            ("three", "saved"),
            ("two", "saved")
        ])
    );
    let after = ws.results("dataflow");
    assert_eq!(after.len(), 4);
    assert_eq!(
        after["execution_pass/one.json"],
        kept["execution_pass/one.json"]
    );
    let text = std::fs::read_to_string(ws.path().join("results/saved_document/three.txt")).unwrap();
    assert_eq!(text, "alpha line\nbeta line\nthree\n");

    // Forced, a task runs again and its total adds to the old one.
    let before = after["execution_pass/one.json"]["time_cost"]["total"]
        .as_f64()
        .unwrap();
    let forced = pipeline(&ws, &model, Mode::Dataflow, true);
    let one = ws.path().join("tasks/one.json");
    let out = forced
        .run_task(&one, &desk.device, CancellationToken::new())
        .await;
    assert!(matches!(out.status, TaskStatus::Saved { .. }), "{out:#?}");
    let again = &ws.results("dataflow")["execution_pass/one.json"];
    let total = again["time_cost"]["total"].as_f64().unwrap();
    assert!(
        total > before + again["time_cost"]["execute"].as_f64().unwrap(),
        "{before} → {total}"
    );
}

/// A result with what differs between runs taken out: times, control ids (ids are the device
/// session's) — the rest must be the same byte for byte.
fn comparable(mut v: Value) -> Value {
    v["time_cost"] = Value::Null;
    if let Some(steps) = v
        .pointer_mut("/instantiation_result/prefill/result/instantiated_plan")
        .and_then(Value::as_array_mut)
    {
        for s in steps {
            assert!(
                s["ControlLabel"].as_str().is_some_and(|id| !id.is_empty()),
                "{s}"
            );
            s["ControlLabel"] = Value::Null;
        }
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_devices_give_the_results_of_one() {
    let serial = common::workspace("");
    let parallel = common::workspace("");
    let model = scripted(four_tasks(&serial), 40).await;
    four_tasks(&parallel);
    let (a, b) = tokio::join!(desktop("desk-a"), desktop("desk-b"));
    let run = |ws: &Workspace, devices: Vec<deft_tools::Device>| {
        let p = pipeline(ws, &model, Mode::Dataflow, false);
        let files = deft_dataflow::task::task_files(&ws.path().join("tasks")).unwrap();
        async move {
            p.run(files, devices, Arc::new(Quiet), CancellationToken::new())
                .await
        }
    };
    let one = run(&serial, vec![a.device.clone()]).await;
    let two = run(&parallel, vec![a.device.clone(), b.device.clone()]).await;
    let used: std::collections::BTreeSet<&str> =
        two.outcomes.iter().map(|o| o.device.as_str()).collect();
    assert_eq!(
        used.len(),
        2,
        "both devices ran tasks: {:?}",
        statuses(&two.outcomes)
    );
    assert_eq!(statuses(&one.outcomes), statuses(&two.outcomes));
    let (r1, r2) = (serial.results("dataflow"), parallel.results("dataflow"));
    assert_eq!(r1.keys().collect::<Vec<_>>(), r2.keys().collect::<Vec<_>>());
    assert_eq!(r1.len(), 4);
    for (k, v) in &r1 {
        assert_eq!(comparable(v.clone()), comparable(r2[k].clone()), "{k}");
    }
    for word in WORDS {
        let doc = |ws: &Workspace| {
            std::fs::read(ws.path().join(format!("results/saved_document/{word}.txt"))).unwrap()
        };
        assert_eq!(doc(&serial), doc(&parallel), "{word}");
    }
    let batch = |ws: &Workspace| {
        std::fs::read_to_string(ws.path().join("datasUFO/tasks/two.json")).unwrap()
    };
    assert_eq!(batch(&serial), batch(&parallel));
}
