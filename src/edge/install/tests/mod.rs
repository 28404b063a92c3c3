//! Unit tests of install and uninstall, one file per room, and their shared helpers.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use super::command::*;
use super::files::*;
use super::merge::*;
use super::*;

const CMD: &str = "\"/opt/nagger/bin/nagger\" hook";
const TEMPLATE: &str = "# nagger config\n# [session]\n";

fn options(root: &Path) -> InstallOptions {
    InstallOptions {
        project_root: root.to_path_buf(),
        settings_path: None,
        local: false,
        dry_run: false,
        command: CMD.to_string(),
        config_template: TEMPLATE,
        also_clean: None,
        note: None,
        client: None,
    }
}

fn foreign_settings() -> Value {
    json!({
        "permissions": {"allow": ["Bash(cargo test:*)"], "deny": []},
        "env": {"RUST_LOG": "info"},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "~/bin/guard.sh", "timeout": 5}
                ]},
                {"matcher": "Edit|Write", "hooks": [
                    {"type": "command", "command": "prettier --check"}
                ]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
            "SessionStart": [{"matcher": "startup", "hooks": [
                {"type": "command", "command": "echo nagger hook"}
            ]}]
        },
        "model": "opus"
    })
}

fn write_json(path: &Path, value: &Value) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, to_pretty_json(value)).unwrap();
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

fn backups(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("settings"))
        .collect();
    names.sort();
    names
}

mod command;
mod install;
mod merge;
