//! The pipeline end to end on a real app that is not an office suite — Mousepad on the managed
//! desktop, added by the config's APPS — so the stages are shown to depend only on the device's
//! tools: the model chooses the template by the task's text, the plan's control is found by its
//! value through `find_controls`, the edit is typed and saved for real, and the result lands in
//! its bucket with every schema field; a step whose control is not there fails the plan without
//! saving the document. (An app that dies mid-plan: `office_crash.rs`.)

#![allow(clippy::unwrap_used)] // helpers outside #[test] functions: a failed set-up is a failed test

mod common;

use common::{Stage, desktop, pipeline, rule, scripted};
use deft_dataflow::Mode;
use deft_dataflow::pipeline::TaskStatus;
use deft_test_support::model::Recorded;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const TASK: &str = "Add a line saying deft was here to the notes";

fn plan(control_text: &str) -> String {
    json!({
        "Observation": "Mousepad shows two lines.",
        "Thought": "Replace the text with the same lines plus one.",
        "New_task": "Add the line 'deft was here' after 'beta line' in the notes.",
        "Actions_plan": [
            {"Step": 1, "Subtask": "Add the line", "ControlLabel": "8", "ControlText": control_text,
             "Function": "set_edit_text", "Args": {"text": "alpha line\\nbeta line\\ndeft was here\\n"}}
        ]
    })
    .to_string()
}

fn rules(control_text: &str) -> Vec<deft_test_support::model::Route> {
    vec![
        // The template answer comes in a fence with chatter around it.
        rule(
            Stage::Template,
            TASK,
            "Sure.\n```json\n{\"alpha.txt\": \"it has the lines to add to\"}\n```\nDone.",
        ),
        rule(Stage::Prefill, TASK, &plan(control_text)),
        rule(
            Stage::Judge,
            "deft was here",
            r#"{"judge": true, "thought": "Mousepad alone can do it.", "type": "None"}"#,
        ),
        rule(
            Stage::Eval,
            TASK,
            r#"{"reason": "The line is there.", "sub_scores": [{"name": "line added", "evaluation": "yes"}], "complete": "yes"}"#,
        ),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dataflow_task_edits_a_real_document_and_files_a_schema_valid_pass() {
    let ws = common::workspace("MATCH_STRATEGY: contains\n");
    let file = ws.task(
        "add.json",
        &json!({"app": "notes", "unique_id": 3, "task": TASK,
        "refined_steps": ["Click at the end of the text", "Type the line"]}),
    );
    let model = scripted(rules("alpha line"), 10).await;
    let desk = desktop("desk-1").await;
    let p = pipeline(&ws, &model, Mode::Dataflow, false);
    let out = p
        .run_task(&file, &desk.device, CancellationToken::new())
        .await;

    let TaskStatus::Saved { bucket, path } = &out.status else {
        panic!("{out:#?}")
    };
    assert_eq!(bucket.as_str(), "execution_pass", "{out:#?}");
    assert!(out.violations.is_empty(), "{:#?}", out.violations);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let result: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(result["unique_id"], "3");
    assert_eq!(result["original"]["original_steps"][1], "Type the line");
    let inst = &result["instantiation_result"];
    assert_eq!(
        inst["choose_template"]["result"],
        "results/saved_document/add.txt"
    );
    assert_eq!(
        inst["choose_template"]["template"],
        "templates/notes/alpha.txt"
    );
    let step = &inst["prefill"]["result"]["instantiated_plan"][0];
    assert_eq!(step["Success"], true);
    assert_eq!(step["MatchedControlText"], "alpha line\nbeta line\n");
    assert_eq!(
        step["MatchNote"],
        "the control matched holds 'alpha line' inside its longer text 'alpha line\nbeta line'",
        "the step's text is not the whole text of the control it matched"
    );
    assert!(
        step["ControlLabel"]
            .as_str()
            .is_some_and(|id| !id.is_empty()),
        "{step}"
    );
    assert_eq!(result["execution_result"]["result"]["complete"], "yes");
    assert_eq!(
        result["execution_result"]["result"]["sub_scores"],
        json!({"line added": "yes"})
    );
    for stage in [
        "choose_template",
        "prefill",
        "instantiation_evaluation",
        "execute",
        "execute_eval",
        "total",
    ] {
        assert!(
            result["time_cost"][stage].is_number(),
            "{stage}: {}",
            result["time_cost"]
        );
    }

    // The document changed on disk: the copy, not the template.
    let saved = ws.path().join("results/saved_document/add.txt");
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap(),
        "alpha line\nbeta line\ndeft was here\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join("templates/notes/alpha.txt")).unwrap(),
        "alpha line\nbeta line\n"
    );

    check_prompts(&model.requests());
    check_log(&out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_whose_control_is_missing_fails_the_plan_and_leaves_the_document_unsaved() {
    let ws = common::workspace("MATCH_STRATEGY: contains\n");
    let file = ws.task("add.json", &json!({"app": "Notes", "task": TASK}));
    let mut plan_rules = rules("alpha line");
    let broken = json!({
        "New_task": "Add the line 'deft was here' after 'beta line' in the notes.",
        "Actions_plan": [
            {"Step": 1, "Subtask": "Add the line", "ControlText": "alpha line",
             "Function": "set_edit_text", "Args": {"text": "changed\\n"}},
            {"Step": 2, "Subtask": "Press a button", "ControlText": "Make it so",
             "Function": "click_input", "Args": {}},
            {"Step": 3, "Subtask": "Never run", "ControlText": "", "Function": "keyboard_input", "Args": {"keys": "x"}}
        ]
    });
    plan_rules[1] = rule(Stage::Prefill, TASK, &broken.to_string());
    let model = scripted(plan_rules, 10).await;
    let desk = desktop("desk-1").await;
    let p = pipeline(&ws, &model, Mode::Dataflow, false);
    let out = p
        .run_task(&file, &desk.device, CancellationToken::new())
        .await;

    let TaskStatus::Saved { bucket, path } = &out.status else {
        panic!("{out:#?}")
    };
    assert_eq!(bucket.as_str(), "execution_fail");
    assert!(out.violations.is_empty(), "{:#?}", out.violations);
    let result: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let steps = &result["instantiation_result"]["prefill"]["result"]["instantiated_plan"];
    assert_eq!(steps[0]["Success"], true);
    assert_eq!(steps[1]["Success"], false);
    assert!(steps[1]["MatchedControlText"].is_null());
    assert!(steps[2]["Success"].is_null() && steps[2]["MatchedControlText"].is_null());
    let error = &result["execution_result"]["error"];
    assert_eq!(error["type"], "ExecutionError");
    assert_eq!(
        error["message"],
        "Step 2 execution failed: Control with text 'Make it so' not found (MATCH_STRATEGY contains)"
    );
    assert_eq!(
        error["traceback"],
        "execute › step 2: click_input on \"Make it so\""
    );
    assert!(result["execution_result"]["result"].is_null());
    assert!(
        result["time_cost"]["execute"].is_number() && result["time_cost"]["execute_eval"].is_null()
    );
    // No evaluation was asked, and the edit of step 1 was not saved.
    assert_eq!(model.requests().len(), 3);
    let saved = ws.path().join("results/saved_document/add.txt");
    assert_eq!(
        std::fs::read_to_string(saved).unwrap(),
        "alpha line\nbeta line\n"
    );
}

/// Under `fuzzy`, the menu "View" scores 100 against "Quarterly Review" as the text that is
/// exactly "Quarterly Review" does, and comes first in document order: the exact text must win,
/// and a step whose control text is empty acts on the window (keys to what has the focus).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exact_text_beats_a_partial_one_and_an_empty_control_text_means_the_window() {
    let ws = common::workspace("MATCH_STRATEGY: fuzzy\n");
    std::fs::write(
        ws.path().join("templates/notes/alpha.txt"),
        "Quarterly Review\n",
    )
    .unwrap();
    let file = ws.task("review.json", &json!({"app": "Notes", "task": TASK}));
    let mut plan_rules = rules("unused");
    let plan = json!({
        "New_task": "Add the line 'deft was here' after 'Quarterly Review' in the notes.",
        "Actions_plan": [
            {"Step": 1, "Subtask": "Put the cursor in the text", "ControlText": "Quarterly Review",
             "Function": "click_input", "Args": {}},
            {"Step": 2, "Subtask": "Type the line", "ControlText": "", "Function": "keyboard_input",
             "Args": {"keys": "^{END}deft was here"}}
        ]
    });
    plan_rules[1] = rule(Stage::Prefill, TASK, &plan.to_string());
    let model = scripted(plan_rules, 10).await;
    let desk = desktop("desk-1").await;
    let p = pipeline(&ws, &model, Mode::Dataflow, false);
    let out = p
        .run_task(&file, &desk.device, CancellationToken::new())
        .await;

    let TaskStatus::Saved { bucket, path } = &out.status else {
        panic!("{out:#?}")
    };
    let result: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let steps = &result["instantiation_result"]["prefill"]["result"]["instantiated_plan"];
    assert_eq!(bucket.as_str(), "execution_pass", "{result:#}");
    assert_eq!(steps[0]["Success"], true);
    assert_eq!(
        steps[0]["MatchedControlText"], "Quarterly Review\n",
        "{steps}"
    );
    assert!(
        steps[0].get("MatchNote").is_none(),
        "an exact match: {steps}"
    );
    assert_eq!(steps[1]["Success"], true, "{steps}");
    assert!(steps[1]["MatchedControlText"].is_null());
    let saved =
        std::fs::read_to_string(ws.path().join("results/saved_document/review.txt")).unwrap();
    assert_eq!(saved.trim_end(), "Quarterly Review\ndeft was here");
}

/// What the model was shown: the templates, the task, the listing and tools, the screenshots,
/// the step log.
fn check_prompts(requests: &[Recorded]) {
    let texts: Vec<String> = requests.iter().map(Recorded::text).collect();
    assert_eq!(requests.len(), 4, "{texts:#?}");
    assert!(
        texts[0].contains("alpha.txt: Two lines of text")
            && texts[0].contains("list.txt: A shopping list.")
    );
    assert!(texts[1].contains("<Given Task:> Add a line") && texts[1].contains("Type the line"));
    assert!(
        texts[1].contains("edit \"\" = \"alpha line"),
        "the listing: {}",
        texts[1]
    );
    assert!(
        texts[1].contains("set_edit_text(") && !texts[1].contains("run_shell"),
        "the tools: {}",
        texts[1]
    );
    assert_eq!(requests[1].image_count(), 1, "prefill sees the screenshot");
    assert!(
        texts[3].contains("1. Add the line — set_edit_text(") && texts[3].contains(": succeeded"),
        "{}",
        texts[3]
    );
    assert_eq!(
        requests[3].image_count(),
        1,
        "the evaluation sees the final screenshot"
    );
}

/// The task's log: a report and one line per event.
fn check_log(out: &deft_dataflow::TaskOutcome) {
    let report = out.report.clone().unwrap();
    assert!(
        report.ends_with("logs/add/dataflow/report.html"),
        "{}",
        report.display()
    );
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("execute.steps[1]") && html.contains("execution_pass"));
    let calls: Vec<Value> = std::fs::read_to_string(report.with_file_name("model.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let stages: Vec<&str> = calls.iter().map(|c| c["stage"].as_str().unwrap()).collect();
    assert_eq!(
        stages,
        [
            "choose_template",
            "prefill",
            "instantiation_evaluation",
            "execute_eval"
        ]
    );
    let image = &calls[1]["messages"][1]["content"][1]["image_url"]["url"];
    assert!(
        image.as_str().unwrap().starts_with("(an image, "),
        "{image}"
    );
    let listed = std::fs::read_to_string(report.with_file_name("trace.jsonl")).unwrap();
    assert!(
        listed.contains("\"result\":[\"click_input\","),
        "list_tools is logged by name"
    );
    let jsonl = listed;
    assert!(jsonl.lines().count() > 20);
    assert!(
        out.model_time > std::time::Duration::ZERO && out.tool_time > std::time::Duration::ZERO
    );
}
