//! Two cross-origin iframes with the same URL: each frame's controls are listed under its own
//! iframe element (matched by `DOM.getFrameOwner`, not by URL), and a click in the second frame
//! changes only the second frame.

mod common;

use std::time::Duration;

use common::Harness;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn same_url_frames_map_to_their_own_iframe_elements() {
    let h = Harness::start().await;
    h.open("twin_frames.html").await;
    let mut full = String::new();
    for _ in 0..100 {
        full = h.listing(json!({})).await;
        if full.contains("button \"Press in first\"") && full.contains("button \"Press in second\"")
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!("{full}");
    let first_button = full
        .find("button \"Press in first\"")
        .unwrap_or_else(|| panic!("first frame not listed:\n{full}"));
    let second_button = full
        .find("button \"Press in second\"")
        .unwrap_or_else(|| panic!("second frame not listed:\n{full}"));
    assert!(first_button < second_button, "document order:\n{full}");

    let first = Harness::id_of(&full, "group", "First frame");
    let second = Harness::id_of(&full, "group", "Second frame");
    let in_first = h.listing(json!({"subtree": first})).await;
    let in_second = h.listing(json!({"subtree": second})).await;
    assert!(in_first.contains("button \"Press in first\""), "{in_first}");
    assert!(!in_first.contains("second"), "{in_first}");
    assert!(
        in_second.contains("button \"Press in second\""),
        "{in_second}"
    );
    assert!(!in_second.contains("first"), "{in_second}");

    // A click in the second frame lands there (its offsets come from its own iframe element).
    let press = Harness::id_of(&in_second, "button", "Press in second");
    let r = h
        .ok(
            "click_input",
            json!({"id": press, "name": "Press in second"}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    let in_first = h.listing(json!({"subtree": first})).await;
    let in_second = h.listing(json!({"subtree": second})).await;
    assert!(
        in_second.contains("text \"pressed in second trusted=true\""),
        "{in_second}"
    );
    assert!(in_first.contains("text \"not pressed\""), "{in_first}");
    assert!(!in_first.contains("pressed in"), "{in_first}");

    // And the first frame's button still acts on the first frame only.
    let press = Harness::id_of(&in_first, "button", "Press in first");
    h.ok(
        "click_input",
        json!({"id": press, "name": "Press in first"}),
    )
    .await;
    let in_first = h.listing(json!({"subtree": first})).await;
    assert!(
        in_first.contains("text \"pressed in first trusted=true\""),
        "{in_first}"
    );
    assert!(h.shutdown().await);
}
