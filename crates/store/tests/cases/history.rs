//! The run history: every filter alone and combined, every sort both ways, keyset pages of
//! every size walked to the end (ties on the sort key included), an empty page, a cursor whose
//! run was deleted, and a cursor of another sort.

use deft_store::{
    NewDraftRun, NewTask, NewTaskRun, RunCursor, RunOrder, RunSortKey, RunStart, Store, StoreError,
    TaskRun, TaskRunFilter, TaskRunStatus, TaskTrigger,
};
use serde_json::json;

fn task(name: &str) -> NewTask {
    NewTask {
        name: name.into(),
        device: "local".into(),
        definition: json!({"name": name, "steps": [{"type": "wait", "seconds": 1}]}).to_string(),
        enabled: true,
        notify: Default::default(),
        folder: String::new(),
        tags: Vec::new(),
    }
}

fn started(run: RunStart) -> TaskRun {
    match run {
        RunStart::Started(run) => run,
        RunStart::Busy(run) => panic!("busy with {}", run.id),
    }
}

/// Fourteen runs of two tasks (pairs share a start, several share a duration), a draft's try,
/// one run that never started and one still running: every filter and sort has ties and gaps.
async fn history(store: &Store) -> (Vec<TaskRun>, String, String) {
    let a = store
        .create_task(&task("a"), &super::created())
        .await
        .unwrap();
    let b = store
        .create_task(&task("b"), &super::created())
        .await
        .unwrap();
    let triggers = [TaskTrigger::Manual, TaskTrigger::Schedule, TaskTrigger::Api];
    for i in 0..14_i64 {
        let task_id = if i % 2 == 0 { &a.id } else { &b.id };
        let start = 1_000 + (i / 2) * 10;
        let trigger = triggers[(i % 3) as usize];
        let new = NewTaskRun {
            task_id: task_id.clone(),
            trigger,
            schedule_id: (trigger == TaskTrigger::Schedule).then(|| format!("s{}", i % 2)),
            fire_at_ms: None,
            device: (i % 4 == 0).then(|| "phone".to_owned()),
            variables: serde_json::Map::new(),
            started_at_ms: start,
            owner: None,
            task_version: None,
        };
        let run = started(store.start_task_run(&new).await.unwrap());
        let status = if i % 3 == 2 {
            TaskRunStatus::Failed
        } else {
            TaskRunStatus::Ok
        };
        let took = (i * 7 % 5) * 100;
        store
            .finish_task_run(&run.id, status, None, start + took)
            .await
            .unwrap();
    }
    let draft = NewDraftRun {
        name: "draft".into(),
        device: "local".into(),
        variables: serde_json::Map::new(),
        started_at_ms: 1_030,
        owner: None,
    };
    let tried = started(store.start_draft_run(&draft).await.unwrap());
    store
        .finish_task_run(&tried.id, TaskRunStatus::Stopped, None, 1_330)
        .await
        .unwrap();
    let mut unstarted = manual_of(&a.id, 1_040);
    unstarted.trigger = TaskTrigger::Schedule;
    store
        .record_unstarted_run(&unstarted, TaskRunStatus::Skipped, "busy")
        .await
        .unwrap();
    started(
        store
            .start_task_run(&manual_of(&b.id, 1_050))
            .await
            .unwrap(),
    );
    let all = store
        .task_runs(&TaskRunFilter::default(), deft_store::Page::default())
        .await
        .unwrap();
    assert_eq!(all.total, 17);
    (all.items, a.id, b.id)
}

fn manual_of(task_id: &str, started_at_ms: i64) -> NewTaskRun {
    NewTaskRun {
        task_id: task_id.into(),
        trigger: TaskTrigger::Manual,
        schedule_id: None,
        fire_at_ms: None,
        device: None,
        variables: serde_json::Map::new(),
        started_at_ms,
        owner: None,
        task_version: None,
    }
}

/// `runs` in `order`, computed here: the key, then the start, then the id.
fn sorted(runs: &[TaskRun], order: RunOrder) -> Vec<String> {
    let mut runs: Vec<&TaskRun> = runs.iter().collect();
    let lead = |r: &TaskRun| match order.key {
        RunSortKey::Started => String::new(),
        RunSortKey::Duration => format!(
            "{:020}",
            r.ended_at_ms.map_or(-1, |e| e - r.started_at_ms) + 1
        ),
        RunSortKey::Status => r.status.as_str().to_owned(),
    };
    runs.sort_by(|x, y| (lead(x), x.started_at_ms, &x.id).cmp(&(lead(y), y.started_at_ms, &y.id)));
    if order.descending {
        runs.reverse();
    }
    runs.into_iter().map(|r| r.id.clone()).collect()
}

/// Every page of `filter` in `order`, `limit` at a time, followed by its cursors: the ids in
/// the order read. Every page answers the same total; only the last has no cursor.
async fn walk(store: &Store, filter: &TaskRunFilter, order: RunOrder, limit: u32) -> Vec<String> {
    let mut ids = Vec::new();
    let mut after: Option<RunCursor> = None;
    let mut total = None;
    loop {
        let page = store
            .task_run_page(filter, order, after.as_ref(), limit)
            .await
            .unwrap();
        assert!(page.items.len() <= limit as usize);
        assert_eq!(*total.get_or_insert(page.total), page.total, "one total");
        ids.extend(page.items.iter().map(|r| r.id.clone()));
        match page.next {
            Some(next) => {
                assert_eq!(
                    page.items.len(),
                    limit as usize,
                    "a full page before a next one"
                );
                // The cursor goes through its text, as it does through the API.
                after = Some(RunCursor::parse(&next.to_string(), order).unwrap());
            }
            None => break,
        }
    }
    assert_eq!(
        total.unwrap() as usize,
        ids.len(),
        "the total counts what the pages hold"
    );
    ids
}

fn orders() -> Vec<RunOrder> {
    RunSortKey::ALL
        .into_iter()
        .flat_map(|key| [true, false].map(|descending| RunOrder { key, descending }))
        .collect()
}

pub async fn run_history_sorts_and_pages_with_ties(store: &Store) {
    let (runs, _, _) = history(store).await;
    for order in orders() {
        let want = sorted(&runs, order);
        for limit in [1, 2, 3, 5, 17, 50] {
            assert_eq!(
                walk(store, &TaskRunFilter::default(), order, limit).await,
                want,
                "{order:?}, pages of {limit}"
            );
        }
    }
}

/// Whether a run (of task `a`, the second argument) passes a filter, said here.
type Keep = fn(&TaskRun, &str) -> bool;

pub async fn run_history_filters_alone_and_combined(store: &Store) {
    let (runs, a, _) = history(store).await;
    let filters: Vec<(TaskRunFilter, Keep)> = vec![
        (
            TaskRunFilter {
                task_id: Some(a.clone()),
                ..Default::default()
            },
            |r, a| r.task_id == a,
        ),
        (
            TaskRunFilter {
                schedule_id: Some("s1".into()),
                ..Default::default()
            },
            |r, _| r.schedule_id.as_deref() == Some("s1"),
        ),
        (
            TaskRunFilter {
                status: Some(TaskRunStatus::Failed),
                ..Default::default()
            },
            |r, _| r.status == TaskRunStatus::Failed,
        ),
        (
            TaskRunFilter {
                trigger: Some(TaskTrigger::Try),
                ..Default::default()
            },
            |r, _| r.trigger == TaskTrigger::Try,
        ),
        (
            TaskRunFilter {
                trigger: Some(TaskTrigger::Schedule),
                ..Default::default()
            },
            |r, _| r.trigger == TaskTrigger::Schedule,
        ),
        (
            TaskRunFilter {
                device: Some("phone".into()),
                ..Default::default()
            },
            |r, _| r.device == "phone",
        ),
        (
            TaskRunFilter {
                started_from_ms: Some(1_020),
                started_before_ms: Some(1_050),
                ..Default::default()
            },
            |r, _| (1_020..1_050).contains(&r.started_at_ms),
        ),
        (
            TaskRunFilter {
                task_id: Some(a.clone()),
                trigger: Some(TaskTrigger::Manual),
                status: Some(TaskRunStatus::Ok),
                device: Some("phone".into()),
                started_from_ms: Some(1_000),
                ..Default::default()
            },
            |r, a| {
                r.task_id == a
                    && r.trigger == TaskTrigger::Manual
                    && r.status == TaskRunStatus::Ok
                    && r.device == "phone"
                    && r.started_at_ms >= 1_000
            },
        ),
    ];
    for (filter, keep) in &filters {
        let matching: Vec<TaskRun> = runs.iter().filter(|r| keep(r, &a)).cloned().collect();
        assert!(
            !matching.is_empty() && matching.len() < runs.len(),
            "{filter:?} selects"
        );
        for order in orders() {
            assert_eq!(
                walk(store, filter, order, 2).await,
                sorted(&matching, order),
                "{filter:?} {order:?}"
            );
        }
    }
}

pub async fn run_history_edges_empty_deleted_and_foreign_cursors(store: &Store) {
    let (runs, a, _) = history(store).await;
    let none = TaskRunFilter {
        device: Some("nowhere".into()),
        ..Default::default()
    };
    let empty = store
        .task_run_page(&none, RunOrder::default(), None, 10)
        .await
        .unwrap();
    assert_eq!((empty.items.len(), empty.total, empty.next), (0, 0, None));

    // A cursor of a run that is deleted before the next page: it holds the run's sort key,
    // so the next page starts right after where the run was.
    let order = RunOrder {
        key: RunSortKey::Duration,
        descending: true,
    };
    let all = TaskRunFilter::default();
    let first = store.task_run_page(&all, order, None, 3).await.unwrap();
    let last = first.items.last().unwrap().clone();
    assert_eq!(last.task_id, a, "the page ends on a run of a");
    assert!(store.delete_task_runs(&a).await.unwrap() > 0);
    let rest = store
        .task_run_page(&all, order, first.next.as_ref(), 50)
        .await
        .unwrap();
    let want: Vec<String> = sorted(&runs, order)
        .into_iter()
        .skip(3)
        .filter(|id| runs.iter().any(|r| &r.id == id && r.task_id != a))
        .collect();
    assert_eq!(
        rest.items.iter().map(|r| r.id.clone()).collect::<Vec<_>>(),
        want
    );
    assert_eq!(rest.next, None);

    // A cursor of one sort given to another is refused.
    let err = store
        .task_run_page(&all, RunOrder::default(), first.next.as_ref(), 10)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
}

pub async fn retention_removes_exactly_the_ended_runs_started_before(store: &Store) {
    let (runs, _, _) = history(store).await;
    let running: Vec<&TaskRun> = runs
        .iter()
        .filter(|r| r.status == TaskRunStatus::Running)
        .collect();
    assert_eq!(running.len(), 1);
    // Before 1_030: the runs started at 1_000, 1_010 and 1_020 (six), and nothing at 1_030.
    let cutoff = 1_030;
    let mut old: Vec<String> = runs
        .iter()
        .filter(|r| r.started_at_ms < cutoff && r.status != TaskRunStatus::Running)
        .map(|r| r.id.clone())
        .collect();
    old.sort();
    assert_eq!(old.len(), 6);
    let mut listed = store.ended_task_runs_before(cutoff).await.unwrap();
    listed.sort();
    assert_eq!(listed, old, "listed, not removed");
    store
        .append_task_run_events(&old[0], &[(1, "{}".to_owned())])
        .await
        .unwrap();
    let mut removed = store.purge_task_runs_before(cutoff).await.unwrap();
    removed.sort();
    assert_eq!(removed, old);
    for id in &old {
        assert!(matches!(
            store.task_run(id).await,
            Err(StoreError::NotFound(_))
        ));
        assert!(store.task_run_events(id, 0).await.unwrap().is_empty());
    }
    let left = walk(store, &TaskRunFilter::default(), RunOrder::default(), 50).await;
    assert_eq!(left.len(), runs.len() - 6, "the newer runs stay");
    // Every ended run started before the far future goes; the running one stays.
    store.purge_task_runs_before(i64::MAX).await.unwrap();
    let left = walk(store, &TaskRunFilter::default(), RunOrder::default(), 50).await;
    assert_eq!(
        left,
        [running[0].id.clone()],
        "a running run is never removed"
    );
}
