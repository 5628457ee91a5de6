//! `REFORMAT_TO_BATCH`: every result in the mode's pass folder — the folder results are really
//! saved in — whose instantiation was judged doable becomes a task of UFO's batch mode,
//! `<hub>/tasks/<name>.json` = `{task, object, close}`, with its document copied to
//! `<hub>/files/` under its real extension (UFO read a folder nothing was saved in and named every
//! copy `.docx`). The document is the one the task starts from: the template copy as chosen
//! (`choose_template.template`), or the saved document when no template is recorded.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::config::{Config, Mode};
use crate::folders::{Bucket, write_atomic};
use crate::task::task_name;
use crate::texts;

/// What a reformat wrote and left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reformatted {
    /// The batch task files written.
    pub tasks: Vec<PathBuf>,
    /// Results left out, with why.
    pub skipped: Vec<(String, String)>,
}

/// Reformats `mode`'s passed results into `config.reformat_hub`.
pub fn reformat(config: &Config, mode: Mode) -> std::io::Result<Reformatted> {
    let pass = config.result_dir(mode).join(Bucket::pass_of(mode).as_str());
    let mut out = Reformatted::default();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&pass) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json") && p.is_file())
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    files.sort();
    for file in files {
        let name = task_name(&file);
        match batch_task(config, &file, &name) {
            Ok(written) => out.tasks.push(written),
            Err(why) => out.skipped.push((name, why)),
        }
    }
    Ok(out)
}

/// Writes one batch task and copies its document; the error says why the result was left out.
fn batch_task(config: &Config, result_file: &Path, name: &str) -> Result<PathBuf, String> {
    let text = std::fs::read(result_file).map_err(|e| e.to_string())?;
    let result: Value =
        serde_json::from_slice(&text).map_err(|e| texts::reformat_unreadable(&e.to_string()))?;
    let inst = &result["instantiation_result"];
    if inst["instantiation_evaluation"]["result"]["judge"] != Value::Bool(true) {
        return Err(texts::REFORMAT_NOT_JUDGED.to_owned());
    }
    let request = inst["prefill"]["result"]["instantiated_request"]
        .as_str()
        .ok_or(texts::REFORMAT_NO_REQUEST)?;
    let chosen = &inst["choose_template"];
    let document = [&chosen["template"], &chosen["result"]]
        .into_iter()
        .filter_map(|v| v.as_str())
        .map(|p| config.resolve(p))
        .find(|p| p.is_file())
        .ok_or_else(|| texts::reformat_no_document(chosen["result"].as_str().unwrap_or("")))?;
    let ext = document
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let object = format!("{name}{ext}");
    let files = config.reformat_hub.join("files");
    std::fs::create_dir_all(&files).map_err(|e| e.to_string())?;
    std::fs::copy(&document, files.join(&object)).map_err(|e| e.to_string())?;
    let task = json!({"task": request, "object": object, "close": "True"});
    let path = config
        .reformat_hub
        .join("tasks")
        .join(format!("{name}.json"));
    let mut bytes = serde_json::to_vec_pretty(&task).map_err(|e| e.to_string())?;
    bytes.push(b'\n');
    write_atomic(&path, &bytes).map_err(|e| e.to_string())?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(judge: Value, document: &Path, template: Option<&Path>) -> Value {
        json!({"instantiation_result": {
            "choose_template": {"result": document, "error": null, "template": template},
            "prefill": {"result": {"instantiated_request": "Make the title bold.", "instantiated_plan": []}},
            "instantiation_evaluation": {"result": {"judge": judge, "thought": "", "request_type": "None"}}}})
    }

    #[test]
    fn passed_and_judged_results_become_batch_tasks_with_their_real_extension() {
        let dir = tempfile::tempdir().unwrap();
        let c = Config::defaults(dir.path());
        let pass = c.result_dir(Mode::Dataflow).join("execution_pass");
        std::fs::create_dir_all(&pass).unwrap();
        let saved = c.saved_document_dir();
        std::fs::create_dir_all(&saved).unwrap();
        std::fs::write(saved.join("sheet.xlsx"), b"executed").unwrap();
        std::fs::write(saved.join("deck.pptx"), b"executed").unwrap();
        let template = dir.path().join("templates/excel/sales.xlsx");
        std::fs::create_dir_all(template.parent().unwrap()).unwrap();
        std::fs::write(&template, b"pristine").unwrap();
        let write = |n: &str, v: Value| std::fs::write(pass.join(n), v.to_string()).unwrap();
        write(
            "sheet.json",
            result(json!(true), &saved.join("sheet.xlsx"), Some(&template)),
        );
        write(
            "deck.json",
            result(json!(true), &saved.join("deck.pptx"), None),
        );
        write(
            "nope.json",
            result(json!(false), &saved.join("deck.pptx"), None),
        );
        write(
            "gone.json",
            result(json!(true), &saved.join("gone.docx"), None),
        );
        // An instantiation pass folder that a dataflow run never writes is not read.
        let other = c.result_dir(Mode::Instantiation).join("instantiation_pass");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("x.json"), "{}").unwrap();

        let r = reformat(&c, Mode::Dataflow).unwrap();
        let hub = dir.path().join("datasUFO");
        assert_eq!(
            r.tasks,
            vec![hub.join("tasks/deck.json"), hub.join("tasks/sheet.json")]
        );
        let skipped: Vec<&str> = r.skipped.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(skipped, ["gone", "nope"]);
        let t: Value =
            serde_json::from_slice(&std::fs::read(hub.join("tasks/sheet.json")).unwrap()).unwrap();
        assert_eq!(
            t,
            json!({"task": "Make the title bold.", "object": "sheet.xlsx", "close": "True"})
        );
        assert_eq!(
            std::fs::read(hub.join("files/sheet.xlsx")).unwrap(),
            b"pristine"
        );
        assert_eq!(
            std::fs::read(hub.join("files/deck.pptx")).unwrap(),
            b"executed"
        );
        assert!(!hub.join("files/deck.docx").exists());
        assert_eq!(
            reformat(&c, Mode::Execution).unwrap(),
            Reformatted::default()
        );
    }
}
