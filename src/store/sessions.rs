//! Sessions: per-session processed markers (`sessions`, which say when
//! conventions were last shown and at what context size) and the lifecycle row
//! of each Claude Code session (`session_info`).

use super::{StoreResult, immediate, now_ms};
use rusqlite::{Connection, OptionalExtension, Row, params};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub session_id: String,
    pub hook_name: String,
    pub created_at: i64,
    pub last_tokens: i64,
    pub status: String,
    pub expired_at: Option<i64>,
    pub expire_reason: Option<String>,
}

impl SessionRecord {
    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(SessionRecord {
            session_id: r.get(0)?,
            hook_name: r.get(1)?,
            created_at: r.get(2)?,
            last_tokens: r.get(3)?,
            status: r.get(4)?,
            expired_at: r.get(5)?,
            expire_reason: r.get(6)?,
        })
    }

    pub fn is_active(&self) -> bool {
        self.status == "active"
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    pub session_id: String,
    pub started_at: i64,
    pub last_seen_at: i64,
    pub source: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub compactions: i64,
    pub ended_at: Option<i64>,
    pub end_reason: Option<String>,
}

/// Whether a marker said "show it" and whether it had been shown before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerDecision {
    /// Never shown in this session.
    First,
    /// Shown before, re-armed by compaction or token growth.
    Again,
    /// Shown and still current.
    Current,
}

pub use MarkerDecision as Marker;

const MARKER_COLUMNS: &str =
    "session_id, hook_name, created_at, last_tokens, status, expired_at, expire_reason";

pub struct SessionRepository<'c> {
    conn: &'c Connection,
}

impl<'c> SessionRepository<'c> {
    pub fn new(conn: &'c Connection) -> Self {
        SessionRepository { conn }
    }

    /// Marks `hook_name` processed for the session at `tokens` context size.
    pub fn register(&self, session_id: &str, hook_name: &str, tokens: i64) -> StoreResult<()> {
        self.conn.execute(
            "INSERT INTO sessions (session_id, hook_name, created_at, last_tokens, status)
             VALUES (?1, ?2, ?3, ?4, 'active')
             ON CONFLICT(session_id, hook_name) DO UPDATE SET
                 created_at = excluded.created_at, last_tokens = excluded.last_tokens,
                 status = 'active', expired_at = NULL, expire_reason = NULL",
            params![session_id, hook_name, now_ms(), tokens],
        )?;
        Ok(())
    }

    pub fn get(&self, session_id: &str, hook_name: &str) -> StoreResult<Option<SessionRecord>> {
        Ok(self
            .conn
            .query_row(
                &format!(
                    "SELECT {MARKER_COLUMNS} FROM sessions WHERE session_id = ?1 AND hook_name = ?2"
                ),
                params![session_id, hook_name],
                SessionRecord::from_row,
            )
            .optional()?)
    }

    pub fn is_processed(&self, session_id: &str, hook_name: &str) -> StoreResult<bool> {
        Ok(self
            .get(session_id, hook_name)?
            .is_some_and(|m| m.is_active()))
    }

    /// Processed, unless the context grew by `threshold` tokens since the marker was
    /// set; then the marker is expired and false returned.
    pub fn is_processed_context_aware(
        &self,
        session_id: &str,
        hook_name: &str,
        current_tokens: i64,
        threshold: i64,
    ) -> StoreResult<bool> {
        let Some(m) = self.get(session_id, hook_name)? else {
            return Ok(false);
        };
        if !m.is_active() {
            return Ok(false);
        }
        if threshold > 0 && current_tokens - m.last_tokens >= threshold {
            self.expire(session_id, hook_name, "token_threshold")?;
            return Ok(false);
        }
        Ok(true)
    }

    /// Decides and records, in one IMMEDIATE transaction, whether something guarded
    /// by `hook_name` is due now: never shown, expired (compaction), or the context
    /// grew by `threshold` tokens since it was shown (`current_tokens` is asked for
    /// only when a live marker exists). When due, the marker is set at the current
    /// size, so of several parallel callers exactly one is told to show it.
    pub fn take_due(
        &self,
        session_id: &str,
        hook_name: &str,
        threshold: i64,
        current_tokens: impl FnOnce() -> i64,
    ) -> StoreResult<Marker> {
        let mut tokens = Lazy::new(current_tokens);
        let marker_sql = format!(
            "SELECT {MARKER_COLUMNS} FROM sessions WHERE session_id = ?1 AND hook_name = ?2"
        );
        let read = |conn: &Connection| {
            conn.query_row(
                &marker_sql,
                params![session_id, hook_name],
                SessionRecord::from_row,
            )
            .optional()
        };
        let not_due = |m: &SessionRecord, tokens: &mut Lazy<_>| {
            m.is_active() && (threshold <= 0 || tokens.get() - m.last_tokens < threshold)
        };
        // Most calls find a live marker that is not due: a plain read says so without
        // taking the write lock (its snapshot is a moment at which it was not due).
        if read(self.conn)?.is_some_and(|m| not_due(&m, &mut tokens)) {
            return Ok(Marker::Current);
        }
        let tx = immediate(self.conn)?;
        let decision = match read(&tx)? {
            None => Marker::First,
            Some(m) if not_due(&m, &mut tokens) => Marker::Current,
            Some(_) => Marker::Again,
        };
        if decision != Marker::Current {
            tx.execute(
                "INSERT INTO sessions (session_id, hook_name, created_at, last_tokens, status)
                 VALUES (?1, ?2, ?3, ?4, 'active')
                 ON CONFLICT(session_id, hook_name) DO UPDATE SET
                     last_tokens = excluded.last_tokens, status = 'active',
                     expired_at = NULL, expire_reason = NULL",
                params![session_id, hook_name, now_ms(), tokens.get()],
            )?;
        }
        tx.commit()?;
        Ok(decision)
    }

    pub fn expire(&self, session_id: &str, hook_name: &str, reason: &str) -> StoreResult<()> {
        self.conn.execute(
            "UPDATE sessions SET status = 'expired', expired_at = ?3, expire_reason = ?4
             WHERE session_id = ?1 AND hook_name = ?2",
            params![session_id, hook_name, now_ms(), reason],
        )?;
        Ok(())
    }

    /// Expires every marker of the session (compaction): conventions fire again.
    pub fn expire_all(&self, session_id: &str, reason: &str) -> StoreResult<usize> {
        Ok(self.conn.execute(
            "UPDATE sessions SET status = 'expired', expired_at = ?2, expire_reason = ?3
             WHERE session_id = ?1 AND status = 'active'",
            params![session_id, now_ms(), reason],
        )?)
    }

    /// Upserts the session's lifecycle row (SessionStart).
    pub fn start(
        &self,
        session_id: &str,
        source: Option<&str>,
        transcript_path: Option<&str>,
        cwd: Option<&str>,
    ) -> StoreResult<()> {
        let now = now_ms();
        self.conn.execute(
            "INSERT INTO session_info (session_id, started_at, last_seen_at, source, transcript_path, cwd)
             VALUES (?1, ?2, ?2, ?3, ?4, ?5)
             ON CONFLICT(session_id) DO UPDATE SET
                 last_seen_at = excluded.last_seen_at, source = excluded.source,
                 transcript_path = coalesce(excluded.transcript_path, transcript_path),
                 cwd = coalesce(excluded.cwd, cwd), ended_at = NULL, end_reason = NULL",
            params![session_id, now, source, transcript_path, cwd],
        )?;
        Ok(())
    }

    /// Records one more compaction of the session; returns the new count.
    pub fn record_compaction(&self, session_id: &str) -> StoreResult<i64> {
        Ok(self.conn.query_row(
            "UPDATE session_info SET compactions = compactions + 1, last_seen_at = ?2
             WHERE session_id = ?1 RETURNING compactions",
            params![session_id, now_ms()],
            |r| r.get(0),
        )?)
    }

    pub fn end(&self, session_id: &str, reason: Option<&str>) -> StoreResult<()> {
        let now = now_ms();
        self.conn.execute(
            "INSERT INTO session_info (session_id, started_at, last_seen_at, ended_at, end_reason)
             VALUES (?1, ?2, ?2, ?2, ?3)
             ON CONFLICT(session_id) DO UPDATE SET
                 last_seen_at = excluded.last_seen_at, ended_at = excluded.ended_at,
                 end_reason = excluded.end_reason",
            params![session_id, now, reason],
        )?;
        Ok(())
    }

    pub fn info(&self, session_id: &str) -> StoreResult<Option<SessionInfo>> {
        Ok(self
            .conn
            .query_row(
                &format!("SELECT {INFO_COLUMNS} FROM session_info WHERE session_id = ?1"),
                [session_id],
                info_from_row,
            )
            .optional()?)
    }

    /// Known sessions, most recently seen first.
    pub fn list(&self, limit: usize) -> StoreResult<Vec<SessionInfo>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {INFO_COLUMNS} FROM session_info ORDER BY last_seen_at DESC LIMIT ?1"
        ))?;
        let rows = stmt.query_map([limit as i64], info_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Purges sessions that ended, or were last seen, more than `ttl_ms` ago, with
    /// everything kept for them, and hook_log rows older than `log_retention_ms`.
    /// Shared-context entries and history outlive their session for later sessions
    /// of the project, up to the log retention. Returns rows removed per table.
    pub fn purge_expired(
        &self,
        ttl_ms: i64,
        log_retention_ms: i64,
    ) -> StoreResult<Vec<(&'static str, usize)>> {
        let now = now_ms();
        let cutoff = now - ttl_ms;
        let log_cutoff = now - log_retention_ms;
        let tx = immediate(self.conn)?;
        tx.execute_batch(
            "CREATE TEMP TABLE IF NOT EXISTS purge_sessions (session_id TEXT PRIMARY KEY);
             DELETE FROM temp.purge_sessions;",
        )?;
        tx.execute(
            "INSERT INTO temp.purge_sessions
             SELECT session_id FROM session_info
             WHERE coalesce(ended_at, last_seen_at) < ?1",
            [cutoff],
        )?;
        let mut removed = Vec::new();
        for (table, sql) in [
            (
                "subagents",
                "DELETE FROM subagents WHERE session_id IN (SELECT session_id FROM temp.purge_sessions) OR created_at < ?1",
            ),
            (
                "task_spawns",
                "DELETE FROM task_spawns WHERE session_id IN (SELECT session_id FROM temp.purge_sessions) OR created_at < ?1",
            ),
            (
                "sessions",
                "DELETE FROM sessions WHERE session_id IN (SELECT session_id FROM temp.purge_sessions) OR created_at < ?1",
            ),
            (
                "transcript_cursors",
                "DELETE FROM transcript_cursors WHERE session_id IN (SELECT session_id FROM temp.purge_sessions) OR updated_at < ?1",
            ),
            (
                "rule_hits",
                "DELETE FROM rule_hits WHERE session_id IN (SELECT session_id FROM temp.purge_sessions) OR created_at < ?1",
            ),
            (
                "usage_counts",
                "DELETE FROM usage_counts WHERE session_id IN (SELECT session_id FROM temp.purge_sessions) OR updated_at < ?1",
            ),
            (
                "file_changes",
                "DELETE FROM file_changes WHERE session_id IN (SELECT session_id FROM temp.purge_sessions) OR last_at < ?1",
            ),
            (
                "session_info",
                "DELETE FROM session_info WHERE session_id IN (SELECT session_id FROM temp.purge_sessions) OR last_seen_at < ?1",
            ),
        ] {
            // Rows untouched for the whole TTL go too, even if their session never ended.
            removed.push((table, tx.execute(sql, [cutoff])?));
        }
        removed.push((
            "hook_log",
            super::HookLogRepository::new(&tx).delete_before(log_cutoff)?,
        ));
        for (table, sql) in [
            (
                "subagent_history",
                "DELETE FROM subagent_history WHERE stopped_at < ?1",
            ),
            (
                "context_entries",
                "DELETE FROM context_entries WHERE created_at < ?1",
            ),
            (
                "tasks",
                "DELETE FROM tasks WHERE status = 'done' AND done_at < ?1",
            ),
        ] {
            removed.push((table, tx.execute(sql, [log_cutoff])?));
        }
        tx.execute("DELETE FROM temp.purge_sessions", [])?;
        tx.commit()?;
        Ok(removed)
    }
}

const INFO_COLUMNS: &str = "session_id, started_at, last_seen_at, source, transcript_path, cwd, \
     compactions, ended_at, end_reason";

fn info_from_row(r: &Row<'_>) -> rusqlite::Result<SessionInfo> {
    Ok(SessionInfo {
        session_id: r.get(0)?,
        started_at: r.get(1)?,
        last_seen_at: r.get(2)?,
        source: r.get(3)?,
        transcript_path: r.get(4)?,
        cwd: r.get(5)?,
        compactions: r.get(6)?,
        ended_at: r.get(7)?,
        end_reason: r.get(8)?,
    })
}

/// A value computed on first use only (reading the context size costs a file read).
struct Lazy<F> {
    compute: Option<F>,
    value: Option<i64>,
}

impl<F: FnOnce() -> i64> Lazy<F> {
    fn new(compute: F) -> Self {
        Lazy {
            compute: Some(compute),
            value: None,
        }
    }

    fn get(&mut self) -> i64 {
        if let Some(compute) = self.compute.take() {
            self.value = Some(compute());
        }
        self.value.unwrap_or(0)
    }
}
