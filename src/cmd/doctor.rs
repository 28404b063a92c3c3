//! `nagger doctor`: one line per check (ok / warn / FAIL) of the state database, its schema,
//! Claude Code's settings and nagger's config; exit 1 on any FAIL. Without `--fix` it
//! changes nothing, and never creates a database. `--fix` repairs what nagger owns (the
//! database) and says what it did; settings and config stay the user's to edit.

use super::{CommandError, CommandResult, Output, age};
use crate::cli::DoctorArgs;
use crate::config::{LoadedConfig, Problem};
use crate::install::{self, HOOK_EVENTS};
use crate::paths::{self, Env};
use crate::store::health::{self, Inspection, SchemaStatus};
use crate::store::stats;
use crate::store::{NaggerStateDB, now_ms};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const HOUR_MS: i64 = 3_600_000;
/// A database this large is worth a look (log retention, `nagger gc`).
const LARGE_DB_BYTES: u64 = 512 * 1024 * 1024;
/// How far back failed hook runs are reported.
const RECENT_ERRORS_MS: i64 = 24 * HOUR_MS;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Ok,
    Warn,
    Fail,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
        }
    }

    fn json(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "fail",
        }
    }
}

struct Check {
    name: &'static str,
    status: Status,
    message: String,
}

#[derive(Default)]
struct Checks(Vec<Check>);

impl Checks {
    fn push(&mut self, name: &'static str, status: Status, message: impl Into<String>) {
        self.0.push(Check {
            name,
            status,
            message: message.into(),
        });
    }

    fn count(&self, status: Status) -> usize {
        self.0.iter().filter(|c| c.status == status).count()
    }
}

/// What `--fix` did (or failed to do).
struct Fix {
    check: &'static str,
    action: String,
    done: bool,
}

pub fn run(env: &Env, args: &DoctorArgs, out: &mut Output) -> CommandResult {
    let root = env.project_root(None);
    let db_path = env.db_path(&root);
    let config = LoadedConfig::load_full(&paths::config_path(&root));
    let ttl_ms = config.config.context.ttl_hours as i64 * HOUR_MS;
    let retention_ms = config.config.log.retention_days as i64 * 24 * HOUR_MS;

    let fixes = if args.fix {
        fix(&db_path, ttl_ms, retention_ms)
    } else {
        Vec::new()
    };
    let mut checks = Checks::default();
    database_checks(&db_path, ttl_ms, &mut checks);
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let last_run = last_hook_run(&db_path);
    settings_checks(&root, home.as_deref(), last_run, &mut checks);
    config_checks(&config, &mut checks);

    let problems = checks.count(Status::Fail);
    let warnings = checks.count(Status::Warn);
    if args.json {
        out.json(&json!({
            "ok": problems == 0,
            "problems": problems,
            "warnings": warnings,
            "database": db_path.display().to_string(),
            "config": config.path.display().to_string(),
            "settings": config.config.effective(),
            "fixed": fixes.iter().map(|f| json!({"check": f.check, "action": f.action, "done": f.done})).collect::<Vec<_>>(),
            "checks": checks.0.iter().map(|c| json!({"check": c.name, "status": c.status.json(), "message": c.message})).collect::<Vec<_>>(),
        }))?;
    } else {
        let mut lines = Vec::new();
        for f in &fixes {
            let label = if f.done { "fixed" } else { "FAIL" };
            lines.push(format!("{label:<5}  {:<12}  {}", f.check, f.action));
        }
        for c in &checks.0 {
            lines.push(format!(
                "{:<5}  {:<12}  {}",
                c.status.label(),
                c.name,
                c.message
            ));
        }
        if args.settings {
            lines.push(String::new());
            lines.push(format!(
                "# settings in force (defaults included), from {}",
                config.path.display()
            ));
            lines.push(
                settings_toml(&config.config.effective())
                    .trim_end()
                    .to_string(),
            );
            lines.push(String::new());
        }
        lines.push(format!(
            "nagger doctor: {} problem{}, {} warning{}",
            problems,
            plural(problems),
            warnings,
            plural(warnings)
        ));
        out.line(&lines.join("\n"))?;
    }
    if problems > 0 {
        return Err(CommandError::Problems(format!(
            "{problems} problem{} found",
            plural(problems)
        )));
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Repairs the database: creates it, or moves a corrupt one aside for a new one, or brings
/// its schema to this binary's; then purges stale rows. Each step reports, none aborts.
fn fix(db_path: &Path, ttl_ms: i64, retention_ms: i64) -> Vec<Fix> {
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
    let bytes = health::database_bytes(conn).unwrap_or(0).max(0) as u64;
    let mut wal = db_path.as_os_str().to_os_string();
    wal.push("-wal");
    let wal_bytes = std::fs::metadata(PathBuf::from(wal))
        .map(|m| m.len())
        .unwrap_or(0);
    let size = format!("{} (wal {})", human_bytes(bytes), human_bytes(wal_bytes));
    if bytes + wal_bytes > LARGE_DB_BYTES {
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
            checks.push("journal", Status::Ok, "journal_mode: wal")
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
                plural(s.agents as usize),
                s.sessions,
                plural(s.sessions as usize),
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
                        one_line(message.as_deref().unwrap_or("no message"), 200)
                    )
                })
                .unwrap_or_default();
            checks.push(
                "hook errors",
                Status::Warn,
                format!(
                    "{n} hook run{} failed in the last 24h (nagger passed them){newest}",
                    plural(n as usize)
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
        message.push_str(&format!(
            "; {} applied from an earlier text, no object missing",
            names(&s.divergent)
        ));
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

/// The settings files Claude Code reads hooks from, project first.
fn settings_files(root: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut files = vec![
        root.join(".claude/settings.json"),
        root.join(".claude/settings.local.json"),
    ];
    if let Some(home) = home {
        files.push(home.join(".claude/settings.json"));
    }
    let mut seen = Vec::new();
    files.retain(|f| {
        let key = f.canonicalize().unwrap_or_else(|_| f.clone());
        let new = !seen.contains(&key);
        seen.push(key);
        new
    });
    files
}

/// When nagger last ran a hook here (unix ms), read without changing the database.
fn last_hook_run(db_path: &Path) -> Option<i64> {
    let db = NaggerStateDB::open_read_only(db_path).ok()??;
    db.last_hook_run().ok().flatten()
}

fn settings_checks(root: &Path, home: Option<&Path>, last_run: Option<i64>, checks: &mut Checks) {
    let shown = |p: &Path| match p.strip_prefix(root) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => p.display().to_string(),
    };
    // event -> (file, command) of each nagger entry
    let mut entries: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let files = settings_files(root, home);
    let mut read_any = false;
    for file in &files {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                checks.push(
                    "settings",
                    Status::Fail,
                    format!("cannot read {}: {e}", shown(file)),
                );
                continue;
            }
        };
        read_any = true;
        let value: serde_json::Value = if text.trim().is_empty() {
            json!({})
        } else {
            match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(e) => {
                    checks.push(
                        "settings",
                        Status::Fail,
                        format!(
                            "{} is not valid JSON (line {}, column {}): Claude Code cannot read its hooks",
                            shown(file),
                            e.line(),
                            e.column()
                        ),
                    );
                    continue;
                }
            }
        };
        for (event, commands) in install::find_nagger_entries(&value) {
            let list = entries.entry(event).or_default();
            list.extend(commands.into_iter().map(|c| (shown(file), c)));
        }
    }
    let looked_in = files
        .iter()
        .map(|f| shown(f))
        .collect::<Vec<_>>()
        .join(", ");
    let installed: Vec<&str> = HOOK_EVENTS
        .iter()
        .copied()
        .filter(|e| entries.contains_key(*e))
        .collect();
    let ran_lately = last_run.is_some_and(|t| now_ms() - t < 24 * HOUR_MS);
    if installed.is_empty() && ran_lately {
        // No settings entry, yet hooks run: through a plugin (`nagger plugin`), or
        // nagger was uninstalled today.
        checks.push(
            "settings",
            Status::Warn,
            format!(
                "no nagger hook in {looked_in}, yet hooks ran in the last day: through a plugin \
                 (`nagger plugin`)? If not, Claude Code no longer runs nagger (run `nagger install`)"
            ),
        );
        return;
    }
    if installed.is_empty() {
        checks.push(
            "settings",
            Status::Fail,
            format!(
                "no nagger hook in {looked_in}{}: Claude Code never runs nagger (run `nagger install`)",
                if read_any { "" } else { " (none exists)" }
            ),
        );
        return;
    }
    let mut fine = true;
    let missing: Vec<&str> = HOOK_EVENTS
        .iter()
        .copied()
        .filter(|e| !entries.contains_key(*e))
        .collect();
    if !missing.is_empty() {
        fine = false;
        checks.push(
            "settings",
            Status::Fail,
            format!(
                "no nagger entry for {} (nagger misses those events; run `nagger install`)",
                missing.join(", ")
            ),
        );
    }
    let doubled: Vec<String> = entries
        .iter()
        .filter(|(e, list)| HOOK_EVENTS.contains(&e.as_str()) && list.len() > 1)
        .map(|(e, list)| format!("{e} ×{}", list.len()))
        .collect();
    if !doubled.is_empty() {
        fine = false;
        checks.push(
            "settings",
            Status::Warn,
            format!(
                "nagger runs more than once per event: {} (keep one entry, e.g. `nagger uninstall --local`)",
                doubled.join(", ")
            ),
        );
    }
    // Each distinct command once, with the files it is in.
    let mut commands: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (file, command) in entries.values().flatten() {
        let files = commands.entry(command.clone()).or_default();
        if !files.contains(file) {
            files.push(file.clone());
        }
    }
    let mut programs = Vec::new();
    for (command, in_files) in &commands {
        let program = install::hook_program(command).unwrap_or_default();
        match resolve_program(&program, root, home) {
            Ok(path) => programs.push(path.display().to_string()),
            Err(why) => {
                fine = false;
                checks.push(
                    "settings",
                    Status::Fail,
                    format!(
                        "`{command}` ({}) runs {program}, which {why}; run `nagger install` again",
                        in_files.join(", ")
                    ),
                );
            }
        }
    }
    if fine {
        programs.dedup();
        checks.push(
            "settings",
            Status::Ok,
            format!(
                "nagger hooks on all {} events ({}) run {}",
                HOOK_EVENTS.len(),
                entries
                    .values()
                    .flatten()
                    .map(|(f, _)| f.as_str())
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect::<Vec<_>>()
                    .join(", "),
                programs.join(", ")
            ),
        );
    }
}

/// Where a hook command's program is, as the shell Claude Code starts would find it; Err
/// says why it cannot run.
fn resolve_program(program: &str, root: &Path, home: Option<&Path>) -> Result<PathBuf, String> {
    if program.is_empty() {
        return Err("is empty".into());
    }
    let root_s = root.display().to_string();
    let home_s = home.map(|h| h.display().to_string());
    let mut expanded = program
        .replace("${CLAUDE_PROJECT_DIR}", &root_s)
        .replace("$CLAUDE_PROJECT_DIR", &root_s);
    if let Some(home) = &home_s {
        expanded = expanded.replace("${HOME}", home).replace("$HOME", home);
        if let Some(rest) = expanded.strip_prefix("~/") {
            expanded = format!("{home}/{rest}");
        }
    }
    if expanded.contains('$') {
        return Err("depends on a variable doctor cannot expand".into());
    }
    let path = PathBuf::from(&expanded);
    if expanded.contains('/') {
        let path = if path.is_relative() {
            root.join(path)
        } else {
            path
        };
        return executable(&path).map(|()| path);
    }
    let search = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&search)
        .map(|dir| dir.join(&expanded))
        .find(|candidate| executable(candidate).is_ok())
        .ok_or_else(|| "is not on PATH".to_string())
}

fn executable(path: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|_| "does not exist".to_string())?;
    if !meta.is_file() {
        return Err("is not a file".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err("is not executable".into());
        }
    }
    Ok(())
}

fn config_checks(config: &LoadedConfig, checks: &mut Checks) {
    let shown = config.path.display();
    if !config.present {
        checks.push(
            "config",
            Status::Warn,
            format!(
                "no {shown}: nagger runs on its defaults (`nagger install` writes the commented template)"
            ),
        );
    } else if config.errors.is_empty() {
        checks.push(
            "config",
            Status::Ok,
            format!("{shown} is valid (`nagger doctor --settings` shows every setting in force)"),
        );
    } else {
        for e in &config.errors {
            // An unknown key changes nothing; anything else means a setting, item, rule or
            // pattern the user wrote is not in force.
            let status = match e.problem {
                Problem::UnknownKey => Status::Warn,
                Problem::BadValue | Problem::BadPattern | Problem::Unreadable => Status::Fail,
            };
            checks.push("config", status, e.to_string());
        }
    }
}

/// The settings in force as TOML, defaults included (entries without a value left out).
fn settings_toml(settings: &serde_json::Value) -> String {
    fn without_nulls(v: &serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(m) => serde_json::Value::Object(
                m.iter()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| (k.clone(), without_nulls(v)))
                    .collect(),
            ),
            serde_json::Value::Array(a) => {
                serde_json::Value::Array(a.iter().map(without_nulls).collect())
            }
            other => other.clone(),
        }
    }
    toml::to_string(&without_nulls(settings))
        .unwrap_or_else(|e| format!("(cannot be shown as TOML: {e})\n"))
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

fn one_line(s: &str, max: usize) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max {
        format!("{}…", flat.chars().take(max).collect::<String>())
    } else {
        flat
    }
}
