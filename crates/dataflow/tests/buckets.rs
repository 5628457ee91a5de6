//! Where results go, on a real app (Mousepad on the managed desktop): `complete` yes / no /
//! unsure / an unknown word / missing, `judge` false, a plan naming a tool the device does not
//! have — each into its bucket, a result that breaks its schema warned about and saved all the
//! same, and only the passed task reformatted to batch with its real extension. Then the
//! instantiation and execution modes one after the other: the execution run reads the
//! instantiation results and its `time_cost.total` adds to theirs.

#![allow(clippy::unwrap_used)] // helpers outside #[test] functions: a failed set-up is a failed test

mod common;

use common::{Stage, Workspace, desktop, pipeline, rule, run_folder, scripted};
use deft_dataflow::Mode;
use deft_dataflow::pipeline::TaskStatus;
use deft_test_support::model::Route;
use serde_json::{Value, json};

/// The rules of a task named by `word`: the plan edits the text; the judge and evaluation answer
/// as given.
fn task_rules(word: &str, judge: &str, eval: &str, function: &str) -> Vec<Route> {
    let plan = json!({
        "New_task": format!("Add the line '{word}' to the notes."),
        "Actions_plan": [{"Step": 1, "Subtask": "Add the line", "ControlLabel": null, "ControlText": "alpha",
            "Function": function, "Args": {"text": format!("alpha line\\nbeta line\\n{word}\\n")}}]
    });
    vec![
        rule(Stage::Prefill, &format!("task {word}:"), &plan.to_string()),
        rule(Stage::Judge, &format!("'{word}'"), judge),
        rule(Stage::Eval, &format!("task {word}:"), eval),
    ]
}

const YES: &str = r#"{"judge": true, "thought": "doable", "type": "None"}"#;

fn eval(complete: &str) -> String {
    format!(r#"{{"reason": "looked", "sub_scores": {{"line": "yes"}}, "complete": "{complete}"}}"#)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_verdict_goes_to_its_bucket_and_only_passes_are_reformatted() {
    let ws = common::workspace("MATCH_STRATEGY: fuzzy\n");
    let rules = verdict_tasks(&ws);
    let model = scripted(rules, 40).await;
    let desk = desktop("desk-1").await;
    let p = pipeline(&ws, &model, Mode::Dataflow, false);
    let summary = run_folder(&p, &ws.path().join("tasks"), vec![desk.device.clone()]).await;

    let placed: Vec<(String, String)> = summary
        .outcomes
        .iter()
        .map(|o| match &o.status {
            TaskStatus::Saved { bucket, .. } => (o.name.clone(), bucket.as_str().to_owned()),
            other => panic!("{}: {other:?} {:?}", o.name, o.errors),
        })
        .collect();
    let want = [
        ("badtool", "execution_fail"),
        ("doubt", "execution_fail"),
        ("missing", "execution_fail"),
        ("no", "execution_fail"),
        ("unknown", "execution_fail"),
        ("unsure", "execution_unsure"),
        ("yes", "execution_pass"),
    ];
    assert_eq!(placed, want.map(|(a, b)| (a.to_owned(), b.to_owned())));
    assert_eq!(summary.failed(), 5);

    let results = ws.results("dataflow");
    assert_eq!(
        results["execution_unsure/unsure.json"]["execution_result"]["result"]["complete"],
        "unsure"
    );
    // The one result that breaks its schema (no complete) was saved, with the violation reported.
    for o in &summary.outcomes {
        let paths: Vec<&str> = o.violations.iter().map(|v| v.path.as_str()).collect();
        if o.name == "missing" {
            assert_eq!(paths, ["/execution_result/result"], "{:#?}", o.violations);
            assert!(
                o.violations[0].message.contains("complete"),
                "{}",
                o.violations[0]
            );
        } else {
            assert!(paths.is_empty(), "{}: {paths:?}", o.name);
        }
    }
    let doubt = &results["execution_fail/doubt.json"];
    assert_eq!(doubt["execution_result"]["error"]["type"], "NotExecuted");
    assert!(
        doubt["execution_result"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("needs the internet")
    );
    assert!(doubt["time_cost"]["execute"].is_null());
    let badtool = &results["execution_fail/badtool.json"];
    let prefill_error = badtool["instantiation_result"]["prefill"]["error"]
        .as_str()
        .unwrap();
    assert!(
        prefill_error
            .starts_with("PlanError: the plan cannot run: step 1 names the tool 'paint_it'"),
        "{prefill_error}"
    );
    assert!(
        prefill_error.contains("set_edit_text"),
        "the error lists the tools: {prefill_error}"
    );
    assert_eq!(
        badtool["instantiation_result"]["prefill"]["result"]["instantiated_plan"][0]["Function"],
        "paint_it"
    );
    // Judge false and the bad plan were never executed: 7 templates + 7 prefills + 6 judges + 5
    // evaluations.
    let asked = model.requests().len();
    assert_eq!(asked, 7 + 7 + 6 + 5, "requests: {asked}");

    check_reformat(&ws, &summary);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instantiation_then_execution_files_by_judge_and_accumulates_the_total() {
    let ws = common::workspace("MATCH_STRATEGY: regex\nREFORMAT_TO_BATCH: false\n");
    let mut rules = vec![rule(
        Stage::Template,
        "Add a line",
        r#"{"alpha.txt": "it has lines"}"#,
    )];
    rules.extend(task_rules("good", YES, &eval("yes"), "set_edit_text"));
    rules.extend(task_rules(
        "bad",
        r#"{"judge": "false", "thought": "not a task"}"#,
        &eval("yes"),
        "set_edit_text",
    ));
    for word in ["good", "bad"] {
        ws.task(&format!("{word}.json"), &json!({"app": "notes", "unique_id": word, "task": format!("Add a line, task {word}: append it")}));
    }
    let model = scripted(rules, 20).await;
    let desk = desktop("desk-1").await;
    let inst = pipeline(&ws, &model, Mode::Instantiation, false);
    let summary = run_folder(&inst, &ws.path().join("tasks"), vec![desk.device.clone()]).await;
    assert!(summary.reformatted.is_none());
    let results = ws.results("instantiation");
    assert_eq!(
        results.keys().collect::<Vec<_>>(),
        [
            "instantiation_fail/bad.json",
            "instantiation_pass/good.json"
        ]
    );
    let good = &results["instantiation_pass/good.json"];
    assert!(good["execution_result"]["result"].is_null() && good["time_cost"]["execute"].is_null());
    let bad_eval = &results["instantiation_fail/bad.json"]["instantiation_result"]["instantiation_evaluation"]
        ["result"];
    assert_eq!(
        bad_eval,
        &json!({"judge": false, "thought": "not a task", "request_type": "None"})
    );
    // Nothing was executed: the copy is the template's text.
    assert_eq!(
        std::fs::read_to_string(ws.path().join("results/saved_document/good.txt")).unwrap(),
        "alpha line\nbeta line\n"
    );
    let inst_total = good["time_cost"]["total"].as_f64().unwrap();

    // The execution mode runs the instantiated results.
    let exec = pipeline(&ws, &model, Mode::Execution, false);
    let pass_dir = ws.path().join("results/instantiation/instantiation_pass");
    let summary = run_folder(&exec, &pass_dir, vec![desk.device.clone()]).await;
    assert_eq!(summary.outcomes.len(), 1);
    assert!(
        summary.outcomes[0].violations.is_empty(),
        "{:#?}",
        summary.outcomes[0].violations
    );
    let results = ws.results("execution");
    let done = &results["execution_pass/good.json"];
    assert_eq!(done["unique_id"], "good");
    assert_eq!(
        done["instantiation_result"]["choose_template"],
        good["instantiation_result"]["choose_template"]
    );
    assert_eq!(done["time_cost"]["prefill"], good["time_cost"]["prefill"]);
    let step = &done["instantiation_result"]["prefill"]["result"]["instantiated_plan"][0];
    assert_eq!(
        (
            step["Success"].as_bool(),
            step["MatchedControlText"].as_str()
        ),
        (Some(true), Some("alpha line\nbeta line\n"))
    );
    let t = &done["time_cost"];
    let own = t["execute"].as_f64().unwrap() + t["execute_eval"].as_f64().unwrap();
    let total = t["total"].as_f64().unwrap();
    assert!(
        total >= inst_total + own - 0.002,
        "total {total} < {inst_total} + {own}"
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join("results/saved_document/good.txt")).unwrap(),
        "alpha line\nbeta line\ngood\n"
    );
}

/// One task per verdict (and a judged-out one and a plan with an unknown tool), with the model's
/// answers for each.
fn verdict_tasks(ws: &Workspace) -> Vec<Route> {
    let mut rules = vec![rule(
        Stage::Template,
        "Add a line",
        r#"{"alpha.txt": "it has lines"}"#,
    )];
    for (word, judge, eval_answer, function) in [
        ("yes", YES, eval("yes"), "set_edit_text"),
        ("no", YES, eval("no"), "set_edit_text"),
        ("unsure", YES, eval("Unsure"), "set_edit_text"),
        ("unknown", YES, eval("probably"), "set_edit_text"),
        (
            "missing",
            YES,
            r#"{"reason": "no verdict", "sub_scores": {}}"#.to_owned(),
            "set_edit_text",
        ),
        (
            "doubt",
            r#"{"judge": false, "thought": "needs the internet", "type": "Env"}"#,
            eval("yes"),
            "set_edit_text",
        ),
        ("badtool", YES, eval("yes"), "paint_it"),
    ] {
        rules.extend(task_rules(word, judge, &eval_answer, function));
        ws.task(
            &format!("{word}.json"),
            &json!({"app": "notes", "task": format!("Add a line, task {word}: append the word")}),
        );
    }
    rules
}

/// Reformat: only the pass, as UFO's batch task, with the pristine template as its document.
fn check_reformat(ws: &Workspace, summary: &deft_dataflow::RunSummary) {
    let r = summary.reformatted.clone().unwrap().unwrap();
    let hub = ws.path().join("datasUFO");
    assert_eq!(r.tasks, vec![hub.join("tasks/yes.json")]);
    let batch: Value =
        serde_json::from_slice(&std::fs::read(hub.join("tasks/yes.json")).unwrap()).unwrap();
    assert_eq!(
        batch,
        json!({"task": "Add the line 'yes' to the notes.", "object": "yes.txt", "close": "True"})
    );
    assert_eq!(
        std::fs::read_to_string(hub.join("files/yes.txt")).unwrap(),
        "alpha line\nbeta line\n"
    );
    // The executed copy is the one in saved_document.
    assert_eq!(
        std::fs::read_to_string(ws.path().join("results/saved_document/yes.txt")).unwrap(),
        "alpha line\nbeta line\nyes\n"
    );
}
