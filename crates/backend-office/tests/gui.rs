//! LibreOffice by GUI through the desktop tools: a 20-page document's window lists within the
//! token budget (toolbars, menus and the visible body; closed menus and the rest of the
//! document left out, the status bar counting pages), a toolbar button clicks, typing lands in
//! the document (non-ASCII both ways: typed by GUI, read by API; written by API, read in the
//! listing), and a spreadsheet cell is selected by its id.

#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

mod common;

use common::*;
use deft_test_support::model::find_control;
use deft_test_support::office;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn a_twenty_page_document_lists_within_the_token_budget() {
    let h = Harness::new().await;
    let doc =
        office::document_from_html(&h.docs, "annual", &office::long_report_html(20, 9), "docx");
    let pdf = office::convert(&doc, "pdf", &h.tmp.path().join("pdf"));
    let pages = office::pdf_pages(&pdf);
    assert!(
        pages >= 20,
        "the fixture should have 20 pages or more, it has {pages}"
    );

    let w = h.open(&s(&doc)).await;
    // Writer lays the pages out in the background: the status bar counts them as it goes
    // ("Page 1 of 11" on a loaded machine). Wait until it has counted them all.
    let counted = ok(&h
        .app(
            &w,
            "wait_for_control",
            json!({"selector": {"text": format!("Page 1 of {pages}"), "type": "text", "match": "exact"}, "timeout_s": 60}),
        )
        .await);
    assert_eq!(counted["appeared"], json!(true), "{counted}");
    let listing = ok(&h.app(&w, "get_app_window_controls_info", json!({})).await);
    let listing = listing.as_str().unwrap();
    let n = tokens(listing);
    assert!(n <= 4000, "{n} tokens:\n{listing}");
    // Menus: the menu bar's entries, not the ~700 items of closed menus, nor twice.
    assert_eq!(listing.matches("menuitem \"File\"").count(), 1, "{listing}");
    assert!(!listing.contains("\"Save As...\""), "{listing}");
    // Toolbars in full; the document body as the paragraphs in view, named by their text.
    for (kind, name) in [
        ("button", "Bold"),
        ("button", "Save"),
        ("heading", "Annual Report"),
        ("heading", "Section 1"),
    ] {
        assert!(
            find_control(listing, kind, name).is_some(),
            "no {kind} {name:?}:\n{listing}"
        );
    }
    // The paragraphs in view are listed by their text (non-ASCII words among them).
    let paragraphs: Vec<&str> = listing
        .lines()
        .filter(|l| l.contains(" text \"") && l.chars().count() > 60)
        .collect();
    assert!(paragraphs.len() >= 2, "{listing}");
    assert!(
        paragraphs
            .iter()
            .any(|p| ["Grüße", "naïve", "café", "日本語"]
                .iter()
                .any(|w| p.contains(w))),
        "{listing}"
    );
    // What is not in view is counted: the status bar says how many pages there are.
    assert!(
        listing.lines().any(|l| l.contains(&format!("of {pages}"))),
        "no page count in:\n{listing}"
    );
    assert!(
        !listing.contains("Section 20"),
        "a section far below is not listed"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_toolbar_button_clicks_and_typing_lands_in_the_document_non_ascii_both_ways() {
    let h = Harness::new().await;
    let w = h.open("libreoffice-writer").await;
    let listing = ok(&h.app(&w, "get_app_window_controls_info", json!({})).await);
    let listing = listing.as_str().unwrap().to_owned();
    let bold = find_control(&listing, "button", "Bold").expect("a Bold button");
    let r = h
        .app(&w, "click_input", json!({"id": bold, "name": "Bold"}))
        .await;
    assert_eq!(ok(&r)["effect"], json!("changed"), "{r:?}");
    // The body's (empty) paragraph takes the typing.
    let para = listing
        .lines()
        .find(|l| l.contains(" text \"\"") && l.contains("focused"))
        .and_then(|l| l.trim_start_matches('*').split(' ').next())
        .unwrap_or_else(|| panic!("no focused empty paragraph:\n{listing}"))
        .to_owned();
    let typed = "Grüße, 日本語 ✓ — naïve";
    let r = h
        .app(
            &w,
            "keyboard_input",
            json!({"id": para, "name": "", "keys": typed}),
        )
        .await;
    ok(&r);
    // GUI typed, API reads.
    let text = ok(&h.app(&w, "get_document_text", json!({})).await);
    assert_eq!(text.as_str().unwrap().trim(), typed);
    // The listing shows it too, and Bold is on.
    let after = ok(&h.app(&w, "get_app_window_controls_info", json!({})).await);
    let after = after.as_str().unwrap();
    assert!(after.contains(&format!("text \"{typed}\"")), "{after}");
    assert!(
        after
            .lines()
            .any(|l| l.contains("button \"Bold\"") && l.ends_with(" checked")),
        "{after}"
    );
    // API writes (a table's cells are filled by GUI here: the API inserts, the GUI types).
    changed(
        &h.app(&w, "insert_table", json!({"rows": 1, "columns": 2}))
            .await,
    );
    let seen = ok(&h
        .app(
            &w,
            "wait_for_control",
            json!({"selector": {"text": "B1", "type": "cell", "match": "exact"}}),
        )
        .await);
    assert_eq!(seen["appeared"], json!(true), "{seen}");
    let listing = ok(&h.app(&w, "get_app_window_controls_info", json!({})).await);
    let listing = listing.as_str().unwrap();
    assert!(find_control(listing, "cell", "A1").is_some(), "{listing}");
    assert!(find_control(listing, "cell", "B1").is_some(), "{listing}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_spreadsheet_cell_is_selected_by_its_id_and_api_text_shows_in_the_listing() {
    let h = Harness::new().await;
    let xlsx = office::sheet_from_csv(&h.docs, "prices", "Item,Price\nÄpfel,3\nBirnen,5\n", "xlsx");
    let w = h.open(&s(&xlsx)).await;
    assert_eq!(w.app, "libreoffice-calc");
    let listing = ok(&h.app(&w, "get_app_window_controls_info", json!({})).await);
    let listing = listing.as_str().unwrap().to_owned();
    assert!(listing.contains("cell \"A2\" = \"Äpfel\""), "{listing}");
    assert!(listing.contains("= \"in view A1:"), "{listing}");
    let b3 = find_control(&listing, "cell", "B3").unwrap_or_else(|| panic!("{listing}"));
    ok(&h
        .app(&w, "click_input", json!({"id": b3, "name": "B3"}))
        .await);
    let after = ok(&h.app(&w, "get_app_window_controls_info", json!({})).await);
    let after = after.as_str().unwrap();
    // The Name Box says where the cell cursor is.
    assert!(
        after.lines().any(|l| l.contains("edit \"\" = \"B3\"")),
        "{after}"
    );
    // API writes non-ASCII; the GUI shows it once LibreOffice tells its accessibility tree
    // (about 0.3 s later: wait_for_control waits for that event, as a model would).
    changed(
        &h.app(
            &w,
            "insert_excel_table",
            json!({"table": [["Kirschen – 日本", 7]], "sheet_name": 1, "start_row": 4, "start_col": "A"}),
        )
        .await,
    );
    let seen = ok(&h
        .app(
            &w,
            "wait_for_control",
            json!({"selector": {"text": "Kirschen – 日本", "type": "cell", "match": "exact"}}),
        )
        .await);
    assert_eq!(seen["appeared"], json!(true), "{seen}");
    let after = ok(&h.app(&w, "get_app_window_controls_info", json!({})).await);
    let after = after.as_str().unwrap();
    assert!(
        after.contains("cell \"A4\" = \"Kirschen – 日本\""),
        "{after}"
    );
    assert!(after.contains("cell \"B4\" = \"7\""), "{after}");
}
