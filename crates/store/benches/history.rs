//! The run history at 100,000 runs: a team's 200 tasks, run by schedule, by hand, through the
//! API and as designer tries over 90 days on five devices, written into a fresh SQLite file (and
//! a fresh PostgreSQL database when `DEFT_TEST_DATABASE_URL` is set). Prints p50 / p90 of the
//! first page, the 900th page (its cursor reached by walking the 899 before it), filtered pages
//! and the other sorts' pages. Asserts nothing; the target is every page within 50 ms on SQLite.
//!
//!     cargo bench -p deft-store --bench history

#![allow(clippy::print_stdout)] // a benchmark prints its figures
#![allow(clippy::unwrap_used)] // a benchmark's set-up failing is its failure

use std::time::{Duration, Instant};

use deft_store::{
    RunCursor, RunOrder, RunSortKey, Store, TaskRunFilter, TaskRunStatus, TaskTrigger,
};
use sqlx::{AnyConnection, Connection};

const RUNS: usize = 100_000;
const TASKS: usize = 200;
const PAGE: u32 = 100;
const DEEP: usize = 900;
const SAMPLES: usize = 30;
const DAY_MS: i64 = 86_400_000;
const START_MS: i64 = 1_780_000_000_000;
const DEVICES: [&str; 5] = ["local", "office", "phone", "lab-1", "lab-2"];

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("history.db");
    let url = format!("sqlite://{}?mode=rwc", file.display());
    bench("SQLite", &url).await;
    if let Ok(pg) = std::env::var("DEFT_TEST_DATABASE_URL") {
        let db = format!("deft_history_bench_{}", std::process::id());
        let mut admin = AnyConnection::connect(&pg).await.unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {db}")))
            .execute(&mut admin)
            .await
            .unwrap();
        let (base, _) = pg.rsplit_once('/').unwrap();
        bench("PostgreSQL", &format!("{base}/{db}")).await;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE {db} WITH (FORCE)"
        )))
        .execute(&mut admin)
        .await
        .unwrap();
    }
}

async fn bench(backend: &str, url: &str) {
    sqlx::any::install_default_drivers();
    let store = Store::connect(url).await.unwrap();
    let took = Instant::now();
    fill(url).await;
    println!(
        "{backend}: {RUNS} runs written in {:.1} s",
        took.elapsed().as_secs_f64()
    );
    let all = TaskRunFilter::default();
    let newest = RunOrder::default();
    let cases = cases();
    for (name, filter, order) in &cases {
        let times = sample(|| async {
            store
                .task_run_page(filter, *order, None, PAGE)
                .await
                .unwrap();
        })
        .await;
        report(backend, name, &times);
    }
    for order in [
        newest,
        order(RunSortKey::Duration, true),
        order(RunSortKey::Status, false),
    ] {
        let cursor = deep_cursor(&store, order).await;
        let times = sample(|| async {
            let page = store
                .task_run_page(&all, order, Some(&cursor), PAGE)
                .await
                .unwrap();
            assert_eq!(page.items.len(), PAGE as usize);
        })
        .await;
        let name = format!("page {DEEP} ({} {})", order.key.as_str(), order.direction());
        report(backend, &name, &times);
    }
    store.close().await;
}

/// The pages measured from the start: each sort, and filters alone and combined.
fn cases() -> Vec<(&'static str, TaskRunFilter, RunOrder)> {
    let all = TaskRunFilter::default();
    let newest = RunOrder::default();
    let task = TaskRunFilter {
        task_id: Some("task-17".into()),
        ..Default::default()
    };
    vec![
        ("first page, newest first", all.clone(), newest),
        (
            "first page, oldest first",
            all.clone(),
            order(RunSortKey::Started, false),
        ),
        (
            "first page, longest first",
            all.clone(),
            order(RunSortKey::Duration, true),
        ),
        (
            "first page, by status",
            all.clone(),
            order(RunSortKey::Status, false),
        ),
        ("one task", task.clone(), newest),
        (
            "one task, longest first",
            task,
            order(RunSortKey::Duration, true),
        ),
        (
            "failed",
            filter(|f| f.status = Some(TaskRunStatus::Failed)),
            newest,
        ),
        (
            "designer tries",
            filter(|f| f.trigger = Some(TaskTrigger::Try)),
            newest,
        ),
        (
            "tries, longest first",
            filter(|f| f.trigger = Some(TaskTrigger::Try)),
            order(RunSortKey::Duration, true),
        ),
        (
            "device lab-2",
            filter(|f| f.device = Some("lab-2".into())),
            newest,
        ),
        ("one week", filter(week), newest),
        (
            "one week, longest first",
            filter(week),
            order(RunSortKey::Duration, true),
        ),
        (
            "failed schedule runs on phone in a week",
            filter(|f| {
                week(f);
                f.status = Some(TaskRunStatus::Failed);
                f.trigger = Some(TaskTrigger::Schedule);
                f.device = Some("phone".into());
            }),
            newest,
        ),
    ]
}

fn order(key: RunSortKey, descending: bool) -> RunOrder {
    RunOrder { key, descending }
}

fn filter(set: impl Fn(&mut TaskRunFilter)) -> TaskRunFilter {
    let mut f = TaskRunFilter::default();
    set(&mut f);
    f
}

fn week(f: &mut TaskRunFilter) {
    f.started_from_ms = Some(START_MS + 40 * DAY_MS);
    f.started_before_ms = Some(START_MS + 47 * DAY_MS);
}

/// The cursor that starts page [`DEEP`], found by walking the pages before it.
async fn deep_cursor(store: &Store, order: RunOrder) -> RunCursor {
    let mut after = None;
    for _ in 1..DEEP {
        let page = store
            .task_run_page(&TaskRunFilter::default(), order, after.as_ref(), PAGE)
            .await
            .unwrap();
        after = page.next;
    }
    after.unwrap()
}

async fn sample<F, Fut>(run: F) -> Vec<Duration>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    run().await; // warm
    let mut times = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        let t = Instant::now();
        run().await;
        times.push(t.elapsed());
    }
    times.sort();
    times
}

fn report(backend: &str, name: &str, sorted: &[Duration]) {
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    println!(
        "{backend:<10} {name:<44} p50 {:>7.2} ms  p90 {:>7.2} ms",
        at(0.5).as_secs_f64() * 1e3,
        at(0.9).as_secs_f64() * 1e3
    );
}

/// Writes the runs straight into the table, 500 a statement: the store's own insert reads the
/// run back, which would make the set-up the benchmark's longest part.
async fn fill(url: &str) {
    let mut conn = AnyConnection::connect(url).await.unwrap();
    let mut tx = conn.begin().await.unwrap();
    let statuses = [
        "ok",
        "ok",
        "ok",
        "ok",
        "ok",
        "ok",
        "failed",
        "skipped",
        "stopped",
        "timed_out",
    ];
    let triggers = [
        "schedule", "schedule", "schedule", "schedule", "manual", "api", "schedule", "manual",
        "schedule", "try",
    ];
    let mut rows = Vec::with_capacity(500);
    // A small linear congruential generator: the same history every time.
    let mut seed: u64 = 29;
    let mut next = move |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 33) % n
    };
    for i in 0..RUNS {
        let started = START_MS + (i as i64) * (90 * DAY_MS / RUNS as i64) + next(1_000) as i64;
        let status = statuses[next(10) as usize];
        let trigger = triggers[next(10) as usize];
        let duration = next(600_000) as i64;
        let task = next(TASKS as u64);
        let device = DEVICES[next(5) as usize];
        let schedule = if trigger == "schedule" {
            format!("'sched-{task}'")
        } else {
            "NULL".into()
        };
        rows.push(format!(
            "('run-{i:06}', 'task-{task}', 'Task {task}', '{trigger}', {schedule}, '{device}', \
             '{status}', {started}, {}, '{{}}', {duration})",
            started + duration
        ));
        if rows.len() == 500 || i + 1 == RUNS {
            let sql = format!(
                "INSERT INTO task_runs (id, task_id, task_name, triggered_by, schedule_id, device, \
                 status, started_at_ms, ended_at_ms, variables, duration_ms) VALUES {}",
                rows.join(", ")
            );
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .execute(&mut *tx)
                .await
                .unwrap();
            rows.clear();
        }
    }
    tx.commit().await.unwrap();
    conn.close().await.unwrap();
}
