use super::*;
use crate::storage::store::{NaggerStateDB, NewHookLog};

fn plan(conn: &Connection, sql: &str) -> String {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    // Parameters stay unbound: the plan does not depend on their values.
    let mut rows = stmt.raw_query();
    let mut steps = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        steps.push(row.get::<_, String>(3).unwrap());
    }
    steps.join("; ")
}

/// The queries over the whole log must stay on their indexes, with or without a time
/// bound: a plan that scans hook_log is what the 1M-row budget cannot afford.
#[test]
fn whole_log_queries_use_the_stats_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let db = NaggerStateDB::open(&dir.path().join("state.db")).unwrap();
    let c = db.conn();
    let t = Source::Log.table();
    for since in [false, true] {
        for (sql, index) in [
            (rank_sql(t, since, "ASC"), "idx_hook_log_stats"),
            (rank_sql(t, since, "DESC"), "idx_hook_log_stats"),
            (outcomes_sql(t, since), "idx_hook_log_outcomes"),
            (
                counts_by_sql(t, "role_source", since),
                "idx_hook_log_role_sources",
            ),
            (
                counts_by_sql(t, "caller", since),
                "idx_hook_log_first_calls",
            ),
            (context_sql(t, since), "idx_hook_log_context"),
            (rollup_sql(since), "hook_log_rollup"),
            (cut_day_sql(), "COVERING INDEX idx_hook_log_time"),
            (
                rules_sql(Scope {
                    session: None,
                    since_ms: since.then_some(0),
                }),
                "idx_rule_hits_stats",
            ),
        ] {
            let p = plan(c, &sql);
            assert!(p.contains(index), "{index} not used: {p}\n{sql}");
            assert!(
                !p.split("; ")
                    .any(|step| step.starts_with("SCAN main.hook_log") && !step.contains("INDEX")),
                "full scan: {p}"
            );
        }
    }
}

fn run<'a>(session: &'a str, event: &'static str, at: i64, duration: f64) -> NewHookLog<'a> {
    NewHookLog {
        session_id: session,
        hook_name: if event.starts_with('P') {
            "pre_tool_use"
        } else {
            "subagent"
        },
        event_type: event,
        result: "none",
        duration_ms: Some(duration),
        timestamp: Some(at),
        ..NewHookLog::default()
    }
}

fn recount(c: &Connection, table: &str) -> Vec<(String, String, i64, i64, i64)> {
    let sql = if table == "rollup" {
        "SELECT event_type, hook_name, day, bucket, runs FROM hook_log_rollup ORDER BY 1, 2, 3, 4"
            .to_string()
    } else {
        format!(
            "SELECT event_type, hook_name, timestamp / 86400000, {}, count(*) FROM hook_log
             GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
            fine_bucket_sql("duration_ms")
        )
    };
    let mut stmt = c.prepare(&sql).unwrap();
    stmt.query_map([], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    /// Invariant: after any logged runs and any purge, the rollup equals a recount.
    #[test]
    fn rollup_follows_logging_and_purging(
        runs in proptest::collection::vec(
            (0usize..3, 0i64..(5 * DAY_MS), 0.0f64..20_000.0),
            0..120,
        ),
        cutoffs in proptest::collection::vec(0i64..(6 * DAY_MS), 0..3),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let db = NaggerStateDB::open(&dir.path().join("state.db")).unwrap();
        let c = db.conn();
        let events = ["PreToolUse", "SubagentStart", "SubagentStop"];
        for (i, (event, at, duration)) in runs.iter().enumerate() {
            let session = format!("s{}", i % 3);
            db.hook_log().log(&run(&session, events[*event], *at, *duration)).unwrap();
        }
        proptest::prop_assert_eq!(recount(c, "rollup"), recount(c, "log"));
        for cutoff in cutoffs {
            let tx = crate::storage::store::db::immediate(c).unwrap();
            db.hook_log().delete_before(cutoff).unwrap();
            tx.commit().unwrap();
            proptest::prop_assert_eq!(recount(c, "rollup"), recount(c, "log"));
            proptest::prop_assert_eq!(rollup_drift(c).unwrap(), None);
        }
    }
}

/// A v1 database (rollup kept by triggers, details only in JSON) keeps its figures
/// through the v2 migration.
#[test]
fn v1_log_keeps_its_figures_through_the_v2_migration() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.db");
    {
        let mut c = Connection::open(&path).unwrap();
        crate::storage::store::db::migrations::runner()
            .set_target(refinery::Target::Version(1))
            .run(&mut c)
            .unwrap();
        c.execute_batch(
            r#"PRAGMA user_version = 1;
            INSERT INTO hook_log (session_id, hook_name, event_type, timestamp, result, details, duration_ms) VALUES
            ('s', 'subagent', 'SubagentStart', 1, 'context', '{"role_source":"exact_link","output_chars":120}', 2.5),
            ('s', 'pre_tool_use', 'PreToolUse', 2, 'none', '{"caller":"claim","first_call":true,"role_source":"task_match"}', 0.7),
            ('s', 'pre_tool_use', 'PreToolUse', 3, 'none', '{"caller":"direct","first_call":false}', 0.4),
            ('s', 'session', 'SessionStart', 4, 'context', '{not json', 1.0);"#,
        )
        .unwrap();
    }
    let db = NaggerStateDB::open(&path).unwrap();
    assert_eq!(db.report().migrated_from, Some(1));
    let c = db.conn();
    assert_eq!(rollup_drift(c).unwrap(), None);
    assert_eq!(recount(c, "rollup"), recount(c, "log"));
    let stats = collect(c, Scope::default()).unwrap();
    assert_eq!(stats.totals.runs, 4);
    assert_eq!(
        stats.roles.by_source,
        BTreeMap::from([("exact_link".to_string(), 1)])
    );
    assert_eq!(
        stats.roles.by_caller,
        BTreeMap::from([("claim".to_string(), 1)])
    );
    assert_eq!((stats.context.count, stats.context.total_chars), (2, 120));
}

#[test]
fn rows_written_by_hand_show_as_drift_and_rebuild_recounts_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = NaggerStateDB::open(&dir.path().join("state.db")).unwrap();
    let c = db.conn();
    for i in 0..50 {
        db.hook_log()
            .log(&run("s", "PreToolUse", i * 3_600_000, i as f64 / 3.0))
            .unwrap();
    }
    assert_eq!(rollup_drift(c).unwrap(), None);
    c.execute_batch(
        "INSERT INTO hook_log (session_id, hook_name, event_type, timestamp, result)
         VALUES ('s', 'session', 'SessionStart', 1, 'none');
         DELETE FROM hook_log_rollup WHERE day % 2 = 0;",
    )
    .unwrap();
    assert!(rollup_drift(c).unwrap().is_some());
    rebuild_rollup(c).unwrap();
    assert_eq!(recount(c, "rollup"), recount(c, "log"));
    assert_eq!(rollup_drift(c).unwrap(), None);
}

#[test]
fn fine_buckets_line_up_with_their_ranges_and_the_display_buckets() {
    let dir = tempfile::tempdir().unwrap();
    let db = NaggerStateDB::open(&dir.path().join("state.db")).unwrap();
    for d in [
        -3.0, 0.0, 0.05, 0.3, 0.99, 1.0, 1.05, 2.0, 4.99, 5.0, 9.99, 10.0, 19.5, 20.0, 99.9, 100.0,
        499.0, 500.0, 999.0, 1000.0, 9999.0, 10_000.0, 1e9,
    ] {
        let bucket: i64 = db
            .conn()
            .query_row(&format!("SELECT {}", fine_bucket_sql("?1")), [d], |r| {
                r.get(0)
            })
            .unwrap();
        let (from, to) = fine_bucket_range(bucket);
        assert!(
            from <= d && d < to,
            "{d} in bucket {bucket} = [{from}, {to})"
        );
        let shown = BUCKET_BOUNDS_MS.iter().filter(|b| **b <= d).count();
        assert_eq!(display_bucket(bucket), shown, "{d}");
    }
}

#[test]
fn malformed_details_neither_break_logging_nor_stats() {
    let dir = tempfile::tempdir().unwrap();
    let db = NaggerStateDB::open(&dir.path().join("state.db")).unwrap();
    db.conn()
        .execute(
            "INSERT INTO hook_log (session_id, hook_name, event_type, timestamp, result, details, duration_ms)
             VALUES ('s', 'subagent', 'SubagentStart', 1, 'context', '{not json', 1.5)",
            [],
        )
        .unwrap();
    rebuild_rollup(db.conn()).unwrap();
    let stats = collect(db.conn(), Scope::default()).unwrap();
    assert_eq!(stats.totals.runs, 1);
    assert_eq!(stats.context.count, 1);
    assert!(stats.roles.by_source.is_empty());
}

#[test]
fn the_hook_paths_bucket_is_the_sql_bucket_for_every_duration() {
    let dir = tempfile::tempdir().unwrap();
    let db = NaggerStateDB::open(&dir.path().join("state.db")).unwrap();
    let sql = format!("SELECT {}", fine_bucket_sql("?1"));
    let mut durations: Vec<Option<f64>> = vec![None, Some(f64::NAN), Some(-0.0), Some(-1e9)];
    // Every bucket edge and the values just around it, then a sweep of odd steps.
    for edge in [
        0.0, 0.1, 1.0, 9.9, 10.0, 11.0, 99.0, 100.0, 110.0, 999.0, 1000.0, 1100.0,
    ] {
        for delta in [-1e-9, 0.0, 1e-9] {
            durations.push(Some(edge + delta));
        }
    }
    durations.extend([9999.0, 9999.999, 10_000.0, 10_000.001, 1e12, f64::INFINITY].map(Some));
    let mut x = 0.0;
    while x < 12_000.0 {
        durations.push(Some(x));
        x += 0.0137 + x / 97.0;
    }
    for d in durations {
        let expected: i64 = db.conn().query_row(&sql, [d], |r| r.get(0)).unwrap();
        assert_eq!(fine_bucket(d), expected, "{d:?}");
    }
}
