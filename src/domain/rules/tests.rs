//! The rule set as a whole: compiling, evaluating, combining.

use std::path::Path;

use super::*;
use crate::base::decision::Decision;
use crate::base::mode::PermissionMode;
use crate::base::rule_kind::RuleKind;
use crate::domain::rules::guard::GuardConfig;

fn hit(kind: RuleKind, name: &str, severity: Severity, message: &str) -> RuleMatch {
    RuleMatch {
        kind,
        name: name.into(),
        severity,
        message: message.into(),
        why: format!("{name} fired"),
        token_threshold: None,
    }
}

#[test]
fn combine_most_severe_wins_and_messages_join() {
    let matches = [
        hit(
            RuleKind::File,
            "views",
            Severity::Warn,
            "Views follow docs/views.md.",
        ),
        hit(
            RuleKind::Command,
            "push",
            Severity::Ask,
            "Pushing needs a green CI.",
        ),
    ];
    let verdict = combine(&matches, &PermissionMode::Default).expect("a verdict");
    assert_eq!(verdict.decision, Decision::Ask);
    assert_eq!(
        verdict.reason,
        "[nagger] Pushing needs a green CI.\n[nagger] Views follow docs/views.md."
    );
    let block = [hit(RuleKind::Tool, "t", Severity::Block, "b")];
    assert_eq!(
        combine(&block, &PermissionMode::Plan).map(|v| v.decision),
        Some(Decision::Deny)
    );
    let warn = [hit(RuleKind::Tool, "t", Severity::Warn, "w")];
    assert_eq!(
        combine(&warn, &PermissionMode::AcceptEdits).map(|v| v.decision),
        Some(Decision::Context)
    );
    assert_eq!(combine(&[], &PermissionMode::Default), None);
}

#[test]
fn combine_dont_ask_turns_block_and_ask_into_context_but_keeps_deny() {
    let soft = [
        hit(RuleKind::File, "f", Severity::Block, "b"),
        hit(RuleKind::Command, "c", Severity::Ask, "a"),
    ];
    let verdict = combine(&soft, &PermissionMode::DontAsk).expect("a verdict");
    assert_eq!(verdict.decision, Decision::Context);
    assert_eq!(verdict.reason, "[nagger] b\n[nagger] a");
    let hard = [
        hit(RuleKind::File, "f", Severity::Block, "b"),
        hit(RuleKind::Guard, "guard:rm-rf", Severity::Deny, "no"),
    ];
    let verdict = combine(&hard, &PermissionMode::DontAsk).expect("a verdict");
    assert_eq!(verdict.decision, Decision::Deny);
    assert_eq!(verdict.reason, "[nagger] no\n[nagger] b");
}

#[test]
fn combine_bypass_permissions_counts_only_deny_rules_and_guard() {
    let nagging = [
        hit(RuleKind::File, "f", Severity::Block, "b"),
        hit(RuleKind::Command, "c", Severity::Ask, "a"),
        hit(RuleKind::Tool, "t", Severity::Warn, "w"),
    ];
    assert_eq!(combine(&nagging, &PermissionMode::BypassPermissions), None);
    let mut with_deny = nagging.to_vec();
    with_deny.push(hit(
        RuleKind::Guard,
        "guard:git-reset-hard",
        Severity::Deny,
        "g",
    ));
    with_deny.push(hit(RuleKind::File, "secrets", Severity::Deny, "s"));
    let verdict = combine(&with_deny, &PermissionMode::BypassPermissions).expect("a verdict");
    assert_eq!(verdict.decision, Decision::Deny);
    assert_eq!(verdict.reason, "[nagger] g\n[nagger] s");
}

#[test]
fn combine_explains_a_rule_without_message() {
    let verdict = combine(
        &[hit(RuleKind::File, "v", Severity::Warn, " ")],
        &PermissionMode::Other("yolo".into()),
    )
    .expect("a verdict");
    assert_eq!(verdict.reason, "[nagger] file rule \"v\": v fired");
}

#[test]
fn compile_refuses_empty_and_duplicate_names() {
    let dup = RulesConfig {
        command: vec![
            CommandRule {
                name: "a".into(),
                ..Default::default()
            },
            CommandRule {
                name: "a".into(),
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    let err = RuleSet::compile(&dup, &GuardConfig::default())
        .err()
        .expect("duplicate");
    assert_eq!(err.to_string(), "rules.command \"a\": duplicate rule name");
    let empty = RulesConfig {
        tool: vec![ToolRule::default()],
        ..Default::default()
    };
    assert!(RuleSet::compile(&empty, &GuardConfig::default()).is_err());
}

#[test]
fn bad_patterns_never_match_and_are_reported_once_met() {
    let rules = RulesConfig {
        file: vec![FileRule {
            name: "broken".into(),
            patterns: vec!["src/{a,b".into()],
            ..Default::default()
        }],
        ..Default::default()
    };
    let guard = GuardConfig::default();
    let set = RuleSet::compile(&rules, &guard).expect("names are fine");
    let input = serde_json::json!({"file_path": "src/a"});
    let call = ToolCall {
        tool_name: "Edit",
        tool_input: &input,
    };
    let ctx = MatchContext {
        project_root: Path::new("/p"),
        cwd: None,
        is_leader: true,
        role: None,
        agent_type: None,
    };
    assert!(set.evaluate(&call, &ctx).is_empty());
    let problems = set.problems();
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0]
            .to_string()
            .starts_with("rules.file \"broken\": patterns[0] `src/{a,b`")
    );
}

/// The rules of the documented example config.
fn spec_example() -> (RulesConfig, GuardConfig) {
    let rules = RulesConfig {
        file: vec![FileRule {
            name: "views".into(),
            patterns: vec!["**/app/views/**/*.erb".into()],
            exclude: vec!["**/vendor/**".into()],
            severity: Severity::Block,
            token_threshold: Some(35000),
            scope: vec![],
            message: "Views follow docs/views.md.".into(),
        }],
        command: vec![CommandRule {
            name: "push".into(),
            patterns: vec!["git push*".into()],
            severity: Severity::Ask,
            message: "Pushing needs a green CI.".into(),
            ..Default::default()
        }],
        tool: vec![ToolRule {
            name: "ticket writes".into(),
            tool: "mcp__redmine__.*".into(),
            input: [("status".to_owned(), "^closed$".to_owned())].into(),
            severity: Severity::Block,
            message: "Close tickets only after review.".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let guard = GuardConfig {
        enabled: true,
        allow: vec!["rm -rf ./target".into()],
        deny: vec!["terraform destroy*".into()],
        ..GuardConfig::default()
    };
    (rules, guard)
}

fn leader() -> MatchContext<'static> {
    MatchContext {
        project_root: Path::new("/work/proj"),
        cwd: None,
        is_leader: true,
        role: None,
        agent_type: None,
    }
}

#[test]
fn spec_example_rules_fire_as_documented() {
    let (rules, guard) = spec_example();
    let set = RuleSet::compile(&rules, &guard).expect("valid");
    let run = |tool: &str, input: serde_json::Value| {
        let call = ToolCall {
            tool_name: tool,
            tool_input: &input,
        };
        set.evaluate(&call, &leader())
    };
    let edit = run(
        "Edit",
        serde_json::json!({"file_path": "/work/proj/app/views/a.erb"}),
    );
    assert_eq!(edit.len(), 1);
    assert_eq!(
        (edit[0].kind, edit[0].name.as_str()),
        (RuleKind::File, "views")
    );
    assert_eq!(edit[0].token_threshold, Some(35000));

    let push = run(
        "Bash",
        serde_json::json!({"command": "cargo test && git push --force"}),
    );
    let names: Vec<(RuleKind, &str)> = push.iter().map(|m| (m.kind, m.name.as_str())).collect();
    assert_eq!(
        names,
        [
            (RuleKind::Command, "push"),
            (RuleKind::Guard, "guard:git-push-force")
        ]
    );
    let verdict = combine(&push, &PermissionMode::Default).expect("a verdict");
    assert_eq!(verdict.decision, Decision::Deny);
    assert!(verdict.reason.lines().all(|l| l.starts_with("[nagger] ")));
    assert!(
        verdict
            .reason
            .ends_with("[nagger] Pushing needs a green CI.")
    );
    let bypass = combine(&push, &PermissionMode::BypassPermissions).expect("guard still denies");
    assert_eq!(bypass.decision, Decision::Deny);
    assert!(!bypass.reason.contains("green CI"));

    let close = run(
        "mcp__redmine__update_issue",
        serde_json::json!({"id": 7, "status": "closed"}),
    );
    assert_eq!(close.len(), 1);
    assert_eq!(close[0].kind, RuleKind::Tool);
    assert!(
        run(
            "mcp__redmine__update_issue",
            serde_json::json!({"status": "open"})
        )
        .is_empty()
    );
    assert!(run("Read", serde_json::json!({"file_path": "README.md"})).is_empty());
}

use proptest::prelude::*;

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        "\\PC{0,40}".prop_map(serde_json::Value::from),
        "[ a-z/.*$()|;&'\"-]{0,40}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            proptest::collection::btree_map(
                prop_oneof![
                    Just("command".to_owned()),
                    Just("file_path".to_owned()),
                    Just("path".to_owned()),
                    Just("status".to_owned()),
                    "[a-z_.]{1,8}",
                ],
                inner,
                0..5,
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    // evaluate and combine never panic, whatever the call carries.
    #[test]
    fn evaluate_never_panics(
        tool in prop_oneof![
            Just("Bash".to_owned()),
            Just("Edit".to_owned()),
            Just("mcp__redmine__x".to_owned()),
            "\\PC{0,20}",
        ],
        command in "\\PC{0,120}",
        input in json_value(),
        leader_call in any::<bool>(),
    ) {
        let (rules, guard) = spec_example();
        let set = RuleSet::compile(&rules, &guard).expect("valid");
        let ctx = MatchContext { is_leader: leader_call, ..leader() };
        let with_command = serde_json::json!({ "command": command, "file_path": command });
        for input in [&input, &with_command] {
            let call = ToolCall { tool_name: &tool, tool_input: input };
            let matches = set.evaluate(&call, &ctx);
            for mode in [
                PermissionMode::Default,
                PermissionMode::DontAsk,
                PermissionMode::BypassPermissions,
            ] {
                let _ = combine(&matches, &mode);
            }
        }
    }


}
