//! Documents through the `deft` binary: LibreOffice started by `launch_app` belongs to the deft
//! process that started it — killed with it, even by SIGKILL — and `deft run` with a scripted
//! model builds a real document with GUI and API tools together.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

#[path = "common/desktop.rs"]
mod desktop;

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
