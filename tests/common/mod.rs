//! Test support: a temporary project, the real `nagger` binary run as Claude Code
//! runs it (cleared, pinned environment), and hand-written fixtures in Claude
//! Code's transcript and hook formats.

#![allow(dead_code)]

mod rng;
pub use rng::Rng;
pub mod ui_client;

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// `git` in `root` with a fixed author and no user or system configuration; it must
/// succeed.
/// `cmd` with git's configuration left out and a committer named, as the tests' git runs.
pub fn with_git_identity(cmd: &mut Command) -> &mut Command {
    cmd.env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "n")
        .env("GIT_AUTHOR_EMAIL", "n@x")
        .env("GIT_COMMITTER_NAME", "n")
        .env("GIT_COMMITTER_EMAIL", "n@x")
}

pub fn git(root: &Path, args: &[&str]) {
    let out = with_git_identity(Command::new("git").args(args).current_dir(root))
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

pub fn nagger_bin() -> &'static str {
    env!("CARGO_BIN_EXE_nagger")
}

/// The folder of the `nagger` binary under test.
pub fn bin_dir() -> &'static Path {
    Path::new(nagger_bin())
        .parent()
        .expect("the binary is in a folder")
}

/// Runs a program a test has just copied. Another test thread may fork between
/// the copy's open and its close, so for a moment a child holds the copy open for
/// writing and the kernel refuses to run it ("text file busy"): that moment ends
/// when the child runs its own program, so the run is tried again for up to 5 s.
pub fn output_of_copy(cmd: &mut Command) -> Output {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match cmd.output() {
            Err(e)
                if e.kind() == std::io::ErrorKind::ExecutableFileBusy
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            r => return r.expect("the copied program runs"),
        }
    }
}

/// A project directory with its `.claude-nagger` and a main-session transcript.
pub struct Project {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub transcript: PathBuf,
    pub session: String,
}

/// What one `nagger hook` run printed.
#[derive(Debug)]
pub struct HookResult {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// A run starved of CPU on a loaded machine that reached the hook's one-second
/// deadline or its bounded wait for the database's lock: exit 0 and one line, as
/// designed for a late run.
pub fn late_line(stderr: &str) -> bool {
    stderr.starts_with("nagger: ")
        && (stderr.contains("no answer within") || stderr.contains("database is locked"))
        && stderr.lines().count() == 1
}

impl HookResult {
    /// Exit 0 with nothing on stdout and one line saying it ran late.
    pub fn ran_late(&self) -> bool {
        self.code == 0 && self.stdout.is_empty() && late_line(&self.stderr)
    }

    pub fn json(&self) -> Option<Value> {
        let t = self.stdout.trim();
        (!t.is_empty()).then(|| serde_json::from_str(t).expect("stdout is one JSON object"))
    }

    /// Exit 0 with a permissionDecision "deny" (`what` names the case in a failure).
    pub fn assert_deny(&self, what: &str) {
        assert_eq!(self.code, 0, "{what}: exit code");
        assert_eq!(
            self.decision().as_deref(),
            Some("deny"),
            "{what}: stdout {:?} stderr {:?}",
            self.stdout,
            self.stderr
        );
    }

    /// permissionDecision of a PreToolUse answer.
    pub fn decision(&self) -> Option<String> {
        self.json().and_then(|v| {
            v["hookSpecificOutput"]["permissionDecision"]
                .as_str()
                .map(String::from)
        })
    }

    pub fn reason(&self) -> String {
        self.json()
            .and_then(|v| {
                v["hookSpecificOutput"]["permissionDecisionReason"]
                    .as_str()
                    .map(String::from)
            })
            .unwrap_or_default()
    }

    pub fn additional_context(&self) -> String {
        self.json()
            .and_then(|v| {
                v["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .map(String::from)
            })
            .unwrap_or_default()
    }

    pub fn is_block(&self) -> bool {
        self.json().is_some_and(|v| v["decision"] == "block")
    }

    pub fn from_output(out: &Output) -> HookResult {
        HookResult {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Project {
    pub fn new() -> Project {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join(".claude-nagger")).expect("mkdir");
        let transcript = dir.path().join("transcripts").join("sess-1.jsonl");
        std::fs::create_dir_all(transcript.parent().expect("parent")).expect("mkdir");
        std::fs::write(&transcript, "").expect("transcript");
        Project {
            _dir: dir,
            root,
            transcript,
            session: "sess-1".to_string(),
        }
    }

    pub fn with_config(config: &str) -> Project {
        let p = Project::new();
        p.write_config(config);
        p
    }

    /// Writes the config as its user does: the file, and their confirmation of its safety
    /// settings (what `nagger trust` writes).
    pub fn write_config(&self, config: &str) {
        self.write_config_unconfirmed(config);
        self.trust_config();
    }

    /// Writes the config file only, as a change nobody confirmed.
    pub fn write_config_unconfirmed(&self, config: &str) {
        std::fs::write(self.config_path(), config).expect("config");
    }

    /// Trusts the config's safety settings as they are, as `nagger trust` does.
    pub fn trust_config(&self) {
        use nagger::domain::{config, trust};
        let path = self.config_path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let (config, _) = config::parse_lenient(&text, &path, config::Validation::Quick);
        let projection = trust::Projection::of(&config.guard, &config.rules);
        let snapshot = trust::snapshot_path(&path);
        trust::write(&snapshot, &projection).expect("trusted.json");
        // And nagger's own copy, in the project's home (`HOME` is the project's root).
        if let Some(copy) = trust::copy_path_under(&self.root.join(".local/state"), &snapshot) {
            std::fs::create_dir_all(copy.parent().expect("folder")).expect("copy folder");
            trust::write(&copy, &projection).expect("copy");
        }
    }

    pub fn config_path(&self) -> PathBuf {
        self.root.join(".claude-nagger/config.toml")
    }

    pub fn db_path(&self) -> PathBuf {
        self.root.join(".claude-nagger/state.db")
    }

    pub fn db(&self) -> rusqlite::Connection {
        let c = rusqlite::Connection::open(self.db_path()).expect("open db");
        c.busy_timeout(std::time::Duration::from_secs(5))
            .expect("busy timeout");
        c
    }

    /// `nagger <args>` in the project with a cleared, pinned environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(nagger_bin());
        cmd.args(args)
            .env_clear()
            .env("CLAUDE_PROJECT_DIR", &self.root)
            .env("HOME", &self.root)
            .env("TZ", "UTC")
            // As on a machine where nagger is installed: `nagger` is on PATH.
            .env("PATH", bin_dir())
            .current_dir(&self.root);
        cmd
    }

    pub fn run(&self, args: &[&str]) -> HookResult {
        HookResult::from_output(&self.command(args).output().expect("run nagger"))
    }

    /// Runs `nagger hook` with raw stdin bytes.
    pub fn hook_raw(&self, stdin: &[u8]) -> HookResult {
        finish(self.spawn_hook_raw(stdin))
    }

    pub fn hook(&self, input: &Value) -> HookResult {
        self.hook_raw(input.to_string().as_bytes())
    }

    /// Starts `nagger hook` with `stdin` as its standard input; wait with `finish`.
    pub fn spawn_hook_raw(&self, stdin: &[u8]) -> Child {
        self.command(&["hook"])
            .stdin(stdin_file(stdin))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn nagger hook")
    }

    pub fn spawn_hook(&self, input: &Value) -> Child {
        self.spawn_hook_raw(input.to_string().as_bytes())
    }

    pub fn transcript_str(&self) -> String {
        self.transcript.display().to_string()
    }

    /// Appends lines to the main transcript.
    pub fn append(&self, lines: &[Value]) {
        append_lines(&self.transcript, lines);
    }

    // ── hook inputs in Claude Code's format ──

    fn common(&self, event: &str) -> Value {
        json!({
            "session_id": self.session,
            "transcript_path": self.transcript_str(),
            "cwd": self.root.display().to_string(),
            "hook_event_name": event,
            "permission_mode": "default",
        })
    }

    pub fn session_start(&self, source: &str) -> Value {
        let mut v = self.common("SessionStart");
        v["source"] = json!(source);
        v
    }

    pub fn session_end(&self, reason: &str) -> Value {
        let mut v = self.common("SessionEnd");
        v["reason"] = json!(reason);
        v
    }

    pub fn subagent_start(&self, agent_id: &str, agent_type: &str) -> Value {
        let mut v = self.common("SubagentStart");
        v["agent_id"] = json!(agent_id);
        v["agent_type"] = json!(agent_type);
        v
    }

    pub fn subagent_stop(
        &self,
        agent_id: &str,
        agent_type: &str,
        last_message: Option<&str>,
        active: bool,
    ) -> Value {
        let mut v = self.common("SubagentStop");
        v["agent_id"] = json!(agent_id);
        v["agent_type"] = json!(agent_type);
        v["stop_hook_active"] = json!(active);
        v["agent_transcript_path"] = json!(self.agent_transcript(agent_id).display().to_string());
        if let Some(m) = last_message {
            v["last_assistant_message"] = json!(m);
        }
        v
    }

    /// The destructive call every safety test ends with: a Bash `rm -rf /`.
    pub fn rm_root(&self) -> Value {
        self.pre_tool_use("Bash", json!({"command": "rm -rf /"}))
    }

    /// A legacy PreToolUse: no agent_id, as before Claude Code 2.1.69.
    pub fn pre_tool_use(&self, tool: &str, input: Value) -> Value {
        let mut v = self.common("PreToolUse");
        v["tool_name"] = json!(tool);
        v["tool_input"] = input;
        v["tool_use_id"] = json!(format!("toolu_{}", rand_suffix()));
        v
    }

    /// A modern PreToolUse from inside a subagent.
    pub fn pre_tool_use_as(
        &self,
        agent_id: &str,
        agent_type: &str,
        tool: &str,
        input: Value,
    ) -> Value {
        let mut v = self.pre_tool_use(tool, input);
        v["agent_id"] = json!(agent_id);
        v["agent_type"] = json!(agent_type);
        v
    }

    pub fn post_tool_use(&self, tool: &str, input: Value) -> Value {
        let mut v = self.common("PostToolUse");
        v["tool_name"] = json!(tool);
        v["tool_input"] = input;
        v["tool_response"] = json!({"success": true});
        v
    }

    pub fn agent_transcript(&self, agent_id: &str) -> PathBuf {
        let base = self.transcript.with_extension("");
        base.join("subagents")
            .join(format!("agent-{agent_id}.jsonl"))
    }

    /// hook_log rows as (event_type, result, details).
    pub fn hook_log(&self) -> Vec<(String, String, Value)> {
        let c = self.db();
        let mut stmt = c
            .prepare("SELECT event_type, coalesce(result,''), coalesce(details,'null') FROM hook_log ORDER BY id")
            .expect("prepare");
        stmt.query_map([], |r| {
            let d: String = r.get(2)?;
            Ok((
                r.get(0)?,
                r.get(1)?,
                serde_json::from_str(&d).unwrap_or(Value::Null),
            ))
        })
        .expect("query")
        .map(|r| r.expect("row"))
        .collect()
    }
}

/// Runs a prepared `nagger` command with `input` as its stdin.
pub fn run_with_stdin(mut cmd: Command, input: &Value) -> HookResult {
    let child = cmd
        .stdin(stdin_file(input.to_string().as_bytes()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn nagger");
    finish(child)
}

/// A hook's stdin that is whole before the hook starts, as Claude Code's is by the time
/// it matters: an unlinked file holding `bytes`. A pipe fed by a thread of the test would
/// make the hook's stdin deadline depend on how soon a busy machine runs that thread.
pub fn stdin_file(bytes: &[u8]) -> Stdio {
    use std::io::{Seek, SeekFrom};
    let mut file = tempfile::tempfile().expect("temporary stdin file");
    file.write_all(bytes).expect("write stdin file");
    file.seek(SeekFrom::Start(0)).expect("rewind stdin file");
    Stdio::from(file)
}

pub fn finish(child: Child) -> HookResult {
    HookResult::from_output(&child.wait_with_output().expect("wait"))
}

fn rand_suffix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

pub fn append_lines(path: &Path, lines: &[Value]) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("mkdir");
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("open transcript");
    for l in lines {
        writeln!(f, "{l}").expect("write line");
    }
}

// ── transcript lines in Claude Code's format ──

/// An assistant line whose content is one Agent (or Task) tool_use.
pub fn spawn_line(tool_use_id: &str, subagent_type: &str, prompt: &str) -> Value {
    spawn_line_with(tool_use_id, "Agent", subagent_type, prompt, None)
}

pub fn spawn_line_with(
    tool_use_id: &str,
    tool: &str,
    subagent_type: &str,
    prompt: &str,
    name: Option<&str>,
) -> Value {
    let mut input = json!({
        "subagent_type": subagent_type,
        "description": format!("{subagent_type} work"),
        "prompt": prompt,
    });
    if let Some(n) = name {
        input["name"] = json!(n);
    }
    json!({
        "type": "assistant",
        "isSidechain": false,
        "uuid": format!("u-{tool_use_id}"),
        "message": {
            "id": format!("msg_{tool_use_id}"),
            "role": "assistant",
            "content": [{"type": "tool_use", "id": tool_use_id, "name": tool, "input": input}],
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 1000, "output_tokens": 50}
        }
    })
}

/// The user line Claude Code writes when a subagent finishes: links tool_use_id to agentId.
pub fn link_line(tool_use_id: &str, agent_id: &str) -> Value {
    json!({
        "type": "user",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use_id, "content": [{"type": "text", "text": "done"}]}]},
        "toolUseResult": {"agentId": agent_id, "status": "completed"}
    })
}

/// A progress line that links a running subagent to its spawn.
pub fn progress_line(tool_use_id: &str, agent_id: &str) -> Value {
    json!({
        "type": "progress",
        "parentToolUseID": tool_use_id,
        "data": {"type": "agent_progress", "agentId": agent_id, "message": {"type": "assistant"}}
    })
}

/// A main-agent assistant line with usage: context = input + cache_creation + cache_read.
pub fn usage_line(message_id: &str, context_tokens: u64) -> Value {
    json!({
        "type": "assistant",
        "isSidechain": false,
        "message": {
            "id": message_id,
            "role": "assistant",
            "content": [{"type": "text", "text": "working"}],
            "usage": {"input_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": context_tokens.saturating_sub(5), "output_tokens": 20}
        }
    })
}

pub fn compact_boundary_line() -> Value {
    json!({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 150_000}})
}

/// A subagent's final assistant text line.
pub fn assistant_text_line(message_id: &str, text: &str) -> Value {
    json!({
        "type": "assistant",
        "isSidechain": true,
        "message": {
            "id": message_id,
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 2000, "output_tokens": 300}
        }
    })
}

/// A subagent assistant line that edits or writes a file.
pub fn file_tool_line(message_id: &str, tool: &str, file_path: &str) -> Value {
    json!({
        "type": "assistant",
        "isSidechain": true,
        "message": {
            "id": message_id,
            "role": "assistant",
            "content": [{"type": "tool_use", "id": format!("toolu_{message_id}"), "name": tool, "input": {"file_path": file_path, "content": "x"}}],
            "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 2000, "output_tokens": 30}
        }
    })
}

/// A write lease on the file at `path`, held by this process: any other open of the
/// file waits for the kernel's lease-break time (45 s by default). `None` where leases
/// are refused (another process has the file open, or the file system does not have
/// them). Dropping it gives the lease up.
pub fn write_lease(path: &Path) -> Option<Lease> {
    use std::os::fd::AsRawFd;
    // SAFETY: SIGIO, which a lease break sends to its holder (this process), ignored.
    unsafe { libc::signal(libc::SIGIO, libc::SIG_IGN) };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .expect("open the file to lease");
    // SAFETY: a lease on a file this process opened.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLEASE, libc::F_WRLCK) } != 0 {
        eprintln!(
            "no lease could be taken: {}",
            std::io::Error::last_os_error()
        );
        return None;
    }
    Some(Lease(file))
}

/// A lease [`write_lease`] took.
pub struct Lease(std::fs::File);

impl Drop for Lease {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: the lease given up.
        unsafe { libc::fcntl(self.0.as_raw_fd(), libc::F_SETLEASE, libc::F_UNLCK) };
    }
}
