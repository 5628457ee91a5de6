//! A dialog that opens while no tool runs (a timer after load) is reported in the very next
//! tool result, whichever tool it is; listings and actions fail at once with the text that
//! points to handle_dialog instead of waiting for the page.

mod common;

use std::time::Duration;

use common::Harness;
use deft_backend_browser::texts;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dialog_opened_between_calls_is_reported_by_the_next_tool() {
    let h = Harness::start().await;
    h.open("late_alert.html").await;
    let before = h.listing(json!({})).await;
    let button = Harness::id_of(&before, "button", "Do something");
    let note = texts::dialog_open("alert", "Reminder after load");
    // No tool runs while the alert opens.
    tokio::time::sleep(Duration::from_millis(600)).await;

    // A tool that does not touch the page reports it (structured result: a `dialog` key).
    let r = h.ok("summary", json!({"text": "looked around"})).await;
    assert_eq!(r["summary"], "looked around", "{r}");
    assert_eq!(r["dialog"]["type"], "alert", "{r}");
    assert_eq!(r["dialog"]["message"], "Reminder after load", "{r}");
    assert_eq!(r["dialog"]["note"], note.as_str(), "{r}");
    let tabs = h.ok("get_desktop_app_info", json!({})).await;
    assert_eq!(tabs["dialog"]["note"], note.as_str(), "{tabs}");

    // Listing and acting fail with the dialog text, once, without waiting on the page.
    assert_eq!(
        h.fails("get_app_window_controls_info", json!({})).await,
        note
    );
    assert_eq!(
        h.fails("click_input", json!({"id": button, "name": "Do something"}))
            .await,
        note
    );
    assert_eq!(h.fails("get_page_text", json!({})).await, note);
    // An error about something else says both.
    let e = h
        .fails("select_application_window", json!({"id": "999"}))
        .await;
    assert!(
        e.starts_with("Window id '999' does not exist") && e.ends_with(&format!("\n{note}")),
        "{e}"
    );

    let r = h.ok("handle_dialog", json!({"accept": true})).await;
    assert_eq!(r["handled"], "alert", "{r}");
    assert!(r.get("dialog").is_none(), "{r}");
    let after = h.listing(json!({})).await;
    assert!(after.contains("text \"reminder closed\""), "{after}");
    assert!(!after.contains("dialog is open"), "{after}");
    let r = h.ok("summary", json!({"text": "done"})).await;
    assert!(r.get("dialog").is_none(), "{r}");
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dialog_opened_during_a_wait_is_in_the_wait_result() {
    let h = Harness::start().await;
    h.open("late_alert.html").await;
    let r = h.ok("wait", json!({"seconds": 0.6})).await;
    assert_eq!(r["dialog"]["type"], "alert", "{r}");
    assert_eq!(
        r["dialog"]["note"],
        texts::dialog_open("alert", "Reminder after load").as_str()
    );
    h.ok("handle_dialog", json!({"accept": false})).await;
    assert!(h.page_text().await.contains("reminder closed"));
    assert!(h.shutdown().await);
}
