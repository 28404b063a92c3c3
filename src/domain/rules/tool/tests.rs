use std::collections::BTreeMap;
use std::path::Path;

use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::domain::rules::testing;
use crate::domain::rules::{MatchContext, Severity};

fn rule(tool: &str, input: &[(&str, &str)]) -> ToolRule {
    ToolRule {
        name: "ticket writes".into(),
        tool: tool.into(),
        input: input
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        severity: Severity::Block,
        message: "Close tickets only after review.".into(),
        ..Default::default()
    }
}

// Callers hand it json! literals.
#[allow(clippy::needless_pass_by_value)]
fn fire(rule: &ToolRule, tool: &str, input: Value) -> Vec<String> {
    let config = RulesConfig {
        tool: vec![rule.clone()],
        ..Default::default()
    };
    let ctx = MatchContext {
        project_root: Path::new("/p"),
        cwd: None,
        is_leader: true,
        role: None,
        agent_type: None,
    };
    testing::fire(&config, tool, &input, &ctx)
}

#[test]
fn tool_regex_matches_whole_mcp_names() {
    let r = rule("mcp__redmine__.*", &[]);
    assert_eq!(fire(&r, "mcp__redmine__update_issue", json!({})).len(), 1);
    assert!(fire(&r, "mcp__github__update", json!({})).is_empty());
    assert!(
        fire(&r, "x_mcp__redmine__update", json!({})).is_empty(),
        "anchored at start"
    );
    let exact = rule("Write", &[]);
    assert_eq!(fire(&exact, "Write", json!({})).len(), 1);
    assert!(
        fire(&exact, "WriteFile", json!({})).is_empty(),
        "anchored at end"
    );
    let alternatives = rule("Edit|Write", &[]);
    assert_eq!(fire(&alternatives, "Write", json!({})).len(), 1);
    assert!(fire(&alternatives, "NotebookEdit", json!({})).is_empty());
    let any = rule("", &[("file_path", "secret")]);
    assert_eq!(
        fire(&any, "Read", json!({"file_path": "a/secret.txt"})).len(),
        1
    );
}

#[test]
fn every_input_regex_must_match() {
    let r = rule(
        "mcp__redmine__.*",
        &[("status", "^closed$"), ("project", "core")],
    );
    let both = json!({"status": "closed", "project": "nagger-core"});
    assert_eq!(
        fire(&r, "mcp__redmine__update", both),
        [
            r#"tool mcp__redmine__update matches mcp__redmine__.*, project "nagger-core" matches core, status "closed" matches ^closed$"#
        ]
    );
    assert!(fire(&r, "mcp__redmine__update", json!({"status": "closed"})).is_empty());
    assert!(
        fire(
            &r,
            "mcp__redmine__update",
            json!({"status": "reopened", "project": "core"})
        )
        .is_empty()
    );
}

#[test]
fn non_string_values_match_on_their_json_text() {
    let r = rule(
        ".*",
        &[
            ("priority", "^[45]$"),
            ("labels", "\"urgent\""),
            ("meta.done", "true"),
        ],
    );
    let input = json!({"priority": 5, "labels": ["a", "urgent"], "meta": {"done": true}});
    assert_eq!(fire(&r, "mcp__t__x", input).len(), 1);
    let nested = rule(".*", &[("edits.0.old_string", "^foo$")]);
    assert_eq!(
        fire(
            &nested,
            "MultiEdit",
            json!({"edits": [{"old_string": "foo"}]})
        )
        .len(),
        1
    );
    assert!(fire(&nested, "MultiEdit", json!({"edits": "foo"})).is_empty());
}

#[test]
fn literal_prefix_examples() {
    assert_eq!(literal_prefix("Bash"), ("Bash", true));
    assert_eq!(
        literal_prefix("mcp__redmine__.*"),
        ("mcp__redmine__", false)
    );
    assert_eq!(literal_prefix("Writes?"), ("Write", false));
    assert_eq!(literal_prefix("a|b"), ("", false));
    assert_eq!(literal_prefix("(?i)bash"), ("", false));
    assert_eq!(literal_prefix("é+x"), ("", false));
    assert_eq!(literal_prefix("é)?(.*"), ("", false));
}

proptest! {
    // Whenever the anchored regex matches a name, the name starts with the literal
    // prefix (and equals the pattern when that is all literal).
    #[test]
    fn literal_prefix_is_sound(pattern in "[ab_.*+?|()é]{0,8}", name in "[ab_é]{0,8}") {
        if let Ok(re) = compile_tool_regex(&pattern)
            && re.is_match(&name)
        {
            let (prefix, whole) = literal_prefix(&pattern);
            prop_assert!(name.starts_with(prefix));
            prop_assert!(!whole || name == pattern);
        }
    }
}
