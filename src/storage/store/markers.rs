//! Session markers (`session_markers`): what was already shown in a session, when, and
//! at what context size, so that conventions, once-per-session rules and the
//! compression block come once, and again after a compaction or enough context growth.

use super::db::{NaggerStateDB, immediate, now_ms};
use super::error::StoreResult;
use rusqlite::{Connection, OptionalExtension, params};
use std::fmt;

/// What a marker stands for. Its text (the `marker` column) is its `Display`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker<'a> {
    /// The main agent's session conventions were shown.
    SessionConventions,
    /// This session's Claude Code names the calling agent in every input (`agent_id`).
    ModernPayload,
    /// A once-per-session rule was shown.
    Rule { kind: &'a str, name: &'a str },
    /// An agent was sent back once for a report without the compression marker.
    CompressBlock { agent_id: &'a str },
}

impl fmt::Display for Marker<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Marker::SessionConventions => f.write_str("session_startup"),
            Marker::ModernPayload => f.write_str("payload:agent_id"),
            Marker::Rule { kind, name } => write!(f, "rule:{kind}:{name}"),
            Marker::CompressBlock { agent_id } => write!(f, "compress_block:{agent_id}"),
        }
    }
}

/// Whether something guarded by a marker is due now, and whether it was shown before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// Never shown in this session.
    First,
    /// Shown before, re-armed by compaction or token growth.
    Again,
    /// Shown and still current.
    Current,
}

/// Why a marker was set aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpireReason {
    /// The context was compacted: what was shown is gone from it.
    Compact,
}

impl ExpireReason {
    fn as_str(self) -> &'static str {
        match self {
            ExpireReason::Compact => "compact",
        }
    }
}

/// A marker row as it stands.
#[derive(Debug, Clone, Copy)]
struct Shown {
    last_tokens: i64,
    active: bool,
}

pub struct MarkerRepository<'c> {
    conn: &'c Connection,
}

impl NaggerStateDB {
    pub fn markers(&self) -> MarkerRepository<'_> {
        MarkerRepository::new(&self.conn)
    }
}

impl<'c> MarkerRepository<'c> {
    pub fn new(conn: &'c Connection) -> Self {
        MarkerRepository { conn }
    }

    fn shown(conn: &Connection, session_id: &str, marker: &str) -> StoreResult<Option<Shown>> {
        Ok(conn
            .query_row(
                "SELECT last_tokens, status = 'active' FROM session_markers
                 WHERE session_id = ?1 AND marker = ?2",
                params![session_id, marker],
                |r| {
                    Ok(Shown {
                        last_tokens: r.get(0)?,
                        active: r.get(1)?,
                    })
                },
            )
            .optional()?)
    }

    /// Sets the marker, active, at `tokens` context size.
    pub fn set(&self, session_id: &str, marker: Marker<'_>, tokens: i64) -> StoreResult<()> {
        self.conn.execute(
            "INSERT INTO session_markers (session_id, marker, created_at, last_tokens, status)
             VALUES (?1, ?2, ?3, ?4, 'active')
             ON CONFLICT(session_id, marker) DO UPDATE SET
                 created_at = excluded.created_at, last_tokens = excluded.last_tokens,
                 status = 'active', expired_at = NULL, expire_reason = NULL",
            params![session_id, marker.to_string(), now_ms(), tokens],
        )?;
        Ok(())
    }

    /// Whether the marker is set and active.
    pub fn is_set(&self, session_id: &str, marker: Marker<'_>) -> StoreResult<bool> {
        Ok(Self::shown(self.conn, session_id, &marker.to_string())?.is_some_and(|m| m.active))
    }

    /// Decides and records, in one IMMEDIATE transaction, whether something guarded
    /// by `marker` is due now: never shown, expired (compaction), or the context
    /// grew by `threshold` tokens since it was shown (`current_tokens` is asked for
    /// only when a live marker exists). When due, the marker is set at the current
    /// size, so of several parallel callers exactly one is told to show it.
    pub fn take_due(
        &self,
        session_id: &str,
        marker: Marker<'_>,
        threshold: i64,
        current_tokens: impl FnOnce() -> i64,
    ) -> StoreResult<Due> {
        let marker = marker.to_string();
        let mut tokens = Lazy::new(current_tokens);
        let not_due = |m: Shown, tokens: &mut Lazy<_>| {
            m.active && (threshold <= 0 || tokens.get() - m.last_tokens < threshold)
        };
        // Most calls find a live marker that is not due: a plain read says so without
        // taking the write lock (its snapshot is a moment at which it was not due).
        if Self::shown(self.conn, session_id, &marker)?.is_some_and(|m| not_due(m, &mut tokens)) {
            return Ok(Due::Current);
        }
        let tx = immediate(self.conn)?;
        let decision = match Self::shown(&tx, session_id, &marker)? {
            None => Due::First,
            Some(m) if not_due(m, &mut tokens) => Due::Current,
            Some(_) => Due::Again,
        };
        if decision != Due::Current {
            tx.execute(
                "INSERT INTO session_markers (session_id, marker, created_at, last_tokens, status)
                 VALUES (?1, ?2, ?3, ?4, 'active')
                 ON CONFLICT(session_id, marker) DO UPDATE SET
                     last_tokens = excluded.last_tokens, status = 'active',
                     expired_at = NULL, expire_reason = NULL",
                params![session_id, marker, now_ms(), tokens.get()],
            )?;
        }
        tx.commit()?;
        Ok(decision)
    }

    /// Expires every marker of the session (compaction): conventions fire again.
    pub fn expire_all(&self, session_id: &str, reason: ExpireReason) -> StoreResult<usize> {
        Ok(self.conn.execute(
            "UPDATE session_markers SET status = 'expired', expired_at = ?2, expire_reason = ?3
             WHERE session_id = ?1 AND status = 'active'",
            params![session_id, now_ms(), reason.as_str()],
        )?)
    }
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

#[cfg(test)]
mod tests {
    use super::super::db::NaggerStateDB;
    use super::*;

    #[test]
    fn marker_texts_stay_what_the_database_holds() {
        assert_eq!(Marker::SessionConventions.to_string(), "session_startup");
        assert_eq!(Marker::ModernPayload.to_string(), "payload:agent_id");
        assert_eq!(
            Marker::Rule {
                kind: "command",
                name: "no-force"
            }
            .to_string(),
            "rule:command:no-force"
        );
        assert_eq!(
            Marker::CompressBlock { agent_id: "a1" }.to_string(),
            "compress_block:a1"
        );
    }

    #[test]
    fn due_once_then_again_after_compaction_or_growth() {
        let dir = tempfile::tempdir().unwrap();
        let db = NaggerStateDB::open(&dir.path().join("state.db")).unwrap();
        let markers = db.markers();
        let m = Marker::SessionConventions;
        assert_eq!(markers.take_due("s", m, 100, || 10).unwrap(), Due::First);
        assert_eq!(markers.take_due("s", m, 100, || 50).unwrap(), Due::Current);
        assert_eq!(markers.take_due("s", m, 100, || 110).unwrap(), Due::Again);
        assert_eq!(markers.take_due("s", m, 100, || 120).unwrap(), Due::Current);
        assert_eq!(markers.expire_all("s", ExpireReason::Compact).unwrap(), 1);
        assert!(!markers.is_set("s", m).unwrap());
        assert_eq!(markers.take_due("s", m, 0, || 0).unwrap(), Due::Again);
        assert!(markers.is_set("s", m).unwrap());
        assert!(!markers.is_set("other", m).unwrap());
        markers.set("other", Marker::ModernPayload, 0).unwrap();
        assert!(markers.is_set("other", Marker::ModernPayload).unwrap());
    }
}
