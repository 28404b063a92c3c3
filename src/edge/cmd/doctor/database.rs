//! The database checks: the file, its integrity, foreign keys, journal mode, schema and
//! migrations, the stats rollup, stale rows, recent hook errors, quarantined copies.

use super::check::{Check, Checks, HOUR_MS, Status, plural};
use crate::base::num::{to_u64, to_usize};
use crate::edge::cmd::common::age;
use crate::storage::store::health::{self, Inspection, SchemaStatus};
use crate::storage::store::{now_ms, stats};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A database this large is worth a look (log retention, `nagger gc`).
const LARGE_DB_BYTES: u64 = 512 * 1024 * 1024;
/// How far back failed hook runs are reported.
const RECENT_ERRORS_MS: i64 = 24 * HOUR_MS;

/// Every database check of the file at `db_path`, read without changing it.
pub fn check(db_path: &Path, ttl_ms: i64) -> Vec<Check> {
    let mut checks = Checks::default();
    database_checks(db_path, ttl_ms, &mut checks);
    checks.0
}

fn database_checks(db_path: &Path, ttl_ms: i64, checks: &mut Checks) {
    let shown = db_path.display();
    match health::inspect(db_path) {
        Err(e) => checks.push("database", Status::Fail, format!("cannot open: {e}")),
        Ok(Inspection::Missing) => checks.push(
            "database",
            Status::Warn,
            format!(
                "no database yet at {shown}: the first hook run creates it (`nagger doctor --fix` creates it now)"
            ),
        ),
        Ok(Inspection::NotADatabase(why)) => checks.push(
            "database",
            Status::Fail,
            format!(
                "{shown} is not a usable SQLite database ({why}); `nagger doctor --fix` moves it aside and creates a new one"
            ),
        ),
        Ok(Inspection::Foreign(kind)) => checks.push(
            "database",
            Status::Warn,
            super::claude_nagger::foreign_database(db_path, kind),
        ),
        Ok(Inspection::Open(conn)) => open_database_checks(&conn, db_path, ttl_ms, checks),
    }
    quarantine_check(db_path, checks);
}

fn open_database_checks(
    conn: &rusqlite::Connection,
    db_path: &Path,
    ttl_ms: i64,
    checks: &mut Checks,
) {
    let bytes = to_u64(health::database_bytes(conn).unwrap_or(0));
    let mut wal = db_path.as_os_str().to_os_string();
    wal.push("-wal");
    let wal_bytes = std::fs::metadata(PathBuf::from(wal)).map_or(0, |m| m.len());
    let size = format!("{} (wal {})", human_bytes(bytes), human_bytes(wal_bytes));
    if wal_bytes > crate::storage::store::HOOK_WAL_BYTES {
        checks.push(
            "database",
            Status::Warn,
            format!(
                "{}'s write-ahead log holds {}, more than a hook replays within its second: \
                 hooks answer without the database until `nagger gc` (or `nagger doctor \
                 --fix`) replays and truncates it",
                db_path.display(),
                human_bytes(wal_bytes)
            ),
        );
    } else if bytes + wal_bytes > LARGE_DB_BYTES {
        checks.push(
            "database",
            Status::Warn,
            format!(
                "{} is {size}: lower [log] retention_days or run `nagger gc`",
                db_path.display()
            ),
        );
    } else {
        checks.push(
            "database",
            Status::Ok,
            format!("{}, {size}", db_path.display()),
        );
    }

    let integrity = health::integrity_problems(conn);
    if integrity.is_empty() {
        checks.push("integrity", Status::Ok, "integrity_check: ok");
    } else {
        let shown: Vec<&str> = integrity.iter().take(3).map(String::as_str).collect();
        checks.push(
            "integrity",
            Status::Fail,
            format!(
                "integrity_check found {} problem{}: {}; `nagger doctor --fix` moves the database aside and creates a new one",
                integrity.len(),
                plural(integrity.len()),
                shown.join("; ")
            ),
        );
        // Nothing else read from a corrupt file can be trusted.
        return;
    }

    match health::foreign_key_violations(conn) {
        Ok(v) if v.is_empty() => checks.push("foreign keys", Status::Ok, "foreign_key_check: ok"),
        Ok(v) => {
            let mut per_table: BTreeMap<String, usize> = BTreeMap::new();
            for (table, parent) in v {
                *per_table.entry(format!("{table} → {parent}")).or_default() += 1;
            }
            let list: Vec<String> = per_table.iter().map(|(t, n)| format!("{t}: {n}")).collect();
            checks.push(
                "foreign keys",
                Status::Fail,
                format!(
                    "foreign_key_check: rows without their parent ({})",
                    list.join(", ")
                ),
            );
        }
        Err(e) => checks.push(
            "foreign keys",
            Status::Fail,
            format!("foreign_key_check failed: {e}"),
        ),
    }

    match health::journal_mode(conn) {
        Ok(mode) if mode.eq_ignore_ascii_case("wal") => {
            checks.push("journal", Status::Ok, "journal_mode: wal");
        }
        Ok(mode) => checks.push(
            "journal",
            Status::Fail,
            format!(
                "journal_mode is {mode}, not wal: parallel hooks would block each other (`nagger doctor --fix` switches it)"
            ),
        ),
        Err(e) => checks.push("journal", Status::Fail, format!("cannot read journal_mode: {e}")),
    }

    let schema_complete = match health::schema_status(conn) {
        Ok(status) => schema_check(&status, checks),
        Err(e) => {
            checks.push(
                "schema",
                Status::Fail,
                format!("cannot read the schema: {e}"),
            );
            false
        }
    };
    if !schema_complete {
        // The remaining checks read nagger's tables.
        return;
    }

    match stats::rollup_drift(conn) {
        Ok(None) => checks.push("stats rollup", Status::Ok, "hook_log_rollup matches hook_log"),
        Ok(Some((rolled, logged))) => checks.push(
            "stats rollup",
            Status::Fail,
            format!(
                "hook_log_rollup counts {rolled} runs but hook_log holds {logged}: `nagger stats` would be wrong (`nagger doctor --fix` recounts it)"
            ),
        ),
        Err(e) => checks.push("stats rollup", Status::Fail, format!("cannot compare: {e}")),
    }

    match health::stale_rows(conn, ttl_ms) {
        Ok(s) if s.agents + s.sessions == 0 => checks.push(
            "stale rows",
            Status::Ok,
            format!("nothing older than the {}h TTL", ttl_ms / HOUR_MS),
        ),
        Ok(s) => checks.push(
            "stale rows",
            Status::Warn,
            format!(
                "{} subagent{} active and {} session{} never ended for more than the {}h TTL; the next SessionStart, `nagger gc` or `nagger doctor --fix` purges them",
                s.agents,
                plural(to_usize(s.agents)),
                s.sessions,
                plural(to_usize(s.sessions)),
                ttl_ms / HOUR_MS
            ),
        ),
        Err(e) => checks.push("stale rows", Status::Fail, format!("cannot count: {e}")),
    }

    match health::recent_errors(conn, now_ms() - RECENT_ERRORS_MS) {
        Ok(health::RecentErrors { count: 0, .. }) => checks.push(
            "hook errors",
            Status::Ok,
            "no hook run failed in the last 24h",
        ),
        Ok(health::RecentErrors { count: n, newest }) => {
            let newest = newest
                .map(|(at, event, message)| {
                    format!(
                        "; newest {} ago ({event}): {}",
                        age(at),
                        crate::base::text::one_line(
                            message.as_deref().unwrap_or("no message"),
                            200
                        )
                    )
                })
                .unwrap_or_default();
            checks.push(
                "hook errors",
                Status::Warn,
                format!(
                    "{n} hook run{} failed in the last 24h (nagger passed them){newest}",
                    plural(to_usize(n))
                ),
            );
        }
        Err(e) => checks.push(
            "hook errors",
            Status::Fail,
            format!("cannot read hook_log: {e}"),
        ),
    }
}

/// Reports the schema; true when it is complete enough to read nagger's tables.
fn schema_check(s: &SchemaStatus, checks: &mut Checks) -> bool {
    let names = |v: &[(i64, String)]| {
        v.iter()
            .map(|(version, name)| format!("V{version}__{name}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let them = |n: usize| if n == 1 { "it" } else { "them" };
    if s.user_version > s.latest {
        checks.push(
            "schema",
            Status::Fail,
            format!(
                "schema v{} is newer than this nagger's v{}: run the newer nagger (or upgrade this one)",
                s.user_version, s.latest
            ),
        );
        return false;
    }
    if !s.pending.is_empty() {
        checks.push(
            "schema",
            Status::Fail,
            format!(
                "schema v{}, this nagger's is v{}: migration{} {} not applied (`nagger doctor --fix` applies {})",
                s.user_version,
                s.latest,
                plural(s.pending.len()),
                names(&s.pending),
                them(s.pending.len())
            ),
        );
        return false;
    }
    let mut complete = true;
    let mut fine = true;
    if !s.unrecorded.is_empty() {
        fine = false;
        checks.push(
            "schema",
            Status::Fail,
            format!(
                "user_version says v{} but refinery_schema_history lacks {}: a migration run would apply {} again (`nagger doctor --fix` restores the record)",
                s.user_version,
                names(&s.unrecorded),
                them(s.unrecorded.len())
            ),
        );
    }
    if !s.missing.is_empty() {
        fine = false;
        let list: Vec<String> = s
            .missing
            .iter()
            .map(|o| format!("{} {}", o.kind, o.name))
            .collect();
        checks.push(
            "schema",
            Status::Fail,
            format!(
                "schema v{} lacks {} (`nagger doctor --fix` recreates {})",
                s.latest,
                list.join(", "),
                them(list.len())
            ),
        );
        // A missing index slows nagger down, a missing table breaks it; the other
        // checks only read tables that exist.
        complete = s.missing.iter().all(|o| o.kind != "table");
    }
    if !fine {
        return complete;
    }
    if s.user_version < s.latest {
        checks.push(
            "schema",
            Status::Warn,
            format!(
                "migrations applied but user_version is {} (want {}): the next open sets it (`nagger doctor --fix` now)",
                s.user_version, s.latest
            ),
        );
        return true;
    }
    let mut message = format!("v{} (latest): {}", s.latest, names(&s.applied));
    if !s.divergent.is_empty() {
        let _ = write!(
            message,
            "; {} applied from an earlier text, no object missing",
            names(&s.divergent)
        );
    }
    checks.push("schema", Status::Ok, message);
    true
}

/// Databases `open` or `--fix` moved aside: nagger no longer uses them, a person decides.
fn quarantine_check(db_path: &Path, checks: &mut Checks) {
    let (Some(dir), Some(name)) = (db_path.parent(), db_path.file_name()) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!("{}.corrupt-", name.to_string_lossy());
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&prefix) && !n.ends_with("-wal") && !n.ends_with("-shm"))
        .collect();
    found.sort();
    if found.is_empty() {
        checks.push("quarantine", Status::Ok, "no corrupt database moved aside");
    } else {
        checks.push(
            "quarantine",
            Status::Warn,
            format!(
                "{} corrupt database{} moved aside in {}: {}; nagger no longer uses {}: inspect or delete",
                found.len(),
                plural(found.len()),
                dir.display(),
                found.join(", "),
                if found.len() == 1 { "it" } else { "them" }
            ),
        );
    }
}

fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::store::NaggerStateDB;

    const TTL_MS: i64 = 24 * HOUR_MS;

    fn named<'a>(checks: &'a [Check], name: &str) -> Vec<&'a Check> {
        checks.iter().filter(|c| c.name == name).collect()
    }

    fn status_of(checks: &[Check], name: &str) -> Status {
        let found = named(checks, name);
        assert_eq!(found.len(), 1, "{name}: {checks:#?}");
        found[0].status
    }

    #[test]
    fn a_missing_database_is_a_warning_and_is_not_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let checks = check(&path, TTL_MS);
        assert_eq!(status_of(&checks, "database"), Status::Warn);
        assert!(checks[0].message.contains("no database yet"), "{checks:#?}");
        assert_eq!(status_of(&checks, "quarantine"), Status::Ok);
        assert!(!path.exists());
    }

    #[test]
    fn a_file_that_is_not_a_database_fails() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        // SQLite's header, then damage (without the header it is a foreign file: kept aside).
        std::fs::write(&path, b"SQLite format 3\0 then someone's notes").unwrap();
        let checks = check(&path, TTL_MS);
        assert_eq!(status_of(&checks, "database"), Status::Fail);
        assert!(checks[0].message.contains("doctor --fix"), "{checks:#?}");
    }

    #[test]
    fn a_fresh_database_passes_every_check() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(NaggerStateDB::open(&path).unwrap());
        let checks = check(&path, TTL_MS);
        let names: Vec<&str> = checks.iter().map(|c| c.name).collect();
        assert_eq!(
            names,
            [
                "database",
                "integrity",
                "foreign keys",
                "journal",
                "schema",
                "stats rollup",
                "stale rows",
                "hook errors",
                "quarantine"
            ]
        );
        assert!(checks.iter().all(|c| c.status == Status::Ok), "{checks:#?}");
    }

    #[test]
    fn a_database_out_of_wal_mode_fails_the_journal_check() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(NaggerStateDB::open(&path).unwrap());
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "journal_mode", "delete").unwrap();
        drop(conn);
        let checks = check(&path, TTL_MS);
        assert_eq!(status_of(&checks, "journal"), Status::Fail);
    }

    #[test]
    fn a_database_moved_aside_is_reported_until_someone_decides() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        std::fs::write(dir.path().join("state.db.corrupt-1700000000000"), b"x").unwrap();
        // Its WAL and index are not counted as more databases.
        std::fs::write(dir.path().join("state.db.corrupt-1700000000000-wal"), b"x").unwrap();
        let checks = check(&path, TTL_MS);
        let q = named(&checks, "quarantine");
        assert_eq!(q[0].status, Status::Warn);
        assert!(
            q[0].message.starts_with("1 corrupt database moved aside"),
            "{}",
            q[0].message
        );
    }

    fn schema(user_version: i64, latest: i64) -> SchemaStatus {
        SchemaStatus {
            user_version,
            latest,
            applied: vec![(1, "initial".into())],
            pending: Vec::new(),
            unrecorded: Vec::new(),
            divergent: Vec::new(),
            missing: Vec::new(),
        }
    }

    fn schema_checks(s: &SchemaStatus) -> (bool, Vec<Check>) {
        let mut checks = Checks::default();
        let complete = schema_check(s, &mut checks);
        (complete, checks.0)
    }

    #[test]
    fn the_schema_is_judged_against_this_binarys_migrations() {
        let (complete, checks) = schema_checks(&schema(1, 1));
        assert!(complete);
        assert_eq!(checks[0].status, Status::Ok);
        assert_eq!(checks[0].message, "v1 (latest): V1__initial");

        let (complete, checks) = schema_checks(&schema(2, 1));
        assert!(!complete, "a newer schema is not read");
        assert_eq!(checks[0].status, Status::Fail);
        assert!(checks[0].message.contains("newer than this nagger's v1"));

        let mut pending = schema(1, 2);
        pending.pending = vec![(2, "lean".into())];
        let (complete, checks) = schema_checks(&pending);
        assert!(!complete);
        assert!(
            checks[0].message.contains("migration V2__lean not applied"),
            "{}",
            checks[0].message
        );

        let (complete, checks) = schema_checks(&schema(0, 1));
        assert!(complete, "only user_version lags");
        assert_eq!(checks[0].status, Status::Warn);
    }

    #[test]
    fn sizes_and_messages_read_short() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 * 1024 * 1024 * 1024), "3.0 GiB");
    }
}
