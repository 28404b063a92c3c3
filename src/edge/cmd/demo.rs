//! `nagger demo`: plays a whole multi-agent session through `nagger hook` in a
//! temporary project and exits non-zero when any flow misbehaved.

use super::error::{CommandError, CommandResult};
use crate::base::output::Output;
use crate::edge::cli::DemoArgs;

pub fn run(args: &DemoArgs, out: &mut Output) -> CommandResult {
    let exe = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot find nagger's own executable: {e}"))?;
    let report = crate::edge::demo::run(&exe, args.keep)?;
    if report.output_lost {
        return Err(CommandError::BrokenPipe);
    }
    out.line("")?;
    match &report.kept {
        Some(kept) => out.line(&format!(
            "project kept at {}\n(its transcript: {}; remove {} when done)",
            kept.project.display(),
            kept.transcript.display(),
            kept.folder.display()
        ))?,
        None => out.line(
            "the temporary project is gone; `nagger demo --keep` keeps it (config, transcripts, state.db) to look at",
        )?,
    }
    if report.failures.is_empty() {
        out.line(&format!("demo: all {} checks passed", report.checks))?;
        Ok(())
    } else {
        Err(CommandError::Problems(format!(
            "demo: {} of {} checks failed: {}",
            report.failures.len(),
            report.checks,
            report.failures.join("; ")
        )))
    }
}
