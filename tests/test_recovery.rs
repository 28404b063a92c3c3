//! Recovery hints after a failed tool call (PostToolUseFailure) and after-edit checks
//! (PostToolUse), through the real `nagger hook`, plus their `check`, `stats` and
//! `install` sides.

use crate::common::*;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// A PostToolUseFailure as Claude Code 2.1.328 sends it.
fn failure(p: &Project, tool: &str, input: Value, error: &str) -> Value {
    let mut v = p.post_tool_use(tool, input);
    v["hook_event_name"] = json!("PostToolUseFailure");
    v.as_object_mut().unwrap().remove("tool_response");
    v["tool_use_id"] = json!("toolu_failed");
    v["error"] = json!(error);
    v["is_interrupt"] = json!(false);
    v
}

fn bash_failure(p: &Project, error: &str) -> HookResult {
    p.hook(&failure(
        p,
        "Bash",
        json!({"command": "make", "description": "build"}),
        error,
    ))
}

/// The additionalContext of a PostToolUseFailure answer, checking its shape.
fn hint(result: &HookResult) -> String {
    assert_eq!(result.code, 0, "{result:?}");
    let Some(v) = result.json() else {
        return String::new();
    };
    assert_eq!(
        v["hookSpecificOutput"]["hookEventName"], "PostToolUseFailure",
        "{v}"
    );
    result.additional_context()
}

const BUILTIN_EXAMPLES: [(&str, &str, &str, &str); 7] = [
    (
        "command-not-found",
        "Bash",
        "Exit code 127\n/bin/bash: line 1: rgrep: command not found",
        "not on PATH",
    ),
    (
        "permission-denied",
        "Write",
        "EACCES: permission denied, open '/etc/hosts'",
        "sudo",
    ),
    (
        "no-space-left",
        "Bash",
        "Exit code 1\ncp: error writing 'big.iso': No space left on device",
        "disk is full",
    ),
    (
        "address-in-use",
        "Bash",
        "Exit code 1\nError: listen EADDRINUSE: address already in use 127.0.0.1:8080",
        "already listening",
    ),
    (
        "git-non-fast-forward",
        "Bash",
        "Exit code 1\nTo github.com:o/r.git\n ! [rejected]        main -> main (non-fast-forward)\nerror: failed to push some refs to 'github.com:o/r.git'\nhint: Updates were rejected because the tip of your current branch is behind",
        "Never force-push",
    ),
    (
        "merge-conflict",
        "Bash",
        "Exit code 1\nAuto-merging src/lib.rs\nCONFLICT (content): Merge conflict in src/lib.rs\nerror: could not apply 1a2b3c4... change",
        "<<<<<<<",
    ),
    (
        "timed-out",
        "Bash",
        "Command timed out after 2m 0.0s",
        "ran out of time",
    ),
];

#[test]
fn each_builtin_hint_reaches_the_agent_once_per_session() {
    for (name, tool, error, words) in BUILTIN_EXAMPLES {
        let p = Project::new();
        let input = if tool == "Bash" {
            json!({"command": "make"})
        } else {
            json!({"file_path": "/etc/hosts", "content": "x"})
        };
        let first = p.hook(&failure(&p, tool, input.clone(), error));
        let text = hint(&first);
        assert!(
            text.starts_with("[nagger] ") && text.contains(words),
            "{name}: {text:?} {first:?}"
        );
        assert!(text.len() < 10_000);
        let again = p.hook(&failure(&p, tool, input, error));
        assert_eq!(again.stdout, "", "{name} shown twice: {again:?}");
        let hits: i64 = p
            .db()
            .query_row(
                "SELECT count(*) FROM rule_hits WHERE rule_kind = 'recovery' AND rule_name = ?1",
                [format!("builtin:{name}")],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(hits, 1, "{name}");
    }
}

#[test]
fn a_hint_is_shown_again_after_a_compaction() {
    let p = Project::new();
    let error = "bash: rgrep: command not found";
    assert!(!hint(&bash_failure(&p, error)).is_empty());
    assert!(hint(&bash_failure(&p, error)).is_empty());
    assert_eq!(p.hook(&p.session_start("compact")).code, 0);
    assert!(hint(&bash_failure(&p, error)).contains("not on PATH"));
}

#[test]
fn other_failures_interrupts_and_switched_off_builtins_add_nothing() {
    let p = Project::new();
    for error in [
        "Exit code 1\ntest result: FAILED. 3 passed; 1 failed",
        "Exit code 2\nerror[E0308]: mismatched types",
        "",
    ] {
        let r = bash_failure(&p, error);
        assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{error}: {r:?}");
    }
    let mut interrupted = failure(&p, "Bash", json!({"command": "make"}), "command not found");
    interrupted["is_interrupt"] = json!(true);
    assert_eq!(p.hook(&interrupted).stdout, "");

    let off = Project::with_config("[rules]\nbuiltin_recovery = false\n");
    let r = bash_failure(&off, "bash: rgrep: command not found");
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""), "{r:?}");
    // The failure is logged all the same.
    let logged: Vec<_> = off
        .hook_log()
        .into_iter()
        .filter(|(event, _, _)| event == "PostToolUseFailure")
        .collect();
    assert_eq!(logged.len(), 1, "{logged:?}");
}

const CONFIGURED: &str = r#"
[[rules.recovery]]
name = "cargo lock"
tool = "Bash"
error = "Blocking waiting for file lock"
message = "CARGO-LOCK-HINT: another cargo is building; wait for it."

[[rules.recovery]]
name = "tracker quota"
tool = "mcp__tracker__.*"
error = "(?i)rate limit"
scope = ["leader"]
message = "TRACKER-HINT: wait a minute before the next tracker call."

[[rules.recovery]]
name = "testers"
tool = ""
error = "flaky"
scope = ["tester"]
message = "TESTER-HINT: rerun the one test alone."
"#;

#[test]
fn configured_rules_match_tool_regex_error_regex_and_scope() {
    let p = Project::with_config(CONFIGURED);
    let lock = bash_failure(
        &p,
        "Exit code 101\n    Blocking waiting for file lock on build directory",
    );
    assert!(hint(&lock).contains("CARGO-LOCK-HINT"), "{lock:?}");
    let mcp = p.hook(&failure(
        &p,
        "mcp__tracker__create",
        json!({"title": "x"}),
        "Rate limit exceeded",
    ));
    assert!(hint(&mcp).contains("TRACKER-HINT"), "{mcp:?}");
    // Another tool, same text: the tool regex must match the whole name.
    let other = p.hook(&failure(
        &p,
        "mcp__tracker2",
        json!({}),
        "Blocking waiting for file lock; rate limit",
    ));
    assert_eq!(other.stdout, "", "{other:?}");

    // Scoped to the leader: a subagent does not get it; a tester gets its own.
    let p = Project::with_config(CONFIGURED);
    assert_eq!(p.hook(&p.subagent_start("ag-1", "tester")).code, 0);
    let mut sub = failure(&p, "mcp__tracker__x", json!({}), "rate limit; flaky test");
    sub["agent_id"] = json!("ag-1");
    sub["agent_type"] = json!("tester");
    let text = hint(&p.hook(&sub));
    assert!(text.contains("TESTER-HINT"), "{text}");
    assert!(!text.contains("TRACKER-HINT"), "{text}");
}

#[test]
fn a_configured_rule_replaces_the_builtin_hint_for_its_failure() {
    let p = Project::with_config(
        "[[rules.recovery]]\nname = \"ours\"\nerror = \"command not found\"\nmessage = \"OUR-HINT\"\n",
    );
    let text = hint(&bash_failure(&p, "bash: rgrep: command not found"));
    assert_eq!(text, "[nagger] OUR-HINT");
}

#[test]
fn a_bad_rule_is_dropped_and_named_while_the_others_work() {
    let p = Project::with_config(
        "[[rules.recovery]]\nname = \"bad\"\nerror = 7\n[[rules.recovery]]\nname = \"good\"\nerror = \"quota\"\nmessage = \"GOOD-HINT\"\n[[rules.recovery]]\nname = \"broken\"\nerror = \"(\"\nmessage = \"never\"\n",
    );
    let r = bash_failure(&p, "over quota (");
    assert_eq!(hint(&r), "[nagger] GOOD-HINT", "{r:?}");
    assert!(r.stderr.contains("config.toml:3"), "{}", r.stderr);
    assert!(r.stderr.contains("rules.recovery[1].error"), "{}", r.stderr);
    let doctor = p.run(&["doctor"]);
    let all = format!("{}{}", doctor.stdout, doctor.stderr);
    assert!(all.contains("rules.recovery[broken].error"), "{all}");
}

const AFTER_EDIT: &str = r#"
[[rules.after_edit]]
name = "restating comments"
patterns = ["**/*.rs"]
exclude = ["vendor/**"]
added = ['(?m)^\s*//\s*(increment|set|return)s?\b']
message = "RESTATE-WARN: say why, not what."

[[rules.after_edit]]
name = "no debug prints"
patterns = ["src/**"]
added = ['dbg!\(', 'println!\("DEBUG']
severity = "block"
message = "DEBUG-BLOCK: remove the debug print."
"#;

fn post_edit(p: &Project, tool: &str, input: Value) -> HookResult {
    p.hook(&p.post_tool_use(tool, input))
}

#[test]
fn after_edit_checks_the_added_text_of_every_editing_tool() {
    let p = Project::with_config(AFTER_EDIT);
    let file = p.root.join("lib/a.rs").display().to_string();
    let warn = post_edit(
        &p,
        "Edit",
        json!({"file_path": file, "old_string": "i += 1;", "new_string": "// increment i\ni += 1;"}),
    );
    let v = warn.json().expect("an answer");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    assert!(
        warn.additional_context().contains("RESTATE-WARN"),
        "{warn:?}"
    );
    assert!(!warn.is_block());

    for (tool, input) in [
        (
            "Write",
            json!({"file_path": "src/x.rs", "content": "fn f() { dbg!(1); }"}),
        ),
        (
            "MultiEdit",
            json!({"file_path": "src/x.rs", "edits": [{"old_string": "a", "new_string": "println!(\"DEBUG {x}\");"}]}),
        ),
        (
            "NotebookEdit",
            json!({"notebook_path": "src/n.ipynb", "new_source": "dbg!(x)"}),
        ),
    ] {
        // Each tool in a session of its own: a block speaks once per session.
        let p = Project::with_config(AFTER_EDIT);
        let r = post_edit(&p, tool, input);
        assert!(r.is_block(), "{tool}: {r:?}");
        assert!(
            r.json().unwrap()["reason"]
                .as_str()
                .unwrap()
                .contains("DEBUG-BLOCK")
        );
    }
}

#[test]
fn after_edit_stays_quiet_for_other_files_kept_lines_and_other_text() {
    let p = Project::with_config(AFTER_EDIT);
    for (tool, input) in [
        // excluded path
        (
            "Write",
            json!({"file_path": "vendor/x.rs", "content": "// increment i"}),
        ),
        // a path no pattern matches
        (
            "Write",
            json!({"file_path": "docs/x.md", "content": "// increment i\ndbg!(x)"}),
        ),
        // the comment was there before: not added by this edit
        (
            "Edit",
            json!({"file_path": "lib/a.rs", "old_string": "// increment i\ni += 1;", "new_string": "// increment i\ni += 2;"}),
        ),
        // a comment that says why
        (
            "Write",
            json!({"file_path": "lib/b.rs", "content": "// the pool must outlive the cache\n"}),
        ),
        // not an editing tool
        (
            "Read",
            json!({"file_path": "src/x.rs", "content": "dbg!(1)"}),
        ),
    ] {
        let r = post_edit(&p, tool, input.clone());
        assert_eq!(
            (r.code, r.stdout.as_str()),
            (0, ""),
            "{tool} {input}: {r:?}"
        );
    }
}

#[test]
fn a_huge_added_text_is_bounded() {
    let p = Project::with_config(AFTER_EDIT);
    // 12 MiB of text with the only match far past what is examined.
    let mut content = "let x = 1; // ok\n".repeat(12 * 1024 * 1024 / 17);
    content.push_str("// increment i\n");
    let started = Instant::now();
    let r = post_edit(
        &p,
        "Write",
        json!({"file_path": "lib/big.rs", "content": content}),
    );
    let took = started.elapsed();
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    assert!(took < Duration::from_secs(5), "took {took:?}");
    // The same match near the start fires.
    let content = format!("// increment i\n{}", "x".repeat(4 * 1024 * 1024));
    let r = post_edit(
        &p,
        "Write",
        json!({"file_path": "lib/big.rs", "content": content}),
    );
    assert!(r.additional_context().contains("RESTATE-WARN"), "{r:?}");
    assert!(r.stdout.len() < 10_000);
}

#[test]
fn template_example_fires_once_uncommented() {
    let p = Project::new();
    assert_eq!(p.run(&["install"]).code, 0);
    let template = std::fs::read_to_string(p.root.join(".claude-nagger/config.toml")).unwrap();
    // Off as installed.
    let r = post_edit(
        &p,
        "Write",
        json!({"file_path": "src/x.rs", "content": "// increment i\n"}),
    );
    assert_eq!(r.stdout, "", "{r:?}");
    let start = template
        .find("# [[rules.after_edit]]")
        .expect("the template has an after_edit example");
    let block: String = template[start..]
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim_start())
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    p.write_config(&format!("{template}\n{block}\n"));
    let r = post_edit(
        &p,
        "Write",
        json!({"file_path": "src/x.rs", "content": "    // increment i\n    i += 1;\n"}),
    );
    assert!(r.additional_context().contains("say why"), "{r:?}\n{block}");
    assert_eq!(r.stderr, "");
}

#[test]
fn check_dry_runs_both_kinds() {
    let p = Project::with_config(AFTER_EDIT);
    let r = p.run(&[
        "check",
        "--tool",
        "Bash",
        "--error",
        "bash: foo: command not found",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout.contains("builtin:command-not-found"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("not on PATH"), "{}", r.stdout);
    let r = p.run(&["check", "--tool", "Bash", "--error", "all good", "--json"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["matches"], json!([]));

    let r = p.run(&[
        "check",
        "--tool",
        "Edit",
        "--file",
        "src/x.rs",
        "--added",
        "// increment i",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("restating comments"), "{}", r.stdout);
    let r = p.run(&[
        "check", "--tool", "Write", "--file", "src/x.rs", "--added", "dbg!(x)", "--json",
    ]);
    assert_eq!(r.code, 3, "a block is sent back: {r:?}");
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["matches"][0]["kind"], "after_edit");
    let r = p.run(&[
        "check",
        "--tool",
        "Edit",
        "--file",
        "docs/x.md",
        "--added",
        "// increment i",
    ]);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains("no after-edit check fires"),
        "{}",
        r.stdout
    );
    let r = p.run(&[
        "check", "--tool", "Bash", "--file", "src/x.rs", "--added", "x",
    ]);
    assert_eq!(r.code, 2, "{r:?}");
}

#[test]
fn stats_counts_both_kinds_under_rules_fired() {
    let p = Project::with_config(AFTER_EDIT);
    bash_failure(&p, "bash: rgrep: command not found");
    post_edit(
        &p,
        "Write",
        json!({"file_path": "lib/a.rs", "content": "// set x\n"}),
    );
    let r = p.run(&["stats", "--json"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let rules = v["rules"].as_array().expect("rules fired");
    let kinds: Vec<(&str, &str)> = rules
        .iter()
        .map(|r| (r["kind"].as_str().unwrap(), r["rule"].as_str().unwrap()))
        .collect();
    assert!(
        kinds.contains(&("recovery", "builtin:command-not-found")),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("after_edit", "restating comments")),
        "{kinds:?}"
    );
    let text = p.run(&["stats"]).stdout;
    assert!(text.contains("after_edit"), "{text}");
    assert!(text.contains("builtin:command-not-found"), "{text}");
}

#[test]
fn install_registers_the_failure_event() {
    let p = Project::new();
    assert_eq!(p.run(&["install"]).code, 0);
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(p.root.join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    let entries = settings["hooks"]["PostToolUseFailure"]
        .as_array()
        .expect("a PostToolUseFailure entry");
    assert_eq!(entries.len(), 1);
    assert!(entries[0].to_string().contains("nagger hook"), "{settings}");
}

#[test]
fn many_long_hints_and_a_huge_failure_stay_bounded() {
    let mut config = String::new();
    for i in 0..12 {
        let _ = write!(
            config,
            "[[rules.recovery]]\nname = \"r{i}\"\nerror = \"boom\"\nmessage = \"HINT-{i} {}\"\n",
            "word ".repeat(1_000)
        );
    }
    let p = Project::with_config(&config);
    let mut error = "boom\n".to_string();
    error.push_str(&"stderr line\n".repeat(1024 * 1024));
    let started = Instant::now();
    let r = bash_failure(&p, &error);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let text = hint(&r);
    assert!(text.starts_with("[nagger] HINT-0"), "{}", &text[..40]);
    assert!(r.stdout.len() < 10_000, "{} bytes", r.stdout.len());
    assert!(text.ends_with('…'));
}
