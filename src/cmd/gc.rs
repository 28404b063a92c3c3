//! `nagger gc`: purge expired state now.

use super::{CommandResult, open_existing_db, print};
use crate::config::LoadedConfig;
use crate::paths::{self, Env};

pub fn run(env: &Env) -> CommandResult {
    let root = env.project_root(None);
    let config = LoadedConfig::load(&paths::config_path(&root)).config;
    let Some(db) = open_existing_db(env)? else {
        return print("nothing to purge: no database yet");
    };
    const HOUR_MS: i64 = 3_600_000;
    let removed = db
        .sessions()
        .purge_expired(
            config.context.ttl_hours as i64 * HOUR_MS,
            config.log.retention_days as i64 * 24 * HOUR_MS,
        )
        .map_err(anyhow::Error::from)?;
    let total: usize = removed.iter().map(|(_, n)| n).sum();
    if total == 0 {
        println!(
            "nothing to purge (ttl {}h, log retention {}d)",
            config.context.ttl_hours, config.log.retention_days
        );
    } else {
        for (table, n) in removed.iter().filter(|(_, n)| *n > 0) {
            println!("{table:<20} {n} removed");
        }
        println!("{:<20} {total} removed", "total");
    }
    Ok(())
}
