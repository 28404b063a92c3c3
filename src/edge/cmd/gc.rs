//! `nagger gc`: purge expired state now, or with `--dry-run` say what would go.

use super::common::no_database;
use super::error::CommandResult;
use crate::base::num::hours_ms;
use crate::base::output::Output;
use crate::base::paths::{self, Env};
use crate::domain::config::LoadedConfig;
use crate::edge::cli::GcArgs;
use crate::storage::store::NaggerStateDB;
use serde_json::json;

pub fn run(env: &Env, args: &GcArgs, out: &mut Output) -> CommandResult {
    let root = env.project_root(None);
    let config = LoadedConfig::load(&paths::config_path(&root)).config;
    let (ttl_h, retention_d) = (config.context.ttl_hours, config.log.retention_days);
    let Some(db) =
        NaggerStateDB::open_read_only(&env.db_path(&root)).map_err(anyhow::Error::from)?
    else {
        return Ok(out.line(&if args.json {
            json!({"dry_run": args.dry_run, "database": null, "removed": {}, "total": 0})
                .to_string()
        } else {
            format!("nothing to purge: {}", no_database(env))
        })?);
    };
    // A dry run purges a copy in memory; a real one reopens the file for writing.
    let target = if args.dry_run {
        db.in_memory_copy().map_err(anyhow::Error::from)?
    } else {
        drop(db);
        super::common::open_db(env)?
    };
    let removed = target
        .sessions()
        .purge_expired(hours_ms(ttl_h), hours_ms(retention_d.saturating_mul(24)))
        .map_err(anyhow::Error::from)?;
    let total: usize = removed.iter().map(|(_, n)| n).sum();
    let verb = if args.dry_run {
        "would be removed"
    } else {
        "removed"
    };
    if args.json {
        let by_table: serde_json::Map<String, serde_json::Value> = removed
            .iter()
            .map(|(t, n)| (t.to_string(), json!(n)))
            .collect();
        return Ok(out.json(&json!({
            "dry_run": args.dry_run,
            "database": env.db_path(&root).display().to_string(),
            "ttl_hours": ttl_h,
            "log_retention_days": retention_d,
            "removed": by_table,
            "total": total,
        }))?);
    }
    let mut lines = Vec::new();
    if total == 0 {
        lines.push(format!(
            "nothing to purge (sessions ended over {ttl_h}h ago, log older than {retention_d}d)"
        ));
    } else {
        for (table, n) in removed.iter().filter(|(_, n)| *n > 0) {
            lines.push(format!("{table:<20} {n} {verb}"));
        }
        lines.push(format!("{:<20} {total} {verb}", "total"));
        if args.dry_run {
            lines.push("dry run: nothing was deleted".into());
        }
    }
    Ok(out.line(&lines.join("\n"))?)
}
