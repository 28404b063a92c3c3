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

fn rm_root(p: &Project) -> serde_json::Value {
    p.pre_tool_use("Bash", json!({"command": "rm -rf /"}))
}

fn assert_refused(r: &HookResult, what: &str) {
    assert_eq!(r.code, 0, "{what}: exit code");
    assert_eq!(
        r.decision().as_deref(),
        Some("deny"),
        "{what}: stdout {:?} stderr {:?}",
        r.stdout,
        r.stderr
    );
    assert!(r.reason().contains("[nagger]"), "{what}: {}", r.reason());
}

#[test]
fn guard_holds_when_the_database_folder_is_missing() {
    let p = Project::with_config(DENY_RULE);
    let mut cmd = p.command(&["hook"]);
    cmd.env("NAGGER_DB", "/no/such/folder/state.db");
    let out = run_with_stdin(cmd, &rm_root(&p));
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
fn guard_holds_when_the_database_is_a_folder_or_garbage() {
    let p = Project::new();
    std::fs::create_dir_all(p.db_path()).unwrap();
    assert_refused(&p.hook(&rm_root(&p)), "database is a folder");
    let p = Project::new();
    std::fs::write(p.db_path(), b"not a database at all, just bytes").unwrap();
    assert_refused(&p.hook(&rm_root(&p)), "database is garbage");
}

#[test]
fn guard_holds_when_the_database_is_locked_past_the_busy_timeout() {
    let p = Project::new();
    assert_eq!(p.hook(&p.session_start("startup")).code, 0);
    let locker = p.db();
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let r = p.hook(&rm_root(&p));
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
    let r = p.hook(&rm_root(&p));
    assert_refused(&r, "database read-only");
}

#[test]
fn guard_holds_when_the_config_cannot_be_read() {
    let p = Project::new();
    let config = p.root.join(".claude-nagger/config.toml");
    let _ = std::fs::remove_file(&config);
    std::fs::create_dir_all(&config).unwrap();
    assert_refused(&p.hook(&rm_root(&p)), "config is a folder");
    let p = Project::with_config("[guard\nenabled = \"maybe\"\n\u{0}");
    assert_refused(&p.hook(&rm_root(&p)), "config is broken");
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

fn run_with_stdin(mut cmd: std::process::Command, input: &serde_json::Value) -> HookResult {
    use std::io::Write;
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    finish(child)
}

#[test]
fn a_hook_command_line_with_arguments_it_does_not_take_still_guards() {
    let p = Project::new();
    for args in [
        vec!["hook", "--bogus"],
        vec!["hook", "--db", ""],
        vec!["hook", "extra", "words"],
    ] {
        let cmd = p.command(&args);
        let out = run_with_stdin(cmd, &rm_root(&p));
        assert_refused(&out, &format!("{args:?}"));
        assert!(out.stderr.contains("nagger:"), "{args:?}: {}", out.stderr);
        let cmd = p.command(&args);
        let out = run_with_stdin(cmd, &p.pre_tool_use("Bash", json!({"command": "ls"})));
        assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{args:?}");
    }
}
