//! The checks of what nagger does not own: Claude Code's settings (is nagger's hook
//! there, on every event, once, and can its program run?) and nagger's config.

use super::check::{Check, Checks, HOUR_MS, Status};
use crate::domain::config::{LoadedConfig, Problem};
use crate::edge::install::{self, HOOK_EVENTS};
use crate::storage::store::now_ms;
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

/// Longest a config may take to read with every pattern built before a hook, which builds
/// the patterns a call needs within the time it answers in, runs short.
const SLOW_CONFIG: std::time::Duration = std::time::Duration::from_millis(300);

/// A warning when reading the config with every pattern built took `took`, longer than a
/// hook can spend on it.
pub fn check_config_time(took: std::time::Duration) -> Vec<Check> {
    let mut checks = Checks::default();
    if took > SLOW_CONFIG {
        checks.push(
            "config",
            Status::Warn,
            format!(
                "reading the config and building its patterns took {} ms: a hook answers \
                 within {} ms, so its block and ask rules may not be checked in time and \
                 tool calls are then asked about. Simplify the slowest patterns (regexes with \
                 large Unicode classes repeated, such as `\\w{{12}}` or `\\p{{L}}{{4}}`)",
                took.as_millis(),
                crate::edge::hook::deadline_limit_ms()
            ),
        );
    }
    checks.0
}

/// The events nagger has an entry for in the settings files Claude Code reads.
pub fn registered_events(root: &Path, home: Option<&Path>) -> std::collections::BTreeSet<String> {
    let mut events = std::collections::BTreeSet::new();
    for file in settings_files(root, home) {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        events.extend(install::find_nagger_entries(&value).into_keys());
    }
    events
}

/// The programs nagger's hook entries run, found as the shell Claude Code starts would
/// find them, project settings first: the nagger `check` answers for, which may not be the
/// one running it.
pub fn nagger_programs(root: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut programs = Vec::new();
    for file in settings_files(root, home) {
        let Some(value) = read_settings(&file) else {
            continue;
        };
        for command in install::find_nagger_entries(&value).into_values().flatten() {
            if let Some(found) = install::hook_program(&command)
                .and_then(|program| resolve_program(&program, root, home).ok())
                && !programs.contains(&found)
            {
                programs.push(found);
            }
        }
    }
    programs
}

/// A settings file's JSON, read bounded and without waiting on a special file.
fn read_settings(file: &Path) -> Option<serde_json::Value> {
    let file = crate::base::files::open_regular(file).ok()?;
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut std::io::Read::take(file, MAX_SETTINGS_BYTES),
        &mut text,
    )
    .ok()?;
    serde_json::from_str(&text).ok()
}

/// Most bytes of a settings file read for its hook entries.
const MAX_SETTINGS_BYTES: u64 = 4 * 1024 * 1024;

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
            // An unknown key elsewhere changes nothing; anything else means a setting,
            // item, rule or pattern the user wrote is not in force, and an unknown key in
            // a rule or the guard may be what the user meant to refuse with.
            let status = match e.problem {
                Problem::UnknownKey if !e.may_weaken => Status::Warn,
                Problem::UnknownKey
                | Problem::BadValue
                | Problem::BadPattern
                | Problem::Unreadable => Status::Fail,
            };
            checks.push("config", status, e.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_slower_to_read_than_a_hook_can_wait_is_a_warning() {
        assert!(check_config_time(std::time::Duration::from_millis(40)).is_empty());
        let slow = check_config_time(std::time::Duration::from_millis(2300));
        assert_eq!(slow.len(), 1);
        assert_eq!(slow[0].status, Status::Warn);
        assert!(
            slow[0].message.contains("took 2300 ms"),
            "{}",
            slow[0].message
        );
    }

    /// A project with an executable `bin/nagger` and nothing else.
    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        let exe = bin.join("nagger");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        dir
    }

    /// Settings running `command` on `events`.
    fn write_settings(root: &Path, events: &[&str], command: &str) {
        let hooks: serde_json::Map<String, serde_json::Value> = events
            .iter()
            .map(|e| {
                (
                    e.to_string(),
                    json!([{"hooks": [{"type": "command", "command": command}]}]),
                )
            })
            .collect();
        std::fs::write(
            root.join(".claude/settings.json"),
            json!({ "hooks": hooks }).to_string(),
        )
        .unwrap();
    }

    fn one(checks: Vec<Check>) -> Check {
        assert_eq!(checks.len(), 1, "{checks:#?}");
        checks.into_iter().next().unwrap()
    }

    #[test]
    fn no_settings_means_claude_code_never_runs_nagger() {
        let p = project();
        let c = one(check_settings(p.path(), None, None));
        assert_eq!(c.status, Status::Fail);
        assert!(
            c.message.ends_with("(run `nagger install`)"),
            "{}",
            c.message
        );
        assert!(c.message.contains("(none exists)"), "{}", c.message);
    }

    #[test]
    fn hooks_that_ran_today_without_an_entry_may_come_from_a_plugin() {
        let p = project();
        let c = one(check_settings(p.path(), None, Some(now_ms() - 1_000)));
        assert_eq!(c.status, Status::Warn);
        assert!(c.message.contains("plugin"), "{}", c.message);
    }

    #[test]
    fn every_event_running_a_program_that_exists_passes() {
        let p = project();
        write_settings(p.path(), HOOK_EVENTS, "$CLAUDE_PROJECT_DIR/bin/nagger hook");
        let c = one(check_settings(p.path(), None, None));
        assert_eq!(c.status, Status::Ok, "{}", c.message);
        assert!(
            c.message.starts_with(&format!(
                "nagger hooks on all {} events (.claude/settings.json) run ",
                HOOK_EVENTS.len()
            )),
            "{}",
            c.message
        );
    }

    #[test]
    fn a_missing_event_and_a_program_that_is_gone_are_named() {
        let p = project();
        write_settings(p.path(), &HOOK_EVENTS[1..], "/no/such/nagger hook");
        let checks = check_settings(p.path(), None, None);
        let messages: Vec<&str> = checks.iter().map(|c| c.message.as_str()).collect();
        assert!(
            checks.iter().all(|c| c.status == Status::Fail),
            "{checks:#?}"
        );
        assert!(
            messages[0].starts_with(&format!("no nagger entry for {}", HOOK_EVENTS[0])),
            "{messages:?}"
        );
        assert!(
            messages[1].contains("runs /no/such/nagger, which does not exist"),
            "{messages:?}"
        );
    }

    #[test]
    fn settings_that_are_not_json_fail_with_their_position() {
        let p = project();
        std::fs::write(
            p.path().join(".claude/settings.json"),
            "{\n  \"hooks\": ,\n}",
        )
        .unwrap();
        let checks = check_settings(p.path(), None, None);
        assert_eq!(checks[0].status, Status::Fail);
        assert!(
            checks[0]
                .message
                .starts_with(".claude/settings.json is not valid JSON (line 2,"),
            "{}",
            checks[0].message
        );
    }

    #[test]
    fn a_program_is_found_as_the_shell_would_find_it() {
        let p = project();
        let root = p.path();
        assert_eq!(
            resolve_program("bin/nagger", root, None),
            Ok(root.join("bin/nagger"))
        );
        assert_eq!(
            resolve_program("~/bin/nagger", root, Some(root)),
            Ok(root.join("bin/nagger"))
        );
        assert_eq!(
            resolve_program("$NAGGER_HOME/nagger", root, None),
            Err("depends on a variable doctor cannot expand".into())
        );
        assert_eq!(resolve_program("", root, None), Err("is empty".into()));
        assert_eq!(
            resolve_program("./bin", root, None),
            Err("is not a file".into())
        );
        #[cfg(unix)]
        {
            std::fs::write(root.join("bin/plain"), "").unwrap();
            assert_eq!(
                resolve_program("./bin/plain", root, None),
                Err("is not executable".into())
            );
        }
    }

    #[test]
    fn the_config_is_fine_missing_or_named_with_each_problem() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let missing = one(check_config(&LoadedConfig::load_full(&path)));
        assert_eq!(missing.status, Status::Warn);
        assert!(missing.message.contains("runs on its defaults"));

        std::fs::write(&path, "").unwrap();
        let fine = one(check_config(&LoadedConfig::load_full(&path)));
        assert_eq!(fine.status, Status::Ok, "{}", fine.message);

        std::fs::write(&path, "[log]\nretention_days = \"soon\"\nno_such_key = 1\n").unwrap();
        let problems = check_config(&LoadedConfig::load_full(&path));
        let statuses: Vec<Status> = problems.iter().map(|c| c.status).collect();
        assert!(statuses.contains(&Status::Fail), "{problems:#?}");
    }
}
