//! Tasks: create, read, rename/replace (each save a version), switch on and off, delete (with
//! their schedules and versions; their runs stay), and the task list with each task's next fire and last run.

use sqlx::any::AnyRow;

use sqlx::AssertSqlSafe;

use crate::convert::{column, flag, flag_from, from_db, now_ms, to_json};
use crate::error::{Result, StoreError, db, is_unique_violation, no_task};
use crate::lookup;
use crate::select::{PageQuery, page_of, prefixed};
use crate::task_meta::{below_pattern, check_folder, check_tags, tag_pattern, tags_from_row};
use crate::task_run_row::{prefixed_run_columns, task_run_from_row};
use crate::task_versions::{VersionStamp, check_stamp, record_version};
use crate::{NewTask, Page, Paged, Store, Task, TaskFilter, TaskListing, TaskNotify};

const TASK_COLUMNS: &str = "id, name, device, definition, enabled, folder, tags, version, notify_on_failure, \
     notify_on_success, notify_on_notify_step, created_at_ms, updated_at_ms";

impl Store {
    /// Stores a new task with a fresh id, and its version 1 stamped with `stamp`.
    /// [`StoreError::Conflict`] when the name is taken, [`StoreError::Invalid`] for a blank
    /// name or device, a folder or tags [`crate::check_folder`] / [`crate::check_tags`]
    /// refuse, or a stamp without an author.
    pub async fn create_task(&self, new: &NewTask, stamp: &VersionStamp) -> Result<Task> {
        let new = check_task(new, stamp)?;
        let mut tx = self.pool.begin().await.map_err(db("creating a task"))?;
        let task = insert_task(&mut tx, &new, stamp, now_ms()).await?;
        tx.commit().await.map_err(db("creating a task"))?;
        Ok(task)
    }

    /// The task with this id; [`StoreError::NotFound`] when there is none.
    pub async fn task(&self, id: &str) -> Result<Task> {
        let sql = format!("SELECT {TASK_COLUMNS} FROM tasks WHERE id = $1");
        let read = |row: &AnyRow| task_from_row(row, "");
        lookup::one(&self.pool, sql, id, "reading a task", read, || no_task(id)).await
    }

    /// The task with this name; [`StoreError::NotFound`] when there is none.
    pub async fn task_by_name(&self, name: &str) -> Result<Task> {
        let sql = format!("SELECT {TASK_COLUMNS} FROM tasks WHERE name = $1");
        let read = |row: &AnyRow| task_from_row(row, "");
        let missing = || StoreError::NotFound(format!("no task is named {name:?}"));
        lookup::one(&self.pool, sql, name, "reading a task", read, missing).await
    }

    /// Replaces a task's name, device, definition, switch, folder and tags, and records the
    /// result as its next version stamped with `stamp`. [`StoreError::NotFound`] for an
    /// unknown id, [`StoreError::Conflict`] when another task has the name,
    /// [`StoreError::Invalid`] as for [`Store::create_task`].
    pub async fn update_task(&self, id: &str, new: &NewTask, stamp: &VersionStamp) -> Result<Task> {
        let new = check_task(new, stamp)?;
        let mut tx = self.pool.begin().await.map_err(db("updating a task"))?;
        let task = replace_task(&mut tx, id, &new, stamp, now_ms()).await?;
        tx.commit().await.map_err(db("updating a task"))?;
        Ok(task)
    }

    /// Switches a task on or off (off: its schedules do not fire). [`StoreError::NotFound`]
    /// for an unknown id. Switching on does not move its schedules' next fires: the caller
    /// re-arms them from now (deft-tasks `scheduler::rearm_task`) so that the time it was off
    /// does not count as missed.
    pub async fn set_task_enabled(&self, id: &str, enabled: bool) -> Result<Task> {
        let action = "switching a task";
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        let done = sqlx::query("UPDATE tasks SET enabled = $2, updated_at_ms = $3 WHERE id = $1")
            .bind(id)
            .bind(flag(enabled))
            .bind(now_ms())
            .execute(&mut *tx)
            .await
            .map_err(db(action))?;
        if done.rows_affected() == 0 {
            return Err(no_task(id));
        }
        mirror_switch(&mut tx, id, enabled).await?;
        tx.commit().await.map_err(db(action))?;
        self.task(id).await
    }

    /// Sets what a task's runs report as notifications. [`StoreError::NotFound`] for an
    /// unknown id.
    pub async fn set_task_notify(&self, id: &str, notify: TaskNotify) -> Result<Task> {
        let done = sqlx::query(
            "UPDATE tasks SET notify_on_failure = $2, notify_on_success = $3, \
             notify_on_notify_step = $4, updated_at_ms = $5 WHERE id = $1",
        )
        .bind(id)
        .bind(flag(notify.on_failure))
        .bind(flag(notify.on_success))
        .bind(flag(notify.on_notify_step))
        .bind(now_ms())
        .execute(&self.pool)
        .await
        .map_err(db("setting a task's notifications"))?;
        if done.rows_affected() == 0 {
            return Err(no_task(id));
        }
        self.task(id).await
    }

    /// Deletes a task and its schedules. Its runs stay (with the task's name) until
    /// [`Store::delete_task_runs`]. [`StoreError::NotFound`] for an unknown id.
    pub async fn delete_task(&self, id: &str) -> Result<()> {
        let action = "deleting a task";
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        for (sql, what) in [
            (
                "DELETE FROM schedules WHERE task_id = $1",
                "deleting a task's schedules",
            ),
            (
                "DELETE FROM task_versions WHERE task_id = $1",
                "deleting a task's versions",
            ),
        ] {
            sqlx::query(sql)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(db(what))?;
        }
        let done = sqlx::query("DELETE FROM tasks WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db(action))?;
        if done.rows_affected() == 0 {
            return Err(no_task(id));
        }
        tx.commit().await.map_err(db(action))?;
        Ok(())
    }

    /// A page of the task list, by name, each task with its schedules, its earliest next fire
    /// among enabled schedules and its most recently started run; `filter` narrows it (and
    /// its `total`).
    pub async fn tasks(&self, filter: &TaskFilter, page: Page) -> Result<Paged<TaskListing>> {
        let task_cols = prefixed("t", "", TASK_COLUMNS);
        let run_cols = prefixed_run_columns("r", "r_");
        let pattern = name_pattern(filter.name_contains.as_deref());
        let folder = filter.folder.as_deref().map(check_folder).transpose()?;
        let below = folder.as_deref().map(below_pattern);
        let tag = filter.tag.as_deref().map(tag_pattern);
        let columns = format!(
            "{task_cols}, {run_cols}, \
             (SELECT COUNT(*) FROM schedules s WHERE s.task_id = t.id) AS schedule_count, \
             (SELECT MIN(s.next_fire_at_ms) FROM schedules s \
              WHERE s.task_id = t.id AND s.enabled = 1 AND s.task_enabled = 1) \
              AS next_fire_at_ms"
        );
        // The page and its total come from one statement (a task created between two would
        // be counted but not listed).
        let q = PageQuery {
            columns: &columns,
            table: "tasks t LEFT JOIN task_runs r ON r.id = \
                    (SELECT r2.id FROM task_runs r2 WHERE r2.task_id = t.id \
                     ORDER BY r2.started_at_ms DESC, r2.id DESC LIMIT 1)",
            cond: LIST_CONDITION,
            order: "t.name, t.id",
            params: &[
                Some(&pattern),
                folder.as_deref(),
                below.as_deref(),
                tag.as_deref(),
            ],
        };
        let mut listed = page_of(&self.pool, &q, page, "listing tasks", listing_from_row).await?;
        let ids: Vec<String> = listed.items.iter().map(|l| l.task.id.clone()).collect();
        for schedule in self.schedules_of_tasks(&ids).await? {
            if let Some(l) = listed
                .items
                .iter_mut()
                .find(|l| l.task.id == schedule.task_id)
            {
                l.schedules.push(schedule);
            }
        }
        Ok(listed)
    }
}

/// The conditions of the task list: `$1` is a [`name_pattern`]; `$2` a folder and `$3` the
/// pattern of its subfolders ([`below_pattern`]), or both NULL; `$4` a [`tag_pattern`] or
/// NULL.
const LIST_CONDITION: &str = "LOWER(t.name) LIKE LOWER($1) ESCAPE '\\' \
     AND ($2 IS NULL OR t.folder = $2 OR t.folder LIKE $3 ESCAPE '\\') \
     AND ($4 IS NULL OR LOWER(t.tags) LIKE $4 ESCAPE '\\')";

/// The `LIKE` pattern of a name filter: the text with `%`, `_` and `\` escaped, between `%`s
/// (`%` alone, which every name matches, for no filter).
fn name_pattern(contains: Option<&str>) -> String {
    let mut p = String::from("%");
    for c in contains.unwrap_or_default().chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    if p.len() > 1 {
        p.push('%');
    }
    p
}

/// Copies a task's switch into its schedules' `task_enabled` (in the caller's transaction);
/// a claim read before the change then loses.
async fn mirror_switch(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    task_id: &str,
    enabled: bool,
) -> Result<()> {
    sqlx::query(
        "UPDATE schedules SET task_enabled = $2, version = version + 1 \
         WHERE task_id = $1 AND task_enabled <> $2",
    )
    .bind(task_id)
    .bind(flag(enabled))
    .execute(&mut **tx)
    .await
    .map_err(db("switching a task's schedules"))?;
    Ok(())
}

/// Inserts a checked task with a fresh id and its version 1, in the caller's transaction.
pub(crate) async fn insert_task(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    new: &NewTask,
    stamp: &VersionStamp,
    now: i64,
) -> Result<Task> {
    let action = "creating a task";
    let task = Task {
        id: uuid::Uuid::new_v4().to_string(),
        name: new.name.clone(),
        device: new.device.clone(),
        definition: new.definition.clone(),
        enabled: new.enabled,
        folder: new.folder.clone(),
        tags: new.tags.clone(),
        version: 1,
        notify: new.notify,
        created_at_ms: now,
        updated_at_ms: now,
    };
    sqlx::query(
        "INSERT INTO tasks (id, name, device, definition, enabled, folder, tags, version, \
         created_at_ms, updated_at_ms, notify_on_failure, notify_on_success, \
         notify_on_notify_step) VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8, $8, $9, $10, $11)",
    )
    .bind(&task.id)
    .bind(&task.name)
    .bind(&task.device)
    .bind(&task.definition)
    .bind(flag(task.enabled))
    .bind(&task.folder)
    .bind(to_json(&task.tags))
    .bind(now)
    .bind(flag(new.notify.on_failure))
    .bind(flag(new.notify.on_success))
    .bind(flag(new.notify.on_notify_step))
    .execute(&mut **tx)
    .await
    .map_err(|e| name_taken_or(e, &new.name, action))?;
    record_version(tx, &task, stamp, now).await?;
    Ok(task)
}

/// Replaces a task's record with a checked one as its next version, in the caller's
/// transaction.
pub(crate) async fn replace_task(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: &str,
    new: &NewTask,
    stamp: &VersionStamp,
    now: i64,
) -> Result<Task> {
    let action = "updating a task";
    let done = sqlx::query(
        "UPDATE tasks SET name = $2, device = $3, definition = $4, enabled = $5, \
         folder = $6, tags = $7, version = version + 1, updated_at_ms = $8, \
         notify_on_failure = $9, notify_on_success = $10, notify_on_notify_step = $11 \
         WHERE id = $1",
    )
    .bind(id)
    .bind(&new.name)
    .bind(&new.device)
    .bind(&new.definition)
    .bind(flag(new.enabled))
    .bind(&new.folder)
    .bind(to_json(&new.tags))
    .bind(now)
    .bind(flag(new.notify.on_failure))
    .bind(flag(new.notify.on_success))
    .bind(flag(new.notify.on_notify_step))
    .execute(&mut **tx)
    .await
    .map_err(|e| name_taken_or(e, &new.name, action))?;
    if done.rows_affected() == 0 {
        return Err(no_task(id));
    }
    mirror_switch(tx, id, new.enabled).await?;
    let sql = format!("SELECT {TASK_COLUMNS} FROM tasks WHERE id = $1");
    let row = sqlx::query(AssertSqlSafe(sql))
        .bind(id)
        .fetch_one(&mut **tx)
        .await
        .map_err(db(action))?;
    let task = task_from_row(&row, "")?;
    record_version(tx, &task, stamp, now).await?;
    Ok(task)
}

/// The store's own checks of a task (a name, a device, its folder and tags) and of the stamp
/// of its version; the task with its folder and tags as stored.
pub(crate) fn check_task(new: &NewTask, stamp: &VersionStamp) -> Result<NewTask> {
    if new.name.trim().is_empty() {
        return Err(StoreError::Invalid("a task needs a name".into()));
    }
    if new.device.trim().is_empty() {
        return Err(StoreError::Invalid(format!(
            "task {:?} needs a device (e.g. \"local\")",
            new.name
        )));
    }
    check_stamp(stamp)?;
    Ok(NewTask {
        folder: check_folder(&new.folder)?,
        tags: check_tags(&new.tags)?,
        ..new.clone()
    })
}

fn name_taken_or(e: sqlx::Error, name: &str, action: &'static str) -> StoreError {
    if is_unique_violation(&e) {
        StoreError::Conflict(format!("a task named {name:?} already exists"))
    } else {
        db(action)(e)
    }
}

/// A task from columns named `prefix` + the column.
fn task_from_row(row: &AnyRow, prefix: &str) -> Result<Task> {
    const READ: &str = "reading a task";
    let col = |name: &str| format!("{prefix}{name}");
    Ok(Task {
        id: column(row, &col("id"), READ)?,
        name: column(row, &col("name"), READ)?,
        device: column(row, &col("device"), READ)?,
        definition: column(row, &col("definition"), READ)?,
        enabled: flag_from(row, &col("enabled"), READ)?,
        notify: TaskNotify {
            on_failure: flag_from(row, &col("notify_on_failure"), READ)?,
            on_success: flag_from(row, &col("notify_on_success"), READ)?,
            on_notify_step: flag_from(row, &col("notify_on_notify_step"), READ)?,
        },
        folder: column(row, &col("folder"), READ)?,
        tags: tags_from_row(row, prefix, READ)?,
        version: column(row, &col("version"), READ)?,
        created_at_ms: column(row, &col("created_at_ms"), READ)?,
        updated_at_ms: column(row, &col("updated_at_ms"), READ)?,
    })
}

fn listing_from_row(row: &AnyRow) -> Result<TaskListing> {
    const READ: &str = "listing tasks";
    let task = task_from_row(row, "")?;
    let last_run = match column::<Option<String>>(row, "r_id", READ)? {
        Some(_) => Some(task_run_from_row(row, "r_")?),
        None => None,
    };
    Ok(TaskListing {
        schedule_count: from_db(
            &format!("task {}, schedule count", task.id),
            column(row, "schedule_count", READ)?,
        )?,
        next_fire_at_ms: column(row, "next_fire_at_ms", READ)?,
        last_run,
        task,
        schedules: Vec::new(),
    })
}
