//! LibreOffice killed in the middle of a plan (SIGKILL to `soffice.bin` as the plan's second
//! step starts): that task's result records the failed step and the error where the schema
//! says, nothing of it reaches its document, and the next task on the device runs in a
//! LibreOffice started again and passes. (Its own test binary: the office backend's UNO helper
//! belongs to the runtime of the test that started it.)

#![allow(clippy::unwrap_used)] // helpers outside #[test] functions: a failed set-up is a failed test

mod common;

use std::sync::Arc;

use common::{Stage, office_desktop, pipeline, rule, run_folder, scripted};
use deft_backend_office::Office;
use deft_dataflow::Mode;
use deft_dataflow::pipeline::TaskStatus;
use deft_protocol::{Command, CommandResult};
use deft_test_support::dataflow::{EXAMPLE_TOTALS, Workspace, example_answers};
use deft_test_support::office;
use deft_tools::{Device, Dispatcher, ExecContext};
use futures::future::BoxFuture;
use serde_json::{Value, json};

/// A dispatcher that kills LibreOffice when the first command for `tool` arrives, then passes
/// the command on: LibreOffice dies in the middle of a plan, at a step the test chooses.
struct KillAt {
    inner: Arc<dyn Dispatcher>,
    office: Arc<Office>,
    tool: &'static str,
    killed: parking_lot::Mutex<Option<u32>>,
}

impl Dispatcher for KillAt {
    fn execute<'a>(
        &'a self,
        ctx: &'a ExecContext,
        commands: Vec<Command>,
    ) -> BoxFuture<'a, Vec<CommandResult>> {
        Box::pin(async move {
            let first = self.killed.lock().is_none();
            if first && commands.iter().any(|c| c.tool_name == self.tool) {
                let pid = self.office.running().await.expect("LibreOffice runs").pid;
                deft_test_support::proc::signal_process(
                    pid as i32,
                    deft_test_support::proc::Signal::KILL,
                );
                *self.killed.lock() = Some(pid);
            }
            self.inner.execute(ctx, commands).await
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn libreoffice_killed_mid_plan_fails_that_task_and_the_next_one_passes() {
    let ws = Workspace::example().unwrap();
    for f in [
        "word_bullets.json",
        "word_font.json",
        "powerpoint_background.json",
    ] {
        std::fs::remove_file(ws.path().join("tasks").join(f)).unwrap();
    }
    ws.task(
        "crash.json",
        &json!({"app": "word", "task": "Make the report title bold and larger"}),
    );
    let mut rules = example_answers();
    rules.push(rule(
        Stage::Template,
        "title bold",
        r#"{"report.docx": "It has a title."}"#,
    ));
    let plan = json!({"New_task": "Make the title 'Project status report' bold and 20 points.",
        "Actions_plan": [
            {"Step": 1, "Subtask": "Select the title", "ControlText": "", "Function": "select_text",
             "Args": {"text": "Project status report"}},
            {"Step": 2, "Subtask": "Make it larger", "ControlText": "", "Function": "set_font",
             "Args": {"font_size": 20}},
            {"Step": 3, "Subtask": "Make it bold", "ControlText": "Bold", "Function": "click_input",
             "Args": {}}]});
    rules.push(rule(Stage::Prefill, "title bold", &plan.to_string()));
    rules.push(rule(
        Stage::Judge,
        "bold and 20 points",
        r#"{"judge": true, "thought": "Writer can.", "type": "None"}"#,
    ));
    let model = scripted(rules, 20).await;
    let (desk, office) = office_desktop("desk-1", ws.path()).await;
    let killer = Arc::new(KillAt {
        inner: desk.device.dispatcher.clone(),
        office: office.clone(),
        tool: "set_font",
        killed: parking_lot::Mutex::new(None),
    });
    let device = Device::new("desk-1", "desktop", killer.clone());
    let p = pipeline(&ws, &model, Mode::Dataflow, false);
    // Name order: crash first, then excel_totals on the same device.
    let summary = run_folder(&p, &ws.path().join("tasks"), vec![device]).await;

    let killed = killer.killed.lock().expect("LibreOffice was killed");
    let results = ws.results("dataflow");
    assert_eq!(
        results.keys().collect::<Vec<_>>(),
        [
            "execution_fail/crash.json",
            "execution_pass/excel_totals.json"
        ],
        "{:#?}",
        summary.outcomes
    );
    let crash = &results["execution_fail/crash.json"];
    let steps = &crash["instantiation_result"]["prefill"]["result"]["instantiated_plan"];
    assert_eq!(
        [0, 1, 2].map(|i| steps[i]["Success"].clone()),
        [json!(true), json!(false), Value::Null]
    );
    let error = &crash["execution_result"]["error"];
    assert_eq!(error["type"], "ExecutionError", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("Step 2 execution failed: "),
        "{error}"
    );
    assert_eq!(
        error["traceback"],
        "execute › step 2: set_font on the window"
    );
    assert!(crash["execution_result"]["result"].is_null());
    let outcome = &summary.outcomes[0];
    assert!(matches!(outcome.status, TaskStatus::Saved { .. }));
    // Nothing of the crashed task reached its document.
    let text = office::document_text(&ws.path().join("results/saved_document/crash.docx"));
    assert!(text.contains("Project status report"), "{text}");
    // The next task ran in a LibreOffice started again, and passed.
    let now = office.running().await.expect("LibreOffice runs again").pid;
    assert_ne!(now, killed);
    let csv = office::sheet_csv(&ws.path().join("results/saved_document/excel_totals.xlsx"));
    assert!(csv.lines().any(|l| l.starts_with(EXAMPLE_TOTALS)), "{csv}");
}
