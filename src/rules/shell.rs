//! Shell tokeniser for command rules and the guard: turns a Bash command line into the
//! simple commands it would run, with wrappers (`sudo`, `env`, `xargs`, `bash -c`, `eval` …)
//! peeled off. Nothing is expanded or executed. Any input terminates without panicking,
//! with nesting depth, command count and bytes scanned bounded; the guard refuses what
//! went past a bound rather than trusting the part it saw.

use std::fmt;
use std::ops::Range;

/// Deepest nesting of subshells, substitutions and `bash -c` scripts that is analysed.
pub const MAX_DEPTH: usize = 16;
/// Most simple commands collected from one command line.
pub const MAX_COMMANDS: usize = 4096;
/// Most bytes scanned for one command line, counting every re-scan of an unwrapped
/// script: bounds the work on any input.
pub const MAX_SCANNED_BYTES: usize = 1 << 20;
/// Most wrapper prefixes peeled off one simple command.
const MAX_PREFIXES: usize = 32;
/// Deepest nesting of quotes and `${…}` inside one word.
const MAX_WORD_NESTING: usize = 32;

/// Where a simple command was found, when it is not at the top level of the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// `$( … )`
    Substitution,
    /// `` ` … ` ``
    Backticks,
    /// `<( … )` or `>( … )`
    ProcessSubstitution,
    /// A script handed to another program: `bash -c`, `eval`, `su -c`, `find -exec`,
    /// `bash <<EOF`, `watch`.
    Script(String),
}

impl fmt::Display for Via {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Via::Substitution => f.write_str("`$(…)`"),
            Via::Backticks => f.write_str("backticks"),
            Via::ProcessSubstitution => f.write_str("`<(…)`"),
            Via::Script(how) => write!(f, "`{how}`"),
        }
    }
}

/// One simple command: the argv a program would be started with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Words after assignments, reserved words and wrapper prefixes; never empty.
    pub argv: Vec<String>,
    /// Wrappers peeled off, outermost first (`sudo`, `env`, `timeout` …).
    pub prefixes: Vec<String>,
    /// The words before the wrappers were peeled off, when there were any.
    pub prefixed: Option<Vec<String>>,
    /// Runs with elevated privileges: `sudo`, `doas` or `su` here or around its script.
    pub sudo: bool,
    /// Enclosing constructs, outermost first; empty at the top level.
    pub via: Vec<Via>,
    /// Pipeline this command is a stage of (unique within one `parse`).
    pub pipeline: u32,
    /// Position in its pipeline, 0 for the first.
    pub stage: u32,
    /// Targets of output redirections (`>file`, `>>file`, `&>file`).
    pub writes_to: Vec<String>,
    /// Sources of input redirections (`<file`, `< <(…)`).
    pub reads_from: Vec<String>,
    /// Words (of argv or redirections) holding substitutions, each with the indices in
    /// [`Parsed::commands`] of the commands its substitutions run.
    pub substitutions: Vec<(String, Range<usize>)>,
}

impl SimpleCommand {
    /// Program name without its directory: `/usr/bin/rm` → `rm`.
    pub fn name(&self) -> &str {
        self.argv.first().map_or("", |a| basename(a))
    }

    /// The words after the program name.
    pub fn args(&self) -> &[String] {
        self.argv.get(1..).unwrap_or(&[])
    }

    /// argv joined with single spaces: what rule globs are matched against.
    pub fn normalized(&self) -> String {
        self.argv.join(" ")
    }

    /// Every form a glob may match: as typed, with its wrappers, with the program's
    /// directory dropped, with combined short flags split (`-rf` → `-r -f`).
    pub fn variants(&self) -> Vec<String> {
        let mut out = vec![self.normalized()];
        if let Some(prefixed) = &self.prefixed {
            out.push(prefixed.join(" "));
        }
        let mut short = Vec::with_capacity(self.argv.len());
        short.push(self.name().to_owned());
        short.extend(self.args().iter().cloned());
        let split = split_short_flags(&short);
        for candidate in [short.join(" "), split.join(" ")] {
            if !out.contains(&candidate) {
                out.push(candidate);
            }
        }
        out
    }

    /// The command as a reader would type it, for messages.
    pub fn display(&self) -> String {
        let words: Vec<String> = self.argv.iter().map(|a| quote_for_display(a)).collect();
        words.join(" ")
    }

    /// ` (from `bash -c`)`, ` (from `$(…)` in `eval`)`, or nothing at the top level.
    pub fn origin(&self) -> String {
        if self.via.is_empty() {
            return String::new();
        }
        let chain: Vec<String> = self.via.iter().rev().map(|v| v.to_string()).collect();
        format!(" (from {})", chain.join(" in "))
    }
}

/// The simple commands of one command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub commands: Vec<SimpleCommand>,
    /// Nesting went past [`MAX_DEPTH`] (or quotes inside a word past their own bound);
    /// deeper commands were not collected.
    pub too_deep: bool,
    /// More than [`MAX_COMMANDS`] simple commands or [`MAX_SCANNED_BYTES`] scanned; the
    /// rest was not collected.
    pub truncated: bool,
}

/// Tokenise a command line into its simple commands.
pub fn parse(src: &str) -> Parsed {
    let mut out = Collector::default();
    parse_script(src.as_bytes(), 0, &Context::default(), &mut out);
    Parsed {
        commands: out.commands,
        too_deep: out.too_deep,
        truncated: out.truncated,
    }
}

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

/// Whether an option is set among `args`, by short letter (also inside clusters such as
/// `-rfv`) or by long name (`--force`). Stops at `--`.
pub fn has_flag(args: &[String], short: &str, long: &[&str]) -> bool {
    for arg in args {
        if arg == "--" {
            return false;
        }
        if let Some(name) = arg.strip_prefix("--") {
            let name = name.split_once('=').map_or(name, |(n, _)| n);
            if long.contains(&name) {
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
struct Interpreter {
    shell: bool,
    code_flags: &'static str,
    value_flags: &'static str,
}

fn interpreter(name: &str) -> Option<Interpreter> {
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
        "perl" => ("eE", ""),
        "ruby" => ("e", "Ir"),
        "node" | "nodejs" => ("ep", "r"),
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

/// The script of `sh -c 'script'` (any shell, any flag spelling such as `bash -lc`).
fn shell_c_script(argv: &[String]) -> Option<&str> {
    let mut c_mode = false;
    let mut j = 1;
    while let Some(arg) = argv.get(j) {
        if arg == "--" || arg == "-" {
            j += 1;
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if let Some(script) = long.strip_prefix("command=") {
                return Some(script);
            }
            if long == "command" {
                return argv.get(j + 1).map(String::as_str);
            }
            j += if matches!(long, "rcfile" | "init-file") {
                2
            } else {
                1
            };
            continue;
        }
        let Some(flags) = arg
            .strip_prefix('-')
            .or_else(|| arg.strip_prefix('+'))
            .filter(|f| !f.is_empty())
        else {
            break;
        };
        c_mode |= flags.contains('c');
        j += if flags.ends_with(['o', 'O']) { 2 } else { 1 };
    }
    if c_mode {
        argv.get(j).map(String::as_str)
    } else {
        None
    }
}

/// Index of the first operand at or after `start`, skipping options. Short options in
/// `short_values` take a value (attached or the next word); so do the long options in
/// `long_values` unless written `--name=value`.
fn skip_options(args: &[String], start: usize, short_values: &str, long_values: &[&str]) -> usize {
    let mut j = start;
    while let Some(arg) = args.get(j) {
        if arg == "--" {
            return j + 1;
        }
        if let Some(long) = arg.strip_prefix("--") {
            j += if !long.contains('=') && long_values.contains(&long) {
                2
            } else {
                1
            };
            continue;
        }
        let Some(flags) = short_cluster(arg) else {
            break;
        };
        for (pos, flag) in flags.char_indices() {
            if short_values.contains(flag) {
                if pos + flag.len_utf8() == flags.len() {
                    j += 1;
                }
                break;
            }
        }
        j += 1;
    }
    j
}

/// `NAME=value` as a word of text (after `env`, `sudo`).
fn is_assignment_text(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(name, _)| is_assignment_name(name.as_bytes()))
}

fn is_assignment_name(name: &[u8]) -> bool {
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

fn skip_assignments(args: &[String], mut j: usize) -> usize {
    while args.get(j).is_some_and(|a| is_assignment_text(a)) {
        j += 1;
    }
    j
}

fn quote_for_display(word: &str) -> String {
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
const RESERVED: &[&[u8]] = &[
    b"!", b"{", b"}", b"if", b"then", b"else", b"elif", b"fi", b"do", b"done", b"while", b"until",
    b"esac", b"coproc",
];

/// Wrappers and what a simple command is left with once they are peeled off.
struct Peeled {
    argv: Vec<String>,
    prefixes: Vec<String>,
    /// The words before peeling, when anything was peeled.
    original: Option<Vec<String>>,
    sudo: bool,
}

fn peel_prefixes(mut args: Vec<String>) -> Peeled {
    let mut start = 0;
    let mut prefixes = Vec::new();
    let mut original = None;
    let mut sudo = false;
    for _ in 0..MAX_PREFIXES {
        let Some(first) = args.get(start) else { break };
        let name = basename(first);
        let mut elevated = false;
        let mut split = None;
        let next = match name {
            "sudo" => {
                elevated = true;
                let j = skip_options(
                    &args,
                    start + 1,
                    "ugpCDrtUTRh",
                    &[
                        "user",
                        "group",
                        "prompt",
                        "close-from",
                        "chdir",
                        "role",
                        "type",
                        "other-user",
                        "command-timeout",
                        "chroot",
                        "host",
                    ],
                );
                skip_assignments(&args, j)
            }
            "doas" => {
                elevated = true;
                skip_options(&args, start + 1, "uC", &[])
            }
            "env" => {
                let (j, value) = skip_env_options(&args, start + 1);
                split = value;
                skip_assignments(&args, j)
            }
            "command" => {
                if has_flag(&args[start + 1..], "vV", &[]) {
                    break; // `command -v rm` describes rm, it does not run it
                }
                skip_options(&args, start + 1, "", &[])
            }
            "builtin" | "nohup" | "setsid" => skip_options(&args, start + 1, "", &[]),
            "exec" => skip_options(&args, start + 1, "a", &[]),
            "nice" => skip_options(&args, start + 1, "n", &["adjustment"]),
            "time" => skip_options(&args, start + 1, "fo", &["format", "output"]),
            "timeout" => skip_options(&args, start + 1, "sk", &["signal", "kill-after"]) + 1,
            "xargs" => skip_options(
                &args,
                start + 1,
                "IdELnPsa",
                &[
                    "arg-file",
                    "delimiter",
                    "max-args",
                    "max-procs",
                    "max-chars",
                    "process-slot-var",
                ],
            ),
            "stdbuf" => skip_options(&args, start + 1, "ioe", &["input", "output", "error"]),
            "ionice" => skip_options(&args, start + 1, "cn", &["class", "classdata"]),
            "busybox" => start + 1,
            _ => break,
        };
        let name = name.to_owned();
        if let Some(script) = split {
            // `env -S 'cmd args'` splits its value into the command's words.
            let mut words: Vec<String> = script.split_whitespace().map(str::to_owned).collect();
            words.extend(args.get(next..).unwrap_or(&[]).iter().cloned());
            if words.is_empty() {
                break;
            }
            original.get_or_insert_with(|| args.clone());
            prefixes.push(name);
            args = words;
            start = 0;
            continue;
        }
        if next >= args.len() {
            break; // a wrapper with nothing to run is the command itself
        }
        original.get_or_insert_with(|| args.clone());
        sudo |= elevated;
        prefixes.push(name);
        start = next;
    }
    args.drain(..start.min(args.len()));
    Peeled {
        argv: args,
        prefixes,
        original,
        sudo,
    }
}

/// Skip `env`'s options; returns the next index and the value of `-S`/`--split-string`.
fn skip_env_options(args: &[String], start: usize) -> (usize, Option<String>) {
    let mut split = None;
    let mut j = start;
    while let Some(arg) = args.get(j) {
        if arg == "--" {
            return (j + 1, split);
        }
        if arg == "-" {
            j += 1;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if let Some(value) = long.strip_prefix("split-string=") {
                split = Some(value.to_owned());
                j += 1;
            } else if long == "split-string" {
                split = args.get(j + 1).cloned();
                j += 2;
            } else if matches!(long, "unset" | "chdir") {
                j += 2;
            } else {
                j += 1;
            }
            continue;
        }
        let Some(flags) = short_cluster(arg) else {
            break;
        };
        for (pos, flag) in flags.char_indices() {
            let rest = &flags[pos + flag.len_utf8()..];
            if flag == 'S' {
                if rest.is_empty() {
                    split = args.get(j + 1).cloned();
                    j += 1;
                } else {
                    split = Some(rest.to_owned());
                }
                break;
            }
            if matches!(flag, 'u' | 'C') {
                if rest.is_empty() {
                    j += 1;
                }
                break;
            }
        }
        j += 1;
    }
    (j, split)
}

/// Everything found in one command line, shared by the parsers of its nested scripts.
#[derive(Default)]
struct Collector {
    commands: Vec<SimpleCommand>,
    next_pipeline: u32,
    scanned: usize,
    too_deep: bool,
    truncated: bool,
}

impl Collector {
    fn full(&mut self) -> bool {
        if self.commands.len() >= MAX_COMMANDS {
            self.truncated = true;
        }
        self.truncated
    }

    /// Account for scanning `bytes` more; false (and truncated) past the budget.
    fn charge(&mut self, bytes: usize) -> bool {
        self.scanned = self.scanned.saturating_add(bytes);
        if self.scanned > MAX_SCANNED_BYTES {
            self.truncated = true;
        }
        !self.truncated
    }
}

/// What commands found in the current text inherit.
#[derive(Debug, Clone, Default)]
struct Context {
    via: Vec<Via>,
    sudo: bool,
}

impl Context {
    fn within(&self, via: Via, sudo: bool) -> Context {
        let mut inner = self.clone();
        inner.via.push(via);
        inner.sudo |= sudo;
        inner
    }
}

fn parse_script(src: &[u8], depth: usize, ctx: &Context, out: &mut Collector) {
    if depth > MAX_DEPTH {
        out.too_deep = true;
        return;
    }
    if !out.charge(src.len()) {
        return;
    }
    let mut parser = Parser {
        s: src,
        i: 0,
        depth,
        word_nesting: 0,
        ctx: ctx.clone(),
        out,
        pending: Vec::new(),
    };
    parser.list(None);
}

#[derive(Default)]
struct Word {
    text: Vec<u8>,
    /// Some part was quoted or escaped: not a reserved word.
    quoted: bool,
    /// `NAME=value` with an unquoted name.
    assignment: bool,
    /// Indices of the commands its substitutions ran.
    runs: Range<usize>,
}

impl Word {
    fn into_string(self) -> String {
        String::from_utf8(self.text)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    fn is_fd(&self) -> bool {
        !self.quoted
            && !self.text.is_empty()
            && (self.text.iter().all(u8::is_ascii_digit)
                || (self.text.starts_with(b"{") && self.text.ends_with(b"}")))
    }
}

/// A here-document whose body starts after the next newline.
struct Heredoc {
    delimiter: Vec<u8>,
    strip_tabs: bool,
    /// The delimiter was unquoted, so `$(…)` and backticks in the body run.
    expands: bool,
    /// Set when the body is the program of a shell: `bash <<EOF`.
    script_for: Option<(Context, String)>,
}

/// What a simple command carries besides its words.
#[derive(Default)]
struct Io {
    writes_to: Vec<String>,
    reads_from: Vec<String>,
    substitutions: Vec<(String, Range<usize>)>,
}

/// Redirections and here-documents of the command being read.
#[derive(Default)]
struct Redirections {
    writes_to: Vec<String>,
    reads_from: Vec<String>,
    /// Delimiter, `<<-`, and whether it was unquoted.
    heredocs: Vec<(Vec<u8>, bool, bool)>,
    herestrings: Vec<String>,
    /// See [`SimpleCommand::substitutions`].
    substitutions: Vec<(String, Range<usize>)>,
}

struct Parser<'s, 'c> {
    s: &'s [u8],
    i: usize,
    depth: usize,
    /// Quotes and `${…}` currently open inside the word being read.
    word_nesting: usize,
    ctx: Context,
    out: &'c mut Collector,
    pending: Vec<Heredoc>,
}

impl Parser<'_, '_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.s.get(self.i + ahead).copied()
    }

    /// Commands separated by `;`, `&`, `&&`, `||` and newlines, up to `close` or the end.
    fn list(&mut self, close: Option<u8>) {
        loop {
            if self.out.full() {
                self.i = self.s.len();
                return;
            }
            self.skip_space(true);
            match self.peek() {
                None => return,
                Some(b';' | b'&' | b'|') => self.i += 1,
                Some(b')') if close == Some(b')') => return,
                Some(b')') => self.i += 1,
                Some(_) => {
                    let before = self.i;
                    self.pipeline();
                    if self.i == before {
                        self.i += 1;
                    }
                }
            }
        }
    }

    fn pipeline(&mut self) {
        let id = self.out.next_pipeline;
        self.out.next_pipeline = id.wrapping_add(1);
        let mut stage = 0u32;
        loop {
            self.command(id, stage);
            self.skip_space(false);
            if self.peek() != Some(b'|') || self.peek_at(1) == Some(b'|') || self.out.full() {
                return;
            }
            self.i += 1;
            if self.peek() == Some(b'&') {
                self.i += 1;
            }
            self.skip_space(true);
            stage = stage.saturating_add(1);
        }
    }

    /// Blanks, line continuations and comments; newlines too when `newlines` is set.
    fn skip_space(&mut self, newlines: bool) {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\\' if self.peek_at(1) == Some(b'\n') => self.i += 2,
                b'#' => {
                    self.i = memchr::memchr(b'\n', &self.s[self.i..])
                        .map_or(self.s.len(), |k| self.i + k);
                }
                b'\n' if newlines => self.newline(),
                _ => return,
            }
        }
    }

    /// Consume a newline, then the bodies of the here-documents begun on its line.
    fn newline(&mut self) {
        self.i += 1;
        for doc in std::mem::take(&mut self.pending) {
            let body_start = self.i;
            let mut body_end = self.s.len();
            while self.i < self.s.len() {
                let line_start = self.i;
                let line_end = memchr::memchr(b'\n', &self.s[line_start..])
                    .map_or(self.s.len(), |k| line_start + k);
                self.i = (line_end + 1).min(self.s.len());
                let mut line = &self.s[line_start..line_end];
                if doc.strip_tabs {
                    while let [b'\t', rest @ ..] = line {
                        line = rest;
                    }
                }
                if line == doc.delimiter.as_slice() {
                    body_end = line_start;
                    break;
                }
            }
            let body = &self.s[body_start..body_end.max(body_start)];
            if let Some((ctx, shell)) = doc.script_for {
                let label = format!("{shell} <<{}", String::from_utf8_lossy(&doc.delimiter));
                let inner = ctx.within(Via::Script(label), false);
                parse_script(body, self.depth + 1, &inner, self.out);
            } else if doc.expands {
                let mut text = Parser {
                    s: body,
                    i: 0,
                    depth: self.depth,
                    word_nesting: 0,
                    ctx: self.ctx.clone(),
                    out: self.out,
                    pending: Vec::new(),
                };
                text.substitutions_only();
            }
        }
    }

    /// Collect the commands of `$(…)` and backticks in plain text (a here-document body).
    fn substitutions_only(&mut self) {
        let mut scratch = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                b'\\' => self.i = (self.i + 2).min(self.s.len()),
                b'$' => {
                    self.dollar(&mut scratch, true);
                }
                b'`' => self.backticks(&mut scratch),
                _ => self.i += 1,
            }
            scratch.clear();
        }
    }

    /// One simple command (or subshell) up to an operator that ends it.
    fn command(&mut self, pipeline: u32, stage: u32) {
        let mut words: Vec<Word> = Vec::new();
        let mut redirections = Redirections::default();
        loop {
            self.skip_space(false);
            let before = self.i;
            match self.peek() {
                None | Some(b'\n' | b';' | b'|' | b')') => break,
                Some(b'&') if self.peek_at(1) == Some(b'>') => self.redirect(&mut redirections),
                Some(b'&') => break,
                Some(b'(') => {
                    self.i += 1;
                    if words
                        .last()
                        .is_some_and(|w| w.assignment && w.text.ends_with(b"="))
                    {
                        self.array_literal();
                    } else {
                        // `name() { …; }` defines a function: its body runs, its name
                        // is no command. Otherwise this is a subshell.
                        words.clear();
                        self.nested(None);
                    }
                }
                Some(b'<' | b'>') if self.peek_at(1) != Some(b'(') => {
                    self.redirect(&mut redirections)
                }
                Some(_) => {
                    let word = self.word();
                    let redirect_follows =
                        matches!(self.peek(), Some(b'<' | b'>')) && self.peek_at(1) != Some(b'(');
                    if redirect_follows && word.is_fd() {
                        self.redirect(&mut redirections);
                    } else {
                        words.push(word);
                    }
                }
            }
            if self.i == before {
                self.i += 1;
            }
        }
        self.finish(words, redirections, pipeline, stage);
    }

    /// `( … )` after its opening parenthesis, `via` naming what it is when not a subshell.
    fn nested(&mut self, via: Option<Via>) {
        if self.depth >= MAX_DEPTH {
            self.out.too_deep = true;
            self.skip_balanced();
            return;
        }
        let saved = via.is_some().then(|| self.ctx.clone());
        if let Some(via) = via {
            self.ctx.via.push(via);
        }
        self.depth += 1;
        self.list(Some(b')'));
        self.depth -= 1;
        if let Some(ctx) = saved {
            self.ctx = ctx;
        }
        if self.peek() == Some(b')') {
            self.i += 1;
        }
    }

    /// The words of `name=( … )` after its `(`: data, not a command.
    fn array_literal(&mut self) {
        loop {
            self.skip_space(true);
            match self.peek() {
                None => return,
                Some(b')') => {
                    self.i += 1;
                    return;
                }
                Some(_) => {
                    let before = self.i;
                    self.word();
                    if self.i == before {
                        self.i += 1;
                    }
                }
            }
        }
    }

    /// Past the `)` matching an already consumed `(`, without collecting anything.
    fn skip_balanced(&mut self) {
        let mut open = 1usize;
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                b'\\' => self.i += 1,
                b'\'' | b'"' => {
                    while let Some(q) = self.peek() {
                        self.i += 1;
                        if q == b'\\' && c == b'"' {
                            self.i += 1;
                        } else if q == c {
                            break;
                        }
                    }
                }
                b'(' => open += 1,
                b')' => {
                    open -= 1;
                    if open == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        self.i = self.i.min(self.s.len());
    }

    fn redirect(&mut self, redirections: &mut Redirections) {
        const OPERATORS: &[&[u8]] = &[
            b"&>>", b"&>", b"<<<", b"<<-", b"<<", b"<&", b"<>", b"<", b">>", b">&", b">|", b">",
        ];
        let rest = &self.s[self.i..];
        let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(op)) else {
            self.i += 1;
            return;
        };
        self.i += op.len();
        self.skip_space(false);
        if matches!(
            self.peek(),
            None | Some(b'\n' | b';' | b'|' | b'&' | b')' | b'(')
        ) {
            return;
        }
        if matches!(self.peek(), Some(b'<' | b'>')) && self.peek_at(1) != Some(b'(') {
            return;
        }
        let target = self.word();
        match *op {
            b"<<" | b"<<-" => {
                let expands = !target.quoted;
                let strip_tabs = *op == b"<<-".as_slice();
                redirections
                    .heredocs
                    .push((target.text, strip_tabs, expands));
            }
            b"<<<" => redirections.herestrings.push(target.into_string()),
            b"<" => {
                let runs = target.runs.clone();
                let target = target.into_string();
                if !runs.is_empty() {
                    redirections.substitutions.push((target.clone(), runs));
                }
                redirections.reads_from.push(target);
            }
            b"<&" => {}
            b">&" => {
                let fd = target.text.iter().all(u8::is_ascii_digit) || target.text == b"-";
                if !fd {
                    redirections.writes_to.push(target.into_string());
                }
            }
            _ => redirections.writes_to.push(target.into_string()),
        }
    }

    /// One word, quotes removed, substitutions kept as written (and their commands
    /// collected).
    fn word(&mut self) -> Word {
        let mut word = Word::default();
        let first_run = self.out.commands.len();
        let mut plain = true;
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' => break,
                b'<' | b'>' => {
                    if self.peek_at(1) != Some(b'(') {
                        break;
                    }
                    let start = self.i;
                    self.i += 2;
                    self.nested(Some(Via::ProcessSubstitution));
                    word.text.extend_from_slice(&self.s[start..self.i]);
                    plain = false;
                }
                b'\\' => {
                    match self.peek_at(1) {
                        Some(b'\n') => {}
                        Some(next) => {
                            word.text.push(next);
                            word.quoted = true;
                            plain = false;
                        }
                        None => {}
                    }
                    self.i = (self.i + 2).min(self.s.len());
                }
                b'\'' => {
                    self.i += 1;
                    self.single_quoted(&mut word.text);
                    word.quoted = true;
                    plain = false;
                }
                b'"' => {
                    self.i += 1;
                    self.double_quoted(&mut word.text);
                    word.quoted = true;
                    plain = false;
                }
                b'`' => {
                    self.backticks(&mut word.text);
                    plain = false;
                }
                b'$' => {
                    word.quoted |= self.dollar(&mut word.text, false);
                    plain = false;
                }
                b'=' if plain => {
                    word.assignment = is_assignment_name(&word.text);
                    word.text.push(b'=');
                    self.i += 1;
                    plain = false;
                }
                _ => {
                    word.text.push(c);
                    self.i += 1;
                }
            }
        }
        word.runs = first_run..self.out.commands.len();
        word
    }

    fn single_quoted(&mut self, buf: &mut Vec<u8>) {
        let rest = &self.s[self.i..];
        let len = memchr::memchr(b'\'', rest).unwrap_or(rest.len());
        buf.extend_from_slice(&rest[..len]);
        self.i = (self.i + len + 1).min(self.s.len());
    }

    fn double_quoted(&mut self, buf: &mut Vec<u8>) {
        if self.word_nesting >= MAX_WORD_NESTING {
            self.out.too_deep = true;
            while let Some(c) = self.peek() {
                self.i += if c == b'\\' { 2 } else { 1 };
                if c == b'"' {
                    break;
                }
            }
            self.i = self.i.min(self.s.len());
            return;
        }
        self.word_nesting += 1;
        self.double_quoted_body(buf);
        self.word_nesting -= 1;
    }

    fn double_quoted_body(&mut self, buf: &mut Vec<u8>) {
        while let Some(c) = self.peek() {
            match c {
                b'"' => {
                    self.i += 1;
                    return;
                }
                b'\\' => match self.peek_at(1) {
                    Some(next @ (b'$' | b'`' | b'"' | b'\\')) => {
                        buf.push(next);
                        self.i += 2;
                    }
                    Some(b'\n') => self.i += 2,
                    _ => {
                        buf.push(b'\\');
                        self.i += 1;
                    }
                },
                b'`' => self.backticks(buf),
                b'$' => {
                    self.dollar(buf, true);
                }
                _ => {
                    buf.push(c);
                    self.i += 1;
                }
            }
        }
    }

    /// At a `$`: quoting (`$'…'`, `$"…"`; returns true), substitutions, or a plain `$`.
    fn dollar(&mut self, buf: &mut Vec<u8>, in_double_quotes: bool) -> bool {
        match self.peek_at(1) {
            Some(b'\'') if !in_double_quotes => {
                self.i += 2;
                self.ansi_c_quoted(buf);
                true
            }
            Some(b'"') if !in_double_quotes => {
                self.i += 2;
                self.double_quoted(buf);
                true
            }
            Some(b'(') => {
                // `$((…))` is taken as a substitution of a subshell: arithmetic yields
                // harmless junk commands, and bash itself falls back to that reading.
                let start = self.i;
                self.i += 2;
                self.nested(Some(Via::Substitution));
                buf.extend_from_slice(&self.s[start..self.i]);
                false
            }
            Some(b'{') => {
                self.parameter(buf);
                false
            }
            _ => {
                buf.push(b'$');
                self.i += 1;
                false
            }
        }
    }

    /// `${…}`, kept as written; substitutions inside (`${x:-$(cmd)}`) are collected.
    fn parameter(&mut self, buf: &mut Vec<u8>) {
        let start = self.i;
        self.i += 2;
        let flat = self.word_nesting >= MAX_WORD_NESTING;
        if flat {
            self.out.too_deep = true;
        }
        self.word_nesting += 1;
        let mut open = 1usize;
        let mut scratch = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                b'\\' => self.i = (self.i + 2).min(self.s.len()),
                b'{' | b'}' | b'\'' | b'"' | b'$' | b'`' if flat => {
                    self.i += 1;
                    match c {
                        b'{' => open += 1,
                        b'}' => {
                            open -= 1;
                            if open == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                b'}' => {
                    self.i += 1;
                    open -= 1;
                    if open == 0 {
                        break;
                    }
                }
                b'{' => {
                    self.i += 1;
                    open += 1;
                }
                b'\'' => {
                    self.i += 1;
                    self.single_quoted(&mut scratch);
                }
                b'"' => {
                    self.i += 1;
                    self.double_quoted(&mut scratch);
                }
                b'$' => {
                    self.dollar(&mut scratch, true);
                }
                b'`' => self.backticks(&mut scratch),
                _ => self.i += 1,
            }
        }
        self.word_nesting -= 1;
        buf.extend_from_slice(&self.s[start..self.i]);
    }

    /// `` `…` ``: the inner text, unescaped, is a script of its own.
    fn backticks(&mut self, buf: &mut Vec<u8>) {
        let start = self.i;
        self.i += 1;
        let mut inner = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                b'`' => {
                    self.i += 1;
                    break;
                }
                b'\\' => match self.peek_at(1) {
                    Some(next @ (b'`' | b'\\' | b'$')) => {
                        inner.push(next);
                        self.i += 2;
                    }
                    _ => {
                        inner.push(b'\\');
                        self.i += 1;
                    }
                },
                _ => {
                    inner.push(c);
                    self.i += 1;
                }
            }
        }
        buf.extend_from_slice(&self.s[start..self.i]);
        let ctx = self.ctx.within(Via::Backticks, false);
        parse_script(&inner, self.depth + 1, &ctx, self.out);
    }

    /// `$'…'` with the common C escapes.
    fn ansi_c_quoted(&mut self, buf: &mut Vec<u8>) {
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                b'\'' => return,
                b'\\' => {
                    let Some(e) = self.peek() else { return };
                    self.i += 1;
                    match e {
                        b'n' => buf.push(b'\n'),
                        b't' => buf.push(b'\t'),
                        b'r' => buf.push(b'\r'),
                        b'a' => buf.push(0x07),
                        b'b' => buf.push(0x08),
                        b'e' | b'E' => buf.push(0x1b),
                        b'f' => buf.push(0x0c),
                        b'v' => buf.push(0x0b),
                        b'x' => {
                            let value = self.radix_digits(16, 2);
                            buf.push(value.unwrap_or(b'x'));
                        }
                        b'0'..=b'7' => {
                            self.i -= 1;
                            buf.push(self.radix_digits(8, 3).unwrap_or(b'0'));
                        }
                        other => buf.push(other),
                    }
                }
                other => buf.push(other),
            }
        }
    }

    /// Up to `max` digits in `radix` as one byte (wrapping like bash does).
    fn radix_digits(&mut self, radix: u32, max: usize) -> Option<u8> {
        let mut value: u32 = 0;
        let mut count = 0;
        while count < max {
            let Some(d) = self.peek().and_then(|c| (c as char).to_digit(radix)) else {
                break;
            };
            value = value * radix + d;
            self.i += 1;
            count += 1;
        }
        (count > 0).then_some((value & 0xff) as u8)
    }

    /// Turn the words of one command into simple commands, unwrapping what it runs.
    fn finish(&mut self, words: Vec<Word>, redirections: Redirections, pipeline: u32, stage: u32) {
        let skip = words
            .iter()
            .take_while(|w| (!w.quoted && RESERVED.contains(&w.text.as_slice())) || w.assignment)
            .count();
        let mut substitutions = Vec::new();
        let argv: Vec<String> = words
            .into_iter()
            .skip(skip)
            .map(|word| {
                let runs = word.runs.clone();
                let text = word.into_string();
                if !runs.is_empty() {
                    substitutions.push((text.clone(), runs));
                }
                text
            })
            .collect();
        substitutions.extend(redirections.substitutions);
        let io = Io {
            writes_to: redirections.writes_to,
            reads_from: redirections.reads_from,
            substitutions,
        };
        let ctx = self.ctx.clone();
        let shell = self.emit(argv, &ctx, io, pipeline, stage, self.depth);
        let reads_stdin_script = shell
            .as_ref()
            .filter(|_| !redirections.heredocs.is_empty() || !redirections.herestrings.is_empty());
        if let Some((inner, name)) = reads_stdin_script {
            for script in &redirections.herestrings {
                let ctx = inner.within(Via::Script(format!("{name} <<<")), false);
                parse_script(script.as_bytes(), self.depth + 1, &ctx, self.out);
            }
        }
        for (delimiter, strip_tabs, expands) in redirections.heredocs {
            self.pending.push(Heredoc {
                delimiter,
                strip_tabs,
                expands,
                script_for: reads_stdin_script.cloned(),
            });
        }
    }

    /// Record one simple command and the commands it runs in turn. Returns the context
    /// and name of a shell that reads its program from stdin, for here-documents.
    fn emit(
        &mut self,
        argv: Vec<String>,
        ctx: &Context,
        io: Io,
        pipeline: u32,
        stage: u32,
        depth: usize,
    ) -> Option<(Context, String)> {
        if argv.is_empty() || self.out.full() {
            return None;
        }
        let peeled = peel_prefixes(argv);
        if peeled.argv.is_empty() {
            return None;
        }
        let sudo = ctx.sudo || peeled.sudo;
        let command = SimpleCommand {
            argv: peeled.argv,
            prefixes: peeled.prefixes,
            prefixed: peeled.original,
            sudo,
            via: ctx.via.clone(),
            pipeline,
            stage,
            writes_to: io.writes_to,
            reads_from: io.reads_from,
            substitutions: io.substitutions,
        };
        let name = command.name().to_owned();
        let runs_scripts =
            is_shell(&name) || matches!(name.as_str(), "eval" | "watch" | "su" | "find");
        let argv = if runs_scripts {
            command.argv.clone()
        } else {
            Vec::new()
        };
        self.out.commands.push(command);
        if !runs_scripts {
            return None;
        }

        let inner = |how: String| ctx.within(Via::Script(how), sudo);
        if is_shell(&name) {
            if let Some(script) = shell_c_script(&argv) {
                let ctx = inner(format!("{name} -c"));
                parse_script(script.as_bytes(), depth + 1, &ctx, self.out);
            } else if reads_program_from_stdin(&argv) {
                let mut elevated = ctx.clone();
                elevated.sudo = sudo;
                return Some((elevated, name));
            }
            return None;
        }
        match name.as_str() {
            "eval" => {
                let script = argv[1..].join(" ");
                parse_script(script.as_bytes(), depth + 1, &inner(name), self.out);
            }
            "watch" => {
                let j = skip_options(&argv, 1, "nq", &["interval"]);
                let script = argv.get(j..).unwrap_or(&[]).join(" ");
                parse_script(script.as_bytes(), depth + 1, &inner(name), self.out);
            }
            "su" => {
                let script = argv.iter().enumerate().find_map(|(k, a)| {
                    if a == "-c" || a == "--command" {
                        argv.get(k + 1).cloned()
                    } else {
                        a.strip_prefix("--command=").map(str::to_owned)
                    }
                });
                if let Some(script) = script {
                    let ctx = ctx.within(Via::Script("su -c".into()), true);
                    parse_script(script.as_bytes(), depth + 1, &ctx, self.out);
                }
            }
            "find" if depth < MAX_DEPTH => {
                let mut k = 1;
                while k < argv.len() {
                    let action = argv[k].as_str();
                    k += 1;
                    if !matches!(action, "-exec" | "-execdir" | "-ok" | "-okdir") {
                        continue;
                    }
                    let end = argv[k..]
                        .iter()
                        .position(|a| a == ";" || a == "+")
                        .map_or(argv.len(), |p| k + p);
                    let run = argv[k..end].to_vec();
                    k = end + 1;
                    if !self.out.charge(run.iter().map(String::len).sum()) {
                        break;
                    }
                    let ctx = inner(format!("find {action}"));
                    self.emit(run, &ctx, Io::default(), pipeline, stage, depth + 1);
                }
            }
            "find"
                if argv
                    .iter()
                    .any(|a| a.starts_with("-exec") || a.starts_with("-ok")) =>
            {
                self.out.too_deep = true
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argvs(src: &str) -> Vec<String> {
        parse(src).commands.iter().map(|c| c.normalized()).collect()
    }

    #[test]
    fn operators_split_simple_commands() {
        assert_eq!(
            argvs("cd /tmp && rm -rf x || echo no; ls | wc -l & sleep 1\npwd"),
            [
                "cd /tmp", "rm -rf x", "echo no", "ls", "wc -l", "sleep 1", "pwd"
            ]
        );
    }

    #[test]
    fn quotes_and_escapes_make_one_word() {
        let parsed = parse(r#"echo 'rm -rf /' "a b" c\ d $'x\ty' "q\"uote" r"m""#);
        assert_eq!(
            parsed.commands[0].argv,
            ["echo", "rm -rf /", "a b", "c d", "x\ty", "q\"uote", "rm"]
        );
        assert_eq!(parsed.commands.len(), 1);
    }

    #[test]
    fn comments_are_not_commands() {
        assert_eq!(argvs("ls # rm -rf /\n# git push -f\npwd"), ["ls", "pwd"]);
        assert_eq!(argvs("echo a#b"), ["echo a#b"]);
    }

    #[test]
    fn redirections_leave_argv_and_are_recorded() {
        let parsed = parse("make >out.log 2>&1 </dev/null; cat <<< word >> all &>both");
        assert_eq!(argvs("make >out.log 2>&1 </dev/null"), ["make"]);
        assert_eq!(parsed.commands[0].writes_to, ["out.log"]);
        assert_eq!(parsed.commands[0].reads_from, ["/dev/null"]);
        assert_eq!(parsed.commands[1].argv, ["cat"]);
        assert_eq!(parsed.commands[1].writes_to, ["all", "both"]);
        assert_eq!(argvs("echo 2 > f"), ["echo 2"]);
    }

    #[test]
    fn subshells_groups_and_substitutions_are_commands_too() {
        assert_eq!(
            argvs("(cd x && make) ; { rm -rf a; } ; echo $(date +%s) `whoami` <(ls)"),
            [
                "cd x",
                "make",
                "rm -rf a",
                "date +%s",
                "whoami",
                "ls",
                "echo $(date +%s) `whoami` <(ls)"
            ]
        );
        let parsed = parse("echo \"$(rm -rf /)\"");
        assert_eq!(parsed.commands[0].argv, ["rm", "-rf", "/"]);
        assert_eq!(parsed.commands[0].via, [Via::Substitution]);
        assert_eq!(argvs("x=${y:-$(id -u)}"), ["id -u"]);
    }

    #[test]
    fn shell_scripts_are_unwrapped_recursively() {
        let parsed = parse(r#"bash -c "sh -c 'rm -rf /'""#);
        let names: Vec<String> = parsed.commands.iter().map(|c| c.normalized()).collect();
        assert_eq!(
            names,
            ["bash -c sh -c 'rm -rf /'", "sh -c rm -rf /", "rm -rf /"]
        );
        let rm = &parsed.commands[2];
        assert_eq!(rm.origin(), " (from `sh -c` in `bash -c`)");
        assert_eq!(
            argvs("eval 'git push' -f"),
            ["eval git push -f", "git push -f"]
        );
        assert_eq!(argvs("bash -lc 'ls'"), ["bash -lc ls", "ls"]);
        assert_eq!(
            argvs("bash -o pipefail -c 'ls'"),
            ["bash -o pipefail -c ls", "ls"]
        );
        assert_eq!(argvs("su root -c 'id'")[1], "id");
        assert!(parse("su -c 'id'").commands[1].sudo);
        assert_eq!(
            argvs("find . -name x -exec rm -rf {} \\;"),
            ["find . -name x -exec rm -rf {} ;", "rm -rf {}"]
        );
    }

    #[test]
    fn wrappers_are_peeled_and_sudo_remembered() {
        let cases = [
            ("sudo -u root -E rm -rf /", "rm -rf /", true),
            ("sudo FOO=1 rm x", "rm x", true),
            ("doas -u root rm x", "rm x", true),
            ("env -i PATH=/bin FOO=bar rm x", "rm x", false),
            ("env -u HOME -- rm x", "rm x", false),
            ("env -S 'rm -rf' /", "rm -rf /", false),
            ("command -p rm x", "rm x", false),
            ("builtin exec nice -n 5 rm x", "rm x", false),
            ("nohup time -p timeout -s KILL 10s rm x", "rm x", false),
            ("timeout --kill-after=5 10 rm x", "rm x", false),
            ("xargs -0 -n 1 -I{} rm x", "rm x", false),
            ("xargs -I {} rm x", "rm x", false),
            ("FOO=1 BAR='a b' rm x", "rm x", false),
            ("/usr/bin/sudo /bin/rm x", "/bin/rm x", true),
            ("sudo", "sudo", false),
            ("command -v rm", "command -v rm", false),
            ("nice", "nice", false),
            ("if true; then rm x; fi", "rm x", false),
            ("! stdbuf -oL rm x", "rm x", false),
        ];
        for (src, expected, sudo) in cases {
            let parsed = parse(src);
            let found = parsed
                .commands
                .iter()
                .find(|c| c.normalized() == expected)
                .unwrap_or_else(|| panic!("{src}: {:?}", parsed.commands));
            assert_eq!(found.sudo, sudo, "{src}");
        }
        let c = &parse("sudo -u root rm -rf /").commands[0];
        assert_eq!(c.prefixes, ["sudo"]);
        assert_eq!(
            c.prefixed.as_deref().map(|p| p.join(" ")).as_deref(),
            Some("sudo -u root rm -rf /")
        );
    }

    #[test]
    fn sudo_reaches_into_unwrapped_scripts() {
        let parsed = parse("sudo bash -c 'rm -rf /tmp/x'");
        let rm = parsed
            .commands
            .iter()
            .find(|c| c.name() == "rm")
            .expect("rm found");
        assert!(rm.sudo);
    }

    #[test]
    fn heredocs_are_skipped_unless_a_shell_reads_them() {
        assert_eq!(
            argvs("cat <<'EOF' > notes.md\nrm -rf /\nEOF\nls"),
            ["cat", "ls"]
        );
        assert_eq!(argvs("cat <<-EOF\n\trm -rf /\n\tEOF\nls"), ["cat", "ls"]);
        let parsed = parse("bash <<EOF\nrm -rf /\nEOF\n");
        assert_eq!(parsed.commands[1].normalized(), "rm -rf /");
        assert_eq!(parsed.commands[1].origin(), " (from `bash <<EOF`)");
        assert_eq!(argvs("sh <<< 'git push -f'")[1], "git push -f");
        assert_eq!(argvs("python3 <<EOF\nimport os\nEOF"), ["python3"]);
        assert_eq!(
            argvs("cat <<EOF\nnow $(date) `id`\nEOF"),
            ["cat", "date", "id"]
        );
        assert_eq!(argvs("cat <<'EOF'\nnow $(date)\nEOF"), ["cat"]);
    }

    #[test]
    fn function_bodies_are_commands_and_arrays_are_data() {
        assert_eq!(argvs("f() { rm -rf x; }; f"), ["rm -rf x", "f"]);
        assert_eq!(
            argvs("files=(a b $(ls)) && echo ${files[@]}"),
            ["ls", "echo ${files[@]}"]
        );
    }

    #[test]
    fn pipelines_number_their_stages() {
        let parsed = parse("curl -s x | tee f | sh; ls | wc");
        let stages: Vec<(u32, u32)> = parsed
            .commands
            .iter()
            .map(|c| (c.pipeline, c.stage))
            .collect();
        assert_eq!(stages, [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]);
    }

    #[test]
    fn variants_cover_basename_and_split_flags() {
        let c = &parse("/bin/rm -rf build").commands[0];
        assert_eq!(
            c.variants(),
            ["/bin/rm -rf build", "rm -rf build", "rm -r -f build"]
        );
        assert_eq!(
            split_short_flags(&["-rfv".into(), "--force".into(), "-".into()]),
            ["-r", "-f", "-v", "--force", "-"]
        );
    }

    #[test]
    fn flags_are_found_in_any_spelling() {
        let args = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
        assert!(has_flag(&args("-rfv x"), "rR", &["recursive"]));
        assert!(has_flag(&args("x --recursive"), "rR", &["recursive"]));
        assert!(!has_flag(&args("-- -r"), "rR", &["recursive"]));
        assert!(!has_flag(&args("--force-with-lease"), "f", &["force"]));
    }

    #[test]
    fn interpreters_reading_stdin_are_told_apart() {
        let reads = |s: &str| {
            reads_program_from_stdin(&s.split(' ').map(str::to_owned).collect::<Vec<_>>())
        };
        assert!(reads("sh"));
        assert!(reads("bash -s -- -y"));
        assert!(reads("bash -x"));
        assert!(reads("python3 -"));
        assert!(reads("python3 -u"));
        assert!(reads("perl"));
        assert!(!reads("python3 -m json.tool"));
        assert!(!reads("python -c print(1)"));
        assert!(!reads("bash install.sh"));
        assert!(!reads("bash -c ls"));
        assert!(!reads("node -e 1"));
        assert!(!reads("jq ."));
    }

    #[test]
    fn unterminated_and_unbalanced_input_still_parses() {
        for src in [
            "echo 'abc",
            "echo \"abc",
            "$(",
            "(((",
            ")))",
            "`ls",
            "${",
            "a <<",
            "x >",
            "bash -c",
            "'",
            "\\",
        ] {
            let _ = parse(src);
        }
        assert_eq!(argvs("echo $(ls"), ["ls", "echo $(ls"]);
    }

    #[test]
    fn nesting_is_bounded_and_reported() {
        let deep = "$(".repeat(10_000);
        assert!(parse(&deep).too_deep);
        let parsed = parse(&format!("{}rm -rf /", "eval ".repeat(40)));
        assert!(parsed.too_deep);
        let shallow = parse(&format!("{}rm -rf /", "eval ".repeat(MAX_DEPTH)));
        assert!(!shallow.too_deep);
        assert!(
            shallow
                .commands
                .iter()
                .any(|c| c.normalized() == "rm -rf /")
        );
        assert!(parse("echo $(echo $(echo hi))").too_deep.eq(&false));
    }

    use proptest::prelude::*;

    /// Text rich in the characters the tokeniser treats specially.
    fn shellish() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("$(".to_owned()),
                Just("<(".to_owned()),
                Just("`".to_owned()),
                Just("${".to_owned()),
                Just("<<EOF\n".to_owned()),
                Just("\nEOF\n".to_owned()),
                Just("bash -c ".to_owned()),
                Just("eval ".to_owned()),
                Just("sudo -u ".to_owned()),
                Just("env -S ".to_owned()),
                Just("xargs ".to_owned()),
                Just("find . -exec ".to_owned()),
                Just("rm -rf ".to_owned()),
                "[ a-z/~*'\"\\$`(){};&|<>#=!\n\t-]{1,4}",
                "\\PC{1,3}",
            ],
            0..40,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        // The tokeniser terminates without panicking on any text, within its bounds.
        #[test]
        fn parse_never_panics_on_arbitrary_text(src in "\\PC{0,200}") {
            let parsed = parse(&src);
            prop_assert!(parsed.commands.len() <= MAX_COMMANDS);
            prop_assert!(parsed.commands.iter().all(|c| !c.argv.is_empty()));
        }

        // The same on text made of shell syntax, where the interesting paths are.
        #[test]
        fn parse_never_panics_on_shell_syntax(src in shellish()) {
            let parsed = parse(&src);
            prop_assert!(parsed.commands.len() <= MAX_COMMANDS);
            for command in &parsed.commands {
                prop_assert!(!command.argv.is_empty());
                prop_assert!(command.via.len() <= MAX_DEPTH + 1);
                let _ = (command.variants(), command.display(), command.origin());
            }
        }
    }

    #[test]
    fn work_is_bounded_on_huge_or_twisted_input() {
        assert!(parse(&"a ".repeat(MAX_SCANNED_BYTES)).truncated);
        assert!(
            parse(&"${\"".repeat(100_000)).too_deep,
            "no stack overflow either"
        );
        assert!(parse(&"\"$(".repeat(100_000)).too_deep);
        let evals = parse(&"eval ".repeat(50_000));
        assert!(evals.too_deep || evals.truncated);
        let finds = parse(&"find . -exec ".repeat(20_000));
        assert!(finds.too_deep || finds.truncated);
    }

    #[test]
    fn substitution_words_remember_the_commands_they_ran() {
        let parsed = parse("sh -c \"$(curl -s x)\" < <(wget y)");
        let sh = parsed
            .commands
            .iter()
            .find(|c| c.name() == "sh")
            .expect("sh");
        let names = |(word, runs): &(String, Range<usize>)| {
            let ran: Vec<&str> = parsed.commands[runs.clone()]
                .iter()
                .map(|c| c.name())
                .collect();
            (word.clone(), ran)
        };
        let found: Vec<(String, Vec<&str>)> = sh.substitutions.iter().map(names).collect();
        assert_eq!(
            found,
            [
                ("$(curl -s x)".to_owned(), vec!["curl"]),
                ("<(wget y)".to_owned(), vec!["wget"])
            ]
        );
    }

    #[test]
    fn command_count_is_bounded() {
        let many = "true;".repeat(MAX_COMMANDS + 10);
        let parsed = parse(&many);
        assert!(parsed.truncated);
        assert_eq!(parsed.commands.len(), MAX_COMMANDS);
    }
}
