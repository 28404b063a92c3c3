//! The Registry and the 2-phase Claim under contention: Phase 1 (register an agent
//! and match it to its spawn, one IMMEDIATE transaction) and Phase 2 (claim the
//! oldest unprocessed agent) with 1, 4 and 16 threads, each on its own connection as
//! separate hook processes would be.
//! Reported times are wall time per operation with all threads running: the inverse
//! of the throughput the single SQLite write lock allows.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nagger::storage::store::{NaggerStateDB, SpawnRow, TranscriptCursorRow};

const THREADS: [usize; 3] = [1, 4, 16];

/// A fresh session id for every measurement, so no run sees another's rows.
fn next_session() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    format!("bench-{}", N.fetch_add(1, Ordering::Relaxed))
}

/// Stores `n` coder spawns for `session`, as a SubagentStart's transcript scan would.
fn seed_spawns(db: &NaggerStateDB, session: &str, n: u64) {
    let spawns: Vec<SpawnRow> = (0..n)
        .map(|i| SpawnRow {
            transcript_index: i64::try_from(i).unwrap(),
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

/// Registers `n` agents not yet claimed (setup, not measured).
fn register_unprocessed(db: &NaggerStateDB, session: &str, n: u64) {
    let agents = db.subagents();
    for i in 0..n {
        agents
            .register(&format!("pre-{i}"), session, "coder", "subagent_start")
            .expect("register agent");
    }
}

fn register(db: &NaggerStateDB, session: &str, agent_id: &str) {
    db.subagents()
        .register_and_match(agent_id, session, "coder", "subagent_start", Some("coder"))
        .expect("register_and_match");
}

fn claim(db: &NaggerStateDB, session: &str) {
    db.subagents()
        .claim_next_unprocessed(session)
        .expect("claim_next_unprocessed")
        .expect("an agent is left to claim");
}

#[derive(Clone, Copy)]
enum Phase {
    RegisterAndMatch,
    Claim,
}

/// Runs `iters` operations of `phase` spread over `threads` threads and returns the
/// wall time from the common start to the last thread's end. Setup (spawns, agents to
/// claim, connections) and cleanup are not timed.
fn measure(path: &Path, phase: Phase, threads: usize, iters: u64) -> Duration {
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
                let db = NaggerStateDB::open(path).expect("open");
                barrier.wait();
                for i in 0..per_thread {
                    match phase {
                        Phase::RegisterAndMatch => register(&db, session, &format!("t{t}-{i}")),
                        Phase::Claim => claim(&db, session),
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
    drop(NaggerStateDB::open(&path).expect("create the database"));
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
                |b, &threads| b.iter_custom(|iters| measure(&path, phase, threads, iters)),
            );
        }
        group.finish();
    }
}

criterion_group!(benches, bench_claim);
criterion_main!(benches);
