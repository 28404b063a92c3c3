//! `nagger stats` over 1,000,000 hook_log rows (budget: median ≤ 200 ms): the aggregation
//! itself, the whole `nagger stats --json` process, a `--since` window and one session.
//! The log is generated in SQLite by one INSERT … SELECT over a recursive CTE, with the
//! event mix, results, details and durations the hook path writes.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use nagger::storage::store::stats::Scope;
use nagger::storage::store::{NaggerStateDB, now_ms};

const ROWS: i64 = 1_000_000;
const SESSIONS: i64 = 200;
const DAY_MS: i64 = 86_400_000;

/// Per 100 rows: 46 PreToolUse, 45 PostToolUse, 3 SubagentStart, 3 SubagentStop and one
/// each of SessionStart, SessionEnd and PreCompact, spread over the last 30 days. The stats
/// columns are filled from the details as the hook path fills them (StatColumns), and the
/// rollup is recounted at the end, as `nagger doctor --fix` would.
const GENERATE: &str = "
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $rows - 1),
r AS (SELECT i, i % 100 AS k, (i * 2654435761) % 4294967291 AS h FROM n)
INSERT INTO hook_log (session_id, hook_name, event_type, agent_id, timestamp, result, details, duration_ms)
SELECT
  'sess-' || (i * $sessions / $rows),
  CASE WHEN k < 46 THEN 'pre_tool_use' WHEN k < 91 THEN 'post_tool_use'
       WHEN k < 97 THEN 'subagent' ELSE 'session' END,
  CASE WHEN k < 46 THEN 'PreToolUse' WHEN k < 91 THEN 'PostToolUse' WHEN k < 94 THEN 'SubagentStart'
       WHEN k < 97 THEN 'SubagentStop' WHEN k = 97 THEN 'SessionStart' WHEN k = 98 THEN 'SessionEnd'
       ELSE 'PreCompact' END,
  CASE WHEN k % 3 = 0 THEN 'agent-' || (i / 40) END,
  $start + i * $span / $rows,
  CASE WHEN h % 1000 = 7 THEN 'error'
       WHEN k < 46 AND h % 20 = 0 THEN 'deny'
       WHEN k < 46 AND h % 50 = 1 THEN 'context'
       WHEN k < 46 AND h % 97 = 2 THEN 'ask'
       WHEN k BETWEEN 91 AND 93 AND h % 3 = 0 THEN 'context'
       WHEN k BETWEEN 94 AND 96 AND h % 4 = 0 THEN 'block'
       WHEN k = 97 AND h % 2 = 0 THEN 'context'
       ELSE 'none' END,
  CASE WHEN h % 1000 = 7 THEN json_object('error', 'database is locked')
       WHEN k < 46 AND h % 7 = 0 THEN json_object('caller', 'main', 'output_chars', h % 3000)
       WHEN k < 46 THEN json_object('caller', CASE WHEN h % 5 = 0 THEN 'claim' ELSE 'direct' END,
                                    'first_call', json(CASE WHEN h % 25 = 0 THEN 'true' ELSE 'false' END),
                                    'role', 'coder', 'role_source', 'task_match', 'agent_type', 'coder',
                                    'output_chars', h % 3000)
       WHEN k < 91 THEN json_object('tool', 'Bash')
       WHEN k < 94 THEN json_object('agent_type', 'coder', 'role', 'coder',
                                    'role_source', CASE h % 4 WHEN 0 THEN 'exact_link' WHEN 1 THEN 'task_match'
                                                   WHEN 2 THEN 'agent_type' ELSE 'unresolved' END,
                                    'spawn_id', h % 1000, 'new_spawns', 1, 'bytes_scanned', h % 10000,
                                    'output_chars', h % 4000)
       WHEN k < 97 THEN json_object('agent_type', 'coder', 'role', 'coder', 'duration_ms', h % 600000,
                                    'tokens', h % 90000, 'stop_hook_active', json('false'),
                                    'final_message_chars', h % 5000)
       ELSE json_object('source', 'startup', 'purged_rows', 0, 'output_chars', h % 500) END,
  0.3 + (h % 100000) / 40000.0
      + CASE WHEN h % 97 = 0 THEN (h % 400) / 10.0 ELSE 0 END
      + CASE WHEN h % 9973 = 0 THEN 500 ELSE 0 END
FROM r;

UPDATE hook_log SET
    role_source = CASE WHEN event_type = 'SubagentStart'
                       THEN json_extract(details, '$.role_source') END,
    caller = CASE WHEN json_extract(details, '$.first_call') = 1
                  THEN json_extract(details, '$.caller') END,
    context_chars = CASE WHEN result = 'context'
                         THEN coalesce(json_extract(details, '$.context_chars'),
                                       json_extract(details, '$.output_chars')) END;

WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999)
INSERT INTO rule_hits (session_id, rule_name, rule_kind, severity, decision, created_at)
SELECT 'sess-' || (i % 200), 'rule-' || (i % 37),
       CASE i % 4 WHEN 0 THEN 'file' WHEN 1 THEN 'command' WHEN 2 THEN 'tool' ELSE 'guard' END,
       'deny', CASE WHEN i % 3 = 0 THEN 'warn' ELSE 'deny' END, $start + i * 100000
FROM n;

WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1999)
INSERT INTO usage_counts (session_id, kind, name, count, updated_at)
SELECT 'sess-' || (i % 200), CASE WHEN i % 10 = 0 THEN 'subagent_type' ELSE 'tool' END,
       'name-' || (i / 200), i % 50 + 1, $start + i * 1000000
FROM n;
";

fn generate(path: &Path) {
    // Opened through nagger first: it creates and migrates the database.
    drop(NaggerStateDB::open(path).expect("open bench database"));
    let conn = rusqlite::Connection::open(path).expect("open bench database");
    // Only for the generation: the bench measures reads.
    conn.execute_batch("PRAGMA synchronous = OFF; PRAGMA cache_size = -1000000;")
        .expect("bulk pragmas");
    let span = 30 * DAY_MS;
    let start = now_ms() - span;
    let tx = conn.unchecked_transaction().expect("begin");
    for statement in GENERATE.split(";\n\n") {
        let mut stmt = tx.prepare(statement).expect("prepare generator");
        for (name, value) in [
            ("$rows", ROWS),
            ("$sessions", SESSIONS),
            ("$start", start),
            ("$span", span),
        ] {
            if let Some(i) = stmt.parameter_index(name).expect("parameter") {
                stmt.raw_bind_parameter(i, value).expect("bind");
            }
        }
        stmt.raw_execute().expect("generate rows");
    }
    tx.commit().expect("commit");
    nagger::storage::store::stats::rebuild_rollup(&conn).expect("count the rollup");
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .expect("checkpoint");
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM hook_log", [], |r| r.get(0))
        .expect("count");
    assert_eq!(rows, ROWS);
}

fn bench_stats(c: &mut Criterion) {
    // NAGGER_STATS_BENCH_DB keeps the generated database between runs (made if absent).
    let dir = tempfile::tempdir().expect("tempdir");
    let path = match std::env::var_os("NAGGER_STATS_BENCH_DB") {
        Some(kept) => PathBuf::from(kept),
        None => dir.path().join("state.db"),
    };
    if !path.exists() {
        generate(&path);
    }
    let db = NaggerStateDB::open(&path).expect("reopen");

    let mut group = c.benchmark_group("stats_1M_rows");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    group.bench_function("collect", |b| {
        b.iter(|| db.stats(black_box(Scope::default())).expect("stats"));
    });
    group.bench_function("nagger_stats_json_process", |b| {
        b.iter(|| {
            let out = Command::new(env!("CARGO_BIN_EXE_nagger"))
                .args(["stats", "--json", "--db"])
                .arg(&path)
                .output()
                .expect("run nagger stats");
            assert!(out.status.success(), "{out:?}");
            black_box(out.stdout)
        });
    });
    let week_ago = now_ms() - 7 * DAY_MS;
    group.bench_function("collect_since_7d", |b| {
        b.iter(|| {
            db.stats(black_box(Scope {
                session: None,
                since_ms: Some(week_ago),
            }))
            .expect("stats")
        });
    });
    group.bench_function("collect_one_session", |b| {
        b.iter(|| {
            db.stats(black_box(Scope {
                session: Some("sess-42"),
                since_ms: None,
            }))
            .expect("stats")
        });
    });
    group.finish();
}

criterion_group!(benches, bench_stats);
criterion_main!(benches);
