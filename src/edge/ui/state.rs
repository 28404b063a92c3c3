//! [`Ui`]: what the dashboard's request handlers share (the read pool, the run counts,
//! the paths, the token and the port).

use super::http::{self, Answer};
use crate::storage::store::ui_queries::{self, ReadPool};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

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
    pub(super) answered: std::sync::Mutex<Answered>,
}

/// Answers kept for when a fresh read does not come in time, and the largest kept.
const KEPT_ANSWERS: usize = 64;
const KEPT_BYTES: usize = 4 << 20;
/// The header of an answer served from an earlier read: its age in milliseconds.
pub const STALE_HEADER: &str = "X-Nagger-Stale-Ms";

/// The last answer read in full for each endpoint and parameters, and when.
#[derive(Default)]
pub struct Answered(std::collections::HashMap<String, (Instant, Arc<Vec<u8>>)>);

impl Answered {
    pub(super) fn keep(&mut self, key: String, body: &[u8]) {
        if body.len() > KEPT_BYTES {
            self.0.remove(&key);
            return;
        }
        if self.0.len() >= KEPT_ANSWERS
            && !self.0.contains_key(&key)
            && let Some(oldest) = self
                .0
                .iter()
                .min_by_key(|(_, (at, _))| *at)
                .map(|(k, _)| k.clone())
        {
            self.0.remove(&oldest);
        }
        self.0
            .insert(key, (Instant::now(), Arc::new(body.to_vec())));
    }

    pub(super) fn stale(&self, key: &str) -> Option<Answer> {
        let (at, body) = self.0.get(key)?;
        let mut answer = http::body(200, "application/json", body.as_ref().clone());
        answer.add_header(STALE_HEADER, &at.elapsed().as_millis().to_string());
        Some(answer)
    }
}
