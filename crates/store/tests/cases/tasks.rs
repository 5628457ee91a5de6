//! Tasks, their schedules (with the fire claim) and task runs with their steps.

use deft_store::{
    BusyPolicy, DRAFT_TASK_ID, FireClaim, MatchedControl, MisfirePolicy, NewDraftRun, NewSchedule,
    NewTask, NewTaskRun, Page, RunStart, ScheduleKind, StepCounts, StepStatus, Store, StoreError,
    TaskFilter, TaskRunFilter, TaskRunStatus, TaskRunStep, TaskTrigger,
};
use serde_json::json;

fn new_task(name: &str) -> NewTask {
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

fn every(seconds: u64, next: Option<i64>) -> NewSchedule {
    NewSchedule {
        kind: ScheduleKind::Every { seconds },
        misfire: MisfirePolicy::RunOnce,
        busy: BusyPolicy::Skip,
        enabled: true,
        next_fire_at_ms: next,
    }
}

/// A new task `name` and a run of it started at 1.
pub(super) async fn started(store: &Store, name: &str) -> (deft_store::Task, deft_store::TaskRun) {
    let task = store
        .create_task(&new_task(name), &super::created())
        .await
        .unwrap();
    match store
        .start_task_run(&manual_run(&task.id, 1))
        .await
        .unwrap()
    {
        RunStart::Started(run) => (task, run),
        other => panic!("starts: {other:?}"),
    }
}

fn manual_run(task_id: &str, started_at_ms: i64) -> NewTaskRun {
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

fn not_found(err: StoreError, text: &str) {
    assert!(matches!(err, StoreError::NotFound(_)), "{err:?}");
    assert_eq!(err.to_string(), text);
}

pub async fn task_crud_and_listing(store: &Store) {
    let backup = store
        .create_task(&new_task("backup"), &super::created())
        .await
        .unwrap();
    assert_eq!(backup.name, "backup");
    assert!(backup.enabled);
    assert_eq!(store.task(&backup.id).await.unwrap(), backup);
    assert_eq!(store.task_by_name("backup").await.unwrap(), backup);

    let err = store
        .create_task(&new_task("backup"), &super::created())
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    assert_eq!(err.to_string(), "a task named \"backup\" already exists");
    let blank = store
        .create_task(&new_task("  "), &super::created())
        .await
        .unwrap_err();
    assert!(matches!(blank, StoreError::Invalid(_)), "{blank:?}");
    let no_device = NewTask {
        device: String::new(),
        ..new_task("x")
    };
    let err = store
        .create_task(&no_device, &super::created())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "task \"x\" needs a device (e.g. \"local\")"
    );

    let report = store
        .create_task(&new_task("report"), &super::created())
        .await
        .unwrap();
    let changed = NewTask {
        device: "browser".into(),
        definition: "{\"name\":\"report v2\",\"steps\":[]}".into(),
        ..new_task("report v2")
    };
    let updated = store
        .update_task(&report.id, &changed, &super::edited())
        .await
        .unwrap();
    assert_eq!(
        (updated.name.as_str(), updated.device.as_str()),
        ("report v2", "browser")
    );
    assert_eq!(updated.definition, changed.definition, "kept verbatim");
    assert_eq!(updated.created_at_ms, report.created_at_ms);
    let err = store
        .update_task(&report.id, &new_task("backup"), &super::edited())
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    let off = store.set_task_enabled(&report.id, false).await.unwrap();
    assert!(!off.enabled);

    not_found(
        store.task("ghost").await.unwrap_err(),
        "no task has the id \"ghost\"",
    );
    not_found(
        store.task_by_name("ghost").await.unwrap_err(),
        "no task is named \"ghost\"",
    );
    for err in [
        store
            .update_task("ghost", &new_task("g"), &super::edited())
            .await
            .unwrap_err(),
        store.set_task_enabled("ghost", true).await.unwrap_err(),
        store.delete_task("ghost").await.unwrap_err(),
    ] {
        not_found(err, "no task has the id \"ghost\"");
    }

    listing_shows_next_fire_and_last_run(store, &backup.id, &report.id).await;
    deleting_keeps_runs(store, &backup.id).await;
}

async fn listing_shows_next_fire_and_last_run(store: &Store, backup: &str, report: &str) {
    store
        .create_schedule(backup, &every(60, Some(9_000)))
        .await
        .unwrap();
    store
        .create_schedule(backup, &every(60, Some(5_000)))
        .await
        .unwrap();
    let off = NewSchedule {
        enabled: false,
        ..every(60, Some(1_000))
    };
    store.create_schedule(backup, &off).await.unwrap();
    let first = store
        .start_task_run(&manual_run(backup, 100))
        .await
        .unwrap();
    let RunStart::Started(first) = first else {
        panic!("{first:?}")
    };
    store
        .finish_task_run(&first.id, TaskRunStatus::Ok, None, 200)
        .await
        .unwrap();
    let second = store
        .start_task_run(&manual_run(backup, 300))
        .await
        .unwrap();
    let RunStart::Started(second) = second else {
        panic!("{second:?}")
    };

    let all = store
        .tasks(&TaskFilter::default(), Page::default())
        .await
        .unwrap();
    assert_eq!(all.total, 2);
    let names: Vec<_> = all.items.iter().map(|l| l.task.name.as_str()).collect();
    assert_eq!(names, ["backup", "report v2"], "by name");
    let b = &all.items[0];
    assert_eq!(b.schedule_count, 3);
    // Its schedules, the switched-off one too (in the store's order: created, then id).
    let mut switches: Vec<_> = b.schedules.iter().map(|s| s.enabled).collect();
    switches.sort_unstable();
    assert_eq!(switches, [false, true, true]);
    assert!(
        b.schedules
            .iter()
            .all(|s| s.kind == ScheduleKind::Every { seconds: 60 })
    );
    assert!(b.schedules.iter().all(|s| s.task_id == backup));
    assert_eq!(b.next_fire_at_ms, Some(5_000), "earliest enabled schedule");
    assert_eq!(b.last_run.as_ref(), Some(&second), "the latest started run");
    let r = &all.items[1];
    assert_eq!(r.task.id, report);
    assert_eq!((r.schedule_count, r.next_fire_at_ms), (0, None));
    assert!(r.schedules.is_empty());
    assert_eq!(r.last_run, None);

    listing_filters_by_name(store).await;

    let page = store
        .tasks(
            &TaskFilter::default(),
            Page {
                limit: 1,
                offset: 1,
            },
        )
        .await
        .unwrap();
    assert_eq!(page.total, 2);
    assert_eq!(page.items.len(), 1);
    assert_eq!(page.items[0].task.id, report);
    let err = store
        .tasks(
            &TaskFilter::default(),
            Page {
                limit: 0,
                offset: 0,
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    assert_eq!(err.to_string(), "a page holds 1 to 1000 items, not 0");
    store
        .finish_task_run(
            &second.id,
            TaskRunStatus::Stopped,
            Some("stopped by admin"),
            400,
        )
        .await
        .unwrap();
}

/// The name filter of the task list: a part of the name, any case; `%` and `_` are plain
/// characters; the total counts the matches; a filtered task keeps its schedules.
async fn listing_filters_by_name(store: &Store) {
    let named = |text: &str| TaskFilter {
        name_contains: Some(text.into()),
        ..TaskFilter::default()
    };
    for (text, expected) in [
        ("REPORT", vec!["report v2"]),
        ("a", vec!["backup"]),
        ("p", vec!["backup", "report v2"]),
        ("_", vec![]),
        ("%", vec![]),
        ("", vec!["backup", "report v2"]),
    ] {
        let found = store.tasks(&named(text), Page::default()).await.unwrap();
        let names: Vec<_> = found.items.iter().map(|l| l.task.name.as_str()).collect();
        assert_eq!(names, expected, "name contains {text:?}");
        assert_eq!(found.total, expected.len() as u64, "total for {text:?}");
    }
    let b_only = store.tasks(&named("back"), Page::default()).await.unwrap();
    assert_eq!(b_only.items[0].schedules.len(), 3);
}

async fn deleting_keeps_runs(store: &Store, task_id: &str) {
    let schedules = store.schedules_of_task(task_id).await.unwrap();
    assert_eq!(schedules.len(), 3);
    let runs_before = store
        .task_runs(
            &TaskRunFilter {
                task_id: Some(task_id.into()),
                ..TaskRunFilter::default()
            },
            Page::default(),
        )
        .await
        .unwrap();
    assert_eq!(runs_before.total, 2);

    store.delete_task(task_id).await.unwrap();
    not_found(
        store.task(task_id).await.unwrap_err(),
        &format!("no task has the id {task_id:?}"),
    );
    for s in &schedules {
        not_found(
            store.schedule(&s.id).await.unwrap_err(),
            &format!("no schedule has the id {:?}", s.id),
        );
    }
    assert!(store.schedules_of_task(task_id).await.is_err());
    let runs_after = store
        .task_runs(
            &TaskRunFilter {
                task_id: Some(task_id.into()),
                ..TaskRunFilter::default()
            },
            Page::default(),
        )
        .await
        .unwrap();
    assert_eq!(runs_after, runs_before, "the history outlives the task");
    assert_eq!(runs_after.items[0].task_name, "backup");
    assert_eq!(store.delete_task_runs(task_id).await.unwrap(), 2);
    assert!(store.task_run(&runs_after.items[0].id).await.is_err());
}

#[allow(clippy::too_many_lines)] // one walk through every schedule call, in order
pub async fn schedule_crud_and_claim(store: &Store) {
    let task = store
        .create_task(&new_task("t"), &super::created())
        .await
        .unwrap();
    let err = store
        .create_schedule("ghost", &every(5, Some(1)))
        .await
        .unwrap_err();
    not_found(err, "no task has the id \"ghost\"");

    let kinds = [
        ScheduleKind::Cron {
            expr: "47 3 * * *".into(),
            tz: "Europe/Berlin".into(),
        },
        ScheduleKind::Every { seconds: 300 },
        ScheduleKind::Once {
            at_ms: 1_796_461_200_000,
        },
    ];
    let mut created = Vec::new();
    for (i, kind) in kinds.iter().enumerate() {
        let new = NewSchedule {
            kind: kind.clone(),
            misfire: MisfirePolicy::Skip,
            busy: BusyPolicy::Wait,
            enabled: true,
            next_fire_at_ms: Some(1_000 * (i as i64 + 1)),
        };
        let s = store.create_schedule(&task.id, &new).await.unwrap();
        assert_eq!(
            (&s.kind, s.misfire, s.busy, s.enabled),
            (kind, MisfirePolicy::Skip, BusyPolicy::Wait, true)
        );
        assert_eq!((s.version, s.last_fire_at_ms), (0, None));
        assert_eq!(store.schedule(&s.id).await.unwrap(), s);
        created.push(s);
    }
    // Oldest first; two made in the same millisecond are ordered by id (the store's promise).
    let mut listed = created.clone();
    listed.sort_by(|a, b| (a.created_at_ms, &a.id).cmp(&(b.created_at_ms, &b.id)));
    assert_eq!(store.schedules_of_task(&task.id).await.unwrap(), listed);
    not_found(
        store.schedules_of_task("ghost").await.unwrap_err(),
        "no task has the id \"ghost\"",
    );

    // In the order they were made (the sort above may have moved same-millisecond ones).
    let [cron, interval, once] = &created[..] else {
        unreachable!()
    };
    assert_eq!(store.earliest_fire_at().await.unwrap(), Some(1_000));
    let due = store.due_schedules(2_000, 10).await.unwrap();
    assert_eq!(
        due.iter().map(|s| &s.id).collect::<Vec<_>>(),
        [&cron.id, &interval.id],
        "due at 2000, earliest first"
    );
    assert_eq!(store.due_schedules(2_000, 1).await.unwrap().len(), 1);

    // The claim: one winner per (version, fire).
    let claim = FireClaim {
        schedule_id: cron.id.clone(),
        version: cron.version,
        fire_at_ms: 1_000,
        next_fire_at_ms: Some(87_000),
    };
    assert!(store.claim_fire(&claim).await.unwrap());
    assert!(
        !store.claim_fire(&claim).await.unwrap(),
        "the same fire twice"
    );
    let moved = store.schedule(&cron.id).await.unwrap();
    assert_eq!(
        (moved.version, moved.next_fire_at_ms, moved.last_fire_at_ms),
        (1, Some(87_000), Some(1_000))
    );
    let stale_fire = FireClaim {
        version: 1,
        ..claim.clone()
    };
    assert!(
        !store.claim_fire(&stale_fire).await.unwrap(),
        "due at 87000 now"
    );

    // A person's change bumps the version: a claim read before it loses.
    let read = store.schedule(&interval.id).await.unwrap();
    let changed = store
        .update_schedule(
            &interval.id,
            &NewSchedule {
                kind: ScheduleKind::Every { seconds: 60 },
                misfire: MisfirePolicy::RunOnce,
                busy: BusyPolicy::Skip,
                enabled: true,
                next_fire_at_ms: Some(2_000),
            },
        )
        .await
        .unwrap();
    assert_eq!(changed.version, read.version + 1);
    assert_eq!(changed.kind, ScheduleKind::Every { seconds: 60 });
    assert_eq!(
        (changed.misfire, changed.busy),
        (MisfirePolicy::RunOnce, BusyPolicy::Skip)
    );
    let before_change = FireClaim {
        schedule_id: interval.id.clone(),
        version: read.version,
        fire_at_ms: 2_000,
        next_fire_at_ms: Some(62_000),
    };
    assert!(!store.claim_fire(&before_change).await.unwrap());

    // Off: not due, not claimable; on again with a new next fire.
    let off = store
        .set_schedule_enabled(&interval.id, false, Some(2_000))
        .await
        .unwrap();
    assert!(!off.enabled);
    let claim_off = FireClaim {
        version: off.version,
        ..before_change.clone()
    };
    assert!(!store.claim_fire(&claim_off).await.unwrap());
    assert_eq!(
        store.due_schedules(1_000_000, 10).await.unwrap().len(),
        2,
        "cron (87000) and once (3000)"
    );
    let on = store
        .set_schedule_enabled(&interval.id, true, Some(500))
        .await
        .unwrap();
    assert_eq!(store.earliest_fire_at().await.unwrap(), Some(500));

    // A once schedule that fired has no next fire: never due again.
    let last = FireClaim {
        schedule_id: once.id.clone(),
        version: once.version,
        fire_at_ms: 3_000,
        next_fire_at_ms: None,
    };
    assert!(store.claim_fire(&last).await.unwrap());
    let fired = store.schedule(&once.id).await.unwrap();
    assert_eq!(
        (fired.next_fire_at_ms, fired.last_fire_at_ms),
        (None, Some(3_000))
    );

    // A switched-off task's schedules do not fire, and a claim read before the switch loses.
    let read = store.schedule(&cron.id).await.unwrap();
    store.set_task_enabled(&task.id, false).await.unwrap();
    let before_switch = FireClaim {
        schedule_id: cron.id.clone(),
        version: read.version,
        fire_at_ms: 87_000,
        next_fire_at_ms: Some(173_000),
    };
    assert!(!store.claim_fire(&before_switch).await.unwrap());
    assert_eq!(store.earliest_fire_at().await.unwrap(), None);
    assert!(store.due_schedules(i64::MAX, 10).await.unwrap().is_empty());
    store.set_task_enabled(&task.id, true).await.unwrap();
    assert_eq!(store.earliest_fire_at().await.unwrap(), Some(500));

    store.delete_schedule(&on.id).await.unwrap();
    for err in [
        store.schedule(&on.id).await.unwrap_err(),
        store.delete_schedule(&on.id).await.unwrap_err(),
        store
            .update_schedule(&on.id, &every(1, None))
            .await
            .unwrap_err(),
        store
            .set_schedule_enabled(&on.id, true, None)
            .await
            .unwrap_err(),
    ] {
        not_found(err, &format!("no schedule has the id {:?}", on.id));
    }
    assert_eq!(store.earliest_fire_at().await.unwrap(), Some(87_000));
}

/// Many claimers on the pool race for the same fires: each fire has exactly one winner.
pub async fn concurrent_claims_have_one_winner(store: &Store) {
    const SCHEDULES: usize = 20;
    const CLAIMERS: usize = 6;
    let task = store
        .create_task(&new_task("race"), &super::created())
        .await
        .unwrap();
    let mut ids = Vec::new();
    for _ in 0..SCHEDULES {
        let s = store
            .create_schedule(&task.id, &every(1, Some(1_000)))
            .await
            .unwrap();
        ids.push(s.id);
    }
    let mut claimers = tokio::task::JoinSet::new();
    for _ in 0..CLAIMERS {
        let store = store.clone();
        let ids = ids.clone();
        claimers.spawn(async move {
            let mut won = Vec::new();
            for round in 0..3_i64 {
                for id in &ids {
                    let s = store.schedule(id).await.unwrap();
                    let fire = 1_000 + round * 1_000;
                    if s.next_fire_at_ms != Some(fire) {
                        continue; // someone else moved it on already
                    }
                    let claim = FireClaim {
                        schedule_id: id.clone(),
                        version: s.version,
                        fire_at_ms: fire,
                        next_fire_at_ms: Some(fire + 1_000),
                    };
                    if store.claim_fire(&claim).await.unwrap() {
                        won.push((id.clone(), fire));
                    }
                }
            }
            won
        });
    }
    let mut all = Vec::new();
    while let Some(won) = claimers.join_next().await {
        all.extend(won.unwrap());
    }
    all.sort();
    let mut unique = all.clone();
    unique.dedup();
    assert_eq!(all, unique, "no fire claimed twice");
    for id in &ids {
        let s = store.schedule(id).await.unwrap();
        let fires = all.iter().filter(|(i, _)| i == id).count();
        // Every claim moves the schedule on by one fire; version counts claims.
        assert_eq!(s.version as usize, fires, "{id}");
        assert_eq!(s.next_fire_at_ms, Some(1_000 + 1_000 * fires as i64));
    }
}

#[allow(clippy::too_many_lines)] // the life of a run: start, busy, skip, finish, errors
pub async fn task_runs_one_running_per_task(store: &Store) {
    let task = store
        .create_task(&new_task("one at a time"), &super::created())
        .await
        .unwrap();
    let scheduled = NewTaskRun {
        trigger: TaskTrigger::Schedule,
        schedule_id: Some("sched-1".into()),
        fire_at_ms: Some(990),
        variables: json!({"who": "Grüße", "n": 3}).as_object().unwrap().clone(),
        ..manual_run(&task.id, 1_000)
    };
    let RunStart::Started(run) = store.start_task_run(&scheduled).await.unwrap() else {
        panic!("the first run starts")
    };
    assert_eq!(run.status, TaskRunStatus::Running);
    assert_eq!(
        (run.task_name.as_str(), run.device.as_str()),
        ("one at a time", "local"),
        "copied from the task"
    );
    assert_eq!(
        (run.trigger, run.schedule_id.as_deref(), run.fire_at_ms),
        (TaskTrigger::Schedule, Some("sched-1"), Some(990))
    );
    assert_eq!(run.variables, scheduled.variables);
    assert_eq!((run.ended_at_ms, run.error.as_deref()), (None, None));
    assert_eq!(store.task_run(&run.id).await.unwrap(), run);
    assert_eq!(
        store.running_task_run(&task.id).await.unwrap(),
        Some(run.clone())
    );

    let again = store
        .start_task_run(&NewTaskRun {
            device: Some("browser".into()),
            ..manual_run(&task.id, 1_100)
        })
        .await
        .unwrap();
    assert_eq!(again, RunStart::Busy(run.clone()), "nothing recorded");
    let skipped = store
        .record_unstarted_run(&manual_run(&task.id, 1_200), TaskRunStatus::Skipped, "busy")
        .await
        .unwrap();
    assert_eq!(
        (
            skipped.status,
            skipped.ended_at_ms,
            skipped.error.as_deref()
        ),
        (TaskRunStatus::Skipped, Some(1_200), Some("busy"))
    );
    let err = store
        .record_unstarted_run(&manual_run(&task.id, 1), TaskRunStatus::Ok, "x")
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");

    let done = store
        .finish_task_run(&run.id, TaskRunStatus::Failed, Some("step 2 failed"), 2_000)
        .await
        .unwrap();
    assert_eq!(
        (done.status, done.ended_at_ms, done.error.as_deref()),
        (TaskRunStatus::Failed, Some(2_000), Some("step 2 failed"))
    );
    assert_eq!(store.running_task_run(&task.id).await.unwrap(), None);
    let err = store
        .finish_task_run(&run.id, TaskRunStatus::Stopped, None, 2_100)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("task run {:?} has already ended (failed)", run.id)
    );
    let err = store
        .finish_task_run(&run.id, TaskRunStatus::Running, None, 1)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");

    let RunStart::Started(next) = store
        .start_task_run(&NewTaskRun {
            device: Some("browser".into()),
            ..manual_run(&task.id, 3_000)
        })
        .await
        .unwrap()
    else {
        panic!("free again")
    };
    assert_eq!(next.device, "browser", "the run's own device");
    assert_eq!(store.running_task_runs().await.unwrap(), vec![next.clone()]);

    not_found(
        store
            .start_task_run(&manual_run("ghost", 1))
            .await
            .unwrap_err(),
        "no task has the id \"ghost\"",
    );
    not_found(
        store
            .record_unstarted_run(&manual_run("ghost", 1), TaskRunStatus::Skipped, "x")
            .await
            .unwrap_err(),
        "no task has the id \"ghost\"",
    );
    not_found(
        store.task_run("ghost").await.unwrap_err(),
        "no task run has the id \"ghost\"",
    );
    not_found(
        store
            .finish_task_run("ghost", TaskRunStatus::Ok, None, 1)
            .await
            .unwrap_err(),
        "no task run has the id \"ghost\"",
    );
    store
        .finish_task_run(&next.id, TaskRunStatus::Ok, None, 4_000)
        .await
        .unwrap();
    concurrent_starts_have_one_winner(store, &task.id).await;
}

/// Runs of a draft ("try it"): recorded without a task, under the draft's own name, one at a
/// time; their steps and end are recorded as a task run's.
pub async fn draft_runs_one_at_a_time(store: &Store) {
    let draft = |at: i64| NewDraftRun {
        name: "Calculator: 7 × 8".into(),
        device: "local".into(),
        variables: json!({"n": "8"}).as_object().unwrap().clone(),
        started_at_ms: at,
        owner: Some("server-a".into()),
    };
    let RunStart::Started(run) = store.start_draft_run(&draft(1_000)).await.unwrap() else {
        panic!("the first try starts")
    };
    assert_eq!(
        (
            run.task_id.as_str(),
            run.task_name.as_str(),
            run.trigger,
            run.device.as_str(),
            run.status
        ),
        (
            DRAFT_TASK_ID,
            "Calculator: 7 × 8",
            TaskTrigger::Try,
            "local",
            TaskRunStatus::Running
        )
    );
    assert_eq!(run.variables, draft(0).variables);
    assert_eq!(
        (run.owner.as_deref(), run.heartbeat_at_ms),
        (Some("server-a"), Some(1_000)),
        "its server's run, beating from its start"
    );
    assert_eq!(
        store.heartbeat_task_runs("server-a", 1_500).await.unwrap(),
        1
    );
    assert_eq!(
        store.task_run(&run.id).await.unwrap().heartbeat_at_ms,
        Some(1_500)
    );
    let run = store.task_run(&run.id).await.unwrap();
    assert_eq!(
        store.start_draft_run(&draft(1_100)).await.unwrap(),
        RunStart::Busy(run.clone()),
        "one try at a time"
    );
    // A task's runs are not held up by a try.
    let task = store
        .create_task(&new_task("beside a try"), &super::created())
        .await
        .unwrap();
    assert!(matches!(
        store
            .start_task_run(&manual_run(&task.id, 1_200))
            .await
            .unwrap(),
        RunStart::Started(_)
    ));
    store
        .finish_task_run(&run.id, TaskRunStatus::Ok, None, 2_000)
        .await
        .unwrap();
    let page = store
        .task_runs(
            &TaskRunFilter {
                task_id: Some(DRAFT_TASK_ID.into()),
                ..TaskRunFilter::default()
            },
            Page::default(),
        )
        .await
        .unwrap();
    assert_eq!(page.total, 1);
    assert_eq!(page.items[0].trigger, TaskTrigger::Try);
    assert!(matches!(
        store.start_draft_run(&draft(3_000)).await.unwrap(),
        RunStart::Started(_)
    ));
}

async fn concurrent_starts_have_one_winner(store: &Store, task_id: &str) {
    let mut starts = tokio::task::JoinSet::new();
    for i in 0..8 {
        let store = store.clone();
        let new = manual_run(task_id, 10_000 + i);
        starts.spawn(async move { store.start_task_run(&new).await.unwrap() });
    }
    let mut started = Vec::new();
    let mut busy = 0;
    while let Some(outcome) = starts.join_next().await {
        match outcome.unwrap() {
            RunStart::Started(run) => started.push(run),
            RunStart::Busy(_) => busy += 1,
        }
    }
    assert_eq!((started.len(), busy), (1, 7), "one instance at a time");
    assert_eq!(
        store.running_task_run(task_id).await.unwrap().as_ref(),
        Some(&started[0])
    );
}

pub async fn task_run_steps_and_counts(store: &Store) {
    let (_, run) = started(store, "calc").await;
    let step = |seq: u64, status: StepStatus| TaskRunStep {
        seq,
        path: format!("steps[{seq}]"),
        step_type: "click".into(),
        status,
        started_at_ms: 10 + seq as i64,
        duration_ms: 7,
        matched: None,
        healed_from: None,
        error: None,
        message: None,
        image_ids: Vec::new(),
    };
    let healed = TaskRunStep {
        matched: Some(MatchedControl {
            id: "42".into(),
            name: "Multiply ×".into(),
            score: 86,
            ..MatchedControl::default()
        }),
        healed_from: Some(json!({"text": "Multiply", "match": "exact"})),
        ..step(1, StepStatus::Ok)
    };
    let failed = TaskRunStep {
        error: Some("steps[2].selector matched nothing: no control named \"=\"".into()),
        image_ids: vec!["img-1".into(), "img-2".into()],
        ..step(2, StepStatus::Failed)
    };
    let said = TaskRunStep {
        message: Some("info: 7 × 8 = 56".into()),
        ..step(3, StepStatus::Ok)
    };
    let steps = vec![
        step(0, StepStatus::Ok),
        healed,
        failed,
        said,
        step(4, StepStatus::Skipped),
    ];
    // Recorded out of order; read back in order.
    for s in steps.iter().rev() {
        store.append_task_run_step(&run.id, s).await.unwrap();
    }
    assert_eq!(store.task_run_steps(&run.id).await.unwrap(), steps);
    assert_eq!(
        store.task_run(&run.id).await.unwrap().steps,
        StepCounts {
            ok: 3,
            failed: 1,
            skipped: 1,
            healed: 1
        }
    );

    let err = store
        .append_task_run_step(&run.id, &step(4, StepStatus::Ok))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    assert_eq!(
        store.task_run(&run.id).await.unwrap().steps.ok,
        3,
        "a refused step is not counted"
    );
    not_found(
        store
            .append_task_run_step("ghost", &step(0, StepStatus::Ok))
            .await
            .unwrap_err(),
        "cannot record a step of task run \"ghost\": no such run",
    );
    not_found(
        store.task_run_steps("ghost").await.unwrap_err(),
        "no task run has the id \"ghost\"",
    );
}

pub async fn task_runs_paged_newest_first(store: &Store) {
    let a = store
        .create_task(&new_task("a"), &super::created())
        .await
        .unwrap();
    let b = store
        .create_task(&new_task("b"), &super::created())
        .await
        .unwrap();
    let mut ids = Vec::new();
    for i in 0..25_i64 {
        let task = if i % 2 == 0 { &a } else { &b };
        let status = if i % 5 == 0 {
            TaskRunStatus::Failed
        } else {
            TaskRunStatus::Skipped
        };
        let new = NewTaskRun {
            schedule_id: (i % 3 == 0).then(|| "s3".to_owned()),
            ..manual_run(&task.id, 1_000 + i)
        };
        let run = store
            .record_unstarted_run(&new, status, "reason")
            .await
            .unwrap();
        ids.push(run.id);
    }
    let all = store
        .task_runs(&TaskRunFilter::default(), Page::default())
        .await
        .unwrap();
    assert_eq!(all.total, 25);
    let newest_first: Vec<_> = ids.iter().rev().cloned().collect();
    assert_eq!(
        all.items.iter().map(|r| r.id.clone()).collect::<Vec<_>>(),
        newest_first
    );
    let from = |offset: u64| async move {
        store
            .task_runs(&TaskRunFilter::default(), Page { limit: 10, offset })
            .await
            .unwrap()
    };
    let last = from(20).await;
    assert_eq!((last.total, last.items.len()), (25, 5));
    assert_eq!(last.items[4].id, ids[0]);
    let none = from(30).await;
    assert_eq!(
        (none.total, none.items.len()),
        (25, 0),
        "a page past the end still answers the total"
    );

    let of = |task_id: Option<&str>, schedule: Option<&str>, status| TaskRunFilter {
        task_id: task_id.map(str::to_owned),
        schedule_id: schedule.map(str::to_owned),
        status,
        ..TaskRunFilter::default()
    };
    let count = |f: TaskRunFilter| async move {
        let p = store.task_runs(&f, Page::default()).await.unwrap();
        assert_eq!(p.total as usize, p.items.len());
        p.total
    };
    assert_eq!(count(of(Some(&a.id), None, None)).await, 13);
    assert_eq!(count(of(Some(&b.id), None, None)).await, 12);
    assert_eq!(count(of(None, Some("s3"), None)).await, 9);
    assert_eq!(count(of(None, None, Some(TaskRunStatus::Failed))).await, 5);
    assert_eq!(
        count(of(Some(&a.id), None, Some(TaskRunStatus::Failed))).await,
        3,
        "0, 10, 20"
    );
    assert_eq!(count(of(Some("ghost"), None, None)).await, 0);

    // Purging keeps a running run.
    let RunStart::Started(running) = store
        .start_task_run(&manual_run(&a.id, 5_000))
        .await
        .unwrap()
    else {
        panic!("starts")
    };
    assert_eq!(store.delete_task_runs(&a.id).await.unwrap(), 13);
    assert_eq!(count(of(Some(&a.id), None, None)).await, 1);
    assert_eq!(store.task_run(&running.id).await.unwrap(), running);
}

pub async fn corrupt_task_rows_are_reported(store: &Store, url: &str) {
    use sqlx::{AnyConnection, Connection};
    let task = store
        .create_task(&new_task("corrupt"), &super::created())
        .await
        .unwrap();
    let schedule = store
        .create_schedule(&task.id, &every(5, Some(1)))
        .await
        .unwrap();
    let RunStart::Started(run) = store
        .start_task_run(&manual_run(&task.id, 1))
        .await
        .unwrap()
    else {
        panic!("starts")
    };
    let mut raw = AnyConnection::connect(url).await.unwrap();
    let mut corrupt = async |sql: &str, id: &str| {
        sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()))
            .bind(id)
            .execute(&mut raw)
            .await
            .unwrap();
    };
    corrupt(
        "UPDATE task_runs SET status = 'exploded' WHERE id = $1",
        &run.id,
    )
    .await;
    let err = store.task_run(&run.id).await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "corrupt data in task run {}, column status: unknown task run status \"exploded\"",
            run.id
        )
    );
    corrupt(
        "UPDATE task_runs SET status = 'ok', variables = '[1' WHERE id = $1",
        &run.id,
    )
    .await;
    let err = store.task_run(&run.id).await.unwrap_err().to_string();
    assert!(
        err.contains("column variables: not the expected JSON"),
        "{err}"
    );

    corrupt(
        "UPDATE schedules SET every_seconds = NULL WHERE id = $1",
        &schedule.id,
    )
    .await;
    let err = store.schedule(&schedule.id).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "corrupt data in schedule {}, column every_seconds: the every schedule has no \
             every_seconds",
            schedule.id
        )
    );
    corrupt(
        "UPDATE schedules SET every_seconds = 5, busy = 'panic' WHERE id = $1",
        &schedule.id,
    )
    .await;
    let err = store.schedule(&schedule.id).await.unwrap_err().to_string();
    assert!(
        err.ends_with("column busy: unknown busy policy \"panic\""),
        "{err}"
    );
    raw.close().await.unwrap();
}

/// The page and its total are one read: while runs are recorded, every listing's total is
/// exactly the number of runs it lists (a page large enough for all of them).
pub async fn task_runs_total_agrees_with_its_page(store: &Store) {
    let task = store
        .create_task(&new_task("busy"), &super::created())
        .await
        .unwrap();
    let writer = {
        let store = store.clone();
        let task_id = task.id.clone();
        tokio::spawn(async move {
            for i in 0..60_i64 {
                store
                    .record_unstarted_run(&manual_run(&task_id, i), TaskRunStatus::Skipped, "r")
                    .await
                    .unwrap();
            }
        })
    };
    super::total_agrees_while_writing(writer, 60, |all| async move {
        store
            .task_runs(&TaskRunFilter::default(), all)
            .await
            .unwrap()
    })
    .await;
}

/// The task list's page and total come from one snapshot while tasks are being created.
pub async fn task_list_total_agrees_with_its_page(store: &Store) {
    let writer = {
        let store = store.clone();
        tokio::spawn(async move {
            for i in 0..60 {
                store
                    .create_task(&new_task(&format!("listed {i:02}")), &super::created())
                    .await
                    .unwrap();
            }
        })
    };
    super::total_agrees_while_writing(writer, 60, |all| async move {
        store.tasks(&TaskFilter::default(), all).await.unwrap()
    })
    .await;
    let past_the_end = Page {
        limit: 10,
        offset: 100,
    };
    let page = store
        .tasks(&TaskFilter::default(), past_the_end)
        .await
        .unwrap();
    assert!(page.items.is_empty());
    assert_eq!(
        page.total, 60,
        "a page past the end still answers the total"
    );
}

/// A task run's event log keeps the agent run log's promises: ordered by seq, idempotent,
/// only for a known run, purged with the run.
pub async fn task_run_events_ordered_idempotent_and_purged(store: &Store) {
    let (task, run) = started(store, "events").await;
    let ev = |seq: u64| (seq, format!("{{\"seq\":{seq},\"type\":\"task_step\"}}"));
    let all: Vec<(u64, String)> = (1..=1_200).map(ev).collect();
    for chunk in all.chunks(500).rev() {
        store.append_task_run_events(&run.id, chunk).await.unwrap();
    }
    store
        .append_task_run_events(&run.id, &[(3, "{\"changed\":true}".into())])
        .await
        .unwrap();
    assert_eq!(store.task_run_events(&run.id, 0).await.unwrap(), all);
    assert_eq!(
        store.task_run_events(&run.id, 1_198).await.unwrap(),
        all[1_198..].to_vec()
    );
    assert!(
        store
            .task_run_events(&run.id, u64::MAX)
            .await
            .unwrap()
            .is_empty()
    );
    not_found(
        store
            .append_task_run_events("ghost", &[ev(1)])
            .await
            .unwrap_err(),
        "cannot append events to task run \"ghost\": no such task run",
    );
    assert!(
        store.events(&run.id, 0).await.unwrap().is_empty(),
        "not an agent run's"
    );

    store
        .finish_task_run(&run.id, TaskRunStatus::Ok, None, 2)
        .await
        .unwrap();
    assert_eq!(store.delete_task_runs(&task.id).await.unwrap(), 1);
    assert!(store.task_run_events(&run.id, 0).await.unwrap().is_empty());
}

/// A running run keeps its server and that server's heartbeat; a beat refreshes only the
/// server's own running runs.
pub async fn task_runs_keep_their_server_and_its_heartbeat(store: &Store) {
    let owned = |task_id: &str, owner: &str| NewTaskRun {
        owner: Some(owner.to_owned()),
        ..manual_run(task_id, 1_000)
    };
    let (a, b, c) = (
        store
            .create_task(&new_task("a"), &super::created())
            .await
            .unwrap(),
        store
            .create_task(&new_task("b"), &super::created())
            .await
            .unwrap(),
        store
            .create_task(&new_task("c"), &super::created())
            .await
            .unwrap(),
    );
    let start = |new: NewTaskRun| async move {
        match store.start_task_run(&new).await.unwrap() {
            RunStart::Started(r) => r,
            other => panic!("{other:?}"),
        }
    };
    let mine = start(owned(&a.id, "server-1")).await;
    let theirs = start(owned(&b.id, "server-2")).await;
    let ended = start(owned(&c.id, "server-1")).await;
    assert_eq!(
        (mine.owner.as_deref(), mine.heartbeat_at_ms),
        (Some("server-1"), Some(1_000)),
        "the start is the first beat"
    );
    store
        .finish_task_run(&ended.id, TaskRunStatus::Ok, None, 1_500)
        .await
        .unwrap();
    assert_eq!(
        store.heartbeat_task_runs("server-1", 2_000).await.unwrap(),
        1
    );
    let beat = |id: String| async move { store.task_run(&id).await.unwrap().heartbeat_at_ms };
    assert_eq!(beat(mine.id.clone()).await, Some(2_000));
    assert_eq!(
        beat(theirs.id.clone()).await,
        Some(1_000),
        "another server's"
    );
    assert_eq!(beat(ended.id.clone()).await, Some(1_000), "an ended run's");
    let skipped = store
        .record_unstarted_run(&owned(&a.id, "server-1"), TaskRunStatus::Skipped, "busy")
        .await
        .unwrap();
    assert_eq!((skipped.owner, skipped.heartbeat_at_ms), (None, None));
    assert_eq!(store.heartbeat_task_runs("nobody", 3_000).await.unwrap(), 0);
}
