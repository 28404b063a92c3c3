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

/// The values of an option among `args`: `-o V`, `-oV`, `-xzo V` and `-xzoV` (a short
/// letter inside a cluster takes the rest of it, or the next word when it ends it, as
/// `getopt` reads it), single-dash long names given whole (`-out V`, `-outV`), and `--out
/// V`, `--out=V`. Stops at `--`.
pub fn option_values<'c>(args: &'c [String], short: &[&str], long: &[&str]) -> Vec<&'c str> {
    let mut out = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        let arg = arg.as_str();
        if arg == "--" {
            break;
        }
        let next = || args.get(i + 1).map(String::as_str);
        for s in short {
            if arg == *s {
                out.extend(next());
                continue;
            }
            if arg.starts_with("--") {
                continue;
            }
            let letter = s.strip_prefix('-').filter(|l| l.len() == 1);
            if let (Some(letter), Some(cluster)) = (letter, short_cluster(arg)) {
                let Some(at) = cluster.find(letter) else {
                    continue;
                };
                if !cluster[..at].bytes().all(|b| b.is_ascii_alphabetic()) {
                    continue;
                }
                let rest = &cluster[at + 1..];
                if rest.is_empty() {
                    out.extend(next());
                } else {
                    out.push(rest);
                }
                continue;
            }
            // `-sft.claude`: letters, then the option, then its value glued on.
            let glued = letter.zip(arg.strip_prefix('-')).and_then(|(l, body)| {
                let at = body.find(l)?;
                (at > 0 && body[..at].bytes().all(|b| b.is_ascii_alphabetic()))
                    .then(|| &body[at + l.len()..])
            });
            if let Some(v) = glued {
                if v.is_empty() {
                    out.extend(next());
                } else {
                    out.push(v);
                }
            } else if let Some(v) = arg.strip_prefix(s) {
                out.push(v);
            }
        }
        for l in long {
            if arg == *l {
                out.extend(next());
            } else if let Some(v) = arg.strip_prefix(l).and_then(|r| r.strip_prefix('=')) {
                out.push(v);
            } else if l.starts_with("--") && arg.starts_with("--") && arg.len() > 2 {
                // `--ta=DIR`, `--targ DIR`: getopt and most parsers take any prefix of a
                // long name that no other of the program's names shares.
                let (name, value) = match arg.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (arg, None),
                };
                if name.len() < l.len() && l.starts_with(name) {
                    match value {
                        Some(v) => out.push(v),
                        None => out.extend(next()),
                    }
                }
            }
        }
    }
    out
}

/// Program name without its directory.
pub fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Whether `name` is a shell that runs scripts the way `sh` does.
pub fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "sh" | "bash"
            | "zsh"
            | "dash"
            | "ksh"
            | "mksh"
            | "ash"
            | "yash"
            | "fish"
            | "csh"
            | "tcsh"
            | "xonsh"
            | "nu"
            | "elvish"
            | "osh"
            | "ysh"
            | "oksh"
            | "posh"
    )
}

/// How an interpreter takes its program: flags whose value is code, flags that take a
/// value, flags whose value can only be attached (`perl -i.bak`), and whether several
/// pieces of code add up to one program (`perl -e A -e B`).
pub(super) struct Interpreter {
    shell: bool,
    code_flags: &'static str,
    value_flags: &'static str,
    attached_flags: &'static str,
    many: bool,
}

impl Interpreter {
    /// Whether `flag`, followed in its word by `rest`, takes the rest as its value: the
    /// flags whose value is a number (`perl -0777`, `-l015`, `ruby -l`) take only digits,
    /// so `perl -lne CODE` is `-l -n -e CODE`.
    fn takes_rest(&self, flag: char, rest: &str) -> bool {
        // Perl's `-l` and `-0` take an octal number (`-0x` a hexadecimal one): `-nle`
        // is `-n -l -e`.
        self.attached_flags.contains(flag)
            && (!matches!(flag, '0' | 'l')
                || rest.starts_with(|c: char| ('0'..='7').contains(&c))
                || (flag == '0' && rest.starts_with(['x', 'X'])))
    }
}

/// The family of a program name: `python3.12` → `python`, `perl5.36` → `perl`.
fn family(name: &str) -> &str {
    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
}

pub(super) fn interpreter(name: &str) -> Option<Interpreter> {
    if is_shell(name) {
        return Some(Interpreter {
            shell: true,
            code_flags: "c",
            value_flags: "oO",
            attached_flags: "",
            many: false,
        });
    }
    let (code_flags, value_flags, attached_flags, many) = match family(name) {
        "python" | "pypy" => ("cm", "WX", "", false),
        "ipython" => ("c", "", "", false),
        "irb" | "pry" => ("", "", "", false),
        "ts-node" | "tsx" => ("ep", "r", "", true),
        "perl" => ("eE", "MmI", "0liFCxdDV", true),
        "ruby" | "jruby" => ("e", "IrCE", "F0lKTWx", true),
        "node" | "nodejs" | "bun" => ("ep", "rC", "", true),
        "deno" => ("", "", "", false),
        "php" => ("rRBE", "cdz", "", false),
        "lua" | "luajit" => ("e", "l", "", true),
        "osascript" => ("e", "ls", "", true),
        "tclsh" | "wish" => ("", "", "", false),
        "expect" => ("c", "", "", true),
        "R" | "Rscript" => ("e", "", "", true),
        _ if is_code_tool(name) => ("", "", "", false),
        _ => return None,
    };
    Some(Interpreter {
        shell: false,
        code_flags,
        value_flags,
        attached_flags,
        many,
    })
}

/// Programs that run commands given on their command line or standard input without
/// being scripting languages: debuggers and Vim.
fn is_code_tool(name: &str) -> bool {
    is_debugger(name) || is_vim(name) || matches!(name, "ed" | "red")
}

fn is_debugger(name: &str) -> bool {
    matches!(name, "gdb" | "lldb" | "gdb-multiarch" | "cgdb")
}

pub(crate) fn is_vim(name: &str) -> bool {
    matches!(
        name,
        "vim"
            | "nvim"
            | "vi"
            | "ex"
            | "view"
            | "vimdiff"
            | "gvim"
            | "nvi"
            | "rvim"
            | "rview"
            | "gview"
            | "evim"
            | "vim.basic"
            | "vim.tiny"
            | "vim.nox"
            | "nvim-qt"
    )
}

fn is_awk(name: &str) -> bool {
    matches!(name, "awk" | "gawk" | "mawk" | "nawk")
}

/// The first piece of code an interpreter is given on its command line:
/// `python3 -c CODE`, `perl -e CODE`, `node --eval CODE`, `awk PROGRAM`, `gdb -ex CMD`.
/// Shells are left to the tokeniser.
pub fn inline_code(argv: &[String]) -> Option<&str> {
    inline_pieces(argv).into_iter().next()
}

/// All the code an interpreter is given on its command line, as one program (`perl -e A
/// -e B`, `gdb -ex A -ex B`, `sed -e A -e B`, `vim -c A +B`).
pub fn inline_program(argv: &[String]) -> Option<String> {
    let pieces = inline_pieces(argv);
    (!pieces.is_empty()).then(|| pieces.join("\n"))
}

/// The Python code a module run with `python3 -m MODULE` is handed on its command line:
/// `pdb -c STATEMENT` (a debugger command, or a statement it runs), `timeit [-s SETUP]
/// STATEMENT…`, `IPython -c CODE`.
fn module_code<'a>(module: &str, args: &'a [String]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        let value = |flags: &[&str]| {
            flags.iter().find_map(|f| {
                if arg == f {
                    args.get(k + 1).map(|v| (v.as_str(), 2))
                } else {
                    arg.strip_prefix(f)
                        .and_then(|r| r.strip_prefix('='))
                        .map(|v| (v, 1))
                }
            })
        };
        match module {
            "pdb" => match value(&["-c", "--command"]) {
                Some((code, step)) => {
                    out.push(code.strip_prefix('!').unwrap_or(code));
                    k += step;
                }
                None => break, // the program or script being debugged
            },
            "IPython" | "ipython" => match value(&["-c"]) {
                Some((code, step)) => {
                    out.push(code);
                    k += step;
                }
                None => k += 1,
            },
            "timeit" => {
                if let Some((code, step)) = value(&["-s", "--setup"]) {
                    out.push(code);
                    k += step;
                } else if let Some((_, step)) =
                    value(&["-n", "--number", "-r", "--repeat", "-u", "--unit"])
                {
                    k += step;
                } else {
                    if !arg.starts_with('-') {
                        out.push(arg);
                    }
                    k += 1;
                }
            }
            _ => break,
        }
    }
    out
}

/// The code a web framework's command runs for its application: `rails runner CODE`
/// (Ruby), `manage.py shell -c CODE` (Python), `php artisan tinker --execute=CODE` (PHP).
/// `None` for other commands.
fn framework_code<'a>(name: &str, argv: &'a [String]) -> Option<Vec<&'a str>> {
    let at = |k: usize| argv.get(k).map_or("", String::as_str);
    let values = |from: usize, flags: &[&str]| -> Vec<&'a str> {
        let mut out = Vec::new();
        let mut k = from;
        while let Some(arg) = argv.get(k) {
            for flag in flags {
                if arg == flag {
                    out.extend(argv.get(k + 1).map(String::as_str));
                } else if let Some(v) = arg.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
                    out.push(v);
                }
            }
            k += 1;
        }
        out
    };
    let django = |w: &str| {
        matches!(
            basename(w),
            "manage.py" | "django-admin" | "django-admin.py"
        )
    };
    match name {
        "rails" if matches!(at(1), "runner" | "r") => {
            let mut k = 2;
            while let Some(arg) = argv.get(k) {
                match arg.as_str() {
                    "-e" | "--environment" => k += 2,
                    a if a.starts_with('-') => k += 1,
                    // A Ruby file is run as a file; anything else is code.
                    a if std::path::Path::new(a)
                        .extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case("rb")) =>
                    {
                        return Some(Vec::new());
                    }
                    a => return Some(vec![a]),
                }
            }
            Some(Vec::new())
        }
        _ if django(name) && at(1) == "shell" => Some(values(2, &["-c", "--command"])),
        _ if family(name) == "python" && django(at(1)) && at(2) == "shell" => {
            Some(values(3, &["-c", "--command"]))
        }
        "php" if at(1) == "artisan" && at(2) == "tinker" => Some(values(3, &["--execute"])),
        // `crystal eval 'CODE'`: Crystal, read as the Ruby it mostly is.
        "crystal" if at(1) == "eval" => Some(argv.get(2).map(String::as_str).into_iter().collect()),
        _ => None,
    }
}

pub fn inline_pieces(argv: &[String]) -> Vec<&str> {
    let Some(name) = argv.first().map(|a| basename(a)) else {
        return Vec::new();
    };
    if let Some(code) = framework_code(name, argv) {
        return code;
    }
    if is_awk(name) {
        return awk_program(argv);
    }
    if matches!(name, "sed" | "gsed") {
        return sed_script(argv);
    }
    if is_debugger(name) {
        let flags: &[&str] = if name == "lldb" {
            &[
                "o",
                "one-line",
                "O",
                "one-line-before-file",
                "k",
                "one-line-on-crash",
            ]
        } else {
            &[
                "ex",
                "eval-command",
                "iex",
                "init-eval-command",
                "eiex",
                "early-init-eval-command",
            ]
        };
        return flag_values(argv, flags, Some("args"));
    }
    if is_vim(name) {
        let mut out = flag_values(argv, &["cmd"], Some(""));
        // `-c CMD`, `-cCMD`, and `c` closing a group of flags (`-esc CMD`, `-nesc CMD`).
        let mut j = 1;
        while let Some(arg) = argv.get(j) {
            if arg == "--" {
                break;
            }
            if let Some(flags) = arg.strip_prefix('-').filter(|f| !f.starts_with('-'))
                && let Some(at) = flags.find('c')
            {
                let rest = &flags[at + 1..];
                if rest.is_empty() {
                    out.extend(argv.get(j + 1).map(String::as_str));
                    j += 1;
                } else {
                    out.push(rest);
                }
            }
            j += 1;
        }
        out.extend(
            argv[1..]
                .iter()
                .take_while(|a| *a != "--")
                .filter_map(|a| a.strip_prefix('+'))
                .filter(|c| {
                    !c.is_empty() && !c.starts_with('/') && !c.bytes().all(|b| b.is_ascii_digit())
                }),
        );
        return out;
    }
    if family(name) == "deno" {
        if argv.get(1).map(String::as_str) != Some("eval") {
            return Vec::new();
        }
        return argv[2..]
            .iter()
            .find(|a| !a.starts_with('-'))
            .map(String::as_str)
            .into_iter()
            .collect();
    }
    if matches!(family(name), "R" | "Rscript" | "expect") {
        let flags: &[&str] = if name == "expect" { &["c"] } else { &["e"] };
        return flag_values(argv, flags, Some(""));
    }
    let Some(it) = interpreter(name) else {
        return Vec::new();
    };
    if it.shell {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut j = 1;
    while let Some(arg) = argv.get(j) {
        if arg == "--" || !arg.starts_with('-') || arg == "-" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let mut found = false;
            for flag in ["eval", "print"] {
                if let Some(code) = long.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
                    out.push(code);
                    found = true;
                } else if long == flag {
                    // `node --print -e CODE`: the next word is another code option.
                    let next = argv.get(j + 1).map(String::as_str);
                    let option = next.is_some_and(|n| {
                        n.strip_prefix('-').is_some_and(|f| {
                            !f.is_empty() && f.chars().all(|c| it.code_flags.contains(c))
                        }) || n.starts_with("--eval")
                            || n.starts_with("--print")
                    });
                    if !option {
                        out.extend(next);
                        j += 1;
                        found = true;
                    }
                }
            }
            if found && !it.many {
                break;
            }
            j += 1;
            continue;
        }
        let flags = &arg[1..];
        let mut took_code = false;
        for (pos, flag) in flags.char_indices() {
            let rest = &flags[pos + flag.len_utf8()..];
            if it.takes_rest(flag, rest) {
                break;
            }
            if it.code_flags.contains(flag) && flag != 'm' {
                // node takes `-pe CODE` as `-p -e CODE`.
                let grouped = matches!(family(name), "node" | "nodejs" | "bun")
                    && rest.chars().all(|c| it.code_flags.contains(c));
                if rest.is_empty() || grouped {
                    // `node -p -e CODE`: the next word is another option, not the code.
                    let option_follows = it.code_flags.len() > 1
                        && argv.get(j + 1).is_some_and(|n| {
                            n.strip_prefix('-').is_some_and(|f| {
                                !f.is_empty() && f.chars().all(|c| it.code_flags.contains(c))
                            }) || ["--eval", "--print"].iter().any(|o| n.starts_with(o))
                        });
                    if !option_follows {
                        out.extend(argv.get(j + 1).map(String::as_str));
                        j += 1;
                        took_code = true;
                    }
                } else {
                    out.push(rest);
                    took_code = true;
                }
                break;
            }
            if it.value_flags.contains(flag) || flag == 'm' {
                if rest.is_empty() {
                    j += 1;
                }
                if flag == 'm' {
                    let module = if rest.is_empty() {
                        argv.get(j).map_or("", String::as_str)
                    } else {
                        rest
                    };
                    out.extend(module_code(module, &argv[(j + 1).min(argv.len())..]));
                    return out;
                }
                break;
            }
        }
        if took_code && !it.many {
            break;
        }
        j += 1;
    }
    out
}

/// The values of the options `flags` (spelled `-f V`, `--f V`, `--f=V`) anywhere among
/// the words, up to `stop` (`--args`, or `--` when `stop` is empty).
fn flag_values<'a>(argv: &'a [String], flags: &[&str], stop: Option<&str>) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut j = 1;
    while let Some(arg) = argv.get(j) {
        if stop.is_some_and(|s| arg == "--" || (!s.is_empty() && arg.strip_prefix("--") == Some(s)))
        {
            break;
        }
        let bare = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'));
        if let Some(bare) = bare {
            if let Some((flag, value)) = bare.split_once('=')
                && flags.contains(&flag)
            {
                out.push(value);
            } else if flags.contains(&bare) {
                out.extend(argv.get(j + 1).map(String::as_str));
                j += 1;
            }
        }
        j += 1;
    }
    out
}

/// An awk program: `-e`/`--source` texts, else the first operand; none when it comes
/// from a file (`-f prog.awk`).
pub fn awk_program(argv: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut j = 1;
    while let Some(arg) = argv.get(j) {
        match arg.as_str() {
            "--" => {
                j += 1;
                break;
            }
            "-f" | "--file" | "-E" | "--exec" => return out,
            "-e" | "--source" => {
                out.extend(argv.get(j + 1).map(String::as_str));
                j += 2;
                continue;
            }
            "-F" | "-v" | "--field-separator" | "--assign" | "-i" | "--include" | "-l"
            | "--load" | "-W" => {
                j += 2;
                continue;
            }
            _ => {}
        }
        if let Some(code) = arg.strip_prefix("--source=") {
            out.push(code);
        } else if arg.starts_with("--file=") || arg.starts_with("--exec=") {
            return out;
        } else if !arg.starts_with('-') || arg == "-" {
            break;
        }
        j += 1;
    }
    if out.is_empty() {
        out.extend(argv.get(j).map(String::as_str));
    }
    out
}

/// A sed script: `-e`/`--expression` texts, else the first operand; none from `-f`.
fn sed_script(argv: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from_file = false;
    let mut j = 1;
    while let Some(arg) = argv.get(j) {
        match arg.as_str() {
            "--" => {
                j += 1;
                break;
            }
            "-e" | "--expression" => {
                out.extend(argv.get(j + 1).map(String::as_str));
                j += 2;
                continue;
            }
            "-f" | "--file" => {
                from_file = true;
                j += 2;
                continue;
            }
            "-l" | "--line-length" => {
                j += 2;
                continue;
            }
            _ => {}
        }
        if let Some(code) = arg.strip_prefix("--expression=") {
            out.push(code);
        } else if arg.starts_with("--file=") {
            from_file = true;
        } else if let Some(flags) = short_cluster(arg)
            && !arg.starts_with("--")
        {
            // `-ne 's/x/y/'`, `-i.bak`: `e` and `f` take the rest or the next word.
            if let Some(at) = flags.find(['e', 'f']).filter(|_| !flags.starts_with('i')) {
                let rest = &flags[at + 1..];
                let value = if rest.is_empty() {
                    j += 1;
                    argv.get(j).map(String::as_str)
                } else {
                    Some(rest)
                };
                if flags.as_bytes()[at] == b'e' {
                    out.extend(value);
                } else {
                    from_file = true;
                }
            }
        } else if !arg.starts_with('-') {
            break;
        }
        j += 1;
    }
    if out.is_empty() && !from_file {
        out.extend(argv.get(j).map(String::as_str));
    }
    out
}

/// Whether `name` runs programs it is given (a shell or a scripting language).
pub fn is_interpreter(name: &str) -> bool {
    interpreter(name).is_some()
}

/// Whether this interpreter command reads its program from standard input: no program
/// file and no inline code (`sh`, `bash -s -- -y`, `python3 -`, `tclsh`, `ex -s file`,
/// `gdb` without `-batch`), unlike `python3 -m json.tool` or `bash install.sh`.
pub fn reads_program_from_stdin(argv: &[String]) -> bool {
    let Some(name) = argv.first().map(|a| basename(a)) else {
        return false;
    };
    let Some(it) = interpreter(name) else {
        return false;
    };
    if is_debugger(name) {
        let args = &argv[1..];
        return !args
            .iter()
            .any(|a| matches!(a.as_str(), "-batch" | "--batch" | "-b"))
            || args.windows(2).any(|w| {
                matches!(w[0].as_str(), "-x" | "--command" | "-s" | "--source")
                    && matches!(w[1].as_str(), "-" | "/dev/stdin")
            });
    }
    if is_vim(name) {
        // Ex mode reads commands from its input, unless its own commands end it first
        // (`ex -sc '…' -cx f`, `vim -es -c '…' -c 'wq'`).
        let ex_mode = name == "ex"
            || argv[1..]
                .iter()
                .take_while(|a| *a != "--")
                .any(|a| matches!(a.as_str(), "-e" | "-E" | "-es" | "-Es" | "-se" | "-sE"));
        let quits = inline_pieces(argv)
            .iter()
            .flat_map(|c| c.split('|'))
            .any(|c| {
                matches!(
                    c.trim().trim_start_matches(':'),
                    "x" | "x!"
                        | "xit"
                        | "q"
                        | "q!"
                        | "qa"
                        | "qa!"
                        | "qall"
                        | "quit"
                        | "quit!"
                        | "wq"
                        | "wq!"
                        | "wqa"
                        | "wqall"
                        | "xa"
                        | "xall"
                        | "exit"
                        | "cq"
                )
            });
        return ex_mode && !quits;
    }
    if family(name) == "deno" {
        return false;
    }
    if matches!(name, "ed" | "red") {
        // Its operand is the file it edits; its commands always come on stdin.
        return true;
    }
    match program_at(argv, &it) {
        ProgramAt::Stdin => true,
        ProgramAt::Inline => false,
        ProgramAt::Operand(j) => argv.get(j).is_none_or(|a| a == "-" || a == "/dev/stdin"),
    }
}

/// Where an interpreter's program comes from, read off its options.
enum ProgramAt {
    Stdin,
    /// Code on the command line, or a module (`python3 -m`).
    Inline,
    /// The first operand, at this index (maybe past the end).
    Operand(usize),
}

fn program_at(argv: &[String], it: &Interpreter) -> ProgramAt {
    let mut j = 1;
    while let Some(arg) = argv.get(j) {
        if arg == "-" {
            return ProgramAt::Stdin;
        }
        if arg == "--" {
            j += 1;
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            if matches!(name, "eval" | "print" | "command" | "file") {
                return ProgramAt::Inline;
            }
            // Long options whose value is the next word (`node --require ./x.js app.js`).
            let valued = if it.shell {
                matches!(long, "rcfile" | "init-file")
            } else {
                it.code_flags == "ep"
                    && matches!(
                        long,
                        "require"
                            | "import"
                            | "loader"
                            | "experimental-loader"
                            | "conditions"
                            | "env-file"
                            | "env-file-if-exists"
                            | "watch-path"
                            | "input-type"
                            | "title"
                            | "redirect-warnings"
                            | "test-name-pattern"
                            | "test-reporter"
                            | "test-reporter-destination"
                    )
            };
            j += if valued { 2 } else { 1 };
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
                return ProgramAt::Inline;
            }
            if it.shell && flag == 's' {
                return ProgramAt::Stdin;
            }
            if it.takes_rest(flag, &flags[pos + flag.len_utf8()..]) {
                break;
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
    ProgramAt::Operand(j)
}

/// The index in `argv` of the file an interpreter runs as its program (`bash -e x.sh`,
/// `python3 -u tool.py`, `deno run -A main.ts`), with the words after it its arguments;
/// `None` when it runs inline code, a module or its standard input, or is a debugger or
/// editor (whose file operands are not programs). A shell with `-n` runs nothing.
pub fn program_file(argv: &[String]) -> Option<usize> {
    let name = basename(argv.first()?);
    let it = interpreter(name)?;
    if is_code_tool(name) || only_checks_syntax(argv) {
        return None;
    }
    // `node --test a b`: test files, each run as a program of its own (read by the
    // runners), not one program with arguments.
    if family(name) == "node" && argv[1..].iter().any(|a| a == "--test") {
        return None;
    }
    if family(name) == "deno" {
        if argv.get(1).map(String::as_str) != Some("run") {
            return None;
        }
        return (2..argv.len()).find(|&k| !argv[k].starts_with('-'));
    }
    // `python3 -m cProfile F`, `-m trace --count F`, `-m pdb F`: the module runs file F.
    if family(name) == "python"
        && let Some(m) = argv.iter().position(|a| a == "-m")
    {
        let valued: &[&str] = match argv.get(m + 1).map(String::as_str)? {
            "cProfile" | "profile" => &["-o", "--outfile", "-s", "--sort"],
            "trace" => &[
                "-C",
                "--coverdir",
                "-f",
                "--file",
                "--ignore-module",
                "--ignore-dir",
            ],
            "pdb" => &["-c", "--command"],
            "runpy" => &[],
            _ => return None,
        };
        let mut k = m + 2;
        while let Some(arg) = argv.get(k) {
            if valued.contains(&arg.as_str()) {
                k += 2;
            } else if arg.starts_with('-') {
                k += 1;
            } else {
                return Some(k);
            }
        }
        return None;
    }
    match program_at(argv, &it) {
        ProgramAt::Operand(j)
            if argv.get(j).is_some_and(|a| a != "/dev/stdin")
                && !(it.shell && has_flag(&argv[1..j], "n", &["noexec"])) =>
        {
            Some(j)
        }
        _ => None,
    }
}

/// Whether `argv` only checks its program's syntax (or reads a file that is no program),
/// running none of it: a shell's `-n` (`--noexec`), `php -l`, `node --check`, `node
/// --prof-process LOG`, `ruby -c`, `python3 -m py_compile` or `compileall` (which write
/// bytecode only). Perl's `-c` runs `BEGIN` blocks: not one.
pub fn only_checks_syntax(argv: &[String]) -> bool {
    let Some(name) = argv.first().map(|p| basename(p)) else {
        return false;
    };
    let args = &argv[1..];
    // Options before the program operand only.
    let before: Vec<&String> = args.iter().take_while(|a| a.starts_with('-')).collect();
    let flag = |short: char, long: &[&str]| {
        before.iter().any(|a| {
            long.contains(&a.as_str())
                || (!a.starts_with("--")
                    && a.len() > 1
                    && a[1..].chars().all(|c| c.is_ascii_alphabetic())
                    && a[1..].contains(short))
        })
    };
    if is_shell(name) {
        return flag('n', &["--noexec"]) && !flag('c', &[]);
    }
    match family(name) {
        "php" => flag('l', &["--syntax-check"]) && !flag('r', &[]),
        "node" => before
            .iter()
            .any(|a| matches!(a.as_str(), "--check" | "-c" | "--prof-process")),
        "ruby" => flag('c', &[]) && !flag('e', &[]),
        "python" => args
            .windows(2)
            .any(|w| w[0] == "-m" && matches!(w[1].as_str(), "py_compile" | "compileall")),
        _ => false,
    }
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

/// The commands in array subscripts of a variable's text (`a[$(rm -rf /)]`): bash runs
/// them whenever the variable is read as a number (`$((x))`, `declare -i`, `[[ x -eq 1 ]]`),
/// so the text is a script of its own.
pub fn subscript_commands(value: &str) -> Vec<String> {
    let b = value.as_bytes();
    let mut out = Vec::new();
    let mut brackets = 0usize;
    let mut k = 0;
    while k < b.len() && out.len() < 16 {
        match b[k] {
            b'[' => brackets += 1,
            b']' => brackets = brackets.saturating_sub(1),
            b'$' if brackets > 0 && b.get(k + 1) == Some(&b'(') => {
                let start = k + 2;
                let rest = &value[start..];
                let end = closing_paren(rest).map_or(value.len(), |end| start + end);
                out.push(value[start..end].to_owned());
                k = end + 1;
                continue;
            }
            b'`' if brackets > 0 => {
                let start = k + 1;
                let end = b[start..]
                    .iter()
                    .position(|&c| c == b'`')
                    .map_or(b.len(), |p| start + p);
                out.push(String::from_utf8_lossy(&b[start..end]).into_owned());
                k = end + 1;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    out
}

/// The linkers rustc's flags `words` name (`-C linker=x`, `-Clinker=x`, `--codegen
/// linker=x`), quoted as commands.
pub fn linkers_in(words: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for (k, w) in words.iter().enumerate() {
        let flag = match *w {
            "-C" | "--codegen" => words.get(k + 1).copied().unwrap_or(""),
            w => w
                .strip_prefix("-C")
                .or_else(|| w.strip_prefix("--codegen="))
                .unwrap_or(""),
        };
        if let Some(linker) = flag.trim_matches(['"', '\'']).strip_prefix("linker=")
            && !linker.is_empty()
        {
            out.push(shell_quote(linker));
        }
    }
    out
}

/// Environment variables whose value a program runs as a command line
/// (`GIT_SSH_COMMAND='…' git fetch`, `export PAGER='…'`).
pub fn runs_value(name: &str) -> bool {
    // Build tools' wrappers and runners: cargo runs `RUSTC_WRAPPER rustc …` and a target's
    // runner with the program built; npm runs scripts through its script shell.
    if name.starts_with("CARGO_TARGET_") && (name.ends_with("_RUNNER") || name.ends_with("_LINKER"))
    {
        return true;
    }
    matches!(
        name,
        // Compilers and tools a build runs by the name it is given.
        "RUSTC"
            | "RUSTDOC"
            | "CARGO_BUILD_RUSTC"
            | "CARGO_BUILD_RUSTDOC"
            | "CC"
            | "CXX"
            | "CPP"
            | "LD"
            | "AR"
            | "FC"
            | "RUSTC_WRAPPER"
            | "RUSTC_WORKSPACE_WRAPPER"
            | "CARGO_BUILD_RUSTC_WRAPPER"
            | "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER"
            | "npm_config_script_shell"
            | "NPM_CONFIG_SCRIPT_SHELL"
            | "GIT_SSH_COMMAND"
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
            | "BROWSER"
    )
}

/// The command line an assignment of `name` runs: the value itself for a variable
/// holding a command ([`runs_value`]), and the substitutions of a prompt string
/// (`PS0='$(…)'`, shown and so expanded by an interactive shell or `bash -x`'s `PS4`).
pub fn value_script(name: &str, value: &str) -> Option<String> {
    if runs_value(name) {
        Some(value.to_owned())
    } else if name.starts_with("BASH_FUNC_") {
        // `env 'BASH_FUNC_echo%%=() { …; }' bash -c echo`: a function the shell started
        // with that environment defines, and runs where the name is called.
        Some(value.trim_start().trim_start_matches("()").to_owned())
    } else if name == "GOFLAGS" {
        // `GOFLAGS=-toolexec=prog`: go runs each tool through the program.
        let runs: Vec<&str> = value
            .split_whitespace()
            .filter_map(|f| {
                f.strip_prefix("-toolexec=")
                    .or_else(|| f.strip_prefix("--toolexec="))
                    .or_else(|| f.strip_prefix("-exec="))
            })
            .collect();
        (!runs.is_empty()).then(|| runs.join("; "))
    } else if name.ends_with("RUSTFLAGS") || name.ends_with("RUSTDOCFLAGS") {
        // `RUSTFLAGS='-C linker=tools/w.sh'` (and `CARGO_ENCODED_RUSTFLAGS`, its words
        // parted by 0x1f): rustc runs the linker named.
        let words: Vec<&str> = value.split(['\u{1f}', ' ', '\t', '\n']).collect();
        let linkers = linkers_in(&words);
        (!linkers.is_empty()).then(|| linkers.join("; "))
    } else if matches!(name, "PERL5OPT" | "RUBYOPT") {
        // `PERL5OPT='-I. -Mevil'`: every perl loads the module first, as `perl -I. -Mevil`.
        let program = if name == "PERL5OPT" { "perl" } else { "ruby" };
        Some(format!("{program} {value} -e 1"))
    } else if name == "PERL5DB" {
        // The debugger's code, run by `perl -d`.
        Some(format!("perl -e {}", shell_quote(value)))
    } else if matches!(name, "TAR_OPTIONS" | "ZIPOPT" | "GZIP" | "BZIP2" | "XZ_OPT") {
        // Options every later run of the program takes first (`TAR_OPTIONS=--to-command=sh`,
        // `ZIPOPT='-TT cmd'`).
        let program = match name {
            "TAR_OPTIONS" => "tar",
            "ZIPOPT" => "zip",
            "GZIP" => "gzip",
            "BZIP2" => "bzip2",
            _ => "xz",
        };
        Some(format!("{program} {value}"))
    } else if matches!(name, "COMPILER_PATH" | "GCC_EXEC_PREFIX") {
        // Folders the compiler runs its assembler and linker from.
        let runs: Vec<String> = value
            .split(':')
            .filter(|d| !d.is_empty())
            .take(8)
            .flat_map(|d| {
                let d = d.trim_end_matches('/');
                ["as", "ld", "collect2"].map(|p| format!("{d}/{p}"))
            })
            .collect();
        (!runs.is_empty()).then(|| runs.join("; "))
    } else if name == "NODE_OPTIONS" {
        // `NODE_OPTIONS='--require ./x.js'`: every node process loads the module first.
        let words: Vec<&str> = value.split_whitespace().collect();
        let mut modules = Vec::new();
        for (k, w) in words.iter().enumerate() {
            let (flag, inline) = w.split_once('=').map_or((*w, None), |(f, v)| (f, Some(v)));
            if matches!(
                flag,
                "-r" | "--require" | "--import" | "--loader" | "--experimental-loader"
            ) && let Some(module) = inline.or_else(|| words.get(k + 1).copied())
            {
                modules.push(format!("node {}", shell_quote(module)));
            }
        }
        (!modules.is_empty()).then(|| modules.join("; "))
    } else if matches!(name, "PS0" | "PS1" | "PS2" | "PS3" | "PS4") && value.contains(['$', '`']) {
        // Expanded as one word, not run: `PS1="(.venv) ${PS1:-}"` runs nothing,
        // `PS1='$(x)'` runs `x`, each substitution parsed as a command line of its own
        // (its quotes taken away: `$(rm .cl""aude/x)` removes `.claude/x`).
        let mut word = value.replace('"', "\\\"");
        if word.ends_with('\\') {
            word.push(' ');
        }
        let mut lines = vec![format!(": \"{word}\"")];
        lines.extend(substitutions(value).into_iter().map(str::to_owned));
        Some(lines.join("\n"))
    } else {
        None
    }
}

/// Where the `)` closing a `(` is in `text`, the text just after that `(`: pairs nested in
/// it counted. `None` when it is not closed.
pub fn closing_paren(text: &str) -> Option<usize> {
    let mut depth = 1usize;
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

/// The command substitutions in `text` (`$(…)`, `` `…` ``), the text of each, those nested
/// in another too (an unclosed one runs to the end); arithmetic (`$((…))`) is none.
pub fn substitutions(text: &str) -> Vec<&str> {
    let dollar = text
        .match_indices("$(")
        .map(|(at, _)| &text[at + 2..])
        .filter(|rest| !rest.starts_with('('))
        .map(|rest| closing_paren(rest).map_or(rest, |end| &rest[..end]));
    let backtick = text.split('`').skip(1).step_by(2);
    dollar.chain(backtick).take(64).collect()
}

/// `word` quoted for a shell as one word.
pub fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Calls of a program's code that decode text hidden on purpose (base64, hex, rot13,
/// compressed bytes), in the languages the guard reads.
const DECODING_CALLS: &[&str] = &[
    "b64decode",
    "b32decode",
    "b16decode",
    "a85decode",
    "b85decode",
    "decodebytes",
    "decodestring",
    "fromhex",
    "unhexlify",
    "atob(",
    "'base64'",
    "\"base64\"",
    "'hex')",
    "\"hex\")",
    "rot13",
    "rot_13",
    "decompress(",
    "inflateSync",
    "gunzipSync",
    "decode_base64",
    "base64_decode",
    "Base64.decode",
    "unpack1(\"m",
    "unpack(\"m",
    "unpack('m",
    "str_rot13",
    "gzinflate",
    "hex2bin",
    "marshal.loads",
    "pickle.loads",
];

/// The first call in `code` that decodes hidden text, when there is one.
pub fn decoding_call(code: &str) -> Option<&'static str> {
    DECODING_CALLS
        .iter()
        .copied()
        .find(|call| code.contains(call))
}

/// `d=$(mktemp -d)`, `f=$(mktemp)`, `t=$(mktemp -t x.XXXXXX)`: a name made fresh in the
/// temporary folder (`$TMPDIR`, else `/tmp`), or beside the line's folder for a template
/// without `-t`; its `X`s stand as they are written. `None` for other options (`-p DIR`,
/// `--tmpdir=DIR`, a template with a folder), which are judged as computed.
pub fn fresh_temporary(raw: &str) -> Option<String> {
    let raw = raw.trim_matches('"');
    let inner = raw
        .strip_prefix("$(")
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| raw.strip_prefix('`').and_then(|r| r.strip_suffix('`')))?;
    let words: Vec<&str> = inner.split_whitespace().collect();
    let (&program, args) = words.split_first()?;
    if program != "mktemp" {
        return None;
    }
    let tmp = || {
        std::env::var("TMPDIR")
            .ok()
            .filter(|t| t.starts_with('/') && !t.contains(['$', '`']))
            .unwrap_or_else(|| "/tmp".to_owned())
    };
    // A folder written out, or the temporary folder by its variable.
    let folder = |dir: &str| -> Option<String> {
        let dir = dir.trim_matches('"');
        for spelled in ["$TMPDIR", "${TMPDIR}", "${TMPDIR:-/tmp}"] {
            if let Some(rest) = dir.strip_prefix(spelled)
                && (rest.is_empty() || rest.starts_with('/'))
                && !rest.contains(['$', '`'])
            {
                return Some(format!("{}{rest}", tmp().trim_end_matches('/')));
            }
        }
        (dir.starts_with('/') && !dir.contains(['$', '`', '\'', '"', '*', '?', '[', '{', '.']))
            .then(|| dir.to_owned())
    };
    let mut template: Option<String> = None;
    let mut in_tmp = false;
    let mut within: Option<String> = None;
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        k += 1;
        match *arg {
            "-d" | "--directory" | "-q" | "--quiet" | "-u" | "--dry-run" => {}
            "-t" => in_tmp = true,
            "-p" => within = Some(folder(args.get(k)?)?).inspect(|_| k += 1),
            a if a.starts_with("--tmpdir=") => within = Some(folder(&a["--tmpdir=".len()..])?),
            a if a.starts_with("--suffix=") => {}
            a if a.starts_with('-') => return None,
            a if template.is_none() && a.contains("XXX") => {
                let a = a.trim_matches('"');
                // `"$TMPDIR/build.XXXXXX"`, `/tmp/x.XXXXXX`: a name made in that folder.
                template = Some(match a.rsplit_once('/') {
                    Some((dir, name)) if !name.contains(['$', '`', '*', '?', '[', '{']) => {
                        format!("{}/{name}", folder(dir)?)
                    }
                    Some(_) => return None,
                    None if a.contains(['$', '`', '\'', '"', '*', '?', '[', '{']) => return None,
                    None => a.to_owned(),
                });
            }
            _ => return None,
        }
    }
    Some(match (template, within) {
        (Some(t), _) if t.starts_with('/') => t,
        (None, Some(dir)) => format!("{}/tmp.XXXXXXXXXX", dir.trim_end_matches('/')),
        (Some(t), Some(dir)) => format!("{}/{t}", dir.trim_end_matches('/')),
        (None, None) => format!("{}/tmp.XXXXXXXXXX", tmp().trim_end_matches('/')),
        (Some(t), None) if in_tmp => format!("{}/{t}", tmp().trim_end_matches('/')),
        (Some(t), None) => t,
    })
}

/// The variables a word refers to: `$x`, `${x}`, `${x:-…}`, `${!x}` (each name once).
pub fn variable_names(word: &str) -> Vec<String> {
    let b = word.as_bytes();
    let mut out: Vec<String> = Vec::new();
    let mut k = 0;
    while k < b.len() && out.len() < 16 {
        if b[k] != b'$' {
            k += 1;
            continue;
        }
        k += 1;
        if b.get(k) == Some(&b'{') {
            k += 1;
            if b.get(k) == Some(&b'!') {
                k += 1;
            }
        }
        let start = k;
        while k < b.len() && (b[k].is_ascii_alphanumeric() || b[k] == b'_') {
            k += 1;
        }
        let name = &word[start..k];
        if name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && !out.iter().any(|n| n == name)
        {
            out.push(name.to_owned());
        }
    }
    out
}

/// `find`'s start points in its arguments `args`: the words before its expression, after
/// the options that come first (`-L`, `-H`, `-P`, and `-D`, `-O` with their values).
pub fn find_starts(args: &[String]) -> &[String] {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        match a.as_str() {
            "-L" | "-H" | "-P" => k += 1,
            "-D" | "-O" => k += 2,
            a if a.starts_with("-O") || a.starts_with("-D") => k += 1,
            _ => break,
        }
    }
    let rest = &args[k.min(args.len())..];
    let n = rest
        .iter()
        .take_while(|a| !a.starts_with('-') && !matches!(a.as_str(), "(" | "!" | ","))
        .count();
    &rest[..n]
}

/// The command line the system runs for a file started by its path whose `#!` line
/// hands its program more than the file (`#!/bin/sh tools/fmt.sh` runs `sh tools/fmt.sh
/// FILE`, `#!/usr/bin/make -sf` runs `make -sf FILE`, `#!/usr/bin/env -S make -f` the
/// same), or that names make; `None` for a plain `#!/bin/sh`, `#!/usr/bin/python3`.
pub fn shebang_line(text: &str, path: &str) -> Option<String> {
    shebang_command(text).map(|command| format!("{command} {}", shell_quote(path)))
}

/// The command a `#!` line makes before the file's own path ([`shebang_line`]), when it
/// is more than a plain interpreter: `sh tools/fmt.sh`, `make -sf`, `node --flag`.
pub fn shebang_command(text: &str) -> Option<String> {
    let line = text.strip_prefix("#!")?.lines().next()?.trim();
    let (program, rest) = match line.split_once(char::is_whitespace) {
        Some((p, r)) => (p, r.trim()),
        None => (line, ""),
    };
    // `env -S` splits what follows into words as a shell would (quotes kept for the
    // shell to read); plain `env` takes one program.
    if basename(program) == "env" {
        let split = rest.strip_prefix("-S").map(str::trim);
        let rest = split.unwrap_or(rest);
        let name = rest.split_whitespace().next().map(basename)?;
        let make = matches!(name, "make" | "gmake" | "bmake");
        if !(split.is_some() && rest.contains(char::is_whitespace) || make) {
            return None;
        }
        let fill = if make && !rest.contains(char::is_whitespace) {
            " -f"
        } else {
            ""
        };
        return Some(format!("{rest}{fill}"));
    }
    let mut words = vec![shell_quote(program)];
    if !rest.is_empty() {
        words.push(shell_quote(rest));
    }
    let make = matches!(basename(program), "make" | "gmake" | "bmake");
    if words.len() < 2 && !make {
        return None;
    }
    if make && words.len() < 2 {
        words.push("-f".to_owned());
    }
    Some(words.join(" "))
}
