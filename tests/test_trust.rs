//! What a new user meets in the first minute: a config mistake that switches off only
//! itself, `check` answering through its exit code, commands that only read leaving the
//! project byte for byte as it was, the project found from a subfolder, an install a
//! teammate can use, the plugin folder, and a command line that documents itself.

use crate::common::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const DENY_TERRAFORM: &str = r#"
[[rules.command]]
name = "no terraform destroy"
patterns = ["terraform destroy*"]
severity = "deny"
message = "Never destroy infrastructure from an agent."
"#;

/// Every file and folder under `root` with its bytes (folders: None).
fn tree(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if path.is_dir() {
                out.insert(rel, None);
                stack.push(path);
            } else {
                out.insert(rel, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

fn assert_same_tree(
    before: &BTreeMap<PathBuf, Option<Vec<u8>>>,
    after: &BTreeMap<PathBuf, Option<Vec<u8>>>,
    what: &str,
) {
    let names = |t: &BTreeMap<PathBuf, Option<Vec<u8>>>| t.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(before),
        names(after),
        "{what}: files created or removed"
    );
    for (path, bytes) in before {
        assert!(after[path] == *bytes, "{what}: {} changed", path.display());
    }
}

#[test]
fn a_config_typo_keeps_the_users_deny_rules_and_the_guard_in_force() {
    let p = Project::with_config(&format!(
        "[context]\nttl_hour = 1\n{DENY_TERRAFORM}\n[[rules.command]]\nname = \"broken\"\npatterns = [\"make *\"]\nseverity = \"nope\"\n"
    ));
    let r = p.hook(&p.pre_tool_use(
        "Bash",
        json!({"command": "terraform destroy -auto-approve"}),
    ));
    assert_eq!(r.code, 0, "a hook never exits non-zero");
    assert_eq!(r.decision().as_deref(), Some("deny"), "{r:?}");
    assert!(r.reason().contains("Never destroy infrastructure"), "{r:?}");
    assert!(
        r.stderr.contains("ttl_hour"),
        "the typo is named: {}",
        r.stderr
    );
    let guard = p.hook(&p.pre_tool_use("Bash", json!({"command": "rm -rf /"})));
    assert_eq!(guard.decision().as_deref(), Some("deny"), "{guard:?}");
    // The rule with a bad value is the only one left out.
    let make = p.hook(&p.pre_tool_use("Bash", json!({"command": "make all"})));
    assert_eq!(make.decision(), None, "{make:?}");

    let doctor = p.run(&["doctor", "--json"]);
    let v: Value = serde_json::from_str(&doctor.stdout).unwrap();
    let messages: Vec<String> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["check"] == "config")
        .map(|c| format!("{} {}", c["status"], c["message"]))
        .collect();
    assert!(
        messages.iter().any(|m| m.starts_with("\"warn\"")
            && m.contains(
                ":2: `context.ttl_hour`: unknown key, ignored (did you mean `ttl_hours`?)"
            )),
        "{messages:#?}"
    );
    assert!(
        messages.iter().any(|m| m.starts_with("\"fail\"")
            && m.contains("`rules.command[2].severity`: must be one of \\\"warn\\\", \\\"ask\\\", \\\"block\\\", \\\"deny\\\"")),
        "{messages:#?}"
    );
    let rules = v["settings"]["rules"]["command"].as_array().unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0]["name"], "no terraform destroy");
    assert_eq!(v["settings"]["guard"]["enabled"], true);
}

#[test]
fn check_answers_with_its_exit_code() {
    let p = Project::with_config(&format!(
        "{DENY_TERRAFORM}
[[rules.command]]
name = \"push\"
patterns = [\"git push*\"]
severity = \"ask\"

[[rules.command]]
name = \"deps\"
patterns = [\"npm install*\"]
severity = \"warn\"
message = \"Say why the dependency is needed.\"
"
    ));
    let check = |args: &[&str]| {
        let mut all = vec!["check"];
        all.extend(args);
        p.run(&all)
    };
    // The whole report is the product: what fires, why, and the answer.
    for (command, code, name) in [
        ("terraform destroy", 3, "check_deny"),
        ("git push origin main", 4, "check_ask"),
        ("npm install left-pad", 0, "check_pass_with_a_message"),
        ("ls", 0, "check_pass"),
    ] {
        let out = check(&["--command", command]);
        assert_eq!(out.code, code, "{command}: {out:?}");
        assert_eq!(out.stderr, "", "{command}");
        insta::assert_snapshot!(name, out.stdout);
    }
    // The mode changes the answer, and the exit code with it.
    let dont_ask = check(&["--command", "git push", "--mode", "dontAsk"]);
    assert_eq!(dont_ask.code, 0, "{dont_ask:?}");
    let json = check(&["--command", "git push", "--json"]);
    assert_eq!(json.code, 4);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["exit_code"], 4);
    // Usage errors are 2, and say what is allowed.
    let bad_mode = check(&["--command", "ls", "--mode", "yolo"]);
    assert_eq!(bad_mode.code, 2, "{bad_mode:?}");
    assert!(
        bad_mode.stderr.contains("bypassPermissions"),
        "{}",
        bad_mode.stderr
    );
    assert_eq!(p.run(&["check"]).code, 2, "nothing to check");
    let bad_input = check(&["--tool", "Edit", "--input", "{not json"]);
    assert_eq!(bad_input.code, 2, "{bad_input:?}");
    assert!(bad_input.stderr.contains("--input is not JSON"));
    assert!(!p.db_path().exists(), "check changes no state");
}

#[test]
fn check_says_when_the_guard_is_off_or_an_allow_entry_exempts_the_command() {
    let p = Project::with_config("[guard]\nallow = [\"git reset --hard*\"]\n");
    let r = p.run(&["check", "--command", "git reset --hard HEAD~1"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout
            .contains("exempted from the guard by `[guard] allow` `git reset --hard*`"),
        "{}",
        r.stdout
    );
    let other = p.run(&["check", "--command", "rm -rf /"]);
    assert_eq!(
        other.code, 3,
        "the allow entry exempts only its own command"
    );
    p.write_config("[guard]\nenabled = false\n");
    let off = p.run(&["check", "--command", "rm -rf /"]);
    assert_eq!(off.code, 0, "{off:?}");
    assert!(off.stdout.contains("the guard is off"), "{}", off.stdout);
}

const READERS: &[&[&str]] = &[
    &["stats"],
    &["stats", "--json"],
    &["stats", "--since", "1h"],
    &["agents"],
    &["agents", "--all", "--json"],
    &["sessions"],
    &["sessions", "--json"],
    &["context"],
    &["context", "--role", "coder", "--json"],
    &["task", "list"],
    &["task", "list", "--all", "--json"],
    &["gc", "--dry-run"],
];

#[test]
fn reading_commands_leave_the_project_byte_identical() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    p.hook(&p.subagent_start("ag-1", "coder"));
    p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    p.run(&["task", "add", "--role", "coder", "write the tests"]);
    for args in READERS {
        // Right after a hook wrote, with its WAL and WAL index still there.
        p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
        let before = tree(&p.root);
        let out = p.run(args);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert_same_tree(&before, &tree(&p.root), &args.join(" "));
    }
}

#[test]
fn reading_commands_without_a_database_say_so_and_create_nothing() {
    let p = Project::new();
    std::fs::remove_dir_all(p.root.join(".claude-nagger")).unwrap();
    let elsewhere = p.root.join("no/such/dir/x.db");
    for (setup, label) in [(false, "no .claude-nagger folder"), (true, "an empty one")] {
        if setup {
            std::fs::create_dir_all(p.root.join(".claude-nagger")).unwrap();
        }
        let before = tree(&p.root);
        for args in READERS {
            let out = p.run(args);
            if !args.contains(&"--json") {
                assert!(
                    out.stdout.contains("no database yet at ")
                        && out
                            .stdout
                            .contains("nagger has not run a hook in this project"),
                    "{label}: {args:?}: {out:?}"
                );
            }
            assert_same_tree(&before, &tree(&p.root), &format!("{label}: {args:?}"));
        }
        let context = p.run(&["context", "--json"]);
        assert_eq!(
            (context.code, context.stdout.trim()),
            (0, "null"),
            "{context:?}"
        );
        let listed = p.run(&["task", "list", "--db", elsewhere.to_str().unwrap()]);
        assert_eq!(listed.code, 0, "{listed:?}");
        assert!(listed.stdout.contains(&elsewhere.display().to_string()));
        assert!(
            !p.root.join("no").exists(),
            "--db of a missing folder creates none"
        );
        assert_same_tree(&before, &tree(&p.root), label);
    }
}

#[test]
fn reading_commands_never_move_a_broken_database_aside() {
    let p = Project::new();
    std::fs::write(
        p.db_path(),
        // SQLite's header, then damage (a file without it is foreign: test_foreign_db).
        b"SQLite format 3\0 but the rest is someone's file, not a database",
    )
    .unwrap();
    let before = tree(&p.root);
    for args in READERS {
        let out = p.run(args);
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert!(
            out.stderr.starts_with("nagger: database "),
            "{args:?}: {}",
            out.stderr
        );
        assert_same_tree(&before, &tree(&p.root), &args.join(" "));
    }
    let added = p.run(&["task", "add", "--role", "coder", "x"]);
    assert_eq!(
        added.code, 1,
        "a writing command leaves it to doctor --fix too"
    );
    assert!(
        added.stderr.contains("nagger doctor --fix"),
        "{}",
        added.stderr
    );
    assert_same_tree(&before, &tree(&p.root), "task add");
    let fixed = p.run(&["doctor", "--fix"]);
    assert!(fixed.stdout.contains("moved it aside"), "{fixed:?}");
    assert!(
        std::fs::read_dir(p.root.join(".claude-nagger"))
            .unwrap()
            .any(|e| e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".corrupt-")),
        "doctor --fix moved it aside"
    );
}

/// `nagger <args>` run from `dir` with no $CLAUDE_PROJECT_DIR.
fn run_in(p: &Project, dir: &Path, args: &[&str]) -> HookResult {
    let mut cmd = p.command(args);
    cmd.env_remove("CLAUDE_PROJECT_DIR").current_dir(dir);
    HookResult::from_output(&cmd.output().unwrap())
}

#[test]
fn commands_find_the_project_from_a_subfolder() {
    let p = Project::with_config(DENY_TERRAFORM);
    let deep = p.root.join("src/app/models");
    std::fs::create_dir_all(&deep).unwrap();
    let r = run_in(&p, &deep, &["check", "--command", "terraform destroy"]);
    assert_eq!(
        r.code, 3,
        "the project's rule applies from a subfolder: {r:?}"
    );
    p.hook(&p.session_start("startup"));
    let sessions = run_in(&p, &deep, &["sessions", "--json"]);
    let v: Value = serde_json::from_str(&sessions.stdout).unwrap();
    assert_eq!(v[0]["session_id"], p.session.as_str(), "{sessions:?}");
    assert!(!deep.join(".claude-nagger").exists());

    // A project marked only by .claude/ (Claude Code's settings) is found too, and
    // --project names one outright.
    let other = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(other.path().join(".claude")).unwrap();
    std::fs::create_dir_all(other.path().join("a/b")).unwrap();
    let stats = run_in(&p, &other.path().join("a/b"), &["stats"]);
    let expected = other.path().join(".claude-nagger/state.db");
    assert!(
        stats.stdout.contains(&expected.display().to_string()),
        "{stats:?}"
    );
    let named = run_in(
        &p,
        &other.path().join("a/b"),
        &["sessions", "--json", "--project", p.root.to_str().unwrap()],
    );
    assert_eq!(
        serde_json::from_str::<Value>(&named.stdout).unwrap()[0]["session_id"],
        p.session.as_str()
    );

    // The hook, without $CLAUDE_PROJECT_DIR, finds the project from the input's cwd.
    let mut input = p.pre_tool_use("Bash", json!({"command": "terraform destroy"}));
    input["cwd"] = json!(deep.display().to_string());
    let mut hook = p.command(&["hook"]);
    hook.env_remove("CLAUDE_PROJECT_DIR").current_dir("/");
    let out = run_with_stdin(hook, &input);
    assert_eq!(out.decision().as_deref(), Some("deny"), "{out:?}");
    assert!(
        !deep.join(".claude-nagger").exists(),
        "no state in the subfolder"
    );
}

#[test]
fn the_home_folders_own_claude_settings_do_not_make_home_a_project() {
    let p = Project::new();
    let outside = tempfile::tempdir().unwrap();
    let home = outside.path().join("home");
    let work = home.join("scratch");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let mut cmd = p.command(&["stats"]);
    cmd.env_remove("CLAUDE_PROJECT_DIR")
        .env("HOME", &home)
        .current_dir(&work);
    let out = HookResult::from_output(&cmd.output().unwrap());
    let expected = work.join(".claude-nagger/state.db");
    assert!(
        out.stdout.contains(&expected.display().to_string()),
        "{out:?}"
    );
}

fn settings_of(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn commands_in(settings: &Value) -> Vec<String> {
    settings["hooks"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|groups| groups.as_array().unwrap().clone())
        .flat_map(|g| g["hooks"].as_array().unwrap().clone())
        .map(|h| h["command"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn install_shares_only_a_command_that_works_on_a_teammates_machine() {
    let p = Project::new();
    let shared = p.root.join(".claude/settings.json");
    let personal = p.root.join(".claude/settings.local.json");
    // Without nagger on PATH: the machine's path goes to the personal file, with why.
    let mut cmd = p.command(&["install"]);
    cmd.env("PATH", "/nonexistent");
    let out = HookResult::from_output(&cmd.output().unwrap());
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("nagger is not on PATH"),
        "{}",
        out.stdout
    );
    assert!(!shared.exists(), "nothing machine-specific is shared");
    let local = commands_in(&settings_of(&personal));
    assert_eq!(local.len(), nagger::edge::install::HOOK_EVENTS.len());
    assert!(local.iter().all(|c| c.contains(nagger_bin())), "{local:?}");

    // With nagger on PATH: the shared file gets `nagger hook`, the personal entries go
    // (both files apply: nagger would run twice), and the old file is backed up under
    // .claude-nagger/, which its .gitignore covers.
    let out = p.run(&["install"]);
    assert_eq!(out.code, 0, "{out:?}");
    let shared_commands = commands_in(&settings_of(&shared));
    assert_eq!(
        shared_commands.len(),
        nagger::edge::install::HOOK_EVENTS.len()
    );
    assert!(
        shared_commands.iter().all(|c| c == "nagger hook"),
        "{shared_commands:?}"
    );
    assert!(!std::fs::read_to_string(&shared).unwrap().contains('/'));
    assert!(settings_of(&personal).get("hooks").is_none(), "{out:?}");
    let claude_dir: Vec<String> = std::fs::read_dir(p.root.join(".claude"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        claude_dir.iter().all(|n| n.starts_with("settings")
            && std::path::Path::new(n)
                .extension()
                .is_some_and(|e| e == "json")),
        "no backups beside the settings: {claude_dir:?}"
    );
    let backups: Vec<_> = std::fs::read_dir(p.root.join(".claude-nagger/backups"))
        .unwrap()
        .collect();
    assert_eq!(backups.len(), 1, "settings.local.json was backed up once");
    let ignored = std::fs::read_to_string(p.root.join(".claude-nagger/.gitignore")).unwrap();
    assert!(ignored.lines().any(|l| l == "backups/"), "{ignored}");
    // A project with git: nothing under .claude-nagger/backups shows as untracked.
    if std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok()
    {
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .args(args)
                .current_dir(&p.root)
                .output()
                .unwrap()
        };
        git(&["init", "-q"]);
        let status = String::from_utf8(git(&["status", "--porcelain", "-uall"]).stdout).unwrap();
        assert!(!status.contains("backups"), "{status}");
        assert!(status.contains(".claude/settings.json"), "{status}");
    }
}

#[test]
fn the_plugin_folder_holds_a_manifest_and_every_hook_event() {
    let p = Project::new();
    let dir = p.root.join("plugin");
    let out = p.run(&["plugin", dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{out:?}");
    let manifest = settings_of(&dir.join(".claude-plugin/plugin.json"));
    assert_eq!(manifest["name"], "nagger");
    assert!(!manifest["name"].as_str().unwrap().contains(' '));
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    assert!(
        manifest["description"]
            .as_str()
            .is_some_and(|d| !d.is_empty())
    );
    let hooks = settings_of(&dir.join("hooks/hooks.json"));
    let events: Vec<&String> = hooks["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(events, nagger::edge::install::HOOK_EVENTS.to_vec());
    for (event, groups) in hooks["hooks"].as_object().unwrap() {
        let hook = &groups[0]["hooks"][0];
        assert_eq!(hook["type"], "command", "{event}");
        assert_eq!(hook["command"], "nagger hook", "{event}: nagger is on PATH");
        assert!(hook["timeout"].as_u64().unwrap() > 0);
    }
    assert!(!dir.join("bin").exists());
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(readme.contains("nagger hook"), "{readme}");

    // Without nagger on PATH the plugin carries the binary and finds it through
    // ${CLAUDE_PLUGIN_ROOT}; `install --plugin` is the same command.
    let carried = p.root.join("carried");
    let mut cmd = p.command(&["install", "--plugin", carried.to_str().unwrap()]);
    cmd.env("PATH", "/nonexistent");
    let out = HookResult::from_output(&cmd.output().unwrap());
    assert_eq!(out.code, 0, "{out:?}");
    let hooks = settings_of(&carried.join("hooks/hooks.json"));
    assert_eq!(
        hooks["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "\"${CLAUDE_PLUGIN_ROOT}/bin/nagger\" hook"
    );
    let version = std::process::Command::new(carried.join("bin/nagger"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("nagger "));
    // The hook the plugin runs is nagger's: it handles an event.
    let mut hook = std::process::Command::new(carried.join("bin/nagger"));
    hook.arg("hook")
        .env_clear()
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .current_dir(&p.root);
    let r = run_with_stdin(
        hook,
        &p.pre_tool_use("Bash", json!({"command": "rm -rf /"})),
    );
    assert_eq!(r.decision().as_deref(), Some("deny"), "{r:?}");
}

#[test]
fn completions_and_the_man_page_come_from_the_command_line_definition() {
    let p = Project::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = p.run(&["completions", shell]);
        assert_eq!(out.code, 0, "{shell}: {out:?}");
        for word in ["nagger", "doctor", "settings", "completions", "dry-run"] {
            assert!(out.stdout.contains(word), "{shell}: {word} missing");
        }
    }
    assert_eq!(p.run(&["completions", "tcsh"]).code, 2);
    let man = p.run(&["man"]);
    assert_eq!(man.code, 0);
    assert!(
        man.stdout.starts_with(".ie") || man.stdout.contains(".TH nagger"),
        "{}",
        &man.stdout[..200.min(man.stdout.len())]
    );
    assert!(man.stdout.contains("doctor"));
}

#[test]
fn every_argument_has_help_text() {
    use clap::CommandFactory;
    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            if arg
                .get_help()
                .is_none_or(|h| h.to_string().trim().is_empty())
            {
                missing.push(format!("{path} {id}"));
            }
        }
        for sub in cmd.get_subcommands() {
            if sub
                .get_about()
                .is_none_or(|h| h.to_string().trim().is_empty())
            {
                missing.push(format!("{path} {} (command)", sub.get_name()));
            }
            walk(sub, &format!("{path} {}", sub.get_name()), missing);
        }
    }
    let mut missing = Vec::new();
    walk(&nagger::edge::cli::Cli::command(), "nagger", &mut missing);
    assert!(missing.is_empty(), "without help: {missing:#?}");

    // And as printed: every option line of every --help has a description.
    let p = Project::new();
    let mut commands: Vec<Vec<String>> = vec![vec![]];
    let root = nagger::edge::cli::Cli::command();
    for sub in root.get_subcommands() {
        commands.push(vec![sub.get_name().to_string()]);
        for subsub in sub.get_subcommands() {
            commands.push(vec![
                sub.get_name().to_string(),
                subsub.get_name().to_string(),
            ]);
        }
    }
    for words in commands {
        let mut args: Vec<&str> = words.iter().map(String::as_str).collect();
        args.push("--help");
        let out = p.run(&args);
        assert_eq!(out.code, 0, "{args:?}");
        // Short help puts a description beside its option; long help (a command with a
        // longer description) on the lines below it, indented further.
        let lines: Vec<&str> = out.stdout.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            if line.starts_with("  ") && (t.starts_with('-') || t.starts_with('<')) {
                let beside = t.split("  ").filter(|s| !s.trim().is_empty()).count() >= 2;
                let indent = line.len() - t.len();
                let below = lines.get(i + 1).is_some_and(|next| {
                    let n = next.trim_start();
                    !n.is_empty() && next.len() - n.len() > indent && !n.starts_with('-')
                });
                assert!(
                    beside || below,
                    "{args:?}: blank entry {line:?}\n{}",
                    out.stdout
                );
            }
        }
    }
}

#[test]
fn db_is_offered_only_by_commands_that_use_the_database() {
    let p = Project::new();
    for args in [
        &["install", "--db", "x.db"][..],
        &["check", "--command", "ls", "--db", "x.db"],
        &["plugin", "dir", "--db", "x.db"],
        &["completions", "bash", "--db", "x.db"],
    ] {
        let out = p.run(args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(out.stderr.contains("--db"), "{args:?}: {}", out.stderr);
    }
    let elsewhere = p.root.join("elsewhere.db");
    let out = p.run(&["stats", "--db", elsewhere.to_str().unwrap()]);
    assert!(out.stdout.contains("elsewhere.db"), "{out:?}");
    let missing = p.run(&["stats", "--project", "/no/such/folder"]);
    assert_eq!(missing.code, 2, "{missing:?}");
    assert!(missing.stderr.contains("is not a folder"));
    // A hook with an argument it does not take still passes: never exit 2 from a hook.
    let hook = p.run(&["hook", "--bogus"]);
    assert_eq!(hook.code, 0, "{hook:?}");
}

#[test]
fn gc_dry_run_says_what_would_go_and_deletes_nothing() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    let old = chrono::Utc::now().timestamp_millis() - 72 * 3_600_000;
    p.db()
        .execute(
            "INSERT INTO session_info (session_id, started_at, last_seen_at) VALUES ('sess-old', ?1, ?1)",
            [old],
        )
        .unwrap();
    let before = tree(&p.root);
    let dry = p.run(&["gc", "--dry-run", "--json"]);
    assert_eq!(dry.code, 0, "{dry:?}");
    let v: Value = serde_json::from_str(&dry.stdout).unwrap();
    assert_eq!(v["dry_run"], true);
    assert_eq!(v["removed"]["session_info"], 1);
    assert_same_tree(&before, &tree(&p.root), "gc --dry-run");
    let text = p.run(&["gc", "--dry-run"]);
    insta::assert_snapshot!("gc_dry_run", text.stdout);
    let real = p.run(&["gc", "--json"]);
    let v: Value = serde_json::from_str(&real.stdout).unwrap();
    assert_eq!(
        (v["dry_run"].clone(), v["total"].clone()),
        (json!(false), json!(1))
    );
    let again = p.run(&["gc"]);
    assert!(
        again.stdout.starts_with("nothing to purge"),
        "{}",
        again.stdout
    );
}

#[test]
fn sessions_are_the_latest_by_default_and_an_unknown_one_is_named() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    let context = p.run(&["context"]);
    assert_eq!(context.code, 0, "{context:?}");
    assert!(
        context.stdout.contains("(session sess-1)") || !context.stdout.is_empty(),
        "{context:?}"
    );
    assert!(
        !context.stderr.starts_with("nagger:"),
        "information is not an error"
    );
    for args in [
        &["stats", "--session", "nope"][..],
        &["context", "--session", "nope"],
    ] {
        let out = p.run(args);
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert!(
            out.stderr.contains("no session nope in ") && out.stderr.contains("nagger sessions"),
            "{args:?}: {}",
            out.stderr
        );
    }
    let known = p.run(&["stats", "--session", "sess-1"]);
    assert_eq!(known.code, 0, "{known:?}");
}
