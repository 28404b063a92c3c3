//! Tests of the incremental scan: spawns, links, cursors.

use super::*;

#[test]
fn scan_finds_agent_and_task_spawns_with_their_inputs() {
    let team_spawn = tool_use(
        "toolu_03",
        "Agent",
        json!({"subagent_type": "coder", "description": "Fix cart", "prompt": "[ROLE:coder-fix] Fix it",
               "name": "alice", "team_name": "shop", "model": "sonnet", "run_in_background": true}),
    );
    let transcript = Transcript::new(
        &[
            SUMMARY.to_owned(),
            spawn_line(
                "msg_1",
                spawn("toolu_01", "Task", "Explore", "Map the repo"),
            ),
            assistant(
                "msg_2",
                json!([
                    text("Reading"),
                    tool_use("toolu_02", "Read", json!({"file_path": "/a"}))
                ]),
                usage(1, 1, 1, 1),
            ),
            spawn_line("msg_3", team_spawn),
        ]
        .concat(),
    );

    let outcome = scan_spawns(&transcript.path, None).expect("scan");

    assert_eq!(
        outcome.spawns,
        vec![
            SpawnRecord {
                line_index: 1,
                tool_use_id: Some("toolu_01".into()),
                tool_name: "Task".into(),
                subagent_type: Some("Explore".into()),
                description: Some("Explore work".into()),
                prompt: Some("Map the repo".into()),
                name: None,
                team_name: None,
            },
            SpawnRecord {
                line_index: 3,
                tool_use_id: Some("toolu_03".into()),
                tool_name: "Agent".into(),
                subagent_type: Some("coder".into()),
                description: Some("Fix cart".into()),
                prompt: Some("[ROLE:coder-fix] Fix it".into()),
                name: Some("alice".into()),
                team_name: Some("shop".into()),
            },
        ]
    );
    assert_eq!(outcome.cursor.offset, transcript.len());
    assert_eq!(outcome.cursor.line_count, 4);
    assert!(!outcome.rescanned_from_start);
}

#[test]
fn scan_accepts_whitespace_and_several_spawns_in_one_line() {
    let pretty = "{\"type\": \"assistant\", \"message\": {\"id\": \"msg_9\", \"content\": [\
        {\"type\" : \"tool_use\", \"id\": \"toolu_a\", \"name\" : \"Agent\", \"input\": {\"subagent_type\": \"coder\"}},\
        {\"type\": \"tool_use\",\"id\":\"toolu_b\",\"name\":\"Task\",\"input\":{\"prompt\":\"caf\\u00e9 \\\"quoted\\\"\"}}]}}\n";
    let transcript = Transcript::new(pretty);

    let outcome = scan_spawns(&transcript.path, None).expect("scan");

    assert_eq!(tool_use_ids(&outcome), ["toolu_a", "toolu_b"]);
    assert_eq!(outcome.spawns[1].prompt.as_deref(), Some("café \"quoted\""));
    assert_eq!(outcome.spawns[1].subagent_type, None);
}

#[test]
fn scan_ignores_spawn_lookalikes_and_bad_lines() {
    let transcript = Transcript::new(
        &[
            // A user line that quotes a spawn is not a spawn.
            envelope(
                "user",
                false,
                json!({"message": {"role": "user", "content": [tool_use("toolu_x", "Agent", json!({}))]}}),
            ),
            // Other tools, and a Task name that is not a tool_use.
            spawn_line("msg_1", tool_use("toolu_y", "TaskCreate", json!({"subject": "Task"}))),
            assistant("msg_2", json!([{"type": "text", "name": "Agent", "text": "\"tool_use\""}]), usage(1, 1, 1, 1)),
            // Malformed, wrong types, not an object, invalid UTF-8.
            "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"Agent\"\n".into(),
            "{\"type\":\"assistant\",\"message\":{\"content\":\"tool_use Agent\"}}\n".into(),
            "[\"tool_use\",\"Agent\"]\n".into(),
            "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"Agent\",\"id\":\"\u{0}@FF@\"}]}}\n".into(),
            "\n".into(),
            // Wrong types for the fields read still give the spawn.
            "{\"type\":\"assistant\",\"isSidechain\":\"no\",\"message\":{\"id\":7,\"content\":[5,{\"type\":\"tool_use\",\"name\":\"Agent\",\"id\":[1],\"input\":{\"prompt\":3,\"subagent_type\":\"coder\"}}]}}\n".into(),
        ]
        .concat()
        .replace("@FF@", "@"),
    );
    // Invalid UTF-8 in place of the marker.
    let bytes = std::fs::read(&transcript.path).expect("read");
    let bytes: Vec<u8> = bytes
        .iter()
        .map(|&b| if b == b'@' { 0xff } else { b })
        .collect();
    std::fs::write(&transcript.path, bytes).expect("write");

    let outcome = scan_spawns(&transcript.path, None).expect("scan");

    assert_eq!(outcome.spawns.len(), 1);
    let spawn = &outcome.spawns[0];
    assert_eq!(spawn.line_index, 8);
    assert_eq!(
        (spawn.tool_use_id.as_deref(), spawn.prompt.as_deref()),
        (None, None)
    );
    assert_eq!(spawn.subagent_type.as_deref(), Some("coder"));
    assert_eq!(outcome.cursor.line_count, 9);
}

#[test]
fn scan_links_spawns_from_results_and_progress_once_each() {
    let transcript = Transcript::new(
        &[
            spawn_line("msg_1", spawn("toolu_01", "Agent", "coder", "Fix")),
            spawn_line("msg_2", spawn("toolu_02", "Agent", "reviewer", "Review")),
            progress("toolu_02", "a7f3c9e"),
            progress("toolu_02", "a7f3c9e"),
            tool_result("toolu_99", "ok"),
            agent_result("toolu_01", "b1d2e3f"),
            progress("toolu_02", "a7f3c9e"),
        ]
        .concat(),
    );

    let outcome = scan_spawns(&transcript.path, None).expect("scan");

    assert_eq!(
        outcome.links,
        [link("toolu_02", "a7f3c9e"), link("toolu_01", "b1d2e3f")]
    );
    assert_eq!(outcome.spawns.len(), 2);
}

#[test]
fn scan_skips_result_link_when_the_answered_tool_use_is_ambiguous() {
    let line = envelope(
        "user",
        false,
        json!({
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": "a"},
                {"type": "tool_result", "tool_use_id": "toolu_02", "content": "b"},
            ]},
            "toolUseResult": {"status": "completed", "agentId": "a1"},
        }),
    );
    let transcript = Transcript::new(&line);

    let outcome = scan_spawns(&transcript.path, None).expect("scan");

    assert!(outcome.links.is_empty());
}

#[test]
fn scan_reads_only_appended_bytes_next_time() {
    let first = [
        spawn_line("msg_1", spawn("toolu_01", "Task", "coder", "One")),
        tool_result("toolu_00", &"x".repeat(5000)),
    ]
    .concat();
    let transcript = Transcript::new(&first);
    let full = scan_spawns(&transcript.path, None).expect("first scan");
    assert_eq!(full.bytes_read, first.len() as u64);

    let appended = [
        progress("toolu_02", "agent2"),
        spawn_line("msg_2", spawn("toolu_02", "Agent", "coder", "Two")),
    ]
    .concat();
    transcript.append(&appended);
    let next = scan_spawns(&transcript.path, Some(&full.cursor)).expect("second scan");

    // Appended bytes plus the fingerprint window before the old cursor.
    assert_eq!(
        next.bytes_read,
        appended.len() as u64 + FINGERPRINT_WINDOW as u64
    );
    assert!(!next.rescanned_from_start);
    assert_eq!(tool_use_ids(&next), ["toolu_02"]);
    assert_eq!(next.spawns[0].line_index, 3);
    assert_eq!(next.links, [link("toolu_02", "agent2")]);
    assert_eq!(next.cursor.line_count, 4);

    let idle = scan_spawns(&transcript.path, Some(&next.cursor)).expect("third scan");
    assert_eq!(idle.bytes_read, FINGERPRINT_WINDOW as u64);
    assert!(idle.spawns.is_empty() && idle.links.is_empty());
    assert_eq!(idle.cursor, next.cursor);
}

#[test]
fn scan_leaves_a_partial_last_line_for_the_next_scan() {
    let line = spawn_line("msg_1", spawn("toolu_01", "Agent", "coder", "Fix"));
    let (head, tail) = line.split_at(line.len() / 2);
    let transcript = Transcript::new(&[SUMMARY, head].concat());

    let before = scan_spawns(&transcript.path, None).expect("scan");
    assert!(before.spawns.is_empty());
    assert_eq!(before.cursor.offset, SUMMARY.len() as u64);
    assert_eq!(before.cursor.line_count, 1);

    transcript.append(tail);
    let after = scan_spawns(&transcript.path, Some(&before.cursor)).expect("rescan");
    assert_eq!(tool_use_ids(&after), ["toolu_01"]);
    assert_eq!(after.spawns[0].line_index, 1);
    assert_eq!(after.cursor.offset, transcript.len());
}

#[test]
fn scan_holds_a_complete_line_without_newline_until_it_ends() {
    let line = spawn_line("msg_1", spawn("toolu_01", "Agent", "coder", "Fix"));
    let transcript = Transcript::new(line.trim_end());

    let before = scan_spawns(&transcript.path, None).expect("scan");
    assert!(before.spawns.is_empty());
    assert_eq!(before.cursor.offset, 0);

    transcript.append("\n");
    let after = scan_spawns(&transcript.path, Some(&before.cursor)).expect("rescan");
    assert_eq!(tool_use_ids(&after), ["toolu_01"]);
    assert!(!after.rescanned_from_start);
}

#[test]
fn scan_starts_over_when_the_file_shrank() {
    let transcript = Transcript::new(
        &[
            spawn_line("msg_1", spawn("toolu_01", "Agent", "coder", "One")),
            spawn_line("msg_2", spawn("toolu_02", "Agent", "coder", "Two")),
        ]
        .concat(),
    );
    let full = scan_spawns(&transcript.path, None).expect("scan");

    std::fs::write(
        &transcript.path,
        spawn_line("msg_3", spawn("toolu_03", "Agent", "coder", "Three")),
    )
    .expect("truncate");
    let again = scan_spawns(&transcript.path, Some(&full.cursor)).expect("rescan");

    assert!(again.rescanned_from_start);
    assert_eq!(tool_use_ids(&again), ["toolu_03"]);
    assert_eq!(again.spawns[0].line_index, 0);
    assert_eq!(again.cursor.line_count, 1);
}

#[test]
fn scan_starts_over_when_the_bytes_before_the_cursor_changed() {
    let one = spawn_line("msg_1", spawn("toolu_01", "Agent", "coder", "One"));
    let transcript = Transcript::new(&one);
    let full = scan_spawns(&transcript.path, None).expect("scan");

    // Same file, same length up to the cursor, the line's end rewritten in place.
    let other = one
        .replace("toolu_01", "toolu_09")
        .replace("2026-03-01", "2026-03-02");
    let changed_at = one.find("2026-03-01").expect("fixture has a timestamp");
    assert!(one.len() - changed_at <= FINGERPRINT_WINDOW);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(&transcript.path)
        .expect("open");
    file.write_all(other.as_bytes()).expect("rewrite");
    file.write_all(SUMMARY.as_bytes()).expect("append");
    drop(file);

    let again = scan_spawns(&transcript.path, Some(&full.cursor)).expect("rescan");
    assert!(again.rescanned_from_start);
    assert_eq!(tool_use_ids(&again), ["toolu_09"]);
    assert_eq!(again.cursor.line_count, 2);
}

#[cfg(unix)]
#[test]
fn scan_starts_over_when_the_file_was_replaced() {
    let one = spawn_line("msg_1", spawn("toolu_01", "Agent", "coder", "One"));
    let transcript = Transcript::new(&one);
    let full = scan_spawns(&transcript.path, None).expect("scan");

    // A copy with identical content renamed over the original: a new file.
    let copy = transcript.path.with_extension("tmp");
    std::fs::write(&copy, [one.as_str(), SUMMARY].concat()).expect("write copy");
    std::fs::rename(&copy, &transcript.path).expect("replace");

    let again = scan_spawns(&transcript.path, Some(&full.cursor)).expect("rescan");
    assert!(again.rescanned_from_start);
    assert_eq!(tool_use_ids(&again), ["toolu_01"]);
}

#[test]
fn scan_starts_over_on_a_foreign_cursor() {
    let transcript = Transcript::new(&spawn_line("msg_1", spawn("toolu_01", "Agent", "c", "p")));
    let foreign = ScanCursor {
        offset: 10,
        line_count: 3,
        fingerprint: String::new(),
    };

    let again = scan_spawns(&transcript.path, Some(&foreign)).expect("scan");

    assert!(again.rescanned_from_start);
    assert_eq!(tool_use_ids(&again), ["toolu_01"]);
    assert_eq!(again.spawns[0].line_index, 0);
}

#[test]
fn scan_parses_lines_longer_than_its_buffer_and_skips_over_long_ones() {
    let long = spawn_line(
        "msg_1",
        spawn("toolu_01", "Agent", "coder", &"p".repeat(3000)),
    );
    let too_long = spawn_line(
        "msg_2",
        spawn("toolu_02", "Agent", "coder", &"q".repeat(5000)),
    );
    let after = spawn_line("msg_3", spawn("toolu_03", "Agent", "coder", "short"));
    let transcript = Transcript::new(&[long, too_long, after].concat());

    let limits = Limits {
        chunk: 7,
        max_line: 4096,
        budget: u64::MAX,
    };
    let outcome = scan_spawns_with(&transcript.path, None, limits).expect("scan");

    assert_eq!(tool_use_ids(&outcome), ["toolu_01", "toolu_03"]);
    assert_eq!(outcome.spawns[1].line_index, 2);
    assert_eq!(outcome.cursor.offset, transcript.len());
    assert_eq!(outcome.cursor.line_count, 3);
    let whole = scan_spawns(&transcript.path, None).expect("scan");
    assert_eq!(whole.cursor, outcome.cursor);
}

#[test]
fn scan_of_an_empty_file_finds_nothing_and_a_missing_file_is_an_error() {
    let transcript = Transcript::new("");
    let outcome = scan_spawns(&transcript.path, None).expect("scan");
    assert!(outcome.spawns.is_empty());
    assert_eq!((outcome.cursor.offset, outcome.cursor.line_count), (0, 0));

    let missing = transcript.path.with_file_name("missing.jsonl");
    let error = scan_spawns(&missing, None).expect_err("missing file");
    assert_eq!(error.kind(), io::ErrorKind::NotFound);
}

#[test]
fn prompt_hash_is_the_sha256_prefix() {
    let transcript = Transcript::new(&spawn_line("m", spawn("t", "Agent", "c", "abc")));
    let outcome = scan_spawns(&transcript.path, None).expect("scan");
    assert_eq!(
        outcome.spawns[0].prompt_hash().as_deref(),
        Some("ba7816bf8f01cfea")
    );
}
