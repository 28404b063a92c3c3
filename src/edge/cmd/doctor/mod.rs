//! `nagger doctor`: one line per check (ok / warn / FAIL) of the state database, its schema,
//! Claude Code's settings and nagger's config; exit 1 on any FAIL. Without `--fix` it
//! changes nothing, and never creates a database. `--fix` repairs what nagger owns (the
//! database) and says what it did; settings and config stay the user's to edit.
//!
//! `check` holds what a check and a fix report, `database` and `settings` the checks
//! (each returns its results as data), `fix` the repairs of `--fix`, `render` the human
//! and `--json` reports.

mod check;
mod claude_nagger;
mod client;
mod database;
mod fix;
mod render;
mod settings;
mod trust;

pub use settings::nagger_programs;

use super::error::{CommandError, CommandResult};
use crate::base::num::hours_ms;
use crate::base::output::Output;
use crate::base::paths::{self, Env};
use crate::domain::config::LoadedConfig;
use crate::edge::cli::DoctorArgs;
use crate::storage::store::NaggerStateDB;
use check::{Report, Status, plural};
use std::path::{Path, PathBuf};

pub fn run(env: &Env, args: &DoctorArgs, out: &mut Output) -> CommandResult {
    let root = env.project_root(None);
    let db_path = env.db_path(&root);
    let reading = std::time::Instant::now();
    let mut config = LoadedConfig::load_full(&paths::config_path(&root));
    let read_in = reading.elapsed();
    // The settings in force: the config, raised to what the user last trusted.
    let trust = crate::domain::trust::settle(
        &mut config.config,
        &config.path,
        crate::domain::trust::Ratchet::ReadOnly,
    );
    let ttl_ms = hours_ms(config.config.context.ttl_hours);
    let retention_ms = hours_ms(config.config.log.retention_days.saturating_mul(24));

    let fixes = if args.fix {
        fix::fix(&db_path, ttl_ms, retention_ms)
    } else {
        Vec::new()
    };
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let mut checks = database::check(&db_path, ttl_ms);
    checks.extend(settings::check_settings(
        &root,
        home.as_deref(),
        last_hook_run(&db_path),
    ));
    checks.extend(client::check_client(
        std::env::var_os("PATH").as_deref(),
        &settings::registered_events(&root, home.as_deref()),
    ));
    checks.extend(settings::check_config(&config));
    checks.extend(settings::check_config_time(read_in));
    let claude = root.join(".claude");
    checks.extend(claude_nagger::check(
        &root,
        &db_path,
        &[
            &claude.join("settings.json"),
            &claude.join("settings.local.json"),
        ],
    ));
    checks.extend(trust::check_trust(&trust));
    let report = Report {
        fixes,
        checks,
        db_path: db_path.display().to_string(),
        config_path: config.path.display().to_string(),
        settings: config.config.effective(),
    };

    if args.json {
        out.json(&render::json(&report))?;
    } else {
        out.line(&render::human(&report, args.settings))?;
    }
    match report.count(Status::Fail) {
        0 => Ok(()),
        problems => Err(CommandError::Problems(format!(
            "{problems} problem{} found",
            plural(problems)
        ))),
    }
}

/// When nagger last ran a hook here (unix ms), read without changing the database.
fn last_hook_run(db_path: &Path) -> Option<i64> {
    let db = NaggerStateDB::open_read_only(db_path).ok()??;
    db.last_hook_run().ok().flatten()
}
