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
        write!(f, "{}", printable(&self.file.display().to_string()))?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": `{}`", printable(key))?;
        }
        write!(f, ": {}", printable(&self.message))
    }
}

/// Text from a config file (a key, a pattern, a rule's name) as it may be shown on a
/// terminal: every character that is not shown as itself (control characters, such as
/// the escape sequences that move the cursor, erase lines or hide text; the marks that
/// reorder text right to left; characters of no width) written as an escape instead,
/// so that what a config says cannot hide or disguise what is shown beside it.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    use crate::base::text::unseen as hidden;
    if !text.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}
