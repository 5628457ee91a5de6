//! `examples/dataflow/` as committed: its config loads with no warning, every task file reads
//! and names a known app, and every app's templates folder describes exactly the documents it
//! holds — real .docx / .xlsx / .pptx files (zip containers of the right kind) holding what
//! `make_templates.sh` makes of `sources/` (read back by a separate headless LibreOffice).

use std::path::PathBuf;

use deft_dataflow::{Config, Mode};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/dataflow")
}

#[test]
fn the_example_config_and_tasks_read_cleanly() {
    let (config, warnings) = Config::load(&example().join("config.yaml")).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(config.tasks_hub, example().join("tasks"));
    let files = deft_dataflow::task::task_files(&config.tasks_hub).unwrap();
    assert!(files.len() >= 3, "{files:?}");
    let mut apps = std::collections::BTreeSet::new();
    for f in files {
        let t = deft_dataflow::task::read_task(&f, Mode::Dataflow).unwrap();
        let (app, _) = config.app(&t.app).unwrap();
        apps.insert(app.to_owned());
        assert!(!t.steps.is_empty(), "{}", f.display());
    }
    assert_eq!(
        apps.into_iter().collect::<Vec<_>>(),
        ["excel", "powerpoint", "word"]
    );
}

#[test]
fn each_templates_folder_describes_the_real_documents_it_holds() {
    let config = Config::load(&example().join("config.yaml")).unwrap().0;
    for (app, kind) in [("word", "word/"), ("excel", "xl/"), ("powerpoint", "ppt/")] {
        let dir = config.template_path.join(app);
        let spec = config.app(app).unwrap().1;
        let described: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(&std::fs::read(dir.join("description.json")).unwrap()).unwrap();
        let mut held: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(&spec.extension))
            .collect();
        held.sort();
        let mut names: Vec<String> = described.keys().cloned().collect();
        names.sort();
        assert_eq!(names, held, "{app}");
        for name in held {
            let bytes = std::fs::read(dir.join(&name)).unwrap();
            assert!(
                bytes.starts_with(b"PK\x03\x04"),
                "{app}/{name} is not a zip container"
            );
            let inside = String::from_utf8_lossy(&bytes);
            assert!(inside.contains(kind), "{app}/{name} has no {kind} part");
        }
    }
}

/// The texts of `markup` between `open` (a tag name; attributes allowed) and its closing tag.
fn texts_in(markup: &str, tag: &str) -> Vec<String> {
    markup
        .split(&format!("<{tag}"))
        .skip(1)
        .filter_map(|rest| {
            let body = rest.split_once('>')?.1;
            Some(body.split_once(&format!("</{tag}>"))?.0.trim().to_owned())
        })
        .filter(|t| !t.is_empty() && !t.contains('<'))
        .collect()
}

#[test]
fn the_committed_templates_hold_what_make_templates_makes_of_their_sources() {
    use deft_test_support::office;
    office::require_office();
    let sources = example().join("sources");
    let templates = example().join("templates");
    for page in ["report", "shopping"] {
        let html = std::fs::read_to_string(sources.join(format!("word/{page}.html"))).unwrap();
        let text = office::document_text(&templates.join(format!("word/{page}.docx")));
        let lines: Vec<&str> = text.lines().map(|l| l.trim_matches('\u{feff}')).collect();
        let mut want = texts_in(&html, "h1");
        want.extend(texts_in(&html, "p"));
        for t in want {
            assert!(
                lines.contains(&t.as_str()),
                "{page}: {t:?} not in {lines:?}"
            );
        }
    }
    for sheet in ["budget", "sales"] {
        let csv = std::fs::read_to_string(sources.join(format!("excel/{sheet}.csv"))).unwrap();
        let made = office::sheet_csv(&templates.join(format!("excel/{sheet}.xlsx")));
        assert_eq!(made.replace('"', "").trim(), csv.trim(), "{sheet}");
    }
    let out = tempfile::tempdir().unwrap();
    for deck in ["kickoff", "review"] {
        let fodp =
            std::fs::read_to_string(sources.join(format!("powerpoint/{deck}.fodp"))).unwrap();
        let pdf = office::convert(
            &templates.join(format!("powerpoint/{deck}.pptx")),
            "pdf",
            out.path(),
        );
        let text = office::pdf_text(&pdf);
        for t in texts_in(&fodp, "text:p") {
            assert!(text.contains(&t), "{deck}: {t:?} not in {text}");
        }
    }
}
