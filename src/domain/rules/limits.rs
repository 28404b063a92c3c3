//! What recovery hints and after-edit checks read and say at most, and the helpers that
//! keep them to it.

use regex::{Regex, RegexBuilder};

/// How much of a failure text (or of an edit's added text) the regexes see.
pub(super) const MAX_ERROR_BYTES: usize = 256 * 1024;
/// Compiled size limit of one configured regex: a pattern past it is a config problem.
const REGEX_SIZE_LIMIT: usize = 2 * 1024 * 1024;
/// Longest message of one rule that reaches the agent.
pub(super) const MAX_MESSAGE_CHARS: usize = 2_000;

/// A regex built with size limits, so a pathological pattern fails to compile instead
/// of costing memory on every run.
pub(super) fn bounded_regex(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub(super) fn head(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The line of `text` holding the match `start..end`, trimmed.
pub(super) fn line_around(text: &str, start: usize, end: usize) -> &str {
    let from = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let to = text[end..].find('\n').map_or(text.len(), |i| end + i);
    text[from..to].trim()
}
