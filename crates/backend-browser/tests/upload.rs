//! File inputs through the tools: a click reports the (intercepted) file chooser and names the
//! control to fill, set_edit_text puts files in, and only existing files inside the upload roots
//! (downloads, system temp, upload_dirs) are accepted.

mod common;

use std::path::{Path, PathBuf};

use common::Harness;
use deft_backend_browser::texts;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_reports_the_file_chooser_and_set_edit_text_fills_the_input() {
    let h = Harness::start().await;
    h.open("upload.html").await;
    let l = h.listing(json!({})).await;
    let attachment = Harness::id_of(&l, "button", "Attachment");
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.txt");
    std::fs::write(&report, "quarterly report\n").expect("write");

    // The click answers at once: no native dialog hangs, the result says what to do.
    let r = h
        .ok(
            "click_input",
            json!({"id": attachment, "name": "Attachment"}),
        )
        .await;
    let n: u64 = attachment.parse().expect("id");
    assert_eq!(r["file_chooser"]["control"], attachment.as_str(), "{r}");
    assert_eq!(
        r["file_chooser"]["note"],
        format!(
            "A file chooser opened for control {n} (\"Attachment\"); no dialog is shown. Set the file with set_edit_text(id=\"{n}\", text=\"<absolute path>\"), one path per line for several files."
        )
    );
    assert_eq!(r["effect"], "changed", "{r}");
    assert!(
        h.page_text().await.contains("last=click:true:"),
        "a trusted click"
    );

    let r = h
        .ok(
            "set_edit_text",
            json!({"id": attachment, "name": "Attachment", "text": report.to_string_lossy()}),
        )
        .await;
    assert_eq!(r["effect"], "changed", "{r}");
    assert!(
        h.page_text().await.contains("chosen report.txt (17 bytes)"),
        "{}",
        h.page_text().await
    );

    // A button that opens a hidden input's chooser: the result names the hidden input.
    let pick = Harness::id_of(&l, "button", "Choose photos");
    let r = h
        .ok("click_input", json!({"id": pick, "name": "Choose photos"}))
        .await;
    let photos = r["file_chooser"]["control"]
        .as_str()
        .unwrap_or_else(|| panic!("no file chooser in {r}"))
        .to_owned();
    assert_ne!(photos, pick, "the chooser belongs to the hidden input");
    let a = dir.path().join("a.png");
    let b = dir.path().join("b.png");
    std::fs::write(&a, [1u8; 10]).expect("write");
    std::fs::write(&b, [2u8; 300]).expect("write");
    h.ok(
        "set_edit_text",
        json!({"id": photos, "text": format!("{}\n{}", a.display(), b.display())}),
    )
    .await;
    assert!(
        h.page_text()
            .await
            .contains("photos 2: a.png (10 bytes), b.png (300 bytes)"),
        "{}",
        h.page_text().await
    );

    // Disabled file input.
    let locked = Harness::id_of(&l, "button", "Locked file");
    let e = h
        .fails(
            "set_edit_text",
            json!({"id": locked, "text": report.to_string_lossy()}),
        )
        .await;
    let ln: u64 = locked.parse().expect("id");
    assert_eq!(e, texts::control_disabled(ln, "Locked file"));
    assert!(h.shutdown().await);
}

/// A fresh folder outside every default upload root, wherever the clone and the target folder
/// are: the system temp folder holds the downloads folder of a started browser too, so the first
/// of the target's temp folder, the home folder and /var/tmp that is not inside it.
fn folder_outside_the_upload_roots() -> tempfile::TempDir {
    let temp = std::env::temp_dir()
        .canonicalize()
        .expect("the system temp folder");
    let candidates = [
        Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR"))),
        std::env::var_os("HOME").map(PathBuf::from),
        Some(PathBuf::from("/var/tmp")),
    ];
    for dir in candidates.into_iter().flatten() {
        let Ok(real) = dir.canonicalize() else {
            continue;
        };
        if real.starts_with(&temp) {
            continue;
        }
        if let Ok(outside) = tempfile::tempdir_in(&real) {
            return outside;
        }
    }
    panic!(
        "no writable folder outside the system temp folder {} for this test",
        temp.display()
    );
}

/// Whether `path` (canonical) lies in the system temp folder.
fn in_temp(path: &Path) -> bool {
    path.starts_with(
        std::env::temp_dir()
            .canonicalize()
            .expect("the system temp folder"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_paths_must_be_absolute_existing_files_inside_the_upload_roots() {
    let outside = folder_outside_the_upload_roots();
    assert!(
        !in_temp(&outside.path().canonicalize().expect("canonical")),
        "{} must be outside the default upload roots",
        outside.path().display()
    );
    let kept = outside.path().join("kept.txt");
    std::fs::write(&kept, "kept").expect("write");
    let kept_text = kept.to_string_lossy().into_owned();

    let h = Harness::start().await;
    h.open("upload.html").await;
    let l = h.listing(json!({})).await;
    let attachment = Harness::id_of(&l, "button", "Attachment");
    let set = |text: String| json!({"id": attachment, "name": "Attachment", "text": text});
    assert_eq!(
        h.fails("set_edit_text", set("kept.txt".into())).await,
        texts::upload_not_absolute("kept.txt")
    );
    let missing = std::env::temp_dir().join("deft-no-such-file.txt");
    let missing = missing.to_string_lossy().into_owned();
    assert_eq!(
        h.fails("set_edit_text", set(missing.clone())).await,
        texts::upload_missing(&missing)
    );
    let folder = std::env::temp_dir().to_string_lossy().into_owned();
    assert_eq!(
        h.fails("set_edit_text", set(folder.clone())).await,
        texts::upload_not_a_file(&folder)
    );
    let refused = h.fails("set_edit_text", set("/etc/passwd".into())).await;
    assert!(
        refused.starts_with("'/etc/passwd' cannot be put into a file input: only files inside ")
            && refused.contains(
                &std::env::temp_dir()
                    .canonicalize()
                    .expect("tmp")
                    .display()
                    .to_string()
            ),
        "{refused}"
    );
    let refused = h.fails("set_edit_text", set(kept_text.clone())).await;
    assert!(
        refused.contains("cannot be put into a file input"),
        "{refused}"
    );
    assert!(
        h.page_text().await.contains("no attachment"),
        "nothing was set"
    );
    assert!(h.shutdown().await);

    // A configured folder counts.
    let h = Harness::with_options(json!({"upload_dirs": [outside.path()]})).await;
    h.open("upload.html").await;
    let l = h.listing(json!({})).await;
    let attachment = Harness::id_of(&l, "button", "Attachment");
    h.ok(
        "set_edit_text",
        json!({"id": attachment, "text": kept_text}),
    )
    .await;
    assert!(h.page_text().await.contains("chosen kept.txt (4 bytes)"));
    assert!(h.shutdown().await);
}
