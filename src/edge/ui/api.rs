//! The JSON endpoints under `/api/`, one per page plus the change marker the page polls.
//! Each reads one pooled read-only connection (the digest its own read-only handle), on
//! a thread of its own and within [`READ_TIME`]: another process's locks on the
//! database, or a FIFO swapped in for one of its files, never hold up an answer.

use super::http::{self, Answer, Target};
use super::state::Ui;
use crate::base::paths;
use crate::domain::config::LoadedConfig;
use crate::domain::context::{self, Audience};
use crate::storage::store::stats::{self, Scope};
use crate::storage::store::ui_queries as q;
use crate::storage::store::{NaggerStateDB, now_ms};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Time an endpoint's answer may take. Past it the answer is the last one read in full,
/// marked stale, or 503; the read goes on alone until it ends, within [`READ_TIME`].
/// Below a second by what reading the request and writing the answer may take, so that
/// every answer leaves within one.
pub const ANSWER_TIME: Duration = Duration::from_millis(750);
/// Time a read may wait for the database (SQLite retries a WAL index locked by another
/// process for ten seconds; waits for a busy database end with this time).
pub const READ_TIME: Duration = Duration::from_secs(3);

/// Reads at once, counting those that outlived their answer; past it, 503 at once.
pub const MAX_READS: usize = 8;
/// The database's side files, which SQLite opens next to it.
const SIDE_FILES: [&str; 3] = ["-wal", "-shm", "-journal"];

/// Sessions the list shows.
const SESSION_LIST: usize = 200;
/// Characters of an entry's content the context page shows.
const ENTRY_CHARS: usize = 1200;
/// Default number of time buckets of the latency chart.
const LATENCY_BUCKETS: usize = 48;

/// An endpoint's failure: the status and what to tell the user.
struct Failure(u16, String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(500, e.to_string())
    }
}

/// The answer of `/api/{endpoint}`, read on a thread of its own, or 503 when it does not
/// come within [`READ_TIME`] or [`MAX_READS`] reads are under way already.
pub fn answer_in_time(ui: &Arc<Ui>, endpoint: String, target: Target) -> Answer {
    let key = target.key();
    let stale_or = |why: &str| {
        ui.answered
            .lock()
            .ok()
            .and_then(|kept| kept.stale(&key))
            .unwrap_or_else(|| unavailable(why))
    };
    let Some(turn) = ReadTurn::take(&ui.reads) else {
        return stale_or("the database is still busy with earlier requests");
    };
    let (sender, answered) = std::sync::mpsc::sync_channel(1);
    let reader = Arc::clone(ui);
    let read_key = key.clone();
    let spawned = std::thread::Builder::new()
        .name("nagger-ui-read".into())
        .spawn(move || {
            let _turn = turn;
            let _budget = crate::storage::store::limit_waits(Instant::now() + READ_TIME);
            let fresh = answer(&reader, &endpoint, &target);
            if fresh.status == 200
                && let Ok(mut kept) = reader.answered.lock()
            {
                kept.keep(read_key, &fresh.body);
            }
            let _ = sender.send(fresh);
        });
    if spawned.is_err() {
        return stale_or("no thread could be started to read it");
    }
    match answered.recv_timeout(ANSWER_TIME) {
        Ok(fresh) => fresh,
        Err(_) => stale_or(&format!(
            "it did not answer within {} ms (another process may hold a lock on it)",
            ANSWER_TIME.as_millis()
        )),
    }
}

fn unavailable(why: &str) -> Answer {
    http::json(
        503,
        &json!({ "error": format!("database unavailable: {why}") }),
    )
}

/// A read's place among the [`MAX_READS`], given back when its thread ends.
struct ReadTurn(Arc<AtomicUsize>);

impl ReadTurn {
    fn take(reads: &Arc<AtomicUsize>) -> Option<ReadTurn> {
        reads
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_READS).then_some(n + 1)
            })
            .ok()?;
        Some(ReadTurn(Arc::clone(reads)))
    }
}

impl Drop for ReadTurn {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Checks that the database and its side files are regular files or absent: SQLite
/// opens them without `O_NONBLOCK`, and its open of a FIFO would never return.
pub fn check_db_files(db: &Path) -> std::io::Result<()> {
    std::iter::once(db.to_path_buf())
        .chain(SIDE_FILES.iter().map(|suffix| {
            let mut name = db.as_os_str().to_os_string();
            name.push(suffix);
            PathBuf::from(name)
        }))
        .try_for_each(|file| crate::base::files::regular_or_absent(&file))
}

fn answer(ui: &Ui, endpoint: &str, target: &Target) -> Answer {
    if let Err(e) = check_db_files(&ui.db_path) {
        return http::json(
            503,
            &json!({ "error": format!("database unavailable: {e}") }),
        );
    }
    let result = match endpoint {
        "changes" => with_conn(ui, |c| Ok(json!(q::changes(c)?))),
        "sessions" => with_conn(ui, |c| {
            let counts = counted(ui, c)?;
            Ok(json!({ "now": now_ms(), "sessions": q::sessions(c, &counts, SESSION_LIST)? }))
        }),
        "timeline" => timeline(ui, target),
        "context" => shared_context(ui, target),
        "rules" => rules(ui, target),
        "stats" => stats_page(ui, target),
        "tasks" => with_conn(ui, |c| {
            Ok(json!({ "now": now_ms(), "tasks": q::tasks(c, q::RECENT_ROWS)? }))
        }),
        _ => Err(Failure(404, format!("no endpoint /api/{endpoint}"))),
    };
    match result {
        Ok(value) => http::json(200, &value),
        Err(Failure(status, message)) => http::json(status, &json!({ "error": message })),
    }
}

/// The per-session run counts, brought up to date.
fn counted<'u>(
    ui: &'u Ui,
    conn: &rusqlite::Connection,
) -> Result<std::sync::MutexGuard<'u, q::RunCounts>, Failure> {
    let mut counts = ui
        .counts
        .lock()
        .map_err(|_| Failure(500, "a request failed while counting runs".into()))?;
    counts.refresh(conn)?;
    Ok(counts)
}

fn with_conn(
    ui: &Ui,
    read: impl FnOnce(&rusqlite::Connection) -> Result<Value, Failure>,
) -> Result<Value, Failure> {
    let conn = ui.pool.get().map_err(|e| {
        Failure(
            503,
            format!("database unavailable: {}: {e}", ui.db_path.display()),
        )
    })?;
    read(&conn)
}

fn required<'t>(target: &'t Target, name: &str) -> Result<&'t str, Failure> {
    target
        .param(name)
        .ok_or_else(|| Failure(400, format!("the `{name}` parameter is required")))
}

fn timeline(ui: &Ui, target: &Target) -> Result<Value, Failure> {
    let session = required(target, "session")?;
    with_conn(ui, |c| {
        let runs = counted(ui, c)?.of(session);
        match q::timeline(c, runs, session)? {
            Some(t) => Ok(json!({ "now": now_ms(), "timeline": t })),
            None => Err(Failure(
                404,
                format!("no session {session} in this database"),
            )),
        }
    })
}

/// Entries per category and the digest a new agent of `role` (or the main agent after
/// a compaction) would receive now, computed by the function the hooks use.
fn shared_context(ui: &Ui, target: &Target) -> Result<Value, Failure> {
    let session = target.param("session");
    let (categories, project_categories, entries, roles, latest) = {
        let conn = ui.pool.get().map_err(|e| Failure(503, e.to_string()))?;
        (
            q::context_categories(&conn, session)?,
            q::context_categories(&conn, None)?,
            q::context_entries(&conn, session, q::RECENT_ROWS, ENTRY_CHARS)?,
            q::known_roles(&conn)?,
            q::latest_session(&conn)?,
        )
    };
    let digest_session = session.map(str::to_string).or(latest);
    let digest = match &digest_session {
        Some(s) => digest(ui, s, target.param("role"))?,
        None => Value::Null,
    };
    Ok(json!({
        "session": session,
        "categories": categories,
        "project_categories": project_categories,
        "entries": entries,
        "roles": roles,
        "digest": digest,
    }))
}

fn digest(ui: &Ui, session: &str, agent_type: Option<&str>) -> Result<Value, Failure> {
    let config = LoadedConfig::load(&paths::config_path(&ui.project_root)).config;
    let db = NaggerStateDB::open_live_reader(&ui.db_path)?;
    let role = agent_type.map(|r| context::role_for(&config, r));
    let injection = match (agent_type, &role) {
        (Some(agent_type), Some(role)) => context::for_subagent(
            &db,
            &config,
            &Audience::Subagent {
                session_id: session,
                agent_id: None,
                agent_type,
                role: Some(role),
            },
            &context::report_path_placeholder(&ui.project_root, session, agent_type),
        )?,
        _ => context::for_main(&db, &config, session)?,
    };
    let picked: Vec<Value> = injection
        .digest
        .entries
        .iter()
        .map(|p| {
            json!({
                "stage": p.stage,
                "id": p.entry.id,
                "category": p.entry.category,
                "role": p.entry.role,
                "agent_id": p.entry.agent_id,
                "session_id": p.entry.session_id,
            })
        })
        .collect();
    Ok(json!({
        "session_id": session,
        "role": role.as_deref().unwrap_or(context::LEADER),
        "agent_type": agent_type,
        "categories": injection.digest.categories,
        "entries": picked,
        "tasks": injection.digest.tasks.len(),
        "files": injection.digest.files.len(),
        "enabled": config.context.enabled,
        "text": injection.text,
    }))
}

fn rules(ui: &Ui, target: &Target) -> Result<Value, Failure> {
    let session = target.param("session");
    // The rules in force: the config, fully checked, raised to what the user last trusted.
    let mut loaded = LoadedConfig::load_full(&paths::config_path(&ui.project_root));
    let trust = crate::domain::trust::settle(
        &mut loaded.config,
        &loaded.path,
        crate::domain::trust::Ratchet::ReadOnly,
    );
    with_conn(ui, |c| {
        let tx = c.unchecked_transaction()?;
        let (rules, guards) = stats::rule_counts(
            &tx,
            Scope {
                session,
                since_ms: window_start(target)?,
            },
        )?;
        drop(tx);
        let problems: Vec<Value> = loaded
            .errors
            .iter()
            .map(|e| {
                json!({
                    "line": e.line,
                    "key": e.key,
                    "problem": e.problem,
                    "may_weaken": e.may_weaken,
                    "message": e.to_string(),
                })
            })
            .collect();
        Ok(json!({
            "pending_trust": trust.held_back.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "config_path": loaded.path.display().to_string(),
            "config_present": loaded.present,
            "problems": problems,
            "configured": configured_rules(&loaded.config, &rules),
            "guard_enabled": loaded.config.guard.enabled,
            "rules": rules,
            "guards": guards,
            "recent": q::recent_rule_hits(c, session, q::RECENT_ROWS)?,
        }))
    })
}

/// Every rule of the config in force, in its table's order, with what it matches and
/// its hits (0 included) from `fired`.
fn configured_rules(
    config: &crate::domain::config::Config,
    fired: &[stats::RuleFired],
) -> Vec<Value> {
    use crate::base::rule_kind::RuleKind;
    let r = &config.rules;
    let mut rows: Vec<(RuleKind, &str, &str, String)> = Vec::new();
    for (kind, list) in [(RuleKind::File, &r.file), (RuleKind::Command, &r.command)] {
        for rule in list {
            let mut matches = rule.patterns.join(", ");
            if !rule.exclude.is_empty() {
                let _ = write!(matches, " (not {})", rule.exclude.join(", "));
            }
            rows.push((kind, &rule.name, rule.severity.as_str(), matches));
        }
    }
    for rule in &r.tool {
        let mut parts = vec![format!(
            "tool {}",
            if rule.tool.is_empty() {
                "any"
            } else {
                &rule.tool
            }
        )];
        parts.extend(rule.input.iter().map(|(k, v)| format!("{k} ~ {v}")));
        rows.push((
            RuleKind::Tool,
            &rule.name,
            rule.severity.as_str(),
            parts.join(", "),
        ));
    }
    for rule in &r.after_edit {
        let severity = rule.severity.severity().as_str();
        let files = if rule.patterns.is_empty() {
            "any file".to_string()
        } else {
            rule.patterns.join(", ")
        };
        rows.push((
            RuleKind::AfterEdit,
            &rule.name,
            severity,
            format!("{files}: added {}", rule.added.join(", ")),
        ));
    }
    for rule in &r.recovery {
        let tool = if rule.tool.is_empty() {
            "any tool"
        } else {
            &rule.tool
        };
        rows.push((
            RuleKind::Recovery,
            &rule.name,
            "hint",
            format!("{tool} failing with {}", rule.error),
        ));
    }
    rows.into_iter()
        .map(|(kind, name, severity, matches)| {
            let hit = fired
                .iter()
                .find(|f| f.kind == kind.as_str() && f.rule == name);
            json!({
                "kind": kind.as_str(),
                "rule": name,
                "severity": severity,
                "matches": matches,
                "hits": hit.map_or(0, |h| h.hits),
                "decisions": hit.map(|h| h.decisions.clone()).unwrap_or_default(),
            })
        })
        .collect()
}

/// `window`: seconds back from now; absent or `all`: everything.
fn window_start(target: &Target) -> Result<Option<i64>, Failure> {
    match target.param("window") {
        None | Some("all") => Ok(None),
        Some(w) => match w.parse::<i64>() {
            Ok(secs) if secs > 0 => Ok(Some(now_ms() - secs.saturating_mul(1000))),
            _ => Err(Failure(
                400,
                format!("window `{w}` is not a number of seconds"),
            )),
        },
    }
}

fn stats_page(ui: &Ui, target: &Target) -> Result<Value, Failure> {
    let since_ms = window_start(target)?;
    let buckets = match target.param("buckets") {
        None => LATENCY_BUCKETS,
        Some(b) => b
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=500).contains(n))
            .ok_or_else(|| Failure(400, format!("buckets `{b}` is not a number from 1 to 500")))?,
    };
    with_conn(ui, |c| {
        let s = stats::collect(
            c,
            Scope {
                session: None,
                since_ms,
            },
        )?;
        let mut per_event: BTreeMap<&str, i64> = BTreeMap::new();
        for h in &s.hooks {
            *per_event.entry(h.event.as_str()).or_default() += h.runs;
        }
        Ok(json!({
            "since_ms": since_ms,
            "runs_per_event": per_event,
            "latency": q::latency_over_time(c, None, since_ms, buckets)?,
            "stats": s,
        }))
    })
}
