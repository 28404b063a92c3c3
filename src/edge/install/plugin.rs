//! `nagger install --plugin`: the files of a Claude Code plugin that runs nagger.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use serde_json::{Map, Value, json};

use super::command::PORTABLE_COMMAND;
use super::entry::HOOK_EVENTS;
use super::error::{InstallError, io_error};
use super::files::{to_pretty_json, write_atomically};
use super::merge::nagger_group;

/// Name of the plugin, as Claude Code lists it.
pub const PLUGIN_NAME: &str = "nagger";

/// Where, inside the plugin folder, a copy of the binary goes when nagger is not on PATH.
pub const PLUGIN_BINARY: &str = "bin/nagger";

/// The files of a Claude Code plugin that runs `command` for each of [`HOOK_EVENTS`]: the
/// manifest `.claude-plugin/plugin.json` and `hooks/hooks.json` (the settings' hooks format).
pub fn plugin_files(command: &str) -> Vec<(&'static str, Vec<u8>)> {
    let manifest = json!({
        "name": PLUGIN_NAME,
        "version": env!("CARGO_PKG_VERSION"),
        "description": env!("CARGO_PKG_DESCRIPTION"),
        "license": env!("CARGO_PKG_LICENSE"),
    });
    let hooks: Map<String, Value> = HOOK_EVENTS
        .iter()
        .map(|event| (event.to_string(), json!([nagger_group(command)])))
        .collect();
    let hooks = json!({
        "description": "nagger: conventions, rules, guard and shared context for every agent of a session",
        "hooks": hooks,
    });
    let events = HOOK_EVENTS.join(", ");
    let readme = format!(
        "# nagger\n\n\
         Runs `nagger hook` on every hook event Claude Code sends ({events}), so each agent of \
         a session gets the project's conventions, its rules and the guard against \
         destructive shell commands, and the results other agents shared. nagger keeps its \
         state in the project's `.claude-nagger/state.db` and reads its settings from \
         `.claude-nagger/config.toml`; `nagger doctor` checks both.\n\n\
         The hooks run: `{command}`.\n"
    );
    vec![
        (".claude-plugin/plugin.json", to_pretty_json(&manifest)),
        ("hooks/hooks.json", to_pretty_json(&hooks)),
        ("README.md", readme.into_bytes()),
    ]
}

/// Writes the plugin folder at `dir`. With `binary` (nagger not on PATH), a copy of that
/// file goes into the plugin and the hooks run it through `${CLAUDE_PLUGIN_ROOT}`, which
/// Claude Code sets to wherever the plugin is installed; otherwise they run `nagger hook`.
/// Returns one line per file.
pub fn write_plugin(
    dir: &Path,
    binary: Option<&Path>,
    dry_run: bool,
) -> Result<String, InstallError> {
    let command = match binary {
        Some(_) => format!("\"${{CLAUDE_PLUGIN_ROOT}}/{PLUGIN_BINARY}\" hook"),
        None => PORTABLE_COMMAND.to_string(),
    };
    let mut report = String::new();
    if dry_run {
        let _ = writeln!(report, "dry run, nothing written:");
    }
    for (relative, bytes) in plugin_files(&command) {
        let path = dir.join(relative);
        let _ = writeln!(report, "write {}", path.display());
        if !dry_run {
            write_atomically(&path, &bytes, true)?;
        }
    }
    if let Some(binary) = binary {
        let path = dir.join(PLUGIN_BINARY);
        let _ = writeln!(
            report,
            "copy {} -> {} (nagger is not on PATH, so the plugin carries its own copy)",
            binary.display(),
            path.display()
        );
        if !dry_run {
            let bytes = fs::read(binary).map_err(io_error("read", binary))?;
            write_atomically(&path, &bytes, true)?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt as _;
                fs::set_permissions(&path, fs::Permissions::from_mode(0o755))
                    .map_err(io_error("make executable", &path))?;
            }
        }
    }
    let _ = writeln!(report, "hooks run: {command}");
    let _ = writeln!(report, "try it: claude --plugin-dir {}", dir.display());
    Ok(report)
}
