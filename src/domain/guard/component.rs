//! Claude Code's component files (agents, skills, commands and output styles in a
//! `.claude` folder): which paths are such files, and what in their text weakens nagger.
//! Their frontmatter can add hooks Claude Code runs by itself and set a permission mode
//! that skips asking; it is read as YAML ([`crate::base::frontmatter`]).

use super::finding::Finding;
use super::targets::lexical;

/// Claude Code's component files, in a project's or the user's `.claude`: agents,
/// skills and commands, whose frontmatter can add hooks and change the permission mode.
pub(super) fn file(path: &str) -> bool {
    let lexical = lexical(path);
    let parts: Vec<&str> = lexical.split('/').collect();
    parts.windows(2).any(|w| {
        w[0] == ".claude" && matches!(w[1], "agents" | "skills" | "commands" | "output-styles")
    }) && lexical.to_ascii_lowercase().ends_with(".md")
}

/// A component file's text that weakens nagger: frontmatter `hooks` (commands Claude Code
/// runs by itself, past every tool nagger judges), a `permissionMode` that skips asking
/// (under which nagger's questions are not put), MCP servers it starts, or frontmatter
/// that cannot be read and may say one of these. Read as YAML, as Claude Code reads it
/// ([`crate::base::frontmatter`]). `whole`: the text is the whole file; otherwise (part of
/// a file: an edit's new text, an append) any word or escape that could spell one of
/// these keys is asked about.
pub(super) fn weakens(path: &str, text: &str, whole: bool) -> Option<Finding> {
    if !file(path) {
        return None;
    }
    text_weakens(path, text, whole)
}

/// [`weakens`] for a file known to be a component whatever its name (reached
/// through a link, or one of several names of the same file).
pub(super) fn text_weakens(path: &str, text: &str, whole: bool) -> Option<Finding> {
    let what = if whole {
        crate::base::frontmatter::read(text).weakening()?
    } else if crate::base::frontmatter::may_weaken(text) || text.contains("---") {
        "may add hooks or change the permission mode, which nagger cannot tell from part of \
         the file"
    } else {
        return None;
    };
    Some(Finding::ask(
        "guard:self-protect-component",
        format!("writes `{path}`, whose frontmatter {what}"),
        "Ask the user to add it.",
    ))
}
