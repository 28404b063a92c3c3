//! usage_counts: how often tools, skills and subagent types were used.

use super::db::{NaggerStateDB, now_ms};
use super::error::StoreResult;
use rusqlite::{Connection, params};

pub struct UsageRepository<'c> {
    conn: &'c Connection,
}

impl NaggerStateDB {
    pub fn usage(&self) -> UsageRepository<'_> {
        UsageRepository::new(&self.conn)
    }
}

impl<'c> UsageRepository<'c> {
    pub fn new(conn: &'c Connection) -> Self {
        UsageRepository { conn }
    }

    /// Adds one use of each (kind, name).
    pub fn count(&self, session_id: &str, uses: &[(&str, &str)]) -> StoreResult<()> {
        let mut stmt = self.conn.prepare_cached(
            "INSERT INTO usage_counts (session_id, kind, name, count, updated_at) VALUES (?1, ?2, ?3, 1, ?4)
             ON CONFLICT(session_id, kind, name) DO UPDATE SET count = count + 1, updated_at = excluded.updated_at",
        )?;
        let now = now_ms();
        for (kind, name) in uses {
            stmt.execute(params![session_id, kind, name, now])?;
        }
        Ok(())
    }

    /// Totals per (kind, name), most used first; one session or all.
    pub fn totals(&self, session_id: Option<&str>) -> StoreResult<Vec<(String, String, i64)>> {
        let mut stmt = self.conn.prepare(
            "SELECT kind, name, sum(count) FROM usage_counts WHERE ?1 IS NULL OR session_id = ?1
             GROUP BY kind, name ORDER BY 3 DESC, 1, 2",
        )?;
        let rows = stmt.query_map([session_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
