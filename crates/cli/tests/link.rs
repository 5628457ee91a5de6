//! The device link with real processes on loopback: `deft serve` / an in-process server, several
//! `deft client` processes running batches through their own routing tables (the fixture MCP
//! server as a stdio child), and `deft exec --server` / `deft devices` as a person runs them.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use deft_protocol::{Command as Cmd, ResultStatus, ToolType};
use deft_server::api_client::ApiClient;
use deft_server::{LinkLimits, Registry, Server, ServerConfig};
use deft_test_support::TempDataDir;
use deft_test_support::net::{free_port, wait_for_port};
use deft_test_support::proc::{
    GroupChild, Signal, kill_group, shell_with_fixture_table, signal_group,
};
use deft_tools::{Devices, ExecContext, texts};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const DEVICE_TOKEN: &str = "dev-token-for-tests";
const API_TOKEN: &str = "api-token-for-tests";

fn deft() -> Command {
    deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"))
}

/// A server in this test process (real listener on loopback).
struct Hub {
    url: String,
    registry: Registry,
    stop: CancellationToken,
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn hub(limits: LinkLimits) -> Hub {
    let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap(), DEVICE_TOKEN, API_TOKEN);
    config.limits = limits;
    let server = Server::bind(config).await.expect("bind");
    let url = format!("http://{}", server.local_addr());
    let registry = server.registry();
    let stop = CancellationToken::new();
    tokio::spawn(server.serve(stop.clone()));
    Hub {
        url,
        registry,
        stop,
    }
}

/// A `deft client` process; its stderr goes to a file.
struct Client {
    child: GroupChild,
    stderr: PathBuf,
    _dir: TempDataDir,
}

impl Client {
    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

fn client(url: &str, token: &str, id: &str, extra: &[&str]) -> Client {
    client_with_env(url, token, id, extra, &[])
}

fn client_with_env(
    url: &str,
    token: &str,
    id: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Client {
    let dir = TempDataDir::new().unwrap();
    let tools = shell_with_fixture_table(dir.path());
    let stderr = dir.path().join("stderr.txt");
    let mut cmd = deft();
    cmd.arg("--data-dir")
        .arg(dir.path())
        .arg("--tools-config")
        .arg(&tools)
        .args(["client", "--server", url, "--id", id, "--profile", "shell"])
        .env("DEFT_DEVICE_TOKEN", token)
        .args(extra)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr).unwrap());
    Client {
        child: GroupChild::spawn(cmd).expect("spawn deft client"),
        stderr,
        _dir: dir,
    }
}

async fn wait_registered(registry: &Registry, id: &str) {
    for _ in 0..1000 {
        if registry.get(id).is_some() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("device {id} did not register within 20 s");
}

async fn wait_listed(api: &ApiClient, id: &str) -> Value {
    for _ in 0..1000 {
        if let Ok(list) = api.devices().await
            && let Some(d) = list
                .as_array()
                .and_then(|a| a.iter().find(|d| d["id"] == id))
        {
            return d.clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("device {id} not listed within 20 s");
}

fn cmd(tool: &str, params: Value) -> Cmd {
    Cmd::new(tool, Some(ToolType::Action), params)
}

async fn run(
    registry: &Registry,
    id: &str,
    ctx: &ExecContext,
    commands: Vec<Cmd>,
) -> Vec<deft_protocol::CommandResult> {
    let device = registry.get(id).expect("device registered");
    device.dispatcher.execute(ctx, commands).await
}

/// Asserts device `id` is registered, free and runs a batch (a `noop`) successfully.
async fn assert_takes_work(registry: &Registry, id: &str) {
    let r = run(
        registry,
        id,
        &ExecContext::new(id, "shell"),
        vec![cmd("noop", json!({}))],
    )
    .await;
    assert_eq!(r[0].status, ResultStatus::Success, "{r:?}");
}

/// Waits until device `id` has reported `n` finished commands of its running batch.
async fn wait_finished(registry: &Registry, id: &str, n: usize) {
    let dispatcher = registry.remote_dispatcher(id).expect("a remote device");
    for _ in 0..1000 {
        if dispatcher.finished_count() >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("device {id} did not report {n} finished commands within 10 s");
}

fn wait_exit(child: &mut GroupChild, within: Duration) -> std::process::ExitStatus {
    let until = std::time::Instant::now() + within;
    loop {
        if let Some(status) = child.child.try_wait().unwrap() {
            return status;
        }
        assert!(
            std::time::Instant::now() < until,
            "the process did not exit"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

// One person's whole session, start to finish: long because it is one story.
#[allow(clippy::too_many_lines)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_client_devices_and_exec_as_a_person_runs_them() {
    let data = TempDataDir::new().unwrap();
    let port = free_port();
    let mut serve = deft();
    serve.arg("--data-dir").arg(data.path()).args([
        "serve",
        "--bind",
        &format!("127.0.0.1:{port}"),
        "--no-desktop",
    ]);
    serve.stdout(Stdio::null()).stderr(Stdio::null());
    let _server = GroupChild::spawn(serve).unwrap();
    assert!(
        wait_for_port(([127, 0, 0, 1], port).into(), Duration::from_secs(20)),
        "deft serve did not listen"
    );
    // Generated tokens are kept in the data folder, readable only by the owner.
    let device_token = std::fs::read_to_string(data.path().join("device-token"))
        .unwrap()
        .trim()
        .to_owned();
    let api_token = std::fs::read_to_string(data.path().join("api-token"))
        .unwrap()
        .trim()
        .to_owned();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(data.path().join("api-token"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    let url = format!("http://127.0.0.1:{port}");
    let _pc1 = client(&format!("ws://127.0.0.1:{port}"), &device_token, "pc1", &[]);
    let api = ApiClient::new(&url, &api_token).unwrap();
    let listed = wait_listed(&api, "pc1").await;
    assert_eq!(listed["profile"], "shell");
    assert_eq!(listed["tools"], json!(["fixture", "shell"]));
    assert!(
        listed["system_info"]["system_info"]["cpus"]
            .as_u64()
            .unwrap()
            >= 1
    );

    let out = deft()
        .args(["devices", "--server", &url])
        .env("DEFT_API_TOKEN", &api_token)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("pc1") && l.contains("remote") && l.contains("idle")),
        "{table}"
    );
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("local") && l.contains("server")),
        "{table}"
    );
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("browser") && l.contains("server")),
        "{table}"
    );

    let batch = r#"{"early_exit": false, "commands": [
        {"call_id": "a", "tool_name": "echo", "parameters": {"text": "over the wire"}},
        {"call_id": "b", "tool_name": "run_shell", "parameters": {"command": "echo hi"}},
        {"call_id": "c", "tool_name": "no_such_tool"}]}"#;
    let mut exec = deft();
    exec.args(["exec", "--server", &url, "--device", "pc1", "-"])
        .env("DEFT_API_TOKEN", &api_token)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = exec.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(batch.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["call_id"], "a");
    assert_eq!(v[0]["result"]["text"], "over the wire");
    assert_eq!(v[0]["namespace"], "fixture");
    assert_eq!(v[1]["result"]["stdout"], "hi\n");
    assert_eq!(v[2]["status"], "failure");
    assert!(
        v[2]["error"]
            .as_str()
            .unwrap()
            .starts_with("Tool no_such_tool is not registered"),
        "{v}"
    );

    // A wrong API token is refused with a message that says what is needed.
    let out = deft()
        .args(["devices", "--server", &url])
        .env("DEFT_API_TOKEN", "nope")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error: the server answered 401: unauthorized: this route needs 'Authorization: Bearer <api token>'"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn early_exit_crosses_the_wire_and_every_failure_is_answered() {
    let hub = hub(LinkLimits::default()).await;
    let _c = client(&hub.url, DEVICE_TOKEN, "pc1", &[]);
    wait_registered(&hub.registry, "pc1").await;
    let commands = || {
        vec![
            cmd("fail", json!({"message": "boom"})),
            cmd("noop", json!({})),
        ]
    };
    let ctx = ExecContext::new("pc1", "shell");
    let r = run(&hub.registry, "pc1", &ctx, commands()).await;
    assert_eq!(
        r.iter().map(|r| r.status).collect::<Vec<_>>(),
        [ResultStatus::Failure, ResultStatus::Skipped]
    );
    assert_eq!(r[0].error.as_deref(), Some("boom"));
    assert_eq!(r[1].error.as_deref(), Some(texts::SKIPPED_EARLY_EXIT));
    let mut ctx = ExecContext::new("pc1", "shell");
    ctx.early_exit = false;
    let r = run(&hub.registry, "pc1", &ctx, commands()).await;
    assert_eq!(
        r.iter().map(|r| r.status).collect::<Vec<_>>(),
        [ResultStatus::Failure, ResultStatus::Success]
    );

    // An agent the device's table does not have: failure Results, not silence.
    let mut ctx = ExecContext::new("pc1", "shell");
    ctx.agent = "NoSuchAgent".into();
    let r = run(&hub.registry, "pc1", &ctx, commands()).await;
    assert_eq!(r.len(), 2);
    assert!(r.iter().all(|r| r.status != ResultStatus::Success), "{r:?}");
    assert!(
        r[0].error.as_deref().unwrap().contains("NoSuchAgent"),
        "{r:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_token_makes_the_client_exit_saying_the_token_was_refused() {
    let hub = hub(LinkLimits::default()).await;
    let mut c = client(&hub.url, "not-the-token", "pc1", &[]);
    let status = wait_exit(&mut c.child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(2));
    let err = c.stderr();
    assert!(
        err.contains("error: the server refused the device token (device token refused); start the client with the server's device token"),
        "{err}"
    );
    let mut reserved = client(&hub.url, DEVICE_TOKEN, "local", &[]);
    assert_eq!(
        wait_exit(&mut reserved.child, Duration::from_secs(20)).code(),
        Some(2)
    );
    assert!(
        reserved
            .stderr()
            .contains("the device id 'local' is reserved"),
        "{}",
        reserved.stderr()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_client_with_the_same_id_is_refused_and_the_first_keeps_working() {
    let hub = hub(LinkLimits::default()).await;
    let _first = client(&hub.url, DEVICE_TOKEN, "pc1", &[]);
    wait_registered(&hub.registry, "pc1").await;
    let second = client(&hub.url, DEVICE_TOKEN, "pc1", &[]);
    let expected = deft_link::texts::duplicate_id("pc1");
    for _ in 0..1000 {
        if second.stderr().contains(&expected) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(second.stderr().contains(&expected), "{}", second.stderr());
    assert_takes_work(&hub.registry, "pc1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_batch_fails_it_at_once_and_nothing_runs_again_after_reconnecting() {
    let hub = hub(LinkLimits::default()).await;
    let work = tempfile::tempdir().unwrap();
    let (before, after) = (work.path().join("before"), work.path().join("after"));
    std::fs::create_dir_all(&before).unwrap();
    std::fs::create_dir_all(&after).unwrap();
    let c = client(&hub.url, DEVICE_TOKEN, "pc1", &[]);
    wait_registered(&hub.registry, "pc1").await;
    let batch = vec![
        cmd(
            "rendezvous",
            json!({"dir": before.to_str().unwrap(), "parties": 1, "timeout_ms": 1000}),
        ),
        cmd("sleep", json!({"ms": 60_000})),
        cmd(
            "rendezvous",
            json!({"dir": after.to_str().unwrap(), "parties": 1, "timeout_ms": 1000}),
        ),
    ];
    let registry = hub.registry.clone();
    let running = tokio::spawn(async move {
        let mut ctx = ExecContext::new("pc1", "shell");
        ctx.deadline = Duration::from_secs(120);
        run(&registry, "pc1", &ctx, batch).await
    });
    for _ in 0..1000 {
        if std::fs::read_dir(&before).unwrap().count() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        std::fs::read_dir(&before).unwrap().count(),
        1,
        "the first command ran"
    );
    wait_finished(&hub.registry, "pc1", 1).await;
    kill_group(c.child.pid());
    let r = running.await.unwrap();
    assert_eq!(r.len(), 3);
    // The finished command keeps its real result; only the rest are unknown.
    assert_eq!(r[0].status, ResultStatus::Success, "{r:?}");
    for result in &r[1..] {
        assert_eq!(result.status, ResultStatus::Failure);
        assert_eq!(result.error.as_deref(), Some(texts::DISCONNECTED));
    }
    drop(c);

    let _again = client(&hub.url, DEVICE_TOKEN, "pc1", &[]);
    wait_registered(&hub.registry, "pc1").await;
    assert_takes_work(&hub.registry, "pc1").await;
    assert_eq!(
        std::fs::read_dir(&before).unwrap().count(),
        1,
        "the killed batch was not run again"
    );
    assert_eq!(
        std::fs::read_dir(&after).unwrap().count(),
        0,
        "the killed batch was not run again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_paused_past_the_deadline_is_reported_as_may_have_run() {
    let hub = hub(LinkLimits::default()).await;
    let work = tempfile::tempdir().unwrap();
    let before = work.path().join("before");
    std::fs::create_dir_all(&before).unwrap();
    let c = client(&hub.url, DEVICE_TOKEN, "pc1", &[]);
    wait_registered(&hub.registry, "pc1").await;
    let batch = vec![
        cmd(
            "rendezvous",
            json!({"dir": before.to_str().unwrap(), "parties": 1, "timeout_ms": 1000}),
        ),
        cmd("sleep", json!({"ms": 3_000})),
        cmd("noop", json!({})),
    ];
    let registry = hub.registry.clone();
    let running = tokio::spawn(async move {
        let mut ctx = ExecContext::new("pc1", "shell");
        ctx.deadline = Duration::from_secs(2);
        run(&registry, "pc1", &ctx, batch).await
    });
    for _ in 0..1000 {
        if std::fs::read_dir(&before).unwrap().count() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        std::fs::read_dir(&before).unwrap().count(),
        1,
        "the first command ran"
    );
    wait_finished(&hub.registry, "pc1", 1).await;
    // A paused machine: the device neither answers nor runs its own deadline.
    signal_group(c.child.pid(), Signal::STOP);
    let r = running.await.unwrap();
    signal_group(c.child.pid(), Signal::CONT);
    assert_eq!(r.len(), 3);
    assert_eq!(
        r[0].status,
        ResultStatus::Success,
        "the finished command keeps its result"
    );
    let unknown = texts::deadline_unanswered(Duration::from_secs(2));
    for result in &r[1..] {
        assert_eq!(result.status, ResultStatus::Failure);
        // They may have run: a text that says "not executed" would be a lie.
        assert_eq!(result.error.as_deref(), Some(unknown.as_str()), "{r:?}");
    }
    // Resumed, the device takes work again (its late answer is ignored, nothing runs twice).
    assert_takes_work(&hub.registry, "pc1").await;
    assert_eq!(std::fs::read_dir(&before).unwrap().count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_cancels_a_running_slow_tool_on_the_device_and_the_device_answers() {
    let hub = hub(LinkLimits::default()).await;
    let _c = client(&hub.url, DEVICE_TOKEN, "pc1", &[]);
    wait_registered(&hub.registry, "pc1").await;
    let mut ctx = ExecContext::new("pc1", "shell");
    ctx.deadline = Duration::from_secs(120);
    let stop = ctx.cancel.clone();
    let registry = hub.registry.clone();
    let running = tokio::spawn(async move {
        run(
            &registry,
            "pc1",
            &ctx,
            vec![cmd("sleep", json!({"ms": 100_000})), cmd("noop", json!({}))],
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.cancel();
    let r = running.await.unwrap();
    assert_eq!(r[0].status, ResultStatus::Failure);
    assert_eq!(r[0].error.as_deref(), Some(texts::STOPPED));
    assert_ne!(r[1].status, ResultStatus::Success);
    // The device is free for the next batch.
    assert_takes_work(&hub.registry, "pc1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_keep_flowing_while_a_slow_tool_runs() {
    // The server gives up on a device after 1.5 s of silence; the tool takes 3 s.
    let hub = hub(LinkLimits {
        silence: Duration::from_millis(1500),
        ..LinkLimits::default()
    })
    .await;
    let _c = client(&hub.url, DEVICE_TOKEN, "pc1", &["--heartbeat-secs", "0.3"]);
    wait_registered(&hub.registry, "pc1").await;
    let r = run(
        &hub.registry,
        "pc1",
        &ExecContext::new("pc1", "shell"),
        vec![cmd("sleep", json!({"ms": 3000}))],
    )
    .await;
    assert_eq!(r[0].status, ResultStatus::Success, "{r:?}");
    assert!(hub.registry.get("pc1").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_5_mb_result_crosses_the_link() {
    let hub = hub(LinkLimits::default()).await;
    let _c = client(&hub.url, DEVICE_TOKEN, "pc1", &[]);
    wait_registered(&hub.registry, "pc1").await;
    let text: String = "0123456789abcdef".repeat(5 * 1024 * 1024 / 16);
    let r = run(
        &hub.registry,
        "pc1",
        &ExecContext::new("pc1", "shell"),
        vec![cmd("echo", json!({"text": text})), cmd("image", json!({}))],
    )
    .await;
    assert_eq!(r[0].status, ResultStatus::Success);
    assert_eq!(
        r[0].result["text"].as_str().map(str::len),
        Some(5 * 1024 * 1024)
    );
    assert!(
        r[1].images[0].starts_with("data:image/png;base64,"),
        "{:?}",
        r[1].images
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devices_work_in_parallel() {
    let hub = hub(LinkLimits::default()).await;
    let meet = tempfile::tempdir().unwrap();
    let ids = ["d1", "d2", "d3"];
    let _clients: Vec<Client> = ids
        .iter()
        .map(|id| client(&hub.url, DEVICE_TOKEN, id, &[]))
        .collect();
    for id in ids {
        wait_registered(&hub.registry, id).await;
    }
    // Each batch finishes only when all three devices are inside their tool call at once.
    let dir = meet.path().to_str().unwrap().to_owned();
    let runs: Vec<_> = ids
        .iter()
        .map(|id| {
            let registry = hub.registry.clone();
            let (id, dir) = (id.to_string(), dir.clone());
            tokio::spawn(async move {
                let ctx = ExecContext::new(&id, "shell");
                run(
                    &registry,
                    &id,
                    &ctx,
                    vec![cmd(
                        "rendezvous",
                        json!({"dir": dir, "parties": 3, "timeout_ms": 30_000}),
                    )],
                )
                .await
            })
        })
        .collect();
    for r in runs {
        let r = r.await.unwrap();
        assert_eq!(r[0].status, ResultStatus::Success, "{r:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_reconnect_by_themselves_after_a_server_restart() {
    let data = TempDataDir::new().unwrap();
    let port = free_port();
    let start = || {
        let mut serve = deft();
        serve.arg("--data-dir").arg(data.path()).args([
            "serve",
            "--bind",
            &format!("127.0.0.1:{port}"),
            // Killed like a crash below: a desktop it started would be left behind.
            "--no-desktop",
        ]);
        serve.stdout(Stdio::null()).stderr(Stdio::null());
        let child = GroupChild::spawn(serve).unwrap();
        assert!(wait_for_port(
            ([127, 0, 0, 1], port).into(),
            Duration::from_secs(20)
        ));
        child
    };
    let server = start();
    let device_token = std::fs::read_to_string(data.path().join("device-token"))
        .unwrap()
        .trim()
        .to_owned();
    let api_token = std::fs::read_to_string(data.path().join("api-token"))
        .unwrap()
        .trim()
        .to_owned();
    let url = format!("http://127.0.0.1:{port}");
    let _c = client(&url, &device_token, "pc1", &["--backoff-max-secs", "1"]);
    let api = ApiClient::new(&url, &api_token).unwrap();
    wait_listed(&api, "pc1").await;
    drop(server); // SIGKILL of the server's process group
    let _server = start(); // same data folder: the same tokens
    wait_listed(&api, "pc1").await;
    let v = api
        .exec(
            "pc1",
            json!({"commands": [{"tool_name": "noop"}]}).to_string(),
            None,
        )
        .await
        .unwrap();
    assert_eq!(v[0]["status"], "success", "{v}");
}

#[test]
fn exec_server_mode_needs_an_api_token() {
    let out = deft()
        .args(["exec", "--server", "http://127.0.0.1:9", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(br#"{"commands":[]}"#)?;
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "error: --server needs the server's API token: --api-token or DEFT_API_TOKEN"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_the_client_cleanly_and_the_server_drops_the_device() {
    let hub = hub(LinkLimits::default()).await;
    let mut c = client(&hub.url, DEVICE_TOKEN, "pc1", &[]);
    wait_registered(&hub.registry, "pc1").await;
    let sent = Command::new("kill")
        .args(["-INT", &c.child.pid().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = wait_exit(&mut c.child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(0), "{}", c.stderr());
    for _ in 0..1000 {
        if hub.registry.get("pc1").is_none() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the server still lists the stopped client");
}

/// A hand-written server: accepts one `deft client` connection, acks its registration and
/// sends it frames of its choosing.
async fn raw_server() -> (
    String,
    tokio::task::JoinHandle<tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}/ws", listener.local_addr().unwrap());
    let accept = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        tokio_tungstenite::accept_async(tcp).await.unwrap()
    });
    (url, accept)
}

async fn raw_recv(
    ws: &mut tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>,
) -> deft_protocol::link::ClientMessage {
    use futures::StreamExt;
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("a frame within 20 s")
            .expect("open")
            .expect("frame");
        if let tokio_tungstenite::tungstenite::Message::Text(t) = frame {
            let m: deft_protocol::link::ClientMessage = serde_json::from_str(&t).unwrap();
            if m.kind != deft_protocol::link::ClientMessageType::Heartbeat {
                return m;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_answers_bad_frames_with_errors_and_runs_ufo_shaped_commands() {
    use deft_protocol::link::ClientMessageType;
    use futures::SinkExt;
    use tokio_tungstenite::tungstenite::Message;
    let (url, accept) = raw_server().await;
    let _c = client(&url, DEVICE_TOKEN, "pc1", &[]);
    let mut ws = accept.await.unwrap();
    let register = raw_recv(&mut ws).await;
    assert_eq!(register.kind, ClientMessageType::Register);
    assert_eq!(register.client_id.as_deref(), Some("pc1"));
    let meta = register.metadata.unwrap();
    assert_eq!(meta["profile"], "shell");
    assert_eq!(meta["platform"], "linux");
    assert!(meta["system_info"]["hostname"].is_string(), "{meta}");
    assert!(meta["screen"].is_null(), "no display, no screen: {meta}");
    ws.send(Message::text(r#"{"type":"heartbeat","status":"ok"}"#))
        .await
        .unwrap();

    let expect_error = |m: deft_protocol::link::ClientMessage| {
        assert_eq!(m.kind, ClientMessageType::Error, "{m:?}");
        m.error.unwrap()
    };
    ws.send(Message::text("not json")).await.unwrap();
    let e = expect_error(raw_recv(&mut ws).await);
    assert!(
        e.starts_with("The message could not be read (expected ident"),
        "{e}"
    );
    ws.send(Message::text(
        r#"{"type":"task","status":"continue","user_request":"x"}"#,
    ))
    .await
    .unwrap();
    assert_eq!(
        expect_error(raw_recv(&mut ws).await),
        deft_link::texts::unsupported_type("task")
    );
    ws.send(Message::text(r#"{"type":"command","status":"continue","actions":[{"tool_name":"noop","tool_type":"action"}]}"#))
        .await
        .unwrap();
    assert_eq!(
        expect_error(raw_recv(&mut ws).await),
        deft_link::texts::COMMAND_WITHOUT_ID
    );
    ws.send(Message::text(
        r#"{"type":"cancel","status":"continue","response_id":"nothing-running"}"#,
    ))
    .await
    .unwrap();

    // UFO's COMMAND as its server sends it: no early_exit/deadline_ms, nulls everywhere.
    ws.send(Message::text(r#"{"type":"command","status":"continue","agent_name":"HostAgent","process_name":null,
        "root_name":null,"actions":[{"tool_name":"echo","tool_type":"action","parameters":{"text":"ufo"},"call_id":"c-1"},
        {"tool_name":"fail","tool_type":"action","parameters":{"message":"no"},"call_id":"c-2"},
        {"tool_name":"noop","tool_type":"action","parameters":null,"call_id":"c-3"}],
        "session_id":"S1","task_name":"t1","timestamp":"2025-01-01T00:00:00Z","response_id":"R7",
        "user_request":null,"messages":null,"error":null,"result":null}"#))
        .await
        .unwrap();
    let reply = raw_recv(&mut ws).await;
    assert_eq!(reply.kind, ClientMessageType::CommandResults);
    assert_eq!(reply.prev_response_id.as_deref(), Some("R7"));
    assert_eq!(reply.session_id.as_deref(), Some("S1"));
    assert_eq!(reply.client_id.as_deref(), Some("pc1"));
    let r = reply.action_results.unwrap();
    let ids: Vec<_> = r.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, ["c-1", "c-2", "c-3"]);
    let statuses: Vec<_> = r.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        [
            ResultStatus::Success,
            ResultStatus::Failure,
            ResultStatus::Skipped
        ]
    );
    assert_eq!(r[0].result["text"], "ufo");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registration_reports_the_screen_size_of_the_display() {
    use std::io::BufRead;
    let mut xvfb = Command::new("Xvfb");
    xvfb.args([
        "-displayfd",
        "1",
        "-screen",
        "0",
        "1024x768x24",
        "-nolisten",
        "tcp",
    ])
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::null());
    let mut xvfb = GroupChild::spawn(xvfb).unwrap_or_else(|e| {
        panic!("cannot start Xvfb ({e}); install the xvfb package (scripts/test.sh does)")
    });
    let mut line = String::new();
    std::io::BufReader::new(xvfb.child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let display = format!(":{}", line.trim());
    let (url, accept) = raw_server().await;
    let _c = client_with_env(&url, DEVICE_TOKEN, "pc1", &[], &[("DISPLAY", &display)]);
    let mut ws = accept.await.unwrap();
    let register = raw_recv(&mut ws).await;
    let meta = register.metadata.unwrap();
    assert_eq!(
        meta["screen"],
        json!({"display": display, "width": 1024, "height": 768})
    );
}
