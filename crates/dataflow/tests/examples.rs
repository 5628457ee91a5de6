//! `examples/dataflow/` as committed: its config loads with no warning, every task file reads
//! and names a known app, and every app's templates folder describes exactly the documents it
//! holds — real .docx / .xlsx / .pptx files (zip containers of the right kind).

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
