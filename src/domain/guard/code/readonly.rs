//! Code that only reads: a program whose every call is one that reads (`open(p)`,
//! `open(p, 'rb')`, `json.load`, `readFileSync`, `require`, `File.read`), with no call
//! or name that writes, deletes, renames, links, runs commands or loads code by a
//! computed name anywhere in it. Self-protection lets such code name nagger's files:
//! reading them is fine. Anything it cannot tell is not read-only.

use super::lexer::{Tok, lex};
use super::model::{Language, MAX_CODE};

/// Parts of names that give code power to change files or run anything: a name holding
/// one of them (lower case) makes the code more than a reader. Conservative: a method
/// that only reads but shares such a part (`str.replace`) counts too.
const POWER_PARTS: &[&str] = &[
    "write",
    "remove",
    "unlink",
    "rename",
    "replace",
    "delete",
    "trunc",
    "rmdir",
    "rmtree",
    "move",
    "copy",
    "chmod",
    "chown",
    "chgrp",
    "chflags",
    "symlink",
    "link",
    "mkdir",
    "mkfifo",
    "mknod",
    "touch",
    "dump",
    "save",
    "store",
    "put",
    "append",
    "connect",
    "exec",
    "eval",
    "system",
    "spawn",
    "popen",
    "fork",
    "kill",
    "compile",
    "import",
    "load_module",
    "getattr",
    "setattr",
    "globals",
    "ctypes",
    "ffi",
    "dlopen",
    "syscall",
    "utime",
    "create",
    "mount",
    "lock",
    "flush",
    "print_to",
    "socket",
    "request",
    "fetch",
    "shell",
    "pipe",
    "send",
    "emit",
    "patch",
    "update",
    "insert",
    "set",
    "sql",
    "cursor",
    "commit",
];

/// Whole names that change files or run code, too short to look for as parts.
const POWER_NAMES: &[&str] = &[
    "rm",
    "rmsync",
    "cp",
    "cpsync",
    "mv",
    "ln",
    "os",
    "sh",
    "do",
    "qx",
    "open3",
    "pty",
    "pathname",
    "fileutils",
    "shutil",
    "subprocess",
    "child_process",
    "process",
    "io.popen",
    "sysopen",
    "dbmopen",
    "tie",
    "syswrite",
    "file_put_contents",
    "fputs",
    "fwrite",
    "fprintf",
    "rename",
    "unlink",
    "binmode",
    "select",
    "utime",
    "umask",
    "chdir",
    "chroot",
    "os.open",
    "fopen",
    "opendir",
    "$0",
    "__builtins__",
    "builtins",
    "vars",
    "locals",
    "exit",
    "require",
];

/// Names that print or read though they hold a part of [`POWER_PARTS`].
const HARMLESS_NAMES: &[&str] = &["puts", "input", "dumps", "pprint", "setdefault"];

/// Modules whose loading only reads (`import json`, `require('fs')` is no writer by itself:
/// its writing calls are names that hold a power part).
const READING_MODULES: &[&str] = &["json", "sys", "fs", "node:fs", "pathlib", "toml", "tomllib"];

/// Whether `code` in `lang` only reads: see the module documentation.
pub(crate) fn reads_only(code: &str, lang: Language) -> bool {
    if code.len() > MAX_CODE {
        return false;
    }
    let toks = lex(code, lang).toks;
    if toks
        .iter()
        .any(|t| matches!(t, Tok::Cmd { .. } | Tok::Str { known: false, .. }))
    {
        return false;
    }
    // A function named in a string is called by it (`array_map("unlink", …)`,
    // `getattr(os, "remove")`, `send(:delete)`).
    if toks.iter().any(|t| match t {
        Tok::Str { text, .. } => {
            !text.is_empty()
                && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && powerful(&text.to_ascii_lowercase())
        }
        _ => false,
    }) {
        return false;
    }
    let mut k = 0;
    while k < toks.len() {
        if let Tok::Ident(name) = &toks[k] {
            let lower = name
                .trim_start_matches(['$', '@', '%', '&'])
                .to_ascii_lowercase();
            let called = matches!(toks.get(k + 1), Some(Tok::Punct("(")));
            if (lower == "import" || lower == "from") && lang == Language::Python {
                // `import json, sys`, `from pathlib import Path`: only modules that read.
                let end = toks[k..]
                    .iter()
                    .position(|t| matches!(t, Tok::End))
                    .map_or(toks.len(), |e| k + e);
                let names: Vec<&str> = toks[k + 1..end]
                    .iter()
                    .filter_map(|t| match t {
                        Tok::Ident(n) => Some(n.as_str()),
                        _ => None,
                    })
                    .collect();
                let modules = if lower == "from" {
                    names.get(..1).unwrap_or(&[])
                } else {
                    &names[..]
                };
                let mut alias = false;
                for module in modules {
                    if std::mem::take(&mut alias) {
                        continue;
                    }
                    if *module == "as" {
                        alias = true;
                    } else if !READING_MODULES.contains(&module.to_ascii_lowercase().as_str()) {
                        return false;
                    }
                }
                if modules.is_empty() {
                    return false;
                }
                k = end;
                continue;
            }
            if lower == "require" && called {
                // `require('./x.json')` reads a file; `require('child_process')` gives power.
                match toks.get(k + 2) {
                    Some(Tok::Str { text, .. })
                        if READING_MODULES.contains(&text.as_str())
                            || text.to_ascii_lowercase().ends_with(".json") =>
                    {
                        k += 3;
                        continue;
                    }
                    _ => return false,
                }
            }
            if lower == "open" || lower.rsplit('.').next() == Some("open") || lower == "new" {
                // `File.new(p, 'w')` writes like `open`; `new Reader()` takes no mode.
                if (lower != "new" && !called) || (called && !opens_to_read(&toks, k + 1)) {
                    return false;
                }
                k += 1;
                continue;
            }
            if powerful(&lower) {
                return false;
            }
        }
        k += 1;
    }
    true
}

/// Whether a name (lower case) gives code power: it is or holds one of the names or
/// parts that change files or run anything.
fn powerful(lower: &str) -> bool {
    !HARMLESS_NAMES.contains(&lower)
        && (lower
            .split(['.', ':'])
            .any(|part| POWER_NAMES.contains(&part))
            || POWER_PARTS.iter().any(|p| lower.contains(p)))
}

/// Whether the call whose `(` is at `open` opens its file to read: one argument, or a
/// mode that reads (`'r'`, `'rb'`, `'rt'`, `'<'`, `encoding=…`) and nothing computed in
/// its place.
fn opens_to_read(toks: &[Tok], open: usize) -> bool {
    let mut depth = 0usize;
    let mut arg = 0usize;
    let mut k = open;
    while let Some(t) = toks.get(k) {
        match t {
            Tok::Punct("(" | "[" | "{") => depth += 1,
            Tok::Punct(")" | "]" | "}") => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return true;
                }
            }
            Tok::Punct(",") if depth == 1 => arg += 1,
            Tok::Ident(name) if depth == 1 && arg >= 1 => {
                // `encoding='utf-8'` is no mode; `mode=…`, a variable or flags may write.
                let keyword = matches!(toks.get(k + 1), Some(Tok::Punct("=")));
                let reads_kw = keyword && matches!(name.as_str(), "encoding" | "errors");
                if !reads_kw {
                    return false;
                }
                k += 2;
                continue;
            }
            Tok::Str { text, .. } if depth == 1 && arg >= 1 && !reading_mode(text) => {
                return false;
            }
            Tok::Num(_) if depth == 1 && arg >= 1 => return false,
            Tok::End => return false,
            _ => {}
        }
        k += 1;
    }
    false
}

/// Whether a string given to `open` after its first argument leaves the file as it is:
/// a mode that reads (`'r'`, `'rb'`, `'<'`, `'r:UTF-8'`), an encoding, or a path (Perl's
/// three-argument `open`). A mode that writes, appends, creates, updates or pipes
/// (`'w'`, `'a+'`, `'>'`, `'+<'`, `'|-'`, `'w:UTF-8'`) does not.
fn reading_mode(mode: &str) -> bool {
    let mode = mode.trim();
    !(mode.starts_with(['w', 'a', 'x', '>', '+', '|', 'W', 'A'])
        || mode.ends_with('|')
        || (mode.len() <= 4 && mode.contains('+')))
}
