//! The settings in force: the config combined with the trusted snapshot, the stronger
//! on every element, and what of the config is held back until the user confirms it.
//! A hook run also ratchets the snapshot up to a config that only strengthens it.

use std::path::{Path, PathBuf};

use super::projection::{Projection, SafetyRule, Weakening, uncovered};
use super::snapshot;
use crate::domain::config::Config;

/// Whether settling may write the snapshot (a hook run) or only reads (a command).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ratchet {
    /// Write the snapshot when the config makes it stronger.
    Write,
    /// Change no file.
    ReadOnly,
}

/// What the snapshot was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotState {
    /// Read and in force.
    Present,
    /// None yet: the built-in defaults are trusted.
    Missing,
    /// It cannot be read or parsed (why): the built-in defaults are trusted.
    Unreadable(String),
}

/// How the config and the trusted settings met.
#[derive(Debug, Clone)]
pub struct TrustReport {
    /// Where the snapshot is.
    pub path: PathBuf,
    pub snapshot: SnapshotState,
    /// What the config weakens and is not in force until the user runs `nagger trust`.
    pub held_back: Vec<Weakening>,
    /// The snapshot could not be written (why).
    pub write_error: Option<String>,
}

impl TrustReport {
    /// The held-back weakenings, joined: `guard off; `[guard] allow` gains `rm *``.
    pub fn summary(&self) -> Option<String> {
        if self.held_back.is_empty() {
            return None;
        }
        let all: Vec<String> = self.held_back.iter().map(ToString::to_string).collect();
        Some(crate::base::text::one_line(&all.join("; "), 300))
    }

    /// The line a deny reason ends with while settings are held back.
    pub fn pending_line(&self) -> Option<String> {
        self.summary().map(|s| {
            format!(
                "[nagger] the config weakens safety ({s}) and waits for your confirmation: run `nagger trust` in your terminal"
            )
        })
    }
}

/// What is trusted: the snapshot at `path`, or the defaults (and why).
pub fn trusted(path: &Path) -> (Projection, SnapshotState) {
    match snapshot::read_text(path) {
        Ok(text) => match snapshot::parse(&text) {
            Ok(p) => (p, SnapshotState::Present),
            Err(e) => (Projection::defaults(), SnapshotState::Unreadable(e)),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            (Projection::defaults(), SnapshotState::Missing)
        }
        Err(e) => (
            Projection::defaults(),
            SnapshotState::Unreadable(e.to_string()),
        ),
    }
}

/// Turns `config` into the settings in force: its own combined with the trusted
/// snapshot of `config_path` (the stronger on every element). With [`Ratchet::Write`]
/// the snapshot is raised to that combination when it is stronger than the snapshot;
/// an unreadable snapshot is left for the user to look at.
///
/// The quiet path (the config's projection is the snapshot's) reads the snapshot's
/// header and nothing more.
pub fn settle(config: &mut Config, config_path: &Path, ratchet: Ratchet) -> TrustReport {
    let path = snapshot::snapshot_path(config_path);
    let digest = Projection::digest_of(&config.guard, &config.rules);
    let mut report = TrustReport {
        path,
        snapshot: SnapshotState::Present,
        held_back: Vec::new(),
        write_error: None,
    };
    if let Ok(Some(stored)) = snapshot::read_digest(&report.path)
        && stored == digest
    {
        return report;
    }
    let mut stored = None;
    let (trusted, state) = match snapshot::read_text(&report.path) {
        Ok(text) => {
            stored = snapshot::stored_digest(&text);
            match snapshot::parse(&text) {
                Ok(p) => (p, SnapshotState::Present),
                Err(e) => (Projection::defaults(), SnapshotState::Unreadable(e)),
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let defaults = Projection::defaults();
            if defaults.digest() == digest {
                report.snapshot = SnapshotState::Missing;
                return report;
            }
            (defaults, SnapshotState::Missing)
        }
        Err(e) => (
            Projection::defaults(),
            SnapshotState::Unreadable(e.to_string()),
        ),
    };
    report.snapshot = state;
    let current = Projection::of(&config.guard, &config.rules);
    report.held_back = current.weakenings(&trusted);
    if !report.held_back.is_empty() {
        apply(config, &trusted);
    }
    if ratchet == Ratchet::Write && !matches!(report.snapshot, SnapshotState::Unreadable(_)) {
        // The combination differs from the snapshot where the config is stronger.
        let stronger = !trusted.weakenings(&current).is_empty();
        // A snapshot whose digest is not its own (edited by hand, or written by another
        // build) is rewritten once too.
        let stale = report.snapshot == SnapshotState::Present && stored != Some(trusted.digest());
        if (stale || stronger) && report.path.parent().is_some_and(Path::is_dir) {
            match snapshot::write(&report.path, &current.combine(&trusted)) {
                Ok(()) => report.snapshot = SnapshotState::Present,
                Err(e) => report.write_error = Some(e.to_string()),
            }
        }
    }
    report
}

/// Raises `config` to `trusted` wherever it is weaker, keeping its own order: the guard
/// on, trusted deny patterns, secrets and shell tools added, allow entries and secret
/// exemptions the snapshot lacks dropped, trusted deny and block rules the config no
/// longer has (or has softened) added back, under a name of their own when theirs is
/// taken.
pub fn apply(config: &mut Config, trusted: &Projection) {
    let guard = &mut config.guard;
    guard.enabled |= trusted.enabled;
    add_missing(&mut guard.deny, &trusted.deny);
    guard.allow.retain(|a| trusted.allow.contains(a));
    // Exemptions as the projection combines them: both sides' where both check secrets.
    let own_check = guard.secrets.iter().any(|s| !s.starts_with('!'));
    if !trusted.secrets.is_empty() {
        if own_check {
            guard
                .secrets
                .retain(|s| !s.starts_with('!') || trusted.secret_exemptions.contains(s));
        } else {
            guard.secrets.clear();
            guard
                .secrets
                .extend(trusted.secret_exemptions.iter().cloned());
        }
    }
    add_missing(&mut guard.secrets, &trusted.secrets);
    add_missing(&mut guard.shell_tools, &trusted.shell_tools);
    add_rules(&mut config.rules.file, &trusted.file);
    add_rules(&mut config.rules.command, &trusted.command);
    add_rules(&mut config.rules.tool, &trusted.tool);
}

fn add_missing(list: &mut Vec<String>, trusted: &std::collections::BTreeSet<String>) {
    for item in trusted {
        if !list.contains(item) {
            list.push(item.clone());
        }
    }
}

fn add_rules<R: SafetyRule>(rules: &mut Vec<R>, trusted: &[R]) {
    let missing: Vec<R> = uncovered(rules, trusted).into_iter().cloned().collect();
    for mut rule in missing {
        let base = format!("{} (trusted)", rule.name());
        let mut name = base.clone();
        let mut n = 2;
        while rules.iter().any(|r| r.name() == name) {
            name = format!("{base} {n}");
            n += 1;
        }
        if rules.iter().any(|r| r.name() == rule.name()) {
            rule.set_name(name);
        }
        rules.push(rule);
    }
}
