//! The subtree view of a listing (`get_app_window_controls_info(subtree: id)`): only that control
//! and what it contains, counts of the subtree in the header, footers as usual, and the action
//! errors for ids that are unknown, stale or of another tab.

mod common;

use common::Harness;
use serde_json::json;

/// `(controls, interactive)` of a listing's header.
fn counts(listing: &str) -> (usize, usize) {
    let header = listing.lines().next().unwrap_or_default();
    let num = |key: &str| {
        header
            .split(' ')
            .find_map(|w| w.strip_prefix(key))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no {key} in {header}"))
    };
    (num("controls="), num("interactive="))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subtree_of_the_table_lists_the_table_and_nothing_around_it() {
    let h = Harness::start().await;
    h.open("table.html").await;
    let full = h.listing(json!({})).await;
    assert_eq!(
        counts(&full),
        (807, 600),
        "{}",
        full.lines().next().unwrap_or_default()
    );
    let table = Harness::id_of(&full, "table", "Items");
    let edit150 = Harness::id_of(&full, "button", "Edit 150");

    let sub = h.listing(json!({"subtree": table})).await;
    let lines: Vec<&str> = sub.lines().collect();
    // The heading before the table and the event log after it are outside.
    assert_eq!(counts(&sub), (805, 600), "{}", lines[0]);
    assert!(lines[0].starts_with("page "), "{}", lines[0]);
    assert_eq!(lines[1], format!("{table} table \"Items\""));
    assert!(!sub.contains("heading \"Inventory\""), "{}", lines[0]);
    assert!(
        !sub.contains("events="),
        "the log after the table is outside"
    );
    assert!(sub.contains(&format!("{edit150} button \"Edit 150\"")));
    assert_eq!(
        lines.last().copied(),
        Some("… 200 row texts not listed; add \"text\" to field_list to list them."),
    );
    // Footers work as usual on the subtree, numbers accepted for ids.
    let table_n: u64 = table.parse().expect("numeric id");
    let narrow = h
        .listing(json!({"subtree": table_n, "max_controls": 3, "only_interactive": true}))
        .await;
    let nl: Vec<&str> = narrow.lines().collect();
    assert_eq!(counts(&narrow), (805, 600), "{narrow}");
    assert_eq!(nl.len(), 6, "{narrow}");
    assert_eq!(
        nl[4],
        "… 205 non-interactive controls not listed (only_interactive=true)."
    );
    assert!(
        nl[5].starts_with(
            "… 597 more controls (597 interactive) not listed: max_controls=3 reached after id "
        ) && nl[5].ends_with(". Ask again with max_controls=600."),
        "{narrow}"
    );

    // A control without descendants is a subtree of one.
    let one = h.listing(json!({"subtree": edit150})).await;
    assert_eq!(counts(&one), (1, 1), "{one}");
    assert_eq!(
        one.lines().nth(1),
        Some(format!("{edit150} button \"Edit 150\"").as_str())
    );
    assert_eq!(one.lines().count(), 2, "{one}");
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subtree_of_a_fieldset_stops_at_its_end() {
    let h = Harness::start().await;
    h.open("form.html").await;
    let full = h.listing(json!({})).await;
    let size = Harness::id_of(&full, "group", "Size");
    let sub = h
        .listing(json!({"subtree": size, "format": "compact"}))
        .await;
    let body: Vec<&str> = sub.lines().skip(1).collect();
    assert_eq!(body.len(), 3, "{sub}");
    assert!(body[0].ends_with(" group \"Size\""), "{sub}");
    assert!(body[1].ends_with(" radio \"Small\" checked"), "{sub}");
    assert!(body[2].ends_with(" radio \"Large\""), "{sub}");
    assert_eq!(counts(&sub), (3, 2));
    let js = h
        .ok(
            "get_app_window_controls_info",
            json!({"subtree": size, "format": "json"}),
        )
        .await;
    assert_eq!(js["counts"]["listed"], 3, "{js}");
    assert_eq!(js["controls"][0]["id"], size.as_str(), "{js}");

    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subtree_ids_that_are_unknown_stale_or_of_another_tab_fail_like_actions() {
    let h = Harness::start().await;
    h.open("states.html").await;
    let before = h.listing(json!({})).await;
    let old = Harness::id_of(&before, "button", "Old item");

    let unknown = h
        .fails("get_app_window_controls_info", json!({"subtree": "99999"}))
        .await;
    let action = h
        .fails("click_input", json!({"id": "99999", "name": "x"}))
        .await;
    assert_eq!(unknown, action);
    assert!(
        unknown.starts_with("Control id '99999' is unknown ("),
        "{unknown}"
    );
    let bad = h
        .fails("get_app_window_controls_info", json!({"subtree": "abc"}))
        .await;
    assert!(bad.starts_with("'abc' is not a control id"), "{bad}");
    let bad = h
        .fails("get_app_window_controls_info", json!({"subtree": [1]}))
        .await;
    assert!(bad.contains("subtree must be a control id"), "{bad}");

    // Stale: the page navigated, the element is gone.
    h.ok("navigate", json!({"url": h.pages.url("form.html")}))
        .await;
    let stale = h
        .fails("get_app_window_controls_info", json!({"subtree": old}))
        .await;
    assert_eq!(
        stale,
        format!(
            "Control {old} (\"Old item\") no longer exists on the page: it was removed, re-rendered or the page navigated. Please refresh the application state with get_app_window_controls_info and use the new id."
        )
    );
    assert_eq!(
        stale,
        h.fails("click_input", json!({"id": old, "name": "Old item"}))
            .await
    );

    // Another tab's id.
    let form = h.listing(json!({})).await;
    let submit = Harness::id_of(&form, "button", "Submit");
    let w1 = form.split(' ').nth(1).unwrap_or_default().to_owned();
    h.ok("new_tab", json!({"url": h.pages.url("xhr.html")}))
        .await;
    let other = h
        .fails("get_app_window_controls_info", json!({"subtree": submit}))
        .await;
    assert_eq!(
        other,
        format!(
            "Control {submit} belongs to window {w1}; select it first with select_application_window."
        )
    );
    assert!(h.shutdown().await);
}
