//! Merging nagger's entries into a settings value, and taking them out again, without
//! disturbing any other key or hook.

use crate::base::text::json_kind;
use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::command::is_nagger_command;
use super::entry::{ALL_HOOK_EVENTS, HOOK_MATCHER, HOOK_TIMEOUT_SECS};
use super::error::InstallError;

/// How [`merge_hooks`] changed the settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeChanges {
    /// Events that had no nagger entry and got one.
    pub added: Vec<String>,
    /// Events whose nagger entry pointed elsewhere or was duplicated.
    pub updated: Vec<CommandUpdate>,
    /// Events whose nagger entry went: the client does not know them.
    pub removed: Vec<String>,
}

impl MergeChanges {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.updated.is_empty() && self.removed.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandUpdate {
    pub event: String,
    /// Every nagger command the event held before; the first was rewritten, the rest removed.
    pub old_commands: Vec<String>,
}

fn bad_shape(detail: String) -> InstallError {
    InstallError::BadShape { path: None, detail }
}

pub(super) fn nagger_group(command: &str) -> Value {
    json!({
        "matcher": HOOK_MATCHER,
        "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECS}],
    })
}

fn hook_list(group: &Value) -> Option<&Vec<Value>> {
    group.get("hooks")?.as_array()
}

fn hook_list_mut(group: &mut Value) -> Option<&mut Vec<Value>> {
    group.get_mut("hooks")?.as_array_mut()
}

fn nagger_command_of(hook: &Value) -> Option<&str> {
    hook.get("command")?
        .as_str()
        .filter(|command| is_nagger_command(command))
}

/// (group, hook) positions of nagger's entries among one event's matcher groups, in order.
fn nagger_positions(groups: &[Value]) -> Vec<(usize, usize)> {
    let mut positions = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        for (h, hook) in hook_list(group).into_iter().flatten().enumerate() {
            if nagger_command_of(hook).is_some() {
                positions.push((g, h));
            }
        }
    }
    positions
}

/// Ensures each of `events` has exactly one nagger entry running `command`, and that no
/// other event nagger handles has one (the client does not know it). Every other key and
/// hook stays as it was, in its place; an old nagger entry is rewritten where it is.
pub fn merge_hooks(
    mut settings: Value,
    command: &str,
    events: &[&str],
) -> Result<(Value, MergeChanges), InstallError> {
    let Value::Object(root) = &mut settings else {
        return Err(bad_shape(format!(
            "the top level is {}, not an object",
            json_kind(&settings)
        )));
    };
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(bad_shape(format!(
            "`hooks` is {}, not an object",
            json_kind(hooks)
        )));
    };
    // Claude Code rejects a malformed hooks section, so refuse it whole rather than build on it.
    if let Some((event, value)) = hooks.iter().find(|(_, v)| !v.is_array()) {
        return Err(bad_shape(format!(
            "`hooks.{event}` is {}, not an array",
            json_kind(value)
        )));
    }

    let mut changes = MergeChanges::default();
    for &event in ALL_HOOK_EVENTS.iter().filter(|e| !events.contains(e)) {
        let Some(groups) = hooks.get_mut(event).and_then(Value::as_array_mut) else {
            continue;
        };
        if remove_nagger_hooks(groups) > 0 {
            changes.removed.push(event.to_string());
            if groups.is_empty() {
                hooks.shift_remove(event);
            }
        }
    }
    for &event in events {
        let groups = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .expect("every event was checked to be an array");
        let positions = nagger_positions(groups);
        let Some((&(first_g, first_h), duplicates)) = positions.split_first() else {
            groups.push(nagger_group(command));
            changes.added.push(event.to_string());
            continue;
        };
        let old_commands: Vec<String> = positions
            .iter()
            .filter_map(|&(g, h)| nagger_command_of(&hook_list(&groups[g])?[h]))
            .map(str::to_string)
            .collect();
        if old_commands == [command] {
            continue;
        }
        // Back to front, so the positions still to visit stay valid.
        for &(g, h) in duplicates.iter().rev() {
            let Some(list) = hook_list_mut(&mut groups[g]) else {
                continue;
            };
            list.remove(h);
            if list.is_empty() {
                groups.remove(g);
            }
        }
        if let Some(hook) =
            hook_list_mut(&mut groups[first_g]).and_then(|list| list.get_mut(first_h))
        {
            hook["command"] = Value::String(command.to_string());
        }
        changes.updated.push(CommandUpdate {
            event: event.to_string(),
            old_commands,
        });
    }
    Ok((settings, changes))
}

/// Takes out every nagger entry, of any event. A matcher group, event or `hooks` object left
/// empty by that goes too; anything that was already empty, or is not shaped as Claude Code
/// expects, stays as it is.
pub fn remove_hooks(mut settings: Value) -> (Value, usize) {
    let mut removed = 0;
    let Some(root) = settings.as_object_mut() else {
        return (settings, 0);
    };
    let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) else {
        return (settings, 0);
    };
    let mut emptied_events = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        let taken = remove_nagger_hooks(groups);
        removed += taken;
        if groups.is_empty() && taken > 0 {
            emptied_events.push(event.clone());
        }
    }
    for event in &emptied_events {
        hooks.shift_remove(event);
    }
    if hooks.is_empty() && !emptied_events.is_empty() {
        root.shift_remove("hooks");
    }
    (settings, removed)
}

/// Takes nagger's hooks out of one event's matcher groups; a group left empty by that
/// goes too. How many hooks were taken out.
fn remove_nagger_hooks(groups: &mut Vec<Value>) -> usize {
    let mut removed = 0;
    groups.retain_mut(|group| {
        let Some(list) = hook_list_mut(group) else {
            return true;
        };
        let len = list.len();
        list.retain(|hook| nagger_command_of(hook).is_none());
        removed += len - list.len();
        !(list.is_empty() && len > 0)
    });
    removed
}

/// nagger's commands per event, as `nagger doctor` reports them.
pub fn find_nagger_entries(settings: &Value) -> BTreeMap<String, Vec<String>> {
    let mut found = BTreeMap::new();
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else {
        return found;
    };
    for (event, groups) in hooks {
        let commands: Vec<String> = groups
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(hook_list)
            .flatten()
            .filter_map(nagger_command_of)
            .map(str::to_string)
            .collect();
        if !commands.is_empty() {
            found.insert(event.clone(), commands);
        }
    }
    found
}
