//! Jobs on the scheduler (the daily experience audit is one): a cron job at 03:47 fires at
//! 03:47 of each day on the manual clock, once across two servers on one database (the
//! test PostgreSQL and one SQLite file), and a fire missed while no server ran runs once, not
//! once per missed day.

#![allow(clippy::unwrap_used)] // test helpers: a failed set-up is a failed test

mod scheduling;

use std::sync::Arc;
use std::time::Duration;

use deft_app::scheduler::{
    Fire, FireHandler, FireOutcome, JobFire, JobHandler, ManualClock, Scheduler,
};
use deft_store::{NewJob, ScheduleKind, Store};
use deft_tasks::schedule::ScheduleSpec;
use futures::future::BoxFuture;
use parking_lot::Mutex;
use scheduling::{DEADLINE, config};
use tokio_util::sync::CancellationToken;

/// 2026-12-02T00:00:00Z.
const MIDNIGHT: i64 = 1_796_169_600_000;
const DAY: i64 = 86_400_000;
/// 03:47 in ms after midnight.
const AT_0347: i64 = (3 * 60 + 47) * 60_000;

/// Records every job fire; refuses task fires (there are no tasks here).
#[derive(Default)]
struct Recorder {
    fires: Mutex<Vec<JobFire>>,
}

impl JobHandler for Recorder {
    fn fire(&self, fire: JobFire) -> BoxFuture<'_, ()> {
        self.fires.lock().push(fire);
        Box::pin(async {})
    }
}

impl FireHandler for Recorder {
    fn fire(&self, _: Fire) -> BoxFuture<'_, FireOutcome> {
        Box::pin(async {
            FireOutcome::Refused {
                reason: "no tasks here".into(),
            }
        })
    }
}

fn daily() -> ScheduleKind {
    ScheduleKind::Cron {
        expr: "47 3 * * *".into(),
        tz: "UTC".into(),
    }
}

async fn arm(store: &Store, now: i64) {
    let first = ScheduleSpec::parse(&daily())
        .unwrap()
        .first_fire(now)
        .unwrap();
    store
        .ensure_job(
            "experience_audit",
            &NewJob {
                kind: daily(),
                enabled: true,
                next_fire_at_ms: Some(first),
            },
        )
        .await
        .unwrap();
}

fn start(store: &Store, rec: Arc<Recorder>, clock: Arc<ManualClock>) -> CancellationToken {
    let scheduler = Scheduler::new(store.clone(), rec.clone(), clock, config()).with_jobs(rec);
    let cancel = CancellationToken::new();
    tokio::spawn(scheduler.run(cancel.clone()));
    cancel
}

async fn wait_for(n: usize, count: impl Fn() -> usize) {
    tokio::time::timeout(DEADLINE, async {
        while count() < n {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{} of {n} job fires within {DEADLINE:?}", count()));
}

/// Three days on two servers: each day's 03:47 fire exactly once, at 03:47.
async fn daily_fires_once_across_servers(a: Store, b: Store) {
    let clock = Arc::new(ManualClock::new(MIDNIGHT));
    arm(&a, MIDNIGHT).await;
    let (rec_a, rec_b) = (Arc::new(Recorder::default()), Arc::new(Recorder::default()));
    let stop_a = start(&a, rec_a.clone(), clock.clone());
    let stop_b = start(&b, rec_b.clone(), clock.clone());
    let count = || rec_a.fires.lock().len() + rec_b.fires.lock().len();
    for day in 0..3 {
        clock.set(MIDNIGHT + day * DAY + AT_0347 - 1_000);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(count(), day as usize, "nothing before 03:47 of day {day}");
        clock.set(MIDNIGHT + day * DAY + AT_0347 + 500);
        wait_for(day as usize + 1, count).await;
    }
    stop_a.cancel();
    stop_b.cancel();
    let mut fires: Vec<JobFire> = rec_a.fires.lock().clone();
    fires.extend(rec_b.fires.lock().iter().cloned());
    fires.sort_by_key(|f| f.fire_at_ms);
    let at: Vec<i64> = fires.iter().map(|f| f.fire_at_ms).collect();
    assert_eq!(
        at,
        (0..3)
            .map(|d| MIDNIGHT + d * DAY + AT_0347)
            .collect::<Vec<_>>(),
        "one fire a day, at 03:47, none doubled"
    );
    assert!(
        fires
            .iter()
            .all(|f| !f.missed && f.name == "experience_audit")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daily_job_fires_once_a_day_across_two_servers_on_postgres() {
    deft_test_support::postgres::with_scratch_database(|url| async move {
        let a = Store::connect(&url).await.unwrap();
        let b = Store::connect(&url).await.unwrap();
        daily_fires_once_across_servers(a.clone(), b.clone()).await;
        a.close().await;
        b.close().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daily_job_fires_once_a_day_across_two_servers_on_one_sqlite_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = Store::open(dir.path(), None).await.unwrap();
    let b = Store::open(dir.path(), None).await.unwrap();
    daily_fires_once_across_servers(a.clone(), b.clone()).await;
    a.close().await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fires_missed_while_no_server_ran_run_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), None).await.unwrap();
    arm(&store, MIDNIGHT).await;
    // The server comes back three days and a bit later.
    let clock = Arc::new(ManualClock::new(MIDNIGHT + 3 * DAY + AT_0347 + 3_600_000));
    let rec = Arc::new(Recorder::default());
    let stop = start(&store, rec.clone(), clock.clone());
    wait_for(1, || rec.fires.lock().len()).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let fires = rec.fires.lock().clone();
    assert_eq!(fires.len(), 1, "{fires:?}");
    assert!(fires[0].missed);
    assert_eq!(fires[0].fire_at_ms, MIDNIGHT + AT_0347);
    let job = store.job("experience_audit").await.unwrap();
    assert_eq!(
        job.next_fire_at_ms,
        Some(MIDNIGHT + 4 * DAY + AT_0347),
        "the next fire is the first after now"
    );
    stop.cancel();
}
