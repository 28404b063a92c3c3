//! Correct under concurrency: many hook processes at once on a fresh database,
//! and the Claim proven exactly-once with real parallel claimers (threads and
//! processes) under proptest-chosen interleavings.

use crate::common::*;
use nagger::storage::store::NaggerStateDB;
use proptest::prelude::*;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::{Arc, Barrier};

#[test]
fn sixteen_hook_processes_on_a_fresh_project_all_succeed_twenty_rounds() {
    for round in 0..20 {
        let p = Project::with_config("[roles.default]\ntext = \"conventions\"\n");
        p.append(&[
            spawn_line("toolu_a", "coder", "x"),
            spawn_line("toolu_b", "coder", "y"),
        ]);
        let inputs: Vec<serde_json::Value> = (0..16)
            .map(|i| match i % 4 {
                0 => p.session_start("startup"),
                1 => p.subagent_start(&format!("ag-{i}"), "coder"),
                2 => p.pre_tool_use("Read", json!({"file_path": "a"})),
                _ => p.pre_tool_use_as(
                    &format!("ag-m{i}"),
                    "coder",
                    "Bash",
                    json!({"command": "ls"}),
                ),
            })
            .collect();
        let children: Vec<_> = inputs.iter().map(|i| p.spawn_hook(i)).collect();
        for (i, r) in children.into_iter().map(finish).enumerate() {
            assert_eq!(r.code, 0, "round {round} process {i}");
            assert_eq!(r.stderr, "", "round {round} process {i}");
        }
        let c = p.db();
        let integrity: String = c
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        let mode: String = c
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        let logged: i64 = c
            .query_row("SELECT count(*) FROM hook_log", [], |r| r.get(0))
            .unwrap();
        assert_eq!(
            (integrity.as_str(), mode.as_str(), logged),
            ("ok", "wal", 16),
            "round {round}"
        );
    }
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Register,
    Claim,
}

fn ops_strategy() -> impl Strategy<Value = (Vec<Vec<Op>>, usize)> {
    (0usize..=16, 0usize..=16, 2usize..=8, 0usize..=20).prop_flat_map(
        |(regs, claims, threads, spawns)| {
            let mut ops = vec![Op::Register; regs];
            ops.extend(std::iter::repeat_n(Op::Claim, claims));
            (Just(ops).prop_shuffle(), Just(threads), Just(spawns)).prop_map(
                |(ops, threads, spawns)| {
                    let mut per_thread = vec![Vec::new(); threads];
                    for (i, op) in ops.into_iter().enumerate() {
                        per_thread[i % threads].push(op);
                    }
                    (per_thread, spawns)
                },
            )
        },
    )
}

fn seed_spawns(db: &NaggerStateDB, n: usize) {
    let spawns: Vec<nagger::storage::store::SpawnRow> = (0..n)
        .map(|i| nagger::storage::store::SpawnRow {
            transcript_index: i64::try_from(i).unwrap(),
            tool_use_id: format!("toolu_{i}"),
            subagent_type: Some("coder".into()),
            role: Some(format!("r{i}")),
            prompt_hash: None,
            description: None,
        })
        .collect();
    db.subagents()
        .register_task_spawns(
            "s",
            "/t.jsonl",
            &spawns,
            &[],
            &nagger::storage::store::TranscriptCursorRow {
                byte_offset: 0,
                line_count: 0,
                fingerprint: String::new(),
            },
            false,
        )
        .unwrap();
}

/// Checks the invariants after a concurrent phase: draining what is left claims
/// every registered agent exactly once, and no spawn is matched to two agents.
fn check_invariants(db: &NaggerStateDB, registered: &BTreeSet<String>, claimed: Vec<String>) {
    let mut all = claimed;
    while let Some(r) = db.subagents().claim_next_unprocessed("s").unwrap() {
        all.push(r.agent_id);
    }
    let unique: BTreeSet<String> = all.iter().cloned().collect();
    assert_eq!(
        unique.len(),
        all.len(),
        "an agent was claimed twice: {all:?}"
    );
    assert_eq!(&unique, registered, "an agent was lost");
    let raw = raw(db);
    let mut stmt = raw
        .prepare("SELECT matched_agent_id, count(*) FROM task_spawns WHERE matched_agent_id IS NOT NULL GROUP BY 1")
        .unwrap();
    let per_agent: BTreeMap<String, i64> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert!(
        per_agent.values().all(|n| *n == 1),
        "an agent holds two spawns: {per_agent:?}"
    );
    let consistent: i64 = raw
        .query_row(
            "SELECT count(*) FROM subagents a JOIN task_spawns t ON t.id = a.task_spawn_id WHERE t.matched_agent_id != a.agent_id",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(consistent, 0, "a spawn is linked to two agents");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    // For any interleaving of up to 16 registrations and 16 claims over 2-8 threads,
    // each with its own connection: no agent claimed twice, none lost, no spawn shared.
    #[test]
    fn threads_claim_each_agent_exactly_once((plan, spawns) in ops_strategy()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let db = NaggerStateDB::open(&path).unwrap();
        seed_spawns(&db, spawns);
        let barrier = Arc::new(Barrier::new(plan.len()));
        let results: Vec<(Vec<String>, Vec<String>)> = std::thread::scope(|s| {
            let handles: Vec<_> = plan.iter().enumerate().map(|(t, ops)| {
                let barrier = barrier.clone();
                let path = path.clone();
                s.spawn(move || {
                    let db = NaggerStateDB::open(&path).unwrap();
                    let mut registered = Vec::new();
                    let mut claimed = Vec::new();
                    barrier.wait();
                    for (i, op) in ops.iter().enumerate() {
                        match op {
                            Op::Register => {
                                let id = format!("t{t}-a{i}");
                                db.subagents().register_and_match(&id, "s", "coder", "subagent_start", Some("coder")).unwrap();
                                registered.push(id);
                            }
                            Op::Claim => {
                                if let Some(r) = db.subagents().claim_next_unprocessed("s").unwrap() {
                                    claimed.push(r.agent_id);
                                }
                            }
                        }
                    }
                    (registered, claimed)
                })
            }).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let registered: BTreeSet<String> = results.iter().flat_map(|r| r.0.iter().cloned()).collect();
        let claimed: Vec<String> = results.into_iter().flat_map(|r| r.1).collect();
        check_invariants(&db, &registered, claimed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    // The same through the real hook path: up to 16 SubagentStart and 16 legacy
    // PreToolUse processes started together. Each agent's conventions (one per
    // agent, by its spawn's [ROLE:] tag) are handed out at most once, and after
    // draining, every agent exactly once.
    #[test]
    fn hook_processes_claim_each_agent_exactly_once(regs in 1usize..=16, claims in 0usize..=16, seed in any::<u64>()) {
        let mut config = String::new();
        for i in 0..regs {
            let _ = write!(config, "[roles.r{i}]\ntext = \"CONVENTIONS-OF-r{i}.\"\n");
        }
        let p = Project::with_config(&config);
        let spawn_lines: Vec<_> = (0..regs).map(|i| spawn_line(&format!("toolu_{i}"), "coder", &format!("[ROLE:r{i}] task {i}"))).collect();
        p.append(&spawn_lines);
        let mut inputs: Vec<serde_json::Value> = (0..regs).map(|i| p.subagent_start(&format!("ag-{i}"), "coder")).collect();
        inputs.extend((0..claims).map(|_| p.pre_tool_use("Read", json!({"file_path": "a"}))));
        // a deterministic shuffle from the seed
        let mut order: Vec<usize> = (0..inputs.len()).collect();
        let mut x = seed | 1;
        for i in (1..order.len()).rev() {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            order.swap(i, usize::try_from(x % (i as u64 + 1)).unwrap());
        }
        let children: Vec<_> = order.iter().map(|&i| p.spawn_hook(&inputs[i])).collect();
        let mut handed: Vec<String> = Vec::new();
        // A process starved of CPU by other tests can reach its bounded wait for the
        // lock and answer nothing, as designed; it may lose its own agent (a start not
        // registered, a claim taken but not shown), never hand one out twice.
        let mut late = 0usize;
        for r in children.into_iter().map(finish) {
            if r.ran_late() {
                late += 1;
                continue;
            }
            prop_assert_eq!(r.code, 0);
            prop_assert_eq!(r.stderr.as_str(), "");
            let reason = r.reason();
            handed.extend((0..regs).filter(|i| reason.contains(&format!("CONVENTIONS-OF-r{i}."))).map(|i| format!("r{i}")));
        }
        loop {
            let r = p.hook(&p.pre_tool_use("Read", json!({"file_path": "a"})));
            let reason = r.reason();
            if reason.is_empty() { break; }
            handed.extend((0..regs).filter(|i| reason.contains(&format!("CONVENTIONS-OF-r{i}."))).map(|i| format!("r{i}")));
        }
        let unique: BTreeSet<&String> = handed.iter().collect();
        prop_assert_eq!(unique.len(), handed.len(), "conventions handed out twice: {:?}", handed);
        prop_assert!(4 * late <= inputs.len(), "late runs are the exception: {} of {}", late, inputs.len());
        prop_assert!(unique.len() + late >= regs && unique.len() <= regs, "an agent was lost: {:?} ({} late)", handed, late);
    }
}

/// One step of a thread in the exact-identification interleavings.
#[derive(Debug, Clone, Copy)]
enum ExactOp {
    /// SubagentStart of agent `a{0}`.
    Register(usize),
    /// A legacy first call taken by the claim.
    Claim,
    /// A first call found in agent `a{0}`'s own transcript (or sent with its agent_id).
    FirstCall(usize),
    /// An exact fact tying agent `a{0}` to spawn `{1}`: by tool_use_id or prompt hash.
    Link(usize, usize, bool),
    /// The main agent's PreToolUse of Agent registering spawn `{0}` from the hook.
    HookSpawn(usize),
}

fn exact_ops() -> impl Strategy<Value = Vec<Vec<ExactOp>>> {
    let op = prop_oneof![
        (0usize..8).prop_map(ExactOp::Register),
        Just(ExactOp::Claim),
        (0usize..8).prop_map(ExactOp::FirstCall),
        (0usize..8, 0usize..10, any::<bool>()).prop_map(|(a, s, h)| ExactOp::Link(a, s, h)),
        (0usize..10).prop_map(ExactOp::HookSpawn),
    ];
    prop::collection::vec(prop::collection::vec(op, 1..12), 2..=6)
}

/// What one thread saw: the first calls it took, and the exact links it made.
type ThreadOutcome = (Vec<String>, Vec<(String, i64)>);

fn exact_spawn(i: usize) -> nagger::storage::store::SpawnRow {
    nagger::storage::store::SpawnRow {
        transcript_index: i64::try_from(i).unwrap(),
        tool_use_id: format!("toolu_{i}"),
        subagent_type: Some("coder".into()),
        role: Some(format!("r{}", i % 3)),
        prompt_hash: Some(nagger::storage::transcript::prompt_hash(&format!(
            "prompt {}",
            i % 7
        ))),
        description: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    // Claims, first calls found in transcripts, exact links by tool_use_id and prompt
    // hash, and spawns registered from the hook, interleaved over 2-6 threads with a
    // connection each: every agent's first call is taken exactly once, no spawn is
    // held by two agents, and an exact link once made never moves.
    #[test]
    fn exact_sources_keep_the_claim_and_link_invariants(plan in exact_ops()) {
        use nagger::storage::store::{RoleSource, SpawnKey};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let db = NaggerStateDB::open(&path).unwrap();
        let barrier = Arc::new(Barrier::new(plan.len()));
        let results: Vec<ThreadOutcome> = std::thread::scope(|s| {
            let handles: Vec<_> = plan.iter().map(|ops| {
                let barrier = barrier.clone();
                let path = path.clone();
                s.spawn(move || {
                    let db = NaggerStateDB::open(&path).unwrap();
                    let repo = db.subagents();
                    let mut first_calls = Vec::new();
                    let mut exact = Vec::new();
                    barrier.wait();
                    for op in ops {
                        match *op {
                            ExactOp::Register(a) => {
                                repo.register_and_match(&format!("a{a}"), "s", "coder", "subagent_start", Some("coder")).unwrap();
                            }
                            ExactOp::Claim => {
                                if let Some(r) = repo.claim_next_unprocessed("s").unwrap() {
                                    first_calls.push(r.agent_id);
                                }
                            }
                            ExactOp::FirstCall(a) => {
                                if repo.mark_first_call(&format!("a{a}"), "transcript").unwrap() {
                                    first_calls.push(format!("a{a}"));
                                }
                            }
                            ExactOp::Link(a, sp, by_hash) => {
                                let spawn = exact_spawn(sp);
                                let key = if by_hash {
                                    SpawnKey::PromptHash(spawn.prompt_hash.as_deref().unwrap())
                                } else {
                                    SpawnKey::ToolUseId(&spawn.tool_use_id)
                                };
                                if let Some(o) = repo.link_exact("s", &format!("a{a}"), key, RoleSource::MetaFile).unwrap()
                                    && let Some(id) = o.outcome.spawn_id
                                {
                                    exact.push((format!("a{a}"), id));
                                }
                            }
                            ExactOp::HookSpawn(sp) => {
                                repo.register_spawn("s", &exact_spawn(sp)).unwrap();
                            }
                        }
                    }
                    (first_calls, exact)
                })
            }).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut first_calls: Vec<String> = results.iter().flat_map(|r| r.0.iter().cloned()).collect();
        while let Some(r) = db.subagents().claim_next_unprocessed("s").unwrap() {
            first_calls.push(r.agent_id);
        }
        let unique: BTreeSet<&String> = first_calls.iter().collect();
        prop_assert_eq!(unique.len(), first_calls.len(), "a first call taken twice: {:?}", first_calls);
        let registered: i64 = raw(&db).query_row("SELECT count(*) FROM subagents", [], |r| r.get(0)).unwrap();
        prop_assert_eq!(i64::try_from(unique.len()).unwrap(), registered, "an agent's first call was lost");
        let shared: i64 = raw(&db).query_row(
            "SELECT count(*) FROM (SELECT matched_agent_id FROM task_spawns WHERE matched_agent_id IS NOT NULL
             GROUP BY 1 HAVING count(*) > 1)", [], |r| r.get(0)).unwrap();
        prop_assert_eq!(shared, 0, "an agent holds two spawns");
        let inconsistent: i64 = raw(&db).query_row(
            "SELECT count(*) FROM subagents a JOIN task_spawns t ON t.id = a.task_spawn_id
             WHERE t.matched_agent_id IS NOT a.agent_id", [], |r| r.get(0)).unwrap();
        prop_assert_eq!(inconsistent, 0, "a spawn and its agent disagree");
        // Every exact link made still stands: the agent holds that spawn, exactly.
        for (_, list) in &results {
            for (agent, spawn) in list {
                let (held, source): (Option<i64>, Option<String>) = raw(&db).query_row(
                    "SELECT task_spawn_id, role_source FROM subagents WHERE agent_id = ?1",
                    [agent], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
                prop_assert_eq!(held, Some(*spawn), "{}'s exact link moved", agent);
                prop_assert_eq!(source.as_deref(), Some("meta_file"));
            }
        }
    }
}

/// A plain connection to the database under test, for the checks that read it raw.
fn raw(db: &NaggerStateDB) -> rusqlite::Connection {
    rusqlite::Connection::open(db.path()).unwrap()
}
