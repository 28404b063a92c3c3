//! The settings in force: the config combined with the trusted snapshot, the stronger
//! on every element, and what of the config is held back until the user confirms it.
//! A hook run also ratchets the snapshot up to a config that only strengthens it.

use std::path::{Path, PathBuf};

use super::projection::{Digest, Projection, SafetyRule, Weakening, uncovered};
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
    /// nagger's own copy of the snapshot, when one was read.
    pub copy: Option<PathBuf>,
    /// What the copy keeps in force that the snapshot lacks (the snapshot deleted,
    /// emptied or replaced behind nagger's back, or the defaults when it is missing).
    pub copy_keeps: Vec<Weakening>,
}

impl TrustReport {
    /// No snapshot looked at, nothing held back: the built-in settings alone are in
    /// force (the guard's answer when the config could not be read in time).
    pub fn built_in() -> Self {
        TrustReport {
            path: PathBuf::new(),
            snapshot: SnapshotState::Missing,
            held_back: Vec::new(),
            write_error: None,
            copy: None,
            copy_keeps: Vec::new(),
        }
    }

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

/// What is trusted: the snapshot at `path`, or the defaults (and why), combined with
/// nagger's own copy of it where the copy is stronger.
pub fn trusted(path: &Path) -> (Projection, SnapshotState) {
    let (own, state) = read_snapshot(path).0;
    let trusted = match read_copy(path) {
        Some((_, copy)) => own.combine(&copy),
        // Only a confirmation writes a snapshot weaker than the built-in defaults, and a
        // confirmation writes nagger's copy too: without one, what the snapshot gives up
        // of the defaults was not confirmed here.
        None => own.combine(&Projection::defaults()),
    };
    (trusted, state)
}

/// The snapshot at `path` (the defaults when it is missing or cannot be read) and the
/// digest written in it.
fn read_snapshot(path: &Path) -> ((Projection, SnapshotState), Option<Digest>) {
    match snapshot::read_text(path) {
        Ok(text) => {
            let stored = snapshot::stored_digest(&text);
            let read = match snapshot::parse(&text) {
                Ok(p) => (p, SnapshotState::Present),
                Err(e) => (Projection::defaults(), SnapshotState::Unreadable(e)),
            };
            (read, stored)
        }
        // No file there, or no folder to hold one.
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            ((Projection::defaults(), SnapshotState::Missing), None)
        }
        Err(e) => (
            (
                Projection::defaults(),
                SnapshotState::Unreadable(e.to_string()),
            ),
            None,
        ),
    }
}

/// nagger's own copy of the snapshot at `path`, when there is one that can be read.
fn read_copy(path: &Path) -> Option<(PathBuf, Projection)> {
    let copy = snapshot::copy_path(path)?;
    let text = snapshot::read_text(&copy).ok()?;
    let p = snapshot::parse(&text).ok()?;
    Some((copy, p))
}

/// Turns `config` into the settings in force: its own combined with the trusted
/// snapshot of `config_path` and nagger's own copy of it (the stronger on every
/// element). With [`Ratchet::Write`] the snapshot is raised to that combination when it
/// is stronger than the snapshot (the copy is only written where the user confirms); an
/// unreadable snapshot is left for the user to look at, and a snapshot weaker than the
/// copy is left as it is for `doctor` to report.
///
/// The quiet path (the config's projection is the snapshot's and the copy's) reads the
/// two files' headers and nothing more.
pub fn settle(config: &mut Config, config_path: &Path, ratchet: Ratchet) -> TrustReport {
    let path = snapshot::snapshot_path(config_path);
    let digest = Projection::digest_of_config(config);
    let mut report = TrustReport {
        path,
        snapshot: SnapshotState::Present,
        held_back: Vec::new(),
        write_error: None,
        copy: None,
        copy_keeps: Vec::new(),
    };
    let quiet = |p: &Path| matches!(snapshot::read_digest(p), Ok(Some(stored)) if stored == digest);
    // No copy kept (the project moved, another home, or confirmed before nagger kept
    // one): the snapshot counts with the built-in defaults, so the config is quiet only
    // when it keeps them.
    let no_copy = |p: &Path| matches!(snapshot::read_digest(p), Err(e) if e.kind() == std::io::ErrorKind::NotFound);
    let copy_path = snapshot::copy_path(&report.path);
    let keeps_defaults = || {
        Projection::of(&config.guard, &config.rules)
            .weakenings(&Projection::defaults())
            .is_empty()
    };
    if quiet(&report.path)
        && match copy_path.as_deref() {
            Some(c) => quiet(c) || no_copy(c) && keeps_defaults(),
            None => keeps_defaults(),
        }
    {
        return report;
    }
    let ((own, state), stored) = read_snapshot(&report.path);
    report.snapshot = state;
    // See [`trusted`]: without a copy, the defaults count in its place.
    let (at, kept) = match read_copy(&report.path) {
        Some((at, kept)) => (Some(at), kept),
        None => (None, Projection::defaults()),
    };
    report.copy_keeps = own.weakenings(&kept);
    report.copy = at;
    let trusted = own.combine(&kept);
    let current = Projection::of_config(config);
    report.held_back = current.weakenings(&trusted);
    if !report.held_back.is_empty() {
        apply(config, &trusted);
    }
    if ratchet == Ratchet::Write && !matches!(report.snapshot, SnapshotState::Unreadable(_)) {
        // The combination differs from the snapshot where the config is stronger.
        let stronger = !trusted.weakenings(&current).is_empty();
        // A snapshot whose digest is not its own (edited by hand, or written by another
        // build) is rewritten once too.
        let stale = report.snapshot == SnapshotState::Present && stored != Some(own.digest());
        let in_force = current.combine(&trusted);
        let present = report.path.parent().is_some_and(Path::is_dir);
        // The snapshot only: a hook writes nothing outside the project's `.claude-nagger/`,
        // so nagger's own copy is written where the user confirms (`nagger trust`,
        // `nagger install`) and is never raised or lowered here.
        if (stale || stronger) && report.copy_keeps.is_empty() && present {
            match snapshot::write(&report.path, &in_force) {
                Ok(()) => report.snapshot = SnapshotState::Present,
                Err(e) => report.write_error = Some(e.to_string()),
            }
        }
    }
    report
}

/// Raises `config` to `trusted` wherever it is weaker, keeping its own order: the guard
/// on, trusted deny patterns, secrets and shell tools added, allow entries and secret
/// exemptions the snapshot lacks dropped, trusted deny, block and ask rules the config no
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
    // What the trusted rules fall back on, where the config would make them speak less
    // often or reach other agents.
    let current = Projection::of_config(config);
    for weakening in current.weakenings(trusted) {
        match weakening {
            Weakening::ThresholdRaised(t, _) => config.session.token_threshold = t,
            Weakening::RolesChanged => {
                if let Some(roles) = &trusted.roles {
                    config.role_resolution.clone_from(roles);
                }
            }
            _ => {}
        }
    }
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
