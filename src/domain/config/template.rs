//! The config template `nagger install` writes, built into the binary.

/// The template `nagger install` writes; every key present and commented.
pub const TEMPLATE: &str = include_str!("../../../.claude-nagger/config.toml");
