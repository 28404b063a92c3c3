//! What can be wrong in a config file: [`ConfigError`], located by file, line and key,
//! and the [`Problem`] it is, which says how much of the config it costs.

use std::fmt;
use std::path::PathBuf;

/// How much of the config a problem costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Problem {
    /// A key nagger does not know: ignored, everything else applies.
    UnknownKey,
    /// A value nagger cannot use: that setting keeps its default, or that list item or
    /// rule is left out. Everything else applies.
    BadValue,
    /// A glob or regex that does not compile: that pattern never matches.
    BadPattern,
    /// The file cannot be read or is not TOML past some point.
    Unreadable,
}

/// A problem in the config file, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub file: PathBuf,
    pub line: Option<usize>,
    pub key: Option<String>,
    pub message: String,
    pub problem: Problem,
    /// The problem may have taken away or weakened something that refuses or asks: it is
    /// in the guard's settings, in `[rules]` outside the recovery hints, in a rule that is
    /// not a warning (as written), or it hides part of the file (not TOML). While such a
    /// problem stands, `nagger check` cannot say that a call passes, and `nagger doctor`
    /// fails.
    pub may_weaken: bool,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": `{key}`")?;
        }
        write!(f, ": {}", self.message)
    }
}
