//! A glob in the guard's settings that cannot be used: it never matches, and is reported.

use crate::base::glob::{GlobError, LazyGlobs};

/// A bad glob in `[guard] allow`, `deny` or `secrets`.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{key} `{pattern}` is not a valid glob: {source}")]
pub struct PatternProblem {
    /// The setting and the glob's place in it, e.g. `deny[1]`.
    pub key: String,
    pub pattern: String,
    #[source]
    pub source: GlobError,
}

impl PatternProblem {
    /// The bad globs met so far in the list of setting `key`.
    pub(super) fn collect(key: &str, globs: &LazyGlobs, problems: &mut Vec<PatternProblem>) {
        problems.extend(globs.problems().into_iter().map(|p| PatternProblem {
            key: format!("{key}[{}]", p.index),
            pattern: p.pattern,
            source: p.error,
        }));
    }
}
