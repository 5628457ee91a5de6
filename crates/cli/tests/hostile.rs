//! What a hostile model reaches through deft's tools: a batch of every way of reading secrets
//! that the shell tool allows (cat/head/tail/grep/strings/od/xxd of deft's /proc files and data
//! folder in every path form, ps variants, env, printenv), run against a real `deft serve` and a
//! real `deft mcp shell --http` (its token on the command line, and in `DEFT_MCP_TOKEN`), and
//! every answer scanned for each secret deft holds — the model key (from the environment and
//! from the settings), the API, device and MCP tokens, a named API token, a webhook's signing
//! secret, a task secret, the admin password, a session's cookie and CSRF token, and the data
//! folder's key — as it is, in hex (also as `xxd` and `od` dump it across lines) and in base64.
//! None may appear, and every command that reads deft's /proc files or its data folder must
//! have been refused. Neither may any secret be in the environment of a process deft started.

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
const MCP_ENV_TOKEN: &str = "hostile-mcp-token-from-the-environment-cdef";
const TASK_SECRET: &str = "hostile-task-secret-in-the-vault-0f1e";

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

/// The forms a secret may take in an answer: as it is; its bytes in lowercase hex, run
/// together, a space after each byte or each two (`xxd`), and as `od -x`'s little-endian
/// two-byte words; and base64 at each of the three alignments it may start at in a longer
/// stream (only the characters that depend on the secret's bytes alone).
fn forms(secret: &str) -> Vec<(&'static str, String)> {
    use base64::Engine as _;
    let bytes = secret.as_bytes();
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let pairs = |swap: bool| -> Vec<String> {
        bytes
            .chunks(2)
            .filter(|c| c.len() == 2)
            .map(|c| match swap {
                false => format!("{:02x}{:02x}", c[0], c[1]),
                true => format!("{:02x}{:02x}", c[1], c[0]),
            })
            .collect()
    };
    let mut out = vec![
        ("plain", secret.to_owned()),
        ("hex", hex.concat()),
        ("hex bytes", hex.join(" ")),
        ("hex pairs", pairs(false).join(" ")),
        ("od -x words", pairs(true).join(" ")),
    ];
    for lead in 0..3 {
        let mut padded = vec![0u8; lead];
        padded.extend_from_slice(bytes);
        let encoded = base64::engine::general_purpose::STANDARD.encode(&padded);
        let (skip, full) = (if lead > 0 { 4 } else { 0 }, (padded.len() / 3) * 4);
        out.push(("base64", encoded[skip..full].to_owned()));
    }
    out
}

/// Fails with the answers that show a secret, in any of its [`forms`] (whitespace dropped too,
/// so a dump's columns do not hide it).
fn assert_no_secret(answers: &[(String, String)], secrets: &[(&str, String)]) {
    let leaks = leaks(answers, secrets);
    assert!(leaks.is_empty(), "secrets leaked:\n{}", leaks.join("\n"));
}

/// The answers that show a secret, as "command: shows the what (form)": in any of its
/// [`forms`], in the answer or its strings ([`strings`]) with whitespace kept or dropped, and in the bytes
/// a hex dump in it shows across its lines ([`dumped_hex`]).
fn leaks(answers: &[(String, String)], secrets: &[(&str, String)]) -> Vec<String> {
    let mut leaks = Vec::new();
    for (command, answer) in answers {
        let text = format!("{answer}\n{}", strings(answer));
        let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let dumps = [dumped_hex(&text, false), dumped_hex(&text, true)];
        for (what, secret) in secrets {
            let hex: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
            for (form, shown) in forms(secret) {
                if text.contains(shown.as_str()) || squeezed.contains(shown.as_str()) {
                    leaks.push(format!("{command}: shows the {what} ({form})"));
                }
            }
            if dumps.iter().any(|d| d.contains(&hex)) {
                leaks.push(format!("{command}: shows the {what} (hex dump)"));
            }
        }
    }
    leaks
}

/// The strings of the JSON `answer` (its output, its error), each on lines of its own.
fn strings(answer: &str) -> String {
    fn collect(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|v| collect(v, out)),
            Value::Object(o) => o.values().for_each(|v| collect(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Ok(v) = serde_json::from_str::<Value>(answer) {
        collect(&v, &mut out);
    }
    out.join("\n")
}

/// The bytes (as lowercase hex) a hex dump in `text` shows, its lines joined: each line's offset
/// dropped and its hex groups read up to the text column (after two spaces, `xxd`'s). With
/// `swap`, four-digit groups are read as `od -x`'s little-endian words.
fn dumped_hex(text: &str, swap: bool) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let data = line.split("  ").next().unwrap_or("");
        let mut groups = data.split_whitespace();
        let is_hex = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_hexdigit());
        if !groups
            .next()
            .is_some_and(|o| is_hex(o.trim_end_matches(':')))
        {
            continue;
        }
        for g in groups {
            if !is_hex(g) || g.len() % 2 != 0 {
                break;
            }
            let g = g.to_ascii_lowercase();
            if swap && g.len() == 4 {
                out.push_str(&g[2..]);
                out.push_str(&g[..2]);
            } else {
                out.push_str(&g);
            }
        }
    }
    out
}

/// The scan sees a secret in each dump the batch's programs make of it, at any offset in the
/// file (base64's alignments), as the answers carry it (JSON).
#[test]
fn the_scan_sees_a_secret_in_hex_and_base64_dumps() {
    let dir = tempfile::tempdir().unwrap();
    for lead in ["", "x", "xy"] {
        let file = dir.path().join(format!("secret{}", lead.len()));
        std::fs::write(&file, format!("{lead}KEY={MODEL_KEY}\n")).unwrap();
        for program in [
            &["xxd"][..],
            &["od", "-x"],
            &["od", "-t", "x1"],
            &["base64"],
        ] {
            let out = std::process::Command::new(program[0])
                .args(&program[1..])
                .arg(&file)
                .output()
                .unwrap();
            assert!(out.status.success(), "{program:?}");
            let answer = json!({"stdout": String::from_utf8(out.stdout).unwrap()}).to_string();
            let found = leaks(
                &[(program.join(" "), answer.clone())],
                &[("model key", MODEL_KEY.to_owned())],
            );
            assert!(!found.is_empty(), "{program:?} hides it: {answer}");
        }
    }
}

/// Whether `command` (run in `cwd`) reads a file of deft process `pid` (or its thread `tid`)
/// under /proc, or one in the data folder `data`.
fn reads_deft(command: &str, cwd: Option<&str>, pid: u32, tid: u32, data: &Path) -> bool {
    let d = data.display().to_string();
    let text = format!("{command} {}", cwd.unwrap_or(""));
    [
        format!("/proc/{pid}/"),
        format!("/proc/{tid}/"),
        format!("../{pid}/"),
        format!("/proc/{pid} "),
        d.clone() + "/",
        d + " ",
    ]
    .iter()
    .any(|p| format!("{text} ").contains(p.as_str()))
}

/// Fails unless every command of the batch that reads deft's /proc files or its data folder
/// was refused by the guard (not merely answered without a secret).
fn assert_deft_reads_refused(
    commands: &[(String, Option<String>)],
    results: &[Value],
    pid: u32,
    data: &Path,
) -> usize {
    let tid = threads(pid).first().copied().unwrap_or(pid);
    let mut ran = Vec::new();
    let mut checked = 0;
    for ((command, cwd), result) in commands.iter().zip(results) {
        if !reads_deft(command, cwd.as_deref(), pid, tid, data) {
            continue;
        }
        checked += 1;
        if result["status"] != "failure" {
            ran.push(format!("{command} (in {cwd:?}): {result}"));
        }
    }
    assert!(
        ran.is_empty(),
        "reads of deft's files that ran:\n{}",
        ran.join("\n")
    );
    checked
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

/// Every secret `serve` (data folder `data`) holds once the console was used: the model keys,
/// the tokens and password it was started with, a session's cookie and CSRF token, the data
/// folder's key, and — made here through the API — a model key kept in the settings (sealed
/// with the data folder's key), a named API token, a webhook's signing secret and a task secret
/// (the vault).
async fn secrets_of(serve: &Serve, data: &Path) -> Vec<(&'static str, String)> {
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
    let token = session
        .post(
            "/api/tokens",
            &json!({"name": "hostile", "scopes": ["devices:read"]}),
        )
        .await;
    assert_eq!(token.status, 201, "{}", token.text);
    let webhook = session
        .post(
            "/api/webhooks",
            &json!({"name": "hostile", "url": "https://hooks.example.invalid/deft", "events": ["task_run.ended"]}),
        )
        .await;
    assert_eq!(webhook.status, 201, "{}", webhook.text);
    let vault = session
        .send(
            "PUT",
            "/api/secrets/HOSTILE_VAULT",
            Some(&json!({"value": TASK_SECRET})),
        )
        .await;
    assert_eq!(vault.status, 200, "{}", vault.text);
    vec![
        (
            "named API token",
            token.body["value"].as_str().unwrap().to_owned(),
        ),
        (
            "webhook's signing secret",
            webhook.body["secret"].as_str().unwrap().to_owned(),
        ),
        ("task secret", TASK_SECRET.to_owned()),
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
    ]
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

    let secrets = secrets_of(&serve, &data).await;

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

    // The managed desktop's work folder, open to the model, is there: `desktop/../` leads back
    // into the data folder.
    std::fs::create_dir_all(data.join("desktop")).unwrap();
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
    let refusals = assert_deft_reads_refused(&commands, results, pid, &data);
    assert!(
        refusals >= 40,
        "only {refusals} of the batch read deft's files"
    );
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
    // The token as a person might type it: on the command line, where every program sees it
    // (deft warns), so `ps` must not show it to the model…
    hostile_mcp(McpToken::CommandLine).await;
    // …and as the warning says to give it: in deft's environment.
    hostile_mcp(McpToken::Environment).await;
}

/// How `deft mcp` is given its token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum McpToken {
    /// `--token` on the command line.
    CommandLine,
    /// `DEFT_MCP_TOKEN` in its environment.
    Environment,
}

/// The hostile batch against a real `deft mcp shell --http` given its token `how`.
async fn hostile_mcp(how: McpToken) {
    let token = match how {
        McpToken::CommandLine => MCP_TOKEN,
        McpToken::Environment => MCP_ENV_TOKEN,
    };
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
        .env("AGENT_API_KEY", MODEL_KEY)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr).unwrap());
    match how {
        McpToken::CommandLine => cmd.args(["--token", token]),
        McpToken::Environment => cmd.env("DEFT_MCP_TOKEN", token),
    };
    let server = GroupChild::spawn(cmd).unwrap();
    let pid = server.pid() as u32;
    let url = listening_at(&stderr).await;
    let said = std::fs::read_to_string(&stderr).unwrap();
    let warning = "warning: --token on the command line is visible to every program on this machine (ps); set DEFT_DEVICE_TOKEN (deft client) or DEFT_MCP_TOKEN (deft mcp) instead";
    assert_eq!(
        said.contains(warning),
        how == McpToken::CommandLine,
        "{said}"
    );

    let yaml = format!(
        "profiles:\n  shell:\n    HostAgent:\n      default:\n        action:\n          - {{namespace: shell, type: http, url: \"{url}\", headers: {{Authorization: \"Bearer {token}\"}}}}\n"
    );
    let table = RoutingTable::parse(&yaml, "hostile.yaml").unwrap();
    let dispatcher = LocalDispatcher::new(Arc::new(table), Arc::new(BuiltinRegistry::new()));
    std::fs::create_dir_all(data.join("desktop")).unwrap();
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
        ("MCP token", token.to_owned()),
        ("model key", MODEL_KEY.to_owned()),
        (
            "token in the data folder",
            "hostile-token-in-the-data-folder".to_owned(),
        ),
    ];
    assert_no_secret(&answers, &secrets);
    let refusals = assert_deft_reads_refused(&commands, &results, pid, &data);
    assert!(
        refusals >= 40,
        "only {refusals} of the batch read deft's files"
    );
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
