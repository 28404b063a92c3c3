//! What can go wrong with the state database, and how nagger tells a damaged file, a
//! busy one and a failed query apart.

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database {path}: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("{0}")]
    Query(#[from] rusqlite::Error),
    #[error("migrating {path}: {source}")]
    Migration {
        path: PathBuf,
        #[source]
        source: Box<refinery::Error>,
    },
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    #[error("database {0} is still locked by another process after {1:?}")]
    Locked(PathBuf, Duration),
    #[error("connection pool: {0}")]
    Pool(#[from] r2d2::Error),
    #[error(
        "database {path}: its write-ahead log holds {} MiB, more than a hook replays within its second; `nagger gc` or `nagger doctor --fix` replays and truncates it",
        bytes / (1024 * 1024)
    )]
    LongLog { path: PathBuf, bytes: u64 },
    #[error(
        "database {path}: the file there is {what}, and it is not in a `.claude-nagger` folder, so nagger leaves it as it is and keeps no state (point NAGGER_DB or --db elsewhere)"
    )]
    NotOurs { path: PathBuf, what: &'static str },
    #[error(
        "database {path} has schema version {found}, this nagger reads version {expected} (`nagger doctor --fix` brings it up to date)"
    )]
    Schema {
        path: PathBuf,
        found: i64,
        expected: i64,
    },
}

pub type StoreResult<T> = Result<T, StoreError>;

impl StoreError {
    /// The database stayed locked by another connection past the busy timeout.
    pub fn is_lock_timeout(&self) -> bool {
        match self {
            StoreError::Locked(..) => true,
            StoreError::Query(e) | StoreError::Sqlite { source: e, .. } => is_busy(e),
            _ => false,
        }
    }
}

/// Whether the database file is damaged: SQLite found a corrupt page or no database.
pub fn is_corrupt(e: &StoreError) -> bool {
    match e {
        StoreError::Query(e) | StoreError::Sqlite { source: e, .. } => is_corrupt_sqlite(e),
        _ => false,
    }
}

/// Whether SQLite reports a damaged database file.
pub fn is_corrupt_sqlite(e: &rusqlite::Error) -> bool {
    is_not_a_database(e)
}

/// Whether SQLite gave up waiting for a lock another connection holds.
pub fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// Whether SQLite found the file is no database, or a damaged one.
pub(super) fn is_not_a_database(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
    )
}
