//! Moving over from claude-nagger in one step: the real claude-nagger 3.3.3 from PyPI
//! installs itself and runs in a project; `nagger install` then keeps its database byte
//! for byte, takes its hooks out and imports its YAML, and nagger's hooks enforce what
//! claude-nagger enforced.
//!
//! claude-nagger is installed once into `target/claude-nagger-venv` (python3 -m venv, pip);
//! `NAGGER_CLAUDE_NAGGER` points the tests at another installed `claude-nagger`.

use crate::common::{Project, bin_dir};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

const VERSION: &str = "3.3.3";

static INSTALL: OnceLock<Mutex<()>> = OnceLock::new();

/// The `claude-nagger` executable, installed on first use.
fn claude_nagger() -> PathBuf {
    if let Ok(path) = std::env::var("NAGGER_CLAUDE_NAGGER")
        && !path.is_empty()
    {
        return PathBuf::from(path);
    }
    let _one = INSTALL
        .get_or_init(|| Mutex::new(()))
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let target = bin_dir()
        .ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "target"))
        .map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"),
            Path::to_path_buf,
        );
    let venv = target.join("claude-nagger-venv");
    let bin = venv.join("bin/claude-nagger");
    let pip = venv.join("bin/pip");
    let installed = || {
        Command::new(&pip)
            .args(["show", "claude-nagger"])
            .output()
            .is_ok_and(|o| {
                String::from_utf8_lossy(&o.stdout).contains(&format!("Version: {VERSION}"))
            })
    };
    if bin.exists() && installed() {
        return bin;
    }
    let run = |cmd: &mut Command, what: &str| {
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{what}: {e} (python3 with venv is needed)"));
        assert!(
            out.status.success(),
            "{what} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(
        Command::new("python3").arg("-m").arg("venv").arg(&venv),
        "python3 -m venv",
    );
    run(
        Command::new(&pip).args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            &format!("claude-nagger=={VERSION}"),
        ]),
        "pip install claude-nagger",
    );
    assert!(
        installed(),
        "claude-nagger {VERSION} is not what pip installed"
    );
    bin
}

/// `claude-nagger <args>` in the project, as Claude Code runs its hooks.
fn run_claude_nagger(p: &Project, args: &[&str], stdin: Option<&Value>) -> String {
    let mut child = Command::new(claude_nagger())
        .args(args)
        .env_clear()
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .env("HOME", &p.root)
        .env("PATH", "/usr/bin:/bin")
        .current_dir(&p.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run claude-nagger");
    let input = stdin.map(Value::to_string).unwrap_or_default();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "claude-nagger {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const CONFIG_YAML: &str = r#"
session_startup:
  enabled: true
  messages:
    first_time:
      title: "Shop conventions"
      main_text: |
        Read docs/ARCHITECTURE.md before any change.
      severity: "block"
    repeated:
      title: "Shop conventions again"
      main_text: |
        Re-read docs/ARCHITECTURE.md.
  overrides:
    subagent_default:
      messages:
        first_time:
          title: "Subagent rules"
          main_text: "Stay in scope."
    subagent_types:
      coder:
        messages:
          first_time:
            title: "coder rules"
            main_text: |
              Run cargo test before reporting.
"#;

const FILE_YAML: &str = r#"
rules:
  - name: "View rules"
    patterns:
      - "**/app/views/**/*.erb"
    severity: "block"
    token_threshold: 35000
    message: |
      Views follow docs/views.md.
"#;

const COMMAND_YAML: &str = r#"
rules:
  - name: "No push"
    patterns:
      - "git push*"
    severity: "deny"
    message: |
      Agents never push.
"#;

fn sha256(path: &Path) -> Vec<u8> {
    use sha2::Digest;
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    sha2::Sha256::digest(bytes).to_vec()
}

fn side(path: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", path.display()))
}

/// A project where claude-nagger installed itself, the user wrote its YAML, and its hooks
/// ran (so it made its `state.db`).
fn claude_nagger_project() -> Project {
    let p = Project::new();
    std::fs::remove_dir(p.root.join(".claude-nagger")).unwrap();
    run_claude_nagger(&p, &["install-hooks"], None);
    let dir = p.root.join(".claude-nagger");
    assert!(
        dir.join("config.yaml").exists(),
        "claude-nagger wrote its config"
    );
    std::fs::write(dir.join("config.yaml"), CONFIG_YAML).unwrap();
    std::fs::write(dir.join("file_conventions.yaml"), FILE_YAML).unwrap();
    std::fs::write(dir.join("command_conventions.yaml"), COMMAND_YAML).unwrap();
    // claude-nagger itself refuses the push and shows its session message.
    let push = p.pre_tool_use("Bash", json!({"command": "git push origin main"}));
    let answer = run_claude_nagger(&p, &["hook", "implementation-design"], Some(&push));
    assert!(answer.contains("Agents never push"), "{answer}");
    let first = p.pre_tool_use("Bash", json!({"command": "ls"}));
    let answer = run_claude_nagger(&p, &["hook", "session-startup"], Some(&first));
    assert!(answer.contains("Shop conventions"), "{answer}");
    assert!(
        dir.join("state.db").exists(),
        "claude-nagger made its database"
    );
    p
}

#[test]
fn claude_nagger_users_move_over_with_install() {
    let p = claude_nagger_project();
    let db = p.db_path();
    let before = sha256(&db);
    let wal_before = side(&db, "-wal")
        .exists()
        .then(|| sha256(&side(&db, "-wal")));

    // Today: nagger's doctor sees claude-nagger's database and YAML.
    let doctor = p.run(&["doctor"]);
    assert!(
        doctor.stdout.contains("claude-nagger's database"),
        "{}",
        doctor.stdout
    );
    assert!(doctor.stdout.contains("not imported"), "{}", doctor.stdout);

    let install = p.run(&["install"]);
    assert_eq!(install.code, 0, "{}{}", install.stdout, install.stderr);
    let kept = p.root.join(".claude-nagger/state.db.claude-nagger");
    assert!(
        install.stdout.contains("kept unchanged"),
        "{}",
        install.stdout
    );
    assert_eq!(
        sha256(&kept),
        before,
        "claude-nagger's database, byte for byte"
    );
    if let Some(wal) = wal_before {
        assert_eq!(sha256(&side(&kept, "-wal")), wal);
    }
    assert!(
        install
            .stdout
            .contains("claude-nagger hook session-startup"),
        "{}",
        install.stdout
    );
    let settings = std::fs::read_to_string(p.root.join(".claude/settings.json")).unwrap();
    assert!(!settings.contains("claude-nagger"), "{settings}");
    assert!(settings.contains("nagger hook"));
    for line in [
        "[session.first_time]",
        "[roles.coder]",
        "\"View rules\"",
        "\"No push\"",
    ] {
        assert!(install.stdout.contains(line), "{line}: {}", install.stdout);
    }

    // nagger's hooks now run with state, and enforce what claude-nagger did.
    let started = p.hook(&p.session_start("startup"));
    assert_eq!(started.code, 0, "{}", started.stderr);
    assert!(
        !started.stderr.contains("unavailable"),
        "{}",
        started.stderr
    );
    let first = p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    first.assert_deny("the session's first call");
    assert!(
        first.reason().contains("Shop conventions"),
        "{}",
        first.reason()
    );
    assert!(first.reason().contains("Read docs/ARCHITECTURE.md"));
    let push = p.hook(&p.pre_tool_use("Bash", json!({"command": "git push origin main"})));
    push.assert_deny("git push");
    assert!(
        push.reason().contains("Agents never push"),
        "{}",
        push.reason()
    );
    let view = p.hook(&p.pre_tool_use(
        "Edit",
        json!({"file_path": p.root.join("app/views/shop/index.html.erb").display().to_string(),
               "old_string": "a", "new_string": "b"}),
    ));
    view.assert_deny("a view");
    assert!(
        view.reason().contains("Views follow docs/views.md"),
        "{}",
        view.reason()
    );
    p.hook(&p.subagent_start("agent-c1", "coder"));
    let coder = p.hook(&p.pre_tool_use_as("agent-c1", "coder", "Bash", json!({"command": "ls"})));
    coder.assert_deny("the coder's first call");
    assert!(
        coder.reason().contains("Run cargo test before reporting"),
        "{}",
        coder.reason()
    );

    let check = p.run(&["check", "--tool", "Bash", "--command", "git push"]);
    assert_eq!(check.code, 3, "{}", check.stdout);
    assert!(check.stdout.contains("No push"), "{}", check.stdout);

    let stats = p.run(&["stats", "--json"]);
    assert_eq!(stats.code, 0, "{}", stats.stderr);
    let stats: Value = serde_json::from_str(&stats.stdout).unwrap();
    let runs = stats.to_string();
    assert!(runs.contains("PreToolUse"), "{runs}");
    let logged: i64 = p
        .db()
        .query_row("SELECT count(*) FROM hook_log", [], |r| r.get(0))
        .unwrap();
    assert!(logged >= 6, "every hook run logged: {logged}");

    let doctor = p.run(&["doctor"]);
    assert_eq!(doctor.code, 0, "{}", doctor.stdout);
    assert!(
        doctor.stdout.contains("imported into config.toml"),
        "{}",
        doctor.stdout
    );
    assert!(
        doctor.stdout.contains("state.db.claude-nagger"),
        "{}",
        doctor.stdout
    );
    assert!(
        !doctor.stdout.contains("still runs claude-nagger"),
        "{}",
        doctor.stdout
    );
    assert_eq!(sha256(&kept), before, "nothing touched the kept copy since");

    // Importing again changes nothing.
    let again = p.run(&["import"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stdout.contains("nothing to change"),
        "{}",
        again.stdout
    );
}

#[test]
fn import_into_an_existing_config_merges_refuses_conflicts_and_previews() {
    let p = claude_nagger_project();
    p.write_config("[session.first_time]\ntitle = \"Mine\"\ntext = \"My text.\"\n");
    let before = std::fs::read_to_string(p.config_path()).unwrap();
    let refused = p.run(&["import"]);
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    assert!(refused.stderr.contains("first_time"), "{}", refused.stderr);
    assert_eq!(std::fs::read_to_string(p.config_path()).unwrap(), before);

    p.write_config("[log]\nretention_days = 7\n");
    let preview = p.run(&["import", "--dry-run"]);
    assert_eq!(preview.code, 0, "{}", preview.stderr);
    assert!(
        preview.stdout.contains("would update"),
        "{}",
        preview.stdout
    );
    assert!(preview.stdout.contains("dry run, nothing written"));
    assert_eq!(
        std::fs::read_to_string(p.config_path()).unwrap(),
        "[log]\nretention_days = 7\n"
    );
    let done = p.run(&["import"]);
    assert_eq!(done.code, 0, "{}", done.stderr);
    assert!(done.stdout.contains("backup:"), "{}", done.stdout);
    let text = std::fs::read_to_string(p.config_path()).unwrap();
    assert!(text.contains("retention_days = 7"));
    assert!(text.contains("No push"));
    let check = p.run(&["check", "--tool", "Bash", "--command", "git push -f"]);
    assert_eq!(check.code, 3, "{}", check.stdout);
}
