//! What `nagger ui` reads: read-only connections (a pool for the pages, a single one for
//! the digest, which goes through `NaggerStateDB`) and the queries behind each page. Nothing
//! here writes, creates or migrates: the database is opened with SQLITE_OPEN_READ_ONLY and
//! `query_only`, so a statement that would write fails instead.

use super::context::{ContextEntry, ContextRepository};
use super::db::{NaggerStateDB, OpenReport, user_version, wait_while_busy};
use super::error::{StoreError, StoreResult};
use crate::base::num::{to_i64, to_usize};
use rusqlite::{Connection, OpenFlags, OptionalExtension, Row, params};
use serde::Serialize;
use std::path::Path;

type Pool = r2d2::Pool<r2d2_sqlite::SqliteConnectionManager>;
type Pooled = r2d2::PooledConnection<r2d2_sqlite::SqliteConnectionManager>;

/// A pooled connection handed to one read. When the thread reading has a budget
/// ([`super::limit_waits`]), a statement still running when it is spent is interrupted:
/// a read that hands rows back one by one (each step short, so no progress check fires)
/// from a view that never ends gives its connection back all the same.
pub struct PooledConn {
    /// Dropped first: disarmed before the connection goes back to the pool.
    watch: Option<Watch>,
    conn: Pooled,
}

impl Drop for PooledConn {
    fn drop(&mut self) {
        self.watch.take();
        // A connection whose statement was interrupted keeps the schema it read then
        // until it reads the schema table again: without this, a table put back after a
        // view took its place would still be read as the view.
        if super::budget::left().is_some_and(|left| left.is_zero()) {
            let _ = self
                .conn
                .query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()));
        }
    }
}

impl std::ops::Deref for PooledConn {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.conn
    }
}

/// Interrupts a connection's statements at a deadline, unless dropped before it.
struct Watch {
    handle: std::sync::Arc<std::sync::Mutex<Option<rusqlite::InterruptHandle>>>,
}

/// The connections being watched, each with its deadline: one thread for all of them.
type Watched = Vec<(
    std::time::Instant,
    std::sync::Weak<std::sync::Mutex<Option<rusqlite::InterruptHandle>>>,
)>;

/// How often the watcher looks at the deadlines: reads end this long after theirs.
const WATCH_STEP: std::time::Duration = std::time::Duration::from_millis(50);

fn watched_list() -> Option<&'static std::sync::Mutex<Watched>> {
    static LIST: std::sync::OnceLock<Option<std::sync::Mutex<Watched>>> =
        std::sync::OnceLock::new();
    LIST.get_or_init(|| {
        std::thread::Builder::new()
            .name("nagger-ui-watch".into())
            .stack_size(64 * 1024)
            .spawn(|| {
                loop {
                    std::thread::sleep(WATCH_STEP);
                    let Some(list) = watched_list() else {
                        return;
                    };
                    let now = std::time::Instant::now();
                    let mut list = list
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    list.retain(|(at, handle)| {
                        let Some(handle) = handle.upgrade() else {
                            return false;
                        };
                        if *at > now {
                            return true;
                        }
                        if let Some(h) = handle
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .as_ref()
                        {
                            h.interrupt();
                        }
                        false
                    });
                }
            })
            .ok()
            .map(|_| std::sync::Mutex::new(Vec::new()))
    })
    .as_ref()
}

impl Watch {
    fn arm(conn: &Connection, after: std::time::Duration) -> Option<Watch> {
        let handle = std::sync::Arc::new(std::sync::Mutex::new(Some(conn.get_interrupt_handle())));
        watched_list()?
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((
                std::time::Instant::now() + after,
                std::sync::Arc::downgrade(&handle),
            ));
        Some(Watch { handle })
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.handle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
    }
}

/// `conn`, watched by the reading thread's budget.
fn watched(conn: Pooled) -> PooledConn {
    let watch = super::budget::left().and_then(|left| Watch::arm(&conn, left));
    PooledConn { watch, conn }
}

/// Most hook runs one timeline carries (the newest).
pub const TIMELINE_RUNS: usize = 2000;
/// Most rows the lists of recent things carry.
pub const RECENT_ROWS: usize = 200;
/// Most hook runs the latency-over-time chart reads (the newest).
pub const LATENCY_RUNS: usize = 20_000;

const READ_ONLY: OpenFlags = OpenFlags::SQLITE_OPEN_READ_ONLY
    .union(OpenFlags::SQLITE_OPEN_NO_MUTEX)
    .union(OpenFlags::SQLITE_OPEN_URI);

/// A column's name and its default, as SQL.
type Column = (String, Option<String>);

/// The tables of the newest schema: each one's name and columns (with their default, as
/// SQL), and the statements that create the schema.
struct LatestSchema {
    tables: Vec<(String, Vec<Column>)>,
    create: Vec<String>,
}

/// Read once per process from a private in-memory database migrated to the newest schema.
fn latest_schema() -> &'static LatestSchema {
    static SCHEMA: std::sync::OnceLock<LatestSchema> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| {
        let read = || -> StoreResult<LatestSchema> {
            let conn = super::db::latest_schema_in_memory()?;
            let create: Vec<(String, String)> = conn
                .prepare(
                    "SELECT name, sql FROM sqlite_master
                     WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
                     ORDER BY type = 'table' DESC, rowid",
                )?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            let table_names: Vec<String> = conn
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")?
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            let mut tables = Vec::new();
            for name in table_names {
                tables.push((name.clone(), columns(&conn, "main", &name)?));
            }
            Ok(LatestSchema {
                tables,
                create: create.into_iter().map(|(_, sql)| sql).collect(),
            })
        };
        read().unwrap_or(LatestSchema {
            tables: Vec::new(),
            create: Vec::new(),
        })
    })
}

/// The columns of `schema.table`, with their defaults; none when there is no such table.
fn columns(conn: &Connection, schema: &str, table: &str) -> rusqlite::Result<Vec<Column>> {
    conn.prepare(&format!("PRAGMA {schema}.table_info({})", quoted(table)))?
        .query_map([], |r| {
            Ok((r.get::<_, String>(1)?, r.get::<_, Option<String>>(4)?))
        })?
        .collect()
}

fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Makes a read-only connection read as the newest schema, without changing the file: a
/// table of an older schema that lacks some columns is shadowed by a temporary view that
/// adds them (their default, else NULL), a table it lacks entirely by an empty one. A
/// database of an older nagger (or none at all) is then shown as far as it goes.
fn read_as_latest(conn: &Connection) -> rusqlite::Result<()> {
    for (table, wanted) in &latest_schema().tables {
        let have: std::collections::HashSet<String> = columns(conn, "main", table)?
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        if wanted.iter().all(|(name, _)| have.contains(name)) {
            continue;
        }
        let select: Vec<String> = wanted
            .iter()
            .map(|(name, default)| {
                if have.contains(name) {
                    quoted(name)
                } else {
                    format!(
                        "{} AS {}",
                        default.as_deref().unwrap_or("NULL"),
                        quoted(name)
                    )
                }
            })
            .collect();
        let from = if have.is_empty() {
            " WHERE 0".to_string()
        } else {
            format!(" FROM main.{}", quoted(table))
        };
        conn.execute_batch(&format!(
            "CREATE TEMP VIEW {} AS SELECT {}{from}",
            quoted(table),
            select.join(", ")
        ))?;
    }
    Ok(())
}

fn read_only_pragmas(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_handler(Some(wait_while_busy))?;
    super::db::stop_past_budget(conn)?;
    read_as_latest(conn)?;
    conn.pragma_update(None, "query_only", true)
}

/// An empty database at the newest schema, in memory: what the dashboard reads while the
/// project has no database yet.
fn empty_reader() -> rusqlite::Result<Connection> {
    let conn = Connection::open_in_memory()?;
    create_latest(&conn)?;
    Ok(conn)
}

/// The newest schema, created in an empty database in memory, then read-only.
fn create_latest(conn: &Connection) -> rusqlite::Result<()> {
    for sql in &latest_schema().create {
        conn.execute_batch(sql)?;
    }
    conn.pragma_update(None, "query_only", true)
}

/// Read-only connections to the database at a path, pooled: while there is no database
/// there, each comes from an empty one in memory (nothing is created on disk), and once a
/// hook run has created it, from the file.
pub struct ReadPool {
    path: std::path::PathBuf,
    size: u32,
    file: std::sync::OnceLock<Pool>,
    empty: Pool,
    /// When opening the file last failed: tried again only after [`RETRY_AFTER`], so that
    /// polling tabs do not start an open (and its threads) per request.
    failed: std::sync::Mutex<Option<(std::time::Instant, String)>>,
}

/// How long a failed open of the database file is not tried again.
const RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

/// Opens each of the database's files (`path`, its log and its index, when there) without
/// blocking: a lease another process holds on one (which would hold SQLite's own open for
/// the kernel's lease-break time, 45 s), or anything but a regular file, is an error now
/// rather than a thread stuck in `open`.
///
/// Each file opened is kept open for the life of the process, never closed: closing any
/// descriptor of a file gives up every lock the process holds on it, the read lock on
/// the index's "DMS" byte the pool's open connections hold among them. Without it the
/// next hook takes itself for the index's only user and truncates it, and the mapped
/// index faults under the dashboard. A file already held (the same device and inode) is
/// not opened again.
pub fn opens_at_once(path: &Path) -> StoreResult<()> {
    use std::os::unix::fs::MetadataExt as _;
    static HELD: std::sync::Mutex<Vec<((u64, u64), std::fs::File)>> =
        std::sync::Mutex::new(Vec::new());
    for suffix in ["", "-wal", "-shm"] {
        let mut name = path.as_os_str().to_os_string();
        name.push(suffix);
        let file = std::path::PathBuf::from(name);
        let id = std::fs::metadata(&file).ok().map(|m| (m.dev(), m.ino()));
        let mut held = HELD
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if id.is_some_and(|id| held.iter().any(|(h, _)| *h == id)) {
            continue;
        }
        match crate::base::files::open_regular(&file) {
            Ok(opened) => {
                if let Ok(meta) = opened.metadata() {
                    held.push(((meta.dev(), meta.ino()), opened));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(StoreError::Io {
                    context: format!("database {}", file.display()),
                    source,
                });
            }
        }
    }
    Ok(())
}

impl ReadPool {
    /// A connection, from the file when there is one.
    pub fn get(&self) -> StoreResult<PooledConn> {
        if let Some(pool) = self.file.get() {
            opens_at_once(&self.path)?;
            return Ok(watched(pool.get()?));
        }
        if self.path.try_exists().unwrap_or(false) {
            let mut failed = self
                .failed
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some((at, why)) = failed.as_ref()
                && at.elapsed() < RETRY_AFTER
            {
                return Err(StoreError::Io {
                    context: format!("database {}", self.path.display()),
                    source: std::io::Error::other(why.clone()),
                });
            }
            let opened = opens_at_once(&self.path).and_then(|()| file_pool(&self.path, self.size));
            let pool = match opened {
                Ok(pool) => pool,
                Err(e) => {
                    *failed = Some((std::time::Instant::now(), e.to_string()));
                    return Err(e);
                }
            };
            *failed = None;
            drop(failed);
            let pool = self.file.get_or_init(|| pool);
            return Ok(watched(pool.get()?));
        }
        Ok(watched(self.empty.get()?))
    }

    /// Whether a database file is read (rather than the empty stand-in).
    pub fn has_file(&self) -> bool {
        self.file.get().is_some() || self.path.try_exists().unwrap_or(false)
    }
}

/// Pooled read-only connections to the database at `path`, none of which creates or
/// writes anything; fails when the file there is not a database this binary can read.
/// Without a file, the pool reads an empty database in memory until one appears.
pub fn read_pool(path: &Path, size: u32) -> StoreResult<ReadPool> {
    let file = std::sync::OnceLock::new();
    if path.try_exists().unwrap_or(false) {
        let _ = file.set(file_pool(path, size)?);
    }
    Ok(ReadPool {
        path: path.to_path_buf(),
        size,
        file,
        empty: empty_pool(size)?,
        failed: std::sync::Mutex::new(None),
    })
}

/// [`read_pool`] that starts whatever the database is: when the file cannot be read now
/// (`readable` false: a FIFO or device in place of one of its files; or held by another
/// process, or not a database), the pool tries it again at each request, and says why
/// it could not now.
pub fn read_pool_lenient(
    path: &Path,
    size: u32,
    readable: bool,
) -> StoreResult<(ReadPool, Option<String>)> {
    let file = std::sync::OnceLock::new();
    let mut why = None;
    if !readable {
        why = Some("one of its files is not a regular file".to_owned());
    } else if path.try_exists().unwrap_or(false) {
        match opens_at_once(path).and_then(|()| file_pool(path, size)) {
            Ok(pool) => {
                let _ = file.set(pool);
            }
            Err(e) => why = Some(e.to_string()),
        }
    }
    let pool = ReadPool {
        path: path.to_path_buf(),
        size,
        file,
        empty: empty_pool(size)?,
        failed: std::sync::Mutex::new(None),
    };
    Ok((pool, why))
}

/// Each connection its own private, empty database in memory.
fn empty_pool(size: u32) -> StoreResult<Pool> {
    let manager =
        r2d2_sqlite::SqliteConnectionManager::file(":memory:").with_init(|c| create_latest(c));
    Ok(r2d2::Pool::builder()
        .max_size(size)
        .min_idle(Some(1))
        .build(manager)?)
}

fn file_pool(path: &Path, size: u32) -> StoreResult<Pool> {
    let manager = r2d2_sqlite::SqliteConnectionManager::file(path)
        .with_flags(READ_ONLY)
        .with_init(|c| read_only_pragmas(c));
    // A connection not had in well under a second (a lock held, a slow disk) is an
    // answer the dashboard gives at once: the database is unavailable for now.
    let pool = r2d2::Pool::builder()
        .max_size(size)
        .min_idle(Some(1))
        .connection_timeout(std::time::Duration::from_millis(700))
        .build_unchecked(manager);
    // The first connection proves the file is a database this binary can read.
    let conn = pool.get()?;
    user_version(&conn).map_err(|source| StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(pool)
}

impl NaggerStateDB {
    /// A read-only handle on the database at `path`, for code that takes a
    /// `NaggerStateDB` (the digest) but must not write: no creation, no migration,
    /// `query_only`, an older schema read as the newest (see `read_as_latest`), and no
    /// database read as an empty one in memory. Unlike `open_read_only` it never opens
    /// the file `immutable`, which skips locking: the dashboard reads while hooks write
    /// and checkpoint.
    pub fn open_live_reader(path: &Path) -> StoreResult<NaggerStateDB> {
        let sqlite = |source| StoreError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        let conn = if path.try_exists().unwrap_or(false) {
            opens_at_once(path)?;
            let conn = Connection::open_with_flags(path, READ_ONLY).map_err(sqlite)?;
            read_only_pragmas(&conn).map_err(sqlite)?;
            conn
        } else {
            empty_reader().map_err(sqlite)?
        };
        Ok(NaggerStateDB {
            conn: std::mem::ManuallyDrop::new(conn),
            path: path.to_path_buf(),
            report: OpenReport::default(),
            read_only: true,
        })
    }
}

/// Cheap markers of change: the page polls them and reloads when one moves.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Changes {
    pub hook_log: i64,
    pub context: i64,
    pub rule_hits: i64,
    pub last_seen: i64,
    /// The newest task added or done.
    pub tasks: i64,
}

pub fn changes(conn: &Connection) -> StoreResult<Changes> {
    Ok(conn.query_row(
        "SELECT (SELECT coalesce(max(id), 0) FROM hook_log),
                (SELECT coalesce(max(id), 0) FROM context_entries),
                (SELECT coalesce(max(id), 0) FROM rule_hits),
                (SELECT coalesce(max(last_seen_at), 0) FROM session_info),
                (SELECT coalesce(max(max(created_at, coalesce(done_at, 0))), 0) FROM tasks)",
        [],
        |r| {
            Ok(Changes {
                hook_log: r.get(0)?,
                context: r.get(1)?,
                rule_hits: r.get(2)?,
                last_seen: r.get(3)?,
                tasks: r.get(4)?,
            })
        },
    )?)
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionRow {
    pub session_id: String,
    pub started_at: i64,
    pub last_seen_at: i64,
    pub source: Option<String>,
    pub cwd: Option<String>,
    pub compactions: i64,
    pub ended_at: Option<i64>,
    pub end_reason: Option<String>,
    pub agents_running: i64,
    pub agents_finished: i64,
    pub hook_runs: i64,
    /// Runs that refused the call every time (deny), asked the user, or refused once (block).
    pub denied: i64,
    pub asked: i64,
    pub blocked: i64,
    pub errors: i64,
}

const SESSION_SELECT: &str = "SELECT s.session_id, s.started_at, s.last_seen_at, s.source,
        s.cwd, s.compactions, s.ended_at, s.end_reason,
        (SELECT count(*) FROM subagents a WHERE a.session_id = s.session_id),
        (SELECT count(*) FROM subagent_history h WHERE h.session_id = s.session_id)
    FROM session_info s";

fn session_row(r: &Row<'_>) -> rusqlite::Result<SessionRow> {
    Ok(SessionRow {
        session_id: r.get(0)?,
        started_at: r.get(1)?,
        last_seen_at: r.get(2)?,
        source: r.get(3)?,
        cwd: r.get(4)?,
        compactions: r.get(5)?,
        ended_at: r.get(6)?,
        end_reason: r.get(7)?,
        agents_running: r.get(8)?,
        agents_finished: r.get(9)?,
        hook_runs: 0,
        denied: 0,
        asked: 0,
        blocked: 0,
        errors: 0,
    })
}

impl SessionRow {
    fn with_runs(mut self, c: SessionRuns) -> SessionRow {
        (self.hook_runs, self.errors) = (c.runs, c.errors);
        (self.denied, self.asked, self.blocked) = (c.denied, c.asked, c.blocked);
        self
    }
}

/// Sessions, most recently seen first, with what happened in each.
pub fn sessions(
    conn: &Connection,
    counts: &RunCounts,
    limit: usize,
) -> StoreResult<Vec<SessionRow>> {
    let rows: Vec<SessionRow> = conn
        .prepare(&format!(
            "{SESSION_SELECT} ORDER BY s.last_seen_at DESC LIMIT ?1"
        ))?
        .query_map([to_i64(limit)], session_row)?
        .collect::<Result<_, _>>()?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let runs = counts.of(&r.session_id);
            r.with_runs(runs)
        })
        .collect())
}

/// One session with the figures of the sessions list (`runs`: its hook runs).
pub fn session(
    conn: &Connection,
    runs: SessionRuns,
    session_id: &str,
) -> StoreResult<Option<SessionRow>> {
    Ok(conn
        .query_row(
            &format!("{SESSION_SELECT} WHERE s.session_id = ?1"),
            [session_id],
            session_row,
        )
        .optional()?
        .map(|r| r.with_runs(runs)))
}

/// The most recently seen session.
pub fn latest_session(conn: &Connection) -> StoreResult<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT session_id FROM session_info ORDER BY last_seen_at DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .optional()?)
}

/// Hook runs of one session, by outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionRuns {
    pub runs: i64,
    /// Runs that denied, asked and blocked, each counted apart.
    pub denied: i64,
    pub asked: i64,
    pub blocked: i64,
    pub errors: i64,
}

/// Hook runs per session, kept up to date by reading only the rows logged since the last
/// refresh (hook_log ids only grow): counting a million-row log per request, or per
/// session through the session index and the table, takes seconds. Rebuilt whole when
/// the oldest rows were purged.
#[derive(Debug, Default)]
pub struct RunCounts {
    /// The lowest and highest id counted.
    first_id: Option<i64>,
    last_id: i64,
    by_session: std::collections::HashMap<String, SessionRuns>,
}

impl RunCounts {
    pub fn refresh(&mut self, conn: &Connection) -> StoreResult<()> {
        let (first, last): (Option<i64>, Option<i64>) =
            // Two subqueries: each reads one end of the rowid; together in one SELECT
            // they would scan the table.
            conn.query_row(
                "SELECT (SELECT min(id) FROM hook_log), (SELECT max(id) FROM hook_log)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
        let last = last.unwrap_or(0);
        if first != self.first_id && self.last_id > 0 || last < self.last_id {
            *self = RunCounts::default();
        }
        if last > self.last_id {
            let mut stmt = conn.prepare_cached(
                "SELECT session_id, count(*), sum(result = 'deny'), sum(result = 'ask'),
                        sum(result = 'block'), sum(result = 'error')
                 FROM hook_log WHERE id > ?1 AND id <= ?2 AND session_id IS NOT NULL
                 GROUP BY session_id",
            )?;
            let rows = stmt.query_map(params![self.last_id, last], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    SessionRuns {
                        runs: r.get(1)?,
                        denied: r.get::<_, Option<i64>>(2)?.unwrap_or(0),
                        asked: r.get::<_, Option<i64>>(3)?.unwrap_or(0),
                        blocked: r.get::<_, Option<i64>>(4)?.unwrap_or(0),
                        errors: r.get::<_, Option<i64>>(5)?.unwrap_or(0),
                    },
                ))
            })?;
            for row in rows {
                let (session, n) = row?;
                let c = self.by_session.entry(session).or_default();
                c.runs += n.runs;
                c.denied += n.denied;
                c.asked += n.asked;
                c.blocked += n.blocked;
                c.errors += n.errors;
            }
        }
        (self.first_id, self.last_id) = (first, last);
        Ok(())
    }

    pub fn of(&self, session_id: &str) -> SessionRuns {
        self.by_session.get(session_id).copied().unwrap_or_default()
    }
}

/// One agent of a session: running (no `stopped_at`) or finished.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentLane {
    pub agent_id: String,
    pub agent_type: String,
    pub role: Option<String>,
    /// How the role was established, as recorded.
    pub role_source: Option<String>,
    pub started_at: i64,
    pub stopped_at: Option<i64>,
    pub tokens: Option<i64>,
    pub summary: Option<String>,
    pub claimed_by: Option<String>,
    pub registered_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookRun {
    pub id: i64,
    pub timestamp: i64,
    pub event: String,
    pub hook: String,
    pub agent_id: Option<String>,
    pub result: String,
    pub duration_ms: Option<f64>,
    /// The run's details (JSON), cut to a readable length.
    pub details: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spawn {
    pub tool_use_id: String,
    pub transcript_index: i64,
    pub subagent_type: Option<String>,
    pub role: Option<String>,
    pub description: Option<String>,
    /// The agent the transcript links this call to exactly.
    pub linked_agent_id: Option<String>,
    /// The agent this call was assigned to.
    pub matched_agent_id: Option<String>,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleHit {
    pub created_at: i64,
    pub session_id: String,
    pub agent_id: Option<String>,
    pub rule_name: String,
    pub rule_kind: String,
    pub severity: String,
    pub decision: String,
    /// Why the rule or guard check fired (none for hits older than schema v5).
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timeline {
    pub session: SessionRow,
    pub agents: Vec<AgentLane>,
    /// Oldest first; the newest `TIMELINE_RUNS` when there are more.
    pub runs: Vec<HookRun>,
    pub runs_total: i64,
    pub spawns: Vec<Spawn>,
    pub rule_hits: Vec<RuleHit>,
}

const DETAILS_CHARS: usize = 600;

fn hook_run(r: &Row<'_>) -> rusqlite::Result<HookRun> {
    let details: Option<String> = r.get(7)?;
    Ok(HookRun {
        id: r.get(0)?,
        timestamp: r.get(1)?,
        event: r.get(2)?,
        hook: r.get(3)?,
        agent_id: r.get(4)?,
        result: r
            .get::<_, Option<String>>(5)?
            .unwrap_or_else(|| "none".into()),
        duration_ms: r.get(6)?,
        details: details.map(|d| crate::base::text::cut(&d, DETAILS_CHARS)),
    })
}

fn rule_hit(r: &Row<'_>) -> rusqlite::Result<RuleHit> {
    Ok(RuleHit {
        created_at: r.get(0)?,
        session_id: r.get(1)?,
        agent_id: r.get(2)?,
        rule_name: r.get(3)?,
        rule_kind: r.get(4)?,
        severity: r.get(5)?,
        decision: r.get(6)?,
        reason: r.get(7)?,
    })
}

/// The columns of a [`RuleHit`]; its decision named as stats names it (a block rule's
/// hit is a block).
static RULE_HIT_COLUMNS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "created_at, session_id, agent_id, rule_name, rule_kind, severity, {}, reason",
        super::stats::RULE_DECISION
    )
});

/// Everything one session's timeline shows; None for an unknown session.
pub fn timeline(
    conn: &Connection,
    runs: SessionRuns,
    session_id: &str,
) -> StoreResult<Option<Timeline>> {
    let tx = conn.unchecked_transaction()?;
    let Some(session) = session(&tx, runs, session_id)? else {
        return Ok(None);
    };
    let mut agents = Vec::new();
    {
        let mut stmt = tx.prepare(
            "SELECT agent_id, agent_type, role, role_source, created_at, NULL, NULL, NULL,
                    claimed_by, registered_by
             FROM subagents WHERE session_id = ?1
             UNION ALL
             SELECT agent_id, agent_type, role, role_source, started_at, stopped_at, tokens,
                    summary, NULL, NULL
             FROM subagent_history WHERE session_id = ?1
             ORDER BY 5, 1",
        )?;
        let rows = stmt.query_map([session_id], |r| {
            Ok(AgentLane {
                agent_id: r.get(0)?,
                agent_type: r.get(1)?,
                role: r.get(2)?,
                role_source: r.get(3)?,
                started_at: r.get(4)?,
                stopped_at: r.get(5)?,
                tokens: r.get(6)?,
                summary: r
                    .get::<_, Option<String>>(7)?
                    .map(|s| crate::base::text::cut(&s, DETAILS_CHARS)),
                claimed_by: r.get(8)?,
                registered_by: r.get(9)?,
            })
        })?;
        for row in rows {
            agents.push(row?);
        }
    }
    let mut runs: Vec<HookRun> = tx
        .prepare(
            "SELECT id, timestamp, event_type, hook_name, agent_id, result, duration_ms, details
             FROM hook_log WHERE session_id = ?1 ORDER BY timestamp DESC, id DESC LIMIT ?2",
        )?
        .query_map(params![session_id, to_i64(TIMELINE_RUNS)], hook_run)?
        .collect::<Result<_, _>>()?;
    runs.reverse();
    let spawns = tx
        .prepare(
            "SELECT tool_use_id, transcript_index, subagent_type, role, description,
                    linked_agent_id, matched_agent_id, created_at
             FROM task_spawns WHERE session_id = ?1 ORDER BY transcript_index",
        )?
        .query_map([session_id], |r| {
            Ok(Spawn {
                tool_use_id: r.get(0)?,
                transcript_index: r.get(1)?,
                subagent_type: r.get(2)?,
                role: r.get(3)?,
                description: r.get(4)?,
                linked_agent_id: r.get(5)?,
                matched_agent_id: r.get(6)?,
                created_at: r.get(7)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    let rule_hits = tx
        .prepare(&format!(
            "SELECT {} FROM rule_hits WHERE session_id = ?1
             ORDER BY created_at DESC, id DESC LIMIT ?2",
            *RULE_HIT_COLUMNS
        ))?
        .query_map(params![session_id, to_i64(RECENT_ROWS)], rule_hit)?
        .collect::<Result<_, _>>()?;
    let timeline = Timeline {
        runs_total: session.hook_runs,
        session,
        agents,
        runs,
        spawns,
        rule_hits,
    };
    tx.rollback()?;
    Ok(Some(timeline))
}

/// The newest rule and guard hits, of one session or all.
pub fn recent_rule_hits(
    conn: &Connection,
    session_id: Option<&str>,
    limit: usize,
) -> StoreResult<Vec<RuleHit>> {
    Ok(conn
        .prepare(&format!(
            "SELECT {} FROM rule_hits WHERE ?1 IS NULL OR session_id = ?1
             ORDER BY created_at DESC, id DESC LIMIT ?2",
            *RULE_HIT_COLUMNS
        ))?
        .query_map(params![session_id, to_i64(limit)], rule_hit)?
        .collect::<Result<_, _>>()?)
}

/// A task handed to a role (`nagger task add`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskRow {
    pub id: i64,
    pub role: String,
    pub title: String,
    pub description: Option<String>,
    pub status: String,
    pub created_at: i64,
    pub done_at: Option<i64>,
}

/// Tasks, open ones first, then the newest; at most `limit`.
pub fn tasks(conn: &Connection, limit: usize) -> StoreResult<Vec<TaskRow>> {
    Ok(conn
        .prepare(
            // Each text cut to what a page shows: a row written behind nagger's back
            // with a field of hundreds of megabytes costs no more than a page's worth.
            "SELECT id, substr(role, 1, 200), substr(title, 1, 2000), substr(description, 1, 20000),
                    substr(status, 1, 20), created_at, done_at FROM tasks
             ORDER BY status <> 'open', created_at DESC, id DESC LIMIT ?1",
        )?
        .query_map([to_i64(limit)], |r| {
            Ok(TaskRow {
                id: r.get(0)?,
                role: r.get(1)?,
                title: r.get(2)?,
                description: r.get(3)?,
                status: r.get(4)?,
                created_at: r.get(5)?,
                done_at: r.get(6)?,
            })
        })?
        .collect::<Result<_, _>>()?)
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryCount {
    pub category: String,
    pub entries: i64,
    pub last_at: i64,
}

/// A shared-context entry as the dashboard shows it: the row without its hash and files,
/// tags as stored (comma separated), the content cut.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SharedEntry {
    pub id: i64,
    pub session_id: String,
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
    pub role: Option<String>,
    pub category: String,
    pub tags: String,
    pub tokens: Option<i64>,
    pub created_at: i64,
    pub content: String,
}

impl SharedEntry {
    fn of(e: ContextEntry, max_chars: usize) -> Self {
        SharedEntry {
            id: e.id,
            session_id: e.session_id,
            agent_id: e.agent_id,
            agent_type: e.agent_type,
            role: e.role,
            category: e.category,
            tags: e.tags.join(","),
            tokens: e.tokens,
            created_at: e.created_at,
            content: crate::base::text::cut(&e.content, max_chars),
        }
    }
}

/// Shared-context entries per category (of one session, or the project).
pub fn context_categories(
    conn: &Connection,
    session_id: Option<&str>,
) -> StoreResult<Vec<CategoryCount>> {
    Ok(conn
        .prepare(
            "SELECT category, count(*), max(created_at) FROM context_entries
             WHERE ?1 IS NULL OR session_id = ?1 GROUP BY category ORDER BY 2 DESC, 1",
        )?
        .query_map([session_id], |r| {
            Ok(CategoryCount {
                category: r.get(0)?,
                entries: r.get(1)?,
                last_at: r.get(2)?,
            })
        })?
        .collect::<Result<_, _>>()?)
}

/// The newest shared-context entries, contents cut to `max_chars`.
pub fn context_entries(
    conn: &Connection,
    session_id: Option<&str>,
    limit: usize,
    max_chars: usize,
) -> StoreResult<Vec<SharedEntry>> {
    Ok(ContextRepository::new(conn)
        .newest(session_id, limit)?
        .into_iter()
        .map(|e| SharedEntry::of(e, max_chars))
        .collect())
}

/// Roles seen in the project (agents and shared entries), for the digest's role picker.
pub fn known_roles(conn: &Connection) -> StoreResult<Vec<String>> {
    Ok(conn
        .prepare(
            "SELECT role FROM subagents WHERE role IS NOT NULL
             UNION SELECT role FROM subagent_history WHERE role IS NOT NULL
             UNION SELECT role FROM context_entries WHERE role IS NOT NULL
             UNION SELECT role FROM tasks
             ORDER BY 1",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?)
}

/// Hook-run latency in one time bucket: nearest-rank percentiles of the timed runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencyBucket {
    pub from_ms: i64,
    pub to_ms: i64,
    pub runs: i64,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
}

/// The newest `LATENCY_RUNS` timed runs (of one session, or all, at or after `since_ms`)
/// cut into `buckets` equal spans of time, with the percentiles of each.
pub fn latency_over_time(
    conn: &Connection,
    session_id: Option<&str>,
    since_ms: Option<i64>,
    buckets: usize,
) -> StoreResult<Vec<LatencyBucket>> {
    // One session reads its own index range; all sessions read the time index, which
    // also holds the duration (no table lookups).
    let sql = if session_id.is_some() {
        "SELECT timestamp, duration_ms FROM hook_log
         WHERE session_id = ?1 AND timestamp >= ?2 AND duration_ms IS NOT NULL
         ORDER BY timestamp DESC LIMIT ?3"
    } else {
        "SELECT timestamp, duration_ms FROM hook_log INDEXED BY idx_hook_log_time
         WHERE ?1 IS NULL AND timestamp >= ?2 AND duration_ms IS NOT NULL
         ORDER BY timestamp DESC LIMIT ?3"
    };
    let runs: Vec<(i64, f64)> = conn
        .prepare(sql)?
        .query_map(
            params![session_id, since_ms.unwrap_or(0), to_i64(LATENCY_RUNS)],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?
        .collect::<Result<_, _>>()?;
    Ok(bucket_latencies(&runs, buckets))
}

/// Cuts `(timestamp, duration)` runs into `buckets` equal spans from the first to the
/// last timestamp, with nearest-rank percentiles per span.
pub fn bucket_latencies(runs: &[(i64, f64)], buckets: usize) -> Vec<LatencyBucket> {
    let (Some(first), Some(last)) = (
        runs.iter().map(|r| r.0).min(),
        runs.iter().map(|r| r.0).max(),
    ) else {
        return Vec::new();
    };
    let count = buckets.max(1);
    let buckets = to_i64(count);
    // At least 1 ms per span; the last span ends after the last run.
    let span = ((last - first) / buckets + 1).max(1);
    let mut durations: Vec<Vec<f64>> = vec![Vec::new(); count];
    for &(ts, d) in runs {
        // ts >= first, so the quotient is never negative.
        let i = to_usize((ts - first) / span).min(count - 1);
        durations[i].push(d);
    }
    durations
        .into_iter()
        .enumerate()
        .map(|(i, mut ds)| {
            ds.sort_by(f64::total_cmp);
            let at = |permille: usize| -> Option<f64> {
                if ds.is_empty() {
                    return None;
                }
                let rank = (permille * ds.len()).div_ceil(1000).clamp(1, ds.len());
                Some(ds[rank - 1])
            };
            let from_ms = first + span * to_i64(i);
            LatencyBucket {
                from_ms,
                to_ms: from_ms + span,
                runs: to_i64(ds.len()),
                p50: at(500),
                p95: at(950),
                p99: at(990),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_buckets_hold_nearest_rank_percentiles_of_their_span() {
        // 100 runs at t=0..99 ms lasting 1..100 ms, then one run of 7 ms at t=1000.
        let mut runs: Vec<(i64, f64)> = (0..100).map(|i| (i, (i + 1) as f64)).collect();
        runs.push((1000, 7.0));
        let b = bucket_latencies(&runs, 2);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].runs, 100);
        assert_eq!(
            (b[0].p50, b[0].p95, b[0].p99),
            (Some(50.0), Some(95.0), Some(99.0))
        );
        assert_eq!(b[1].runs, 1);
        assert_eq!(b[1].p99, Some(7.0));
        assert!(b[1].from_ms <= 1000 && 1000 < b[1].to_ms);
        assert!(bucket_latencies(&[], 10).is_empty());
        let one = bucket_latencies(&[(5, 2.0)], 4);
        assert_eq!(one.iter().map(|b| b.runs).sum::<i64>(), 1);
    }

    #[test]
    fn run_counts_follow_new_rows_and_purges() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let db = NaggerStateDB::open(&path).unwrap();
        let log = |session: &str, result: &str, ts: i64| {
            db.conn()
                .execute(
                    "INSERT INTO hook_log (session_id, hook_name, event_type, timestamp, result)
                     VALUES (?1, 'pre_tool_use', 'PreToolUse', ?2, ?3)",
                    params![session, ts, result],
                )
                .unwrap();
        };
        let reader = NaggerStateDB::open_live_reader(&path).unwrap();
        let mut counts = RunCounts::default();
        counts.refresh(reader.conn()).unwrap();
        assert_eq!(counts.of("a"), SessionRuns::default());

        log("a", "none", 1);
        log("a", "deny", 2);
        log("b", "error", 3);
        // Input nagger could not read has no session and is no session's run.
        db.hook_log().log_bad_input("not JSON", 0.1).unwrap();
        counts.refresh(reader.conn()).unwrap();
        let want = |runs, [denied, asked, blocked]: [i64; 3], errors| SessionRuns {
            runs,
            denied,
            asked,
            blocked,
            errors,
        };
        assert_eq!(counts.of("a"), want(2, [1, 0, 0], 0));
        assert_eq!(counts.of("b"), want(1, [0, 0, 0], 1));

        log("a", "ask", 4);
        log("a", "block", 5);
        counts.refresh(reader.conn()).unwrap();
        assert_eq!(
            counts.of("a"),
            want(4, [1, 1, 1], 0),
            "only the new rows are added, each result apart"
        );

        db.conn()
            .execute("DELETE FROM hook_log WHERE timestamp < 3", [])
            .unwrap();
        counts.refresh(reader.conn()).unwrap();
        assert_eq!(counts.of("a"), want(2, [0, 1, 1], 0), "a purge recounts");
        assert_eq!(counts.of("b"), want(1, [0, 0, 0], 1));

        db.conn().execute("DELETE FROM hook_log", []).unwrap();
        counts.refresh(reader.conn()).unwrap();
        assert_eq!(counts.of("a"), SessionRuns::default());
        log("c", "none", 9);
        counts.refresh(reader.conn()).unwrap();
        assert_eq!(counts.of("c"), want(1, [0, 0, 0], 0));
    }

    #[test]
    fn rule_hits_carry_their_decision_and_reason() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let db = NaggerStateDB::open(&path).unwrap();
        let hit = |session, severity, reason| super::super::NewRuleHit {
            session_id: session,
            agent_id: None,
            rule_name: "guard:check",
            rule_kind: "guard",
            severity,
            tokens: 0,
            reason,
        };
        let hits = db.rule_hits();
        hits.record(&hit("a", "deny", Some("deletes the filesystem root")))
            .unwrap();
        hits.record(&hit(
            "a",
            "ask",
            Some("runs a program only known when the shell runs"),
        ))
        .unwrap();
        hits.record(&hit("b", "warn", None)).unwrap();
        let pool = read_pool(&path, 1).unwrap();
        let conn = pool.get().unwrap();
        let shown = |session| {
            recent_rule_hits(&conn, session, 10)
                .unwrap()
                .into_iter()
                .map(|h| (h.session_id, h.decision, h.reason))
                .collect::<Vec<_>>()
        };
        let some = |s: &str| Some(s.to_string());
        assert_eq!(
            shown(Some("a")),
            [
                (
                    "a".into(),
                    "ask".into(),
                    some("runs a program only known when the shell runs")
                ),
                (
                    "a".into(),
                    "deny".into(),
                    some("deletes the filesystem root")
                ),
            ],
            "newest first"
        );
        assert_eq!(shown(None).len(), 3);
        assert_eq!(shown(Some("b")), [("b".into(), "context".into(), None)]);
        // A block rule's hit is a block, also as rows written before said deny.
        hits.record(&hit("c", "block", None)).unwrap();
        db.conn()
            .execute(
                "INSERT INTO rule_hits (session_id, rule_name, rule_kind, severity, decision, last_tokens, created_at)
                 VALUES ('d', 'old', 'command', 'block', 'deny', 0, 1)",
                [],
            )
            .unwrap();
        assert_eq!(shown(Some("c")), [("c".into(), "block".into(), None)]);
        assert_eq!(shown(Some("d")), [("d".into(), "block".into(), None)]);
    }

    #[test]
    fn read_only_handles_neither_create_nor_write() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("state.db");
        // No database: read as an empty one, created nowhere.
        let empty = read_pool(&missing, 1).unwrap();
        assert!(!empty.has_file());
        let conn = empty.get().unwrap();
        assert_eq!(changes(&conn).unwrap().hook_log, 0);
        assert!(conn.execute("DELETE FROM hook_log", []).is_err());
        drop(conn);
        let reader = NaggerStateDB::open_live_reader(&missing).unwrap();
        assert!(reader.conn().execute("DELETE FROM tasks", []).is_err());
        assert!(!missing.exists(), "a missing database is not created");
        // Once a hook run has created it, the same pool reads the file.
        drop(NaggerStateDB::open(&missing).unwrap());
        assert!(empty.has_file());
        assert!(tasks(&empty.get().unwrap(), 10).unwrap().is_empty());
        drop(empty);

        drop(NaggerStateDB::open(&missing).unwrap());
        let pool = read_pool(&missing, 2).unwrap();
        let conn = pool.get().unwrap();
        assert!(
            conn.execute("DELETE FROM hook_log", []).is_err(),
            "pooled connections refuse writes"
        );
        let db = NaggerStateDB::open_live_reader(&missing).unwrap();
        assert!(db.conn().execute("DELETE FROM tasks", []).is_err());
        assert_eq!(changes(&conn).unwrap().hook_log, 0);
        let mut counts = RunCounts::default();
        counts.refresh(&conn).unwrap();
        assert!(sessions(&conn, &counts, 10).unwrap().is_empty());
        assert!(
            timeline(&conn, counts.of("nope"), "nope")
                .unwrap()
                .is_none()
        );
    }
}
