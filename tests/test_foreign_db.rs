//! A file at `.claude-nagger/state.db` that nagger did not create: another program's
//! SQLite database, claude-nagger's (with committed rows only in its -wal), or no database
//! at all. Hooks keep working with state, the file is kept byte for byte under a name that
//! says whose it was, exactly once however many hooks race for it, and doctor reports and
//! fixes it.

use crate::common::{Project, finish};
use serde_json::json;
use std::path::{Path, PathBuf};

fn sha256(path: &Path) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(std::fs::read(path).unwrap()).to_vec()
}

fn side(path: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", path.display()))
}

/// The files beside the database whose names start with `prefix`, side files left out.
fn kept(p: &Project, prefix: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(p.root.join(".claude-nagger"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with(prefix) && !name.ends_with("-wal") && !name.ends_with("-shm")
        })
        .collect();
    found.sort();
    found
}

fn runs_logged(p: &Project) -> i64 {
    p.db()
        .query_row("SELECT count(*) FROM hook_log", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn another_programs_sqlite_database_is_kept_and_hooks_run_with_state() {
    let p = Project::new();
    let conn = rusqlite::Connection::open(p.db_path()).unwrap();
    conn.execute_batch("CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('mine');")
        .unwrap();
    drop(conn);
    let before = sha256(&p.db_path());

    let doctor = p.run(&["doctor"]);
    assert!(
        doctor
            .stdout
            .contains("an SQLite database nagger did not create"),
        "{}",
        doctor.stdout
    );
    let first = p.hook(&p.session_start("startup"));
    assert_eq!(first.code, 0);
    assert!(
        first.stderr.contains("kept unchanged as"),
        "{}",
        first.stderr
    );
    let moved = kept(&p, "state.db.foreign-");
    assert_eq!(moved.len(), 1, "{moved:?}");
    assert_eq!(sha256(&moved[0]), before);
    let second = p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    assert!(
        !second.stderr.contains("kept"),
        "said once: {}",
        second.stderr
    );
    assert_eq!(
        runs_logged(&p),
        2,
        "both runs recorded in nagger's own database"
    );
    let stats = p.run(&["stats"]);
    assert_eq!(stats.code, 0, "{}", stats.stderr);
    let doctor = p.run(&["doctor"]);
    assert_eq!(doctor.code, 0, "{}", doctor.stdout);
    assert!(
        doctor.stdout.contains("kept unchanged beside its own"),
        "{}",
        doctor.stdout
    );
}

#[test]
fn a_garbage_file_is_kept_by_doctor_fix() {
    let p = Project::new();
    let garbage = b"this was a text file, not a database\n".repeat(500);
    std::fs::write(p.db_path(), &garbage).unwrap();
    let doctor = p.run(&["doctor"]);
    assert!(
        doctor.stdout.contains("not an SQLite database"),
        "{}",
        doctor.stdout
    );
    // (doctor still fails on the settings: nagger is not installed in this project)
    let fix = p.run(&["doctor", "--fix"]);
    assert!(
        fix.stdout.contains("fixed  database") && fix.stdout.contains("kept unchanged as"),
        "{}{}",
        fix.stdout,
        fix.stderr
    );
    let moved = kept(&p, "state.db.foreign-");
    assert_eq!(moved.len(), 1);
    assert_eq!(std::fs::read(&moved[0]).unwrap(), garbage);
    assert!(
        kept(&p, "state.db.corrupt-").is_empty(),
        "foreign, not corrupt"
    );
    let hook = p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    assert!(hook.stderr.is_empty(), "{}", hook.stderr);
    assert_eq!(runs_logged(&p), 1);
}

/// claude-nagger's schema in WAL mode, its last transaction committed to the -wal only
/// (its process ended without a checkpoint), and many hooks starting at once.
#[test]
fn racing_hooks_move_claude_naggers_database_exactly_once_with_its_wal() {
    let p = Project::new();
    let db = p.db_path();
    let script = format!(
        "import sqlite3, os\n\
         c = sqlite3.connect({path:?})\n\
         c.execute('PRAGMA journal_mode=WAL')\n\
         c.execute('PRAGMA wal_autocheckpoint=0')\n\
         c.execute('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT)')\n\
         c.execute('CREATE TABLE subagents (agent_id TEXT PRIMARY KEY, session_id TEXT)')\n\
         c.execute(\"INSERT INTO schema_version VALUES (9, 'now')\")\n\
         c.execute(\"INSERT INTO subagents VALUES ('a1', 's1')\")\n\
         c.commit()\n\
         os._exit(0)\n",
        path = db.display().to_string()
    );
    let status = std::process::Command::new("python3")
        .args(["-c", &script])
        .status()
        .expect("python3");
    assert!(status.success());
    let wal = side(&db, "-wal");
    assert!(
        std::fs::metadata(&wal).unwrap().len() > 0,
        "rows in the WAL"
    );
    let (main_sum, wal_sum) = (sha256(&db), sha256(&wal));

    let children: Vec<_> = (0..8)
        .map(|i| p.spawn_hook(&p.pre_tool_use("Bash", json!({"command": format!("echo {i}")}))))
        .collect();
    let results: Vec<_> = children.into_iter().map(finish).collect();
    for r in &results {
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            !r.stderr.contains("unavailable"),
            "not reduced: {}",
            r.stderr
        );
    }
    let said = results
        .iter()
        .filter(|r| r.stderr.contains("claude-nagger's database"))
        .count();
    assert_eq!(said, 1, "exactly one hook moved it and said so");
    let moved = kept(&p, "state.db.claude-nagger");
    assert_eq!(moved.len(), 1, "{moved:?}");
    assert_eq!(sha256(&moved[0]), main_sum);
    assert_eq!(sha256(&side(&moved[0], "-wal")), wal_sum);
    // The kept copy still holds the rows committed only to its WAL.
    let copy = rusqlite::Connection::open(&moved[0]).unwrap();
    let n: i64 = copy
        .query_row("SELECT count(*) FROM subagents", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);
    assert_eq!(runs_logged(&p), 8, "every racing hook recorded its run");
}
