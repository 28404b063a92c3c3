//! Problems in the rules config, each naming the table, rule and key it is in.

use crate::base::glob::{GlobError, LazyGlobs};

/// A problem in the rules config, naming the table, rule and key it is in.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RuleError {
    #[error("{table}: rule #{index} has an empty name")]
    EmptyName { table: &'static str, index: usize },
    #[error("{table} \"{name}\": duplicate rule name")]
    DuplicateName { table: &'static str, name: String },
    #[error(
        "{}: {key} `{pattern}` is not a valid glob: {source}",
        location(table, rule)
    )]
    BadGlob {
        table: &'static str,
        rule: String,
        key: String,
        pattern: String,
        #[source]
        source: Box<GlobError>,
    },
    #[error(
        "{}: {key} `{pattern}` is not a valid regex: {source}",
        location(table, rule)
    )]
    BadRegex {
        table: &'static str,
        rule: String,
        key: String,
        pattern: String,
        #[source]
        source: Box<regex::Error>,
    },
}

fn location(table: &str, rule: &str) -> String {
    if rule.is_empty() {
        table.to_owned()
    } else {
        format!("{table} \"{rule}\"")
    }
}

/// The bad globs met so far in `globs`, the list under `key` of rule `rule` in `table`.
pub(super) fn glob_problems(
    globs: &LazyGlobs,
    table: &'static str,
    rule: &str,
    key: &str,
    problems: &mut Vec<RuleError>,
) {
    problems.extend(globs.problems().into_iter().map(|p| RuleError::BadGlob {
        table,
        rule: rule.to_owned(),
        key: format!("{key}[{}]", p.index),
        pattern: p.pattern,
        source: Box::new(p.error),
    }));
}
