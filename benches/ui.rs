//! `nagger ui` under load: the dashboard's endpoints fetched over and over while 16
//! `nagger hook` processes at a time write to the same database. Prints p50/p95/max per
//! endpoint and over all requests, and fails when the overall p95 passes 100 ms or any
//! hook run fails. `cargo bench --bench ui` runs it in full; without `--bench`
//! (`cargo test --benches`) it is a quick smoke run.

#[path = "../tests/common/ui_client.rs"]
mod ui_client;

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use ui_client::{UiServer, request};

const NAGGER: &str = env!("CARGO_BIN_EXE_nagger");
const WRITERS: usize = 16;
const P95_LIMIT_MS: f64 = 100.0;

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let runs_per_writer = if full { 60 } else { 3 };
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, db) = demo(dir.path());
    let transcript = dir.path().join("bench-session.jsonl");
    std::fs::write(&transcript, "").expect("transcript");

    let mut cmd = Command::new(NAGGER);
    cmd.args(["ui", "--db", &db.display().to_string()])
        .env("CLAUDE_PROJECT_DIR", &root)
        .current_dir(&root);
    let ui = Arc::new(UiServer::start(cmd));
    let session = the_session(&ui);
    let endpoints = [
        "/api/changes".to_string(),
        "/api/sessions".to_string(),
        format!("/api/timeline?session={session}"),
        "/api/timeline?session=bench-session".to_string(),
        "/api/context".to_string(),
        format!("/api/context?session={session}&role=reviewer"),
        "/api/rules".to_string(),
        "/api/stats".to_string(),
    ];

    // Readers: two browser tabs' worth of requests, back to back, until the writers end.
    let writing = Arc::new(AtomicBool::new(true));
    let timings: Arc<Mutex<Vec<(usize, f64)>>> = Arc::default();
    let readers: Vec<_> = (0..2)
        .map(|r| {
            let (ui, writing, timings, endpoints) = (
                Arc::clone(&ui),
                Arc::clone(&writing),
                Arc::clone(&timings),
                endpoints.clone(),
            );
            std::thread::spawn(move || {
                let mut i = r;
                while writing.load(Ordering::Relaxed) {
                    let e = i % endpoints.len();
                    let target = format!("{}&token={}", with_query(&endpoints[e]), ui.token);
                    let start = Instant::now();
                    let reply = request(ui.port, "GET", &target, &ui.host(), &[]);
                    let ms = start.elapsed().as_secs_f64() * 1000.0;
                    assert!(
                        reply.status == 200 || (reply.status == 404 && e == 3),
                        "{}: {} {}",
                        endpoints[e],
                        reply.status,
                        reply.body
                    );
                    timings.lock().expect("timings").push((e, ms));
                    i += 1;
                }
            })
        })
        .collect();

    // Writers: 16 hook processes at a time, each a stream of real hook runs.
    let started = Instant::now();
    let failures: Arc<Mutex<Vec<String>>> = Arc::default();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (root, transcript, failures) =
                (root.clone(), transcript.clone(), Arc::clone(&failures));
            std::thread::spawn(move || {
                for n in 0..runs_per_writer {
                    let input = hook_input(&root, &transcript, w, n);
                    if let Err(e) = run_hook(&root, &input) {
                        failures.lock().expect("failures").push(e);
                    }
                }
            })
        })
        .collect();
    for w in writers {
        w.join().expect("writer");
    }
    let hook_runs = WRITERS * runs_per_writer;
    let write_secs = started.elapsed().as_secs_f64();
    writing.store(false, Ordering::Relaxed);
    for r in readers {
        r.join().expect("reader");
    }

    let timings = timings.lock().expect("timings");
    let mut out = String::new();
    out.push_str(&format!(
        "nagger ui under load: {hook_runs} hook runs by {WRITERS} concurrent processes in {write_secs:.1} s\n\n"
    ));
    out.push_str("| endpoint | requests | p50 ms | p95 ms | max ms |\n|---|---:|---:|---:|---:|\n");
    for (e, name) in endpoints.iter().enumerate() {
        let mut v: Vec<f64> = timings
            .iter()
            .filter(|(i, _)| *i == e)
            .map(|t| t.1)
            .collect();
        out.push_str(&row(name, &mut v));
    }
    let mut all: Vec<f64> = timings.iter().map(|t| t.1).collect();
    let overall_p95 = percentile(&mut all, 0.95);
    out.push_str(&row("**all**", &mut all));
    println!("{out}");
    let failures = failures.lock().expect("failures");
    assert!(
        failures.is_empty(),
        "{} of {hook_runs} hook runs failed: {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    println!("every hook run exited 0 with nothing on stderr");
    if full {
        assert!(
            overall_p95 <= P95_LIMIT_MS,
            "p95 {overall_p95:.1} ms is over {P95_LIMIT_MS} ms"
        );
        println!("p95 over all endpoints: {overall_p95:.1} ms (limit {P95_LIMIT_MS} ms)");
    }
}

fn with_query(path: &str) -> String {
    if path.contains('?') {
        path.to_string()
    } else {
        format!("{path}?")
    }
}

fn row(name: &str, v: &mut [f64]) -> String {
    if v.is_empty() {
        return format!("| {name} | 0 | | | |\n");
    }
    let p50 = percentile(v, 0.50);
    let p95 = percentile(v, 0.95);
    let max = percentile(v, 1.0);
    format!(
        "| {name} | {} | {p50:.1} | {p95:.1} | {max:.1} |\n",
        v.len()
    )
}

/// Nearest-rank percentile.
fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let rank = ((p * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

/// `nagger demo --keep` under `tmp`: a database with a whole multi-agent session.
fn demo(tmp: &Path) -> (PathBuf, PathBuf) {
    let out = Command::new(NAGGER)
        .args(["demo", "--keep"])
        .env("TMPDIR", tmp)
        .output()
        .expect("run nagger demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let kept = stdout
        .lines()
        .find_map(|l| l.strip_prefix("project kept at "))
        .expect("the kept path is printed");
    let root = Path::new(kept).join("shop");
    let db = root.join(".claude-nagger/state.db");
    (root, db)
}

fn the_session(ui: &UiServer) -> String {
    let sessions: Value = ui.json("/api/sessions");
    sessions["sessions"][0]["session_id"]
        .as_str()
        .expect("a session")
        .to_string()
}

/// A mix of what a busy session sends: quiet tool calls, a guard denial, subagents
/// starting and stopping.
fn hook_input(root: &Path, transcript: &Path, writer: usize, n: usize) -> Value {
    let mut v = json!({
        "session_id": "bench-session",
        "transcript_path": transcript.display().to_string(),
        "cwd": root.display().to_string(),
        "permission_mode": "default",
    });
    let agent = format!("bench-{writer}");
    let fields = match n % 6 {
        0 => {
            json!({"hook_event_name": "SubagentStart", "agent_id": agent, "agent_type": "navigator"})
        }
        5 => {
            json!({"hook_event_name": "SubagentStop", "agent_id": agent, "agent_type": "navigator",
                    "stop_hook_active": true, "last_assistant_message": "done"})
        }
        3 => json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "agent_id": agent,
                    "agent_type": "navigator", "tool_input": {"command": "rm -rf /"},
                    "tool_use_id": format!("toolu_{writer}_{n}")}),
        _ => json!({"hook_event_name": "PreToolUse", "tool_name": "Read", "agent_id": agent,
                    "agent_type": "navigator", "tool_input": {"file_path": "README.md"},
                    "tool_use_id": format!("toolu_{writer}_{n}")}),
    };
    for (k, val) in fields.as_object().expect("object") {
        v[k] = val.clone();
    }
    v
}

/// One `nagger hook` run as Claude Code starts it; an error unless it exited 0 quietly.
fn run_hook(root: &Path, input: &Value) -> Result<(), String> {
    let mut child = Command::new(NAGGER)
        .arg("hook")
        .env_clear()
        .env("CLAUDE_PROJECT_DIR", root)
        .env("HOME", root)
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.to_string().as_bytes())
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() != Some(0) || !stderr.trim().is_empty() {
        return Err(format!("exit {:?}: {stderr}", out.status.code()));
    }
    Ok(())
}
