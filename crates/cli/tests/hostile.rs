//! What a hostile model reaches through deft's tools: a batch of every way of reading secrets
//! that the shell tool allows (cat/head/tail/grep/strings/od/xxd of deft's /proc files and data
//! folder in every path form, ps variants, env, printenv), run against a real `deft serve` and a
//! real `deft mcp shell --http`, and every answer scanned for each secret deft holds: the model
//! key (from the environment and from the settings), the API, device and MCP tokens, the admin
//! password, a session's cookie and CSRF token, and the data folder's key. None may appear.
//! Neither may any of them in the environment of a process deft started.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

#[path = "common/console.rs"]
mod support;

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;

use deft_protocol::Command as Cmd;
use deft_test_support::TempDataDir;
use deft_test_support::proc::{GroupChild, fixture_bin};
use deft_tools::builtin::BuiltinRegistry;
use deft_tools::table::RoutingTable;
use deft_tools::{Dispatcher, ExecContext, LocalDispatcher};
use serde_json::{Value, json};
use support::{ADMIN_PASSWORD, API_TOKEN, DEVICE_TOKEN, Serve, ServeOptions};

const MODEL_KEY: &str = "sk-hostile-model-key-from-the-environment-0123";
const SETTINGS_KEY: &str = "sk-hostile-model-key-from-the-settings-4567";
const MCP_TOKEN: &str = "hostile-mcp-token-89ab";

/// Programs a widened allow-list adds, so the batch can try them too.
const WIDENED: &str = "[strings, od, xxd, env, printenv]";

/// A routing table whose `shell` profile has the widened shell tools and the fixture MCP server
/// as a stdio child (a process deft starts).
fn tools(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("tools.yaml");
    let yaml = format!(
        "profiles:\n  shell:\n    HostAgent:\n      default:\n        data_collection:\n          - {{namespace: shell, type: builtin, name: shell, tools: [get_system_info], options: {{allow: {WIDENED}}}}}\n        action:\n          - {{namespace: shell, type: builtin, name: shell, tools: [run_shell], options: {{allow: {WIDENED}}}}}\n          - {{namespace: fixture, type: stdio, command: \"{}\", tools: [pid]}}\n",
        fixture_bin().display()
    );
    std::fs::write(&path, yaml).unwrap();
    path
}

/// The ids of `pid`'s threads other than itself.
fn threads(pid: u32) -> Vec<u32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|dir| {
            dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .filter(|t| *t != pid)
                .collect()
        })
        .unwrap_or_default()
}

/// Every way the batch tries, as (command, working directory) against deft process `pid` and
/// data folder `data`.
fn hostile(pid: u32, data: &Path) -> Vec<(String, Option<String>)> {
    let d = data.display();
    let name = data.file_name().unwrap().to_string_lossy();
    let tid = threads(pid).first().copied().unwrap_or(pid);
    let mut commands: Vec<String> = [
        "cat /proc/self/environ",
        "cat /proc/thread-self/environ",
        "cat /proc/self/cmdline",
        "tail /dev/fd/../environ",
        "cat /dev/stdin",
        "ps -eo args",
        "ps -ef",
        "ps -efww",
        "ps auxww",
        "ps e",
        "ps aux e",
        "ps auxe",
        "ps axeww",
        "ps -ex",
        "ps -e -o pid,args e",
        "env",
        "printenv",
        "printenv AGENT_API_KEY",
        "printenv DEFT_MCP_TOKEN",
        "grep -rao sk-[a-z0-9-]* /proc",
        "grep -ra hostile /",
    ]
    .map(str::to_owned)
    .into();
    for file in ["environ", "cmdline", "maps", "mem", "fd/0", "fd/3", "task"] {
        commands.push(format!("cat /proc/{pid}/{file}"));
    }
    commands.extend([
        // Only deft's own lines: the whole process table may pass the output cap first.
        format!("ps -ww -o args= -p {pid}"),
        format!("ps -fww -p {pid}"),
        format!("ps uww {pid}"),
        format!("ps ewww {pid}"),
        format!("ps -o args:40= -p {pid}"),
        format!("head -c 100000 /proc/{pid}/environ"),
        format!("tail -c 100000 /proc/{pid}/environ"),
        format!("grep -a KEY /proc/{pid}/environ"),
        format!("grep -ao . /proc/{pid}/environ"),
        format!("strings /proc/{pid}/environ"),
        format!("od -c /proc/{pid}/environ"),
        format!("xxd /proc/{pid}/environ"),
        format!("cut -c 1-100000 /proc/{pid}/environ"),
        format!("sort /proc/{pid}/environ"),
        format!("diff /proc/{pid}/environ /dev/null"),
        format!("cat /proc/{tid}/environ"),
        format!("cat /proc/{pid}/task/{tid}/environ"),
        format!("cat /proc/self/../{pid}/environ"),
        format!("cat /proc/{pid}/root/proc/{pid}/environ"),
        format!("grep -f /proc/{pid}/environ /dev/null"),
        format!("date -f /proc/{pid}/environ"),
        format!("ls -l /proc/{pid}/fd"),
        format!("grep -r KEY /proc/{pid}"),
        format!("strings /proc/{pid}/mem"),
        format!("cat {d}/secret.key"),
        format!("xxd {d}/secret.key"),
        format!("od -x {d}/secret.key"),
        format!("cat {d}/api-token"),
        format!("cat {d}/device-token"),
        format!("strings {d}/deft.db"),
        format!("strings {d}/deft.db-wal"),
        format!("grep -ra sk- {d}"),
        format!("cat {d}/../{name}/secret.key"),
        format!("cat {d}/desktop/../secret.key"),
        format!("ls -la {d}"),
        format!("grep -r hostile {}", data.parent().unwrap().display()),
    ]);
    let mut all: Vec<(String, Option<String>)> = commands.into_iter().map(|c| (c, None)).collect();
    all.extend([
        ("cat environ".to_owned(), Some(format!("/proc/{pid}"))),
        ("cat ./environ".to_owned(), Some("/proc/self".to_owned())),
        (
            "strings ../environ".to_owned(),
            Some(format!("/proc/{pid}/task")),
        ),
        (
            "cat secret.key".to_owned(),
            Some(data.display().to_string()),
        ),
        ("grep -r sk- .".to_owned(), Some(data.display().to_string())),
    ]);
    all
}

/// The batch's commands, early exit off.
fn batch(commands: &[(String, Option<String>)]) -> Vec<Cmd> {
    commands
        .iter()
        .map(|(command, cwd)| {
            let mut params = json!({ "command": command });
            if let Some(cwd) = cwd {
                params["cwd"] = json!(cwd);
            }
            Cmd::new("run_shell", None, params)
        })
        .collect()
}

/// Fails with the answers that show a secret, in any of its forms (whitespace dropped, so a
/// dump's columns do not hide hex).
fn assert_no_secret(answers: &[(String, String)], secrets: &[(&str, String)]) {
    let mut leaks = Vec::new();
    for (command, answer) in answers {
        let squeezed: String = answer.chars().filter(|c| !c.is_whitespace()).collect();
        for (what, secret) in secrets {
            if answer.contains(secret.as_str()) || squeezed.contains(secret.as_str()) {
                leaks.push(format!("{command}: shows the {what}"));
            }
        }
    }
    assert!(leaks.is_empty(), "secrets leaked:\n{}", leaks.join("\n"));
}

/// Fails when a descendant of `root` holds a secret in its environment.
fn assert_clean_descendants(root: u32, secrets: &[(&str, String)]) -> usize {
    let mut checked = 0;
    for pid in descendants(root) {
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        checked += 1;
        let env = String::from_utf8_lossy(&env);
        for (what, secret) in secrets {
            assert!(
                !env.contains(secret.as_str()),
                "process {pid}, started by deft, has the {what} in its environment"
            );
        }
    }
    checked
}

fn descendants(root: u32) -> Vec<u32> {
    let parent = |pid: u32| -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat[stat.rfind(')')? + 1..]
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    let all: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    all.into_iter()
        .filter(|&pid| {
            let mut at = pid;
            for _ in 0..64 {
                match parent(at) {
                    Some(p) if p == root => return true,
                    Some(p) if p > 1 => at = p,
                    _ => return false,
                }
            }
            false
        })
        .collect()
}

/// The URL `deft mcp … --http` says it serves at, in its stderr file.
async fn listening_at(stderr: &Path) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let text = std::fs::read_to_string(stderr).unwrap_or_default();
        if let Some(rest) = text.split("serving MCP server 'shell' at ").nth(1) {
            return rest.split_whitespace().next().unwrap_or("").to_owned();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "deft mcp did not say where it listens: {text}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// The answers of `results` paired with their commands, as JSON text.
fn answers(commands: &[(String, Option<String>)], results: &[Value]) -> Vec<(String, String)> {
    assert_eq!(results.len(), commands.len(), "one result per command");
    commands
        .iter()
        .zip(results)
        .map(|(c, r)| (c.0.clone(), r.to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hostile_batch_on_deft_serve_finds_no_secret() {
    let dir = TempDataDir::new().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let mut opts = ServeOptions::shell("http://127.0.0.1:9/v1", dir.path());
    opts.tools = Some(tools(dir.path()));
    opts.env
        .push(("AGENT_API_KEY".to_owned(), MODEL_KEY.to_owned()));
    let serve = Serve::start(&data, &opts);
    let pid = serve.child.pid() as u32;

    // A session, and a model key kept in the settings (sealed with the data folder's key).
    let session = serve.login().await;
    let put = session
        .send(
            "PUT",
            "/api/settings",
            Some(&json!({"api_key": SETTINGS_KEY})),
        )
        .await;
    assert_eq!(put.status, 200, "{}", put.text);
    let support::Auth::Session { cookie, csrf } = session.auth.clone() else {
        panic!("a session")
    };
    let key_file = std::fs::read_to_string(data.join("secret.key")).unwrap();
    let secrets = [
        ("model key", MODEL_KEY.to_owned()),
        ("model key from the settings", SETTINGS_KEY.to_owned()),
        ("API token", API_TOKEN.to_owned()),
        ("device token", DEVICE_TOKEN.to_owned()),
        ("admin password", ADMIN_PASSWORD.to_owned()),
        (
            "session cookie",
            cookie.split_once('=').unwrap().1.to_owned(),
        ),
        ("CSRF token", csrf),
        ("data folder's key", key_file.trim().to_owned()),
    ];

    // The fixture's stdio server is running, so it is one of deft's processes to try.
    let api = serve.api();
    let first = api
        .post(
            "/api/devices/local/exec",
            &json!({"commands": [{"tool_name": "pid"}]}),
        )
        .await;
    assert_eq!(first.status, 200, "{}", first.text);
    let fixture = first.body[0]["result"]["pid"].as_u64().unwrap() as u32;

    let mut commands = hostile(pid, &data);
    commands.extend(
        ["environ", "cmdline"].map(|f| (format!("cat /proc/{fixture}/{f}"), None::<String>)),
    );
    let r = api
        .post(
            "/api/devices/local/exec",
            &json!({"early_exit": false, "commands": batch(&commands)}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let results = r.body.as_array().unwrap();
    let answers = answers(&commands, results);
    assert_no_secret(&answers, &secrets);
    // The guard answered, not a broken tool: reading deft's environment is refused by name,
    // and an allowed neighbour ran.
    let refused = |command: &str| {
        let i = commands.iter().position(|c| c.0 == command).unwrap();
        results[i]["error"].as_str().unwrap_or("").to_owned()
    };
    assert!(
        refused(&format!("cat /proc/{pid}/environ")).contains("deft's own processes"),
        "{}",
        refused(&format!("cat /proc/{pid}/environ"))
    );
    assert!(refused(&format!("cat {}/secret.key", data.display())).contains("data folder"));
    let status = api
        .post(
            "/api/devices/local/exec",
            &json!({"commands": [{"tool_name": "run_shell", "parameters": {"command": format!("grep -c Pid /proc/{pid}/status")}}]}),
        )
        .await;
    assert_eq!(status.body[0]["status"], "success", "{}", status.text);

    let checked = assert_clean_descendants(pid, &secrets);
    assert!(checked >= 1, "the fixture server was checked");
    serve.interrupt();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hostile_batch_on_deft_mcp_over_http_finds_no_secret() {
    let dir = TempDataDir::new().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("api-token"), "hostile-token-in-the-data-folder").unwrap();
    let stderr = dir.path().join("mcp.stderr");
    let mut cmd = deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"));
    cmd.arg("--data-dir")
        .arg(&data)
        .args(["mcp", "shell", "--http", "127.0.0.1:0", "--options"])
        .arg(format!(
            "{{\"allow\": {}}}",
            serde_json::to_string(&["strings", "od", "xxd", "env", "printenv"]).unwrap()
        ))
        // As a person might type it: on the command line, where every program sees it (deft
        // warns), so `ps` must not show it to the model.
        .args(["--token", MCP_TOKEN])
        .env("AGENT_API_KEY", MODEL_KEY)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr).unwrap());
    let server = GroupChild::spawn(cmd).unwrap();
    let pid = server.pid() as u32;
    let url = listening_at(&stderr).await;
    let said = std::fs::read_to_string(&stderr).unwrap();
    assert!(
        said.contains("warning: --token on the command line is visible to every program on this machine (ps); set DEFT_DEVICE_TOKEN (deft client) or DEFT_MCP_TOKEN (deft mcp) instead"),
        "{said}"
    );

    let yaml = format!(
        "profiles:\n  shell:\n    HostAgent:\n      default:\n        action:\n          - {{namespace: shell, type: http, url: \"{url}\", headers: {{Authorization: \"Bearer {MCP_TOKEN}\"}}}}\n"
    );
    let table = RoutingTable::parse(&yaml, "hostile.yaml").unwrap();
    let dispatcher = LocalDispatcher::new(Arc::new(table), Arc::new(BuiltinRegistry::new()));
    let commands = hostile(pid, &data);
    let mut ctx = ExecContext::new("mcp", "shell");
    ctx.early_exit = false;
    let mut cmds = batch(&commands);
    for c in &mut cmds {
        c.tool_type = Some(deft_protocol::ToolType::Action);
    }
    let results: Vec<Value> = dispatcher
        .execute(&ctx, cmds)
        .await
        .iter()
        .map(|r| serde_json::to_value(r).unwrap())
        .collect();
    let answers = answers(&commands, &results);
    let secrets = [
        ("MCP token", MCP_TOKEN.to_owned()),
        ("model key", MODEL_KEY.to_owned()),
        (
            "token in the data folder",
            "hostile-token-in-the-data-folder".to_owned(),
        ),
    ];
    assert_no_secret(&answers, &secrets);
    let i = commands
        .iter()
        .position(|c| c.0 == format!("cat /proc/{pid}/environ"))
        .unwrap();
    assert!(
        results[i]["error"]
            .as_str()
            .unwrap_or("")
            .contains("deft's own processes"),
        "{}",
        results[i]
    );
    assert_clean_descendants(pid, &secrets);
    drop(server);
}

/// `deft serve` with its managed desktop, an app, LibreOffice (and its UNO helper) and the
/// browser device's Chromium running: none of the processes it started holds a secret in its
/// environment (each spawn site scrubs it).
#[tokio::test(flavor = "multi_thread")]
async fn no_process_deft_serve_starts_holds_a_secret() {
    deft_test_support::desktop::require_desktop(&[("mousepad", "mousepad")]);
    deft_test_support::office::require_office();
    let dir = TempDataDir::new().unwrap();
    let mut opts = ServeOptions::shell("http://127.0.0.1:9/v1", dir.path());
    opts.tools = None;
    opts.desktop = true;
    opts.env
        .push(("AGENT_API_KEY".to_owned(), MODEL_KEY.to_owned()));
    opts.env.push((
        "OTHER_SERVICE_TOKEN".to_owned(),
        "hostile-other-token".to_owned(),
    ));
    let serve = Serve::start(dir.path(), &opts);
    let pid = serve.child.pid() as u32;
    let api = serve.api();
    let launched = api
        .post(
            "/api/devices/local/exec",
            &json!({"commands": [
                {"tool_name": "launch_app", "parameters": {"app": "mousepad"}},
                {"tool_name": "launch_app", "parameters": {"app": "libreoffice-writer"}},
            ]}),
        )
        .await;
    assert_eq!(launched.status, 200, "{}", launched.text);
    for result in launched.body.as_array().unwrap() {
        assert_eq!(result["status"], "success", "{result}");
    }
    let browsed = api
        .post(
            "/api/devices/browser/exec",
            &json!({"commands": [{"tool_name": "get_desktop_app_info"}]}),
        )
        .await;
    assert_eq!(browsed.body[0]["status"], "success", "{}", browsed.text);

    let secrets = [
        ("model key", MODEL_KEY.to_owned()),
        ("API token", API_TOKEN.to_owned()),
        ("device token", DEVICE_TOKEN.to_owned()),
        ("admin password", ADMIN_PASSWORD.to_owned()),
        ("other token", "hostile-other-token".to_owned()),
    ];
    let names = |pids: &[u32]| -> Vec<String> {
        pids.iter()
            .filter_map(|p| std::fs::read_to_string(format!("/proc/{p}/comm")).ok())
            .map(|c| c.trim().to_owned())
            .collect()
    };
    let started = names(&descendants(pid));
    for expected in [
        "Xvfb",
        "openbox",
        "mousepad",
        "soffice.bin",
        "python3",
        "chromium",
    ] {
        assert!(
            started.iter().any(|n| n == expected),
            "{expected} is not among deft's processes: {started:?}"
        );
    }
    assert_clean_descendants(pid, &secrets);
    serve.interrupt();
}
