//! The guard and deny rules do not depend on the database: whatever state the
//! database is in, a destructive call is still refused, while the nagging that
//! needs the database fails open.

use crate::common::*;
use serde_json::json;

const DENY_RULE: &str = r#"
[[rules.command]]
name = "no terraform destroy"
patterns = ["terraform destroy*"]
severity = "deny"
message = "Destroying infrastructure is done by hand."
"#;

fn assert_refused(r: &HookResult, what: &str) {
    r.assert_deny(what);
    assert!(r.reason().contains("[nagger]"), "{what}: {}", r.reason());
}

#[test]
fn guard_holds_when_the_database_folder_is_missing() {
    let p = Project::with_config(DENY_RULE);
    let mut cmd = p.command(&["hook"]);
    cmd.env("NAGGER_DB", "/no/such/folder/state.db");
    let out = run_with_stdin(cmd, &p.rm_root());
    assert_refused(&out, "missing folder");
    assert!(out.stderr.contains("guard applied"), "{}", out.stderr);
    assert!(!std::path::Path::new("/no/such/folder").exists());
    // and the user's deny rule too
    let mut cmd = p.command(&["hook"]);
    cmd.env("NAGGER_DB", "/no/such/folder/state.db");
    let out = run_with_stdin(
        cmd,
        &p.pre_tool_use(
            "Bash",
            json!({"command": "terraform destroy -auto-approve"}),
        ),
    );
    assert_refused(&out, "deny rule, missing folder");
    assert!(out.reason().contains("by hand"), "{}", out.reason());
}

#[test]
fn guard_holds_in_a_project_with_no_nagger_folder_at_all() {
    let p = Project::new();
    std::fs::remove_dir_all(p.root.join(".claude-nagger")).unwrap();
    let out = p.hook(&p.rm_root());
    assert_refused(&out, "no .claude-nagger folder");
    assert!(
        out.reason()
            .contains("Refused `rm -rf /`: it deletes the filesystem root."),
        "{}",
        out.reason()
    );
}

#[test]
fn guard_holds_when_the_database_is_a_folder_or_garbage() {
    let p = Project::new();
    std::fs::create_dir_all(p.db_path()).unwrap();
    assert_refused(&p.hook(&p.rm_root()), "database is a folder");
    let p = Project::new();
    std::fs::write(p.db_path(), b"not a database at all, just bytes").unwrap();
    assert_refused(&p.hook(&p.rm_root()), "database is garbage");
}

#[test]
fn guard_holds_when_the_database_is_locked_past_the_busy_timeout() {
    let p = Project::new();
    assert_eq!(p.hook(&p.session_start("startup")).code, 0);
    let locker = p.db();
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let r = p.hook(&p.rm_root());
    locker.execute_batch("ROLLBACK").unwrap();
    assert_refused(&r, "database locked");
}

#[test]
fn guard_holds_when_the_database_is_read_only() {
    let p = Project::new();
    assert_eq!(p.hook(&p.session_start("startup")).code, 0);
    // A read-only file and folder, checked as root too: SQLite honours the mode
    // bits of the file it opens read-write only for other users, so the database
    // is opened through a path SQLite cannot write the journal next to.
    let db = p.db_path();
    let mut perms = std::fs::metadata(&db).unwrap().permissions();
    use std::os::unix::fs::PermissionsExt;
    perms.set_mode(0o444);
    std::fs::set_permissions(&db, perms).unwrap();
    for side in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{side}", db.display()));
    }
    let r = p.hook(&p.rm_root());
    assert_refused(&r, "database read-only");
}

#[test]
fn guard_holds_when_the_config_cannot_be_read() {
    let p = Project::new();
    let config = p.root.join(".claude-nagger/config.toml");
    let _ = std::fs::remove_file(&config);
    std::fs::create_dir_all(&config).unwrap();
    assert_refused(&p.hook(&p.rm_root()), "config is a folder");
    let p = Project::with_config("[guard\nenabled = \"maybe\"\n\u{0}");
    assert_refused(&p.hook(&p.rm_root()), "config is broken");
}

#[test]
fn a_harmless_call_passes_quietly_when_the_database_is_unavailable() {
    let p = Project::new();
    let mut cmd = p.command(&["hook"]);
    cmd.env("NAGGER_DB", "/no/such/folder/state.db");
    let out = run_with_stdin(cmd, &p.pre_tool_use("Bash", json!({"command": "ls"})));
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains("passing"), "{}", out.stderr);
}

/// Files in the state folder whose name says they were moved aside as corrupt.
fn moved_aside(p: &Project) -> Vec<String> {
    std::fs::read_dir(p.root.join(".claude-nagger"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".corrupt-") && !n.ends_with("-wal") && !n.ends_with("-shm"))
        .collect()
}

#[test]
fn a_corrupt_page_is_moved_aside_by_the_hook_and_the_next_hooks_work() {
    let p = Project::new();
    for i in 0..30 {
        p.hook(&p.pre_tool_use("Bash", json!({"command": format!("echo {i}")})));
    }
    let page = {
        let c = p.db();
        c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
        let root: i64 = c
            .query_row(
                "SELECT rootpage FROM sqlite_master WHERE name = 'hook_log'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let size: i64 = c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
        (root - 1) * size..root * size
    };
    // One damaged table page; the header and the schema stay readable.
    let mut bytes = std::fs::read(p.db_path()).unwrap();
    let page = usize::try_from(page.start).unwrap()..usize::try_from(page.end).unwrap();
    for b in &mut bytes[page] {
        *b = 0xA5;
    }
    std::fs::write(p.db_path(), bytes).unwrap();

    let r = p.hook(&p.rm_root());
    assert_refused(&r, "corrupt page");
    let quiet = p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    assert_eq!(quiet.code, 0);
    let moved = moved_aside(&p);
    assert_eq!(
        moved.len(),
        1,
        "{moved:?} / {} / {}",
        r.stderr,
        quiet.stderr
    );
    assert!(
        format!("{}{}", r.stderr, quiet.stderr).contains("moved aside"),
        "{} / {}",
        r.stderr,
        quiet.stderr
    );
    // The new database works: the next run is quiet and logged.
    let next = p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    assert_eq!(next.stderr, "", "{}", next.stderr);
    assert!(!p.hook_log().is_empty());
}

#[test]
fn a_busy_database_is_never_moved_aside() {
    let p = Project::new();
    assert_eq!(p.hook(&p.session_start("startup")).code, 0);
    let locker = p.db();
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    locker.execute_batch("ROLLBACK").unwrap();
    assert_eq!(r.code, 0);
    assert!(moved_aside(&p).is_empty(), "{}", r.stderr);
}

#[test]
fn subagent_stop_with_bad_ids_never_sends_the_agent_back() {
    let p = Project::with_config("");
    assert_eq!(p.hook(&p.subagent_start("ag-1", "coder")).code, 0);
    // Missing: handled, never a decision.
    for (field, value) in [
        ("session_id", serde_json::Value::Null),
        ("session_id", json!("")),
        ("agent_type", serde_json::Value::Null),
        ("agent_type", json!(" ")),
    ] {
        let mut input = p.subagent_stop("ag-1", "coder", Some("no marker, all done"), false);
        input[field] = value.clone();
        let r = p.hook(&input);
        assert_eq!(r.code, 0, "{field}={value}");
        assert!(!r.is_block(), "{field}={value}: {}", r.stdout);
    }
    // Absurd: bad input.
    let cases: Vec<(&str, serde_json::Value)> = vec![
        ("agent_type", json!("x".repeat(300))),
        ("agent_id", json!(format!("ag-{}", "9".repeat(300)))),
        ("session_id", json!("sess-1\u{7}")),
    ];
    for (field, value) in cases {
        let mut input = p.subagent_stop("ag-1", "coder", Some("no marker, all done"), false);
        input[field] = value.clone();
        let r = p.hook(&input);
        assert_eq!(r.code, 0, "{field}={value}");
        assert!(!r.is_block(), "{field}={value}: {}", r.stdout);
        assert_eq!(r.stdout, "", "{field}={value}");
        assert!(r.stderr.contains("bad hook input"), "{field}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1);
    }
    // A tool call with an absurd id is still checked by the guard.
    let mut input = p.rm_root();
    input["session_id"] = json!("s".repeat(1000));
    assert_refused(&p.hook(&input), "long session id");
}

#[test]
fn subagent_stop_without_a_readable_final_message_passes() {
    let p = Project::with_config("");
    assert_eq!(p.hook(&p.subagent_start("ag-1", "coder")).code, 0);
    // No last_assistant_message and no agent transcript at all.
    let r = p.hook(&p.subagent_stop("ag-1", "coder", None, false));
    assert_eq!(r.code, 0);
    assert!(!r.is_block(), "{}", r.stdout);
}

#[cfg(unix)]
#[test]
fn a_context_folder_that_is_a_symlink_gets_nothing_written_through_it() {
    let p = Project::with_config("");
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), p.root.join(".claude-nagger/context")).unwrap();
    assert_eq!(p.hook(&p.session_start("startup")).code, 0);
    assert_eq!(p.hook(&p.subagent_start("ag-1", "coder")).code, 0);
    let stop = p.subagent_stop("ag-1", "coder", Some("[COMPRESSED]\ndone"), false);
    assert_eq!(p.hook(&stop).code, 0);
    assert_eq!(p.hook(&p.session_end("exit")).code, 0);
    let written: Vec<_> = std::fs::read_dir(outside.path()).unwrap().collect();
    assert!(written.is_empty(), "{written:?}");
}

#[cfg(unix)]
#[test]
fn a_report_hard_linked_to_another_file_is_not_read() {
    let p = Project::with_config("");
    assert_eq!(p.hook(&p.subagent_start("ag-1", "coder")).code, 0);
    let secret = p.root.join("secret.txt");
    std::fs::write(&secret, "TOP SECRET CONTENTS").unwrap();
    let report = nagger::domain::context::report_path(&p.root, &p.session, "coder", "ag-1");
    std::fs::hard_link(&secret, &report).unwrap();
    let stop = p.subagent_stop("ag-1", "coder", Some("[COMPRESSED]\ndone"), false);
    assert_eq!(p.hook(&stop).code, 0);
    let stored: String = p
        .db()
        .query_row(
            "SELECT group_concat(content) FROM context_entries",
            [],
            |r| r.get::<_, Option<String>>(0),
        )
        .unwrap()
        .unwrap_or_default();
    assert!(!stored.contains("TOP SECRET"), "{stored}");
    assert!(stored.contains("done"), "{stored}");
}

#[test]
fn agents_whose_ids_sanitise_alike_get_their_own_report_files() {
    let p = Project::with_config("");
    let told = |agent: &str| {
        let r = p.hook(&p.subagent_start(agent, "coder"));
        let text = r.additional_context();
        let at = text.find("write your report to ").expect("report path") + 21;
        text[at..].split(' ').next().unwrap().to_string()
    };
    let a = told("x/y");
    let b = told("x_y");
    assert_ne!(a, b);
    for path in [&a, &b] {
        assert!(
            path.starts_with(&p.root.join(".claude-nagger/context").display().to_string()),
            "{path}"
        );
    }
}

#[test]
fn a_hook_command_line_with_arguments_it_does_not_take_still_guards() {
    let p = Project::new();
    for args in [
        vec!["hook", "--bogus"],
        vec!["hook", "--db", ""],
        vec!["hook", "extra", "words"],
        // Help and version are for a person at a terminal; a hook's stdin is a pipe.
        vec!["hook", "--help"],
        vec!["-h", "hook"],
        vec!["hook", "-V"],
        vec!["--version", "hook", "--bogus"],
    ] {
        let cmd = p.command(&args);
        let out = run_with_stdin(cmd, &p.rm_root());
        assert_refused(&out, &format!("{args:?}"));
        assert!(out.stderr.contains("nagger:"), "{args:?}: {}", out.stderr);
        let cmd = p.command(&args);
        let out = run_with_stdin(cmd, &p.pre_tool_use("Bash", json!({"command": "ls"})));
        assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{args:?}");
    }
}

#[test]
fn a_glob_of_deeply_nested_braces_is_a_config_error_never_a_panic() {
    let deep = format!("{}x{}", "{a,".repeat(1500), "}".repeat(1500));
    let p = Project::with_config(&format!(
        "[[rules.file]]\nname = \"deep\"\npatterns = [\"{deep}\"]\nseverity = \"deny\"\nmessage = \"m\"\n\n[guard]\nallow = [\"{deep}\"]\n"
    ));
    let r = p.hook(&p.pre_tool_use("Edit", json!({"file_path": "src/ax.rs"})));
    assert_eq!(r.code, 0);
    assert!(!r.stderr.contains("panic"), "{}", r.stderr);
    assert_refused(&p.hook(&p.rm_root()), "guard with a deep allow glob");
    let d = p.run(&["doctor"]);
    assert_ne!(d.code, 0, "doctor calls the config valid:\n{}", d.stdout);
    assert!(d.stdout.contains("nest"), "{}", d.stdout);
}

#[test]
fn a_lock_held_on_the_wal_index_costs_one_busy_timeout_and_the_guard_still_answers() {
    let p = Project::new();
    assert_eq!(p.hook(&p.session_start("startup")).code, 0);
    let shm = std::ffi::CString::new(format!("{}-shm", p.db_path().display())).unwrap();
    assert!(std::path::Path::new(shm.to_str().unwrap()).exists());
    // Another process holds a write lock on the whole WAL index, as an agent could.
    let mut ready = [0i32; 2];
    assert_eq!(unsafe { libc::pipe(ready.as_mut_ptr()) }, 0);
    let child = unsafe { libc::fork() };
    if child == 0 {
        // The child: only async-signal-safe calls until it is killed.
        unsafe {
            let fd = libc::open(shm.as_ptr(), libc::O_RDWR);
            let mut lock: libc::flock = std::mem::zeroed();
            lock.l_type = libc::F_WRLCK.try_into().expect("F_WRLCK fits l_type");
            lock.l_whence = libc::SEEK_SET.try_into().expect("SEEK_SET fits l_whence");
            let ok: u8 = u8::from(fd >= 0 && libc::fcntl(fd, libc::F_SETLK, &lock) == 0);
            libc::write(ready[1], (&raw const ok).cast(), 1);
            loop {
                libc::pause();
            }
        }
    }
    let mut ok = 0u8;
    unsafe { libc::read(ready[0], (&raw mut ok).cast(), 1) };
    assert_eq!(ok, 1, "the helper process took the lock");
    let started = std::time::Instant::now();
    let r = p.hook(&p.rm_root());
    let waited = started.elapsed();
    let quiet = p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    unsafe {
        libc::kill(child, libc::SIGKILL);
        libc::waitpid(child, std::ptr::null_mut(), 0);
        libc::close(ready[0]);
        libc::close(ready[1]);
    }
    assert_refused(&r, "WAL index locked");
    assert!(r.stderr.contains("locked"), "{}", r.stderr);
    // One busy timeout (5 s), not SQLite's own ten-second retry loop.
    assert!(
        waited < std::time::Duration::from_secs(9),
        "waited {waited:?}"
    );
    assert_eq!(
        (quiet.code, quiet.stdout.as_str()),
        (0, ""),
        "nagging fails open"
    );
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (0, ""),
        "after the lock is gone"
    );
}

/// Calls that each weaken nagger a different way (a class of the guard's self-protection),
/// tried end to end through `nagger hook`: every one is refused.
const WEAKENING: &[&str] = &[
    "sed -Ei 's/enabled = true/enabled = false/' .claude-nagger/config.toml",
    "python3 -c \"import os; open(os.path.join('.claude'+'-nagger','config.toml'),'w').write('[guard]\\nenabled=false')\"",
    "ln -s .claude c",
    "nagger --project . uninstall",
    "nagger --db x trust",
    "env nagger trust",
    "bash -c 'nagger --project . trust'",
    "echo trust | xargs nagger",
    "rm -rf .claude",
    "mv .claude .claude.off",
    "cd .claude && rm settings.json",
    "pushd .claude-nagger && rm state.db",
    "cd .claude-nagger; rm state.db",
    "git checkout HEAD~1 -- .claude/settings.json",
    "git restore --source=HEAD~1 .claude-nagger/config.toml",
    "git stash push -- .claude-nagger/config.toml",
    "unzip -o x.zip -d .claude-nagger",
    "tar -xf x.tar -C .claude",
    "awk 'BEGIN{print \"\" > \".claude/settings.json\"}'",
    "rsync -a /tmp/x/ .claude/",
    "cp -r /tmp/x .claude",
    "cp /bin/true ~/.cargo/bin/nagger",
    "chmod -x ~/.cargo/bin/nagger",
    "mv ~/.local/bin/nagger /tmp/n",
    "chmod -x \"$(which nagger)\"",
    "cp /tmp/m.json /etc/claude-code/managed-settings.json",
    "echo '{\"disableAllHooks\": true}' > /etc/claude-code/managed-settings.json",
    "perl -i -pe 's/true/false/' .claude/settings.local.json",
    "node -e \"require('fs').writeFileSync('.claude' + '/settings.json', '{}')\"",
    "dd if=/dev/null of=.claude/settings.json",
    "truncate -s0 .claude-nagger/state.db",
    "find . -name settings.json -delete",
];

/// Calls that look like the weakening ones and weaken nothing: each passes without a word.
const LOOKALIKES: &[&str] = &[
    "cat .claude-nagger/config.toml",
    "nagger stats",
    "nagger doctor",
    "git diff .claude/settings.json",
    "ls .claude",
    "cd build && rm -rf *",
    "echo '# reviewer' > .claude/agents/reviewer.md",
    "sed -i 's/x/y/' .claude/skills/s/SKILL.md",
    "git stash",
    "git checkout main",
    "cp README.md docs/",
    "python3 -c \"print(open('README.md').read())\"",
];

#[test]
fn every_class_of_weakening_call_is_refused_through_the_hook() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    for command in WEAKENING {
        let out = p.hook(&p.pre_tool_use("Bash", json!({ "command": command })));
        assert_refused(&out, command);
    }
    // The nagger program on PATH, by its real folder.
    let on_path = bin_dir().join("nagger");
    let command = format!("cp /bin/true {}", on_path.display());
    assert_refused(
        &p.hook(&p.pre_tool_use("Bash", json!({ "command": command }))),
        &command,
    );
    for (tool, path) in [
        ("Write", "/etc/claude-code/managed-settings.json"),
        (
            "Write",
            "/Library/Application Support/ClaudeCode/managed-settings.json",
        ),
        ("Edit", ".claude/settings.local.json"),
        ("Write", "~/.claude/settings.json"),
    ] {
        let out = p.hook(&p.pre_tool_use(tool, json!({ "file_path": path, "content": "{}" })));
        assert_refused(&out, &format!("{tool} {path}"));
    }
}

#[test]
fn a_write_through_a_symbolic_link_to_a_protected_folder_is_refused() {
    let p = Project::new();
    std::fs::create_dir_all(p.root.join(".claude/agents")).unwrap();
    std::fs::write(p.root.join(".claude/settings.json"), "{}").unwrap();
    std::os::unix::fs::symlink(".claude", p.root.join("c")).unwrap();
    std::os::unix::fs::symlink(".claude-nagger", p.root.join("n")).unwrap();
    let absolute = p.root.join("c/settings.json");
    for (tool, path) in [
        ("Write", "c/settings.json".to_owned()),
        ("Edit", absolute.to_string_lossy().into_owned()),
        ("Write", "n/config.toml".to_owned()),
        ("Write", "c/./settings.local.json".to_owned()),
    ] {
        let out = p.hook(&p.pre_tool_use(tool, json!({ "file_path": path, "content": "{}" })));
        assert_refused(&out, &format!("{tool} {path}"));
    }
    for command in [
        "echo '{}' > c/settings.json",
        "cd c && rm settings.json",
        "cp /tmp/x n/config.toml",
        "sed -i 's/a/b/' c/settings.json",
    ] {
        let out = p.hook(&p.pre_tool_use("Bash", json!({ "command": command })));
        assert_refused(&out, command);
    }
    // Agents' own files through the same link stay theirs.
    let out = p.hook(&p.pre_tool_use(
        "Write",
        json!({ "file_path": "c/agents/x.md", "content": "# x" }),
    ));
    assert_eq!(out.decision(), None, "{}", out.stdout);
}

#[test]
fn after_any_allowed_lookalike_the_next_rm_rf_root_is_still_refused() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    for command in LOOKALIKES {
        let out = p.hook(&p.pre_tool_use("Bash", json!({ "command": command })));
        assert_eq!(
            (out.code, out.decision()),
            (0, None),
            "{command}: {} {}",
            out.stdout,
            out.stderr
        );
        assert_refused(&p.hook(&p.rm_root()), &format!("rm -rf / after {command}"));
    }
    for (tool, path) in [
        ("Write", ".claude/agents/x.md"),
        ("Edit", ".claude/skills/s/SKILL.md"),
        ("Write", ".claude/commands/c.md"),
        ("Read", ".claude/settings.json"),
    ] {
        let out = p.hook(&p.pre_tool_use(tool, json!({ "file_path": path, "content": "x" })));
        assert_eq!(out.decision(), None, "{tool} {path}: {}", out.stdout);
        assert_refused(
            &p.hook(&p.rm_root()),
            &format!("rm -rf / after {tool} {path}"),
        );
    }
}

/// Claude Code keeps the shell's folder from one call to the next and sends it as `cwd`:
/// after an allowed `cd .claude-nagger`, plain names there are nagger's own files.
#[test]
fn relative_names_start_in_the_folder_the_call_is_made_from() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    std::fs::create_dir_all(p.root.join(".claude")).unwrap();
    let from = |dir: &std::path::Path, tool: &str, input: serde_json::Value| {
        let mut call = p.pre_tool_use(tool, input);
        call["cwd"] = json!(dir.display().to_string());
        p.hook(&call)
    };
    let nagger_dir = p.root.join(".claude-nagger");
    let claude_dir = p.root.join(".claude");
    for (dir, command) in [
        (&nagger_dir, "rm config.toml"),
        (&nagger_dir, ": > state.db"),
        (&nagger_dir, "rm -f *"),
        (&nagger_dir, "git checkout HEAD -- config.toml"),
        (&claude_dir, "sed -i d settings.local.json"),
        (
            &claude_dir,
            "jq 'del(.hooks)' settings.json > t && mv t settings.json",
        ),
        (&claude_dir, "cd .. && rm -rf .claude-nagger"),
    ] {
        let out = from(dir, "Bash", json!({ "command": command }));
        assert_refused(&out, &format!("{command} in {}", dir.display()));
    }
    let out = from(
        &claude_dir,
        "Write",
        json!({ "file_path": "settings.json", "content": "{}" }),
    );
    assert_refused(&out, "Write settings.json in .claude");
    // The same names elsewhere are ordinary files, and reading nagger's files is fine.
    let sub = p.root.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    for (dir, command) in [
        (&sub, "rm config.toml"),
        (&sub, "rm -f *"),
        (&nagger_dir, "cat config.toml"),
        (&claude_dir, "ls -la"),
    ] {
        let out = from(dir, "Bash", json!({ "command": command }));
        assert_eq!(
            (out.code, out.decision()),
            (0, None),
            "{command} in {}: {}",
            dir.display(),
            out.stdout
        );
    }
    // From the root folder, `rm -rf *` is everything.
    let out = from(
        std::path::Path::new("/"),
        "Bash",
        json!({ "command": "rm -rf *" }),
    );
    out.assert_deny("rm -rf * in /");
}

/// The migration library panics on some damaged histories (a date or checksum it cannot
/// parse): the guard's answer, decided before the database, still comes out, and the
/// other events pass quietly.
#[test]
fn a_database_whose_opening_panics_leaves_the_guard_answering() {
    for damage in [
        "UPDATE refinery_schema_history SET applied_on = 'yesterday' WHERE version = 1",
        "UPDATE refinery_schema_history SET applied_on = '2026-01-01' WHERE version = 1",
        "UPDATE refinery_schema_history SET checksum = 'abc' WHERE version = 1",
    ] {
        let p = Project::new();
        p.hook(&p.session_start("startup"));
        {
            let c = rusqlite::Connection::open(p.root.join(".claude-nagger/state.db")).unwrap();
            let version: i64 = c
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .unwrap();
            c.execute_batch(&format!("{damage}; PRAGMA user_version = {};", version - 1))
                .unwrap();
        }
        let out = p.hook(&p.rm_root());
        assert_refused(&out, damage);
        assert_eq!(out.code, 0, "{damage}");
        assert!(
            out.stderr.contains("guard applied"),
            "{damage}: {}",
            out.stderr
        );
        assert_eq!(out.stderr.lines().count(), 1, "{damage}: {}", out.stderr);
        let out = p.hook(&p.session_start("resume"));
        assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{damage}");
    }
}
