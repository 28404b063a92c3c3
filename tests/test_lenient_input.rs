//! Decided on what is there: a tool call is judged by the guard from its `tool_name` and
//! `tool_input` whatever else its input holds (fields of the wrong type, unknown fields,
//! numbers too large, nesting too deep, a field given twice), what is wrong is reported
//! as bad input; and a subagent with no final message to judge is never sent back.

use crate::common::*;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Every field of the hook input that holds text or a flag, as Claude Code names it.
const FIELDS: [&str; 19] = [
    "session_id",
    "transcript_path",
    "cwd",
    "permission_mode",
    "agent_id",
    "agent_type",
    "source",
    "reason",
    "trigger",
    "compact_summary",
    "tool_use_id",
    "agent_transcript_path",
    "last_assistant_message",
    "prompt",
    "error",
    "stop_hook_active",
    "is_interrupt",
    "tool_response",
    "unknown_new_field",
];

/// Values of every JSON type; at least one is the wrong type for each field.
fn wrong_values() -> Vec<Value> {
    vec![
        json!(1),
        json!(-2.5),
        json!(18_446_744_073_709_551_615_u64),
        json!(true),
        json!(null),
        json!({"a": {"b": [1, "x"]}}),
        json!([1, "two", null]),
        json!(""),
    ]
}

fn ls(p: &Project) -> Value {
    p.pre_tool_use("Bash", json!({"command": "ls"}))
}

fn assert_denied(r: &HookResult, what: &str) {
    r.assert_deny(what);
    assert!(
        r.reason().contains("filesystem root"),
        "{what}: {}",
        r.reason()
    );
}

fn assert_passed(r: &HookResult, what: &str) {
    assert_eq!(r.code, 0, "{what}: exit code");
    assert_eq!(r.decision(), None, "{what}: {:?} {:?}", r.stdout, r.stderr);
}

#[test]
fn a_tool_call_is_judged_whatever_type_its_other_fields_are() {
    let p = Project::new();
    for field in FIELDS {
        for value in wrong_values() {
            let what = format!("{field} = {value}");
            let mut call = p.rm_root();
            call[field] = value.clone();
            assert_denied(&p.hook(&call), &what);
            let mut call = ls(&p);
            call[field] = value.clone();
            assert_passed(&p.hook(&call), &what);
        }
    }
}

#[test]
fn a_wrong_typed_field_is_reported_as_bad_input() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    for field in [
        "session_id",
        "agent_id",
        "tool_use_id",
        "cwd",
        "permission_mode",
    ] {
        let mut call = p.rm_root();
        call[field] = json!(1);
        let r = p.hook(&call);
        assert_denied(&r, field);
        assert_eq!(r.stderr.lines().count(), 1, "{field}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!(
                "bad hook input (answered by the guard alone): field {field}: expected a string, \
                 got a number"
            )),
            "{field}: {}",
            r.stderr
        );
        let last = p.hook_log().pop().unwrap();
        assert_eq!((last.0.as_str(), last.1.as_str()), ("invalid", "error"));
        assert!(
            last.2["error"].as_str().unwrap().contains(field),
            "{field}: {}",
            last.2
        );
    }
    // A session given as a number records nothing under any session.
    let sessions: i64 = p
        .db()
        .query_row("SELECT count(*) FROM session_info", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sessions, 1);
}

#[test]
fn tool_input_members_of_any_type_leave_the_command_judged() {
    let p = Project::new();
    let r = p.hook(&p.pre_tool_use(
        "Bash",
        json!({"command": "rm -rf /", "description": 5, "timeout": "soon",
               "run_in_background": "yes", "extra": {"deep": [[[null]]]}}),
    ));
    assert_denied(&r, "wrong-typed members");
    // A command that is no text cannot be read: the user is asked, never passed unread.
    for command in [
        json!(["rm", "-rf", "/"]),
        json!(5),
        json!({"c": "rm -rf /"}),
    ] {
        let r = p.hook(&p.pre_tool_use("Bash", json!({ "command": command })));
        assert_eq!(r.decision().as_deref(), Some("ask"), "{command}: {r:?}");
        assert!(
            r.reason().contains("not a string"),
            "{command}: {}",
            r.reason()
        );
    }
}

#[test]
fn garbage_beside_the_call_never_stops_the_guard() {
    let p = Project::new();
    let call = p.rm_root().to_string();
    let body = call.strip_suffix('}').unwrap();
    let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_known = format!("{}{}", "{\"a\":".repeat(300), "}".repeat(300));
    for (what, extra) in [
        ("deep unknown field", format!(r#""garbage":{deep}"#)),
        ("huge unknown number", r#""n":1e999"#.to_string()),
        ("huge long number", format!(r#""n":{}"#, "9".repeat(1000))),
        ("huge known number", r#""session_id":-1e400"#.to_string()),
        (
            "deep known field",
            format!(r#""tool_response":{deep_known}"#),
        ),
        ("many unknown fields", {
            (0..2000)
                .map(|i| format!(r#""f{i}":{{"x":[{i}]}}"#))
                .collect::<Vec<_>>()
                .join(",")
        }),
    ] {
        let stdin = format!("{body},{extra}}}");
        assert_denied(&p.hook_raw(stdin.as_bytes()), what);
    }
    // Deep nesting and huge numbers inside the tool input itself.
    let stdin = format!(
        r#"{{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"x":{deep},"t":1e999,"command":"rm -rf /"}}}}"#
    );
    assert_denied(&p.hook_raw(stdin.as_bytes()), "garbage inside tool_input");
}

/// Half a UTF-16 surrogate pair, as `JSON.stringify` writes a JavaScript string holding
/// one: a model can put it in any text of a tool call (a description, the command), and
/// Claude Code runs the command with U+FFFD in its place.
#[test]
fn an_unpaired_surrogate_escape_anywhere_leaves_the_call_judged() {
    let p = Project::new();
    let places = FIELDS
        .iter()
        .copied()
        .chain(["command", "description", "a key"]);
    for escape in [r"\ud800", r"\udfff", r"\ud83d\u0041", r"\udbff\ud800"] {
        for place in places.clone() {
            let what = format!("{escape} in {place}");
            let with_escape = |mut call: Value| {
                match place {
                    "command" => {
                        let command = call["tool_input"]["command"].as_str().unwrap().to_string();
                        call["tool_input"]["command"] = json!(format!("{command} #@@"));
                    }
                    "description" => call["tool_input"]["description"] = json!("@@"),
                    "a key" => call["tool_input"]["@@"] = json!(1),
                    field => call[field] = json!("@@"),
                }
                call.to_string().replace("@@", escape)
            };
            let r = p.hook_raw(with_escape(p.rm_root()).as_bytes());
            assert_denied(&r, &what);
            // An unknown field is skipped unread: nothing in it is wrong.
            if place != "unknown_new_field" {
                assert!(r.stderr.contains("surrogate"), "{what}: {}", r.stderr);
            }
            assert_passed(&p.hook_raw(with_escape(ls(&p)).as_bytes()), &what);
        }
    }
}

#[test]
fn a_field_given_twice_is_read_last_and_reported() {
    let p = Project::new();
    let stdin = format!(
        r#"{{"hook_event_name":"PreToolUse","session_id":"{}","tool_name":"Bash","tool_input":{{"command":"ls"}},"tool_input":{{"command":"rm -rf /"}}}}"#,
        p.session
    );
    let r = p.hook_raw(stdin.as_bytes());
    assert_denied(&r, "duplicate tool_input");
    assert!(r.stderr.contains("more than once"), "{}", r.stderr);
}

#[test]
fn a_tool_call_without_a_readable_event_name_is_judged_as_the_pretooluse_it_is() {
    let p = Project::new();
    for name in [
        None,
        Some(json!(5)),
        Some(json!(["PreToolUse"])),
        Some(json!("")),
        Some(json!("pretooluse")),
    ] {
        let mut call = p.rm_root();
        match &name {
            Some(v) => call["hook_event_name"] = v.clone(),
            None => {
                call.as_object_mut().unwrap().remove("hook_event_name");
            }
        }
        let r = p.hook(&call);
        assert_denied(&r, &format!("hook_event_name {name:?}"));
        if name != Some(json!("pretooluse")) {
            assert!(
                r.stderr.contains("hook_event_name"),
                "{name:?}: {}",
                r.stderr
            );
        }
    }
    // With a tool response it is no call still to be made: nothing is judged.
    let mut call = p.rm_root();
    call.as_object_mut().unwrap().remove("hook_event_name");
    call["tool_response"] = json!({"stdout": ""});
    let r = p.hook(&call);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    // A tool input without a tool name nagger can read: asked about.
    for name in [
        json!(["Bash"]),
        json!(1),
        json!({"name": "Bash"}),
        json!(null),
    ] {
        let mut call = p.rm_root();
        call["tool_name"] = name.clone();
        let r = p.hook(&call);
        assert_eq!(
            (r.code, r.decision().as_deref()),
            (0, Some("ask")),
            "{name}"
        );
    }
    // A tool input that is no object cannot be read: asked about.
    let mut call = p.rm_root();
    call["tool_input"] = json!("rm -rf /");
    let r = p.hook(&call);
    assert_eq!((r.code, r.decision().as_deref()), (0, Some("ask")));
    assert!(r.stderr.contains("field tool_input"), "{}", r.stderr);
}

#[test]
fn a_wrong_typed_cwd_finds_the_project_as_a_missing_one_does() {
    let p = Project::with_config(
        "[[rules.file]]\nname = \"secrets\"\npatterns = [\"secret/**\"]\nseverity = \"deny\"\nmessage = \"not there\"\n",
    );
    let file = p.root.join("secret/key.txt").display().to_string();
    for cwd in [
        None,
        Some(json!(42)),
        Some(json!({"path": "/"})),
        Some(json!(["/"])),
    ] {
        let mut call = p.pre_tool_use("Write", json!({"file_path": file, "content": "x"}));
        match &cwd {
            Some(v) => call["cwd"] = v.clone(),
            None => {
                call.as_object_mut().unwrap().remove("cwd");
            }
        }
        // The project is found from the process's folder, as without a cwd.
        let mut cmd = p.command(&["hook"]);
        cmd.env_remove("CLAUDE_PROJECT_DIR");
        let r = run_with_stdin(cmd, &call);
        assert_eq!(r.decision().as_deref(), Some("deny"), "{cwd:?}: {r:?}");
        assert!(r.reason().contains("not there"), "{cwd:?}: {}", r.reason());
    }
}

/// Any JSON value, nested a few levels.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A field name: one of the input's own (any of them the wrong type) or a new one.
fn any_field() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(FIELDS.to_vec()).prop_map(String::from),
        "[a-z_]{1,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_other_fields_beside_rm_rf_root_still_deny(
        fields in prop::collection::vec((any_field(), any_json()), 0..10),
        members in prop::collection::vec(("[a-z_]{1,10}", any_json()), 0..4),
    ) {
        let p = Project::new();
        let mut tool_input = serde_json::Map::new();
        for (name, value) in members {
            tool_input.insert(name, value);
        }
        tool_input.insert("command".into(), json!("rm -rf /"));
        let mut call = serde_json::Map::new();
        for (name, value) in fields {
            call.insert(name, value);
        }
        call.insert("hook_event_name".into(), json!("PreToolUse"));
        call.insert("tool_name".into(), json!("Bash"));
        call.insert("tool_input".into(), Value::Object(tool_input));
        let r = p.hook(&Value::Object(call));
        prop_assert_eq!(r.code, 0);
        let decision = r.decision();
        prop_assert_eq!(decision.as_deref(), Some("deny"), "{:?}", r);
    }
}

// ── SubagentStop: only a final message that was read can lack its report ──

fn stop_without_message(p: &Project, agent: &str) -> HookResult {
    p.hook(&p.subagent_stop(agent, "coder", None, false))
}

#[test]
fn a_stop_with_no_final_message_to_judge_passes() {
    let p = Project::with_config("");
    let user_line = json!({
        "type": "user",
        "message": {"role": "user", "content": "Fix the bug in src/a.rs"},
    });
    let cases: [(&str, Option<Vec<Value>>); 4] = [
        ("empty transcript", Some(vec![])),
        ("only the prompt", Some(vec![user_line.clone()])),
        ("missing transcript", None),
        (
            "only a tool call",
            Some(vec![
                user_line.clone(),
                file_tool_line("m1", "Edit", "src/a.rs"),
            ]),
        ),
    ];
    for (i, (what, lines)) in cases.into_iter().enumerate() {
        let agent = format!("ag-{i}");
        p.hook(&p.subagent_start(&agent, "coder"));
        if let Some(lines) = lines {
            let path = p.agent_transcript(&agent);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "").unwrap();
            append_lines(&path, &lines);
        }
        let r = stop_without_message(&p, &agent);
        assert_eq!((r.code, r.stdout.trim()), (0, ""), "{what}: {r:?}");
        let last = p.hook_log().pop().unwrap();
        assert_eq!(
            (last.0.as_str(), last.1.as_str()),
            ("SubagentStop", "none"),
            "{what}"
        );
        assert!(
            matches!(
                last.2["compression"].as_str(),
                Some("no_message" | "unknown_message")
            ),
            "{what}: {}",
            last.2
        );
    }
    // A final message that was read and lacks the marker is still sent back.
    p.hook(&p.subagent_start("ag-said", "coder"));
    append_lines(
        &p.agent_transcript("ag-said"),
        &[user_line, assistant_text_line("m1", "All done.")],
    );
    assert!(stop_without_message(&p, "ag-said").is_block());
    // And so is one given in the input, whatever the transcript holds.
    p.hook(&p.subagent_start("ag-given", "coder"));
    let r = p.hook(&p.subagent_stop("ag-given", "coder", Some("All done."), false));
    assert!(r.is_block(), "{r:?}");
}

#[test]
fn a_final_message_that_shows_nothing_or_is_still_being_written_passes() {
    let p = Project::with_config("");
    let user_line = json!({
        "type": "user",
        "message": {"role": "user", "content": "Fix the bug in src/a.rs"},
    });
    // Only characters a reader cannot see, given or in the transcript.
    for (i, invisible) in [
        "\u{200b}\u{200b}",
        "\u{202e}\u{2066}",
        "\u{feff}",
        "\u{ad}\u{0301}",
        "\u{0}\u{7}",
        "\u{fffd}",
        "\u{e0041}\u{fe0f}",
    ]
    .into_iter()
    .enumerate()
    {
        let given = format!("given-{i}");
        p.hook(&p.subagent_start(&given, "coder"));
        let r = p.hook(&p.subagent_stop(&given, "coder", Some(invisible), false));
        assert_eq!((r.code, r.stdout.trim()), (0, ""), "{invisible:?}: {r:?}");
        let read = format!("read-{i}");
        p.hook(&p.subagent_start(&read, "coder"));
        let path = p.agent_transcript(&read);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "").unwrap();
        append_lines(
            &path,
            &[user_line.clone(), assistant_text_line("m1", invisible)],
        );
        let r = stop_without_message(&p, &read);
        assert_eq!((r.code, r.stdout.trim()), (0, ""), "{invisible:?}: {r:?}");
    }
    // The last line half written: an older message is not the final one.
    p.hook(&p.subagent_start("torn", "coder"));
    let path = p.agent_transcript("torn");
    append_lines(
        &path,
        &[user_line, assistant_text_line("m1", "Working on it.")],
    );
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(
        r#"{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"[COMPRESS"#,
    );
    std::fs::write(&path, text).unwrap();
    let r = stop_without_message(&p, "torn");
    assert_eq!((r.code, r.stdout.trim()), (0, ""), "{r:?}");
}

#[test]
fn a_blank_final_message_with_nothing_in_the_transcript_passes() {
    let p = Project::with_config("");
    p.hook(&p.subagent_start("ag-1", "coder"));
    let path = p.agent_transcript("ag-1");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "").unwrap();
    let r = p.hook(&p.subagent_stop("ag-1", "coder", Some("  \n"), false));
    assert_eq!((r.code, r.stdout.trim()), (0, ""), "{r:?}");
}

/// How a malformed input spells a tool call.
type Spelling = dyn Fn(&Value) -> Vec<u8>;

/// Input Claude Code does not write, carrying `rm -rf /`: the call is read as what it can
/// only be and refused, or asked about when it cannot be read or means two things; never
/// passed without a word. The same input carrying `ls` is never refused.
#[test]
fn a_malformed_tool_call_is_refused_or_asked_never_passed() {
    let p = Project::new();
    let with = |call: &Value, field: &str, value: Value| {
        let mut call = call.clone();
        call[field] = value;
        call.to_string().into_bytes()
    };
    let mut cases: Vec<(String, Box<Spelling>)> = Vec::new();
    for name in [
        "bash",
        "BASH",
        " Bash",
        "Bash\n",
        "Bash\u{0}",
        "Bash\u{200b}",
    ] {
        cases.push((
            format!("tool_name {name:?}"),
            Box::new(move |c: &Value| with(c, "tool_name", json!(name))),
        ));
    }
    for name in [
        "PreToolUse\u{0}",
        "Pre_Tool_Use",
        "PermissionRequest",
        "Unknown",
    ] {
        cases.push((
            format!("hook_event_name {name:?}"),
            Box::new(move |c: &Value| with(c, "hook_event_name", json!(name))),
        ));
    }
    let encoded = |c: &Value, big: bool, bom: bool| -> Vec<u8> {
        let text = c.to_string();
        let bom = bom.then_some(0xfeff_u16);
        bom.into_iter()
            .chain(text.encode_utf16())
            .flat_map(|u| {
                if big {
                    u.to_be_bytes()
                } else {
                    u.to_le_bytes()
                }
            })
            .collect()
    };
    cases.push((
        "UTF-16LE".into(),
        Box::new(move |c| encoded(c, false, false)),
    ));
    cases.push((
        "UTF-16BE with BOM".into(),
        Box::new(move |c| encoded(c, true, true)),
    ));
    cases.push((
        "UTF-32LE".into(),
        Box::new(|c: &Value| {
            c.to_string()
                .chars()
                .flat_map(|ch| u32::from(ch).to_le_bytes())
                .collect()
        }),
    ));
    cases.push((
        "zero bytes and byte order marks first".into(),
        Box::new(|c: &Value| {
            let mut bytes = b"\0\xef\xbb\xbf\xef\xbb\xbf\0".to_vec();
            bytes.extend(c.to_string().into_bytes());
            bytes
        }),
    ));
    cases.push((
        "raw tab and newline in a string".into(),
        Box::new(move |c: &Value| {
            String::from_utf8(with(c, "description", json!("a@TAB@b@NL@c")))
                .unwrap()
                .replace("@TAB@", "\t")
                .replace("@NL@", "\n")
                .into_bytes()
        }),
    ));
    for (what, bytes) in &cases {
        let r = p.hook_raw(&bytes(&p.rm_root()));
        assert_denied(&r, what);
        let r = p.hook_raw(&bytes(&ls(&p)));
        assert_eq!(r.code, 0, "{what}");
        assert_ne!(
            r.decision().as_deref(),
            Some("deny"),
            "{what}: {}",
            r.stdout
        );
    }

    // Input that cannot be read, or means two things: asked about (or refused).
    let rm = p.rm_root().to_string();
    let ls_call = ls(&p).to_string();
    let session = &p.session;
    for (what, stdin) in [
        ("cut short", rm[..rm.len() - 3].to_string()),
        ("an empty object first", format!("{{}}{rm}")),
        ("a harmless call first", format!("{ls_call}{rm}")),
        (
            "the command given twice",
            format!(
                r#"{{"hook_event_name":"PreToolUse","session_id":"{session}","tool_name":"Bash","tool_input":{{"command":"rm -rf /","command":"ls"}}}}"#
            ),
        ),
        (
            "a key of the input given twice deeper down",
            format!(
                r#"{{"hook_event_name":"PreToolUse","session_id":"{session}","tool_name":"Bash","tool_input":{{"command":"ls","x":{{"a":1,"a":2}}}}}}"#
            ),
        ),
    ] {
        let r = p.hook_raw(stdin.as_bytes());
        assert_eq!(r.code, 0, "{what}");
        assert!(
            matches!(r.decision().as_deref(), Some("ask" | "deny")),
            "{what}: {:?} {:?}",
            r.stdout,
            r.stderr
        );
    }
}

/// An agent that ended on an API error, or that the user interrupted, has no reply of its
/// own to send back, whether the input carries the text Claude Code wrote in its place
/// or the transcript alone holds it.
#[test]
fn an_agent_ended_by_an_api_error_or_an_interruption_is_not_sent_back() {
    let p = Project::with_config("");
    let user_line = json!({
        "type": "user",
        "message": {"role": "user", "content": "Fix the bug in src/a.rs"},
    });
    let api_error = json!({
        "type": "assistant",
        "isApiErrorMessage": true,
        "message": {"id": "m9", "model": "<synthetic>", "role": "assistant", "type": "message",
                    "content": [{"type": "text", "text": "API Error: 529 overloaded"}]},
    });
    let interrupted = json!({
        "type": "user",
        "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]},
    });
    for (i, (what, end, given)) in [
        ("an API error", api_error, Some("API Error: 529 overloaded")),
        ("an API error, nothing given", json!(null), None),
        ("an interruption", interrupted, Some("Working on it")),
    ]
    .into_iter()
    .enumerate()
    {
        let agent = format!("ag-end-{i}");
        p.hook(&p.subagent_start(&agent, "coder"));
        let mut lines = vec![
            user_line.clone(),
            assistant_text_line("m1", "Working on it"),
        ];
        if end.is_null() {
            lines.push(json!({
                "type": "assistant",
                "isApiErrorMessage": true,
                "message": {"id": "m8", "model": "<synthetic>", "role": "assistant", "type": "message",
                            "content": [{"type": "text", "text": "API Error: Request timed out"}]},
            }));
        } else {
            lines.push(end);
        }
        append_lines(&p.agent_transcript(&agent), &lines);
        let r = p.hook(&p.subagent_stop(&agent, "coder", given, false));
        assert!(!r.is_block(), "{what}: {r:?}");
    }
}
