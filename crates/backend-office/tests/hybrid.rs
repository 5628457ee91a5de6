//! GUI and API on one document (seed 000 §4.9): the AppAgent of a LibreOffice window has both
//! tool sets, and only while such a window is selected; a table inserted by API is clicked into
//! and typed in by GUI, the GUI's selection gets its font by API, the file is saved by API — and
//! the GUI's tree, the API and the saved file agree.

#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

mod common;

use common::*;
use deft_test_support::office;
use serde_json::{Value, json};

const WRITER_TOOLS: [&str; 8] = [
    "insert_table",
    "select_text",
    "select_table",
    "select_paragraph",
    "set_font",
    "save_as",
    "save",
    "get_document_text",
];
const CALC_TOOLS: [&str; 5] = [
    "table2markdown",
    "insert_excel_table",
    "select_table_range",
    "get_range_values",
    "reorder_columns",
];
const IMPRESS_TOOLS: [&str; 2] = ["set_background_color", "get_slides_text"];

fn has_all(tools: &[String], names: &[&str]) -> bool {
    names.iter().all(|n| tools.iter().any(|t| t == n))
}

fn has_any(tools: &[String], names: &[&str]) -> bool {
    names.iter().any(|n| tools.iter().any(|t| t == n))
}

#[tokio::test(flavor = "multi_thread")]
async fn office_tools_appear_with_a_libreoffice_window_and_go_with_it() {
    let h = Harness::new().await;
    let host = ok(&h.host("list_tools", json!({})).await);
    let host: Vec<String> = host
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tool_name"].as_str().unwrap().to_owned())
        .collect();
    assert!(host.iter().any(|t| t == "launch_app"), "{host:?}");
    assert!(!has_any(&host, &WRITER_TOOLS), "{host:?}");

    let writer = h.open("libreoffice-writer").await;
    let calc = h.launch("libreoffice-calc").await;
    let impress = h.launch("libreoffice-impress").await;
    let pad = h.launch("mousepad").await;

    let tools = h.tools(&writer).await;
    assert!(has_all(&tools, &WRITER_TOOLS), "{tools:?}");
    assert!(tools.iter().any(|t| t == "click_input"), "GUI tools too");
    assert!(!has_any(&tools, &CALC_TOOLS) && !has_any(&tools, &IMPRESS_TOOLS));

    let calc = h.select(&calc).await;
    let tools = h.tools(&calc).await;
    assert!(has_all(&tools, &CALC_TOOLS), "{tools:?}");
    assert!(has_all(&tools, &["save_as", "save", "keyboard_input"]));
    assert!(!has_any(&tools, &WRITER_TOOLS[..5]) && !has_any(&tools, &IMPRESS_TOOLS));

    let impress = h.select(&impress).await;
    let tools = h.tools(&impress).await;
    assert!(has_all(&tools, &IMPRESS_TOOLS), "{tools:?}");
    assert!(!has_any(&tools, &WRITER_TOOLS[..5]) && !has_any(&tools, &CALC_TOOLS));

    // Another application's window: the GUI tools only.
    let pad = h.select(&pad).await;
    let tools = h.tools(&pad).await;
    assert!(tools.iter().any(|t| t == "click_input"), "{tools:?}");
    for names in [&WRITER_TOOLS[..], &CALC_TOOLS[..], &IMPRESS_TOOLS[..]] {
        assert!(!has_any(&tools, names), "{tools:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn api_and_gui_build_one_document_and_agree_with_its_file() {
    let h = Harness::new().await;
    let doc = office::document_from_html(&h.docs, "hybrid", "<p>Sales by region</p>", "docx");
    let w = h.open(&s(&doc)).await;

    // API: a table. GUI: into its first cell, typing, then selecting what was typed.
    changed(
        &h.app(&w, "insert_table", json!({"rows": 2, "columns": 2}))
            .await,
    );
    let a1 = wait_for(
        &h,
        &w,
        json!({"text": "A1", "type": "cell", "match": "exact"}),
    )
    .await;
    let id = a1["control"]["id"].as_str().unwrap().to_owned();
    changed(
        &h.app(&w, "click_input", json!({"id": id, "name": "A1"}))
            .await,
    );
    let typed = "Grüße 北京";
    ok(&h
        .app(
            &w,
            "keyboard_input",
            json!({"id": id, "name": "A1", "keys": format!("{typed}+{{HOME}}")}),
        )
        .await);

    // API on the GUI's selection.
    let msg = changed(
        &h.app(
            &w,
            "set_font",
            json!({"font_name": "DejaVu Serif", "font_size": 18}),
        )
        .await,
    );
    assert_eq!(
        msg,
        format!(
            "Set the font to DejaVu Serif 18 pt of the selection ({typed:?}, {} characters).",
            typed.chars().count()
        )
    );
    let odt = ok(&h
        .app(
            &w,
            "save_as",
            json!({"file_name": "hybrid-out", "file_ext": "odt"}),
        )
        .await);
    let odt = std::path::PathBuf::from(odt["path"].as_str().unwrap());
    let pdf = ok(&h.app(&w, "save_as", json!({"file_ext": "pdf"})).await);
    let pdf = std::path::PathBuf::from(pdf["path"].as_str().unwrap());

    // The API reads the GUI's typing in the table's first cell.
    let text = ok(&h.app(&w, "get_document_text", json!({})).await);
    let text = text.as_str().unwrap();
    assert!(text.contains(&format!("{typed} | ")), "{text:?}");
    // The GUI shows the cell's text (a paragraph in cell A1), and the font boxes show the
    // API's font.
    let listing = ok(&h.app(&w, "get_app_window_controls_info", json!({})).await);
    let listing = listing.as_str().unwrap();
    let at = listing.find("cell \"A1\"\n").expect(listing);
    assert!(
        listing[at..]
            .lines()
            .nth(1)
            .unwrap()
            .ends_with(&format!("text {typed:?} focused")),
        "{listing}"
    );
    wait_for(
        &h,
        &w,
        json!({"text": "DejaVu Serif", "type": "edit", "match": "exact"}),
    )
    .await;
    wait_for(
        &h,
        &w,
        json!({"text": "18 pt", "type": "edit", "match": "exact"}),
    )
    .await;
    // The files: the text in the table's first cell, in that font and size.
    let xml = office::flat_xml(&odt, "fodt");
    let cell = xml
        .find(&format!(">{typed}<"))
        .unwrap_or_else(|| panic!("no {typed:?} in the saved file"));
    let table = xml.find("<table:table ").expect("a table");
    assert!(table < cell, "the text is inside the table");
    assert!(xml.contains("style:font-name=\"DejaVu Serif\""), "the font");
    assert!(xml.contains("fo:font-size=\"18pt\""), "the size");
    assert!(office::pdf_text(&pdf).contains(typed));
    assert!(
        office::pdf_fonts(&pdf)
            .iter()
            .any(|f| f.contains("DejaVuSerif")),
        "{:?}",
        office::pdf_fonts(&pdf)
    );
}

/// `wait_for_control` with `selector` in `w`: its answer, which must say the control appeared.
async fn wait_for(h: &Harness, w: &Window, selector: Value) -> Value {
    let seen = ok(&h
        .app(w, "wait_for_control", json!({ "selector": selector }))
        .await);
    assert_eq!(seen["appeared"], json!(true), "{seen}");
    seen
}
