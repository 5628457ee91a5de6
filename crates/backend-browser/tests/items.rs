//! Items inside a focusable container or a composite widget (issue 14 §3): a menu list of
//! `tabindex="-1"` items, a combobox's listbox popup, a tree, a grid of native cells and a
//! virtualised 2,000-item list. Each task is done through the tools alone, and each listing is
//! held to a token budget (cl100k).

mod common;

use common::Harness;
use serde_json::json;

/// cl100k tokens of a listing text.
fn tokens(text: &str) -> usize {
    tiktoken_rs::cl100k_base()
        .expect("cl100k tables")
        .encode_with_special_tokens(text)
        .len()
}

/// The header's `interactive=` count.
fn interactive(listing: &str) -> usize {
    listing
        .lines()
        .next()
        .and_then(|h| h.split(" interactive=").nth(1))
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no interactive count in {listing}"))
}

/// Asserts a listing stays within `max_tokens` and, once it has 100 interactive controls or
/// more (small pages pay the header, headings and column headers), 12 tokens per interactive
/// control, the bound of the table page.
/// Returns the figures, for the test to print.
fn within_budget(page: &str, listing: &str, max_tokens: usize) -> String {
    let t = tokens(listing);
    let n = interactive(listing);
    let per = t as f64 / n.max(1) as f64;
    assert!(
        t <= max_tokens,
        "{page}: {t} tokens (budget {max_tokens}):\n{listing}"
    );
    assert!(
        n < 100 || per <= 12.0,
        "{page}: {per:.1} tokens per interactive control (limit 12)"
    );
    format!("{page}: {t} tokens, {n} interactive, {per:.1} per interactive control")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_menu_lists_its_tabindex_items_and_apples_is_chosen_by_id() {
    let h = Harness::start().await;
    h.open("menu_list.html").await;
    let closed = h.listing(json!({})).await;
    assert!(
        !closed.contains("Apples"),
        "a closed menu shows nothing:\n{closed}"
    );
    let open = Harness::id_of(&closed, "button", "Choose a fruit");
    h.ok("click_input", json!({"id": open, "name": "Choose a fruit"}))
        .await;
    let listing = h.listing(json!({})).await;
    eprintln!("{listing}");
    eprintln!("{}", within_budget("menu_list.html", &listing, 150));
    // The focusable list and, as its children, each item with an id of its own.
    let menu = listing
        .lines()
        .find(|l| l.contains(" list \"\" focused"))
        .unwrap_or_else(|| panic!("the open menu:\n{listing}"));
    let menu_id = menu
        .trim_start_matches('*')
        .split(' ')
        .next()
        .unwrap_or_default();
    let apples = Harness::id_of(&listing, "listitem", "Apples");
    for fruit in ["Bananas", "Cherries", "Dates"] {
        Harness::id_of(&listing, "listitem", fruit);
    }
    let items = h.listing(json!({"subtree": menu_id})).await;
    assert_eq!(
        items.lines().count(),
        6,
        "the list and its 4 items:\n{items}"
    );
    // Bare <li> items of a focusable list are items too.
    let leeks = Harness::id_of(&listing, "listitem", "Leeks");

    let r = h
        .ok("click_input", json!({"id": apples, "name": "Apples"}))
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    let text = h.page_text().await;
    assert!(text.contains("chosen: Apples"), "{text}");
    h.ok("click_input", json!({"id": leeks, "name": "Leeks"}))
        .await;
    assert!(h.page_text().await.contains("vegetable: Leeks"));
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_combobox_popup_lists_its_options_and_one_is_picked_by_id() {
    let h = Harness::start().await;
    h.open("listbox.html").await;
    let listing = h.listing(json!({"max_controls": 12})).await;
    let combo = Harness::id_of(&listing, "combobox", "Fruit");
    assert!(!listing.contains("\"Mango\""), "no popup yet:\n{listing}");
    h.ok("set_edit_text", json!({"id": combo, "text": "an"}))
        .await;
    let listing = h.listing(json!({"max_controls": 12})).await;
    eprintln!("{listing}");
    let popup = Harness::id_of(&listing, "list", "Fruits");
    let mango = Harness::id_of(&listing, "listitem", "Mango");
    Harness::id_of(&listing, "listitem", "Banana");
    Harness::id_of(&listing, "listitem", "Orange");
    let sub = h.listing(json!({"subtree": popup})).await;
    assert_eq!(
        sub.lines().count(),
        5,
        "the popup and its 3 options:\n{sub}"
    );
    eprintln!("{}", within_budget("listbox.html (popup)", &sub, 60));
    h.ok("click_input", json!({"id": mango, "name": "Mango"}))
        .await;
    let after = h.listing(json!({"max_controls": 12})).await;
    assert!(
        after.contains(&format!("{combo} combobox \"Fruit\" = \"Mango\"")),
        "{after}"
    );
    assert!(h.page_text().await.contains("picked: Mango"));
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_listbox_of_bare_items_follows_the_footer_and_subtree_rules() {
    let h = Harness::start().await;
    h.open("listbox.html").await;
    let full = h.listing(json!({})).await;
    // 300 bare <li> items of a listbox are its options, each an interactive control (with the
    // listbox and the combobox: 302).
    assert!(
        full.contains(" interactive=302 "),
        "{}",
        full.lines().next().unwrap_or_default()
    );
    eprintln!("{}", within_budget("listbox.html", &full, 3000));
    let countries = Harness::id_of(&full, "list", "Countries");
    let c250 = Harness::id_of(&full, "listitem", "Country 250");
    let narrow = h
        .listing(json!({"subtree": countries, "max_controls": 5}))
        .await;
    let lines: Vec<&str> = narrow.lines().collect();
    assert!(
        lines[0].contains(" controls=301 interactive=301 "),
        "{narrow}"
    );
    assert_eq!(lines.len(), 7, "{narrow}");
    assert!(
        lines[6].starts_with(
            "… 296 more controls (296 interactive) not listed: max_controls=5 reached after id "
        ) && lines[6].ends_with("Ask again with max_controls=301 or only_interactive=true."),
        "{narrow}"
    );
    h.ok("click_input", json!({"id": c250, "name": "Country 250"}))
        .await;
    assert!(h.page_text().await.contains("country: Country 250"));
    let after = h.listing(json!({"subtree": c250})).await;
    assert!(
        after.contains(&format!("{c250} listitem \"Country 250\" selected")),
        "{after}"
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tree_opens_and_a_leaf_is_selected_by_id() {
    let h = Harness::start().await;
    h.open("tree.html").await;
    let closed = h.listing(json!({})).await;
    eprintln!("{closed}");
    // A branch is named by its own text, not by its children's.
    let fruits = Harness::id_of(&closed, "treeitem", "Fruits");
    let veg = Harness::id_of(&closed, "treeitem", "Vegetables");
    assert!(
        closed.contains(&format!("{fruits} treeitem \"Fruits\" collapsed")),
        "{closed}"
    );
    h.ok("click_input", json!({"id": fruits, "name": "Fruits"}))
        .await;
    h.ok("click_input", json!({"id": veg, "name": "Vegetables"}))
        .await;
    let open = h.listing(json!({})).await;
    eprintln!("{open}");
    eprintln!("{}", within_budget("tree.html", &open, 120));
    let pears = Harness::id_of(&open, "treeitem", "Pears");
    // Bare <li> items inside the tree are its tree items.
    let leeks = Harness::id_of(&open, "treeitem", "Leeks");
    let branch = h.listing(json!({"subtree": fruits})).await;
    assert_eq!(
        branch.lines().count(),
        4,
        "Fruits with Apples and Pears:\n{branch}"
    );
    assert!(
        branch.contains(&format!("{pears} treeitem \"Pears\"")),
        "{branch}"
    );
    h.ok("click_input", json!({"id": pears, "name": "Pears"}))
        .await;
    assert!(h.page_text().await.contains("selected: Pears"));
    h.ok("click_input", json!({"id": leeks, "name": "Leeks"}))
        .await;
    assert!(h.page_text().await.contains("selected: Leeks"));
    let after = h.listing(json!({})).await;
    assert!(
        after.contains(&format!("{leeks} treeitem \"Leeks\" selected")),
        "{after}"
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grid_lists_its_native_cells_and_one_is_booked_by_id() {
    let h = Harness::start().await;
    h.open("grid.html").await;
    let listing = h.listing(json!({})).await;
    eprintln!("{listing}");
    // 20 cells, the roving tabindex=0 one and the tabindex=-1 ones alike.
    assert_eq!(interactive(&listing), 20, "{listing}");
    eprintln!("{}", within_budget("grid.html", &listing, 300));
    let grid = Harness::id_of(&listing, "table", "Slots");
    let wed = Harness::id_of(&listing, "cell", "Wed 10:00");
    Harness::id_of(&listing, "cell", "Mon 09:00");
    let sub = h
        .listing(json!({"subtree": grid, "only_interactive": true}))
        .await;
    assert_eq!(
        sub.lines().filter(|l| l.contains(" cell \"")).count(),
        20,
        "{sub}"
    );
    h.ok("click_input", json!({"id": wed, "name": "Wed 10:00"}))
        .await;
    assert!(h.page_text().await.contains("booked: Wed 10:00"));
    let after = h.listing(json!({"subtree": wed})).await;
    assert!(
        after.contains(&format!("{wed} cell \"Wed 10:00\" focused selected")),
        "{after}"
    );
    assert!(h.shutdown().await);
}

/// The item numbers of the `listitem "Item N"` lines of a listing, with their ids.
fn rows(listing: &str) -> Vec<(u32, String)> {
    listing
        .lines()
        .filter_map(|l| {
            let l = l.trim_start_matches('*');
            let (id, rest) = l.split_once(' ')?;
            let n = rest.strip_prefix("listitem \"Item ")?.strip_suffix('"')?;
            Some((n.parse().ok()?, id.to_owned()))
        })
        .collect()
}

/// The middle item number of a listing's rows.
fn middle(listing: &str) -> f64 {
    let r = rows(listing);
    assert!(!r.is_empty(), "no rows listed:\n{listing}");
    f64::from(r[0].0 + r[r.len() - 1].0) / 2.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_1500_of_a_virtualised_list_is_reached_by_scrolling_and_clicked() {
    let h = Harness::start().await;
    h.open("virtual_list.html").await;
    let first = h.listing(json!({})).await;
    eprintln!("{first}");
    eprintln!("{}", within_budget("virtual_list.html", &first, 300));
    let viewport = Harness::id_of(&first, "other", "Messages");
    assert!(
        rows(&first).len() < 40,
        "only a window of rows is in the DOM"
    );
    // What a model does: turn the wheel a little, see how far the list moved, then aim.
    let wheel = |dist: i64| json!({"id": viewport, "name": "Messages", "wheel_dist": dist});
    h.ok("wheel_mouse_input", wheel(-10)).await;
    let moved = h.listing(json!({})).await;
    let per_notch = (middle(&moved) - middle(&first)) / 10.0;
    assert!(per_notch > 0.0, "the wheel scrolled the list:\n{moved}");
    let mut listing = moved;
    let mut calls = 3;
    let target = loop {
        if let Some((_, id)) = rows(&listing).into_iter().find(|(n, _)| *n == 1500) {
            break id;
        }
        assert!(calls < 20, "item 1500 not reached:\n{listing}");
        let notches = ((1500.0 - middle(&listing)) / per_notch).round() as i64;
        h.ok("wheel_mouse_input", wheel(-notches.clamp(-1000, 1000)))
            .await;
        listing = h.listing(json!({})).await;
        calls += 2;
    };
    eprintln!("reached item 1500 in {calls} tool calls:\n{listing}");
    eprintln!(
        "{}",
        within_budget("virtual_list.html (scrolled)", &listing, 300)
    );
    let r = h
        .ok("click_input", json!({"id": target, "name": "Item 1500"}))
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert!(h.page_text().await.contains("opened: Item 1500"));
    assert!(h.shutdown().await);
}
