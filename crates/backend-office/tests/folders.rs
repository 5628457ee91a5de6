//! The allowed folders checked and used as one: a document swapped for a link to a file outside
//! is not saved through it; while a folder inside flips between a folder and a link to an
//! outside one as fast as a thread can, hundreds of saves (`save_as` exports, `save_as` that
//! moves the document, `save`) write nothing outside, and hundreds of opens never show the
//! outside document. Each race ends with saves and an open on the settled folder, which must
//! land inside. LibreOffice's own saves (Ctrl+S in its window) are held to the same: they reach
//! the document, never a file outside it was swapped for a link to, nor a folder outside while
//! the document's folder flips.

#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use common::*;
use deft_backend_office::{OwnSaves, own_saves};
use deft_test_support::office;
use serde_json::json;

/// A folder outside the documents folder, beside it.
fn outside(h: &Harness) -> PathBuf {
    let dir = h.tmp.path().join("outside");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `docs/sub` flipping, as fast as a thread can, between the real folder and a link to
/// `outside`; [`Flipper::stop`] leaves the real folder in place.
struct Flipper {
    stop: Arc<AtomicBool>,
    flips: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
    sub: PathBuf,
}

impl Flipper {
    fn start(docs: &Path, outside: &Path) -> Flipper {
        let (sub, real, link) = (
            docs.join("sub"),
            docs.join(".sub-real"),
            docs.join(".sub-link"),
        );
        std::os::unix::fs::symlink(outside, &link).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let flips = Arc::new(AtomicU64::new(0));
        let thread = {
            let (stop, flips, sub) = (stop.clone(), flips.clone(), sub.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    // The folder becomes a link to the outside folder…
                    std::fs::rename(&sub, &real).unwrap();
                    std::fs::rename(&link, &sub).unwrap();
                    // …and the folder again.
                    std::fs::rename(&sub, &link).unwrap();
                    std::fs::rename(&real, &sub).unwrap();
                    flips.fetch_add(1, Ordering::Relaxed);
                    // As fast as it can, but not starving the machine's other core users.
                    std::thread::yield_now();
                }
                std::fs::remove_file(&link).unwrap();
            })
        };
        Flipper {
            stop,
            flips,
            thread: Some(thread),
            sub,
        }
    }

    /// Stops flipping; the number of flips made.
    fn stop(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap();
        assert!(self.sub.is_dir() && !self.sub.is_symlink());
        self.flips.load(Ordering::Relaxed)
    }
}

impl Drop for Flipper {
    /// A test that fails mid-race stops the flipping before its folders go.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// What a call caught mid-flip may answer — the folder changed, it was the link (outside), it
/// was not there between two renames — as a word for the tally.
fn mid_flip(e: &str) -> &'static str {
    if e.contains("changed while deft was checking it") {
        "changed"
    } else if e.contains("is outside the folders deft may use") {
        "outside"
    } else if e.starts_with("The folder ") && e.ends_with(" does not exist.") {
        "no folder"
    } else if e.contains(" does not exist. Check the name") {
        "no file"
    } else {
        panic!("not a mid-flip answer: {e}")
    }
}

/// The files in `dir`.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread")]
async fn save_after_the_document_became_a_link_to_a_file_outside_writes_nothing_there() {
    let h = Harness::new().await;
    let out = outside(&h);
    let secret = office::document_from_html(&out, "secret", "<p>Outside.</p>", "docx");
    let before = std::fs::read(&secret).unwrap();
    let doc = office::document_from_html(&h.docs, "s2", "<p>Inside.</p>", "docx");
    let w = h.open(&s(&doc)).await;
    changed(
        &h.app(&w, "insert_table", json!({"rows": 1, "columns": 1}))
            .await,
    );

    std::fs::remove_file(&doc).unwrap();
    std::os::unix::fs::symlink(&secret, &doc).unwrap();
    let e = err(&h.app(&w, "save", json!({})).await);
    assert_eq!(
        e,
        format!(
            "{} is outside the folders deft may use for documents ({}). Use a path inside them.",
            doc.display(),
            h.docs.display()
        )
    );
    assert_eq!(std::fs::read(&secret).unwrap(), before, "the outside file");

    // The link gone, the same save writes the document in place.
    std::fs::remove_file(&doc).unwrap();
    let r = ok(&h.app(&w, "save", json!({})).await);
    assert_eq!(r["path"], json!(s(&doc)));
    assert!(!doc.is_symlink());
    let xml = office::flat_xml(&doc, "fodt");
    assert_eq!(
        xml.matches("<table:table ").count(),
        1,
        "saved with the table"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn saves_into_a_folder_flipping_to_a_link_write_nothing_outside() {
    const TRIES: usize = 210;
    let h = Harness::new().await;
    let out = outside(&h);
    let sub = h.doc("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let doc = office::document_from_html(&sub, "flip", "<p>Flipping.</p>", "docx");
    let w = h.open(&s(&doc)).await;

    let flipper = Flipper::start(&h.docs, &out);
    let (mut saved, mut refused) = (Vec::new(), std::collections::BTreeMap::new());
    let started = std::time::Instant::now();
    for i in 0..TRIES {
        let name = format!("f{i}");
        let r = match i % 3 {
            // An export (the window keeps its file)…
            0 => {
                let args = json!({"file_dir": s(&sub), "file_name": name, "file_ext": "txt"});
                h.app(&w, "save_as", args).await
            }
            // …a Save As (the document moves to the new file)…
            1 => {
                let args = json!({"file_dir": s(&sub), "file_name": name, "file_ext": "odt"});
                h.app(&w, "save_as", args).await
            }
            // …and saving the document where it is.
            _ => h.app(&w, "save", json!({})).await,
        };
        match r.error {
            None => saved.push(ok(&r)["path"].as_str().unwrap().to_owned()),
            Some(e) => *refused.entry(mid_flip(&e)).or_insert(0) += 1,
        }
    }
    let flips = flipper.stop();
    println!(
        "{TRIES} saves over {flips} flips in {:?}: {} saved, refused {refused:?}",
        started.elapsed(),
        saved.len()
    );
    assert!(flips > 0, "the folder flipped");
    assert_eq!(files(&out), Vec::<String>::new(), "nothing written outside");
    for path in &saved {
        assert!(Path::new(path).is_file(), "{path} is inside");
    }

    // Settled: each kind of save lands in the folder.
    let r = ok(&h
        .app(
            &w,
            "save_as",
            json!({"file_dir": s(&sub), "file_name": "calm", "file_ext": "odt"}),
        )
        .await);
    assert_eq!(r["path"], json!(s(&sub.join("calm.odt"))));
    ok(&h.app(&w, "save", json!({})).await);
    let r = ok(&h
        .app(
            &w,
            "save_as",
            json!({"file_dir": s(&sub), "file_name": "calm", "file_ext": "txt"}),
        )
        .await);
    assert_eq!(r["path"], json!(s(&sub.join("calm.txt"))));
    assert!(office::document_text(&sub.join("calm.odt")).contains("Flipping."));
    let txt = std::fs::read_to_string(sub.join("calm.txt")).unwrap();
    assert_eq!(txt.trim_start_matches('\u{feff}').trim(), "Flipping.");
    assert_eq!(files(&out), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread")]
async fn opens_from_a_folder_flipping_to_a_link_never_show_the_outside_document() {
    const TRIES: usize = 200;
    let h = Harness::new().await;
    let out = outside(&h);
    let sub = h.doc("sub");
    std::fs::create_dir_all(&sub).unwrap();
    office::document_from_html(&sub, "same", "<p>INSIDE</p>", "odt");
    office::document_from_html(&out, "same", "<p>OUTSIDE</p>", "odt");
    let path = s(&sub.join("same.odt"));
    let env = h.state.env();
    let helper = h.helper();

    // Opened (by the opener launch_app hands documents to), read over UNO, closed.
    let open_and_read = || async {
        let opened = h.office.open(&path, &[], &env).await?;
        let running = h.office.running().await.unwrap();
        let fields = json!({"pipe": running.pipe, "xid": opened.xid, "args": {}});
        let limit = Duration::from_secs(60);
        let v = helper
            .call("w_text", fields.clone(), limit, running.pid)
            .await
            .unwrap();
        helper
            .call("close", fields, limit, running.pid)
            .await
            .unwrap();
        Ok::<String, String>(v["text"].as_str().unwrap().trim().to_owned())
    };
    assert_eq!(open_and_read().await.unwrap(), "INSIDE");

    let flipper = Flipper::start(&h.docs, &out);
    let (mut opened, mut refused) = (0, std::collections::BTreeMap::new());
    let started = std::time::Instant::now();
    for _ in 0..TRIES {
        match open_and_read().await {
            Ok(text) => {
                assert_eq!(text, "INSIDE", "only the checked document is opened");
                opened += 1;
            }
            Err(e) => *refused.entry(mid_flip(&e)).or_insert(0) += 1,
        }
    }
    let flips = flipper.stop();
    println!(
        "{TRIES} opens over {flips} flips in {:?}: {opened} opened, refused {refused:?}",
        started.elapsed()
    );
    assert!(flips > 0, "the folder flipped");
    assert_eq!(open_and_read().await.unwrap(), "INSIDE");
}

/// How long LibreOffice may take to save after Ctrl+S.
const SAVE_WAIT: Duration = Duration::from_secs(60);

/// Types `keys` into the document of `w` (its window's focus, as the model does).
async fn keys(h: &Harness, w: &Window, keys: &str) {
    ok(&h
        .app(
            w,
            "keyboard_input",
            json!({"keys": keys, "control_focus": false}),
        )
        .await);
}

/// How many of LibreOffice's own saves of `doc` deft has handled (carried or refused).
fn handled(doc: &Path) -> usize {
    let saves = own_saves(doc);
    saves.carried + saves.refused.len()
}

#[tokio::test(flavor = "multi_thread")]
async fn libreoffices_own_save_reaches_the_document_and_never_a_file_it_became_a_link_to() {
    let h = Harness::new().await;
    let out = outside(&h);
    let secret = office::document_from_html(&out, "secret", "<p>Outside.</p>", "docx");
    let before = std::fs::read(&secret).unwrap();
    let doc = office::document_from_html(&h.docs, "own", "<p>Inside.</p>", "docx");
    let w = h.open(&s(&doc)).await;

    // Ctrl+S in LibreOffice's window: the change is in the document.
    let original = std::fs::read(&doc).unwrap();
    keys(&h, &w, "Own ").await;
    keys(&h, &w, "^s").await;
    assert!(
        wait_until(SAVE_WAIT, || std::fs::read(&doc).unwrap() != original),
        "LibreOffice's own save never reached {}",
        doc.display()
    );
    assert_eq!(
        office::document_text(&doc)
            .trim_start_matches('\u{feff}')
            .trim(),
        "Own Inside."
    );
    assert!(!doc.is_symlink());

    // The document swapped for a link to a file outside: LibreOffice's next own save is
    // refused, the outside file untouched.
    let seen = handled(&doc);
    std::fs::remove_file(&doc).unwrap();
    std::os::unix::fs::symlink(&secret, &doc).unwrap();
    keys(&h, &w, "More ").await;
    keys(&h, &w, "^s").await;
    assert!(
        wait_until(SAVE_WAIT, || handled(&doc) > seen
            || std::fs::read(&secret).unwrap() != before),
        "LibreOffice's own save was never handled"
    );
    assert!(
        std::fs::read(&secret).unwrap() == before,
        "LibreOffice's own save wrote the outside file"
    );
    let saves = own_saves(&doc);
    assert_eq!(saves.carried, 1, "{saves:?}");
    assert_eq!(saves.refused.len(), 1, "{saves:?}");
    assert!(
        saves.refused[0].contains("changed while deft was checking it"),
        "{saves:?}"
    );
    assert_eq!(std::fs::read_link(&doc).unwrap(), secret);
}

#[tokio::test(flavor = "multi_thread")]
async fn libreoffices_own_saves_in_a_folder_flipping_to_a_link_write_nothing_outside() {
    const TRIES: usize = 40;
    let h = Harness::new().await;
    let out = outside(&h);
    let sub = h.doc("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let doc = office::document_from_html(&sub, "own", "<p>Flipping.</p>", "docx");
    let w = h.open(&s(&doc)).await;

    let flipper = Flipper::start(&h.docs, &out);
    let started = std::time::Instant::now();
    for i in 0..TRIES {
        let seen = handled(&doc);
        keys(&h, &w, "x").await;
        keys(&h, &w, "^s").await;
        assert!(
            wait_until(SAVE_WAIT, || handled(&doc) > seen
                || !files(&out).is_empty()),
            "LibreOffice's own save {i} was never handled"
        );
        assert_eq!(files(&out), Vec::<String>::new(), "nothing written outside");
    }
    let flips = flipper.stop();
    let saves = own_saves(&doc);
    println!(
        "{TRIES} own saves over {flips} flips in {:?}: {saves:?}",
        started.elapsed()
    );
    assert!(flips > 0, "the folder flipped");
    assert_eq!(files(&out), Vec::<String>::new(), "nothing written outside");
    // The pinned folder is the real one, however it was named meanwhile: every save landed.
    assert_eq!(
        saves,
        OwnSaves {
            carried: TRIES,
            refused: vec![]
        }
    );
    let text = office::document_text(&doc);
    assert_eq!(
        text.trim_start_matches('\u{feff}').trim(),
        format!("{}Flipping.", "x".repeat(TRIES))
    );
}
