//! The fleet's store figures on a scratch database of the test PostgreSQL
//! (`DEFT_TEST_DATABASE_URL`), three servers each with a pool of its own, as three `deft serve`
//! would have:
//!
//! 1. **Claims**: [`JOBS`] jobs queued over 100 devices leased by the three servers, then one
//!    claimer per server claims (batches of 1, then of 32) and finishes each job until its
//!    queue is empty. Prints jobs/s for claim + finish (target ≥ 500) and checks that no job was
//!    claimed twice, none was left and every one is `done`; then how long a claim that finds
//!    nothing takes with those finished jobs kept (what an idle server pays every second).
//! 2. **Wake latency**: one server appends a run's events one at a time, 20 ms apart; another
//!    `listen()`s and, on each `RunEvents` notification, reads the new events back. Per event,
//!    the time until the watcher holds it, from just before the append call (upper bound) and
//!    from just after it returned (lower bound: the commit was somewhere in between). p50 / p90
//!    / p99 / max (target p99 ≤ 50 ms).
//! 3. **Lease churn**: a heartbeat round of the three servers (`renew_leases`, one statement
//!    each), the whole membership beat a server makes every 2 s, and 100 single `take_lease`
//!    renewals.
//!
//! Prints the figures; exits non-zero only when a job was lost or claimed twice (timings are
//! never asserted).
//!
//!     cargo bench -p deft-store --bench fleet

#![allow(clippy::print_stdout)] // a benchmark prints its figures
#![allow(clippy::unwrap_used)] // a benchmark's set-up failing is its failure

use std::collections::HashSet;
use std::time::{Duration, Instant};

use deft_protocol::{RunMode, RunStatus};
use deft_store::{
    Channel, FleetJobState, FleetServer, LeaseTake, Listener, NewFleetJob, RunRecord, Store, Usage,
};
use deft_test_support::postgres::with_scratch_database;
use sqlx::{AnyConnection, Connection};

/// Jobs queued for each claim batch size.
const JOBS: usize = 20_000;
/// Devices, leased round-robin by the servers.
const DEVICES: usize = 100;
/// Servers of the fleet.
const SERVERS: usize = 3;
/// Events appended for the wake latency, and the pause between two.
const EVENTS: u64 = 200;
const EVENT_GAP: Duration = Duration::from_millis(20);
/// Heartbeat rounds timed (and empty claims per server).
const ROUNDS: usize = 50;
/// Leases here last an hour: nothing lapses while the benchmark runs.
const TTL_MS: i64 = 3_600_000;

#[tokio::main]
async fn main() {
    with_scratch_database(|url| async move {
        let fleet = Fleet::start(&url).await;
        let lost = claims(&fleet, &url).await;
        wake_latency(&fleet).await;
        lease_churn(&fleet).await;
        for store in &fleet.stores {
            store.close().await;
        }
        assert!(lost.is_empty(), "claims went wrong: {}", lost.join("; "));
    })
    .await;
}

/// Three servers on one database, each with its own pool, holding the devices between them.
struct Fleet {
    stores: Vec<Store>,
    servers: Vec<String>,
    devices: Vec<String>,
}

impl Fleet {
    async fn start(url: &str) -> Fleet {
        let mut stores = Vec::new();
        let mut servers = Vec::new();
        for i in 0..SERVERS {
            let store = Store::connect(url).await.unwrap();
            let id = format!("server-{i}");
            let now = now_ms();
            store
                .register_server(&FleetServer {
                    id: id.clone(),
                    name: format!("bench-{i}"),
                    address: format!("http://127.0.0.1:{}", 9000 + i),
                    version: "bench".into(),
                    started_at_ms: now,
                    heartbeat_at_ms: now,
                    stopped_at_ms: None,
                })
                .await
                .unwrap();
            stores.push(store);
            servers.push(id);
        }
        let devices: Vec<String> = (0..DEVICES).map(|i| format!("device-{i:03}")).collect();
        for (i, device) in devices.iter().enumerate() {
            let s = i % SERVERS;
            let take = stores[s]
                .take_lease(device, &servers[s], now_ms(), TTL_MS)
                .await
                .unwrap();
            assert!(matches!(take, LeaseTake::Taken(_)), "{take:?}");
        }
        Fleet {
            stores,
            servers,
            devices,
        }
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The claim rounds (batch 1, batch 32); what went wrong, if anything.
async fn claims(fleet: &Fleet, url: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    for batch in [1, 32] {
        enqueue(fleet, batch).await;
        let took = Instant::now();
        let claimers: Vec<_> = (0..SERVERS)
            .map(|s| {
                let store = fleet.stores[s].clone();
                let server = fleet.servers[s].clone();
                tokio::spawn(claim_until_empty(store, server, batch))
            })
            .collect();
        let mut claimed = Vec::new();
        let mut per_server = Vec::new();
        for claimer in claimers {
            let (ids, busy) = claimer.await.unwrap();
            per_server.push(format!(
                "{} in {:.1} s ({:.0}/s)",
                ids.len(),
                busy.as_secs_f64(),
                ids.len() as f64 / busy.as_secs_f64()
            ));
            claimed.extend(ids);
        }
        let wall = took.elapsed();
        let unique: HashSet<&String> = claimed.iter().collect();
        let doubled = claimed.len() - unique.len();
        let (done, other) = job_states(url).await;
        println!(
            "claims, batch {batch:>2}: {} jobs claimed + finished by {SERVERS} servers in {:.2} s: \
             {:.0} jobs/s (target ≥ 500); per server {}",
            claimed.len(),
            wall.as_secs_f64(),
            claimed.len() as f64 / wall.as_secs_f64(),
            per_server.join(", ")
        );
        println!(
            "claims, batch {batch:>2}: claimed twice {doubled}, done in the store {done}, \
             in another state {other}"
        );
        if doubled > 0 || unique.len() != JOBS || done != JOBS as i64 || other != 0 {
            wrong.push(format!(
                "batch {batch}: {} claimed ({doubled} twice) of {JOBS}, {done} done, {other} \
                 not done",
                unique.len()
            ));
        }
        empty_claims(fleet, batch).await;
        clear_jobs(url).await;
    }
    wrong
}

/// A claim that finds nothing, as each server makes every second when idle, with the round's
/// finished jobs still in the table.
async fn empty_claims(fleet: &Fleet, batch: u32) {
    let mut times = Vec::new();
    for _ in 0..ROUNDS {
        for (store, server) in fleet.stores.iter().zip(&fleet.servers) {
            let t = Instant::now();
            let jobs = store
                .claim_fleet_jobs(server, now_ms(), batch)
                .await
                .unwrap();
            times.push(ms(t.elapsed()));
            assert!(jobs.is_empty(), "{server} claimed a job of an empty queue");
        }
    }
    times.sort_by(f64::total_cmp);
    quantiles(
        &format!("claims, batch {batch:>2}: a claim finding nothing, {JOBS} finished jobs kept"),
        &times,
    );
}

/// Queues [`JOBS`] jobs, one device after the other, from the three servers at once (as askers);
/// prints how fast.
async fn enqueue(fleet: &Fleet, batch: u32) {
    let took = Instant::now();
    let start = now_ms();
    let askers: Vec<_> = (0..SERVERS)
        .map(|s| {
            let store = fleet.stores[s].clone();
            let origin = fleet.servers[s].clone();
            let devices = fleet.devices.clone();
            tokio::spawn(async move {
                for n in (s..JOBS).step_by(SERVERS) {
                    let job = NewFleetJob {
                        id: uuid::Uuid::new_v4().to_string(),
                        device_id: devices[n % DEVICES].clone(),
                        kind: "agent_run".into(),
                        payload: format!("{{\"kind\":\"agent_run\",\"prompt\":\"job {n}\"}}"),
                        origin_server: origin.clone(),
                        created_at_ms: start + i64::try_from(n).unwrap(),
                    };
                    store.enqueue_fleet_job(&job).await.unwrap();
                }
            })
        })
        .collect();
    for asker in askers {
        asker.await.unwrap();
    }
    let secs = took.elapsed().as_secs_f64();
    println!(
        "claims, batch {batch:>2}: {JOBS} jobs queued by {SERVERS} servers at once in {secs:.2} s \
         ({:.0} jobs/s)",
        JOBS as f64 / secs
    );
}

/// Claims `batch` jobs at a time and finishes each, until nothing is left for `server`; the
/// ids it claimed and how long it took.
async fn claim_until_empty(store: Store, server: String, batch: u32) -> (Vec<String>, Duration) {
    let took = Instant::now();
    let mut ids = Vec::new();
    loop {
        let jobs = store
            .claim_fleet_jobs(&server, now_ms(), batch)
            .await
            .unwrap();
        if jobs.is_empty() {
            return (ids, took.elapsed());
        }
        for job in jobs {
            store
                .finish_fleet_job(&job.id, &server, FleetJobState::Done, "run-1", now_ms())
                .await
                .unwrap();
            ids.push(job.id);
        }
    }
}

/// Jobs `done`, and jobs in any other state.
async fn job_states(url: &str) -> (i64, i64) {
    let mut conn = AnyConnection::connect(url).await.unwrap();
    let done: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM fleet_jobs WHERE state = $1")
        .bind(FleetJobState::Done.as_str())
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let other: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM fleet_jobs WHERE state <> $1")
        .bind(FleetJobState::Done.as_str())
        .fetch_one(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    (done, other)
}

/// Empties the queue between the two batch sizes (and vacuums it, so the second round does not
/// pay for the first one's dead rows).
async fn clear_jobs(url: &str) {
    let mut conn = AnyConnection::connect(url).await.unwrap();
    sqlx::query("DELETE FROM fleet_jobs")
        .execute(&mut conn)
        .await
        .unwrap();
    sqlx::query("VACUUM ANALYZE fleet_jobs")
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
}

/// The owner (server 0) appends a run's events one by one; the watcher (server 1) listens and
/// reads them back on each notification.
async fn wake_latency(fleet: &Fleet) {
    let owner = &fleet.stores[0];
    let run_id = start_run(fleet).await;
    let listener = fleet.stores[1]
        .listen()
        .await
        .unwrap()
        .expect("PostgreSQL listens");
    let reader = tokio::spawn(watch(fleet.stores[1].clone(), listener, run_id.clone()));
    let mut before = Vec::new();
    let mut after = Vec::new();
    for seq in 1..=EVENTS {
        let event = format!("{{\"type\":\"delta\",\"seq\":{seq},\"text\":\"chunk {seq}\"}}");
        before.push(Instant::now());
        owner.append_events(&run_id, &[(seq, event)]).await.unwrap();
        after.push(Instant::now());
        tokio::time::sleep(EVENT_GAP).await;
    }
    let seen = reader.await.unwrap();
    let missed = seen.iter().filter(|s| s.is_none()).count();
    let mut append: Vec<f64> = before
        .iter()
        .zip(&after)
        .map(|(b, a)| ms(*a - *b))
        .collect();
    append.sort_by(f64::total_cmp);
    println!(
        "wake latency, {EVENTS} events {} ms apart, {missed} not read back:",
        EVENT_GAP.as_millis()
    );
    quantiles("  append_events call (owner)", &append);
    quantiles(
        "  read back, from before the append",
        &since(&before, &seen),
    );
    quantiles("  read back, from after the append ", &since(&after, &seen));
    println!("  (target: p99 ≤ 50 ms from the owner's commit, which lies between the two)");
}

/// A running run of the owner (server 0) on device 0; its id.
async fn start_run(fleet: &Fleet) -> String {
    let owner = &fleet.stores[0];
    let conversation = owner.create_conversation("wake latency").await.unwrap();
    let run_id = "wake-run".to_owned();
    owner
        .create_run(&RunRecord {
            id: run_id.clone(),
            conversation_id: conversation.id,
            device: fleet.devices[0].clone(),
            prompt: "wake".into(),
            mode: RunMode::Chat,
            status: RunStatus::Running,
            answer: String::new(),
            usage: Usage::default(),
            started_at_ms: now_ms(),
            finished_at_ms: None,
            owner: Some(fleet.servers[0].clone()),
        })
        .await
        .unwrap();
    run_id
}

/// The watcher: on each notification about `run_id`, reads its new events; when it held each
/// seq (index seq - 1). Gives up after 5 s without news.
async fn watch(watcher: Store, mut listener: Listener, run_id: String) -> Vec<Option<Instant>> {
    let mut seen: Vec<Option<Instant>> = vec![None; usize::try_from(EVENTS).unwrap()];
    let mut after = 0;
    while after < EVENTS {
        let Ok(next) = tokio::time::timeout(Duration::from_secs(5), listener.recv()).await else {
            break;
        };
        let (channel, payload) = next.unwrap();
        if channel != Channel::RunEvents || payload != run_id {
            continue;
        }
        for (seq, _) in watcher.events(&run_id, after).await.unwrap() {
            let slot = usize::try_from(seq - 1).ok().and_then(|i| seen.get_mut(i));
            if let Some(slot) = slot {
                slot.get_or_insert(Instant::now());
            }
            after = seq;
        }
    }
    seen
}

/// Per event read back, ms from `from` to when the watcher held it (negative when it held it
/// first), sorted.
fn since(from: &[Instant], seen: &[Option<Instant>]) -> Vec<f64> {
    let mut v: Vec<f64> = seen
        .iter()
        .zip(from)
        .filter_map(|(s, f)| s.map(|s| if s >= *f { ms(s - *f) } else { -ms(*f - s) }))
        .collect();
    v.sort_by(f64::total_cmp);
    v
}

fn quantiles(label: &str, sorted: &[f64]) {
    if sorted.is_empty() {
        println!("{label}: no samples");
        return;
    }
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    println!(
        "{label}: p50 {:>7.2} ms  p90 {:>7.2} ms  p99 {:>7.2} ms  max {:>7.2} ms",
        at(0.5),
        at(0.9),
        at(0.99),
        sorted[sorted.len() - 1]
    );
}

/// A heartbeat round of the three servers, the whole beat of one, and single lease takes.
async fn lease_churn(fleet: &Fleet) {
    let mut rounds = Vec::new();
    let mut beats = Vec::new();
    let mut takes = Vec::new();
    for _ in 0..ROUNDS {
        let t = Instant::now();
        for (store, server) in fleet.stores.iter().zip(&fleet.servers) {
            let renewed = store.renew_leases(server, now_ms(), TTL_MS).await.unwrap();
            assert!(!renewed.is_empty(), "{server} renewed no lease");
        }
        rounds.push(ms(t.elapsed()));

        // What `keep_membership` does every beat: heartbeat, renew, read the servers.
        let (store, server) = (&fleet.stores[0], &fleet.servers[0]);
        let t = Instant::now();
        store.heartbeat_server(server, now_ms()).await.unwrap();
        store.renew_leases(server, now_ms(), TTL_MS).await.unwrap();
        store.fleet_servers().await.unwrap();
        beats.push(ms(t.elapsed()));

        let t = Instant::now();
        for (i, device) in fleet.devices.iter().enumerate() {
            let s = i % SERVERS;
            let take = fleet.stores[s]
                .take_lease(device, &fleet.servers[s], now_ms(), TTL_MS)
                .await
                .unwrap();
            assert!(matches!(take, LeaseTake::Taken(_)), "{take:?}");
        }
        takes.push(ms(t.elapsed()));
    }
    for v in [&mut rounds, &mut beats, &mut takes] {
        v.sort_by(f64::total_cmp);
    }
    println!("lease churn, {DEVICES} devices over {SERVERS} servers, {ROUNDS} rounds:");
    quantiles(
        "  heartbeat round (renew_leases × 3 servers, in turn)",
        &rounds,
    );
    quantiles(
        "  one server's beat (heartbeat + renew + fleet_servers)",
        &beats,
    );
    quantiles(
        &format!("  {DEVICES} take_lease renewals, one at a time"),
        &takes,
    );
}
