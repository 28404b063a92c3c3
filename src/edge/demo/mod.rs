//! `nagger demo`: a whole multi-agent Claude Code session played through the real
//! hook path — `nagger hook` child processes fed Claude Code's JSON on stdin, in a
//! temporary project — with each decision printed and checked, so the demo is
//! also an end-to-end smoke test.

mod fixtures;
mod player;
mod script;

use player::Player;
use std::path::{Path, PathBuf};

pub use fixtures::Session;

/// How the demo went: every expectation checked, and the ones that failed.
#[derive(Debug, Default)]
pub struct Report {
    /// Stdout was closed before the demo ended.
    pub output_lost: bool,
    pub checks: usize,
    pub failures: Vec<String>,
    /// What was kept, when it was.
    pub kept: Option<Kept>,
}

/// The demo's temporary folder, kept: the project in it, and the transcripts beside it.
#[derive(Debug)]
pub struct Kept {
    /// The project: its config and `.claude-nagger/state.db`.
    pub project: PathBuf,
    /// The session's transcript (under the folder's own `.claude/projects/`).
    pub transcript: PathBuf,
    /// The temporary folder holding both: what to remove when done.
    pub folder: PathBuf,
}

/// Plays the scripted session with `exe` as the hook command.
pub fn run(exe: &Path, keep: bool) -> anyhow::Result<Report> {
    let dir = tempfile::Builder::new().prefix("nagger-demo-").tempdir()?;
    // Canonical, so paths nagger derives and paths the demo prints agree.
    let base = dir.path().canonicalize()?;
    let mut player = Player::new(exe, &base);
    let played = script::play(&mut player);
    let mut report = Report {
        output_lost: player.output_lost,
        checks: player.checks,
        failures: std::mem::take(&mut player.failures),
        kept: None,
    };
    if keep {
        let _ = dir.keep();
        report.kept = Some(Kept {
            project: player.root.clone(),
            transcript: player.session.transcript.clone(),
            folder: base,
        });
    }
    played?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_config_and_the_demo_roles_load_without_errors() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            format!("{}{}", fixtures::EXAMPLE_CONFIG, fixtures::EXTRA_ROLES),
        )
        .expect("write config");
        let loaded = crate::domain::config::LoadedConfig::load(&path);
        assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
        for role in ["navigator", "coder", "tester", "reviewer"] {
            assert!(loaded.config.roles.contains_key(role), "{role}");
        }
    }
}
