//! Merging into and removing from a settings value.

use super::*;

#[test]
fn merge_adds_one_entry_per_event_and_keeps_foreign_hooks_in_place() {
    let original = foreign_settings();
    let (merged, changes) = merge_hooks(original.clone(), CMD).unwrap();
    assert_eq!(changes.added, HOOK_EVENTS);
    assert!(changes.updated.is_empty());
    let top_keys: Vec<&String> = merged.as_object().unwrap().keys().collect();
    assert_eq!(top_keys, ["permissions", "env", "hooks", "model"]);
    let events: Vec<&String> = merged["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(
        events,
        [
            "PreToolUse",
            "Stop",
            "SessionStart",
            "SessionEnd",
            "SubagentStart",
            "SubagentStop",
            "PostToolUse",
            "PostToolUseFailure",
            "PreCompact"
        ]
    );
    let pre = merged["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(
        pre[..2],
        original["hooks"]["PreToolUse"].as_array().unwrap()[..]
    );
    assert_eq!(pre[2], nagger_group(CMD));
    assert_eq!(merged["hooks"]["Stop"], original["hooks"]["Stop"]);
    for event in HOOK_EVENTS {
        assert_eq!(find_nagger_entries(&merged)[*event], [CMD]);
    }
}

#[test]
fn merge_twice_changes_nothing() {
    let (once, _) = merge_hooks(foreign_settings(), CMD).unwrap();
    let (twice, changes) = merge_hooks(once.clone(), CMD).unwrap();
    assert!(changes.is_empty());
    assert_eq!(twice, once);
}

#[test]
fn merge_rewrites_an_old_command_where_it_stands() {
    let settings = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": "lint.sh"},
            {"type": "command", "command": "/old/place/nagger hook", "timeout": 3}
        ]}
    ]}});
    let (merged, changes) = merge_hooks(settings, CMD).unwrap();
    assert_eq!(
        changes.updated,
        [CommandUpdate {
            event: "PreToolUse".into(),
            old_commands: vec!["/old/place/nagger hook".into()],
        }]
    );
    assert!(!changes.added.contains(&"PreToolUse".to_string()));
    assert_eq!(
        merged["hooks"]["PreToolUse"],
        json!([{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "lint.sh"},
            {"type": "command", "command": CMD, "timeout": 3}
        ]}])
    );
}

#[test]
fn merge_collapses_duplicate_nagger_entries() {
    let settings = json!({"hooks": {"PostToolUse": [
        {"matcher": "*", "hooks": [{"type": "command", "command": CMD}]},
        {"matcher": "Edit", "hooks": [
            {"type": "command", "command": "nagger hook"},
            {"type": "command", "command": "fmt.sh"}
        ]},
        {"matcher": "*", "hooks": [{"type": "command", "command": "/x/nagger hook"}]}
    ]}});
    let (merged, changes) = merge_hooks(settings, CMD).unwrap();
    assert_eq!(changes.updated.len(), 1);
    assert_eq!(
        merged["hooks"]["PostToolUse"],
        json!([
            {"matcher": "*", "hooks": [{"type": "command", "command": CMD}]},
            {"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt.sh"}]}
        ])
    );
}

#[test]
fn merge_refuses_settings_not_shaped_like_claude_codes() {
    for (settings, detail) in [
        (json!([]), "the top level is an array, not an object"),
        (json!({"hooks": []}), "`hooks` is an array, not an object"),
        (
            json!({"hooks": {"Stop": {"hooks": []}}}),
            "`hooks.Stop` is an object, not an array",
        ),
    ] {
        match merge_hooks(settings, CMD) {
            Err(InstallError::BadShape {
                path: None,
                detail: d,
            }) => assert_eq!(d, detail),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn remove_takes_out_only_nagger_and_what_it_leaves_empty() {
    let settings = json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": "lint.sh"},
                {"type": "command", "command": "nagger hook"}
            ]},
            {"matcher": "*", "hooks": [{"type": "command", "command": "nagger hook"}]},
            {"matcher": "kept-empty", "hooks": []}
        ],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "nagger hook"}]}],
        "Stop": []
    }});
    let (cleaned, removed) = remove_hooks(settings);
    assert_eq!(removed, 3);
    assert_eq!(
        cleaned,
        json!({"hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh"}]},
                {"matcher": "kept-empty", "hooks": []}
            ],
            "Stop": []
        }})
    );
    let (gone, removed) = remove_hooks(json!({"a": 1, "hooks": {
        "SessionEnd": [{"hooks": [{"type": "command", "command": "nagger hook"}]}]
    }, "b": 2}));
    assert_eq!(removed, 1);
    assert_eq!(gone, json!({"a": 1, "b": 2}));
    assert_eq!(
        gone.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["a", "b"]
    );
}
