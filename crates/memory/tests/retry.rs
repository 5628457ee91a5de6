//! An unusable answer — not JSON, cut off with nothing complete, no recipe, no review of an
//! entry shown — gets one corrective retry, for experiences, actions and the audit alike: the
//! answer and what was wrong with it go back to the model, which answers again; a second
//! unusable answer drops the candidate (or fails the audit) with the reason, and no third call
//! is made.

#![allow(clippy::unwrap_used)] // test code: an unwrap that fails is a failing test

mod common;

use common::{acting_run, actions, answer, llm, recipe, world};
use deft_memory::texts;
use deft_protocol::memory::{MemoryKind, MemoryOutcome};
use deft_store::{AuditStatus, AuditTrigger, NewExperience};
use deft_test_support::model::{Recorded, ScriptedModel};
use serde_json::json;

const GOOD_RECIPE: &str = "Select the tool window, then call noop once; it answers at once. \
                           Report that it worked.";

/// The roles of a request's messages, and the text of its last.
fn shape(r: &Recorded) -> (Vec<String>, String) {
    let roles = r
        .messages()
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_owned())
        .collect();
    let last = r.messages().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    (roles, last)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unusable_distilling_answer_is_asked_again_once_saying_why() {
    let w = world().await;
    let mut turns = acting_run("It worked.");
    turns.push(answer("Sure! Open the tool window and call noop."));
    turns.push(recipe("Call noop", GOOD_RECIPE));
    turns.push(answer(
        r#"{"actions": [{"name": "Wait", "steps": [{"type": "wa"#,
    ));
    turns.push(actions(json!([{"name": "Wait a moment",
        "steps": [{"type": "wait", "seconds": 0.01}]}])));
    let model = ScriptedModel::start(turns).await;
    let llm = llm(&model.base_url());
    let (outcome, session, _) = w.run(&llm, "call the noop tool once").await;
    let notes = session.distil(&llm, &outcome, &Default::default()).await;
    let got: Vec<(MemoryKind, MemoryOutcome)> = notes.iter().map(|n| (n.kind, n.outcome)).collect();
    assert_eq!(
        got,
        [
            (MemoryKind::Experience, MemoryOutcome::Saved),
            (MemoryKind::Action, MemoryOutcome::Saved)
        ]
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 6, "two calls for each library");
    let (roles, last) = shape(&requests[3]);
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
    assert_eq!(
        requests[3].messages()[2]["content"],
        "Sure! Open the tool window and call noop.",
        "the unusable answer is quoted back"
    );
    assert_eq!(
        last,
        texts::correction(texts::NOT_JSON, texts::EXPERIENCE_SHAPE)
    );
    assert_eq!(
        last,
        "That answer could not be used: the answer was not JSON. Answer again with JSON only: an \
         object with \"title\" and \"recipe\", or with only \"skip\" and the reason, with no text \
         before or after it."
    );
    assert_eq!(requests[3].messages()[..2], requests[2].messages()[..2]);
    assert_eq!(
        requests[3].body["thinking"],
        json!({"type": "disabled"}),
        "the retry is a distilling call like the first"
    );
    let (_, last) = shape(&requests[5]);
    assert_eq!(
        last,
        texts::correction(
            "the answer was cut off; nothing complete was in it",
            texts::ACTION_SHAPE
        )
    );
    assert_eq!(
        w.store
            .experiences(&Default::default(), Default::default())
            .await
            .unwrap()
            .total,
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_unusable_answers_drop_the_candidate_with_the_second_reason() {
    let w = world().await;
    let mut turns = acting_run("It worked.");
    turns.push(answer("No JSON here."));
    turns.push(answer(r#"{"title": "Call noop"}"#));
    turns.push(answer("Nothing."));
    turns.push(answer("Still nothing."));
    let model = ScriptedModel::start(turns).await;
    let llm = llm(&model.base_url());
    let (outcome, session, _) = w.run(&llm, "call the noop tool once").await;
    let notes = session.distil(&llm, &outcome, &Default::default()).await;
    let reasons: Vec<(&str, &str)> = notes
        .iter()
        .map(|n| (n.note.as_str(), n.items[0].reason.as_deref().unwrap()))
        .collect();
    assert_eq!(
        reasons,
        [
            (
                "Nothing from this run went into the experience library",
                "the answer has no recipe, also when asked again"
            ),
            (
                "Nothing from this run went into the action library",
                "the answer was not JSON, also when asked again"
            ),
        ]
    );
    assert_eq!(model.requests().len(), 6, "no third call");
    assert_eq!(model.turns_left(), 0);
}

async fn seed(w: &common::World, titles: &[&str]) {
    for t in titles {
        w.store
            .create_experience(&NewExperience {
                task: format!("task {t}"),
                title: (*t).to_owned(),
                recipe: format!("recipe {t}"),
                source_run: None,
            })
            .await
            .unwrap();
    }
}

/// An audit pass with these answers; its end.
async fn audit(answers: Vec<&str>) -> (deft_store::AuditRun, ScriptedModel) {
    let w = world().await;
    seed(&w, &["a", "b"]).await;
    let model = ScriptedModel::start(answers.into_iter().map(answer).collect()).await;
    let llm = llm(&model.base_url());
    let run = w.memory.start_audit(AuditTrigger::Manual, 1).await.unwrap();
    let done = w
        .memory
        .audit(&run, Some(&llm), 1, &Default::default())
        .await
        .unwrap();
    (done, model)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_answer_without_reviews_of_the_entries_is_asked_again_then_fails_the_pass() {
    let keep_both = r#"{"reviews": [{"n": 1, "verdict": "keep", "score": 80, "reason": "fine"},
                                    {"n": 2, "verdict": "delete", "score": 10, "reason": "vague"}]}"#;
    let (done, model) = audit(vec![r#"{"summary": "all fine"}"#, keep_both]).await;
    assert_eq!(
        (done.status, done.reviewed, done.suggested),
        (AuditStatus::Ok, 2, 1)
    );
    let (roles, last) = shape(&model.requests()[1]);
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
    assert_eq!(
        last,
        texts::correction(texts::NO_REVIEWS, texts::AUDIT_SHAPE)
    );

    let unknown = r#"{"reviews": [{"n": 7, "verdict": "keep", "score": 80, "reason": "?"}]}"#;
    for (answers, error) in [
        (
            vec![r#"{"summary": "all fine"}"#, r#"{"reviews": []}"#],
            "the answer has no reviews, also when asked again",
        ),
        (
            vec![unknown, unknown],
            "no review in the answer names an entry shown (1 to 2) with the verdict keep or delete, also when asked again",
        ),
        (
            vec!["They look fine to me.", "Really, all fine."],
            "the answer was not JSON, also when asked again",
        ),
    ] {
        let (done, model) = audit(answers).await;
        assert_eq!(
            (done.status, done.reviewed, done.error.as_deref()),
            (AuditStatus::Failed, 0, Some(error))
        );
        assert_eq!(model.requests().len(), 2);
    }
}
