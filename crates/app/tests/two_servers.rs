//! Several `deft serve` schedulers on one database, each with its own pool, racing for the same
//! fires: every fire is handled exactly once — none doubled, none lost. Three servers on the test
//! PostgreSQL (`DEFT_TEST_DATABASE_URL`; fails, never skips, without it), over 1,000 fires; two on
//! one SQLite file.
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
/// Seconds of fires (60 schedules every 1, 2 and 3 s: 1,020 fires).
const SECONDS: i64 = 28;

/// Runs the race; how many fires there were, and how they and the lost claims split between the
/// servers.
async fn every_fire_exactly_once(stores: &[Store]) -> (usize, String) {
    let a = &stores[0];
    let clock = Arc::new(ManualClock::new(T0));
    let mut expected = Vec::new();
    for i in 0..SCHEDULES {
        let t = task(a, &format!("task {i}")).await;
        let interval = i % 3 + 1;
        let s = every(
            a,
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

    let handlers: Vec<_> = stores
        .iter()
        .map(|store| StoreHandler::new(store, clock.clone(), true))
        .collect();
    let mut servers: Vec<_> = stores
        .iter()
        .zip(&handlers)
        .enumerate()
        .map(|(n, (store, handler))| {
            let mut config = config();
            // different batch sizes: the servers interleave differently
            config.batch = [config.batch, 7, 3][n % 3];
            start(store, handler.clone(), clock.clone(), config)
        })
        .collect();
    let lost: Vec<_> = servers
        .iter_mut()
        .map(|server| count_claims_lost(&mut server.events))
        .collect();

    let handled = || handlers.iter().map(|h| h.started_count()).sum::<u32>();
    for second in 1..=SECONDS {
        clock.advance(Duration::from_secs(1));
        let due = expected
            .iter()
            .filter(|(_, at)| *at <= T0 + second * 1_000)
            .count();
        tokio::time::timeout(DEADLINE, async {
            while (handled() as usize) < due {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("second {second}: {} of {due} fires handled", handled()));
    }
    for server in servers {
        server.stop().await;
    }

    let mut counts: BTreeMap<(String, i64), u32> = BTreeMap::new();
    for handler in &handlers {
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
    let mut split = Vec::new();
    for (n, (handler, lost)) in handlers.iter().zip(lost).enumerate() {
        split.push(format!(
            "server {n} {} (lost {} claims)",
            handler.started_count(),
            lost.await.unwrap()
        ));
    }
    (
        expected.len(),
        format!("{} fires: {}", expected.len(), split.join(", ")),
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
async fn three_servers_on_postgres_run_each_of_1000_fires_once() {
    deft_test_support::postgres::with_scratch_database(|url| async move {
        let mut stores = Vec::new();
        for _ in 0..3 {
            stores.push(Store::connect(&url).await.unwrap());
        }
        let (fires, split) = every_fire_exactly_once(&stores).await;
        println!("{split}");
        assert!(fires >= 1_000, "{fires} fires");
        for store in stores {
            store.close().await;
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_one_sqlite_file_run_each_fire_once() {
    let dir = tempfile::tempdir().unwrap();
    let a = Store::open(dir.path(), None).await.unwrap();
    let b = Store::open(dir.path(), None).await.unwrap();
    println!(
        "{}",
        every_fire_exactly_once(&[a.clone(), b.clone()]).await.1
    );
    a.close().await;
    b.close().await;
}
