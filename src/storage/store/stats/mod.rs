//! The figures behind `nagger stats`, aggregated inside SQLite. Runs per (event, hook) and
//! fine duration bucket come from `hook_log_rollup`, which every hook_log write keeps exact
//! (storage/store/hook_log.rs); a percentile is then one OFFSET inside the bucket that holds
//! its rank, on `idx_hook_log_stats`; the role sources, first-call callers and context
//! sizes are plain columns read through partial indexes of the few rows that carry them.
//! The log is never counted, let alone loaded, row by row.

use super::db::immediate;
use super::error::StoreResult;
use crate::base::event::HookEvent;
use crate::base::rule_kind::RuleKind;
use rusqlite::{Connection, ToSql, Transaction, params, params_from_iter};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Upper bounds (ms) of the duration buckets; one more, open bucket follows the last.
pub const BUCKET_BOUNDS_MS: [f64; 8] = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 500.0];

/// How many rules (and guards) `top` lists.
pub const TOP_RULES: usize = 10;

/// Decisions every hook row reports, present even when zero.
pub const DECISIONS: [&str; 5] = ["deny", "ask", "block", "context", "none"];

/// Which rows count: one session or all, from a time on or ever.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scope<'a> {
    pub session: Option<&'a str>,
    /// Unix ms; rows at or after it.
    pub since_ms: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Stats {
    pub totals: Totals,
    pub hooks: Vec<HookStats>,
    pub histogram: Vec<Bucket>,
    pub roles: Roles,
    /// First tool calls attributed by the 2-phase claim (legacy payloads).
    pub claims: i64,
    /// SubagentStop runs that blocked a stop without a compressed report.
    pub compressions_enforced: i64,
    pub context: ContextInjected,
    pub rules: Vec<RuleFired>,
    pub guards: Vec<RuleFired>,
    pub usage: Vec<UsageCount>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Totals {
    pub runs: i64,
    pub errors: i64,
    pub decisions: BTreeMap<String, i64>,
}

/// One (event, hook) pair of hook_log.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HookStats {
    pub event: String,
    pub hook: String,
    pub runs: i64,
    /// Runs that failed (result `error`); not in `decisions`.
    pub errors: i64,
    /// Runs per result: deny, ask, block, context, none, and any other result seen.
    pub decisions: BTreeMap<String, i64>,
    pub duration_ms: Durations,
}

/// Nearest-rank percentiles of the runs that recorded a duration.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Durations {
    pub timed: i64,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
    pub max: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Bucket {
    /// Inclusive lower bound; 0 for the first bucket (which also holds anything below).
    pub from_ms: f64,
    /// Exclusive upper bound; None for the last, open bucket.
    pub to_ms: Option<f64>,
    pub runs: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Roles {
    /// SubagentStart runs per `role_source` (exact_link, task_match, agent_type, unresolved).
    pub by_source: BTreeMap<String, i64>,
    /// Subagents' first tool calls per `caller` (direct: agent_id in the input;
    /// transcript: the call found at the end of the agent's own transcript; claim: the
    /// 2-phase claim, a guess by order).
    pub by_caller: BTreeMap<String, i64>,
    /// Subagents (running and finished) per the role source they ended with: an exact
    /// fact (exact_link, agent_transcript, meta_file, tool_response) or a guess
    /// (task_match, agent_type, unresolved).
    pub final_by_source: BTreeMap<String, i64>,
    /// Guessed roles later replaced by a different exact one.
    pub corrected: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ContextInjected {
    /// Runs whose answer added context (result `context`).
    pub count: i64,
    pub total_chars: i64,
    /// Rounded mean over the runs that recorded their size.
    pub mean_chars: i64,
    pub max_chars: i64,
    pub by_event: BTreeMap<String, i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RuleFired {
    pub kind: String,
    pub rule: String,
    pub hits: i64,
    pub decisions: BTreeMap<String, i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct UsageCount {
    pub kind: String,
    pub name: String,
    pub count: i64,
}

/// The hook_log rows stats reads: the table itself, or one session's rows copied aside
/// (a session is small; the copy gets its own ordered index).
#[derive(Clone, Copy)]
enum Source {
    Log,
    Session,
}

impl Source {
    fn table(self) -> &'static str {
        match self {
            Source::Log => "main.hook_log",
            Source::Session => "temp.stats_session_log",
        }
    }
}

/// Everything `nagger stats` shows, from one consistent snapshot.
pub fn collect(conn: &Connection, scope: Scope<'_>) -> StoreResult<Stats> {
    // Rolled back at the end: it only holds the read snapshot and the temporary copy.
    let tx = conn.unchecked_transaction()?;
    let (source, since) = match scope.session {
        None => (Source::Log, scope.since_ms),
        Some(session) => {
            copy_session(&tx, session, scope.since_ms)?;
            (Source::Session, None)
        }
    };
    let mut hooks = Vec::new();
    let mut histogram: Vec<i64> = vec![0; BUCKET_BOUNDS_MS.len() + 1];
    for ((event, hook), fine) in run_counts(&tx, source, since)? {
        let untimed = fine.get(&UNTIMED).copied().unwrap_or(0);
        let timed: Vec<(i64, i64)> = fine.into_iter().filter(|(b, _)| *b != UNTIMED).collect();
        let timed_runs: i64 = timed.iter().map(|(_, n)| n).sum();
        if timed_runs + untimed == 0 {
            continue;
        }
        for (bucket, n) in &timed {
            histogram[display_bucket(*bucket)] += n;
        }
        let at = |permille: i64| -> StoreResult<Option<f64>> {
            if timed_runs == 0 {
                return Ok(None);
            }
            // Nearest rank: the smallest value with at least p% of the runs at or below it.
            let rank = ((permille * timed_runs + 999) / 1000).clamp(1, timed_runs);
            duration_at_rank(&tx, source, since, &event, &hook, &timed, rank).map(Some)
        };
        let duration_ms = Durations {
            timed: timed_runs,
            p50: at(500)?,
            p95: at(950)?,
            p99: at(990)?,
            max: at(1000)?,
        };
        hooks.push(HookStats {
            event,
            hook,
            runs: timed_runs + untimed,
            errors: 0,
            decisions: BTreeMap::new(),
            duration_ms,
        });
    }

    let mut compressions_enforced = 0;
    for (event, hook, result, n) in outcomes(&tx, source, since)? {
        if event == HookEvent::SubagentStop.as_str() && result == "block" {
            compressions_enforced += n;
        }
        if let Some(h) = hooks
            .iter_mut()
            .find(|h| h.event == event && h.hook == hook)
        {
            if result == "error" {
                h.errors += n;
            } else {
                *h.decisions.entry(result).or_default() += n;
            }
        }
    }
    let mut totals = Totals::default();
    for h in &mut hooks {
        // Rows with result none (or none recorded) are whatever the outcome index left.
        let other: i64 = h.decisions.values().sum();
        h.decisions.insert("none".into(), h.runs - h.errors - other);
        for d in DECISIONS {
            h.decisions.entry(d.to_string()).or_default();
        }
        totals.runs += h.runs;
        totals.errors += h.errors;
        for (d, n) in &h.decisions {
            *totals.decisions.entry(d.clone()).or_default() += n;
        }
    }
    for d in DECISIONS {
        totals.decisions.entry(d.to_string()).or_default();
    }

    let (final_by_source, corrected) = agent_roles(&tx, scope)?;
    let roles = Roles {
        by_source: counts_by(&tx, source, "role_source", since)?,
        by_caller: counts_by(&tx, source, "caller", since)?,
        final_by_source,
        corrected,
    };
    let (rules, guards) = rules_fired(&tx, scope)?;
    let stats = Stats {
        totals,
        hooks,
        histogram: buckets(&histogram),
        claims: roles.by_caller.get("claim").copied().unwrap_or(0),
        roles,
        compressions_enforced,
        context: context_injected(&tx, source, since)?,
        rules,
        guards,
        usage: usage(&tx, scope)?,
    };
    tx.rollback()?;
    Ok(stats)
}

impl Stats {
    /// The figures of an empty log, every key present.
    pub fn empty() -> Stats {
        Stats {
            totals: Totals {
                decisions: DECISIONS.iter().map(|d| (d.to_string(), 0)).collect(),
                ..Totals::default()
            },
            histogram: buckets(&[0; BUCKET_BOUNDS_MS.len() + 1]),
            ..Stats::default()
        }
    }
}

fn buckets(counts: &[i64]) -> Vec<Bucket> {
    counts
        .iter()
        .enumerate()
        .map(|(i, &runs)| Bucket {
            from_ms: if i == 0 { 0.0 } else { BUCKET_BOUNDS_MS[i - 1] },
            to_ms: BUCKET_BOUNDS_MS.get(i).copied(),
            runs,
        })
        .collect()
}

/// The fine duration bucket of a run (`x` an SQL expression of its duration_ms): 0.1 ms
/// wide below 10 ms, then 1 ms to 100 ms, 10 ms to 1 s, 100 ms to 10 s, one bucket above;
/// -1 without a duration. hook_log_rollup is counted with the same expression.
pub fn fine_bucket_sql(x: &str) -> String {
    format!(
        "CASE WHEN {x} IS NULL THEN -1 \
         WHEN {x} < 10 THEN max(0, CAST({x} * 10 AS INTEGER)) \
         WHEN {x} < 100 THEN 100 + CAST({x} - 10 AS INTEGER) \
         WHEN {x} < 1000 THEN 190 + CAST(({x} - 100) / 10 AS INTEGER) \
         WHEN {x} < 10000 THEN 280 + CAST(({x} - 1000) / 100 AS INTEGER) \
         ELSE 370 END"
    )
}

/// [`fine_bucket_sql`] computed here, for the hook path: a bound number costs the insert
/// nothing to compile, the CASE expression a parse on every run. They agree on every
/// duration (a test compares them); SQLite's CAST truncates toward zero like `as`.
pub fn fine_bucket(duration_ms: Option<f64>) -> i64 {
    let Some(x) = duration_ms else {
        return UNTIMED;
    };
    // NaN is stored as NULL by SQLite, which puts it in the untimed bucket too.
    if x.is_nan() {
        return UNTIMED;
    }
    #[allow(clippy::cast_possible_truncation)]
    let int = |v: f64| v as i64;
    if x < 10.0 {
        int(x * 10.0).max(0)
    } else if x < 100.0 {
        100 + int(x - 10.0)
    } else if x < 1000.0 {
        190 + int((x - 100.0) / 10.0)
    } else if x < 10_000.0 {
        280 + int((x - 1000.0) / 100.0)
    } else {
        370
    }
}

/// The fine bucket of runs without a duration.
const UNTIMED: i64 = -1;

/// Nominal [from, to) of a fine bucket, as `fine_bucket_sql` assigns them.
fn fine_bucket_range(bucket: i64) -> (f64, f64) {
    let b = bucket as f64;
    match bucket {
        0 => (f64::NEG_INFINITY, 0.1),
        1..=99 => (b / 10.0, (b + 1.0) / 10.0),
        100..=189 => (b - 90.0, b - 89.0),
        190..=279 => ((b - 190.0) * 10.0 + 100.0, (b - 189.0) * 10.0 + 100.0),
        280..=369 => ((b - 280.0) * 100.0 + 1000.0, (b - 279.0) * 100.0 + 1000.0),
        _ => (10_000.0, f64::INFINITY),
    }
}

/// The display bucket (`BUCKET_BOUNDS_MS`) a fine bucket falls in: their bounds line up.
fn display_bucket(fine: i64) -> usize {
    let (from, _) = fine_bucket_range(fine);
    BUCKET_BOUNDS_MS.iter().filter(|b| **b <= from).count()
}

const DAY_MS: i64 = 86_400_000;

type RunCounts = BTreeMap<(String, String), BTreeMap<i64, i64>>;

/// Runs per (event, hook) and fine duration bucket. The whole log is read from
/// hook_log_rollup, kept per day, plus the rows of the day `since` cuts
/// (off the time index); a session's copy is small enough to count directly.
fn run_counts(tx: &Transaction<'_>, source: Source, since: Option<i64>) -> StoreResult<RunCounts> {
    let mut counts = RunCounts::new();
    let mut add = |stmt: &mut rusqlite::Statement<'_>, args: &[i64]| -> StoreResult<()> {
        let rows = stmt.query_map(params_from_iter(args), |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, i64>(3)?,
            ))
        })?;
        for row in rows {
            let (event, hook, bucket, n) = row?;
            *counts
                .entry((event, hook))
                .or_default()
                .entry(bucket)
                .or_default() += n;
        }
        Ok(())
    };
    match (source, since) {
        (Source::Log, since) => {
            // The first whole day in the window; the rows before it are counted one by one.
            let first_day =
                since.map(|s| s.div_euclid(DAY_MS) + i64::from(s.rem_euclid(DAY_MS) > 0));
            let mut stmt = tx.prepare(&rollup_sql(first_day.is_some()))?;
            add(&mut stmt, &first_day.into_iter().collect::<Vec<_>>())?;
            if let (Some(since), Some(day)) = (since, first_day) {
                let mut stmt = tx.prepare(&cut_day_sql())?;
                add(&mut stmt, &[since, day * DAY_MS])?;
            }
        }
        (Source::Session, _) => {
            let mut stmt = tx.prepare(&session_counts_sql(source.table()))?;
            add(&mut stmt, &[])?;
        }
    }
    Ok(counts)
}

// The SQL of every query, built in one place so the plan test reads what `collect` runs.
// `t` is `Source::table`; with `since`, the lower time bound is the last parameter. It is
// written `+timestamp` so it stays a filter: the index each query is built for selects the
// rows (a window of days on the time index would read far more).

fn since_clause(since: bool, param: usize) -> String {
    if since {
        format!(" AND +timestamp >= ?{param}")
    } else {
        String::new()
    }
}

fn rollup_sql(from_day: bool) -> String {
    format!(
        "SELECT event_type, hook_name, bucket, sum(runs) FROM hook_log_rollup{}
         GROUP BY event_type, hook_name, bucket HAVING sum(runs) > 0",
        if from_day { " WHERE day >= ?1" } else { "" }
    )
}

/// Runs per fine bucket between two times, off the time index (which covers them).
fn cut_day_sql() -> String {
    format!(
        "SELECT event_type, hook_name, {}, count(*) FROM main.hook_log
         WHERE timestamp >= ?1 AND timestamp < ?2 GROUP BY 1, 2, 3",
        fine_bucket_sql("duration_ms")
    )
}

fn session_counts_sql(t: &str) -> String {
    format!(
        "SELECT event_type, hook_name, {}, count(*) FROM {t} GROUP BY 1, 2, 3",
        fine_bucket_sql("duration_ms")
    )
}

fn rank_sql(t: &str, since: bool, order: &str) -> String {
    format!(
        "SELECT duration_ms FROM {t} WHERE event_type = ?1 AND hook_name = ?2
         AND duration_ms >= ?3 AND duration_ms < ?4 AND {} = ?5{}
         ORDER BY duration_ms {order} LIMIT 1 OFFSET ?7",
        fine_bucket_sql("duration_ms"),
        since_clause(since, 6)
    )
}

fn outcomes_sql(t: &str, since: bool) -> String {
    format!(
        "SELECT event_type, hook_name, result, count(*) FROM {t}
         WHERE result <> 'none'{} GROUP BY result, event_type, hook_name",
        since_clause(since, 1)
    )
}

/// Runs per value of a stats column (`role_source`, `caller`), off its partial index.
fn counts_by_sql(t: &str, column: &str, since: bool) -> String {
    format!(
        "SELECT {column}, count(*) FROM {t} WHERE {column} IS NOT NULL{} GROUP BY 1",
        since_clause(since, 1)
    )
}

fn context_sql(t: &str, since: bool) -> String {
    format!(
        "SELECT event_type, count(*), count(c), coalesce(sum(c), 0), coalesce(max(c), 0)
         FROM (SELECT event_type, context_chars AS c FROM {t}
               WHERE result = 'context'{})
         GROUP BY event_type",
        since_clause(since, 1)
    )
}

/// A rule hit's decision as one word everywhere: a block rule's hit is a block (rows
/// written before the hit recorded it so say deny), whatever kind of rule it is.
pub const RULE_DECISION: &str =
    "CASE WHEN decision = 'deny' AND severity = 'block' THEN 'block' ELSE decision END";

fn rules_sql(scope: Scope<'_>) -> String {
    format!(
        "SELECT rule_kind, rule_name, {RULE_DECISION}, count(*) FROM rule_hits WHERE 1{}
         GROUP BY rule_kind, rule_name, 3",
        scope_clause(scope, "created_at")
    )
}

fn usage_sql(scope: Scope<'_>) -> String {
    format!(
        "SELECT kind, name, sum(count) FROM usage_counts WHERE 1{}
         GROUP BY kind, name ORDER BY 3 DESC, 1, 2",
        scope_clause(scope, "updated_at")
    )
}

/// The session and time conditions on a table other than hook_log, `?1` and `?2` as
/// `scope_params` binds them; no condition at all when the scope is everything.
fn scope_clause(scope: Scope<'_>, time_column: &str) -> String {
    let mut clause = String::new();
    let mut n = 0;
    if scope.session.is_some() {
        n += 1;
        let _ = write!(clause, " AND session_id = ?{n}");
    }
    if scope.since_ms.is_some() {
        n += 1;
        let _ = write!(clause, " AND {time_column} >= ?{n}");
    }
    clause
}

fn scope_params(scope: Scope<'_>) -> impl rusqlite::Params {
    let session = scope
        .session
        .map(|s| Box::new(s.to_string()) as Box<dyn ToSql>);
    let since = scope.since_ms.map(|s| Box::new(s) as Box<dyn ToSql>);
    params_from_iter(session.into_iter().chain(since))
}

fn copy_session(tx: &Transaction<'_>, session: &str, since: Option<i64>) -> StoreResult<()> {
    tx.execute_batch("DROP TABLE IF EXISTS temp.stats_session_log")?;
    tx.execute(
        "CREATE TEMP TABLE stats_session_log AS
         SELECT * FROM main.hook_log WHERE session_id = ?1 AND timestamp >= ?2",
        params![session, since.unwrap_or(i64::MIN)],
    )?;
    tx.execute_batch(
        "CREATE INDEX temp.stats_session_log_order
         ON stats_session_log(event_type, hook_name, duration_ms, timestamp)",
    )?;
    Ok(())
}

/// The duration of rank `rank` (1-based, ascending) among a group's timed runs, given its
/// runs per fine bucket: an OFFSET inside the one bucket that holds it, from whichever end
/// is nearer. The index range is taken a hair wide and the bucket matched exactly, so the
/// walk counts the very rows the bucket counted.
fn duration_at_rank(
    tx: &Transaction<'_>,
    source: Source,
    since: Option<i64>,
    event: &str,
    hook: &str,
    fine: &[(i64, i64)],
    rank: i64,
) -> StoreResult<f64> {
    let mut below = 0;
    let (mut bucket, mut in_bucket) = fine[fine.len() - 1];
    for &(b, n) in fine {
        if below + n >= rank {
            (bucket, in_bucket) = (b, n);
            break;
        }
        below += n;
    }
    let from_bottom = rank - below - 1;
    let from_top = in_bucket - 1 - from_bottom;
    let (order, offset) = if from_bottom <= from_top {
        ("ASC", from_bottom)
    } else {
        ("DESC", from_top)
    };
    let mut stmt = tx.prepare_cached(&rank_sql(source.table(), since.is_some(), order))?;
    let (from, to) = fine_bucket_range(bucket);
    let slack = |x: f64| x.abs() * 1e-9 + 1e-9;
    Ok(stmt.query_row(
        params![
            event,
            hook,
            from - slack(from),
            to + slack(to),
            bucket,
            since.unwrap_or(i64::MIN),
            offset
        ],
        |r| r.get(0),
    )?)
}

/// Runs per (event, hook, result) for every result but none: the partial outcome index.
fn outcomes(
    tx: &Transaction<'_>,
    source: Source,
    since: Option<i64>,
) -> StoreResult<Vec<(String, String, String, i64)>> {
    let mut stmt = tx.prepare(&outcomes_sql(source.table(), since.is_some()))?;
    let rows = stmt.query_map(params_from_iter(since), |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

fn counted(
    stmt: &mut rusqlite::Statement<'_>,
    since: Option<i64>,
) -> StoreResult<BTreeMap<String, i64>> {
    let rows = stmt.query_map(params_from_iter(since), |r| {
        Ok((r.get::<_, Option<String>>(0)?, r.get::<_, i64>(1)?))
    })?;
    let mut out = BTreeMap::new();
    for row in rows {
        let (key, n) = row?;
        // Runs that failed before knowing (no detail) are counted among the errors.
        if let Some(key) = key {
            out.insert(key, n);
        }
    }
    Ok(out)
}

fn counts_by(
    tx: &Transaction<'_>,
    source: Source,
    column: &str,
    since: Option<i64>,
) -> StoreResult<BTreeMap<String, i64>> {
    let mut stmt = tx.prepare(&counts_by_sql(source.table(), column, since.is_some()))?;
    counted(&mut stmt, since)
}

fn context_injected(
    tx: &Transaction<'_>,
    source: Source,
    since: Option<i64>,
) -> StoreResult<ContextInjected> {
    let mut stmt = tx.prepare(&context_sql(source.table(), since.is_some()))?;
    let rows = stmt.query_map(params_from_iter(since), |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, i64>(3)?,
            r.get::<_, i64>(4)?,
        ))
    })?;
    let mut out = ContextInjected::default();
    let mut sized = 0;
    for row in rows {
        let (event, count, with_size, chars, max) = row?;
        out.count += count;
        sized += with_size;
        out.total_chars += chars;
        out.max_chars = out.max_chars.max(max);
        out.by_event.insert(event, count);
    }
    if sized > 0 {
        // A rounded mean of character counts lies between 0 and the largest count.
        #[allow(clippy::cast_possible_truncation)]
        let mean = (out.total_chars as f64 / sized as f64).round() as i64;
        out.mean_chars = mean;
    }
    Ok(out)
}

/// The most frequent rules and guards ([`TOP_RULES`] of each), most hits first.
pub fn rules_fired(
    tx: &Transaction<'_>,
    scope: Scope<'_>,
) -> StoreResult<(Vec<RuleFired>, Vec<RuleFired>)> {
    let (mut rules, mut guards) = rule_counts(tx, scope)?;
    for list in [&mut rules, &mut guards] {
        list.truncate(TOP_RULES);
    }
    Ok((rules, guards))
}

/// Every rule and guard that fired, most hits first, with what nagger answered.
pub fn rule_counts(
    tx: &Transaction<'_>,
    scope: Scope<'_>,
) -> StoreResult<(Vec<RuleFired>, Vec<RuleFired>)> {
    let mut stmt = tx.prepare(&rules_sql(scope))?;
    let rows = stmt.query_map(scope_params(scope), |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, i64>(3)?,
        ))
    })?;
    let mut by_rule: BTreeMap<(String, String), RuleFired> = BTreeMap::new();
    for row in rows {
        let (kind, rule, decision, n) = row?;
        let fired = by_rule
            .entry((kind.clone(), rule.clone()))
            .or_insert_with(|| RuleFired {
                kind,
                rule,
                ..RuleFired::default()
            });
        fired.hits += n;
        *fired.decisions.entry(decision).or_default() += n;
    }
    let (mut guards, mut rules): (Vec<_>, Vec<_>) = by_rule
        .into_values()
        .partition(|r| r.kind == RuleKind::Guard.as_str());
    for list in [&mut rules, &mut guards] {
        // Stable: ties keep the (kind, rule) order of the map.
        list.sort_by_key(|r| std::cmp::Reverse(r.hits));
    }
    Ok((rules, guards))
}

/// Tool, skill and subagent-type uses. Counts are kept per session, so `since` keeps the
/// sessions' counters touched in the window, whole.
/// Agents per final role source, and the guessed roles corrected, over the Registry
/// and the history of finished agents.
fn agent_roles(
    tx: &Transaction<'_>,
    scope: Scope<'_>,
) -> StoreResult<(BTreeMap<String, i64>, i64)> {
    let mut stmt = tx.prepare(&agent_roles_sql(scope))?;
    let rows = stmt.query_map(scope_params(scope), |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, i64>(2)?,
        ))
    })?;
    let mut by_source = BTreeMap::new();
    let mut corrected = 0;
    for row in rows {
        let (source, agents, fixed) = row?;
        by_source.insert(source, agents);
        corrected += fixed;
    }
    Ok((by_source, corrected))
}

fn agent_roles_sql(scope: Scope<'_>) -> String {
    format!(
        "SELECT coalesce(role_source, 'unresolved'), count(*), coalesce(sum(role_corrected), 0)
         FROM (SELECT role_source, role_corrected FROM subagents WHERE 1{}
               UNION ALL
               SELECT role_source, role_corrected FROM subagent_history WHERE 1{})
         GROUP BY 1",
        scope_clause(scope, "created_at"),
        scope_clause(scope, "started_at")
    )
}

fn usage(tx: &Transaction<'_>, scope: Scope<'_>) -> StoreResult<Vec<UsageCount>> {
    let mut stmt = tx.prepare(&usage_sql(scope))?;
    let rows = stmt.query_map(scope_params(scope), |r| {
        Ok(UsageCount {
            kind: r.get(0)?,
            name: r.get(1)?,
            count: r.get(2)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Runs hook_log_rollup counts and runs hook_log holds, when they differ (a rollup out of
/// step with the log, as after rows written by hand: `rebuild_rollup` repairs it).
pub fn rollup_drift(conn: &Connection) -> StoreResult<Option<(i64, i64)>> {
    let (rolled, logged): (i64, i64) = conn.query_row(
        "SELECT (SELECT coalesce(sum(runs), 0) FROM hook_log_rollup), (SELECT count(*) FROM hook_log)",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok((rolled != logged).then_some((rolled, logged)))
}

/// Recounts hook_log_rollup from hook_log, in one IMMEDIATE transaction.
pub fn rebuild_rollup(conn: &Connection) -> StoreResult<()> {
    let tx = immediate(conn)?;
    tx.execute_batch(&format!(
        "DELETE FROM hook_log_rollup;
         INSERT INTO hook_log_rollup (event_type, hook_name, day, bucket, runs)
         SELECT event_type, hook_name, timestamp / 86400000, {}, count(*) FROM hook_log
         GROUP BY 1, 2, 3, 4;",
        fine_bucket_sql("duration_ms")
    ))?;
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests;
