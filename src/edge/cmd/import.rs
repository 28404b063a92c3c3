//! `nagger import [--dry-run]`: claude-nagger's YAML config into `.claude-nagger/config.toml`,
//! with a report of every entry carried over, changed or dropped. An existing config.toml
//! is merged into, never overwritten: a key the user set otherwise is a conflict, and
//! then nothing is written. `nagger install` runs the same import when it finds
//! claude-nagger's files and no config.toml yet, and sets claude-nagger's database aside.

use super::error::{CommandError, CommandResult};
use crate::base::output::Output;
use crate::base::paths::{self, Env};
use crate::domain::import::{self, Sources};
use crate::edge::cli::ImportArgs;
use crate::storage::store::NaggerStateDB;
use crate::storage::store::health::{self, Inspection};
use std::path::Path;

pub fn run(env: &Env, args: &ImportArgs, out: &mut Output) -> CommandResult {
    let root = env.project_root(None);
    let dir = root.join(crate::edge::install::NAGGER_DIR);
    let sources = Sources::read(&dir).map_err(anyhow::Error::from)?;
    if sources.is_empty() {
        return Err(CommandError::Problems(format!(
            "no claude-nagger config in {} (looked for {})",
            dir.display(),
            import::YAML_FILES.join(", ")
        )));
    }
    let config_path = paths::config_path(&root);
    let existing = read_config(&config_path)?;
    let lines = import_into(
        &sources,
        &dir,
        &config_path,
        existing.as_deref(),
        args.dry_run,
    )?;
    out.line(&lines.join("\n"))?;
    Ok(())
}

fn read_config(path: &Path) -> Result<Option<String>, CommandError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(anyhow::anyhow!("reading {}: {e}", path.display()).into()),
    }
}

/// Converts, merges and (unless `dry_run`) writes; returns the lines to print. A conflict
/// is an error carrying the report and the conflicts.
fn import_into(
    sources: &Sources,
    dir: &Path,
    config_path: &Path,
    existing: Option<&str>,
    dry_run: bool,
) -> Result<Vec<String>, CommandError> {
    let imported = import::convert(sources, dir).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut lines = vec![format!(
        "claude-nagger's {} in {}:",
        sources
            .files
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", "),
        dir.display()
    )];
    lines.extend(imported.report.iter().map(|e| format!("  {e}")));
    let merged = match import::merge(existing, crate::domain::config::TEMPLATE, &imported) {
        Ok(merged) => merged,
        Err(conflicts) => {
            lines.push(format!(
                "{} already sets {} the import would set otherwise; nothing written (edit or remove {} and import again):",
                config_path.display(),
                if conflicts.len() == 1 { "a key" } else { "keys" },
                if conflicts.len() == 1 { "it" } else { "them" },
            ));
            lines.extend(conflicts.iter().map(|c| format!("  {c}")));
            return Err(CommandError::Problems(lines.join("\n")));
        }
    };
    if merged.changes.is_empty() {
        lines.push(format!(
            "nothing to change: {} already holds this import",
            config_path.display()
        ));
        return Ok(lines);
    }
    let verb = match (dry_run, existing.is_some()) {
        (true, true) => "would update",
        (true, false) => "would create",
        (false, true) => "update",
        (false, false) => "create",
    };
    lines.push(format!("{verb} {}:", config_path.display()));
    lines.extend(merged.changes.iter().map(|c| format!("  {c}")));
    if dry_run {
        lines.push("dry run, nothing written".into());
        return Ok(lines);
    }
    if let Some(old) = existing {
        let backup = back_up(dir, old)?;
        lines.push(format!("backup: {}", backup.display()));
    }
    write_atomically(config_path, &merged.text)?;
    Ok(lines)
}

fn back_up(dir: &Path, text: &str) -> Result<std::path::PathBuf, CommandError> {
    let backups = dir.join(crate::edge::install::BACKUP_DIR);
    std::fs::create_dir_all(&backups)
        .map_err(|e| anyhow::anyhow!("creating {}: {e}", backups.display()))?;
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%3fZ");
    let path = backups.join(format!("config.toml.{stamp}"));
    std::fs::write(&path, text).map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    Ok(path)
}

fn write_atomically(path: &Path, text: &str) -> Result<(), CommandError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("creating {}: {e}", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    std::io::Write::write_all(&mut tmp, text.as_bytes())
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    Ok(())
}

/// What `nagger install` adds when claude-nagger was here: its database set aside (or,
/// with `dry_run`, what would be), and its YAML imported when there was no config.toml
/// before this install (`had_config`): a user moving over has no nagger config, and the
/// YAML is what nags today. With a config.toml already there the import is left to
/// `nagger import`, which shows its merge first.
pub fn after_install(
    env: &Env,
    root: &Path,
    had_config: bool,
    dry_run: bool,
) -> Result<Vec<String>, CommandError> {
    let mut lines = Vec::new();
    let db_path = env.db_path(root);
    if dry_run {
        if let Ok(Inspection::Foreign(kind)) = health::inspect(&db_path) {
            lines.push(format!(
                "would keep {} ({}) unchanged beside it and start nagger's own database",
                db_path.display(),
                kind.describe()
            ));
        }
    } else if db_path.exists()
        && let Ok(Inspection::Foreign(_)) = health::inspect(&db_path)
    {
        let db = NaggerStateDB::open(&db_path).map_err(anyhow::Error::from)?;
        if let Some(moved) = &db.report().set_aside {
            lines.push(moved.to_string());
        }
    }
    let dir = root.join(crate::edge::install::NAGGER_DIR);
    let sources = Sources::read(&dir).map_err(anyhow::Error::from)?;
    if sources.is_empty() {
        return Ok(lines);
    }
    let config_path = paths::config_path(root);
    if had_config {
        let existing = read_config(&config_path)?;
        if import::imported_state(existing.as_deref(), &sources) != import::ImportState::Current {
            lines.push(format!(
                "claude-nagger's YAML config is not imported: {} exists, so `nagger import --dry-run` shows the merge and `nagger import` makes it",
                config_path.display()
            ));
        }
        return Ok(lines);
    }
    // The template install just wrote (or, in a dry run, would write).
    let existing = if dry_run {
        None
    } else {
        read_config(&config_path)?
    };
    lines.push("importing claude-nagger's config (no config.toml was here):".into());
    lines.extend(
        import_into(&sources, &dir, &config_path, existing.as_deref(), dry_run)?
            .into_iter()
            .map(|l| format!("  {l}")),
    );
    Ok(lines)
}
