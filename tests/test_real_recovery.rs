//! Recovery hints and after-edit checks inside the real Claude Code, offline against
//! the stand-in: what the model is shown in the request after a failed Bash call or an
//! edit, on both versions.

use crate::real::client::{Project, RunResult};
use crate::real::standin::{Block, StandIn, Turn, bash, text};
use serde_json::{Value, json};
use std::sync::Arc;

const RECOVERY_MARK: &str = "RECOVERY-MARK";
const WARN_MARK: &str = "AFTER-EDIT-WARN-MARK";
const BLOCK_MARK: &str = "AFTER-EDIT-BLOCK-MARK";
/// Words of the built-in "command not found" hint.
const NOT_FOUND_WORDS: &str = "not installed or not on PATH";

const RULES: &str = r#"
[[rules.recovery]]
name = "deploy quota"
tool = "Bash"
error = "deploy quota exceeded"
message = "RECOVERY-MARK: wait for the quota to reset; do not retry in a loop."

[[rules.after_edit]]
name = "restating comments"
patterns = ["**/*.rs"]
added = ['(?m)^\s*//\s*increment\b']
message = "AFTER-EDIT-WARN-MARK: comments say why, not what."

[[rules.after_edit]]
name = "debug prints"
patterns = ["src/**"]
added = ['dbg!\(']
severity = "block"
message = "AFTER-EDIT-BLOCK-MARK: remove the dbg! call."
"#;

/// The main agent's script: a first call (refused with the session conventions), then
/// `then` by step from 1 on, then a closing text.
fn main_script(then: Vec<Vec<Block>>) -> Arc<crate::real::standin::Script> {
    Arc::new(move |turn: &Turn<'_>| match turn.step {
        0 => vec![bash("true")],
        n => then
            .get(n - 1)
            .cloned()
            .unwrap_or_else(|| vec![text("All done.")]),
    })
}

fn run(project: &Project, standin: &StandIn, steps: usize, tools: &str) -> RunResult {
    let finished = move |s: &StandIn| s.at("main", steps).is_some();
    let result = project.run_tools_until(
        standin,
        "[SCRIPT:main] Run the plan.",
        tools,
        &[],
        &finished,
    );
    assert_eq!(
        result.status, 0,
        "claude {} failed: {}\n{}",
        project.version, result.stdout, result.stderr
    );
    result
}

/// What the model was shown in the request after its step-`step` tool call: every
/// message after its own last one (the tool result, and what hooks added to it: 2.1.328
/// sends a hook's additionalContext as a system message of its own), as JSON text.
fn shown_after(standin: &StandIn, step: usize) -> String {
    let request = standin
        .at("main", step + 1)
        .unwrap_or_else(|| panic!("no request at step {}", step + 1));
    if let Some(dir) = std::env::var_os("NAGGER_REAL_DEBUG") {
        let path = std::path::Path::new(&dir).join(format!("step-{}.json", step + 1));
        std::fs::write(path, serde_json::to_string_pretty(&request.body).unwrap()).unwrap();
    }
    let messages = request.body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let from = messages
        .iter()
        .rposition(|m| m["role"] == "assistant")
        .map_or(0, |i| i + 1);
    Value::Array(messages[from..].to_vec()).to_string()
}

/// Hook events nagger logged, by name.
fn logged_events(project: &Project, event: &str) -> usize {
    let db = rusqlite::Connection::open(project.root.join(".claude-nagger/state.db")).unwrap();
    let count = db
        .query_row(
            "SELECT count(*) FROM hook_log WHERE event_type = ?1",
            [event],
            |r| r.get::<_, i64>(0),
        )
        .unwrap();
    usize::try_from(count).unwrap()
}

/// A failing Bash call with a known error shows its hint in the next request; a
/// configured rule likewise; a failure nothing matches shows nothing. Hook events
/// Claude Code sends only when registered: `nagger install` registers the failure event.
fn failed_bash_shows_hint(version: &str) {
    let project = Project::new(version);
    project.write_config(RULES);
    let standin = StandIn::start(main_script(vec![
        vec![bash("nagger-missing-tool-xyz --version")],
        vec![bash("echo 'error: deploy quota exceeded' >&2; exit 4")],
        vec![bash("echo 'plain failure' >&2; exit 5")],
    ]));
    run(&project, &standin, 4, "Bash Agent");
    let after_missing = shown_after(&standin, 1);
    let after_quota = shown_after(&standin, 2);
    let after_plain = shown_after(&standin, 3);
    assert!(
        after_missing.contains("command not found") && after_plain.contains("plain failure"),
        "the calls failed as scripted: {after_missing}\n{after_plain}"
    );
    // Both versions send PostToolUseFailure once the event is registered (as `nagger
    // install` does) and show its additionalContext to the model: 2.1.68 as a
    // system-reminder with the tool result, 2.1.328 as a system message after it.
    assert_eq!(
        logged_events(&project, "PostToolUseFailure"),
        3,
        "one event per failed call"
    );
    assert!(
        after_missing.contains(NOT_FOUND_WORDS),
        "built-in hint not shown: {after_missing}"
    );
    assert!(
        after_quota.contains(RECOVERY_MARK),
        "configured hint not shown: {after_quota}"
    );
    assert!(!after_quota.contains(NOT_FOUND_WORDS), "{after_quota}");
    assert!(
        !after_plain.contains("[nagger]"),
        "a failure no rule matches got a hint: {after_plain}"
    );
    let stats = project.nagger_json(&["stats", "--json"]);
    let recovery: Vec<&str> = stats["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "recovery")
        .filter_map(|r| r["rule"].as_str())
        .collect();
    assert_eq!(
        recovery.len(),
        2,
        "the built-in and the configured hint: {stats:#}"
    );
    project.assert_nagger_healthy();
}

/// An edit adding a matching line shows the warning in the next request; a block rule
/// sends its reason back; an edit nothing matches shows nothing.
fn edit_shows_warning(version: &str) {
    let project = Project::new(version);
    project.write_config(RULES);
    let path = |rel: &str| project.root.join(rel).display().to_string();
    let write = |rel: &str, content: &str| Block::Tool {
        name: "Write".into(),
        input: json!({ "file_path": path(rel), "content": content }),
    };
    let standin = StandIn::start(main_script(vec![
        vec![write("lib/plain.rs", "fn plain() {}\n")],
        vec![write(
            "lib/counter.rs",
            "fn count(mut i: u32) -> u32 {\n    // increment i\n    i += 1;\n    i\n}\n",
        )],
        vec![write("src/debug.rs", "fn f() { dbg!(1); }\n")],
    ]));
    run(&project, &standin, 4, "Bash Agent Write Edit");
    let after_plain = shown_after(&standin, 1);
    let after_comment = shown_after(&standin, 2);
    let after_debug = shown_after(&standin, 3);
    assert!(
        project.root.join("src/debug.rs").exists(),
        "the writes ran: {after_debug}"
    );
    assert!(!after_plain.contains("[nagger]"), "{after_plain}");
    assert!(
        after_comment.contains(WARN_MARK),
        "warning not shown: {after_comment}"
    );
    assert!(
        after_debug.contains(BLOCK_MARK),
        "block reason not shown: {after_debug}"
    );
    let stats = project.nagger_json(&["stats", "--json"]);
    let fired: Vec<(String, Value)> = stats["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "after_edit")
        .map(|r| (r["rule"].as_str().unwrap().to_string(), r["hits"].clone()))
        .collect();
    assert_eq!(fired.len(), 2, "{stats:#}");
    project.assert_nagger_healthy();
}

on_both_versions! {
    failed_bash_call_shows_recovery_hint_where_a_failure_event_arrives => failed_bash_shows_hint;
    edit_adding_a_matching_line_shows_the_check => edit_shows_warning;
}
