//! `nagger ui`: serves the read-only dashboard until stopped.

use super::error::CommandResult;
use crate::base::paths::Env;
use crate::edge::cli::UiArgs;

pub fn run(env: &Env, args: &UiArgs) -> CommandResult {
    crate::edge::ui::run(
        env,
        &crate::edge::ui::Options {
            port: args.port.unwrap_or(0),
            open: args.open,
        },
    )?;
    Ok(())
}
