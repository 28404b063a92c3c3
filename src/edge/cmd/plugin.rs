//! `nagger plugin DIR` (and `nagger install --plugin DIR`): a Claude Code plugin folder
//! that runs nagger's hooks.

use super::error::CommandResult;
use crate::base::output::Output;
use std::path::Path;

pub fn run(dir: &Path, dry_run: bool, out: &mut Output) -> CommandResult {
    let on_path = crate::edge::install::find_on_path(std::env::var_os("PATH").as_deref());
    let exe = super::install::current_exe()?;
    let binary = on_path.is_none().then_some(exe.as_path());
    let report =
        crate::edge::install::write_plugin(dir, binary, dry_run).map_err(anyhow::Error::from)?;
    Ok(out.line(report.trim_end())?)
}
