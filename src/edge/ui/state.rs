//! [`Ui`]: what the dashboard's request handlers share (the read pool, the run counts,
//! the paths, the token and the port).

use crate::storage::store::ui_queries::{self, ReadPool};
use std::path::PathBuf;

/// Everything a request handler needs.
pub struct Ui {
    pub pool: ReadPool,
    /// Hook runs per session, counted once and then only the new rows.
    pub counts: std::sync::Mutex<ui_queries::RunCounts>,
    pub db_path: PathBuf,
    pub project_root: PathBuf,
    pub(super) token: String,
    pub(super) port: u16,
    /// Database reads under way, counting those that outlived their request.
    pub(super) reads: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    /// The last answer of each endpoint and parameters read in full, served marked as
    /// stale when a fresh read does not come in time.
    pub(super) answered: std::sync::Mutex<super::api::Answered>,
}
