//! Files that are not what they should be: a FIFO, a device, a multi-gigabyte sparse
//! file or a file that keeps growing, in place of a transcript, an agent transcript,
//! the config or a report. Every hook run finishes quickly, small, with exit 0, and
//! the guard still refuses what it refuses.

use crate::common::*;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Processor time (user and system) one hook run may take.
const MAX_TIME: Duration = Duration::from_secs(1);
/// Wall time one hook run may take: more than its processor time, as the machine may
/// be busy and a new database is synced to disk, but far from a hang.
const MAX_WALL: Duration = Duration::from_secs(5);
/// Resident memory one hook run may reach, in KiB.
const MAX_RSS_KIB: i64 = 64 * 1024;
/// Claude Code stores a longer hook output in a file and shows the agent a preview.
const OUTPUT_LIMIT: usize = 10_000;

/// One measured run of the real binary.
struct Measured {
    result: HookResult,
    elapsed: Duration,
    cpu: Duration,
    max_rss_kib: i64,
}

/// Where the helper process finds what to run, as JSON.
const HELPER_SPEC: &str = "NAGGER_TEST_MEASURE_SPEC";

/// Runs `cmd` with `stdin` (closed after it unless `keep_open`) and measures it.
///
/// A child's peak resident memory (ru_maxrss) counts the memory of the process it was
/// forked from until it runs its program, and this test process is large: so the
/// child is started by a small helper, this test binary run afresh with only
/// [`measure_helper`], which waits for it and reports its time and memory.
fn measure(cmd: &Command, stdin: &[u8], keep_open: bool) -> Measured {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("stdin");
    std::fs::write(&input, stdin).expect("stdin file");
    let spec = json!({
        "program": cmd.get_program().to_string_lossy(),
        "args": cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>(),
        "env": cmd
            .get_envs()
            .filter_map(|(k, v)| Some((k.to_string_lossy().into_owned(), v?.to_string_lossy().into_owned())))
            .collect::<Vec<_>>(),
        "cwd": cmd.get_current_dir().map(|d| d.display().to_string()),
        "stdin": input.display().to_string(),
        "keep_open": keep_open,
        "out": dir.path().join("out").display().to_string(),
        "err": dir.path().join("err").display().to_string(),
    });
    let helper = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--ignored",
            "--exact",
            "test_hostile_files::measure_helper",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(HELPER_SPEC, spec.to_string())
        .output()
        .expect("run the helper");
    let report = String::from_utf8_lossy(&helper.stdout);
    let line = report
        .lines()
        .find_map(|l| l.split_once("MEASURED ").map(|(_, rest)| rest))
        .unwrap_or_else(|| {
            panic!(
                "helper said {report} / {}",
                String::from_utf8_lossy(&helper.stderr)
            )
        });
    let fields: Vec<i64> = line
        .split(' ')
        .map(|f| f.parse().expect("number"))
        .collect();
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap_or_default();
    Measured {
        result: HookResult {
            code: i32::try_from(fields[0]).expect("an exit code"),
            stdout: read("out"),
            stderr: read("err"),
        },
        elapsed: Duration::from_micros(u64::try_from(fields[2]).expect("elapsed µs")),
        cpu: Duration::from_micros(u64::try_from(fields[3]).expect("CPU µs")),
        max_rss_kib: fields[1],
    }
}

/// Not a test: the helper process [`measure`] runs. Starts the child it is given,
/// feeds its stdin, waits for it alone and prints `MEASURED <code> <KiB> <wall µs>
/// <processor µs>`.
#[test]
#[ignore = "run by the hostile-file tests to measure a child"]
// The child is reaped by wait4, which also gives its resource usage.
#[allow(clippy::zombie_processes)]
fn measure_helper() {
    let Ok(spec) = std::env::var(HELPER_SPEC) else {
        return;
    };
    let spec: Value = serde_json::from_str(&spec).expect("spec");
    let text = |key: &str| spec[key].as_str().expect(key).to_string();
    let mut cmd = Command::new(text("program"));
    cmd.env_clear();
    for arg in spec["args"].as_array().expect("args") {
        cmd.arg(arg.as_str().expect("arg"));
    }
    for pair in spec["env"].as_array().expect("env") {
        cmd.env(
            pair[0].as_str().expect("key"),
            pair[1].as_str().expect("value"),
        );
    }
    if let Some(cwd) = spec["cwd"].as_str() {
        cmd.current_dir(cwd);
    }
    let stdin = std::fs::read(text("stdin")).expect("stdin");
    let started = Instant::now();
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(std::fs::File::create(text("out")).expect("out"))
        .stderr(std::fs::File::create(text("err")).expect("err"))
        .spawn()
        .expect("spawn");
    let mut pipe = child.stdin.take().expect("stdin");
    let _ = pipe.write_all(&stdin);
    let held = spec["keep_open"].as_bool().unwrap_or(false).then_some(pipe);
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value, filled in by wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing only into the locals given.
    let pid = unsafe {
        libc::wait4(
            libc::pid_t::try_from(child.id()).expect("a pid fits pid_t"),
            &raw mut status,
            0,
            &raw mut usage,
        )
    };
    let elapsed = started.elapsed();
    drop(held);
    assert_eq!(
        pid,
        libc::pid_t::try_from(child.id()).expect("a pid fits pid_t"),
        "wait4"
    );
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let micros = |t: libc::timeval| t.tv_sec * 1_000_000 + t.tv_usec;
    println!(
        "MEASURED {code} {} {} {}",
        usage.ru_maxrss,
        elapsed.as_micros(),
        micros(usage.ru_utime) + micros(usage.ru_stime)
    );
}

fn hook_measured(p: &Project, input: &Value) -> Measured {
    measure(&p.command(&["hook"]), input.to_string().as_bytes(), false)
}

/// Exit 0, within the time and memory bounds, output below Claude Code's limit.
fn assert_bounded(m: &Measured, what: &str) {
    assert_eq!(
        m.result.code, 0,
        "{what}: exit code, stderr {}",
        m.result.stderr
    );
    assert!(
        m.cpu < MAX_TIME && m.elapsed < MAX_WALL,
        "{what}: took {:?} of processor time, {:?} in all; stderr {}",
        m.cpu,
        m.elapsed,
        m.result.stderr
    );
    assert!(
        m.max_rss_kib < MAX_RSS_KIB,
        "{what}: {} KiB resident",
        m.max_rss_kib
    );
    assert!(m.result.stdout.chars().count() < OUTPUT_LIMIT, "{what}");
    assert!(
        m.result.stderr.lines().count() <= 1,
        "{what}: {}",
        m.result.stderr
    );
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// The hostile kinds of file, made at `path` (its folder exists).
#[derive(Debug, Clone, Copy)]
enum Hostile {
    Fifo,
    /// A symlink to `/dev/zero`.
    DevZero,
    /// 4 GiB of holes.
    Sparse,
    /// 4 GiB of holes, then one line of 40 MiB with no newline at the end.
    SparseTail,
}

const KINDS: [Hostile; 4] = [
    Hostile::Fifo,
    Hostile::DevZero,
    Hostile::Sparse,
    Hostile::SparseTail,
];

fn make(kind: Hostile, path: &Path) {
    let _ = std::fs::remove_file(path);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    match kind {
        Hostile::Fifo => mkfifo(path),
        Hostile::DevZero => std::os::unix::fs::symlink("/dev/zero", path).expect("symlink"),
        Hostile::Sparse => std::fs::File::create(path)
            .expect("create")
            .set_len(4 << 30)
            .expect("set_len"),
        Hostile::SparseTail => {
            let file = std::fs::File::create(path).expect("create");
            file.set_len(4 << 30).expect("set_len");
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .expect("open");
            file.write_all(&vec![b'x'; 40 << 20]).expect("tail");
        }
    }
}

#[test]
fn hostile_main_transcripts_cost_little() {
    for kind in KINDS {
        let p = Project::new();
        assert_eq!(p.hook(&p.session_start("startup")).code, 0);
        make(kind, &p.transcript);
        let what = format!("{kind:?} transcript");
        // A subagent's start scans the parent transcript for its spawn; a tool call
        // from inside a subagent identifies it from the transcript's end.
        let m = hook_measured(&p, &p.subagent_start("ag-1", "coder"));
        assert_bounded(&m, &format!("{what}, SubagentStart"));
        for _ in 0..2 {
            let call = p.pre_tool_use_as("ag-1", "coder", "Read", json!({"file_path": "x"}));
            let m = hook_measured(&p, &call);
            assert_bounded(&m, &format!("{what}, PreToolUse"));
        }
        let m = hook_measured(&p, &p.rm_root());
        assert_bounded(&m, &format!("{what}, guard"));
        assert_eq!(m.result.decision().as_deref(), Some("deny"), "{what}");
    }
}

#[test]
fn hostile_agent_transcripts_cost_little_and_never_send_the_agent_back() {
    for kind in KINDS {
        let p = Project::with_config("");
        assert_eq!(p.hook(&p.subagent_start("ag-1", "coder")).code, 0);
        make(kind, &p.agent_transcript("ag-1"));
        let what = format!("{kind:?} agent transcript");
        // No final message in the input: only the transcript could say, and it cannot.
        let m = hook_measured(&p, &p.subagent_stop("ag-1", "coder", None, false));
        assert_bounded(&m, &what);
        assert!(!m.result.is_block(), "{what}: {}", m.result.stdout);
    }
}

#[test]
fn a_hostile_config_runs_on_the_defaults_and_the_guard_holds() {
    for kind in KINDS {
        let p = Project::new();
        make(kind, &p.root.join(".claude-nagger/config.toml"));
        let what = format!("{kind:?} config");
        let m = hook_measured(&p, &p.rm_root());
        assert_bounded(&m, &what);
        assert_eq!(m.result.decision().as_deref(), Some("deny"), "{what}");
        assert!(
            m.result.stderr.contains("config"),
            "{what}: {}",
            m.result.stderr
        );
        let m = hook_measured(&p, &p.session_start("startup"));
        assert_bounded(&m, &format!("{what}, SessionStart"));
    }
}

#[test]
fn hostile_report_files_are_not_read() {
    for kind in KINDS {
        let p = Project::with_config("");
        assert_eq!(p.hook(&p.subagent_start("ag-1", "coder")).code, 0);
        let report = nagger::domain::context::report_path(&p.root, &p.session, "coder", "ag-1");
        make(kind, &report);
        let what = format!("{kind:?} report");
        let m = hook_measured(
            &p,
            &p.subagent_stop("ag-1", "coder", Some("[COMPRESSED]\nall done"), false),
        );
        assert_bounded(&m, &what);
        let stored: Vec<String> = p
            .db()
            .prepare("SELECT content FROM context_entries")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(
            stored
                .iter()
                .all(|c| !c.contains("xxxx") && c.len() < 100_000),
            "{what}: {stored:?}"
        );
    }
}

#[test]
fn a_transcript_growing_while_read_is_read_up_to_its_size_at_open() {
    let p = Project::new();
    assert_eq!(p.hook(&p.session_start("startup")).code, 0);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        let path = p.transcript.clone();
        std::thread::spawn(move || {
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .expect("open");
            let chunk = format!("{}\n", spawn_line("toolu_x", "coder", "go")).repeat(2000);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if file.write_all(chunk.as_bytes()).is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    std::thread::sleep(Duration::from_millis(200));
    for i in 0..3 {
        let m = hook_measured(&p, &p.subagent_start(&format!("ag-{i}"), "coder"));
        assert_bounded(&m, &format!("growing transcript, run {i}"));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().expect("writer");
}

#[test]
fn a_long_unterminated_tail_is_not_read_again_on_every_call() {
    let p = Project::new();
    assert_eq!(p.hook(&p.session_start("startup")).code, 0);
    p.append(&[spawn_line("toolu_1", "coder", "first")]);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&p.transcript)
        .unwrap();
    file.write_all(&vec![b'y'; 20 << 20]).unwrap();
    let scanned = |p: &Project, agent: &str| -> u64 {
        let r = p.hook(&p.subagent_start(agent, "coder"));
        assert_eq!(r.code, 0, "{}", r.stderr);
        p.hook_log()
            .iter()
            .rev()
            .find(|(event, _, _)| event == "SubagentStart")
            .and_then(|(_, _, d)| d["bytes_scanned"].as_u64())
            .expect("bytes_scanned")
    };
    let first = scanned(&p, "ag-1");
    assert!(first >= 8 << 20, "{first}");
    let second = scanned(&p, "ag-2");
    assert!(second < 1 << 20, "the tail was read again: {second} bytes");
    // The line ends later: what follows it is found.
    file.write_all(b"\n").unwrap();
    p.append(&[spawn_line("toolu_2", "reviewer", "second")]);
    scanned(&p, "ag-3");
    let spawns: i64 = p
        .db()
        .query_row(
            "SELECT count(*) FROM task_spawns WHERE tool_use_id = 'toolu_2'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(spawns, 1);
}

/// Stdin left open: a whole object in it is decided as it is (what could follow it is
/// ignored anyway), a tool call cut short is asked about, and so is nothing at all (it
/// may be a tool call that never came whole); each within the second every hook answers
/// in, never waiting for the end of stdin.
#[test]
fn stdin_never_closed_is_decided_on_what_it_holds_within_a_second() {
    let p = Project::new();
    let call = p.rm_root().to_string();
    let cut = &call[..call.len() - 8];
    for (what, stdin, decision) in [
        ("a whole tool call", call.as_str(), Some("deny")),
        (
            "a whole tool call and more",
            &format!("{call}\n{{\"tool_name\""),
            Some("deny"),
        ),
        ("a tool call cut short", cut, Some("ask")),
        ("nothing", "", Some("ask")),
    ] {
        let m = measure(&p.command(&["hook"]), stdin.as_bytes(), true);
        assert_eq!(m.result.code, 0, "{what}");
        assert!(
            m.elapsed < Duration::from_millis(1500),
            "{what}: {:?}",
            m.elapsed
        );
        assert_eq!(
            m.result.decision().as_deref(),
            decision,
            "{what}: {:?}",
            m.result
        );
        assert!(
            m.result.stderr.lines().count() <= 1,
            "{what}: {}",
            m.result.stderr
        );
        if decision != Some("deny") {
            assert!(
                m.result.stderr.contains("stdin did not end"),
                "{what}: {}",
                m.result.stderr
            );
        }
    }
}

#[test]
fn long_config_texts_never_push_the_output_past_the_limit() {
    let message: String = (0..3000).fold(String::new(), |mut text, i| {
        let _ = writeln!(text, "rule line {i}");
        text
    });
    let config = format!(
        "[[rules.command]]\nname = \"no make\"\npatterns = [\"make*\"]\nseverity = \"deny\"\nmessage = {}\n",
        toml_string(&message)
    );
    let p = Project::with_config(&config);
    let m = hook_measured(&p, &p.pre_tool_use("Bash", json!({"command": "make all"})));
    assert_bounded(&m, "long deny message");
    assert_eq!(m.result.decision().as_deref(), Some("deny"));
    let reason = m.result.reason();
    assert!(reason.contains("cut by nagger"), "{reason}");
    assert!(reason.contains("rule line 0"), "{reason}");
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The project folder of a `cwd` that does not exist, for a run without
/// `CLAUDE_PROJECT_DIR`.
fn missing_cwd(p: &Project) -> PathBuf {
    p.root.parent().unwrap().join("gone/deeper/still")
}

#[test]
fn a_missing_cwd_is_never_created() {
    let p = Project::new();
    let cwd = missing_cwd(&p);
    for input in [
        p.session_start("startup"),
        p.rm_root(),
        p.session_end("exit"),
    ] {
        let mut input = input;
        input["cwd"] = json!(cwd.display().to_string());
        let mut cmd = p.command(&["hook"]);
        cmd.env_remove("CLAUDE_PROJECT_DIR");
        let m = measure(&cmd, input.to_string().as_bytes(), false);
        assert_bounded(&m, "missing cwd");
        assert!(!p.root.parent().unwrap().join("gone").exists());
    }
}
