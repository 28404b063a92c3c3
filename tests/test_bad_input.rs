//! Bad input never blocks: exit 0, no decision, one clear stderr line.

use crate::common::*;
use serde_json::{Value, json};
use std::io::Write as _;
use std::process::Stdio;
use std::time::Duration;

fn assert_fails_open(r: &HookResult, what: &str) {
    assert_eq!(r.code, 0, "{what}: exit code");
    assert_eq!(r.stdout.trim(), "", "{what}: no output");
    assert_eq!(
        r.stderr.trim().lines().count(),
        1,
        "{what}: one stderr line, got {:?}",
        r.stderr
    );
    assert!(r.stderr.starts_with("nagger: "), "{what}: {}", r.stderr);
}

#[test]
fn malformed_stdin_fails_open_with_a_message_that_says_what_was_wrong() {
    let p = Project::with_config("[session.first_time]\ntext = \"x\"\n");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", b"".to_vec(), "empty"),
        ("whitespace", b"  \n ".to_vec(), "empty"),
        ("not json", b"hello".to_vec(), "not valid JSON"),
        ("json array", b"[1,2]".to_vec(), "got an array"),
        ("json string", b"\"PreToolUse\"".to_vec(), "got a string"),
        (
            "truncated",
            br#"{"hook_event_name":"SessionStart","session_id":"s"#.to_vec(),
            "ends early",
        ),
        (
            "invalid utf8",
            b"{\"hook_event_name\":\"\xff\xfe\"}".to_vec(),
            "UTF-8",
        ),
        (
            "wrong types",
            br#"{"hook_event_name":"PreToolUse","session_id":42,"tool_name":"Bash","tool_input":{"command":"ls"}}"#.to_vec(),
            "session_id",
        ),
        (
            "wrong bool",
            br#"{"hook_event_name":"SubagentStop","agent_id":"a","stop_hook_active":"yes"}"#
                .to_vec(),
            "stop_hook_active",
        ),
        (
            "no event name",
            br#"{"session_id":"s"}"#.to_vec(),
            "hook_event_name",
        ),
        (
            "tool without name",
            br#"{"hook_event_name":"PreToolUse","session_id":"s"}"#.to_vec(),
            "tool_name",
        ),
    ];
    for (what, stdin, expected) in cases {
        let r = p.hook_raw(&stdin);
        assert_fails_open(&r, what);
        assert!(r.stderr.contains(expected), "{what}: {}", r.stderr);
    }
    // A tool call that cannot be read is asked about: the guard cannot read what it does.
    let r = p.hook_raw(br#"{"hook_event_name":"PreToolUse","session_id":"s"#);
    assert_eq!((r.code, r.decision().as_deref()), (0, Some("ask")), "{r:?}");
    assert!(r.stderr.contains("ends early"), "{}", r.stderr);
}

#[test]
fn huge_stdin_is_refused_without_reading_it_all() {
    let p = Project::new();
    // A tool call too large to read is asked about: the guard cannot read what it does.
    let mut big =
        br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":""#.to_vec();
    big.resize(40 * 1024 * 1024, b'a');
    big.extend_from_slice(b"\"}}");
    let r = p.hook_raw(&big);
    assert_eq!((r.code, r.decision().as_deref()), (0, Some("ask")), "{r:?}");
    assert!(r.stderr.contains("larger than 16 MiB"), "{}", r.stderr);
    // Any other event too large to read passes.
    let mut big = br#"{"hook_event_name":"UserPromptSubmit","prompt":""#.to_vec();
    big.resize(40 * 1024 * 1024, b'a');
    big.extend_from_slice(b"\"}");
    let r = p.hook_raw(&big);
    assert_fails_open(&r, "40 MB");
    assert!(r.stderr.contains("larger than 16 MiB"), "{}", r.stderr);
}

/// `call` with `field` set to a string of `len` bytes.
fn padded(mut call: Value, field: &str, len: usize) -> Vec<u8> {
    call[field] = json!("p".repeat(len));
    call.to_string().into_bytes()
}

/// A tool call padded past what nagger reads whole with a field that does not decide it
/// (an id, a path, a key nagger does not know) is still decided on its tool and input:
/// refused when the guard refuses it, passed when it is harmless, recorded never.
#[test]
fn a_call_padded_past_the_size_read_whole_is_decided_on_its_tool_and_input() {
    let p = Project::new();
    let big = 20 * 1024 * 1024;
    for field in [
        "session_id",
        "cwd",
        "transcript_path",
        "agent_type",
        "unknown_key",
    ] {
        let r = p.hook_raw(&padded(p.rm_root(), field, big));
        assert_eq!(
            (r.code, r.decision().as_deref()),
            (0, Some("deny")),
            "{field}: {r:?}"
        );
        assert!(
            r.stderr.contains("larger than 16 MiB"),
            "{field}: {}",
            r.stderr
        );
        let harmless = p.pre_tool_use("Bash", json!({"command": "ls -la"}));
        let r = p.hook_raw(&padded(harmless, field, big));
        assert_eq!((r.code, r.decision()), (0, None), "{field}: {r:?}");
    }
    // The padding before the call, and a response too large: still a response, so no
    // answer to a call.
    let mut input = br#"{"pad":""#.to_vec();
    input.resize(big, b'x');
    input.extend_from_slice(
        br#"","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}"#,
    );
    let r = p.hook_raw(&input);
    assert_eq!(r.decision().as_deref(), Some("deny"), "{r:?}");
    let mut response = p.pre_tool_use("Bash", json!({"command": "rm -rf /"}));
    response["hook_event_name"] = json!("PostToolUse");
    let r = p.hook_raw(&padded(response, "tool_response", big));
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{r:?}");
    assert!(
        !p.db_path().exists() || p.hook_log().iter().all(|l| l.0 == "invalid"),
        "nothing of a padded input is recorded as a run"
    );
}

/// JSON that breaks off or goes wrong after a whole tool name and input: the guard still
/// refuses what it refuses; anything else is asked about, never passed.
#[test]
fn a_call_whose_text_breaks_off_after_its_input_is_still_checked() {
    let p = Project::new();
    let whole = p.rm_root().to_string();
    let head = whole.trim_end_matches('}');
    let cut_at = whole.find("\"tool_input\"").expect("tool_input");
    let after_input = &whole[..whole[cut_at..].find('}').map(|i| cut_at + i + 1).unwrap()];
    for (what, text) in [
        ("no closing brace", head.to_string()),
        ("cut after the input", format!("{after_input},")),
        ("garbage after the input", format!("{after_input}, x y}}")),
        ("a field cut", format!("{after_input},\"cwd\":\"/tm")),
    ] {
        let r = p.hook_raw(text.as_bytes());
        assert_eq!(
            (r.code, r.decision().as_deref()),
            (0, Some("deny")),
            "{what}: {text} {r:?}"
        );
    }
    let ls = p.pre_tool_use("Bash", json!({"command": "ls"})).to_string();
    let r = p.hook_raw(ls.trim_end_matches('}').as_bytes());
    assert_eq!(r.decision().as_deref(), Some("ask"), "{r:?}");
}

/// Runs `nagger hook` writing `first`, pausing `pause`, then writing `rest`.
fn stalled(p: &Project, first: &[u8], pause: Duration, rest: &[u8]) -> HookResult {
    let mut child = p
        .command(&["hook"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn nagger hook");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(first).expect("write");
    std::thread::sleep(pause);
    // The hook may have answered and closed its end already.
    let _ = stdin.write_all(rest);
    drop(stdin);
    finish(child)
}

/// An input that stops coming before it says which event it is may be a tool call:
/// asked about, never passed. One that said it is another event passes.
#[test]
fn an_input_that_stops_coming_before_it_names_its_event_is_asked_about() {
    let p = Project::new();
    let call = p.rm_root().to_string();
    for at in [0, 1, 10] {
        let r = stalled(
            &p,
            &call.as_bytes()[..at],
            Duration::from_millis(700),
            &call.as_bytes()[at..],
        );
        assert_eq!(
            (r.code, r.decision().as_deref()),
            (0, Some("ask")),
            "cut at {at}: {r:?}"
        );
    }
    let other = json!({"hook_event_name": "PostToolUse", "session_id": "s"}).to_string();
    let r = stalled(
        &p,
        &other.as_bytes()[..35],
        Duration::from_millis(700),
        &other.as_bytes()[35..],
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{r:?}");
}

#[test]
fn unknown_event_is_a_logged_no_op() {
    let p = Project::new();
    let r =
        p.hook(&json!({"hook_event_name": "TeammateIdle", "session_id": "s", "extra": {"a": [1]}}));
    assert_eq!((r.code, r.stdout.trim(), r.stderr.trim()), (0, "", ""));
    let log = p.hook_log();
    assert_eq!(
        log.last().map(|l| (l.0.as_str(), l.1.as_str())),
        Some(("TeammateIdle", "none"))
    );
}

#[test]
fn missing_transcript_file_fails_open_with_one_line() {
    let p = Project::with_config("[roles.coder]\ntext = \"C\"\n");
    let mut start = p.subagent_start("ag-1", "coder");
    start["transcript_path"] = json!("/nonexistent/transcript.jsonl");
    let r = p.hook(&start);
    assert_eq!(r.code, 0);
    assert!(
        r.additional_context()
            .starts_with("---\n[nagger] When you finish, write your report to"),
        "only the report instruction: {}",
        r.stdout
    );
    assert_eq!(r.stderr.trim().lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("/nonexistent/transcript.jsonl"),
        "{}",
        r.stderr
    );
    // the agent is still registered and identified by its type
    let mut call = p.pre_tool_use_as("ag-1", "coder", "Read", json!({}));
    call["transcript_path"] = json!("/nonexistent/transcript.jsonl");
    let r = p.hook(&call);
    assert_eq!(r.decision().as_deref(), Some("deny"), "{}", r.stderr);
}

#[test]
fn an_unusable_database_fails_open() {
    let p = Project::new();
    // the database path is a directory: nothing can open it
    std::fs::create_dir_all(p.db_path()).unwrap();
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    assert_fails_open(&r, "unusable db");
    assert!(
        r.stderr.contains("state database unavailable"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_corrupt_database_is_moved_aside_and_replaced() {
    let p = Project::new();
    // SQLite's header, then damage (a file without the header is foreign: test_foreign_db).
    std::fs::write(p.db_path(), b"SQLite format 3\0 and then nothing like a database.......................................................").unwrap();
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    assert_eq!(r.code, 0);
    assert!(r.stderr.contains("moved aside"), "{}", r.stderr);
    let moved: Vec<_> = std::fs::read_dir(p.root.join(".claude-nagger"))
        .unwrap()
        .filter_map(std::result::Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("state.db.corrupt-")
        })
        .collect();
    assert_eq!(moved.len(), 1);
    let log = p.hook_log();
    assert!(log.last().unwrap().2["quarantined"].is_string());
}

#[test]
fn a_subagent_stop_without_a_type_is_claude_codes_own_helper_or_a_known_agent() {
    let p = Project::with_config("[compress]\nenabled = true\ntypes = [\"*\"]\n");
    // Claude Code's own helper (its compaction's): never started, no type.
    let mut helper = p.subagent_stop("helper-1", "x", Some("summary of the conversation"), false);
    helper.as_object_mut().unwrap().remove("agent_type");
    let r = p.hook(&helper);
    assert_eq!((r.code, r.stdout.trim(), r.stderr.trim()), (0, "", ""));
    assert_eq!(
        p.hook_log().last().map(|l| (l.0.as_str(), l.1.as_str())),
        Some(("SubagentStop", "none")),
        "logged, not an error"
    );
    let entries: i64 = p
        .db()
        .query_row("SELECT count(*) FROM context_entries", [], |r| r.get(0))
        .unwrap();
    assert_eq!(entries, 0, "a helper's words are no subagent's result");

    // A subagent that started with its type and stops without it keeps that type for
    // its result, and is never sent back on what its stop left out.
    p.hook(&p.subagent_start("cod-1", "coder"));
    let mut stop = p.subagent_stop("cod-1", "x", Some("done, no marker"), false);
    stop.as_object_mut().unwrap().remove("agent_type");
    let r = p.hook(&stop);
    assert_eq!((r.code, r.stdout.trim()), (0, ""));
    let kept: String = p
        .db()
        .query_row("SELECT agent_type FROM context_entries", [], |r| r.get(0))
        .unwrap();
    assert_eq!(kept, "coder");
}
