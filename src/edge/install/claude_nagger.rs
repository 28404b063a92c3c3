//! claude-nagger's hook entries in Claude Code's settings (`claude-nagger hook …`,
//! `claude-nagger notify …`). Both tools use `.claude-nagger/state.db`: left in, its hooks
//! would write their own tables into nagger's database, so `install` takes them out.

use super::command::ShellWords;
use serde_json::Value;
use std::path::Path;

/// Whether a hook command runs claude-nagger.
pub fn is_claude_nagger_command(command: &str) -> bool {
    let Some(program) = (ShellWords { rest: command }).next() else {
        return false;
    };
    program.rsplit('/').next().unwrap_or(&program) == "claude-nagger"
}

/// Takes every claude-nagger hook out of a settings value (a matcher group left with no
/// hook goes, and an event left with no group); returns the value and `event: command`
/// of each hook taken out.
pub fn remove_claude_nagger(mut value: Value) -> (Value, Vec<String>) {
    let mut removed = Vec::new();
    let Some(hooks) = value.get_mut("hooks").and_then(Value::as_object_mut) else {
        return (value, removed);
    };
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        for group in groups.iter_mut() {
            let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            list.retain(|hook| {
                let command = hook.get("command").and_then(Value::as_str).unwrap_or("");
                let theirs = is_claude_nagger_command(command);
                if theirs {
                    removed.push(format!("{event}: {command}"));
                }
                !theirs
            });
        }
        groups.retain(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|l| !l.is_empty())
        });
    }
    hooks.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
    (value, removed)
}

/// The claude-nagger hook commands in a settings file (none when it cannot be read).
pub fn claude_nagger_commands(path: &Path) -> Vec<String> {
    let Ok(Some(settings)) = super::files::read_settings(path) else {
        return Vec::new();
    };
    let (_, removed) = remove_claude_nagger(settings.value);
    let mut commands: Vec<String> = removed
        .into_iter()
        .filter_map(|r| r.split_once(": ").map(|(_, c)| c.to_string()))
        .collect();
    commands.sort();
    commands.dedup();
    commands
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_claude_naggers_hooks_go() {
        let settings = json!({"hooks": {
            "PreToolUse": [
                {"matcher": "", "hooks": [{"type": "command", "command": "claude-nagger hook session-startup"}]},
                {"matcher": "*", "hooks": [{"type": "command", "command": "nagger hook"},
                                           {"type": "command", "command": "/usr/bin/claude-nagger hook x"}]}
            ],
            "Notification": [{"matcher": "", "hooks": [{"type": "command", "command": "claude-nagger notify \"x\""}]}],
            "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "my-script"}]}]
        }, "model": "x"});
        let (cleaned, removed) = remove_claude_nagger(settings);
        assert_eq!(removed.len(), 3, "{removed:?}");
        assert_eq!(
            cleaned,
            json!({"hooks": {
                "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "nagger hook"}]}],
                "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "my-script"}]}]
            }, "model": "x"})
        );
        assert!(!is_claude_nagger_command("nagger hook"));
    }
}
