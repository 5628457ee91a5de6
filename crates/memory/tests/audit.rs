//! The audit against the scripted model and a real store: suggestions mark entries `pending`
//! and delete nothing; a person's keep is final (the next audit does not even show the entry to
//! the model) and a person's delete removes it; a cut-off answer keeps the reviews it completed;
//! garbage (twice: see retry.rs), no model and a second audit at once are refused with their
//! reason.

#![allow(clippy::unwrap_used)] // test code: an unwrap that fails is a failing test

mod common;

use common::{answer, llm, turn, world};
use deft_memory::AuditError;
use deft_store::{AuditState, AuditStatus, AuditTrigger, Decision, NewExperience};
use deft_test_support::model::ScriptedModel;
use serde_json::json;

async fn seed(w: &common::World, titles: &[&str]) -> Vec<String> {
    let mut ids = Vec::new();
    for t in titles {
        let e = w
            .store
            .create_experience(&NewExperience {
                task: format!("task {t}"),
                title: (*t).to_owned(),
                recipe: format!("recipe {t}"),
                source_run: None,
            })
            .await
            .unwrap();
        ids.push(e.id);
    }
    ids
}

/// An answer that reviews each entry shown by its title: `(title, verdict, score, reason)`.
fn reviews_by_title(
    verdicts: &'static [(&'static str, &'static str, u8, &'static str)],
) -> deft_test_support::model::Turn {
    turn(move |req| {
        let reviews: Vec<serde_json::Value> = shown_titles(req)
            .iter()
            .enumerate()
            .filter_map(|(i, title)| {
                let (_, verdict, score, reason) = verdicts.iter().find(|v| v.0 == title)?;
                Some(json!({"n": i + 1, "verdict": verdict, "score": score, "reason": reason}))
            })
            .collect();
        deft_test_support::model::Reply::text(&json!({"reviews": reviews}).to_string())
    })
}

/// The entries' titles the audit request showed the model, by their number.
fn shown_titles(request: &deft_test_support::model::Recorded) -> Vec<String> {
    let text = request.messages()[1]["content"].as_str().unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix('['))
        .filter_map(|l| l.split_once("] ").map(|(_, t)| t.to_owned()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggestions_wait_for_a_person_who_keeps_or_deletes() {
    let w = world().await;
    let ids = seed(&w, &["useful", "vague", "broken"]).await;
    let model = ScriptedModel::start(vec![
        reviews_by_title(&[
            ("useful", "keep", 90, "concrete steps"),
            ("vague", "delete", 20, "too vague to follow"),
            ("broken", "delete", 5, "names no control"),
        ]),
        reviews_by_title(&[
            ("useful", "delete", 40, "stale"),
            ("vague", "delete", 1, "kept entries are never shown"),
        ]),
    ])
    .await;
    let llm = llm(&model.base_url());
    let run = w
        .memory
        .start_audit(AuditTrigger::Manual, 1_000)
        .await
        .unwrap();
    let done = w
        .memory
        .audit(&run, Some(&llm), 1_000, &Default::default())
        .await
        .unwrap();
    assert_eq!(
        (done.status, done.reviewed, done.suggested),
        (AuditStatus::Ok, 3, 2)
    );
    let first = &model.requests()[0];
    assert_eq!(first.body["thinking"], json!({"type": "disabled"}));
    let mut shown = shown_titles(first);
    shown.sort();
    assert_eq!(shown, ["broken", "useful", "vague"]);

    for (id, state) in ids
        .iter()
        .zip([AuditState::None, AuditState::Pending, AuditState::Pending])
    {
        assert_eq!(
            w.store.experience(id).await.unwrap().audit_state,
            state,
            "nothing deleted"
        );
    }
    let vague = w.store.experience(&ids[1]).await.unwrap();
    assert_eq!(
        (vague.audit_score, vague.audit_reason.as_deref()),
        (Some(20), Some("too vague to follow"))
    );

    // A person keeps "vague" and deletes "broken".
    w.store.keep_experience(&ids[1]).await.unwrap();
    w.store.delete_experience(&ids[2]).await.unwrap();
    let reviews = w.store.experience_reviews(&ids[2]).await.unwrap();
    assert_eq!(reviews[0].decision, Some(Decision::Deleted));

    // The next audit shows the model only what is neither kept nor deleted.
    let run = w
        .memory
        .start_audit(AuditTrigger::Schedule, 2_000)
        .await
        .unwrap();
    let done = w
        .memory
        .audit(&run, Some(&llm), 2_000, &Default::default())
        .await
        .unwrap();
    assert_eq!((done.reviewed, done.suggested), (1, 1));
    assert_eq!(shown_titles(&model.requests()[1]), ["useful"]);
    assert_eq!(
        w.store.experience(&ids[1]).await.unwrap().audit_state,
        AuditState::Kept
    );
    assert_eq!(
        w.store.experience(&ids[0]).await.unwrap().audit_state,
        AuditState::Pending
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_answer_keeps_its_complete_reviews_and_garbage_fails_the_audit() {
    let w = world().await;
    let ids = seed(&w, &["a", "b"]).await;
    let model = ScriptedModel::start(vec![
        turn(|req| {
            // The review of "b" is complete, the one of "a" is cut off.
            let titles = shown_titles(req);
            let b = titles.iter().position(|t| t == "b").unwrap() + 1;
            let a = titles.iter().position(|t| t == "a").unwrap() + 1;
            deft_test_support::model::Reply::text(&format!(
                r#"{{"reviews": [{{"n": {b}, "verdict": "delete", "score": 10, "reason": "empty"}}, {{"n": {a}, "verd"#
            ))
        }),
        answer("I think they are all fine."),
        answer("Yes, all fine."),
    ])
    .await;
    let llm = llm(&model.base_url());
    let run = w.memory.start_audit(AuditTrigger::Manual, 1).await.unwrap();
    let done = w
        .memory
        .audit(&run, Some(&llm), 1, &Default::default())
        .await
        .unwrap();
    assert_eq!(
        (done.status, done.reviewed, done.suggested),
        (AuditStatus::Ok, 1, 1)
    );
    assert_eq!(
        w.store.experience(&ids[1]).await.unwrap().audit_state,
        AuditState::Pending
    );
    assert_eq!(
        w.store.experience(&ids[0]).await.unwrap().audit_state,
        AuditState::None
    );

    let run = w.memory.start_audit(AuditTrigger::Manual, 2).await.unwrap();
    let done = w
        .memory
        .audit(&run, Some(&llm), 2, &Default::default())
        .await
        .unwrap();
    assert_eq!(done.status, AuditStatus::Failed);
    assert_eq!(
        done.error.as_deref(),
        Some("the answer was not JSON, also when asked again")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_model_and_a_second_audit_are_refused() {
    let w = world().await;
    seed(&w, &["a"]).await;
    let run = w.memory.start_audit(AuditTrigger::Manual, 1).await.unwrap();
    assert!(matches!(
        w.memory.start_audit(AuditTrigger::Schedule, 2).await,
        Err(AuditError::Busy)
    ));
    let done = w
        .memory
        .audit(&run, None, 3, &Default::default())
        .await
        .unwrap();
    assert_eq!(done.status, AuditStatus::Failed);
    assert_eq!(
        done.error.as_deref(),
        Some("no model is configured, so the audit could not run")
    );
    assert!(
        w.memory.start_audit(AuditTrigger::Manual, 4).await.is_ok(),
        "the first one ended"
    );
}
