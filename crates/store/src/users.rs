//! The console's users and their login sessions.

use sqlx::Row;
use sqlx::any::AnyRow;

use crate::convert::now_ms;
use crate::error::{Result, StoreError, db, is_foreign_key_violation, is_unique_violation};
use crate::{SessionRow, Store, User};

const USER_COLUMNS: &str = "id, username, password_hash, created_at_ms";
const SESSION_COLUMNS: &str = "id_hash, user_id, csrf_token, created_at_ms, expires_at_ms";

impl Store {
    /// How many users exist (0 means the console still needs its setup).
    pub async fn user_count(&self) -> Result<u64> {
        let n: i64 = sqlx::query("SELECT COUNT(*) AS n FROM users")
            .fetch_one(&self.pool)
            .await
            .and_then(|r| r.try_get("n"))
            .map_err(db("counting users"))?;
        crate::convert::from_db("users count", n)
    }

    /// The user with this username.
    pub async fn user(&self, username: &str) -> Result<Option<User>> {
        let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE username = $1");
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(username)
            .fetch_optional(&self.pool)
            .await
            .and_then(|r| r.as_ref().map(user_from_row).transpose())
            .map_err(db("reading a user"))
    }

    /// The user with this id.
    pub async fn user_by_id(&self, id: &str) -> Result<Option<User>> {
        let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1");
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .and_then(|r| r.as_ref().map(user_from_row).transpose())
            .map_err(db("reading a user"))
    }

    /// Creates a user with a fresh id. [`StoreError::Conflict`] when the username is taken.
    pub async fn create_user(&self, username: &str, password_hash: &str) -> Result<User> {
        let user = User {
            id: uuid::Uuid::new_v4().to_string(),
            username: username.to_owned(),
            password_hash: password_hash.to_owned(),
            created_at_ms: now_ms(),
        };
        sqlx::query(
            "INSERT INTO users (id, username, password_hash, created_at_ms) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(&user.id)
        .bind(&user.username)
        .bind(&user.password_hash)
        .bind(user.created_at_ms)
        .execute(&self.pool)
        .await
        .map_err(|e| {
            if is_unique_violation(&e) {
                StoreError::Conflict(format!("the username {username:?} is taken"))
            } else {
                db("creating a user")(e)
            }
        })?;
        Ok(user)
    }

    /// Stores a login session. [`StoreError::NotFound`] when its user does not exist,
    /// [`StoreError::Conflict`] when the id hash is already stored.
    pub async fn create_session(&self, s: &SessionRow) -> Result<()> {
        sqlx::query(
            "INSERT INTO sessions (id_hash, user_id, csrf_token, created_at_ms, expires_at_ms) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&s.id_hash)
        .bind(&s.user_id)
        .bind(&s.csrf_token)
        .bind(s.created_at_ms)
        .bind(s.expires_at_ms)
        .execute(&self.pool)
        .await
        .map_err(|e| {
            if is_unique_violation(&e) {
                StoreError::Conflict("a session with this id already exists".into())
            } else if is_foreign_key_violation(&e) {
                StoreError::NotFound(format!(
                    "cannot create a session for user {:?}: no such user",
                    s.user_id
                ))
            } else {
                db("creating a session")(e)
            }
        })?;
        Ok(())
    }

    /// The session with this id hash, expired or not (the caller compares
    /// [`SessionRow::expires_at_ms`] with its clock).
    pub async fn session(&self, id_hash: &str) -> Result<Option<SessionRow>> {
        let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id_hash = $1");
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id_hash)
            .fetch_optional(&self.pool)
            .await
            .and_then(|r| r.as_ref().map(session_from_row).transpose())
            .map_err(db("reading a session"))
    }

    /// Deletes a session (logout); nothing happens when it does not exist.
    pub async fn delete_session(&self, id_hash: &str) -> Result<()> {
        sqlx::query("DELETE FROM sessions WHERE id_hash = $1")
            .bind(id_hash)
            .execute(&self.pool)
            .await
            .map_err(db("deleting a session"))?;
        Ok(())
    }

    /// Deletes every session whose expiry is at or before `now_ms`; returns how many.
    pub async fn purge_sessions(&self, now_ms: i64) -> Result<u64> {
        let done = sqlx::query("DELETE FROM sessions WHERE expires_at_ms <= $1")
            .bind(now_ms)
            .execute(&self.pool)
            .await
            .map_err(db("purging expired sessions"))?;
        Ok(done.rows_affected())
    }
}

fn user_from_row(row: &AnyRow) -> Result<User, sqlx::Error> {
    Ok(User {
        id: row.try_get("id")?,
        username: row.try_get("username")?,
        password_hash: row.try_get("password_hash")?,
        created_at_ms: row.try_get("created_at_ms")?,
    })
}

fn session_from_row(row: &AnyRow) -> Result<SessionRow, sqlx::Error> {
    Ok(SessionRow {
        id_hash: row.try_get("id_hash")?,
        user_id: row.try_get("user_id")?,
        csrf_token: row.try_get("csrf_token")?,
        created_at_ms: row.try_get("created_at_ms")?,
        expires_at_ms: row.try_get("expires_at_ms")?,
    })
}
