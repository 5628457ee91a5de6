//! `get_app_window_controls_info(changes: true)` in Chromium: after typing into a debounced
//! autocomplete, the change listing holds the combo box (changed) and the menu's options (new)
//! and counts the rest (the heading that did not change is left out); picking an option lists
//! the options as gone and the status text as changed.

mod common;

use common::Harness;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_change_listing_after_typing_shows_the_menu_and_counts_the_rest() {
    let h = Harness::start().await;
    h.open("autocomplete.html").await;
    let first = h.listing(json!({"changes": true})).await;
    let head = first.lines().next().unwrap_or_default();
    assert!(
        head.contains(" controls=")
            && head.ends_with(" whole")
            && !first.contains("earlier listing"),
        "the whole listing, said in its header: {first}"
    );
    let city = Harness::id_of(&first, "combobox", "City");
    h.ok(
        "set_edit_text",
        json!({"id": city, "name": "City", "text": "Ber"}),
    )
    .await;
    {
        let changed = h.listing(json!({"changes": true})).await;
        let lines: Vec<&str> = changed.lines().skip(1).collect();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("~{city} combobox \"City\" = \"Ber\""))),
            "{changed}"
        );
        for c in ["Berlin", "Bern", "Bergen"] {
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with('*') && l.ends_with(&format!(" listitem \"{c}\""))),
                "{c} new in:\n{changed}"
            );
        }
        assert!(
            !changed.contains("heading \"Plan a trip\""),
            "unchanged lines are left out: {changed}"
        );
        assert!(
            changed.lines().next().unwrap().contains(" unchanged="),
            "{changed}"
        );
    }
    let plain = h.listing(json!({})).await;
    assert!(
        !plain
            .lines()
            .any(|l| l.starts_with('~') || l.starts_with('-')),
        "a plain listing has no change marks: {plain}"
    );

    let bern = Harness::id_of(&plain, "listitem", "Bern");
    h.ok("click_input", json!({"id": bern, "name": "Bern"}))
        .await;
    let after = h.listing(json!({"changes": true})).await;
    assert!(
        after.contains(&format!("-{bern} listitem \"Bern\"")),
        "{after}"
    );
    assert!(after.contains("text \"Trip to Bern.\""), "{after}");
    let j = h
        .ok(
            "get_app_window_controls_info",
            json!({"changes": true, "format": "json"}),
        )
        .await;
    assert_eq!(j["counts"]["changed"], 0, "nothing changed since: {j}");
    assert!(h.shutdown().await);
}
