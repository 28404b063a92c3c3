//! Sessions: the lifecycle row of each Claude Code session (`session_info`), and the
//! purge of everything kept for sessions past their time.

use super::db::{NaggerStateDB, immediate, now_ms};
use super::error::StoreResult;
use super::hook_log::HookLogRepository;
use rusqlite::{Connection, OptionalExtension, Row, params};

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

/// What a session did, for its SessionEnd row.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SessionMetrics {
    pub agents: i64,
    pub context_entries: i64,
    pub files_changed: i64,
    pub agent_tokens: i64,
    pub hook_runs: i64,
    pub denies: i64,
    pub blocks: i64,
    pub asks: i64,
    pub errors: i64,
    pub compactions: i64,
}

pub struct SessionRepository<'c> {
    conn: &'c Connection,
}

impl NaggerStateDB {
    pub fn sessions(&self) -> SessionRepository<'_> {
        SessionRepository::new(&self.conn)
    }
}

impl<'c> SessionRepository<'c> {
    pub fn new(conn: &'c Connection) -> Self {
        SessionRepository { conn }
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

    /// Agents, results, files, hook runs by outcome and compactions of one session.
    pub fn metrics(&self, session_id: &str) -> StoreResult<SessionMetrics> {
        Ok(self.conn.query_row(
            "SELECT
                 (SELECT count(*) FROM subagent_history WHERE session_id = ?1),
                 (SELECT count(*) FROM context_entries WHERE session_id = ?1),
                 (SELECT count(*) FROM file_changes WHERE session_id = ?1),
                 (SELECT coalesce(sum(tokens), 0) FROM subagent_history WHERE session_id = ?1),
                 count(*), count(*) FILTER (WHERE result = 'deny'),
                 count(*) FILTER (WHERE result = 'block'), count(*) FILTER (WHERE result = 'ask'),
                 count(*) FILTER (WHERE result = 'error'),
                 (SELECT coalesce(max(compactions), 0) FROM session_info WHERE session_id = ?1)
             FROM hook_log WHERE session_id = ?1",
            [session_id],
            |r| {
                Ok(SessionMetrics {
                    agents: r.get(0)?,
                    context_entries: r.get(1)?,
                    files_changed: r.get(2)?,
                    agent_tokens: r.get(3)?,
                    hook_runs: r.get(4)?,
                    denies: r.get(5)?,
                    blocks: r.get(6)?,
                    asks: r.get(7)?,
                    errors: r.get(8)?,
                    compactions: r.get(9)?,
                })
            },
        )?)
    }

    /// Known sessions, most recently seen first.
    pub fn list(&self, limit: usize) -> StoreResult<Vec<SessionInfo>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {INFO_COLUMNS} FROM session_info ORDER BY last_seen_at DESC LIMIT ?1"
        ))?;
        let rows = stmt.query_map([crate::base::num::to_i64(limit)], info_from_row)?;
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
                "session_markers",
                "DELETE FROM session_markers WHERE session_id IN (SELECT session_id FROM temp.purge_sessions) OR created_at < ?1",
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
            HookLogRepository::new(&tx).delete_before(log_cutoff)?,
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

/// A session_info row read from its first nine columns, in `INFO_COLUMNS` order.
pub(super) fn info_from_row(r: &Row<'_>) -> rusqlite::Result<SessionInfo> {
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
