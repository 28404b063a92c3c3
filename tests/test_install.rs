//! `nagger install` / `uninstall` through the binary.

use crate::common::*;
use serde_json::{Value, json};

fn foreign_settings() -> Value {
    json!({
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
        }
    })
}

#[test]
fn install_keeps_foreign_hooks_is_idempotent_and_uninstall_restores_them() {
    let p = Project::new();
    let settings = p.root.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        serde_json::to_string_pretty(&foreign_settings()).unwrap(),
    )
    .unwrap();
    let r = p.run(&["install"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let installed: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(
        installed["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "~/bin/audit.sh"
    );
    assert_eq!(
        installed["hooks"]["Stop"],
        foreign_settings()["hooks"]["Stop"]
    );
    assert_eq!(installed["permissions"], foreign_settings()["permissions"]);
    for event in [
        "SessionStart",
        "SubagentStart",
        "SubagentStop",
        "PreToolUse",
        "PostToolUse",
        "SessionEnd",
    ] {
        let entries = installed["hooks"][event].as_array().unwrap();
        let ours = entries
            .iter()
            .flat_map(|e| e["hooks"].as_array().unwrap())
            .filter(|h| h["command"].as_str().unwrap().ends_with(" hook"))
            .count();
        assert_eq!(ours, 1, "{event}");
    }
    assert!(p.root.join(".claude-nagger/config.toml").exists());
    assert!(p.root.join(".claude-nagger/.gitignore").exists());

    let before = std::fs::read(&settings).unwrap();
    let again = p.run(&["install"]);
    assert_eq!(again.code, 0);
    assert_eq!(
        std::fs::read(&settings).unwrap(),
        before,
        "a second run changes nothing"
    );

    let r = p.run(&["uninstall"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(
        after,
        foreign_settings(),
        "exactly the foreign hooks are left"
    );
}

#[test]
fn install_refuses_invalid_json_and_leaves_the_file_byte_identical() {
    let p = Project::new();
    let settings = p.root.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let broken = b"{ \"hooks\": { \"PreToolUse\": [ }\n";
    std::fs::write(&settings, broken).unwrap();
    let r = p.run(&["install"]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("settings.json"), "{}", r.stderr);
    assert_eq!(std::fs::read(&settings).unwrap(), broken);
}

#[test]
fn installed_config_template_loads_cleanly_in_doctor_and_hook() {
    let p = Project::new();
    assert_eq!(p.run(&["install", "--dry-run"]).code, 0);
    assert!(
        !p.root.join(".claude/settings.json").exists(),
        "dry run writes nothing"
    );
    p.run(&["install"]);
    let r = p.hook(&p.session_start("startup"));
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
}
