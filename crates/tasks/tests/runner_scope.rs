//! A run of part of a task (docs/tasks.md "Authoring: run to here") on the fixture device,
//! through the real tool layer: `until` ends the run after the chosen step — nested or not —
//! with nothing after it run or recorded; `only` runs one nested step alone; a path the task
//! does not have fails the run naming it.

mod fixture_device;

use deft_protocol::DoneStatus;
use deft_protocol::task_run::StepStatus;
use deft_tasks::runner::{RunRequest, Scope};
use fixture_device::{run_on_fixture, task};
use serde_json::json;

fn three_steps() -> deft_tasks::Task {
    task(json!({"name": "scoped", "steps": [
        {"type": "key_event", "keys": "a"},
        {"type": "group", "name": "g", "steps": [
            {"type": "key_event", "keys": "b"},
            {"type": "key_event", "keys": "c"}
        ]},
        {"type": "key_event", "keys": "d"},
    ]}))
}

fn scoped(scope: Scope) -> RunRequest {
    RunRequest {
        scope,
        ..RunRequest::default()
    }
}

fn paths(report: &deft_tasks::runner::RunReport) -> Vec<(String, StepStatus)> {
    report
        .steps
        .iter()
        .map(|s| (s.path.clone(), s.status))
        .collect()
}

#[tokio::test]
async fn until_a_top_level_step_runs_the_steps_before_it_and_stops_after_it() {
    let t = three_steps();
    let (report, _) = run_on_fixture(&t, &scoped(Scope::Until("steps[1]".into()))).await;
    assert_eq!(report.status, DoneStatus::Completed, "{}", report.message);
    let ok = StepStatus::Ok;
    assert_eq!(
        paths(&report),
        vec![
            ("steps[0]".into(), ok),
            ("steps[1].steps[0]".into(), ok),
            ("steps[1].steps[1]".into(), ok),
            ("steps[1]".into(), ok),
        ]
    );
    assert_eq!(report.calls, 3, "steps[2]'s key is never sent");
    assert_eq!(
        report.message,
        "4 ok, 0 failed, 0 skipped: ran up to and including steps[1]; the device is left as that step left it"
    );
}

#[tokio::test]
async fn until_a_nested_step_ends_its_container_and_the_run_there() {
    let t = three_steps();
    let (report, _) = run_on_fixture(&t, &scoped(Scope::Until("steps[1].steps[0]".into()))).await;
    assert_eq!(report.status, DoneStatus::Completed, "{}", report.message);
    let ok = StepStatus::Ok;
    assert_eq!(
        paths(&report),
        vec![
            ("steps[0]".into(), ok),
            ("steps[1].steps[0]".into(), ok),
            ("steps[1]".into(), ok),
        ],
        "nothing after steps[1].steps[0] runs, nor is recorded as skipped"
    );
    assert_eq!(report.calls, 2);
}

#[tokio::test]
async fn only_a_nested_step_runs_that_step_alone() {
    let t = three_steps();
    let (report, _) = run_on_fixture(&t, &scoped(Scope::Only("steps[1].steps[1]".into()))).await;
    assert_eq!(report.status, DoneStatus::Completed, "{}", report.message);
    assert_eq!(
        paths(&report),
        vec![("steps[1].steps[1]".into(), StepStatus::Ok)]
    );
    assert_eq!(report.calls, 1);
}

#[tokio::test]
async fn a_path_the_task_does_not_have_is_refused_naming_it() {
    let t = three_steps();
    assert_eq!(Scope::Until("steps[1]".into()).check(&t), Ok(()));
    assert_eq!(
        Scope::Only("steps[7].then[0]".into()).check(&t),
        Err("the task has no step at steps[7].then[0] (its top-level steps are steps[0] to steps[2]); give the path of one of its steps as the validator writes it, such as steps[1] or steps[2].then[0]".to_owned())
    );
    let (report, _) = run_on_fixture(&t, &scoped(Scope::Only("steps[9]".into()))).await;
    assert_eq!(report.status, DoneStatus::Failed);
    assert_eq!(report.calls, 0);
    assert!(
        report.message.contains("no step at steps[9]"),
        "{}",
        report.message
    );
}

#[tokio::test]
async fn until_a_step_inside_a_loop_ends_the_run_after_its_first_round() {
    let t = task(json!({"name": "looped", "steps": [
        {"type": "loop", "times": 3, "steps": [
            {"type": "group", "name": "g", "steps": [
                {"type": "key_event", "keys": "a"},
                {"type": "key_event", "keys": "b"}
            ]}
        ]},
        {"type": "key_event", "keys": "never"},
    ]}));
    let (report, _) = run_on_fixture(
        &t,
        &scoped(Scope::Until("steps[0].steps[0].steps[0]".into())),
    )
    .await;
    assert_eq!(report.status, DoneStatus::Completed, "{}", report.message);
    assert_eq!(report.calls, 1, "{:?}", paths(&report));
    assert_eq!(
        paths(&report)[0],
        ("steps[0].steps[0]#1.steps[0]".to_owned(), StepStatus::Ok)
    );
}
