//! The memory libraries: experiences (with the recall generation, hits, the audit's reviews and
//! a person's decisions), actions, runs' memory notes, and jobs with their fire claim.

use std::collections::BTreeMap;

use deft_protocol::memory::{MemoryItem, MemoryKind, MemoryNote, MemoryOutcome};
use deft_store::{
    AuditState, AuditStatus, AuditTrigger, Decision, ExperienceFilter, ExperienceReview, JobClaim,
    NewAction, NewExperience, NewJob, Page, ScheduleKind, Store, StoreError, Verdict,
};
use serde_json::json;

use super::tick;

fn experience(task: &str, recipe: &str) -> NewExperience {
    NewExperience {
        task: task.into(),
        title: format!("title of {task}"),
        recipe: recipe.into(),
        source_run: Some("run-1".into()),
    }
}

fn action(name: &str) -> NewAction {
    NewAction {
        name: name.into(),
        aliases: vec!["打开计算器".into(), "calc".into()],
        description: "opens it".into(),
        app: Some("gnome-calculator".into()),
        variables: BTreeMap::from([("expr".to_owned(), "1+1".to_owned())]),
        steps: json!([{"type": "open_app", "app": "gnome-calculator"}]),
        source_run: None,
    }
}

fn review(audit: &str, id: &str, verdict: Verdict, score: u8) -> ExperienceReview {
    ExperienceReview {
        audit_id: audit.into(),
        experience_id: id.into(),
        verdict,
        score,
        reason: format!("{verdict} because"),
        created_at_ms: 1_700_000_000_000,
        decision: None,
        decided_at_ms: None,
    }
}

pub async fn experiences_crud_generation_and_hits(store: &Store) {
    let g0 = store.memory_generation().await.unwrap();
    let a = store
        .create_experience(&experience("计算 7 乘 8", "打开计算器，依次点 7 × 8 ="))
        .await
        .unwrap();
    assert_eq!(a.audit_state, AuditState::None);
    assert_eq!((a.hits, a.last_used_at_ms), (0, None));
    let g1 = store.memory_generation().await.unwrap();
    assert!(g1 > g0, "creating moves the generation on");
    tick().await;
    let b = store
        .create_experience(&experience(
            "Rename a file",
            "Open the file manager, press F2",
        ))
        .await
        .unwrap();
    assert_eq!(store.experience(&a.id).await.unwrap(), a);
    let mut both = store
        .experiences_by_ids(&[a.id.clone(), b.id.clone(), "nope".into()])
        .await
        .unwrap();
    both.sort_by(|x, y| x.task.cmp(&y.task));
    assert_eq!(both.len(), 2);

    let all = store
        .experiences(&ExperienceFilter::default(), Page::default())
        .await
        .unwrap();
    assert_eq!(all.total, 2);
    assert_eq!(all.items[0].id, b.id, "most recently changed first");
    let found = store
        .experiences(
            &ExperienceFilter {
                text: Some("PRESS f2".into()),
                audit_state: None,
            },
            Page::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        found.items.iter().map(|e| &e.id).collect::<Vec<_>>(),
        [&b.id]
    );
    let none = store
        .experiences(
            &ExperienceFilter {
                text: Some("100%_".into()),
                audit_state: None,
            },
            Page::default(),
        )
        .await
        .unwrap();
    assert_eq!(none.total, 0, "wildcards in the text match themselves");

    let keys = store.experience_keys().await.unwrap();
    assert_eq!(keys.len(), 2);
    assert!(keys.iter().any(|k| k.id == a.id && k.task == "计算 7 乘 8"));

    store
        .record_experience_hits(&[a.id.clone(), "gone".into()], 42)
        .await
        .unwrap();
    store
        .record_experience_hits(std::slice::from_ref(&a.id), 43)
        .await
        .unwrap();
    let hit = store.experience(&a.id).await.unwrap();
    assert_eq!((hit.hits, hit.last_used_at_ms), (2, Some(43)));
    let g2 = store.memory_generation().await.unwrap();
    assert_eq!(g2, store.memory_generation().await.unwrap());
    assert!(g2 > g1);

    let edited = store
        .update_experience(&a.id, &experience("计算 7 乘 8", "新配方"), false)
        .await
        .unwrap();
    assert_eq!(edited.recipe, "新配方");
    assert_eq!(edited.hits, 2, "an edit keeps the hits");
    assert!(store.memory_generation().await.unwrap() > g2);

    let blank = store
        .create_experience(&experience("x", "   "))
        .await
        .unwrap_err();
    assert_eq!(blank.to_string(), "an experience needs a recipe");
    let missing = store
        .update_experience("nope", &experience("x", "y"), false)
        .await
        .unwrap_err();
    assert!(matches!(missing, StoreError::NotFound(_)), "{missing:?}");
    store.delete_experience(&b.id).await.unwrap();
    assert!(matches!(
        store.experience(&b.id).await.unwrap_err(),
        StoreError::NotFound(_)
    ));
    assert!(matches!(
        store.delete_experience(&b.id).await.unwrap_err(),
        StoreError::NotFound(_)
    ));
}

pub async fn audit_marks_pending_and_a_person_decides(store: &Store) {
    let a = store
        .create_experience(&experience("a", "recipe a"))
        .await
        .unwrap();
    let b = store
        .create_experience(&experience("b", "recipe b"))
        .await
        .unwrap();
    let c = store
        .create_experience(&experience("c", "recipe c"))
        .await
        .unwrap();
    let run = store
        .start_audit(AuditTrigger::Manual, 1_000, 0)
        .await
        .unwrap()
        .expect("no audit runs yet");
    assert_eq!(run.status, AuditStatus::Running);
    assert_eq!(
        store
            .start_audit(AuditTrigger::Schedule, 2_000, 0)
            .await
            .unwrap(),
        None,
        "one audit at a time"
    );
    assert!(
        store
            .record_review(&review(&run.id, &a.id, Verdict::Delete, 10))
            .await
            .unwrap()
    );
    assert!(
        store
            .record_review(&review(&run.id, &b.id, Verdict::Keep, 90))
            .await
            .unwrap()
    );
    assert!(
        store
            .record_review(&review(&run.id, &c.id, Verdict::Delete, 5))
            .await
            .unwrap()
    );
    assert!(
        !store
            .record_review(&review(&run.id, "gone", Verdict::Delete, 5))
            .await
            .unwrap(),
        "an unknown experience is passed over"
    );
    let again = store
        .record_review(&review(&run.id, &a.id, Verdict::Delete, 10))
        .await
        .unwrap_err();
    assert!(matches!(again, StoreError::Conflict(_)), "{again:?}");
    let finished = store
        .finish_audit(&run.id, AuditStatus::Ok, 3, 2, None)
        .await
        .unwrap();
    assert_eq!((finished.reviewed, finished.suggested), (3, 2));
    assert!(finished.finished_at_ms.is_some());

    let a_now = store.experience(&a.id).await.unwrap();
    assert_eq!(a_now.audit_state, AuditState::Pending);
    assert_eq!(a_now.audit_score, Some(10));
    assert_eq!(a_now.audit_reason.as_deref(), Some("delete because"));
    let b_now = store.experience(&b.id).await.unwrap();
    assert_eq!(
        (b_now.audit_state, b_now.audit_score),
        (AuditState::None, Some(90))
    );
    let pending = store
        .experiences(
            &ExperienceFilter {
                audit_state: Some(AuditState::Pending),
                text: None,
            },
            Page::default(),
        )
        .await
        .unwrap();
    assert_eq!(pending.total, 2);

    decisions_follow(store, &a.id, &c.id).await;
}

/// After an audit marked `a` and `c` pending: a person keeps `a` (never marked again) and
/// deletes `c`; a newer recipe clears a suggestion; a stale audit is given up.
async fn decisions_follow(store: &Store, a_id: &str, c_id: &str) {
    let (a, c) = (
        store.experience(a_id).await.unwrap(),
        store.experience(c_id).await.unwrap(),
    );
    // A person keeps a: kept for good, the suggestion decided.
    let kept = store.keep_experience(&a.id).await.unwrap();
    assert_eq!(kept.audit_state, AuditState::Kept);
    let reviews = store.experience_reviews(&a.id).await.unwrap();
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0].decision, Some(Decision::Kept));
    // A later audit cannot mark it again.
    let second = store
        .start_audit(AuditTrigger::Schedule, 5_000, 0)
        .await
        .unwrap()
        .expect("the first audit finished");
    assert!(
        !store
            .record_review(&review(&second.id, &a.id, Verdict::Delete, 1))
            .await
            .unwrap()
    );
    assert_eq!(
        store.experience(&a.id).await.unwrap().audit_state,
        AuditState::Kept
    );
    // A person deletes c: gone, the suggestion decided.
    store.delete_experience(&c.id).await.unwrap();
    let c_reviews = store.experience_reviews(&c.id).await.unwrap();
    assert_eq!(c_reviews[0].decision, Some(Decision::Deleted));
    assert!(c_reviews[0].decided_at_ms.is_some());
    // A newer recipe merged into a pending entry clears the suggestion.
    let d = store
        .create_experience(&experience("d", "recipe d"))
        .await
        .unwrap();
    store
        .record_review(&review(&second.id, &d.id, Verdict::Delete, 3))
        .await
        .unwrap();
    let merged = store
        .update_experience(&d.id, &experience("d", "better recipe d"), true)
        .await
        .unwrap();
    assert_eq!(merged.audit_state, AuditState::None);
    // An audit left running by a dead server is given up after the stale limit.
    let taken = store
        .start_audit(AuditTrigger::Manual, 9_000, 6_000)
        .await
        .unwrap()
        .expect("the stale audit no longer blocks");
    let stale = store.audit(&second.id).await.unwrap();
    assert_eq!(stale.status, AuditStatus::Failed);
    assert!(stale.error.unwrap().contains("stopped before it finished"));
    let listed = store.audits(Page::default()).await.unwrap();
    assert_eq!(listed.total, 3);
    assert_eq!(listed.items[0].id, taken.id, "newest first");
}

pub async fn actions_crud_names_and_hits(store: &Store) {
    let g0 = store.memory_generation().await.unwrap();
    let open = store
        .create_action(&action("Open calculator"))
        .await
        .unwrap();
    assert_eq!(open.aliases, ["打开计算器", "calc"]);
    assert_eq!(open.variables["expr"], "1+1");
    assert_eq!(
        open.steps,
        json!([{"type": "open_app", "app": "gnome-calculator"}])
    );
    assert!(store.memory_generation().await.unwrap() > g0);
    let dup = store
        .create_action(&action("  open CALCULATOR "))
        .await
        .unwrap_err();
    assert!(matches!(dup, StoreError::Conflict(_)), "{dup:?}");
    assert!(dup.to_string().contains("without regard to case"), "{dup}");
    assert_eq!(
        store.action_by_name(" OPEN calculator").await.unwrap(),
        Some(open.clone())
    );
    assert_eq!(store.action_by_name("nothing").await.unwrap(), None);
    let not_array = NewAction {
        steps: json!({"type": "wait"}),
        ..action("bad")
    };
    assert!(matches!(
        store.create_action(&not_array).await.unwrap_err(),
        StoreError::Invalid(_)
    ));
    let other = store
        .create_action(&action("Search the web"))
        .await
        .unwrap();
    let renamed = store
        .update_action(
            &other.id,
            &NewAction {
                aliases: vec!["搜索".into()],
                ..action("Search the web for X")
            },
        )
        .await
        .unwrap();
    assert_eq!(renamed.name, "Search the web for X");
    assert_eq!(renamed.created_at_ms, other.created_at_ms);
    let clash = store
        .update_action(&other.id, &action("open calculator"))
        .await
        .unwrap_err();
    assert!(matches!(clash, StoreError::Conflict(_)), "{clash:?}");
    let listed = store.actions(Some("搜索"), Page::default()).await.unwrap();
    assert_eq!(
        listed.items.iter().map(|a| &a.id).collect::<Vec<_>>(),
        [&other.id]
    );
    assert_eq!(store.actions(None, Page::default()).await.unwrap().total, 2);
    let keys = store.action_keys().await.unwrap();
    assert!(
        keys.iter()
            .any(|k| k.id == open.id && k.aliases == ["打开计算器", "calc"])
    );
    store
        .record_action_hits(std::slice::from_ref(&open.id), 77)
        .await
        .unwrap();
    let used = store.action(&open.id).await.unwrap();
    assert_eq!((used.hits, used.last_used_at_ms), (1, Some(77)));
    assert_eq!(
        store
            .actions_by_ids(std::slice::from_ref(&open.id))
            .await
            .unwrap(),
        [used]
    );
    store.delete_action(&open.id).await.unwrap();
    assert!(matches!(
        store.delete_action(&open.id).await.unwrap_err(),
        StoreError::NotFound(_)
    ));
}

pub async fn run_notes_append_in_order(store: &Store) {
    let note = |title: &str| MemoryNote {
        kind: MemoryKind::Experience,
        outcome: MemoryOutcome::Recalled,
        items: vec![MemoryItem {
            id: Some("e".into()),
            title: title.into(),
            score: Some(0.5),
            reason: None,
        }],
        note: "n".into(),
    };
    store
        .append_run_notes("r1", &[note("a"), note("b")])
        .await
        .unwrap();
    store.append_run_notes("r2", &[note("x")]).await.unwrap();
    store.append_run_notes("r1", &[note("c")]).await.unwrap();
    store.append_run_notes("r1", &[]).await.unwrap();
    let got = store
        .run_notes(&["r1".into(), "r2".into(), "r3".into()])
        .await
        .unwrap();
    let titles: Vec<(String, String)> = got
        .iter()
        .map(|(r, n)| (r.clone(), n.items[0].title.clone()))
        .collect();
    assert_eq!(
        titles,
        [("r1", "a"), ("r1", "b"), ("r1", "c"), ("r2", "x")]
            .map(|(r, t)| (r.to_owned(), t.to_owned()))
    );
    // Concurrent appends to one run all land, in some order.
    let mut tasks = Vec::new();
    for i in 0..8 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store
                .append_run_notes("r4", &[note(&format!("n{i}"))])
                .await
                .unwrap();
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(store.run_notes(&["r4".into()]).await.unwrap().len(), 8);
}

pub async fn jobs_are_claimed_once(store: &Store) {
    let daily = ScheduleKind::Cron {
        expr: "47 3 * * *".into(),
        tz: "UTC".into(),
    };
    let job = store
        .ensure_job(
            "experience_audit",
            &NewJob {
                kind: daily.clone(),
                enabled: true,
                next_fire_at_ms: Some(1_000),
            },
        )
        .await
        .unwrap();
    assert_eq!(
        (job.kind.clone(), job.next_fire_at_ms),
        (daily.clone(), Some(1_000))
    );
    let again = store
        .ensure_job(
            "experience_audit",
            &NewJob {
                kind: ScheduleKind::Every { seconds: 5 },
                enabled: false,
                next_fire_at_ms: Some(9),
            },
        )
        .await
        .unwrap();
    assert_eq!(again, job, "an existing job is kept as stored");
    assert_eq!(store.earliest_job_fire_at().await.unwrap(), Some(1_000));
    assert!(store.due_jobs(999, 10).await.unwrap().is_empty());
    let due = store.due_jobs(1_000, 10).await.unwrap();
    assert_eq!(due.len(), 1);
    let claim = JobClaim {
        name: "experience_audit".into(),
        version: due[0].version,
        fire_at_ms: 1_000,
        next_fire_at_ms: Some(2_000),
    };
    let (first, second) = tokio::join!(store.claim_job_fire(&claim), store.claim_job_fire(&claim));
    assert!(first.unwrap() ^ second.unwrap(), "exactly one claim wins");
    let moved = store.job("experience_audit").await.unwrap();
    assert_eq!(
        (moved.next_fire_at_ms, moved.last_fire_at_ms),
        (Some(2_000), Some(1_000))
    );
    let off = store
        .update_job(
            "experience_audit",
            &NewJob {
                kind: ScheduleKind::Every { seconds: 60 },
                enabled: false,
                next_fire_at_ms: Some(3_000),
            },
        )
        .await
        .unwrap();
    assert_eq!(off.kind, ScheduleKind::Every { seconds: 60 });
    assert!(off.version > moved.version);
    assert_eq!(store.earliest_job_fire_at().await.unwrap(), None, "off");
    assert!(matches!(
        store.job("nothing").await.unwrap_err(),
        StoreError::NotFound(_)
    ));
}

/// A page of a memory list and its total come from one snapshot, while rows are being written
/// (the audit panel waits for the passes' total to grow, then reads the newest pass), and a page
/// past the end still answers the total.
pub async fn memory_lists_total_agrees_with_its_page(store: &Store) {
    let writer = {
        let store = store.clone();
        tokio::spawn(async move {
            for i in 0..60 {
                store
                    .create_experience(&experience(&format!("task {i}"), "recipe"))
                    .await
                    .unwrap();
            }
        })
    };
    super::total_agrees_while_writing(writer, 60, |all| async move {
        store
            .experiences(&ExperienceFilter::default(), all)
            .await
            .unwrap()
    })
    .await;
    let past = Page {
        limit: 10,
        offset: 100,
    };
    let page = store
        .experiences(&ExperienceFilter::default(), past)
        .await
        .unwrap();
    assert_eq!((page.total, page.items.len()), (60, 0));
    let second = Page {
        limit: 25,
        offset: 25,
    };
    let newest_first: Vec<i64> = store
        .experiences(&ExperienceFilter::default(), second)
        .await
        .unwrap()
        .items
        .iter()
        .map(|x| x.updated_at_ms)
        .collect();
    assert_eq!(newest_first.len(), 25);
    assert!(
        newest_first.windows(2).all(|w| w[0] >= w[1]),
        "{newest_first:?}"
    );
}
