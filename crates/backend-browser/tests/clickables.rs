//! Elements that take clicks only through script (issue 14, part 1): words inside prose and a
//! tab panel's text, React-style delegated handlers, pointer-cursor cards, `onclick` divs. Each
//! page's task is done through the tools alone (listing, then click_input by id, then the
//! listing shows the outcome); the hooks that see the listeners stay invisible to the page; the
//! listings stay within their token budgets.

mod common;

use common::{Harness, tokens};
use serde_json::json;

/// The listing's line for control `id` (without a new mark).
fn line_of<'a>(listing: &'a str, id: &str) -> &'a str {
    listing
        .lines()
        .map(|l| l.trim_start_matches('*'))
        .find(|l| l.split(' ').next() == Some(id))
        .unwrap_or_else(|| panic!("no control {id} in:\n{listing}"))
}

/// The id of the first text line whose name starts with `prefix`.
fn text_starting(listing: &str, prefix: &str) -> String {
    let needle = format!(" text \"{prefix}");
    listing
        .lines()
        .map(|l| l.trim_start_matches('*'))
        .find(|l| l.contains(&needle))
        .and_then(|l| l.split(' ').next())
        .unwrap_or_else(|| panic!("no text starting {prefix:?} in:\n{listing}"))
        .to_owned()
}

/// The browser example `name` of docs/observation.md (the text block after its marker).
fn doc_example(name: &str) -> String {
    const DOC: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/observation.md"
    ));
    let marker = format!("<!-- browser-example: {name} -->\n```text\n");
    let start = DOC
        .find(&marker)
        .unwrap_or_else(|| panic!("no browser example {name} in docs/observation.md"))
        + marker.len();
    let len = DOC[start..].find("```").expect("the example's block ends");
    DOC[start..start + len].to_owned()
}

/// Clicks control `id` (named `name`) and expects the page to change.
async fn click(h: &Harness, id: &str, name: &str) {
    let r = h.ok("click_input", json!({"id": id, "name": name})).await;
    assert_eq!(r["effect"], "changed", "clicking {name}: {r}");
    assert!(r.get("warning").is_none(), "clicking {name}: {r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clickable_words_in_a_long_paragraph_are_listed_as_its_children() {
    let h = Harness::start().await;
    h.open("clickable_prose.html").await;
    let l = h.listing(json!({})).await;
    let para = text_starting(&l, "Your parcel is due on Thursday");
    assert!(
        line_of(&l, &para).ends_with("…\""),
        "the paragraph is one line cut at 80 characters:\n{l}"
    );
    let later = Harness::id_of(&l, "button", "pick another day");
    let cancel = Harness::id_of(&l, "button", "cancel the delivery");
    let lines: Vec<&str> = l.lines().map(|x| x.trim_start_matches('*')).collect();
    let at = |id: &str| lines.iter().position(|x| x.split(' ').next() == Some(id));
    assert_eq!(
        (at(&later), at(&cancel)),
        (at(&para).map(|i| i + 1), at(&para).map(|i| i + 2)),
        "the words follow their paragraph:\n{l}"
    );
    // They are the paragraph's children: its subtree holds them and nothing after it.
    let sub = h.listing(json!({"subtree": para})).await;
    assert_eq!(sub, doc_example("prose"), "docs/observation.md shows it");
    let body: Vec<&str> = sub.lines().skip(1).collect();
    assert_eq!(body.len(), 3, "{sub}");
    assert!(body[1].ends_with("button \"pick another day\""), "{sub}");
    assert!(body[2].ends_with("button \"cancel the delivery\""), "{sub}");
    // Interactive, so only_interactive keeps them.
    let only = h.listing(json!({"only_interactive": true})).await;
    assert!(only.contains("button \"cancel the delivery\""), "{only}");

    // The phrase wraps over two lines (the fixture's layout); the click lands on its first.
    let rects = h.listing(json!({"field_list": ["rect"]})).await;
    let rect: Vec<i64> = line_of(&rects, &cancel)
        .split("rect=[")
        .nth(1)
        .and_then(|r| r.strip_suffix(']'))
        .map(|r| r.split(',').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_default();
    assert!(
        rect.len() == 4 && rect[3] - rect[1] > 30,
        "the phrase spans two lines: {rect:?}"
    );
    click(&h, &cancel, "cancel the delivery").await;
    let l = h.listing(json!({})).await;
    assert!(
        l.contains("text \"You chose: cancel the delivery.\""),
        "{l}"
    );
    assert!(
        l.contains(" untrusted=0 last=click:true:cancel the delivery"),
        "a real click on the word: {l}"
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_word_in_a_tab_panels_text_is_clicked_after_opening_the_tab() {
    let h = Harness::start().await;
    h.open("tab_words.html").await;
    let l = h.listing(json!({})).await;
    assert!(
        !l.contains("\"orders\""),
        "the hidden panel is not listed:\n{l}"
    );
    let returns = Harness::id_of(&l, "tabitem", "Returns");
    click(&h, &returns, "Returns").await;
    let l = h.listing(json!({})).await;
    assert!(
        l.contains(&format!("{returns} tabitem \"Returns\" focused selected")),
        "{l}"
    );
    let panel = text_starting(&l, "Returns are free within thirty days");
    let orders = Harness::id_of(&l, "button", "orders");
    let sub = h.listing(json!({"subtree": panel})).await;
    assert!(
        sub.contains(&format!("{orders} button \"orders\"")),
        "{sub}"
    );
    click(&h, &orders, "orders").await;
    let l = h.listing(json!({})).await;
    assert!(
        l.contains("text \"Your orders: 3 items can go back.\""),
        "{l}"
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn react_style_handler_props_make_their_nodes_clickable_and_the_root_does_not() {
    let h = Harness::start().await;
    h.open("react_like.html").await;
    let l = h.listing(json!({})).await;
    // The root listens to every click type for everything below it: that alone is no button.
    let buttons: Vec<&str> = l.lines().filter(|x| x.contains(" button ")).collect();
    assert_eq!(
        buttons.len(),
        4,
        "three Remove buttons and Add pears only:\n{l}"
    );
    assert!(
        l.contains(" text \"Apples\"") && l.contains(" text \"Basket ready.\""),
        "{l}"
    );
    // onMouseDown counts like onClick.
    let add = Harness::id_of(&l, "button", "Add pears");
    click(&h, &add, "Add pears").await;
    let l = h.listing(json!({})).await;
    assert!(l.contains(" text \"Pears added.\""), "{l}");
    let remove = Harness::id_of(&l, "button", "Remove Bread");
    // The page renders itself anew, but each re-created node takes over its vanished twin's
    // id: only what the click added is new.
    let header = l.lines().next().unwrap_or_default();
    assert!(
        header.ends_with(" new=3"),
        "Pears, its button, the status:\n{l}"
    );
    assert_eq!(Harness::id_of(&l, "button", "Add pears"), add, "{l}");
    let marked: Vec<&str> = l
        .lines()
        .filter_map(|x| x.strip_prefix('*'))
        .filter_map(|x| x.split_once(' ').map(|(_, rest)| rest))
        .collect();
    assert_eq!(
        marked,
        [
            "text \"Pears\"",
            "button \"Remove Pears\"",
            "text \"Pears added.\""
        ],
        "{l}"
    );
    assert!(
        l.contains(&format!("\n{remove} button \"Remove Bread\"")),
        "{l}"
    );
    click(&h, &remove, "Remove Bread").await;
    let l = h.listing(json!({})).await;
    assert!(l.contains(" text \"Bread removed.\""), "{l}");
    assert!(!l.contains("\"Remove Bread\""), "{l}");
    assert!(l.contains(" button \"Remove Pears\""), "{l}");
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pointer_card_is_one_button_and_its_texts_are_not() {
    let h = Harness::start().await;
    h.open("cards.html").await;
    let l = h.listing(json!({})).await;
    let buttons: Vec<&str> = l.lines().filter(|x| x.contains(" button ")).collect();
    assert_eq!(
        buttons.len(),
        4,
        "one button per card and the compare toggle:\n{l}"
    );
    for inner in ["\"grippy\"", "\"€89\"", "\"Trail Runner\"", "\"Compare\""] {
        assert!(
            !l.contains(inner),
            "{inner} inherits the cursor: no line of its own:\n{l}"
        );
    }
    let summit = l
        .lines()
        .find(|x| x.contains(" button \"Summit GTX "))
        .and_then(|x| x.trim_start_matches('*').split(' ').next())
        .unwrap_or_else(|| panic!("no Summit GTX card in:\n{l}"))
        .to_owned();
    let name = "Summit GTX Waterproof leather, stiff ankle support, for rock. €149";
    click(&h, &summit, name).await;
    assert!(
        h.listing(json!({}))
            .await
            .contains("text \"In your basket: Summit GTX.\"")
    );
    // A shadow tree inherits its host's cursor: the host is the one button.
    let compare = Harness::id_of(&l, "button", "Compare boots");
    click(&h, &compare, "Compare boots").await;
    assert!(
        h.listing(json!({}))
            .await
            .contains("text \"Comparing boots.\"")
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn divs_with_onclick_attributes_or_properties_are_buttons() {
    let h = Harness::start().await;
    h.open("onclick.html").await;
    let l = h.listing(json!({})).await;
    let express = Harness::id_of(&l, "button", "Express, next day, €9");
    let pickup = Harness::id_of(&l, "button", "Pick up at the depot");
    Harness::id_of(&l, "button", "Standard, 3–5 days, free");
    assert!(
        l.contains(" text \"Parcels over 20 kg go by freight.\""),
        "a div without a handler stays text:\n{l}"
    );
    click(&h, &express, "Express, next day, €9").await;
    assert!(
        h.listing(json!({}))
            .await
            .contains("text \"Shipping: express.\"")
    );
    click(&h, &pickup, "Pick up at the depot").await;
    assert!(
        h.listing(json!({}))
            .await
            .contains("text \"Shipping: pick-up.\"")
    );
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hooks_are_invisible_and_survive_a_pages_own_wrapper() {
    let h = Harness::start().await;
    h.open("hooks_probe.html").await;
    let l = h.listing(json!({})).await;
    // The page checked, before anything of its own ran: no enumerable global, and every patched
    // function has its native toString, name and length.
    assert!(
        l.contains("text \"enumerable globals: none; native-looking: yyyyyyyyyyyyy\""),
        "{l}"
    );
    // The listener went through the page's own addEventListener wrapper, installed later.
    let here = Harness::id_of(&l, "button", "here");
    click(&h, &here, "here").await;
    assert!(h.listing(json!({})).await.contains("text \"Went on.\""));
    // The hooked fetch still holds settling until its answer.
    let fetch = Harness::id_of(&l, "button", "Fetch data");
    click(&h, &fetch, "Fetch data").await;
    let l = h.listing(json!({})).await;
    assert!(l.contains("text \"Fetched 42 items.\""), "{l}");
    assert!(h.shutdown().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn script_clickable_pages_list_within_budget() {
    let h = Harness::start().await;
    // Each page's whole default listing, and each clickable's line (one short line each).
    let pages: [(&str, usize, &[&str]); 6] = [
        (
            "clickable_prose.html",
            100,
            &["pick another day", "cancel the delivery"],
        ),
        ("tab_words.html", 100, &["Returns"]),
        (
            "react_like.html",
            100,
            &[
                "Remove Apples",
                "Remove Bread",
                "Remove Cheese",
                "Add pears",
            ],
        ),
        (
            "cards.html",
            120,
            &["Trail Runner", "Summit GTX", "Meadow Low"],
        ),
        ("onclick.html", 100, &["Express, next day, €9"]),
        ("hooks_probe.html", 90, &["here"]),
    ];
    for (page, budget, clickables) in pages {
        h.open(page).await;
        let l = h.listing(json!({})).await;
        let total = tokens(&l);
        eprintln!("{page}: {total} tokens (budget {budget})");
        assert!(total <= budget, "{page}: {total} tokens > {budget}:\n{l}");
        for name in clickables {
            let line = l
                .lines()
                .find(|x| x.contains(&format!(" \"{name}")))
                .unwrap_or_else(|| panic!("{page}: no {name} in:\n{l}"));
            let cost = tokens(line);
            // A card's name is its text, cut at 80 characters.
            let limit = if page == "cards.html" { 24 } else { 12 };
            assert!(cost <= limit, "{page}: {line:?} costs {cost} tokens");
        }
    }
    assert!(h.shutdown().await);
}
