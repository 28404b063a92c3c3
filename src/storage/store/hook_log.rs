//! hook_log: one row per hook run, the source of `nagger stats`. Every write keeps
//! `hook_log_rollup` (runs per event, hook, day and duration bucket) in step, in the same
//! transaction: all inserts and deletes of hook_log go through this module.

use super::db::{NaggerStateDB, now_ms};
use super::error::StoreResult;
use super::stats::{fine_bucket, fine_bucket_sql};
use crate::base::event::HookEvent;
use rusqlite::{Connection, params};
use serde_json::Value;

#[derive(Debug, Clone, Default)]
pub struct NewHookLog<'a> {
    pub session_id: &'a str,
    pub hook_name: &'a str,
    pub event_type: &'a str,
    pub agent_id: Option<&'a str>,
    pub result: &'a str,
    pub details: Option<&'a serde_json::Value>,
    /// None: not measured.
    pub duration_ms: Option<f64>,
    /// Unix ms of the run; None: now.
    pub timestamp: Option<i64>,
}

/// What `nagger stats` reads out of a run's details, kept in plain columns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatColumns<'a> {
    /// SubagentStart: how the role was found.
    pub role_source: Option<&'a str>,
    /// A subagent's first tool call: how nagger knew the caller (direct | claim).
    pub caller: Option<&'a str>,
    /// Result `context`: characters of context added (or of the whole answer).
    pub context_chars: Option<i64>,
}

impl<'a> StatColumns<'a> {
    pub fn of(event_type: &str, result: &str, details: Option<&'a Value>) -> StatColumns<'a> {
        let Some(details) = details else {
            return StatColumns::default();
        };
        let text = |key: &str| details.get(key).and_then(Value::as_str);
        let number = |key: &str| details.get(key).and_then(Value::as_i64);
        StatColumns {
            role_source: (event_type == HookEvent::SubagentStart.as_str())
                .then(|| text("role_source"))
                .flatten(),
            caller: (details.get("first_call") == Some(&Value::Bool(true)))
                .then(|| text("caller"))
                .flatten(),
            context_chars: (result == "context")
                .then(|| number("context_chars").or_else(|| number("output_chars")))
                .flatten(),
        }
    }
}

/// The rollup row of one run: +1 on insert. Its duration bucket is computed here
/// ([`fine_bucket`]) and bound: nothing for the hook path to compile.
const ROLLUP_ADD_SQL: &str =
    "INSERT INTO hook_log_rollup (event_type, hook_name, day, bucket, runs)
     VALUES (?1, ?2, ?3 / 86400000, ?4, 1)
     ON CONFLICT (event_type, hook_name, day, bucket) DO UPDATE SET runs = runs + 1";

#[derive(Debug, Clone, PartialEq)]
pub struct HookLogRecord {
    pub id: i64,
    /// None for input nagger could not read.
    pub session_id: Option<String>,
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

impl NaggerStateDB {
    pub fn hook_log(&self) -> HookLogRepository<'_> {
        HookLogRepository::new(&self.conn)
    }
}

impl<'c> HookLogRepository<'c> {
    pub fn new(conn: &'c Connection) -> Self {
        HookLogRepository { conn }
    }

    /// Records one run and counts it in the rollup, atomically (inside the caller's
    /// transaction when there is one).
    pub fn log(&self, entry: &NewHookLog<'_>) -> StoreResult<i64> {
        self.insert(Some(entry.session_id), entry)
    }

    /// Records input nagger could not read: no session it could be filed under.
    pub fn log_bad_input(&self, problem: &str, duration_ms: f64) -> StoreResult<i64> {
        let details = serde_json::json!({ "error": problem });
        self.insert(
            None,
            &NewHookLog {
                hook_name: "input",
                event_type: "invalid",
                result: "error",
                details: Some(&details),
                duration_ms: Some(duration_ms),
                ..NewHookLog::default()
            },
        )
    }

    fn insert(&self, session_id: Option<&str>, entry: &NewHookLog<'_>) -> StoreResult<i64> {
        let details = entry.details.map(ToString::to_string);
        let columns = StatColumns::of(entry.event_type, entry.result, entry.details);
        let timestamp = entry.timestamp.unwrap_or_else(now_ms);
        let tx = self
            .conn
            .is_autocommit()
            .then(|| super::db::immediate(self.conn))
            .transpose()?;
        self.conn
            .prepare_cached(
                "INSERT INTO hook_log (session_id, hook_name, event_type, agent_id, timestamp, result,
                                       details, duration_ms, role_source, caller, context_chars)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )?
            .execute(params![
                session_id,
                entry.hook_name,
                entry.event_type,
                entry.agent_id,
                timestamp,
                entry.result,
                details,
                entry.duration_ms,
                columns.role_source,
                columns.caller,
                columns.context_chars,
            ])?;
        let id = self.conn.last_insert_rowid();
        self.conn.prepare_cached(ROLLUP_ADD_SQL)?.execute(params![
            entry.event_type,
            entry.hook_name,
            timestamp,
            fine_bucket(entry.duration_ms)
        ])?;
        if let Some(tx) = tx {
            tx.commit()?;
        }
        Ok(id)
    }

    /// Deletes the runs logged before `cutoff_ms` and takes them out of the rollup; the
    /// caller holds the write transaction. Returns how many runs went.
    pub fn delete_before(&self, cutoff_ms: i64) -> StoreResult<usize> {
        self.conn.execute(
            &format!(
                "WITH gone AS (
                     SELECT event_type, hook_name, timestamp / 86400000 AS day, {} AS bucket,
                            count(*) AS runs
                     FROM hook_log WHERE timestamp < ?1 GROUP BY 1, 2, 3, 4)
                 UPDATE hook_log_rollup SET runs = hook_log_rollup.runs - gone.runs FROM gone
                 WHERE hook_log_rollup.event_type = gone.event_type
                   AND hook_log_rollup.hook_name = gone.hook_name
                   AND hook_log_rollup.day = gone.day AND hook_log_rollup.bucket = gone.bucket",
                fine_bucket_sql("duration_ms")
            ),
            [cutoff_ms],
        )?;
        self.conn
            .execute("DELETE FROM hook_log_rollup WHERE runs <= 0", [])?;
        Ok(self
            .conn
            .execute("DELETE FROM hook_log WHERE timestamp < ?1", [cutoff_ms])?)
    }

    /// The newest rows, newest first; all sessions when `session_id` is None.
    pub fn recent(
        &self,
        session_id: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<HookLogRecord>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, session_id, hook_name, event_type, agent_id, timestamp, result, details, duration_ms
             FROM hook_log WHERE ?1 IS NULL OR session_id = ?1 ORDER BY id DESC LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![session_id, crate::base::num::to_i64(limit)], |r| {
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
}
