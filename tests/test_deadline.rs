//! Every hook answers within a second, whatever the state database and its side files
//! are: a FIFO, a directory, a socket or a symlink to a FIFO in place of `state.db`,
//! its `-wal`, `-shm`, `-journal` or lock file; a write lock another process holds; a
//! WAL index locked so that SQLite itself would retry for seconds. The guard's deny
//! still comes out, a harmless call passes, the exit code is 0.

use crate::common::*;
use serde_json::{Value, json};
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

/// What a hook run may take here: the design says 1 s, this leaves room for a loaded
/// machine. A functional bound (no hang, no waiting out a 5 s busy timeout), not a
/// benchmark.
const BOUND: Duration = Duration::from_millis(1500);
/// Past this the run is killed and the test fails: a hang.
const HANG: Duration = Duration::from_secs(8);

/// Runs `nagger hook` with `input`, killing it if it hangs; its result and wall time.
fn timed_hook(p: &Project, input: &Value) -> (HookResult, Duration) {
    let started = Instant::now();
    let mut child = p.spawn_hook(input);
    loop {
        if child.try_wait().expect("try_wait").is_some() {
            break;
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            let r = finish(child);
            panic!("nagger hook hung past {HANG:?}: {r:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let elapsed = started.elapsed();
    (finish(child), elapsed)
}

fn within_bound(p: &Project, input: &Value, what: &str) -> HookResult {
    let (r, elapsed) = timed_hook(p, input);
    assert_eq!(r.code, 0, "{what}: exit code; {r:?}");
    assert!(elapsed < BOUND, "{what}: took {elapsed:?}; {r:?}");
    assert!(r.stderr.lines().count() <= 1, "{what}: {}", r.stderr);
    r
}

fn harmless(p: &Project) -> Value {
    p.pre_tool_use("Bash", json!({"command": "ls -la src"}))
}

fn assert_denies(p: &Project, what: &str) {
    let r = within_bound(p, &p.rm_root(), what);
    assert_eq!(r.decision().as_deref(), Some("deny"), "{what}: {r:?}");
}

fn assert_passes(p: &Project, what: &str) -> HookResult {
    let r = within_bound(p, &harmless(p), what);
    assert_ne!(r.decision().as_deref(), Some("deny"), "{what}: {r:?}");
    r
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// What is put in place of a file of the database's.
#[derive(Debug, Clone, Copy)]
enum NotAFile {
    Fifo,
    Directory,
    Socket,
    SymlinkToFifo,
}

const NOT_FILES: [NotAFile; 4] = [
    NotAFile::Fifo,
    NotAFile::Directory,
    NotAFile::Socket,
    NotAFile::SymlinkToFifo,
];

fn make(kind: NotAFile, path: &Path) {
    if path.is_dir() {
        std::fs::remove_dir_all(path).expect("rm dir");
    } else {
        let _ = std::fs::remove_file(path);
    }
    match kind {
        NotAFile::Fifo => mkfifo(path),
        NotAFile::Directory => std::fs::create_dir(path).expect("mkdir"),
        NotAFile::Socket => {
            std::os::unix::net::UnixListener::bind(path).expect("bind");
        }
        NotAFile::SymlinkToFifo => {
            let target = path.with_file_name("elsewhere.fifo");
            let _ = std::fs::remove_file(&target);
            mkfifo(&target);
            std::os::unix::fs::symlink(&target, path).expect("symlink");
        }
    }
}

const DB_FILES: [&str; 4] = [
    "state.db",
    "state.db-wal",
    "state.db-shm",
    "state.db-journal",
];

#[test]
fn a_database_file_that_is_not_a_file_fails_open_at_once_and_the_guard_holds() {
    for name in DB_FILES {
        for kind in NOT_FILES {
            for fresh in [true, false] {
                let what = format!("{name} as {kind:?}, fresh project {fresh}");
                let p = Project::new();
                if !fresh {
                    within_bound(&p, &p.session_start("startup"), &what);
                }
                let file = p.root.join(".claude-nagger").join(name);
                make(kind, &file);
                assert_denies(&p, &what);
                let r = assert_passes(&p, &what);
                assert!(
                    r.stderr.starts_with("nagger: state database unavailable")
                        && r.stderr.contains(&file.display().to_string())
                        && r.stderr.contains("not a regular file; remove it"),
                    "{what}: says which file and what to do: {}",
                    r.stderr
                );
                assert_eq!(r.stdout, "", "{what}: a harmless call passes silently");
            }
        }
    }
}

#[test]
fn a_database_file_that_is_a_second_name_of_another_file_is_never_written() {
    for name in DB_FILES {
        for fresh in [true, false] {
            let what = format!("{name} hard-linked to the settings, fresh project {fresh}");
            let p = Project::new();
            if !fresh {
                within_bound(&p, &p.session_start("startup"), &what);
            }
            let settings = p.root.join(".claude/settings.local.json");
            std::fs::create_dir_all(settings.parent().expect("folder")).expect("mkdir");
            std::fs::write(&settings, "{\"permissions\": {}}\n").expect("settings");
            let file = p.root.join(".claude-nagger").join(name);
            let _ = std::fs::remove_file(&file);
            std::fs::hard_link(&settings, &file).expect("hard link");
            assert_denies(&p, &what);
            let r = assert_passes(&p, &what);
            assert!(
                r.stderr.starts_with("nagger: state database unavailable")
                    && r.stderr.contains("hard link")
                    && r.stderr.contains("remove it"),
                "{what}: says which file and what to do: {}",
                r.stderr
            );
            within_bound(&p, &p.session_start("startup"), &what);
            assert_eq!(
                std::fs::read_to_string(&settings).expect("settings"),
                "{\"permissions\": {}}\n",
                "{what}: the other file is left as it was"
            );
        }
    }
}

#[test]
fn a_lock_file_that_is_not_a_file_fails_open_at_once_and_the_guard_holds() {
    for kind in NOT_FILES {
        for fresh in [true, false] {
            let what = format!("state.db.lock as {kind:?}, fresh project {fresh}");
            let p = Project::new();
            if !fresh {
                within_bound(&p, &p.session_start("startup"), &what);
            }
            let file = p.root.join(".claude-nagger/state.db.lock");
            make(kind, &file);
            assert_denies(&p, &what);
            let r = assert_passes(&p, &what);
            if fresh {
                // Migrating a new database takes the lock file.
                assert!(
                    r.stderr.contains("state.db.lock") && r.stderr.contains("remove it"),
                    "{what}: {}",
                    r.stderr
                );
            }
        }
    }
}

/// Another process (here: this test's own connection) holds the write lock for 5 s,
/// longer than SQLite's busy timeout: every event still answers within a second, the
/// deny comes out, and the database works again once the lock is gone.
#[test]
fn a_write_lock_held_by_another_process_costs_each_event_under_a_second() {
    let p = Project::new();
    p.append(&[spawn_line("toolu_1", "coder", "[ROLE:coder] x")]);
    within_bound(&p, &p.session_start("startup"), "first SessionStart");
    within_bound(
        &p,
        &p.subagent_start("ag-1", "coder"),
        "first SubagentStart",
    );
    let holder = p.db();
    holder
        .execute_batch(
            "BEGIN IMMEDIATE; INSERT INTO tasks (role, title, created_at) VALUES ('x', 'held', 0);",
        )
        .expect("take the write lock");
    let held = Instant::now();
    let report = "[COMPRESSED] agent_type: coder\nResult: done\nBlockers: none";
    let events = [
        ("SessionStart", p.session_start("resume")),
        ("PreToolUse rm -rf /", p.rm_root()),
        ("PreToolUse ls", harmless(&p)),
        ("SubagentStart", p.subagent_start("ag-2", "coder")),
        (
            "SubagentStop",
            p.subagent_stop("ag-1", "coder", Some(report), false),
        ),
        (
            "PostToolUse",
            p.post_tool_use("Edit", json!({"file_path": "src/a.rs"})),
        ),
    ];
    for (what, input) in &events {
        let r = within_bound(&p, input, &format!("{what} while locked"));
        if what.contains("rm -rf") {
            assert_eq!(r.decision().as_deref(), Some("deny"), "{what}: {r:?}");
        }
        if *what == "SubagentStart" || *what == "SubagentStop" {
            assert!(r.stderr.contains("locked"), "{what}: says why: {r:?}");
        }
    }
    assert!(
        held.elapsed() < Duration::from_secs(5),
        "the lock was held throughout: {:?}",
        held.elapsed()
    );
    holder.execute_batch("ROLLBACK").expect("release");
    let r = within_bound(&p, &p.subagent_start("ag-2", "coder"), "unlocked");
    assert_eq!(r.stderr, "", "unlocked: works again");
    assert_denies(&p, "unlocked");
}

/// Write locks on the WAL index's lock bytes (the writer's, the checkpointer's,
/// recovery's and every reader's slot), as a process stuck in the middle of its work
/// would hold them: SQLite's own retry loop would keep a reader waiting for seconds,
/// outside any busy handler. The run's deadline answers instead.
#[test]
fn a_wal_index_locked_out_from_under_sqlite_still_answers_within_a_second() {
    let p = Project::new();
    within_bound(&p, &p.session_start("startup"), "first SessionStart");
    // Leave a WAL behind, so that a reader needs the index.
    let keep = p.db();
    keep.execute_batch("PRAGMA wal_autocheckpoint=0; INSERT INTO tasks (role, title, created_at) VALUES ('x', 'y', 0);")
        .expect("write");
    let shm = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(p.root.join(".claude-nagger/state.db-shm"))
        .expect("open -shm");
    // SAFETY: a zeroed flock is valid; fcntl on an open descriptor we own.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = libc::F_WRLCK.try_into().expect("F_WRLCK fits l_type");
    lock.l_whence = libc::SEEK_SET.try_into().expect("SEEK_SET fits l_whence");
    lock.l_start = 120;
    lock.l_len = 8;
    // SAFETY: as above.
    let rc = unsafe { libc::fcntl(shm.as_raw_fd(), libc::F_SETLK, &raw const lock) };
    assert_eq!(
        rc,
        0,
        "lock the WAL index: {}",
        std::io::Error::last_os_error()
    );
    assert_denies(&p, "WAL index locked");
    assert_passes(&p, "WAL index locked");
    within_bound(
        &p,
        &p.subagent_start("ag-1", "coder"),
        "SubagentStart, WAL index locked",
    );
    drop(shm);
    drop(keep);
    let r = within_bound(&p, &p.subagent_start("ag-2", "coder"), "unlocked");
    assert_eq!(r.stderr, "", "unlocked: works again");
}

/// strace, which holds chosen system calls in the kernel (its fault injection).
fn strace() -> &'static str {
    ["/usr/bin/strace", "/bin/strace"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("strace is needed for this test (.ci/run installs it)")
}

/// Runs `nagger hook` on `input` under strace with `filter` (its options that pick and
/// hold system calls); the answer and when the reader saw its end.
fn answer_under_strace(p: &Project, filter: &[String], input: &Value) -> (String, Duration) {
    let nagger = p.command(&["hook"]);
    let mut cmd = std::process::Command::new(strace());
    cmd.args(["-f", "-o", "/dev/null"])
        .args(filter)
        .arg(nagger.get_program())
        .args(nagger.get_args())
        .env_clear()
        .envs(nagger.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
        .current_dir(&p.root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let started = Instant::now();
    let mut child = cmd.spawn().expect("spawn strace");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_string();
    std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::Read;
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        let _ = tx.send((out, Instant::now()));
    });
    let received = rx.recv_timeout(HANG);
    let _ = child.kill();
    let _ = child.wait();
    let (out, at) = received.unwrap_or_else(|_| panic!("{filter:?}: no answer in {HANG:?}"));
    (out, at - started)
}

/// The permission decision of an answer that must be one.
fn decision_of(out: &str, what: &str) -> String {
    let answer: Value =
        serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{what}: {e}: {out:?}"));
    answer["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: no decision: {out}"))
        .to_string()
}

/// A system call stuck in the kernel (a slow or hung disk) holds its thread there, and a
/// signal sent to that thread waits for it. Each write, lock or sync the run makes is
/// held for 4 s (strace's fault injection): the guard's answer still reaches the
/// reader, and the reader sees the end of it, within the bound.
#[test]
fn a_system_call_stuck_in_the_kernel_still_answers_within_a_second() {
    for stuck in ["pwrite64", "fcntl", "fsync,fdatasync"] {
        let p = Project::new();
        within_bound(&p, &p.session_start("startup"), "first SessionStart");
        let filter = [
            "-e".to_string(),
            format!("inject={stuck}:delay_enter=4000000"),
        ];
        let (out, took) = answer_under_strace(&p, &filter, &p.rm_root());
        assert!(
            took < BOUND,
            "{stuck} stuck: the answer ended after {took:?}: {out}"
        );
        assert_eq!(decision_of(&out, stuck), "deny", "{stuck} stuck: {out}");
    }
}

/// The deadline holds from the run's start, not only once the database is touched: a
/// read stuck before the guard has decided (the config's, the trusted settings', the
/// git configuration a command's alias is looked up in) is waited out by the run's own
/// thread. Near the deadline the guard decides the call again with its built-in
/// settings, which read neither file: what it refuses is refused, anything else is
/// asked about, within the bound; after the guard decided, its answer comes out.
#[test]
fn a_read_stuck_before_the_guard_decides_still_answers_within_a_second() {
    let p = Project::with_config("[guard]\nenabled = true\n");
    within_bound(&p, &p.session_start("startup"), "first SessionStart");
    let git_config = p.root.join(".git/config");
    std::fs::create_dir_all(git_config.parent().unwrap()).unwrap();
    std::fs::write(&git_config, "[alias]\n\tpf = push --force\n").unwrap();
    let held = |path: &Path| {
        vec![
            "-P".to_string(),
            path.display().to_string(),
            "-e".to_string(),
            "inject=openat:delay_enter=4000000".to_string(),
        ]
    };
    for (what, path, input, decision) in [
        ("config", p.config_path(), p.rm_root(), "deny"),
        (
            "config, a harmless call",
            p.config_path(),
            p.pre_tool_use("Bash", json!({"command": "ls -la"})),
            "ask",
        ),
        (
            "trusted settings",
            p.root.join(".claude-nagger/trusted.json"),
            p.rm_root(),
            "deny",
        ),
        (
            "git configuration",
            git_config.clone(),
            p.pre_tool_use("Bash", json!({"command": "git pf origin main"})),
            "ask",
        ),
        (
            "transcript, after the guard",
            p.transcript.clone(),
            p.rm_root(),
            "deny",
        ),
    ] {
        let (out, took) = answer_under_strace(&p, &held(&path), &input);
        assert!(
            took < BOUND,
            "{what} stuck: the answer ended after {took:?}: {out}"
        );
        assert_eq!(decision_of(&out, what), decision, "{what} stuck: {out}");
    }
}

/// A write-ahead log longer than a hook can replay within its second (a crash after many
/// writes leaves one, and the first connection after a crash replays all of it): the
/// hook answers without the database and says so once; `doctor` names it, and `gc`
/// replays and truncates it, after which hooks use the database again.
#[test]
fn a_write_ahead_log_too_long_to_replay_in_time_is_left_to_a_command() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    let wal = p.root.join(".claude-nagger/state.db-wal");
    // Frames past the valid ones that hold zeros are no frames: SQLite ignores them. The
    // file is sparse, so the test writes nothing of that size.
    let file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(&wal)
        .expect("open the wal");
    file.set_len(65 * 1024 * 1024).expect("lengthen the wal");
    drop(file);
    assert_denies(&p, "a 65 MiB write-ahead log");
    let r = assert_passes(&p, "a 65 MiB write-ahead log");
    assert!(
        r.stderr.contains("write-ahead log") && r.stderr.lines().count() == 1,
        "{r:?}"
    );
    let doctor = p.run(&["doctor"]);
    assert!(
        doctor.stdout.contains("write-ahead log holds"),
        "{}{}",
        doctor.stdout,
        doctor.stderr
    );
    let gc = p.run(&["gc"]);
    assert_eq!(gc.code, 0, "{gc:?}");
    let left = std::fs::metadata(&wal).map_or(0, |m| m.len());
    assert!(left < 1024 * 1024, "the wal still holds {left} bytes");
    let r = assert_passes(&p, "after gc");
    assert_eq!(r.stderr, "", "{r:?}");
}
