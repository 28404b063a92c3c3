//! `nagger demo` plays a whole session through `nagger hook`: it must pass its own
//! checks, show every flow, and never touch the caller's project or database.

use crate::common::*;

#[test]
fn demo_plays_every_flow_and_passes_its_own_checks() {
    let p = Project::new();
    let foreign_db = p.root.join("callers.db");
    let out = p
        .command(&["demo"])
        .env("NAGGER_DB", &foreign_db)
        .output()
        .expect("run nagger demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    for flow in [
        "1. SessionStart",
        "2. The main agent's first tool call",
        "3. Three subagents in parallel",
        "4. Rules and the guard",
        "5. Compressed reports and shared context",
        "6. Compaction",
        "7. SessionEnd",
        "8. Stats",
        "[nagger] ## Project conventions",
        "## navigator conventions",
        "## coder conventions",
        "## tester conventions",
        "agent_transcript  transcript",
        "caller=\"direct\"",
        "Views follow docs/views.md.",
        "Pushing needs a green CI.",
        "Close tickets only after review.",
        "Refused `rm -rf /`",
        "(from `bash -c`)",
        "[COMPRESSED] agent_type: navigator",
        "## Shared context (nagger)",
        "restored after the compaction",
        "## Conventions, once more",
        "all ",
        "checks passed",
    ] {
        assert!(stdout.contains(flow), "{flow:?} missing from:\n{stdout}");
    }
    assert!(!stdout.contains('✗'), "{stdout}");
    assert!(
        !stdout.contains("\x1b["),
        "no colours when stdout is not a terminal"
    );
    assert!(!foreign_db.exists(), "NAGGER_DB of the caller is not used");
    assert!(!p.db_path().exists(), "the caller's project is not touched");
}

#[test]
fn demo_keep_leaves_the_project_with_its_database() {
    let p = Project::new();
    let out = p
        .command(&["demo", "--keep"])
        .output()
        .expect("run nagger demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let kept = stdout
        .lines()
        .find_map(|l| l.strip_prefix("project kept at "))
        .expect("the kept path is printed");
    // The folder printed is the project itself: nagger's commands work there as they are.
    let kept = std::path::Path::new(kept);
    assert!(kept.join(".claude-nagger/state.db").is_file(), "{stdout}");
    assert!(
        kept.join(".claude-nagger/config.toml").is_file(),
        "{stdout}"
    );
    let stats = std::process::Command::new(nagger_bin())
        .args(["stats", "--json"])
        .current_dir(kept)
        .env_remove("NAGGER_DB")
        .env_remove("CLAUDE_PROJECT_DIR")
        .output()
        .expect("run nagger stats in the kept project");
    assert_eq!(stats.status.code(), Some(0), "{stats:?}");
    let folder = stdout
        .lines()
        .find_map(|l| l.split_once("; remove ").map(|(_, r)| r))
        .and_then(|r| r.strip_suffix(" when done)"))
        .expect("the folder to remove is printed");
    assert!(kept.starts_with(folder), "{stdout}");
    std::fs::remove_dir_all(folder).expect("clean up the kept demo");
}
