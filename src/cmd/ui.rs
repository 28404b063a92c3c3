//! `nagger ui`: serves the read-only dashboard until stopped.

use super::CommandResult;
use crate::cli::UiArgs;
use crate::paths::Env;

pub fn run(env: &Env, args: &UiArgs) -> CommandResult {
    crate::ui::run(
        env,
        &crate::ui::Options {
            port: args.port.unwrap_or(0),
            open: args.open,
        },
    )?;
    Ok(())
}
