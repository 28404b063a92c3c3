//! Shell tokeniser for command rules and the guard: turns a Bash command line into the
//! simple commands it would run, with wrappers (`sudo`, `env`, `xargs`, `bash -c`, `eval` …)
//! peeled off. Nothing is expanded or executed. Any input terminates without panicking,
//! with nesting depth, command count and bytes scanned bounded; the guard refuses what
//! went past a bound rather than trusting the part it saw.

use std::fmt;
use std::ops::Range;

mod quoting;
mod words;
pub use words::*;

/// Deepest nesting of subshells, substitutions and `bash -c` scripts that is analysed.
pub const MAX_DEPTH: usize = 64;
/// Most simple commands collected from one command line.
pub const MAX_COMMANDS: usize = 16_384;
/// Most bytes scanned for one command line, counting every re-scan of an unwrapped
/// script: bounds the work on any input.
pub const MAX_SCANNED_BYTES: usize = 4 << 20;
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
    /// Words whose value is only known when the shell runs: they hold `$name`, `${…}`,
    /// `$(…)`, `$((…))` or backticks outside single quotes.
    pub computed: Vec<String>,
    /// What the command reads on standard input as written on the line: here-strings
    /// and here-document bodies.
    pub stdin_texts: Vec<String>,
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
    /// The line holds a NUL byte, which no shell passes on as written.
    pub nul: bool,
}

/// Tokenise a command line into its simple commands.
pub fn parse(src: &str) -> Parsed {
    let mut out = Collector::default();
    parse_script(src.as_bytes(), 0, &Context::default(), &mut out);
    Parsed {
        commands: out.commands,
        too_deep: out.too_deep,
        truncated: out.truncated,
        nul: memchr::memchr(0, src.as_bytes()).is_some(),
    }
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
        expanded: false,
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
    /// Holds an expansion: see [`SimpleCommand::computed`].
    computed: bool,
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
    /// Index in [`Collector::commands`] of the command reading the body.
    reader: Option<usize>,
}

/// What a simple command carries besides its words.
#[derive(Default)]
struct Io {
    writes_to: Vec<String>,
    reads_from: Vec<String>,
    substitutions: Vec<(String, Range<usize>)>,
    computed: Vec<String>,
    stdin_texts: Vec<String>,
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
    /// An expansion was met in the word being read.
    expanded: bool,
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
            if let Some(command) = doc.reader.and_then(|i| self.out.commands.get_mut(i)) {
                command
                    .stdin_texts
                    .push(String::from_utf8_lossy(body).into_owned());
            }
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
                    expanded: false,
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
                Some(b'(') if words.is_empty() && self.peek_at(1) == Some(b'(') => {
                    let mut scratch = Vec::new();
                    self.arithmetic(&mut scratch);
                }
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

    /// Turn the words of one command into simple commands, unwrapping what it runs.
    fn finish(&mut self, words: Vec<Word>, redirections: Redirections, pipeline: u32, stage: u32) {
        let skip = words
            .iter()
            .take_while(|w| (!w.quoted && RESERVED.contains(&w.text.as_slice())) || w.assignment)
            .count();
        let mut substitutions = Vec::new();
        let mut computed = Vec::new();
        let argv: Vec<String> = words
            .into_iter()
            .skip(skip)
            .map(|word| {
                let runs = word.runs.clone();
                let expands = word.computed;
                let text = word.into_string();
                if !runs.is_empty() {
                    substitutions.push((text.clone(), runs));
                }
                if expands {
                    computed.push(text.clone());
                }
                text
            })
            .collect();
        substitutions.extend(redirections.substitutions);
        let io = Io {
            writes_to: redirections.writes_to,
            reads_from: redirections.reads_from,
            substitutions,
            computed,
            stdin_texts: redirections.herestrings.clone(),
        };
        let ctx = self.ctx.clone();
        let index = self.out.commands.len();
        let shell = self.emit(argv, &ctx, io, pipeline, stage, self.depth);
        let reader = (self.out.commands.len() > index).then_some(index);
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
                reader,
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
            computed: io.computed,
            stdin_texts: io.stdin_texts,
        };
        let name = command.name().to_owned();
        let runs_scripts = is_shell(&name)
            || matches!(
                name.as_str(),
                "eval" | "watch" | "su" | "runuser" | "flock" | "sg" | "find" | "ssh"
            );
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
            "su" | "runuser" | "flock" | "sg" => {
                let script = argv.iter().enumerate().find_map(|(k, a)| {
                    if a == "-c" || a == "--command" {
                        argv.get(k + 1).cloned()
                    } else {
                        a.strip_prefix("--command=").map(str::to_owned)
                    }
                });
                if let Some(script) = script {
                    let elevated = matches!(name.as_str(), "su" | "runuser");
                    let ctx = ctx.within(Via::Script(format!("{name} -c")), elevated);
                    parse_script(script.as_bytes(), depth + 1, &ctx, self.out);
                }
            }
            "ssh" => {
                // `ssh [options] host command…`: the command runs on the remote host.
                let host = skip_options(&argv, 1, "BbcDEeFIiJLlmOoPpQRSWw", &[]);
                let command = argv.get(host + 1..).unwrap_or(&[]);
                let command = match command.split_first() {
                    Some((first, rest)) if first == "--" => rest,
                    _ => command,
                };
                if !command.is_empty() {
                    let script = command.join(" ");
                    let ctx = inner(format!("ssh {}", argv[host]));
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
mod tests;
