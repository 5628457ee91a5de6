//! Dataflow fixtures (seed 004) shared by the pipeline's tests and the CLI's: a workspace folder
//! (a config, templates, tasks) whose documents the managed desktop can open, the words that tell
//! the scripted model which stage asks, and the results a run left.
//!
//! The `notes` app is Mousepad with plain text files — a real app the pipeline reaches only
//! through the device's tools, like the office apps.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::model::Route;

/// The `notes` app for a config's APPS: text files in Mousepad, saved with Ctrl+S.
pub const NOTES_APP: &str = r#"
APPS:
  notes:
    label: Mousepad (plain text files)
    extension: .txt
    open: {tool: launch_app, args: {app: mousepad, args: ['{path}']}}
    save: {tool: keyboard_input, args: {keys: '^s', control_focus: false}}
    close: {tool: close_app, args: {app: mousepad}}
"#;

/// Which stage a question comes from, by the words of its prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// choose_template.
    Template,
    /// prefill.
    Prefill,
    /// instantiation_evaluation.
    Judge,
    /// execute_eval.
    Eval,
}

impl Stage {
    /// Words only this stage's prompt has.
    pub fn marker(self) -> &'static str {
        match self {
            Stage::Template => "You choose the document",
            Stage::Prefill => "You turn a general task",
            Stage::Judge => "You judge whether a request",
            Stage::Eval => "You evaluate whether an agent",
        }
    }
}

/// The reply `answer` to `stage`'s question about `about` (words of the task, or of the request
/// judged).
pub fn rule(stage: Stage, about: &str, answer: &str) -> Route {
    Route::text(&[stage.marker(), about], answer)
}

/// A folder with `config.yaml`, `templates/` and `tasks/`, removed when dropped.
pub struct Workspace {
    dir: tempfile::TempDir,
}

impl Workspace {
    /// A workspace whose config is `yaml` plus the notes app, whose notes templates are
    /// `alpha.txt` (two lines) and `list.txt` (a shopping list), described.
    pub fn notes(yaml: &str) -> std::io::Result<Workspace> {
        let dir = tempfile::Builder::new()
            .prefix("deft-dataflow-ws-")
            .tempdir()?;
        std::fs::write(
            dir.path().join("config.yaml"),
            format!("{yaml}\n{NOTES_APP}"),
        )?;
        let t = dir.path().join("templates/notes");
        std::fs::create_dir_all(&t)?;
        std::fs::write(t.join("alpha.txt"), "alpha line\nbeta line\n")?;
        std::fs::write(t.join("list.txt"), "milk\neggs\n")?;
        std::fs::write(
            t.join("description.json"),
            r#"{"alpha.txt": "Two lines of text, alpha and beta.", "list.txt": "A shopping list."}"#,
        )?;
        std::fs::create_dir_all(dir.path().join("tasks"))?;
        Ok(Workspace { dir })
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Its config file.
    pub fn config_file(&self) -> PathBuf {
        self.path().join("config.yaml")
    }

    /// Writes the task file `tasks/<file>` (a failure to write fails the test).
    pub fn task(&self, file: &str, v: &Value) -> PathBuf {
        let p = self.path().join("tasks").join(file);
        std::fs::write(&p, v.to_string())
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", p.display()));
        p
    }

    /// A notes task per `(word, complete)` — `tasks/<word>.json`, "Add a line, task <word>: …",
    /// with `unique_id` the word — and the model's answers: the `alpha.txt` template, a plan that
    /// types the word as a third line into the text found by "beta", a doable judgement, and an
    /// evaluation whose `complete` is the given one.
    pub fn add_line_tasks(&self, words: &[(&str, &str)]) -> Vec<Route> {
        let mut routes = vec![rule(
            Stage::Template,
            "Add a line",
            r#"{"alpha.txt": "it has lines"}"#,
        )];
        for (word, complete) in words {
            self.task(
                &format!("{word}.json"),
                &serde_json::json!({"app": "notes", "unique_id": word,
                    "task": format!("Add a line, task {word}: append it")}),
            );
            let plan = serde_json::json!({
                "New_task": format!("Add the line '{word}' to the notes."),
                "Actions_plan": [{"Step": 1, "Subtask": "Add the line", "ControlLabel": null,
                    "ControlText": "beta", "Function": "set_edit_text",
                    "Args": {"text": format!("alpha line\\nbeta line\\n{word}\\n")}}]
            });
            let about = format!("task {word}:");
            routes.push(rule(Stage::Prefill, &about, &plan.to_string()));
            routes.push(rule(
                Stage::Judge,
                &format!("'{word}'"),
                r#"{"judge": true, "thought": "ok", "type": "None"}"#,
            ));
            let verdict = format!(
                r#"{{"reason": "looked", "sub_scores": {{"line": "{complete}"}}, "complete": "{complete}"}}"#
            );
            routes.push(rule(Stage::Eval, &about, &verdict));
        }
        routes
    }

    /// Every result of the run type `task_type` (`dataflow`, …) under `results/`:
    /// `bucket/file` → its JSON.
    pub fn results(&self, task_type: &str) -> BTreeMap<String, Value> {
        let mut out = BTreeMap::new();
        let Ok(buckets) = std::fs::read_dir(self.path().join("results").join(task_type)) else {
            return out;
        };
        for bucket in buckets.filter_map(Result::ok) {
            let Ok(files) = std::fs::read_dir(bucket.path()) else {
                continue;
            };
            for file in files.filter_map(Result::ok) {
                let read = std::fs::read(file.path())
                    .ok()
                    .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
                let v =
                    read.unwrap_or_else(|| panic!("{} is not a JSON file", file.path().display()));
                out.insert(
                    format!(
                        "{}/{}",
                        bucket.file_name().to_string_lossy(),
                        file.file_name().to_string_lossy()
                    ),
                    v,
                );
            }
        }
        out
    }
}
