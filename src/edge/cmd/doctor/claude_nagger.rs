//! What is left of claude-nagger in the project: its database at nagger's path, the copy
//! nagger kept of it, its YAML config not yet imported, its hooks still in the settings.

use super::check::{Check, Checks, Status, plural};
use crate::domain::import::{self, ImportState, Sources};
use crate::storage::store::NaggerStateDB;
use crate::storage::store::foreign::{self, Foreign};
use std::path::Path;

/// The `database` line for a file nagger did not create at its path.
pub fn foreign_database(db_path: &Path, kind: Foreign) -> String {
    format!(
        "{} is {}, not nagger's: nagger never migrates it; the next hook run, `nagger install` or `nagger doctor --fix` keeps it unchanged beside it (as {}) and starts nagger's own",
        db_path.display(),
        kind.describe(),
        match kind {
            Foreign::ClaudeNagger => "state.db.claude-nagger",
            Foreign::OtherSqlite | Foreign::NotSqlite => "state.db.foreign-<time>",
        }
    )
}

/// `--fix`: the open that moves it aside.
pub fn fix_foreign(db_path: &Path) -> Result<String, String> {
    let db = NaggerStateDB::open(db_path).map_err(|e| format!("could not set it aside: {e}"))?;
    Ok(match &db.report().set_aside {
        Some(moved) => moved.to_string(),
        None => format!("{} is nagger's now", db_path.display()),
    })
}

/// The checks of what claude-nagger left.
pub fn check(root: &Path, db_path: &Path, settings: &[&Path]) -> Vec<Check> {
    let mut checks = Checks::default();
    let kept = foreign::set_aside_files(db_path);
    if !kept.is_empty() {
        let names: Vec<String> = kept
            .iter()
            .map(|(name, kind)| match kind {
                Foreign::ClaudeNagger => format!("{name} (claude-nagger's)"),
                Foreign::OtherSqlite | Foreign::NotSqlite => name.clone(),
            })
            .collect();
        checks.push(
            "set aside",
            Status::Ok,
            format!(
                "{} database{} nagger did not create, kept unchanged beside its own: {}; nagger does not use {}",
                kept.len(),
                plural(kept.len()),
                names.join(", "),
                if kept.len() == 1 { "it" } else { "them" }
            ),
        );
    }
    let dir = root.join(crate::edge::install::NAGGER_DIR);
    match Sources::read(&dir) {
        Err(e) => checks.push("claude-nagger", Status::Warn, format!("{e}")),
        Ok(sources) if sources.is_empty() => {}
        Ok(sources) => {
            let config = std::fs::read_to_string(dir.join("config.toml")).ok();
            let names: Vec<&str> = sources.files.iter().map(|(n, _)| *n).collect();
            match import::imported_state(config.as_deref(), &sources) {
                ImportState::Current => checks.push(
                    "claude-nagger",
                    Status::Ok,
                    format!("claude-nagger's {} imported into config.toml", names.join(", ")),
                ),
                ImportState::Changed => checks.push(
                    "claude-nagger",
                    Status::Warn,
                    format!(
                        "claude-nagger's {} changed since they were imported: `nagger import --dry-run` shows what the import would change",
                        names.join(", ")
                    ),
                ),
                ImportState::NotImported => checks.push(
                    "claude-nagger",
                    Status::Warn,
                    format!(
                        "claude-nagger's {} {} not imported: nagger does not read YAML; `nagger import` carries them into config.toml (`--dry-run` first)",
                        names.join(", "),
                        if names.len() == 1 { "is" } else { "are" }
                    ),
                ),
            }
        }
    }
    for path in settings {
        let found = crate::edge::install::claude_nagger_commands(path);
        if !found.is_empty() {
            checks.push(
                "claude-nagger",
                Status::Warn,
                format!(
                    "{} still runs claude-nagger's hooks ({}): they would write their own tables into nagger's database; `nagger install` takes them out",
                    path.display(),
                    found.join(", ")
                ),
            );
        }
    }
    checks.0
}
