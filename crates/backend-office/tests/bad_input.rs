//! Bad input to the office tools: a table of 10⁶ cells is refused before LibreOffice sees it;
//! LibreOffice killed (kill -9) while a call waits on it answers that call at once with what
//! to do, and the document reopens in the restarted instance; the UNO helper killed mid-call
//! is replaced by the next call. Never a hang.
//!
//! "Mid-call" is made certain, not timed: LibreOffice is stopped (SIGSTOP) first, the call is
//! sent, and the kill comes once the helper has read the call (it then waits on LibreOffice).

#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

mod common;

use std::time::Duration;

use common::*;
use deft_test_support::office;
use deft_test_support::proc::{Signal, signal_process};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn tables_of_a_million_cells_are_refused_before_libreoffice_sees_them() {
    let h = Harness::new().await;
    let xlsx = office::sheet_from_csv(&h.docs, "big", "a,b\n1,2\n", "xlsx");
    let w = h.open(&s(&xlsx)).await;
    let row = vec![json!(1); 1000];
    let table = vec![row; 1000];
    let e = err(&h
        .app(
            &w,
            "insert_excel_table",
            json!({"table": table, "sheet_name": 1, "start_row": 1, "start_col": 1}),
        )
        .await);
    assert_eq!(
        e,
        "A table of 1000 × 1000 = 1000000 cells is too large: at most 100000 cells per call. Insert a smaller table, or add rows in several calls."
    );
    let e = err(&h
        .app(
            &w,
            "get_range_values",
            json!({"sheet_name": 1, "start_row": 1, "start_col": 1, "end_row": 1000, "end_col": 1000}),
        )
        .await);
    assert!(
        e.starts_with("The range A1:ALL1000 has 1000000 cells"),
        "{e}"
    );
    let md = ok(&h.app(&w, "table2markdown", json!({"sheet_name": 1})).await);
    assert_eq!(md.as_str().unwrap(), "| a | b |\n|---|---|\n| 1 | 2 |");

    let writer = h.open("libreoffice-writer").await;
    let e = err(&h
        .app(
            &writer,
            "insert_table",
            json!({"rows": 1000, "columns": 1000}),
        )
        .await);
    assert_eq!(e, "columns must be a whole number from 1 to 100, got 1000.");
}

/// The number of read system calls `pid` has made.
fn reads(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/io"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("syscr:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap()
}

/// Waits (without blocking the task: the call runs beside it) until `pid` read after `before`.
async fn read_since(pid: u32, before: u64) {
    for _ in 0..600 {
        if reads(pid) > before {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the helper never read the call");
}

#[tokio::test(flavor = "multi_thread")]
async fn libreoffice_killed_mid_call_answers_at_once_and_the_document_reopens() {
    let h = Harness::new().await;
    let doc = office::document_from_html(&h.docs, "crash", "<p>Before the crash.</p>", "docx");
    let w = h.open(&s(&doc)).await;
    ok(&h.app(&w, "get_document_text", json!({})).await);
    let helper = h.helper();
    let helper_pid = helper.pid().await.expect("the helper runs");
    let office_pid = h.office_pid().await;

    // LibreOffice frozen; the call goes out and waits on it.
    signal_process(office_pid as i32, Signal::STOP);
    let before = reads(helper_pid);
    let call = {
        let (h, w) = (&h, &w);
        async move {
            h.app(w, "insert_table", json!({"rows": 2, "columns": 2}))
                .await
        }
    };
    let kill = async {
        read_since(helper_pid, before).await;
        signal_process(office_pid as i32, Signal::KILL);
    };
    let (r, ()) = tokio::join!(call, kill);
    let e = err(&r);
    assert_eq!(
        e,
        format!(
            "LibreOffice stopped while trying to run insert_table (process {office_pid} is gone); deft restarts it, but the document must be reopened: call launch_app with its path, then select its window. Changes not saved are lost."
        )
    );

    // The next call says that LibreOffice stopped, whether or not its restart has come up yet;
    // the document reopens in the restarted one and takes API calls again.
    let e = err(&h.app(&w, "get_document_text", json!({})).await);
    assert_eq!(
        e,
        format!(
            "LibreOffice (process {office_pid}) that showed {:?} has stopped; deft restarts it after a crash, but documents are not reopened. Open the document again with launch_app and select its window.",
            w.name
        )
    );
    let again = h.open(&s(&doc)).await;
    assert_ne!(h.office_pid().await, office_pid);
    let text = ok(&h.app(&again, "get_document_text", json!({})).await);
    assert_eq!(text.as_str().unwrap().trim(), "Before the crash.");
    changed(
        &h.app(&again, "insert_table", json!({"rows": 1, "columns": 1}))
            .await,
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_uno_helper_killed_mid_call_is_replaced_by_the_next_call() {
    let h = Harness::new().await;
    let doc = office::document_from_html(&h.docs, "helper", "<p>Still here.</p>", "odt");
    let w = h.open(&s(&doc)).await;
    ok(&h.app(&w, "get_document_text", json!({})).await);
    let helper = h.helper();
    let helper_pid = helper.pid().await.expect("the helper runs");
    let office_pid = h.office_pid().await;

    signal_process(office_pid as i32, Signal::STOP);
    let before = reads(helper_pid);
    let call = {
        let (h, w) = (&h, &w);
        async move { h.app(w, "get_document_text", json!({})).await }
    };
    let kill = async {
        read_since(helper_pid, before).await;
        signal_process(helper_pid as i32, Signal::KILL);
    };
    let (r, ()) = tokio::join!(call, kill);
    signal_process(office_pid as i32, Signal::CONT);
    assert_eq!(
        err(&r),
        "deft's UNO helper failed (it exited); the next call starts it again."
    );
    // LibreOffice was not touched: the same instance, the same window, a new helper.
    let text = ok(&h.app(&w, "get_document_text", json!({})).await);
    assert_eq!(text.as_str().unwrap().trim(), "Still here.");
    assert_eq!(h.office_pid().await, office_pid);
    assert_ne!(helper.pid().await, Some(helper_pid));
}
