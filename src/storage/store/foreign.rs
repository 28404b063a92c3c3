//! A file at the database's path that nagger did not create: claude-nagger's database
//! (the same `.claude-nagger/state.db`), another program's SQLite database, or a file
//! that is no SQLite database at all. nagger never migrates over one: it keeps it, byte
//! for byte and with its `-wal`, under a name that says whose it was, and starts its own.
//!
//! Only the slow path of [`super::NaggerStateDB::open`] comes here, under the migration
//! lock, when the schema found is not this binary's: the quiet hook path pays nothing.
//! Under the lock, exactly one process moves the file; the others, looking again once
//! they hold the lock, find nagger's new database.

use super::error::{StoreError, StoreResult};
use rusqlite::Connection;
use std::fmt;
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The first 16 bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Files SQLite keeps beside a database, moved with it: the WAL (which may hold
/// committed transactions not yet in the main file), a rollback journal, the WAL index.
const SIDE_FILES: [&str; 3] = ["-wal", "-journal", "-shm"];

/// Tables only nagger's migrations create: a database with one of them is nagger's.
const NAGGER_TABLES: [&str; 3] = ["refinery_schema_history", "session_info", "hook_log_rollup"];

/// claude-nagger's schema: its version table, and at least one of the others.
const CLAUDE_NAGGER_VERSION_TABLE: &str = "schema_version";
const CLAUDE_NAGGER_TABLES: [&str; 4] = [
    "subagents",
    "task_spawns",
    "convention_log",
    "transcript_lines",
];

/// Whose a database nagger did not create is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Foreign {
    /// claude-nagger's `state.db`.
    ClaudeNagger,
    /// An SQLite database with tables nagger never creates.
    OtherSqlite,
    /// Not an SQLite database: its first bytes are not SQLite's header.
    NotSqlite,
}

impl Foreign {
    pub fn describe(self) -> &'static str {
        match self {
            Foreign::ClaudeNagger => "claude-nagger's database",
            Foreign::OtherSqlite => "an SQLite database nagger did not create",
            Foreign::NotSqlite => "a file that is not an SQLite database",
        }
    }

    /// The name it is kept under, beside the database: `state.db.claude-nagger`, or
    /// `state.db.foreign-<time>`.
    fn suffix(self) -> &'static str {
        match self {
            Foreign::ClaudeNagger => "claude-nagger",
            Foreign::OtherSqlite | Foreign::NotSqlite => "foreign",
        }
    }
}

/// A foreign file nagger moved aside, and where to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    pub kind: Foreign,
    pub from: PathBuf,
    pub to: PathBuf,
    /// The side files moved with it, as suffixes (`-wal`, `-shm`).
    pub side_files: Vec<&'static str>,
}

impl fmt::Display for SetAside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} was {}, not nagger's: kept unchanged as {}",
            self.from.display(),
            self.kind.describe(),
            self.to.display()
        )?;
        if !self.side_files.is_empty() {
            write!(f, " (with its {})", self.side_files.join(", "))?;
        }
        write!(f, "; nagger started its own database")
    }
}

/// Whether the file at `path` starts with something other than SQLite's header. An
/// empty or missing file is nagger's to create; a short one that is a prefix of the
/// header is left to SQLite to judge.
pub fn is_not_sqlite(path: &Path) -> bool {
    let Ok(file) = crate::base::files::open_regular(path) else {
        return false;
    };
    let mut head = Vec::with_capacity(SQLITE_HEADER.len());
    if file
        .take(SQLITE_HEADER.len() as u64)
        .read_to_end(&mut head)
        .is_err()
    {
        return false;
    }
    !head.is_empty() && !SQLITE_HEADER.starts_with(&head)
}

/// Whose the database open on `conn` is, when it is not nagger's: looked at only when
/// its schema version is not this binary's. Reads `sqlite_master`, writes nothing.
pub fn classify(conn: &Connection) -> rusqlite::Result<Option<Foreign>> {
    let tables: Vec<String> = {
        let mut stmt =
            conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?;
        stmt.query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?
    };
    let has = |name: &str| tables.iter().any(|t| t == name);
    if tables.is_empty() || NAGGER_TABLES.iter().any(|t| has(t)) {
        return Ok(None);
    }
    if has(CLAUDE_NAGGER_VERSION_TABLE) && CLAUDE_NAGGER_TABLES.iter().any(|t| has(t)) {
        return Ok(Some(Foreign::ClaudeNagger));
    }
    Ok(Some(Foreign::OtherSqlite))
}

/// Called under the migration lock with a fresh connection on `path`: when the file there
/// is not nagger's, closes the connection, moves the file aside and opens a new one on the
/// empty path. A file SQLite calls damaged (its header is SQLite's) is not foreign: the
/// quarantine of a corrupt database deals with it.
pub(super) fn set_aside_if_foreign(
    path: &Path,
    conn: &mut Connection,
    latest: i64,
) -> StoreResult<Option<SetAside>> {
    let kind = if is_not_sqlite(path) {
        Foreign::NotSqlite
    } else {
        // A closing connection must not checkpoint the foreign WAL into its main file.
        let found = conn
            .set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true,
            )
            .and_then(|_| conn.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0)))
            .and_then(|v| {
                if v == latest {
                    Ok(None)
                } else {
                    classify(conn)
                }
            });
        match found {
            Ok(Some(kind)) => kind,
            // nagger's, or a damaged file: not this module's.
            Ok(None) | Err(_) => return Ok(None),
        }
    };
    // Only in nagger's own folder: a path given by `NAGGER_DB` or `--db` that names
    // someone else's file (a program, a repository's index, a settings file) is left
    // alone, and nagger keeps no state there.
    let ours = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == ".claude-nagger");
    if !ours {
        return Err(StoreError::NotOurs {
            path: path.to_path_buf(),
            what: kind.describe(),
        });
    }
    drop(std::mem::replace(conn, Connection::open_in_memory()?));
    let moved = set_aside(path, kind)?;
    *conn = Connection::open(path).map_err(|source| StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Some(moved))
}

/// Moves the file at `path` and its side files aside as `kind`'s, never over an existing
/// file. Each file is first linked under its new name, so that at no moment is a byte of
/// it only under a name another process could replace or delete (an SQLite that opens an
/// empty database deletes the `-wal` beside it); only then are the old names removed, the
/// database itself first. Where the file system has no hard links, renames do it.
pub fn set_aside(path: &Path, kind: Foreign) -> StoreResult<SetAside> {
    let io = |what: &str, source: std::io::Error| StoreError::Io {
        context: format!("{what} {}", path.display()),
        source,
    };
    let sides: Vec<&'static str> = SIDE_FILES
        .into_iter()
        .filter(|s| side(path, s).symlink_metadata().is_ok())
        .collect();
    let (to, linked) = claim_name(path, kind).map_err(|e| io("moving aside", e))?;
    if linked {
        for (i, suffix) in sides.iter().enumerate() {
            if let Err(e) = std::fs::hard_link(side(path, suffix), side(&to, suffix)) {
                // Undo: the files are all still under their old names.
                let _ = std::fs::remove_file(&to);
                for done in &sides[..i] {
                    let _ = std::fs::remove_file(side(&to, done));
                }
                return Err(io("moving aside the side files of", e));
            }
        }
        std::fs::remove_file(path).map_err(|e| io("removing the old name of", e))?;
        for suffix in &sides {
            match std::fs::remove_file(side(path, suffix)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io("removing the old side files of", e)),
            }
        }
    } else {
        for suffix in &sides {
            std::fs::rename(side(path, suffix), side(&to, suffix))
                .map_err(|e| io("moving aside the side files of", e))?;
        }
        std::fs::rename(path, &to).map_err(|e| io("moving aside", e))?;
    }
    Ok(SetAside {
        kind,
        from: path.to_path_buf(),
        to,
        side_files: sides,
    })
}

/// A new name for the file beside `path`, taken by hard-linking the file to it (true);
/// or, where hard links are not supported, a name that was free (false: to be renamed to).
fn claim_name(path: &Path, kind: Foreign) -> std::io::Result<(PathBuf, bool)> {
    let base = path.file_name().unwrap_or_default().to_string_lossy();
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%3fZ");
    let first = match kind {
        Foreign::ClaudeNagger => Some(format!("{base}.{}", kind.suffix())),
        Foreign::OtherSqlite | Foreign::NotSqlite => None,
    };
    let names = first.into_iter().chain((0..100u32).map(|n| match n {
        0 => format!("{base}.{}-{stamp}", kind.suffix()),
        n => format!("{base}.{}-{stamp}-{n}", kind.suffix()),
    }));
    for name in names {
        let to = path.with_file_name(name);
        // A side file left under the new name would be taken for this database's.
        if SIDE_FILES
            .iter()
            .any(|s| side(&to, s).symlink_metadata().is_ok())
        {
            continue;
        }
        match std::fs::hard_link(path, &to) {
            Ok(()) => return Ok((to, true)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) if links_unsupported(&e) => {
                if to.symlink_metadata().is_err() {
                    return Ok((to, false));
                }
            }
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        "no free name to move it aside to",
    ))
}

fn links_unsupported(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(code) if code == libc_eperm() || code == libc_enotsup())
        || e.kind() == std::io::ErrorKind::Unsupported
}

#[cfg(unix)]
fn libc_eperm() -> i32 {
    libc::EPERM
}
#[cfg(unix)]
fn libc_enotsup() -> i32 {
    libc::EOPNOTSUPP
}
#[cfg(not(unix))]
fn libc_eperm() -> i32 {
    -1
}
#[cfg(not(unix))]
fn libc_enotsup() -> i32 {
    -1
}

fn side(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

/// The files nagger moved aside beside the database at `db`: (name, kind), sorted.
pub fn set_aside_files(db: &Path) -> Vec<(String, Foreign)> {
    let (Some(dir), Some(base)) = (db.parent(), db.file_name()) else {
        return Vec::new();
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let base = base.to_string_lossy();
    let cn = format!("{base}.claude-nagger");
    let other = format!("{base}.foreign-");
    let mut found: Vec<(String, Foreign)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !SIDE_FILES.iter().any(|s| n.ends_with(s)))
        .filter_map(|n| {
            if n.starts_with(&cn) {
                Some((n, Foreign::ClaudeNagger))
            } else if n.starts_with(&other) {
                Some((n, Foreign::OtherSqlite))
            } else {
                None
            }
        })
        .collect();
    found.sort();
    found
}
