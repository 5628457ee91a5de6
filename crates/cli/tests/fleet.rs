//! Fleets: several real `deft serve` processes on one PostgreSQL database (a scratch database
//! of the test server), with real `deft client` processes moving between them.

#![allow(clippy::unwrap_used)] // test code: an unwrap that fails is a failing test

#[path = "common/console.rs"]
mod support;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use deft_test_support::TempDataDir;
use deft_test_support::model::{Reply, ScriptedModel};
use deft_test_support::postgres::with_scratch_database;
use deft_test_support::proc::{
    GroupChild, Signal, fixture_bin, shell_with_fixture_table, signal_process,
};
use serde_json::{Value, json};
use support::{API_TOKEN, Api, DEVICE_TOKEN, Serve, ServeOptions, mjpeg_frames};

/// A lease lasts 1.5 s without renewal here (10 s by default), so failover is quick.
const LEASE_SECS: &str = "1.5";

/// Where the runs of a server that is never asked to run anything would ask the model.
const NO_MODEL: &str = "http://127.0.0.1:9";

/// A server of the fleet on `database`, named `name`.
fn member(dir: &Path, database: &str, name: &str) -> Serve {
    member_with_model(dir, database, name, NO_MODEL)
}

/// A server of the fleet on `database`, named `name`, whose runs ask the model at `model_url`.
fn member_with_model(dir: &Path, database: &str, name: &str, model_url: &str) -> Serve {
    Serve::start(dir, &member_options(dir, database, name, model_url))
}

/// How a server of the fleet on `database`, named `name`, starts.
fn member_options(dir: &Path, database: &str, name: &str, model_url: &str) -> ServeOptions {
    let mut opts = ServeOptions::shell(model_url, dir);
    opts.env = vec![
        ("DATABASE_URL".into(), database.into()),
        ("DEFT_FLEET_NAME".into(), name.into()),
        ("DEFT_FLEET_LEASE_SECS".into(), LEASE_SECS.into()),
    ];
    opts
}

/// A `deft client` with id `id` given `servers` in order; its stderr goes to a file.
struct Client {
    _child: GroupChild,
    stderr: std::path::PathBuf,
    _dir: TempDataDir,
}

impl Client {
    /// A client with the shell and the fixture tools (profile `shell`: no screen).
    fn start(servers: &[&str], id: &str) -> Client {
        Client::start_as(servers, id, "shell", shell_with_fixture_table)
    }

    /// A client whose profile `screen` has the fixture's tools, its screenshot among them (a
    /// device with a screen for the live view).
    fn start_with_screen(servers: &[&str], id: &str) -> Client {
        Client::start_as(servers, id, "screen", |dir| {
            let path = dir.join("tools.yaml");
            let yaml = format!(
                "profiles:\n  screen:\n    HostAgent:\n      default:\n        data_collection:\n          - {{namespace: fixture, type: stdio, command: \"{}\", tools: [capture_desktop_screenshot]}}\n",
                fixture_bin().display()
            );
            std::fs::write(&path, yaml).unwrap();
            path
        })
    }

    fn start_as(
        servers: &[&str],
        id: &str,
        profile: &str,
        table: impl Fn(&Path) -> std::path::PathBuf,
    ) -> Client {
        let dir = TempDataDir::new().unwrap();
        let tools = table(dir.path());
        let stderr = dir.path().join("stderr.txt");
        let mut cmd = deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"));
        cmd.arg("--data-dir")
            .arg(dir.path())
            .arg("--tools-config")
            .arg(&tools)
            .args(["client", "--server", &servers.join(","), "--id", id])
            .args(["--profile", profile, "--heartbeat-secs", "0.3"])
            .args(["--silence-secs", "1.5", "--backoff-max-secs", "0.5"])
            .env("DEFT_DEVICE_TOKEN", DEVICE_TOKEN)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).unwrap());
        Client {
            _child: GroupChild::spawn(cmd).expect("spawn deft client"),
            stderr,
            _dir: dir,
        }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

/// Three servers (`a`, `b`, `c`, in `dirs`) on `database` whose runs ask the model at
/// `model_url`, and `pc1`'s client connected to `b`, once `a` sees `b` hold it (epoch 1).
fn three_with_pc1_on_b(
    dirs: &[TempDataDir; 3],
    database: &str,
    model_url: &str,
) -> ([Serve; 3], Client) {
    let servers = [("a", 0), ("b", 1), ("c", 2)]
        .map(|(name, i)| member_with_model(dirs[i].path(), database, name, model_url));
    let client = Client::start(&[&servers[1].url], "pc1");
    tokio::task::block_in_place(|| {
        until(&servers[0], "pc1 held by b", |v| {
            holder(v, "pc1") == Some(("b".into(), 1))
        })
    });
    (servers, client)
}

/// `deft fleet --json` against `server`.
fn fleet(server: &Serve) -> Value {
    let out = deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"))
        .args(["fleet", "--server", &server.url, "--json"])
        .env("DEFT_API_TOKEN", API_TOKEN)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "deft fleet failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The server (by name) that holds `device` in `view`, with the lease's epoch.
fn holder(view: &Value, device: &str) -> Option<(String, u64)> {
    view["servers"].as_array()?.iter().find_map(|s| {
        s["devices"].as_array()?.iter().find_map(|d| {
            (d["id"] == device).then(|| {
                (
                    s["name"].as_str().unwrap().to_owned(),
                    d["epoch"].as_u64().unwrap(),
                )
            })
        })
    })
}

/// The state (`online`, `silent`, `stopped`) of server `name` in `view`.
fn state_of<'a>(view: &'a Value, name: &str) -> Option<&'a str> {
    view["servers"]
        .as_array()?
        .iter()
        .find(|s| s["name"] == name)?["state"]
        .as_str()
}

/// Asks `server` for the fleet until `ok` holds (20 s at most; the failure shows the last view).
fn until(server: &Serve, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let view = fleet(server);
        if ok(&view) {
            return view;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: the fleet stayed {view:#}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devices_move_between_servers_and_one_server_holds_each() {
    with_scratch_database(|database| async move {
        tokio::task::spawn_blocking(move || three_servers(&database))
            .await
            .unwrap();
    })
    .await;
}

fn three_servers(database: &str) {
    let dirs = [(); 3].map(|()| TempDataDir::new().unwrap());
    let a = member(dirs[0].path(), database, "a");
    let b = member(dirs[1].path(), database, "b");
    let c = member(dirs[2].path(), database, "c");
    for s in [&a, &b, &c] {
        assert!(
            s.printed().contains("fleet: this server is"),
            "{}",
            s.printed()
        );
    }
    let view = until(&a, "three servers online", |v| {
        ["a", "b", "c"]
            .iter()
            .all(|n| state_of(v, n) == Some("online"))
    });
    assert_eq!(view["enabled"], true);
    let ids: Vec<&str> = view["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&view["this_server"].as_str().unwrap()));

    // pc1 connects to b (c is its second address): b holds it, in epoch 1, seen from a and c
    let client = Client::start(&[&b.url, &c.url], "pc1");
    until(&a, "pc1 held by b", |v| {
        holder(v, "pc1") == Some(("b".into(), 1))
    });
    assert_eq!(holder(&fleet(&c), "pc1"), Some(("b".into(), 1)));

    // a second pc1 at c is refused while b holds it, and says where it is
    let twin = Client::start(&[&c.url], "pc1");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !twin.stderr().contains("is connected to server b") {
        assert!(Instant::now() < deadline, "twin: {}", twin.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(twin);
    assert_eq!(holder(&fleet(&a), "pc1"), Some(("b".into(), 1)));

    // b is paused past its lease: the client moves to c, which takes pc1 in epoch 2
    signal_process(b.child.pid(), Signal::STOP);
    let view = until(&a, "pc1 moved to c", |v| {
        holder(v, "pc1") == Some(("c".into(), 2))
    });
    assert_eq!(state_of(&view, "b"), Some("silent"));
    // b wakes up: it cannot take pc1 back, and beats again
    signal_process(b.child.pid(), Signal::CONT);
    until(&a, "b online again", |v| state_of(v, "b") == Some("online"));
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        holder(&fleet(&b), "pc1"),
        Some(("c".into(), 2)),
        "b took it back"
    );

    // c dies: the client goes back to b, in epoch 3
    drop(c);
    let view = until(&a, "pc1 back on b", |v| {
        holder(v, "pc1") == Some(("b".into(), 3))
    });
    assert_eq!(state_of(&view, "c"), Some("silent"));
    assert!(
        client.stderr().contains("registered with"),
        "{}",
        client.stderr()
    );

    // a clean stop says so, and lets go of what it holds
    b.interrupt();
    let view = until(&a, "b stopped", |v| state_of(v, "b") == Some("stopped"));
    assert!(
        holder(&view, "pc1").is_none_or(|(server, _)| server != "b"),
        "{view:#}"
    );
    drop(client);

    // the table names each server and marks the one asked
    let out = deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"))
        .args(["fleet", "--server", &a.url])
        .env("DEFT_API_TOKEN", API_TOKEN)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("a (this one)"), "{table}");
    assert!(table.contains("stopped"), "{table}");
}

#[test]
fn a_server_on_sqlite_is_alone() {
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(
        dir.path(),
        &ServeOptions::shell("http://127.0.0.1:9", dir.path()),
    );
    assert!(!serve.printed().contains("fleet:"), "{}", serve.printed());
    let view = fleet(&serve);
    assert_eq!(view["enabled"], false);
    assert_eq!(view["servers"], serde_json::json!([]));
    let out = deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"))
        .args(["fleet", "--server", &serve.url])
        .env("DEFT_API_TOKEN", API_TOKEN)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("not in a fleet"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_asked_anywhere_runs_where_its_device_is_and_is_watched_from_anywhere() {
    let model = ScriptedModel::start(vec![
        // the first run: one step, then the answer
        Reply::tool_call("echo", json!({"text": "from b"})).into(),
        Reply::text("first done").into(),
        // the second: a long step, stopped from a (it asks no more)
        Reply::tool_call("sleep", json!({"ms": 60000})).into(),
        // the third: a sensitive call, approved from c
        Reply::tool_call("run_shell", json!({"command": "uname -s"})).into(),
        Reply::text("third done").into(),
    ])
    .await;
    let model_url = model.base_url();
    with_scratch_database(move |database| async move {
        let dirs = [(); 3].map(|()| TempDataDir::new().unwrap());
        let ([a, b, c], client) = three_with_pc1_on_b(&dirs, &database, &model_url);
        let (api_a, api_b, api_c) = (a.api(), b.api(), c.api());
        // a lists pc1 as b's, as b describes it
        let listed = api_a.get("/api/devices/pc1").await;
        assert_eq!(listed.status, 200, "{}", listed.text);
        assert_eq!(
            (
                &listed.body["kind"],
                &listed.body["server"],
                &listed.body["profile"]
            ),
            (&json!("fleet"), &json!("b"), &json!("shell"))
        );
        let all = api_c.get("/api/devices").await;
        assert!(
            all.body
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["id"] == "pc1" && d["server"] == "b"),
            "{}",
            all.text
        );
        assert_eq!(api_b.get("/api/devices/pc1").await.body["kind"], "remote");

        // 1. asked on a, run on b, watched on c with a reconnect in the middle
        let (run_id, _) = api_a.run(json!({"prompt": "echo", "device": "pc1"})).await;
        let mut watch = api_c.stream(&run_id, None).await;
        let first = watch.next().await.expect("a first event on c");
        drop(watch);
        let mut rest = api_c.stream(&run_id, Some(first.id)).await;
        let mut seen = vec![first];
        seen.extend(rest.until_done(Duration::from_secs(30)).await);
        let owners_log = api_b.events(&run_id).await;
        assert_eq!(
            seen.iter()
                .map(|e| (e.id, e.event.clone(), e.data.clone()))
                .collect::<Vec<_>>(),
            owners_log
                .iter()
                .map(|e| (e.id, e.event.clone(), e.data.clone()))
                .collect::<Vec<_>>(),
            "c saw exactly the owner's log"
        );
        let done = seen.last().unwrap();
        assert_eq!(
            (done.event.as_str(), &done.data["status"]),
            ("done", &json!("completed"))
        );
        assert!(
            seen.iter().any(|e| e.event == "step"),
            "the step ran on pc1"
        );

        stop_and_approve_from_elsewhere(&api_a, &api_b, &api_c).await;

        // a device nobody holds is unknown, as on one server
        let unknown = api_a
            .post(
                "/api/agent/run",
                &json!({"prompt": "x", "device": "nowhere"}),
            )
            .await;
        assert_eq!(unknown.status, 404, "{}", unknown.text);
        drop(client);
        drop((a, b, c));
    })
    .await;
}

/// A long step on b: another run for pc1 from c is refused (409) and a stops it; then a
/// question asked on b is answered from c.
async fn stop_and_approve_from_elsewhere(api_a: &Api, api_b: &Api, api_c: &Api) {
    // 2. a long step on b: another run for pc1 from c is refused (409); a stops it
    let (run_id, _) = api_a.run(json!({"prompt": "sleep", "device": "pc1"})).await;
    let mut watch = api_c.stream(&run_id, None).await;
    watch.next_of("step_start").await;
    let current = api_b.get("/api/agent/run").await;
    assert_eq!(current.body["run"]["run_id"], run_id.as_str(), "b runs it");
    assert_eq!(api_a.get("/api/agent/run").await.body["run"], Value::Null);
    let refused = api_c
        .post(
            "/api/agent/run",
            &json!({"prompt": "again", "device": "pc1"}),
        )
        .await;
    assert_eq!(refused.status, 409, "{}", refused.text);
    let stopped = api_a
        .post("/api/agent/stop", &json!({"run_id": run_id}))
        .await;
    assert_eq!(stopped.status, 200, "{}", stopped.text);
    let end = watch.until_done(Duration::from_secs(10)).await;
    assert_eq!(end.last().unwrap().data["status"], "stopped");

    // 3. a question asked on b is answered from c
    let (run_id, _) = api_a.run(json!({"prompt": "uname", "device": "pc1"})).await;
    let mut watch = api_a.stream(&run_id, None).await;
    let ask = watch.next_of("confirm").await;
    let call_id = ask.data["call_id"].as_str().unwrap();
    let answered = api_c
        .post(
            "/api/agent/confirm",
            &json!({"run_id": run_id, "call_id": call_id, "approve": true}),
        )
        .await;
    assert_eq!(answered.status, 200, "{}", answered.text);
    let end = watch.until_done(Duration::from_secs(30)).await;
    assert!(
        end.iter().any(|e| e.event == "step"),
        "approved: the step ran"
    );
    assert_eq!(end.last().unwrap().data["status"], "completed");
}

/// `n` model turns, each a long `sleep` step for a new run and, after any tool output (the step
/// ended or failed), an answer — whatever order the runs ask in.
fn long_step_then_answer(n: usize) -> Vec<deft_test_support::model::Turn> {
    (0..n)
        .map(|_| {
            Box::new(
                |r: &deft_test_support::model::Recorded| match r.last_tool_output() {
                    None => Reply::tool_call("sleep", json!({"ms": 60000})),
                    Some(_) => Reply::text("the step ended"),
                },
            ) as deft_test_support::model::Turn
        })
        .collect()
}

/// Rounds of stalling (SIGSTOP) or killing (SIGKILL, every [`KILL_EVERY`]th round) the server
/// running a chat on pc1 mid-step; `DEFT_FLEET_ROUNDS` sets another count.
const ROUNDS: usize = 100;
const KILL_EVERY: usize = 5;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_server_stalls_or_dies_ends_once_and_late_writes_are_refused() {
    let rounds = std::env::var("DEFT_FLEET_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(ROUNDS);
    let model = ScriptedModel::start(long_step_then_answer(2 * rounds + 10)).await;
    let model_url = model.base_url();
    with_scratch_database(move |database| async move {
        let dirs = [(); 3].map(|()| TempDataDir::new().unwrap());
        let a = member_with_model(dirs[0].path(), &database, "a", &model_url);
        let mut holders = vec![
            member_with_model(dirs[1].path(), &database, "b", &model_url),
            member_with_model(dirs[2].path(), &database, "c", &model_url),
        ];
        let names = ["b", "c"];
        let urls = [holders[0].url.clone(), holders[1].url.clone()];
        let client = Client::start(&[&urls[0], &urls[1]], "pc1");
        tokio::task::block_in_place(|| {
            until(&a, "pc1 held by b", |v| {
                holder(v, "pc1") == Some(("b".into(), 1))
            })
        });
        let api_a = a.api();
        let mut run_ids = Vec::with_capacity(rounds);
        for round in 0..rounds {
            let (h, o) = (round % 2, (round + 1) % 2);
            let prompt = format!("sleep [round {round}]");
            let (run_id, _) = api_a.run(json!({"prompt": prompt, "device": "pc1"})).await;
            run_ids.push(run_id.clone());
            let mut watch = api_a.stream(&run_id, None).await;
            watch.next_of("step_start").await;
            let kill = round % KILL_EVERY == KILL_EVERY - 1;
            let pid = holders[h].child.pid();
            signal_process(pid, if kill { Signal::KILL } else { Signal::STOP });
            // the run ends once, as interrupted, seen from a
            let end = watch.until_done(Duration::from_secs(30)).await;
            let done = end.last().unwrap();
            assert_eq!(done.data["status"], "failed", "round {round}: {end:?}");
            assert!(
                end.iter().any(|e| e.event == "error"),
                "round {round}: {end:?}"
            );
            // the client reattached to the other server, in the next epoch
            let epoch = u64::try_from(round).unwrap() + 2;
            tokio::task::block_in_place(|| {
                until(&a, "pc1 moved", |v| {
                    holder(v, "pc1") == Some((names[o].into(), epoch))
                })
            });
            let log = api_a.events(&run_id).await;
            let dones = log.iter().filter(|e| e.event == "done").count();
            assert_eq!(dones, 1, "round {round}: one end: {log:?}");
            if kill {
                // the killed server comes back where the client looks for it
                let port = urls[h].rsplit(':').next().unwrap();
                holders[h] = restart(dirs[h + 1].path(), &database, names[h], &model_url, port);
                continue;
            }
            // the stalled server wakes up: its run ends there, and writes nothing more
            signal_process(pid, Signal::CONT);
            woken_run_writes_nothing(&holders[h], &api_a, &run_id, &log, round).await;
        }
        // no run was started twice: each round's prompt began one model conversation
        let requests = model.requests();
        for (round, run_id) in run_ids.iter().enumerate() {
            let tag = format!("[round {round}]");
            let starts = requests
                .iter()
                .filter(|r| r.last_tool_output().is_none() && r.text().contains(&tag))
                .count();
            assert_eq!(starts, 1, "round {round} ({run_id}) started {starts} times");
        }
        drop(client);
        holders.clear();
        drop(a);
    })
    .await;
}

/// Starts server `name` again on `port` with its data folder, after a SIGKILL.
fn restart(dir: &Path, database: &str, name: &str, model_url: &str, port: &str) -> Serve {
    let mut opts = member_options(dir, database, name, model_url);
    opts.bind = Some(format!("127.0.0.1:{port}"));
    Serve::start(dir, &opts)
}

/// After its SIGCONT, the woken server `woken` ends its copy of run `run_id`, and the run's log
/// (seen from `api_a`) stays `log`: its late writes were refused.
async fn woken_run_writes_nothing(
    woken: &Serve,
    api_a: &Api,
    run_id: &str,
    log: &[support::SseEvent],
    round: usize,
) {
    let api_h = woken.api();
    let deadline = Instant::now() + Duration::from_secs(30);
    while api_h.get("/api/agent/run").await.body["run"] != Value::Null {
        assert!(
            Instant::now() < deadline,
            "round {round}: the woken run never ended"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let after = api_a.events(run_id).await;
    assert_eq!(
        after
            .iter()
            .map(|e| (e.id, e.data.clone()))
            .collect::<Vec<_>>(),
        log.iter()
            .map(|e| (e.id, e.data.clone()))
            .collect::<Vec<_>>(),
        "round {round}: the woken server's late writes were refused"
    );
    let record = api_a.get(&format!("/api/agent/runs/{run_id}")).await;
    assert_eq!(record.body["status"], "failed", "{}", record.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_runs_where_its_device_is_and_a_chat_and_a_task_race_for_it_from_two_servers() {
    let turns = long_step_then_answer(10);
    let model = ScriptedModel::start(turns).await;
    let model_url = model.base_url();
    with_scratch_database(move |database| async move {
        let dirs = [(); 3].map(|()| TempDataDir::new().unwrap());
        let ([a, b, c], _client) = three_with_pc1_on_b(&dirs, &database, &model_url);
        let (api_a, api_c) = (a.api(), c.api());
        let task = api_a
            .post(
                "/api/tasks",
                &json!({"name": "wait long", "device": "pc1",
                    "steps": [{"type": "wait", "seconds": 300}]}),
            )
            .await;
        assert_eq!(task.status, 201, "{}", task.text);
        let task_id = task.body["id"].as_str().unwrap().to_owned();

        // started on c, run on b, followed from a
        let started = api_c
            .post(&format!("/api/tasks/{task_id}/run"), &json!({}))
            .await;
        assert_eq!(started.status, 202, "{}", started.text);
        assert_eq!(started.body["device"], "pc1");
        let run_id = started.body["id"].as_str().unwrap().to_owned();
        let events = format!("/api/task-runs/{run_id}/events");
        let mut watch = api_a.stream_at(&events, None).await;
        assert_eq!(watch.status, 200);
        let first = watch
            .next()
            .await
            .expect("an event of b's task run, seen on a");
        assert!(first.id >= 1, "{first:?}");
        // a chat for pc1 from a is refused while the task holds it, naming the task
        let refused = api_a
            .post("/api/agent/run", &json!({"prompt": "x", "device": "pc1"}))
            .await;
        assert_eq!(refused.status, 409, "{}", refused.text);
        assert!(refused.text.contains("wait long"), "{}", refused.text);
        // stopped from c, which does not run it
        let stopped = api_c
            .post(&format!("/api/task-runs/{run_id}/stop"), &json!({}))
            .await;
        assert_eq!(stopped.status, 200, "{}", stopped.text);
        let end = watch.until_done(Duration::from_secs(30)).await;
        assert_eq!(end.last().unwrap().event, "done", "{end:?}");

        // a chat from a and a task from c at once: one runs, the other is refused
        let (chat_body, empty) = (json!({"prompt": "x", "device": "pc1"}), json!({}));
        let task_path = format!("/api/tasks/{task_id}/run");
        let (chat, task_run) = tokio::join!(
            api_a.post("/api/agent/run", &chat_body),
            api_c.post(&task_path, &empty),
        );
        let mut statuses = [chat.status, task_run.status];
        statuses.sort_unstable();
        assert_eq!(
            statuses,
            [202, 409],
            "chat: {} / task: {}",
            chat.text,
            task_run.text
        );
        drop((a, b, c));
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_batches_and_tries_asked_anywhere_run_where_the_device_is() {
    with_scratch_database(|database| async move {
        let dirs = [(); 3].map(|()| TempDataDir::new().unwrap());
        let ([a, b, c], _client) = three_with_pc1_on_b(&dirs, &database, NO_MODEL);
        let (api_a, api_b, api_c) = (a.api(), b.api(), c.api());

        // An exec batch asked on a runs on b's client, and answers its Results.
        let echo = json!({"commands": [
            {"tool_name": "echo", "parameters": {"text": "from a"}, "call_id": "e1"}]});
        let ran = api_a.post("/api/devices/pc1/exec", &echo).await;
        assert_eq!(ran.status, 200, "{}", ran.text);
        assert_eq!(ran.body[0]["status"], "success", "{}", ran.text);
        assert!(ran.text.contains("from a"), "{}", ran.text);

        // While a batch asked on a holds pc1, b (the holder) lists it busy, and a batch or an
        // action's try asked on c is refused with the holder's busy text.
        let holding = {
            let api_a = api_a.clone();
            tokio::spawn(async move {
                let sleep = json!({"commands": [
                    {"tool_name": "sleep", "parameters": {"ms": 2500}, "call_id": "s1"}]});
                api_a.post("/api/devices/pc1/exec", &sleep).await
            })
        };
        until_busy(&api_b, "pc1").await;
        let busy = api_c.post("/api/devices/pc1/exec", &echo).await;
        assert_eq!(busy.status, 409, "{}", busy.text);
        assert!(busy.text.contains("busy"), "{}", busy.text);
        let action = api_c
            .post(
                "/api/memory/actions",
                &json!({"name": "Take a break", "steps": [{"type": "wait", "seconds": 0.01}]}),
            )
            .await;
        assert_eq!(action.status, 201, "{}", action.text);
        let action_id = action.body["id"].as_str().unwrap().to_owned();
        let try_path = format!("/api/memory/actions/{action_id}/try");
        let refused = api_c.post(&try_path, &json!({"device": "pc1"})).await;
        assert_eq!(refused.status, 409, "{}", refused.text);
        let held = holding.await.unwrap();
        assert_eq!(held.status, 200, "{}", held.text);
        assert_eq!(held.body[0]["status"], "success", "{}", held.text);

        // The action tried from c, once the device is free, runs on b.
        let tried = api_c.post(&try_path, &json!({"device": "pc1"})).await;
        assert_eq!(tried.status, 200, "{}", tried.text);
        assert_eq!(tried.body["completed"], true, "{}", tried.text);
        assert_eq!(tried.body["device"], "pc1");
        assert_eq!(tried.body["steps"].as_array().unwrap().len(), 1);

        // A draft tried from a runs on b and is followed from a; a draft with a mistake is
        // refused on a with the validator's report, nothing queued.
        let draft = json!({"draft": {"name": "pause", "device": "pc1",
            "steps": [{"type": "wait", "seconds": 0.01}]}});
        let started = api_a.post("/api/agent/draft/try", &draft).await;
        assert_eq!(started.status, 202, "{}", started.text);
        let run_id = started.body["id"].as_str().unwrap().to_owned();
        let mut watch = api_a
            .stream_at(&format!("/api/task-runs/{run_id}/events"), None)
            .await;
        let end = watch.until_done(Duration::from_secs(30)).await;
        assert_eq!(end.last().unwrap().event, "done", "{end:?}");
        let run = api_c.get(&format!("/api/task-runs/{run_id}")).await;
        assert_eq!(run.body["status"], "ok", "{}", run.text);
        let bad = json!({"draft": {"name": "keys", "device": "pc1",
            "steps": [{"type": "key_evnt", "keys": "a"}]}});
        let refused = api_a.post("/api/agent/draft/try", &bad).await;
        assert_eq!(refused.status, 400, "{}", refused.text);
        assert_eq!(refused.body["errors"][0]["path"], "steps[0].type");

        // A device no server holds: 404 naming the devices, as on one server.
        let nowhere = api_a.post("/api/devices/pc9/exec", &echo).await;
        assert_eq!(nowhere.status, 404, "{}", nowhere.text);
        assert!(nowhere.text.contains("pc9"), "{}", nowhere.text);
        drop((a, b, c));
    })
    .await;
}

/// Until `api`'s server lists `device` busy (20 s at most).
async fn until_busy(api: &Api, device: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let devices = api.get("/api/devices").await;
        let busy = devices
            .body
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["id"] == device && d["busy"] == true);
        if busy {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{device} never became busy: {}",
            devices.text
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_servers_late_writes_on_its_own_device_are_refused() {
    let model = ScriptedModel::start(long_step_then_answer(4)).await;
    let model_url = model.base_url();
    with_scratch_database(move |database| async move {
        let dirs = [(); 2].map(|()| TempDataDir::new().unwrap());
        let a = member_with_model(dirs[0].path(), &database, "a", &model_url);
        let b = member_with_model(dirs[1].path(), &database, "b", &model_url);
        let (api_a, api_b) = (a.api(), b.api());
        // a chat on b's own `local` (no lease: a server's own device), watched from a
        let (run_id, _) = api_b
            .run(json!({"prompt": "sleep", "device": "local"}))
            .await;
        let mut watch = api_a.stream(&run_id, None).await;
        watch.next_of("step_start").await;
        let pid = b.child.pid();
        signal_process(pid, Signal::STOP);
        // a sees b silent and ends the run once, as interrupted
        let end = watch.until_done(Duration::from_secs(30)).await;
        assert_eq!(end.last().unwrap().data["status"], "failed", "{end:?}");
        let log = api_a.events(&run_id).await;
        // b wakes up and is asked to stop the run it still runs: what the stop writes (its
        // events, its end) is refused, as b no longer owns the run
        signal_process(pid, Signal::CONT);
        let stopped = api_b.post("/api/agent/stop", &json!({})).await;
        assert!(
            [200, 404].contains(&stopped.status),
            "stop on b: {}",
            stopped.text
        );
        woken_run_writes_nothing(&b, &api_a, &run_id, &log, 0).await;
        drop((a, b));
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_step_images_are_served_by_every_server() {
    let turns: Vec<deft_test_support::model::Turn> = vec![
        Box::new(|_| Reply::tool_call("image", json!({}))),
        Box::new(|_| Reply::text("looked")),
    ];
    let model = ScriptedModel::start(turns).await;
    let model_url = model.base_url();
    with_scratch_database(move |database| async move {
        let dirs = [(); 3].map(|()| TempDataDir::new().unwrap());
        let ([a, b, c], _client) = three_with_pc1_on_b(&dirs, &database, &model_url);
        let (api_a, api_b, api_c) = (a.api(), b.api(), c.api());
        // asked on a, run on b, whose step took a screenshot
        let (run_id, _) = api_a.run(json!({"prompt": "look", "device": "pc1"})).await;
        let log = api_a.events(&run_id).await;
        let image = log
            .iter()
            .find_map(|e| e.data["image_ids"].as_array()?.first()?.as_str())
            .unwrap_or_else(|| panic!("a step with an image: {log:?}"))
            .to_owned();
        let path = format!("/api/runs/{run_id}/images/{image}");
        let on_b = api_b.get_bytes(&path).await;
        assert_eq!((on_b.0, on_b.1.as_str()), (200, "image/png"));
        assert!(on_b.2.starts_with(b"\x89PNG\r\n\x1a\n"));
        // a and c, which did not run it, serve the same image (asked of b, then kept)
        for api in [&api_a, &api_c, &api_a] {
            assert_eq!(api.get_bytes(&path).await, on_b, "{path}");
        }
        let missing = api_c
            .get(&format!("/api/runs/{run_id}/images/img-99"))
            .await;
        assert_eq!(missing.status, 404, "{}", missing.text);
        assert!(missing.text.contains("img-99"), "{}", missing.text);
        let traversal = api_c
            .get(&format!("/api/runs/{run_id}/images/..%2Fsecret"))
            .await;
        assert_eq!(traversal.status, 404, "{}", traversal.text);
        drop((a, b, c));
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_view_of_a_device_another_server_holds_is_relayed() {
    with_scratch_database(|database| async move {
        let dirs = [(); 2].map(|()| TempDataDir::new().unwrap());
        let a = member(dirs[0].path(), &database, "a");
        let b = member(dirs[1].path(), &database, "b");
        let _screen = Client::start_with_screen(&[&b.url], "pc1");
        let _shell = Client::start(&[&b.url], "pc2");
        tokio::task::block_in_place(|| {
            until(&a, "pc1 and pc2 held by b", |v| {
                holder(v, "pc1").is_some() && holder(v, "pc2").is_some()
            })
        });
        // a lists b's device with its screen, and shows it
        let listed = a.api().get("/api/devices/pc1").await;
        assert_eq!(listed.body["kind"], "fleet", "{}", listed.text);
        assert_eq!(listed.body["has_screen"], true, "{}", listed.text);
        let frames = mjpeg_frames(&format!("{}/api/devices/pc1/live", a.url), 2).await;
        for frame in &frames {
            assert!(frame.starts_with(&[0xff, 0xd8]), "a JPEG frame");
        }
        // a device without a screen, and one nobody holds
        let shell = a.api().get("/api/devices/pc2/live").await;
        assert_eq!(shell.status, 409, "{}", shell.text);
        let nowhere = a.api().get("/api/devices/pc9/live").await;
        assert_eq!(nowhere.status, 404, "{}", nowhere.text);
        drop((a, b));
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_endpoint_of_a_device_another_server_holds_relays_each_call() {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    with_scratch_database(|database| async move {
        let dirs = [(); 2].map(|()| TempDataDir::new().unwrap());
        let a = member(dirs[0].path(), &database, "a");
        let b = member(dirs[1].path(), &database, "b");
        let _client = Client::start(&[&b.url], "pc1");
        tokio::task::block_in_place(|| until(&a, "pc1 held by b", |v| holder(v, "pc1").is_some()));
        let config =
            StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp/devices/pc1", a.url))
                .auth_header(API_TOKEN);
        let mcp = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
        // the tools of b's device, listed and called through a
        let tools: Vec<String> = mcp
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        assert!(tools.iter().any(|t| t == "echo"), "{tools:?}");
        let call = |text: &str| {
            CallToolRequestParams::new("echo")
                .with_arguments(json!({"text": text}).as_object().cloned().unwrap())
        };
        let echoed = mcp.call_tool(call("through a")).await.unwrap();
        let shown = serde_json::to_value(&echoed).unwrap();
        assert_ne!(shown["isError"], true, "{shown}");
        assert!(shown.to_string().contains("through a"), "{shown}");
        // b's busy rule holds: while an exec batch holds pc1 there, a call is refused
        let holding = {
            let api_b = b.api();
            tokio::spawn(async move {
                let sleep = json!({"commands": [
                    {"tool_name": "sleep", "parameters": {"ms": 2500}, "call_id": "s1"}]});
                api_b.post("/api/devices/pc1/exec", &sleep).await
            })
        };
        until_busy(&b.api(), "pc1").await;
        let refused = mcp.call_tool(call("while busy")).await.unwrap();
        let shown = serde_json::to_value(&refused).unwrap();
        assert_eq!(shown["isError"], true, "{shown}");
        assert!(shown.to_string().contains("busy"), "{shown}");
        assert_eq!(holding.await.unwrap().status, 200);
        // and the other way: while an MCP call runs, a chat for the device is refused (409)
        let mcp = std::sync::Arc::new(mcp);
        let slow = {
            let mcp = mcp.clone();
            tokio::spawn(async move {
                let sleep = CallToolRequestParams::new("sleep")
                    .with_arguments(json!({"ms": 2500}).as_object().cloned().unwrap());
                mcp.call_tool(sleep).await.unwrap()
            })
        };
        until_busy(&b.api(), "pc1").await;
        let chat = a
            .api()
            .post("/api/agent/run", &json!({"prompt": "x", "device": "pc1"}))
            .await;
        assert_eq!(chat.status, 409, "{}", chat.text);
        let slept = serde_json::to_value(slow.await.unwrap()).unwrap();
        assert_ne!(slept["isError"], true, "{slept}");
        // a device no server holds
        let nowhere = a.api().post("/mcp/devices/pc9", &json!({})).await;
        assert_eq!(nowhere.status, 404, "{}", nowhere.text);
        drop((a, b));
    })
    .await;
}
