//! `nagger doctor`: one line per check (ok / warn / FAIL) of the state database, its schema,
//! Claude Code's settings and nagger's config; exit 1 on any FAIL. Without `--fix` it
//! changes nothing, and never creates a database. `--fix` repairs what nagger owns (the
//! database) and says what it did; settings and config stay the user's to edit.
//!
//! `database` and `settings` hold the checks (each returns its results as data), `fix`
//! the repairs of `--fix`, `render` the human and `--json` reports.

mod database;
mod fix;
mod render;
mod settings;

use super::error::{CommandError, CommandResult};
use crate::base::output::Output;
use crate::base::paths::{self, Env};
use crate::domain::config::LoadedConfig;
use crate::edge::cli::DoctorArgs;
use crate::storage::store::{self, NaggerStateDB};
use std::path::{Path, PathBuf};

const HOUR_MS: i64 = 3_600_000;

/// How a check came out: only `Fail` makes doctor exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    Warn,
    Fail,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
        }
    }

    fn json(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "fail",
        }
    }
}

/// One check's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub name: &'static str,
    pub status: Status,
    pub message: String,
}

/// The results of a group of checks, in the order they were made.
#[derive(Default)]
struct Checks(Vec<Check>);

impl Checks {
    fn push(&mut self, name: &'static str, status: Status, message: impl Into<String>) {
        self.0.push(Check {
            name,
            status,
            message: message.into(),
        });
    }
}

/// What `--fix` did (or failed to do).
pub struct Fix {
    pub check: &'static str,
    pub action: String,
    pub done: bool,
}

/// Everything doctor found (and `--fix` did), ready to be shown.
pub struct Report {
    pub fixes: Vec<Fix>,
    pub checks: Vec<Check>,
    pub db_path: String,
    pub config_path: String,
    /// The settings in force, defaults included.
    pub settings: serde_json::Value,
}

impl Report {
    fn count(&self, status: Status) -> usize {
        self.checks.iter().filter(|c| c.status == status).count()
    }
}

pub fn run(env: &Env, args: &DoctorArgs, out: &mut Output) -> CommandResult {
    let root = env.project_root(None);
    let db_path = env.db_path(&root);
    let config = LoadedConfig::load_full(&paths::config_path(&root));
    let ttl_ms = store::hours_ms(config.config.context.ttl_hours);
    let retention_ms = store::hours_ms(config.config.log.retention_days.saturating_mul(24));

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
    checks.extend(settings::check_config(&config));
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

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// When nagger last ran a hook here (unix ms), read without changing the database.
fn last_hook_run(db_path: &Path) -> Option<i64> {
    let db = NaggerStateDB::open_read_only(db_path).ok()??;
    db.last_hook_run().ok().flatten()
}
