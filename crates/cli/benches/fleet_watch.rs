//! Watching a run from another server of the fleet (the fleet issue's target: an event seen on
//! server A ≤ 50 ms after the owner emits it, p99, loopback). Two real `deft serve` processes
//! (`a`, `b`) on one scratch database of the test PostgreSQL (`DEFT_TEST_DATABASE_URL`); a
//! device (`pc1`, an in-process `DeviceClient` with the fixture tools) connected to `b`; the
//! model scripted. [`RUNS`] chats are started through `a`'s API for `pc1` (so `b` runs them),
//! each [`STEPS`] short tool steps then an answer, and every run is watched at once on `b`
//! (the owner: its in-memory log, what it emits) and on `a` (followed from the shared store,
//! woken by `LISTEN/NOTIFY`). For each event seen live on both, A's delay is the time between
//! `b`'s stream and `a`'s stream delivering it — the owner's emit as its own watchers see it,
//! to another server's watchers seeing it. Then [`STOPS`] chats whose step would take a
//! minute are stopped through `a` (the fleet issue: a stop from any server reaches the owner
//! within a second): from the stop request to `done` on `b`'s stream.
//!
//! Prints the figures; asserts nothing (timings are not tests).
//!
//!     cargo bench -p deft --bench fleet_watch

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark prints its figures
#![allow(clippy::unwrap_used)] // a benchmark's set-up failing is its failure

#[path = "../tests/common/console.rs"]
mod support;

#[path = "fleet/device.rs"]
mod device;

use std::time::{Duration, Instant};

use deft_link::DeviceClient;
use deft_test_support::TempDataDir;
use deft_test_support::model::{Reply, ScriptedModel, Turn};
use deft_test_support::postgres::with_scratch_database;
use device::{device, dispatcher};
use serde_json::json;
use support::{Api, Serve, ServeOptions};
use tokio_util::sync::CancellationToken;

/// Chats measured.
const RUNS: usize = 30;
/// Tool steps per chat (each a fixture `sleep` of [`STEP_MS`]).
const STEPS: usize = 5;
const STEP_MS: u64 = 20;
/// Chats stopped from the other server.
const STOPS: usize = 10;
/// The model's first answer of a run waits this long, so both streams are open before the
/// run's events come.
const FIRST_DELAY: Duration = Duration::from_millis(300);

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(bench());
}

async fn bench() {
    let model = ScriptedModel::start(script()).await;
    let model_url = model.base_url();
    with_scratch_database(move |database| async move {
        let dirs = [(); 2].map(|()| TempDataDir::new().unwrap());
        let [a, b] = [("a", &dirs[0]), ("b", &dirs[1])].map(|(name, dir)| {
            let mut opts = ServeOptions::shell(&model_url, dir.path());
            opts.env = vec![
                ("DATABASE_URL".into(), database.clone()),
                ("DEFT_FLEET_NAME".into(), name.into()),
                ("DEFT_NO_PHONES".into(), "1".into()),
            ];
            tokio::task::block_in_place(|| Serve::start(dir.path(), &opts))
        });
        let stop = CancellationToken::new();
        let url = b.url.replacen("http://", "ws://", 1) + "/ws";
        let client = DeviceClient::new(device(&url, "pc1", "bench"), dispatcher());
        tokio::spawn({
            let stop = stop.clone();
            async move { client.run(stop).await }
        });
        let (api_a, api_b) = (a.api(), b.api());
        until_held(&api_a).await;
        let mut delays = Vec::new();
        let mut own = Vec::new();
        for _ in 0..RUNS {
            let (run_id, _) = api_a.run(json!({"prompt": "steps", "device": "pc1"})).await;
            let (on_b, on_a) = tokio::join!(watch(&api_b, &run_id), watch(&api_a, &run_id));
            let opened = on_a.opened.max(on_b.opened);
            for (seq, seen_b) in &on_b.seen {
                if *seen_b <= opened {
                    continue; // replayed, not live
                }
                if let Some((_, seen_a)) = on_a.seen.iter().find(|(s, _)| s == seq) {
                    delays.push(seen_a.saturating_duration_since(*seen_b));
                }
            }
            own.push(on_b.seen.len());
        }
        report(&mut delays, own.iter().sum());
        let mut stops = Vec::with_capacity(STOPS);
        for _ in 0..STOPS {
            stops.push(stop_from_a(&api_a, &api_b).await);
        }
        stops.sort_unstable();
        println!(
            "  stop asked on a → done on b's stream, {STOPS} chats: p50 {:.1} ms, max {:.1} ms  \
             (target ≤ 1 s)",
            stops[STOPS / 2].as_secs_f64() * 1e3,
            stops[STOPS - 1].as_secs_f64() * 1e3
        );
        stop.cancel();
        drop((a, b));
    })
    .await;
    drop(model);
}

/// A chat on `pc1` (run by `b`) in a minute-long step, stopped through `a`: how long from the
/// stop request to `done` on `b`'s stream.
async fn stop_from_a(api_a: &Api, api_b: &Api) -> Duration {
    let (run_id, _) = api_a.run(json!({"prompt": "long", "device": "pc1"})).await;
    let mut on_b = api_b.stream(&run_id, None).await;
    on_b.next_of("step_start").await;
    let asked = Instant::now();
    let stopped = api_a
        .post("/api/agent/stop", &json!({"run_id": run_id}))
        .await;
    assert_eq!(stopped.status, 200, "{}", stopped.text);
    on_b.next_of("done").await;
    asked.elapsed()
}

/// Each run: [`STEPS`] tool calls (the first after [`FIRST_DELAY`]), then an answer.
fn script() -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::new();
    for _ in 0..RUNS {
        for step in 0..STEPS {
            turns.push(Box::new(move |_| {
                let reply = Reply::tool_call("sleep", json!({"ms": STEP_MS}));
                if step == 0 {
                    reply.with_delay(FIRST_DELAY)
                } else {
                    reply
                }
            }));
        }
        turns.push(Box::new(|_| Reply::text("done")));
    }
    for _ in 0..STOPS {
        turns.push(Box::new(|_| {
            Reply::tool_call("sleep", json!({"ms": 60_000}))
        }));
    }
    turns
}

/// What one server's stream of a run showed: when it was open, and when each seq arrived.
struct Seen {
    opened: Instant,
    seen: Vec<(u64, Instant)>,
}

/// Reads `run_id`'s stream on `api` through `done`, timing each event as it arrives.
async fn watch(api: &Api, run_id: &str) -> Seen {
    let mut stream = api.stream(run_id, None).await;
    assert_eq!(stream.status, 200);
    let opened = Instant::now();
    let mut seen = Vec::new();
    let read = async {
        while let Some(event) = stream.next().await {
            seen.push((event.id, Instant::now()));
            if event.event == "done" {
                break;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .expect("the run ended within 60 s");
    Seen { opened, seen }
}

fn report(delays: &mut [Duration], events: usize) {
    delays.sort_unstable();
    let at = |q: f64| {
        let i = ((delays.len() as f64 - 1.0) * q).round() as usize;
        delays.get(i).map_or(f64::NAN, |d| d.as_secs_f64() * 1e3)
    };
    println!(
        "watching from another server: {RUNS} runs on b asked on a, {events} events on b's \
         stream, {} seen live on both",
        delays.len()
    );
    println!(
        "  a's stream after b's: p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms  \
         (target ≤ 50 ms p99)",
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0)
    );
}

/// Until `api`'s server sees `pc1` held (30 s at most).
async fn until_held(api: &Api) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let view = api.get("/api/fleet").await.body;
        let held = view["servers"].as_array().is_some_and(|servers| {
            servers.iter().any(|s| {
                s["devices"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|d| d["id"] == "pc1"))
            })
        });
        if held {
            return;
        }
        assert!(Instant::now() < deadline, "pc1 was not held: {view:#}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
