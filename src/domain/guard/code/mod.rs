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
mod strings;
mod tables;
#[cfg(test)]
mod tests;

pub(super) use strings::strings;

/// Most bytes of one program that are looked at.
const MAX_CODE: usize = 256 * 1024;
/// Most effects reported for one program, and most levels of code inside code.
const MAX_EFFECTS: usize = 64;
const MAX_DEPTH: usize = 4;

/// What a program found in code does.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Effect {
    /// A shell command line it runs (to be checked like any other).
    Shell(String),
    /// A deletion, described: "deletes the home directory".
    Deletes(String),
    /// A file written, moved or deleted: its path when the code spells it out, `None`
    /// when it is computed.
    Writes(Option<String>),
    /// Something with power over processes or files whose target or callee the code
    /// computes: why it cannot be known.
    Unknown(String),
}

/// The language families code is read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Language {
    Python,
    Js,
    Ruby,
    Perl,
    Php,
    Lua,
    Awk,
    R,
    Tcl,
    Debugger,
    Vim,
    Sed,
    AppleScript,
    /// Unknown: every family's calls count.
    Generic,
}

impl Language {
    /// The language of the program `name` runs (`python3.12`, `gawk`, `Rscript`).
    pub(super) fn of(name: &str) -> Language {
        let family = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        match family {
            "python" | "pypy" | "ipython" => Language::Python,
            "node" | "nodejs" | "bun" | "deno" => Language::Js,
            "ruby" | "jruby" | "irb" => Language::Ruby,
            "perl" => Language::Perl,
            "php" => Language::Php,
            "lua" | "luajit" => Language::Lua,
            "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => Language::Awk,
            "R" | "Rscript" => Language::R,
            "tclsh" | "wish" | "expect" => Language::Tcl,
            "gdb" | "lldb" | "gdb-multiarch" | "cgdb" => Language::Debugger,
            "vim" | "nvim" | "vi" | "ex" | "view" | "vimdiff" | "gvim" | "nvi" => Language::Vim,
            "sed" | "gsed" => Language::Sed,
            "osascript" => Language::AppleScript,
            _ => Language::Generic,
        }
    }
}

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
    let mut out = match lang {
        Language::Tcl => commands::tcl(code, depth),
        Language::Debugger => commands::debugger(code, depth),
        Language::Vim => commands::vim(code, depth),
        Language::Sed => commands::sed(code),
        Language::AppleScript => commands::applescript(code, depth),
        Language::Awk => {
            let mut out = analyze::analyse(code, lang, depth);
            out.extend(commands::awk_pipes(code));
            out
        }
        _ => analyze::analyse(code, lang, depth),
    };
    out.truncate(MAX_EFFECTS);
    out
}

/// Words as one shell command line, each quoted so it stays one word (`~` left to
/// expand at the start of a word).
pub(super) fn quote_words(words: &[String]) -> String {
    words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
}

fn quote(w: &str) -> String {
    let plain = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b))
    };
    if !w.is_empty() && plain(w) {
        return w.to_owned();
    }
    if w == "~" {
        return w.to_owned();
    }
    if let Some(rest) = w.strip_prefix("~/") {
        return format!("~/{}", quote(rest));
    }
    format!("'{}'", w.replace('\'', r"'\''"))
}
