//! `.claude-nagger/config.toml`: every key optional, defaults built in. Errors are
//! reported with file, line and key; a hook then runs on the defaults.

mod load;
mod sift;
#[cfg(test)]
mod tests;
mod types;
mod validate;

pub use load::{
    ConfigError, LoadedConfig, MAX_CONFIG_BYTES, Problem, Validation, parse, parse_lenient,
};
pub use types::{
    CompressConfig, Config, ContextConfig, Delivery, LogConfig, Message, RoleConfig,
    RoleResolution, SessionConfig,
};

/// The template `nagger install` writes; every key present and commented.
pub const TEMPLATE: &str = include_str!("../../../.claude-nagger/config.toml");
