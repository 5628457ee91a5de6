//! Impress's API tools on a real presentation, each result checked against the files saved:
//! slide images' pixels, the .pptx converted to flat XML and to PDF by a LibreOffice of its
//! own; and each tool's specific errors.

#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

mod common;

use common::*;
use deft_test_support::office;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn impress_tools_change_the_slides_and_the_saved_files_agree() {
    let h = Harness::new().await;
    let deck = office::presentation_from_slides(
        &h.docs,
        "deck",
        &["Quarterly – Grüße", "Second slide 日本語"],
        "pptx",
    );
    let w = h.open(&s(&deck)).await;
    assert_eq!(w.app, "libreoffice-impress");

    let text = ok(&h.app(&w, "get_slides_text", json!({})).await);
    let text = text.as_str().unwrap();
    let first = text.find("Quarterly – Grüße").expect(text);
    let second = text.find("Second slide 日本語").expect(text);
    assert!(first < second, "{text}");

    let msg = changed(
        &h.app(&w, "set_background_color", json!({"color": "ff8800"}))
            .await,
    );
    assert_eq!(msg, "Set the background of all 2 slides to #FF8800.");
    let msg = changed(
        &h.app(
            &w,
            "set_background_color",
            json!({"color": "#1e90ff", "slide_index": [2]}),
        )
        .await,
    );
    assert_eq!(msg, "Set the background of slide 2 to #1E90FF.");

    // Every slide as an image, numbered; then only the current one.
    let r = ok(&h.app(&w, "save_as", json!({"file_ext": "png"})).await);
    let (one, two) = (h.doc("deck_1.png"), h.doc("deck_2.png"));
    assert_eq!(r["files"], json!([s(&one), s(&two)]), "{r}");
    assert_eq!(office::png_pixel(&one, 3, 3), "FF8800");
    assert_eq!(office::png_pixel(&two, 3, 3), "1E90FF");
    let r = ok(&h
        .app(
            &w,
            "save_as",
            json!({"file_ext": "png", "file_name": "current", "current_slide_only": true}),
        )
        .await);
    assert_eq!(r["files"], json!([s(&h.doc("current.png"))]), "{r}");
    assert_eq!(office::png_pixel(&h.doc("current.png"), 3, 3), "FF8800");

    // .pptx by default (into the window's own file), read back independently.
    let r = ok(&h.app(&w, "save_as", json!({})).await);
    assert_eq!(r["path"], json!(s(&deck)), "{r}");
    let xml = office::flat_xml(&deck, "fodp").to_lowercase();
    assert!(
        xml.contains("draw:fill-color=\"#ff8800\""),
        "slide 1's fill"
    );
    assert!(
        xml.contains("draw:fill-color=\"#1e90ff\""),
        "slide 2's fill"
    );
    let pdf = office::convert(&deck, "pdf", &h.tmp.path().join("pdf"));
    assert_eq!(office::pdf_pages(&pdf), 2);
    let pdf_text = office::pdf_text(&pdf);
    assert!(pdf_text.contains("Quarterly – Grüße"), "{pdf_text}");
    assert!(pdf_text.contains("Second slide 日本語"), "{pdf_text}");
    // And as PDF by the tool.
    let r = ok(&h.app(&w, "save_as", json!({"file_ext": "pdf"})).await);
    assert_eq!(
        office::pdf_pages(std::path::Path::new(r["path"].as_str().unwrap())),
        2
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn impress_tools_say_what_is_wrong() {
    let h = Harness::new().await;
    let deck = office::presentation_from_slides(&h.docs, "deck", &["One", "Two"], "odp");
    let w = h.open(&s(&deck)).await;
    let e = |tool: &'static str, args: serde_json::Value| {
        let (h, w) = (&h, &w);
        async move { err(&h.app(w, tool, args).await) }
    };
    assert_eq!(
        e(
            "set_background_color",
            json!({"color": "FF0000", "slide_index": [1, 3]})
        )
        .await,
        "The presentation has 2 slides; slide_index must be from 1 to 2, got 3."
    );
    assert_eq!(
        e("set_background_color", json!({"color": "red"})).await,
        "color must be a hex RGB colour such as \"FF0000\" or \"#1E90FF\", got \"red\"."
    );
    assert_eq!(
        e("save_as", json!({"current_slide_only": true})).await,
        "current_slide_only applies to image formats (png, jpg, gif, bmp, svg) only."
    );
    let fmt = e("save_as", json!({"file_ext": "docx"})).await;
    assert!(
        fmt.starts_with("A presentation cannot be saved as .docx; file_ext may be pptx"),
        "{fmt}"
    );
    // No file was written, and nothing was done half-way: slide 1 kept its white background.
    let files: Vec<_> = std::fs::read_dir(&h.docs).unwrap().collect();
    assert_eq!(files.len(), 1, "{files:?}");
    ok(&h
        .app(
            &w,
            "save_as",
            json!({"file_ext": "png", "current_slide_only": true}),
        )
        .await);
    assert_eq!(office::png_pixel(&h.doc("deck.png"), 3, 3), "FFFFFF");
}
