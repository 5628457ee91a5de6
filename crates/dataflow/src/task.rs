//! Task files (UFO's dataflow tasks, docs/dataflow.md): `{app, unique_id, task, refined_steps}` for the instantiation and
//! dataflow modes — keys read case-insensitively with spaces as `_` — and, for the execution
//! mode, an instantiated result file. The task's name is its file name up to the first dot.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::config::Mode;
use crate::texts;

/// One task as the pipeline runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// The file name up to its first dot: names the saved document, the log folder and (with
    /// the file's own name) the result file.
    pub name: String,
    /// The task file.
    pub file: PathBuf,
    /// Its `unique_id` (a number is kept as its text).
    pub unique_id: String,
    /// Its `app` as written.
    pub app: String,
    /// The task in words.
    pub task: String,
    /// Reference steps (`refined_steps`).
    pub steps: Vec<String>,
    /// Execution mode: the instantiated result file read whole, which the run updates.
    pub prior: Option<Map<String, Value>>,
}

/// A task file that cannot be run, with what could be read of it (its result still records
/// the error under these ids).
#[derive(Debug, Clone, PartialEq)]
pub struct BadTask {
    /// What could be read; empty fields where nothing could.
    pub partial: Box<Task>,
    /// What is wrong.
    pub message: String,
}

/// The task name of `file`: its file name up to the first dot.
pub fn task_name(file: &Path) -> String {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.split('.').next().unwrap_or_default().to_owned()
}

/// The task files under `path`: the file itself, or a folder's `*.json` files (not hidden, not
/// in subfolders) sorted by name, so every run takes them in the same order.
pub fn task_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        std::fs::metadata(path)?;
        return Ok(vec![path.to_owned()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path)? {
        let p = entry?.path();
        let hidden = p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        let json = p
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if p.is_file() && json && !hidden {
            files.push(p);
        }
    }
    files.sort();
    Ok(files)
}

/// Reads the task `file` for `mode`.
pub fn read_task(file: &Path, mode: Mode) -> Result<Task, BadTask> {
    let name = task_name(file);
    let mut partial = Task {
        // Until the file says otherwise, the task is known by its name.
        unique_id: name.clone(),
        name,
        file: file.to_owned(),
        app: String::new(),
        task: String::new(),
        steps: Vec::new(),
        prior: None,
    };
    let fail = |partial: Task, message: String| {
        Err(BadTask {
            partial: Box::new(partial),
            message,
        })
    };
    if partial.name.is_empty() {
        return fail(partial, texts::task_without_name(file));
    }
    let text = match std::fs::read(file) {
        Ok(t) => t,
        Err(e) => return fail(partial, texts::task_unreadable(file, &e)),
    };
    let object = match serde_json::from_slice::<Value>(&text) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return fail(partial, texts::task_not_an_object(file)),
        Err(e) => return fail(partial, texts::task_not_json(file, &e)),
    };
    match mode {
        Mode::Execution => read_instantiated(object, partial),
        _ => read_plain(&object, &mut partial).map_or_else(
            |message| fail(partial.clone(), message),
            |()| Ok(partial.clone()),
        ),
    }
}

/// A task file of the instantiation and dataflow modes.
fn read_plain(object: &Map<String, Value>, task: &mut Task) -> Result<(), String> {
    let keys: Map<String, Value> = object
        .iter()
        .map(|(k, v)| (k.trim().to_lowercase().replace(' ', "_"), v.clone()))
        .collect();
    if let Some(id) = id_text(keys.get("unique_id")) {
        task.unique_id = id;
    }
    task.app = string(keys.get("app")).unwrap_or_default();
    task.task = string(keys.get("task")).unwrap_or_default();
    task.steps = steps(keys.get("refined_steps"))?;
    let mut missing = Vec::new();
    for (key, value) in [("app", &task.app), ("task", &task.task)] {
        if value.trim().is_empty() {
            missing.push(key);
        }
    }
    if !missing.is_empty() {
        return Err(texts::task_missing(&missing));
    }
    Ok(())
}

/// An instantiated result file (execution mode): its ids and original task, and the file whole.
fn read_instantiated(object: Map<String, Value>, mut task: Task) -> Result<Task, BadTask> {
    if let Some(id) = id_text(object.get("unique_id")) {
        task.unique_id = id;
    }
    task.app = string(object.get("app")).unwrap_or_default();
    let original = object.get("original");
    task.task = string(original.and_then(|o| o.get("original_task"))).unwrap_or_default();
    let steps = steps(original.and_then(|o| o.get("original_steps")));
    let plan = object
        .get("instantiation_result")
        .and_then(|v| v.pointer("/prefill/result/instantiated_plan"));
    let problem = match (&steps, plan) {
        (Err(e), _) => Some(e.clone()),
        _ if task.app.is_empty() => Some(texts::task_missing(&["app"])),
        _ if task.task.is_empty() => Some(texts::task_missing(&["original.original_task"])),
        (_, None | Some(Value::Null)) => Some(texts::NOT_INSTANTIATED.to_owned()),
        (_, Some(Value::Array(_))) => None,
        (_, Some(_)) => Some(texts::PLAN_NOT_A_LIST.to_owned()),
    };
    task.steps = steps.unwrap_or_default();
    task.prior = Some(object);
    match problem {
        Some(message) => Err(BadTask {
            partial: Box::new(task),
            message,
        }),
        None => Ok(task),
    }
}

fn string(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_owned)
}

/// `unique_id` as text: a string, or a number's digits.
fn id_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `refined_steps`: a list of strings (absent: none).
fn steps(v: Option<&Value>) -> Result<Vec<String>, String> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| texts::STEPS_NOT_STRINGS.to_owned()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(_) => Err(texts::STEPS_NOT_STRINGS.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        p
    }

    #[test]
    fn keys_are_read_loosely_and_the_name_is_the_file_name_up_to_its_first_dot() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "bullets.v2.json",
            &json!({"App": "Word", "Unique ID": 7, "TASK": "Make a list", "Refined Steps": ["a", "b"]}),
        );
        let t = read_task(&p, Mode::Dataflow).unwrap();
        assert_eq!(t.name, "bullets");
        assert_eq!((t.unique_id.as_str(), t.app.as_str()), ("7", "Word"));
        assert_eq!(t.steps, ["a", "b"]);
    }

    #[test]
    fn a_bad_file_says_what_is_wrong_and_keeps_what_it_could_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("broken.json");
        std::fs::write(&p, "{\"app\": \"word\",").unwrap();
        let e = read_task(&p, Mode::Instantiation).unwrap_err();
        assert!(e.message.contains("not valid JSON"), "{}", e.message);
        assert_eq!(e.partial.name, "broken");
        let p = write(
            dir.path(),
            "half.json",
            &json!({"app": "excel", "unique_id": "9"}),
        );
        let e = read_task(&p, Mode::Instantiation).unwrap_err();
        assert!(e.message.contains("task"), "{}", e.message);
        assert_eq!(
            (e.partial.unique_id.as_str(), e.partial.app.as_str()),
            ("9", "excel")
        );
        let p = write(
            dir.path(),
            "steps.json",
            &json!({"app": "word", "task": "x", "refined_steps": [1]}),
        );
        assert!(
            read_task(&p, Mode::Dataflow)
                .unwrap_err()
                .message
                .contains("refined_steps")
        );
        let p = write(dir.path(), "list.json", &json!([1]));
        assert!(
            read_task(&p, Mode::Dataflow)
                .unwrap_err()
                .message
                .contains("object")
        );
    }

    #[test]
    fn execution_mode_reads_an_instantiated_result() {
        let dir = tempfile::tempdir().unwrap();
        let result = json!({"unique_id": "5", "app": "word",
            "original": {"original_task": "Bullets", "original_steps": ["one"]},
            "instantiation_result": {"prefill": {"result": {"instantiated_request": "r", "instantiated_plan": []}}}});
        let p = write(dir.path(), "b.json", &result);
        let t = read_task(&p, Mode::Execution).unwrap();
        assert_eq!((t.task.as_str(), t.steps.len()), ("Bullets", 1));
        assert_eq!(t.prior.unwrap()["unique_id"], "5");
        let p = write(
            dir.path(),
            "plain.json",
            &json!({"app": "word", "task": "x"}),
        );
        let e = read_task(&p, Mode::Execution).unwrap_err();
        assert!(e.message.contains("original"), "{}", e.message);
        let mut no_plan = result.clone();
        no_plan["instantiation_result"]["prefill"]["result"] = Value::Null;
        let p = write(dir.path(), "np.json", &no_plan);
        let e = read_task(&p, Mode::Execution).unwrap_err();
        assert!(e.message.contains("instantiat"), "{}", e.message);
        assert!(e.partial.prior.is_some());
    }

    #[test]
    fn a_folder_gives_its_json_files_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        for n in ["b.json", "a.json", ".hidden.json", "notes.md"] {
            std::fs::write(dir.path().join(n), "{}").unwrap();
        }
        std::fs::create_dir(dir.path().join("sub.json")).unwrap();
        let names: Vec<String> = task_files(dir.path())
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.json", "b.json"]);
        assert!(task_files(&dir.path().join("missing")).is_err());
    }
}
