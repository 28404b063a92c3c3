//! What `nagger doctor` inspects and repairs in the state database: the file itself, the
//! schema against the migrations embedded in this binary, stale rows and recent failures.
//! Inspection never creates, migrates or locks; repairs take the migration lock.

use super::db::{
    NaggerStateDB, apply_connection_pragmas, hold_migration_lock, immediate, latest_version,
    migrations, now_ms, open_raw, quarantine, set_wal, user_version,
};
use super::error::{StoreError, StoreResult, is_not_a_database};
use rusqlite::{Connection, OptionalExtension};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// refinery's record of applied migrations.
const HISTORY_TABLE: &str = "refinery_schema_history";

/// The database file as doctor finds it.
pub enum Inspection {
    Missing,
    /// SQLite refuses the file (not a database, or its header is corrupt).
    NotADatabase(String),
    /// A file nagger did not create (`foreign`): never migrated, moved aside by the next
    /// open.
    Foreign(super::foreign::Foreign),
    Open(Connection),
}

/// Opens an existing database read-write without creating, migrating or setting pragmas.
/// A busy database is an error, never "not a database".
pub fn inspect(path: &Path) -> StoreResult<Inspection> {
    let exists = path.try_exists().map_err(|source| StoreError::Io {
        context: format!("inspecting {}", path.display()),
        source,
    })?;
    if !exists {
        return Ok(Inspection::Missing);
    }
    if super::foreign::is_not_sqlite(path) {
        return Ok(Inspection::Foreign(super::foreign::Foreign::NotSqlite));
    }
    let conn = NaggerStateDB::open_existing_unmigrated(path)?;
    // Closing must not checkpoint a WAL into its database: doctor changes nothing.
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )?;
    match user_version(&conn) {
        Ok(v) if v != latest_version() => match super::foreign::classify(&conn) {
            Ok(Some(kind)) => Ok(Inspection::Foreign(kind)),
            _ => Ok(Inspection::Open(conn)),
        },
        Ok(_) => Ok(Inspection::Open(conn)),
        Err(e) if is_not_a_database(&e) => Ok(Inspection::NotADatabase(e.to_string())),
        Err(source) => Err(StoreError::Sqlite {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// A table, index, view or trigger of the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaObject {
    pub kind: String,
    pub name: String,
    sql: String,
}

/// The schema of a database compared with this binary's migrations.
#[derive(Debug, Clone, Default)]
pub struct SchemaStatus {
    pub user_version: i64,
    pub latest: i64,
    /// Versions and names refinery recorded as applied.
    pub applied: Vec<(i64, String)>,
    /// Embedded migrations refinery has not recorded, newer than `user_version`: not applied.
    pub pending: Vec<(i64, String)>,
    /// Embedded migrations refinery has not recorded though `user_version` (nagger's own
    /// mark, set after migrating) covers them: applied, their record lost.
    pub unrecorded: Vec<(i64, String)>,
    /// Applied migrations whose recorded checksum is not this binary's.
    pub divergent: Vec<(i64, String)>,
    /// Objects the migrated schema has and this database lacks (only when none is pending).
    pub missing: Vec<SchemaObject>,
}

pub fn schema_status(conn: &Connection) -> StoreResult<SchemaStatus> {
    let recorded = applied_migrations(conn)?;
    let mut status = SchemaStatus {
        user_version: user_version(conn)?,
        latest: latest_version(),
        applied: recorded.iter().map(|(v, n, _)| (*v, n.clone())).collect(),
        ..SchemaStatus::default()
    };
    for m in migrations::runner().get_migrations() {
        let version = i64::from(m.version());
        match recorded.iter().find(|(v, _, _)| *v == version) {
            None if version <= status.user_version => {
                status.unrecorded.push((version, m.name().to_string()));
            }
            None => status.pending.push((version, m.name().to_string())),
            Some((_, _, checksum)) if *checksum != m.checksum().to_string() => {
                status.divergent.push((version, m.name().to_string()));
            }
            Some(_) => {}
        }
    }
    status.pending.sort();
    status.unrecorded.sort();
    if status.pending.is_empty() {
        status.missing = missing_objects(conn)?;
    }
    Ok(status)
}

/// (version, name, checksum) of the migrations refinery recorded; none without its table.
fn applied_migrations(conn: &Connection) -> StoreResult<Vec<(i64, String, String)>> {
    let has_history: bool = conn
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [HISTORY_TABLE],
            |_| Ok(true),
        )
        .optional()?
        .unwrap_or(false);
    if !has_history {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare(&format!(
        "SELECT version, coalesce(name, ''), coalesce(checksum, '') FROM {HISTORY_TABLE} ORDER BY version"
    ))?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn schema_objects(conn: &Connection) -> rusqlite::Result<Vec<SchemaObject>> {
    let mut stmt = conn.prepare(
        "SELECT type, name, sql FROM sqlite_master
         WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name <> ?1
         ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, name",
    )?;
    let rows = stmt.query_map([HISTORY_TABLE], |r| {
        Ok(SchemaObject {
            kind: r.get(0)?,
            name: r.get(1)?,
            sql: r.get(2)?,
        })
    })?;
    rows.collect()
}

/// Objects the embedded migrations create (applied to an empty in-memory database) that
/// `conn` does not have: what a partly applied or hand-edited schema lost.
fn missing_objects(conn: &Connection) -> StoreResult<Vec<SchemaObject>> {
    let mut reference = Connection::open_in_memory()?;
    migrations::runner()
        .set_grouped(true)
        .run(&mut reference)
        .map_err(|source| StoreError::Migration {
            path: PathBuf::from(":memory:"),
            source: Box::new(source),
        })?;
    let present: BTreeSet<(String, String)> = schema_objects(conn)?
        .into_iter()
        .map(|o| (o.kind, o.name))
        .collect();
    Ok(schema_objects(&reference)?
        .into_iter()
        .filter(|o| !present.contains(&(o.kind.clone(), o.name.clone())))
        .collect())
}

/// What `repair_schema` did.
#[derive(Debug, Clone, Default)]
pub struct SchemaRepair {
    pub switched_to_wal: bool,
    /// Migrations recorded as applied without running them (their record was lost).
    pub recorded: Vec<String>,
    /// Migrations applied, as `V1__initial`.
    pub applied: Vec<String>,
    /// Objects recreated, as `index idx_hook_log_stats`.
    pub recreated: Vec<String>,
    pub user_version_from: Option<i64>,
}

impl SchemaRepair {
    pub fn is_empty(&self) -> bool {
        !self.switched_to_wal
            && self.recorded.is_empty()
            && self.applied.is_empty()
            && self.recreated.is_empty()
            && self.user_version_from.is_none()
    }
}

/// Brings the database's schema to this binary's under the migration lock: WAL; the
/// record of migrations `user_version` says were applied (running them again would fail on
/// their own tables); every migration not applied (grouped, atomically); objects that went
/// missing; and `user_version` (the fast path of `NaggerStateDB::open`).
pub fn repair_schema(path: &Path) -> StoreResult<SchemaRepair> {
    let lock = hold_migration_lock(path)?;
    let sqlite = |source| StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    let mut conn = open_raw(path)?;
    apply_connection_pragmas(&conn).map_err(sqlite)?;
    let mut repair = SchemaRepair::default();
    let mode: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .map_err(sqlite)?;
    if !mode.eq_ignore_ascii_case("wal") {
        set_wal(&conn, path)?;
        repair.switched_to_wal = true;
    }
    let migration_error = |source| StoreError::Migration {
        path: path.to_path_buf(),
        source: Box::new(source),
    };
    let marked = user_version(&conn)?;
    let unrecorded = schema_status(&conn)?.unrecorded;
    if !unrecorded.is_empty() {
        // A fake run writes the history rows and runs no SQL (its report lists nothing).
        let target = i32::try_from(marked).unwrap_or(i32::MAX);
        migrations::runner()
            .set_target(refinery::Target::FakeVersion(target))
            .set_grouped(true)
            .run(&mut conn)
            .map_err(migration_error)?;
        repair.recorded = unrecorded
            .iter()
            .map(|(version, name)| format!("V{version}__{name}"))
            .collect();
    }
    let report = migrations::runner()
        .set_grouped(true)
        .run(&mut conn)
        .map_err(migration_error)?;
    repair.applied = report
        .applied_migrations()
        .iter()
        .map(|m| format!("V{}__{}", m.version(), m.name()))
        .collect();
    let missing = missing_objects(&conn)?;
    if !missing.is_empty() {
        let tx = immediate(&conn)?;
        for object in &missing {
            tx.execute_batch(&object.sql)?;
            repair
                .recreated
                .push(format!("{} {}", object.kind, object.name));
        }
        tx.commit()?;
    }
    let version = user_version(&conn)?;
    if version < latest_version() {
        conn.pragma_update(None, "user_version", latest_version())?;
        repair.user_version_from = Some(version);
    }
    drop(lock);
    Ok(repair)
}

/// Moves a corrupt database aside (under the migration lock, as `open` does) and creates
/// a new one. Returns where the old file went.
pub fn quarantine_and_recreate(path: &Path) -> StoreResult<PathBuf> {
    let moved = {
        let _lock = hold_migration_lock(path)?;
        quarantine(path)?
    };
    NaggerStateDB::open(path)?;
    Ok(moved)
}

/// `PRAGMA integrity_check`: empty when the database is sound, else SQLite's findings.
pub fn integrity_problems(conn: &Connection) -> Vec<String> {
    let found: rusqlite::Result<Vec<String>> =
        conn.prepare("PRAGMA integrity_check(20)")
            .and_then(|mut stmt| {
                stmt.query_map([], |r| r.get::<_, String>(0))?
                    .collect::<Result<_, _>>()
            });
    match found {
        Ok(rows) if rows.len() == 1 && rows[0] == "ok" => Vec::new(),
        Ok(rows) => rows,
        // A corrupt page can fail the check itself.
        Err(e) => vec![e.to_string()],
    }
}

/// `PRAGMA foreign_key_check`: (table, parent table) of each violating row.
pub fn foreign_key_violations(conn: &Connection) -> StoreResult<Vec<(String, String)>> {
    let mut stmt = conn.prepare("PRAGMA foreign_key_check")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(2)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn journal_mode(conn: &Connection) -> StoreResult<String> {
    Ok(conn.pragma_query_value(None, "journal_mode", |r| r.get(0))?)
}

/// Bytes of the database file's pages (the -wal file is not included).
pub fn database_bytes(conn: &Connection) -> StoreResult<i64> {
    Ok(conn.query_row(
        "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
        [],
        |r| r.get(0),
    )?)
}

/// State that outlived the TTL: what the next SessionStart (or `nagger gc`) purges.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StaleRows {
    /// Subagents registered longer ago than the TTL and never stopped.
    pub agents: i64,
    /// Sessions never ended and not seen within the TTL.
    pub sessions: i64,
}

pub fn stale_rows(conn: &Connection, ttl_ms: i64) -> StoreResult<StaleRows> {
    let cutoff = now_ms() - ttl_ms;
    Ok(conn.query_row(
        "SELECT (SELECT count(*) FROM subagents WHERE created_at < ?1),
                (SELECT count(*) FROM session_info WHERE ended_at IS NULL AND last_seen_at < ?1)",
        [cutoff],
        |r| {
            Ok(StaleRows {
                agents: r.get(0)?,
                sessions: r.get(1)?,
            })
        },
    )?)
}

/// Hook runs that failed in a window, and the newest of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecentErrors {
    pub count: i64,
    /// (time, event, the error message in its details)
    pub newest: Option<(i64, String, Option<String>)>,
}

pub fn recent_errors(conn: &Connection, since_ms: i64) -> StoreResult<RecentErrors> {
    // `result <> 'none'` selects the partial outcome index.
    let count = conn.query_row(
        "SELECT count(*) FROM hook_log WHERE result <> 'none' AND result = 'error' AND timestamp >= ?1",
        [since_ms],
        |r| r.get(0),
    )?;
    let newest = conn
        .query_row(
            "SELECT timestamp, event_type,
                    json_extract(CASE WHEN json_valid(details) THEN details END, '$.error')
             FROM hook_log WHERE result <> 'none' AND result = 'error' AND timestamp >= ?1
             ORDER BY timestamp DESC, id DESC LIMIT 1",
            [since_ms],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    Ok(RecentErrors { count, newest })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_database_has_nothing_pending_or_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        drop(NaggerStateDB::open(&path).unwrap());
        let Inspection::Open(conn) = inspect(&path).unwrap() else {
            panic!("a migrated database opens");
        };
        let s = schema_status(&conn).unwrap();
        assert_eq!(s.user_version, latest_version());
        assert!(s.pending.is_empty() && s.missing.is_empty() && s.divergent.is_empty());
        assert_eq!(s.applied.len(), migrations::runner().get_migrations().len());
    }

    #[test]
    fn inspecting_a_missing_file_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/state.db");
        assert!(matches!(inspect(&path).unwrap(), Inspection::Missing));
        assert!(!dir.path().join("sub").exists());
    }

    #[test]
    fn dropped_index_is_reported_and_recreated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let db = NaggerStateDB::open(&path).unwrap();
        db.conn()
            .execute_batch("DROP INDEX idx_hook_log_stats")
            .unwrap();
        drop(db);
        let conn = NaggerStateDB::open_existing_unmigrated(&path).unwrap();
        let missing = schema_status(&conn).unwrap().missing;
        assert_eq!(missing.len(), 1);
        assert_eq!(
            (missing[0].kind.as_str(), missing[0].name.as_str()),
            ("index", "idx_hook_log_stats")
        );
        let repair = repair_schema(&path).unwrap();
        assert_eq!(repair.recreated, vec!["index idx_hook_log_stats"]);
        assert!(schema_status(&conn).unwrap().missing.is_empty());
    }
}
