//! `GET /api/tasks/export` and `POST /api/tasks/import`: tasks with their schedules as one JSON
//! document (docs/tasks.md "Export and import"), and that document brought into a server —
//! every task validated before anything is written, clashes by name listed and settled by
//! `on_clash`, the writes one transaction.

use std::collections::BTreeSet;

use axum::extract::{Query, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use deft_app::task_language::secret_names_in;
use deft_store::{
    ImportTask, Page, Schedule, StoreError, Task, TaskFilter, VersionCause, VersionStamp,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::TaskError;
use super::crud::{author, checked, resolve};
use super::schedules::{body_of, parse_body};
use crate::AppState;
use crate::api::ApiError;
use crate::console::sessions::Principal;
use crate::console::{Console, now_ms, rfc3339, texts};

/// The document's format name.
pub const FORMAT: &str = "deft-tasks";
/// The document format's version.
pub const FORMAT_VERSION: u64 = 1;
/// Most bytes an import document has.
pub const MAX_IMPORT_BYTES: usize = 16 * 1024 * 1024;
/// Most tasks an import document has.
pub const MAX_IMPORT_TASKS: usize = 1_000;

/// An export document.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Document {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub format_version: u64,
    /// The deft that exported it.
    #[serde(default)]
    pub deft_version: String,
    /// When (ISO-8601 UTC).
    #[serde(default)]
    pub exported_at: String,
    /// The tasks.
    pub tasks: Vec<Entry>,
}

/// One task of a document: its record and its schedules.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Its name.
    pub name: String,
    /// Its device.
    pub device: String,
    /// Whether its schedules fire.
    pub enabled: bool,
    /// Its folder.
    #[serde(default)]
    pub folder: String,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// What its runs report as notifications (missing: the defaults).
    #[serde(default)]
    #[schemars(with = "super::views::NotifyView")]
    pub notify: deft_store::TaskNotify,
    /// The task file (secrets as `{"secret": "NAME"}` references, never values).
    pub definition: Value,
    /// Its schedules as schedule bodies.
    #[serde(default)]
    pub schedules: Vec<Value>,
}

impl Entry {
    /// The entry of a stored task: THE one place a task's record becomes a document's entry
    /// (a field added to the record is added here).
    pub fn of(task: &Task, schedules: &[Schedule]) -> Entry {
        Entry {
            name: task.name.clone(),
            device: task.device.clone(),
            enabled: task.enabled,
            folder: task.folder.clone(),
            tags: task.tags.clone(),
            notify: task.notify,
            definition: serde_json::from_str(&task.definition)
                .unwrap_or_else(|_| task.definition.clone().into()),
            schedules: schedules.iter().map(body_of).collect(),
        }
    }
}

/// `GET /api/tasks/export` query: exactly one of them.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportQuery {
    /// One task (id or name).
    #[serde(default)]
    task: Option<String>,
    /// A folder and its subfolders.
    #[serde(default)]
    folder: Option<String>,
    /// Every task.
    #[serde(default)]
    all: Option<bool>,
}

/// `GET /api/tasks/export?task=ID|folder=PATH|all=true`: the document, as a download.
pub async fn export(
    State(app): State<AppState>,
    Query(q): Query<ExportQuery>,
) -> Result<Response, TaskError> {
    let console = app.console()?;
    let store = console.store();
    let tasks: Vec<(Task, Vec<Schedule>)> = match (&q.task, &q.folder, q.all.unwrap_or(false)) {
        (Some(id), None, false) => {
            let task = resolve(console, id).await?;
            let schedules = store.schedules_of_task(&task.id).await?;
            vec![(task, schedules)]
        }
        (None, Some(folder), false) => listed(console, Some(folder.clone())).await?,
        (None, None, true) => listed(console, None).await?,
        _ => return Err(ApiError(StatusCode::BAD_REQUEST, texts::EXPORT_WHICH.into()).into()),
    };
    let doc = Document {
        format: FORMAT.into(),
        format_version: FORMAT_VERSION,
        deft_version: env!("CARGO_PKG_VERSION").into(),
        exported_at: rfc3339(now_ms()),
        tasks: tasks.iter().map(|(t, s)| Entry::of(t, s)).collect(),
    };
    let disposition = "attachment; filename=\"deft-tasks.json\"";
    Ok(([(header::CONTENT_DISPOSITION, disposition)], Json(doc)).into_response())
}

/// Every task (of `folder`, its subfolders included) with its schedules, by name.
async fn listed(
    console: &Console,
    folder: Option<String>,
) -> Result<Vec<(Task, Vec<Schedule>)>, TaskError> {
    let filter = TaskFilter {
        folder,
        ..TaskFilter::default()
    };
    let mut out = Vec::new();
    loop {
        let page = Page {
            limit: deft_store::MAX_PAGE,
            offset: out.len() as u64,
        };
        let got = console.store().tasks(&filter, page).await?;
        let n = got.items.len();
        out.extend(got.items.into_iter().map(|l| (l.task, l.schedules)));
        if n == 0 || out.len() as u64 >= got.total {
            return Ok(out);
        }
    }
}

/// What an import does with a task whose name a stored task has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnClash {
    /// Refuse the whole import (409), listing the clashes.
    #[default]
    Fail,
    /// Leave the stored task as it is.
    Skip,
    /// Save the document's task as the stored task's next version (its schedules replace the
    /// stored task's).
    Replace,
    /// Store it under a free name: `name (2)`, `name (3)`, …
    Rename,
}

/// `POST /api/tasks/import` query.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportQuery {
    /// Only say what would happen.
    #[serde(default)]
    dry_run: Option<bool>,
    /// What a clash does.
    #[serde(default)]
    on_clash: Option<OnClash>,
}

/// A problem of an imported task, at its path in the document.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ImportIssue {
    /// The task's name in the document (or `tasks[i]` when it has none).
    pub task: String,
    /// Where: `tasks[2].definition.steps[0].selector`, `tasks[2].folder`.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// What an import did, or would do.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct ImportReport {
    /// Only said what would happen.
    pub dry_run: bool,
    /// Tasks created (their names as stored).
    pub created: Vec<String>,
    /// Stored tasks replaced by the document's.
    pub replaced: Vec<String>,
    /// Tasks left out: their names clash and `on_clash` is `skip`.
    pub skipped: Vec<String>,
    /// Tasks stored under another name (`{"from", "to"}`).
    pub renamed: Vec<Renamed>,
    /// The document's tasks whose names stored tasks have.
    pub clashes: Vec<String>,
    /// Every validation error; any refuses the whole import.
    pub errors: Vec<ImportIssue>,
    /// Secrets the tasks use that this server does not have.
    pub warnings: Vec<ImportIssue>,
}

/// A task stored under another name.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Renamed {
    /// Its name in the document.
    pub from: String,
    /// Its name as stored.
    pub to: String,
}

/// `POST /api/tasks/import?dry_run=&on_clash=` with a document: 200 with what was done (or, dry,
/// would be); 400 with every error when any task does not validate, 409 when names clash and
/// `on_clash` is `fail`, 413 for a document over the size limit — nothing stored in each case.
pub async fn import(
    State(app): State<AppState>,
    Extension(principal): Extension<Principal>,
    Query(q): Query<ImportQuery>,
    request: Request,
) -> Result<Response, TaskError> {
    let console = app.console()?.clone();
    let doc = read_document(request).await?;
    let on_clash = q.on_clash.unwrap_or_default();
    let mut report = ImportReport {
        dry_run: q.dry_run.unwrap_or(false),
        ..ImportReport::default()
    };
    let plan = plan(&app, &console, &doc, on_clash, &mut report).await?;
    secret_warnings(&console, &doc, &mut report).await?;
    let status = if !report.errors.is_empty() {
        StatusCode::BAD_REQUEST
    } else if on_clash == OnClash::Fail && !report.clashes.is_empty() {
        StatusCode::CONFLICT
    } else {
        StatusCode::OK
    };
    if status != StatusCode::OK || report.dry_run {
        return Ok((status, Json(body(&report, status))).into_response());
    }
    let stamp = VersionStamp {
        author: author(&principal),
        cause: VersionCause::Import,
        note: texts::IMPORTED_NOTE.into(),
    };
    match console.store().import_tasks(&plan, &stamp).await {
        Ok(_) => {}
        Err(StoreError::Conflict(t)) => return Err(ApiError(StatusCode::CONFLICT, t).into()),
        Err(e) => return Err(e.into()),
    }
    console.tasks().schedules_changed();
    Ok((status, Json(body(&report, status))).into_response())
}

/// The answer's body: the report, with an `error` summary when refused.
fn body(report: &ImportReport, status: StatusCode) -> Value {
    let mut body = serde_json::to_value(report).unwrap_or_default();
    if let (StatusCode::BAD_REQUEST, Some(first)) = (status, report.errors.first()) {
        body["error"] =
            texts::import_invalid(&first.path, &first.message, report.errors.len()).into();
    } else if status == StatusCode::CONFLICT {
        body["error"] = texts::import_clashes(&report.clashes).into();
    }
    body
}

/// Reads the document: at most [`MAX_IMPORT_BYTES`] (413 beyond), JSON of the format (400),
/// at most [`MAX_IMPORT_TASKS`] tasks (400).
async fn read_document(request: Request) -> Result<Document, TaskError> {
    let too_large = || {
        ApiError(
            StatusCode::PAYLOAD_TOO_LARGE,
            texts::import_too_large(MAX_IMPORT_BYTES),
        )
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|l| l > MAX_IMPORT_BYTES) {
        return Err(too_large().into());
    }
    let bytes = axum::body::to_bytes(request.into_body(), MAX_IMPORT_BYTES)
        .await
        .map_err(|_| too_large())?;
    let bad = |m: String| TaskError::from(ApiError(StatusCode::BAD_REQUEST, m));
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|e| bad(texts::import_not_json(&e.to_string())))?;
    if value.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(bad(texts::import_not_a_document(FORMAT)));
    }
    let doc: Document = serde_json::from_value(value)
        .map_err(|e| bad(texts::import_bad_document(&e.to_string())))?;
    if doc.format_version != FORMAT_VERSION {
        return Err(bad(texts::import_format_version(
            doc.format_version,
            FORMAT_VERSION,
        )));
    }
    if doc.tasks.len() > MAX_IMPORT_TASKS {
        return Err(bad(texts::import_too_many(
            doc.tasks.len(),
            MAX_IMPORT_TASKS,
        )));
    }
    Ok(doc)
}

/// Validates every task of `doc` and settles its clashes into `report`; the writes to make.
async fn plan(
    app: &AppState,
    console: &Console,
    doc: &Document,
    on_clash: OnClash,
    report: &mut ImportReport,
) -> Result<Vec<ImportTask>, TaskError> {
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut taken = stored_names(console).await?;
    let mut out = Vec::new();
    for (i, entry) in doc.tasks.iter().enumerate() {
        let who = if entry.name.is_empty() {
            format!("tasks[{i}]")
        } else {
            entry.name.clone()
        };
        let mut issue = |path: String, message: String| {
            report.errors.push(ImportIssue {
                task: who.clone(),
                path,
                message,
            });
        };
        if !names.insert(entry.name.clone()) {
            issue(
                format!("tasks[{i}].name"),
                texts::import_duplicate_name(&entry.name),
            );
            continue;
        }
        let existing = match console.store().task_by_name(&entry.name).await {
            Ok(t) => Some(t),
            Err(StoreError::NotFound(_)) => None,
            Err(e) => return Err(e.into()),
        };
        let mut definition = entry.definition.clone();
        let mut replaces = None;
        let mut name = entry.name.clone();
        if let Some(t) = &existing {
            report.clashes.push(entry.name.clone());
            match on_clash {
                OnClash::Fail => {}
                OnClash::Skip => {
                    report.skipped.push(entry.name.clone());
                    continue;
                }
                OnClash::Replace => replaces = Some(t.id.clone()),
                OnClash::Rename => {
                    name = free_name(&entry.name, &taken, &names);
                    definition["name"] = name.clone().into();
                }
            }
        }
        let (new, schedules) =
            match checked_entry(app, console, i, entry, &definition, &name).await? {
                Ok(ok) => ok,
                Err(problems) => {
                    for (path, message) in problems {
                        issue(path, message);
                    }
                    continue;
                }
            };
        match (&replaces, name != entry.name) {
            (Some(_), _) => report.replaced.push(name.clone()),
            (None, true) => report.renamed.push(Renamed {
                from: entry.name.clone(),
                to: name.clone(),
            }),
            (None, false) => report.created.push(name.clone()),
        }
        taken.insert(name);
        out.push(ImportTask {
            task: new,
            schedules,
            replaces,
        });
    }
    Ok(out)
}

/// Problems of an entry, each at its path.
type Problems = Vec<(String, String)>;

/// Entry `i` checked as a save checks a task (its `definition` as it will be stored, under
/// `name`), with its folder, tags and schedules: what to store, or every problem at its path.
async fn checked_entry(
    app: &AppState,
    console: &Console,
    i: usize,
    entry: &Entry,
    definition: &Value,
    name: &str,
) -> Result<Result<(deft_store::NewTask, Vec<deft_store::NewSchedule>), Problems>, TaskError> {
    let bytes = serde_json::to_vec(&definition).unwrap_or_default();
    let place = (entry.folder.clone(), entry.tags.clone());
    let mut problems: Problems = Vec::new();
    let new = match checked(app, console, &bytes, entry.enabled, entry.notify, place).await {
        Ok((new, _)) => Some(new),
        Err(TaskError::Invalid(r)) => {
            for e in r.errors {
                let path = if e.path == "device" {
                    format!("tasks[{i}].device")
                } else {
                    joined(&format!("tasks[{i}].definition"), &e.path)
                };
                problems.push((path, e.message));
            }
            None
        }
        Err(e) => return Err(e),
    };
    if let Some(new) = new.as_ref().filter(|n| n.name != *name) {
        let text = texts::import_name_differs(&entry.name, &new.name);
        problems.push((format!("tasks[{i}].name"), text));
    }
    for (field, check) in [
        ("folder", deft_store::check_folder(&entry.folder).err()),
        ("tags", deft_store::check_tags(&entry.tags).err()),
    ] {
        if let Some(StoreError::Invalid(m)) = check {
            problems.push((format!("tasks[{i}].{field}"), m));
        }
    }
    let mut schedules = Vec::new();
    for (k, body) in entry.schedules.iter().enumerate() {
        match parse_body(body, now_ms()) {
            Ok(s) => schedules.push(s),
            Err(TaskError::Invalid(r)) => {
                for e in r.errors {
                    let path = joined(&format!("tasks[{i}].schedules[{k}]"), &e.path);
                    problems.push((path, e.message));
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(match new.filter(|_| problems.is_empty()) {
        Some(new) => Ok((new, schedules)),
        None => Err(problems),
    })
}

/// `base` and `path` joined as a path (`path` may be empty).
fn joined(base: &str, path: &str) -> String {
    if path.is_empty() {
        base.to_owned()
    } else if path.starts_with('[') {
        format!("{base}{path}")
    } else {
        format!("{base}.{path}")
    }
}

/// The names of every stored task.
async fn stored_names(console: &Console) -> Result<BTreeSet<String>, TaskError> {
    Ok(listed(console, None)
        .await?
        .into_iter()
        .map(|(t, _)| t.name)
        .collect())
}

/// `name (2)`, `name (3)`, … — the first no stored task and no task of the document has.
fn free_name(name: &str, taken: &BTreeSet<String>, document: &BTreeSet<String>) -> String {
    (2..)
        .map(|n| format!("{name} ({n})"))
        .find(|c| !taken.contains(c) && !document.contains(c))
        .unwrap_or_else(|| name.to_owned())
}

/// A warning for every secret a task uses that this server does not have.
async fn secret_warnings(
    console: &Console,
    doc: &Document,
    report: &mut ImportReport,
) -> Result<(), TaskError> {
    let have: BTreeSet<String> = console
        .store()
        .secrets()
        .await?
        .into_iter()
        .map(|s| s.name)
        .collect();
    for (i, entry) in doc.tasks.iter().enumerate() {
        for name in secret_names_in(&entry.definition.to_string()) {
            if !have.contains(&name) {
                report.warnings.push(ImportIssue {
                    task: entry.name.clone(),
                    path: format!("tasks[{i}].definition.variables"),
                    message: texts::import_missing_secret(&name),
                });
            }
        }
    }
    Ok(())
}
