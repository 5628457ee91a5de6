//! Writer's API tools on a real document, each result checked against the files saved: read
//! back independently (a LibreOffice of its own converting them to text or flat XML, poppler's
//! pdftotext and pdffonts) and reopened over UNO; and each tool's specific errors.

#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

mod common;

use common::*;
use deft_test_support::office;
use serde_json::json;

const REPORT: &str = "<h1>Quarterly report</h1><p>Revenue grew in Q1.</p><p>Costs fell — Grüße, 日本語.</p>\
    <table border=1><tr><td>x1</td><td>x2</td></tr><tr><td>y1</td><td>y2</td></tr></table><p>The end.</p>";

#[tokio::test(flavor = "multi_thread")]
async fn writer_tools_change_the_document_and_the_saved_files_agree() {
    let h = Harness::new().await;
    let doc = office::document_from_html(&h.docs, "report", REPORT, "docx");
    let w = h.open(&s(&doc)).await;

    reads(&h, &w).await;
    edits(&h, &w).await;
    saves_agree(&h, &w).await;
}

/// get_document_text: paragraphs and the table's rows, non-ASCII intact, budgeted.
async fn reads(h: &Harness, w: &Window) {
    // get_document_text: paragraphs and the table's rows, non-ASCII intact.
    let text = ok(&h.app(w, "get_document_text", json!({})).await);
    let text = text.as_str().unwrap();
    for part in [
        "Quarterly report",
        "Revenue grew in Q1.",
        "Costs fell — Grüße, 日本語.",
        "x1 | x2",
        "y1 | y2",
    ] {
        assert!(text.contains(part), "{part:?} in {text:?}");
    }
    // …budgeted: a slice and a footer saying where to read on.
    let part = ok(&h
        .app(w, "get_document_text", json!({"start": 0, "max_chars": 10}))
        .await);
    let part = part.as_str().unwrap();
    assert!(part.starts_with("Quarterly \n… "), "{part}");
    assert!(
        part.contains("call get_document_text with start=10"),
        "{part}"
    );
}

/// insert_table, select_table, select_text, select_paragraph, set_font: each says what it changed.
async fn edits(h: &Harness, w: &Window) {
    let msg = changed(
        &h.app(w, "insert_table", json!({"rows": 3, "columns": 2}))
            .await,
    );
    assert_eq!(
        msg,
        "Inserted a 3 × 2 table (Table2, table 2 of 2) at the end of the document."
    );
    let msg = changed(&h.app(w, "select_table", json!({"number": 1})).await);
    assert_eq!(msg, "Selected table 1 (Table1, 2 × 2): all its cells.");
    let msg = changed(&h.app(w, "set_font", json!({"font_size": 9})).await);
    assert_eq!(msg, "Set the size to 9 pt of 1 selected table cell range.");

    let msg = changed(
        &h.app(w, "select_text", json!({"text": "revenue GREW"}))
            .await,
    );
    assert_eq!(msg, "Selected \"Revenue grew\".");
    let msg = changed(
        &h.app(
            w,
            "set_font",
            json!({"font_name": "DejaVu Serif", "font_size": 20}),
        )
        .await,
    );
    assert_eq!(
        msg,
        "Set the font to DejaVu Serif 20 pt of the selection (\"Revenue grew\", 12 characters)."
    );
    let msg = changed(
        &h.app(
            w,
            "select_paragraph",
            json!({"start_index": 3, "end_index": 3}),
        )
        .await,
    );
    assert_eq!(
        msg,
        "Selected paragraph 3 of 4: \"Costs fell — Grüße, 日本語.\"."
    );
    // Arial is not installed here: fontconfig's metric-compatible stand-in shows it, the file
    // keeps the name.
    let r = ok(&h.app(w, "set_font", json!({"font_name": "arial"})).await);
    let msg = r["message"].as_str().unwrap();
    assert!(
        msg.starts_with("Set the font to arial of the selection (\"Costs fell — Grüße, 日本語.\", 24 characters). The font is not installed here; LibreOffice shows it as "),
        "{msg}"
    );
}

/// save_as and save write what the tools did, as independent readers and a reopening see it.
async fn saves_agree(h: &Harness, w: &Window) {
    // save_as docx moves the window to the new file; the default (PDF) then takes its name.
    let r = ok(&h
        .app(
            w,
            "save_as",
            json!({"file_name": "q1", "file_ext": ".DOCX"}),
        )
        .await);
    let q1 = h.doc("q1.docx");
    assert_eq!(r["path"], json!(s(&q1)), "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .ends_with("The window now shows this file."),
        "{r}"
    );
    let r = ok(&h.app(w, "save_as", json!({})).await);
    let pdf = h.doc("q1.pdf");
    assert_eq!(r["path"], json!(s(&pdf)), "{r}");
    assert_eq!(r["format"], json!("pdf"));

    // Independently: the .docx's text and styles, the PDF's text and fonts.
    let saved = office::document_text(&q1);
    for part in [
        "Revenue grew in Q1.",
        "Costs fell — Grüße, 日本語.",
        "x1",
        "y2",
    ] {
        assert!(saved.contains(part), "{part:?} in {saved:?}");
    }
    let xml = office::flat_xml(&q1, "fodt");
    assert_eq!(xml.matches("<table:table ").count(), 2, "two tables");
    assert!(
        xml.contains("style:font-name=\"arial\"") || xml.contains("style:font-name=\"Arial\""),
        "the file keeps the font's name"
    );
    assert!(
        xml.contains("fo:font-size=\"20pt\""),
        "the selection's size"
    );
    assert!(xml.contains("fo:font-size=\"9pt\""), "the table's size");
    let pdf_text = office::pdf_text(&pdf);
    assert!(
        pdf_text.contains("Costs fell — Grüße, 日本語."),
        "{pdf_text}"
    );
    let fonts = office::pdf_fonts(&pdf);
    assert!(fonts.iter().any(|f| f.contains("DejaVuSerif")), "{fonts:?}");

    // save in place, then the file reopened over UNO in a window of its own.
    changed(&h.app(w, "save_as", json!({"file_ext": "odt"})).await);
    changed(
        &h.app(w, "insert_table", json!({"rows": 1, "columns": 1}))
            .await,
    );
    let r = ok(&h.app(w, "save", json!({})).await);
    assert_eq!(r["path"], json!(s(&h.doc("q1.odt"))), "{r}");
    let xml = office::flat_xml(&h.doc("q1.odt"), "fodt");
    assert_eq!(xml.matches("<table:table ").count(), 3, "saved in place");
    let again = h.open(&s(&q1)).await;
    assert_ne!(again.id, w.id, "a window of its own");
    let text = ok(&h.app(&again, "get_document_text", json!({})).await);
    assert!(
        text.as_str()
            .unwrap()
            .contains("Costs fell — Grüße, 日本語."),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn writer_tools_say_what_is_wrong() {
    let h = Harness::new().await;
    let doc = office::document_from_html(&h.docs, "report", REPORT, "docx");
    let w = h.open(&s(&doc)).await;
    let e = |tool: &'static str, args: serde_json::Value| {
        let (h, w) = (&h, &w);
        async move { err(&h.app(w, tool, args).await) }
    };
    assert_eq!(
        e("select_text", json!({"text": "Q3"})).await,
        "No text \"Q3\" in the document. Read it with get_document_text to see what it says."
    );
    assert_eq!(
        e("select_table", json!({"number": 5})).await,
        "The document has 1 table; number must be from 1 to 1, got 5."
    );
    assert_eq!(
        e(
            "select_paragraph",
            json!({"start_index": 9, "end_index": 9})
        )
        .await,
        "The document has 4 non-empty paragraphs; start_index must be from 1 to 4, got 9."
    );
    assert_eq!(
        e(
            "select_paragraph",
            json!({"start_index": 2, "end_index": 1})
        )
        .await,
        "end_index must be -1 (to the end) or from start_index 2 to 4 (the document has 4 non-empty paragraphs), got 1."
    );
    assert_eq!(
        e("set_font", json!({})).await,
        "Give font_name, font_size or both."
    );
    assert_eq!(
        e("set_font", json!({"font_size": 0})).await,
        "font_size must be from 1 to 999 points, got 0."
    );
    let font = e("set_font", json!({"font_name": "DejaVu Sanz Qx"})).await;
    assert!(
        font.starts_with(
            "The font \"DejaVu Sanz Qx\" is not installed; installed fonts like it: DejaVu Sans"
        ),
        "{font}"
    );
    assert_eq!(
        e("insert_table", json!({"rows": 1000, "columns": 100})).await,
        "A table of 1000 × 100 = 100000 cells is too large: at most 10000 cells per call. Insert a smaller table, or add rows in several calls."
    );
    assert_eq!(
        e("insert_table", json!({"rows": 0, "columns": 2})).await,
        "rows must be a whole number from 1 to 10000, got 0."
    );
    let outside = tempfile::tempdir().unwrap();
    let out = e("save_as", json!({"file_dir": s(outside.path())})).await;
    assert!(
        out.contains("is outside the folders deft may use for documents"),
        "{out}"
    );
    assert_eq!(
        e("save_as", json!({"file_name": "a/b"})).await,
        "file_name must be a name without folders, got \"a/b\"; put the folder in file_dir."
    );
    let fmt = e("save_as", json!({"file_ext": "xlsx"})).await;
    assert!(
        fmt.starts_with("A text document cannot be saved as .xlsx; file_ext may be pdf, docx"),
        "{fmt}"
    );
    // Calc's tools are not routed to a Writer window.
    let other = e("table2markdown", json!({"sheet_name": 1})).await;
    assert!(
        other.starts_with("Tool table2markdown is not registered in current computer"),
        "{other}"
    );
    // Nothing was written by the refusals.
    let files: Vec<_> = std::fs::read_dir(&h.docs).unwrap().collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(outside.path().read_dir().unwrap().next().is_none());

    new_document_errors(&h).await;
}

/// A new document has no file to save to; closed by GUI, its window is gone for the API too.
async fn new_document_errors(h: &Harness) {
    let new = h.open("libreoffice-writer").await;
    let e = err(&h.app(&new, "save", json!({})).await);
    assert!(e.contains("has never been saved"), "{e}");
    assert!(e.contains("use save_as"), "{e}");

    // Its window closed by GUI (Ctrl+W): the API says so, and never acts on another window.
    ok(&h.app(&new, "get_document_text", json!({})).await);
    ok(&h
        .app(
            &new,
            "keyboard_input",
            json!({"keys": "^w", "control_focus": false}),
        )
        .await);
    let mut closed = false;
    for _ in 0..200 {
        if !h.windows().await.iter().any(|w| w.name == new.name) {
            closed = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(closed, "{:?} is still open", new.name);
    let e = err(&h.app(&new, "get_document_text", json!({})).await);
    assert_eq!(
        e,
        format!(
            "No open LibreOffice document window is titled {:?}: it was closed, or LibreOffice was restarted after a crash. Open the document again with launch_app and select its window.",
            new.name
        )
    );
}
