//! The Registry and the 2-phase Claim under contention: Phase 1 (register an agent
//! and match it to its spawn, one IMMEDIATE transaction) and Phase 2 (claim the
//! oldest unprocessed agent) with 1, 4 and 16 threads, each on its own connection as
//! separate hook processes would be, and once through the r2d2 pool for comparison.
//! Reported times are wall time per operation with all threads running: the inverse
//! of the throughput the single SQLite write lock allows.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nagger::store::{NaggerStateDB, SpawnRow, SubagentRepository, TranscriptCursorRow};
use rusqlite::Connection;

const THREADS: [usize; 3] = [1, 4, 16];
/// The pool variant: 16 threads sharing this many pooled connections.
const POOL_SIZE: u32 = 4;

/// A fresh session id for every measurement, so no run sees another's rows.
fn next_session() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    format!("bench-{}", N.fetch_add(1, Ordering::Relaxed))
}

/// Stores `n` coder spawns for `session`, as a SubagentStart's transcript scan would.
fn seed_spawns(db: &NaggerStateDB, session: &str, n: u64) {
    let spawns: Vec<SpawnRow> = (0..n)
        .map(|i| SpawnRow {
            transcript_index: i as i64,
            tool_use_id: format!("toolu_{i}"),
            subagent_type: Some("coder".into()),
            role: Some("coder".into()),
            prompt_hash: None,
            description: None,
        })
        .collect();
    db.subagents()
        .register_task_spawns(
            session,
            &format!("/transcripts/{session}.jsonl"),
            &spawns,
            &[],
            &TranscriptCursorRow {
                byte_offset: 0,
                line_count: n,
                fingerprint: String::new(),
            },
            false,
        )
        .expect("seed spawns");
}

/// Registers `n` agents not yet claimed, in one transaction (setup, not measured).
fn register_unprocessed(db: &NaggerStateDB, session: &str, n: u64) {
    let tx = nagger::store::immediate(db.conn()).expect("begin");
    {
        let mut insert = tx
            .prepare(
                "INSERT INTO subagents (agent_id, session_id, agent_type, role, role_source,
                                        created_at, registered_by)
                 VALUES (?1, ?2, 'coder', 'coder', 'agent_type', ?3, 'subagent_start')",
            )
            .expect("prepare");
        for i in 0..n {
            insert
                .execute(rusqlite::params![format!("pre-{i}"), session, i as i64])
                .expect("insert agent");
        }
    }
    tx.commit().expect("commit");
}

fn register(conn: &Connection, session: &str, agent_id: &str) {
    SubagentRepository::new(conn)
        .register_and_match(agent_id, session, "coder", "subagent_start", Some("coder"))
        .expect("register_and_match");
}

fn claim(conn: &Connection, session: &str) {
    SubagentRepository::new(conn)
        .claim_next_unprocessed(session)
        .expect("claim_next_unprocessed")
        .expect("an agent is left to claim");
}

/// How the threads reach the database.
#[derive(Clone, Copy)]
enum Access {
    /// Every thread opens its own `NaggerStateDB` (like one hook process each).
    OwnConnection,
    /// Threads borrow from one `NaggerStateDB::pool` for every operation.
    Pool,
}

#[derive(Clone, Copy)]
enum Phase {
    RegisterAndMatch,
    Claim,
}

/// Runs `iters` operations of `phase` spread over `threads` threads and returns the
/// wall time from the common start to the last thread's end. Setup (spawns, agents to
/// claim, connections) and cleanup are not timed.
fn measure(
    path: &Path,
    pool: &r2d2::Pool<r2d2_sqlite::SqliteConnectionManager>,
    access: Access,
    phase: Phase,
    threads: usize,
    iters: u64,
) -> Duration {
    let session = next_session();
    let setup = NaggerStateDB::open(path).expect("open");
    let per_thread = iters.div_ceil(threads as u64);
    let total = per_thread * threads as u64;
    seed_spawns(&setup, &session, total);
    if let Phase::Claim = phase {
        register_unprocessed(&setup, &session, total);
    }
    let barrier = Arc::new(Barrier::new(threads + 1));
    let elapsed = std::thread::scope(|s| {
        for t in 0..threads {
            let barrier = barrier.clone();
            let session = session.as_str();
            s.spawn(move || {
                let own = match access {
                    Access::OwnConnection => Some(NaggerStateDB::open(path).expect("open")),
                    Access::Pool => None,
                };
                barrier.wait();
                for i in 0..per_thread {
                    let pooled;
                    let conn = match &own {
                        Some(db) => db.conn(),
                        None => {
                            pooled = pool.get().expect("pooled connection");
                            &*pooled
                        }
                    };
                    match phase {
                        Phase::RegisterAndMatch => register(conn, session, &format!("t{t}-{i}")),
                        Phase::Claim => claim(conn, session),
                    }
                }
                barrier.wait();
            });
        }
        barrier.wait();
        let start = Instant::now();
        barrier.wait();
        start.elapsed()
    });
    setup
        .subagents()
        .cleanup_session(&session)
        .expect("cleanup");
    // Criterion divides by `iters`; scale for the few operations rounding added.
    elapsed.mul_f64(iters as f64 / total as f64)
}

fn bench_claim(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(".claude-nagger/state.db");
    let pool = NaggerStateDB::pool(&path, POOL_SIZE).expect("pool");
    for (name, phase) in [
        ("register_and_match", Phase::RegisterAndMatch),
        ("claim_next_unprocessed", Phase::Claim),
    ] {
        let mut group = c.benchmark_group(name);
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        for threads in THREADS {
            group.bench_with_input(
                BenchmarkId::new("own_connection", threads),
                &threads,
                |b, &threads| {
                    b.iter_custom(|iters| {
                        measure(&path, &pool, Access::OwnConnection, phase, threads, iters)
                    })
                },
            );
        }
        let threads = 16;
        group.bench_with_input(
            BenchmarkId::new(format!("pool_of_{POOL_SIZE}"), threads),
            &threads,
            |b, &threads| {
                b.iter_custom(|iters| measure(&path, &pool, Access::Pool, phase, threads, iters))
            },
        );
        group.finish();
    }
}

criterion_group!(benches, bench_claim);
criterion_main!(benches);
