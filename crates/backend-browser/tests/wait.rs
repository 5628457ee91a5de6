//! `wait_for_control` on real pages: a button that appears after a click (in the page, in a
//! same-origin or a cross-origin frame, on the next document), an element that goes, the timeout errors, bad
//! arguments, and a cancelled wait that leaves no watch behind in the page.

mod common;

use std::time::Duration;

use common::{Harness, all_text};
use rmcp::model::{CallToolRequestParams, ClientRequest, Request};
use rmcp::service::PeerRequestOptions;
use serde_json::{Value, json};

/// A wait long enough never to run out in these tests unless something is broken.
const LONG: f64 = 30.0;

/// Clicks the button named `name` found by find_controls.
async fn click(h: &Harness, name: &str) {
    let v = h
        .ok(
            "find_controls",
            json!({"selector": {"text": name, "type": "button", "match": "exact"}, "format": "json"}),
        )
        .await;
    let id = v["chosen"]
        .as_str()
        .unwrap_or_else(|| panic!("no button {name}: {v}"));
    h.ok("click_input", json!({"id": id, "name": name})).await;
}

/// wait_for_control(selector, timeout_s, gone): its structured answer.
async fn wait(h: &Harness, selector: Value, timeout_s: f64, gone: bool) -> Value {
    h.ok(
        "wait_for_control",
        json!({"selector": selector, "timeout_s": timeout_s, "gone": gone}),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_button_that_appears_300_ms_after_a_click_is_answered_and_clicked() {
    let h = Harness::start().await;
    h.open("appear.html").await;
    click(&h, "Show the button later").await;
    let v = wait(
        &h,
        json!({"text": "Appeared", "type": "button"}),
        LONG,
        false,
    )
    .await;
    eprintln!("{v}");
    assert_eq!(v["appeared"], true, "{v}");
    let waited = v["waited_ms"].as_u64().unwrap_or(u64::MAX);
    assert!(
        waited < (LONG * 1000.0) as u64,
        "answered before the timeout: {v}"
    );
    let c = &v["control"];
    assert_eq!(
        (&c["type"], &c["name"], &c["score"]),
        (&json!("button"), &json!("Appeared"), &json!(100))
    );
    // It answered with the button in the page: the page says when it was inserted, and the
    // returned id clicks it.
    assert!(h.page_text().await.contains("inserted at "));
    let id = c["id"].as_str().unwrap_or_default();
    let r = h
        .ok("click_input", json!({"id": id, "name": "Appeared"}))
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert!(h.page_text().await.contains("appeared clicked"));
    // Already there: answered at once.
    let v = wait(&h, json!({"text": "Appeared"}), LONG, false).await;
    assert_eq!(v["control"]["id"], id, "{v}");
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_in_frames_and_on_the_next_document_end_the_wait() {
    let h = Harness::start().await;
    // 1.5 s: longer than an action's settle waits for the page's timers.
    h.open("appear.html?ms=1500").await;
    click(&h, "Show inside later").await;
    let v = wait(&h, json!({"text": "Inner appeared"}), LONG, false).await;
    assert_eq!(v["control"]["name"], "Inner appeared", "{v}");
    let inner = v["control"]["id"].as_str().unwrap_or_default().to_owned();
    h.ok(
        "click_input",
        json!({"id": inner, "name": "Inner appeared"}),
    )
    .await;

    // The same in a cross-origin frame (watched through its own session).
    h.ok(
        "navigate",
        json!({"url": h.pages.url("appear.html?ms=1500&cross=1")}),
    )
    .await;
    click(&h, "Show inside later").await;
    let v = wait(&h, json!({"text": "Inner appeared"}), LONG, false).await;
    assert_eq!(v["control"]["name"], "Inner appeared", "{v}");
    let inner = v["control"]["id"].as_str().unwrap_or_default().to_owned();
    h.ok(
        "click_input",
        json!({"id": inner, "name": "Inner appeared"}),
    )
    .await;

    click(&h, "Go to the form later").await;
    let v = wait(&h, json!({"text": "Submit", "type": "button"}), LONG, false).await;
    assert_eq!(v["appeared"], true, "{v}");
    let submit = v["control"]["id"].as_str().unwrap_or_default().to_owned();
    h.ok("click_input", json!({"id": submit, "name": "Submit"}))
        .await;
    let text = h.page_text().await;
    assert!(text.contains("last=click:true:Submit"), "{text}");
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gone_answers_when_the_last_match_is_removed_and_timeouts_say_what_was_awaited() {
    let h = Harness::start().await;
    h.open("appear.html").await;
    let undo = json!({"text": "Undo", "type": "button"});
    // Still there after the time: the error names it.
    let e = h
        .fails(
            "wait_for_control",
            json!({"selector": undo, "gone": true, "timeout_s": 0.5}),
        )
        .await;
    let listing = h.listing(json!({})).await;
    let id = Harness::id_of(&listing, "button", "Undo");
    assert_eq!(
        e,
        format!(
            "A control still matches button \"Undo\" after 0.5 s: {id} button \"Undo\" score=100."
        )
    );
    click(&h, "Dismiss the toast later").await;
    let v = wait(&h, undo, LONG, true).await;
    assert_eq!(v["gone"], true, "{v}");
    assert!(
        v["waited_ms"]
            .as_u64()
            .is_some_and(|ms| ms < (LONG * 1000.0) as u64),
        "{v}"
    );
    assert!(!h.listing(json!({})).await.contains("\"Undo\""));
    // Nothing ever matches: the timeout error.
    let e = h
        .fails(
            "wait_for_control",
            json!({"selector": {"text": "Never appears"}, "timeout_s": 0.5}),
        )
        .await;
    assert_eq!(
        e,
        "No control matched \"Never appears\" within 0.5 s. Check the selector with find_controls, or wait longer."
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_selectors_and_timeouts_are_refused_with_every_problem() {
    let h = Harness::start().await;
    h.open("appear.html").await;
    let e = h
        .fails(
            "wait_for_control",
            json!({"selector": {"type": "buton", "match": "regex", "text": "("}}),
        )
        .await;
    assert!(
        e.starts_with(
            "The selector cannot be used: selector.type: unknown control type \"buton\"; "
        ),
        "{e}"
    );
    assert!(
        e.contains("; selector.text: the regex does not compile: "),
        "{e}"
    );
    let e = h
        .fails(
            "wait_for_control",
            json!({"selector": {"text": "a"}, "timeout_s": 301}),
        )
        .await;
    assert_eq!(
        e,
        "Invalid arguments: timeout_s must be between 0 and 300, got 301."
    );
    assert!(h.shutdown().await);
}

/// Asks the probe page how many watches of the page agent are in place now.
async fn watches(h: &Harness) -> String {
    click(h, "Count watches").await;
    let text = h.page_text().await;
    text.lines()
        .find(|l| l.starts_with("watches="))
        .unwrap_or_else(|| panic!("no count in {text}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_wait_ends_its_watch_in_the_page() {
    let h = Harness::start().await;
    h.open("wait_probe.html").await;
    let Value::Object(args) = json!({"selector": {"text": "Never appears"}, "timeout_s": 120})
    else {
        unreachable!()
    };
    let request = ClientRequest::CallToolRequest(Request::new(
        CallToolRequestParams::new("wait_for_control").with_arguments(args),
    ));
    let handle = h
        .client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .expect("request sent");
    // The wait watches the page (each count is a change it wakes on and watches again after).
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while watches(&h).await != "watches=1" {
        assert!(
            std::time::Instant::now() < deadline,
            "the wait never watched the page"
        );
    }
    handle
        .cancel(Some("test".into()))
        .await
        .expect("cancel sent");
    // Once the cancellation is through, no watch comes back, however the page changes.
    while watches(&h).await != "watches=0" {
        assert!(
            std::time::Instant::now() < deadline,
            "the cancelled wait still watches"
        );
    }
    for _ in 0..3 {
        assert_eq!(watches(&h).await, "watches=0");
    }
    let _ = all_text;
    assert!(h.shutdown().await);
}
