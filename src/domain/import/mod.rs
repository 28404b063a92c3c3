//! Moving over from claude-nagger: its YAML config (`config.yaml`,
//! `file_conventions.yaml`, `command_conventions.yaml`, `mcp_conventions.yaml`, all in
//! the same `.claude-nagger/` folder) turned into nagger's `config.toml`, with a report of
//! every entry carried over, changed or dropped, and why.
//!
//! `convert` reads the YAML as claude-nagger 3.3.3 did and says what each entry meant
//! there; `pyre` and `globs` rewrite its patterns; `merge` writes the result into a
//! config.toml, keeping what is there and refusing to change what the user set.

mod convert;
mod globs;
mod merge;
mod pyre;
#[cfg(test)]
mod tests;
mod types;
mod yaml;

pub use convert::convert;
pub use merge::{Conflict, Merged, merge};
pub use types::{
    Entry, ImportError, Imported, Message, Outcome, Role, Rule, STAMP_PREFIX, Sources, YAML_FILES,
};

/// Whether config.toml's text holds an import of exactly these files.
pub fn imported_state(config_text: Option<&str>, sources: &Sources) -> ImportState {
    let Some(stamp) = config_text.and_then(|t| {
        t.lines()
            .find_map(|l| l.strip_prefix(STAMP_PREFIX).map(str::trim))
    }) else {
        return ImportState::NotImported;
    };
    if stamp == sources.stamp() {
        ImportState::Current
    } else {
        ImportState::Changed
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportState {
    NotImported,
    /// Imported, and the YAML files have changed since.
    Changed,
    Current,
}
