//! The checks of what nagger does not own: Claude Code's settings (is nagger's hook
//! there, on every event, once, and can its program run?) and nagger's config.

use super::{Check, Checks, HOUR_MS, Status};
use crate::config::{LoadedConfig, Problem};
use crate::install::{self, HOOK_EVENTS};
use crate::store::now_ms;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The settings checks for the project at `root`; `last_run` is when nagger last ran a
/// hook here (hooks may run through a plugin instead of a settings entry).
pub fn check_settings(root: &Path, home: Option<&Path>, last_run: Option<i64>) -> Vec<Check> {
    let mut checks = Checks::default();
    settings_checks(root, home, last_run, &mut checks);
    checks.0
}

/// The config checks: one per problem found in it, or one saying it is fine.
pub fn check_config(config: &LoadedConfig) -> Vec<Check> {
    let mut checks = Checks::default();
    config_checks(config, &mut checks);
    checks.0
}

/// The settings files Claude Code reads hooks from, project first.
fn settings_files(root: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut files = vec![
        root.join(".claude/settings.json"),
        root.join(".claude/settings.local.json"),
    ];
    if let Some(home) = home {
        files.push(home.join(".claude/settings.json"));
    }
    let mut seen = Vec::new();
    files.retain(|f| {
        let key = f.canonicalize().unwrap_or_else(|_| f.clone());
        let new = !seen.contains(&key);
        seen.push(key);
        new
    });
    files
}

fn settings_checks(root: &Path, home: Option<&Path>, last_run: Option<i64>, checks: &mut Checks) {
    let shown = |p: &Path| match p.strip_prefix(root) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => p.display().to_string(),
    };
    // event -> (file, command) of each nagger entry
    let mut entries: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let files = settings_files(root, home);
    let mut read_any = false;
    for file in &files {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                checks.push(
                    "settings",
                    Status::Fail,
                    format!("cannot read {}: {e}", shown(file)),
                );
                continue;
            }
        };
        read_any = true;
        let value: serde_json::Value = if text.trim().is_empty() {
            json!({})
        } else {
            match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(e) => {
                    checks.push(
                        "settings",
                        Status::Fail,
                        format!(
                            "{} is not valid JSON (line {}, column {}): Claude Code cannot read its hooks",
                            shown(file),
                            e.line(),
                            e.column()
                        ),
                    );
                    continue;
                }
            }
        };
        for (event, commands) in install::find_nagger_entries(&value) {
            let list = entries.entry(event).or_default();
            list.extend(commands.into_iter().map(|c| (shown(file), c)));
        }
    }
    let looked_in = files
        .iter()
        .map(|f| shown(f))
        .collect::<Vec<_>>()
        .join(", ");
    let installed: Vec<&str> = HOOK_EVENTS
        .iter()
        .copied()
        .filter(|e| entries.contains_key(*e))
        .collect();
    let ran_lately = last_run.is_some_and(|t| now_ms() - t < 24 * HOUR_MS);
    if installed.is_empty() && ran_lately {
        // No settings entry, yet hooks run: through a plugin (`nagger plugin`), or
        // nagger was uninstalled today.
        checks.push(
            "settings",
            Status::Warn,
            format!(
                "no nagger hook in {looked_in}, yet hooks ran in the last day: through a plugin \
                 (`nagger plugin`)? If not, Claude Code no longer runs nagger (run `nagger install`)"
            ),
        );
        return;
    }
    if installed.is_empty() {
        checks.push(
            "settings",
            Status::Fail,
            format!(
                "no nagger hook in {looked_in}{}: Claude Code never runs nagger (run `nagger install`)",
                if read_any { "" } else { " (none exists)" }
            ),
        );
        return;
    }
    let mut fine = true;
    let missing: Vec<&str> = HOOK_EVENTS
        .iter()
        .copied()
        .filter(|e| !entries.contains_key(*e))
        .collect();
    if !missing.is_empty() {
        fine = false;
        checks.push(
            "settings",
            Status::Fail,
            format!(
                "no nagger entry for {} (nagger misses those events; run `nagger install`)",
                missing.join(", ")
            ),
        );
    }
    let doubled: Vec<String> = entries
        .iter()
        .filter(|(e, list)| HOOK_EVENTS.contains(&e.as_str()) && list.len() > 1)
        .map(|(e, list)| format!("{e} ×{}", list.len()))
        .collect();
    if !doubled.is_empty() {
        fine = false;
        checks.push(
            "settings",
            Status::Warn,
            format!(
                "nagger runs more than once per event: {} (keep one entry, e.g. `nagger uninstall --local`)",
                doubled.join(", ")
            ),
        );
    }
    // Each distinct command once, with the files it is in.
    let mut commands: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (file, command) in entries.values().flatten() {
        let files = commands.entry(command.clone()).or_default();
        if !files.contains(file) {
            files.push(file.clone());
        }
    }
    let mut programs = Vec::new();
    for (command, in_files) in &commands {
        let program = install::hook_program(command).unwrap_or_default();
        match resolve_program(&program, root, home) {
            Ok(path) => programs.push(path.display().to_string()),
            Err(why) => {
                fine = false;
                checks.push(
                    "settings",
                    Status::Fail,
                    format!(
                        "`{command}` ({}) runs {program}, which {why}; run `nagger install` again",
                        in_files.join(", ")
                    ),
                );
            }
        }
    }
    if fine {
        programs.dedup();
        checks.push(
            "settings",
            Status::Ok,
            format!(
                "nagger hooks on all {} events ({}) run {}",
                HOOK_EVENTS.len(),
                entries
                    .values()
                    .flatten()
                    .map(|(f, _)| f.as_str())
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect::<Vec<_>>()
                    .join(", "),
                programs.join(", ")
            ),
        );
    }
}

/// Where a hook command's program is, as the shell Claude Code starts would find it; Err
/// says why it cannot run.
fn resolve_program(program: &str, root: &Path, home: Option<&Path>) -> Result<PathBuf, String> {
    if program.is_empty() {
        return Err("is empty".into());
    }
    let root_s = root.display().to_string();
    let home_s = home.map(|h| h.display().to_string());
    let mut expanded = program
        .replace("${CLAUDE_PROJECT_DIR}", &root_s)
        .replace("$CLAUDE_PROJECT_DIR", &root_s);
    if let Some(home) = &home_s {
        expanded = expanded.replace("${HOME}", home).replace("$HOME", home);
        if let Some(rest) = expanded.strip_prefix("~/") {
            expanded = format!("{home}/{rest}");
        }
    }
    if expanded.contains('$') {
        return Err("depends on a variable doctor cannot expand".into());
    }
    let path = PathBuf::from(&expanded);
    if expanded.contains('/') {
        let path = if path.is_relative() {
            root.join(path)
        } else {
            path
        };
        return executable(&path).map(|()| path);
    }
    let search = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&search)
        .map(|dir| dir.join(&expanded))
        .find(|candidate| executable(candidate).is_ok())
        .ok_or_else(|| "is not on PATH".to_string())
}

fn executable(path: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|_| "does not exist".to_string())?;
    if !meta.is_file() {
        return Err("is not a file".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err("is not executable".into());
        }
    }
    Ok(())
}

fn config_checks(config: &LoadedConfig, checks: &mut Checks) {
    let shown = config.path.display();
    if !config.present {
        checks.push(
            "config",
            Status::Warn,
            format!(
                "no {shown}: nagger runs on its defaults (`nagger install` writes the commented template)"
            ),
        );
    } else if config.errors.is_empty() {
        checks.push(
            "config",
            Status::Ok,
            format!("{shown} is valid (`nagger doctor --settings` shows every setting in force)"),
        );
    } else {
        for e in &config.errors {
            // An unknown key changes nothing; anything else means a setting, item, rule or
            // pattern the user wrote is not in force.
            let status = match e.problem {
                Problem::UnknownKey => Status::Warn,
                Problem::BadValue | Problem::BadPattern | Problem::Unreadable => Status::Fail,
            };
            checks.push("config", status, e.to_string());
        }
    }
}
