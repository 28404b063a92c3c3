//! nagger under faults around it, with the real binary: hook processes killed with
//! SIGKILL mid-transaction leave no partial claim or registration; a read-only or
//! full disk and a database locked past the hook's wait budget fail open (exit 0, no stdout,
//! one stderr line); a transcript truncated, rotated or replaced between scans is
//! rescanned without losing or duplicating spawns.

use crate::common::*;
use rusqlite::Connection;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The same input in another session with its own transcript.
fn in_session(mut input: Value, session: &str, transcript: &Path) -> Value {
    input["session_id"] = json!(session);
    input["transcript_path"] = json!(transcript.display().to_string());
    input
}

fn report(agent_id: &str) -> String {
    format!("[COMPRESSED] agent_type: coder\nResult: {agent_id} done\nBlockers: none")
}

/// Runs `cmd` (a `nagger hook` command) with `input` on stdin.
fn run_with(mut cmd: Command, input: &Value) -> HookResult {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn nagger hook");
    let mut pipe = child.stdin.take().expect("stdin");
    let _ = pipe.write_all(input.to_string().as_bytes());
    drop(pipe);
    finish(child)
}

/// The fail-open contract: exit 0, nothing on stdout, one stderr line.
fn assert_fails_open(r: &HookResult, what: &str) {
    assert_eq!(r.code, 0, "{what}: exit code; stderr: {}", r.stderr);
    assert_eq!(r.stdout, "", "{what}: no decision when nagger failed");
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "{what}: one stderr line, got {:?}",
        r.stderr
    );
    assert!(lines[0].starts_with("nagger: "), "{what}: {}", lines[0]);
}

fn scalar(c: &Connection, sql: &str) -> i64 {
    c.query_row(sql, [], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

// ── kill -9 ──

/// Every invariant a torn write could break, with the query that finds breakers.
const INVARIANTS: [(&str, &str); 6] = [
    (
        "an agent registered without its match (role_source never set)",
        "SELECT count(*) FROM subagents WHERE role_source IS NULL",
    ),
    (
        "an agent's task_spawn_id points at a spawn not matched to it",
        "SELECT count(*) FROM subagents a LEFT JOIN task_spawns t ON t.id = a.task_spawn_id
         WHERE a.task_spawn_id IS NOT NULL AND (t.id IS NULL OR t.matched_agent_id IS NOT a.agent_id)",
    ),
    (
        "a spawn matched to an agent that does not hold it (and has not stopped)",
        "SELECT count(*) FROM task_spawns t WHERE t.matched_agent_id IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM subagents a WHERE a.agent_id = t.matched_agent_id AND a.task_spawn_id = t.id)
         AND NOT EXISTS (SELECT 1 FROM subagent_history h WHERE h.agent_id = t.matched_agent_id)",
    ),
    (
        "a matched agent whose role is not its spawn's",
        "SELECT count(*) FROM subagents a JOIN task_spawns t ON t.id = a.task_spawn_id
         WHERE a.role IS NOT t.role",
    ),
    (
        "processed flags out of step (processed / processed_at / claimed_by)",
        "SELECT count(*) FROM subagents WHERE (startup_processed = 1) != (startup_processed_at IS NOT NULL)
         OR (startup_processed = 1) != (claimed_by IS NOT NULL)",
    ),
    (
        "an agent both active and in history (half an unregister)",
        "SELECT count(*) FROM subagents a JOIN subagent_history h
         ON h.agent_id = a.agent_id AND h.session_id = a.session_id",
    ),
];

fn assert_consistent(c: &Connection, when: &str) {
    let integrity: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity_check");
    assert_eq!(integrity, "ok", "{when}");
    for (broken, sql) in INVARIANTS {
        assert_eq!(scalar(c, sql), 0, "{when}: {broken}");
    }
}

/// A transcript of about 256 KB (a first scan takes a few ms) with `spawns` coder
/// spawns spread through it, tagged with roles r0, r1, ...
fn write_round_transcript(path: &Path, spawns: usize) {
    let filler = "reading the cart module and its tests ".repeat(50);
    let mut lines = Vec::new();
    for i in 0..spawns {
        for m in 0..16 {
            let mut l = usage_line(&format!("m{i}-{m}"), 1000);
            l["message"]["content"][0]["text"] = json!(filler);
            lines.push(l);
        }
        lines.push(spawn_line(
            &format!("toolu_{i}"),
            "coder",
            &format!("[ROLE:r{i}] part {i}"),
        ));
    }
    append_lines(path, &lines);
}

#[test]
fn sigkill_at_random_points_leaves_no_partial_claim_or_registration() {
    // At least ROUNDS rounds, and more (up to MAX_ROUNDS) until KILLS processes were
    // killed and as many ran to the end: on a loaded machine the killer wakes late and
    // more processes finish before their kill.
    const ROUNDS: usize = 32;
    const MAX_ROUNDS: usize = 256;
    const KILLS: usize = 64;
    const STARTS: usize = 6;
    const CLAIMS: usize = 6;
    let seed = 0x5eed_0fc1_a1a1_u64;
    let mut rng = Rng(seed);
    let p = Project::with_config("[roles.default]\ntext = \"conventions\"\n");
    let (mut killed, mut survived, mut late_runs) = (0, 0, 0usize);
    let mut sessions: Vec<String> = Vec::new();
    for round in 0..MAX_ROUNDS {
        if round >= ROUNDS && killed >= KILLS && survived >= KILLS {
            break;
        }
        let session = format!("kill-{round}");
        let transcript = p.transcript.with_file_name(format!("{session}.jsonl"));
        write_round_transcript(&transcript, STARTS);
        let at = |v: Value| in_session(v, &session, &transcript);
        let mut inputs: Vec<Value> = (0..STARTS)
            .map(|i| at(p.subagent_start(&format!("{session}-a{i}"), "coder")))
            .collect();
        inputs.extend((0..CLAIMS).map(|_| at(p.pre_tool_use("Read", json!({"file_path": "a"})))));
        // Agents of the previous round stop while this round starts.
        if let Some(previous) = sessions.last() {
            for i in 0..2 {
                let id = format!("{previous}-a{i}");
                let stop = p.subagent_stop(&id, "coder", Some(&report(&id)), false);
                inputs.push(in_session(
                    stop,
                    previous,
                    &p.transcript.with_file_name(format!("{previous}.jsonl")),
                ));
            }
        }
        let (children, spawned): (Vec<_>, Vec<_>) = inputs
            .iter()
            .map(|i| (p.spawn_hook(i), Instant::now()))
            .unzip();
        // Each process is killed with probability 1/2, 0.1-10 ms (log-uniform) after its
        // own spawn: before, during and after its transactions.
        let mut kills: Vec<(Instant, usize)> = Vec::new();
        for (i, at) in spawned.iter().enumerate() {
            if rng.below(2) == 0 {
                let micros = 100f64 * 100f64.powf(rng.below(1000) as f64 / 1000.0);
                // From 100 to 10 000 µs, a positive whole-number range for u64.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let micros = micros as u64;
                kills.push((*at + Duration::from_micros(micros), i));
            }
        }
        kills.sort();
        let mut children: Vec<_> = children.into_iter().map(Some).collect();
        for (deadline, i) in kills {
            if let Some(wait) = deadline.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            if let Some(child) = children[i].as_mut() {
                // Already exited is fine: the kill then comes too late to matter.
                let _ = child.kill();
            }
        }
        for (i, child) in children.into_iter().enumerate() {
            let out = child
                .expect("every child is waited once")
                .wait_with_output()
                .expect("wait");
            if out.status.signal() == Some(9) {
                killed += 1;
                continue;
            }
            survived += 1;
            let stderr = String::from_utf8_lossy(&out.stderr);
            // On a machine loaded by other tests, a process starved of CPU while the
            // others recover from the kills can reach the hook's one-second deadline, or
            // its bounded wait for the database's lock: it then answers what it has and
            // exits 0 with one line, as designed. Anything else is a failure.
            let late = late_line(&stderr);
            late_runs += usize::from(late);
            assert!(
                out.status.code() == Some(0) && (stderr.is_empty() || late),
                "round {round} (seed {seed:#x}): a process that was not killed failed \
                 ({:?}, {stderr:?}): {}",
                out.status.code(),
                inputs[i]
            );
        }
        assert_consistent(&p.db(), &format!("round {round} (seed {seed:#x})"));
        sessions.push(session);
    }
    assert!(
        killed >= KILLS && survived >= KILLS,
        "kills should land both mid-run and after: {killed} killed, {survived} survived"
    );
    // Reaching the deadline or the lock's bound is for a starved process now and then,
    // never the rule.
    assert!(
        late_runs * 10 <= survived,
        "{late_runs} of {survived} surviving runs reached the deadline"
    );

    // Later hooks work: every session's unclaimed agents are claimed by its next
    // legacy tool calls, each once, until only the main agent is left.
    for session in &sessions {
        let transcript = p.transcript.with_file_name(format!("{session}.jsonl"));
        let call = in_session(
            p.pre_tool_use("Read", json!({"file_path": "a"})),
            session,
            &transcript,
        );
        for _ in 0..=STARTS {
            // A run starved of CPU by other tests may reach its deadline and answer
            // without state, as designed: it is made again, a few times at most.
            let mut r = p.hook(&call);
            for _ in 0..3 {
                if r.code == 0 && late_line(&r.stderr) {
                    r = p.hook(&call);
                }
            }
            assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{session}");
        }
        let c = p.db();
        let unclaimed: i64 = c
            .query_row(
                "SELECT count(*) FROM subagents WHERE session_id = ?1 AND startup_processed = 0",
                [session],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(unclaimed, 0, "{session}: an agent was never claimed");
        let mut stmt = c
            .prepare(
                "SELECT agent_id, count(*) FROM hook_log WHERE session_id = ?1
                 AND event_type = 'PreToolUse' AND json_extract(details, '$.caller') = 'claim'
                 GROUP BY agent_id HAVING count(*) > 1",
            )
            .expect("prepare");
        let doubled: Vec<(String, i64)> = stmt
            .query_map([session], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("query")
            .map(|r| r.expect("row"))
            .collect();
        assert!(doubled.is_empty(), "{session}: claimed twice: {doubled:?}");
    }
    let fresh = p.hook(&p.subagent_start("after-the-kills", "coder"));
    assert_eq!((fresh.code, fresh.stderr.as_str()), (0, ""));
    let first = p.hook(&p.pre_tool_use_as("after-the-kills", "coder", "Read", json!({})));
    assert_eq!(
        first.decision().as_deref(),
        Some("deny"),
        "conventions still due"
    );
    assert_consistent(&p.db(), "after all rounds");
}

// ── read-only and full disks ──

fn running_as_root() -> bool {
    let probe = tempfile::tempdir().expect("tempdir");
    std::fs::metadata(probe.path()).expect("stat").uid() == 0
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .unwrap_or_else(|e| panic!("chmod {}: {e}", path.display()));
}

/// The database, its -wal/-shm and its directory made read-only. Permissions do not
/// stop root, so as root the hook runs as `nobody` (uid/gid 65534): the directory and
/// files are then truly unwritable for it, as they would be for a user without rights.
#[test]
fn a_read_only_state_directory_fails_open() {
    let p = Project::with_config("[roles.default]\ntext = \"conventions\"\n");
    p.append(&[spawn_line("toolu_1", "coder", "[ROLE:coder] x")]);
    p.hook(&p.session_start("startup"));
    p.hook(&p.subagent_start("ag-1", "coder"));
    let state = p.root.join(".claude-nagger");
    let db_before = std::fs::read(p.db_path()).expect("read db");
    let as_root = running_as_root();
    if as_root {
        // `nobody` must reach the project and read the config and transcript.
        let temp = p.root.parent().expect("project in a temp dir");
        chmod(temp, 0o755);
        chmod(&p.root, 0o755);
        chmod(p.transcript.parent().expect("transcripts dir"), 0o755);
    }
    for entry in std::fs::read_dir(&state).expect("read_dir") {
        let path = entry.expect("entry").path();
        if path.is_file() {
            chmod(&path, 0o444);
        }
    }
    chmod(&state, 0o555);
    let hook = |input: &Value| {
        let mut cmd = p.command(&["hook"]);
        if as_root {
            cmd.uid(65534).gid(65534);
        }
        run_with(cmd, input)
    };
    let events = [
        p.pre_tool_use("Read", json!({"file_path": "a"})),
        p.subagent_start("ag-2", "coder"),
        p.pre_tool_use_as("ag-1", "coder", "Bash", json!({"command": "ls"})),
    ];
    let results: Vec<HookResult> = events.iter().map(hook).collect();
    chmod(&state, 0o755);
    for (event, r) in events.iter().zip(&results) {
        assert_fails_open(r, &event["hook_event_name"].to_string());
        assert!(
            r.stderr.contains("readonly") || r.stderr.contains("unable to open"),
            "the line says why: {}",
            r.stderr
        );
    }
    assert_eq!(
        std::fs::read(p.db_path()).expect("read db"),
        db_before,
        "the database is untouched"
    );
    let names: Vec<String> = std::fs::read_dir(&state)
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.contains("corrupt")),
        "a database that cannot be written is not corrupt: {names:?}"
    );
    for entry in std::fs::read_dir(&state).expect("read_dir") {
        let path = entry.expect("entry").path();
        if path.is_file() {
            chmod(&path, 0o644);
        }
    }
    let r = p.hook(&p.pre_tool_use_as("ag-1", "coder", "Bash", json!({"command": "ls"})));
    assert_eq!(
        (r.code, r.stderr.as_str(), r.decision().as_deref()),
        (0, "", Some("deny")),
        "writable again: ag-1's first call gets its conventions"
    );
}

/// `.claude-nagger` is a file, so the database cannot even be created (this one holds
/// for root too).
#[test]
fn a_state_path_that_cannot_be_created_fails_open() {
    let p = Project::new();
    std::fs::remove_dir_all(p.root.join(".claude-nagger")).expect("rmdir");
    std::fs::write(p.root.join(".claude-nagger"), "not a directory").expect("write");
    for input in [
        p.session_start("startup"),
        p.subagent_start("ag-1", "coder"),
    ] {
        let r = p.hook(&input);
        assert_fails_open(&r, &input["hook_event_name"].to_string());
        assert!(
            r.stderr.contains("state database unavailable"),
            "{}",
            r.stderr
        );
    }
    // The config cannot be read either: the rules set there cannot be checked, so a tool
    // call the guard passes is asked about.
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    assert_eq!(r.code, 0);
    assert_eq!(r.decision().as_deref(), Some("ask"), "{}", r.stdout);
    assert!(r.stdout.contains("config cannot be read"), "{}", r.stdout);
    // The guard does not depend on the database.
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "rm -rf /"})));
    assert_eq!(r.code, 0);
    assert_eq!(r.decision().as_deref(), Some("deny"), "{}", r.stdout);
    assert!(r.stderr.contains("guard applied"), "{}", r.stderr);
}

/// `nagger hook` in a shell that lets no write extend any file (RLIMIT_FSIZE = 0,
/// SIGXFSZ ignored so the write fails with EFBIG instead of killing the process). That
/// is stricter than a full disk, which still lets SQLite overwrite pages it owns.
fn full_disk_hook(p: &Project, input: &Value) -> HookResult {
    limited_hook(p, "trap '' XFSZ; ulimit -f 0", input)
}

/// `nagger hook` run by a shell that first runs `limits` (`ulimit …`).
fn limited_hook(p: &Project, limits: &str, input: &Value) -> HookResult {
    let mut sh = Command::new("/bin/sh");
    sh.arg("-c")
        .arg(format!("{limits} && exec \"$0\" hook"))
        .arg(nagger_bin())
        .env_clear()
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .env("HOME", &p.root)
        .env("TZ", "UTC")
        .current_dir(&p.root);
    run_with(sh, input)
}

/// `nagger hook` in a shell whose stack limit is tiny (`ulimit -s 32`, 32 KiB): it still
/// answers, and a command nested deep still gets a decision rather than a crash.
#[test]
fn a_small_stack_limit_still_answers() {
    let p = Project::new();
    let nested = format!("{}rm -rf /{}", "echo $(".repeat(60), ")".repeat(60));
    for (command, expected) in [("rm -rf /", "deny"), (nested.as_str(), "deny"), ("ls", "")] {
        let input = p.pre_tool_use("Bash", json!({ "command": command }));
        let r = limited_hook(&p, "ulimit -s 32", &input);
        assert_eq!(r.code, 0, "{command}: {}", r.stderr);
        assert_eq!(
            r.decision().unwrap_or_default(),
            expected,
            "{command}: {}",
            r.stdout
        );
    }
}

#[test]
fn a_full_disk_fails_open_and_nothing_is_quarantined() {
    // An existing database that cannot grow.
    let p = Project::with_config("[session.first_time]\ntext = \"conventions\"\n");
    p.append(&[spawn_line("toolu_1", "coder", "[ROLE:coder] x")]);
    p.hook(&p.session_start("startup"));
    let before: i64 = scalar(&p.db(), "SELECT count(*) FROM hook_log");
    for input in [
        p.subagent_start("ag-1", "coder"),
        p.pre_tool_use("Read", json!({"file_path": "a"})),
        p.subagent_stop("ag-0", "coder", Some(&report("ag-0")), false),
    ] {
        let r = full_disk_hook(&p, &input);
        assert_fails_open(&r, &input["hook_event_name"].to_string());
        assert!(
            r.stderr.contains("disk I/O error") || r.stderr.contains("disk is full"),
            "the line says why: {}",
            r.stderr
        );
    }
    let c = p.db();
    assert_eq!(scalar(&c, "SELECT count(*) FROM hook_log"), before);
    assert_eq!(scalar(&c, "SELECT count(*) FROM subagents"), 0);
    assert_consistent(&c, "after writes failed");
    drop(c);

    // A fresh project: the database cannot be created.
    let fresh = Project::new();
    let r = full_disk_hook(&fresh, &fresh.subagent_start("ag-1", "coder"));
    assert_fails_open(&r, "fresh SubagentStart");
    assert!(
        r.stderr.contains("state database unavailable"),
        "{}",
        r.stderr
    );

    // Space again: both work, nothing was moved aside as corrupt.
    for project in [&p, &fresh] {
        let r = project.hook(&project.subagent_start("ag-1", "coder"));
        assert_eq!((r.code, r.stderr.as_str()), (0, ""));
        let names: Vec<String> = std::fs::read_dir(project.root.join(".claude-nagger"))
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert!(!names.iter().any(|n| n.contains("corrupt")), "{names:?}");
    }
    assert_eq!(scalar(&p.db(), "SELECT count(*) FROM subagents"), 1);
}

// ── locks ──

/// Another connection holding the project's write lock until it rolls back.
fn hold_write_lock(p: &Project) -> Connection {
    let holder = p.db();
    holder
        .execute_batch(
            "BEGIN EXCLUSIVE; INSERT INTO tasks (role, title, created_at) VALUES ('x', 'held', 0);",
        )
        .expect("take the write lock");
    holder
}

/// Another connection holds the write lock for longer than the hook's wait budget: the
/// hook waits the budget out (well under a second, not SQLite's 5 s busy timeout), then
/// fails open with a line that says the database is locked.
#[test]
fn a_database_locked_past_the_wait_budget_fails_open_with_a_clear_line() {
    let p = Project::new();
    p.append(&[spawn_line("toolu_1", "coder", "[ROLE:coder] x")]);
    p.hook(&p.session_start("startup"));
    let holder = hold_write_lock(&p);
    let started = Instant::now();
    let r = p.hook(&p.subagent_start("ag-1", "coder"));
    let waited = started.elapsed();
    holder.execute_batch("ROLLBACK").expect("release");
    assert_fails_open(&r, "SubagentStart on a locked database");
    assert!(r.stderr.contains("locked"), "{}", r.stderr);
    assert!(
        waited >= Duration::from_millis(500),
        "the wait budget is waited out, not skipped: {waited:?}"
    );
    assert!(
        waited < Duration::from_millis(1500),
        "waited out once, within the run's budget, not again to log the failure: {waited:?}"
    );
    let r = p.hook(&p.subagent_start("ag-1", "coder"));
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (0, ""),
        "unlocked: works again"
    );
}

/// While the database cannot be used, the config's `block` and `ask` rules that apply to
/// everyone still hold, and fire every time (nothing can count that they fired once);
/// once it can be used again, a `block` rule fires once per session as before.
#[test]
fn rules_that_fire_once_fire_every_time_while_the_database_is_locked() {
    let p = Project::new();
    p.write_config(
        r#"
[[rules.command]]
name = "no deploys"
patterns = ["make deploy*"]
severity = "block"
message = "BLOCK-RULE-MESSAGE"
[[rules.command]]
name = "push"
patterns = ["git push*"]
severity = "ask"
message = "ASK-RULE-MESSAGE"
"#,
    );
    p.hook(&p.session_start("startup"));
    let holder = hold_write_lock(&p);
    for _ in 0..2 {
        let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "make deploy"})));
        assert_eq!(r.decision().as_deref(), Some("deny"), "{r:?}");
        assert!(r.reason().contains("BLOCK-RULE-MESSAGE"), "{r:?}");
        assert!(r.stderr.contains("locked"), "{}", r.stderr);
    }
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "git push origin main"})));
    assert_eq!(r.decision().as_deref(), Some("ask"), "{r:?}");
    assert!(r.reason().contains("ASK-RULE-MESSAGE"), "{r:?}");
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "cargo test"})));
    assert_eq!(r.decision(), None, "a call no rule names passes: {r:?}");
    holder.execute_batch("ROLLBACK").expect("release");
    let first = p.hook(&p.pre_tool_use("Bash", json!({"command": "make deploy"})));
    assert_eq!(first.decision().as_deref(), Some("deny"), "{first:?}");
    let second = p.hook(&p.pre_tool_use("Bash", json!({"command": "make deploy"})));
    assert_eq!(
        second.decision(),
        None,
        "fired once with the state: {second:?}"
    );
}

/// A fresh database whose migration lock another process holds past the timeout.
#[test]
fn a_migration_lock_held_past_the_timeout_fails_open_with_a_clear_line() {
    let p = Project::new();
    let lock = std::fs::File::create(p.root.join(".claude-nagger/state.db.lock")).expect("lock");
    lock.lock().expect("hold the migration lock");
    let r = p.hook(&p.subagent_start("ag-1", "coder"));
    lock.unlock().expect("unlock");
    assert_fails_open(&r, "SubagentStart while migration is locked");
    assert!(
        r.stderr.contains("state database unavailable") && r.stderr.contains("locked"),
        "{}",
        r.stderr
    );
    let r = p.hook(&p.subagent_start("ag-1", "coder"));
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (0, ""),
        "unlocked: works again"
    );
}

// ── transcripts changed between scans ──

fn spawn_count(p: &Project) -> Vec<(String, i64)> {
    let c = p.db();
    let mut stmt = c
        .prepare("SELECT tool_use_id, count(*) FROM task_spawns GROUP BY 1 ORDER BY 1")
        .expect("prepare");
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("query")
        .map(|r| r.expect("row"))
        .collect()
}

fn role_of(p: &Project, agent_id: &str) -> (Option<String>, Option<String>) {
    p.db()
        .query_row(
            "SELECT role, role_source FROM subagents WHERE agent_id = ?1",
            [agent_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("agent registered")
}

fn start_ok(p: &Project, agent_id: &str, agent_type: &str) {
    let r = p.hook(&p.subagent_start(agent_id, agent_type));
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{agent_id}");
}

fn lines(values: &[Value]) -> String {
    values.iter().fold(String::new(), |mut text, v| {
        let _ = writeln!(text, "{v}");
        text
    })
}

fn ids(list: &[&str]) -> Vec<(String, i64)> {
    list.iter().map(|id| (id.to_string(), 1)).collect()
}

#[test]
fn a_truncated_transcript_is_rescanned_from_the_start() {
    let p = Project::new();
    let padding: Vec<Value> = (0..40).map(|i| usage_line(&format!("m{i}"), 100)).collect();
    p.append(&padding);
    p.append(&[
        spawn_line("toolu_a", "coder", "[ROLE:alpha] a"),
        spawn_line("toolu_b", "tester", "[ROLE:beta] b"),
    ]);
    start_ok(&p, "ag-1", "coder");
    assert_eq!(role_of(&p, "ag-1").0.as_deref(), Some("alpha"));

    // Truncated to less than was scanned, then a new spawn written.
    std::fs::write(
        &p.transcript,
        lines(&[spawn_line("toolu_c", "coder", "[ROLE:gamma] c")]),
    )
    .expect("truncate");
    start_ok(&p, "ag-2", "coder");
    assert_eq!(role_of(&p, "ag-2").0.as_deref(), Some("gamma"));

    // Truncated again and regrown past the old offset: the bytes before the cursor
    // changed, so the cursor is not trusted.
    let mut regrown = vec![spawn_line("toolu_d", "coder", "[ROLE:delta] d")];
    regrown.extend((0..60).map(|i| usage_line(&format!("n{i}"), 200)));
    regrown.push(spawn_line("toolu_e", "coder", "[ROLE:epsilon] e"));
    std::fs::write(&p.transcript, lines(&regrown)).expect("rewrite");
    start_ok(&p, "ag-3", "coder");
    start_ok(&p, "ag-4", "coder");
    assert_eq!(role_of(&p, "ag-3").0.as_deref(), Some("delta"));
    assert_eq!(role_of(&p, "ag-4").0.as_deref(), Some("epsilon"));
    assert_eq!(
        spawn_count(&p),
        ids(&["toolu_a", "toolu_b", "toolu_c", "toolu_d", "toolu_e"])
    );
    assert_consistent(&p.db(), "after truncations");
}

#[test]
fn a_rotated_transcript_is_read_from_its_new_file() {
    let p = Project::new();
    p.append(&[
        spawn_line("toolu_a", "coder", "[ROLE:alpha] a"),
        usage_line("m1", 100),
    ]);
    start_ok(&p, "ag-1", "coder");
    // Rotated: the old file is renamed (and still grows), a new one takes its name.
    let old = p.transcript.with_extension("jsonl.1");
    std::fs::rename(&p.transcript, &old).expect("rotate");
    append_lines(
        &old,
        &[spawn_line("toolu_stale", "coder", "[ROLE:stale] s")],
    );
    // Longer than what was scanned, so only the file's identity tells them apart.
    let mut fresh: Vec<Value> = (0..8).map(|i| usage_line(&format!("n{i}"), 200)).collect();
    fresh.push(spawn_line("toolu_b", "coder", "[ROLE:beta] b"));
    append_lines(&p.transcript, &fresh);
    start_ok(&p, "ag-2", "coder");
    assert_eq!(role_of(&p, "ag-2").0.as_deref(), Some("beta"));
    assert_eq!(spawn_count(&p), ids(&["toolu_a", "toolu_b"]));
    // The new file keeps growing: read incrementally from its own cursor.
    p.append(&[spawn_line("toolu_c", "coder", "[ROLE:gamma] c")]);
    start_ok(&p, "ag-3", "coder");
    assert_eq!(role_of(&p, "ag-3").0.as_deref(), Some("gamma"));
    assert_eq!(spawn_count(&p), ids(&["toolu_a", "toolu_b", "toolu_c"]));
}

#[test]
fn a_replaced_transcript_does_not_hand_out_a_spawn_twice() {
    let p = Project::new();
    let original = vec![
        spawn_line("toolu_a", "coder", "[ROLE:alpha] a"),
        usage_line("m1", 100),
        spawn_line("toolu_b", "tester", "[ROLE:beta] b"),
    ];
    p.append(&original);
    start_ok(&p, "ag-1", "coder");
    assert_eq!(role_of(&p, "ag-1").0.as_deref(), Some("alpha"));

    // Replaced atomically (written aside, renamed over) by a copy that goes on: every
    // spawn is seen again, none is stored or matched twice.
    let mut copy = original.clone();
    copy.push(spawn_line("toolu_c", "coder", "[ROLE:gamma] c"));
    let aside = p.transcript.with_extension("tmp");
    std::fs::write(&aside, lines(&copy)).expect("write copy");
    std::fs::rename(&aside, &p.transcript).expect("replace");
    start_ok(&p, "ag-2", "coder");
    assert_eq!(
        role_of(&p, "ag-2").0.as_deref(),
        Some("gamma"),
        "toolu_a already belongs to ag-1"
    );
    assert_eq!(spawn_count(&p), ids(&["toolu_a", "toolu_b", "toolu_c"]));

    // Rewritten in place to the same length with a different last line.
    let mut same_len = copy.clone();
    let last = same_len.len() - 1;
    same_len[last] = spawn_line("toolu_d", "coder", "[ROLE:delta] d");
    let text = lines(&same_len);
    assert_eq!(text.len(), lines(&copy).len(), "same length");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(&p.transcript)
        .expect("open");
    f.write_all(text.as_bytes()).expect("rewrite in place");
    drop(f);
    start_ok(&p, "ag-3", "coder");
    assert_eq!(role_of(&p, "ag-3").0.as_deref(), Some("delta"));
    assert_eq!(
        spawn_count(&p),
        ids(&["toolu_a", "toolu_b", "toolu_c", "toolu_d"])
    );
    start_ok(&p, "ag-4", "tester");
    assert_eq!(role_of(&p, "ag-4").0.as_deref(), Some("beta"));
    assert_consistent(&p.db(), "after replacements");
}

/// Holds a POSIX write lock on byte `at` of the database's shared-memory file, as
/// another process's stuck writer would: every connection then waits on it.
fn lock_shm_byte(p: &Project, at: i64) -> std::fs::File {
    use std::os::fd::AsRawFd;
    let shm = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(p.root.join(".claude-nagger/state.db-shm"))
        .expect("the database's shared memory");
    // SAFETY: a zeroed flock is a valid value, and the descriptor is open.
    let rc = unsafe {
        let mut lock: libc::flock = std::mem::zeroed();
        lock.l_type = libc::c_short::try_from(libc::F_WRLCK).expect("a lock type");
        lock.l_whence = libc::c_short::try_from(libc::SEEK_SET).expect("a whence");
        lock.l_start = at;
        lock.l_len = 1;
        libc::fcntl(shm.as_raw_fd(), libc::F_SETLK, &lock)
    };
    assert_eq!(rc, 0, "lock byte {at}");
    shm
}

/// The database answers too slowly for the hook's second (a lock that makes every wait
/// run out): the config's block and ask rules still stop what they name, firing every
/// time as without the database, and a call no rule names passes.
#[test]
fn rules_still_stop_what_they_name_when_the_database_answers_too_late() {
    let p = Project::new();
    p.write_config(
        r#"
[[rules.command]]
name = "no deploys"
patterns = ["make deploy*"]
severity = "block"
message = "BLOCK-RULE-MESSAGE"
[[rules.command]]
name = "push"
patterns = ["git push*"]
severity = "ask"
message = "ASK-RULE-MESSAGE"
"#,
    );
    p.hook(&p.session_start("startup"));
    for byte in [120, 121] {
        let held = lock_shm_byte(&p, byte);
        let started = Instant::now();
        let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "make deploy"})));
        assert!(started.elapsed() < Duration::from_millis(1500), "{r:?}");
        assert_eq!(r.decision().as_deref(), Some("deny"), "byte {byte}: {r:?}");
        assert!(r.reason().contains("BLOCK-RULE-MESSAGE"), "{r:?}");
        let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "git push origin main"})));
        assert_eq!(r.decision().as_deref(), Some("ask"), "byte {byte}: {r:?}");
        assert!(r.reason().contains("ASK-RULE-MESSAGE"), "{r:?}");
        let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "cargo test"})));
        assert_eq!(r.decision(), None, "a call no rule names passes: {r:?}");
        drop(held);
    }
}

/// Rules so slow to check that no answer comes within the hook's second (hundreds of
/// Unicode-heavy regexes): a call the guard lets through is asked about, not passed
/// unchecked, and the guard still refuses what it refuses.
#[test]
fn rules_too_slow_to_check_in_time_ask_instead_of_passing() {
    let p = Project::new();
    let mut config = String::from(
        "[[rules.command]]\nname = \"deploy\"\npatterns = [\"make deploy*\"]\nseverity = \"ask\"\nmessage = \"ASK-RULE-MESSAGE\"\n",
    );
    for i in 0..300 {
        use std::fmt::Write as _;
        let _ = write!(
            config,
            "[[rules.tool]]\nname = \"heavy{i}\"\ntool = \"Bash\"\ninput = {{ command = '\\w{{12}}\\p{{L}}{{4}}z{i}' }}\nseverity = \"ask\"\nmessage = \"heavy\"\n"
        );
    }
    p.write_config(&config);
    let started = Instant::now();
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "make deploy"})));
    assert!(started.elapsed() < Duration::from_millis(1500), "{r:?}");
    assert_eq!(r.decision().as_deref(), Some("ask"), "{r:?}");
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "rm -rf /"})));
    assert_eq!(r.decision().as_deref(), Some("deny"), "{r:?}");
}

/// A config that is there but cannot be read (a link that loops, something in its place
/// that is no file): the settings the user last trusted stay in force in its place; with
/// those unreadable too, the rules cannot be checked, so a tool call the guard passes is
/// asked about, and one it refuses is still refused.
#[test]
fn an_unreadable_config_asks_instead_of_dropping_its_rules() {
    let p = Project::new();
    let dir = p.root.join(".claude-nagger");
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        "[[rules.command]]\nname = \"no-push\"\npatterns = [\"git push*\"]\nseverity = \"deny\"\nmessage = \"no\"\n",
    )
    .expect("config");
    let push = p.pre_tool_use("Bash", json!({"command": "git push origin main"}));
    assert_eq!(p.hook(&push).decision().as_deref(), Some("deny"));
    std::fs::remove_file(&config).expect("rm");
    std::os::unix::fs::symlink("config.toml", &config).expect("loop");
    // The trusted settings hold the rule: it still refuses, and nothing else is asked.
    assert_eq!(p.hook(&push).decision().as_deref(), Some("deny"));
    let ls = p.pre_tool_use("Bash", json!({"command": "ls"}));
    assert_eq!(p.hook(&ls).decision(), None);
    // Those unreadable too: asked.
    let trusted = dir.join("trusted.json");
    std::fs::remove_file(&trusted).expect("rm");
    std::os::unix::fs::symlink("trusted.json", &trusted).expect("loop");
    for input in [&push, &ls] {
        let r = p.hook(input);
        assert_eq!(r.code, 0);
        assert_eq!(r.decision().as_deref(), Some("ask"), "{}", r.stdout);
    }
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "rm -rf /"})));
    assert_eq!(r.decision().as_deref(), Some("deny"), "{}", r.stdout);
}

/// Another process truncating the database's shared-memory file, which SQLite maps, makes
/// the next read of the mapping fault (`SIGBUS`): the hook still gives the guard's answer
/// and exits 0, every time.
#[test]
fn a_shared_memory_file_truncated_under_the_hook_keeps_the_refusal() {
    let p = Project::new();
    let rm = p.pre_tool_use("Bash", json!({"command": "rm -rf /"}));
    p.hook(&rm).assert_deny("before");
    let shm = p.root.join(".claude-nagger/state.db-shm");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let truncating = {
        let stop = std::sync::Arc::clone(&stop);
        let shm = shm.clone();
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(f) = std::fs::OpenOptions::new().write(true).open(&shm) {
                    let _ = f.set_len(0);
                }
            }
        })
    };
    let results: Vec<HookResult> = (0..20).map(|_| p.hook(&rm)).collect();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    truncating.join().expect("the truncating thread");
    for (k, r) in results.iter().enumerate() {
        r.assert_deny(&format!("call {k}"));
    }
    let ls = p.pre_tool_use("Bash", json!({"command": "ls"}));
    let r = p.hook(&ls);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.decision(), None, "{r:?}");
}

/// No thread can be started (a limit of one process for the user, which counts threads)
/// while a lease on the database holds every open of it: the deadline answers by a timer
/// signal in the watchdog's place, with the guard's refusal, and the process ends.
/// Limits on processes do not bind root, so as root the hook runs as `nobody`; not as
/// root, nothing to test.
#[test]
fn without_threads_a_held_database_still_gets_the_refusal_in_time() {
    if !running_as_root() {
        eprintln!("not root: the limit cannot be set for another user");
        return;
    }
    let p = Project::new();
    let rm = p.pre_tool_use("Bash", json!({"command": "rm -rf /"}));
    p.hook(&rm).assert_deny("before");
    let temp = p.root.parent().expect("project in a temp dir");
    chmod(temp, 0o755);
    chmod(p.transcript.parent().expect("transcripts dir"), 0o755);
    let chown = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(&p.root)
        .status()
        .expect("chown");
    assert!(chown.success());
    let Some(lease) = write_lease(&p.db_path()) else {
        return;
    };
    let mut cmd = p.command(&["hook"]);
    cmd.uid(65534).gid(65534);
    // SAFETY: only setrlimit between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let one = libc::rlimit {
                rlim_cur: 1,
                rlim_max: 1,
            };
            if libc::setrlimit(libc::RLIMIT_NPROC, &raw const one) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let started = Instant::now();
    let r = run_with(cmd, &rm);
    let took = started.elapsed();
    drop(lease);
    r.assert_deny("no thread, the database held");
    assert_eq!(r.code, 0, "{r:?}");
    // The kernel holds the open for its lease-break time (45 s by default).
    assert!(took < Duration::from_secs(10), "{took:?}: {r:?}");
}

/// The variable that gives a run valgrind counts a later deadline does nothing by
/// itself: a hook Claude Code runs with it set still answers by the second.
#[test]
fn the_profilers_variable_alone_keeps_the_deadline() {
    let p = Project::new();
    let rm = p.pre_tool_use("Bash", json!({"command": "rm -rf /"}));
    p.hook(&rm).assert_deny("before");
    let Some(lease) = write_lease(&p.db_path()) else {
        return;
    };
    let mut cmd = p.command(&["hook"]);
    cmd.env("NAGGER_NO_DEADLINE", "1");
    let r = run_with(cmd, &rm);
    drop(lease);
    r.assert_deny("the database held, the variable set");
    assert!(
        r.stderr.contains("within 800 ms"),
        "the usual deadline answered: {r:?}"
    );
}

/// A stdout whose reader takes nothing loses the answer, but never silently: the
/// deadline ends the run and says why on stderr.
#[test]
fn an_answer_stdout_does_not_take_is_reported_on_stderr() {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    let p = Project::new();
    let rm = p.pre_tool_use("Bash", json!({"command": "rm -rf /"}));
    let mut fds = [0; 2];
    // SAFETY: a new pipe, both ends owned below.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: fresh descriptors this test owns.
    let (reader, writer) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // Filled to the brim without blocking, then handed over blocking as a pipe is.
    // SAFETY: flags of a descriptor this test owns.
    unsafe {
        let flags = libc::fcntl(writer.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(writer.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
        let page = [b'x'; 4096];
        while libc::write(writer.as_raw_fd(), page.as_ptr().cast(), page.len()) > 0 {}
        while libc::write(writer.as_raw_fd(), page.as_ptr().cast(), 1) > 0 {}
        libc::fcntl(writer.as_raw_fd(), libc::F_SETFL, flags);
    }
    let child = p
        .command(&["hook"])
        .stdin(stdin_file(rm.to_string().as_bytes()))
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn nagger");
    let out = child.wait_with_output().expect("wait");
    drop(reader);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("not written whole"), "{stderr}");
}

/// A file for stdout that may not grow past a size smaller than the answer gets no half
/// answer (which would read as plain text): nothing, and a line on stderr.
#[test]
fn an_answer_a_file_size_limit_would_cut_is_not_begun() {
    let p = Project::new();
    let rm = p.pre_tool_use("Bash", json!({"command": "rm -rf /"}));
    p.hook(&rm).assert_deny("before");
    let out_path = p.root.join("answer.out");
    let out = std::fs::File::create(&out_path).expect("stdout file");
    let mut cmd = p.command(&["hook"]);
    // SAFETY: only setrlimit between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let small = libc::rlimit {
                rlim_cur: 100,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &raw const small) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd
        .stdin(stdin_file(rm.to_string().as_bytes()))
        .stdout(Stdio::from(out))
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn nagger");
    let done = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{stderr}");
    assert_eq!(std::fs::read(&out_path).expect("read").len(), 0, "{stderr}");
    assert!(stderr.contains("could not be written"), "{stderr}");
}

/// A mask that takes the owner's rights away (`umask 0777`) does not leave nagger files
/// no later run can open: the owner keeps reading and writing them.
#[test]
fn a_mask_without_the_owners_rights_leaves_files_the_next_run_opens() {
    let p = Project::new();
    std::fs::remove_file(p.db_path()).ok();
    let mut cmd = p.command(&["hook"]);
    // SAFETY: only umask between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::umask(0o777);
            Ok(())
        });
    }
    let r = run_with(cmd, &p.session_start("startup"));
    assert_eq!(r.code, 0, "{r:?}");
    let mode = std::fs::metadata(p.db_path())
        .expect("state.db")
        .permissions()
        .mode();
    assert_eq!(mode & 0o600, 0o600, "mode {mode:o}");
    assert_eq!(mode & 0o077, 0, "the rest of the mask holds: mode {mode:o}");
    let again = p.hook(&p.session_start("resume"));
    assert_eq!((again.code, again.stderr.as_str()), (0, ""), "{again:?}");
}
