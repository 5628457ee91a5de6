//! Fresh databases for the suite: a SQLite file in a temporary folder, or a uniquely named
//! PostgreSQL database on the server at `DEFT_TEST_DATABASE_URL`, dropped afterwards.

use std::future::Future;

use deft_store::Store;
use sqlx::{AnyConnection, Connection, Executor};
use tempfile::TempDir;

/// A store on a SQLite file in its own temporary folder.
pub struct SqliteDb {
    /// The data folder (deleted on drop).
    pub _dir: TempDir,
    /// The store on `dir/deft.db`.
    pub store: Store,
    /// A URL to reach the same file directly.
    pub url: String,
}

/// Opens a store on a fresh SQLite file.
pub async fn sqlite() -> SqliteDb {
    let dir = tempfile::tempdir().expect("temporary folder");
    let store = Store::open(dir.path(), None)
        .await
        .expect("open the SQLite store");
    let url = format!("sqlite://{}", dir.path().join("deft.db").display());
    SqliteDb {
        _dir: dir,
        store,
        url,
    }
}

/// The PostgreSQL server for tests. Fails (never skips) when it is not configured.
pub fn postgres_server_url() -> String {
    match std::env::var("DEFT_TEST_DATABASE_URL") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => panic!(
            "DEFT_TEST_DATABASE_URL is not set: the PostgreSQL half of the store suite needs a \
             server. Run scripts/test.sh, or `source scripts/postgres.sh` and run the tests again."
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

/// Creates a uniquely named database on the test server, runs `case` on a store over it, then
/// drops the database — also when the case panics (the panic is passed on afterwards).
pub async fn with_postgres<F, Fut>(case: F)
where
    F: FnOnce(Store, String) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let server = postgres_server_url();
    sqlx::any::install_default_drivers();
    let name = format!("deft_test_{}", uuid::Uuid::new_v4().simple());
    let mut admin = AnyConnection::connect(&server).await.unwrap_or_else(|e| {
        panic!(
            "cannot reach the test PostgreSQL at {server}: {e} (run `source scripts/postgres.sh`)"
        )
    });
    admin
        .execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
        .await
        .expect("create the test database");
    let url = with_database(&server, &name);
    let outcome: Result<(), Box<dyn std::any::Any + Send>> = match Store::connect(&url).await {
        Ok(store) => {
            let joined = tokio::spawn(case(store.clone(), url.clone())).await;
            store.close().await;
            joined.map_err(|e| e.into_panic())
        }
        Err(e) => Err(Box::new(format!("cannot open the store at {url}: {e}"))),
    };
    admin
        .execute(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
        )))
        .await
        .expect("drop the test database");
    let _ = admin.close().await;
    if let Err(e) = outcome {
        std::panic::resume_unwind(e);
    }
}

#[test]
fn database_name_is_replaced() {
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
