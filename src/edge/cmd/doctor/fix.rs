//! `nagger doctor --fix`: repairs what nagger owns, the database, and says what it did.

use super::check::Fix;
use crate::storage::store::health::{self, Inspection};
use crate::storage::store::{NaggerStateDB, stats};
use std::path::Path;

/// Repairs the database: creates it, or moves a corrupt one aside for a new one, or brings
/// its schema to this binary's; then purges stale rows. Each step reports, none aborts.
pub fn fix(db_path: &Path, ttl_ms: i64, retention_ms: i64) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let mut record = |check, result: Result<String, String>| {
        let (action, done) = match result {
            Ok(action) => (action, true),
            Err(problem) => (problem, false),
        };
        fixes.push(Fix {
            check,
            action,
            done,
        });
    };
    let recreate = |why: &str| {
        health::quarantine_and_recreate(db_path)
            .map(|moved| {
                format!(
                    "{why}: moved it aside to {} and created a new one",
                    moved.display()
                )
            })
            .map_err(|e| format!("{why}, and could not be moved aside: {e}"))
    };
    let conn = match health::inspect(db_path) {
        Err(e) => {
            record("database", Err(format!("cannot open: {e}")));
            return fixes;
        }
        Ok(Inspection::Missing) => {
            record(
                "database",
                NaggerStateDB::open(db_path)
                    .map(|_| format!("created {}", db_path.display()))
                    .map_err(|e| format!("could not create {}: {e}", db_path.display())),
            );
            return fixes;
        }
        Ok(Inspection::NotADatabase(_)) => {
            record("database", recreate("not a database"));
            return fixes;
        }
        Ok(Inspection::Foreign(_)) => {
            record("database", super::claude_nagger::fix_foreign(db_path));
            return fixes;
        }
        Ok(Inspection::Open(conn)) => conn,
    };
    if !health::integrity_problems(&conn).is_empty() {
        drop(conn);
        record("integrity", recreate("corrupt pages"));
        return fixes;
    }
    match health::schema_status(&conn) {
        Ok(status) if status.user_version > status.latest => {}
        Ok(status) => {
            let mode = health::journal_mode(&conn).unwrap_or_default();
            let needed = !status.pending.is_empty()
                || !status.unrecorded.is_empty()
                || !status.missing.is_empty()
                || status.user_version < status.latest
                || !mode.eq_ignore_ascii_case("wal");
            if needed {
                record(
                    "schema",
                    health::repair_schema(db_path)
                        .map(|r| {
                            let mut done = Vec::new();
                            if r.switched_to_wal {
                                done.push("switched to WAL".to_string());
                            }
                            if !r.recorded.is_empty() {
                                done.push(format!("recorded {} as applied", r.recorded.join(", ")));
                            }
                            if !r.applied.is_empty() {
                                done.push(format!("applied {}", r.applied.join(", ")));
                            }
                            if !r.recreated.is_empty() {
                                done.push(format!("recreated {}", r.recreated.join(", ")));
                            }
                            if let Some(from) = r.user_version_from {
                                done.push(format!("set user_version from {from}"));
                            }
                            done.join("; ")
                        })
                        .map_err(|e| format!("could not repair the schema: {e}")),
                );
            }
        }
        Err(e) => record("schema", Err(format!("cannot read the schema: {e}"))),
    }
    if let Ok(Some((rolled, logged))) = stats::rollup_drift(&conn) {
        record(
            "stats rollup",
            stats::rebuild_rollup(&conn)
                .map(|()| format!("recounted hook_log_rollup ({rolled} → {logged} runs)"))
                .map_err(|e| format!("could not recount hook_log_rollup: {e}")),
        );
    }
    let stale = health::stale_rows(&conn, ttl_ms).unwrap_or_default();
    drop(conn);
    if stale.agents + stale.sessions > 0 {
        record(
            "stale rows",
            NaggerStateDB::open(db_path)
                .and_then(|db| db.sessions().purge_expired(ttl_ms, retention_ms))
                .map(|removed| {
                    let parts: Vec<String> = removed
                        .iter()
                        .filter(|(_, n)| *n > 0)
                        .map(|(table, n)| format!("{table} {n}"))
                        .collect();
                    format!("purged expired state ({})", parts.join(", "))
                })
                .map_err(|e| format!("could not purge: {e}")),
        );
    }
    fixes
}

#[cfg(test)]
mod tests {
    use super::*;

    const TTL_MS: i64 = 24 * 3_600_000;

    fn actions(fixes: &[Fix]) -> Vec<(&str, bool)> {
        fixes.iter().map(|f| (f.check, f.done)).collect()
    }

    #[test]
    fn a_missing_database_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let fixes = fix(&path, TTL_MS, TTL_MS);
        assert_eq!(actions(&fixes), [("database", true)]);
        assert!(fixes[0].action.starts_with("created "));
        assert!(path.exists());
    }

    #[test]
    fn a_file_that_is_not_a_database_is_moved_aside_for_a_new_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        // SQLite's header, then damage (without the header it is a foreign file: kept aside).
        std::fs::write(&path, b"SQLite format 3\0 then someone's notes").unwrap();
        let fixes = fix(&path, TTL_MS, TTL_MS);
        assert_eq!(actions(&fixes), [("database", true)]);
        assert!(
            fixes[0]
                .action
                .starts_with("not a database: moved it aside to "),
            "{}",
            fixes[0].action
        );
        assert!(NaggerStateDB::open_read_only(&path).unwrap().is_some());
    }

    #[test]
    fn a_healthy_database_needs_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(NaggerStateDB::open(&path).unwrap());
        assert!(fix(&path, TTL_MS, TTL_MS).is_empty());
    }

    #[test]
    fn a_database_out_of_wal_mode_is_switched_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(NaggerStateDB::open(&path).unwrap());
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "journal_mode", "delete").unwrap();
        drop(conn);
        let fixes = fix(&path, TTL_MS, TTL_MS);
        assert_eq!(actions(&fixes), [("schema", true)]);
        assert_eq!(fixes[0].action, "switched to WAL");
    }
}
