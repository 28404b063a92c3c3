//! Tests of the reads from the end and the whole-file usage count.

use super::*;

fn context_tokens(content: &str) -> Option<u64> {
    let transcript = Transcript::new(content);
    let whole = current_context_tokens(&transcript.path).expect("read");
    let file = File::open(&transcript.path).expect("open");
    let mut lines = ReverseLines::with_limits(file, tiny()).expect("reader");
    assert_eq!(context_tokens_in(&mut lines).expect("read"), whole);
    whole
}

#[test]
fn context_tokens_come_from_the_last_main_chain_assistant_usage() {
    let content = [
        assistant("msg_1", json!([text("a")]), usage(10, 100, 1000, 5)),
        assistant("msg_2", json!([text("b")]), usage(20, 200, 2000, 7)),
        tool_result("toolu_1", "ok"),
        assistant_with("msg_s", json!([text("side")]), usage(1, 1, 1, 1), true),
        progress("toolu_9", "agent9"),
        SUMMARY.to_owned(),
    ]
    .concat();
    assert_eq!(context_tokens(&content), Some(2220));
}

#[test]
fn context_tokens_are_zero_after_compaction_until_a_new_assistant_line() {
    let before = [
        assistant("msg_1", json!([text("a")]), usage(10, 100, 150_000, 5)),
        compact_boundary(),
        envelope("user", false, json!({"message": {"role": "user", "content": "This session is being continued"}, "isCompactSummary": true})),
    ]
    .concat();
    assert_eq!(context_tokens(&before), Some(0));

    let after = [
        before,
        assistant("msg_2", json!([text("b")]), usage(3, 9000, 12000, 5)),
    ]
    .concat();
    assert_eq!(context_tokens(&after), Some(21003));
}

#[test]
fn context_tokens_ignore_sidechain_synthetic_and_bad_lines() {
    let synthetic = envelope(
        "assistant",
        false,
        json!({"message": {"model": "<synthetic>", "id": "x", "role": "assistant",
               "content": [text("No response requested.")], "usage": usage(0, 0, 0, 0)}}),
    );
    let content = [
        assistant("msg_1", json!([text("a")]), usage(1, 2, 3, 4)),
        assistant_with("msg_s", json!([text("s")]), usage(50, 50, 50, 50), true),
        synthetic,
        "{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":999\n".into(),
        "{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":7".into(),
    ]
    .concat();
    assert_eq!(context_tokens(&content), Some(6));
}

#[test]
fn context_tokens_are_none_without_assistant_usage() {
    assert_eq!(context_tokens(""), None);
    assert_eq!(context_tokens(SUMMARY), None);
    let content = [
        tool_result("toolu_1", "ok"),
        assistant_with("msg_s", json!([text("s")]), usage(5, 5, 5, 5), true),
        "garbage\n".into(),
    ]
    .concat();
    assert_eq!(context_tokens(&content), None);
}

#[test]
fn context_tokens_read_only_the_end_of_a_large_file() {
    let filler = tool_result("toolu_f", &"y".repeat(4000));
    let mut content = String::new();
    while content.len() < 2 * 1024 * 1024 {
        content.push_str(&assistant(
            "msg_old",
            json!([text("old")]),
            usage(1, 1, 1, 1),
        ));
        content.push_str(&filler);
    }
    content.push_str(&assistant(
        "msg_new",
        json!([text("new")]),
        usage(5, 6, 7, 8),
    ));
    content.push_str(&filler);
    let transcript = Transcript::new(&content);

    let mut lines = ReverseLines::open(&transcript.path).expect("reader");
    assert_eq!(context_tokens_in(&mut lines).expect("read"), Some(18));
    assert!(lines.bytes_read() <= REVERSE.chunk as u64);
}

#[test]
fn context_tokens_handle_an_assistant_line_longer_than_a_chunk() {
    let big = assistant(
        "msg_1",
        json!([text(&"z".repeat(200_000))]),
        usage(100, 0, 0, 1),
    );
    let content = [big, tool_result("toolu", "ok")].concat();
    assert_eq!(context_tokens(&content), Some(100));
}

#[test]
fn reading_a_missing_transcript_is_an_error() {
    let missing = Path::new("/nonexistent/nagger/session.jsonl");
    assert!(current_context_tokens(missing).is_err());
    assert!(total_usage(missing).is_err());
    assert!(last_assistant_text(missing).is_err());
    assert!(files_written(missing, 10).is_err());
}

#[test]
fn peek_kind_reads_the_top_level_type_wherever_it_is() {
    assert_eq!(
        peek_kind(progress("t", "a").as_bytes()).as_deref(),
        Some("progress")
    );
    let line = assistant("m", json!([text("x")]), usage(1, 1, 1, 1));
    assert_eq!(peek_kind(line.as_bytes()).as_deref(), Some("assistant"));
    assert_eq!(
        peek_kind(br#"{"data":{"type":"x"},"type":"user","cut"#).as_deref(),
        Some("user")
    );
    assert_eq!(peek_kind(br#"{"data":{"type":"x"}}"#), None);
    assert_eq!(peek_kind(br#"{"data":{"ty"#), None);
    assert_eq!(peek_kind(b"[1]"), None);
}

// --- total_usage ---

#[test]
fn total_usage_counts_each_message_once() {
    let content = [
        assistant(
            "msg_1",
            json!([{"type": "thinking", "thinking": "hm"}]),
            usage(10, 100, 1000, 1),
        ),
        assistant("msg_1", json!([text("a")]), usage(10, 100, 1000, 1)),
        assistant(
            "msg_1",
            json!([tool_use("t1", "Read", json!({}))]),
            usage(10, 100, 1000, 40),
        ),
        tool_result("t1", "ok"),
        assistant("msg_2", json!([text("b")]), usage(2, 20, 200, 3)),
        envelope(
            "assistant",
            true,
            json!({"message": {"content": [], "usage": usage(1, 0, 0, 1)}}),
        ),
        progress("toolu_x", "agent_x"),
        "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_3\",\"usage\":{\"input_tokens\":5}}}"
            .into(),
    ]
    .concat();
    let transcript = Transcript::new(&content);
    let expected = Usage {
        input_tokens: 18,
        output_tokens: 44,
        cache_creation_input_tokens: 120,
        cache_read_input_tokens: 1200,
    };

    assert_eq!(total_usage(&transcript.path).expect("usage"), expected);
    assert_eq!(
        total_usage_with(&transcript.path, tiny()).expect("usage"),
        expected
    );
    assert_eq!(expected.total(), 1382);
    assert_eq!(expected.context(), 1338);
}

#[test]
fn total_usage_of_an_empty_file_is_zero() {
    let transcript = Transcript::new("");
    assert_eq!(
        total_usage(&transcript.path).expect("usage"),
        Usage::default()
    );
}

// --- last_assistant_text ---

fn last_text(content: &str) -> Option<String> {
    let transcript = Transcript::new(content);
    let whole = last_assistant_text(&transcript.path).expect("read");
    let file = File::open(&transcript.path).expect("open");
    let mut lines = ReverseLines::with_limits(file, tiny()).expect("reader");
    assert_eq!(last_assistant_text_in(&mut lines).expect("read"), whole);
    whole
}

#[test]
fn last_text_joins_the_text_blocks_of_the_last_message_with_text() {
    let content = [
        assistant("msg_1", json!([text("old answer")]), usage(1, 1, 1, 1)),
        assistant(
            "msg_2",
            json!([{"type": "thinking", "thinking": "hm"}]),
            usage(1, 1, 1, 1),
        ),
        assistant(
            "msg_2",
            json!([text("[COMPRESSED] agent_type: coder")]),
            usage(1, 1, 1, 1),
        ),
        tool_result("t0", "interleaved"),
        assistant(
            "msg_2",
            json!([text("Changed files: a.rs"), text("Result: ok")]),
            usage(1, 1, 1, 1),
        ),
        assistant(
            "msg_2",
            json!([tool_use("t1", "Bash", json!({"command": "ls"}))]),
            usage(1, 1, 1, 1),
        ),
        tool_result("t1", "a.rs"),
    ]
    .concat();
    assert_eq!(
        last_text(&content).as_deref(),
        Some("[COMPRESSED] agent_type: coder\nChanged files: a.rs\nResult: ok")
    );
    // A newest message without text (a tool call): the final message says nothing, and
    // no older one stands in for it.
    let after = content.clone()
        + &assistant(
            "msg_3",
            json!([tool_use("t2", "Bash", json!({"command": "ls"}))]),
            usage(1, 1, 1, 1),
        );
    assert_eq!(last_text(&after), None);
    // Nor a newest line that is no entry nagger reads.
    for tail in [
        "null\n",
        "[1]\n",
        "\"x\"\n",
        "{\"type\":\"assistant\",\"message\":null}\n",
    ] {
        assert_eq!(last_text(&(content.clone() + tail)), None, "{tail}");
    }
    // A last line still being written: the final message is not known, and no older one
    // stands in for it.
    let cut = content
        + "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_4\",\"content\":[{\"type\":\"text\",\"text\":\"cut";
    assert_eq!(last_text(&cut), None);
}

#[test]
fn last_text_without_message_id_is_that_line_only_even_blank() {
    let content = [
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"first\"}]}}\n",
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"second\"}]}}\n",
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"  \"}]}}\n",
    ]
    .concat();
    assert_eq!(last_text(&content), None);
    let without_blank = content.lines().take(2).collect::<Vec<_>>().join("\n") + "\n";
    assert_eq!(last_text(&without_blank).as_deref(), Some("second"));
}

#[test]
fn last_text_is_none_without_assistant_text() {
    assert_eq!(last_text(""), None);
    let content = [
        tool_result("t1", "ok"),
        assistant(
            "m",
            json!([tool_use("t1", "Read", json!({}))]),
            usage(1, 1, 1, 1),
        ),
    ]
    .concat();
    assert_eq!(last_text(&content), None);
}

// --- files_written ---

fn edits(msg_id: &str, blocks: Value) -> String {
    assistant_with(msg_id, blocks, usage(1, 1, 1, 1), true)
}

#[test]
fn files_written_lists_write_and_edit_targets_first_seen_once() {
    let content = [
        edits("m0", json!([tool_use("t0", "Write", json!({"file_path": "/p/too_old.rs", "content": "x"}))])),
        edits("m1", json!([
            tool_use("t1", "Edit", json!({"file_path": "/p/a.rs", "old_string": "x", "new_string": "y"})),
            tool_use("t2", "Read", json!({"file_path": "/p/read.rs"})),
        ])),
        tool_result("t1", "ok"),
        edits("m2", json!([
            tool_use("t3", "MultiEdit", json!({"file_path": "/p/b.rs", "edits": []})),
            tool_use("t4", "Write", json!({"file_path": "/p/a.rs", "content": "z"})),
        ])),
        edits("m3", json!([tool_use("t5", "NotebookEdit", json!({"notebook_path": "/p/n.ipynb", "new_source": ""}))])),
        edits("m4", json!([tool_use("t6", "Edit", json!({"file_path": 5}))])),
        envelope("user", true, json!({"message": {"content": [tool_use("t7", "Write", json!({"file_path": "/p/user.rs"}))]}})),
    ]
    .concat();
    let transcript = Transcript::new(&content);

    let files = files_written(&transcript.path, 6).expect("read");
    assert_eq!(files, ["/p/a.rs", "/p/b.rs", "/p/n.ipynb"]);
    let file = File::open(&transcript.path).expect("open");
    let mut lines = ReverseLines::with_limits(file, tiny()).expect("reader");
    assert_eq!(files_written_in(&mut lines, 6).expect("read"), files);

    let all = files_written(&transcript.path, 100).expect("read");
    assert_eq!(all, ["/p/too_old.rs", "/p/a.rs", "/p/b.rs", "/p/n.ipynb"]);
    assert!(files_written(&transcript.path, 0).expect("read").is_empty());
}

// --- subagent_transcript_path ---

#[test]
fn subagent_transcript_path_sits_beside_the_parent() {
    let parent = Path::new("/home/dev/.claude/projects/-home-dev-shop/0f6c2d4e.jsonl");
    assert_eq!(
        subagent_transcript_path(parent, "a7f3c9e_x-1"),
        Some(PathBuf::from(
            "/home/dev/.claude/projects/-home-dev-shop/0f6c2d4e/subagents/agent-a7f3c9e_x-1.jsonl"
        ))
    );
}

#[test]
fn subagent_transcript_path_refuses_unsafe_agent_ids() {
    let parent = Path::new("/p/s.jsonl");
    for bad in ["", "../x", "a/b", "a.b", "a b", "é", &"a".repeat(129)] {
        assert_eq!(subagent_transcript_path(parent, bad), None, "{bad:?}");
    }
    assert!(subagent_transcript_path(parent, &"a".repeat(128)).is_some());
}

/// An agent that ended on an API error (the entry Claude Code writes for it, model
/// `<synthetic>`) or that the user interrupted after its last reply left no reply of its
/// own; one that answered after an earlier error did.
#[test]
fn an_api_error_or_an_interruption_after_the_last_reply_is_no_reply() {
    let reply = assistant("msg_1", json!([text("the report")]), usage(1, 1, 1, 1));
    let api_error = envelope(
        "assistant",
        true,
        json!({
            "message": {"id": "m2", "model": "<synthetic>", "role": "assistant", "type": "message",
                        "content": [{"type": "text", "text": "API Error: 529 overloaded"}]},
            "isApiErrorMessage": true,
        }),
    );
    let interrupted = envelope(
        "user",
        true,
        json!({"message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]}}),
    );
    for (what, content) in [
        ("an API error", [reply.clone(), api_error.clone()].concat()),
        (
            "an interruption",
            [reply.clone(), interrupted.clone()].concat(),
        ),
    ] {
        assert_eq!(last_text(&content), None, "{what}");
        let transcript = Transcript::new(&content);
        assert!(ended_without_reply(&transcript.path), "{what}");
    }
    let answered_after = [api_error, interrupted, reply].concat();
    assert_eq!(last_text(&answered_after).as_deref(), Some("the report"));
    let transcript = Transcript::new(&answered_after);
    assert!(!ended_without_reply(&transcript.path));
}
