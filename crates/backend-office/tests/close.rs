//! `close_document`: the selected window's document closes without a dialog — a changed one
//! drops its changes (the file on disk, read independently, is as it was), a saved one keeps
//! them — LibreOffice keeps running for the next document, and a call on the closed window says
//! it is gone. Pipelines (the dataflow) open and close a document per task this way instead of
//! ending LibreOffice each time.

mod common;

use common::*;
use deft_test_support::office;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn a_document_closes_without_saving_and_libreoffice_stays_for_the_next() {
    let h = Harness::new().await;
    let doc = office::document_from_html(&h.docs, "note", "<p>kept as it was</p>", "docx");

    // Changed by GUI, closed: the change is dropped, the window gone, LibreOffice still there.
    let w = h.open(&s(&doc)).await;
    let pid = h.office_pid().await;
    assert!(h.tools(&w).await.contains(&"close_document".to_owned()));
    changed(
        &h.app(
            &w,
            "keyboard_input",
            json!({"keys": "dropped ", "control_focus": false}),
        )
        .await,
    );
    let r = h.app(&w, "close_document", json!({})).await;
    let v = ok(&r);
    assert_eq!(v["discarded"], json!(true), "{v}");
    assert!(v["message"].as_str().unwrap().contains("note.docx"), "{v}");
    assert!(h.windows().await.is_empty(), "{:?}", h.windows().await);
    assert_eq!(text_of(&doc), "kept as it was");
    // deft does not end LibreOffice on close. LibreOffice itself may still abort while closing
    // under load (its accessibility code, watched by the desktop's AT-SPI): then the supervisor
    // has recorded the crash and started it again — the pid may change only that way.
    let now = h.office_pid().await;
    let crash = h.office.last_crash().await;
    assert!(
        now == pid || crash.is_some(),
        "LibreOffice was ended without a crash: pid {pid} → {now}"
    );
    if let Some(crash) = &crash {
        eprintln!("LibreOffice stopped by itself on close ({crash}); deft started it again");
    }
    let pid = now;

    // The closed window's server says so, and names what to do.
    let e = err(&h.app(&w, "get_document_text", json!({})).await);
    assert!(e.contains("launch_app"), "{e}");

    // Reopened in the same LibreOffice, changed, saved, closed: the change stays.
    let w = h.open(&s(&doc)).await;
    assert_eq!(h.office_pid().await, pid);
    changed(
        &h.app(
            &w,
            "keyboard_input",
            json!({"keys": "Saved ", "control_focus": false}),
        )
        .await,
    );
    ok(&h.app(&w, "save", json!({})).await);
    let v = ok(&h.app(&w, "close_document", json!({})).await);
    assert_eq!(v["discarded"], json!(false), "{v}");
    assert!(h.windows().await.is_empty());
    assert_eq!(text_of(&doc), "Saved kept as it was");
}

/// LibreOffice 7.x/24.x aborts in Impress's slide sorter when a presentation is closed while
/// the previews of an API change are still being redrawn and its accessibility tree is watched
/// (the case of every pipeline: change, save, close at once). `close_document` lets LibreOffice
/// finish its pending work first; the next document then opens in the same process.
#[tokio::test(flavor = "multi_thread")]
async fn a_presentation_changed_and_closed_at_once_leaves_libreoffice_running() {
    let h = Harness::new().await;
    let slides = ["Title slide", "Second slide", "Third slide"];
    let mut pid = None;
    for round in 0..4 {
        let deck =
            office::presentation_from_slides(&h.docs, &format!("deck{round}"), &slides, "pptx");
        let w = h.open(&s(&deck)).await;
        let now = h.office_pid().await;
        assert_eq!(
            *pid.get_or_insert(now),
            now,
            "LibreOffice restarted before round {round}"
        );
        ok(&h.app(&w, "get_app_window_controls_info", json!({})).await);
        changed(
            &h.app(&w, "set_background_color", json!({"color": "#ADD8E6"}))
                .await,
        );
        ok(&h.app(&w, "save", json!({})).await);
        ok(&h.app(&w, "close_document", json!({})).await);
    }
    // The last close, too: one more document opens in the same LibreOffice.
    let doc = office::document_from_html(&h.docs, "after", "<p>after</p>", "odt");
    h.open(&s(&doc)).await;
    assert_eq!(
        Some(h.office_pid().await),
        pid,
        "LibreOffice restarted after the last close"
    );
}

/// The document's text read independently, without the byte-order mark LibreOffice's UTF-8
/// export starts with.
fn text_of(doc: &std::path::Path) -> String {
    office::document_text(doc)
        .trim_start_matches('\u{feff}')
        .trim()
        .to_owned()
}
