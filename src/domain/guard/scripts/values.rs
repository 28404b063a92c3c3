//! The file a command is handed, as the shell will name it: variables the line sets to
//! plain values, and those it leaves alone as the environment has them, written out.

use super::super::shell::Parsed;

/// `word` with the variables the line set before command `index` to plain values
/// written out (`export NVM_DIR="$HOME/.nvm"; . "$NVM_DIR/nvm.sh"`), and those it leaves
/// alone as the environment Claude Code gives the hook and the agent's commands alike has
/// them (`$TMPDIR/x.sh`, `$CLAUDE_PROJECT_DIR/build/x.sh`): the file the command is
/// handed, as the shell will name it. A variable the line sets anywhere to a value only
/// known as it runs stays as it is.
pub(crate) fn with_line_values(parsed: &Parsed, index: usize, word: &str) -> String {
    if !word.contains('$') {
        return word.to_owned();
    }
    let mut out = line_values(parsed, index, word);
    if let Some((name, rest)) = leading_variable(&out)
        && !parsed.assignments.iter().any(|a| a.name == name)
        && let Some(value) = std::env::var_os(name)
        && let Some(value) = value.to_str()
        && value.starts_with('/')
        && !value.contains(['$', '`'])
    {
        out = format!("{}{rest}", value.trim_end_matches('/'));
    }
    out
}

/// The variable `word` starts with (`$NAME` or `${NAME}`, followed by nothing or a `/`),
/// and the rest.
fn leading_variable(word: &str) -> Option<(&str, &str)> {
    let body = word.strip_prefix('$')?;
    let (name, rest) = if let Some(braced) = body.strip_prefix('{') {
        let end = braced.find('}')?;
        (&braced[..end], &braced[end + 1..])
    } else {
        let end = body
            .find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
            .unwrap_or(body.len());
        (&body[..end], &body[end..])
    };
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric());
    (plain && (rest.is_empty() || rest.starts_with('/'))).then_some((name, rest))
}

fn line_values(parsed: &Parsed, index: usize, word: &str) -> String {
    let mut out = word.to_owned();
    for a in parsed.assignments.iter().rev().filter(|a| a.at <= index) {
        // A plain value, or the home's or the current folder's with a plain rest
        // (`"$HOME/.nvm"`, `$PWD/tools/s.rc`).
        let raw = a.raw.trim_matches('"');
        let known_prefix = ["$HOME", "${HOME}", "$PWD", "${PWD}"]
            .into_iter()
            .find(|p| {
                raw.strip_prefix(p)
                    .is_some_and(|r| r.is_empty() || r.starts_with('/'))
            });
        let Some(value) = a.value.as_deref().or_else(|| {
            let rest = raw.strip_prefix(known_prefix?)?;
            (!rest.contains(['$', '`', '"', '\''])).then_some(raw)
        }) else {
            continue;
        };
        let from_known = known_prefix.is_some_and(|p| value.starts_with(p));
        if a.each || a.array || value.contains(['$', '`']) && !from_known {
            continue;
        }
        for spelled in [format!("${{{}}}", a.name), format!("${}", a.name)] {
            if let Some(rest) = out.strip_prefix(&spelled)
                && (rest.is_empty() || rest.starts_with('/'))
            {
                out = format!("{value}{rest}");
            }
        }
    }
    out
}
