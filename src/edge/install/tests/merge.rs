//! Merging into and removing from a settings value.

use super::*;

#[test]
fn merge_adds_one_entry_per_event_and_keeps_foreign_hooks_in_place() {
    let original = foreign_settings();
    let (merged, changes) = merge_hooks(original.clone(), CMD, HOOK_EVENTS).unwrap();
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
            "PreCompact",
            "UserPromptSubmit"
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
    let (once, _) = merge_hooks(foreign_settings(), CMD, HOOK_EVENTS).unwrap();
    let (twice, changes) = merge_hooks(once.clone(), CMD, HOOK_EVENTS).unwrap();
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
    let (merged, changes) = merge_hooks(settings, CMD, HOOK_EVENTS).unwrap();
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
    let (merged, changes) = merge_hooks(settings, CMD, HOOK_EVENTS).unwrap();
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
        match merge_hooks(settings, CMD, HOOK_EVENTS) {
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

#[test]
fn a_newer_client_gets_its_events_and_an_older_one_loses_them() {
    use crate::base::event::ClientVersion;
    let newest = events_for(Some(ClientVersion(2, 1, 332)));
    assert_eq!(newest, ALL_HOOK_EVENTS);
    let (merged, changes) = merge_hooks(foreign_settings(), CMD, &newest).unwrap();
    assert!(changes.added.contains(&"PreSkillShellCommand".to_string()));
    assert_eq!(find_nagger_entries(&merged)["UserPromptExpansion"], [CMD]);
    // The same file installed for 2.1.328: no PreSkillShellCommand entry, the rest kept.
    let middle = events_for(Some(ClientVersion(2, 1, 328)));
    let (merged, changes) = merge_hooks(merged, CMD, &middle).unwrap();
    assert_eq!(changes.removed, ["PreSkillShellCommand"]);
    assert!(merged["hooks"].get("PreSkillShellCommand").is_none());
    // And for a client of unknown version: only the events every client knows.
    let (merged, changes) = merge_hooks(merged, CMD, HOOK_EVENTS).unwrap();
    assert_eq!(changes.removed, ["UserPromptExpansion"]);
    let events: Vec<&String> = merged["hooks"].as_object().unwrap().keys().collect();
    assert!(
        events
            .iter()
            .all(|e| HOOK_EVENTS.contains(&e.as_str()) || *e == "Stop")
    );
    // A foreign hook on a newer event stays: only nagger's entries are nagger's to take.
    let mut foreign = foreign_settings();
    foreign["hooks"]["PreSkillShellCommand"] =
        json!([{"matcher": "*", "hooks": [{"type": "command", "command": "audit.sh"}]}]);
    let (merged, changes) = merge_hooks(foreign, CMD, HOOK_EVENTS).unwrap();
    assert!(changes.removed.is_empty());
    assert!(merged["hooks"]["PreSkillShellCommand"].is_array());
}
