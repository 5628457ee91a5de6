//! `choose_template`: the model reads `TEMPLATE_PATH/<app>/description.json` and picks the
//! template the task's text fits (UFO matched on the task file's name instead); the template is
//! copied to `saved_document/<task name><its extension>`, which the later stages open. A folder
//! with one template needs no question; a folder without `description.json` offers its files of
//! the app's extension by name.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::TaskCtx;
use crate::model::Question;
use crate::result::{CHOOSE_TEMPLATE, StageError};
use crate::texts;

/// The description file of a templates folder.
pub const DESCRIPTION_FILE: &str = "description.json";

/// Runs the stage on `cx`; the result holds the copy's path, or the error.
pub async fn run(cx: &mut TaskCtx<'_>) -> Result<(), StageError> {
    let started = cx.begin(CHOOSE_TEMPLATE);
    let outcome = choose_and_copy(cx).await;
    match &outcome {
        Ok((copy, template)) => {
            let stored = cx.config.stored_path(copy);
            let template = cx.config.stored_path(template);
            cx.doc
                .set_stage_result(CHOOSE_TEMPLATE, Value::String(stored));
            cx.doc
                .set_stage_field(CHOOSE_TEMPLATE, "template", Value::String(template));
        }
        Err(e) => cx.doc.set_stage_error(CHOOSE_TEMPLATE, e),
    }
    cx.end(CHOOSE_TEMPLATE, started, outcome.as_ref().err());
    outcome.map(|_| ())
}

/// The copy and the template it was made from.
async fn choose_and_copy(cx: &mut TaskCtx<'_>) -> Result<(PathBuf, PathBuf), StageError> {
    let dir = cx.config.template_path.join(cx.app_name);
    if !dir.is_dir() {
        return Err(StageError::new(
            "TemplateError",
            texts::no_templates_folder(&dir),
        ));
    }
    let offered = templates(&dir, &cx.spec.extension, &mut cx.log)?;
    let file = if let [(only, _)] = offered.as_slice() {
        only.clone()
    } else {
        ask(cx, &offered).await?
    };
    let template = dir.join(&file);
    let ext = template
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_else(|| cx.spec.extension.clone());
    let saved = cx.config.saved_document_dir();
    let copy = saved.join(format!("{}{ext}", cx.task.name));
    std::fs::create_dir_all(&saved)
        .and_then(|()| std::fs::copy(&template, &copy))
        .map_err(|e| StageError::new("TemplateError", texts::copy_failed(&template, &copy, &e)))?;
    Ok((copy, template))
}

/// The templates of `dir` with their descriptions, in file-name order: the described files that
/// exist, or without `description.json` every file with the app's extension (described by its
/// name).
fn templates(
    dir: &Path,
    ext: &str,
    log: &mut crate::log::TaskLog,
) -> Result<Vec<(String, String)>, StageError> {
    let desc_file = dir.join(DESCRIPTION_FILE);
    let err = |m: String| StageError::new("TemplateError", m);
    let mut out: Vec<(String, String)> = match std::fs::read(&desc_file) {
        Ok(bytes) => {
            let described: serde_json::Map<String, Value> = serde_json::from_slice(&bytes)
                .map_err(|e| err(texts::bad_descriptions(&desc_file, &e.to_string())))?;
            let mut out = Vec::new();
            for (file, about) in described {
                let Some(about) = about.as_str() else {
                    return Err(err(texts::bad_descriptions(
                        &desc_file,
                        &format!("{file:?} is not described by a string"),
                    )));
                };
                if dir.join(&file).is_file() && !file.contains('/') {
                    out.push((file, about.to_owned()));
                } else {
                    log.error(texts::described_file_missing(&file, dir));
                }
            }
            out
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::read_dir(dir)
            .map_err(|e| err(e.to_string()))?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.to_lowercase().ends_with(&ext.to_lowercase()) && !n.starts_with('.'))
            .map(|n| (n.clone(), n))
            .collect(),
        Err(e) => return Err(err(e.to_string())),
    };
    out.sort();
    if out.is_empty() {
        return Err(err(texts::no_templates(dir, ext)));
    }
    Ok(out)
}

/// Asks the model which template fits the task's text.
async fn ask(cx: &mut TaskCtx<'_>, offered: &[(String, String)]) -> Result<String, StageError> {
    let q = Question {
        stage: CHOOSE_TEMPLATE,
        system: texts::template_system(&cx.spec.label),
        user: texts::template_user(&cx.task.task, offered),
        images: Vec::new(),
    };
    let (answer, _) = cx.model.ask(q, &mut cx.log, &cx.cancel).await?;
    let names: Vec<String> = offered.iter().map(|(f, _)| f.clone()).collect();
    pick(&answer, &names).ok_or_else(|| {
        let chosen = answer.keys().next().cloned().unwrap_or_default();
        StageError::new("ModelAnswerError", texts::unknown_template(&chosen, &names))
            .at(CHOOSE_TEMPLATE)
    })
}

/// The offered file the answer names: its first key that is one (case and a missing extension
/// forgiven), else a string value that is one (`{"template": "a.docx"}`).
fn pick(answer: &serde_json::Map<String, Value>, offered: &[String]) -> Option<String> {
    let find = |name: &str| {
        let n = name.trim().to_lowercase();
        offered.iter().find(|o| {
            let o_low = o.to_lowercase();
            o_low == n
                || Path::new(&o_low)
                    .file_stem()
                    .is_some_and(|s| s.to_string_lossy() == n)
        })
    };
    answer
        .keys()
        .find_map(|k| find(k))
        .or_else(|| answer.values().filter_map(Value::as_str).find_map(find))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_answer_names_a_template_by_key_or_value() {
        let offered = vec!["bulleted.docx".to_owned(), "table.docx".to_owned()];
        let m = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(
            pick(&m(json!({"Table.docx": "has a table"})), &offered).as_deref(),
            Some("table.docx")
        );
        assert_eq!(
            pick(&m(json!({"bulleted": "lines"})), &offered).as_deref(),
            Some("bulleted.docx")
        );
        assert_eq!(
            pick(&m(json!({"template": "table.docx", "why": "x"})), &offered).as_deref(),
            Some("table.docx")
        );
        assert_eq!(pick(&m(json!({"other.docx": "?"})), &offered), None);
    }

    #[test]
    fn templates_come_from_the_descriptions_or_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = crate::log::TaskLog::discard();
        std::fs::write(dir.path().join("b.docx"), b"x").unwrap();
        std::fs::write(dir.path().join("a.docx"), b"x").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"x").unwrap();
        let found = templates(dir.path(), ".docx", &mut log).unwrap();
        assert_eq!(
            found,
            vec![
                ("a.docx".into(), "a.docx".into()),
                ("b.docx".into(), "b.docx".into())
            ]
        );
        std::fs::write(
            dir.path().join(DESCRIPTION_FILE),
            r#"{"b.docx": "B", "gone.docx": "G"}"#,
        )
        .unwrap();
        assert_eq!(
            templates(dir.path(), ".docx", &mut log).unwrap(),
            vec![("b.docx".into(), "B".into())]
        );
        std::fs::write(dir.path().join(DESCRIPTION_FILE), r#"{"b.docx": 1}"#).unwrap();
        assert!(
            templates(dir.path(), ".docx", &mut log)
                .unwrap_err()
                .message
                .contains("description.json")
        );
        std::fs::write(dir.path().join(DESCRIPTION_FILE), r#"{"gone.docx": "G"}"#).unwrap();
        assert!(
            templates(dir.path(), ".docx", &mut log)
                .unwrap_err()
                .message
                .contains("no template")
        );
    }
}
