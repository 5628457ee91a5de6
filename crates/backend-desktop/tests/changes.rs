//! `get_app_window_controls_info(changes: true)` on a real GTK window: the first listing asked
//! for changes is the whole listing and says so in its header; after typing into an edit, only that edit comes
//! back, marked `~`, with the rest counted as unchanged; nothing changed is the header alone;
//! `changes` with `subtree` is refused.

mod common;

use std::time::Duration;

use common::{Harness, control_lines, find_id};
use deft_test_support::desktop::AppProcess;
use serde_json::json;

const T: Duration = Duration::from_secs(10);

#[tokio::test(flavor = "multi_thread")]
async fn after_typing_only_the_edit_is_listed_and_the_rest_counted() {
    let h = Harness::new().await;
    let app = AppProcess::form_app(&h.env()).expect("form app starts");
    assert!(app.wait_record(T, |r| r["event"] == "ready").is_some());
    h.select_app("form_app.py").await;

    let first = h.listing(json!({"changes": true})).await;
    let head = first.lines().next().unwrap_or_default();
    assert!(
        head.contains(" controls=") && head.ends_with(" whole") && !first.contains('…'),
        "the whole listing, said in its header: {first}"
    );
    let total = control_lines(&first).len();
    let city = find_id(&first, "edit", "City").unwrap_or_else(|| panic!("{first}"));

    let same = h.listing(json!({"changes": true})).await;
    assert_eq!(
        control_lines(&same),
        Vec::<&str>::new(),
        "nothing changed: {same}"
    );
    // Only the counts that are not zero: nothing new, changed or gone.
    let header = same.lines().next().unwrap_or_default();
    assert!(
        header.contains(" unchanged=")
            && !header.contains(" new=")
            && !header.contains(" changed=")
            && !header.contains(" gone="),
        "{same}"
    );

    let r = h
        .ok(
            "set_edit_text",
            json!({"id": city, "name": "City", "text": "Zürich"}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    let changed = h.listing(json!({"changes": true})).await;
    let lines = control_lines(&changed);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("~{city} edit \"City\" = \"Zürich\""))),
        "{changed}"
    );
    assert!(
        lines.len() < total / 2,
        "a change listing is small: {changed}"
    );
    let unchanged: usize = changed
        .lines()
        .next()
        .and_then(|h| h.rsplit("unchanged=").next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{changed}"));
    assert!(
        unchanged + lines.len() >= total - 1,
        "the rest is counted: {changed}"
    );

    let j = h
        .ok(
            "get_app_window_controls_info",
            json!({"changes": true, "format": "json"}),
        )
        .await;
    assert_eq!(j["counts"]["changed"], 0, "{j}");

    let e = h
        .err(
            "get_app_window_controls_info",
            json!({"changes": true, "subtree": city}),
        )
        .await;
    assert!(e.contains("changes compares the whole window"), "{e}");
}
