//! What code analysis reports, the language families it reads, and its bounds.

/// Most bytes of one program that are looked at.
pub(super) const MAX_CODE: usize = 256 * 1024;
/// Most effects reported for one program, and most levels of code inside code.
pub(super) const MAX_EFFECTS: usize = 64;
pub(super) const MAX_DEPTH: usize = 4;

/// What a program found in code does.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Effect {
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
pub(crate) enum Language {
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
    /// The line editor `ed`: its `!` escapes and `w` writes.
    Ed,
    AppleScript,
    /// Unknown: every family's calls count.
    Generic,
}

impl Language {
    /// The language of the program `name` runs (`python3.12`, `gawk`, `Rscript`).
    pub(crate) fn of(name: &str) -> Language {
        let family = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        match family {
            "python" | "pypy" | "ipython" | "manage.py" | "django-admin" => Language::Python,
            "node" | "nodejs" | "bun" | "deno" | "ts-node" | "tsx" => Language::Js,
            "ruby" | "jruby" | "irb" | "pry" | "rails" | "crystal" => Language::Ruby,
            "perl" => Language::Perl,
            "php" => Language::Php,
            "lua" | "luajit" => Language::Lua,
            "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => Language::Awk,
            "R" | "Rscript" => Language::R,
            "tclsh" | "wish" | "expect" => Language::Tcl,
            "gdb" | "lldb" | "gdb-multiarch" | "cgdb" => Language::Debugger,
            "vim" | "nvim" | "vi" | "ex" | "view" | "vimdiff" | "gvim" | "nvi" => Language::Vim,
            "sed" | "gsed" => Language::Sed,
            "ed" | "red" => Language::Ed,
            "osascript" => Language::AppleScript,
            _ => Language::Generic,
        }
    }
}

/// Reads code found inside code (`eval("…")`, `gdb -ex 'python …'`): the analysis
/// entry point, handed down so the readers do not depend on it.
pub(super) type Nested = fn(&str, Language, usize) -> Vec<Effect>;

/// Words as one shell command line, each quoted so it stays one word (`~` left to
/// expand at the start of a word).
pub(crate) fn quote_words(words: &[String]) -> String {
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

/// A path deleted out of the working folder (`/data`, `../other`), as the shell's `rm`
/// of it: judged from where the code runs, against the project and what lies outside it.
pub(super) fn removal_away(path: &str, tree: bool) -> Option<Effect> {
    let away = path.starts_with(['/', '~']) || path.split('/').any(|p| p == "..");
    let plain = !path.contains(['\n', '\0']) && !path.starts_with("/dev/");
    (away && plain).then(|| {
        let flags = if tree { "-rf" } else { "-f" };
        // `~/x` keeps its tilde outside the quotes, so the shell still reads it as the home.
        let (tilde, rest) = match path.strip_prefix("~/") {
            Some(rest) => ("~/", rest),
            None => ("", path),
        };
        Effect::Shell(format!(
            "rm {flags} -- {tilde}{}",
            quote_words(&[rest.to_owned()])
        ))
    })
}
