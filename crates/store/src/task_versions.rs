//! A task's versions: every create and change of a task writes the record as saved, with who
//! saved it, when, a note and why, in the transaction that saves the task; read back newest
//! first, one by its number.

use serde::{Deserialize, Serialize};
use sqlx::any::AnyRow;

use crate::convert::{column, flag, flag_from, to_json};
use crate::error::{Result, StoreError, db};
use crate::select::{PageQuery, page_of};
use crate::task_meta::tags_from_row;
use crate::{Page, Paged, Store, Task};

deft_protocol::named_enum! {
    /// What made a version.
    VersionCause {
        /// The task was created.
        Create = "create",
        /// The task was edited.
        Edit = "edit",
        /// An earlier version was restored.
        Restore = "restore",
        /// The task came in from an export document.
        Import = "import",
    }
}

/// Who saves a task, why, and what they note (what [`Store::create_task`] and
/// [`Store::update_task`] take besides the task).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionStamp {
    /// The console user, or `cli` / `api`.
    pub author: String,
    /// What made the version.
    pub cause: VersionCause,
    /// The saver's note (may be empty).
    pub note: String,
}

impl VersionStamp {
    /// A stamp by `author` for `cause`, without a note.
    pub fn new(author: impl Into<String>, cause: VersionCause) -> VersionStamp {
        VersionStamp {
            author: author.into(),
            cause,
            note: String::new(),
        }
    }
}

/// A version's note has at most this many characters.
pub const MAX_NOTE_CHARS: usize = 500;

/// One saved version of a task: its record as saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskVersion {
    /// The task.
    pub task_id: String,
    /// Its number, 1 for the task's creation.
    pub version: i64,
    /// The task's name.
    pub name: String,
    /// Its device.
    pub device: String,
    /// Its definition, JSON text as stored.
    pub definition: String,
    /// Whether it was on.
    pub enabled: bool,
    /// Its folder.
    pub folder: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// Who saved it.
    pub author: String,
    /// When, ms since the epoch.
    pub saved_at_ms: i64,
    /// The note.
    pub note: String,
    /// What made it.
    pub cause: VersionCause,
}

const VERSION_COLUMNS: &str = "task_id, version, name, device, definition, enabled, folder, tags, \
     author, saved_at_ms, note, cause";

/// Checks a stamp: its author is not blank and its note not too long.
pub(crate) fn check_stamp(stamp: &VersionStamp) -> Result<()> {
    if stamp.author.trim().is_empty() {
        return Err(StoreError::Invalid(
            "a task version needs an author (the user, \"cli\" or \"api\")".into(),
        ));
    }
    let chars = stamp.note.chars().count();
    if chars > MAX_NOTE_CHARS {
        return Err(StoreError::Invalid(format!(
            "the note is {chars} characters long; a version's note has at most {MAX_NOTE_CHARS}"
        )));
    }
    Ok(())
}

/// Writes `task` (as it now stands, its `version` the new number) as a version, in the
/// caller's transaction.
pub(crate) async fn record_version(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    task: &Task,
    stamp: &VersionStamp,
    saved_at_ms: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO task_versions (task_id, version, name, device, definition, enabled, \
         folder, tags, author, saved_at_ms, note, cause) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(&task.id)
    .bind(task.version)
    .bind(&task.name)
    .bind(&task.device)
    .bind(&task.definition)
    .bind(flag(task.enabled))
    .bind(&task.folder)
    .bind(to_json(&task.tags))
    .bind(stamp.author.trim())
    .bind(saved_at_ms)
    .bind(&stamp.note)
    .bind(stamp.cause.as_str())
    .execute(&mut **tx)
    .await
    .map_err(db("recording a task version"))?;
    Ok(())
}

impl Store {
    /// A page of a task's versions, newest first. [`StoreError::NotFound`] for an unknown
    /// task.
    pub async fn task_versions(&self, task_id: &str, page: Page) -> Result<Paged<TaskVersion>> {
        self.task(task_id).await?;
        let q = PageQuery {
            columns: VERSION_COLUMNS,
            table: "task_versions",
            cond: "task_id = $1",
            order: "version DESC",
            params: &[Some(task_id)],
        };
        page_of(
            &self.pool,
            &q,
            page,
            "listing a task's versions",
            version_from_row,
        )
        .await
    }

    /// Version `version` of a task. [`StoreError::NotFound`] for an unknown task or version.
    pub async fn task_version(&self, task_id: &str, version: i64) -> Result<TaskVersion> {
        let row = sqlx::query(
            "SELECT task_id, version, name, device, definition, enabled, folder, tags, author, \
             saved_at_ms, note, cause FROM task_versions WHERE task_id = $1 AND version = $2",
        )
        .bind(task_id)
        .bind(version)
        .fetch_optional(&self.pool)
        .await
        .map_err(db("reading a task version"))?;
        match row {
            Some(row) => version_from_row(&row),
            None => {
                let task = self.task(task_id).await?;
                Err(StoreError::NotFound(format!(
                    "task {:?} has no version {version}; its versions are 1 to {}",
                    task.name, task.version
                )))
            }
        }
    }
}

fn version_from_row(row: &AnyRow) -> Result<TaskVersion> {
    const READ: &str = "reading a task version";
    let cause: String = column(row, "cause", READ)?;
    let task_id: String = column(row, "task_id", READ)?;
    Ok(TaskVersion {
        version: column(row, "version", READ)?,
        name: column(row, "name", READ)?,
        device: column(row, "device", READ)?,
        definition: column(row, "definition", READ)?,
        enabled: flag_from(row, "enabled", READ)?,
        folder: column(row, "folder", READ)?,
        tags: tags_from_row(row, "", READ)?,
        author: column(row, "author", READ)?,
        saved_at_ms: column(row, "saved_at_ms", READ)?,
        note: column(row, "note", READ)?,
        cause: VersionCause::from_name(&cause).ok_or_else(|| StoreError::Corrupt {
            what: format!("task {task_id}, a version's cause"),
            cause: format!("unknown cause {cause:?}"),
        })?,
        task_id,
    })
}
