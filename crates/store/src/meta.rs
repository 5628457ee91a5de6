//! `app_meta`: settings as key/value text (seed 001 §6 keys: `agent_api_base`, `agent_model`, …).

use crate::Store;
use crate::error::{Result, db};
use sqlx::Row;

impl Store {
    /// The value stored under `key`, if any.
    pub async fn meta(&self, key: &str) -> Result<Option<String>> {
        let row = sqlx::query("SELECT value FROM app_meta WHERE key = $1")
            .bind(key)
            .fetch_optional(&self.pool)
            .await
            .map_err(db("reading a setting"))?;
        row.map(|r| r.try_get("value"))
            .transpose()
            .map_err(db("reading a setting"))
    }

    /// Stores `value` under `key`, replacing what was there.
    pub async fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO app_meta (key, value) VALUES ($1, $2) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .bind(key)
        .bind(value)
        .execute(&self.pool)
        .await
        .map_err(db("saving a setting"))?;
        Ok(())
    }

    /// Removes `key` (nothing happens when it is not set).
    pub async fn delete_meta(&self, key: &str) -> Result<()> {
        sqlx::query("DELETE FROM app_meta WHERE key = $1")
            .bind(key)
            .execute(&self.pool)
            .await
            .map_err(db("deleting a setting"))?;
        Ok(())
    }
}
