//! The scheduler on a real SQLite store with a manual clock (nothing sleeps for real): fires at
//! the right times, wakes on a change, ignores what is switched off, keeps one instance per
//! task (busy skip / wait, bounded), survives a restart under both misfire policies, records
//! what never started, and stops cleanly.

mod scheduling;

use std::sync::Arc;
use std::time::Duration;

use deft_app::scheduler::{Clock, ManualClock, SchedulerEvent, SystemClock};
use deft_store::{
    BusyPolicy, MisfirePolicy, NewSchedule, NewTaskRun, Page, RunStart, ScheduleKind,
    TaskRunFilter, TaskRunStatus, TaskTrigger,
};
use scheduling::{DEADLINE, StoreHandler, T0, config, every, schedule, sqlite, start, task};

const S: Duration = Duration::from_secs(1);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fires_at_the_right_times() {
    let (_dir, store) = sqlite().await;
    let clock = Arc::new(ManualClock::new(T0));
    let handler = StoreHandler::new(&store, clock.clone(), true);
    let ten = task(&store, "every ten seconds").await;
    let minute = task(&store, "every minute").await;
    let interval = every(
        &store,
        &ten,
        10,
        MisfirePolicy::RunOnce,
        BusyPolicy::Skip,
        T0,
    )
    .await;
    let cron = ScheduleKind::Cron {
        expr: "* * * * *".into(),
        tz: "Europe/Berlin".into(),
    };
    let cron = schedule(
        &store,
        &minute,
        cron,
        MisfirePolicy::RunOnce,
        BusyPolicy::Skip,
        T0,
    )
    .await;
    let mut running = start(&store, handler.clone(), clock.clone(), config());

    let mut expected = Vec::new();
    for step in 1..=6_i64 {
        clock.advance(10 * S);
        let due = T0 + step * 10_000;
        expected.push((interval.id.clone(), due));
        if step == 6 {
            expected.push((cron.id.clone(), due));
        }
        handler.wait_started(expected.len() as u32).await;
    }
    let mut got: Vec<(String, i64)> = handler
        .calls
        .lock()
        .iter()
        .map(|f| (f.schedule_id.clone(), f.fire_at_ms))
        .collect();
    got.sort_by_key(|(id, at)| (*at, id != &interval.id));
    assert_eq!(got, expected, "each fire once, at its time, none early");
    assert!(
        handler
            .calls
            .lock()
            .iter()
            .all(|f| !f.missed && f.attempt == 1)
    );

    let interval = store.schedule(&interval.id).await.unwrap();
    assert_eq!(
        (interval.last_fire_at_ms, interval.next_fire_at_ms),
        (Some(T0 + 60_000), Some(T0 + 70_000))
    );
    let cron = store.schedule(&cron.id).await.unwrap();
    assert_eq!(cron.next_fire_at_ms, Some(T0 + 120_000));
    let (fire, run_id) = running.started().await;
    let run = store.task_run(&run_id).await.unwrap();
    assert_eq!(
        (run.trigger, run.schedule_id, run.fire_at_ms),
        (
            TaskTrigger::Schedule,
            Some(fire.schedule_id),
            Some(fire.fire_at_ms)
        )
    );
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_wakes_it_and_the_periodic_reread_catches_the_rest() {
    let (_dir, store) = sqlite().await;
    let clock = Arc::new(ManualClock::new(T0));
    let handler = StoreHandler::new(&store, clock.clone(), true);
    let mut running = start(&store, handler.clone(), clock.clone(), config());
    // Asleep until the re-read an hour from now: nothing is scheduled.
    let t = task(&store, "new").await;
    let now = ScheduleKind::Once { at_ms: T0 };
    let s = store
        .create_schedule(
            &t.id,
            &NewSchedule {
                kind: now,
                misfire: MisfirePolicy::RunOnce,
                busy: BusyPolicy::Skip,
                enabled: true,
                next_fire_at_ms: Some(T0),
            },
        )
        .await
        .unwrap();
    running.handle.schedules_changed();
    let (fire, _) = running.started().await;
    assert_eq!(
        (fire.schedule_id, fire.fire_at_ms),
        (s.id, T0),
        "without the clock moving"
    );

    // A schedule another server added (no wake here) fires at the next re-read.
    let other = task(&store, "added elsewhere").await;
    let elsewhere = every(
        &store,
        &other,
        1,
        MisfirePolicy::RunOnce,
        BusyPolicy::Skip,
        T0,
    )
    .await;
    clock.advance(Duration::from_secs(3_600));
    let (fire, _) = running.started().await;
    assert_eq!(fire.schedule_id, elsewhere.id);
    assert!(fire.missed, "an hour late: missed, and run once");
    assert_eq!(handler.calls.lock().len(), 2);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switched_off_schedules_and_tasks_do_not_fire() {
    let (_dir, store) = sqlite().await;
    let clock = Arc::new(ManualClock::new(T0));
    let handler = StoreHandler::new(&store, clock.clone(), true);
    let on = task(&store, "on").await;
    let off_task = task(&store, "off").await;
    let a = every(&store, &on, 5, MisfirePolicy::RunOnce, BusyPolicy::Skip, T0).await;
    let a = store
        .set_schedule_enabled(&a.id, false, a.next_fire_at_ms)
        .await
        .unwrap();
    let b = every(
        &store,
        &off_task,
        5,
        MisfirePolicy::RunOnce,
        BusyPolicy::Skip,
        T0,
    )
    .await;
    store.set_task_enabled(&off_task.id, false).await.unwrap();
    let b = store.schedule(&b.id).await.unwrap(); // switching its task moved its version
    let c = every(
        &store,
        &on,
        10,
        MisfirePolicy::RunOnce,
        BusyPolicy::Skip,
        T0,
    )
    .await;
    let mut running = start(&store, handler.clone(), clock.clone(), config());
    clock.advance(10 * S);
    // The switched-off ones were due first (at +5 s): had they been read, they would have
    // been claimed before C.
    let (fire, _) = running.started().await;
    assert_eq!(fire.schedule_id, c.id);
    for (s, version) in [(&a, a.version), (&b, b.version)] {
        let now = store.schedule(&s.id).await.unwrap();
        assert_eq!(
            (now.version, now.last_fire_at_ms, now.next_fire_at_ms),
            (version, None, Some(T0 + 5_000)),
            "untouched"
        );
    }
    assert_eq!(handler.calls.lock().len(), 1);

    // Back on: re-armed from now, so the time it was off is not a missed fire.
    store.set_task_enabled(&off_task.id, true).await.unwrap();
    let rearmed = deft_app::scheduler::rearm_task(&store, &off_task.id, clock.now_ms())
        .await
        .unwrap();
    assert_eq!(rearmed[0].next_fire_at_ms, Some(T0 + 15_000));
    running.handle.schedules_changed();
    clock.advance(5 * S);
    let (fire, _) = running.started().await;
    assert_eq!(
        (fire.schedule_id, fire.fire_at_ms, fire.missed),
        (b.id, T0 + 15_000, false)
    );
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_task_is_skipped_under_busy_skip() {
    let (_dir, store) = sqlite().await;
    let clock = Arc::new(ManualClock::new(T0));
    let handler = StoreHandler::new(&store, clock.clone(), false); // runs stay running
    let t = task(&store, "long").await;
    let s = every(&store, &t, 10, MisfirePolicy::RunOnce, BusyPolicy::Skip, T0).await;
    let mut running = start(&store, handler.clone(), clock.clone(), config());
    clock.advance(10 * S);
    let (_, first) = running.started().await;
    clock.advance(10 * S);
    let (fire, skipped, reason) = running.skipped().await;
    assert_eq!(
        (fire.schedule_id.as_str(), fire.fire_at_ms),
        (s.id.as_str(), T0 + 20_000)
    );
    assert_eq!(
        reason,
        format!(
            "skipped: the task was busy (task run {first} is running); the schedule's busy \
             policy is skip"
        )
    );
    let run = store.task_run(&skipped).await.unwrap();
    assert_eq!(
        (run.status, run.fire_at_ms, run.error.as_deref()),
        (
            TaskRunStatus::Skipped,
            Some(T0 + 20_000),
            Some(reason.as_str())
        )
    );
    assert_eq!(
        store.running_task_run(&t.id).await.unwrap().unwrap().id,
        first,
        "still the one instance"
    );
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_task_is_waited_for_under_busy_wait_and_the_wait_is_bounded() {
    let (_dir, store) = sqlite().await;
    let clock = Arc::new(ManualClock::new(T0));
    let handler = StoreHandler::new(&store, clock.clone(), false);
    let t = task(&store, "nightly").await;
    let s = every(
        &store,
        &t,
        3_600,
        MisfirePolicy::RunOnce,
        BusyPolicy::Wait,
        T0,
    )
    .await;
    // A person started the task by hand just before its fire.
    let RunStart::Started(manual) = store
        .start_task_run(&NewTaskRun {
            task_id: t.id.clone(),
            trigger: TaskTrigger::Manual,
            schedule_id: None,
            fire_at_ms: None,
            device: None,
            variables: serde_json::Map::new(),
            started_at_ms: T0,
            owner: None,
            task_version: None,
        })
        .await
        .unwrap()
    else {
        panic!("the manual run starts")
    };
    let mut running = start(&store, handler.clone(), clock.clone(), config());
    clock.advance(Duration::from_secs(3_600));
    let (fire, reason) = running
        .event(|e| match e {
            SchedulerEvent::Waiting { fire, reason } => Some((fire.clone(), reason.clone())),
            _ => None,
        })
        .await;
    assert_eq!((fire.fire_at_ms, fire.attempt), (T0 + 3_600_000, 1));
    assert_eq!(reason, format!("task run {} is running", manual.id));

    // The manual run ends: the waiting fire runs at once, without the clock moving.
    store
        .finish_task_run(&manual.id, TaskRunStatus::Ok, None, clock.now_ms())
        .await
        .unwrap();
    running.handle.run_ended(&t.id);
    let (fire, scheduled) = running.started().await;
    assert_eq!(
        (fire.schedule_id.as_str(), fire.fire_at_ms),
        (s.id.as_str(), T0 + 3_600_000)
    );
    assert!(fire.attempt >= 2, "{fire:?}");

    // That run holds the task past the next fire; the next fire waits, rechecking every 10 s,
    // and gives up after the 10 minutes the config allows.
    clock.advance(Duration::from_secs(3_600));
    let (fire, _) = running
        .event(|e| match e {
            SchedulerEvent::Waiting { fire, reason } => Some((fire.clone(), reason.clone())),
            _ => None,
        })
        .await;
    assert_eq!(fire.fire_at_ms, T0 + 7_200_000);
    for _ in 0..60 {
        clock.advance(10 * S);
    }
    let (fire, _, reason) = running.skipped().await;
    assert_eq!(fire.fire_at_ms, T0 + 7_200_000);
    assert_eq!(
        reason,
        format!(
            "skipped: the task was still busy after waiting 10 min (task run {scheduled} is \
             running)"
        )
    );
    assert!(
        handler
            .calls
            .lock()
            .iter()
            .filter(|f| f.fire_at_ms == T0 + 7_200_000)
            .count()
            >= 2,
        "it tried again while it waited"
    );
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_one_fire_per_schedule_waits() {
    let (_dir, store) = sqlite().await;
    let clock = Arc::new(ManualClock::new(T0));
    let handler = StoreHandler::new(&store, clock.clone(), false);
    let t = task(&store, "slow").await;
    every(&store, &t, 60, MisfirePolicy::RunOnce, BusyPolicy::Wait, T0).await;
    let mut running = start(&store, handler.clone(), clock.clone(), config());
    clock.advance(60 * S);
    running.started().await; // holds the task
    clock.advance(60 * S);
    running
        .event(|e| matches!(e, SchedulerEvent::Waiting { .. }).then_some(()))
        .await;
    clock.advance(60 * S);
    let (fire, _, reason) = running.skipped().await;
    assert_eq!(fire.fire_at_ms, T0 + 180_000);
    assert_eq!(
        reason,
        "skipped: an earlier fire of this schedule (due at 2026-12-02 12:02 UTC) is still \
         waiting for the task's running instance to end"
    );

    // Stopping records the fire still waiting.
    let mut events = running.handle.subscribe();
    running.stop().await;
    let stopped = loop {
        match events.recv().await.unwrap() {
            SchedulerEvent::Skipped { fire, reason, .. } => break (fire, reason),
            _ => continue,
        }
    };
    assert_eq!(stopped.0.fire_at_ms, T0 + 120_000);
    assert!(
        stopped
            .1
            .starts_with("skipped: the server stopped while this fire waited"),
        "{}",
        stopped.1
    );
}

#[allow(clippy::too_many_lines)] // two servers' lives on one file, with checks between
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restarts_run_a_missed_fire_once_or_skip_it_never_a_burst() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(T0));
    let (once_run, skipper, once) = {
        let store = deft_store::Store::open(dir.path(), None).await.unwrap();
        let a = task(&store, "run once").await;
        let b = task(&store, "skip").await;
        let c = task(&store, "at half past").await;
        let once_run = every(&store, &a, 60, MisfirePolicy::RunOnce, BusyPolicy::Skip, T0).await;
        let skipper = every(&store, &b, 60, MisfirePolicy::Skip, BusyPolicy::Skip, T0).await;
        let at = ScheduleKind::Once {
            at_ms: T0 + 1_800_000,
        };
        let once = schedule(&store, &c, at, MisfirePolicy::RunOnce, BusyPolicy::Skip, T0).await;
        let handler = StoreHandler::new(&store, clock.clone(), true);
        let running = start(&store, handler.clone(), clock.clone(), config());
        clock.advance(60 * S);
        handler.wait_started(2).await;
        running.stop().await;
        store.close().await;
        (once_run, skipper, once)
    };

    // Down for two hours: 119 fires of each interval and the once are missed.
    clock.advance(Duration::from_secs(7_200));
    let now = clock.now_ms();
    let store = deft_store::Store::open(dir.path(), None).await.unwrap();
    let handler = StoreHandler::new(&store, clock.clone(), true);
    let mut running = start(&store, handler.clone(), clock.clone(), config());
    let (skipped, _, reason) = running.skipped().await;
    assert_eq!(
        (skipped.schedule_id.as_str(), skipped.fire_at_ms),
        (skipper.id.as_str(), T0 + 120_000)
    );
    assert_eq!(
        reason,
        "missed: due at 2026-12-02 12:02 UTC, noticed 1 h 59 min late (no deft server was \
         running then); the schedule's misfire policy is skip"
    );
    handler.wait_started(2).await;
    let mut calls = handler.calls.lock().clone();
    calls.sort_by_key(|f| f.fire_at_ms);
    assert_eq!(
        calls
            .iter()
            .map(|f| (f.schedule_id.as_str(), f.fire_at_ms, f.missed))
            .collect::<Vec<_>>(),
        [
            (once_run.id.as_str(), T0 + 120_000, true),
            (once.id.as_str(), T0 + 1_800_000, true),
        ],
        "each missed fire runs once"
    );
    // Never a burst: one claim each since the restart, and the next fire is after now, in
    // the interval's phase.
    for (s, claims) in [(&once_run, 2), (&skipper, 2), (&once, 1)] {
        let s = store.schedule(&s.id).await.unwrap();
        assert_eq!(s.version, claims, "{}", s.id);
    }
    for s in [&once_run, &skipper] {
        let s = store.schedule(&s.id).await.unwrap();
        assert_eq!(s.next_fire_at_ms, Some(now + 60_000));
    }
    assert_eq!(
        store.schedule(&once.id).await.unwrap().next_fire_at_ms,
        None
    );
    let history = |schedule_id: &str| TaskRunFilter {
        schedule_id: Some(schedule_id.to_owned()),
        ..TaskRunFilter::default()
    };
    let statuses = |runs: deft_store::Paged<deft_store::TaskRun>| {
        runs.items.iter().map(|r| r.status).collect::<Vec<_>>()
    };
    assert_eq!(
        statuses(
            store
                .task_runs(&history(&skipper.id), Page::default())
                .await
                .unwrap()
        ),
        [TaskRunStatus::Skipped, TaskRunStatus::Ok],
        "newest first: the missed fire recorded, the one before the stop ran"
    );
    assert_eq!(
        statuses(
            store
                .task_runs(&history(&once_run.id), Page::default())
                .await
                .unwrap()
        ),
        [TaskRunStatus::Ok, TaskRunStatus::Ok]
    );

    // And on it goes, on time.
    clock.advance(60 * S);
    handler.wait_started(4).await;
    let on_time: Vec<_> = handler.calls.lock()[2..].iter().map(|f| f.missed).collect();
    assert_eq!(on_time, [false, false]);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_never_starts_is_recorded_as_failed() {
    let (_dir, store) = sqlite().await;
    let clock = Arc::new(ManualClock::new(T0));
    let handler = StoreHandler::new(&store, clock.clone(), true);
    let refused = task(&store, "on a phone").await;
    handler.refuse.lock().push(refused.id.clone());
    every(
        &store,
        &refused,
        10,
        MisfirePolicy::RunOnce,
        BusyPolicy::Skip,
        T0,
    )
    .await;
    // A spec that no longer parses (stored before a zone was dropped, say).
    let stale = task(&store, "stale zone").await;
    let bad = store
        .create_schedule(
            &stale.id,
            &NewSchedule {
                kind: ScheduleKind::Cron {
                    expr: "0 3 * * *".into(),
                    tz: "Europe/Atlantis".into(),
                },
                misfire: MisfirePolicy::RunOnce,
                busy: BusyPolicy::Skip,
                enabled: true,
                next_fire_at_ms: Some(T0 + 10_000),
            },
        )
        .await
        .unwrap();
    let mut running = start(&store, handler.clone(), clock.clone(), config());
    clock.advance(10 * S);
    let mut failures = Vec::new();
    for _ in 0..2 {
        failures.push(
            running
                .event(|e| match e {
                    SchedulerEvent::Failed {
                        fire,
                        run_id,
                        reason,
                    } => Some((fire.task_id.clone(), run_id.clone(), reason.clone())),
                    _ => None,
                })
                .await,
        );
    }
    failures.sort();
    let mut want = vec![
        (
            refused.id.clone(),
            "the device \"phone-7\" does not exist".to_owned(),
        ),
        (
            stale.id.clone(),
            "the schedule no longer parses and will not fire again: unknown time zone \
             \"Europe/Atlantis\": use an IANA name such as Europe/Berlin, America/New_York or UTC; \
             fix it and switch it on again"
                .to_owned(),
        ),
    ];
    want.sort();
    for ((task_id, run_id, reason), (want_task, want_reason)) in failures.iter().zip(&want) {
        assert_eq!((task_id, reason), (want_task, want_reason));
        let run = store.task_run(run_id).await.unwrap();
        assert_eq!(
            (run.status, run.error.as_ref()),
            (TaskRunStatus::Failed, Some(reason))
        );
    }
    assert_eq!(
        store.schedule(&bad.id).await.unwrap().next_fire_at_ms,
        None,
        "fires no more"
    );
    running.stop().await;
}

/// The system clock, for real: an every-second schedule fires on consecutive seconds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_system_clock_fires_for_real() {
    let (_dir, store) = sqlite().await;
    let clock = Arc::new(SystemClock);
    let handler = StoreHandler::new(&store, clock.clone(), true);
    let t = task(&store, "tick").await;
    let s = every(
        &store,
        &t,
        1,
        MisfirePolicy::RunOnce,
        BusyPolicy::Skip,
        clock.now_ms(),
    )
    .await;
    let first = s.next_fire_at_ms.unwrap();
    let mut running = start(&store, handler.clone(), clock.clone(), config());
    let (a, _) = running.started().await;
    let (b, _) = running.started().await;
    assert_eq!(a.fire_at_ms, first);
    assert_eq!(b.fire_at_ms, first + 1_000, "the next second, in phase");
    assert!(tokio::time::timeout(DEADLINE, running.stop()).await.is_ok());
}
