//! `deft task list|run|stop|runs` against a real `deft serve` process (SQLite in a temporary
//! data folder) whose `local` device has the fixture MCP server's keyboard tool, a schedule
//! firing in that process, and a task on a real `deft client`.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

#[path = "common/console.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use deft_test_support::TempDataDir;
use deft_test_support::proc::fixture_bin;
use serde_json::{Value, json};
use support::{API_TOKEN, Serve, ServeOptions};

/// `shell` with the fixture server's keyboard and sleep tools on both agent halves (what the
/// runner's key_event calls).
fn tools(dir: &Path) -> PathBuf {
    let path = dir.join("task-tools.yaml");
    let fixture = format!(
        "{{namespace: fixture, type: stdio, command: \"{}\", tools: [keyboard_input, sleep, echo]}}",
        fixture_bin().display()
    );
    let yaml = format!(
        "profiles:\n  shell:\n    HostAgent:\n      default:\n        action:\n          - {fixture}\n    AppAgent:\n      default:\n        action:\n          - {fixture}\n"
    );
    std::fs::write(&path, yaml).unwrap();
    path
}

fn serve(dir: &Path) -> Serve {
    let mut opts = ServeOptions::shell("http://127.0.0.1:9/v1", dir);
    opts.tools = Some(tools(dir));
    Serve::start(dir, &opts)
}

/// `deft task ARGS --server URL` with the API token in `DEFT_API_TOKEN`.
async fn deft_task(serve: &Serve, args: &[&str]) -> std::process::Output {
    deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"))
        .arg("task")
        .args(args)
        .args(["--server", &serve.url])
        .env("DEFT_API_TOKEN", API_TOKEN)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn text(out: &std::process::Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

async fn create(serve: &Serve, task: &Value) -> Value {
    let r = serve.api().post("/api/tasks", task).await;
    assert_eq!(r.status, 201, "{}", r.text);
    r.body
}

/// GETs `path` until `done` accepts the body (30 s at most).
async fn until(serve: &Serve, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let api = serve.api();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let r = api.get(path).await;
        if done(&r.body) {
            return r.body;
        }
        assert!(tokio::time::Instant::now() < deadline, "{path}: {}", r.text);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A page with at least one run.
fn any_item(page: &Value) -> bool {
    page["items"].as_array().is_some_and(|a| !a.is_empty())
}

#[tokio::test]
async fn the_cli_lists_runs_follows_and_stops_a_servers_tasks() {
    let dir = TempDataDir::new().unwrap();
    let serve = serve(dir.path());
    create(
        &serve,
        &json!({"name": "type keys", "device": "local", "variables": {"k": "a"},
            "steps": [{"type": "key_event", "keys": "{{k}}"}, {"type": "key_event", "keys": "b"}]}),
    )
    .await;

    let out = deft_task(&serve, &["list"]).await;
    assert!(out.status.success(), "{}", text(&out));
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        listed.contains("type keys") && listed.contains("local"),
        "{listed}"
    );

    let out = deft_task(&serve, &["run", "type keys", "--var", "k=c"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("keyboard_input"),
        "a line per tool step: {}",
        text(&out)
    );

    let out = deft_task(&serve, &["runs", "type keys"]).await;
    assert!(out.status.success(), "{}", text(&out));
    let runs = String::from_utf8_lossy(&out.stdout);
    assert!(runs.contains(" ok ") && runs.contains("manual"), "{runs}");

    let out = deft_task(&serve, &["run", "no such task"]).await;
    assert_eq!(
        out.status.code(),
        Some(2),
        "an error, not a failed run: {}",
        text(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no task has the id or name"),
        "{}",
        text(&out)
    );

    // Stop: a run waiting 300 s ends as stopped, and its follower exits 1.
    create(
        &serve,
        &json!({"name": "wait long", "device": "local", "steps": [{"type": "wait", "seconds": 300}]}),
    )
    .await;
    let follower = deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"))
        .args(["task", "run", "wait long", "--server", &serve.url])
        .env("DEFT_API_TOKEN", API_TOKEN)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let running = until(&serve, "/api/task-runs?status=running", any_item).await;
    let run_id = running["items"][0]["id"].as_str().unwrap().to_owned();
    let out = deft_task(&serve, &["stop", &run_id]).await;
    assert!(out.status.success(), "{}", text(&out));
    let out = tokio::task::spawn_blocking(move || follower.wait_with_output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let r = serve.api().get(&format!("/api/task-runs/{run_id}")).await;
    assert_eq!(r.body["status"], "stopped", "{}", r.text);
    serve.interrupt();
}

#[tokio::test]
async fn deft_serve_fires_schedules_and_runs_tasks_on_a_real_client() {
    let dir = TempDataDir::new().unwrap();
    let serve = serve(dir.path());
    let client_dir = TempDataDir::new().unwrap();
    let mut client = deft_test_support::proc::GroupChild::spawn({
        let mut cmd = deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"));
        cmd.arg("--data-dir")
            .arg(client_dir.path())
            .arg("--tools-config")
            .arg(tools(client_dir.path()))
            .args(["client", "--server", &serve.url])
            .args(["--id", "pc1", "--profile", "shell"])
            .env("DEFT_DEVICE_TOKEN", support::DEVICE_TOKEN)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null());
        cmd
    })
    .unwrap();
    until(&serve, "/api/devices", |b| {
        b.as_array()
            .is_some_and(|a| a.iter().any(|d| d["id"] == "pc1"))
    })
    .await;
    let t = create(
        &serve,
        &json!({"name": "on the client", "device": "pc1",
            "steps": [{"type": "key_event", "keys": "x"}]}),
    )
    .await;
    let id = t["id"].as_str().unwrap();
    let r = serve
        .api()
        .post(
            &format!("/api/tasks/{id}/schedules"),
            &json!({"kind": "every", "seconds": 1}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let runs = until(
        &serve,
        &format!("/api/task-runs?task={id}&status=ok"),
        any_item,
    )
    .await;
    let run = &runs["items"][0];
    assert_eq!(
        (run["trigger"].clone(), run["device"].clone()),
        (json!("schedule"), json!("pc1")),
        "{run}"
    );
    let steps = serve
        .api()
        .get(&format!("/api/task-runs/{}", run["id"].as_str().unwrap()))
        .await;
    assert_eq!(
        steps.body["step_results"][0]["status"], "ok",
        "{}",
        steps.text
    );
    let _ = client.child.kill();
    serve.interrupt();
}

#[tokio::test]
async fn a_killed_server_keeps_every_task_event_a_watcher_saw_and_ends_the_run_after_them() {
    let dir = TempDataDir::new().unwrap();
    let serve = serve(dir.path());
    let t = create(
        &serve,
        &json!({"name": "cut off", "device": "local", "steps": [
            {"type": "key_event", "keys": "a"},
            {"type": "key_event", "keys": "b"},
            {"type": "group", "name": "g", "steps": [{"type": "key_event", "keys": "c"}]},
            {"type": "wait", "seconds": 300},
            {"type": "key_event", "keys": "never"},
        ]}),
    )
    .await;
    let id = t["id"].as_str().unwrap();
    let api = serve.api();
    let r = api.post(&format!("/api/tasks/{id}/run"), &json!({})).await;
    assert_eq!(r.status, 202, "{}", r.text);
    let run = r.body["id"].as_str().unwrap().to_owned();
    let path = format!("/api/task-runs/{run}/events");
    // Watch until the wait is under way: everything before it was shown to this watcher.
    let mut s = api.stream_at(&path, None).await;
    let mut seen = Vec::new();
    loop {
        let e = tokio::time::timeout(Duration::from_secs(30), s.next())
            .await
            .expect("an event in time")
            .expect("the stream goes on");
        let waiting = e.event == "task_step_start" && e.data["step_type"] == "wait";
        seen.push(e);
        if waiting {
            break;
        }
    }
    drop(s);
    drop(serve); // SIGKILL of the process group: nothing is flushed or finished
    // The store is the replay source, not the trace: a trace the crash cut short (here: lost
    // whole) takes nothing a watcher saw with it.
    let trace = dir.path().join("task-runs").join(&run).join("trace.jsonl");
    assert!(trace.exists(), "{}", trace.display());
    std::fs::remove_file(&trace).unwrap();

    let serve = self::serve(dir.path());
    let api = serve.api();
    let r = api.get(&format!("/api/task-runs/{run}")).await;
    assert_eq!(r.body["status"], "interrupted", "{}", r.text);
    let mut s = api.stream_at(&path, None).await;
    assert_eq!(s.status, 200);
    let replay = s.until_done(Duration::from_secs(30)).await;
    let seqs: Vec<u64> = replay.iter().map(|e| e.id).collect();
    assert_eq!(
        seqs,
        (1..=replay.len() as u64).collect::<Vec<_>>(),
        "no gap, no repeat"
    );
    for e in &seen {
        let again = &replay[usize::try_from(e.id).unwrap() - 1];
        assert_eq!(
            (&again.event, &again.data),
            (&e.event, &e.data),
            "seq {} names the same event after the crash",
            e.id
        );
    }
    let done = replay.last().unwrap();
    assert_eq!(
        (done.event.as_str(), done.data["status"].as_str()),
        ("done", Some("failed"))
    );
    assert!(
        done.id > seen.last().unwrap().id,
        "the end comes after all that was seen"
    );
    // The replay is the same again (stored, not made up on each read), and a reconnect after
    // done is told there is nothing more.
    let again = api
        .stream_at(&path, None)
        .await
        .until_done(Duration::from_secs(30))
        .await;
    assert_eq!(again.len(), replay.len());
    assert_eq!(api.stream_at(&path, Some(done.id)).await.status, 204);
    serve.interrupt();
}

/// Starts `task` through the API with `trigger` and waits for it to end `ok`.
async fn run_ok(serve: &Serve, task: &str, trigger: &str) -> String {
    let r = serve
        .api()
        .post(
            &format!("/api/tasks/{task}/run"),
            &json!({"trigger": trigger}),
        )
        .await;
    assert_eq!(r.status, 202, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_owned();
    until(serve, &format!("/api/task-runs/{id}"), |b| {
        b["status"] == "ok"
    })
    .await;
    id
}

/// The RUN column of a `deft task runs` table: its lines' first words that are run ids.
fn run_ids(out: &std::process::Output, ids: &[&str]) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| ids.contains(w))
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn the_cli_filters_sorts_pages_and_exports_the_run_history() {
    let dir = TempDataDir::new().unwrap();
    let serve = serve(dir.path());
    for name in ["press a", "press b"] {
        create(
            &serve,
            &json!({"name": name, "device": "local", "steps": [{"type": "key_event", "keys": "a"}]}),
        )
        .await;
    }
    // Oldest first: a manual run of a, an api run of a, an api run of b.
    let runs = [
        run_ok(&serve, "press a", "manual").await,
        run_ok(&serve, "press a", "api").await,
        run_ok(&serve, "press b", "api").await,
    ];
    filters_combine(&serve, &runs).await;
    pages_follow_the_printed_cursor(&serve, &runs).await;
    the_export_writes_every_selected_run(&serve, dir.path(), &runs).await;
    bad_values_are_the_servers_400(&serve).await;
    serve.interrupt();
}

/// A trigger, a task and a trigger, a device, a started range: each narrows the page.
async fn filters_combine(serve: &Serve, runs: &[String; 3]) {
    let all = runs.each_ref().map(String::as_str);
    let [a_manual, a_api, b_api] = all;
    let out = deft_task(serve, &["runs", "--trigger", "api"]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(run_ids(&out, &all), [b_api, a_api], "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2 of 2 runs"),
        "{}",
        text(&out)
    );
    let args = [
        "runs",
        "press a",
        "--trigger",
        "manual",
        "--device",
        "local",
    ];
    let out = deft_task(serve, &args).await;
    assert_eq!(run_ids(&out, &all), [a_manual], "{}", text(&out));
    let out = deft_task(serve, &["runs", "--device", "elsewhere"]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(run_ids(&out, &all).is_empty(), "{}", text(&out));
    let args = [
        "runs",
        "--status",
        "ok",
        "--from",
        "2000-01-01",
        "--to",
        "2000-01-02",
    ];
    let out = deft_task(serve, &args).await;
    assert!(run_ids(&out, &all).is_empty(), "{}", text(&out));
}

/// Sorted oldest first, a page of one: each page prints the next page's cursor, the last none.
async fn pages_follow_the_printed_cursor(serve: &Serve, runs: &[String; 3]) {
    let all = runs.each_ref().map(String::as_str);
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = vec![
            "runs", "--sort", "started", "--order", "asc", "--limit", "1",
        ];
        if let Some(c) = &cursor {
            args.extend(["--cursor", c.as_str()]);
        }
        let out = deft_task(serve, &args).await;
        assert!(out.status.success(), "{}", text(&out));
        seen.extend(run_ids(&out, &all));
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        cursor = stdout
            .lines()
            .find_map(|l| l.strip_prefix("next page: --cursor "))
            .map(str::to_owned);
        if cursor.is_none() {
            break;
        }
        assert!(seen.len() < 3, "a page after the last run: {stdout}");
    }
    assert_eq!(seen, all);
}

/// Every run the filters select: CSV to a file, JSON to standard output.
async fn the_export_writes_every_selected_run(serve: &Serve, dir: &Path, runs: &[String; 3]) {
    let [a_manual, a_api, b_api] = runs.each_ref().map(String::as_str);
    let file = dir.join("runs.csv");
    let file = file.to_str().unwrap();
    let args = ["runs", "--trigger", "api", "--export", "csv", "-o", file];
    let out = deft_task(serve, &args).await;
    assert!(out.status.success(), "{}", text(&out));
    let csv = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with("id,task_id,task_name,trigger"),
        "{csv}"
    );
    assert_eq!(lines.len(), 3, "the header and the two api runs: {csv}");
    assert!(
        lines[1].starts_with(b_api) && lines[2].starts_with(a_api),
        "{csv}"
    );
    let args = ["runs", "press a", "--export", "json", "--order", "asc"];
    let out = deft_task(serve, &args).await;
    assert!(out.status.success(), "{}", text(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [a_manual, a_api]);
}

/// A bad value is refused with the server's 400 text (exit status 2, not a listing).
async fn bad_values_are_the_servers_400(serve: &Serve) {
    for (args, said) in [
        (
            &["runs", "--trigger", "cron"][..],
            "unknown trigger \"cron\": use one of",
        ),
        (&["runs", "--from", "yesterday"][..], "from"),
        (&["runs", "--sort", "name"][..], "unknown sort \"name\""),
        (
            &["runs", "--cursor", "nonsense"][..],
            "cannot continue from this cursor",
        ),
        (
            &["runs", "--export", "xml"][..],
            "unknown export format \"xml\": use csv or json",
        ),
    ] {
        let out = deft_task(serve, args).await;
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("the server answered 400") && err.contains(said),
            "{args:?}: {err}"
        );
    }
}

/// `deft task export` writes a folder's tasks to a file; `deft task import` brings them into
/// another server (a dry run first), and refuses — exit 1, naming the clash — when they are
/// there already, unless told to rename.
#[tokio::test]
async fn the_cli_exports_and_imports_tasks_between_servers() {
    let (one, two) = (TempDataDir::new().unwrap(), TempDataDir::new().unwrap());
    let source = serve(one.path());
    for (name, folder) in [("a", "finance"), ("b", "ops")] {
        let task = json!({"name": name, "device": "local",
                          "steps": [{"type": "key_event", "keys": "x"}]});
        let r = source
            .api()
            .post(&format!("/api/tasks?folder={folder}"), &task)
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    let file = one.path().join("finance.json");
    let out = deft_task(
        &source,
        &[
            "export",
            "--folder",
            "finance",
            "-o",
            file.to_str().unwrap(),
        ],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("exported 1 task(s)"),
        "{}",
        text(&out)
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(doc["tasks"][0]["name"], "a");

    let target = serve(two.path());
    let path = file.to_str().unwrap();
    let out = deft_task(&target, &["import", path, "--dry-run"]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "would create a\n");
    let out = deft_task(&target, &["import", path]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "created a\n");
    let listed = target.api().get("/api/tasks?folder=finance").await;
    assert_eq!(listed.body["total"], 1, "{}", listed.text);

    let out = deft_task(&target, &["import", path]).await;
    assert!(!out.status.success(), "a clash refuses: {}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("tasks named \"a\" exist already"),
        "{}",
        text(&out)
    );
    let out = deft_task(&target, &["import", path, "--on-clash", "rename"]).await;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "renamed a → a (2)\nclash: a\n"
    );
}
