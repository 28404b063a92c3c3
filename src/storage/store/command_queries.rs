//! The reads nagger's commands (`stats`, `sessions`, `context`, `doctor`) make, each
//! one named query, so the commands never hold a connection themselves.

use super::db::NaggerStateDB;
use super::error::StoreResult;
use super::sessions::{self, SessionInfo};
use super::stats::{self, Scope, Stats};
use crate::base::num::to_i64;

/// A session as `nagger sessions` lists it: its lifecycle row and its agents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionListing {
    pub info: SessionInfo,
    /// Subagents still running.
    pub active_agents: i64,
    /// Subagents that finished (subagent_history).
    pub finished_agents: i64,
}

impl NaggerStateDB {
    /// Whether the database holds any trace of a session (a session seen only through
    /// its tool calls has no lifecycle row).
    pub fn session_known(&self, session: &str) -> StoreResult<bool> {
        Ok(self.conn.query_row(
            "SELECT EXISTS(SELECT 1 FROM session_info WHERE session_id = ?1)
                 OR EXISTS(SELECT 1 FROM session_markers WHERE session_id = ?1)
                 OR EXISTS(SELECT 1 FROM hook_log WHERE session_id = ?1)
                 OR EXISTS(SELECT 1 FROM subagents WHERE session_id = ?1)
                 OR EXISTS(SELECT 1 FROM subagent_history WHERE session_id = ?1)
                 OR EXISTS(SELECT 1 FROM context_entries WHERE session_id = ?1)",
            [session],
            |r| r.get(0),
        )?)
    }

    /// Known sessions, most recently seen first, each with its active and finished
    /// agents counted: one query, whatever the number of sessions.
    pub fn session_listings(&self, limit: usize) -> StoreResult<Vec<SessionListing>> {
        let mut stmt = self.conn.prepare(
            "SELECT s.session_id, s.started_at, s.last_seen_at, s.source, s.transcript_path,
                    s.cwd, s.compactions, s.ended_at, s.end_reason,
                    coalesce(a.n, 0), coalesce(h.n, 0)
             FROM session_info s
             LEFT JOIN (SELECT session_id, count(*) AS n FROM subagents GROUP BY session_id) a
                    ON a.session_id = s.session_id
             LEFT JOIN (SELECT session_id, count(*) AS n FROM subagent_history
                        GROUP BY session_id) h
                    ON h.session_id = s.session_id
             ORDER BY s.last_seen_at DESC
             LIMIT ?1",
        )?;
        let rows = stmt.query_map([to_i64(limit)], |r| {
            Ok(SessionListing {
                // The first nine columns are those of a session_info row.
                info: sessions::info_from_row(r)?,
                active_agents: r.get(9)?,
                finished_agents: r.get(10)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Everything `nagger stats` shows for `scope`, from one consistent snapshot.
    pub fn stats(&self, scope: Scope<'_>) -> StoreResult<Stats> {
        stats::collect(&self.conn, scope)
    }

    /// When nagger last ran a hook in this database (unix ms), if ever.
    pub fn last_hook_run(&self) -> StoreResult<Option<i64>> {
        Ok(self
            .conn
            .query_row("SELECT max(timestamp) FROM hook_log", [], |r| r.get(0))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> (tempfile::TempDir, NaggerStateDB) {
        let dir = tempfile::tempdir().unwrap();
        let db = NaggerStateDB::open(&dir.path().join("state.db")).unwrap();
        (dir, db)
    }

    #[test]
    fn sessions_are_listed_with_their_agents_counted() {
        let (_dir, db) = db();
        let c = &db.conn;
        c.execute_batch(
            "INSERT INTO session_info (session_id, started_at, last_seen_at) VALUES
                 ('old', 1, 10), ('new', 2, 20), ('lonely', 3, 5);
             INSERT INTO subagents (agent_id, session_id, agent_type, created_at) VALUES
                 ('a1', 'new', 'coder', 1), ('a2', 'new', 'coder', 1), ('a3', 'old', 'tester', 1);",
        )
        .unwrap();
        c.execute(
            "INSERT INTO subagent_history (agent_id, session_id, agent_type, started_at, stopped_at, duration_ms)
             VALUES ('h1', 'old', 'coder', 1, 2, 1)",
            [],
        )
        .unwrap();
        let listed: Vec<(String, i64, i64)> = db
            .session_listings(10)
            .unwrap()
            .into_iter()
            .map(|l| (l.info.session_id, l.active_agents, l.finished_agents))
            .collect();
        assert_eq!(
            listed,
            [
                ("new".to_string(), 2, 0),
                ("old".to_string(), 1, 1),
                ("lonely".to_string(), 0, 0)
            ]
        );
        assert_eq!(db.session_listings(1).unwrap().len(), 1);
    }

    #[test]
    fn a_session_is_known_by_any_trace() {
        let (_dir, db) = db();
        assert!(!db.session_known("s").unwrap());
        db.conn
            .execute(
                "INSERT INTO subagents (agent_id, session_id, agent_type, created_at) VALUES ('a', 's', 't', 1)",
                [],
            )
            .unwrap();
        assert!(db.session_known("s").unwrap());
    }

    #[test]
    fn the_last_hook_run_is_none_before_any() {
        let (_dir, db) = db();
        assert_eq!(db.last_hook_run().unwrap(), None);
    }
}
