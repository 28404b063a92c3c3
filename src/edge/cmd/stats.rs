//! `nagger stats`: what the hooks did, from hook_log, rule_hits and usage_counts. The
//! figures are aggregated in SQLite (store::stats); this file only lays them out. The
//! `--json` shape is documented in docs/stats-json.md.

use super::common::{no_database, open_read_only};
use super::error::CommandResult;
use crate::base::num::to_usize;
use crate::base::output::Output;
use crate::base::paths::Env;
use crate::base::table::table;
use crate::edge::cli::StatsArgs;
use crate::storage::store::now_ms;
use crate::storage::store::stats::{DECISIONS, RuleFired, Scope, Stats};
use serde_json::{Map, Value, json};

/// Width of the longest histogram bar.
const BAR_WIDTH: usize = 40;

pub fn run(env: &Env, args: &StatsArgs, out: &mut Output) -> CommandResult {
    let since_ms = args.since.as_ref().map(|s| now_ms() - s.millis);
    let db = open_read_only(env)?;
    let stats = match &db {
        Some(db) => db.stats(Scope {
            session: args.session.as_deref(),
            since_ms,
        })?,
        None => Stats::empty(),
    };
    if let (Some(db), Some(session)) = (&db, &args.session)
        && stats.totals.runs == 0
        && !db.session_known(session)?
    {
        return Err(super::common::unknown_session(db, session));
    }
    if args.json {
        let mut report = Map::new();
        report.insert(
            "scope".into(),
            json!({
                "session": args.session,
                "since": args.since.as_ref().map(|s| s.text.clone()),
                "since_ms": since_ms,
            }),
        );
        if let Value::Object(fields) = serde_json::to_value(&stats).map_err(anyhow::Error::from)? {
            report.extend(fields);
        }
        return Ok(out.json(&report)?);
    }
    let scope = format!(
        "{}, {}",
        args.session
            .as_deref()
            .map_or("all sessions".to_string(), |s| format!("session {s}")),
        args.since
            .as_ref()
            .map_or("all time".to_string(), |s| format!("last {}", s.text))
    );
    if db.is_none() {
        return Ok(out.line(&format!("nagger stats ({scope}): {}", no_database(env)))?);
    }
    Ok(out.line(&render(&stats, &scope))?)
}

/// The human report: aligned tables and a duration histogram.
pub fn render(stats: &Stats, scope: &str) -> String {
    let plural = |n: i64| if n == 1 { "" } else { "s" };
    let mut out = vec![format!(
        "nagger stats ({scope}): {} run{}, {} error{}",
        stats.totals.runs,
        plural(stats.totals.runs),
        stats.totals.errors,
        plural(stats.totals.errors)
    )];
    if stats.hooks.is_empty() {
        out.push("no hook runs recorded".into());
    } else {
        out.push(String::new());
        out.push(hooks_table(stats));
        out.push(String::new());
        out.push("hook durations".into());
        out.push(histogram(stats));
    }

    out.push(String::new());
    let counts = |m: &std::collections::BTreeMap<String, i64>| {
        if m.is_empty() {
            "none".to_string()
        } else {
            m.iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    out.push("roles identified".into());
    out.push(format!(
        "  at SubagentStart (role source):  {}",
        counts(&stats.roles.by_source)
    ));
    out.push(format!(
        "  at first tool call (caller):     {}",
        counts(&stats.roles.by_caller)
    ));
    out.push(format!(
        "  in the end (role source):        {}",
        counts(&stats.roles.final_by_source)
    ));
    out.push(format!(
        "  guessed roles corrected:         {}",
        stats.roles.corrected
    ));
    out.push(format!("claims: {}", stats.claims));
    out.push(format!(
        "compressions enforced: {}",
        stats.compressions_enforced
    ));
    let c = &stats.context;
    out.push(if c.count == 0 {
        "context injected: none".to_string()
    } else {
        format!(
            "context injected: {} time{}, mean {} chars, max {} ({})",
            c.count,
            plural(c.count),
            c.mean_chars,
            c.max_chars,
            counts(&c.by_event)
        )
    });

    for (title, fired) in [("top rules", &stats.rules), ("top guards", &stats.guards)] {
        out.push(String::new());
        if fired.is_empty() {
            out.push(format!("{title}: none fired"));
        } else {
            out.push(title.to_string());
            out.push(rules_table(fired));
        }
    }

    out.push(String::new());
    if stats.usage.is_empty() {
        out.push("usage: none recorded".into());
    } else {
        out.push("usage".into());
        let rows: Vec<Vec<String>> = stats
            .usage
            .iter()
            .map(|u| vec![u.kind.clone(), u.name.clone(), u.count.to_string()])
            .collect();
        out.push(table(&["KIND", "NAME", "COUNT"], &rows));
    }
    out.join("\n")
}

/// Decision columns: the fixed ones, then any other result seen, then none.
fn decision_columns(stats: &Stats) -> Vec<String> {
    let mut columns: Vec<String> = DECISIONS
        .iter()
        .filter(|d| **d != "none")
        .map(ToString::to_string)
        .collect();
    for d in stats.totals.decisions.keys() {
        if !DECISIONS.contains(&d.as_str()) {
            columns.push(d.clone());
        }
    }
    columns.push("none".into());
    columns
}

fn hooks_table(stats: &Stats) -> String {
    let decisions = decision_columns(stats);
    let upper: Vec<String> = decisions.iter().map(|d| d.to_uppercase()).collect();
    let mut headers: Vec<&str> = vec!["EVENT", "HOOK", "RUNS"];
    headers.extend(upper.iter().map(String::as_str));
    headers.extend(["ERRORS", "P50 MS", "P95 MS", "P99 MS", "MAX MS"]);
    let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
    let mut rows: Vec<Vec<String>> = stats
        .hooks
        .iter()
        .map(|h| {
            let mut row = vec![h.event.clone(), h.hook.clone(), h.runs.to_string()];
            row.extend(
                decisions
                    .iter()
                    .map(|d| h.decisions.get(d).copied().unwrap_or(0).to_string()),
            );
            row.push(h.errors.to_string());
            let d = &h.duration_ms;
            row.extend([ms(d.p50), ms(d.p95), ms(d.p99), ms(d.max)]);
            row
        })
        .collect();
    let mut total = vec![
        "all".to_string(),
        String::new(),
        stats.totals.runs.to_string(),
    ];
    total.extend(decisions.iter().map(|d| {
        stats
            .totals
            .decisions
            .get(d)
            .copied()
            .unwrap_or(0)
            .to_string()
    }));
    total.push(stats.totals.errors.to_string());
    total.extend(std::iter::repeat_n("-".to_string(), 3));
    total.push(ms(stats
        .hooks
        .iter()
        .filter_map(|h| h.duration_ms.max)
        .reduce(f64::max)));
    rows.push(total);
    table(&headers, &rows)
}

fn histogram(stats: &Stats) -> String {
    let most = stats
        .histogram
        .iter()
        .map(|b| b.runs)
        .max()
        .unwrap_or(0)
        .max(1);
    let label = |from: f64, to: Option<f64>| match to {
        Some(to) if from == 0.0 => format!("<{to} ms"),
        Some(to) => format!("{from}-{to} ms"),
        None => format!(">={from} ms"),
    };
    let labels: Vec<String> = stats
        .histogram
        .iter()
        .map(|b| label(b.from_ms, b.to_ms))
        .collect();
    let width = labels.iter().map(String::len).max().unwrap_or(0);
    stats
        .histogram
        .iter()
        .zip(&labels)
        .map(|(b, l)| {
            // A bucket with runs always shows at least one block.
            let len = (to_usize(b.runs) * BAR_WIDTH).div_ceil(to_usize(most));
            format!("  {l:>width$}  {:<BAR_WIDTH$}  {}", "█".repeat(len), b.runs)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn rules_table(fired: &[RuleFired]) -> String {
    let rows: Vec<Vec<String>> = fired
        .iter()
        .map(|r| {
            vec![
                r.kind.clone(),
                r.rule.clone(),
                r.hits.to_string(),
                r.decisions
                    .iter()
                    .map(|(d, n)| format!("{d} {n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            ]
        })
        .collect();
    table(&["KIND", "RULE", "HITS", "DECISIONS"], &rows)
}
