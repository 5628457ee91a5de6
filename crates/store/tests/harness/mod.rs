//! Fresh databases for the suite: a SQLite file in a temporary folder, or a scratch PostgreSQL
//! database on the server at `DEFT_TEST_DATABASE_URL` (deft-test-support `postgres`).

use std::future::Future;

use deft_store::Store;
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

/// Runs `case` on a store over a scratch PostgreSQL database (dropped afterwards, also when
/// the case panics).
pub async fn with_postgres<F, Fut>(case: F)
where
    F: FnOnce(Store, String) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    deft_test_support::postgres::with_scratch_database(|url| async move {
        let store = Store::connect(&url)
            .await
            .unwrap_or_else(|e| panic!("cannot open the store at {url}: {e}"));
        case(store.clone(), url).await;
        store.close().await;
    })
    .await;
}
