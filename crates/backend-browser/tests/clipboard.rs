//! The clipboard in headless Chromium: `set_clipboard` / `get_clipboard` go through a page of
//! their own that the tab list never shows, yet share the browser's one clipboard with the
//! tabs — a tab's `^v` pastes what was set, a page's own copy button and a tab's `^c` are read
//! back; non-ASCII text intact; the refusals (nothing copied, a text over the limit); and it
//! keeps working while the tab has a dialog open.

mod common;

use common::{Harness, all_text};
use serde_json::json;

/// Waits (10 s at most) until the page's text contains `want`; returns the text.
async fn until_text(h: &Harness, want: &str) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let text = h.page_text().await;
        if text.contains(want) {
            return text;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no {want:?} in the page:\n{text}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_and_read_back_paste_into_a_tab_and_read_what_a_page_copies() {
    let h = Harness::start().await;
    assert_eq!(
        h.fails("get_clipboard", json!({})).await,
        deft_protocol::clipboard::EMPTY
    );
    h.open("clipboard.html").await;
    let text = "Grüße, 苏州 ✓ Zoë";
    let set = h.ok("set_clipboard", json!({"text": text})).await;
    assert_eq!(set["chars"], 15, "{set}");
    assert_eq!(
        h.ok("get_clipboard", json!({})).await,
        json!({"text": text, "chars": 15})
    );
    let tabs = h
        .ok("get_desktop_app_info", json!({"remove_empty": false}))
        .await;
    assert_eq!(
        tabs["windows"].as_array().map(Vec::len),
        Some(1),
        "the clipboard's page is no tab: {tabs}"
    );

    // A tab pastes it with ^v into its focused input.
    let listing = h.listing(json!({})).await;
    let search = Harness::id_of(&listing, "edit", "Search");
    h.ok(
        "keyboard_input",
        json!({"id": search, "name": "Search", "keys": "^v"}),
    )
    .await;
    let page = until_text(&h, &format!("search: {text}")).await;
    assert!(page.contains("pastes: 1"), "{page}");

    // The page's own copy button (navigator.clipboard) is read back.
    let copy = Harness::id_of(&listing, "button", "Copy order number");
    h.ok(
        "click_input",
        json!({"id": copy, "name": "Copy order number"}),
    )
    .await;
    until_text(&h, "copied the order number").await;
    assert_eq!(
        h.ok("get_clipboard", json!({})).await["text"],
        "ORD-2024-117"
    );

    // So is a selection copied with ^c.
    h.ok(
        "set_edit_text",
        json!({"id": search, "name": "Search", "text": "typed 東京"}),
    )
    .await;
    h.ok(
        "keyboard_input",
        json!({"id": search, "name": "Search", "keys": "^a^c"}),
    )
    .await;
    assert_eq!(h.ok("get_clipboard", json!({})).await["text"], "typed 東京");

    // Refusals: over the limit (the clipboard is kept), no text argument.
    let long = "a".repeat(deft_protocol::clipboard::MAX_CLIPBOARD_CHARS + 1);
    assert_eq!(
        h.fails("set_clipboard", json!({"text": long})).await,
        "text is 100001 characters; set_clipboard takes at most 100000."
    );
    assert_eq!(h.ok("get_clipboard", json!({})).await["text"], "typed 東京");
    let r = h.call("set_clipboard", json!({})).await;
    assert_eq!(r.is_error, Some(true), "{}", all_text(&r));
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clipboard_works_while_the_tab_has_a_dialog_open() {
    let h = Harness::start().await;
    h.open("late_alert.html").await;
    // The page's alert opens after load; the clipboard does not go through the tab.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while h
        .ok("summary", json!({"text": "?"}))
        .await
        .get("dialog")
        .is_none()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the alert never opened"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    h.ok("set_clipboard", json!({"text": "while the alert is open"}))
        .await;
    assert_eq!(
        h.ok("get_clipboard", json!({})).await["text"],
        "while the alert is open"
    );
    assert!(h.shutdown().await);
}
