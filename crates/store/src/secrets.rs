//! The secrets tasks use: each kept by name with its value sealed by the server (the store never
//! sees a value in clear), who set it last and when. Listing reads names only; the sealed value
//! is read one name at a time, for a run.

use sqlx::any::AnyRow;

use crate::convert::{column, now_ms};
use crate::error::{Result, db};
use crate::{SecretEntry, Store};

const READ: &str = "reading a secret";

impl Store {
    /// Stores `sealed` under `name`, creating the secret or replacing its value; `set_by` is the
    /// username that set it. Answers the entry as listed.
    pub async fn set_secret(&self, name: &str, sealed: &str, set_by: &str) -> Result<SecretEntry> {
        let entry = SecretEntry {
            name: name.to_owned(),
            set_by: set_by.to_owned(),
            updated_at_ms: now_ms(),
        };
        sqlx::query(
            "INSERT INTO secrets (name, sealed, set_by, updated_at_ms) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (name) DO UPDATE SET sealed = excluded.sealed, \
             set_by = excluded.set_by, updated_at_ms = excluded.updated_at_ms",
        )
        .bind(&entry.name)
        .bind(sealed)
        .bind(&entry.set_by)
        .bind(entry.updated_at_ms)
        .execute(&self.pool)
        .await
        .map_err(db("saving a secret"))?;
        Ok(entry)
    }

    /// Every secret by name (never a value), in name order.
    pub async fn secrets(&self) -> Result<Vec<SecretEntry>> {
        let rows = sqlx::query("SELECT name, set_by, updated_at_ms FROM secrets ORDER BY name")
            .fetch_all(&self.pool)
            .await
            .map_err(db(READ))?;
        rows.iter().map(entry_from_row).collect()
    }

    /// The sealed value of `name`, if there is such a secret.
    pub async fn sealed_secret(&self, name: &str) -> Result<Option<String>> {
        let row = sqlx::query("SELECT sealed FROM secrets WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .map_err(db(READ))?;
        row.map(|r| column::<String>(&r, "sealed", READ))
            .transpose()
    }

    /// Deletes `name`; whether there was such a secret.
    pub async fn delete_secret(&self, name: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM secrets WHERE name = $1")
            .bind(name)
            .execute(&self.pool)
            .await
            .map_err(db("deleting a secret"))?;
        Ok(done.rows_affected() > 0)
    }
}

fn entry_from_row(row: &AnyRow) -> Result<SecretEntry> {
    Ok(SecretEntry {
        name: column(row, "name", READ)?,
        set_by: column(row, "set_by", READ)?,
        updated_at_ms: column(row, "updated_at_ms", READ)?,
    })
}
