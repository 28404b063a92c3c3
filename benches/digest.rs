//! Shared-context digest selection over 10,000 context entries (100 sessions of 100
//! results, a week of history, some tagged decision/blocker/role/all, open tasks), as
//! SubagentStart and a compaction compute it: filtered per type (coder gets navigation,
//! reviewer navigation + code_changes, tester everything), and for the main agent.
//! "warm" reuses one connection; "hook" opens the database first, as each hook process must.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use nagger::domain::config::Config;
use nagger::domain::context::{Audience, for_main, for_subagent, select};
use nagger::storage::store::{NaggerStateDB, NewContextEntry};

const SESSIONS: usize = 100;
const PER_SESSION: usize = 100;
/// The session the new agents belong to.
const CURRENT: &str = "session-099";

/// (agent_type, role, category) of the agents whose results fill the store.
const AGENTS: [(&str, &str, &str); 5] = [
    ("Explore", "navigator", "navigation"),
    ("coder", "coder", "code_changes"),
    ("reviewer", "reviewer", "review"),
    ("tester", "tester", "test"),
    ("general-purpose", "general-purpose", "other"),
];

#[path = "../tests/common/rng.rs"]
mod rng;
use rng::Rng;
use std::fmt::Write as _;

fn report(rng: &mut Rng, agent_type: &str, n: usize) -> String {
    let mut text = format!(
        "[COMPRESSED] agent_type: {agent_type}\nChanged files: src/module{}/lib.rs\nResult: ",
        n % 97
    );
    let len = rng.between(400, 1500);
    while text.len() < len {
        text.push_str(match rng.below(6) {
            0 => "the cart total now rounds per line item ",
            1 => "found the price cache in src/pricing/cache.rs ",
            2 => "tests cover the empty cart and the discount edge ",
            3 => "views render through the shared partial ",
            4 => "the migration is reversible ",
            _ => "nothing else changed ",
        });
    }
    let _ = write!(
        text,
        "\nDecisions: keep the API of entry {n}\nBlockers: none"
    );
    text
}

fn tags(rng: &mut Rng) -> Vec<String> {
    match rng.below(50) {
        0..=4 => vec!["decision".into()],
        5..=6 => vec!["blocker".into()],
        7 => vec!["handoff".into()],
        8..=9 => vec!["coder".into()],
        10 => vec!["reviewer".into(), "decision".into()],
        11 => vec!["all".into()],
        _ => Vec::new(),
    }
}

/// Fills a database at `path` with the 10,000 entries and some open tasks.
fn fill(path: &Path) {
    let db = NaggerStateDB::open(path).expect("open");
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for s in 0..SESSIONS {
        let session = format!("session-{s:03}");
        for i in 0..PER_SESSION {
            let (agent_type, role, category) = AGENTS[rng.between(0, AGENTS.len())];
            let n = s * PER_SESSION + i;
            let files: Vec<String> = (0..rng.below(6))
                .map(|f| format!("src/module{}/file{f}.rs", rng.below(40)))
                .collect();
            db.context()
                .insert(&NewContextEntry {
                    session_id: &session,
                    agent_id: Some(&format!("agent-{n:05}")),
                    agent_type: Some(agent_type),
                    role: Some(role),
                    category,
                    content: &report(&mut rng, agent_type, n),
                    tags: &tags(&mut rng),
                    files: &files,
                    tokens: Some(20_000 + i64::try_from(rng.below(80_000)).unwrap()),
                })
                .expect("insert entry");
        }
    }
    // A week of history, one result a minute, in insertion order (set on the file
    // directly: nagger has no reason to rewrite when a result came).
    let raw = rusqlite::Connection::open(path).expect("open");
    raw.execute(
        "UPDATE context_entries SET created_at = ?1 + id * 60000",
        [nagger::storage::store::now_ms() - 7 * 24 * 3600 * 1000],
    )
    .expect("spread created_at");
    for (role, n) in [("coder", 8), ("reviewer", 3), ("tester", 2)] {
        for i in 0..n {
            db.context()
                .add_task(role, &format!("{role} task {i}"), Some("from the backlog"))
                .expect("add task");
        }
    }
    let count: i64 = raw
        .query_row("SELECT count(*) FROM context_entries", [], |r| r.get(0))
        .expect("count");
    assert_eq!(
        usize::try_from(count).unwrap(),
        SESSIONS * PER_SESSION,
        "every entry stored"
    );
}

fn config() -> Config {
    let text = include_str!("../docs/example-config.toml");
    nagger::domain::config::parse(text, Path::new("example-config.toml"))
        .expect("the documented example config loads")
}

fn subagent<'a>(agent_type: &'a str, role: &'a str) -> Audience<'a> {
    Audience::Subagent {
        session_id: CURRENT,
        agent_id: Some("agent-new"),
        agent_type,
        role: Some(role),
    }
}

fn bench_digest(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(".claude-nagger/state.db");
    fill(&path);
    let config = config();
    let db = NaggerStateDB::open(&path).expect("open");

    let mut group = c.benchmark_group("digest_10k_entries");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (name, agent_type, role) in [
        ("coder_navigation_only", "coder", "coder"),
        ("reviewer_two_categories", "reviewer", "reviewer"),
        ("tester_all_categories", "tester", "tester"),
    ] {
        let audience = subagent(agent_type, role);
        group.bench_function(format!("warm/{name}"), |b| {
            b.iter(|| select(&db, &config.context, black_box(&audience)).expect("select"));
        });
    }
    group.bench_function("warm/main_after_compaction", |b| {
        b.iter(|| for_main(&db, &config, black_box(CURRENT)).expect("for_main"));
    });
    // What SubagentStart does in a new process: open, then the whole injection.
    let audience = subagent("tester", "tester");
    group.bench_function("hook/open_and_inject_tester", |b| {
        b.iter(|| {
            let db = NaggerStateDB::open(&path).expect("open");
            for_subagent(&db, &config, &audience, "/r.md").expect("for_subagent")
        });
    });
    group.finish();

    let digest = select(&db, &config.context, &subagent("tester", "tester")).expect("select");
    eprintln!(
        "digest for a tester: {} entries, {} tasks, {} chars (cap {})",
        digest.entries.len(),
        digest.tasks.len(),
        digest.text.chars().count(),
        config.context.max_summary_chars
    );
}

criterion_group!(benches, bench_digest);
criterion_main!(benches);
