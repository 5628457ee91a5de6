//! Documents through the `deft` binary: LibreOffice started by `launch_app` belongs to the deft
//! process that started it — killed with it, even by SIGKILL — and `deft run` with a scripted
//! model builds a real document with GUI and API tools together.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

#[path = "common/desktop.rs"]
mod desktop;
#[path = "common/console.rs"]
mod serve;

use std::path::Path;
use std::time::{Duration, Instant};

use deft_test_support::model::{Recorded, Reply, ScriptedModel, Turn, select_launched_window};
use deft_test_support::office;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::json;

/// `deft` for the test's data folder (no documents folders from the environment), async.
fn deft(data: &Path) -> tokio::process::Command {
    let mut c = desktop::deft(data);
    c.env_remove("DEFT_DOCUMENT_DIRS");
    tokio::process::Command::from(c)
}

fn turn(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Turn {
    Box::new(f)
}

fn gone(pids: &[i32], limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if pids.iter().all(|p| !deft_test_support::proc::is_alive(*p)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_deft_leaves_no_libreoffice_behind() {
    office::require_office();
    let data = tempfile::tempdir().unwrap();
    let docs = data.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let _desktop = desktop::Desktop::start(data.path());
    let doc = office::document_from_html(&docs, "orphan", "<p>kill me</p>", "docx");

    let mut cmd = deft(data.path());
    cmd.args(["mcp", "desktop"])
        .env("DEFT_DOCUMENT_DIRS", &docs);
    let transport = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
    let deft_pid = transport.id().unwrap() as i32;
    let client = ().serve(transport).await.unwrap();
    let r = client
        .call_tool(
            CallToolRequestParams::new("launch_app")
                .with_arguments(json!({"app": doc}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let pids = office::soffice_pids(&format!("deft-office-{deft_pid}-"));
    assert_eq!(pids.len(), 1, "one soffice.bin for the session: {pids:?}");

    // SIGKILL: no handler of deft's runs; the kernel ends LibreOffice (parent-death signal).
    deft_test_support::proc::signal_process(deft_pid, deft_test_support::proc::Signal::KILL);
    drop(client);
    assert!(
        gone(&pids, Duration::from_secs(15)),
        "soffice.bin {pids:?} outlived deft"
    );

    // The next deft on the same data folder clears the dead one's profile folder (and starts
    // from the profile template the first one set up).
    let office_dir = data.path().join("office");
    let mut cmd = deft(data.path());
    cmd.args(["mcp", "desktop"])
        .env("DEFT_DOCUMENT_DIRS", &docs);
    let transport = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
    let client = ().serve(transport).await.unwrap();
    let r = client
        .call_tool(
            CallToolRequestParams::new("launch_app")
                .with_arguments(json!({"app": doc}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let left: Vec<String> = std::fs::read_dir(&office_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("deft-office-"))
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(
        !left[0].starts_with(&format!("deft-office-{deft_pid}-")),
        "{left:?}"
    );
    client.cancel().await.unwrap();
}

/// The id of the body's empty paragraph that has the focus, in a Writer listing.
fn focused_empty_paragraph(listing: &str) -> String {
    listing
        .lines()
        .find(|l| l.contains(" text \"\"") && l.ends_with(" focused"))
        .and_then(|l| l.trim_start_matches('*').split(' ').next())
        .unwrap_or_else(|| panic!("no focused empty paragraph in:\n{listing}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn deft_run_writes_a_report_with_a_table_in_arial_and_saves_it_as_pdf() {
    office::require_office();
    let data = tempfile::tempdir().unwrap();
    let docs = data.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let _desktop = desktop::Desktop::start(data.path());
    const SENTENCE: &str = "Sales rose 12 % in Q3 — Grüße an das Team.";

    let model = ScriptedModel::start(vec![
        Reply::tool_call("launch_app", json!({"app": "libreoffice-writer"})).into(),
        turn(select_launched_window),
        turn(|req| {
            // The hand-off: the AppAgent of the Writer window has Writer's API tools.
            let tools = req.tool_names();
            for t in ["insert_table", "set_font", "save_as", "click_input"] {
                assert!(tools.iter().any(|n| n == t), "no {t} in {tools:?}");
            }
            assert!(!tools.iter().any(|n| n == "table2markdown"), "{tools:?}");
            Reply::tool_call("get_app_window_controls_info", json!({}))
        }),
        turn(|req| {
            let id = focused_empty_paragraph(req.last_tool_output().unwrap_or_default());
            // `%` is Alt in the key syntax: typed as `{%}`.
            let keys = format!("{}+{{HOME}}", SENTENCE.replace('%', "{%}"));
            Reply::tool_call(
                "keyboard_input",
                json!({"id": id, "name": "", "keys": keys}),
            )
        }),
        Reply::tool_call("set_font", json!({"font_name": "Arial"})).into(),
        Reply::tool_call("insert_table", json!({"rows": 3, "columns": 2})).into(),
        Reply::tool_call(
            "save_as",
            json!({"file_name": "report", "file_ext": "docx"}),
        )
        .into(),
        Reply::tool_call("save_as", json!({})).into(),
        turn(|req| {
            let out: serde_json::Value =
                serde_json::from_str(req.last_tool_output().unwrap_or("{}")).unwrap_or_default();
            Reply::text(&format!(
                "Saved the report as {}.",
                out["path"].as_str().unwrap_or("?")
            ))
        }),
    ])
    .await;
    let out = deft(data.path())
        .args([
            "run",
            "write a short sales report with a 3 × 2 table in Arial, as PDF",
        ])
        .env("AGENT_API_BASE", model.base_url())
        .env("AGENT_MODEL", "scripted")
        .env("DEFT_DOCUMENT_DIRS", &docs)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert_eq!(model.turns_left(), 0, "stderr: {stderr}");
    let (docx, pdf) = (docs.join("report.docx"), docs.join("report.pdf"));
    assert!(
        stdout.contains(&format!("Saved the report as {}.", pdf.display())),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    for tool in ["keyboard_input", "set_font", "insert_table", "save_as"] {
        assert!(stderr.contains(&format!("✓ {tool}")), "{tool}: {stderr}");
    }
    let trace = stderr
        .lines()
        .find_map(|l| l.strip_prefix("trace: "))
        .expect("trace path");
    assert!(Path::new(trace).exists());

    // The .docx, read independently: the sentence in Arial, one table of 3 rows × 2 columns.
    let text = office::document_text(&docx);
    assert!(text.contains(SENTENCE), "{text:?}");
    let xml = office::flat_xml(&docx, "fodt");
    assert_eq!(xml.matches("<table:table ").count(), 1, "one table");
    assert_eq!(xml.matches("<table:table-row").count(), 3, "3 rows");
    assert_eq!(xml.matches("<table:table-cell").count(), 6, "2 columns");
    assert!(
        xml.contains("style:font-name=\"Arial\""),
        "the sentence's font"
    );
    // The PDF: the sentence, in Arial's metric-compatible stand-in (Arial is not installed).
    let text = office::pdf_text(&pdf);
    assert!(text.contains(SENTENCE), "{text}");
    let fonts = office::pdf_fonts(&pdf);
    assert!(
        fonts.iter().any(|f| f.contains("NimbusSans")
            || f.contains("LiberationSans")
            || f.contains("Arial")),
        "{fonts:?}"
    );
}

/// The official Python MCP SDK drives the `local` device through `deft mcp device` in `mode`
/// (scripts/interop/device_client.py): the HostAgent's tools, a clear error for Writer's
/// `insert_table` before its window is selected, the selection heard as a tool-list change,
/// a table inserted by API and typed in by GUI, saved as .docx — read back here.
fn python_sdk_builds_a_document_through_the_device_endpoint(mode: &str) {
    office::require_office();
    let data = tempfile::tempdir().unwrap();
    let docs = data.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let _desktop = desktop::Desktop::start(data.path());
    let out = std::process::Command::new(deft_test_support::interop_python())
        .arg(deft_test_support::repo_root().join("scripts/interop/device_client.py"))
        .arg(mode)
        .arg(env!("CARGO_BIN_EXE_deft"))
        .arg(data.path())
        .arg(&docs)
        .env("DEFT_NO_PHONES", "1")
        .output()
        .unwrap();
    the_document_was_built(mode, &out, data.path(), &docs);
}

/// The same flow over streamable HTTP: the SDK against `deft serve`'s `/mcp/devices/local`
/// (its managed desktop), the server's API token as the Bearer.
#[test]
fn python_sdk_builds_a_document_through_the_server_s_device_endpoint() {
    office::require_office();
    let data = deft_test_support::TempDataDir::new().unwrap();
    let docs = data.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let mut opts = serve::ServeOptions::shell("http://127.0.0.1:9/v1", data.path());
    opts.tools = None;
    opts.desktop = true;
    opts.env = vec![
        ("DEFT_DOCUMENT_DIRS".into(), docs.display().to_string()),
        ("DEFT_NO_PHONES".into(), "1".into()),
    ];
    let server = serve::Serve::start(data.path(), &opts);
    let out = std::process::Command::new(deft_test_support::interop_python())
        .arg(deft_test_support::repo_root().join("scripts/interop/device_client.py"))
        .args(["http", "auto", &format!("{}/mcp/devices/local", server.url)])
        .env("DEFT_MCP_BEARER", serve::API_TOKEN)
        .output()
        .unwrap();
    the_document_was_built("auto", &out, data.path(), &docs);
    server.interrupt();
}

/// Checks what device_client.py in `mode` reported in `out`: the .docx in `docs` with the typed
/// text in its one table, and the endpoint's trace under `data`.
fn the_document_was_built(mode: &str, out: &std::process::Output, data: &Path, docs: &Path) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "device_client.py {mode}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let report: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let docx = Path::new(report["path"].as_str().unwrap());
    assert_eq!(docx, docs.join("mcp-report.docx"));
    let typed = report["typed"].as_str().unwrap();
    // The era asked for is the era spoken.
    let protocol = report["protocol"].as_str().unwrap();
    assert_eq!(
        protocol >= "2026-07-28",
        mode == "auto",
        "{mode}: {protocol}"
    );
    // The .docx, read independently: one table, the GUI's typing in its first cell.
    let xml = office::flat_xml(docx, "fodt");
    assert_eq!(xml.matches("<table:table ").count(), 1, "one table");
    let table = xml.find("<table:table ").unwrap();
    let cell = xml
        .find(&format!(">{typed}<"))
        .unwrap_or_else(|| panic!("no {typed:?} in the saved file"));
    assert!(table < cell, "the text is inside the table");
    // The session left a trace a person can open: every call, the selection among them.
    let traces = data.join("traces");
    let trace = std::fs::read_dir(&traces)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("mcp-local-")
        })
        .unwrap_or_else(|| panic!("no MCP trace under {}", traces.display()));
    let lines = std::fs::read_to_string(trace.join("trace.jsonl")).unwrap();
    for tool in [
        "launch_app",
        "select_application_window",
        "insert_table",
        "keyboard_input",
        "save_as",
    ] {
        assert!(
            lines.contains(&format!("\"tool\":\"{tool}\"")),
            "{tool} not traced"
        );
    }
    assert!(trace.join("report.html").exists());
}

#[test]
fn python_sdk_builds_a_document_through_the_device_endpoint_2026_era() {
    python_sdk_builds_a_document_through_the_device_endpoint("auto");
}

#[test]
fn python_sdk_builds_a_document_through_the_device_endpoint_handshake_era() {
    python_sdk_builds_a_document_through_the_device_endpoint("legacy");
}
