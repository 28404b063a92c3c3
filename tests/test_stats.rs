//! `nagger stats` against a hook_log the test writes itself: every figure is recomputed
//! here from the rows, independently of nagger's SQL (percentiles by sorting), and must
//! equal what `nagger stats --json` prints; also after real hook runs.

use crate::common::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;

const HOUR_MS: i64 = 3_600_000;

/// One hook_log row as the test writes it.
#[derive(Clone)]
struct Row {
    session: &'static str,
    event: &'static str,
    hook: &'static str,
    at: i64,
    result: &'static str,
    details: Option<Value>,
    duration: Option<f64>,
}

/// A log with every kind of row stats reads: all decisions and errors, durations across
/// the buckets (their edges included) and missing ones, role sources, first calls, context
/// sizes (`context_chars` preferred to `output_chars`), two sessions, and rows from three
/// days ago that `--since 1d` leaves out.
fn known_log(now: i64) -> Vec<Row> {
    let mut rng = Rng(0x5eed_1234_abcd);
    let mut rows = Vec::new();
    let edges = [
        0.05, 0.99, 1.0, 2.0, 4.99, 5.0, 10.0, 20.0, 50.0, 100.0, 500.0, 750.25,
    ];
    for i in 0..600u64 {
        let session = if i % 3 == 0 { "sess-b" } else { "sess-a" };
        let at = if i % 5 == 0 {
            now - 72 * HOUR_MS - i64::try_from(i).unwrap()
        } else {
            now - 60_000 - i64::try_from(i).unwrap()
        };
        let duration = if i % 41 == 0 {
            None
        } else if i % 17 == 0 {
            Some(edges[(i / 17) as usize % edges.len()])
        } else {
            Some((rng.below(4000) + 20) as f64 / 1000.0 + (rng.below(3) * rng.below(9)) as f64)
        };
        let kind = rng.below(100);
        let (event, hook, result, details) = match kind {
            0..=44 => {
                let result = match rng.below(20) {
                    0 | 1 => "deny",
                    2 => "ask",
                    3 => "context",
                    4 => "allow",
                    5 if i % 2 == 0 => "error",
                    _ => "none",
                };
                let details = match rng.below(4) {
                    0 => json!({"caller": "main", "output_chars": rng.below(900)}),
                    1 => json!({"caller": "claim", "first_call": true, "role": "coder",
                                "role_source": "task_match", "output_chars": rng.below(900)}),
                    2 => json!({"caller": "direct", "first_call": rng.below(2) == 0,
                                "role": "tester", "role_source": "exact_link"}),
                    _ => json!({"caller": "direct", "first_call": false,
                                "context_chars": rng.below(2000), "output_chars": 5}),
                };
                ("PreToolUse", "pre_tool_use", result, Some(details))
            }
            45..=84 => (
                "PostToolUse",
                "post_tool_use",
                if rng.below(30) == 0 { "error" } else { "none" },
                Some(json!({"tool": "Bash"})),
            ),
            85..=91 => {
                let source =
                    ["exact_link", "task_match", "agent_type", "unresolved"][rng.between(0, 4)];
                let result = if rng.below(3) == 0 { "context" } else { "none" };
                let details = if rng.below(10) == 0 {
                    json!({"error": "boom"})
                } else {
                    json!({"agent_type": "coder", "role_source": source,
                           "output_chars": rng.below(3000), "context_chars": rng.below(2500)})
                };
                ("SubagentStart", "subagent", result, Some(details))
            }
            92..=96 => (
                "SubagentStop",
                "subagent",
                if rng.below(3) == 0 { "block" } else { "none" },
                Some(json!({"agent_type": "coder"})),
            ),
            _ => (
                "SessionStart",
                "session",
                if rng.below(2) == 0 { "context" } else { "none" },
                None,
            ),
        };
        rows.push(Row {
            session,
            event,
            hook,
            at,
            result,
            details,
            duration,
        });
    }
    rows
}

fn write_log(p: &Project, rows: &[Row], now: i64) {
    // The schema comes from nagger itself; the rows from the test.
    drop(nagger::storage::store::NaggerStateDB::open(&p.db_path()).expect("create db"));
    let c = p.db();
    let tx = c.unchecked_transaction().expect("begin");
    let log = nagger::storage::store::HookLogRepository::new(&tx);
    for r in rows {
        log.log(&nagger::storage::store::NewHookLog {
            session_id: r.session,
            hook_name: r.hook,
            event_type: r.event,
            agent_id: None,
            result: r.result,
            details: r.details.as_ref(),
            duration_ms: r.duration,
            timestamp: Some(r.at),
        })
        .expect("log a run");
    }
    for (i, (kind, rule, decision)) in [
        ("guard", "rm-rf-root", "deny"),
        ("file", "views", "deny"),
        ("file", "views", "warn"),
        ("command", "push", "ask"),
        ("guard", "force-push", "deny"),
        ("tool", "tickets", "deny"),
    ]
    .iter()
    .enumerate()
    {
        for n in 0..=(i % 3) {
            let at = if n == 2 {
                now - 72 * HOUR_MS
            } else {
                now - 1000
            };
            let session = if n == 1 { "sess-b" } else { "sess-a" };
            tx.execute(
                "INSERT INTO rule_hits (session_id, rule_name, rule_kind, severity, decision, created_at)
                 VALUES (?1, ?2, ?3, 'deny', ?4, ?5)",
                rusqlite::params![session, rule, kind, decision, at],
            )
            .expect("insert rule hit");
        }
    }
    for (session, kind, name, count, at) in [
        ("sess-a", "tool", "Bash", 7, now - 1000),
        ("sess-b", "tool", "Bash", 3, now - 1000),
        ("sess-a", "tool", "Read", 9, now - 72 * HOUR_MS),
        ("sess-b", "subagent_type", "coder", 2, now - 1000),
    ] {
        tx.execute(
            "INSERT INTO usage_counts (session_id, kind, name, count, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![session, kind, name, count, at],
        )
        .expect("insert usage");
    }
    tx.commit().expect("commit");
}

/// Nearest rank over the sorted durations: the smallest value with at least p‰ of them
/// at or below it.
fn nearest_rank(sorted: &[f64], permille: usize) -> Value {
    if sorted.is_empty() {
        return Value::Null;
    }
    let rank = (permille * sorted.len()).div_ceil(1000).max(1);
    json!(sorted[rank - 1])
}

fn detail<'a>(r: &'a Row, key: &str) -> Option<&'a Value> {
    r.details.as_ref().and_then(|d| d.get(key))
}

/// What `nagger stats --json` must say about `rows` (already filtered to the scope).
fn expected(rows: &[Row]) -> Value {
    let mut groups: BTreeMap<(&str, &str), Vec<&Row>> = BTreeMap::new();
    for r in rows {
        groups.entry((r.event, r.hook)).or_default().push(r);
    }
    let mut hooks = Vec::new();
    let mut totals: BTreeMap<String, i64> = ["deny", "ask", "block", "context", "none"]
        .iter()
        .map(|d| (d.to_string(), 0))
        .collect();
    let (mut runs, mut errors) = (0, 0);
    for ((event, hook), rs) in &groups {
        let mut decisions: BTreeMap<String, i64> = ["deny", "ask", "block", "context", "none"]
            .iter()
            .map(|d| (d.to_string(), 0))
            .collect();
        let mut group_errors = 0;
        for r in rs {
            if r.result == "error" {
                group_errors += 1;
            } else {
                *decisions.entry(r.result.to_string()).or_default() += 1;
            }
        }
        let mut durations: Vec<f64> = rs.iter().filter_map(|r| r.duration).collect();
        durations.sort_by(f64::total_cmp);
        for (d, n) in &decisions {
            *totals.entry(d.clone()).or_default() += n;
        }
        runs += i64::try_from(rs.len()).unwrap();
        errors += group_errors;
        hooks.push(json!({
            "event": event, "hook": hook, "runs": rs.len(), "errors": group_errors,
            "decisions": decisions,
            "duration_ms": {
                "timed": durations.len(),
                "p50": nearest_rank(&durations, 500),
                "p95": nearest_rank(&durations, 950),
                "p99": nearest_rank(&durations, 990),
                "max": nearest_rank(&durations, 1000),
            }
        }));
    }
    let bounds = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 500.0];
    let histogram: Vec<Value> = (0..=bounds.len())
        .map(|i| {
            let from = if i == 0 {
                f64::NEG_INFINITY
            } else {
                bounds[i - 1]
            };
            let to = bounds.get(i).copied().unwrap_or(f64::INFINITY);
            let n = rows
                .iter()
                .filter_map(|r| r.duration)
                .filter(|d| from <= *d && *d < to)
                .count();
            json!({"from_ms": if i == 0 { 0.0 } else { from }, "to_ms": bounds.get(i), "runs": n})
        })
        .collect();
    let mut by_source: BTreeMap<String, i64> = BTreeMap::new();
    let mut by_caller: BTreeMap<String, i64> = BTreeMap::new();
    let (mut count, mut total, mut max, mut sized) = (0i64, 0i64, 0i64, 0i64);
    let mut context_by_event: BTreeMap<String, i64> = BTreeMap::new();
    for r in rows {
        if r.event == "SubagentStart"
            && let Some(s) = detail(r, "role_source").and_then(Value::as_str)
        {
            *by_source.entry(s.to_string()).or_default() += 1;
        }
        if detail(r, "first_call") == Some(&json!(true)) {
            let caller = detail(r, "caller").and_then(Value::as_str).unwrap_or("?");
            *by_caller.entry(caller.to_string()).or_default() += 1;
        }
        if r.result == "context" {
            count += 1;
            *context_by_event.entry(r.event.to_string()).or_default() += 1;
            let chars = detail(r, "context_chars")
                .or_else(|| detail(r, "output_chars"))
                .and_then(Value::as_i64);
            if let Some(c) = chars {
                sized += 1;
                total += c;
                max = max.max(c);
            }
        }
    }
    // A rounded mean of character counts lies between 0 and the largest count.
    #[allow(clippy::cast_possible_truncation)]
    let mean = if sized == 0 {
        0
    } else {
        (total as f64 / sized as f64).round() as i64
    };
    json!({
        "totals": {"runs": runs, "errors": errors, "decisions": totals},
        "hooks": hooks,
        "histogram": histogram,
        "roles": {"by_source": by_source, "by_caller": by_caller},
        "claims": by_caller.get("claim").copied().unwrap_or(0),
        "compressions_enforced": rows.iter().filter(|r| r.event == "SubagentStop" && r.result == "block").count(),
        "context": {"count": count, "total_chars": total, "mean_chars": mean, "max_chars": max, "by_event": context_by_event},
    })
}

fn stats_json(p: &Project, args: &[&str]) -> Value {
    let mut all = vec!["stats", "--json"];
    all.extend(args);
    let out = p.run(&all);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    serde_json::from_str(&out.stdout).expect("stats --json prints one JSON object")
}

fn assert_figures(actual: &Value, expected: &Value) {
    // Roles counted from hook_log; final_by_source and corrected come from the
    // Registry and history, which these logs written by hand do not fill.
    for key in ["by_source", "by_caller"] {
        assert_eq!(actual["roles"][key], expected["roles"][key], "roles.{key}");
    }
    assert_eq!(actual["roles"]["final_by_source"], json!({}));
    assert_eq!(actual["roles"]["corrected"], 0);
    for key in [
        "totals",
        "hooks",
        "histogram",
        "claims",
        "compressions_enforced",
        "context",
    ] {
        assert_eq!(
            actual[key], expected[key],
            "{key}:\nactual   {}\nexpected {}",
            actual[key], expected[key]
        );
    }
}

#[test]
fn stats_figures_equal_a_known_hook_log() {
    let p = Project::new();
    let now = chrono::Utc::now().timestamp_millis();
    let rows = known_log(now);
    write_log(&p, &rows, now);

    let all = stats_json(&p, &[]);
    assert_figures(&all, &expected(&rows));
    assert_eq!(all["totals"]["runs"], 600);
    assert_eq!(
        all["scope"],
        json!({"session": null, "since": null, "since_ms": null})
    );
    // Results nagger does not know yet still get their own column.
    assert!(all["totals"]["decisions"]["allow"].as_i64().unwrap() > 0);

    let rules = &all["rules"];
    assert_eq!(
        rules[0],
        json!({"kind": "file", "rule": "views", "hits": 5, "decisions": {"deny": 2, "warn": 3}})
    );
    assert_eq!(rules.as_array().unwrap().len(), 3);
    assert_eq!(
        all["guards"],
        json!([
            {"kind": "guard", "rule": "force-push", "hits": 2, "decisions": {"deny": 2}},
            {"kind": "guard", "rule": "rm-rf-root", "hits": 1, "decisions": {"deny": 1}},
        ])
    );
    assert_eq!(
        all["usage"],
        json!([
            {"kind": "tool", "name": "Bash", "count": 10},
            {"kind": "tool", "name": "Read", "count": 9},
            {"kind": "subagent_type", "name": "coder", "count": 2},
        ])
    );
}

#[test]
fn since_and_session_narrow_every_figure() {
    let p = Project::new();
    let now = chrono::Utc::now().timestamp_millis();
    let rows = known_log(now);
    write_log(&p, &rows, now);

    let recent: Vec<Row> = rows
        .iter()
        .filter(|r| r.at >= now - 24 * HOUR_MS)
        .cloned()
        .collect();
    let since = stats_json(&p, &["--since", "1d"]);
    assert_figures(&since, &expected(&recent));
    assert_eq!(since["scope"]["since"], "1d");
    assert_eq!(
        since["usage"],
        json!([
            {"kind": "tool", "name": "Bash", "count": 10},
            {"kind": "subagent_type", "name": "coder", "count": 2},
        ])
    );

    let session_b: Vec<Row> = rows
        .iter()
        .filter(|r| r.session == "sess-b")
        .cloned()
        .collect();
    let one = stats_json(&p, &["--session", "sess-b"]);
    assert_figures(&one, &expected(&session_b));
    let hits: i64 = one["rules"]
        .as_array()
        .unwrap()
        .iter()
        .chain(one["guards"].as_array().unwrap())
        .map(|r| r["hits"].as_i64().unwrap())
        .sum();
    assert_eq!(hits, 4, "the four sess-b rule hits");

    let both: Vec<Row> = session_b
        .into_iter()
        .filter(|r| r.at >= now - 24 * HOUR_MS)
        .collect();
    assert_figures(
        &stats_json(&p, &["--session", "sess-b", "--since", "24h"]),
        &expected(&both),
    );
}

#[test]
fn a_since_window_that_cuts_a_day_counts_exactly() {
    // Rows every 20 minutes over three days: whatever the time of day, `--since 30h` starts
    // inside a day, whose rows are counted one by one and the rest from the rollup.
    let p = Project::new();
    let now = chrono::Utc::now().timestamp_millis();
    let rows: Vec<Row> = (0..216)
        .map(|i| Row {
            session: "sess-a",
            event: "PreToolUse",
            hook: "pre_tool_use",
            at: now - i * 20 * 60_000 - 1,
            result: if i % 4 == 0 { "deny" } else { "none" },
            details: None,
            duration: Some((i % 37) as f64 / 4.0),
        })
        .collect();
    write_log(&p, &rows, now);
    let cutoff = now - 30 * HOUR_MS;
    let within: Vec<Row> = rows.iter().filter(|r| r.at >= cutoff).cloned().collect();
    let got = stats_json(&p, &["--since", "30h"]);
    // `since_ms` is taken a little after `now`: only rows exactly at the edge could differ,
    // and none is within a second of it.
    assert!(within.iter().all(|r| (r.at - cutoff).abs() > 1000));
    assert_figures(&got, &expected(&within));
}

#[test]
fn stats_follow_actual_hook_runs() {
    let p = Project::with_config("[roles.coder]\ntext = \"CODER rules\"\n");
    p.hook(&p.session_start("startup"));
    p.append(&[
        spawn_line("toolu_a", "coder", "Fix the parser"),
        spawn_line("toolu_b", "coder", "Fix the lexer"),
    ]);
    p.hook(&p.subagent_start("ag-1", "coder"));
    p.hook(&p.subagent_start("ag-2", "coder"));
    // Legacy payloads: both first calls are claimed and denied with the conventions.
    for _ in 0..2 {
        let r = p.hook(&p.pre_tool_use("Read", json!({"file_path": "a.rs"})));
        assert_eq!(r.decision().as_deref(), Some("deny"));
    }
    p.hook(&p.post_tool_use("Read", json!({"file_path": "a.rs"})));
    p.hook(&p.post_tool_use("Bash", json!({"command": "ls"})));

    let s = stats_json(&p, &[]);
    assert_eq!(s["totals"]["runs"], 7);
    assert_eq!(s["roles"]["by_source"], json!({"task_match": 2}));
    assert_eq!(s["roles"]["by_caller"], json!({"claim": 2}));
    assert_eq!(s["claims"], 2);
    let pre = s["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["event"] == "PreToolUse")
        .expect("PreToolUse row");
    assert_eq!(pre["decisions"]["deny"], 2);
    assert_eq!(pre["duration_ms"]["timed"], 2);
    assert_eq!(
        s["usage"],
        json!([
            {"kind": "tool", "name": "Bash", "count": 1},
            {"kind": "tool", "name": "Read", "count": 1},
        ])
    );
    let logged_runs: i64 = p
        .db()
        .query_row("SELECT count(*) FROM hook_log", [], |r| r.get(0))
        .unwrap();
    assert_eq!(logged_runs, 7);
}

/// Block means one thing everywhere: a call refused by a block rule (once per session)
/// is a block in `check`, in hook_log, in `stats` (per hook and per rule) and in the
/// dashboard's figures, and a deny rule's refusal stays a deny.
#[test]
fn a_block_rule_is_counted_as_a_block_and_a_deny_rule_as_a_deny() {
    let p = Project::with_config(
        r#"[session]
enabled = false

[[rules.command]]
name = "no deploy"
patterns = ["make deploy*"]
severity = "block"
message = "Deploys go through CI."

[[rules.command]]
name = "no publish"
patterns = ["npm publish*"]
severity = "deny"
message = "Never publish from here."
"#,
    );
    let check = p.run(&["check", "--command", "make deploy", "--json"]);
    assert_eq!(check.code, 3, "{check:?}");
    let check: Value = serde_json::from_str(&check.stdout).expect("JSON");
    assert_eq!(check["matches"][0]["severity"], "block", "{check}");
    p.hook(&p.session_start("startup"));
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "make deploy"})));
    assert_eq!(
        r.decision().as_deref(),
        Some("deny"),
        "Claude Code is told deny"
    );
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "npm publish"})));
    assert_eq!(r.decision().as_deref(), Some("deny"));
    // Fired once per session: the second try passes, and counts as nothing.
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "make deploy"})));
    assert_eq!(r.decision(), None, "{r:?}");

    let s = stats_json(&p, &[]);
    let pre = s["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["event"] == "PreToolUse")
        .expect("PreToolUse row");
    assert_eq!(pre["decisions"]["block"], 1, "{pre}");
    assert_eq!(pre["decisions"]["deny"], 1, "{pre}");
    assert_eq!(s["totals"]["decisions"]["block"], 1);
    let rule = |name: &str| {
        s["rules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["rule"] == name)
            .unwrap_or_else(|| panic!("{name}: {s}"))
            .clone()
    };
    assert_eq!(rule("no deploy")["decisions"], json!({"block": 1}));
    assert_eq!(rule("no publish")["decisions"], json!({"deny": 1}));
    let human = p.run(&["stats"]).stdout;
    let row = human
        .lines()
        .find(|l| l.starts_with("PreToolUse"))
        .expect("a PreToolUse row");
    let cols: Vec<&str> = row.split_whitespace().collect();
    // EVENT HOOK RUNS DENY ASK BLOCK …
    assert_eq!((cols[3], cols[5]), ("1", "1"), "{human}");
}

#[test]
fn stats_without_a_database_say_so_and_create_none() {
    let p = Project::new();
    let out = p.run(&["stats"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("no database yet"), "{}", out.stdout);
    let empty = stats_json(&p, &[]);
    assert_eq!(empty["totals"]["runs"], 0);
    assert_eq!(empty["histogram"].as_array().unwrap().len(), 9);
    assert!(!p.db_path().exists());
}

#[test]
fn bad_since_is_refused_with_the_expected_form() {
    let p = Project::new();
    let out = p.run(&["stats", "--since", "7days"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("like 30m, 12h or 7d"), "{}", out.stderr);
}

#[test]
fn human_report_lays_out_tables_and_histogram() {
    let p = Project::new();
    let now = chrono::Utc::now().timestamp_millis();
    let row = |event, hook, result, duration, details: Option<Value>| Row {
        session: "sess-a",
        event,
        hook,
        at: now - 5000,
        result,
        details,
        duration,
    };
    let rows = vec![
        row(
            "PreToolUse",
            "pre_tool_use",
            "deny",
            Some(0.8),
            Some(json!({"caller": "claim", "first_call": true, "output_chars": 120})),
        ),
        row(
            "PreToolUse",
            "pre_tool_use",
            "none",
            Some(1.25),
            Some(json!({"caller": "main"})),
        ),
        row(
            "PreToolUse",
            "pre_tool_use",
            "context",
            Some(1.5),
            Some(json!({"caller": "direct", "first_call": true, "output_chars": 300})),
        ),
        row(
            "PreToolUse",
            "pre_tool_use",
            "error",
            Some(2.75),
            Some(json!({"error": "database is locked"})),
        ),
        row(
            "SubagentStart",
            "subagent",
            "none",
            Some(3.5),
            Some(json!({"role_source": "exact_link"})),
        ),
        row(
            "SubagentStart",
            "subagent",
            "context",
            Some(4.0),
            Some(json!({"role_source": "task_match", "context_chars": 900})),
        ),
        row("SubagentStop", "subagent", "block", Some(12.0), None),
        row("SessionStart", "session", "none", None, None),
    ];
    write_log(&p, &rows, now);
    let out = p.run(&["stats", "--session", "sess-a"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout);
}
