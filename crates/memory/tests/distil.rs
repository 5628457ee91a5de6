//! Distilling after a run, against the scripted model and a real SQLite store: reasoning off
//! in the recorded requests (a reasoning model answers only so), a strict endpoint that refuses
//! the fields (once: the next distil's new client knows), what is saved, what a similar later run
//! recalls and merges, identical recipes merged whatever the task's wording, the model finding
//! nothing reusable, and bad answers — garbage, cut-off JSON, a 1 MB answer, another language,
//! coordinates, 40 steps — dropped or trimmed with their reason, never stored half-valid.

#![allow(clippy::unwrap_used)] // test code: an unwrap that fails is a failing test

mod common;

use common::{acting_run, actions, answer, llm, recipe, system_texts, world};
use deft_agent::llm::LlmClient;
use deft_protocol::EventKind;
use deft_protocol::memory::{MemoryKind, MemoryNote, MemoryOutcome};
use deft_store::{ExperienceFilter, Page};
use deft_test_support::model::{ModelOptions, Reply, ScriptedModel, Turn, reasoning_unless_off};
use serde_json::json;

const GOOD_RECIPE: &str = "Select the tool window, then call noop once; it answers at once. \
                           Report that it worked.";

fn wait_action(name: &str) -> serde_json::Value {
    json!({"name": name, "aliases": [format!("{name} (alias)")], "description": "waits a moment",
           "steps": [{"type": "wait", "seconds": 0.01}]})
}

/// The run's turns, then the two distilling answers.
fn script(experience: Turn, action: Turn) -> Vec<Turn> {
    let mut turns = acting_run("It worked.");
    turns.push(experience);
    turns.push(action);
    turns
}

fn outcomes(notes: &[MemoryNote]) -> Vec<(MemoryKind, MemoryOutcome, Vec<String>)> {
    notes
        .iter()
        .map(|n| {
            let items = n
                .items
                .iter()
                .map(|i| match &i.reason {
                    Some(r) => format!("{}: {r}", i.title),
                    None => i.title.clone(),
                })
                .collect();
            (n.kind, n.outcome, items)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_completed_run_that_acted_is_distilled_with_reasoning_off() {
    let w = world().await;
    // A reasoning model: it answers only when told not to reason.
    let model = ScriptedModel::start(script(
        reasoning_unless_off(&json!({"title": "Call noop", "recipe": GOOD_RECIPE}).to_string()),
        reasoning_unless_off(&json!({"actions": [wait_action("Wait a moment")]}).to_string()),
    ))
    .await;
    let llm = llm(&model.base_url());
    let (outcome, session, _) = w.run(&llm, "call the noop tool once").await;
    assert_eq!(outcome.answer, "It worked.");
    let notes = session.distil(&llm, &outcome, &Default::default()).await;
    assert_eq!(
        outcomes(&notes),
        [
            (
                MemoryKind::Experience,
                MemoryOutcome::Saved,
                vec!["Call noop".to_owned()]
            ),
            (
                MemoryKind::Action,
                MemoryOutcome::Saved,
                vec!["Wait a moment".to_owned()]
            ),
        ]
    );
    assert_eq!(notes[0].note, "Saved 1 new experience from this run");
    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    for distil in &requests[2..] {
        assert_eq!(distil.body["thinking"], json!({"type": "disabled"}));
        assert_eq!(distil.body["enable_thinking"], json!(false));
        assert!(
            distil.body.get("tools").is_none(),
            "distilling offers no tools"
        );
    }
    assert!(
        requests[0].body.get("thinking").is_none(),
        "the run itself reasons as it likes"
    );
    let user = requests[2].messages()[1]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        user.starts_with("Task: call the noop tool once\n\nTool calls, in order:\n1. noop"),
        "{user}"
    );
    assert!(
        user.contains("The agent's final answer: It worked."),
        "{user}"
    );
    assert!(
        !system_texts(&requests[2])[0].contains("1. …"),
        "no placeholder example to copy"
    );

    let stored = w
        .store
        .experiences(&ExperienceFilter::default(), Page::default())
        .await
        .unwrap();
    assert_eq!(stored.total, 1);
    assert_eq!(stored.items[0].recipe, GOOD_RECIPE);
    assert_eq!(stored.items[0].source_run.as_deref(), Some("run-test"));
    let action = w
        .store
        .action_by_name("wait a moment")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(action.aliases, ["Wait a moment (alias)"]);
    assert_eq!(action.steps, json!([{"type": "wait", "seconds": 0.01}]));
}

/// A client for distilling as the server and the CLI make one: new, from the run's settings.
fn distil_client(run: &LlmClient) -> LlmClient {
    LlmClient::new(deft_memory::model_config(run.config())).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_strict_endpoint_refuses_reasoning_off_once_and_the_next_distil_knows() {
    let w = world().await;
    let mut turns = script(recipe("Call noop", GOOD_RECIPE), actions(json!([])));
    turns.extend(script(recipe("Call noop", GOOD_RECIPE), actions(json!([]))));
    // OpenAI's API: 400 "Unrecognized request argument…" for any field it does not know.
    let model = ScriptedModel::start_with(
        turns,
        ModelOptions {
            strict: true,
            ..Default::default()
        },
    )
    .await;
    let llm = llm(&model.base_url());
    let (outcome, session, _) = w.run(&llm, "call the noop tool once").await;
    let notes = session
        .distil(&distil_client(&llm), &outcome, &Default::default())
        .await;
    assert_eq!(notes[0].outcome, MemoryOutcome::Saved, "{notes:?}");
    let (outcome, session, _) = w.run(&llm, "call the noop tool once more").await;
    let notes = session
        .distil(&distil_client(&llm), &outcome, &Default::default())
        .await;
    assert_eq!(notes[0].outcome, MemoryOutcome::Merged, "{notes:?}");
    let with: Vec<bool> = model
        .requests()
        .iter()
        .map(|r| r.body.get("thinking").is_some())
        .collect();
    assert_eq!(
        with,
        [
            false, false, true, false, false, // run 1, refused once, then asked without
            false, false, false, false // run 2: its distil's new client knows
        ],
    );
    assert_eq!(
        outcomes(&notes[1..]),
        [(MemoryKind::Action, MemoryOutcome::Dropped, vec![])],
        "no action dropped: none was found"
    );
    assert_eq!(
        notes[1].note,
        "The model found nothing reusable for the action library in this run"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_similar_later_run_recalls_both_and_merges_what_it_learns() {
    let w = world().await;
    let mut turns = script(
        recipe("Call noop", GOOD_RECIPE),
        actions(json!([wait_action("Call the noop tool")])),
    );
    turns.extend(acting_run("Done again."));
    turns.push(recipe(
        "Call noop",
        &format!("{GOOD_RECIPE} It needs no arguments."),
    ));
    turns.push(actions(json!([wait_action("call the NOOP tool")])));
    let model = ScriptedModel::start(turns).await;
    let llm = llm(&model.base_url());
    let (outcome, session, _) = w.run(&llm, "call the noop tool once").await;
    session.distil(&llm, &outcome, &Default::default()).await;

    let (outcome, session, events) = w.run(&llm, "call the noop tool once again").await;
    let first = &model.requests()[4];
    let systems = system_texts(first);
    assert!(
        systems[1].starts_with("## Experience from similar tasks"),
        "{systems:?}"
    );
    assert!(systems[1].contains(GOOD_RECIPE));
    assert!(systems[2].starts_with("## Reusable actions"), "{systems:?}");
    assert!(
        systems[2].contains("### Call the noop tool (also: Call the noop tool (alias))"),
        "{}",
        systems[2]
    );
    assert!(
        systems[2].contains(r#"1. {"seconds":0.01,"type":"wait"}"#),
        "{}",
        systems[2]
    );
    assert!(first.tool_names().contains(&"run_action".to_owned()));
    let kinds: Vec<&str> = events.events().iter().map(|e| e.kind.name()).collect();
    assert_eq!(&kinds[..2], ["memory", "memory"], "{kinds:?}");
    let EventKind::Memory(note) = &events.events()[0].kind else {
        unreachable!()
    };
    assert_eq!(note.note, "Recalled 1 similar experience into the prompt");
    assert!(note.items[0].score.unwrap() >= 0.3);
    assert_eq!(session.recalled().len(), 2);

    let notes = session.distil(&llm, &outcome, &Default::default()).await;
    assert_eq!(
        outcomes(&notes),
        [
            (
                MemoryKind::Experience,
                MemoryOutcome::Merged,
                vec!["Call noop".to_owned()]
            ),
            (
                MemoryKind::Action,
                MemoryOutcome::Merged,
                vec!["Call the noop tool".to_owned()]
            ),
        ]
    );
    let stored = w
        .store
        .experiences(&ExperienceFilter::default(), Page::default())
        .await
        .unwrap();
    assert_eq!(stored.total, 1, "merged, not a second entry");
    assert!(stored.items[0].recipe.ends_with("It needs no arguments."));
    assert_eq!(stored.items[0].hits, 1);
    assert!(stored.items[0].last_used_at_ms.is_some());
    let action = w
        .store
        .action_by_name("Call the noop tool")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(action.hits, 1);
    assert_eq!(
        action.aliases,
        ["Call the noop tool (alias)"],
        "the merged action keeps its name; an alias that differs only in case is not added"
    );
}

/// Runs one acting run and distils it with these answers (the experience's, with its retry's
/// when it gets one); the cards.
async fn distilled(
    experience: Vec<Turn>,
    action: Turn,
    goal: &str,
) -> (Vec<MemoryNote>, common::World) {
    let w = world().await;
    let mut turns = acting_run("It worked.");
    turns.extend(experience);
    turns.push(action);
    let model = ScriptedModel::start(turns).await;
    let llm = llm(&model.base_url());
    let (outcome, session, _) = w.run(&llm, goal).await;
    assert_eq!(
        outcome.status,
        deft_protocol::DoneStatus::Completed,
        "the run is not touched"
    );
    let notes = session.distil(&llm, &outcome, &Default::default()).await;
    (notes, w)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_and_cut_off_answers_are_dropped_and_cut_lists_salvaged() {
    let cut_list = format!(
        "{{\"actions\": [{}, {}, {{\"name\": \"Half\", \"steps\": [{{\"type\": \"cli",
        wait_action("First"),
        wait_action("Second")
    );
    let sorry = "I am sorry, I cannot help with that.";
    let (notes, w) = distilled(
        vec![answer(sorry), answer(sorry)],
        answer(&cut_list),
        "call the noop tool once",
    )
    .await;
    assert_eq!(
        notes[0].note,
        "Nothing from this run went into the experience library"
    );
    assert_eq!(
        outcomes(&notes),
        [
            (
                MemoryKind::Experience,
                MemoryOutcome::Dropped,
                vec![
                    "call the noop tool once: the answer was not JSON, also when asked again"
                        .to_owned()
                ]
            ),
            (
                MemoryKind::Action,
                MemoryOutcome::Saved,
                vec!["First".to_owned(), "Second".to_owned()]
            ),
        ]
    );
    assert_eq!(
        w.store
            .experiences(&ExperienceFilter::default(), Page::default())
            .await
            .unwrap()
            .total,
        0
    );
    assert!(
        w.store.action_by_name("Half").await.unwrap().is_none(),
        "nothing half-valid"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_megabyte_answer_is_cut_at_the_cap_and_dropped() {
    let huge = format!(
        "{{\"title\": \"Big\", \"recipe\": \"{}\"}}",
        "x".repeat(1 << 20)
    );
    let (notes, w) = distilled(
        vec![answer(&huge), answer(&huge)],
        actions(json!([])),
        "call the noop tool once",
    )
    .await;
    let reason = notes[0].items[0].reason.clone().unwrap();
    assert_eq!(notes[0].outcome, MemoryOutcome::Dropped);
    assert!(reason.contains("longer than 64 KB"), "{reason}");
    assert_eq!(
        w.store
            .experiences(&ExperienceFilter::default(), Page::default())
            .await
            .unwrap()
            .total,
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recipe_in_another_language_and_actions_with_coordinates_or_40_steps() {
    let forty: Vec<serde_json::Value> = (0..40)
        .map(|_| json!({"type": "wait", "seconds": 0.01}))
        .collect();
    let (notes, w) = distilled(
        vec![recipe(
            "调用 noop",
            "选中工具窗口，然后调用一次 noop，它会立即返回，最后报告成功。",
        )],
        actions(json!([
            {"name": "Tap the corner", "steps": [{"type": "click_xy", "x": 0.9, "y": 0.1}]},
            {"name": "Swipe by pixels", "steps": [{"type": "swipe", "direction": "up", "x": 300}]},
            {"name": "Forty waits", "steps": forty},
        ])),
        "call the noop tool once",
    )
    .await;
    let got = outcomes(&notes);
    assert_eq!(got[0].1, MemoryOutcome::Dropped);
    assert!(
        got[0].2[0].contains("written in Chinese, Japanese or Korean script but the task in Latin"),
        "{got:?}"
    );
    assert_eq!(
        got[1],
        (
            MemoryKind::Action,
            MemoryOutcome::Saved,
            vec!["Forty waits: cut from 40 to 4 steps".to_owned()]
        )
    );
    assert_eq!(got[2].1, MemoryOutcome::Dropped);
    assert!(
        got[2].2[0].starts_with("Tap the corner: the action has no steps"),
        "{got:?}"
    );
    assert!(
        got[2].2[1].starts_with("Swipe by pixels: the steps are not valid library steps: steps[0]"),
        "{got:?}"
    );
    let kept = w
        .store
        .action_by_name("Forty waits")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(kept.steps.as_array().unwrap().len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_that_failed_or_only_looked_are_not_distilled() {
    let w = world().await;
    let model = ScriptedModel::start(vec![
        Reply::tool_call("pid", json!({})).into(),
        Reply::text("I only looked.").into(),
    ])
    .await;
    let llm = llm(&model.base_url());
    let (outcome, session, _) = w.run(&llm, "look at the pid").await;
    assert!(
        session
            .distil(&llm, &outcome, &Default::default())
            .await
            .is_empty()
    );
    assert_eq!(model.requests().len(), 2, "no distilling call");
    let mut failed = outcome.clone();
    failed.status = deft_protocol::DoneStatus::Failed;
    assert!(
        session
            .distil(&llm, &failed, &Default::default())
            .await
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_fails_leaves_a_dropped_card_and_nothing_stored() {
    let mut turns = acting_run("ok");
    turns.push(Reply::status(400, "context too long").into());
    turns.push(Reply::status(400, "context too long").into());
    turns.push(Reply::status(400, "context too long").into());
    let w = world().await;
    let model = ScriptedModel::start(turns).await;
    let llm = llm(&model.base_url());
    let (outcome, session, _) = w.run(&llm, "call the noop tool once").await;
    let notes = session.distil(&llm, &outcome, &Default::default()).await;
    assert_eq!(notes[0].outcome, MemoryOutcome::Dropped);
    let reason = notes[0].items[0].reason.clone().unwrap();
    assert!(
        reason.starts_with("the model call failed: the model server at"),
        "{reason}"
    );
    assert!(reason.contains("context too long"), "{reason}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_with_nothing_reusable_says_so_without_a_count() {
    let (notes, w) = distilled(
        vec![answer(r#"{"skip": "it only called one tool"}"#)],
        actions(json!([])),
        "call the noop tool once",
    )
    .await;
    let cards: Vec<(MemoryOutcome, &str, usize)> = notes
        .iter()
        .map(|n| (n.outcome, n.note.as_str(), n.items.len()))
        .collect();
    assert_eq!(
        cards,
        [
            (
                MemoryOutcome::Dropped,
                "The model found nothing reusable for the experience library in this run: it only called one tool",
                0
            ),
            (
                MemoryOutcome::Dropped,
                "The model found nothing reusable for the action library in this run",
                0
            ),
        ]
    );
    assert_eq!(
        w.store
            .experiences(&ExperienceFilter::default(), Page::default())
            .await
            .unwrap()
            .total,
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identical_recipes_are_merged_whatever_the_task_wording() {
    let w = world().await;
    // Three ways to ask for the same thing; the model writes the same recipe each time, under
    // titles as different as the tasks.
    let runs = [
        ("call the noop tool once", "Call noop"),
        (
            "Please invoke that no-op helper for me",
            "Invoke the helper",
        ),
        (
            "Run it: the do-nothing function, a single time",
            "Do nothing, once",
        ),
    ];
    let mut turns = Vec::new();
    for (_, title) in runs {
        turns.extend(script(recipe(title, GOOD_RECIPE), actions(json!([]))));
    }
    let model = ScriptedModel::start(turns).await;
    let llm = llm(&model.base_url());
    let mut merged = Vec::new();
    for (task, _) in runs {
        let (outcome, session, _) = w.run(&llm, task).await;
        let notes = session.distil(&llm, &outcome, &Default::default()).await;
        merged.push((notes[0].outcome, notes[0].items[0].title.clone()));
    }
    assert_eq!(
        merged,
        [
            (MemoryOutcome::Saved, "Call noop".to_owned()),
            (MemoryOutcome::Merged, "Call noop".to_owned()),
            (MemoryOutcome::Merged, "Call noop".to_owned()),
        ]
    );
    let stored = w
        .store
        .experiences(&ExperienceFilter::default(), Page::default())
        .await
        .unwrap();
    assert_eq!(stored.total, 1, "one experience, not three");
    let e = &stored.items[0];
    assert_eq!(
        (e.task.as_str(), e.recipe.as_str()),
        ("call the noop tool once", GOOD_RECIPE)
    );
    assert_eq!(
        e.hits, 2,
        "each later run counted one use: recalled or merged"
    );
    assert!(e.last_used_at_ms.is_some());
}
