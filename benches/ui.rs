//! `nagger ui` under load: the dashboard's endpoints fetched over and over while 16
//! `nagger hook` processes at a time write to the same database. Prints p50/p95/max per
//! endpoint and over all requests, and fails when the overall p95 passes 100 ms or any
//! hook run fails. `cargo bench --bench ui` runs it in full; without `--bench`
//! (`cargo test --benches`) it is a quick smoke run.

#[path = "../tests/common/ui_client.rs"]
mod ui_client;

use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use ui_client::{UiServer, kept_demo, request};

const NAGGER: &str = env!("CARGO_BIN_EXE_nagger");
const WRITERS: usize = 16;
const P95_LIMIT_MS: f64 = 100.0;

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let runs_per_writer = if full { 60 } else { 3 };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut demo = Command::new(NAGGER);
    demo.env("TMPDIR", dir.path());
    let (root, db) = kept_demo(demo);
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
        "/api/timeline?session=bench-alone".to_string(),
        "/api/context".to_string(),
        format!("/api/context?session={session}&role=reviewer"),
        "/api/rules".to_string(),
        "/api/stats".to_string(),
    ];

    // The same writing three times: the dashboard idle; read as four open pages read it
    // (each polls the change marker and refetches its data about once a second while
    // hooks write); and read back to back by two clients, the figures below.
    let w = Writing {
        root: &root,
        transcript: &transcript,
        runs: runs_per_writer,
    };
    let (alone, _) = phase(&ui, &endpoints, &w, "bench-alone", 0, Duration::ZERO);
    let (pages, page_timings) = phase(
        &ui,
        &endpoints,
        &w,
        "bench-pages",
        4,
        Duration::from_secs(1),
    );
    let (loaded, timings) = phase(&ui, &endpoints, &w, "bench-session", 2, Duration::ZERO);
    let hook_runs = WRITERS * runs_per_writer;

    let mut out = String::new();
    let _ = write!(
        out,
        "nagger ui under load: {hook_runs} hook runs by {WRITERS} concurrent processes in {:.1} s\n\n",
        loaded.secs
    );
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
    let _ = write!(
        out,
        "\n| hook runs, {WRITERS} at a time | runs | p50 ms | p95 ms | max ms |\n|---|---:|---:|---:|---:|\n"
    );
    for (name, phase) in [
        ("dashboard idle", &alone),
        ("four open pages", &pages),
        ("read back to back", &loaded),
    ] {
        let mut d = phase.durations.clone();
        out.push_str(&row(name, &mut d));
    }
    println!("{out}");
    let mut page_ms: Vec<f64> = page_timings.iter().map(|t| t.1).collect();
    println!(
        "four open pages: {} requests, p95 {:.1} ms",
        page_ms.len(),
        percentile(&mut page_ms, 0.95)
    );
    for phase in [&alone, &pages, &loaded] {
        assert!(
            phase.failures.is_empty(),
            "{} of {hook_runs} hook runs failed: {:?}",
            phase.failures.len(),
            &phase.failures[..phase.failures.len().min(5)]
        );
    }
    println!("every hook run exited 0 with nothing on stderr");
    if full {
        assert!(
            overall_p95 <= P95_LIMIT_MS,
            "p95 {overall_p95:.1} ms is over {P95_LIMIT_MS} ms"
        );
        println!("p95 over all endpoints: {overall_p95:.1} ms (limit {P95_LIMIT_MS} ms)");
    }
}

/// What the writers write with.
struct Writing<'a> {
    root: &'a Path,
    transcript: &'a Path,
    runs: usize,
}

/// One phase: the writers' hook runs in `session` while `readers` clients request each
/// endpoint in turn, `pause` apart; the phase and (endpoint index, ms) per request.
fn phase(
    ui: &Arc<UiServer>,
    endpoints: &[String],
    w: &Writing<'_>,
    session: &str,
    readers: usize,
    pause: Duration,
) -> (Phase, Vec<(usize, f64)>) {
    let writing = Arc::new(AtomicBool::new(true));
    let timings: Arc<Mutex<Vec<(usize, f64)>>> = Arc::default();
    let readers: Vec<_> = (0..readers)
        .map(|r| {
            let (ui, writing, timings, endpoints) = (
                Arc::clone(ui),
                Arc::clone(&writing),
                Arc::clone(&timings),
                endpoints.to_vec(),
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
                    std::thread::sleep(pause);
                }
            })
        })
        .collect();
    let result = write(w.root, w.transcript, session, w.runs);
    writing.store(false, Ordering::Relaxed);
    for r in readers {
        r.join().expect("reader");
    }
    let timings = std::mem::take(&mut *timings.lock().expect("timings"));
    (result, timings)
}

/// One phase of writing: each of WRITERS threads runs `runs` hook processes in a row.
struct Phase {
    secs: f64,
    durations: Vec<f64>,
    failures: Vec<String>,
}

fn write(root: &Path, transcript: &Path, session: &str, runs: usize) -> Phase {
    let started = Instant::now();
    let results: Arc<Mutex<(Vec<f64>, Vec<String>)>> = Arc::default();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (root, transcript, results, session) = (
                root.to_path_buf(),
                transcript.to_path_buf(),
                Arc::clone(&results),
                session.to_string(),
            );
            std::thread::spawn(move || {
                for n in 0..runs {
                    let input = hook_input(&root, &transcript, &session, w, n);
                    let start = Instant::now();
                    let outcome = run_hook(&root, &input);
                    let ms = start.elapsed().as_secs_f64() * 1000.0;
                    let mut r = results.lock().expect("results");
                    r.0.push(ms);
                    if let Err(e) = outcome {
                        r.1.push(e);
                    }
                }
            })
        })
        .collect();
    for w in writers {
        w.join().expect("writer");
    }
    let (durations, failures) = std::mem::take(&mut *results.lock().expect("results"));
    Phase {
        secs: started.elapsed().as_secs_f64(),
        durations,
        failures,
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
    // p is in [0, 1], so the rank is a whole number from 0 to v.len().
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let rank = ((p * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
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
fn hook_input(root: &Path, transcript: &Path, session: &str, writer: usize, n: usize) -> Value {
    let mut v = json!({
        "session_id": session,
        "transcript_path": transcript.display().to_string(),
        "cwd": root.display().to_string(),
        "permission_mode": "default",
    });
    let agent = format!("{session}-{writer}");
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
                    "tool_use_id": format!("toolu_{session}_{writer}_{n}")}),
        _ => json!({"hook_event_name": "PreToolUse", "tool_name": "Read", "agent_id": agent,
                    "agent_type": "navigator", "tool_input": {"file_path": "README.md"},
                    "tool_use_id": format!("toolu_{session}_{writer}_{n}")}),
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
