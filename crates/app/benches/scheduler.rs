//! The scheduler with 10,000 enabled schedules: the process CPU time it uses while idle, the
//! cost of one pass over the store (what a wake or the periodic re-read costs), the latency of
//! one claim, and fires per second end to end (claim + hand-off) when 1,000 come due at once.
//! On a SQLite file, and on PostgreSQL when `DEFT_TEST_DATABASE_URL` is set. Prints figures;
//! asserts nothing.
//!
//!     cargo bench -p deft-app --bench scheduler

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures
#![allow(clippy::unwrap_used)] // bench set-up: a failed unwrap is a failed run

#[path = "../tests/scheduling/mod.rs"]
mod scheduling;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use deft_app::scheduler::{
    Clock, Fire, FireHandler, FireOutcome, ManualClock, SchedulerConfig, SystemClock,
};
use deft_store::{BusyPolicy, FireClaim, MisfirePolicy, NewSchedule, ScheduleKind, Store};
use futures::future::BoxFuture;
use rustix::time::{ClockId, clock_gettime};
use tokio::sync::Notify;

const TASKS: usize = 100;
const PER_TASK: usize = 100;
const IDLE: Duration = Duration::from_secs(5);
const CLAIMS: usize = 1_000;
const BURST: usize = 1_000;

/// Process CPU time (all threads: tokio's, sqlx's SQLite workers).
fn cpu() -> Duration {
    let t = clock_gettime(ClockId::ProcessCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap(),
        u32::try_from(t.tv_nsec).unwrap(),
    )
}

/// Answers every fire at once, touching nothing: what is left is the scheduler's own work.
struct Counting {
    fired: AtomicU64,
    done: Notify,
}

impl FireHandler for Counting {
    fn fire(&self, _fire: Fire) -> BoxFuture<'_, FireOutcome> {
        self.fired.fetch_add(1, Ordering::Relaxed);
        self.done.notify_waiters();
        Box::pin(async {
            FireOutcome::Started {
                run_id: "bench".into(),
            }
        })
    }
}

/// 10,000 daily schedules on 100 tasks, first fires spread over the day from `from_ms`.
async fn populate(store: &Store, from_ms: i64) -> Vec<deft_store::Schedule> {
    let mut tasks = tokio::task::JoinSet::new();
    for t in 0..TASKS {
        let store = store.clone();
        tasks.spawn(async move {
            let task = scheduling::task(&store, &format!("bench task {t}")).await;
            let mut made = Vec::with_capacity(PER_TASK);
            for s in 0..PER_TASK {
                let spread = i64::try_from((t * PER_TASK + s) * 8_640).unwrap();
                let new = NewSchedule {
                    kind: ScheduleKind::Every { seconds: 86_400 },
                    misfire: MisfirePolicy::RunOnce,
                    busy: BusyPolicy::Skip,
                    enabled: true,
                    next_fire_at_ms: Some(from_ms + spread),
                };
                made.push(store.create_schedule(&task.id, &new).await.unwrap());
            }
            made
        });
    }
    let mut all = Vec::new();
    while let Some(made) = tasks.join_next().await {
        all.extend(made.unwrap());
    }
    all
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[at]
}

async fn bench(label: &str, store: Store) {
    println!("== {label}");
    let now = SystemClock.now_ms();
    let started = Instant::now();
    let schedules = populate(&store, now + 3_600_000).await;
    println!(
        "  set-up: {} enabled schedules in {:.1?}",
        schedules.len(),
        started.elapsed()
    );

    idle_cpu(&store).await;
    one_pass(&store, now).await;
    claims(&store, &schedules).await;
    burst(&store, now).await;
}

async fn idle_cpu(store: &Store) {
    let handler = Arc::new(Counting {
        fired: AtomicU64::new(0),
        done: Notify::new(),
    });
    let running = scheduling::start(
        store,
        handler.clone(),
        Arc::new(SystemClock),
        SchedulerConfig::default(),
    );
    tokio::time::sleep(Duration::from_secs(1)).await; // its first pass
    let before = cpu();
    tokio::time::sleep(IDLE).await;
    let used = cpu() - before;
    running.stop().await;
    println!(
        "  idle: {:.2?} of process CPU over {IDLE:?} ({:.3} % of one core); fires: {}",
        used,
        used.as_secs_f64() / IDLE.as_secs_f64() * 100.0,
        handler.fired.load(Ordering::Relaxed)
    );
}

/// What one wake costs: the due query and the earliest-fire query over 10,000 schedules.
async fn one_pass(store: &Store, now: i64) {
    const PASSES: u32 = 50;
    let cpu_before = cpu();
    let started = Instant::now();
    for _ in 0..PASSES {
        let due = store.due_schedules(now, 200).await.unwrap();
        assert!(due.is_empty());
        store.earliest_fire_at().await.unwrap();
    }
    println!(
        "  one pass (due + earliest over 10,000): {:.2?} wall, {:.2?} process CPU",
        started.elapsed() / PASSES,
        (cpu() - cpu_before) / PASSES
    );
}

/// One claim after another, as a single server makes them.
async fn claims(store: &Store, schedules: &[deft_store::Schedule]) {
    let mut took = Vec::with_capacity(CLAIMS);
    for s in schedules.iter().take(CLAIMS) {
        let fire = s.next_fire_at_ms.unwrap();
        let claim = FireClaim {
            schedule_id: s.id.clone(),
            version: s.version,
            fire_at_ms: fire,
            next_fire_at_ms: Some(fire + 86_400_000),
        };
        let t = Instant::now();
        assert!(store.claim_fire(&claim).await.unwrap());
        took.push(t.elapsed());
    }
    took.sort();
    println!(
        "  claim latency over {CLAIMS}: p50 {:.2?}, p90 {:.2?}, p99 {:.2?}, max {:.2?}",
        percentile(&took, 0.5),
        percentile(&took, 0.9),
        percentile(&took, 0.99),
        took[took.len() - 1]
    );
}

/// 1,000 fires due at once beside the 10,000: read, claim and hand off each.
async fn burst(store: &Store, now: i64) {
    let task = scheduling::task(store, "burst").await;
    for _ in 0..BURST {
        let new = NewSchedule {
            kind: ScheduleKind::Every { seconds: 86_400 },
            misfire: MisfirePolicy::RunOnce,
            busy: BusyPolicy::Skip,
            enabled: true,
            next_fire_at_ms: Some(now),
        };
        store.create_schedule(&task.id, &new).await.unwrap();
    }
    let handler = Arc::new(Counting {
        fired: AtomicU64::new(0),
        done: Notify::new(),
    });
    let clock = Arc::new(ManualClock::new(now + 1));
    let started = Instant::now();
    let running = scheduling::start(store, handler.clone(), clock, SchedulerConfig::default());
    loop {
        let done = handler.done.notified();
        if handler.fired.load(Ordering::Relaxed) >= BURST as u64 {
            break;
        }
        done.await;
    }
    let took = started.elapsed();
    running.stop().await;
    println!(
        "  burst of {BURST} due fires: {took:.1?} ({:.2?} per fire: query, claim, hand-off)",
        took / u32::try_from(BURST).unwrap()
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), None).await.unwrap();
        bench("SQLite file", store.clone()).await;
        store.close().await;

        if std::env::var("DEFT_TEST_DATABASE_URL").is_ok_and(|u| !u.trim().is_empty()) {
            deft_test_support::postgres::with_scratch_database(|url| async move {
                let store = Store::connect(&url).await.unwrap();
                bench("PostgreSQL", store.clone()).await;
                store.close().await;
            })
            .await;
        } else {
            println!("== PostgreSQL: skipped (DEFT_TEST_DATABASE_URL is not set)");
        }
    });
}
