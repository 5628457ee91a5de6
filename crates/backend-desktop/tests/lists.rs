//! Long lists in scrolled windows (the lists fixture: a GtkListBox and a GtkTreeView): rows
//! below the fold are listed with `offscreen`, actions on them say to scroll first, and
//! `select_option` picks rows of lists and tree views.

mod common;

use std::time::Duration;

use common::{Harness, control_lines, find_id, lists_app};
use serde_json::json;

const T: Duration = Duration::from_secs(10);

fn line_of<'a>(listing: &'a str, kind: &str, name: &str) -> &'a str {
    let id =
        find_id(listing, kind, name).unwrap_or_else(|| panic!("no {kind} {name:?} in\n{listing}"));
    listing
        .lines()
        .find(|l| l.trim_start_matches('*').starts_with(&format!("{id} ")))
        .unwrap_or_default()
}

// A long list scrolled row by row: long because it is one story.
#[allow(clippy::too_many_lines)]
#[tokio::test(flavor = "multi_thread")]
async fn rows_below_the_fold_are_listed_offscreen_and_need_a_scroll_first() {
    let h = Harness::new().await;
    let app = lists_app(&h.env());
    h.select_app("lists_app.py").await;
    let listing = h.listing(json!({"field_list": ["rect"]})).await;
    // Every row of both lists is listed, in order; the first rows are visible, the rest are not.
    for i in 1..=40 {
        assert!(
            find_id(&listing, "listitem", &format!("Fruit {i}")).is_some(),
            "Fruit {i}:\n{listing}"
        );
    }
    for i in 1..=50 {
        assert!(
            find_id(&listing, "cell", &format!("file-{i}.txt")).is_some(),
            "file-{i}:\n{listing}"
        );
    }
    assert!(
        !line_of(&listing, "listitem", "Fruit 1").contains("offscreen"),
        "{listing}"
    );
    assert!(
        !line_of(&listing, "listitem", "Fruit 2").contains("offscreen"),
        "{listing}"
    );
    assert!(
        line_of(&listing, "listitem", "Fruit 30").contains(" offscreen"),
        "{listing}"
    );
    assert!(
        line_of(&listing, "listitem", "Fruit 40").contains(" offscreen"),
        "{listing}"
    );
    assert!(
        !line_of(&listing, "cell", "file-1.txt").contains("offscreen"),
        "{listing}"
    );
    assert!(
        line_of(&listing, "cell", "file-50.txt").contains(" offscreen"),
        "{listing}"
    );
    // The visible part of the window holds no offscreen control, and hidden scroll bars are
    // not rows.
    assert!(
        !line_of(&listing, "button", "Done").contains("offscreen"),
        "{listing}"
    );
    assert!(
        !control_lines(&listing)
            .iter()
            .any(|l| l.contains(" scrollbar ") && l.contains("offscreen")),
        "{listing}"
    );

    // Acting on a row below the fold: the spec's answer, nothing clicked.
    let fruit30 = find_id(&listing, "listitem", "Fruit 30").unwrap();
    let e = h
        .err("click_input", json!({"id": fruit30, "name": "Fruit 30"}))
        .await;
    assert_eq!(
        e,
        format!(
            "Control {fruit30}: Fruit 30 is not available or not interactable for the action click_input (scrolled out of view; scroll it into view first, e.g. wheel_mouse_input on its list), please refresh the application state to get the latest interactable control information."
        )
    );
    assert!(
        !app.records().iter().any(|r| r["value"] == "Fruit 30"),
        "{:?}",
        app.lines()
    );

    // Scroll the list (the wheel goes to the visible part of the list, not its centre far
    // below the fold), list again: the row is on screen and a click selects it.
    let fruits = find_id(&listing, "list", "Fruits").unwrap();
    let mut listing = listing;
    for _ in 0..20 {
        if !line_of(&listing, "listitem", "Fruit 30").contains("offscreen") {
            break;
        }
        let r = h
            .ok(
                "wheel_mouse_input",
                json!({"id": fruits, "name": "Fruits", "wheel_dist": -5}),
            )
            .await;
        assert_eq!(r["effect"], "changed", "{r}");
        listing = h.listing(json!({})).await;
    }
    assert!(
        !line_of(&listing, "listitem", "Fruit 30").contains("offscreen"),
        "{listing}"
    );
    assert!(
        line_of(&listing, "listitem", "Fruit 1").contains(" offscreen"),
        "{listing}"
    );
    assert_eq!(
        find_id(&listing, "listitem", "Fruit 30"),
        Some(fruit30.clone()),
        "ids are kept"
    );
    let r = h
        .ok("click_input", json!({"id": fruit30, "name": "Fruit 30"}))
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert_eq!(r["via"], "pointer", "{r}");
    assert!(
        app.wait_record(T, |r| r["event"] == "selected" && r["value"] == "Fruit 30")
            .is_some(),
        "{:?}",
        app.lines()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn select_option_picks_rows_of_list_boxes_and_tree_views() {
    let h = Harness::new().await;
    let app = lists_app(&h.env());
    h.select_app("lists_app.py").await;
    let listing = h.listing(json!({})).await;
    let fruits = find_id(&listing, "list", "Fruits").unwrap();
    let files = find_id(&listing, "table", "Files").unwrap();

    // A list box row below the fold, by its label's text.
    let r = h
        .ok(
            "select_option",
            json!({"id": fruits, "name": "Fruits", "option": "Fruit 35"}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert_eq!(r["option"], "Fruit 35", "{r}");
    assert!(
        app.wait_record(T, |r| r["widget"] == "fruits" && r["value"] == "Fruit 35")
            .is_some(),
        "{:?}",
        app.lines()
    );
    let after = h.listing(json!({})).await;
    assert!(
        line_of(&after, "listitem", "Fruit 35").contains(" selected"),
        "{after}"
    );
    // Choosing the chosen row again changes nothing.
    let r = h
        .ok(
            "select_option",
            json!({"id": fruits, "name": "Fruits", "option": "Fruit 35"}),
        )
        .await;
    assert_eq!(r["effect"], "no_change", "{r}");

    // A tree view row, by its first cell, case and spacing ignored.
    let r = h
        .ok(
            "select_option",
            json!({"id": files, "name": "Files", "option": " FILE-42.txt "}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert_eq!(r["option"], "file-42.txt", "{r}");
    assert!(
        app.wait_record(T, |r| r["widget"] == "files" && r["value"] == "file-42.txt")
            .is_some(),
        "{:?}",
        app.lines()
    );

    // Not there: the first options are named, the rest counted.
    let e = h
        .err(
            "select_option",
            json!({"id": files, "name": "Files", "option": "file-999.txt"}),
        )
        .await;
    assert!(
        e.starts_with(
            "There is no option \"file-999.txt\". Options: \"file-1.txt\", \"file-2.txt\","
        ),
        "{e}"
    );
    assert!(e.ends_with("\"file-30.txt\" and 120 more."), "{e}");
    // A row is no list.
    let row = find_id(&listing, "listitem", "Fruit 2").unwrap();
    assert_eq!(
        h.err(
            "select_option",
            json!({"id": row, "name": "Fruit 2", "option": "x"})
        )
        .await,
        format!(
            "Control {row}: Fruit 2 has no options to select. select_option works on combo boxes, lists and tables."
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ui_tree_of_a_large_window_drops_whole_levels_within_the_budget() {
    let h = Harness::new().await;
    let _app = lists_app(&h.env());
    h.select_app("lists_app.py").await;
    let answer = h.ok("get_ui_tree", json!({})).await;
    let shown = answer["depth"].as_u64().unwrap();
    let nodes = answer["nodes"].as_u64().unwrap();
    assert!(nodes <= 300, "{answer}");
    let note = answer["note"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(
        note.starts_with("The tree to depth 8 has ")
            && note.contains(&format!(
                "; shown to depth {shown} ({nodes} nodes) to stay within 300."
            )),
        "{note}"
    );
    // The cut is a whole level: count what is shown, and find the table's 300 cells omitted.
    fn walk(
        v: &serde_json::Value,
        depth: u64,
        max: &mut u64,
        count: &mut u64,
        omitted: &mut Vec<(String, u64)>,
    ) {
        *count += 1;
        *max = (*max).max(depth);
        if let Some(n) = v["children_omitted"].as_u64() {
            omitted.push((v["name"].as_str().unwrap_or_default().to_owned(), n));
        }
        for c in v["children"].as_array().into_iter().flatten() {
            walk(c, depth + 1, max, count, omitted);
        }
    }
    let (mut max, mut count, mut omitted) = (0, 0, Vec::new());
    walk(&answer["tree"], 0, &mut max, &mut count, &mut omitted);
    assert_eq!((max, count), (shown, nodes), "{answer}");
    assert!(omitted.contains(&("Files".to_owned(), 302)), "{omitted:?}");
    let tokens = tiktoken_rs::cl100k_base()
        .expect("cl100k tables")
        .encode_with_special_tokens(&serde_json::to_string(&answer).unwrap())
        .len();
    assert!(tokens <= 10_000, "{tokens} tokens");
}
