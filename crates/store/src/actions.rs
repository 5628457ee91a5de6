//! Actions of the action library: create, read (by id or name), list, replace, delete; the
//! recall keys and the use counter. The store keeps the steps as given: the caller validates
//! them (deft-tasks' validator in library mode) before they get here.

use std::collections::BTreeMap;

use sqlx::any::AnyRow;

use crate::convert::{column, from_db, from_json, now_ms, to_json};
use crate::error::{Result, StoreError, db, is_unique_violation};
use crate::experiences::{bump_generation, record_hits};
use crate::lookup;
use crate::select::{self, PageQuery, like_pattern};
use crate::{Action, ActionKey, NewAction, Page, Paged, Store};

const ACTION_COLUMNS: &str = "id, name, aliases, description, app, variables, steps, source_run, \
     hits, last_used_at_ms, created_at_ms, updated_at_ms";

impl Store {
    /// Stores a new action. [`StoreError::Conflict`] when another action has the name (in any
    /// case), [`StoreError::Invalid`] for a blank name or steps that are not a JSON array.
    pub async fn create_action(&self, new: &NewAction) -> Result<Action> {
        check_action(new)?;
        let action = "creating an action";
        let id = uuid::Uuid::new_v4().to_string();
        let now = now_ms();
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        bind_action(
            sqlx::query(
                "INSERT INTO actions (id, name, name_key, aliases, description, app, variables, \
                 steps, source_run, updated_at_ms, hits, created_at_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, $10)",
            ),
            &id,
            new,
            now,
        )
        .execute(&mut *tx)
        .await
        .map_err(|e| name_taken_or(e, &new.name, action))?;
        bump_generation(&mut tx).await?;
        tx.commit().await.map_err(db(action))?;
        self.action(&id).await
    }

    /// The action with this id; [`StoreError::NotFound`] when there is none.
    pub async fn action(&self, id: &str) -> Result<Action> {
        let sql = format!("SELECT {ACTION_COLUMNS} FROM actions WHERE id = $1");
        lookup::optional(&self.pool, sql, id, "reading an action", action_from_row)
            .await?
            .ok_or_else(|| no_action(id))
    }

    /// The action with this name, compared without regard to case or surrounding spaces;
    /// `None` when there is none.
    pub async fn action_by_name(&self, name: &str) -> Result<Option<Action>> {
        let sql = format!("SELECT {ACTION_COLUMNS} FROM actions WHERE name_key = $1");
        lookup::optional(
            &self.pool,
            sql,
            &name_key(name),
            "reading an action",
            action_from_row,
        )
        .await
    }

    /// The actions with these ids that exist, in no particular order.
    pub async fn actions_by_ids(&self, ids: &[String]) -> Result<Vec<Action>> {
        select::by_ids(
            &self.pool,
            ACTION_COLUMNS,
            "actions",
            ids,
            "reading actions",
            action_from_row,
        )
        .await
    }

    /// A page of actions by name; `text`: only those whose name, aliases or description
    /// contain it (case-insensitive).
    pub async fn actions(&self, text: Option<&str>, page: Page) -> Result<Paged<Action>> {
        let pattern = text.map(like_pattern);
        let query = PageQuery {
            columns: ACTION_COLUMNS,
            table: "actions",
            cond: "($1 IS NULL OR name_key LIKE $1 ESCAPE '\\' OR LOWER(aliases) LIKE $1 \
                   ESCAPE '\\' OR LOWER(description) LIKE $1 ESCAPE '\\')",
            order: "name_key, id",
            params: &[pattern.as_deref()],
        };
        select::page_of(&self.pool, &query, page, "listing actions", action_from_row).await
    }

    /// Replaces an action (hits and creation time stay). [`StoreError::NotFound`] for an
    /// unknown id, [`StoreError::Conflict`] when another action has the name.
    pub async fn update_action(&self, id: &str, new: &NewAction) -> Result<Action> {
        check_action(new)?;
        let action = "updating an action";
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        let done = bind_action(
            sqlx::query(
                "UPDATE actions SET name = $2, name_key = $3, aliases = $4, description = $5, \
                 app = $6, variables = $7, steps = $8, source_run = $9, updated_at_ms = $10 \
                 WHERE id = $1",
            ),
            id,
            new,
            now_ms(),
        )
        .execute(&mut *tx)
        .await
        .map_err(|e| name_taken_or(e, &new.name, action))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("no action has the id {id:?}")));
        }
        bump_generation(&mut tx).await?;
        tx.commit().await.map_err(db(action))?;
        self.action(id).await
    }

    /// Deletes an action. [`StoreError::NotFound`] for an unknown id.
    pub async fn delete_action(&self, id: &str) -> Result<()> {
        let action = "deleting an action";
        let mut tx = self.pool.begin().await.map_err(db(action))?;
        let done = sqlx::query("DELETE FROM actions WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(db(action))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("no action has the id {id:?}")));
        }
        bump_generation(&mut tx).await?;
        tx.commit().await.map_err(db(action))?;
        Ok(())
    }

    /// What recall compares, for every action.
    pub async fn action_keys(&self) -> Result<Vec<ActionKey>> {
        const READ: &str = "reading the action keys";
        let rows = sqlx::query("SELECT id, name, aliases FROM actions ORDER BY id")
            .fetch_all(&self.pool)
            .await
            .map_err(db(READ))?;
        rows.iter()
            .map(|r| {
                let id: String = column(r, "id", READ)?;
                let aliases: String = column(r, "aliases", READ)?;
                Ok(ActionKey {
                    aliases: from_json(&format!("action {id}, column aliases"), &aliases)?,
                    name: column(r, "name", READ)?,
                    id,
                })
            })
            .collect()
    }

    /// Counts a recall or a run of these actions: one hit each, last used at `at_ms`.
    pub async fn record_action_hits(&self, ids: &[String], at_ms: i64) -> Result<()> {
        record_hits(self, "actions", ids, at_ms).await
    }
}

/// Binds `$1` = `id`, `$2…$9` = the action's fields, `$10` = `at_ms` (the statements that write
/// an action take them in this order).
fn bind_action<'q>(
    q: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    id: &'q str,
    new: &'q NewAction,
    at_ms: i64,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    q.bind(id)
        .bind(new.name.trim())
        .bind(name_key(&new.name))
        .bind(to_json(&new.aliases))
        .bind(&new.description)
        .bind(new.app.as_deref())
        .bind(to_json(&new.variables))
        .bind(to_json(&new.steps))
        .bind(new.source_run.as_deref())
        .bind(at_ms)
}

fn no_action(id: &str) -> StoreError {
    StoreError::NotFound(format!("no action has the id {id:?}"))
}

/// A name as compared: trimmed and lower case.
fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

fn check_action(new: &NewAction) -> Result<()> {
    if new.name.trim().is_empty() {
        return Err(StoreError::Invalid("an action needs a name".into()));
    }
    if !new.steps.is_array() {
        return Err(StoreError::Invalid(format!(
            "the steps of action {:?} must be a JSON array",
            new.name
        )));
    }
    Ok(())
}

fn name_taken_or(e: sqlx::Error, name: &str, action: &'static str) -> StoreError {
    if is_unique_violation(&e) {
        StoreError::Conflict(format!(
            "an action named {:?} already exists (names are compared without regard to case)",
            name.trim()
        ))
    } else {
        db(action)(e)
    }
}

fn action_from_row(row: &AnyRow) -> Result<Action> {
    const READ: &str = "reading an action";
    let id: String = column(row, "id", READ)?;
    let what = |c: &str| format!("action {id}, column {c}");
    let aliases: String = column(row, "aliases", READ)?;
    let variables: String = column(row, "variables", READ)?;
    let steps: String = column(row, "steps", READ)?;
    Ok(Action {
        name: column(row, "name", READ)?,
        aliases: from_json(&what("aliases"), &aliases)?,
        description: column(row, "description", READ)?,
        app: column(row, "app", READ)?,
        variables: from_json::<BTreeMap<String, String>>(&what("variables"), &variables)?,
        steps: from_json(&what("steps"), &steps)?,
        source_run: column(row, "source_run", READ)?,
        hits: from_db(&what("hits"), column(row, "hits", READ)?)?,
        last_used_at_ms: column(row, "last_used_at_ms", READ)?,
        created_at_ms: column(row, "created_at_ms", READ)?,
        updated_at_ms: column(row, "updated_at_ms", READ)?,
        id,
    })
}
