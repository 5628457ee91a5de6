//! Opening a database: which backend a URL names, the SQLite file URL of a data folder, the
//! pool, the per-connection SQLite settings and the migrations.

use std::path::Path;
use std::time::Duration;

use sqlx::AnyConnection;
use sqlx::any::AnyPoolOptions;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AnyPool, Connection, Executor, Row, SqlSafeStr};

use crate::Backend;
use crate::error::{Result, StoreError};

/// File name of the default database inside the data folder.
pub(crate) const DB_FILE: &str = "deft.db";

/// How long SQLite waits for a lock before answering "database is locked", in milliseconds.
const BUSY_TIMEOUT_MS: u32 = 5_000;

/// Pool size per store.
const MAX_CONNECTIONS: u32 = 8;

/// How long a caller waits for a free pooled connection.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(30);

/// The schema, embedded, one migration per version. The same DDL serves both backends.
fn migrator() -> Migrator {
    let migration = |version, name: &str, sql: &'static str| {
        Migration::new(
            version,
            name.to_owned().into(),
            MigrationType::Simple,
            sql.into_sql_str(),
            false,
        )
    };
    Migrator::with_migrations(vec![
        migration(1, "initial", include_str!("../migrations/0001_initial.sql")),
        migration(2, "tasks", include_str!("../migrations/0002_tasks.sql")),
        migration(3, "memory", include_str!("../migrations/0003_memory.sql")),
        migration(
            4,
            "run_mode",
            include_str!("../migrations/0004_run_mode.sql"),
        ),
        migration(
            5,
            "task runs",
            include_str!("../migrations/0005_task_runs.sql"),
        ),
        migration(6, "secrets", include_str!("../migrations/0006_secrets.sql")),
        migration(
            7,
            "run history",
            include_str!("../migrations/0007_run_history.sql"),
        ),
        migration(
            8,
            "notifications",
            include_str!("../migrations/0008_notifications.sql"),
        ),
        migration(
            9,
            "task versions",
            include_str!("../migrations/0009_task_versions.sql"),
        ),
        migration(
            11,
            "API tokens",
            include_str!("../migrations/0011_api_tokens.sql"),
        ),
        migration(
            12,
            "webhooks",
            include_str!("../migrations/0012_webhooks.sql"),
        ),
        migration(13, "fleet", include_str!("../migrations/0013_fleet.sql")),
        migration(
            14,
            "server token calls",
            include_str!("../migrations/0014_server_token_calls.sql"),
        ),
    ])
}

/// The backend a DATABASE_URL-style URL names, if any.
pub(crate) fn backend_of(url: &str) -> Option<Backend> {
    let scheme = url.split_once(':')?.0.to_ascii_lowercase();
    match scheme.as_str() {
        "postgres" | "postgresql" => Some(Backend::Postgres),
        "sqlite" => Some(Backend::Sqlite),
        _ => None,
    }
}

/// The URL with any password replaced by `***`, for error texts and logs.
pub(crate) fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

/// `sqlite://` URL of a file, created when missing (`mode=rwc`). The path is percent-encoded so
/// spaces, `?` and `#` in folder names survive.
pub(crate) fn sqlite_file_url(path: &Path) -> Result<String> {
    let text = path.to_str().ok_or_else(|| StoreError::Unavailable {
        target: path.display().to_string(),
        cause: "the path is not valid UTF-8".into(),
    })?;
    let mut url = String::from("sqlite://");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'_' | b'.' | b'~') {
            url.push(char::from(b));
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url.push_str("?mode=rwc");
    Ok(url)
}

/// Opens the pool, sets SQLite up (WAL, foreign keys, busy timeout) and applies migrations.
/// `target` names the database in error texts (the file path, or the URL without password).
pub(crate) async fn open_pool(url: &str, backend: Backend, target: &str) -> Result<AnyPool> {
    sqlx::any::install_default_drivers();
    let mut options = AnyPoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .acquire_timeout(ACQUIRE_TIMEOUT);
    if backend == Backend::Sqlite {
        options = options.after_connect(|conn, _meta| Box::pin(sqlite_session_settings(conn)));
    }
    let unavailable = |e: sqlx::Error| StoreError::Unavailable {
        target: target.to_owned(),
        cause: e.to_string(),
    };
    // One direct connection first: it fails at once with the real cause, where the pool would
    // retry until its acquire timeout and then report only "pool timed out".
    let probe = AnyConnection::connect(url).await.map_err(unavailable)?;
    if let Err(e) = probe.close().await {
        tracing::debug!(target, error = %e, "closing the probe connection failed");
    }
    let pool = options.connect(url).await.map_err(unavailable)?;
    if backend == Backend::Sqlite {
        let mode: String = sqlx::query("PRAGMA journal_mode = WAL")
            .fetch_one(&pool)
            .await
            .and_then(|row| row.try_get(0))
            .map_err(unavailable)?;
        if !mode.eq_ignore_ascii_case("wal") {
            tracing::warn!(target, mode, "SQLite did not switch to WAL journaling");
        }
    }
    migrator()
        .run(&pool)
        .await
        .map_err(|e| StoreError::Migration {
            target: target.to_owned(),
            cause: e.to_string(),
        })?;
    tracing::debug!(target, ?backend, "store opened");
    Ok(pool)
}

/// Settings SQLite keeps per connection; set on every new pooled connection.
async fn sqlite_session_settings(conn: &mut AnyConnection) -> Result<(), sqlx::Error> {
    conn.execute("PRAGMA foreign_keys = ON").await?;
    conn.execute(sqlx::AssertSqlSafe(format!(
        "PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}"
    )))
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_from_scheme() {
        assert_eq!(backend_of("postgres://u@h/db"), Some(Backend::Postgres));
        assert_eq!(backend_of("PostgreSQL://u@h/db"), Some(Backend::Postgres));
        assert_eq!(backend_of("sqlite:///tmp/x.db"), Some(Backend::Sqlite));
        assert_eq!(backend_of("mysql://u@h/db"), None);
        assert_eq!(backend_of("just a path"), None);
    }

    #[test]
    fn redact_masks_only_the_password() {
        assert_eq!(
            redact("postgres://deft:s3cr@t@db.example:5432/deft?sslmode=require"),
            "postgres://deft:***@db.example:5432/deft?sslmode=require"
        );
        assert_eq!(
            redact("postgres://postgres@127.0.0.1:54329/postgres"),
            "postgres://postgres@127.0.0.1:54329/postgres"
        );
        assert_eq!(redact("sqlite:///tmp/x.db"), "sqlite:///tmp/x.db");
    }

    #[test]
    fn file_url_percent_encodes() {
        let url = sqlite_file_url(Path::new("/tmp/a b/#x?/deft.db")).unwrap();
        assert_eq!(url, "sqlite:///tmp/a%20b/%23x%3F/deft.db?mode=rwc");
    }
}
