//! rule_hits: which rule or guard check fired for which session and agent.

use super::db::{NaggerStateDB, now_ms};
use super::error::StoreResult;
use rusqlite::{Connection, params};

#[derive(Debug, Clone)]
pub struct NewRuleHit<'a> {
    pub session_id: &'a str,
    pub agent_id: Option<&'a str>,
    pub rule_name: &'a str,
    pub rule_kind: &'a str,
    pub severity: &'a str,
    pub tokens: i64,
}

pub struct RuleHitRepository<'c> {
    conn: &'c Connection,
}

impl NaggerStateDB {
    pub fn rule_hits(&self) -> RuleHitRepository<'_> {
        RuleHitRepository::new(&self.conn)
    }
}

impl<'c> RuleHitRepository<'c> {
    pub fn new(conn: &'c Connection) -> Self {
        RuleHitRepository { conn }
    }

    pub fn record(&self, hit: &NewRuleHit<'_>) -> StoreResult<()> {
        let decision = match hit.severity {
            "deny" | "block" => "deny",
            "ask" => "ask",
            _ => "context",
        };
        self.conn
            .prepare_cached(
                "INSERT INTO rule_hits (session_id, agent_id, rule_name, rule_kind, severity, decision, last_tokens, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                hit.session_id,
                hit.agent_id,
                hit.rule_name,
                hit.rule_kind,
                hit.severity,
                decision,
                hit.tokens,
                now_ms()
            ])?;
        Ok(())
    }
}
