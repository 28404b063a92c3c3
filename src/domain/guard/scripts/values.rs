//! The file a command is handed, as the shell will name it: variables the line sets to
//! plain values, and those it leaves alone as the environment has them, written out.

use std::collections::HashMap;

use super::super::shell::{Parsed, short_cluster};

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

/// The variables the line puts in the environment of command `index`: its own (`DB=x
/// make`, `env DB=x make`), and those exported before it (`export DB=x;`, `X=y; export
/// X`, or every one after `set -a`). A value stands as written, for the program's own
/// shell to expand.
pub(crate) fn environment(parsed: &Parsed, index: usize) -> HashMap<String, String> {
    let command = &parsed.commands[index];
    let mut env = HashMap::new();
    let before = &parsed.commands[..index];
    let all_exported = before.iter().any(|c| {
        let args = c.args();
        c.name() == "set"
            && (args.windows(2).any(|w| w[0] == "-o" && w[1] == "allexport")
                || args
                    .iter()
                    .any(|a| short_cluster(a).is_some_and(|f| f.contains('a'))))
    });
    let exported = |name: &str| {
        all_exported
            || before.iter().any(|c| {
                matches!(c.name(), "export" | "declare" | "typeset")
                    && c.args()
                        .iter()
                        .any(|a| a == name || a.split_once('=').is_some_and(|(n, _)| n == name))
            })
    };
    for a in parsed.assignments.iter().filter(|a| a.at <= index) {
        if !a.each && !a.array && exported(&a.name) {
            let raw = a
                .raw
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .unwrap_or(&a.raw);
            env.insert(
                a.name.clone(),
                a.value.clone().unwrap_or_else(|| raw.to_owned()),
            );
        }
    }
    for word in command.env.iter().chain(command.prefixed.iter().flatten()) {
        if let Some((name, value)) = word.split_once('=')
            && !name.is_empty()
            && name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
        {
            env.insert(name.to_owned(), value.to_owned());
        }
    }
    env
}
