//! Two `deft serve` schedulers on one database, each with its own pool, racing for the same
//! fires: every fire is handled exactly once — none doubled, none lost. On the test PostgreSQL
//! (`DEFT_TEST_DATABASE_URL`; fails, never skips, without it) and on one SQLite file.
//!
//! Both run on one manual clock: the test moves it a second at a time and waits until that
//! second's fires are all handled, so the expected set of fires is exact.

#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test

mod scheduling;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use deft_app::scheduler::{ManualClock, SchedulerEvent};
use deft_store::{BusyPolicy, MisfirePolicy, Store};
use scheduling::{DEADLINE, StoreHandler, T0, config, every, start, task};

/// Schedules, with intervals of 1, 2 and 3 s.
const SCHEDULES: u64 = 60;
/// Seconds of fires.
const SECONDS: i64 = 24;

/// Runs the race; says how the fires and the lost claims split between the servers.
async fn every_fire_exactly_once(a: Store, b: Store) -> String {
    let clock = Arc::new(ManualClock::new(T0));
    let mut expected = Vec::new();
    for i in 0..SCHEDULES {
        let t = task(&a, &format!("task {i}")).await;
        let interval = i % 3 + 1;
        let s = every(
            &a,
            &t,
            interval,
            MisfirePolicy::RunOnce,
            BusyPolicy::Skip,
            T0,
        )
        .await;
        let step = i64::try_from(interval).unwrap() * 1_000;
        expected.extend(
            (1..)
                .map(|k| T0 + k * step)
                .take_while(|at| *at <= T0 + SECONDS * 1_000)
                .map(|at| (s.id.clone(), at)),
        );
    }
    expected.sort();

    let handler_a = StoreHandler::new(&a, clock.clone(), true);
    let handler_b = StoreHandler::new(&b, clock.clone(), true);
    let mut config_b = config();
    config_b.batch = 7; // different batch sizes: the two interleave differently
    let mut server_a = start(&a, handler_a.clone(), clock.clone(), config());
    let mut server_b = start(&b, handler_b.clone(), clock.clone(), config_b);
    let lost_a = count_claims_lost(&mut server_a.events);
    let lost_b = count_claims_lost(&mut server_b.events);

    for second in 1..=SECONDS {
        clock.advance(Duration::from_secs(1));
        let due = expected
            .iter()
            .filter(|(_, at)| *at <= T0 + second * 1_000)
            .count();
        let handled = || handler_a.started_count() + handler_b.started_count();
        tokio::time::timeout(DEADLINE, async {
            while (handled() as usize) < due {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("second {second}: {} of {due} fires handled", handled()));
    }
    server_a.stop().await;
    server_b.stop().await;

    let mut counts: BTreeMap<(String, i64), u32> = BTreeMap::new();
    for handler in [&handler_a, &handler_b] {
        for (key, n) in handler.started.lock().iter() {
            *counts.entry(key.clone()).or_default() += n;
        }
    }
    let doubled: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        doubled.is_empty(),
        "{} fires handled more than once, e.g. {:?}",
        doubled.len(),
        &doubled[..doubled.len().min(5)]
    );
    let handled: Vec<(String, i64)> = counts.into_keys().collect();
    assert_eq!(
        handled.len(),
        expected.len(),
        "every fire, none lost, none extra"
    );
    assert_eq!(handled, expected);
    format!(
        "{} fires: server A {} (lost {} claims), server B {} (lost {} claims)",
        expected.len(),
        handler_a.started_count(),
        lost_a.await.unwrap(),
        handler_b.started_count(),
        lost_b.await.unwrap(),
    )
}

/// Counts the claims a server lost to the other, until its events end.
fn count_claims_lost(
    events: &mut tokio::sync::broadcast::Receiver<SchedulerEvent>,
) -> tokio::task::JoinHandle<u64> {
    let mut events = events.resubscribe();
    tokio::spawn(async move {
        let mut lost = 0;
        loop {
            match events.recv().await {
                Ok(SchedulerEvent::ClaimLost { .. }) => lost += 1,
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return lost,
            }
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_postgres_run_each_fire_once() {
    deft_test_support::postgres::with_scratch_database(|url| async move {
        let a = Store::connect(&url).await.unwrap();
        let b = Store::connect(&url).await.unwrap();
        println!("{}", every_fire_exactly_once(a.clone(), b.clone()).await);
        a.close().await;
        b.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_one_sqlite_file_run_each_fire_once() {
    let dir = tempfile::tempdir().unwrap();
    let a = Store::open(dir.path(), None).await.unwrap();
    let b = Store::open(dir.path(), None).await.unwrap();
    println!("{}", every_fire_exactly_once(a.clone(), b.clone()).await);
    a.close().await;
    b.close().await;
}
