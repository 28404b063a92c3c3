//! Tests of `foreign` through `NaggerStateDB::open`, kept apart so that `foreign` never
//! imports `db` (which calls it).
use super::db::{NaggerStateDB, latest_version, user_version};
use super::foreign::{Foreign, classify, is_not_sqlite, set_aside_files};
use rusqlite::Connection;
use std::path::{Path, PathBuf};

/// nagger's folder in a fresh temporary folder: only there does nagger move a file aside.
fn nagger_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join(".claude-nagger");
    std::fs::create_dir(&ours).unwrap();
    (dir, ours)
}

fn side(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

fn sha(path: &Path) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(std::fs::read(path).unwrap()).to_vec()
}

/// A database as claude-nagger leaves it: WAL mode, its tables, and committed rows
/// still only in the -wal (the writing process ended without a checkpoint).
fn claude_nagger_db(path: &Path) -> Connection {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;
         CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT);
         CREATE TABLE subagents (agent_id TEXT PRIMARY KEY, session_id TEXT);
         INSERT INTO schema_version VALUES (9, 'now');
         INSERT INTO subagents VALUES ('a1', 's1');",
    )
    .unwrap();
    conn
}

#[test]
fn claude_naggers_database_is_kept_with_its_wal_and_nagger_starts_its_own() {
    let (_dir, ours) = nagger_dir();
    let path = ours.join("state.db");
    let writer = claude_nagger_db(&path);
    let wal = side(&path, "-wal");
    assert!(
        std::fs::metadata(&wal).unwrap().len() > 0,
        "rows in the WAL"
    );
    let (main_sum, wal_sum) = (sha(&path), sha(&wal));
    // The writer ends without closing, as a killed process would: nothing checkpoints.
    std::mem::forget(writer);
    let db = NaggerStateDB::open(&path).unwrap();
    let moved = db.report().set_aside.clone().expect("set aside");
    assert_eq!(moved.kind, Foreign::ClaudeNagger);
    assert_eq!(moved.to, ours.join("state.db.claude-nagger"));
    assert!(moved.side_files.contains(&"-wal"));
    assert_eq!(sha(&moved.to), main_sum);
    assert_eq!(sha(&side(&moved.to, "-wal")), wal_sum);
    assert_eq!(user_version(db.conn()).unwrap(), latest_version());
    // The kept copy still holds its committed rows.
    let kept = Connection::open(&moved.to).unwrap();
    let n: i64 = kept
        .query_row("SELECT count(*) FROM subagents", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);
    let again = NaggerStateDB::open(&path).unwrap();
    assert!(again.report().set_aside.is_none(), "only once");
}

#[test]
fn other_sqlite_and_garbage_are_kept_under_foreign_names() {
    let (_dir, ours) = nagger_dir();
    let path = ours.join("state.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('x');")
        .unwrap();
    let sum = sha(&path);
    let db = NaggerStateDB::open(&path).unwrap();
    let moved = db.report().set_aside.clone().expect("set aside");
    assert_eq!(moved.kind, Foreign::OtherSqlite);
    assert!(
        moved
            .to
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("state.db.foreign-")
    );
    assert_eq!(sha(&moved.to), sum);
    drop(db);

    std::fs::remove_file(&path).unwrap();
    let _ = std::fs::remove_file(side(&path, "-wal"));
    let _ = std::fs::remove_file(side(&path, "-shm"));
    std::fs::write(&path, b"not a database, just text\n".repeat(300)).unwrap();
    let sum = sha(&path);
    let db = NaggerStateDB::open(&path).unwrap();
    let moved = db.report().set_aside.clone().expect("set aside");
    assert_eq!(moved.kind, Foreign::NotSqlite);
    assert_eq!(sha(&moved.to), sum);
    assert!(db.report().quarantined.is_none());
    assert_eq!(set_aside_files(&path).len(), 2);
}

#[test]
fn a_second_claude_nagger_database_never_replaces_the_first_kept_one() {
    let (_dir, ours) = nagger_dir();
    let path = ours.join("state.db");
    drop(claude_nagger_db(&path));
    drop(NaggerStateDB::open(&path).unwrap());
    for s in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(side(&path, s));
    }
    drop(claude_nagger_db(&path));
    let db = NaggerStateDB::open(&path).unwrap();
    let moved = db.report().set_aside.clone().unwrap();
    assert_ne!(moved.to, ours.join("state.db.claude-nagger"));
    assert!(ours.join("state.db.claude-nagger").exists());
}

#[test]
fn nagger_databases_and_empty_files_are_not_foreign() {
    let (_dir, ours) = nagger_dir();
    let path = ours.join("state.db");
    std::fs::write(&path, b"").unwrap();
    let db = NaggerStateDB::open(&path).unwrap();
    assert!(db.report().set_aside.is_none());
    assert_eq!(classify(db.conn()).unwrap(), None);
    assert!(!is_not_sqlite(&path));
}

#[test]
fn a_file_outside_naggers_folder_is_never_moved() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index");
    std::fs::write(&path, b"DIRC not a database").unwrap();
    let before = sha(&path);
    assert!(NaggerStateDB::open(&path).is_err());
    assert_eq!(sha(&path), before);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["index".to_owned()]);
}
