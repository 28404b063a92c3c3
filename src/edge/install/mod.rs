//! `nagger install` and `nagger uninstall`: merge nagger's hook entries into Claude Code's
//! settings.json (or take them out again) without disturbing any other key or hook, and lay
//! down `.claude-nagger/config.toml` and its `.gitignore`.

mod claude_nagger;
mod client;
mod command;
mod entry;
mod error;
mod files;
mod merge;
mod plugin;
#[cfg(test)]
mod tests;
mod trust;

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use serde_json::{Map, Value};

pub use claude_nagger::{claude_nagger_commands, is_claude_nagger_command};
pub use client::{detect as detect_client, find_claude, version_of};
pub use command::{
    PORTABLE_COMMAND, find_on_path, hook_command, hook_program, is_nagger_command, is_nagger_name,
};
pub use entry::{ALL_HOOK_EVENTS, HOOK_EVENTS, HOOK_MATCHER, HOOK_TIMEOUT_SECS, events_for};
pub use error::InstallError;
pub use merge::{CommandUpdate, MergeChanges, find_nagger_entries, merge_hooks, remove_hooks};
pub use plugin::{PLUGIN_BINARY, PLUGIN_NAME, plugin_files, write_plugin};

use error::io_error;
use files::{back_up, exists, read_settings, to_pretty_json, write_atomically, write_target};

/// Directory, relative to the project root, holding nagger's config and state.
pub const NAGGER_DIR: &str = ".claude-nagger";

/// What `.claude-nagger/.gitignore` keeps out of version control: runtime state only, so
/// `config.toml` can be committed next to it.
pub const GITIGNORE: &str = "\
# nagger's runtime state; config.toml is meant to be committed
state.db
state.db-wal
state.db-shm
state.db.lock
state.db.corrupt-*
state.db.claude-nagger*
state.db.foreign-*
context/
backups/
# what this machine's user confirmed (`nagger trust`): not shared with the config
trusted.json
";

/// Folder under `.claude-nagger/` where `install` and `uninstall` keep a copy of each
/// settings file before they change it (ignored by the `.gitignore` above).
pub const BACKUP_DIR: &str = "backups";

#[derive(Debug, Clone)]
pub struct InstallOptions {
    pub project_root: PathBuf,
    /// Overrides the settings file; `local` is then ignored.
    pub settings_path: Option<PathBuf>,
    /// `.claude/settings.local.json` instead of `.claude/settings.json`.
    pub local: bool,
    /// Compute and report, write nothing.
    pub dry_run: bool,
    /// The hook command to install, e.g. from [`hook_command`].
    pub command: String,
    /// Text of `.claude-nagger/config.toml`, written only when that file is missing.
    pub config_template: &'static str,
    /// Another settings file whose nagger entries go (with a backup): the shared and the
    /// personal settings both apply, so an entry left in the other would run nagger twice.
    pub also_clean: Option<PathBuf>,
    /// Why the settings file is not the one the user might expect, said first.
    pub note: Option<String>,
    /// The Claude Code the entries are for: only the events it knows are registered
    /// (`None`: the events every version knows).
    pub client: Option<crate::base::event::ClientVersion>,
}

impl InstallOptions {
    pub fn resolved_settings_path(&self) -> PathBuf {
        if let Some(path) = &self.settings_path {
            path.clone()
        } else {
            let name = if self.local {
                "settings.local.json"
            } else {
                "settings.json"
            };
            self.project_root.join(".claude").join(name)
        }
    }

    pub fn config_path(&self) -> PathBuf {
        self.project_root.join(NAGGER_DIR).join("config.toml")
    }

    pub fn gitignore_path(&self) -> PathBuf {
        self.project_root.join(NAGGER_DIR).join(".gitignore")
    }

    pub fn backup_dir(&self) -> PathBuf {
        self.project_root.join(NAGGER_DIR).join(BACKUP_DIR)
    }
}

/// What `install` did, or with `dry_run` what it would do (`backup` is then `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallReport {
    pub settings_path: PathBuf,
    pub settings_changed: bool,
    pub backup: Option<PathBuf>,
    pub added_events: Vec<String>,
    pub updated_events: Vec<String>,
    pub wrote_config: bool,
    pub wrote_gitignore: bool,
    /// Human summary of the changes, one line each.
    pub diff: String,
}

/// What `uninstall` did, or with `dry_run` what it would do (`backup` is then `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UninstallReport {
    pub settings_path: PathBuf,
    pub settings_changed: bool,
    pub backup: Option<PathBuf>,
    pub removed_entries: usize,
    /// Human summary of the changes, one line each.
    pub diff: String,
}

/// Merges nagger's entries into the settings file and writes the config template and
/// `.gitignore` where they are missing. A settings file nagger cannot read as Claude Code
/// settings is an error, and then nothing at all is written.
pub fn install(opts: &InstallOptions) -> Result<InstallReport, InstallError> {
    let settings_path = opts.resolved_settings_path();
    let current = read_settings(&settings_path)?;
    let value = current
        .as_ref()
        .map_or_else(|| Value::Object(Map::new()), |s| s.value.clone());
    let events = events_for(opts.client);
    let (merged, changes) =
        merge_hooks(value, &opts.command, &events).map_err(|e| e.in_file(&settings_path))?;
    // claude-nagger's hooks would write into nagger's database: they go.
    let (merged, theirs) = claude_nagger::remove_claude_nagger(merged);
    let settings_changed = current.is_none() || !changes.is_empty() || !theirs.is_empty();
    let config_path = opts.config_path();
    let gitignore_path = opts.gitignore_path();
    let write_config = !exists(&config_path)?;
    let write_gitignore = !exists(&gitignore_path)?;
    // A .gitignore from an older nagger lacks the backups folder.
    let gitignore_lacks_backups = !write_gitignore
        && !fs::read_to_string(&gitignore_path)
            .map_err(io_error("read", &gitignore_path))?
            .lines()
            .any(|l| l.trim() == "backups/");
    let clean = match &opts.also_clean {
        Some(other) if *other != settings_path => match read_settings(other)? {
            Some(current) => {
                let (cleaned, removed) = remove_hooks(current.value.clone());
                let (cleaned, theirs) = claude_nagger::remove_claude_nagger(cleaned);
                let removed = removed + theirs.len();
                (removed > 0).then(|| (other.clone(), current, cleaned, removed))
            }
            None => None,
        },
        _ => None,
    };

    let mut diff = String::new();
    if let Some(note) = &opts.note {
        let _ = writeln!(diff, "{note}");
    }
    if settings_changed {
        let verb = if current.is_none() {
            "create"
        } else {
            "update"
        };
        let _ = writeln!(diff, "{verb} {}", settings_path.display());
        for event in &changes.added {
            let _ = writeln!(diff, "  + {event}: {}", opts.command);
        }
        for event in &changes.removed {
            let _ = writeln!(
                diff,
                "  - {event}: {} (this Claude Code does not know the event, and would ignore every hook of the file)",
                opts.command
            );
        }
        for hook in &theirs {
            let _ = writeln!(
                diff,
                "  - {hook} (claude-nagger's: it would write its own tables into nagger's database)"
            );
        }
        for update in &changes.updated {
            let _ = writeln!(
                diff,
                "  ~ {}: {} -> {}",
                update.event,
                update.old_commands.join(" | "),
                opts.command
            );
        }
    }
    if write_config {
        let _ = writeln!(diff, "create {} (template)", config_path.display());
    }
    if write_gitignore {
        let _ = writeln!(diff, "create {}", gitignore_path.display());
    }
    if gitignore_lacks_backups {
        let _ = writeln!(diff, "update {} (+ backups/)", gitignore_path.display());
    }
    if let Some((other, _, _, removed)) = &clean {
        let _ = writeln!(
            diff,
            "update {}: {removed} nagger entr{} removed (both settings files apply; nagger would run twice)",
            other.display(),
            if *removed == 1 { "y" } else { "ies" }
        );
    }
    if !settings_changed
        && !write_config
        && !write_gitignore
        && !gitignore_lacks_backups
        && clean.is_none()
    {
        let _ = writeln!(
            diff,
            "nothing to change: nagger is installed in {}",
            settings_path.display()
        );
    }

    let mut report = InstallReport {
        settings_path: settings_path.clone(),
        settings_changed,
        backup: None,
        added_events: changes.added.clone(),
        updated_events: changes.updated.iter().map(|u| u.event.clone()).collect(),
        wrote_config: write_config,
        wrote_gitignore: write_gitignore,
        diff,
    };
    if opts.dry_run {
        return Ok(report);
    }
    if settings_changed {
        let target = write_target(&settings_path);
        if let Some(current) = &current {
            report.backup = Some(back_up(&opts.backup_dir(), &target, &current.bytes)?);
        }
        write_atomically(&target, &to_pretty_json(&merged), true)?;
    }
    if write_config {
        report.wrote_config =
            write_atomically(&config_path, opts.config_template.as_bytes(), false)?;
    }
    if write_gitignore {
        report.wrote_gitignore = write_atomically(&gitignore_path, GITIGNORE.as_bytes(), false)?;
    }
    if gitignore_lacks_backups {
        let mut text =
            fs::read_to_string(&gitignore_path).map_err(io_error("read", &gitignore_path))?;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("backups/\n");
        write_atomically(&gitignore_path, text.as_bytes(), true)?;
        report.wrote_gitignore = true;
    }
    if let Some((other, current, cleaned, _)) = clean {
        let target = write_target(&other);
        back_up(&opts.backup_dir(), &target, &current.bytes)?;
        write_atomically(&target, &to_pretty_json(&cleaned), true)?;
    }
    trust::trust_installed_config(&config_path)?;
    Ok(report)
}

/// Removes exactly nagger's entries from the settings file, after backing it up. The config
/// and state under `.claude-nagger/` stay.
pub fn uninstall(opts: &InstallOptions) -> Result<UninstallReport, InstallError> {
    let settings_path = opts.resolved_settings_path();
    let mut report = UninstallReport {
        settings_path: settings_path.clone(),
        settings_changed: false,
        backup: None,
        removed_entries: 0,
        diff: String::new(),
    };
    let Some(current) = read_settings(&settings_path)? else {
        report.diff = format!(
            "nothing to remove: {} does not exist\n",
            settings_path.display()
        );
        return Ok(report);
    };
    let entries = find_nagger_entries(&current.value);
    let (cleaned, removed) = remove_hooks(current.value.clone());
    report.removed_entries = removed;
    if removed == 0 {
        report.diff = format!(
            "nothing to remove: no nagger entries in {}\n",
            settings_path.display()
        );
        return Ok(report);
    }
    report.settings_changed = true;
    let _ = writeln!(report.diff, "update {}", settings_path.display());
    for (event, commands) in &entries {
        for command in commands {
            let _ = writeln!(report.diff, "  - {event}: {command}");
        }
    }
    if opts.dry_run {
        return Ok(report);
    }
    let target = write_target(&settings_path);
    report.backup = Some(back_up(&opts.backup_dir(), &target, &current.bytes)?);
    write_atomically(&target, &to_pretty_json(&cleaned), true)?;
    Ok(report)
}
