//! Programs handed to interpreters (`python3 -c`, `perl -e`, `node -e`, `awk`, `gdb -ex`,
//! `vim -c`, `sed`'s `e`, a here-document into `python3`): what they do, found in their
//! text without running anything.
//!
//! Code is tokenized per language family (names, string literals, punctuation; comments
//! dropped), so text inside string literals that is only printed never counts. Then the
//! calls that give code power over processes and files are looked up in a capability
//! table, their arguments resolved when they are literals, joins of literals or known
//! path builders (`os.path.join`, `Path.home()`, `$ENV{HOME}` → `~`), and judged: a
//! command line is handed back to be checked as shell, a deletion is judged by its target,
//! a write reports its path, and what cannot be resolved is reported as unknown, to be
//! asked about. Code without any such call does nothing the guard cares about.

mod analyze;
mod commands;
mod lexer;
mod memory;
mod model;
mod readonly;
mod strings;
mod tables;
#[cfg(test)]
mod tests;

pub(super) use memory::{exhausts_memory, forking_loop};
pub(super) use model::{Effect, Language, quote_words};
pub(super) use readonly::reads_only;
pub(super) use strings::strings;

use model::{MAX_CODE, MAX_DEPTH, MAX_EFFECTS};

/// The effects of `code`, read in every family's terms (when the language is not known).
pub(super) fn effects(code: &str) -> Vec<Effect> {
    effects_in(code, Language::Generic)
}

/// The effects of `code` written in `lang`.
pub(super) fn effects_in(code: &str, lang: Language) -> Vec<Effect> {
    effects_at(code, lang, 0)
}

fn effects_at(code: &str, lang: Language, depth: usize) -> Vec<Effect> {
    if depth > MAX_DEPTH {
        return vec![Effect::Unknown("nests code inside code too deeply".into())];
    }
    let mut end = code.len().min(MAX_CODE);
    while !code.is_char_boundary(end) {
        end -= 1;
    }
    let code = &code[..end];
    // `#!/usr/bin/env node`: the line that picks the interpreter is no code of its own
    // (in JavaScript its `/` would open a regular expression).
    let code = match code.strip_prefix("#!") {
        Some(rest) => rest.find('\n').map_or("", |n| &rest[n..]),
        None => code,
    };
    let mut out = match lang {
        Language::Tcl => commands::tcl(code, depth, effects_at),
        Language::Debugger => commands::debugger(code, depth, effects_at),
        Language::Vim => commands::vim(code, depth, effects_at),
        Language::Sed => commands::sed(code),
        Language::Ed => commands::ed(code),
        Language::AppleScript => commands::applescript(code, depth, effects_at),
        Language::Awk => {
            let mut out = analyze::analyse(code, lang, depth, effects_at);
            out.extend(commands::awk_pipes(code));
            out
        }
        Language::Python => {
            // IPython's shell escapes: `!cmd`, `!!cmd`, `%sx cmd`, `%system cmd` run a
            // command line (a syntax error in plain Python, so never code there).
            let mut out: Vec<Effect> = code
                .lines()
                .filter_map(|l| {
                    let l = l.trim_start();
                    l.strip_prefix("!!")
                        .or_else(|| l.strip_prefix('!'))
                        .or_else(|| l.strip_prefix("%sx "))
                        .or_else(|| l.strip_prefix("%system "))
                        .map(|c| Effect::Shell(c.trim().to_owned()))
                })
                .take(MAX_EFFECTS)
                .collect();
            out.extend(analyze::analyse(code, lang, depth, effects_at));
            out
        }
        _ => analyze::analyse(code, lang, depth, effects_at),
    };
    // Text built from character codes or decoded (`chr(46) + "claude"`,
    // `String.fromCharCode(46)`, a reversed or base64 string) by code that may change
    // files or run programs: the names it hands those calls, whichever they are, cannot
    // be told from its text.
    if depth == 0
        && matches!(
            lang,
            Language::Python
                | Language::Js
                | Language::Ruby
                | Language::Perl
                | Language::Php
                | Language::Lua
                | Language::R
                | Language::Generic
        )
        && let Some(how) = decodes_text(code)
        && (!out.is_empty() || changes_or_runs(code))
    {
        out.push(Effect::Unknown(format!(
            "builds text from character codes or decodes it (`{how}`) while it may change \
             files or run programs: the names it hands them cannot be told from its text"
        )));
    }
    // YAML read with a loader that builds any Python object (`yaml.load(f,
    // Loader=yaml.UnsafeLoader)`): what the file names runs.
    if depth == 0
        && lang == Language::Python
        && code.contains("yaml")
        && [
            "UnsafeLoader",
            "Loader=yaml.Loader",
            "Loader=Loader",
            "yaml.Loader)",
        ]
        .iter()
        .any(|l| code.contains(l))
    {
        out.push(Effect::Unknown(
            "reads YAML with a loader that runs the code the file names".to_owned(),
        ));
    }
    out.truncate(MAX_EFFECTS);
    out
}

/// Whether `code` names a call that changes files or runs programs, whether or not the
/// analysis knows it (`FileChannel.write`, `os.pwrite`, `fs.promises.open(…, 'w')`).
fn changes_or_runs(code: &str) -> bool {
    const PARTS: &[&str] = &[
        "write", "Write", "unlink", "remove", "Remove", "rename", "delete", "Delete", "trunc",
        "rmtree", "rmdir", "move", "copy", "Copy", "chmod", "chown", "symlink", "exec", "system",
        "spawn", "popen", "sysopen", "O_WRONLY", "O_RDWR", "O_CREAT", "'w'", "\"w\"", "'a'",
        "\"a\"", "'w+'", "\"w+\"", "'wb'", "\"wb\"",
    ];
    PARTS.iter().any(|p| code.contains(p))
        // In-place editing: Python's `fileinput` (`inplace=True`), Perl's `$^I`.
        || code.contains("inplace")
        || code.contains("$^I")
        // A path object's `replace`, not a string's.
        || code.contains(".replace(") && (code.contains("Path") || code.contains("os."))
}

/// The first way `code` builds text from character codes or decodes it, if any.
fn decodes_text(code: &str) -> Option<&'static str> {
    const WAYS: &[&str] = &[
        "chr(",
        "fromCharCode",
        "fromCodePoint",
        "String.valueOf((char)",
        ".chr",
        "pack(",
        "bytes([",
        "bytearray([",
        "bytes.fromhex",
        "fromhex(",
        "unhexlify",
        "b64decode",
        "b32decode",
        "a85decode",
        "atob(",
        "codecs.decode",
        "rot13",
        "[::-1]",
        "reversed(",
        ".reverse()",
        "decodeURIComponent",
        "unquote(",
        "Buffer.from(",
        "utf8ToString",
        "intToUtf8",
        "rawToChar",
        "string.char",
        "%c",
    ];
    WAYS.iter().copied().find(|w| code.contains(w))
}
