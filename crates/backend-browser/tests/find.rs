//! `find_controls` on real pages: by text, type, within, regex, fuzzy, value and index; the tie
//! note, the limit footer, the JSON form, a renamed button found again by fuzzy, ids that work
//! with click_input, and every bad argument refused with what is wrong.

mod common;

use common::{Harness, all_text};
use serde_json::{Value, json};

/// The compact answer of find_controls for `selector` (and more arguments in `extra`).
async fn find(h: &Harness, selector: Value, extra: Value) -> String {
    let mut args = json!({"selector": selector});
    if let (Some(a), Value::Object(more)) = (args.as_object_mut(), extra) {
        a.extend(more);
    }
    let r = h.call("find_controls", args.clone()).await;
    assert_eq!(
        r.is_error,
        Some(false),
        "find_controls({args}): {}",
        all_text(&r)
    );
    all_text(&r)
}

/// The `chosen=` id of a compact answer (`none` when nothing was chosen).
fn chosen(answer: &str) -> String {
    answer
        .lines()
        .next()
        .and_then(|h| h.split(" chosen=").nth(1))
        .and_then(|s| s.split(' ').next())
        .unwrap_or_else(|| panic!("no chosen= in {answer}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(clippy::too_many_lines)] // one page, every way of selecting on it
async fn selectors_find_the_controls_of_the_form_page_and_their_ids_act() {
    let h = Harness::start().await;
    h.open("form.html").await;
    let listing = h.listing(json!({})).await;
    let submit = Harness::id_of(&listing, "button", "Submit");
    let small = Harness::id_of(&listing, "radio", "Small");
    let large = Harness::id_of(&listing, "radio", "Large");
    let name = Harness::id_of(&listing, "edit", "Name");
    let notes = Harness::id_of(&listing, "edit", "Notes");
    let window = listing.split(' ').nth(1).unwrap_or_default().to_owned();

    // By text: the header names the window, the count, the choice and the selector.
    let a = find(&h, json!({"text": "Submit"}), json!({})).await;
    assert_eq!(
        a,
        format!(
            "page {window} \"Order form\" app=\"127.0.0.1\" matches=1 chosen={submit} selector=\"\\\"Submit\\\"\"\n{submit} button \"Submit\" score=100\n"
        )
    );
    // By type: a tie goes to document order, and the answer says so; index picks the next.
    let a = find(&h, json!({"type": "radio"}), json!({})).await;
    assert_eq!(chosen(&a), small, "{a}");
    assert!(
        a.ends_with(&format!(
            "… 2 controls score 100; index 0 in document order picks id {small}.\n"
        )),
        "{a}"
    );
    let a = find(&h, json!({"type": "radio", "index": 1}), json!({})).await;
    assert_eq!(chosen(&a), large, "{a}");
    // Within the subtree of another match (the fieldset "Size").
    let within = json!({"type": "group", "text": "Size"});
    let a = find(&h, json!({"type": "radio", "within": within}), json!({})).await;
    assert!(a.contains(" matches=2 "), "{a}");
    let a = find(&h, json!({"type": "edit", "within": within}), json!({})).await;
    assert!(a.contains(" matches=0 chosen=none "), "{a}");
    assert!(a.ends_with("… no control matches.\n"), "{a}");
    // A regular expression over the raw names, case-sensitive.
    let a = find(
        &h,
        json!({"text": "^(Name|Notes)$", "match": "regex"}),
        json!({}),
    )
    .await;
    let ids: Vec<&str> = a
        .lines()
        .skip(1)
        .filter_map(|l| l.split(' ').next())
        .filter(|id| id.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    assert_eq!(ids, [name.as_str(), notes.as_str()], "{a}");
    // Fuzzy forgives a typo and says how well it matched.
    let a = find(&h, json!({"text": "Sbumit", "match": "fuzzy"}), json!({})).await;
    assert_eq!(chosen(&a), submit, "{a}");
    let score: u8 = a
        .lines()
        .nth(1)
        .and_then(|l| l.rsplit("score=").next())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    assert!((70..100).contains(&score), "{a}");
    // A value matches as well as a name, and says so.
    h.ok("set_edit_text", json!({"id": name, "text": "Ada Lovelace"}))
        .await;
    let a = find(&h, json!({"text": "lovelace"}), json!({})).await;
    assert!(
        a.contains(&format!(
            "{name} edit \"Name\" = \"Ada Lovelace\" focused required score=100 on=value\n"
        )),
        "{a}"
    );
    // The ids are the listing's: an action takes them.
    let a = find(
        &h,
        json!({"text": "submit", "match": "exact", "type": "button"}),
        json!({}),
    )
    .await;
    let id = chosen(&a);
    assert_eq!(id, submit);
    let r = h
        .ok("click_input", json!({"id": id, "name": "Submit"}))
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert!(h.page_text().await.contains("Hello, Ada Lovelace"));
    // Finding changes no new marks: the next listing marks only what is new since the last one.
    let again = h.listing(json!({})).await;
    assert!(!again.contains(&format!("*{submit} ")), "{again}");
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_matches_are_cut_at_the_limit_and_json_has_every_field() {
    let h = Harness::start().await;
    h.open("table.html").await;
    let listing = h.listing(json!({})).await;
    let edit1 = Harness::id_of(&listing, "button", "Edit 1");
    let edit7 = Harness::id_of(&listing, "button", "Edit 7");
    let a = find(
        &h,
        json!({"text": "Edit", "type": "button"}),
        json!({"limit": 3}),
    )
    .await;
    let lines: Vec<&str> = a.lines().collect();
    assert_eq!(lines.len(), 6, "{a}");
    assert!(
        lines[0].contains(&format!(" matches=200 chosen={edit1} ")),
        "{a}"
    );
    assert_eq!(lines[1], format!("{edit1} button \"Edit 1\" score=100"));
    assert_eq!(
        lines[4],
        format!("… 200 controls score 100; index 0 in document order picks id {edit1}.")
    );
    assert_eq!(lines[5], "… 197 more matches not listed (limit=3).");

    let v = h
        .ok(
            "find_controls",
            json!({"selector": {"text": "edit 7", "match": "exact"}, "format": "JSON"}),
        )
        .await;
    assert_eq!(v["chosen"], edit7.as_str(), "{v}");
    assert_eq!(v["total"], 1);
    assert_eq!(v["best_count"], 1);
    assert!(v["note"].is_null(), "{v}");
    assert_eq!(v["window"]["type"], "page");
    assert_eq!(v["window"]["name"], "Inventory");
    assert_eq!(v["selector"], json!({"text": "edit 7", "match": "exact"}));
    let m = &v["matches"][0];
    assert_eq!(m["id"], edit7.as_str());
    assert_eq!(m["type"], "button");
    assert_eq!(m["name"], "Edit 7");
    assert_eq!(m["score"], 100);
    assert_eq!(m["on"], "name");
    assert_eq!(m["interactive"], true);
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renamed_button_is_found_again_by_fuzzy_and_clicked() {
    let h = Harness::start().await;
    h.open("appear.html").await;
    let save_draft = |mode: &str| json!({"text": "Save draft", "type": "button", "match": mode});
    let a = find(&h, save_draft("exact"), json!({})).await;
    let save = chosen(&a);
    assert_ne!(save, "none", "{a}");
    let rename = chosen(&find(&h, json!({"text": "Rename the save button"}), json!({})).await);
    h.ok("click_input", json!({"id": rename})).await;
    let exact = find(&h, save_draft("exact"), json!({})).await;
    assert!(exact.contains(" matches=0 chosen=none "), "{exact}");
    let fuzzy = find(&h, save_draft("fuzzy"), json!({})).await;
    assert_eq!(chosen(&fuzzy), save, "the same element, renamed:\n{fuzzy}");
    assert!(
        fuzzy.contains(&format!("{save} button \"Save a draft\" score=80\n")),
        "{fuzzy}"
    );
    h.ok("click_input", json!({"id": save, "name": "Save a draft"}))
        .await;
    assert!(h.page_text().await.contains("draft saved"));
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_are_refused_with_every_problem() {
    let h = Harness::start().await;
    h.open("form.html").await;
    let e = h
        .fails(
            "find_controls",
            json!({"selector": {"type": "buton", "match": "regex", "text": "(", "within": {"match": "exact"}}}),
        )
        .await;
    assert!(
        e.starts_with("The selector cannot be used: selector.type: unknown control type \"buton\"; use a type word"),
        "{e}"
    );
    assert!(
        e.contains("; selector.text: the regex does not compile: "),
        "{e}"
    );
    assert!(
        e.contains("; selector.within: a selector needs a text or a type. A selector is {"),
        "{e}"
    );
    let e = h.fails("find_controls", json!({"selector": {}})).await;
    assert!(
        e.starts_with("The selector cannot be used: selector: a selector needs a text or a type."),
        "{e}"
    );
    let e = h
        .fails(
            "find_controls",
            json!({"selector": {"text": "a"}, "limit": 0}),
        )
        .await;
    assert_eq!(
        e,
        "Invalid arguments: limit must be between 1 and 100, got 0."
    );
    let e = h
        .fails(
            "find_controls",
            json!({"selector": {"text": "a"}, "format": "yaml"}),
        )
        .await;
    assert!(
        e.starts_with("Invalid arguments: ") && e.contains("yaml"),
        "{e}"
    );
    // A field the selector does not have is refused before the tool runs.
    let Value::Object(args) = json!({"selector": {"txt": "Submit"}}) else {
        unreachable!()
    };
    let refused = h
        .client
        .call_tool(rmcp::model::CallToolRequestParams::new("find_controls").with_arguments(args))
        .await;
    let e = match refused {
        Err(e) => e.to_string(),
        Ok(r) => all_text(&r),
    };
    assert!(e.contains("unknown field `txt`"), "{e}");
    assert!(h.shutdown().await);
}
