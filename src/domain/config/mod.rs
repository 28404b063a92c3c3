//! `.claude-nagger/config.toml`: every key optional, defaults built in. Errors are
//! reported with file, line and key; a hook then runs on the defaults.

mod error;
mod load;
mod sift;
mod template;
#[cfg(test)]
mod tests;
mod types;
mod validate;

pub use error::{ConfigError, Problem, printable};
pub use load::{LoadedConfig, MAX_CONFIG_BYTES, Validation, parse, parse_lenient};
pub use template::TEMPLATE;
pub use types::{
    CompressConfig, Config, ContextConfig, Delivery, LogConfig, Message, RoleConfig,
    RoleResolution, SessionConfig,
};
