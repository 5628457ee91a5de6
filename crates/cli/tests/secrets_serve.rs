//! The secrets leak test: `deft secret set` (the value on stdin) gives a real `deft serve` a
//! secret, a task run through its API types it into the GTK form app's Name field on the managed
//! virtual desktop, and the form app reads it back — so the value really reached the field —
//! while no stored byte (the SQLite database and its WAL, the trace folder with `report.html`),
//! no event the API serves, no API answer and nothing the server printed holds it.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

#[path = "common/console.rs"]
mod support;

use std::path::Path;
use std::time::Duration;

use deft_test_support::TempDataDir;
use deft_test_support::desktop::{AppProcess, require_desktop};
use serde_json::json;
use support::{API_TOKEN, Serve, ServeOptions};

const VALUE: &str = "Zq7-hunter2-Ünïcode-never-shown";

/// Every file under `dir` that holds `needle`, by path.
fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && let Ok(bytes) = std::fs::read(&path)
                && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
            {
                out.push(path.display().to_string());
            }
        }
    }
    out
}

/// `deft secret ARGS --server URL`, `stdin` piped in.
fn deft_secret(serve: &Serve, args: &[&str], stdin: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"))
        .arg("secret")
        .args(args)
        .args(["--server", &serve.url])
        .env("DEFT_API_TOKEN", API_TOKEN)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Waits (60 s at most) until the server's `local` desktop lists the form app's window.
async fn form_window_listed(api: &support::Api) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let r = api
            .post(
                "/api/devices/local/exec",
                &json!({"commands": [{"tool_name": "get_desktop_app_info", "parameters": {}}]}),
            )
            .await;
        if r.text.contains("form_app.py") {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the form app's window never showed: {}",
            r.text
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_typed_into_a_real_form_leaves_no_trace_anywhere() {
    require_desktop(&[]);
    let dir = TempDataDir::new().unwrap();
    let mut opts = ServeOptions::shell("http://127.0.0.1:9/v1", dir.path());
    opts.tools = None;
    opts.desktop = true;
    let serve = Serve::start(dir.path(), &opts);
    let state =
        deft_backend_desktop::vdesktop::DesktopState::load(&dir.path().join("desktop.json"))
            .unwrap()
            .expect("the managed desktop's state");
    let form = AppProcess::form_app(&state.env()).expect("the form app starts");
    let api = serve.api();
    form_window_listed(&api).await;

    let set = deft_secret(&serve, &["set", "FORM_PW"], &format!("{VALUE}\n"));
    assert!(set.status.success(), "{set:?}");
    let task = json!({
        "name": "type the password",
        "device": "local",
        "screenshots": "every_step",
        "variables": {"pw": {"secret": "FORM_PW"}},
        "steps": [
            {"type": "open_app", "app": "form_app.py"},
            {"type": "input_text", "selector": {"text": "Name", "type": "edit"}, "text": "{{pw}}"},
        ]
    });
    let created = api.post("/api/tasks", &task).await;
    assert_eq!(created.status, 201, "{}", created.text);
    let started = api
        .post("/api/tasks/type%20the%20password/run", &json!({}))
        .await;
    assert_eq!(started.status, 202, "{}", started.text);
    let run_id = started.body["id"].as_str().unwrap().to_owned();
    let run_path = format!("/api/task-runs/{run_id}");
    let events = api.get(&format!("{run_path}/events")).await;
    let run = api.get(&run_path).await;
    assert_eq!(run.body["status"], "ok", "{}\n{}", run.text, events.text);

    let typed = form.wait_record(Duration::from_secs(30), |r| {
        r["widget"] == "name" && r["value"] == VALUE
    });
    assert!(
        typed.is_some(),
        "the form's Name field never held the value: {:?}",
        form.records()
    );

    let listed = deft_secret(&serve, &["list"], "");
    let listed_text = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(listed_text.contains("FORM_PW"), "{listed_text}");
    let mut answers: Vec<(String, String)> = vec![
        ("events".into(), events.text.clone()),
        ("run".into(), run.text.clone()),
        ("deft secret list".into(), listed_text),
    ];
    for path in [
        "/api/task-runs",
        "/api/tasks",
        "/api/tasks/type%20the%20password",
        "/api/secrets",
    ] {
        answers.push((path.to_owned(), api.get(path).await.text));
    }
    answers.push(("serve's output".into(), serve.printed()));
    for (what, text) in &answers {
        assert!(!text.contains(VALUE), "{what} shows the value: {text}");
    }
    assert_eq!(
        files_holding(dir.path(), VALUE),
        Vec::<String>::new(),
        "a stored byte holds the value while the server runs (database, WAL, traces)"
    );
    assert!(
        events.text.contains("••••(secret FORM_PW)"),
        "the events show the secret by name: {}",
        events.text
    );
    let stderr = serve.stderr.clone();
    drop(form);
    serve.interrupt();
    assert!(
        !std::fs::read_to_string(&stderr)
            .unwrap_or_default()
            .contains(VALUE),
        "the server's log shows the value"
    );
    assert_eq!(
        files_holding(dir.path(), VALUE),
        Vec::<String>::new(),
        "a stored byte holds the value after the server stopped"
    );
}
