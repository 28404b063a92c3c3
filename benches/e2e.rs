//! End-to-end timings of the real `nagger hook` binary as Claude Code runs it: spawn,
//! JSON on stdin, wait for exit. Each scenario N times (median / p95 / p99), against
//! `/bin/true` started the same way, printed as a markdown table and written to
//! `<target>/e2e.md`. `cargo bench --bench e2e` runs it in full; without `--bench`
//! (`cargo test --benches`) it is a quick smoke run with small sizes.

use std::fmt::Write as _;
use std::fs::OpenOptions;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use rusqlite::Connection;
use serde_json::{Value, json};

/// The binary measured: this build's, or `NAGGER_E2E_BINARY` (another build, to
/// compare before and after a change under the same conditions).
fn nagger() -> PathBuf {
    std::env::var_os("NAGGER_E2E_BINARY")
        .filter(|p| !p.is_empty())
        .map_or_else(
            || PathBuf::from(env!("CARGO_BIN_EXE_nagger")),
            PathBuf::from,
        )
}
const TRIVIAL: &str = "/bin/true";
/// Instructions a quiet PreToolUse may run, as a whole process.
const QUIET_INSTRUCTIONS: u64 = 1_000_000;
const EXAMPLE_CONFIG: &str = include_str!("../docs/example-config.toml");

/// How much work one run does.
struct Plan {
    /// Runs of each single-process scenario.
    runs: usize,
    /// Runs of the SubagentStart/SubagentStop scenarios.
    agent_runs: usize,
    /// Rounds of 32 concurrent processes.
    rounds: usize,
    transcript_bytes: usize,
    full: bool,
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let plan = if full {
        Plan {
            runs: 300,
            agent_runs: 100,
            rounds: 20,
            transcript_bytes: 100 << 20,
            full,
        }
    } else {
        Plan {
            runs: 5,
            agent_runs: 3,
            rounds: 1,
            transcript_bytes: 1 << 20,
            full,
        }
    };
    let (rows, instructions) = run(&plan);
    let table = render(&plan, &rows, instructions);
    println!("{table}");
    if plan.full {
        let out = target_dir().join("e2e.md");
        std::fs::write(&out, &table).expect("write e2e.md");
        eprintln!("written to {}", out.display());
    }
}

/// Cargo's `target/`: the binary lives in `target/<profile>/nagger`, or in
/// `target/<triple>/<profile>/nagger` when built for an explicit target (see
/// .cargo/config.toml); the target directory is the one that holds CACHEDIR.TAG.
fn target_dir() -> PathBuf {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_nagger"));
    binary
        .ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .or_else(|| binary.parent().and_then(Path::parent))
        .expect("the nagger binary lies in cargo's target directory")
        .to_path_buf()
}

// ── measuring ──

/// One finished process and how long it took from spawn to exit.
struct Run {
    elapsed: Duration,
    /// CPU time (user + system) of the process; only meaningful when no other child
    /// was reaped meanwhile (the single-process scenarios).
    cpu: Duration,
    output: Output,
}

/// CPU time (user + system) of every child this process has waited for so far.
fn children_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; zeroed is a valid rusage.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr());
        usage.assume_init()
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// A scenario's runs: wall time and CPU time of each.
#[derive(Default)]
struct Samples {
    elapsed: Vec<Duration>,
    cpu: Vec<Duration>,
}

impl Samples {
    fn push(&mut self, run: &Run) {
        self.elapsed.push(run.elapsed);
        self.cpu.push(run.cpu);
    }
}

impl Run {
    fn stdout(&self) -> &str {
        std::str::from_utf8(&self.output.stdout).unwrap_or("<not UTF-8>")
    }

    fn stderr(&self) -> &str {
        std::str::from_utf8(&self.output.stderr).unwrap_or("<not UTF-8>")
    }

    /// Asserts the run exited 0 with nothing on stderr.
    fn clean(self, what: &str) -> Run {
        assert_eq!(
            (self.output.status.code(), self.stderr()),
            (Some(0), ""),
            "{what}: nagger failed"
        );
        self
    }
}

/// Spawns `program`, writes `stdin`, waits: what Claude Code does for a hook.
fn spawn_and_wait(mut command: Command, stdin: &[u8]) -> Run {
    let cpu_before = children_cpu();
    let start = Instant::now();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(mut pipe) = child.stdin.take() {
        // A trivial program may exit before reading: a broken pipe is expected then.
        let _ = pipe.write_all(stdin);
    }
    let output = child.wait_with_output().expect("wait");
    Run {
        elapsed: start.elapsed(),
        cpu: children_cpu().saturating_sub(cpu_before),
        output,
    }
}

fn trivial(stdin: &[u8]) -> Run {
    spawn_and_wait(Command::new(TRIVIAL), stdin)
}

/// Percentiles of one scenario.
struct Row {
    scenario: String,
    samples: Vec<Duration>,
    /// Mean CPU time per run.
    cpu: Duration,
    budget: Budget,
}

#[derive(Clone, Copy)]
enum Budget {
    None,
    /// Median at most this, and at most this many times the trivial binary.
    Median(Duration, Option<f64>),
    /// Throughput of one full scan of `bytes`, at least `mb_per_s`.
    Throughput {
        bytes: u64,
        mb_per_s: f64,
    },
    /// Runs paired with a trivial one started the same way, one after the other: the
    /// median of the pairs' ratios at most `limit`.
    Paired {
        median_ratio: f64,
        limit: f64,
    },
    /// A burst started together: its p99 at most `limit` times the p99 of the same
    /// burst of trivial processes (`trivial_p99`), measured in the same rounds.
    Burst {
        trivial_p99: Duration,
        limit: f64,
        at_once: usize,
    },
}

impl Row {
    fn new(scenario: impl Into<String>, samples: Samples, budget: Budget) -> Row {
        let Samples {
            elapsed: mut samples,
            cpu,
        } = samples;
        samples.sort();
        Row {
            scenario: scenario.into(),
            cpu: cpu.iter().sum::<Duration>() / u32::try_from(cpu.len().max(1)).unwrap_or(u32::MAX),
            samples,
            budget,
        }
    }

    /// Nearest-rank percentile.
    fn percentile(&self, p: f64) -> Duration {
        let n = self.samples.len();
        // p is in [0, 1], so the rank is a whole number from 0 to n.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let rank = ((p * n as f64).ceil() as usize).clamp(1, n);
        self.samples[rank - 1]
    }

    fn median(&self) -> Duration {
        self.percentile(0.5)
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn render(plan: &Plan, rows: &[Row], instructions: Option<u64>) -> String {
    let trivial = rows[0].median();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| scenario | runs | median | p95 | p99 | vs trivial (median) | CPU per run | budget |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---|");
    for row in rows {
        let median = row.median();
        let ratio = ms(median) / ms(trivial);
        let budget = match row.budget {
            Budget::None => "—".to_string(),
            Budget::Median(limit, times) => {
                let times = times
                    .map(|t| format!(", ≤ {t}× trivial {}", mark(ratio <= t)))
                    .unwrap_or_default();
                format!("median ≤ {} ms {}{times}", ms(limit), mark(median <= limit))
            }
            Budget::Paired {
                median_ratio,
                limit,
            } => format!(
                "median of paired ratios {median_ratio:.2}× ≤ {limit}× {}",
                mark(median_ratio <= limit)
            ),
            Budget::Burst {
                trivial_p99,
                limit,
                at_once,
            } => {
                let times = ms(row.percentile(0.99)) / ms(trivial_p99);
                // No batch can end before its CPU time is spent on the cores there are.
                let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
                let bound = row.cpu * u32::try_from(at_once).unwrap_or(u32::MAX)
                    / u32::try_from(cores).unwrap_or(u32::MAX);
                format!(
                    "p99 {times:.2}× the trivial burst's ({:.1} ms) ≤ {limit}× {} \
                     (CPU alone: {at_once} × {:.2} ms / {cores} cores = {:.0} ms)",
                    ms(trivial_p99),
                    mark(times <= limit),
                    ms(row.cpu),
                    ms(bound)
                )
            }
            Budget::Throughput { bytes, mb_per_s } => {
                let got = bytes as f64 / f64::from(1 << 20) / median.as_secs_f64();
                format!("≥ {mb_per_s} MB/s: {got:.0} MB/s {}", mark(got >= mb_per_s))
            }
        };
        let _ = writeln!(
            out,
            "| {} | {} | {:.2} ms | {:.2} ms | {:.2} ms | {:.1}× | {:.2} ms | {} |",
            row.scenario,
            row.samples.len(),
            ms(median),
            ms(row.percentile(0.95)),
            ms(row.percentile(0.99)),
            ratio,
            ms(row.cpu),
            budget
        );
    }
    if let Some(n) = instructions {
        let _ = writeln!(
            out,
            "\nQuiet PreToolUse: {n} instructions (callgrind, one whole process), \
             budget ≤ {QUIET_INSTRUCTIONS} {}",
            mark(n <= QUIET_INSTRUCTIONS)
        );
    }
    let cores = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    let load = std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "?".into(),
        |l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    );
    let _ = writeln!(
        out,
        "\n`cargo bench --bench e2e`{}: spawn + stdin + wait per run, {cores} cores, \
         load average {load} after the run. Transcript {} MB.",
        if plan.full {
            ", release binary"
        } else {
            " (smoke run without --bench), test-profile binary"
        },
        plan.transcript_bytes >> 20
    );
    out
}

fn mark(ok: bool) -> &'static str {
    if ok { "✓" } else { "✗" }
}

// ── fixtures in Claude Code's formats ──

/// A project directory with the documented example config and a main-session transcript.
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    transcripts: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join(".claude-nagger")).expect("mkdir");
        std::fs::write(root.join(".claude-nagger/config.toml"), EXAMPLE_CONFIG).expect("config");
        let transcripts = dir.path().join("transcripts");
        std::fs::create_dir_all(&transcripts).expect("mkdir");
        Project {
            _dir: dir,
            root,
            transcripts,
        }
    }

    fn command(&self) -> Command {
        let mut command = Command::new(nagger());
        command
            .arg("hook")
            .env_clear()
            .env("CLAUDE_PROJECT_DIR", &self.root)
            .env("HOME", &self.root)
            .current_dir(&self.root);
        command
    }

    /// `sh`, with the environment and folder the hook gets.
    fn shell(&self) -> Command {
        let mut command = Command::new("sh");
        command
            .env_clear()
            .env("CLAUDE_PROJECT_DIR", &self.root)
            .env("HOME", &self.root)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .current_dir(&self.root);
        command
    }

    fn hook(&self, input: &Value) -> Run {
        spawn_and_wait(self.command(), input.to_string().as_bytes())
    }

    fn db(&self) -> Connection {
        let db = Connection::open(self.root.join(".claude-nagger/state.db")).expect("open db");
        db.busy_timeout(Duration::from_secs(5)).expect("busy");
        db
    }

    fn input(&self, session: &str, transcript: &Path, event: &str) -> Value {
        json!({
            "session_id": session,
            "transcript_path": transcript.display().to_string(),
            "cwd": self.root.display().to_string(),
            "hook_event_name": event,
            "permission_mode": "default",
        })
    }
}

fn with(mut input: Value, fields: Value) -> Value {
    if let (Some(input), Value::Object(fields)) = (input.as_object_mut(), fields) {
        input.extend(fields);
    }
    input
}

fn spawn_line(tool_use_id: &str, prompt: &str) -> Value {
    json!({"type": "assistant", "isSidechain": false, "uuid": format!("u-{tool_use_id}"),
        "message": {"id": format!("msg_{tool_use_id}"), "role": "assistant",
            "content": [{"type": "tool_use", "id": tool_use_id, "name": "Agent", "input": {
                "subagent_type": "coder", "description": "Fix the cart total", "prompt": prompt}}],
            "usage": {"input_tokens": 3, "cache_creation_input_tokens": 800,
                      "cache_read_input_tokens": 48000, "output_tokens": 400}}})
}

fn text_line(message: u64, text: &str) -> Value {
    json!({"type": "assistant", "isSidechain": false, "uuid": format!("u-{message}"),
        "message": {"id": format!("msg_{message:016x}"), "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 3, "cache_creation_input_tokens": 800,
                      "cache_read_input_tokens": 48000, "output_tokens": 400}}})
}

fn tool_result_line(message: u64, text: &str) -> Value {
    json!({"type": "user", "uuid": format!("r-{message}"),
        "message": {"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": format!("toolu_{message:016x}"), "content": text}]},
        "toolUseResult": {"type": "text", "file": {"filePath": "/p/src/cart.rs", "numLines": 120}}})
}

fn progress_line(parent: &str, agent_id: &str) -> Value {
    json!({"type": "progress", "parentToolUseID": parent, "toolUseID": "agent_msg_01",
        "data": {"type": "agent_progress", "agentId": agent_id,
                 "message": {"type": "assistant", "message": {"content": [{"type": "text", "text": "reading"}]}}}})
}

fn link_line(tool_use_id: &str, agent_id: &str) -> Value {
    json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result",
        "tool_use_id": tool_use_id, "content": [{"type": "text", "text": "[COMPRESSED] done"}]}]},
        "toolUseResult": {"agentId": agent_id, "status": "completed"}})
}

/// A main-session transcript of about `bytes`: the main agent's text and tool results,
/// and every 200 lines a finished subagent (spawn, progress lines, result link).
fn write_transcript(path: &Path, bytes: usize) {
    let mut out = BufWriter::new(std::fs::File::create(path).expect("create transcript"));
    let filler =
        "fn total(&self) -> Money { self.items.iter().map(|i| i.price).sum() } ".repeat(64);
    let mut written = 0;
    let mut n = 0u64;
    while written < bytes {
        let line = match n % 200 {
            199 => {
                let id = format!("toolu_old_{n}");
                let agent = format!("old-{n}");
                let mut lines = vec![spawn_line(&id, "[ROLE:coder] earlier work")];
                lines.extend((0..5).map(|_| progress_line(&id, &agent)));
                lines.push(link_line(&id, &agent));
                lines.iter().fold(String::new(), |mut text, l| {
                    let _ = writeln!(text, "{l}");
                    text
                })
            }
            i if i % 2 == 0 => format!("{}\n", text_line(n, &filler)),
            _ => format!("{}\n", tool_result_line(n, &filler)),
        };
        out.write_all(line.as_bytes()).expect("write transcript");
        written += line.len();
        n += 1;
    }
    out.flush().expect("flush transcript");
}

fn append(path: &Path, text: &str) {
    OpenOptions::new()
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .expect("append to transcript");
}

/// About 10 KB as Claude Code appends it between two spawns: one new spawn and the
/// main agent's messages.
fn ten_kb_with_spawn(i: usize) -> String {
    let mut text = format!(
        "{}\n",
        spawn_line(
            &format!("toolu_new_{i}"),
            &format!("[ROLE:coder] new work {i}")
        )
    );
    let mut n = 1 << 40 | (i as u64) << 8;
    while text.len() < 10 * 1024 {
        let _ = writeln!(text, "{}", text_line(n, "working on the cart"));
        n += 1;
    }
    text
}

/// A subagent's own transcript: reads, writes and edits, and its final report.
fn write_agent_transcript(path: &Path) {
    let mut out = String::new();
    for i in 0..200u64 {
        let block = match i % 4 {
            0 => json!({"type": "tool_use", "id": format!("toolu_w{i}"), "name": "Write",
                        "input": {"file_path": format!("/p/src/cart/file{}.rs", i % 12), "content": "x"}}),
            1 => json!({"type": "tool_use", "id": format!("toolu_e{i}"), "name": "Edit",
                        "input": {"file_path": "/p/src/cart.rs", "old_string": "a", "new_string": "b"}}),
            2 => json!({"type": "tool_use", "id": format!("toolu_r{i}"), "name": "Read",
                        "input": {"file_path": "/p/src/lib.rs"}}),
            _ => json!({"type": "text", "text": "looking at the totals ".repeat(20)}),
        };
        let line = json!({"type": "assistant", "isSidechain": true,
            "message": {"id": format!("msg_a{i}"), "role": "assistant", "content": [block],
                "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0,
                          "cache_read_input_tokens": 2000 + i, "output_tokens": 30}}});
        let _ = writeln!(out, "{line}");
    }
    std::fs::write(path, out).expect("write agent transcript");
}

fn report(i: usize) -> String {
    format!(
        "[COMPRESSED] agent_type: coder\nChanged files: src/cart/file{i}.rs\n\
         Result: cart totals round per line item ({i})\nDecisions: keep Money as cents\nBlockers: none"
    )
}

// ── scenarios ──

fn run(plan: &Plan) -> (Vec<Row>, Option<u64>) {
    let p = Project::new();
    let session = "e2e-session";
    let transcript = p.transcripts.join(format!("{session}.jsonl"));
    eprintln!("writing a {} MB transcript...", plan.transcript_bytes >> 20);
    write_transcript(&transcript, plan.transcript_bytes);
    let transcript_len = std::fs::metadata(&transcript).expect("stat").len();
    let common = |event: &str| p.input(session, &transcript, event);

    p.hook(&with(common("SessionStart"), json!({"source": "startup"})))
        .clean("SessionStart");
    let quiet = with(
        common("PreToolUse"),
        json!({"tool_name": "Read", "tool_input": {"file_path": "src/lib.rs"}, "tool_use_id": "toolu_q"}),
    );
    // The first call shows the conventions; from then on the main agent hears nothing.
    let first = p.hook(&quiet).clean("first PreToolUse");
    assert!(
        first.stdout().contains("deny"),
        "conventions on the first call"
    );
    let rule_hit = with(
        common("PreToolUse"),
        json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "toolu_rm"}),
    );
    let quiet_bytes = quiet.to_string().into_bytes();
    let rule_bytes = rule_hit.to_string().into_bytes();

    eprintln!("PreToolUse x {}, interleaved with {TRIVIAL}...", plan.runs);
    for _ in 0..5 {
        trivial(&quiet_bytes);
        p.hook(&quiet);
    }
    let (mut base, mut floor, mut nothing, mut denied) = Default::default();
    for _ in 0..plan.runs {
        Samples::push(&mut base, &trivial(&quiet_bytes));
        let mut version = Command::new(nagger());
        version.arg("--version");
        Samples::push(
            &mut floor,
            &spawn_and_wait(version, &quiet_bytes).clean("nagger --version"),
        );
        let run = spawn_and_wait(p.command(), &quiet_bytes).clean("PreToolUse");
        assert_eq!(run.stdout(), "", "the main agent has nothing to be told");
        Samples::push(&mut nothing, &run);
        let run = spawn_and_wait(p.command(), &rule_bytes).clean("PreToolUse rm -rf /");
        assert!(
            run.stdout().contains("\"permissionDecision\":\"deny\""),
            "the guard denies rm -rf /: {}",
            run.stdout()
        );
        Samples::push(&mut denied, &run);
    }

    // As Claude Code runs a hook: its command line through `sh -c`. Each nagger run is
    // paired with `sh -c true` run just before it, so that both see the same machine.
    eprintln!("sh -c pairs x {}...", plan.runs);
    let quiet_file = p.transcripts.join("quiet.json");
    std::fs::write(&quiet_file, &quiet_bytes).expect("write quiet.json");
    let through_sh = format!(
        "exec '{}' hook < '{}'",
        nagger().display(),
        quiet_file.display()
    );
    let (mut sh_true, mut sh_quiet, mut ratios) = (Samples::default(), Samples::default(), vec![]);
    for _ in 0..plan.runs {
        let mut trivial_sh = p.shell();
        trivial_sh.args(["-c", "true"]);
        let t = spawn_and_wait(trivial_sh, b"").clean("sh -c true");
        let mut hook_sh = p.shell();
        hook_sh.args(["-c", &through_sh]);
        let h = spawn_and_wait(hook_sh, b"").clean("sh -c nagger hook");
        assert_eq!(h.stdout(), "", "the main agent has nothing to be told");
        ratios.push(h.elapsed.as_secs_f64() / t.elapsed.as_secs_f64().max(1e-9));
        sh_true.push(&t);
        sh_quiet.push(&h);
    }
    ratios.sort_by(f64::total_cmp);
    let paired_median = ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN);
    let instructions = plan
        .full
        .then(|| quiet_instructions(&p, &quiet_file))
        .flatten();

    eprintln!("SubagentStart x {}...", plan.agent_runs);
    append(&transcript, &ten_kb_with_spawn(0));
    let start = |i: usize| {
        with(
            common("SubagentStart"),
            json!({"agent_id": format!("agent-{i}"), "agent_type": "coder"}),
        )
    };
    let mut first_scan = Samples::default();
    first_scan.push(&p.hook(&start(0)).clean("first SubagentStart"));
    let mut starts = Samples::default();
    for i in 1..=plan.agent_runs {
        append(&transcript, &ten_kb_with_spawn(i));
        let run = p.hook(&start(i)).clean("SubagentStart");
        assert!(
            run.stdout().contains("additionalContext"),
            "{}",
            run.stdout()
        );
        starts.push(&run);
    }
    let scanned: i64 = p
        .db()
        .query_row(
            "SELECT json_extract(details, '$.bytes_scanned') FROM hook_log
             WHERE event_type = 'SubagentStart' ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .expect("last SubagentStart logged");
    assert!(
        scanned < 11 * 1024,
        "SubagentStart reads only what was appended, not {scanned} bytes"
    );

    eprintln!("SubagentStop x {}...", plan.agent_runs);
    let agent_transcript = p.transcripts.join("agent.jsonl");
    write_agent_transcript(&agent_transcript);
    let mut stops = Samples::default();
    for i in 1..=plan.agent_runs {
        let stop = with(
            common("SubagentStop"),
            json!({"agent_id": format!("agent-{i}"), "agent_type": "coder",
                   "agent_transcript_path": agent_transcript.display().to_string(),
                   "stop_hook_active": false, "last_assistant_message": report(i)}),
        );
        let run = p.hook(&stop).clean("SubagentStop");
        assert_eq!(run.stdout(), "", "a compressed report passes");
        stops.push(&run);
    }
    let collected: i64 = p
        .db()
        .query_row(
            "SELECT count(*) FROM context_entries WHERE files != '[]'",
            [],
            |r| r.get(0),
        )
        .expect("count entries");
    assert_eq!(
        usize::try_from(collected).unwrap(),
        plan.agent_runs,
        "every stop collected its report and files"
    );

    eprintln!("32 concurrent hook processes x {} rounds...", plan.rounds);
    let (concurrent, batches, trivial_burst) = concurrent_rounds(plan.rounds);
    let trivial_burst_row = Row::new(
        format!("32 × `{TRIVIAL}` at once (the same rounds)"),
        trivial_burst,
        Budget::None,
    );
    let trivial_p99 = trivial_burst_row.percentile(0.99);

    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let rows = vec![
        Row::new(format!("`{TRIVIAL}` (trivial binary)"), base, Budget::None),
        Row::new(
            "`nagger --version` (the binary starting, no hook work)",
            floor,
            Budget::None,
        ),
        Row::new(
            "PreToolUse, main agent, nothing to say",
            nothing,
            Budget::Median(Duration::from_millis(2), Some(3.0)),
        ),
        Row::new("PreToolUse, guard deny (`rm -rf /`)", denied, Budget::None),
        Row::new(
            "`sh -c true` (how Claude Code starts a hook)",
            sh_true,
            Budget::None,
        ),
        Row::new(
            "`sh -c 'exec nagger hook < quiet.json'`, paired with the row above",
            sh_quiet,
            Budget::Paired {
                median_ratio: paired_median,
                limit: 1.5,
            },
        ),
        Row::new(
            format!(
                "SubagentStart, first full scan of {} MB (1 run)",
                transcript_len >> 20
            ),
            first_scan,
            Budget::Throughput {
                bytes: transcript_len,
                mb_per_s: 300.0,
            },
        ),
        Row::new(
            format!(
                "SubagentStart, {} MB transcript +10 KB",
                transcript_len >> 20
            ),
            starts,
            Budget::Median(Duration::from_millis(5), None),
        ),
        Row::new(
            "SubagentStop, report + files collected",
            stops,
            Budget::None,
        ),
        Row::new(
            format!(
                "32 processes at once (16 SubagentStart + 16 legacy first calls), {cores} cores"
            ),
            concurrent,
            Budget::Burst {
                trivial_p99,
                limit: 2.0,
                at_once: 32,
            },
        ),
        trivial_burst_row,
        Row::new(
            "… the whole batch of 32 (first spawn to last exit), per round",
            batches,
            Budget::None,
        ),
    ];
    (rows, instructions)
}

/// Rounds of 16 SubagentStart and 16 legacy PreToolUse (no agent_id: they claim)
/// of one session started together. Checks in the database that every agent was
/// registered and matched once and that no claim was doubled or lost; returns every
/// process's spawn-to-exit time, and each round's wall time.
/// CPU time is measured over each whole batch and shared out evenly: 32 processes on
/// few cores cannot all finish sooner than their CPU time divided by the cores.
fn concurrent_rounds(rounds: usize) -> (Samples, Samples, Samples) {
    let p = Project::new();
    let mut durations = Samples::default();
    let mut batches = Samples::default();
    let mut trivial = Samples::default();
    for round in 0..rounds {
        // The floor: the same burst of a trivial process, just before.
        let cpu_before = children_cpu();
        let runs = burst(
            (0..32)
                .map(|_| (Command::new(TRIVIAL), Vec::new()))
                .collect(),
        );
        let per_process = children_cpu().saturating_sub(cpu_before) / 32;
        for run in runs {
            trivial.elapsed.push(run.elapsed);
            trivial.cpu.push(per_process);
        }
        let session = format!("concurrent-{round}");
        let transcript = p.transcripts.join(format!("{session}.jsonl"));
        let mut lines = String::new();
        for i in 0..16 {
            let _ = write!(
                lines,
                "{}\n{}\n",
                text_line(i, "planning"),
                spawn_line(&format!("toolu_c{i}"), &format!("[ROLE:coder] part {i}"))
            );
        }
        std::fs::write(&transcript, lines).expect("write transcript");
        // As Claude Code 2.1.68 writes them: each agent's own transcript starts with its
        // prompt and ends with the call its first PreToolUse is about.
        let own = p.transcripts.join(&session).join("subagents");
        std::fs::create_dir_all(&own).expect("subagents folder");
        for i in 0..16 {
            let prompt = json!({"type": "user", "isSidechain": true,
                "message": {"role": "user", "content": format!("[ROLE:coder] part {i}")}});
            let call = json!({"type": "assistant", "isSidechain": true,
                "message": {"id": format!("msg_read{i}"), "role": "assistant", "content": [
                    {"type": "tool_use", "id": format!("toolu_read{i}"), "name": "Read",
                     "input": {"file_path": "src/lib.rs"}}]}});
            std::fs::write(
                own.join(format!("agent-c{round}-{i}.jsonl")),
                format!("{prompt}\n{call}\n"),
            )
            .expect("write agent transcript");
        }
        let common = |event: &str| p.input(&session, &transcript, event);
        if round == 0 {
            // The database exists before the session's subagents start.
            p.hook(&with(common("SessionStart"), json!({"source": "startup"})))
                .clean("SessionStart");
        }
        let mut inputs: Vec<Value> = (0..16)
            .map(|i| {
                with(
                    common("SubagentStart"),
                    json!({"agent_id": format!("c{round}-{i}"), "agent_type": "coder"}),
                )
            })
            .collect();
        inputs.extend((0..16).map(|i| {
            with(
                common("PreToolUse"),
                json!({"tool_name": "Read", "tool_input": {"file_path": "src/lib.rs"},
                       "tool_use_id": format!("toolu_read{i}")}),
            )
        }));
        let cpu_before = children_cpu();
        let batch = Instant::now();
        let runs = burst(
            inputs
                .iter()
                .map(|input| (p.command(), input.to_string().into_bytes()))
                .collect(),
        );
        let elapsed = batch.elapsed();
        let cpu = children_cpu().saturating_sub(cpu_before);
        batches.elapsed.push(elapsed);
        batches.cpu.push(cpu);
        let per_process = cpu / u32::try_from(runs.len()).unwrap_or(u32::MAX);
        for run in runs {
            let run = run.clean("concurrent hook");
            durations.elapsed.push(run.elapsed);
            durations.cpu.push(per_process);
        }
        check_claims(&p, &session, &transcript);
    }
    (durations, batches, trivial)
}

/// Starts every command together (behind one barrier) with its stdin; their runs.
fn burst(commands: Vec<(Command, Vec<u8>)>) -> Vec<Run> {
    let barrier = Arc::new(Barrier::new(commands.len()));
    std::thread::scope(|s| {
        let handles: Vec<_> = commands
            .into_iter()
            .map(|(command, stdin)| {
                let barrier = barrier.clone();
                s.spawn(move || {
                    barrier.wait();
                    spawn_and_wait(command, &stdin)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("runner thread"))
            .collect()
    })
}

/// Every agent registered and matched to its own spawn; the claims made so far went
/// to distinct agents; draining the rest claims each remaining agent once.
fn check_claims(p: &Project, session: &str, transcript: &Path) {
    let db = p.db();
    let (agents, spawns, matched): (i64, i64, i64) = db
        .query_row(
            "SELECT count(*), count(DISTINCT task_spawn_id),
                    (SELECT count(*) FROM task_spawns t JOIN subagents a
                       ON t.id = a.task_spawn_id AND t.matched_agent_id = a.agent_id
                     WHERE a.session_id = ?1)
             FROM subagents WHERE session_id = ?1",
            [session],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .expect("registry");
    assert_eq!(
        (agents, spawns, matched),
        (16, 16, 16),
        "{session}: 16 agents, each matched to its own spawn"
    );
    let claimed_logged: Vec<String> = claimed_in_log(&db, session);
    let claimed_rows: i64 = db
        .query_row(
            "SELECT count(*) FROM subagents WHERE session_id = ?1 AND claimed_by IN ('claim', 'transcript')",
            [session],
            |r| r.get(0),
        )
        .expect("claimed");
    let mut unique = claimed_logged.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        (unique.len(), i64::try_from(claimed_logged.len()).unwrap()),
        (claimed_logged.len(), claimed_rows),
        "{session}: a claim was doubled or lost"
    );
    // The agents not yet claimed are claimed by the next legacy calls, each once.
    let drain = with(
        p.input(session, transcript, "PreToolUse"),
        json!({"tool_name": "Read", "tool_input": {"file_path": "src/lib.rs"}}),
    );
    for _ in claimed_logged.len()..16 {
        p.hook(&drain).clean("drain claim");
    }
    let mut all = claimed_in_log(&db, session);
    let total = all.len();
    all.sort();
    all.dedup();
    assert_eq!(
        (all.len(), total),
        (16, 16),
        "{session}: every agent claimed exactly once"
    );
}

fn claimed_in_log(db: &Connection, session: &str) -> Vec<String> {
    let mut stmt = db
        .prepare(
            "SELECT agent_id FROM hook_log WHERE session_id = ?1 AND event_type = 'PreToolUse'
             AND json_extract(details, '$.first_call') = 1
             AND json_extract(details, '$.caller') IN ('claim', 'transcript')",
        )
        .expect("prepare");
    stmt.query_map([session], |r| r.get(0))
        .expect("query")
        .map(|r| r.expect("row"))
        .collect()
}

/// Instructions of one quiet PreToolUse as a whole process, counted by callgrind (which
/// does not depend on the machine's load), when valgrind is installed. The hook's
/// deadline is off for it (`NAGGER_NO_DEADLINE=1`): valgrind runs it tens of times slower.
fn quiet_instructions(p: &Project, input: &Path) -> Option<u64> {
    let stdin = std::fs::File::open(input).expect("quiet.json");
    let out = p.transcripts.join("quiet.callgrind");
    let output = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(nagger())
        .arg("hook")
        .env_clear()
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .env("HOME", &p.root)
        .env("NAGGER_NO_DEADLINE", "1")
        .current_dir(&p.root)
        .stdin(stdin)
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && output.stdout.is_empty(),
        "the quiet call under valgrind: {stderr}"
    );
    let count = stderr
        .lines()
        .find_map(|l| l.split("Collected : ").nth(1))
        .and_then(|n| n.trim().parse().ok());
    if count.is_none() {
        eprintln!("valgrind printed no instruction count");
    }
    count
}
