//! Named API tokens: each kept by the SHA-256 of its value (the value is shown once, by the
//! server, and never stored), with its scopes, who made it, an optional expiry, its last use
//! and its revocation; and the calls each token made, a bounded log per token — the server's
//! own API token's calls too, under [`SERVER_TOKEN_ID`].

use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::any::AnyRow;

use crate::Store;
use crate::convert::column;
use crate::error::{Result, StoreError, db, is_unique_violation};

const READ: &str = "reading an API token";
const COLUMNS: &str = "id, name, prefix, scopes, created_by, created_at_ms, expires_at_ms, \
     last_used_at_ms, revoked_at_ms";

/// The token id the server's own API token (not a named one) logs its calls under.
pub const SERVER_TOKEN_ID: &str = "api-token";

/// A named API token as listed: everything but its value and hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiToken {
    /// v4 UUID.
    pub id: String,
    /// Unique name.
    pub name: String,
    /// The value's first characters, to recognise it.
    pub prefix: String,
    /// The scope names it grants.
    pub scopes: Vec<String>,
    /// The username that made it, or `cli`.
    pub created_by: String,
    /// When it was made, ms since the epoch.
    pub created_at_ms: i64,
    /// When it stops working, if ever.
    pub expires_at_ms: Option<i64>,
    /// Its last call (to the minute), if any.
    pub last_used_at_ms: Option<i64>,
    /// When it was revoked, if it was.
    pub revoked_at_ms: Option<i64>,
}

/// What [`Store::create_api_token`] takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApiToken {
    /// Unique name.
    pub name: String,
    /// The SHA-256 of the value, hex.
    pub token_hash: String,
    /// The value's first characters.
    pub prefix: String,
    /// The scope names it grants.
    pub scopes: Vec<String>,
    /// The username that makes it, or `cli`.
    pub created_by: String,
    /// Now, ms since the epoch.
    pub created_at_ms: i64,
    /// When it stops working, if ever.
    pub expires_at_ms: Option<i64>,
}

/// One call a token made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiTokenCall {
    /// The token's id.
    pub token_id: String,
    /// When, ms since the epoch.
    pub at_ms: i64,
    /// The HTTP method.
    pub method: String,
    /// The path (without the query string).
    pub path: String,
    /// The HTTP status it was answered with.
    pub status: u16,
}

impl Store {
    /// Stores a new token. [`StoreError::Conflict`] when the name is taken.
    pub async fn create_api_token(&self, new: &NewApiToken) -> Result<ApiToken> {
        let token = ApiToken {
            id: uuid::Uuid::new_v4().to_string(),
            name: new.name.clone(),
            prefix: new.prefix.clone(),
            scopes: new.scopes.clone(),
            created_by: new.created_by.clone(),
            created_at_ms: new.created_at_ms,
            expires_at_ms: new.expires_at_ms,
            last_used_at_ms: None,
            revoked_at_ms: None,
        };
        sqlx::query(
            "INSERT INTO api_tokens (id, name, token_hash, prefix, scopes, created_by, \
             created_at_ms, expires_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&token.id)
        .bind(&token.name)
        .bind(&new.token_hash)
        .bind(&token.prefix)
        .bind(token.scopes.join(","))
        .bind(&token.created_by)
        .bind(token.created_at_ms)
        .bind(token.expires_at_ms)
        .execute(&self.pool)
        .await
        .map_err(|e| {
            if is_unique_violation(&e) {
                StoreError::Conflict(format!("an API token named {:?} exists", new.name))
            } else {
                db("saving an API token")(e)
            }
        })?;
        Ok(token)
    }

    /// Every token, revoked ones included, newest first.
    pub async fn api_tokens(&self) -> Result<Vec<ApiToken>> {
        let sql = format!("SELECT {COLUMNS} FROM api_tokens ORDER BY created_at_ms DESC, id");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .fetch_all(&self.pool)
            .await
            .map_err(db(READ))?;
        rows.iter().map(token_from_row).collect()
    }

    /// The token named `name`, or whose id is `name`.
    pub async fn api_token(&self, name: &str) -> Result<Option<ApiToken>> {
        let sql = format!("SELECT {COLUMNS} FROM api_tokens WHERE name = $1 OR id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(name)
            .fetch_optional(&self.pool)
            .await
            .map_err(db(READ))?;
        row.as_ref().map(token_from_row).transpose()
    }

    /// The token whose value hashes to `token_hash`, revoked or expired ones included (the
    /// caller decides what they may do).
    pub async fn api_token_by_hash(&self, token_hash: &str) -> Result<Option<ApiToken>> {
        let sql = format!("SELECT {COLUMNS} FROM api_tokens WHERE token_hash = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(token_hash)
            .fetch_optional(&self.pool)
            .await
            .map_err(db(READ))?;
        row.as_ref().map(token_from_row).transpose()
    }

    /// Revokes the token named `name` (or with that id) at `at_ms`; the token as it is now, or
    /// `None` when there is no such token. Revoking a revoked token keeps its first moment.
    pub async fn revoke_api_token(&self, name: &str, at_ms: i64) -> Result<Option<ApiToken>> {
        sqlx::query(
            "UPDATE api_tokens SET revoked_at_ms = $2 \
             WHERE (name = $1 OR id = $1) AND revoked_at_ms IS NULL",
        )
        .bind(name)
        .bind(at_ms)
        .execute(&self.pool)
        .await
        .map_err(db("revoking an API token"))?;
        self.api_token(name).await
    }

    /// Records that token `id` was used at `at_ms`.
    pub async fn touch_api_token(&self, id: &str, at_ms: i64) -> Result<()> {
        sqlx::query("UPDATE api_tokens SET last_used_at_ms = $2 WHERE id = $1")
            .bind(id)
            .bind(at_ms)
            .execute(&self.pool)
            .await
            .map_err(db("recording an API token's use"))?;
        Ok(())
    }

    /// Appends `calls` to their tokens' logs, then keeps the newest `keep` calls of each of
    /// those tokens. Calls of a token deleted meanwhile are dropped; calls of
    /// [`SERVER_TOKEN_ID`] are kept though no named token has that id.
    pub async fn record_api_token_calls(&self, calls: &[ApiTokenCall], keep: u32) -> Result<()> {
        let mut tx = self.pool.begin().await.map_err(db("logging API calls"))?;
        for call in calls {
            if call.token_id == SERVER_TOKEN_ID {
                insert_call(&mut tx, call).await?;
                continue;
            }
            let known = sqlx::query("SELECT 1 AS one FROM api_tokens WHERE id = $1")
                .bind(&call.token_id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db("logging API calls"))?;
            if known.is_some() {
                insert_call(&mut tx, call).await?;
            }
        }
        let mut ids: Vec<&str> = calls.iter().map(|c| c.token_id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            sqlx::query(
                "DELETE FROM api_token_calls WHERE token_id = $1 AND at_ms < COALESCE(( \
                 SELECT at_ms FROM api_token_calls WHERE token_id = $1 \
                 ORDER BY at_ms DESC LIMIT 1 OFFSET $2), -1)",
            )
            .bind(id)
            .bind(i64::from(keep.saturating_sub(1)))
            .execute(&mut *tx)
            .await
            .map_err(db("pruning API calls"))?;
        }
        tx.commit().await.map_err(db("logging API calls"))
    }

    /// The newest `limit` calls token `id` made, newest first.
    pub async fn api_token_calls(&self, id: &str, limit: u32) -> Result<Vec<ApiTokenCall>> {
        let rows = sqlx::query(
            "SELECT token_id, at_ms, method, path, status FROM api_token_calls \
             WHERE token_id = $1 ORDER BY at_ms DESC LIMIT $2",
        )
        .bind(id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await
        .map_err(db("reading API calls"))?;
        rows.iter().map(call_from_row).collect()
    }
}

async fn insert_call(tx: &mut sqlx::Transaction<'_, sqlx::Any>, call: &ApiTokenCall) -> Result<()> {
    sqlx::query(
        "INSERT INTO api_token_calls (token_id, at_ms, method, path, status) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(&call.token_id)
    .bind(call.at_ms)
    .bind(&call.method)
    .bind(&call.path)
    .bind(i64::from(call.status))
    .execute(&mut **tx)
    .await
    .map_err(db("logging API calls"))?;
    Ok(())
}

fn token_from_row(row: &AnyRow) -> Result<ApiToken> {
    let scopes: String = column(row, "scopes", READ)?;
    Ok(ApiToken {
        id: column(row, "id", READ)?,
        name: column(row, "name", READ)?,
        prefix: column(row, "prefix", READ)?,
        scopes: scopes
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        created_by: column(row, "created_by", READ)?,
        created_at_ms: column(row, "created_at_ms", READ)?,
        expires_at_ms: column(row, "expires_at_ms", READ)?,
        last_used_at_ms: column(row, "last_used_at_ms", READ)?,
        revoked_at_ms: column(row, "revoked_at_ms", READ)?,
    })
}

fn call_from_row(row: &AnyRow) -> Result<ApiTokenCall> {
    let status: i64 = row.try_get("status").map_err(db("reading API calls"))?;
    Ok(ApiTokenCall {
        token_id: column(row, "token_id", "reading API calls")?,
        at_ms: column(row, "at_ms", "reading API calls")?,
        method: column(row, "method", "reading API calls")?,
        path: column(row, "path", "reading API calls")?,
        status: u16::try_from(status).map_err(|_| StoreError::Corrupt {
            what: "an API call's status".to_owned(),
            cause: format!("{status} is no HTTP status"),
        })?,
    })
}
