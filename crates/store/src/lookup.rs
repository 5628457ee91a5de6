//! The shapes every by-key read of the store shares: one row by its key (or the caller's
//! "no such …" error), and the rows that belong to a key that must exist (tasks, schedules,
//! task runs, agent runs all read this way).

use sqlx::any::AnyRow;
use sqlx::{AnyPool, AssertSqlSafe};

use crate::error::{Result, StoreError, db};

/// The row `sql` (one `$1` placeholder) finds for `key`, read by `read`; `None` when there is
/// none. `action` says what the store was doing, for a driver error.
pub(crate) async fn optional<T>(
    pool: &AnyPool,
    sql: String,
    key: &str,
    action: &'static str,
    read: impl FnOnce(&AnyRow) -> Result<T>,
) -> Result<Option<T>> {
    let row = sqlx::query(AssertSqlSafe(sql))
        .bind(key)
        .fetch_optional(pool)
        .await
        .map_err(db(action))?;
    row.as_ref().map(read).transpose()
}

/// As [`optional`], but a missing row is the error `missing` makes (the caller's
/// [`StoreError::NotFound`] naming the key).
pub(crate) async fn one<T>(
    pool: &AnyPool,
    sql: String,
    key: &str,
    action: &'static str,
    read: impl FnOnce(&AnyRow) -> Result<T>,
    missing: impl FnOnce() -> StoreError,
) -> Result<T> {
    optional(pool, sql, key, action, read)
        .await?
        .ok_or_else(missing)
}

/// The rows `list_sql` finds for `key`, provided `exists_sql` finds the key's own row (both
/// with one `$1` placeholder), read in one transaction so that the answer never mixes "it
/// exists" with rows of a later state; otherwise the error `missing` makes.
pub(crate) async fn children<T>(
    pool: &AnyPool,
    exists_sql: &'static str,
    list_sql: String,
    key: &str,
    action: &'static str,
    read: impl Fn(&AnyRow) -> Result<T>,
    missing: impl FnOnce() -> StoreError,
) -> Result<Vec<T>> {
    let mut tx = pool.begin().await.map_err(db(action))?;
    let exists: Option<String> = sqlx::query_scalar(exists_sql)
        .bind(key)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db(action))?;
    if exists.is_none() {
        return Err(missing());
    }
    let rows = sqlx::query(AssertSqlSafe(list_sql))
        .bind(key)
        .fetch_all(&mut *tx)
        .await
        .map_err(db(action))?;
    tx.commit().await.map_err(db(action))?;
    rows.iter().map(read).collect()
}
