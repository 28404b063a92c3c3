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

/// A nagger build under another name (`nagger-0.9-x86_64`): its own copy of the binary,
/// in a folder not on PATH, run as the program named `name`.
fn renamed_copy(p: &Project, name: &str) -> std::path::PathBuf {
    let dir = p.root.join("tools");
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join(name);
    std::fs::copy(nagger_bin(), &copy).unwrap();
    copy
}

#[test]
fn a_renamed_nagger_finds_its_own_entries_again_and_check_protects_it() {
    let p = Project::new();
    let copy = renamed_copy(&p, "nagger-0.9-x86_64");
    let run = |args: &[&str]| {
        let mut cmd = std::process::Command::new(&copy);
        cmd.args(args)
            .env_clear()
            .env("CLAUDE_PROJECT_DIR", &p.root)
            .env("HOME", &p.root)
            .env("PATH", "/usr/bin:/bin")
            .current_dir(&p.root);
        HookResult::from_output(&output_of_copy(&mut cmd))
    };
    for _ in 0..2 {
        let r = run(&["install"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let local = p.root.join(".claude/settings.local.json");
    let text = std::fs::read_to_string(&local).unwrap();
    let settings: Value = serde_json::from_str(&text).unwrap();
    let session_start = settings["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(session_start.len(), 1, "installed twice: {text}");
    // The program the entries run is protected, whichever nagger answers `check`.
    let target = copy.display().to_string();
    for line in [
        format!("rm {target}"),
        format!("cp /bin/true {target}"),
        format!("chmod -x {target}"),
        "nagger-0.9-x86_64 uninstall".to_owned(),
    ] {
        let r = p.run(&["check", "--command", &line]);
        assert_eq!(r.code, 3, "{line}: {}", r.stdout);
    }
    let r = run(&["uninstall"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let after = std::fs::read_to_string(&local).unwrap_or_default();
    assert!(!after.contains("nagger-0.9"), "{after}");
}
