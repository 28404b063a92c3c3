//! `NaggerStateDB`: the one place that opens nagger's SQLite database.
//! It sets the pragmas every connection needs, applies the embedded migrations
//! (serialised across processes) and quarantines a database that is not one.
//! Nothing it opens can block: what stands where the database or one of its side
//! files should be is checked to be a regular file first, and every wait is bounded
//! by `BUSY_TIMEOUT` and by the run's deadline (`budget`).

use super::budget;
use super::error::{StoreError, StoreResult, is_not_a_database};
use crate::base::files;
use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};
use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

refinery::embed_migrations!("migrations");

/// WAL size past which a closing connection checkpoints and truncates it. The
/// first process to open the database reads the whole WAL to rebuild its index
/// (the shared-memory index does not outlive the last connection), so the WAL is
/// kept small; a checkpoint costs fsyncs, so it is not done on every close.
const WAL_TRUNCATE_BYTES: u64 = 256 * 1024;

/// How long a connection waits for a lock held by another process (less when the
/// run has a deadline: `budget::limit_waits`).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest write-ahead log a hook opens: replaying it after a crash reads all of it,
/// about 0.3 s per 100 MiB from a warm cache and more from a cold one.
pub const HOOK_WAL_BYTES: u64 = 64 * 1024 * 1024;

/// The files SQLite opens beside the database, by their suffix.
const SIDE_FILES: [&str; 3] = ["-wal", "-shm", "-journal"];

/// What `open` had to do, for `doctor` and the hook log.
#[derive(Debug, Default, Clone)]
pub struct OpenReport {
    pub migrated_from: Option<i64>,
    pub quarantined: Option<PathBuf>,
    /// A database nagger did not create, moved aside (`foreign`).
    pub set_aside: Option<super::foreign::SetAside>,
}

pub struct NaggerStateDB {
    /// Closed when this is dropped, unless the process is about to end ([`close_by_exit`]).
    pub(super) conn: std::mem::ManuallyDrop<Connection>,
    pub(super) path: PathBuf,
    pub(super) report: OpenReport,
    pub(super) read_only: bool,
}

impl NaggerStateDB {
    /// Opens (creating if needed) and migrates the database at `path`. Only the
    /// database's own folder is created (`.claude-nagger` in an existing project),
    /// never a chain of folders.
    pub fn open(path: &Path) -> StoreResult<Self> {
        Self::open_bounded(path, u64::MAX)
    }

    /// As [`NaggerStateDB::open`] for a hook, which answers within its second: a
    /// write-ahead log longer than [`HOOK_WAL_BYTES`] (left by a crash, or grown behind a
    /// long reader) is not opened, since the first connection after a crash replays all
    /// of it. Any other command that writes (`nagger gc`, `nagger doctor --fix`) replays
    /// and truncates it.
    pub fn open_for_hook(path: &Path) -> StoreResult<Self> {
        Self::open_bounded(path, HOOK_WAL_BYTES)
    }

    fn open_bounded(path: &Path, max_wal: u64) -> StoreResult<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            match std::fs::create_dir(dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(source) => {
                    return Err(StoreError::Io {
                        context: format!("creating {}", dir.display()),
                        source,
                    });
                }
            }
        }
        let wal = check_files(path)?;
        // Someone else's file named by `NAGGER_DB` or `--db` (a program, a repository's
        // index): nothing is made or moved beside it, not even a lock file.
        let ours = path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == ".claude-nagger");
        if !ours && path.is_file() && super::foreign::is_not_sqlite(path) {
            return Err(StoreError::NotOurs {
                path: path.to_path_buf(),
                what: super::foreign::Foreign::NotSqlite.describe(),
            });
        }
        if wal > max_wal {
            return Err(StoreError::LongLog {
                path: path.to_path_buf(),
                bytes: wal,
            });
        }
        wait_for_wal_index(path)?;
        let mut report = OpenReport::default();
        let before = identity(path);
        let mut conn = open_raw(path)?;
        // Fast path: a current schema needs nothing but the connection pragmas.
        match probe(&conn) {
            // The file opened is the one at `path` still: SQLite opens the database when
            // the connection opens, but its `-wal` and `-shm` by name at the first read.
            // A file moved aside in between (a foreign database, by another hook) would
            // leave this connection on the old file reading the new database's log, and
            // a checkpoint would write nagger's pages into the file kept aside.
            Ok(v) if v == latest_version() && before.is_some() && identity(path) == before => {
                checkpoint_on_close(&conn, true);
            }
            Ok(v) if v == latest_version() => conn = migrate_locked(path, conn, &mut report)?,
            Ok(_) => conn = migrate_locked(path, conn, &mut report)?,
            Err(e) if is_not_a_database(&e) => conn = migrate_locked(path, conn, &mut report)?,
            // The file opened may have been moved aside (with its `-wal` and `-shm`) by
            // another process between the open and the first read: look again under the
            // migration lock, where that move is finished and seen.
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::SystemIoFailure) => {
                conn = migrate_locked(path, conn, &mut report)?;
            }
            Err(source) => {
                return Err(StoreError::Sqlite {
                    path: path.to_path_buf(),
                    source,
                });
            }
        }
        Ok(NaggerStateDB {
            conn: std::mem::ManuallyDrop::new(conn),
            path: path.to_path_buf(),
            report,
            read_only: false,
        })
    }

    /// Opens an existing database for reading only, for the commands that only show
    /// state: creates no file or folder, migrates nothing, moves nothing aside. `None`
    /// when there is no database at `path`; an error when the file is not a database
    /// or its schema is not this binary's (`nagger doctor` says more, `--fix` repairs).
    pub fn open_read_only(path: &Path) -> StoreResult<Option<Self>> {
        let exists = path.try_exists().map_err(|source| StoreError::Io {
            context: format!("looking for {}", path.display()),
            source,
        })?;
        if !exists {
            return Ok(None);
        }
        check_files(path)?;
        let uri = read_only_uri(path);
        let sqlite_err = |source| StoreError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        let conn = Connection::open_with_flags(
            &uri,
            OpenFlags::SQLITE_OPEN_READ_ONLY
                | OpenFlags::SQLITE_OPEN_URI
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sqlite_err)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        stop_past_budget(&conn)?;
        budget::watch(&conn);
        let version = user_version(&conn).map_err(sqlite_err)?;
        if version != latest_version() {
            return Err(StoreError::Schema {
                path: path.to_path_buf(),
                found: version,
                expected: latest_version(),
            });
        }
        Ok(Some(NaggerStateDB {
            conn: std::mem::ManuallyDrop::new(conn),
            path: path.to_path_buf(),
            report: OpenReport::default(),
            read_only: true,
        }))
    }

    /// Opens without creating or migrating: for read-only inspection (`doctor`).
    pub fn open_existing_unmigrated(path: &Path) -> StoreResult<Connection> {
        check_files(path)?;
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| StoreError::Sqlite {
            path: path.to_path_buf(),
            source,
        })?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        stop_past_budget(&conn)?;
        budget::watch(&conn);
        Ok(conn)
    }

    /// A copy of this database in memory, to try a change without making it (`gc
    /// --dry-run`). Reads the file without writing to it.
    pub fn in_memory_copy(&self) -> StoreResult<NaggerStateDB> {
        let mem = Connection::open_in_memory_with_flags(
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_URI
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        mem.busy_timeout(BUSY_TIMEOUT)?;
        mem.execute("ATTACH DATABASE ?1 AS src", [read_only_uri(&self.path)])?;
        let schema: Vec<(String, String, String)> = {
            let mut stmt = mem.prepare(
                "SELECT type, name, sql FROM src.sqlite_master
                 WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
                 ORDER BY type = 'table' DESC",
            )?;
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<Result<_, _>>()?
        };
        for (kind, name, sql) in &schema {
            mem.execute_batch(sql)?;
            if kind == "table" {
                let quoted = name.replace('"', "\"\"");
                mem.execute_batch(&format!(
                    "INSERT INTO main.\"{quoted}\" SELECT * FROM src.\"{quoted}\""
                ))?;
            }
        }
        mem.execute_batch("DETACH DATABASE src")?;
        mem.pragma_update(None, "user_version", user_version(&self.conn)?)?;
        mem.execute_batch("PRAGMA foreign_keys=ON;")?;
        Ok(NaggerStateDB {
            conn: std::mem::ManuallyDrop::new(mem),
            path: PathBuf::from(":memory:"),
            report: OpenReport::default(),
            read_only: true,
        })
    }

    #[cfg(test)]
    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn report(&self) -> &OpenReport {
        &self.report
    }
}

/// Set by a process that ends right after its work ([`close_by_exit`]).
static CLOSED_BY_EXIT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Lets the process's end close its databases: a connection dropped from now on leaves
/// its file, locks and memory to the exit, which releases them as a close would (a hook
/// process's close only freed the parsed schema, a tenth of a quiet run). Its WAL is
/// complete at every commit; with `NO_CKPT_ON_CLOSE` a close would not checkpoint
/// either, and the next process to open the file finds it exactly as after a close.
pub fn close_by_exit() {
    CLOSED_BY_EXIT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// A hook process's connection whose log is due for a checkpoint, kept for
/// [`checkpoint_deferred`] once the hook has answered.
static DEFERRED: std::sync::Mutex<Option<Connection>> = std::sync::Mutex::new(None);

/// Runs the checkpoint a hook process put off until it had answered: its fsyncs on a slow
/// disk then delay only the process's exit, never its answer.
pub fn checkpoint_deferred() {
    let conn = DEFERRED.lock().ok().and_then(|mut slot| slot.take());
    if let Some(conn) = conn {
        checkpoint(&conn);
        // The process ends now: its exit closes the file.
        std::mem::forget(conn);
    }
}

impl Drop for NaggerStateDB {
    fn drop(&mut self) {
        let by_exit = CLOSED_BY_EXIT.load(std::sync::atomic::Ordering::Relaxed);
        if !self.read_only && self.log_is_big() {
            if by_exit {
                // SAFETY: taken once, here; a connection closed by the exit is never
                // dropped below.
                let conn = unsafe { std::mem::ManuallyDrop::take(&mut self.conn) };
                if let Ok(mut slot) = DEFERRED.lock()
                    && let Some(earlier) = slot.replace(conn)
                {
                    std::mem::forget(earlier);
                }
                return;
            }
            checkpoint(&self.conn);
        }
        if !by_exit {
            // SAFETY: dropped once, here, and never used again.
            unsafe { std::mem::ManuallyDrop::drop(&mut self.conn) };
        }
    }
}

impl NaggerStateDB {
    fn log_is_big(&self) -> bool {
        let mut wal = self.path.as_os_str().to_os_string();
        wal.push("-wal");
        std::fs::metadata(PathBuf::from(wal)).is_ok_and(|m| m.len() > WAL_TRUNCATE_BYTES)
    }
}

/// Checkpoints and empties the log of `conn`'s database, never waiting for a lock.
fn checkpoint(conn: &Connection) {
    // Never wait here: if other connections are busy, one of them (or the next process)
    // will checkpoint instead. First PASSIVE, which copies the log into the database and
    // syncs it without holding the write lock, so that the hooks of agents running in
    // parallel keep writing through a slow disk's fsync; then TRUNCATE, which finds
    // nothing left to copy and only empties the log under the write lock. Emptied it
    // must be: each hook process opens the database alone and replays the whole log to
    // rebuild its index.
    let _ = conn.busy_timeout(Duration::ZERO);
    let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
    let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
}

/// Checks that the database and each of its side files (`-wal`, `-shm`, `-journal`) is
/// a regular file or absent. SQLite opens them without `O_NONBLOCK`: a FIFO there
/// would block the open for ever (the `-journal` is opened read-only to look for a hot
/// journal, the `-shm` read-only by readers), and other kinds fail in ways that do not
/// name the file. What is found instead makes the database unavailable, with a line
/// that says which file to remove. A file swapped in after this check is the hook's
/// deadline's to catch.
/// Returns the length of the `-wal` (0 when there is none).
fn check_files(path: &Path) -> StoreResult<u64> {
    let side = |suffix: &str| {
        let mut name = path.as_os_str().to_os_string();
        name.push(suffix);
        PathBuf::from(name)
    };
    let mut wal = 0;
    for (file, suffix) in
        std::iter::once((path.to_path_buf(), "")).chain(SIDE_FILES.iter().map(|s| (side(s), *s)))
    {
        let len = files::regular_len(&file).map_err(|source| unusable_file(&file, source))?;
        // A second name of another file (`ln settings.json state.db-wal`): SQLite would
        // write its pages into that file.
        if len.is_some()
            && let Some(links) = files::other_names(&file)
        {
            return Err(unusable_file(
                &file,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!(
                        "{} is a hard link, one of {links} names of the same file",
                        file.display()
                    ),
                ),
            ));
        }
        if suffix == "-wal" {
            wal = len.unwrap_or(0);
        }
    }
    Ok(wal)
}

/// A file of the database's that is not a regular one, or cannot be looked at.
fn unusable_file(file: &Path, source: std::io::Error) -> StoreError {
    if source.kind() == std::io::ErrorKind::InvalidInput {
        StoreError::Io {
            context: "state database files".to_string(),
            source: std::io::Error::new(source.kind(), format!("{source}; remove it")),
        }
    } else {
        StoreError::Io {
            context: format!("looking at {}", file.display()),
            source,
        }
    }
}

/// A URI that reads the database at `path` without writing any file. Even a reader
/// writes to the WAL index (`-shm`), or creates it: with no WAL the database is all in
/// its main file, read as immutable (no locks, no index); with one, the index is read
/// without being written (`readonly_shm`).
fn read_only_uri(path: &Path) -> String {
    let mut wal = path.as_os_str().to_os_string();
    wal.push("-wal");
    let has_wal = std::fs::metadata(PathBuf::from(wal)).is_ok_and(|m| m.len() > 0);
    format!(
        "file:{}?mode=ro&{}",
        uri_path(path),
        if has_wal {
            "readonly_shm=1"
        } else {
            "immutable=1"
        }
    )
}

/// A path as the path part of an SQLite `file:` URI.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for b in path.to_string_lossy().bytes() {
        match b {
            b'?' | b'#' | b'%' => {
                let _ = write!(out, "%{b:02X}");
            }
            _ => out.push(b as char),
        }
    }
    out
}

include!(concat!(env!("OUT_DIR"), "/schema_version.rs"));

/// The newest schema version embedded in this binary.
pub fn latest_version() -> i64 {
    LATEST_SCHEMA_VERSION
}

/// Versions of the embedded migrations, oldest first, with their names.
pub fn embedded_migrations() -> Vec<(i64, String)> {
    let mut all: Vec<(i64, String)> = migrations::runner()
        .get_migrations()
        .iter()
        .map(|m| (i64::from(m.version()), m.name().to_string()))
        .collect();
    all.sort();
    all
}

/// A private in-memory database at the newest schema: what a reader that never migrates
/// compares a database file with (the dashboard). Touches no file.
pub fn latest_schema_in_memory() -> StoreResult<Connection> {
    let mut conn = Connection::open_in_memory()?;
    migrations::runner()
        .set_grouped(true)
        .run(&mut conn)
        .map_err(|source| StoreError::Migration {
            path: PathBuf::from(":memory:"),
            source: Box::new(source),
        })?;
    Ok(conn)
}

pub fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
}

/// Begins a transaction that takes the write lock at once (IMMEDIATE), so a
/// read-then-write never fails with SQLITE_BUSY on upgrade.
pub fn immediate(conn: &Connection) -> rusqlite::Result<Transaction<'_>> {
    Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
}

/// The byte of `<db>-shm` every connection holds a read lock on while it is open
/// (SQLite's unix VFS: the WAL-index "DMS" lock). A write lock on it means the index
/// is being rebuilt, or another process holds it on purpose.
const WAL_INDEX_DMS_BYTE: i64 = 128;

/// Waits, like for a busy database and at most [`BUSY_TIMEOUT`] (or to the run's
/// deadline), while another process holds a write lock on the WAL index. SQLite itself
/// would retry reading it for about ten seconds and then fail with "locking protocol".
#[cfg(unix)]
fn wait_for_wal_index(path: &Path) -> StoreResult<()> {
    use std::os::unix::io::AsRawFd;
    let shm = PathBuf::from(format!("{}-shm", path.display()));
    // Never blocks, whatever was swapped in since `check_files`.
    let Ok(file) = files::open_regular(&shm) else {
        return Ok(());
    };
    let started = std::time::Instant::now();
    let end = budget::wait_end(started, BUSY_TIMEOUT);
    let mut pause = Duration::from_micros(200);
    loop {
        // SAFETY: a plain flock struct passed by pointer to fcntl on an open descriptor.
        let mut lock: libc::flock = unsafe { std::mem::zeroed() };
        // Small constants (0 and 1) that fit the C short of these fields.
        lock.l_type = libc::F_RDLCK.try_into().expect("F_RDLCK fits l_type");
        lock.l_whence = libc::SEEK_SET.try_into().expect("SEEK_SET fits l_whence");
        lock.l_start = WAL_INDEX_DMS_BYTE as _;
        lock.l_len = 1;
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLK, &mut lock) };
        if rc != 0 || i32::from(lock.l_type) == libc::F_UNLCK {
            return Ok(());
        }
        let now = Instant::now();
        if now >= end {
            return Err(StoreError::Locked(shm, waited(started)));
        }
        std::thread::sleep(pause.min(end - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

#[cfg(not(unix))]
fn wait_for_wal_index(_path: &Path) -> StoreResult<()> {
    Ok(())
}

/// How long a wait that began at `start` lasted, to the millisecond (for messages).
fn waited(start: Instant) -> Duration {
    Duration::from_millis(u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX))
}

/// Which file is at `path` (device and inode, through a link), if any.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|_| (0, 0))
}

/// Opens the file without reading it (a file that is not a database fails later).
pub(super) fn open_raw(path: &Path) -> StoreResult<Connection> {
    let conn = Connection::open(path).map_err(|source| StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    })?;
    // Until the file is known to be nagger's, closing this connection must not write
    // into it: the last connection to a WAL database checkpoints it on close, which
    // would fold another program's `-wal` into its database before it is set aside.
    checkpoint_on_close(&conn, false);
    Ok(conn)
}

/// Whether closing `conn` checkpoints a WAL database (SQLite's default), when this SQLite
/// can say.
pub(super) fn checkpoint_on_close(conn: &Connection, on: bool) {
    let _ = conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        !on,
    );
}

/// Sets the connection pragmas and reads the schema version: the first reads of
/// the file, where a file that is not a database shows itself.
fn probe(conn: &Connection) -> rusqlite::Result<i64> {
    apply_connection_pragmas(conn)?;
    user_version(conn)
}

/// Pragmas that are per connection. journal_mode=WAL is persistent in the file
/// and set once, during migration.
pub(super) fn apply_connection_pragmas(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_handler(Some(wait_while_busy))?;
    stop_past_budget(conn)?;
    budget::watch(conn);
    // A hook process is usually the last connection when it exits; checkpointing
    // there would cost every hook run several fsyncs. `Drop` checkpoints only once
    // the WAL has grown past WAL_TRUNCATE_BYTES.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    conn.execute_batch("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
}

/// The lock file that serialises migration and quarantine across processes.
pub fn migration_lock_path(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    db.with_file_name(name)
}

/// Slow path: under an exclusive lock file, quarantine a file that is not a
/// database, switch to WAL (retrying: the switch ignores busy_timeout) and run the
/// migrations grouped in one transaction.
fn migrate_locked(
    path: &Path,
    conn: Connection,
    report: &mut OpenReport,
) -> StoreResult<Connection> {
    let lock = hold_migration_lock(path)?;

    // Another process may have finished the work, or moved the file aside, while this one
    // waited: look at what is at `path` now, not at the file opened before.
    drop(conn);
    let mut conn = open_raw(path)?;
    report.set_aside = super::foreign::set_aside_if_foreign(path, &mut conn, latest_version())?;
    let version = match probe(&conn) {
        Ok(v) => v,
        Err(e) if is_not_a_database(&e) => {
            drop(conn);
            report.quarantined = Some(quarantine(path)?);
            conn = open_raw(path)?;
            probe(&conn).map_err(|source| StoreError::Sqlite {
                path: path.to_path_buf(),
                source,
            })?
        }
        Err(source) => {
            return Err(StoreError::Sqlite {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let latest = latest_version();
    if version >= latest {
        checkpoint_on_close(&conn, true);
        return Ok(conn);
    }
    set_wal(&conn, path)?;
    migrations::runner()
        .set_grouped(true)
        .run(&mut conn)
        .map_err(|source| StoreError::Migration {
            path: path.to_path_buf(),
            source: Box::new(source),
        })?;
    conn.pragma_update(None, "user_version", latest)?;
    report.migrated_from = Some(version);
    checkpoint_on_close(&conn, true);
    drop(lock);
    Ok(conn)
}

/// Takes the exclusive lock file that serialises migration, repair and
/// quarantine across processes; held until the returned file is dropped.
pub(crate) fn hold_migration_lock(db: &Path) -> StoreResult<File> {
    let lock_path = migration_lock_path(db);
    // Checked first to name what is wrong; the open itself never blocks either.
    files::regular_or_absent(&lock_path).map_err(|source| unusable_file(&lock_path, source))?;
    let lock = files::create_regular(&lock_path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::InvalidInput {
            unusable_file(&lock_path, source)
        } else {
            StoreError::Io {
                context: format!("opening {}", lock_path.display()),
                source,
            }
        }
    })?;
    lock_with_timeout(&lock, &lock_path)?;
    Ok(lock)
}

fn lock_with_timeout(lock: &File, lock_path: &Path) -> StoreResult<()> {
    let start = Instant::now();
    let end = budget::wait_end(start, BUSY_TIMEOUT);
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) => {
                let now = Instant::now();
                if now >= end {
                    return Err(StoreError::Locked(lock_path.to_path_buf(), waited(start)));
                }
                std::thread::sleep(Duration::from_millis(2).min(end - now));
            }
            Err(std::fs::TryLockError::Error(source)) => {
                return Err(StoreError::Io {
                    context: format!("locking {}", lock_path.display()),
                    source,
                });
            }
        }
    }
}

/// Switches the database to WAL (retrying: the switch ignores busy_timeout).
///
/// A new, empty database switches with its rollback journal in memory: the switch
/// writes page 1, and a `-journal` file beside it would be taken for a hot journal by
/// a hook still holding the file that was at `path` before (moved aside as foreign or
/// damaged): that hook would "roll back" into the file kept aside, cutting it to the
/// journal's original size, nothing. An empty database has nothing a crash in the
/// switch could damage.
pub(super) fn set_wal(conn: &Connection, path: &Path) -> StoreResult<()> {
    let empty = conn
        .query_row("PRAGMA page_count", [], |r| r.get::<_, i64>(0))
        .is_ok_and(|pages| pages == 0);
    if empty {
        let _ =
            conn.pragma_update_and_check(None, "journal_mode", "MEMORY", |r| r.get::<_, String>(0));
    }
    let start = Instant::now();
    let end = budget::wait_end(start, BUSY_TIMEOUT);
    loop {
        match conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0)) {
            Ok(mode) if mode.eq_ignore_ascii_case("wal") => return Ok(()),
            Ok(mode) => {
                return Err(StoreError::Sqlite {
                    path: path.to_path_buf(),
                    source: rusqlite::Error::InvalidParameterName(format!(
                        "journal_mode stayed {mode}"
                    )),
                });
            }
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) => {
                let now = Instant::now();
                if now >= end {
                    return Err(StoreError::Locked(path.to_path_buf(), waited(start)));
                }
                std::thread::sleep(Duration::from_millis(5).min(end - now));
            }
            Err(source) => {
                return Err(StoreError::Sqlite {
                    path: path.to_path_buf(),
                    source,
                });
            }
        }
    }
}

/// Moves a file that is not a database aside (with its -wal/-shm) and returns
/// the new name. Only called for SQLITE_NOTADB/CORRUPT on open, never for busy.
pub fn quarantine(path: &Path) -> StoreResult<PathBuf> {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%3fZ");
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".corrupt-{stamp}"));
    let target = path.with_file_name(name);
    std::fs::rename(path, &target).map_err(|source| StoreError::Io {
        context: format!("moving {} aside", path.display()),
        source,
    })?;
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_os_string();
        side.push(suffix);
        let side = PathBuf::from(side);
        if side.exists() {
            let mut moved = target.as_os_str().to_os_string();
            moved.push(suffix);
            // A leftover -wal/-shm of the bad file must not be replayed into the new one.
            let _ = std::fs::rename(&side, PathBuf::from(moved));
        }
    }
    Ok(target)
}

/// The busy handler: waits up to BUSY_TIMEOUT in total, like `busy_timeout`, but
/// retries after 100 µs, growing to 2 ms, instead of SQLite's default steps (1, 2,
/// 5, 10 … 100 ms), which cost a parallel hook tens of milliseconds for a lock
/// held well under one. Never past the run's deadline, when it has one.
/// Ends a statement still running when the thread's budget ([`budget::limit_waits`]) is
/// spent: a query on a view that never ends (a recursive one put in a table's place), or
/// one far slower than any of nagger's, gives up its connection instead of holding it
/// and a core for ever.
pub(super) fn stop_past_budget(conn: &Connection) -> rusqlite::Result<()> {
    conn.progress_handler(
        STEPS_BETWEEN_LOOKS,
        Some(|| budget::left().is_some_and(|left| left.is_zero())),
    )
}

/// Virtual machine steps between two looks at the budget: a look costs a clock read,
/// and a thousand steps take microseconds.
const STEPS_BETWEEN_LOOKS: std::ffi::c_int = 20_000;

pub(super) fn wait_while_busy(attempt: i32) -> bool {
    let Some(step) = busy_step(attempt) else {
        return false;
    };
    let step = match budget::left() {
        Some(left) if left.is_zero() => return false,
        Some(left) => step.min(left),
        None => step,
    };
    std::thread::sleep(step);
    true
}

/// How long to sleep before retry `attempt`; None once BUSY_TIMEOUT is used up.
/// Steps double from 100 µs to 2 ms, then stay there.
fn busy_step(attempt: i32) -> Option<Duration> {
    let step_us = |i: u64| (100u64 << i.min(5)).min(2000);
    let attempt = u64::try_from(attempt).unwrap_or(0);
    let waited_us: u64 = (0..attempt).map(step_us).sum();
    let limit_us = u64::try_from(BUSY_TIMEOUT.as_micros()).unwrap_or(u64::MAX);
    (waited_us < limit_us).then(|| Duration::from_micros(step_us(attempt)))
}

/// Current time in unix milliseconds, the unit of every time column.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_handler_retries_finely_and_gives_up_after_the_busy_timeout() {
        assert_eq!(busy_step(0), Some(Duration::from_micros(100)));
        assert_eq!(busy_step(10), Some(Duration::from_millis(2)));
        let attempts = (0..i32::MAX)
            .take_while(|a| busy_step(*a).is_some())
            .count();
        let attempts = i32::try_from(attempts).expect("a few hundred attempts");
        let total: Duration = (0..attempts).filter_map(busy_step).sum();
        assert!(
            total >= BUSY_TIMEOUT && total <= BUSY_TIMEOUT + Duration::from_millis(2),
            "{total:?}"
        );
        assert!(attempts > 2000, "fine-grained retries: {attempts}");
    }

    #[test]
    fn build_time_latest_version_matches_the_embedded_migrations() {
        let newest = embedded_migrations().last().map_or(0, |m| m.0);
        assert_eq!(latest_version(), newest);
    }

    #[test]
    fn fresh_database_is_migrated_to_latest_and_in_wal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude-nagger/state.db");
        let db = NaggerStateDB::open(&path).unwrap();
        assert_eq!(user_version(db.conn()).unwrap(), latest_version());
        let mode: String = db
            .conn()
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        assert_eq!(db.report().migrated_from, Some(0));
        drop(db);
        let again = NaggerStateDB::open(&path).unwrap();
        assert_eq!(
            again.report().migrated_from,
            None,
            "second open takes the fast path"
        );
    }

    #[test]
    fn a_log_grown_past_its_bound_is_checkpointed_while_another_writes_then_emptied() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude-nagger/state.db");
        let wal = PathBuf::from(format!("{}-wal", path.display()));
        let db = NaggerStateDB::open(&path).unwrap();
        db.conn()
            .execute_batch("CREATE TABLE scratch (x BLOB)")
            .unwrap();
        for _ in 0..200 {
            db.conn()
                .execute("INSERT INTO scratch VALUES (zeroblob(4000))", [])
                .unwrap();
        }
        let grown = std::fs::metadata(&wal).unwrap().len();
        assert!(grown > WAL_TRUNCATE_BYTES, "{grown}");
        // Another process holds the write lock while this one closes: the checkpoint
        // neither waits for it nor keeps it from writing.
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let closed = Instant::now();
        drop(db);
        assert!(closed.elapsed() < Duration::from_secs(2));
        other
            .execute("INSERT INTO scratch VALUES (zeroblob(10))", [])
            .unwrap();
        other.execute_batch("COMMIT").unwrap();
        drop(other);
        // The next close with the log still long empties it.
        drop(NaggerStateDB::open(&path).unwrap());
        let left = std::fs::metadata(&wal).map_or(0, |m| m.len());
        assert_eq!(left, 0, "the log holds {left} bytes");
        let next = NaggerStateDB::open(&path).unwrap();
        let n: i64 = next
            .conn()
            .query_row("SELECT count(*) FROM scratch", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 201);
    }

    #[test]
    fn file_that_is_not_a_database_is_quarantined_not_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        // SQLite's header, then garbage: a damaged database (a file without the header
        // is not one, and is kept as foreign instead: `foreign`).
        let mut bytes = b"SQLite format 3\0".to_vec();
        bytes.resize(8192, b'x');
        std::fs::write(&path, &bytes).unwrap();
        let db = NaggerStateDB::open(&path).unwrap();
        let moved = db.report().quarantined.clone().expect("quarantined");
        assert_eq!(std::fs::read(&moved).unwrap(), bytes);
        assert_eq!(user_version(db.conn()).unwrap(), latest_version());
    }
}
