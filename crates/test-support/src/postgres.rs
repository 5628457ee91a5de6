//! Scratch PostgreSQL databases for tests: a uniquely named database on the test server at
//! `DEFT_TEST_DATABASE_URL` (`source scripts/postgres.sh`), dropped afterwards — also when the
//! test panics. Tests that need PostgreSQL fail, never skip, when the server is not configured.

use std::future::Future;

use sqlx::{AnyConnection, Connection, Executor};

/// The PostgreSQL server for tests. Panics with what to do when it is not configured.
pub fn server_url() -> String {
    match std::env::var("DEFT_TEST_DATABASE_URL") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!(
            "DEFT_TEST_DATABASE_URL is not set: the PostgreSQL tests need a server. Run \
             scripts/test.sh, or `source scripts/postgres.sh` and run the tests again."
        ),
    }
}

/// `server_url` with its database name replaced by `name`.
pub fn with_database(server_url: &str, name: &str) -> String {
    let (base, query) = match server_url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (server_url, None),
    };
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[after_scheme..]
        .find('/')
        .map_or(base.len(), |i| after_scheme + i);
    let mut url = format!("{}/{name}", &base[..host_end]);
    if let Some(q) = query {
        url.push('?');
        url.push_str(q);
    }
    url
}

/// Creates a uniquely named database on the test server, runs `case` with its URL (in a task
/// of its own), then drops the database, closing whatever connections are left — also when
/// the case panics (the panic is passed on afterwards).
pub async fn with_scratch_database<F, Fut>(case: F)
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let server = server_url();
    sqlx::any::install_default_drivers();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let name = format!(
        "deft_test_{}_{nanos}_{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let mut admin = AnyConnection::connect(&server).await.unwrap_or_else(|e| {
        panic!(
            "cannot reach the test PostgreSQL at {server}: {e} (run `source scripts/postgres.sh`)"
        )
    });
    admin
        .execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
        .await
        .unwrap_or_else(|e| panic!("cannot create the test database {name}: {e}"));
    let outcome = tokio::spawn(case(with_database(&server, &name))).await;
    admin
        .execute(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
        )))
        .await
        .unwrap_or_else(|e| panic!("cannot drop the test database {name}: {e}"));
    let _ = admin.close().await;
    if let Err(e) = outcome {
        std::panic::resume_unwind(e.into_panic());
    }
}

/// Numbers the scratch databases of one test process (with its pid and the clock: unique on
/// the server).
static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

#[cfg(test)]
mod tests {
    #[test]
    fn database_name_is_replaced() {
        use super::with_database;
        assert_eq!(
            with_database("postgres://postgres@127.0.0.1:54329/postgres", "t1"),
            "postgres://postgres@127.0.0.1:54329/t1"
        );
        assert_eq!(
            with_database("postgres://u:p@h:1/db?sslmode=disable", "t2"),
            "postgres://u:p@h:1/t2?sslmode=disable"
        );
        assert_eq!(with_database("postgres://h", "t3"), "postgres://h/t3");
    }
}
