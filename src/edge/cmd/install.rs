//! `nagger install` / `nagger uninstall`: nagger's entries in Claude Code's settings.

use super::error::CommandResult;
use crate::base::output::Output;
use crate::base::paths::Env;
use crate::edge::cli::{InstallArgs, SettingsArgs};
use crate::edge::install::{self, InstallOptions, PORTABLE_COMMAND};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// This executable's own path, links resolved.
pub fn current_exe() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot find nagger's own path: {e}"))?;
    Ok(exe.canonicalize().unwrap_or(exe))
}

/// Which settings file gets which command. The shared `.claude/settings.json` only ever
/// gets `nagger hook`, which works on any machine with nagger on its PATH; a command
/// naming this machine's binary goes to the personal `.claude/settings.local.json`.
fn options(
    env: &Env,
    local: bool,
    settings: Option<PathBuf>,
    dry_run: bool,
    path_var: Option<&std::ffi::OsStr>,
) -> anyhow::Result<InstallOptions> {
    let root = env.project_root(None);
    let exe = current_exe()?;
    let on_path = install::find_on_path(path_var);
    let mut note = None;
    let (command, local) = if let Some(found) = &on_path {
        if !same_file(found, &exe) {
            note = Some(format!(
                "note: `nagger` on PATH is {}, not this binary ({}); the hook runs the one on PATH",
                found.display(),
                exe.display()
            ));
        }
        (PORTABLE_COMMAND.to_string(), local)
    } else {
        if settings.is_none() && !local {
            note = Some(format!(
                "nagger is not on PATH, so the hook command names this machine's binary ({}); \
                 it goes to the personal .claude/settings.local.json, not the shared \
                 .claude/settings.json. Put nagger on PATH and run `nagger install` again to share it.",
                exe.display()
            ));
        }
        (install::hook_command(&exe), true)
    };
    let pair = |name: &str| root.join(".claude").join(name);
    let also_clean = settings.is_none().then(|| {
        if local {
            pair("settings.json")
        } else {
            pair("settings.local.json")
        }
    });
    // Only entries naming a machine's binary are taken out of the shared file.
    let also_clean = also_clean.filter(|other| !(local && shared_is_portable(other)));
    let (client, client_note) = client_note(path_var);
    let note = match note {
        Some(note) => Some(format!("{note}\n{client_note}")),
        None => Some(client_note),
    };
    Ok(InstallOptions {
        project_root: root,
        settings_path: settings,
        local,
        dry_run,
        command,
        config_template: crate::domain::config::TEMPLATE,
        also_clean,
        note,
        client,
    })
}

/// The Claude Code on PATH, and what install says about the events it registers for it.
fn client_note(
    path_var: Option<&std::ffi::OsStr>,
) -> (Option<crate::base::event::ClientVersion>, String) {
    let newer: Vec<&str> = install::ALL_HOOK_EVENTS
        .iter()
        .copied()
        .filter(|e| !install::HOOK_EVENTS.contains(e))
        .collect();
    let Some((claude, version)) = install::detect_client(path_var) else {
        return (
            None,
            format!(
                "note: no `claude` on PATH: only the events every Claude Code knows are \
                 registered (not {}); run `nagger install` again where `claude` is on PATH",
                newer.join(", ")
            ),
        );
    };
    let Some(version) = version else {
        return (
            None,
            format!(
                "note: `{} --version` named no version: only the events every Claude Code \
                 knows are registered (not {})",
                claude.display(),
                newer.join(", ")
            ),
        );
    };
    let events = install::events_for(Some(version));
    let left_out: Vec<&str> = newer
        .iter()
        .copied()
        .filter(|e| !events.contains(e))
        .collect();
    let added: Vec<&str> = newer
        .iter()
        .copied()
        .filter(|e| events.contains(e))
        .collect();
    let mut note = format!("note: Claude Code {version} on PATH");
    if !left_out.is_empty() {
        let _ = write!(
            note,
            "; it does not know {}, which is not registered",
            left_out.join(", ")
        );
    }
    if !added.is_empty() {
        let _ = write!(
            note,
            "; {} registered for it. Claude Code older than 2.1.328 ignores every hook of a \
             settings file naming an event it does not know: every machine sharing this file \
             needs a client as new (or run `nagger install` where the oldest one is)",
            added.join(", ")
        );
    }
    (Some(version), note)
}

/// Whether the shared settings already run the portable `nagger hook` (a teammate's
/// install): left alone by a personal install on a machine without nagger on PATH.
fn shared_is_portable(path: &Path) -> bool {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .is_some_and(|v| {
            let found = install::find_nagger_entries(&v);
            !found.is_empty()
                && found
                    .values()
                    .flatten()
                    .all(|c| {
                        let parsed = crate::domain::guard::shell::parse(c);
                        matches!(&parsed.commands[..], [only] if only.name() == "nagger" && only.args() == ["hook"])
                    })
        })
}

fn same_file(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

pub fn install(env: &Env, args: &InstallArgs, out: &mut Output) -> CommandResult {
    let path_var = std::env::var_os("PATH");
    let target = &args.target;
    let opts = options(
        env,
        target.local,
        target.settings.clone(),
        target.dry_run,
        path_var.as_deref(),
    )?;
    let had_config = opts.config_path().exists();
    let report = install::install(&opts).map_err(anyhow::Error::from)?;
    print_report(target.dry_run, &report.diff, report.backup.as_deref(), out)?;
    // What claude-nagger left here: its database, its YAML config.
    let moved_over =
        super::import::after_install(env, &opts.project_root, had_config, target.dry_run)?;
    if !moved_over.is_empty() {
        out.line(&moved_over.join("\n"))?;
    }
    Ok(())
}

pub fn uninstall(env: &Env, args: &SettingsArgs, out: &mut Output) -> CommandResult {
    let root = env.project_root(None);
    // Without a file named, both project files: `install` picks the personal one by
    // itself when nagger is not on PATH.
    let targets: Vec<bool> = if args.settings.is_some() || args.local {
        vec![args.local]
    } else {
        vec![false, true]
    };
    let mut reports = Vec::new();
    for local in targets {
        let opts = InstallOptions {
            project_root: root.clone(),
            settings_path: args.settings.clone(),
            local,
            dry_run: args.dry_run,
            command: PORTABLE_COMMAND.to_string(),
            config_template: crate::domain::config::TEMPLATE,
            also_clean: None,
            note: None,
            client: None,
        };
        reports.push(install::uninstall(&opts).map_err(anyhow::Error::from)?);
    }
    let removed: Vec<&install::UninstallReport> =
        reports.iter().filter(|r| r.removed_entries > 0).collect();
    let shown: Vec<&install::UninstallReport> = if removed.is_empty() {
        reports.iter().collect()
    } else {
        removed
    };
    let diff: String = shown.iter().map(|r| r.diff.as_str()).collect();
    let backups: Vec<String> = shown
        .iter()
        .filter_map(|r| r.backup.as_ref())
        .map(|b| b.display().to_string())
        .collect();
    let mut lines = Vec::new();
    if args.dry_run {
        lines.push("dry run, nothing written:".to_string());
    }
    lines.push(diff.trim_end().to_string());
    for backup in backups {
        lines.push(format!("backup: {backup}"));
    }
    Ok(out.line(&lines.join("\n"))?)
}

fn print_report(
    dry_run: bool,
    diff: &str,
    backup: Option<&Path>,
    out: &mut Output,
) -> CommandResult {
    let mut lines = Vec::new();
    if dry_run {
        lines.push("dry run, nothing written:".to_string());
    }
    lines.push(diff.trim_end().to_string());
    if let Some(backup) = backup {
        lines.push(format!("backup: {}", backup.display()));
    }
    Ok(out.line(&lines.join("\n"))?)
}
