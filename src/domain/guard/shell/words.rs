//! Words of a simple command: option spellings, interpreters, assignments, reserved
//! words.

/// `-rf` → `-r -f`; every other word unchanged.
pub fn split_short_flags(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        match short_cluster(arg) {
            Some(flags) if flags.len() > 1 && flags.bytes().all(|b| b.is_ascii_alphabetic()) => {
                out.extend(flags.chars().map(|c| format!("-{c}")));
            }
            _ => out.push(arg.clone()),
        }
    }
    out
}

/// The letters of a short-option word: `-rf` → `rf`; `None` for `--long`, `-` and operands.
pub fn short_cluster(arg: &str) -> Option<&str> {
    let flags = arg.strip_prefix('-')?;
    (!flags.is_empty() && !flags.starts_with('-')).then_some(flags)
}

/// Whether `arg` spells the long option `--full`, whole or abbreviated as GNU
/// `getopt_long` and git accept (`--rec` for `--recursive`), with or without `=value`.
pub fn is_long(arg: &str, full: &str) -> bool {
    arg.strip_prefix("--").is_some_and(|name| {
        let name = name.split_once('=').map_or(name, |(n, _)| n);
        !name.is_empty() && full.starts_with(name)
    })
}

/// Whether an option is set among `args`, by short letter (also inside clusters such as
/// `-rfv`) or by long name (`--force`, or an abbreviation of it). Stops at `--`.
pub fn has_flag(args: &[String], short: &str, long: &[&str]) -> bool {
    for arg in args {
        if arg == "--" {
            return false;
        }
        if arg.starts_with("--") {
            if long.iter().any(|full| is_long(arg, full)) {
                return true;
            }
        } else if let Some(flags) = short_cluster(arg)
            && flags.chars().any(|c| short.contains(c))
        {
            return true;
        }
    }
    false
}

/// Program name without its directory.
pub fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Whether `name` is a shell that runs scripts the way `sh` does.
pub fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "yash" | "fish" | "csh" | "tcsh"
    )
}

/// How an interpreter takes its program: flags whose value is code, flags that take a
/// value, and whether `-s` means "program on stdin".
pub(super) struct Interpreter {
    shell: bool,
    code_flags: &'static str,
    value_flags: &'static str,
}

pub(super) fn interpreter(name: &str) -> Option<Interpreter> {
    if is_shell(name) {
        return Some(Interpreter {
            shell: true,
            code_flags: "c",
            value_flags: "oO",
        });
    }
    // python3.12, perl5.36, ruby3.2: the family is what matters.
    let family = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let (code_flags, value_flags) = match family {
        "python" | "pypy" => ("cm", "WX"),
        "perl" => ("eE", "MmI"),
        "ruby" => ("e", "Ir"),
        "node" | "nodejs" | "bun" => ("ep", "r"),
        "php" => ("rR", "cd"),
        "lua" | "luajit" => ("e", "l"),
        "osascript" => ("e", ""),
        _ => return None,
    };
    Some(Interpreter {
        shell: false,
        code_flags,
        value_flags,
    })
}

/// The program an interpreter is given on its command line: `python3 -c CODE`,
/// `perl -e CODE`, `node --eval CODE`, `ruby -e CODE`. Shells are left to the tokeniser.
pub fn inline_code(argv: &[String]) -> Option<&str> {
    let it = argv.first().and_then(|a| interpreter(basename(a)))?;
    if it.shell {
        return None;
    }
    let mut j = 1;
    while let Some(arg) = argv.get(j) {
        if arg == "--" || !arg.starts_with('-') || arg == "-" {
            return None;
        }
        if let Some(long) = arg.strip_prefix("--") {
            for flag in ["eval", "print"] {
                if let Some(code) = long.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
                    return Some(code);
                }
                if long == flag {
                    return argv.get(j + 1).map(String::as_str);
                }
            }
            j += 1;
            continue;
        }
        let flags = &arg[1..];
        for (pos, flag) in flags.char_indices() {
            let rest = &flags[pos + flag.len_utf8()..];
            if it.code_flags.contains(flag) && flag != 'm' {
                return if rest.is_empty() {
                    argv.get(j + 1).map(String::as_str)
                } else {
                    Some(rest)
                };
            }
            if it.value_flags.contains(flag) || flag == 'm' {
                if rest.is_empty() {
                    j += 1;
                }
                break;
            }
        }
        j += 1;
    }
    None
}

/// Whether `name` runs programs it is given (a shell or a scripting language).
pub fn is_interpreter(name: &str) -> bool {
    interpreter(name).is_some()
}

/// Whether this interpreter command reads its program from standard input: no program
/// file and no inline code (`sh`, `bash -s -- -y`, `python3 -`), unlike `python3 -m
/// json.tool` or `bash install.sh`.
pub fn reads_program_from_stdin(argv: &[String]) -> bool {
    let Some(it) = argv.first().and_then(|a| interpreter(basename(a))) else {
        return false;
    };
    let mut j = 1;
    while let Some(arg) = argv.get(j) {
        if arg == "-" {
            return true;
        }
        if arg == "--" {
            j += 1;
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            if matches!(name, "eval" | "print" | "command") {
                return false;
            }
            j += if it.shell && matches!(long, "rcfile" | "init-file") {
                2
            } else {
                1
            };
            continue;
        }
        let cluster = arg
            .strip_prefix('-')
            .or_else(|| arg.strip_prefix('+').filter(|_| it.shell));
        let Some(flags) = cluster.filter(|f| !f.is_empty()) else {
            break;
        };
        for (pos, flag) in flags.char_indices() {
            if it.code_flags.contains(flag) {
                return false;
            }
            if it.shell && flag == 's' {
                return true;
            }
            if it.value_flags.contains(flag) {
                if pos + flag.len_utf8() == flags.len() {
                    j += 1;
                }
                break;
            }
        }
        j += 1;
    }
    argv.get(j).is_none_or(|a| a == "-" || a == "/dev/stdin")
}

pub(super) fn is_assignment_name(name: &[u8]) -> bool {
    let name = name.strip_suffix(b"+").unwrap_or(name);
    let name = match name.iter().position(|&b| b == b'[') {
        Some(open) if name.ends_with(b"]") => &name[..open],
        Some(_) => return false,
        None => name,
    };
    match name.split_first() {
        Some((first, rest)) => {
            (first.is_ascii_alphabetic() || *first == b'_')
                && rest.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        }
        None => false,
    }
}

pub(super) fn quote_for_display(word: &str) -> String {
    let plain = !word.is_empty()
        && word.bytes().all(|b| {
            !b.is_ascii_whitespace() && !matches!(b, b'\'' | b'"' | b';' | b'&' | b'|' | b'`')
        });
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Reserved words that can precede a command and are not commands themselves.
pub(super) const RESERVED: &[&[u8]] = &[
    b"!", b"{", b"}", b"if", b"then", b"else", b"elif", b"fi", b"do", b"done", b"while", b"until",
    b"esac", b"coproc",
];

/// Environment variables whose value a program runs as a command line
/// (`GIT_SSH_COMMAND='…' git fetch`, `export PAGER='…'`).
pub fn runs_value(name: &str) -> bool {
    matches!(
        name,
        "GIT_SSH_COMMAND"
            | "GIT_SSH"
            | "GIT_EDITOR"
            | "GIT_SEQUENCE_EDITOR"
            | "GIT_PAGER"
            | "GIT_EXTERNAL_DIFF"
            | "GIT_ASKPASS"
            | "GIT_PROXY_COMMAND"
            | "SSH_ASKPASS"
            | "EDITOR"
            | "VISUAL"
            | "PAGER"
            | "MANPAGER"
            | "BASH_ENV"
            | "ENV"
            | "PROMPT_COMMAND"
            | "LESSOPEN"
            | "LESSCLOSE"
            | "RSYNC_RSH"
            | "CVS_RSH"
            | "SUDO_ASKPASS"
    )
}

/// `word` quoted for a shell as one word.
pub fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}
