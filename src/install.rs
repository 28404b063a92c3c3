//! `nagger install` and `nagger uninstall`: merge nagger's hook entries into Claude Code's
//! settings.json (or take them out again) without disturbing any other key or hook, and lay
//! down `.claude-nagger/config.toml` and its `.gitignore`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// Every event nagger handles; `install` puts one entry for each into settings.json.
pub const HOOK_EVENTS: &[&str] = &[
    "SessionStart",
    "SessionEnd",
    "SubagentStart",
    "SubagentStop",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
];

/// Claude Code lets a hook that times out fail open; nagger's budgets are milliseconds.
pub const HOOK_TIMEOUT_SECS: u64 = 10;

/// `"*"` matches everything for the events that have matchers and is ignored by the others,
/// so one value fits every event.
pub const HOOK_MATCHER: &str = "*";

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
context/
backups/
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
}

impl InstallOptions {
    pub fn resolved_settings_path(&self) -> PathBuf {
        match &self.settings_path {
            Some(path) => path.clone(),
            None => {
                let name = if self.local {
                    "settings.local.json"
                } else {
                    "settings.json"
                };
                self.project_root.join(".claude").join(name)
            }
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

/// The hook command a settings file shared through version control can hold: `nagger hook`
/// when `nagger` is found on `path_var` (so it works on every machine that has nagger on
/// its PATH); `None` when it is not, and the command would have to name this machine's file.
pub fn find_on_path(path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    let path_var = path_var?;
    std::env::split_paths(path_var)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("nagger"))
        .find(|candidate| is_executable_file(candidate))
}

fn is_executable_file(path: &Path) -> bool {
    let Ok(meta) = fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The portable hook command, for when nagger is on PATH.
pub const PORTABLE_COMMAND: &str = "nagger hook";

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

/// How [`merge_hooks`] changed the settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeChanges {
    /// Events that had no nagger entry and got one.
    pub added: Vec<String>,
    /// Events whose nagger entry pointed elsewhere or was duplicated.
    pub updated: Vec<CommandUpdate>,
}

impl MergeChanges {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.updated.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandUpdate {
    pub event: String,
    /// Every nagger command the event held before; the first was rewritten, the rest removed.
    pub old_commands: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(
        "{}: not valid JSON at line {line}, column {column} ({message}); the file was left unchanged",
        path.display()
    )]
    InvalidJson {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}{detail}; the file was left unchanged", path_prefix(path.as_deref()))]
    BadShape {
        /// `None` when raised by the pure [`merge_hooks`], which knows no file.
        path: Option<PathBuf>,
        detail: String,
    },
    #[error("cannot {action} {}: {error}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        error: io::Error,
    },
}

fn path_prefix(path: Option<&Path>) -> String {
    path.map(|p| format!("{}: ", p.display()))
        .unwrap_or_default()
}

impl InstallError {
    fn in_file(self, file: &Path) -> Self {
        match self {
            InstallError::BadShape { path: None, detail } => InstallError::BadShape {
                path: Some(file.to_path_buf()),
                detail,
            },
            other => other,
        }
    }
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> InstallError {
    let path = path.to_path_buf();
    move |error| InstallError::Io {
        action,
        path,
        error,
    }
}

/// The command line Claude Code runs for nagger at `exe`, quoted for the shell it uses.
pub fn hook_command(exe: &Path) -> String {
    let mut quoted = String::from("\"");
    for c in exe.to_string_lossy().chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    format!("{quoted} hook")
}

/// Whether `command` runs nagger's hook handler: its program's file name is `nagger` (any
/// directory, quoted or not, variables such as `$CLAUDE_PROJECT_DIR` left unexpanded) and its
/// first argument is `hook`.
pub fn is_nagger_command(command: &str) -> bool {
    let mut words = ShellWords { rest: command };
    let Some(program) = words.next() else {
        return false;
    };
    let file_name = program.rsplit('/').next().unwrap_or(&program);
    file_name == "nagger" && words.next().as_deref() == Some("hook")
}

/// The program a hook command runs: its first shell word, unquoted (variables such as
/// `$CLAUDE_PROJECT_DIR` left as written). `nagger doctor` checks that it exists.
pub fn hook_program(command: &str) -> Option<String> {
    ShellWords { rest: command }.next()
}

/// Just enough of POSIX word splitting to read a program and its first argument: quotes,
/// backslashes and blanks. An unterminated quote ends the words.
struct ShellWords<'a> {
    rest: &'a str,
}

impl Iterator for ShellWords<'_> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        let mut chars = self.rest.trim_start().chars();
        let mut word = String::new();
        let mut started = false;
        loop {
            let rest = chars.as_str();
            let Some(c) = chars.next() else {
                self.rest = "";
                return started.then_some(word);
            };
            match c {
                c if c.is_whitespace() => {
                    self.rest = rest;
                    return Some(word);
                }
                '\'' => loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => {
                            self.rest = "";
                            return None;
                        }
                    }
                },
                '"' => loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => {
                                self.rest = "";
                                return None;
                            }
                        },
                        Some(c) => word.push(c),
                        None => {
                            self.rest = "";
                            return None;
                        }
                    }
                },
                '\\' => {
                    if let Some(c) = chars.next().filter(|&c| c != '\n') {
                        word.push(c);
                    }
                }
                c => word.push(c),
            }
            started = true;
        }
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn bad_shape(detail: String) -> InstallError {
    InstallError::BadShape { path: None, detail }
}

fn nagger_group(command: &str) -> Value {
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

/// Ensures each of [`HOOK_EVENTS`] has exactly one nagger entry running `command`. Every other
/// key and hook stays as it was, in its place; an old nagger entry is rewritten where it is.
pub fn merge_hooks(
    mut settings: Value,
    command: &str,
) -> Result<(Value, MergeChanges), InstallError> {
    let Value::Object(root) = &mut settings else {
        return Err(bad_shape(format!(
            "the top level is {}, not an object",
            kind_of(&settings)
        )));
    };
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(bad_shape(format!(
            "`hooks` is {}, not an object",
            kind_of(hooks)
        )));
    };
    // Claude Code rejects a malformed hooks section, so refuse it whole rather than build on it.
    if let Some((event, value)) = hooks.iter().find(|(_, v)| !v.is_array()) {
        return Err(bad_shape(format!(
            "`hooks.{event}` is {}, not an array",
            kind_of(value)
        )));
    }

    let mut changes = MergeChanges::default();
    for &event in HOOK_EVENTS {
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
        let before = removed;
        groups.retain_mut(|group| {
            let Some(list) = hook_list_mut(group) else {
                return true;
            };
            let len = list.len();
            list.retain(|hook| nagger_command_of(hook).is_none());
            removed += len - list.len();
            !(list.is_empty() && len > 0)
        });
        if groups.is_empty() && removed > before {
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

/// A settings file as read: its exact bytes (for the backup) and its value.
struct Settings {
    bytes: Vec<u8>,
    value: Value,
}

/// `None` when the file does not exist. A file of only whitespace counts as `{}`.
fn read_settings(path: &Path) -> Result<Option<Settings>, InstallError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(io_error("read", path)(error)),
    };
    let value = if bytes.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Map::new())
    } else {
        serde_json::from_slice(&bytes).map_err(|error| InstallError::InvalidJson {
            path: path.to_path_buf(),
            line: error.line(),
            column: error.column(),
            // serde_json's message repeats the position, which the variant already carries.
            message: error
                .to_string()
                .trim_end_matches(&format!(
                    " at line {} column {}",
                    error.line(),
                    error.column()
                ))
                .to_string(),
        })?
    };
    Ok(Some(Settings { bytes, value }))
}

fn to_pretty_json(value: &Value) -> Vec<u8> {
    let mut text = serde_json::to_string_pretty(value).expect("a JSON value always serialises");
    text.push('\n');
    text.into_bytes()
}

/// The file to write when `path` is a symlink (settings kept in a dotfiles repository), so the
/// link survives the rename.
fn write_target(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// Copies `bytes` to `<backup_dir>/<file>.<YYYYmmddHHMMSS>`, never over an existing file.
fn back_up(backup_dir: &Path, path: &Path, bytes: &[u8]) -> Result<PathBuf, InstallError> {
    let stamp = chrono::Local::now().format("%Y%m%d%H%M%S");
    let name = path.file_name().map_or_else(
        || "settings.json".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    fs::create_dir_all(backup_dir).map_err(io_error("create directory", backup_dir))?;
    for attempt in 1u32.. {
        let suffix = if attempt == 1 {
            String::new()
        } else {
            format!("-{attempt}")
        };
        let backup = backup_dir.join(format!("{name}.{stamp}{suffix}"));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&backup)
        {
            Ok(mut file) => {
                file.write_all(bytes)
                    .and_then(|()| file.sync_all())
                    .map_err(io_error("write backup", &backup))?;
                return Ok(backup);
            }
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(io_error("create backup", &backup)(error)),
        }
    }
    unreachable!("the backup suffixes are unbounded")
}

/// Writes through a temporary file in the same directory and a rename, so a reader sees the
/// old file or the new one, never half of one. With `replace` false an existing file wins and
/// the result is `false`.
fn write_atomically(path: &Path, contents: &[u8], replace: bool) -> Result<bool, InstallError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir).map_err(io_error("create directory", dir))?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".nagger-").suffix(".tmp");
    // A replaced file keeps its mode; a new one gets the usual 0644, not tempfile's 0600.
    match fs::metadata(path) {
        Ok(meta) => {
            builder.permissions(meta.permissions());
        }
        Err(_) => set_new_file_permissions(&mut builder),
    }
    let mut temp = builder
        .tempfile_in(dir)
        .map_err(io_error("create a temporary file in", dir))?;
    temp.write_all(contents)
        .and_then(|()| temp.as_file().sync_all())
        .map_err(io_error("write", temp.path()))?;
    let persisted = if replace {
        temp.persist(path).map(drop)
    } else {
        temp.persist_noclobber(path).map(drop)
    };
    match persisted {
        Ok(()) => Ok(true),
        Err(e) if !replace && e.error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(io_error("write", path)(e.error)),
    }
}

#[cfg(unix)]
fn set_new_file_permissions(builder: &mut tempfile::Builder) {
    use std::os::unix::fs::PermissionsExt as _;
    builder.permissions(fs::Permissions::from_mode(0o644));
}

#[cfg(not(unix))]
fn set_new_file_permissions(_builder: &mut tempfile::Builder) {}

fn exists(path: &Path) -> Result<bool, InstallError> {
    path.try_exists().map_err(io_error("inspect", path))
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
    let (merged, changes) =
        merge_hooks(value, &opts.command).map_err(|e| e.in_file(&settings_path))?;
    let settings_changed = current.is_none() || !changes.is_empty();
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
    Ok(report)
}

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

#[cfg(test)]
mod tests {
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

    #[test]
    fn recognises_nagger_commands() {
        for command in [
            "/usr/local/bin/nagger hook",
            "\"/a b/nagger\" hook",
            "'/a b/nagger' hook",
            "/a\\ b/nagger hook",
            "nagger hook",
            "  nagger   hook  ",
            "nagger hook --db /tmp/x.db",
            "$CLAUDE_PROJECT_DIR/target/release/nagger hook",
            "\"$CLAUDE_PROJECT_DIR\"/target/release/nagger hook",
            "\"${CLAUDE_PROJECT_DIR}/target/release/nagger\" hook",
            "./nagger \"hook\"",
            CMD,
        ] {
            assert!(is_nagger_command(command), "{command:?}");
        }
    }

    #[test]
    fn rejects_commands_that_are_not_nagger_hook() {
        for command in [
            "naggerx hook",
            "/usr/bin/nagger-old hook",
            "nagger doctor",
            "nagger",
            "nagger hooks",
            "python nagger.py hook",
            "echo nagger hook",
            "/nagger/bin/tool hook",
            "\"/a b/nagger hook",
            "",
            "   ",
        ] {
            assert!(!is_nagger_command(command), "{command:?}");
        }
    }

    #[test]
    fn hook_command_quotes_paths_so_they_are_recognised() {
        for exe in ["/usr/bin/nagger", "/a b/c\"d/$x`y\\z/nagger"] {
            let command = hook_command(Path::new(exe));
            assert!(is_nagger_command(&command), "{command}");
            let mut words = ShellWords { rest: &command };
            assert_eq!(words.next().as_deref(), Some(exe));
        }
        assert_eq!(
            hook_command(Path::new("/a b/nagger")),
            "\"/a b/nagger\" hook"
        );
    }

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

    #[test]
    fn install_keeps_foreign_hooks_and_a_second_run_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let opts = options(dir.path());
        let settings_path = dir.path().join(".claude/settings.json");
        write_json(&settings_path, &foreign_settings());

        let first = install(&opts).unwrap();
        assert!(first.settings_changed);
        assert_eq!(first.added_events, HOOK_EVENTS);
        assert!(first.wrote_config && first.wrote_gitignore);
        let backup = first.backup.clone().unwrap();
        assert_eq!(
            fs::read(&backup).unwrap(),
            to_pretty_json(&foreign_settings())
        );
        let installed = read_json(&settings_path);
        assert_eq!(installed["permissions"], foreign_settings()["permissions"]);
        assert_eq!(installed["env"], foreign_settings()["env"]);
        assert_eq!(
            installed["hooks"]["PreToolUse"][0],
            foreign_settings()["hooks"]["PreToolUse"][0]
        );
        let text = fs::read_to_string(&settings_path).unwrap();
        assert!(text.ends_with("}\n") && text.contains("\n  \"hooks\""));

        let bytes = fs::read(&settings_path).unwrap();
        let second = install(&opts).unwrap();
        assert!(!second.settings_changed);
        assert!(second.backup.is_none());
        assert!(second.added_events.is_empty() && second.updated_events.is_empty());
        assert!(!second.wrote_config && !second.wrote_gitignore);
        assert!(
            second.diff.starts_with("nothing to change"),
            "{}",
            second.diff
        );
        assert_eq!(fs::read(&settings_path).unwrap(), bytes);
        assert_eq!(backups(&opts.backup_dir()).len(), 1);
        assert_eq!(
            backups(&dir.path().join(".claude")),
            ["settings.json"],
            "no backup left beside the shared settings"
        );
        let ignored = fs::read_to_string(opts.gitignore_path()).unwrap();
        assert!(ignored.lines().any(|l| l == "backups/"));
    }

    #[test]
    fn uninstall_leaves_exactly_the_foreign_hooks() {
        let dir = tempfile::tempdir().unwrap();
        let opts = options(dir.path());
        let settings_path = dir.path().join(".claude/settings.json");
        write_json(&settings_path, &foreign_settings());
        install(&opts).unwrap();

        let report = uninstall(&opts).unwrap();
        assert_eq!(report.removed_entries, HOOK_EVENTS.len());
        assert!(report.settings_changed && report.backup.is_some());
        assert!(report.diff.contains("  - PreCompact: "), "{}", report.diff);
        let after = read_json(&settings_path);
        assert_eq!(after, foreign_settings());
        assert_eq!(
            serde_json::to_string(&after).unwrap(),
            serde_json::to_string(&foreign_settings()).unwrap(),
            "key order kept"
        );
        assert_eq!(
            fs::read_to_string(opts.config_path()).unwrap(),
            TEMPLATE,
            "config left alone"
        );

        let again = uninstall(&opts).unwrap();
        assert!(!again.settings_changed && again.backup.is_none());
        assert_eq!(again.removed_entries, 0);
    }

    #[test]
    fn invalid_json_is_refused_and_left_byte_identical() {
        let dir = tempfile::tempdir().unwrap();
        let opts = options(dir.path());
        let settings_path = dir.path().join(".claude/settings.json");
        fs::create_dir_all(settings_path.parent().unwrap()).unwrap();
        let broken = b"{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n";
        fs::write(&settings_path, broken).unwrap();

        let error = install(&opts).unwrap_err();
        match &error {
            InstallError::InvalidJson { path, line, .. } => {
                assert_eq!(path, &settings_path);
                assert_eq!(*line, 3);
            }
            other => panic!("{other:?}"),
        }
        let message = error.to_string();
        assert!(
            message.contains("settings.json") && message.contains("line 3"),
            "{message}"
        );
        assert!(uninstall(&opts).is_err());
        assert_eq!(fs::read(&settings_path).unwrap(), broken);
        assert!(backups(&opts.backup_dir()).is_empty());
        assert!(
            !dir.path().join(NAGGER_DIR).exists(),
            "nothing else written"
        );
    }

    #[test]
    fn misshapen_settings_are_refused_and_left_byte_identical() {
        let dir = tempfile::tempdir().unwrap();
        let opts = options(dir.path());
        let settings_path = dir.path().join(".claude/settings.json");
        fs::create_dir_all(settings_path.parent().unwrap()).unwrap();
        let odd = b"{\"hooks\": {\"PreToolUse\": \"nagger hook\"}}";
        fs::write(&settings_path, odd).unwrap();

        let message = install(&opts).unwrap_err().to_string();
        assert!(
            message.contains("settings.json: `hooks.PreToolUse` is a string, not an array"),
            "{message}"
        );
        assert_eq!(fs::read(&settings_path).unwrap(), odd);
    }

    #[test]
    fn install_updates_an_old_command_path() {
        let dir = tempfile::tempdir().unwrap();
        let mut opts = options(dir.path());
        opts.command = "/old/nagger hook".into();
        install(&opts).unwrap();
        opts.command = CMD.into();

        let report = install(&opts).unwrap();
        assert!(report.settings_changed && report.backup.is_some());
        assert!(report.added_events.is_empty());
        assert_eq!(report.updated_events, HOOK_EVENTS);
        assert!(report.diff.contains("~ SessionStart: /old/nagger hook -> "));
        let entries = find_nagger_entries(&read_json(&opts.resolved_settings_path()));
        assert_eq!(entries.len(), HOOK_EVENTS.len());
        assert!(entries.values().all(|commands| commands == &[CMD]));
    }

    #[test]
    fn install_creates_missing_files_and_directories() {
        let dir = tempfile::tempdir().unwrap();
        let opts = options(dir.path());
        let report = install(&opts).unwrap();
        assert!(report.settings_changed && report.backup.is_none());
        assert!(report.diff.starts_with("create "), "{}", report.diff);
        let settings = read_json(&opts.resolved_settings_path());
        assert_eq!(settings["hooks"]["PreCompact"], json!([nagger_group(CMD)]));
        assert_eq!(fs::read_to_string(opts.config_path()).unwrap(), TEMPLATE);
        assert_eq!(
            fs::read_to_string(opts.gitignore_path()).unwrap(),
            GITIGNORE
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            // Whatever the umask: 0644 under it, as a plain new file would be, not 0600.
            let mode_of = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            let plain = dir.path().join("plain");
            fs::write(&plain, "").unwrap();
            assert_eq!(
                mode_of(&opts.resolved_settings_path()),
                mode_of(&plain) & 0o644
            );
        }
    }

    #[test]
    fn install_never_overwrites_a_users_config_or_gitignore() {
        let dir = tempfile::tempdir().unwrap();
        let opts = options(dir.path());
        fs::create_dir_all(dir.path().join(NAGGER_DIR)).unwrap();
        fs::write(opts.config_path(), "[session]\nenabled = false\n").unwrap();
        fs::write(opts.gitignore_path(), "mine\n").unwrap();

        let report = install(&opts).unwrap();
        assert!(!report.wrote_config);
        assert_eq!(
            fs::read_to_string(opts.config_path()).unwrap(),
            "[session]\nenabled = false\n"
        );
        // The user's lines stay; the backups folder is added so backups stay out of git.
        assert_eq!(
            fs::read_to_string(opts.gitignore_path()).unwrap(),
            "mine\nbackups/\n"
        );
        assert!(report.diff.contains("(+ backups/)"), "{}", report.diff);
        let again = install(&opts).unwrap();
        assert!(!again.wrote_gitignore);
        assert_eq!(
            fs::read_to_string(opts.gitignore_path()).unwrap(),
            "mine\nbackups/\n"
        );
    }

    #[test]
    fn dry_run_reports_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut opts = options(dir.path());
        opts.dry_run = true;
        let report = install(&opts).unwrap();
        assert!(report.settings_changed && report.wrote_config && report.wrote_gitignore);
        assert_eq!(report.added_events, HOOK_EVENTS);
        assert!(report.diff.contains("+ SubagentStop: "), "{}", report.diff);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);

        opts.dry_run = false;
        install(&opts).unwrap();
        let bytes = fs::read(opts.resolved_settings_path()).unwrap();
        opts.dry_run = true;
        let report = uninstall(&opts).unwrap();
        assert_eq!(report.removed_entries, HOOK_EVENTS.len());
        assert!(report.backup.is_none());
        assert_eq!(fs::read(opts.resolved_settings_path()).unwrap(), bytes);
        assert!(backups(&opts.backup_dir()).is_empty());
    }

    #[test]
    fn local_and_explicit_settings_paths() {
        let dir = tempfile::tempdir().unwrap();
        let mut opts = options(dir.path());
        opts.local = true;
        let report = install(&opts).unwrap();
        assert_eq!(
            report.settings_path,
            dir.path().join(".claude/settings.local.json")
        );
        assert!(report.settings_path.exists());
        assert!(!dir.path().join(".claude/settings.json").exists());

        let elsewhere = dir.path().join("home/.claude/settings.json");
        opts.settings_path = Some(elsewhere.clone());
        assert_eq!(install(&opts).unwrap().settings_path, elsewhere);
        assert!(elsewhere.exists());
    }

    #[cfg(unix)]
    #[test]
    fn nagger_counts_as_on_path_only_as_an_executable_file_in_an_absolute_folder() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let (plain, exec, folder) = (
            dir.path().join("plain"),
            dir.path().join("exec"),
            dir.path().join("folder"),
        );
        for d in [&plain, &exec, &folder] {
            fs::create_dir_all(d).unwrap();
        }
        fs::write(plain.join("nagger"), "").unwrap();
        fs::write(exec.join("nagger"), "#!/bin/sh\n").unwrap();
        fs::set_permissions(exec.join("nagger"), fs::Permissions::from_mode(0o755)).unwrap();
        fs::create_dir(folder.join("nagger")).unwrap();
        let path = |dirs: &[&Path]| std::env::join_paths(dirs).unwrap();
        assert_eq!(find_on_path(None), None);
        assert_eq!(find_on_path(Some(&path(&[&plain, &folder]))), None);
        assert_eq!(
            find_on_path(Some(&path(&[&plain, &folder, &exec]))),
            Some(exec.join("nagger"))
        );
        assert_eq!(
            find_on_path(Some(&path(&[Path::new("relative/bin")]))),
            None,
            "a relative PATH entry depends on where Claude Code starts the hook"
        );
    }

    #[test]
    fn plugin_hooks_cover_every_event_and_run_the_given_command() {
        let files = plugin_files(PORTABLE_COMMAND);
        let hooks: Value = serde_json::from_slice(
            &files
                .iter()
                .find(|(p, _)| *p == "hooks/hooks.json")
                .unwrap()
                .1,
        )
        .unwrap();
        let events: Vec<&str> = hooks["hooks"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(events, HOOK_EVENTS);
        assert_eq!(
            find_nagger_entries(&hooks)
                .values()
                .flatten()
                .collect::<Vec<_>>(),
            vec![PORTABLE_COMMAND; HOOK_EVENTS.len()]
        );
    }

    #[test]
    fn backups_never_overwrite_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let backups = dir.path().join(".claude-nagger/backups");
        let first = back_up(&backups, &path, b"one").unwrap();
        let second = back_up(&backups, &path, b"two").unwrap();
        assert_eq!(first.parent(), Some(backups.as_path()));
        assert_ne!(first, second);
        assert_eq!(fs::read(&first).unwrap(), b"one");
        assert_eq!(fs::read(&second).unwrap(), b"two");
        let name = first.file_name().unwrap().to_string_lossy().into_owned();
        let stamp = name.strip_prefix("settings.json.").unwrap();
        assert!(
            stamp.len() == 14 && stamp.bytes().all(|b| b.is_ascii_digit()),
            "{name}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_settings_file_stays_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let opts = options(dir.path());
        let real = dir.path().join("dotfiles/settings.json");
        write_json(&real, &json!({"model": "opus"}));
        fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::os::unix::fs::symlink(&real, opts.resolved_settings_path()).unwrap();

        install(&opts).unwrap();
        let link = fs::symlink_metadata(opts.resolved_settings_path()).unwrap();
        assert!(link.file_type().is_symlink());
        assert_eq!(
            find_nagger_entries(&read_json(&real)).len(),
            HOOK_EVENTS.len()
        );
    }

    #[test]
    fn a_whitespace_only_settings_file_counts_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        let opts = options(dir.path());
        fs::create_dir_all(dir.path().join(".claude")).unwrap();
        fs::write(opts.resolved_settings_path(), "\n").unwrap();
        let report = install(&opts).unwrap();
        assert_eq!(report.added_events, HOOK_EVENTS);
        assert_eq!(fs::read(report.backup.unwrap()).unwrap(), b"\n");
    }
}
