//! docs/observation.md and `deft_protocol::observation` cannot drift apart: every worked example in
//! the doc is exactly what the renderer prints for the inputs built here, and every token count the
//! doc states is what cl100k (tiktoken-rs) counts. Plus the renderer's rules one by one.

use deft_protocol::found::{render_found_compact, render_found_json};
use deft_protocol::observation::{
    Control, ControlType as T, ListingFormat, ListingOptions, StateFlag::*, WindowSummary,
    WindowType, render, render_compact, render_json, render_window_list,
};
use deft_protocol::selector::{MatchOptions, Selector, find};
use serde_json::{Value, json};

const DOC: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../docs/observation.md"
));

type Example = (WindowSummary, Vec<Control>, ListingOptions);

// ---------------------------------------------------------------------------------------------
// The inputs of the doc's examples.

fn dialog() -> Example {
    let w = WindowSummary::new("4", "Save Changes", WindowType::Dialog, "mousepad");
    let c = vec![
        Control::new(
            "17",
            T::Text,
            "Do you want to save the changes before closing?",
        ),
        Control::new(
            "18",
            T::Text,
            "If you don't save, changes will be permanently lost.",
        ),
        Control::new("19", T::Button, "Don't Save"),
        Control::new("20", T::Button, "Cancel"),
        Control::new("21", T::Button, "Save").with_states([Focused]),
    ];
    (w, c, ListingOptions::default())
}

fn editor() -> Example {
    let w = WindowSummary::new("2", "*notes.txt - Mousepad", WindowType::Window, "mousepad");
    let mut c = vec![Control::new("3", T::Menuitem, "File").with_states([Expanded])];
    for (id, name) in [
        ("41", "New"),
        ("42", "New Window"),
        ("43", "Open..."),
        ("44", "Save"),
        ("45", "Save As..."),
    ] {
        c.push(Control::new(id, T::Menuitem, name).new_since_last());
    }
    c.push(
        Control::new("46", T::Menuitem, "Revert")
            .new_since_last()
            .with_states([Disabled]),
    );
    c.push(Control::new("47", T::Menuitem, "Close Window").new_since_last());
    for (id, name) in [
        ("4", "Edit"),
        ("5", "Search"),
        ("6", "View"),
        ("7", "Document"),
        ("8", "Help"),
    ] {
        c.push(Control::new(id, T::Menuitem, name));
    }
    c.push(Control::new("9", T::Edit, "").with_value(
        "Shopping list:\n- 2 × croissant\n- café au lait (oat)\n- Brötchen\n\n\
         Call Jürgen about the \"big\" order",
    ));
    c.push(Control::new("10", T::Scrollbar, "").with_value("0"));
    c.push(Control::new("11", T::Text, "Plain Text"));
    c.push(Control::new("12", T::Text, "Line: 6  Column: 34"));
    (w, c, ListingOptions::default())
}

fn web_form_controls() -> (WindowSummary, Vec<Control>) {
    let w = WindowSummary::new("1", "Orders – Acme admin", WindowType::Page, "127.0.0.1");
    let mut c = vec![
        Control::new("5", T::Heading, "New order").with_rect([24, 16, 400, 48]),
        Control::new("6", T::Edit, "Customer")
            .with_value("")
            .with_states([Required])
            .with_rect([24, 72, 324, 100]),
        Control::new("7", T::Edit, "Email")
            .with_value("jo@example")
            .with_states([Required, Invalid])
            .with_rect([24, 124, 324, 152]),
        Control::new("8", T::Combobox, "Shipping")
            .with_value("Standard (3–5 days)")
            .with_states([Collapsed])
            .with_rect([24, 176, 244, 204]),
        Control::new("9", T::Checkbox, "Gift wrap").with_rect([24, 220, 40, 236]),
        Control::new("10", T::Radio, "Pay by card")
            .with_states([Checked])
            .with_rect([24, 252, 40, 268]),
        Control::new("11", T::Radio, "Pay by invoice").with_rect([160, 252, 176, 268]),
        Control::new("12", T::Button, "Place order").with_rect([24, 292, 132, 324]),
        Control::new("13", T::Heading, "Recent orders").with_rect([24, 356, 400, 388]),
        Control::new("14", T::Table, "Recent orders").with_rect([24, 396, 760, 596]),
    ];
    let mut id = 15;
    for h in ["Select", "Order", "Customer", "Total", "Actions"] {
        c.push(Control::new(id.to_string(), T::Columnheader, h));
        id += 1;
    }
    let rows = [
        ("1041", "Jürgen Müller", "€42.50"),
        ("1042", "Ana Sousa", "€7.00"),
        ("1043", "李娜", "€118.20"),
        ("1044", "O'Brien & Sons", "€3,260.00"),
    ];
    for (top, (order, customer, total)) in (436..).step_by(40).zip(rows) {
        c.push(
            Control::new(id.to_string(), T::Checkbox, format!("Select order {order}")).with_rect([
                32,
                top + 12,
                48,
                top + 28,
            ]),
        );
        c.push(
            Control::new((id + 1).to_string(), T::Link, format!("#{order}")).with_rect([
                96,
                top + 10,
                140,
                top + 30,
            ]),
        );
        c.push(Control::new((id + 2).to_string(), T::Text, customer).as_row_text());
        c.push(Control::new((id + 3).to_string(), T::Text, total).as_row_text());
        c.push(
            Control::new((id + 4).to_string(), T::Button, format!("Edit {order}")).with_rect([
                680,
                top + 6,
                744,
                top + 34,
            ]),
        );
        id += 5;
    }
    c.push(Control::new(id.to_string(), T::Link, "Next page").with_rect([24, 612, 96, 632]));
    (w, c)
}

fn web_form() -> Example {
    let (w, c) = web_form_controls();
    (w, c, ListingOptions::default())
}

fn web_form_narrow() -> Example {
    let (w, c) = web_form_controls();
    let o = ListingOptions {
        only_interactive: true,
        field_list: vec!["rect".into()],
        max_controls: 6,
        ..Default::default()
    };
    (w, c, o)
}

fn web_form_json() -> Example {
    let (w, c) = web_form_controls();
    let o = ListingOptions {
        only_interactive: true,
        field_list: vec!["rect".into()],
        max_controls: 2,
        format: ListingFormat::Json,
        ..Default::default()
    };
    (w, c, o)
}

/// The browser issue's table page, generated: 200 rows × (checkbox, link, row text, button).
fn table200() -> Example {
    let w = WindowSummary::new("2", "Inventory", WindowType::Page, "127.0.0.1");
    let mut c = vec![
        Control::new("30", T::Heading, "Inventory"),
        Control::new("31", T::Table, "Items"),
    ];
    let mut id = 32;
    let mut next = || {
        id += 1;
        (id - 1).to_string()
    };
    for h in ["Select", "Item", "Description", "Actions"] {
        c.push(Control::new(next(), T::Columnheader, h));
    }
    for n in 1..=200 {
        c.push(Control::new(next(), T::Checkbox, format!("Select row {n}")));
        c.push(Control::new(next(), T::Link, format!("Item {n}")));
        c.push(Control::new(next(), T::Text, format!("Widget number {n}, blue")).as_row_text());
        c.push(Control::new(next(), T::Button, format!("Edit {n}")));
    }
    (w, c, ListingOptions::default())
}

fn compact_examples() -> Vec<(&'static str, Example)> {
    vec![
        ("dialog", dialog()),
        ("editor", editor()),
        ("web_form", web_form()),
        ("web_form_narrow", web_form_narrow()),
        ("table200", table200()),
    ]
}

// ---------------------------------------------------------------------------------------------
// Reading the doc.

/// The fenced block that follows `<!-- {kind}: {name} -->`, each line ending in `\n`.
fn doc_block(kind: &str, name: &str) -> String {
    let marker = format!("<!-- {kind}: {name} -->");
    let mut lines = DOC.lines().skip_while(|l| l.trim() != marker);
    assert!(
        lines.next().is_some(),
        "docs/observation.md has no `{marker}`"
    );
    let fence = lines.next().unwrap_or_default();
    assert!(
        fence.starts_with("```"),
        "`{marker}` must be followed by a fenced block, found {fence:?}"
    );
    let mut out = String::new();
    for line in lines.by_ref() {
        if line == "```" {
            return out;
        }
        out.push_str(line);
        out.push('\n');
    }
    panic!("the block after `{marker}` is not closed");
}

/// Rows of the doc's token table: (example, tokens, interactive, tokens per interactive).
fn doc_token_rows() -> Vec<(String, usize, usize, String)> {
    let mut in_table = false;
    let mut rows = Vec::new();
    for line in DOC.lines() {
        if line.starts_with("| example | tokens (cl100k)") {
            in_table = true;
            continue;
        }
        if !in_table || line.starts_with("|---") {
            continue;
        }
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(cells.len(), 4, "token table row {line:?}");
        rows.push((
            cells[0].to_owned(),
            cells[1].parse().expect("token count"),
            cells[2].parse().expect("interactive count"),
            cells[3].to_owned(),
        ));
    }
    rows
}

fn tokens(text: &str) -> usize {
    let bpe = tiktoken_rs::cl100k_base().expect("cl100k tables ship with tiktoken-rs");
    bpe.encode_ordinary(text).len()
}

fn listed_interactive(controls: &[Control], listing: &str) -> usize {
    let ids: Vec<&str> = listing
        .lines()
        .skip(1)
        .filter_map(|l| l.trim_start_matches('*').split(' ').next())
        .collect();
    controls
        .iter()
        .filter(|c| c.interactive && ids.contains(&c.id.as_str()))
        .count()
}

// ---------------------------------------------------------------------------------------------
// (a) The examples are what the renderer prints.

#[test]
fn doc_examples_are_exactly_what_render_compact_prints() {
    for (name, (w, c, o)) in compact_examples() {
        if name == "table200" {
            continue;
        }
        assert_eq!(
            render_compact(&w, &c, &o),
            doc_block("example", name),
            "example {name}"
        );
    }
}

#[test]
fn doc_found_json_example_is_what_render_found_json_returns() {
    let (_, (w, c, d, sel, limit)) = found_examples()
        .into_iter()
        .find(|e| e.0 == "found_within")
        .expect("the within example");
    let found = find(&c, &d, &sel, &MatchOptions::default()).expect("a good selector");
    let doc: Value = serde_json::from_str(&doc_block("found-json", "found_within"))
        .expect("the JSON example parses");
    assert_eq!(render_found_json(&w, &sel, &found, limit), doc);
}

#[test]
fn doc_change_example_is_what_render_listing_prints() {
    let w = WindowSummary::new("3", "Shop", WindowType::Page, "localhost");
    let before = vec![
        Control::new("10", T::Edit, "Search").with_value(""),
        Control::new("11", T::Button, "Go"),
        Control::new("30", T::Button, "Close"),
        Control::new("31", T::Text, "Welcome"),
    ];
    let after = vec![
        Control::new("10", T::Edit, "Search")
            .with_value("ap")
            .with_states([Focused]),
        Control::new("11", T::Button, "Go").with_rect([0, 0, 40, 20]),
        Control::new("45", T::Menuitem, "Apples").new_since_last(),
        Control::new("46", T::Menuitem, "Pears").new_since_last(),
        Control::new("31", T::Text, "Welcome"),
    ];
    let opts = ListingOptions {
        changes: true,
        ..Default::default()
    };
    assert_eq!(
        deft_protocol::changes::render_listing(&w, Some(&before), &after, &opts),
        doc_block("example-changes", "shop")
    );
}

#[test]
fn doc_json_example_is_what_render_json_returns() {
    let (w, c, o) = web_form_json();
    let doc: Value = serde_json::from_str(&doc_block("example-json", "web_form_json"))
        .expect("the JSON example parses");
    assert_eq!(render_json(&w, &c, &o), doc);
    // `render` with format json sends the same object as JSON text.
    let sent: Value = serde_json::from_str(&render(&w, &c, &o)).expect("render gives JSON text");
    assert_eq!(sent, doc);
}

#[test]
fn doc_table200_excerpt_is_part_of_the_listing() {
    let (w, c, o) = table200();
    let listing = render_compact(&w, &c, &o);
    let excerpt = doc_block("excerpt", "table200");
    let excerpt: Vec<&str> = excerpt.lines().collect();
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(
        excerpt.first(),
        lines.first(),
        "the excerpt starts with the header"
    );
    assert_eq!(
        excerpt.last(),
        lines.last(),
        "the excerpt ends with the footer"
    );
    for line in &excerpt {
        assert!(
            lines.contains(line),
            "{line:?} is not in the table200 listing"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// (b) The token counts in the doc are what cl100k counts.

#[test]
fn doc_token_counts_are_what_cl100k_counts() {
    let rows = doc_token_rows();
    let examples = compact_examples();
    assert_eq!(
        rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        examples.iter().map(|e| e.0).collect::<Vec<_>>(),
        "the token table names every example once, in order"
    );
    for ((name, doc_tokens, doc_interactive, doc_per), (_, (w, c, o))) in rows.iter().zip(&examples)
    {
        let listing = render_compact(w, c, o);
        let n = tokens(&listing);
        let i = listed_interactive(c, &listing);
        assert_eq!(*doc_tokens, n, "{name}: tokens");
        assert_eq!(*doc_interactive, i, "{name}: interactive controls listed");
        assert_eq!(
            *doc_per,
            format!("{:.1}", n as f64 / i as f64),
            "{name}: tokens per interactive"
        );
    }
}

#[test]
fn table_page_meets_the_browser_budget() {
    let (w, c, o) = table200();
    let listing = render_compact(&w, &c, &o);
    let interactive = c.iter().filter(|c| c.interactive).count();
    assert_eq!(interactive, 600);
    assert_eq!(
        listed_interactive(&c, &listing),
        600,
        "the default listing shows every control"
    );
    let per = tokens(&listing) as f64 / interactive as f64;
    assert!(per <= 12.0, "{per:.2} tokens per interactive control");
}

#[test]
fn json_costs_three_to_four_times_the_compact_form() {
    for (name, (w, c, o)) in compact_examples() {
        if o != ListingOptions::default() {
            continue;
        }
        let compact = tokens(&render_compact(&w, &c, &o)) as f64;
        let json = tokens(&render_json(&w, &c, &o).to_string()) as f64;
        let ratio = json / compact;
        assert!(
            (2.5..=4.5).contains(&ratio),
            "{name}: JSON/compact = {ratio:.2}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// (c) The "Finding controls" examples are what the matcher finds and `found` prints.

/// A `find_controls` example: the window, its controls with their nesting depths, the
/// selector and the limit.
type FoundExample = (WindowSummary, Vec<Control>, Vec<u32>, Selector, usize);

/// The web form's depths: the table's headers and rows are nested in it.
fn web_form_depths(c: &[Control]) -> Vec<u32> {
    let table = c.iter().position(|c| c.id == "14").expect("the table");
    let next = c.len() - 1;
    (0..c.len())
        .map(|i| u32::from(i > table && i < next))
        .collect()
}

fn found_examples() -> Vec<(&'static str, FoundExample)> {
    let sel = |v: Value| -> Selector { serde_json::from_value(v).expect("a selector") };
    let (dw, dc, _) = dialog();
    let dd = vec![0; dc.len()];
    let (fw, fc) = web_form_controls();
    let fd = web_form_depths(&fc);
    vec![
        (
            "found_contains",
            (
                dw.clone(),
                dc.clone(),
                dd.clone(),
                sel(json!({"text": "save", "type": "button"})),
                10,
            ),
        ),
        (
            "found_exact",
            (
                dw,
                dc,
                dd,
                sel(json!({"text": "Save", "match": "exact"})),
                10,
            ),
        ),
        (
            "found_within",
            (
                fw.clone(),
                fc.clone(),
                fd.clone(),
                sel(json!({"type": "checkbox", "index": 1, "within": {"type": "table"}})),
                2,
            ),
        ),
        (
            "found_fuzzy",
            (
                fw.clone(),
                fc.clone(),
                fd.clone(),
                sel(json!({"text": "pay by cart", "match": "fuzzy"})),
                10,
            ),
        ),
        (
            "found_value",
            (
                fw.clone(),
                fc.clone(),
                fd.clone(),
                sel(json!({"text": "^jo@", "match": "regex"})),
                10,
            ),
        ),
        (
            "found_none",
            (
                fw,
                fc,
                fd,
                sel(json!({"text": "Delete", "type": "button"})),
                10,
            ),
        ),
    ]
}

#[test]
fn doc_found_examples_are_what_find_controls_answers() {
    for (name, (w, c, d, sel, limit)) in found_examples() {
        let found = find(&c, &d, &sel, &MatchOptions::default()).expect("a good selector");
        assert_eq!(
            render_found_compact(&w, &sel, &found, limit),
            doc_block("found", name),
            "example {name}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The rules one by one.

fn win() -> WindowSummary {
    WindowSummary::new("1", "Main", WindowType::Window, "form_app.py")
}

fn lines(listing: &str) -> Vec<&str> {
    listing.lines().collect()
}

#[test]
fn header_names_the_window_and_counts_everything() {
    let c = vec![
        Control::new("2", T::Text, "Hello"),
        Control::new("3", T::Button, "OK").new_since_last(),
        Control::new("4", T::Text, "row").as_row_text(),
    ];
    let out = render_compact(&win(), &c, &ListingOptions::default());
    assert_eq!(
        lines(&out)[0],
        r#"window 1 "Main" app="form_app.py" controls=3 interactive=1 new=1"#
    );
}

#[test]
fn strings_use_json_escapes() {
    let c = Control::new("7", T::Edit, "Say \"hi\" \\ there\u{7}")
        .with_value("line 1\nline 2\ttab \u{1b}[0m café 苏州");
    let out = render_compact(&win(), &[c], &ListingOptions::default());
    assert_eq!(
        lines(&out)[1],
        r#"7 edit "Say \"hi\" \\ there\u0007" = "line 1\nline 2\ttab \u001b[0m café 苏州""#
    );
}

#[test]
fn names_collapse_whitespace_and_values_keep_it() {
    let c =
        Control::new("7", T::Button, "\n  Save\t\tas…\u{a0}PDF  ").with_value("  two  spaces\n");
    let out = render_compact(&win(), &[c], &ListingOptions::default());
    assert_eq!(
        lines(&out)[1],
        r#"7 button "Save as… PDF" = "  two  spaces\n""#
    );
}

#[test]
fn names_values_titles_and_fields_truncate_at_80_chars() {
    let long = "x".repeat(79) + "yz";
    let cut = "x".repeat(79) + "…";
    let w = WindowSummary::new("1", long.clone(), WindowType::Page, "example.org");
    let c = Control::new("5", T::Link, long.clone())
        .with_value(long.clone())
        .with_extra("url", long.clone());
    let o = ListingOptions {
        field_list: vec!["url".into()],
        ..Default::default()
    };
    let out = render_compact(&w, std::slice::from_ref(&c), &o);
    let q = format!("\"{cut}\"");
    assert_eq!(
        lines(&out)[0],
        format!("page 1 {q} app=\"example.org\" controls=1 interactive=1 new=0")
    );
    assert_eq!(lines(&out)[1], format!("5 link {q} = {q} url={q}"));
    // Exactly 80 characters is not truncated.
    let eighty = "é".repeat(80);
    let c80 = Control::new("6", T::Text, eighty.clone());
    assert_eq!(
        lines(&render_compact(&win(), &[c80], &o))[1],
        format!("6 text \"{eighty}\"")
    );
    // The JSON form carries the same strings.
    let j = render_json(&w, &[c], &o);
    assert_eq!(j["window"]["name"], json!(cut));
    assert_eq!(j["controls"][0]["name"], json!(cut));
    assert_eq!(j["controls"][0]["value"], json!(cut));
    assert_eq!(j["controls"][0]["url"], json!(cut));
}

#[test]
fn new_marker_only_on_new_controls() {
    let c = vec![
        Control::new("3", T::Button, "Old"),
        Control::new("9", T::Button, "Fresh").new_since_last(),
    ];
    let out = render_compact(&win(), &c, &ListingOptions::default());
    assert_eq!(
        &lines(&out)[1..],
        [r#"3 button "Old""#, r#"*9 button "Fresh""#]
    );
    let j = render_json(&win(), &c, &ListingOptions::default());
    assert_eq!(j["controls"][0]["new"], json!(false));
    assert_eq!(j["controls"][1]["new"], json!(true));
    assert_eq!(j["counts"]["new"], json!(1));
}

#[test]
fn empty_name_prints_as_empty_string_and_states_in_canonical_order() {
    let c = Control::new("4", T::Checkbox, "")
        .with_states([Offscreen, Invalid, Checked, Focused, Disabled]);
    let out = render_compact(&win(), &[c], &ListingOptions::default());
    assert_eq!(
        lines(&out)[1],
        r#"4 checkbox "" disabled focused checked invalid offscreen"#
    );
}

#[test]
fn only_interactive_drops_the_rest_and_says_so() {
    let c = vec![
        Control::new("2", T::Heading, "Title"),
        Control::new("3", T::Button, "OK"),
        Control::new("4", T::Text, "Note"),
    ];
    let o = ListingOptions {
        only_interactive: true,
        ..Default::default()
    };
    let out = render_compact(&win(), &c, &o);
    assert_eq!(
        &lines(&out)[1..],
        [
            r#"3 button "OK""#,
            "… 2 non-interactive controls not listed (only_interactive=true).",
        ]
    );
    let one = render_compact(&win(), &c[..2], &o);
    assert_eq!(
        lines(&one).last().copied(),
        Some("… 1 non-interactive control not listed (only_interactive=true).")
    );
}

#[test]
fn max_controls_footer_says_how_many_and_how_to_see_them() {
    let c: Vec<Control> = (1..=5)
        .map(|i| {
            Control::new(
                (i + 10).to_string(),
                if i % 2 == 0 { T::Text } else { T::Button },
                format!("c{i}"),
            )
        })
        .collect();
    let o = ListingOptions {
        max_controls: 2,
        ..Default::default()
    };
    let out = render_compact(&win(), &c, &o);
    assert_eq!(
        &lines(&out)[1..],
        [
            r#"11 button "c1""#,
            r#"12 text "c2""#,
            "… 3 more controls (2 interactive) not listed: max_controls=2 reached after id 12. \
             Ask again with max_controls=5 or only_interactive=true.",
        ]
    );
    // Already only_interactive: no advice to set it; one control left: singular.
    let o = ListingOptions {
        max_controls: 2,
        only_interactive: true,
        ..Default::default()
    };
    let out = render_compact(&win(), &c, &o);
    assert_eq!(
        lines(&out).last().copied(),
        Some(
            "… 1 more control (1 interactive) not listed: max_controls=2 reached after id 13. \
             Ask again with max_controls=3."
        )
    );
    // max_controls=0: only the header and the counts.
    let o = ListingOptions {
        max_controls: 0,
        ..Default::default()
    };
    let out = render_compact(&win(), &c, &o);
    assert_eq!(lines(&out).len(), 2);
    assert!(
        lines(&out)[1].contains("reached before the first control"),
        "{out}"
    );
    // Nothing left out: no footer.
    let out = render_compact(&win(), &c, &ListingOptions::default());
    assert_eq!(lines(&out).len(), 6);
}

#[test]
fn row_text_is_folded_unless_field_list_asks_for_text() {
    let c = vec![
        Control::new("2", T::Checkbox, "Select row 1"),
        Control::new("3", T::Cell, "Widget").as_row_text(),
        Control::new("4", T::Button, "Edit 1").with_extra("text", "Edit"),
        // An interactive control is never folded, whatever a backend says.
        Control {
            row_text: true,
            ..Control::new("5", T::Link, "Item 1")
        },
    ];
    let out = render_compact(&win(), &c, &ListingOptions::default());
    assert_eq!(
        &lines(&out)[1..],
        [
            r#"2 checkbox "Select row 1""#,
            r#"4 button "Edit 1""#,
            r#"5 link "Item 1""#,
            r#"… 1 row text not listed; add "text" to field_list to list them."#,
        ]
    );
    let o = ListingOptions {
        field_list: vec!["text".into()],
        ..Default::default()
    };
    let out = render_compact(&win(), &c, &o);
    assert_eq!(
        &lines(&out)[1..],
        [
            r#"2 checkbox "Select row 1""#,
            r#"3 cell "Widget""#,
            r#"4 button "Edit 1" text="Edit""#,
            r#"5 link "Item 1""#,
        ]
    );
}

#[test]
fn rect_only_when_field_list_asks() {
    let c = vec![
        Control::new("2", T::Button, "OK").with_rect([10, 20, 110, 44]),
        Control::new("3", T::Button, "Plain"),
    ];
    let out = render_compact(&win(), &c, &ListingOptions::default());
    assert!(!out.contains("rect"), "{out}");
    let j = render_json(&win(), &c, &ListingOptions::default());
    assert!(j["controls"][0].get("rect").is_none());

    for field in ["rect", "control_rect", " RECT "] {
        let o = ListingOptions {
            field_list: vec![field.into()],
            ..Default::default()
        };
        let out = render_compact(&win(), &c, &o);
        assert_eq!(
            &lines(&out)[1..],
            [
                r#"2 button "OK" rect=[10,20,110,44]"#,
                r#"3 button "Plain""#
            ],
            "field_list [{field:?}]"
        );
        let j = render_json(&win(), &c, &o);
        assert_eq!(j["controls"][0]["rect"], json!([10, 20, 110, 44]));
        assert_eq!(j["controls"][1]["rect"], Value::Null);
    }
}

#[test]
fn extra_fields_print_in_field_list_order_only_when_asked() {
    let c = Control::new("8", T::Link, "Docs")
        .with_extra("url", "/docs?a=1&b=\"2\"")
        .with_extra("level", 2)
        .with_extra("role", "link")
        .with_rect([0, 0, 5, 5]);
    let out = render_compact(&win(), std::slice::from_ref(&c), &ListingOptions::default());
    assert_eq!(lines(&out)[1], r#"8 link "Docs""#);
    let o = ListingOptions {
        field_list: vec![
            "level".into(),
            "url".into(),
            "rect".into(),
            "nope".into(),
            "url".into(),
        ],
        ..Default::default()
    };
    let out = render_compact(&win(), std::slice::from_ref(&c), &o);
    assert_eq!(
        lines(&out)[1],
        r#"8 link "Docs" level=2 url="/docs?a=1&b=\"2\"" rect=[0,0,5,5]"#
    );
    let j = render_json(&win(), &[c], &o);
    assert_eq!(j["controls"][0]["level"], json!(2));
    assert!(j["controls"][0].get("role").is_none());
    assert!(j["controls"][0].get("nope").is_none());
}

#[test]
fn json_form_has_the_documented_fields() {
    let c = vec![
        Control::new("2", T::Edit, "Name")
            .with_value("Zoë")
            .with_states([Focused])
            .new_since_last(),
        Control::new("3", T::Text, "Hint"),
        Control::new("4", T::Text, "Detail").as_row_text(),
    ];
    let o = ListingOptions {
        max_controls: 1,
        ..Default::default()
    };
    let j = render_json(&win(), &c, &o);
    assert_eq!(
        j,
        json!({
            "window": {"id": "1", "name": "Main", "type": "window", "app": "form_app.py"},
            "counts": {"controls": 3, "interactive": 1, "new": 1, "listed": 1},
            "controls": [{"id": "2", "type": "edit", "name": "Name", "value": "Zoë",
                          "states": ["focused"], "new": true, "interactive": true}],
            "omitted": [
                {"reason": "row_text", "count": 1, "interactive": 0,
                 "note": "1 row text not listed; add \"text\" to field_list to list them."},
                {"reason": "max_controls", "count": 1, "interactive": 0,
                 "note": "1 more control (0 interactive) not listed: max_controls=1 reached after id 2. \
                          Ask again with max_controls=2 or only_interactive=true."}
            ]
        })
    );
    let j = render_json(&win(), &c[1..2], &ListingOptions::default());
    assert_eq!(j["controls"][0]["value"], Value::Null);
    assert_eq!(j["controls"][0]["states"], json!([]));
    assert_eq!(j["omitted"], json!([]));
}

#[test]
fn footers_and_json_omitted_agree() {
    let (w, c, o) = web_form_narrow();
    let compact = render_compact(&w, &c, &o);
    let footers: Vec<String> = compact
        .lines()
        .filter_map(|l| l.strip_prefix("… "))
        .map(str::to_owned)
        .collect();
    let j = render_json(&w, &c, &o);
    let notes: Vec<String> = j["omitted"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["note"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(footers, notes);
    assert_eq!(footers.len(), 2);
}

#[test]
fn listing_options_parse_leniently_from_tool_arguments() {
    let o: ListingOptions = serde_json::from_value(json!({})).expect("empty");
    assert_eq!(o, ListingOptions::default());
    assert_eq!(o.max_controls, 1000);
    let o: ListingOptions = serde_json::from_value(json!({
        "field_list": null, "only_interactive": null, "max_controls": null, "format": null
    }))
    .expect("nulls");
    assert_eq!(o, ListingOptions::default());
    let o: ListingOptions = serde_json::from_value(json!({
        "field_list": "rect, url", "only_interactive": true, "max_controls": 50, "format": "JSON"
    }))
    .expect("string field_list");
    assert_eq!(o.fields(), ["rect", "url"]);
    assert!(o.only_interactive);
    assert_eq!(o.max_controls, 50);
    assert_eq!(o.format, ListingFormat::Json);
    let o: ListingOptions = serde_json::from_value(json!({
        "field_list": ["control_text", "control_type", "control_rect", "source", "control_class"]
    }))
    .expect("UFO field names");
    assert_eq!(o.fields(), ["rect", "class"]);
    let err = serde_json::from_value::<ListingOptions>(json!({"format": "yaml"})).unwrap_err();
    assert!(err.to_string().contains("expected \"compact\""), "{err}");
}

#[test]
fn render_follows_the_format_option() {
    let (w, c, o) = dialog();
    assert_eq!(render(&w, &c, &o), render_compact(&w, &c, &o));
    let o = ListingOptions {
        format: ListingFormat::Json,
        ..o
    };
    let v: Value = serde_json::from_str(&render(&w, &c, &o)).expect("JSON text");
    assert_eq!(v, render_json(&w, &c, &o));
}

#[test]
fn window_list_is_id_name_type_app() {
    let windows = [
        WindowSummary::new(
            "1",
            "  Untitled\n- Mousepad ",
            WindowType::Window,
            "mousepad",
        ),
        WindowSummary::new("3", "Orders", WindowType::Page, "127.0.0.1"),
    ];
    assert_eq!(
        render_window_list(&windows),
        json!([
            {"id": "1", "name": "Untitled - Mousepad", "type": "window", "app": "mousepad"},
            {"id": "3", "name": "Orders", "type": "page", "app": "127.0.0.1"}
        ])
    );
    let back: WindowSummary =
        serde_json::from_value(json!({"id": "3", "name": null, "type": "dialog", "app": "x"}))
            .expect("lenient window");
    assert_eq!(back, WindowSummary::new("3", "", WindowType::Dialog, "x"));
}

#[test]
fn control_serde_round_trips_and_is_lenient() {
    let c = Control::new("12", T::Checkbox, "Agree")
        .with_states([Checked, Focused])
        .with_rect([1, 2, 3, 4])
        .new_since_last()
        .with_extra("role", "check box");
    let v = serde_json::to_value(&c).expect("serialize");
    assert_eq!(v["type"], json!("checkbox"));
    assert_eq!(v["states"], json!(["focused", "checked"]));
    assert_eq!(v["new"], json!(true));
    let back: Control = serde_json::from_value(v).expect("deserialize");
    assert_eq!(back, c);
    let odd: Control = serde_json::from_value(json!({
        "id": "5", "type": "hologram", "name": null, "states": ["checked", "sparkly"], "extra": null
    }))
    .expect("lenient control");
    assert_eq!(odd.kind, T::Other);
    assert_eq!(odd.name, "");
    assert_eq!(odd.states.iter().copied().collect::<Vec<_>>(), [Checked]);
    assert!(!odd.interactive);
}
