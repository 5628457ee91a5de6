//! End to end over a real MCP connection (in-process duplex transport).

mod common;

use std::time::Duration;

use deft_backend_shell::{OUTPUT_CAP, ShellPolicy};
use deft_protocol::TIMEOUT_META_KEY;
use serde_json::json;

#[tokio::test]
async fn lists_both_tools_with_the_declared_time_limit() {
    let client = common::connect(ShellPolicy::default()).await;
    let info = client.peer_info().expect("server info");
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("deft-shell")
    );
    assert!(
        info.instructions
            .as_deref()
            .unwrap_or("")
            .contains("Allowed programs: basename, cal")
    );

    let tools = client.list_all_tools().await.expect("tools/list");
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(names, ["get_system_info", "run_shell"]);

    let run_shell = tools
        .iter()
        .find(|t| t.name == "run_shell")
        .expect("run_shell");
    let meta = run_shell.meta.as_ref().expect("run_shell has _meta");
    assert_eq!(meta.0.get(TIMEOUT_META_KEY), Some(&json!(120)));
    let description = run_shell.description.as_deref().expect("description");
    assert!(
        description.contains("allow-list: basename, cal, cat"),
        "{description}"
    );
    assert!(description.contains("find without -exec"), "{description}");
    let properties = &run_shell.input_schema["properties"];
    assert!(
        properties["command"].is_object()
            && properties["timeout"].is_object()
            && properties["cwd"].is_object()
    );
    assert_eq!(run_shell.input_schema["required"], json!(["command"]));
    assert!(run_shell.output_schema.is_some());

    let system = tools
        .iter()
        .find(|t| t.name == "get_system_info")
        .expect("get_system_info");
    assert!(
        system
            .description
            .as_deref()
            .unwrap_or("")
            .contains("kernel")
    );
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn run_shell_returns_structured_output() {
    let client = common::connect(ShellPolicy::default()).await;
    let result = common::call(
        &client,
        "run_shell",
        json!({ "command": "echo hello world" }),
    )
    .await;
    assert_eq!(
        common::structured(&result),
        &json!({
            "exit_code": 0,
            "stdout": "hello world\n",
            "stderr": "",
            "timed_out": false,
            "truncated": false,
        })
    );
    // The text copy carries the same JSON.
    let copy: serde_json::Value = serde_json::from_str(common::text(&result)).expect("JSON text");
    assert_eq!(&copy, common::structured(&result));

    // A failing program is a result, not a tool error.
    let result = common::call(
        &client,
        "run_shell",
        json!({ "command": "ls /deft-no-such-dir" }),
    )
    .await;
    let out = common::structured(&result);
    assert_eq!(out["exit_code"], json!(2));
    assert!(
        out["stderr"]
            .as_str()
            .unwrap_or("")
            .contains("deft-no-such-dir")
    );

    // Quoting works as in a POSIX shell, and nothing is expanded.
    let result = common::call(
        &client,
        "run_shell",
        json!({ "command": "echo 'a  b' $HOME '*'" }),
    )
    .await;
    assert_eq!(
        common::structured(&result)["stdout"],
        json!("a  b $HOME *\n")
    );
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn run_shell_caps_output() {
    let client = common::connect(ShellPolicy::default()).await;
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    std::io::Write::write_all(&mut file, &vec![b'x'; 3 * OUTPUT_CAP]).expect("write");
    let command = format!("cat {}", file.path().display());
    let result = common::call(&client, "run_shell", json!({ "command": command })).await;
    let out = common::structured(&result);
    assert_eq!(out["truncated"], json!(true));
    assert_eq!(out["stdout"].as_str().map(str::len), Some(OUTPUT_CAP));
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn run_shell_uses_and_checks_cwd() {
    let client = common::connect(ShellPolicy::default()).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let canonical = dir.path().canonicalize().expect("canonical");
    let result = common::call(
        &client,
        "run_shell",
        json!({ "command": "pwd", "cwd": dir.path() }),
    )
    .await;
    assert_eq!(
        common::structured(&result)["stdout"],
        json!(format!("{}\n", canonical.display()))
    );

    let missing = canonical.join("gone");
    let result = common::call(
        &client,
        "run_shell",
        json!({ "command": "pwd", "cwd": missing }),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    let text = common::text(&result);
    assert!(
        text.contains(&format!(
            "the working directory '{}' does not exist",
            missing.display()
        )),
        "{text}"
    );
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn run_shell_times_out_and_kills() {
    let client = common::connect(ShellPolicy::default()).await;
    let file = tempfile::NamedTempFile::new().expect("temp file");
    let marker = file.path().to_str().expect("utf-8").to_owned();
    let command = format!("tail -f {marker}");
    let result = common::call(
        &client,
        "run_shell",
        json!({ "command": command, "timeout": 1 }),
    )
    .await;
    // A timeout is a failure, not a success with a flag the model may not read.
    assert_eq!(result.is_error, Some(true));
    let text = common::text(&result);
    assert!(
        text.starts_with(
            "Error: tail did not finish within its time limit of 1 s; it and everything it \
             started were killed"
        ),
        "{text}"
    );
    assert!(
        text.contains("stderr so far:\n[timed out after 1 s"),
        "{text}"
    );
    let left = common::until_empty(Duration::from_secs(5), || {
        common::live_with_cmdline(&marker)
    })
    .await;
    assert!(left.is_empty(), "tail survived: {left:?}");
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn cancelling_the_call_kills_the_program() {
    let client = common::connect(ShellPolicy::default()).await;
    let file = tempfile::NamedTempFile::new().expect("temp file");
    let marker = file.path().to_str().expect("utf-8").to_owned();
    let command = format!("tail -f {marker}");
    let call = common::call(
        &client,
        "run_shell",
        json!({ "command": command, "timeout": 120 }),
    );
    // Wait until the program runs, then drop the call: the client sends notifications/cancelled.
    let started = common::until_empty(Duration::from_secs(10), || {
        if common::live_with_cmdline(&marker).is_empty() {
            vec![0]
        } else {
            Vec::new()
        }
    });
    tokio::select! {
        _ = call => panic!("tail -f ended by itself"),
        not_started = started => assert!(not_started.is_empty(), "tail never started"),
    }
    let left = common::until_empty(Duration::from_secs(5), || {
        common::live_with_cmdline(&marker)
    })
    .await;
    assert!(left.is_empty(), "tail survived cancellation: {left:?}");
    // The server still answers.
    let result = common::call(
        &client,
        "run_shell",
        json!({ "command": "echo still here" }),
    )
    .await;
    assert_eq!(common::structured(&result)["stdout"], json!("still here\n"));
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn widened_policy_runs_added_programs_and_reports_missing_ones() {
    let policy = ShellPolicy::from_options(&json!({ "allow": ["env", "deft-no-such-program"] }))
        .expect("valid options");
    assert_eq!(policy.added(), ["env", "deft-no-such-program"]);
    let client = common::connect(policy).await;
    let result = common::call(&client, "run_shell", json!({ "command": "env" })).await;
    assert_eq!(common::structured(&result)["exit_code"], json!(0));
    let result = common::call(
        &client,
        "run_shell",
        json!({ "command": "deft-no-such-program --x" }),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    let text = common::text(&result);
    assert!(
        text.contains("'deft-no-such-program' is allowed but was not found on PATH"),
        "{text}"
    );
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn get_system_info_reports_plausible_numbers() {
    let client = common::connect(ShellPolicy::default()).await;
    let result = common::call(&client, "get_system_info", json!({})).await;
    let info = common::structured(&result);
    assert!(info["cpus"].as_u64().unwrap_or(0) >= 1, "{info}");
    let total = info["memory_total_bytes"].as_u64().unwrap_or(0);
    let available = info["memory_available_bytes"].as_u64().unwrap_or(u64::MAX);
    assert!(total > 0 && available <= total, "{info}");
    assert!(
        info["kernel"].as_str().is_some_and(|k| !k.is_empty()),
        "{info}"
    );
    assert!(
        info["hostname"].as_str().is_some_and(|h| !h.is_empty()),
        "{info}"
    );
    assert_eq!(info["arch"], json!(std::env::consts::ARCH));
    assert_eq!(
        info["load_average"].as_array().map(Vec::len),
        Some(3),
        "{info}"
    );
    assert!(
        info["uptime_secs"].as_u64().is_some_and(|u| u > 0),
        "{info}"
    );
    let disk = &info["disk_root"];
    let disk_total = disk["total_bytes"].as_u64().unwrap_or(0);
    assert!(
        disk_total > 0 && disk["available_bytes"].as_u64().unwrap_or(u64::MAX) <= disk_total,
        "{info}"
    );
    assert!(
        info["user"].as_str().is_some_and(|u| !u.is_empty()),
        "{info}"
    );
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn run_shell_stops_a_program_at_its_memory_limit() {
    // A safety net for this test process (nextest runs each test in its own): were the limit
    // lost, tail /dev/zero would take gigabytes a second until its timeout.
    let cap = 4u64 << 30;
    rustix::process::setrlimit(
        rustix::process::Resource::As,
        rustix::process::Rlimit {
            current: Some(cap),
            maximum: rustix::process::getrlimit(rustix::process::Resource::As).maximum,
        },
    )
    .expect("cap this test's address space");
    let policy =
        ShellPolicy::from_options(&json!({"memory_mib": 64, "max_processes": 16})).expect("limits");
    let client = common::connect(policy).await;
    let tools = client.list_all_tools().await.expect("tools");
    let run_shell = tools
        .iter()
        .find(|t| t.name == "run_shell")
        .expect("run_shell");
    let description = run_shell.description.as_deref().unwrap_or("");
    assert!(
        description.contains(
            "A program may use at most 64 MiB of memory and start at most 16 processes or threads"
        ),
        "{description}"
    );
    // One 100 MiB line: sort keeps it whole to sort it, which fits the cap above but not the
    // limit. Then endless lines, which nothing but a limit stops.
    let file = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(file.path(), vec![b'x'; 100 << 20]).expect("one long line");
    let one_line = format!("sort {}", file.path().display());
    for (command, program) in [
        (one_line.as_str(), "sort"),
        ("tail /dev/zero", "tail"),
        ("sort -S 32M /dev/zero", "sort"),
    ] {
        let result = common::call(
            &client,
            "run_shell",
            json!({"command": command, "timeout": 60}),
        )
        .await;
        let text: String = common::text(&result).chars().take(600).collect();
        assert_eq!(result.is_error, Some(true), "{command}: {text}");
        assert_eq!(
            text,
            format!(
                "Error: {program} was stopped: it went over the 64 MiB memory limit of run_shell \
                 (a memory allocation failed), so it may have done only part of its work. Run it \
                 on less input (a smaller file, fewer lines: head -n, grep first) or with options \
                 that need less memory.\nstderr so far:\n{program}: memory exhausted\n"
            ),
            "{command}"
        );
    }
    client.cancel().await.expect("client closes");
}

#[tokio::test]
async fn programs_of_a_device_with_its_own_environment_get_it_not_the_callers() {
    let policy = ShellPolicy::from_options(&json!({"allow": ["printenv"]})).unwrap();
    let env = vec![
        ("DISPLAY".to_owned(), ":77".to_owned()),
        ("HOME".to_owned(), "/srv/desk/home".to_owned()),
    ];
    let client =
        common::serve(deft_backend_shell::ShellServer::new(policy).with_device_env(env)).await;
    let r = common::call(
        &client,
        "run_shell",
        json!({"command": "printenv DISPLAY HOME"}),
    )
    .await;
    let out = common::structured(&r);
    assert_eq!(out["stdout"], json!(":77\n/srv/desk/home\n"), "{out}");
    // The caller's session, where the device defines none, is not passed on.
    let r = common::call(
        &client,
        "run_shell",
        json!({"command": "printenv WAYLAND_DISPLAY DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR"}),
    )
    .await;
    let out = common::structured(&r);
    assert_eq!(out["stdout"], json!(""), "{out}");
}
