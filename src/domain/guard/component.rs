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
    let Some(kind) = parts.windows(2).find_map(|w| {
        (w[0] == ".claude" && matches!(w[1], "agents" | "skills" | "commands" | "output-styles"))
            .then_some(w[1])
    }) else {
        return false;
    };
    let name = parts.last().copied().unwrap_or_default();
    // A skill is its folder's `SKILL.md`; the other files there are what it refers to.
    if kind == "skills" {
        return name.eq_ignore_ascii_case("SKILL.md");
    }
    name.to_ascii_lowercase().ends_with(".md")
}

/// An agent's or output style's file: its body is prose, which nothing runs (a skill's
/// or command's may hold `` !`cmd` `` lines).
pub(super) fn prose(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.contains("agents/") || lower.contains("output-styles/")
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

/// Most strings of another tool's input looked at.
const MAX_STRINGS: usize = 256;
/// Most bytes of a file another tool copies or moves read to judge it.
const MAX_READ: u64 = 256 * 1024;

/// Another tool (an MCP server's `write_file`, `edit_file`, `move_file`) that puts text
/// into a component file: judged by the text it hands in (the whole file when the text
/// opens with `---`, a part otherwise), or, when it hands in none, by the file it copies
/// or moves there. `landing`: where a path of its input lands. Tools whose names say
/// they only read are left alone.
pub(super) fn other_tool(
    tool_name: &str,
    input: &serde_json::Value,
    landing: &dyn Fn(&str) -> String,
) -> Option<Finding> {
    let own = tool_name
        .rsplit("__")
        .next()
        .unwrap_or(tool_name)
        .to_ascii_lowercase();
    let reads = [
        "read", "get", "list", "search", "find", "view", "show", "stat", "info",
    ]
    .iter()
    .any(|w| own.starts_with(w));
    if reads {
        return None;
    }
    let mut strings: Vec<&str> = Vec::new();
    gather(input, 0, &mut strings);
    let target = strings.iter().map(|s| landing(s)).find(|full| file(full))?;
    let texts: Vec<&str> = strings
        .iter()
        .copied()
        .filter(|s| landing(s) != target && (s.contains('\n') || !s.contains('/')))
        .collect();
    let finding = |text: &str| {
        let body = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        text_weakens(&target, text, body.starts_with("---"))
    };
    if let Some(found) = texts.iter().find_map(|t| finding(t)) {
        return Some(found);
    }
    if !texts.is_empty() {
        return None;
    }
    // Nothing handed in: a copy or a move of another file there.
    strings
        .iter()
        .map(|s| landing(s))
        .filter(|full| *full != target)
        .find_map(|source| {
            use std::io::Read as _;
            let file = crate::base::files::open_regular(std::path::Path::new(&source)).ok()?;
            let mut bytes = Vec::new();
            file.take(MAX_READ + 1).read_to_end(&mut bytes).ok()?;
            match String::from_utf8(bytes) {
                Ok(text) if text.len() as u64 <= MAX_READ => text_weakens(&target, &text, true),
                _ => text_weakens(&target, "---", false),
            }
        })
}

/// The strings of a tool's input, bounded.
fn gather<'a>(value: &'a serde_json::Value, depth: usize, out: &mut Vec<&'a str>) {
    if depth > 8 || out.len() >= MAX_STRINGS {
        return;
    }
    match value {
        serde_json::Value::String(s) => out.push(s),
        serde_json::Value::Array(items) => {
            for item in items.iter().take(MAX_STRINGS) {
                gather(item, depth + 1, out);
            }
        }
        serde_json::Value::Object(map) => {
            for item in map.values().take(MAX_STRINGS) {
                gather(item, depth + 1, out);
            }
        }
        _ => {}
    }
}
