//! rule_hits: which rule or guard check fired for which session and agent, and why.

use super::db::{NaggerStateDB, now_ms};
use super::error::StoreResult;
use rusqlite::{Connection, params};

/// Most bytes of a hit's reason that are stored; a longer one is cut on a character
/// boundary and ends in `…`.
pub const REASON_BYTES: usize = 500;

#[derive(Debug, Clone)]
pub struct NewRuleHit<'a> {
    pub session_id: &'a str,
    pub agent_id: Option<&'a str>,
    pub rule_name: &'a str,
    pub rule_kind: &'a str,
    pub severity: &'a str,
    pub tokens: i64,
    /// Why the rule or guard check fired (what `nagger check` prints as WHY).
    pub reason: Option<&'a str>,
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
            "deny" => "deny",
            "block" => "block",
            "ask" => "ask",
            _ => "context",
        };
        let reason = hit
            .reason
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(|r| bounded(r, REASON_BYTES));
        self.conn
            .prepare_cached(
                "INSERT INTO rule_hits (session_id, agent_id, rule_name, rule_kind, severity, decision, last_tokens, created_at, reason)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                hit.session_id,
                hit.agent_id,
                hit.rule_name,
                hit.rule_kind,
                hit.severity,
                decision,
                hit.tokens,
                now_ms(),
                reason
            ])?;
        Ok(())
    }
}

/// `s` in at most `max` bytes (`max` ≥ 3): whole when it fits, else cut on a character
/// boundary with `…` saying so.
fn bounded(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if s.len() <= max {
        return s.into();
    }
    let end = s.floor_char_boundary(max.saturating_sub('…'.len_utf8()));
    format!("{}…", &s[..end]).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit<'a>(severity: &'a str, reason: Option<&'a str>) -> NewRuleHit<'a> {
        NewRuleHit {
            session_id: "s1",
            agent_id: None,
            rule_name: "guard:rm-rf",
            rule_kind: "guard",
            severity,
            tokens: 0,
            reason,
        }
    }

    fn stored(db: &NaggerStateDB) -> Vec<(String, Option<String>)> {
        db.conn
            .prepare("SELECT decision, reason FROM rule_hits ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn each_hit_keeps_its_decision_and_reason() {
        let dir = tempfile::tempdir().unwrap();
        let db = NaggerStateDB::open(&dir.path().join("state.db")).unwrap();
        let hits = db.rule_hits();
        hits.record(&hit("deny", Some("deletes the filesystem root")))
            .unwrap();
        hits.record(&hit(
            "ask",
            Some(" runs a program only known when the shell runs "),
        ))
        .unwrap();
        hits.record(&hit("block", Some("reads a secret"))).unwrap();
        hits.record(&hit("warn", Some(""))).unwrap();
        hits.record(&hit("warn", None)).unwrap();
        assert_eq!(
            stored(&db),
            [
                ("deny".into(), Some("deletes the filesystem root".into())),
                (
                    "ask".into(),
                    Some("runs a program only known when the shell runs".into())
                ),
                ("block".into(), Some("reads a secret".into())),
                ("context".into(), None),
                ("context".into(), None),
            ]
        );
    }

    #[test]
    fn a_long_reason_is_cut_on_a_character_boundary() {
        let dir = tempfile::tempdir().unwrap();
        let db = NaggerStateDB::open(&dir.path().join("state.db")).unwrap();
        // Two-byte characters, so an odd byte limit falls inside one.
        let long = "é".repeat(REASON_BYTES);
        db.rule_hits().record(&hit("deny", Some(&long))).unwrap();
        let (_, reason) = stored(&db).pop().unwrap();
        let reason = reason.unwrap();
        assert!(reason.len() <= REASON_BYTES, "{}", reason.len());
        assert!(reason.len() > REASON_BYTES - 8, "{}", reason.len());
        assert!(reason.ends_with('…'), "{reason}");
        assert!(reason.trim_end_matches('…').chars().all(|c| c == 'é'));
    }

    #[test]
    fn bounded_keeps_what_fits() {
        assert_eq!(bounded("abc", 3), "abc");
        assert_eq!(bounded("abcd", 3), "…");
        assert_eq!(bounded("abcdef", 5), "ab…");
        assert_eq!(bounded("aé", 4), "aé");
        assert_eq!(bounded("aéé", 4), "a…");
        // The limit falls inside the first `é`: cut before it.
        assert_eq!(bounded("aééé", 5), "a…");
    }
}
