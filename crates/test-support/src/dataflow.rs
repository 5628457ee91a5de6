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

    /// A copy of `examples/dataflow/` (its config, templates and tasks; not what a run of it
    /// left), the documents real .docx / .xlsx / .pptx files for LibreOffice.
    pub fn example() -> std::io::Result<Workspace> {
        let dir = tempfile::Builder::new()
            .prefix("deft-dataflow-example-")
            .tempdir()?;
        let from = crate::repo_root().join("examples/dataflow");
        std::fs::copy(from.join("config.yaml"), dir.path().join("config.yaml"))?;
        for sub in ["templates", "tasks"] {
            copy_tree(&from.join(sub), &dir.path().join(sub))?;
        }
        Ok(Workspace { dir })
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Keeps the folder on disk (results, logs, reports) for a person to read; its path.
    pub fn keep(self) -> PathBuf {
        self.dir.keep()
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

/// Copies the folder `from` to `to`, recursively.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        if e.file_type()?.is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()))?;
        } else {
            std::fs::copy(e.path(), to.join(e.file_name()))?;
        }
    }
    Ok(())
}

/// The scripted model's answers for the tasks of `examples/dataflow/` on LibreOffice: for each,
/// the template, a hybrid plan (the office API tools and GUI actions on controls found by their
/// text), a doable judgement and a complete evaluation. What each plan leaves in its document is
/// [`check_example_documents`].
pub fn example_answers() -> Vec<Route> {
    let doable = r#"{"judge": true, "thought": "The app alone can do it.", "type": "None"}"#;
    let complete = r#"{"reason": "The document shows the change.", "sub_scores": {"change made": "yes"}, "complete": "yes"}"#;
    let mut routes = Vec::new();
    for (about, template, request, plan) in example_plans() {
        routes.push(rule(Stage::Template, about, template));
        routes.push(rule(Stage::Prefill, about, &plan));
        routes.push(rule(Stage::Judge, request, doable));
        routes.push(rule(Stage::Eval, about, complete));
    }
    routes
}

/// A prefill answer: the request and its plan.
fn plan(request: &str, steps: Value) -> String {
    serde_json::json!({"Observation": "The document is open.", "Thought": "Do it step by step.",
        "New_task": request, "Actions_plan": steps})
    .to_string()
}

/// One step of a plan.
fn step(n: u32, subtask: &str, control: &str, function: &str, args: Value) -> Value {
    serde_json::json!({"Step": n, "Subtask": subtask, "ControlLabel": "", "ControlText": control,
        "Function": function, "Args": args})
}

/// An example task's words (in its task text), template answer, words of its request, and plan.
type ExamplePlan = (&'static str, &'static str, &'static str, String);

/// The plans of all four example tasks.
fn example_plans() -> Vec<ExamplePlan> {
    let mut plans = writer_plans().to_vec();
    plans.extend(calc_and_impress_plans());
    plans
}

/// The Writer tasks' plans.
fn writer_plans() -> [ExamplePlan; 2] {
    [
        (
            "lines of items into a bulleted list",
            r#"{"shopping.docx": "It has four items on lines of their own."}"#,
            "the four items",
            plan(
                "Turn the four items of the shopping list (Apples, Bread, Cheese, Coffee beans) into a bulleted list.",
                serde_json::json!([
                    step(
                        1,
                        "Select the four item lines",
                        "",
                        "select_paragraph",
                        serde_json::json!({"start_index": 3, "end_index": 6})
                    ),
                    step(
                        2,
                        "Switch bullets on for them",
                        "Apples",
                        "keyboard_input",
                        serde_json::json!({"keys": "+{F12}", "control_focus": false})
                    ),
                ]),
            ),
        ),
        (
            "font of the report title",
            r#"{"report.docx": "It has a title."}"#,
            "title 'Project status report'",
            plan(
                "Set the font of the title 'Project status report' to DejaVu Sans Mono, 20 points, in italics.",
                serde_json::json!([
                    step(
                        1,
                        "Select the title",
                        "Project status report",
                        "select_text",
                        serde_json::json!({"text": "Project status report"})
                    ),
                    step(
                        2,
                        "Set its font and size",
                        "",
                        "set_font",
                        serde_json::json!({"font_name": "DejaVu Sans Mono", "font_size": 20})
                    ),
                    step(
                        3,
                        "Set it in italics",
                        "Italic",
                        "click_input",
                        serde_json::json!({})
                    ),
                ]),
            ),
        ),
    ]
}

/// The Calc and Impress tasks' plans.
fn calc_and_impress_plans() -> [ExamplePlan; 2] {
    [
        (
            "total of each quarter",
            r#"{"sales.xlsx": "Quarterly sales by region, no totals yet."}"#,
            "row 6",
            plan(
                "Add a row 6 to the sales sheet with Total and the sum of each quarter column (Q1, Q2, Q3).",
                serde_json::json!([
                    step(
                        1,
                        "Write the totals row",
                        "",
                        "insert_excel_table",
                        serde_json::json!({"sheet_name": "sales", "start_row": 6, "start_col": 1,
                            "table": [["Total", "=SUM(B2:B5)", "=SUM(C2:C5)", "=SUM(D2:D5)"]]})
                    ),
                    step(
                        2,
                        "Go to the first free cell of the row",
                        "",
                        "select_table_range",
                        serde_json::json!({"sheet_name": "sales", "start_row": 6, "start_col": "E",
                            "end_row": 6, "end_col": "E"})
                    ),
                    step(
                        3,
                        "Mark the row as checked",
                        "",
                        "keyboard_input",
                        serde_json::json!({"keys": "checked{ENTER}", "control_focus": false})
                    ),
                ]),
            ),
        ),
        (
            "light blue background",
            r#"{"review.pptx": "The sales review deck with a title slide."}"#,
            "slide 1",
            plan(
                "Set the background of slide 1 (Quarterly Review) of the sales review to light blue (ADD8E6).",
                serde_json::json!([
                    step(
                        1,
                        "Select the title slide's title",
                        "Quarterly Review",
                        "click_input",
                        serde_json::json!({})
                    ),
                    step(
                        2,
                        "Color its background",
                        "",
                        "set_background_color",
                        serde_json::json!({"color": "ADD8E6", "slide_index": [1]})
                    ),
                ]),
            ),
        ),
    ]
}

/// The totals row the example's Calc plan writes, as a line of [`crate::office::sheet_csv`].
pub const EXAMPLE_TOTALS: &str = "Total,340,385,435,checked";

/// Checks what each of [`example_answers`]' plans left in its saved document in `dir`, read by a
/// LibreOffice of its own (a separate headless instance and profile) and poppler, never by the
/// instance that wrote it: bullets on the four items, the title in DejaVu Sans Mono italics, the
/// totals row, slide 1's light blue background.
pub fn check_example_documents(dir: &Path) {
    let bullets = crate::office::document_text(&dir.join("word_bullets.docx"));
    for item in ["Apples", "Bread", "Cheese", "Coffee beans"] {
        assert!(
            bullets.lines().any(|l| l.trim() == format!("• {item}")),
            "{item} is not a bullet:\n{bullets}"
        );
    }
    assert!(!bullets.contains("• Things to buy"), "{bullets}");

    let out = tempfile::tempdir().expect("a temporary folder");
    let pdf = crate::office::convert(&dir.join("word_font.docx"), "pdf", out.path());
    let fonts = crate::office::pdf_fonts(&pdf);
    assert!(
        fonts
            .iter()
            .any(|f| f.contains("DejaVuSansMono") && f.contains("Oblique")),
        "{fonts:?}"
    );

    let csv = crate::office::sheet_csv(&dir.join("excel_totals.xlsx"));
    assert!(csv.lines().any(|l| l.starts_with(EXAMPLE_TOTALS)), "{csv}");

    let flat = crate::office::convert(&dir.join("powerpoint_background.pptx"), "fodp", out.path());
    let xml = std::fs::read_to_string(flat)
        .expect("the flat presentation")
        .to_lowercase();
    assert!(xml.contains("#add8e6"), "no light blue background");
}
