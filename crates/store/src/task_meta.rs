//! A task's folder and tags: what the store accepts ([`check_folder`], [`check_tags`]), how the
//! task list filters by them, and the folders and tags there are with their counts.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sqlx::any::AnyRow;

use crate::Store;
use crate::convert::{column, from_db, from_json};
use crate::error::{Result, StoreError, db};
use crate::select::like_escaped;

/// Most levels a folder path has.
pub const MAX_FOLDER_LEVELS: usize = 8;
/// Most characters a folder path has.
pub const MAX_FOLDER_CHARS: usize = 200;
/// Most tags a task has.
pub const MAX_TAGS: usize = 20;
/// Most characters a tag has.
pub const MAX_TAG_CHARS: usize = 40;

/// A folder with how many tasks it holds, its subfolders' included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FolderCount {
    /// The folder's path.
    pub folder: String,
    /// Its tasks and its subfolders' tasks.
    pub count: u64,
}

/// A tag with how many tasks carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TagCount {
    /// The tag as the first task (by name) that carries it spells it.
    pub tag: String,
    /// The tasks that carry it, whatever their spelling.
    pub count: u64,
}

/// A folder path as stored: segments joined by `/`, each trimmed and none empty, at most
/// [`MAX_FOLDER_LEVELS`] of them and [`MAX_FOLDER_CHARS`] characters in all; `""` (or
/// blanks) is the top. A leading or trailing `/` is dropped.
pub fn check_folder(folder: &str) -> Result<String> {
    let trimmed = folder.trim().trim_matches('/');
    if trimmed.is_empty() {
        return Ok(String::new());
    }
    let segments: Vec<&str> = trimmed.split('/').map(str::trim).collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err(StoreError::Invalid(format!(
            "folder {folder:?} has an empty segment: write it as names joined by single \
             slashes, e.g. \"finance/nightly\""
        )));
    }
    if segments.len() > MAX_FOLDER_LEVELS {
        return Err(StoreError::Invalid(format!(
            "folder {folder:?} is {} levels deep; a folder has at most {MAX_FOLDER_LEVELS}",
            segments.len()
        )));
    }
    let joined = segments.join("/");
    let chars = joined.chars().count();
    if chars > MAX_FOLDER_CHARS {
        return Err(StoreError::Invalid(format!(
            "folder {:?}… is {chars} characters long; a folder path has at most \
             {MAX_FOLDER_CHARS}",
            joined.chars().take(40).collect::<String>()
        )));
    }
    Ok(joined)
}

/// Tags as stored: each trimmed and not blank, at most [`MAX_TAG_CHARS`] characters, without
/// `"`, `\` or `,` (tags are written separated by commas), no two the same ignoring case, at most [`MAX_TAGS`]; in the order given.
pub fn check_tags(tags: &[String]) -> Result<Vec<String>> {
    if tags.len() > MAX_TAGS {
        return Err(StoreError::Invalid(format!(
            "{} tags given; a task has at most {MAX_TAGS}",
            tags.len()
        )));
    }
    let mut out: Vec<String> = Vec::with_capacity(tags.len());
    for tag in tags {
        let t = tag.trim();
        if t.is_empty() {
            return Err(StoreError::Invalid(
                "a tag is blank: give each tag some text, or leave it out".into(),
            ));
        }
        let chars = t.chars().count();
        if chars > MAX_TAG_CHARS {
            return Err(StoreError::Invalid(format!(
                "tag {t:?} is {chars} characters long; a tag has at most {MAX_TAG_CHARS}"
            )));
        }
        if t.contains(['"', '\\', ',']) || t.chars().any(char::is_control) {
            return Err(StoreError::Invalid(format!(
                "tag {t:?} holds a quote, a backslash, a comma or a control character; use \
                 letters, digits, spaces, - _ . : / and the like"
            )));
        }
        if let Some(same) = out.iter().find(|o| o.to_lowercase() == t.to_lowercase()) {
            return Err(StoreError::Invalid(format!(
                "tags {same:?} and {t:?} are the same tag (case is ignored); keep one"
            )));
        }
        out.push(t.to_owned());
    }
    Ok(out)
}

/// The `LIKE` pattern of the folders below `folder` (`finance` → `finance/%`).
pub(crate) fn below_pattern(folder: &str) -> String {
    format!("{}/%", like_escaped(folder))
}

/// The `LIKE` pattern that finds `tag` in a task's `tags` column (a JSON array whose texts
/// hold no quote or backslash, so each is its own text between quotes), both sides lowered.
pub(crate) fn tag_pattern(tag: &str) -> String {
    format!("%\"{}\"%", like_escaped(&tag.trim().to_lowercase()))
}

impl Store {
    /// Every folder that holds a task, with its ancestors, each with how many tasks it and
    /// its subfolders hold; by path.
    pub async fn task_folders(&self) -> Result<Vec<FolderCount>> {
        const READ: &str = "counting the tasks' folders";
        let rows = sqlx::query(
            "SELECT folder, COUNT(*) AS n FROM tasks WHERE folder <> '' GROUP BY folder",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(db(READ))?;
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        for row in &rows {
            let folder: String = column(row, "folder", READ)?;
            let n = from_db("a folder's task count", column(row, "n", READ)?)?;
            let mut path = String::new();
            for segment in folder.split('/') {
                if !path.is_empty() {
                    path.push('/');
                }
                path.push_str(segment);
                *counts.entry(path.clone()).or_default() += n;
            }
        }
        Ok(counts
            .into_iter()
            .map(|(folder, count)| FolderCount { folder, count })
            .collect())
    }

    /// Every tag a task carries, with how many carry it (case ignored); by tag, case ignored.
    pub async fn task_tags(&self) -> Result<Vec<TagCount>> {
        const READ: &str = "counting the tasks' tags";
        let rows = sqlx::query("SELECT id, tags FROM tasks WHERE tags <> '[]' ORDER BY name, id")
            .fetch_all(&self.pool)
            .await
            .map_err(db(READ))?;
        let mut counts: BTreeMap<String, TagCount> = BTreeMap::new();
        for row in &rows {
            for tag in tags_from_row(row, "", READ)? {
                counts
                    .entry(tag.to_lowercase())
                    .or_insert(TagCount { tag, count: 0 })
                    .count += 1;
            }
        }
        Ok(counts.into_values().collect())
    }
}

/// The `tags` column (a JSON array) of a row whose columns are named `prefix` + the column.
pub(crate) fn tags_from_row(
    row: &AnyRow,
    prefix: &str,
    action: &'static str,
) -> Result<Vec<String>> {
    let text: String = column(row, &format!("{prefix}tags"), action)?;
    from_json(&format!("{action}, column {prefix}tags"), &text)
}
