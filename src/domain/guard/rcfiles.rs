//! Files a program takes more of its arguments or its commands from, other than a
//! program operand: response files (`gcc @args.rsp`, `objcopy @o.rsp`, `javac @opts`),
//! curl's and wget's configuration (`-K`/`--config`, `~/.curlrc`, `~/.wgetrc`, `wget -e`),
//! and the start-up files debuggers and terminal multiplexers run by themselves
//! (`~/.gdbinit`, `~/.lldbinit`, `~/.tmux.conf`, `~/.screenrc`, and their `-f`/`-c`
//! files). Each is turned into the command lines it makes the program run, to be judged
//! like the same words on the command line: a response file's words in its place, a
//! configuration as the options it sets, a start-up file's shell commands.

use super::shell::{self, SimpleCommand, option_values};

/// How a program reads a file of this module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// More arguments, in place of the `@file` word.
    Args,
    /// curl's configuration: options, one per line.
    Curl,
    /// wget's: `key = value` commands.
    Wget,
    /// gdb's commands.
    Gdb,
    /// lldb's commands.
    Lldb,
    /// tmux's configuration: tmux commands.
    Tmux,
    /// screen's: screen commands.
    Screen,
    /// vim's and ex's: ex commands.
    Vim,
}

/// A file `command` reads this way, as the command line names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RcFile {
    pub(super) file: String,
    /// The program that reads it.
    pub(super) program: String,
    pub(super) kind: Kind,
    /// What it is to the program, for reasons: "a response file", "a start-up file".
    pub(super) what: &'static str,
    /// Named on the line (a missing file is then the program's error), or read by the
    /// program by itself (`~/.gdbinit`).
    pub(super) named: bool,
}

/// Most levels of files naming files (`source-file` in a tmux configuration).
const MAX_DEPTH: usize = 4;
/// Most command lines taken from one file.
const MAX_LINES: usize = 256;

/// Whether a program reads `@file` words as more arguments: the GNU toolchain (compilers,
/// linkers, binutils, cross-prefixed and versioned too), clang, javac and the JDK's tools,
/// kotlinc, scalac and rustc.
fn reads_response_files(command: &SimpleCommand) -> bool {
    let name = command.name();
    let name = name.strip_suffix(".exe").unwrap_or(name);
    // `gcc-13`, `clang-17`, `x86_64-linux-gnu-g++-12`.
    let base = match name.rsplit_once('-') {
        Some((head, version))
            if !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit() || b == b'.') =>
        {
            head
        }
        _ => name,
    };
    let tool = base.rsplit('-').next().unwrap_or(base);
    let toolchain = matches!(
        tool,
        "gcc"
            | "g++"
            | "cc"
            | "c++"
            | "cpp"
            | "clang"
            | "clang++"
            | "gfortran"
            | "gccgo"
            | "gdc"
            | "ld"
            | "ld.bfd"
            | "ld.gold"
            | "ld.lld"
            | "lld"
            | "gold"
            | "as"
            | "ar"
            | "nm"
            | "ranlib"
            | "objcopy"
            | "objdump"
            | "strip"
            | "readelf"
            | "size"
            | "strings"
            | "addr2line"
            | "elfedit"
            | "dlltool"
            | "windres"
            | "tcc"
            | "icc"
            | "icx"
            | "emcc"
            | "em++"
            | "javac"
            | "java"
            | "jar"
            | "javadoc"
            | "jlink"
            | "jpackage"
            | "jdeps"
            | "kotlinc"
            | "scalac"
            | "rustc"
    );
    // `zig cc @f`, `zig build-exe @f`.
    toolchain
        || name == "zig"
            && command.args().first().is_some_and(|s| {
                matches!(
                    s.as_str(),
                    "cc" | "c++" | "build-exe" | "build-obj" | "build-lib" | "objcopy"
                )
            })
}

/// The files `command` reads more arguments or commands from (see the module's text).
pub(super) fn files(command: &SimpleCommand) -> Vec<RcFile> {
    let args = command.args();
    let mut out = Vec::new();
    let mut push = |program: &str, file: &str, kind: Kind, what: &'static str, named: bool| {
        if !file.is_empty() && out.len() < 16 {
            out.push(RcFile {
                file: file.to_owned(),
                program: program.to_owned(),
                kind,
                what,
                named,
            });
        }
    };
    if reads_response_files(command) {
        for a in args {
            if let Some(file) = a.strip_prefix('@').filter(|f| !f.is_empty()) {
                push(
                    command.name(),
                    file,
                    Kind::Args,
                    "a response file of arguments",
                    true,
                );
            }
        }
    }
    // `make CFLAGS=@build.rsp`, `CFLAGS=@f make`: flags make hands the compiler.
    if matches!(command.name(), "make" | "gmake" | "bmake") {
        for assignment in args.iter().chain(&command.env) {
            let Some((var, value)) = assignment.split_once('=') else {
                continue;
            };
            if !var.ends_with("FLAGS") && !matches!(var, "CC" | "CXX" | "LDLIBS") {
                continue;
            }
            for word in value.split_whitespace() {
                if let Some(file) = word.strip_prefix('@').filter(|f| !f.is_empty()) {
                    push("cc", file, Kind::Args, "a response file of arguments", true);
                }
            }
        }
    }
    let home_files = |names: &[&str]| -> Vec<String> {
        let mut all: Vec<String> = names.iter().map(|n| format!("~/{n}")).collect();
        if let Some(xdg) = std::env::var_os("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
            let xdg = xdg.to_string_lossy().trim_end_matches('/').to_owned();
            for n in names {
                if let Some(rest) = n.strip_prefix(".config/") {
                    all.push(format!("{xdg}/{rest}"));
                }
            }
        }
        all
    };
    // The program itself, and the wrappers peeled off it that read files of their own
    // (`screen -dmS w make`, `gdb --args ./x`).
    let mut programs: Vec<(&str, &[String])> = vec![(command.name(), args)];
    if let Some(words) = command.prefixed.as_deref() {
        let end = words.len().saturating_sub(command.argv.len());
        for (at, w) in words[..end].iter().enumerate() {
            let name = shell::basename(w);
            if matches!(name, "screen" | "tmux" | "gdb") {
                programs.push((name, &words[at + 1..end]));
            }
        }
    }
    for (name, args) in programs {
        program_files(name, args, &home_files, &mut push);
        // `SYSSCREENRC=f screen`, `env SCREENRC=f screen`: a start-up file named by a
        // variable set for the run.
        if name == "screen" {
            let given = command
                .env
                .iter()
                .chain(command.prefixed.iter().flatten())
                .filter_map(|w| {
                    w.strip_prefix("SYSSCREENRC=")
                        .or_else(|| w.strip_prefix("SCREENRC="))
                })
                .map(str::to_owned)
                .chain(std::env::var("SYSSCREENRC").ok())
                .filter(|f| !f.is_empty())
                .collect::<Vec<_>>();
            for file in given {
                push(
                    name,
                    &file,
                    Kind::Screen,
                    "its start-up configuration",
                    true,
                );
            }
        }
    }
    out
}

/// The shell commands the tmux commands on `command`'s own line run, those chained with
/// `\;` included (`tmux new -d 'sleep 1' \; run-shell 'cmd' \; source-file f`).
pub(super) fn tmux_line(command: &SimpleCommand) -> Vec<String> {
    let mut out = Vec::new();
    let words: Vec<String> = if command.name() == "tmux" {
        command.args().to_vec()
    } else if let Some(words) = command.prefixed.as_deref()
        && let Some(at) = words.iter().position(|w| shell::basename(w) == "tmux")
    {
        words[at + 1..].to_vec()
    } else {
        return out;
    };
    let (_, rest) = tmux_globals(&words);
    for part in rest.split(|w| w == ";" || w == "\\;") {
        tmux_command(part, 0, &mut out);
        if out.len() >= MAX_LINES {
            break;
        }
    }
    out
}

/// The spec files a GCC-style compiler is handed (`-specs=f`, `--specs f`): they can
/// change every option it runs with and every program it runs, read by nagger no further.
pub(super) fn spec_files(command: &SimpleCommand) -> Vec<String> {
    if !reads_response_files(command) {
        return Vec::new();
    }
    let args = command.args();
    let mut out = Vec::new();
    for (k, a) in args.iter().enumerate() {
        if let Some(f) = a
            .strip_prefix("-specs=")
            .or_else(|| a.strip_prefix("--specs="))
        {
            out.push(f.to_owned());
        } else if matches!(a.as_str(), "-specs" | "--specs") {
            out.extend(args.get(k + 1).cloned());
        }
    }
    out
}

/// The start-up and configuration files of program `name` run with `args`, pushed.
fn program_files(
    name: &str,
    args: &[String],
    home_files: &dyn Fn(&[&str]) -> Vec<String>,
    push: &mut dyn FnMut(&str, &str, Kind, &'static str, bool),
) {
    let mut push = |file: &str, kind: Kind, what: &'static str, named: bool| {
        push(name, file, kind, what, named);
    };
    match name {
        "curl" => {
            for f in curl_words(args).configs {
                push(&f, Kind::Curl, "a configuration file", true);
            }
            if !matches!(args.first().map(String::as_str), Some("-q" | "--disable")) {
                let mut implicit = home_files(&[".curlrc", ".config/curlrc"]);
                if let Some(dir) = std::env::var_os("CURL_HOME").filter(|x| !x.is_empty()) {
                    implicit.push(format!(
                        "{}/.curlrc",
                        dir.to_string_lossy().trim_end_matches('/')
                    ));
                }
                for f in implicit {
                    push(&f, Kind::Curl, "its start-up configuration", false);
                }
            }
        }
        "wget" | "wget2" => {
            for f in option_values(args, &[], &["--config"]) {
                push(f, Kind::Wget, "a configuration file", true);
            }
            if !args.iter().any(|a| a == "--no-config") {
                let implicit = match std::env::var_os("WGETRC").filter(|x| !x.is_empty()) {
                    Some(f) => vec![f.to_string_lossy().into_owned()],
                    None => vec!["~/.wgetrc".to_owned()],
                };
                for f in implicit {
                    push(&f, Kind::Wget, "its start-up configuration", false);
                }
            }
        }
        "gdb" | "gdb-multiarch" | "cgdb" => {
            let none = args
                .iter()
                .any(|a| matches!(a.as_str(), "-nx" | "-n" | "--nx" | "--nh" | "-nh"));
            if !none {
                for f in home_files(&[
                    ".gdbinit",
                    ".config/gdb/gdbinit",
                    ".gdbearlyinit",
                    ".config/gdb/gdbearlyinit",
                ]) {
                    push(&f, Kind::Gdb, "its start-up file", false);
                }
                push(".gdbinit", Kind::Gdb, "its start-up file", false);
            }
        }
        "lldb"
            if !args
                .iter()
                .any(|a| matches!(a.as_str(), "-x" | "--no-lldbinit")) =>
        {
            push("~/.lldbinit", Kind::Lldb, "its start-up file", false);
            push(".lldbinit", Kind::Lldb, "its start-up file", false);
        }
        "tmux" => {
            let (globals, rest) = tmux_globals(args);
            let named = option_values(globals, &["-f"], &[]);
            for f in &named {
                push(f, Kind::Tmux, "a configuration file", true);
            }
            // A server starts (and reads its configuration) for these, or with no command.
            let starts = rest.first().is_none_or(|c| {
                matches!(
                    c.as_str(),
                    "new-session"
                        | "new"
                        | "start-server"
                        | "start"
                        | "attach-session"
                        | "attach"
                        | "a"
                )
            });
            if named.is_empty() && starts {
                for f in home_files(&[".tmux.conf", ".config/tmux/tmux.conf"]) {
                    push(&f, Kind::Tmux, "its start-up configuration", false);
                }
            }
        }
        "screen" => {
            let named = option_values(args, &["-c"], &[]);
            for f in &named {
                push(f, Kind::Screen, "a configuration file", true);
            }
            let only_asks = args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "-ls" | "-list" | "-v" | "--version" | "-wipe" | "-X" | "-Q" | "-h" | "--help"
                )
            });
            if named.is_empty() && !only_asks {
                let implicit = match std::env::var_os("SCREENRC").filter(|x| !x.is_empty()) {
                    Some(f) => f.to_string_lossy().into_owned(),
                    None => "~/.screenrc".to_owned(),
                };
                push(&implicit, Kind::Screen, "its start-up configuration", false);
            }
        }
        _ if shell::is_vim(name) => {
            // `-u FILE` in place of the start-up files (`NONE`, `NORC`, `DEFAULTS`: none
            // of the user's), `--clean`, `-S FILE` (a session, `Session.vim` bare), and
            // files its commands source (`-c 'so f'`, `--cmd 'source f'`).
            // `-u F`, and `-Nu F` (a cluster that ends in the option).
            let mut given = option_values(args, &["-u"], &[]);
            given.extend(args.windows(2).filter_map(|w| {
                (w[0].starts_with('-')
                    && !w[0].starts_with("--")
                    && w[0].len() > 2
                    && w[0].ends_with('u'))
                .then_some(w[1].as_str())
            }));
            // Ex mode made silent (`vim -es`, `ex -s`) skips the start-up files.
            let cluster = |c: char| {
                args.iter().any(|a| {
                    a.starts_with('-')
                        && !a.starts_with("--")
                        && a[1..].contains(c)
                        && a[1..].chars().all(|x| x.is_ascii_alphabetic())
                })
            };
            let silent_ex = cluster('s') && (name == "ex" || cluster('e') || cluster('E'));
            let clean = args.iter().any(|a| a == "--clean") || silent_ex;
            for f in &given {
                if !matches!(*f, "NONE" | "NORC" | "DEFAULTS" | "NOPLUGIN") {
                    push(f, Kind::Vim, "a start-up file", true);
                }
            }
            if given.is_empty() && !clean {
                let names: &[&str] = if name.starts_with("nvim") {
                    &[".config/nvim/init.vim"]
                } else {
                    &[".vimrc", ".vim/vimrc", ".exrc"]
                };
                for f in home_files(names) {
                    push(&f, Kind::Vim, "its start-up file", false);
                }
            }
            for (k, a) in args.iter().enumerate() {
                if a == "-S" {
                    let session = args
                        .get(k + 1)
                        .filter(|n| !n.starts_with('-') && !n.starts_with('+'))
                        .map_or("Session.vim", String::as_str);
                    push(session, Kind::Vim, "a session file", true);
                }
                let sourced = matches!(a.as_str(), "-c" | "--cmd")
                    .then(|| args.get(k + 1))
                    .flatten()
                    .map(String::as_str)
                    .or_else(|| a.strip_prefix('+'))
                    .and_then(|c| {
                        let c = c.trim().trim_start_matches(':');
                        c.strip_prefix("source ")
                            .or_else(|| c.strip_prefix("so "))
                            .or_else(|| c.strip_prefix("so! "))
                            .or_else(|| c.strip_prefix("source! "))
                    });
                // What vim brings itself (`$VIMRUNTIME/defaults.vim`) is no user's file;
                // a name only known as vim runs is not followed.
                if let Some(f) = sourced
                    .map(str::trim)
                    .filter(|f| !f.starts_with("$VIMRUNTIME"))
                {
                    push(f, Kind::Vim, "a script its commands source", false);
                }
            }
        }
        _ => {}
    }
}

/// The command lines that `text`, the contents of `rc` (a file `command` reads, see
/// [`files`]), makes it run: the command again with the file's arguments or options
/// (`gcc -o x a.c` for `gcc @a.rsp`), or the shell commands a start-up file runs. gdb's
/// and lldb's files are code for the debugger and are not turned into lines here.
pub(super) fn lines(command: &SimpleCommand, rc: &RcFile, text: &str) -> Vec<String> {
    let quote = |w: &str| shell::shell_quote(w);
    let join = |words: &[String]| words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
    match rc.kind {
        // Handed on by make to the compiler: the compiler with the file's words.
        Kind::Args if rc.program != command.name() => {
            let mut words = vec![rc.program.clone()];
            words.extend(response_words(text));
            vec![join(&words)]
        }
        Kind::Args => {
            let mut words: Vec<String> = Vec::new();
            for w in &command.argv {
                if w.strip_prefix('@') == Some(rc.file.as_str()) {
                    words.extend(response_words(text));
                } else {
                    words.push(w.clone());
                }
            }
            vec![join(&words)]
        }
        Kind::Curl => {
            // The configuration's options, then the line's own without its configuration
            // files, and `-q` first so that no start-up file is read again.
            let mut words = vec![command.argv[0].clone(), "-q".to_owned()];
            words.extend(curl_config_words(text));
            words.extend(curl_words(command.args()).rest);
            vec![join(&words)]
        }
        Kind::Wget => {
            let mut words = vec![command.argv[0].clone(), "--no-config".to_owned()];
            words.extend(text.lines().filter_map(wget_option));
            words.extend(
                without_values(command.args(), &["--config"], &[])
                    .into_iter()
                    .filter(|w| w != "--no-config"),
            );
            vec![join(&words)]
        }
        Kind::Gdb | Kind::Lldb => Vec::new(),
        Kind::Tmux => tmux_lines(text, 0),
        Kind::Screen => screen_lines(text, 0),
        // The file's commands as the line's own, with the files the line opens: what
        // they write (`:x` of a file named on the line) is judged with them.
        Kind::Vim => vec![vim_line(command, text)],
    }
}

/// Whether the ex command `line` only sets an option, a mapping, colours or a variable
/// to plain values (`set number`, `nnoremap <leader>w :w<CR>`, `exe "set cc=" . n`):
/// nothing that runs or writes when a start-up file is read.
fn vim_setting(line: &str) -> bool {
    let line = line.trim_start_matches(':');
    let first = line.split_whitespace().next().unwrap_or("");
    // A shell command (`!cmd`, `silent !cmd`, `| !cmd`), not a `!` of a command's own
    // (`runtime!`, `unlet!`, `silent!`).
    let shell = line.starts_with('!') || line.contains(" !") || line.contains("|!");
    let runs = shell
        || [
            "system",
            "job_start",
            "jobstart",
            "termopen",
            "`",
            "writefile",
            "delete(",
            "rename(",
        ]
        .iter()
        .any(|w| line.contains(w));
    if runs {
        return false;
    }
    let plain = matches!(
        first,
        "set"
            | "se"
            | "setlocal"
            | "setl"
            | "setglobal"
            | "setg"
            | "syntax"
            | "syn"
            | "filetype"
            | "colorscheme"
            | "colo"
            | "highlight"
            | "hi"
            | "let"
            | "packadd"
            | "runtime!"
            | "scriptencoding"
            | "language"
            | "lang"
    ) || first.ends_with("map")
        || first.ends_with("noremap")
        || first.ends_with("unmap");
    // `exe "set cc=" . n`: built, but from a plain command.
    let built_setting = matches!(first, "exe" | "execute" | "exec")
        && line[first.len()..]
            .trim()
            .strip_prefix(['"', '\''])
            .and_then(|r| r.split_whitespace().next())
            .is_some_and(|w| {
                matches!(
                    w,
                    "set"
                        | "se"
                        | "setlocal"
                        | "let"
                        | "hi"
                        | "highlight"
                        | "so"
                        | "source"
                        | "runtime"
                        | "colorscheme"
                        | "syntax"
                        | "filetype"
                )
            });
    plain || built_setting
}

/// The command an `autocmd` line runs on its event: `au[tocmd][!] [group] EVENTS
/// PATTERN [++once] [++nested] CMD`, without a leading `silent`.
fn autocmd_command(line: &str) -> Option<&str> {
    let first = line.split_whitespace().next()?;
    if !matches!(
        first,
        "au" | "au!" | "autocmd" | "autocmd!" | "aut" | "autoc"
    ) {
        return None;
    }
    let mut rest = line[first.len()..].trim_start();
    let skip = |rest: &mut &str| {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        *rest = rest[end..].trim_start();
    };
    // An optional group (events are written capitalised: `BufWritePre`).
    if rest.chars().next().is_some_and(|c| !c.is_ascii_uppercase()) {
        skip(&mut rest);
    }
    skip(&mut rest); // events
    skip(&mut rest); // pattern
    while rest.starts_with("++") || rest.starts_with("silent") {
        skip(&mut rest);
    }
    (!rest.is_empty()).then_some(rest)
}

/// `vim -N -u NONE -es` with each ex command of `text` as a `-c`, and the files `command`
/// opens.
pub(super) fn vim_line(command: &SimpleCommand, text: &str) -> String {
    let quote = |w: &str| shell::shell_quote(w);
    let mut words = vec![
        "vim".to_owned(),
        "-N".to_owned(),
        "-u".to_owned(),
        "NONE".to_owned(),
        "-es".to_owned(),
    ];
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('"') && !vim_setting(l))
        .take(MAX_LINES)
    {
        words.push("-c".to_owned());
        words.push(quote(line));
        // `autocmd BufReadPost * silent !cmd`: the command it runs on the event.
        if let Some(command) = autocmd_command(line) {
            words.push("-c".to_owned());
            words.push(quote(command));
        }
    }
    words.extend(
        super::finding::operands_with(
            command.args(),
            &["-u", "-S", "-c", "-i", "-T", "-w", "-W", "-s"],
            &["--cmd"],
        )
        .into_iter()
        .filter(|a| !a.starts_with('+'))
        .take(16)
        .map(quote),
    );
    words.join(" ")
}

/// What text written into `path` makes a program run later, when `path` is one of the
/// start-up files of [`files`] (a home's `.curlrc`, `.wgetrc`, `.tmux.conf`, `.screenrc`,
/// `.gdbinit`, `.lldbinit`): the command lines it runs, `None` for other files.
pub(super) fn written_runs(path: &str, text: &str) -> Option<Vec<String>> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let parent = path.rsplit('/').nth(1).unwrap_or("");
    let quote = |w: &str| shell::shell_quote(w);
    let lines = match (parent, name) {
        (_, ".curlrc" | "_curlrc") | (".config", "curlrc") => {
            let words: Vec<String> = curl_config_words(text);
            vec![format!(
                "curl -q {} file:///dev/null",
                words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
            )]
        }
        (_, ".wgetrc") => {
            let words: Vec<String> = text.lines().filter_map(wget_option).collect();
            vec![format!(
                "wget --no-config {} file:///dev/null",
                words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
            )]
        }
        (_, ".tmux.conf") | ("tmux", "tmux.conf") => tmux_lines(text, 0),
        (_, ".screenrc") => screen_lines(text, 0),
        (_, ".gdbinit" | ".gdbearlyinit") | ("gdb", "gdbinit" | "gdbearlyinit") => text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .take(MAX_LINES)
            .map(|l| format!("gdb -batch -ex {}", quote(l)))
            .collect(),
        (_, ".lldbinit") => text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .take(MAX_LINES)
            .map(|l| format!("lldb --batch -o {}", quote(l)))
            .collect(),
        _ => return None,
    };
    Some(lines)
}

/// A response file's words: split at white space, with `'…'` and `"…"` grouping and a
/// backslash taking the next character as it is (as GCC and the JDK read them).
pub(super) fn response_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut started = false;
    let (mut single, mut double) = (false, false);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if !single => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
                started = true;
            }
            '\'' if !double => {
                single = !single;
                started = true;
            }
            '"' if !single => {
                double = !double;
                started = true;
            }
            c if c.is_whitespace() && !single && !double => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
        if words.len() >= 4096 {
            break;
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// curl's words split into its configuration files (`-K F`, `--config F`, `-sKF`) and
/// the rest, clusters of short options taken apart (`-sKF` → `-s`).
struct CurlWords {
    configs: Vec<String>,
    rest: Vec<String>,
}

/// curl's short options that take a value: in a cluster, the rest of the word (or the
/// next word) is it.
const CURL_VALUED: &str = "AbcCdDeEFHKmoPQrtTuUwxXyYz";

fn curl_words(args: &[String]) -> CurlWords {
    let mut configs = Vec::new();
    let mut rest = Vec::new();
    let mut k = 0;
    while let Some(a) = args.get(k) {
        k += 1;
        if a == "--" {
            rest.extend(args[k - 1..].iter().cloned());
            break;
        }
        if a == "--config" {
            configs.extend(args.get(k).cloned());
            k += 1;
            continue;
        }
        if let Some(v) = a.strip_prefix("--config=") {
            configs.push(v.to_owned());
            continue;
        }
        let cluster = a
            .strip_prefix('-')
            .filter(|c| !c.starts_with('-') && !c.is_empty());
        let Some(cluster) = cluster else {
            rest.push(a.clone());
            continue;
        };
        for (at, letter) in cluster.char_indices() {
            if CURL_VALUED.contains(letter) {
                let inline = &cluster[at + letter.len_utf8()..];
                let value = if inline.is_empty() {
                    k += 1;
                    args.get(k - 1).cloned().unwrap_or_default()
                } else {
                    inline.to_owned()
                };
                if letter == 'K' {
                    configs.push(value);
                } else {
                    rest.push(format!("-{letter}"));
                    rest.push(value);
                }
                break;
            }
            rest.push(format!("-{letter}"));
        }
    }
    CurlWords { configs, rest }
}

/// The options a curl configuration sets, as command-line words: `output = "x"` →
/// `--output x`, `-o x` → `-o x`; values in double quotes with curl's escapes (`\t`, `\n`,
/// `\r`, `\v`; any other escaped character stands for itself).
pub(super) fn curl_config_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for line in text.lines().take(4096) {
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let end = line
            .find(|c: char| c.is_whitespace() || c == '=' || c == ':')
            .unwrap_or(line.len());
        let name = &line[..end];
        let rest = line[end..].trim_start();
        let rest = rest.strip_prefix(['=', ':']).map_or(rest, str::trim_start);
        words.push(if name.starts_with('-') {
            name.to_owned()
        } else {
            format!("--{name}")
        });
        let value = if let Some(quoted) = rest.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.chars();
            while let Some(c) = chars.next() {
                match c {
                    '"' => break,
                    '\\' => match chars.next() {
                        Some('t') => value.push('\t'),
                        Some('n') => value.push('\n'),
                        Some('r') => value.push('\r'),
                        Some('v') => value.push('\u{b}'),
                        Some(other) => value.push(other),
                        None => {}
                    },
                    c => value.push(c),
                }
            }
            Some(value)
        } else {
            rest.split_whitespace().next().map(str::to_owned)
        };
        words.extend(value);
    }
    words
}

/// The option a wget start-up command (`output_document = f`, also given with `-e`)
/// sets, for the commands that name a file or folder wget writes or reads.
fn wget_option(line: &str) -> Option<String> {
    let line = line.trim();
    if line.starts_with('#') {
        return None;
    }
    let (key, value) = line.split_once('=')?;
    let key: String = key
        .trim()
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .collect::<String>()
        .to_ascii_lowercase();
    let option = match key.as_str() {
        "outputdocument" => "--output-document",
        "dirprefix" => "--directory-prefix",
        "logfile" => "--output-file",
        "savecookies" => "--save-cookies",
        "warcfile" => "--warc-file",
        "hstsfile" => "--hsts-file",
        "inputfile" | "input" => "--input-file",
        "postfile" => "--post-file",
        "bodyfile" => "--body-file",
        "loadcookies" => "--load-cookies",
        _ => return None,
    };
    Some(format!(
        "{option}={}",
        value.trim().trim_matches(['"', '\''])
    ))
}

/// `args` without the options named and their values (`--config F`, `--config=F`).
fn without_values(args: &[String], long: &[&str], short: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(a) = args.get(k) {
        k += 1;
        if long.contains(&a.as_str()) || short.contains(&a.as_str()) {
            k += 1;
            continue;
        }
        if long
            .iter()
            .any(|l| a.strip_prefix(l).is_some_and(|r| r.starts_with('=')))
        {
            continue;
        }
        out.push(a.clone());
    }
    out
}

/// tmux's options before its command (`-f F`, `-L name`, `-S path`, `-2u`) and the rest.
fn tmux_globals(args: &[String]) -> (&[String], &[String]) {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        if !a.starts_with('-') || a == "-" {
            break;
        }
        if a == "--" {
            k += 1;
            break;
        }
        // `-f F`, `-L L`, `-S S`, `-T F`, `-c CMD` take the next word unless joined.
        let valued = a.len() == 2 && matches!(&a[1..], "f" | "L" | "S" | "T" | "c");
        k += if valued { 2 } else { 1 };
    }
    let k = k.min(args.len());
    (&args[..k], &args[k..])
}

/// The shell commands a tmux configuration (or a tmux command line inside one) runs:
/// `run-shell`, `if-shell`, the commands new sessions, windows, panes and popups start,
/// `pipe-pane`, `default-command`, `#(…)` in formats, with `bind-key`, `if-shell`'s
/// branches and hooks read as tmux commands, and `source-file` read as another
/// configuration (`tmux -f F start-server`).
fn tmux_lines(text: &str, depth: usize) -> Vec<String> {
    let mut out = Vec::new();
    if depth > MAX_DEPTH {
        return out;
    }
    let joined = text.replace("\\\n", " ");
    for line in joined.lines().take(4096) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // `#(cmd)` anywhere: run by the shell when the format is drawn.
        out.extend(format_commands(line));
        let words = response_words(line);
        for command in words.split(|w| w == ";" || w == "\\;") {
            tmux_command(command, depth, &mut out);
        }
        if out.len() >= MAX_LINES {
            out.truncate(MAX_LINES);
            break;
        }
    }
    out
}

/// The shell commands in `#(…)` of a tmux format.
fn format_commands(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("#(") {
        let inner = &rest[at + 2..];
        let Some(end) = shell::closing_paren(inner) else {
            out.push(inner.to_owned());
            break;
        };
        out.push(inner[..end].to_owned());
        rest = &inner[end + 1..];
    }
    out
}

/// One tmux command's shell commands, pushed onto `out`.
fn tmux_command(words: &[String], depth: usize, out: &mut Vec<String>) {
    let Some((name, args)) = words.split_first() else {
        return;
    };
    // The operands after options, skipping the values of those in `valued`.
    let operands = |valued: &str| -> Vec<String> {
        let mut ops = Vec::new();
        let mut k = 0;
        let mut options = true;
        while let Some(a) = args.get(k) {
            k += 1;
            if options && a == "--" {
                options = false;
                continue;
            }
            if options && a.starts_with('-') && a.len() > 1 {
                // `-t target`, `-ttarget`: the last letter of a cluster may take a value.
                let last = a.chars().last().unwrap_or('-');
                if a.len() == 2 && valued.contains(last) {
                    k += 1;
                }
                continue;
            }
            options = false;
            ops.push(a.clone());
        }
        ops
    };
    let again = |text: &str, out: &mut Vec<String>| {
        if depth < MAX_DEPTH {
            for command in response_words(text).split(|w| w == ";" || w == "\\;") {
                tmux_command(command, depth + 1, out);
            }
        }
    };
    match name.as_str() {
        "run-shell" | "run" => {
            let ops = operands("dt");
            if args.iter().any(|a| a == "-C") {
                for op in &ops {
                    again(op, out);
                }
            } else {
                out.extend(ops.first().cloned());
            }
        }
        "if-shell" | "if" => {
            let ops = operands("t");
            if !args.iter().any(|a| a == "-F") {
                out.extend(ops.first().cloned());
            }
            for branch in ops.iter().skip(1) {
                again(branch, out);
            }
        }
        "new-session" | "new" | "new-window" | "neww" | "split-window" | "splitw"
        | "respawn-pane" | "respawnp" | "respawn-window" | "respawnw" | "pipe-pane" | "pipep"
        | "display-popup" | "popup" => {
            // Each command's options that take a value.
            let valued = match name.as_str() {
                "new-session" | "new" => "cefnstxy",
                "new-window" | "neww" => "ceFnt",
                "split-window" | "splitw" => "ceFlpt",
                "pipe-pane" | "pipep" => "t",
                "display-popup" | "popup" => "bcdehsStTwxy",
                _ => "cet",
            };
            let ops = operands(valued);
            if !ops.is_empty() {
                out.push(ops.join(" "));
            }
        }
        // Read as another configuration; the start-up files themselves (sourced again by
        // the usual reload binding, `bind r source-file ~/.tmux.conf`) are read already.
        "source-file" | "source" => {
            for file in operands("t") {
                let start_up = [".tmux.conf", "tmux.conf"]
                    .iter()
                    .any(|n| file.trim_end_matches('/').ends_with(n));
                if !start_up {
                    out.push(format!(
                        "tmux -f {} start-server",
                        shell::shell_quote(&file)
                    ));
                }
            }
        }
        "bind-key" | "bind" => {
            let ops = operands("TN");
            if ops.len() > 1 {
                tmux_command(&ops[1..], depth + 1, out);
            }
        }
        "set-hook" => {
            let ops = operands("t");
            if let Some(command) = ops.get(1) {
                again(command, out);
            }
        }
        "set" | "set-option" | "setw" | "set-window-option" => {
            let ops = operands("t");
            if let [option, value, ..] = ops.as_slice()
                && matches!(option.as_str(), "default-command" | "default-shell")
            {
                out.push(value.clone());
            }
        }
        "command-prompt" | "confirm-before" | "confirm" => {
            if let Some(template) = operands("ItpT").last() {
                again(template, out);
            }
        }
        _ => {}
    }
}

/// The shell commands a screen configuration runs: `screen` and `exec` commands,
/// `backtick`, commands bound to keys or run by `eval` and `at`, `source` read as another
/// configuration (`screen -c F -dm true`), and the files it writes (`logfile`,
/// `bufferfile`, `hardcopy`, `writebuf`) as appending to them.
fn screen_lines(text: &str, depth: usize) -> Vec<String> {
    let mut out = Vec::new();
    if depth > MAX_DEPTH {
        return out;
    }
    for line in text.lines().take(4096) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words = response_words(line);
        for command in words.split(|w| w == ";") {
            screen_command(command, depth, &mut out);
        }
        if out.len() >= MAX_LINES {
            out.truncate(MAX_LINES);
            break;
        }
    }
    out
}

fn screen_command(words: &[String], depth: usize, out: &mut Vec<String>) {
    let Some((name, args)) = words.split_first() else {
        return;
    };
    let quote = |w: &str| shell::shell_quote(w);
    let join = |words: &[String]| words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
    match name.as_str() {
        "screen" => {
            let mut k = 0;
            while let Some(a) = args.get(k) {
                if matches!(a.as_str(), "-t" | "-T" | "-h" | "-Logfile") {
                    k += 2;
                } else if a.starts_with('-') || a.bytes().all(|b| b.is_ascii_digit()) {
                    k += 1;
                } else {
                    break;
                }
            }
            let rest = &args[k.min(args.len())..];
            if !rest.is_empty() {
                out.push(join(rest));
            }
        }
        "exec" => {
            // An optional pattern of how the descriptors are joined (`!..|`, `.!.`).
            let skip = usize::from(
                args.first()
                    .is_some_and(|a| !a.is_empty() && a.chars().all(|c| ".!:|".contains(c))),
            );
            let rest = &args[skip.min(args.len())..];
            if !rest.is_empty() {
                out.push(join(rest));
            }
        }
        "backtick" if args.len() > 3 => out.push(join(&args[3..])),
        "source" => {
            for file in args {
                out.push(format!("screen -c {} -dm true", quote(file)));
            }
        }
        "logfile" | "bufferfile" | "hardcopy" | "writebuf" | "hardcopydir" => {
            for file in args.iter().filter(|a| !a.starts_with('-')) {
                if matches!(file.as_str(), "flush") {
                    continue;
                }
                out.push(format!(": >> {}", quote(file)));
            }
        }
        "bind" | "bindkey" if depth < MAX_DEPTH => {
            let rest: Vec<String> = args
                .iter()
                .skip_while(|a| a.starts_with('-'))
                .skip(1)
                .cloned()
                .collect();
            screen_command(&rest, depth + 1, out);
        }
        "at" if depth < MAX_DEPTH && args.len() > 1 => {
            screen_command(&args[1..], depth + 1, out);
        }
        "eval" if depth < MAX_DEPTH => {
            for a in args {
                screen_command(&response_words(a), depth + 1, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn response_files_split_like_the_toolchain() {
        assert_eq!(
            response_words("-o ../bin/nagger\n'a b' \"c\\\"d\" e\\ f"),
            vec!["-o", "../bin/nagger", "a b", "c\"d", "e f"]
        );
        let gcc = shell::parse("x86_64-linux-gnu-gcc-12 a.c @build/cc.rsp");
        let found = files(&gcc.commands[0]);
        assert_eq!(found[0].file, "build/cc.rsp");
        assert_eq!(
            lines(&gcc.commands[0], &found[0], "-o ../bin/nagger"),
            vec!["'x86_64-linux-gnu-gcc-12' 'a.c' '-o' '../bin/nagger'"]
        );
        assert!(files(&shell::parse("echo @x").commands[0]).is_empty());
    }

    #[test]
    fn curl_configuration_reads_as_its_options() {
        assert_eq!(
            curl_config_words("# c\noutput = \".cl\\aude/s.json\"\n-s\nurl: x\n"),
            vec!["--output", ".claude/s.json", "-s", "--url", "x"]
        );
        let w = curl_words(&words("-sKbuild/c.cfg -o out URL"));
        assert_eq!(w.configs, vec!["build/c.cfg"]);
        assert_eq!(w.rest, vec!["-s", "-o", "out", "URL"]);
        let curl = shell::parse("curl -q file:///x");
        assert!(files(&curl.commands[0]).iter().all(|f| f.named));
    }

    #[test]
    fn tmux_and_screen_configurations_yield_their_shell_commands() {
        let tmux = tmux_lines(
            "set -g status-right '#(date)'\nrun-shell \"cp a .claude/x\"\nbind r run -b 'make x'\nif-shell 'test -f y' 'new-window \"vim y\"'\nsource-file ~/.tmux.local\nnew-session -d -s w 'sleep 2'\n",
            0,
        );
        assert_eq!(
            tmux,
            vec![
                "date",
                "cp a .claude/x",
                "make x",
                "test -f y",
                "vim y",
                "tmux -f '~/.tmux.local' start-server",
                "sleep 2"
            ]
        );
        let screen = screen_lines(
            "screen -t build 1 sh -c \"cp a b\"\nexec !.. cat\nbacktick 1 5 5 uptime\nlogfile .claude/settings.json\nbind x exec rm q\n",
            0,
        );
        assert_eq!(
            screen,
            vec![
                "'sh' '-c' 'cp a b'",
                "'cat'",
                "'uptime'",
                ": >> '.claude/settings.json'",
                "'rm' 'q'"
            ]
        );
    }

    #[test]
    fn start_up_files_written_say_what_they_run() {
        assert_eq!(
            written_runs("/home/u/.gdbinit", "# x\nshell cp a b\n"),
            Some(vec!["gdb -batch -ex 'shell cp a b'".to_owned()])
        );
        assert!(written_runs("/home/u/notes.txt", "x").is_none());
        assert_eq!(
            written_runs("/home/u/.wgetrc", "output_document = .claude/s.json\n"),
            Some(vec![
                "wget --no-config '--output-document=.claude/s.json' file:///dev/null".to_owned()
            ])
        );
    }
}
