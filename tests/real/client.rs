//! The real Claude Code CLI, pinned versions from npm, run offline against the
//! stand-in in a project set up as a user would: `nagger install`, a config,
//! `.claude/agents/*.md`.
//!
//! The CLI is installed once per version into `target/claude-code/<version>/`
//! (`npm install`); `NAGGER_CLAUDE_<version with _>` (e.g. `NAGGER_CLAUDE_2_1_328`)
//! points a version's tests at another installed `claude` instead.

use super::standin::StandIn;
use serde_json::Value;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long one `claude -p` may take before the test kills it and fails.
const RUN_LIMIT: Duration = Duration::from_mins(3);
/// How long a run that finished its scripted work must stay idle before it is ended.
pub const QUIET: Duration = Duration::from_secs(5);

static INSTALLS: OnceLock<Mutex<()>> = OnceLock::new();

fn target_dir() -> PathBuf {
    // tests run from the package root; the nagger binary lives under target/
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_nagger"));
    bin.ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "target"))
        .map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"),
            Path::to_path_buf,
        )
}

/// The `claude` executable of a pinned version, installed on first use.
pub fn claude(version: &str) -> PathBuf {
    let var = format!("NAGGER_CLAUDE_{}", version.replace('.', "_"));
    if let Ok(path) = std::env::var(&var)
        && !path.is_empty()
    {
        return PathBuf::from(path);
    }
    let _one_at_a_time = INSTALLS
        .get_or_init(|| Mutex::new(()))
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let prefix = target_dir().join("claude-code").join(version);
    let bin = prefix.join("node_modules/.bin/claude");
    if bin.exists() && version_of(&bin).as_deref() == Some(version) {
        return bin;
    }
    std::fs::create_dir_all(&prefix).unwrap();
    let out = Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
        ])
        .arg(&prefix)
        .arg(format!("@anthropic-ai/claude-code@{version}"))
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("npm is needed to install Claude Code {version}: {e}"));
    assert!(
        out.status.success(),
        "npm install @anthropic-ai/claude-code@{version} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        version_of(&bin).as_deref(),
        Some(version),
        "{} does not report version {version}",
        bin.display()
    );
    bin
}

fn version_of(bin: &Path) -> Option<String> {
    let out = Command::new(bin)
        .arg("--version")
        .env("DISABLE_AUTOUPDATER", "1")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .map(str::to_string)
}

/// A project and a home folder for one real session, with nagger installed.
pub struct Project {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub version: String,
    claude: PathBuf,
}

/// What one `claude -p` run ended with.
#[derive(Debug)]
pub struct RunResult {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
    pub json: Option<Value>,
}

impl RunResult {
    pub fn session_id(&self) -> String {
        self.json
            .as_ref()
            .and_then(|j| j["session_id"].as_str())
            .map_or_else(
                || panic!("no session_id in claude's output: {}", self.stdout),
                str::to_string,
            )
    }
}

/// The session conventions every test project uses, and each role's; each text
/// carries a marker the tests look for in what the model was shown.
pub const SESSION_MARK: &str = "SESSION-CONVENTIONS-MARK";
pub const REPEATED_MARK: &str = "REPEATED-CONVENTIONS-MARK";

pub fn role_mark(role: &str) -> String {
    format!("ROLE-MARK-{}", role.to_uppercase())
}

pub const ROLES: [&str; 3] = ["coder", "tester", "reviewer"];

impl Project {
    /// A project with nagger installed in its `.claude/settings.json`.
    pub fn new(version: &str) -> Project {
        let project = Project::without_hooks(version);
        // As a user would: the `claude` they run is on PATH, so install registers the
        // events that version knows.
        let out = project.nagger_with_claude(&["install"]);
        assert!(out.status.success(), "nagger install: {out:?}");
        project.write_config("");
        project
    }

    /// A project with a config and agents but no hook entries: nagger reaches Claude
    /// Code some other way (a plugin).
    pub fn without_hooks(version: &str) -> Project {
        let claude = claude(version);
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let home = dir.path().join("home");
        std::fs::create_dir_all(root.join(".claude/agents")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let git = Command::new("git")
            .args(["init", "-q", "."])
            .current_dir(&root)
            .status();
        assert!(git.is_ok_and(|s| s.success()), "git init");
        let project = Project {
            _dir: dir,
            root,
            home,
            version: version.to_string(),
            claude,
        };
        std::fs::create_dir_all(project.root.join(".claude-nagger")).unwrap();
        project.write_config("");
        for role in ROLES {
            project.write(
                &format!(".claude/agents/{role}.md"),
                &format!(
                    "---\nname: {role}\ndescription: The {role} of this project.\ntools: Bash\n---\nYou are the {role}.\n"
                ),
            );
        }
        project
    }

    /// Writes the test config: session and role conventions with markers, plus `extra`.
    pub fn write_config(&self, extra: &str) {
        let mut config = format!(
            "[session]\ndelivery = \"deny\"\ntoken_threshold = 50000000\n\
             [session.first_time]\ntitle = \"Project conventions\"\ntext = \"{SESSION_MARK}: read the docs first.\"\n\
             [session.repeated]\ntitle = \"Conventions, once more\"\ntext = \"{REPEATED_MARK}: re-read them.\"\n"
        );
        for role in ROLES {
            let _ = write!(
                config,
                "[roles.{role}]\ntitle = \"{role} conventions\"\ntext = \"{}: the {role} works this way.\"\n",
                role_mark(role)
            );
        }
        config.push_str(extra);
        self.write(".claude-nagger/config.toml", &config);
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Runs a nagger command in the project, as a user would.
    pub fn nagger(&self, args: &[&str]) -> std::process::Output {
        Command::new(env!("CARGO_BIN_EXE_nagger"))
            .args(args)
            .current_dir(&self.root)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("CLAUDE_PROJECT_DIR", &self.root)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// Runs a nagger command with this project's `claude` first on PATH.
    pub fn nagger_with_claude(&self, args: &[&str]) -> std::process::Output {
        let bin = self.claude.parent().expect("claude is in a folder");
        Command::new(env!("CARGO_BIN_EXE_nagger"))
            .args(args)
            .current_dir(&self.root)
            .env_clear()
            .env(
                "PATH",
                format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
            )
            .env("HOME", &self.home)
            .env("CLAUDE_PROJECT_DIR", &self.root)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    pub fn nagger_json(&self, args: &[&str]) -> Value {
        let out = self.nagger(args);
        assert!(out.status.success(), "nagger {args:?}: {out:?}");
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("nagger {args:?} printed no JSON ({e}): {out:?}"))
    }

    /// `claude -p PROMPT` against the stand-in; `extra` adds arguments (e.g. `--resume ID`).
    pub fn run(&self, standin: &StandIn, prompt: &str, extra: &[&str]) -> RunResult {
        self.run_until(standin, prompt, extra, &|_| false)
    }

    /// Like `run`, but also ends when `finished` holds for what the stand-in received
    /// and nothing more arrived for [`QUIET`]: Claude Code 2.1.68 in `-p` mode
    /// sometimes stays idle after its background agents' notifications were all
    /// answered, instead of exiting.
    pub fn run_until(
        &self,
        standin: &StandIn,
        prompt: &str,
        extra: &[&str],
        finished: &dyn Fn(&StandIn) -> bool,
    ) -> RunResult {
        self.run_tools_until(standin, prompt, "Bash Agent", extra, finished)
    }

    /// Like `run_until`, with `tools` (space-separated) as `--allowedTools`.
    pub fn run_tools_until(
        &self,
        standin: &StandIn,
        prompt: &str,
        tools: &str,
        extra: &[&str],
        finished: &dyn Fn(&StandIn) -> bool,
    ) -> RunResult {
        let mut cmd = Command::new(&self.claude);
        cmd.arg("-p")
            .arg(prompt)
            .args(["--allowedTools", tools, "--output-format", "json"])
            .args(extra)
            .current_dir(&self.root)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("ANTHROPIC_BASE_URL", standin.base_url())
            .env("ANTHROPIC_API_KEY", "sk-ant-standin")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // its own process group, so a timeout kills every process it started
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().expect("start claude");
        let pid = i32::try_from(child.id()).expect("a pid fits pid_t");
        let started = Instant::now();
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let out_reader = std::thread::spawn(move || read_all(stdout));
        let err_reader = std::thread::spawn(move || read_all(stderr));
        let mut seen = (0usize, Instant::now());
        let mut ended_idle = false;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            let count = standin.requests().len();
            if count != seen.0 {
                seen = (count, Instant::now());
            } else if seen.1.elapsed() > QUIET && finished(standin) {
                kill_group(pid);
                ended_idle = true;
                let _ = writeln!(
                    std::io::stderr(),
                    "claude {} finished its work and stayed idle for {QUIET:?}: ended",
                    self.version
                );
                break child.wait().unwrap();
            }
            if started.elapsed() > RUN_LIMIT {
                kill_group(pid);
                let _ = child.wait();
                let seen: Vec<String> = standin
                    .requests()
                    .iter()
                    .map(|r| format!("{}#{}", r.tag.as_deref().unwrap_or("-"), r.step))
                    .collect();
                panic!(
                    "claude {} ran longer than {RUN_LIMIT:?}; killed. Requests: {}\nstdout: {}\nstderr: {}",
                    self.version,
                    seen.join(" "),
                    out_reader.join().unwrap_or_default(),
                    err_reader.join().unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // Anything it left running (a background shell, a hook) goes with it.
        kill_group(pid);
        let stdout = out_reader.join().unwrap_or_default();
        let stderr = err_reader.join().unwrap_or_default();
        let json = serde_json::from_str(stdout.trim()).ok();
        RunResult {
            status: if ended_idle {
                0
            } else {
                status.code().unwrap_or(-1)
            },
            stdout,
            stderr,
            json,
        }
    }

    /// The hook runs that ended in an error, with what they said: (event, details).
    fn error_rows(&self) -> Vec<(String, Option<String>)> {
        let Ok(conn) = rusqlite::Connection::open(self.root.join(".claude-nagger/state.db")) else {
            return Vec::new();
        };
        let Ok(mut stmt) =
            conn.prepare("SELECT event_type, details FROM hook_log WHERE result = 'error'")
        else {
            return Vec::new();
        };
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map(|rows| rows.filter_map(Result::ok).collect())
            .unwrap_or_default()
    }

    /// What nagger recorded of the runs of the subagents given `role`, in order: each
    /// run's event, its result and how long it took. Said beside a wrong role, it tells a
    /// run that never got its answer recorded (the database too busy or the machine too
    /// slow for the hook's second) from one that answered wrongly.
    pub fn runs_of_role(&self, role: &str) -> String {
        let Ok(conn) = rusqlite::Connection::open(self.root.join(".claude-nagger/state.db")) else {
            return "no database".into();
        };
        let Ok(mut stmt) = conn.prepare(
            "SELECT h.event_type, h.result, h.duration_ms, h.role_source
               FROM hook_log h
              WHERE h.agent_id IN (SELECT agent_id FROM subagent_history WHERE role = ?1
                                   UNION SELECT agent_id FROM subagents WHERE role = ?1)
              ORDER BY h.id",
        ) else {
            return "no hook_log".into();
        };
        stmt.query_map([role], |r| {
            Ok(format!(
                "{} {} {:.0} ms {}",
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<f64>>(2)?.unwrap_or(-1.0),
                r.get::<_, Option<String>>(3)?.unwrap_or_default()
            ))
        })
        .map(|rows| rows.filter_map(Result::ok).collect::<Vec<_>>().join("; "))
        .unwrap_or_default()
    }

    /// nagger's own view of the run: no errors in stats, doctor clean.
    pub fn assert_nagger_healthy(&self) {
        let stats = self.nagger_json(&["stats", "--json"]);
        let errors = count_errors(&stats);
        assert_eq!(
            errors,
            0,
            "nagger stats counts errors: {stats:#}\nerror rows: {:?}",
            self.error_rows()
        );
        let doctor = self.nagger(&["doctor"]);
        assert!(
            doctor.status.success(),
            "nagger doctor is not clean:\n{}{}",
            String::from_utf8_lossy(&doctor.stdout),
            String::from_utf8_lossy(&doctor.stderr)
        );
    }
}

fn read_all(mut r: impl std::io::Read) -> String {
    let mut s = Vec::new();
    let _ = r.read_to_end(&mut s);
    String::from_utf8_lossy(&s).into_owned()
}

fn kill_group(pid: i32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stderr(Stdio::null())
        .status();
}

/// Total error runs in `nagger stats --json`, wherever its shape puts them.
pub fn count_errors(stats: &Value) -> u64 {
    if let Some(n) = stats["totals"]["errors"].as_u64() {
        return n;
    }
    stats["events"].as_array().map_or(0, |events| {
        events.iter().filter_map(|e| e["errors"].as_u64()).sum()
    })
}
