//! Bad input that stops a task before it reaches a device: a malformed task file, an unknown
//! app, a missing templates folder, a template answer that is not JSON, an execution-mode file
//! that was never instantiated. Each task gets a result with its error where the schema says
//! (a string in the instantiation stages, `{type, message, traceback}` in `execution_result`),
//! the run goes on with the next, and the summary counts them as failed.

#![allow(clippy::unwrap_used)] // helpers outside #[test] functions: a failed set-up is a failed test

mod common;

use common::{Stage, Workspace, pipeline, rule, run_folder, scripted, unreachable_device};
use deft_dataflow::Mode;
use deft_dataflow::pipeline::TaskStatus;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn bad_tasks(ws: &Workspace) {
    std::fs::write(
        ws.path().join("tasks/a_broken.json"),
        "{\"app\": \"notes\", \"task\": ",
    )
    .unwrap();
    ws.task(
        "b_outlook.json",
        &json!({"app": "Outlook", "unique_id": "7", "task": "Send a mail"}),
    );
    ws.task(
        "c_no_templates.json",
        &json!({"app": "word", "task": "Make a table"}),
    );
    ws.task(
        "d_chatty.json",
        &json!({"app": "notes", "task": "Sort the shopping list"}),
    );
}

#[tokio::test]
async fn each_bad_task_gets_a_result_with_its_error_and_the_run_goes_on() {
    let ws = common::workspace("");
    bad_tasks(&ws);
    let model = scripted(
        vec![rule(
            Stage::Template,
            "Sort the shopping list",
            "I would pick the list, it has the items.",
        )],
        4,
    )
    .await;
    for mode in [Mode::Instantiation, Mode::Dataflow] {
        let p = pipeline(&ws, &model, mode, false);
        let summary = run_folder(&p, &ws.path().join("tasks"), vec![unreachable_device()]).await;
        assert_eq!(summary.outcomes.len(), 4);
        assert_eq!(summary.failed(), 4, "{:#?}", summary.outcomes);
        for o in &summary.outcomes {
            assert!(matches!(o.status, TaskStatus::Saved { .. }), "{o:#?}");
            assert!(o.violations.is_empty(), "{}: {:#?}", o.name, o.violations);
        }
        let results = ws.results(mode.as_str());
        let fail = if mode == Mode::Instantiation {
            "instantiation_fail"
        } else {
            "execution_fail"
        };
        let error = |name: &str| -> String {
            results[&format!("{fail}/{name}")]["instantiation_result"]["choose_template"]["error"]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: {:#}", results[&format!("{fail}/{name}")]))
                .to_owned()
        };
        assert!(
            error("a_broken.json").starts_with("TaskFileError: the task file "),
            "{}",
            error("a_broken.json")
        );
        assert!(error("a_broken.json").contains("not valid JSON"));
        assert!(error("b_outlook.json").starts_with(
            "UnknownApp: unknown app 'Outlook'; known apps: excel, notes, powerpoint, word"
        ));
        assert!(
            error("c_no_templates.json").starts_with("TemplateError: no templates folder "),
            "{}",
            error("c_no_templates.json")
        );
        assert!(error("c_no_templates.json").contains("templates/word"));
        assert!(
            error("d_chatty.json")
                .starts_with("ModelAnswerError: the model's answer holds no JSON object")
        );
        assert!(error("d_chatty.json").contains("I would pick the list"));
        let outlook = &results[&format!("{fail}/b_outlook.json")];
        assert_eq!(
            (outlook["unique_id"].as_str(), outlook["app"].as_str()),
            (Some("7"), Some("Outlook"))
        );
        if mode == Mode::Dataflow {
            assert_eq!(outlook["execution_result"]["error"]["type"], "NotExecuted");
        } else {
            assert!(outlook["execution_result"]["error"].is_null());
        }
        // A broken file still names its task: by the file name.
        assert_eq!(
            results[&format!("{fail}/a_broken.json")]["unique_id"],
            "a_broken"
        );
    }
}

#[tokio::test]
async fn execution_mode_refuses_a_file_that_was_never_instantiated() {
    let ws = common::workspace("");
    let plain = ws.task(
        "plain.json",
        &json!({"app": "notes", "task": "x", "refined_steps": []}),
    );
    let model = scripted(Vec::new(), 1).await;
    let p = pipeline(&ws, &model, Mode::Execution, false);
    let out = p
        .run_task(&plain, &unreachable_device(), CancellationToken::new())
        .await;
    let TaskStatus::Saved { bucket, path } = &out.status else {
        panic!("{out:#?}")
    };
    assert_eq!(bucket.as_str(), "execution_fail");
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let e = &v["execution_result"]["error"];
    assert_eq!(e["type"], "TaskFileError");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("the task file lacks original.original_task"),
        "{e}"
    );
    // The result keeps what the file had, and the schema's fields it lacked are the skeleton's.
    assert_eq!(v["task"], "x");
    assert_eq!(v["unique_id"], "plain");
    assert!(out.violations.is_empty(), "{:#?}", out.violations);
    assert!(model.requests().is_empty());
}
