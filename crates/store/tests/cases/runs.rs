//! Runs and their event log.

use deft_protocol::{DoneStatus, RunMode, RunStatus};
use deft_store::{RunRecord, Store, StoreError, Usage};

use super::{usage, user};

pub(super) fn run(id: &str, conversation_id: &str, started_at_ms: i64) -> RunRecord {
    RunRecord {
        id: id.into(),
        conversation_id: conversation_id.into(),
        device: "local".into(),
        prompt: format!("prompt of {id}"),
        mode: RunMode::Chat,
        status: RunStatus::Running,
        answer: String::new(),
        usage: Usage::default(),
        started_at_ms,
        finished_at_ms: None,
        owner: None,
    }
}

pub async fn runs_create_finish_unfinished(store: &Store) {
    let conv = store.create_conversation("runs").await.unwrap();
    let r1 = run("run-1", &conv.id, 1_000);
    let r2 = RunRecord {
        mode: RunMode::Designer,
        ..run("run-2", &conv.id, 2_000)
    };
    store.create_run(&r2).await.unwrap();
    store.create_run(&r1).await.unwrap();
    assert_eq!(store.run("run-1").await.unwrap(), Some(r1.clone()));
    assert_eq!(
        store.unfinished_runs().await.unwrap(),
        vec![r1.clone(), r2.clone()],
        "oldest first"
    );

    let err = store.create_run(&r1).await.unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    assert_eq!(err.to_string(), "a run with id \"run-1\" already exists");

    let used = usage(3_480, 126, 2);
    store
        .finish_run(
            "run-1",
            DoneStatus::Completed,
            "The answer is 84.",
            &used,
            5_000,
        )
        .await
        .unwrap();
    let finished = store.run("run-1").await.unwrap().unwrap();
    assert_eq!(
        finished,
        RunRecord {
            status: DoneStatus::Completed.into(),
            answer: "The answer is 84.".into(),
            usage: used,
            finished_at_ms: Some(5_000),
            ..r1
        }
    );
    assert_eq!(store.unfinished_runs().await.unwrap(), vec![r2.clone()]);

    let err = store
        .finish_run("ghost", DoneStatus::Failed, "", &Usage::default(), 1)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound(_)), "{err:?}");
    assert_eq!(store.run("ghost").await.unwrap(), None);

    // A deleted conversation leaves its runs and their events readable.
    store.append_message(&conv.id, &user("q")).await.unwrap();
    store
        .append_events("run-2", &[(1, "{\"type\":\"delta\"}".into())])
        .await
        .unwrap();
    assert!(store.delete_conversation(&conv.id).await.unwrap());
    assert_eq!(store.run("run-2").await.unwrap(), Some(r2));
    assert_eq!(
        store.events("run-2", 0).await.unwrap(),
        vec![(1, "{\"type\":\"delta\"}".to_owned())]
    );
}

fn event(run: &str, seq: u64) -> String {
    format!("{{\"seq\":{seq},\"type\":\"delta\",\"text\":\"{run} 第{seq}段\"}}")
}

pub async fn events_idempotent_filtered_ordered(store: &Store) {
    let conv = store.create_conversation("events").await.unwrap();
    store.create_run(&run("r", &conv.id, 1)).await.unwrap();
    store.create_run(&run("other", &conv.id, 2)).await.unwrap();
    const N: u64 = 1_500;

    // Appended out of order, in batches of different sizes, with overlaps.
    let all: Vec<(u64, String)> = (1..=N).map(|s| (s, event("r", s))).collect();
    let mut batches: Vec<Vec<(u64, String)>> = all.chunks(97).map(|c| c.to_vec()).collect();
    batches.reverse();
    for b in &batches {
        store.append_events("r", b).await.unwrap();
    }
    store
        .append_events("other", &[(1, event("other", 1)), (2, event("other", 2))])
        .await
        .unwrap();

    let got = store.events("r", 0).await.unwrap();
    assert_eq!(got.len(), N as usize);
    assert_eq!(
        got, all,
        "ascending by seq (numerically: 999 < 1000 < 1500), each text intact"
    );

    // Idempotent: re-appending existing seqs (one whole batch, and a changed text) is ignored;
    // a batch may mix old and new seqs.
    store.append_events("r", &all[..700]).await.unwrap();
    store
        .append_events(
            "r",
            &[(5, "{\"changed\":true}".into()), (N + 1, event("r", N + 1))],
        )
        .await
        .unwrap();
    let got = store.events("r", 0).await.unwrap();
    assert_eq!(got.len(), N as usize + 1);
    assert_eq!(got[4], (5, event("r", 5)), "the first text of a seq stays");
    assert_eq!(got.last().unwrap(), &(N + 1, event("r", N + 1)));

    let tail = store.events("r", 1_490).await.unwrap();
    assert_eq!(
        tail.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        (1_491..=N + 1).collect::<Vec<_>>()
    );
    assert!(store.events("r", N + 1).await.unwrap().is_empty());
    assert!(store.events("r", u64::MAX).await.unwrap().is_empty());
    assert_eq!(
        store.events("other", 0).await.unwrap().len(),
        2,
        "runs do not mix"
    );
    assert!(store.events("no-such-run", 0).await.unwrap().is_empty());

    // The newest event of each run asked for (numerically newest: 1501 > 999), none for a run
    // without events.
    let mut newest = store
        .newest_events(&["r".into(), "other".into(), "no-such-run".into()])
        .await
        .unwrap();
    newest.sort();
    assert_eq!(
        newest,
        [
            ("other".to_owned(), event("other", 2)),
            ("r".to_owned(), event("r", N + 1))
        ]
    );
    assert!(store.newest_events(&[]).await.unwrap().is_empty());

    let err = store
        .append_events("no-such-run", &[(1, "{}".into())])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::NotFound(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "cannot append events to run \"no-such-run\": no such run"
    );
    store.append_events("no-such-run", &[]).await.unwrap();

    let err = store
        .append_events("r", &[(u64::MAX, "{}".into())])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::OutOfRange { .. }), "{err:?}");
}

pub async fn abandoned_runs_are_taken_over_once(store: &Store) {
    let conv = store.create_conversation("owners").await.unwrap();
    let mine = RunRecord {
        owner: Some("b".into()),
        ..run("run-b", &conv.id, 1_000)
    };
    store.create_run(&mine).await.unwrap();
    store
        .create_run(&run("run-old", &conv.id, 2_000))
        .await
        .unwrap();
    assert_eq!(
        store.run("run-b").await.unwrap().unwrap().owner.as_deref(),
        Some("b")
    );
    // two servers race for b's run: one wins
    let (x, y) = tokio::join!(
        store.take_over_run("run-b", Some("b"), "a"),
        store.take_over_run("run-b", Some("b"), "c"),
    );
    assert!(x.unwrap() ^ y.unwrap(), "exactly one takes it over");
    assert!(!store.take_over_run("run-b", Some("b"), "a").await.unwrap());
    // a run without an owner is taken over by naming none
    assert!(
        !store
            .take_over_run("run-old", Some("b"), "a")
            .await
            .unwrap()
    );
    assert!(store.take_over_run("run-old", None, "a").await.unwrap());
    assert_eq!(
        store
            .run("run-old")
            .await
            .unwrap()
            .unwrap()
            .owner
            .as_deref(),
        Some("a")
    );
    // an ended run is nobody's to take
    store
        .finish_run("run-old", DoneStatus::Failed, "x", &Usage::default(), 3_000)
        .await
        .unwrap();
    assert!(
        !store
            .take_over_run("run-old", Some("a"), "c")
            .await
            .unwrap()
    );
}
