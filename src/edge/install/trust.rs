//! The trusted snapshot `install` writes: the safety settings of the config it installs,
//! never weaker than the ones trusted before (an install cannot confirm a weakening; only
//! `nagger trust` in the user's terminal can).

use std::path::Path;

use super::error::{InstallError, io_error};
use crate::domain::config::LoadedConfig;
use crate::domain::trust::{self, Projection, SnapshotState};

/// Writes `.claude-nagger/trusted.json` for the config at `config_path`: its projection
/// combined with what was trusted (the built-in defaults when nothing was), when that
/// differs from the snapshot there is.
pub fn trust_installed_config(config_path: &Path) -> Result<(), InstallError> {
    let loaded = LoadedConfig::load(config_path);
    let current = Projection::of_config(&loaded.config);
    let path = trust::snapshot_path(config_path);
    let (trusted, state) = trust::trusted(&path);
    let combined = current.combine(&trusted);
    if state == SnapshotState::Present && combined.same(&trusted) {
        return Ok(());
    }
    trust::write_trusted(&path, &combined).map_err(io_error("write", &path))
}
