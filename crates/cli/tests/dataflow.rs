//! `deft dataflow` as a user runs it: the real binary starts its own managed desktops, asks the
//! scripted model (over real HTTP), drives Mousepad (the config's notes app), prints a line per
//! task and a summary table, and exits with the number of failed tasks; Ctrl-C keeps what finished
//! and the rerun does the rest; `--jobs 2` gives the results of `--jobs 1`; a run that cannot
//! start says why with exit status 101. The example (Writer, Calc, Impress) runs on the
//! desktops' own LibreOffice, instantiated on two desktops and then executed, its documents
//! read back independently. Every run leaves no desktop and no LibreOffice behind.

#![allow(clippy::unwrap_used)] // helpers outside #[test] functions: a failed set-up is a failed test

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use deft_test_support::dataflow::{Stage, Workspace, check_example_documents, example_answers};
use deft_test_support::model::{Reply, Route, ScriptedModel, routed};
use deft_test_support::proc::{GroupChild, Signal, signal_process};
use serde_json::{Value, json};

/// `deft dataflow` on the notes workspace `ws` (Mousepad).
fn deft(data: &Path, ws: &Workspace, model: &ScriptedModel) -> Command {
    deft_test_support::desktop::require_program("mousepad", "mousepad");
    dataflow(data, ws, model)
}

/// `deft dataflow` on `ws`'s config with data folder `data`, the model `model`.
fn dataflow(data: &Path, ws: &Workspace, model: &ScriptedModel) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_deft"));
    c.arg("--data-dir")
        .arg(data)
        .arg("dataflow")
        .arg("--config")
        .arg(ws.config_file())
        .env_remove("DISPLAY")
        .env_remove("DEFT_TOOLS_CONFIG")
        .env_remove("DEFT_DATA_DIR")
        .env_remove("DEFT_DOCUMENT_DIRS")
        .env("AGENT_API_BASE", model.base_url())
        .env("AGENT_MODEL", "scripted")
        .env_remove("AGENT_API_KEY")
        .stdin(Stdio::null());
    c
}

async fn run(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The managed desktops a run started are gone with their folders.
fn no_desktop_left(data: &Path) {
    let root = data.join("dataflow-desktops");
    let left: Vec<_> = std::fs::read_dir(&root)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    for dir in &left {
        let inner: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(Result::ok)
            .collect();
        assert!(
            inner.is_empty(),
            "a desktop was left in {}: {inner:?}",
            dir.display()
        );
    }
}

/// A task per word whose plan adds the word to the notes; `complete` is the evaluation's verdict.
fn tasks(ws: &Workspace, words: &[(&str, &str)]) -> Vec<Route> {
    ws.add_line_tasks(words)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_runs_on_a_managed_desktop_and_the_exit_status_counts_the_failures() {
    let ws = Workspace::notes("").unwrap();
    let rules = tasks(&ws, &[("one", "yes"), ("two", "no")]);
    std::fs::write(ws.path().join("tasks/three.json"), "{not json").unwrap();
    let model = ScriptedModel::start(routed(rules, 20)).await;
    let data = tempfile::tempdir().unwrap();
    let out = run({
        let mut c = deft(data.path(), &ws, &model);
        c.arg("--dataflow");
        c
    })
    .await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(
        out.status.code(),
        Some(2),
        "two tasks failed\n{stderr}\n{stdout}"
    );
    assert!(
        stderr.contains("dataflow 3 tasks on 1 device (desktop-1)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("✓ one [desktop-1] execution_pass → "),
        "{stderr}"
    );
    assert!(
        stderr.contains("✗ two [desktop-1] execution_fail → "),
        "{stderr}"
    );
    assert!(
        stderr.contains("✗ three [desktop-1] execution_fail → "),
        "{stderr}"
    );
    assert!(
        stderr.contains("    choose_template: TaskFileError: the task file "),
        "{stderr}"
    );
    // The summary table: a row per task, the counts, where the results are.
    let row = |name: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row {name}: {stdout}"))
            .to_owned()
    };
    assert!(
        row("one").contains("execution_pass") && row("one").contains(" ok "),
        "{}",
        row("one")
    );
    assert!(
        row("three").contains("execution_fail") && row("three").contains("TaskFileError"),
        "{}",
        row("three")
    );
    assert!(
        stdout.contains("pass 1  fail 2  unsure 0  · 3 run, 0 skipped, 0 interrupted"),
        "{stdout}"
    );
    assert!(
        stdout.contains("per task: ") && stdout.contains(" s pipeline"),
        "{stdout}"
    );
    assert!(
        stdout.contains("reformatted to batch: 1 task in "),
        "{stdout}"
    );
    let results = ws.results("dataflow");
    assert_eq!(
        results.keys().collect::<Vec<_>>(),
        [
            "execution_fail/three.json",
            "execution_fail/two.json",
            "execution_pass/one.json"
        ]
    );
    assert!(ws.path().join("datasUFO/tasks/one.json").is_file());
    assert!(ws.path().join("logs/one/dataflow/report.html").is_file());
    no_desktop_left(data.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_keeps_finished_results_and_the_rerun_does_the_rest() {
    let ws = Workspace::notes("").unwrap();
    let mut rules = tasks(&ws, &[("a", "yes"), ("b", "yes"), ("c", "yes")]);
    // b's plan streams slowly: the run is stopped while it comes.
    let slow = rules
        .iter()
        .position(|r| {
            r.needles.iter().any(|n| n == "task b:") && r.needles[0] == Stage::Prefill.marker()
        })
        .unwrap();
    let Reply::Stream(s) = &rules[slow].reply else {
        panic!()
    };
    let mut slow_reply = Reply::Stream(s.clone()).with_delay(Duration::from_millis(250));
    if let Reply::Stream(s) = &mut slow_reply {
        s.chunk_chars = 2;
    }
    rules[slow].reply = slow_reply;
    let model = ScriptedModel::start(routed(rules, 30)).await;
    let data = tempfile::tempdir().unwrap();
    let mut cmd = deft(data.path(), &ws, &model);
    cmd.arg("--dataflow")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = GroupChild::spawn(cmd).unwrap();
    let a_done = ws.path().join("results/dataflow/execution_pass/a.json");
    let deadline = Instant::now() + Duration::from_secs(180);
    while !(a_done.is_file()
        && model
            .requests()
            .iter()
            .any(|r| r.text().contains("task b:") && r.text().contains(Stage::Prefill.marker())))
    {
        assert!(
            Instant::now() < deadline,
            "task a never finished or b never asked"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let kept = std::fs::read(&a_done).unwrap();
    signal_process(child.pid(), Signal::INT);
    let out = tokio::task::spawn_blocking(move || {
        let status = child.child.wait().unwrap();
        let mut stderr = String::new();
        std::io::Read::read_to_string(child.child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
        (status, stderr)
    })
    .await
    .unwrap();
    assert_eq!(out.0.code(), Some(130), "{}", out.1);
    assert!(
        out.1
            .contains("stopping: the tasks in progress are abandoned"),
        "{}",
        out.1
    );
    assert!(out.1.contains("! b [desktop-1] interrupted"), "{}", out.1);
    assert_eq!(
        ws.results("dataflow").keys().collect::<Vec<_>>(),
        ["execution_pass/a.json"]
    );
    assert!(
        !ws.path().join("datasUFO").exists(),
        "an interrupted run does not reformat"
    );
    no_desktop_left(data.path());

    // The rerun skips a and does b and c; a's result is untouched.
    let rules = tasks(&ws, &[("a", "yes"), ("b", "yes"), ("c", "yes")]);
    let model = ScriptedModel::start(routed(rules, 30)).await;
    let again = run({
        let mut c = deft(data.path(), &ws, &model);
        c.arg("--dataflow");
        c
    })
    .await;
    let stderr = text(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("· a [desktop-1] skipped: its result exists (execution_pass)"),
        "{stderr}"
    );
    assert_eq!(ws.results("dataflow").len(), 3);
    assert_eq!(std::fs::read(&a_done).unwrap(), kept);
    assert!(
        model
            .requests()
            .iter()
            .all(|r| !r.text().contains("task a:")),
        "a was not asked about again"
    );
    no_desktop_left(data.path());
}

/// A result with what differs between runs taken out: times and control ids.
fn comparable(mut v: Value) -> Value {
    v["time_cost"] = Value::Null;
    for s in v
        .pointer_mut("/instantiation_result/prefill/result/instantiated_plan")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        s["ControlLabel"] = Value::Null;
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_jobs_give_the_results_of_one() {
    let words = [("p", "yes"), ("q", "no"), ("r", "unsure"), ("s", "yes")];
    let (serial, parallel) = (Workspace::notes("").unwrap(), Workspace::notes("").unwrap());
    let rules = tasks(&serial, &words);
    tasks(&parallel, &words);
    let model = ScriptedModel::start(routed(rules, 60)).await;
    let data = tempfile::tempdir().unwrap();
    let mut outs = Vec::new();
    for (ws, jobs) in [(&serial, "1"), (&parallel, "2")] {
        let started = Instant::now();
        let out = run({
            let mut c = deft(data.path(), ws, &model);
            c.args(["--dataflow", "--jobs", jobs]);
            c
        })
        .await;
        println!("--jobs {jobs}: {:.1} s", started.elapsed().as_secs_f64());
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        outs.push(text(&out.stderr));
    }
    assert!(
        outs[1].contains("on 2 devices (desktop-1, desktop-2)"),
        "{}",
        outs[1]
    );
    assert!(outs[1].contains("[desktop-2]"), "{}", outs[1]);
    let (a, b) = (serial.results("dataflow"), parallel.results("dataflow"));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    assert_eq!(a.len(), 4);
    for (k, v) in &a {
        assert_eq!(comparable(v.clone()), comparable(b[k].clone()), "{k}");
    }
    no_desktop_left(data.path());
}

#[tokio::test]
async fn a_run_that_cannot_start_says_why_with_status_101() {
    let ws = Workspace::notes("MATCH_STRATEGY: nearest\n").unwrap();
    ws.task("t.json", &json!({"app": "notes", "task": "x"}));
    let model = ScriptedModel::start(Vec::new()).await;
    let data = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 3] = [
        (&[], "say which pipeline to run: --dataflow"),
        (
            &["--dataflow"],
            "MATCH_STRATEGY 'nearest' is not one of contains, fuzzy, regex",
        ),
        (&["--execution", "--jobs", "0"], "--jobs must be at least 1"),
    ];
    for (args, needle) in cases {
        let out = run({
            let mut c = deft(data.path(), &ws, &model);
            c.args(args);
            c
        })
        .await;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(101), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    let fine = Workspace::notes("").unwrap();
    fine.task("t.json", &json!({"app": "notes", "task": "x"}));
    let out = run({
        let mut c = deft(data.path(), &fine, &model);
        c.arg("--instantiation")
            .env_remove("AGENT_API_BASE")
            .env_remove("AGENT_MODEL");
        c
    })
    .await;
    assert_eq!(out.status.code(), Some(101));
    assert!(
        text(&out.stderr).contains("no model configured"),
        "{}",
        text(&out.stderr)
    );
    assert!(model.requests().is_empty());
    assert!(
        !data.path().join("dataflow-desktops").exists(),
        "no desktop was started"
    );
}

#[path = "common/console.rs"]
mod support;

/// `deft --data-dir DIR desktop start|stop`; the guard stops it when dropped.
struct DesktopOf(std::path::PathBuf);

impl DesktopOf {
    fn start(dir: &Path) -> DesktopOf {
        let out = Command::new(env!("CARGO_BIN_EXE_deft"))
            .arg("--data-dir")
            .arg(dir)
            .args(["desktop", "start"])
            .env_remove("DISPLAY")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        DesktopOf(dir.to_owned())
    }
}

impl Drop for DesktopOf {
    fn drop(&mut self) {
        let _ = Command::new(env!("CARGO_BIN_EXE_deft"))
            .arg("--data-dir")
            .arg(&self.0)
            .args(["desktop", "stop"])
            .output();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devices_run_tasks_here_and_on_a_remote_client() {
    let ws = Workspace::notes("").unwrap();
    let rules = tasks(&ws, &[("near", "yes"), ("far", "yes"), ("wide", "yes")]);
    let model = ScriptedModel::start(routed(rules, 20)).await;
    let (data, client_data, serve_data) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let _here = DesktopOf::start(data.path());
    let _there = DesktopOf::start(client_data.path());
    let serve = support::Serve::start(
        serve_data.path(),
        &support::ServeOptions::shell(&model.base_url(), serve_data.path()),
    );
    let _client = GroupChild::spawn({
        let mut c = Command::new(env!("CARGO_BIN_EXE_deft"));
        c.arg("--data-dir")
            .arg(client_data.path())
            .args(["client", "--server", &serve.url, "--id", "pc1"])
            .env("DEFT_DEVICE_TOKEN", support::DEVICE_TOKEN)
            .env_remove("DISPLAY")
            .env_remove("DEFT_TOOLS_CONFIG")
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        c
    })
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = serve.api().get("/api/devices").await;
        let listed = r.body.as_array().cloned().unwrap_or_default();
        if listed
            .iter()
            .any(|d| d["id"] == "pc1" && d["profile"] == "desktop")
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "pc1 never connected with the desktop profile: {}",
            r.text
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let out = run({
        let mut c = deft(data.path(), &ws, &model);
        c.args([
            "--dataflow",
            "--devices",
            "local,pc1",
            "--server",
            &serve.url,
        ])
        .env("DEFT_API_TOKEN", support::API_TOKEN);
        c
    })
    .await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("on 2 devices (local, pc1)"), "{stderr}");
    assert!(
        stderr.contains("[pc1]"),
        "a task ran on the client: {stderr}"
    );
    assert_eq!(ws.results("dataflow").len(), 3);
    for word in ["near", "far", "wide"] {
        let doc =
            std::fs::read_to_string(ws.path().join(format!("results/saved_document/{word}.txt")))
                .unwrap();
        assert_eq!(doc, format!("alpha line\nbeta line\n{word}\n"));
    }
    // A device the server does not have is named with the ones it has.
    let out = run({
        let mut c = deft(data.path(), &ws, &model);
        c.args([
            "--dataflow",
            "--force",
            "--devices",
            "pc9",
            "--server",
            &serve.url,
        ])
        .env("DEFT_API_TOKEN", support::API_TOKEN);
        c
    })
    .await;
    assert_eq!(out.status.code(), Some(101));
    assert!(
        text(&out.stderr).contains("has no device 'pc9'; it has: "),
        "{}",
        text(&out.stderr)
    );
    serve.interrupt();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_is_instantiated_on_two_desktops_then_executed_on_libreoffice() {
    deft_test_support::office::require_office();
    let ws = Workspace::example().unwrap();
    let model = ScriptedModel::start(routed(example_answers(), 40)).await;
    let data = tempfile::tempdir().unwrap();
    let out = run({
        let mut c = dataflow(data.path(), &ws, &model);
        c.args(["--instantiation", "--jobs", "2"]);
        c
    })
    .await;
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stderr}\n{}",
        text(&out.stdout)
    );
    assert!(
        stderr.contains("on 2 devices (desktop-1, desktop-2)"),
        "{stderr}"
    );
    let inst = ws.results("instantiation");
    assert_eq!(inst.len(), 4, "{inst:#?}");
    assert!(
        inst.keys().all(|k| k.starts_with("instantiation_pass/")),
        "{inst:#?}"
    );
    // Prefilling opened each copy and closed it unchanged.
    let saved = ws.path().join("results/saved_document");
    for (copy, template) in [
        ("word_bullets.docx", "word/shopping.docx"),
        ("excel_totals.xlsx", "excel/sales.xlsx"),
        ("powerpoint_background.pptx", "powerpoint/review.pptx"),
    ] {
        assert_eq!(
            std::fs::read(saved.join(copy)).unwrap(),
            std::fs::read(ws.path().join("templates").join(template)).unwrap(),
            "{copy}"
        );
    }

    let out = run({
        let mut c = dataflow(data.path(), &ws, &model);
        c.args(["--execution", "--task-path"])
            .arg(ws.path().join("results/instantiation/instantiation_pass"));
        c
    })
    .await;
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stderr}\n{}",
        text(&out.stdout)
    );
    let exec = ws.results("execution");
    assert_eq!(exec.len(), 4, "{exec:#?}");
    for (k, v) in &exec {
        assert!(k.starts_with("execution_pass/"), "{k}");
        let before = &inst[&k.replace("execution_pass", "instantiation_pass")];
        let (a, b) = (
            before["time_cost"]["total"].as_f64().unwrap(),
            v["time_cost"]["total"].as_f64().unwrap(),
        );
        assert!(b > a, "{k}: the total accumulates ({a} then {b})");
    }
    check_example_documents(&saved);
    no_desktop_left(data.path());
    let left = deft_test_support::office::soffice_pids(&data.path().display().to_string());
    assert!(left.is_empty(), "LibreOffice outlived the run: {left:?}");
}

/// The top-level windows programs create on an X display from now on (an X client of the test's
/// own, told of every window the root gets; read after a round trip, so none is missed). The
/// display's own window manager (openbox makes its popups while it settles) is not counted: a
/// window is a program's by its X client, which its id says.
struct CreatedWindows {
    conn: x11rb::rust_connection::RustConnection,
    /// The id bits that name the client, and the window manager's.
    client_mask: u32,
    window_manager: u32,
}

impl CreatedWindows {
    fn watch(display: &str) -> CreatedWindows {
        use x11rb::connection::Connection;
        use x11rb::protocol::xproto::{
            AtomEnum, ChangeWindowAttributesAux, ConnectionExt, EventMask,
        };
        let (conn, screen) = x11rb::connect(Some(display)).unwrap();
        let root = conn.setup().roots[screen].root;
        let events = ChangeWindowAttributesAux::new().event_mask(EventMask::SUBSTRUCTURE_NOTIFY);
        conn.change_window_attributes(root, &events)
            .unwrap()
            .check()
            .unwrap();
        let check = conn
            .intern_atom(false, b"_NET_SUPPORTING_WM_CHECK")
            .unwrap()
            .reply()
            .unwrap()
            .atom;
        let wm = conn
            .get_property(false, root, check, AtomEnum::WINDOW, 0, 1)
            .unwrap()
            .reply()
            .unwrap()
            .value32()
            .and_then(|mut v| v.next())
            .expect("the display has a window manager");
        let client_mask = !conn.setup().resource_id_mask;
        CreatedWindows {
            conn,
            client_mask,
            window_manager: wm & client_mask,
        }
    }

    /// The windows programs other than the window manager created since
    /// [`CreatedWindows::watch`].
    fn created(&self) -> Vec<u32> {
        use x11rb::connection::Connection;
        use x11rb::protocol::Event;
        use x11rb::protocol::xproto::ConnectionExt;
        // Every event the server sent before this reply is queued by the time it arrives.
        self.conn.get_input_focus().unwrap().reply().unwrap();
        let mut out = Vec::new();
        while let Some(event) = self.conn.poll_for_event().unwrap() {
            if let Event::CreateNotify(e) = event
                && e.window & self.client_mask != self.window_manager
            {
                out.push(e.window);
            }
        }
        out
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn managed_desktops_start_nothing_on_the_callers_display_or_in_its_home() {
    deft_test_support::office::require_office();
    use deft_backend_desktop::vdesktop;
    // The caller's own desktop: another display with its own buses, and a home of its own.
    let caller = tempfile::tempdir().unwrap();
    let state_file = vdesktop::state_path(caller.path());
    let (state, _) = vdesktop::start(&state_file, &caller.path().join(vdesktop::WORK_DIR))
        .await
        .unwrap();
    struct Stop(std::path::PathBuf);
    impl Drop for Stop {
        fn drop(&mut self) {
            let _ = vdesktop::stop(&self.0);
        }
    }
    let _stop = Stop(state_file);
    let home = caller.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let watch = CreatedWindows::watch(&state.display);

    let ws = Workspace::example().unwrap();
    let model = ScriptedModel::start(routed(example_answers(), 40)).await;
    let data = tempfile::tempdir().unwrap();
    let out = run({
        let mut c = dataflow(data.path(), &ws, &model);
        c.args(["--instantiation", "--jobs", "2"])
            .env("DISPLAY", &state.display)
            .env("DBUS_SESSION_BUS_ADDRESS", &state.session_bus)
            .env("AT_SPI_BUS_ADDRESS", &state.a11y_bus)
            .env("HOME", &home);
        c
    })
    .await;
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stderr}\n{}",
        text(&out.stdout)
    );
    assert!(
        stderr.contains("on 2 devices (desktop-1, desktop-2)"),
        "{stderr}"
    );
    // Each task opened its document on its device's desktop and found its controls there.
    let inst = ws.results("instantiation");
    assert_eq!(inst.len(), 4, "{inst:#?}");
    assert!(
        inst.keys().all(|k| k.starts_with("instantiation_pass/")),
        "{inst:#?}"
    );
    // …and nothing on the caller's display, nothing in the caller's home.
    assert_eq!(
        watch.created(),
        Vec::<u32>::new(),
        "windows opened on the caller's display {}",
        state.display
    );
    let left: Vec<_> = std::fs::read_dir(&home)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "written in the caller's home: {left:?}");
    no_desktop_left(data.path());
}
