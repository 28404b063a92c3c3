//! hook_log: one row per hook run, the source of `nagger stats`.

use super::{StoreResult, now_ms};
use rusqlite::{Connection, params};

#[derive(Debug, Clone, Default)]
pub struct NewHookLog<'a> {
    pub session_id: &'a str,
    pub hook_name: &'a str,
    pub event_type: &'a str,
    pub agent_id: Option<&'a str>,
    pub result: &'a str,
    pub details: Option<&'a serde_json::Value>,
    pub duration_ms: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HookLogRecord {
    pub id: i64,
    pub session_id: String,
    pub hook_name: String,
    pub event_type: String,
    pub agent_id: Option<String>,
    pub timestamp: i64,
    pub result: Option<String>,
    pub details: Option<String>,
    pub duration_ms: Option<f64>,
}

pub struct HookLogRepository<'c> {
    conn: &'c Connection,
}

impl<'c> HookLogRepository<'c> {
    pub fn new(conn: &'c Connection) -> Self {
        HookLogRepository { conn }
    }

    pub fn log(&self, entry: &NewHookLog<'_>) -> StoreResult<i64> {
        let details = entry.details.map(|d| d.to_string());
        self.conn
            .prepare_cached(
                "INSERT INTO hook_log (session_id, hook_name, event_type, agent_id, timestamp, result, details, duration_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                entry.session_id,
                entry.hook_name,
                entry.event_type,
                entry.agent_id,
                now_ms(),
                entry.result,
                details,
                entry.duration_ms
            ])?;
        Ok(self.conn.last_insert_rowid())
    }

    /// The newest rows, newest first; all sessions when `session_id` is None.
    pub fn get_recent(
        &self,
        session_id: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<HookLogRecord>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, session_id, hook_name, event_type, agent_id, timestamp, result, details, duration_ms
             FROM hook_log WHERE ?1 IS NULL OR session_id = ?1 ORDER BY id DESC LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![session_id, limit as i64], |r| {
            Ok(HookLogRecord {
                id: r.get(0)?,
                session_id: r.get(1)?,
                hook_name: r.get(2)?,
                event_type: r.get(3)?,
                agent_id: r.get(4)?,
                timestamp: r.get(5)?,
                result: r.get(6)?,
                details: r.get(7)?,
                duration_ms: r.get(8)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Runs per (event, result) for a session: the quick summary seed 004 asks for.
    pub fn get_stats(&self, session_id: &str) -> StoreResult<Vec<(String, String, i64)>> {
        let mut stmt = self.conn.prepare(
            "SELECT event_type, coalesce(result, 'none'), count(*) FROM hook_log
             WHERE session_id = ?1 GROUP BY 1, 2 ORDER BY 1, 2",
        )?;
        let rows = stmt.query_map([session_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
