//! The one error type of the store. Every text names what failed (the file, the URL without its
//! password, the row) so a person can act on it without a debugger. An unknown task id is one
//! error shared by the tasks, their schedules and their runs (`no_task`).

/// What can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot be reached or opened: the target is the SQLite file (or data folder)
    /// or the PostgreSQL URL with its password masked.
    #[error("the database {target} is unavailable: {cause}")]
    Unavailable {
        /// The file, folder or URL (password masked).
        target: String,
        /// Why.
        cause: String,
    },
    /// The URL names no backend the store speaks.
    #[error(
        "unsupported database URL {url}: expected postgres://USER@HOST:PORT/DB or sqlite://PATH"
    )]
    UnsupportedUrl {
        /// The URL (password masked).
        url: String,
    },
    /// Applying the schema migrations failed.
    #[error("migrating the database {target} failed: {cause}")]
    Migration {
        /// The file or URL (password masked).
        target: String,
        /// Why.
        cause: String,
    },
    /// A row with the same key exists (a username taken, a run id reused).
    #[error("{0}")]
    Conflict(String),
    /// A row the call needs does not exist (e.g. appending to an unknown conversation).
    #[error("{0}")]
    NotFound(String),
    /// The caller's input is not storable as given (e.g. an unknown message role).
    #[error("{0}")]
    Invalid(String),
    /// A write of a run fenced by a device lease whose epoch has moved on (another server
    /// took the device): refused, nothing written.
    #[error("{0}")]
    Fenced(String),
    /// A stored JSON column does not parse.
    #[error("corrupt data in {what}: {cause}")]
    Corrupt {
        /// Which row and column.
        what: String,
        /// The parse error.
        cause: String,
    },
    /// A value does not fit the database's 64-bit signed integers.
    #[error("{what} is too large to store: {value} (the limit is {})", i64::MAX)]
    OutOfRange {
        /// Which value.
        what: &'static str,
        /// The value.
        value: u64,
    },
    /// Any other database error, with what the store was doing.
    #[error("database error while {action}: {source}")]
    Database {
        /// What the store was doing, e.g. "appending a message".
        action: &'static str,
        /// The driver's error.
        #[source]
        source: sqlx::Error,
    },
}

/// The store's result type.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Wraps a driver error with what the store was doing.
pub(crate) fn db(action: &'static str) -> impl FnOnce(sqlx::Error) -> StoreError {
    move |source| StoreError::Database { action, source }
}

/// True when the driver reports a unique or primary key violation.
pub(crate) fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

/// True when the driver reports a foreign key violation.
pub(crate) fn is_foreign_key_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_foreign_key_violation())
}

/// The error for an unknown task id.
pub(crate) fn no_task(id: &str) -> StoreError {
    StoreError::NotFound(format!("no task has the id {id:?}"))
}
