//! Compressed reports at SubagentStop: an agent that tries to stop without a
//! `[COMPRESSED]` line is sent back once with the format; never when
//! stop_hook_active, never when compression is off for its type, never because
//! nagger itself failed.

use crate::common::*;
use serde_json::json;

const COMPRESSED: &str =
    "[COMPRESSED] agent_type: coder\nChanged files: src/a.rs\nResult: fixed it";

fn active_agents(p: &Project) -> i64 {
    p.db()
        .query_row("SELECT count(*) FROM subagents", [], |r| r.get(0))
        .unwrap()
}

fn history_summary(p: &Project, agent: &str) -> Option<String> {
    p.db()
        .query_row(
            "SELECT summary FROM subagent_history WHERE agent_id = ?1",
            [agent],
            |r| r.get(0),
        )
        .ok()
}

#[test]
fn stop_without_marker_is_blocked_once_and_the_reason_shows_the_format() {
    let p = Project::with_config("");
    p.hook(&p.subagent_start("ag-1", "coder"));
    let r = p.hook(&p.subagent_stop("ag-1", "coder", Some("All done, I fixed the bug."), false));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.is_block(), "{}", r.stdout);
    let reason = r.json().unwrap()["reason"].as_str().unwrap().to_string();
    for expected in [
        "[COMPRESSED] agent_type: coder",
        "Changed files:",
        "Result:",
        "Decisions:",
        "Blockers:",
        "at most 10 lines",
    ] {
        assert!(reason.contains(expected), "{expected:?} in {reason}");
    }
    assert_eq!(active_agents(&p), 1, "a blocked agent keeps working");

    // Claude Code continues the agent and says so: never block again.
    let again = p.hook(&p.subagent_stop("ag-1", "coder", Some("Still no marker."), true));
    assert_eq!(again.stdout.trim(), "", "{}", again.stdout);
    assert_eq!(active_agents(&p), 0);
    assert_eq!(
        history_summary(&p, "ag-1").as_deref(),
        Some("Still no marker.")
    );
}

#[test]
fn an_agent_is_sent_back_only_once_even_without_stop_hook_active() {
    let p = Project::with_config("");
    p.hook(&p.subagent_start("ag-1", "coder"));
    assert!(
        p.hook(&p.subagent_stop("ag-1", "coder", Some("no marker"), false))
            .is_block()
    );
    let second = p.hook(&p.subagent_stop("ag-1", "coder", Some("no marker again"), false));
    assert!(!second.is_block(), "{}", second.stdout);
}

#[test]
fn stop_hook_active_always_passes() {
    let p = Project::with_config("");
    p.hook(&p.subagent_start("ag-1", "coder"));
    let r = p.hook(&p.subagent_stop("ag-1", "coder", Some("no marker"), true));
    assert_eq!((r.code, r.stdout.trim()), (0, ""), "{}", r.stderr);
}

#[test]
fn a_report_with_the_marker_passes_and_is_stored() {
    let p = Project::with_config("");
    p.hook(&p.subagent_start("ag-1", "coder"));
    let text = format!("Here is my summary.\n\n{COMPRESSED}");
    let r = p.hook(&p.subagent_stop("ag-1", "coder", Some(&text), false));
    assert_eq!(r.stdout.trim(), "", "{}", r.stdout);
    assert_eq!(history_summary(&p, "ag-1").as_deref(), Some(COMPRESSED));
    let (content, category): (String, String) = p
        .db()
        .query_row(
            "SELECT content, category FROM context_entries WHERE agent_id = 'ag-1'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (content.as_str(), category.as_str()),
        (COMPRESSED, "code_changes")
    );
}

#[test]
fn reviewers_are_shown_the_reviewer_format() {
    let p = Project::with_config("");
    p.hook(&p.subagent_start("rv-1", "reviewer"));
    let r = p.hook(&p.subagent_stop("rv-1", "reviewer", Some("Looks fine to me."), false));
    let reason = r.json().unwrap()["reason"].as_str().unwrap().to_string();
    for expected in [
        "[COMPRESSED] agent_type: reviewer",
        "Files reviewed:",
        "Critical:",
        "Warning:",
        "Suggestion:",
        "Verdict: PASS | FAIL",
        "at most 20 lines",
    ] {
        assert!(reason.contains(expected), "{expected:?} in {reason}");
    }
}

#[test]
fn compression_off_for_the_type_passes() {
    let p = Project::with_config("[compress]\ntypes = [\"coder*\"]\nreviewer_types = []\n");
    p.hook(&p.subagent_start("ex-1", "Explore"));
    let r = p.hook(&p.subagent_stop("ex-1", "Explore", Some("found things"), false));
    assert_eq!(r.stdout.trim(), "", "{}", r.stdout);
    p.hook(&p.subagent_start("cd-1", "coder-fix"));
    assert!(
        p.hook(&p.subagent_stop("cd-1", "coder-fix", Some("done"), false))
            .is_block()
    );

    let off = Project::with_config("[compress]\nenabled = false\n");
    off.hook(&off.subagent_start("cd-1", "coder"));
    let r = off.hook(&off.subagent_stop("cd-1", "coder", Some("done"), false));
    assert_eq!(r.stdout.trim(), "", "{}", r.stdout);
}

#[test]
fn a_configured_marker_replaces_the_default() {
    let p = Project::with_config("[compress]\nmarker = \"[SHORT]\"\n");
    p.hook(&p.subagent_start("ag-1", "coder"));
    let r = p.hook(&p.subagent_stop("ag-1", "coder", Some(COMPRESSED), false));
    assert!(r.is_block(), "the default marker no longer counts");
    assert!(
        r.stdout.contains("[SHORT] agent_type: coder"),
        "{}",
        r.stdout
    );
    p.hook(&p.subagent_start("ag-2", "coder"));
    let ok = p.hook(&p.subagent_stop(
        "ag-2",
        "coder",
        Some("[SHORT] agent_type: coder\nResult: ok"),
        false,
    ));
    assert_eq!(ok.stdout.trim(), "");
}

#[test]
fn without_last_assistant_message_the_transcript_is_read_from_the_end() {
    let p = Project::with_config("");
    p.hook(&p.subagent_start("ag-1", "coder"));
    append_lines(
        &p.agent_transcript("ag-1"),
        &[
            assistant_text_line("m1", "[COMPRESSED] an early draft, not the final word"),
            file_tool_line("m2", "Edit", "src/a.rs"),
            assistant_text_line("m3", "Final: everything works."),
        ],
    );
    let r = p.hook(&p.subagent_stop("ag-1", "coder", None, false));
    assert!(
        r.is_block(),
        "the last message lacks the marker: {}",
        r.stdout
    );

    p.hook(&p.subagent_start("ag-2", "coder"));
    append_lines(
        &p.agent_transcript("ag-2"),
        &[assistant_text_line("m1", COMPRESSED)],
    );
    let r = p.hook(&p.subagent_stop("ag-2", "coder", None, false));
    assert_eq!(r.stdout.trim(), "", "{}", r.stdout);
    assert_eq!(history_summary(&p, "ag-2").as_deref(), Some(COMPRESSED));
}

#[test]
fn a_final_message_nagger_cannot_read_passes() {
    let p = Project::with_config("");
    p.hook(&p.subagent_start("ag-1", "coder"));
    // No last_assistant_message and no transcript file: nothing to judge.
    let r = p.hook(&p.subagent_stop("ag-1", "coder", None, false));
    assert_eq!((r.code, r.stdout.trim()), (0, ""), "{}", r.stdout);
    assert_eq!(active_agents(&p), 0);
}

#[test]
fn nagger_failing_never_blocks_a_stop() {
    let p = Project::with_config("");
    let not_a_db = p.root.join("a-directory");
    std::fs::create_dir_all(&not_a_db).unwrap();
    let out = p
        .command(&["hook"])
        .env("NAGGER_DB", &not_a_db)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            let input = p.subagent_stop("ag-1", "coder", Some("no marker"), false);
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(input.to_string().as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("passing"));
}

#[test]
fn blocks_are_logged_as_compressions_enforced() {
    let p = Project::with_config("");
    p.hook(&p.subagent_start("ag-1", "coder"));
    p.hook(&p.subagent_stop("ag-1", "coder", Some("no marker"), false));
    p.hook(&p.subagent_stop("ag-1", "coder", Some(COMPRESSED), true));
    let stops: Vec<(String, serde_json::Value)> = p
        .hook_log()
        .into_iter()
        .filter(|(event, _, _)| event == "SubagentStop")
        .map(|(_, result, details)| (result, details["compression"].clone()))
        .collect();
    assert_eq!(
        stops,
        [
            ("block".to_string(), json!("blocked")),
            ("none".to_string(), json!("stop_hook_active"))
        ]
    );
}
