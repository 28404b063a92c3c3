//! `nagger install` / `nagger uninstall`: nagger's entries in Claude Code's settings.

use super::CommandResult;
use crate::cli::InstallArgs;
use crate::install::{self, InstallOptions};
use crate::paths::Env;

fn options(env: &Env, args: &InstallArgs) -> anyhow::Result<InstallOptions> {
    let exe = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot find nagger's own path: {e}"))?;
    let exe = exe.canonicalize().unwrap_or(exe);
    Ok(InstallOptions {
        project_root: env.project_root(None),
        settings_path: args.settings.clone(),
        local: args.local,
        dry_run: args.dry_run,
        command: install::hook_command(&exe),
        config_template: crate::config::TEMPLATE,
    })
}

pub fn install(env: &Env, args: &InstallArgs) -> CommandResult {
    let report = install::install(&options(env, args)?).map_err(anyhow::Error::from)?;
    print_report(args, &report.diff, report.backup.as_deref());
    Ok(())
}

pub fn uninstall(env: &Env, args: &InstallArgs) -> CommandResult {
    let report = install::uninstall(&options(env, args)?).map_err(anyhow::Error::from)?;
    print_report(args, &report.diff, report.backup.as_deref());
    Ok(())
}

fn print_report(args: &InstallArgs, diff: &str, backup: Option<&std::path::Path>) {
    if args.dry_run {
        println!("dry run, nothing written:");
    }
    println!("{}", diff.trim_end());
    if let Some(backup) = backup {
        println!("backup: {}", backup.display());
    }
}
