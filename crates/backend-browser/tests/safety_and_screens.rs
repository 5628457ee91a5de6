//! Screenshots (plain and annotated), the URL policy and the downloads folder.

mod common;

use std::time::Duration;

use common::{Harness, all_text};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screenshots_are_png_with_what_was_captured() {
    let h = Harness::start().await;
    h.open("form.html").await;
    for (tool, args, prefix) in [
        (
            "capture_window_screenshot",
            json!({}),
            "window 1 rect=[0,0,",
        ),
        (
            "capture_window_screenshot",
            json!({"annotated": true}),
            "window 1 rect=[0,0,",
        ),
        (
            "capture_desktop_screenshot",
            json!({}),
            "desktop rect=[0,0,",
        ),
    ] {
        let r = h.call(tool, args.clone()).await;
        assert_eq!(r.is_error, Some(false), "{tool}: {}", all_text(&r));
        let text = all_text(&r);
        assert!(text.starts_with(prefix), "{tool}: {text}");
        let image = r
            .content
            .iter()
            .find_map(|c| c.as_image())
            .unwrap_or_else(|| panic!("{tool} returns an image"));
        assert_eq!(image.mime_type, "image/png");
        use base64::Engine;
        let png = base64::engine::general_purpose::STANDARD
            .decode(&image.data)
            .expect("base64");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{tool}");
        if args["annotated"] == true {
            assert!(
                text.ends_with(" annotated=8"),
                "8 interactive controls are visible: {text}"
            );
        }
    }
    // The overlay is gone after an annotated capture.
    let l = h.listing(json!({})).await;
    assert!(!l.contains("__deft"), "{l}");
    assert!(h.shutdown().await);
}

/// The console's live view takes desktop screenshots while a run opens its page: a screenshot
/// taken before anything was selected (it picks the only tab) must never undo the run's own
/// selection that lands meanwhile — the run's next steps would act on the blank tab.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_desktop_screenshot_never_takes_the_selection_from_a_new_tab() {
    for round in 0..3 {
        let h = Harness::start().await;
        let url = h.pages.url("form.html");
        let (shot, opened) = tokio::join!(
            h.call("capture_desktop_screenshot", json!({})),
            h.call("new_tab", json!({"url": url})),
        );
        assert_eq!(opened.is_error, Some(false), "{}", all_text(&opened));
        // The screenshot may have seen the blank tab, or the new one, or none yet.
        let _ = shot;
        let listing = h.listing(json!({})).await;
        assert!(
            listing.starts_with("page ") && listing.contains("\"Order form\""),
            "round {round}: the new tab stays selected: {listing}"
        );
        assert!(h.shutdown().await);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn url_policy_refuses_blocked_and_unlisted_hosts_and_file_urls() {
    let h = Harness::with_options(json!({"allowed_domains": ["127.0.0.1"]})).await;
    h.open("links.html").await;
    let cross = h.pages.cross_site_url("form.html");
    let err = h.fails("navigate", json!({"url": cross})).await;
    assert_eq!(
        err,
        "Opening localhost is not allowed: this browser may only open 127.0.0.1 (allowed_domains)."
    );
    let err = h
        .fails("navigate", json!({"url": "file:///etc/passwd"}))
        .await;
    assert_eq!(
        err,
        "Opening file:///etc/passwd is refused: file:// URLs are off for this browser (allow_file_urls is false)."
    );
    let err = h
        .fails("navigate", json!({"url": "chrome://settings"}))
        .await;
    assert_eq!(
        err,
        "Opening chrome://settings is refused: chrome:// and devtools:// URLs are off for this browser (allow_chrome_urls is false)."
    );
    let err = h
        .fails("new_tab", json!({"url": "javascript:alert(1)"}))
        .await;
    assert_eq!(
        err,
        "'javascript:alert(1)' is not a URL this browser opens: use an http:// or https:// address (about:blank and data: also work)."
    );
    // A link the page itself follows is held to the same policy.
    let l = h.listing(json!({})).await;
    let link = Harness::id_of(&l, "link", "Cross-site page");
    let r = h
        .ok(
            "click_input",
            json!({"id": link, "name": "Cross-site page"}),
        )
        .await;
    // The click's result says what was refused and why, and it comes after the error page.
    assert_eq!(
        r["blocked"],
        json!([{"url": cross, "reason": "Opening localhost is not allowed: this browser may only open 127.0.0.1 (allowed_domains)."}]),
        "{r}"
    );
    assert_eq!(
        r["blocked_note"],
        deft_backend_browser::texts::NAVIGATION_BLOCKED
    );
    assert_eq!(r["effect"], "changed", "{r}");
    let text = h.page_text().await;
    assert!(
        !text.contains("New order"),
        "the blocked page must not load: {text}"
    );
    assert!(
        text.contains("ERR_BLOCKED_BY_CLIENT"),
        "Chromium's error page says why: {text}"
    );
    let bad = deft_backend_browser::BrowserConfig::from_options(&json!({"allowed_domain": ["x"]}))
        .unwrap_err();
    assert!(
        bad.starts_with("invalid options for the browser server: unknown field `allowed_domain`"),
        "{bad}"
    );
    // A domain entry that is no host would match nothing: refused with the entry named.
    let bad = deft_backend_browser::BrowserConfig::from_options(
        &json!({"blocked_domains": ["ads.test", "https://evil.test/"]}),
    )
    .unwrap_err();
    assert_eq!(
        bad,
        "invalid options for the browser server: blocked_domains entry 'https://evil.test/' is not a host: give a domain name (its subdomains are covered too) or an IP address, without scheme, port or path."
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_land_in_the_device_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    let h = Harness::with_options(json!({"downloads_dir": dir.path()})).await;
    h.open("links.html").await;
    let l = h.listing(json!({})).await;
    let link = Harness::id_of(&l, "link", "Download report");
    h.ok(
        "click_input",
        json!({"id": link, "name": "Download report"}),
    )
    .await;
    let file = dir.path().join("report.txt");
    let mut found = false;
    for _ in 0..100 {
        if std::fs::read_to_string(&file).is_ok_and(|s| s == "quarterly report\n") {
            found = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        found,
        "report.txt did not arrive in {}",
        dir.path().display()
    );
    assert!(h.shutdown().await);
}
