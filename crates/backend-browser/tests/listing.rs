//! The compact control listing on real pages: format, frames and shadow roots, the new-control
//! marker, stale ids, budgets and the token bound of the 200-row table page.

mod common;

use common::{Harness, all_text};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn form_listing_is_compact_and_ids_are_stable() {
    let h = Harness::start().await;
    h.open("form.html").await;
    let first = h.listing(json!({})).await;
    eprintln!("{first}");
    let lines: Vec<&str> = first.lines().collect();
    assert!(lines[0].starts_with("page "), "{first}");
    assert!(
        lines[0].contains("\"Order form\" app=\"127.0.0.1\""),
        "{first}"
    );
    for expected in [
        " heading \"New order\"",
        " edit \"Name\" = \"\" required",
        " edit \"Notes\" = \"\"",
        " combobox \"Color\" = \"Red\" collapsed",
        " checkbox \"I agree\"",
        " radio \"Small\" checked",
        " radio \"Large\"",
        " button \"Submit\"",
        " link \"Go to the table\"",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.ends_with(expected) || l.contains(&format!("{expected} "))),
            "missing {expected} in:\n{first}"
        );
    }
    // Labels are not listed again as texts.
    assert!(!first.contains("text \"Name\""), "{first}");
    assert!(
        !first.contains('*'),
        "a first listing marks nothing:\n{first}"
    );
    let again = h.listing(json!({})).await;
    let strip = |s: &str| {
        s.lines()
            .skip(1)
            .filter(|l| !l.contains("events="))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        strip(&first),
        strip(&again),
        "ids are stable across listings"
    );

    // Narrowing: only interactive, rect, max_controls footer.
    let narrow = h
        .listing(json!({"only_interactive": true, "field_list": ["rect"], "max_controls": 2}))
        .await;
    let nl: Vec<&str> = narrow.lines().collect();
    assert_eq!(nl.len(), 5, "{narrow}");
    assert!(nl[1].contains(" rect=["), "{narrow}");
    assert!(
        nl[3].starts_with("… ")
            && nl[3].ends_with("non-interactive controls not listed (only_interactive=true)."),
        "{narrow}"
    );
    assert!(
        nl[4].contains("more controls (") && nl[4].contains("max_controls=2 reached after id"),
        "{narrow}"
    );
    let js = h
        .ok(
            "get_app_window_controls_info",
            json!({"format": "json", "max_controls": 1}),
        )
        .await;
    assert_eq!(js["counts"]["listed"], 1, "{js}");
    assert_eq!(js["window"]["type"], "page");
    let bad = h
        .fails("get_app_window_controls_info", json!({"format": "yaml"}))
        .await;
    assert!(bad.contains("unknown format 'yaml'"), "{bad}");
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_and_shadow_roots_are_listed_in_document_order() {
    let h = Harness::start().await;
    h.open("frames.html").await;
    let listing = h.listing(json!({})).await;
    eprintln!("{listing}");
    let pos = |needle: &str| {
        listing
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} missing in:\n{listing}"))
    };
    let top = pos("button \"Top button\"");
    let same = pos("button \"Same frame button\"");
    let cross = pos("button \"Cross frame button\"");
    let shadow = pos("button \"Shadow button\"");
    assert!(
        top < same && same < cross && cross < shadow,
        "document order:\n{listing}"
    );
    pos("edit \"Shadow field\"");
    pos("text \"Inside the shadow\"");
    assert_eq!(
        listing.matches("edit \"Frame field\"").count(),
        2,
        "{listing}"
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_page_costs_at_most_12_tokens_per_interactive_control() {
    let h = Harness::start().await;
    h.open("table.html").await;
    let listing = h.listing(json!({})).await;
    let header = listing.lines().next().unwrap_or_default().to_owned();
    assert!(header.contains(" interactive=600 "), "{header}");
    let interactive = listing
        .lines()
        .filter(|l| {
            l.contains(" checkbox \"Select row")
                || l.contains(" link \"Item ")
                || l.contains(" button \"Edit ")
        })
        .count();
    assert_eq!(interactive, 600, "every row's three controls are listed");
    assert!(
        listing.contains("… 200 row texts not listed; add \"text\" to field_list to list them."),
        "{}",
        &listing[listing.len().saturating_sub(400)..]
    );
    assert!(!listing.contains("Widget number"), "row text is folded");
    let bpe = tiktoken_rs::cl100k_base().expect("cl100k tables");
    let tokens = bpe.encode_with_special_tokens(&listing).len();
    let per = tokens as f64 / 600.0;
    eprintln!("table page: {tokens} tokens, {per:.2} per interactive control");
    assert!(
        per <= 12.0,
        "{per:.2} tokens per interactive control (limit 12)"
    );
    let with_text = h
        .listing(json!({"field_list": "text", "max_controls": 5000}))
        .await;
    assert!(
        with_text.contains("text \"Widget number 150, blue\""),
        "row text on request"
    );
    assert!(h.shutdown().await);
}

/// Clicks `button` (by name) and waits for the page's timer to re-render: returns the first
/// change listing that shows `done` (the status line the page writes when it has).
async fn rerender(h: &Harness, button: &str, done: &str) -> String {
    let before = h.listing(json!({})).await;
    let id = Harness::id_of(&before, "button", button);
    h.ok("click_input", json!({"id": id, "name": button})).await;
    // The list is rebuilt 200 ms after the click (a timer, not a request): wait for it.
    for _ in 0..50 {
        let after = h.listing(json!({"changes": true})).await;
        if after.contains(done) {
            return after;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the page never said {done}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_re_created_control_takes_over_the_id_of_its_unambiguous_twin() {
    let h = Harness::start().await;
    h.open("states.html").await;
    let before = h.listing(json!({})).await;
    let old = Harness::id_of(&before, "button", "Old item");
    // The re-rendered list's button is a new element; the change listing says its list item
    // and button went and came back as the same ids: nothing new, nothing gone.
    let changes = rerender(&h, "Re-render later", "\"list re-rendered\"").await;
    assert!(
        !changes.contains("Old item") && changes.contains("*"),
        "the status texts are new, the list and its button are not:\n{changes}"
    );
    let after = h.listing(json!({})).await;
    assert_eq!(
        Harness::id_of(&after, "button", "Old item"),
        old,
        "the twin kept the id:\n{after}"
    );
    assert!(!after.contains('*'), "nothing is new:\n{after}");
    let r = h
        .ok("click_input", json!({"id": old, "name": "Old item"}))
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert!(
        h.page_text().await.contains("new item clicked"),
        "the id reaches the new element"
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ambiguous_twins_get_new_ids_and_stale_ids_fail_with_a_refresh_hint() {
    let h = Harness::start().await;
    h.open("states.html").await;
    let before = h.listing(json!({})).await;
    let old: Vec<&str> = before
        .lines()
        .filter(|l| l.ends_with("button \"Twin\""))
        .filter_map(|l| l.split(' ').next())
        .collect();
    assert_eq!(old.len(), 2, "{before}");
    // Two buttons named alike vanish and two appear: which is which cannot be known.
    let changes = rerender(&h, "Re-render twins later", "\"twins re-rendered\"").await;
    let new: Vec<&str> = changes
        .lines()
        .filter(|l| l.ends_with("button \"Twin\"") && l.starts_with('*'))
        .filter_map(|l| l.trim_start_matches('*').split(' ').next())
        .collect();
    assert_eq!(new.len(), 2, "both twins are new:\n{changes}");
    assert!(new.iter().all(|n| !old.contains(n)), "new ids:\n{changes}");
    for id in &old {
        assert!(
            changes.contains(&format!("-{id} button \"Twin\"")),
            "{id} gone:\n{changes}"
        );
    }
    let err = h
        .fails("click_input", json!({"id": old[1], "name": "Twin"}))
        .await;
    assert_eq!(
        err,
        format!(
            "Control {} (\"Twin\") no longer exists on the page: it was removed, re-rendered or the page navigated. Please refresh the application state with get_app_window_controls_info and use the new id.",
            old[1]
        )
    );
    let r = h
        .ok("click_input", json!({"id": new[1], "name": "Twin"}))
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert!(h.page_text().await.contains("new twin 2 clicked"));
    // Unknown and malformed ids.
    let err = h
        .fails("click_input", json!({"id": "99999", "name": "x"}))
        .await;
    assert!(
        err.starts_with(
            "Control id '99999' is unknown (the current listing of this window has ids "
        ),
        "{err}"
    );
    let err = h.fails("click_input", json!({"id": "abc"})).await;
    assert!(err.starts_with("'abc' is not a control id"), "{err}");
    let err = h.fails("click_input", json!({"name": "x"})).await;
    assert!(err.starts_with("No control id given: pass the id"), "{err}");
    // After a navigation every old id is stale.
    h.ok("navigate", json!({"url": h.pages.url("form.html")}))
        .await;
    let err = h
        .fails("click_input", json!({"id": new[1], "name": "Twin"}))
        .await;
    assert!(err.contains("no longer exists on the page"), "{err}");
    let _ = all_text;
    // An id from another tab is recognised and named.
    let l = h.listing(json!({})).await;
    let submit = Harness::id_of(&l, "button", "Submit");
    let tab2 = h
        .ok("new_tab", json!({"url": h.pages.url("xhr.html")}))
        .await;
    let err = h
        .fails("click_input", json!({"id": submit, "name": "Submit"}))
        .await;
    let w1 = l.split(' ').nth(1).unwrap_or_default();
    assert_eq!(
        err,
        format!(
            "Control {submit} belongs to window {w1}; select it first with select_application_window."
        )
    );
    assert_ne!(tab2["window_info"]["id"], w1);
    assert!(h.shutdown().await);
}
