//! Main-agent conventions: first call, every compaction, token growth; delivery
//! and permission modes.

use crate::common::*;
use serde_json::json;

const SESSION: &str = r#"
[session]
token_threshold = 50000
[session.first_time]
title = "Project conventions"
text = "FIRST: read docs/ARCHITECTURE.md"
[session.repeated]
title = "Conventions, once more"
text = "AGAIN: re-read the conventions"
"#;

fn read(p: &Project) -> HookResult {
    p.hook(&p.pre_tool_use("Read", json!({"file_path": "README.md"})))
}

#[test]
fn main_agent_gets_conventions_on_first_call_only() {
    let p = Project::with_config(SESSION);
    p.append(&[usage_line("m1", 10_000)]);
    let first = read(&p);
    assert_eq!(first.decision().as_deref(), Some("deny"));
    assert!(
        first
            .reason()
            .starts_with("[nagger] ## Project conventions"),
        "{}",
        first.reason()
    );
    assert!(first.reason().contains("FIRST"));
    for _ in 0..3 {
        assert_eq!(read(&p).stdout.trim(), "");
    }
}

#[test]
fn every_compaction_rearms_the_conventions() {
    let p = Project::with_config(SESSION);
    p.hook(&p.session_start("startup"));
    assert!(read(&p).reason().contains("FIRST"));
    assert_eq!(read(&p).stdout.trim(), "");
    for round in 1..=3 {
        p.append(&[compact_boundary_line()]);
        let r = p.hook(&p.session_start("compact"));
        assert_eq!(r.code, 0, "{}", r.stderr);
        let again = read(&p);
        assert_eq!(
            again.decision().as_deref(),
            Some("deny"),
            "after compaction {round}"
        );
        assert!(again.reason().contains("AGAIN"), "{}", again.reason());
        assert_eq!(read(&p).stdout.trim(), "", "once per compaction");
    }
    let compactions: i64 = p
        .db()
        .query_row(
            "SELECT compactions FROM session_info WHERE session_id = 'sess-1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(compactions, 3);
}

#[test]
fn conventions_return_after_context_grew_by_the_threshold() {
    let p = Project::with_config(SESSION);
    p.append(&[usage_line("m1", 20_000)]);
    assert!(read(&p).reason().contains("FIRST"));
    p.append(&[usage_line("m2", 69_999)]);
    assert_eq!(read(&p).stdout.trim(), "", "grew by 49,999: not yet");
    p.append(&[usage_line("m3", 70_000)]);
    let r = read(&p);
    assert!(r.reason().contains("AGAIN"), "grew by 50,000: {}", r.stdout);
    p.append(&[usage_line("m4", 100_000)]);
    assert_eq!(
        read(&p).stdout.trim(),
        "",
        "threshold counts from the last showing"
    );
    p.append(&[usage_line("m5", 120_000)]);
    assert!(read(&p).reason().contains("AGAIN"));
}

#[test]
fn context_delivery_adds_text_without_refusing() {
    let p =
        Project::with_config(&SESSION.replace("token_threshold = 50000", "delivery = \"context\""));
    let r = read(&p);
    assert_eq!(r.decision(), None);
    assert!(r.additional_context().contains("FIRST"), "{}", r.stdout);
}

#[test]
fn bypass_permissions_skips_nagging_and_dont_ask_softens_it() {
    let p = Project::with_config(SESSION);
    let mut input = p.pre_tool_use("Read", json!({"file_path": "a"}));
    input["permission_mode"] = json!("bypassPermissions");
    assert_eq!(p.hook(&input).stdout.trim(), "");
    input["permission_mode"] = json!("dontAsk");
    let r = p.hook(&input);
    assert_eq!(r.decision(), None);
    assert!(r.additional_context().contains("FIRST"), "{}", r.stdout);
}

#[test]
fn subagent_conventions_with_context_delivery_arrive_at_subagent_start() {
    let p = Project::with_config("[roles.coder]\ntext = \"CODER rules\"\ndelivery = \"context\"\n");
    p.append(&[spawn_line("toolu_a", "coder", "x")]);
    let start = p.hook(&p.subagent_start("ag-1", "coder"));
    assert!(
        start.additional_context().contains("CODER rules"),
        "{}",
        start.stdout
    );
    let first = p.hook(&p.pre_tool_use_as("ag-1", "coder", "Read", json!({"file_path": "a"})));
    assert_eq!(first.stdout.trim(), "", "not delivered twice");
}

#[test]
fn missing_config_is_mentioned_at_session_start() {
    let p = Project::new();
    let r = p.hook(&p.session_start("startup"));
    assert!(
        r.additional_context().contains("nagger install"),
        "{}",
        r.stdout
    );
    p.write_config("");
    let r = p.hook(&p.session_start("startup"));
    assert_eq!(r.stdout.trim(), "");
}

#[test]
fn invalid_config_runs_on_defaults_with_one_located_stderr_line() {
    let p = Project::with_config("[session]\nenabled = true\ndelivery = \"shout\"\n");
    let r = read(&p);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout.trim(), "");
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("config.toml:3") && r.stderr.contains("delivery"),
        "{}",
        r.stderr
    );
}
