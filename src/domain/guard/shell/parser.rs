//! Reading a command line into simple commands: lists, pipelines, subshells,
//! redirections and here-documents. Words are read by the lexer; what a command runs in
//! turn (`bash -c`, `eval`, `find -exec` …) is unwrapped in `wrappers`.

use std::ops::Range;

use super::braces;
use super::command::{Assignment, Parsed, SimpleCommand, Via};
use super::limits::{MAX_ASSIGNMENTS, MAX_COMMANDS, MAX_DEPTH, MAX_FRAMES, MAX_SCANNED_BYTES};
use super::token::Word;
use super::words::RESERVED;

/// Tokenise a command line into its simple commands.
pub fn parse(src: &str) -> Parsed {
    let mut out = Collector::default();
    parse_script(src.as_bytes(), 0, &Context::default(), &mut out);
    Parsed {
        commands: out.commands,
        too_deep: out.too_deep,
        truncated: out.truncated,
        nul: memchr::memchr(0, src.as_bytes()).is_some(),
        assignments: out.assignments,
        functions: out.functions,
        background: out.background,
        loops: out.loops,
        coprocess: out.coprocess,
        lookups_changed: out.lookups_changed,
        subshells: out.subshells,
        and_joined: out.and_joined,
        frames: out.frames,
        evaluated: out.evaluated,
        prompted: out.prompted,
    }
}

/// Whether `command` starts what it runs in a process of its own that outlives it, as `&`
/// does: `setsid -f`, `daemonize`, `screen -dm`, `tmux new -d`, `start-stop-daemon -b`.
fn forks_away(command: &SimpleCommand) -> bool {
    let words = command.prefixed.as_deref().unwrap_or(&command.argv);
    words.iter().enumerate().any(|(k, w)| {
        let rest = &words[k + 1..];
        let flag = |short: char, long: &str| {
            rest.iter()
                .take_while(|a| a.starts_with('-'))
                .any(|a| a == long || a.len() > 1 && !a.starts_with("--") && a[1..].contains(short))
        };
        match super::words::basename(w) {
            "setsid" => flag('f', "--fork"),
            "daemonize" => true,
            "screen" => flag('d', "--detach"),
            "start-stop-daemon" => flag('b', "--background"),
            "tmux" => {
                rest.first().is_some_and(|s| s.starts_with("new"))
                    && rest.iter().skip(1).any(|a| a == "-d")
            }
            _ => false,
        }
    })
}

/// Everything found in one command line, shared by the parsers of its nested scripts.
#[derive(Default)]
pub(super) struct Collector {
    pub(super) commands: Vec<SimpleCommand>,
    pub(super) next_pipeline: u32,
    pub(super) scanned: usize,
    pub(super) too_deep: bool,
    pub(super) truncated: bool,
    pub(super) assignments: Vec<Assignment>,
    pub(super) functions: Vec<(String, String)>,
    /// Names the line declared integers so far (`declare -i n`).
    pub(super) integers: Vec<String>,
    /// `hash` and `enable` run by the line (see [`super::Parsed::lookups_changed`]).
    pub(super) lookups_changed: Vec<String>,
    /// Names the line declared associative arrays (`declare -A m`), whose subscripts are
    /// words.
    pub(super) associative: Vec<String>,
    /// Aliases the line defined so far (`alias n=nagger`): name and value. The shell a
    /// tool call runs in expands them (`expand_aliases` is on) in the lines after.
    pub(super) aliases: Vec<(String, String)>,
    /// Jobs started in the background: their commands' indices.
    pub(super) background: Vec<std::ops::Range<usize>>,
    /// The indices at which the compound commands still open began, and whether each
    /// is a loop (`for`, `while`, `until`, `select`).
    pub(super) openers: Vec<(usize, bool, bool)>,
    /// Loops: their commands' indices.
    pub(super) loops: Vec<std::ops::Range<usize>>,
    /// `case` commands still open: a `)` in one ends a pattern, not a substitution.
    pub(super) cases_open: usize,
    /// A `coproc` was read.
    pub(super) coprocess: bool,
    /// Subshells `( … )`: their commands' indices.
    pub(super) subshells: Vec<std::ops::Range<usize>>,
    /// Commands that begin a pipeline run only when the one before succeeded (`&&`).
    pub(super) and_joined: Vec<usize>,
    /// Frames after the top one: parent and whether each runs in a shell of its own.
    pub(super) frames: Vec<(u32, bool)>,
    /// Variables read as expressions, and `${x@P}`'s, with the command they stand at.
    pub(super) evaluated: Vec<(usize, String)>,
    pub(super) prompted: Vec<(usize, String)>,
    /// Where the compound command a closing word just ended began.
    pub(super) closed: Option<usize>,
}

/// The names of variables `text` refers to (`x`, `$x`, `${x…}`): words that start with a
/// letter or `_`, not right after another word's letters. A command substitution
/// (`$(wc -l < "$f")`, backticks) is a command line whose output is read, not its words:
/// it stands as itself, whole.
fn names_in(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < b.len() && out.len() < 64 {
        if b[k] == b'`' {
            let end = memchr::memchr(b'`', &b[k + 1..]).map_or(b.len(), |e| k + 2 + e);
            out.push(text[k..end].to_owned());
            k = end;
            continue;
        }
        if b[k] == b'$' && b.get(k + 1) == Some(&b'(') && b.get(k + 2) != Some(&b'(') {
            let mut depth = 0usize;
            let mut j = k + 1;
            while j < b.len() {
                match b[j] {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            let end = (j + 1).min(b.len());
            out.push(text[k..end].to_owned());
            k = end;
            continue;
        }
        let c = b[k];
        if (c.is_ascii_alphabetic() || c == b'_')
            && (k == 0
                || !(b[k - 1].is_ascii_alphanumeric() || b[k - 1] == b'_' || b[k - 1] == b'#'))
        {
            let start = k;
            while k < b.len() && (b[k].is_ascii_alphanumeric() || b[k] == b'_') {
                k += 1;
            }
            out.push(text[start..k].to_owned());
        } else {
            k += 1;
        }
    }
    out
}

/// What follows `name` at the start of `body` (`Some`), or nothing.
fn name_rest(body: Option<&str>, name: &str) -> String {
    body.and_then(|b| b.strip_prefix(name))
        .unwrap_or_default()
        .to_owned()
}

impl Collector {
    /// Variables whose values `text` (an arithmetic expression, a number operand) reads
    /// as expressions: their values' array subscripts run what they substitute.
    pub(super) fn note_evaluated(&mut self, text: &str) {
        let at = self.commands.len();
        for name in names_in(text) {
            if self.evaluated.len() < 4096 {
                self.evaluated.push((at, name));
            }
        }
    }

    /// The subscripts of a compound assignment's elements (`([x]=1 [$i]=2)`), each read as
    /// an expression.
    pub(super) fn note_compound_subscripts(&mut self, value: &str) {
        let mut rest = value;
        let mut seen = 0;
        while let Some(open) = rest.find('[') {
            let after = &rest[open + 1..];
            let Some(close) = after.find("]=").or_else(|| after.find("]+=")) else {
                break;
            };
            let sub = after[..close].to_owned();
            self.note_evaluated(&sub);
            rest = &after[close + 1..];
            seen += 1;
            if seen >= 64 {
                break;
            }
        }
    }

    /// `${!x}` (the variable `x` names), `${a[i]}` (a subscript read as a number),
    /// `${s:o:l}` (offsets read as numbers), `${x@P}` (the value expanded again, its
    /// substitutions run).
    pub(super) fn note_parameter(&mut self, text: &str) {
        let Some(body) = text.strip_prefix("${").and_then(|t| t.strip_suffix('}')) else {
            return;
        };
        let at = self.commands.len();
        let indirect = body.strip_prefix('!');
        if let Some(name) = indirect {
            let name: String = name
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // `${!a[@]}`, `${!a[*]}` (an array's keys) and `${!pre*}`, `${!pre@}` (the
            // names that begin so) name no variable by a value.
            let listing = matches!(&name_rest(indirect, &name)[..], "[@]" | "[*]" | "*" | "@");
            if !name.is_empty() && !listing && self.evaluated.len() < 4096 {
                self.evaluated.push((at, name));
            }
        }
        let body = indirect.unwrap_or(body);
        // A positional or special parameter (`${1@P}`, `${@@P}`) is one character.
        let name: String = match body.chars().next() {
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => c.to_string(),
            _ => body
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect(),
        };
        let rest = &body[name.len()..];
        // `${x@P}`, `${a[0]@P}`; through a name (`${!r@P}`), what `r` names is expanded
        // as a prompt, and nagger does not follow it: the positional parameters stand for
        // what the line's `set` and function calls give them.
        let prompted = rest.starts_with("@P") || rest.starts_with('[') && rest.ends_with("]@P");
        if prompted && !name.is_empty() && self.prompted.len() < 256 {
            let shown = if indirect.is_some() {
                format!("!{name}")
            } else {
                name.clone()
            };
            self.prompted.push((at, shown));
        }
        let after_subscript = rest
            .strip_prefix('[')
            .and_then(|sub| sub.split_once(']'))
            .map(|(inner, after)| {
                // An associative array's keys are words, not expressions.
                let associative = self.associative.contains(&name);
                if inner != "@" && inner != "*" && !associative {
                    self.note_evaluated(inner);
                }
                after
            });
        // `${s:o:l}`, `${a[@]:o}`: offsets read as numbers.
        if !prompted
            && let Some(offsets) = after_subscript.unwrap_or(rest).strip_prefix(':')
            && !offsets.starts_with(['-', '=', '?', '+'])
        {
            self.note_evaluated(offsets);
        }
    }

    /// A new frame inside `parent`; `own`: its commands run in a shell of their own.
    pub(super) fn new_frame(&mut self, parent: u32, own: bool) -> u32 {
        if self.frames.len() >= MAX_FRAMES {
            // Past the bound, in a shell of their own under the top: a `cd` there holds
            // for no command outside.
            return u32::try_from(self.frames.len()).unwrap_or(u32::MAX);
        }
        self.frames.push((parent, own));
        u32::try_from(self.frames.len()).unwrap_or(u32::MAX)
    }

    pub(super) fn full(&mut self) -> bool {
        if self.commands.len() >= MAX_COMMANDS {
            self.truncated = true;
        }
        self.truncated
    }

    /// Account for scanning `bytes` more; false (and truncated) past the budget.
    pub(super) fn charge(&mut self, bytes: usize) -> bool {
        self.scanned = self.scanned.saturating_add(bytes);
        if self.scanned > MAX_SCANNED_BYTES {
            self.truncated = true;
        }
        !self.truncated
    }
}

/// What commands found in the current text inherit.
#[derive(Debug, Clone, Default)]
pub(super) struct Context {
    pub(super) via: Vec<Via>,
    pub(super) sudo: bool,
    /// The frame commands found here belong to (see [`Parsed::frames`]), and how many of
    /// `via` stood when it began.
    pub(super) frame: u32,
    pub(super) frame_via: usize,
}

impl Context {
    pub(super) fn within(&self, via: Via, sudo: bool) -> Context {
        let mut inner = self.clone();
        inner.via.push(via);
        inner.sudo |= sudo;
        inner
    }
}

pub(super) fn parse_script(src: &[u8], depth: usize, ctx: &Context, out: &mut Collector) {
    if depth > MAX_DEPTH {
        out.too_deep = true;
        return;
    }
    if !out.charge(src.len()) {
        return;
    }
    let mut ctx = ctx.clone();
    // A script handed to another program: its own shell, but for `eval`'s.
    if ctx.via.len() > ctx.frame_via {
        let own = !matches!(ctx.via.last(), Some(Via::Script(how)) if how == "eval");
        ctx.frame = out.new_frame(ctx.frame, own);
        ctx.frame_via = ctx.via.len();
    }
    let mut parser = Parser {
        s: src,
        i: 0,
        depth,
        word_nesting: 0,
        ctx,
        out,
        pending: Vec::new(),
        expanded: false,
    };
    parser.list(None);
}

/// A here-document whose body starts after the next newline.
pub(super) struct Heredoc {
    pub(super) delimiter: Vec<u8>,
    pub(super) strip_tabs: bool,
    /// The delimiter was unquoted, so `$(…)` and backticks in the body run.
    pub(super) expands: bool,
    /// Set when the body is the program of a shell: `bash <<EOF`.
    pub(super) script_for: Option<(Context, String)>,
    /// Index in [`Collector::commands`] of the command reading the body.
    pub(super) reader: Option<usize>,
}

/// What a simple command carries besides its words.
#[derive(Default)]
pub(super) struct Io {
    pub(super) writes_to: Vec<String>,
    pub(super) appends_to: Vec<String>,
    pub(super) reads_from: Vec<String>,
    pub(super) substitutions: Vec<(String, Range<usize>)>,
    pub(super) computed: Vec<String>,
    pub(super) stdin_texts: Vec<String>,
    pub(super) env: Vec<String>,
}

/// Redirections and here-documents of the command being read.
#[derive(Default)]
pub(super) struct Redirections {
    pub(super) writes_to: Vec<String>,
    pub(super) appends_to: Vec<String>,
    pub(super) reads_from: Vec<String>,
    /// Delimiter, `<<-`, and whether it was unquoted.
    pub(super) heredocs: Vec<(Vec<u8>, bool, bool)>,
    pub(super) herestrings: Vec<String>,
    /// See [`SimpleCommand::substitutions`].
    pub(super) substitutions: Vec<(String, Range<usize>)>,
}

pub(super) struct Parser<'s, 'c> {
    pub(super) s: &'s [u8],
    pub(super) i: usize,
    pub(super) depth: usize,
    /// Quotes and `${…}` currently open inside the word being read.
    pub(super) word_nesting: usize,
    pub(super) ctx: Context,
    pub(super) out: &'c mut Collector,
    pub(super) pending: Vec<Heredoc>,
    /// An expansion was met in the word being read.
    pub(super) expanded: bool,
}

impl Parser<'_, '_> {
    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    pub(super) fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.s.get(self.i + ahead).copied()
    }

    /// Commands separated by `;`, `&`, `&&`, `||` and newlines, up to `close` or the end.
    pub(super) fn list(&mut self, close: Option<u8>) {
        // The first command of the and-or list being read (`a && b || c`), and whether
        // the last separator joined the next pipeline to it.
        let mut chain: Option<usize> = None;
        let mut joined = false;
        let mut and = false;
        let cases_before = self.out.cases_open;
        loop {
            if self.out.full() {
                self.i = self.s.len();
                return;
            }
            let at = self.i;
            self.skip_space(true);
            if !joined && self.s[at..self.i].contains(&b'\n') {
                chain = None;
            }
            match self.peek() {
                None => return,
                Some(b'&') if self.peek_at(1) == Some(b'&') => {
                    self.i += 2;
                    joined = true;
                    and = true;
                }
                Some(b'|') if self.peek_at(1) == Some(b'|') => {
                    self.i += 2;
                    joined = true;
                    and = false;
                }
                Some(b';' | b'&' | b'|') => {
                    self.i += 1;
                    chain = None;
                    joined = false;
                    and = false;
                }
                // `$(case x in x) …;; esac)`: a pattern's `)` inside.
                Some(b')') if close == Some(b')') && self.out.cases_open <= cases_before => {
                    return;
                }
                Some(b')') => self.i += 1,
                Some(_) => {
                    let before = self.i;
                    let first = self.out.commands.len();
                    if !joined || chain.is_none() {
                        chain = Some(first);
                    }
                    // `cd x && rm y`: `rm` runs only when what stands before it succeeded.
                    if joined && and && self.out.and_joined.len() < 4096 {
                        self.out.and_joined.push(first);
                    }
                    joined = false;
                    and = false;
                    self.out.closed = None;
                    self.pipeline();
                    if self.i == before {
                        self.i += 1;
                    }
                    // `job &` (not `&&`): the job runs on while the line goes on; after
                    // a compound command's closing word, the whole compound command.
                    self.skip_space(false);
                    let last = self.out.commands.len();
                    // A compound command that ended here began the and-or list where it
                    // began; `a && b &`: the whole and-or list is the job.
                    let closed = self.out.closed.take();
                    if let Some(opened) = closed
                        && chain == Some(first)
                    {
                        chain = Some(opened);
                    }
                    let start = closed
                        .or((last > first).then_some(first))
                        .map(|s| chain.map_or(s, |c| c.min(s)));
                    let forked = self.out.commands[first..last].iter().any(forks_away);
                    if (forked
                        || self.peek() == Some(b'&')
                            && !matches!(self.peek_at(1), Some(b'&' | b'>')))
                        && let Some(start) = start.filter(|s| *s < last)
                    {
                        self.out.background.push(start..last);
                    }
                }
            }
        }
    }

    pub(super) fn pipeline(&mut self) {
        let id = self.out.next_pipeline;
        self.out.next_pipeline = id.wrapping_add(1);
        let mut stage = 0u32;
        let mut apart: Option<usize> = None;
        loop {
            self.command(id, stage);
            self.skip_space(false);
            let piped = self.peek() == Some(b'|') && self.peek_at(1) != Some(b'|');
            // A compound command that is a stage (`{ cd ..; } | cat`, `… | while read f;
            // do …; done`) runs in a shell of its own: its commands get a frame of their
            // own, so a `cd` in it holds for nothing after the pipeline.
            if (piped || stage > 0)
                && let Some(start) = self.out.closed
                && apart != Some(start)
            {
                apart = Some(start);
                self.stage_apart(start);
            }
            if !piped || self.out.full() {
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

    /// The commands from `start` on, a compound stage of a pipeline, moved into a frame
    /// of their own.
    fn stage_apart(&mut self, start: usize) {
        let here = self.ctx.frame;
        let own = self.out.new_frame(here, true);
        for c in self.out.commands.iter_mut().skip(start) {
            if c.frame == here {
                c.frame = own;
            }
        }
    }

    /// Blanks, line continuations and comments; newlines too when `newlines` is set.
    pub(super) fn skip_space(&mut self, newlines: bool) {
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
    pub(super) fn newline(&mut self) {
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
                command.stdin_literal |= !doc.expands;
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
    pub(super) fn substitutions_only(&mut self) {
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

    /// Whether the `((` at the cursor is arithmetic: as bash reads it, only when the `)`
    /// that closes its inside is followed by another (`((x++))`); otherwise it is a
    /// subshell in a subshell (`((rm -rf /) )`, `((true) ; rm x)`).
    pub(super) fn closes_as_arithmetic(&self) -> bool {
        let mut depth = 0usize;
        let mut j = self.i + 2;
        while j < self.s.len() {
            match self.s[j] {
                b'\\' => j += 1,
                b'(' => depth += 1,
                b')' if depth == 0 => return self.s.get(j + 1) == Some(&b')'),
                b')' => depth -= 1,
                _ => {}
            }
            j += 1;
        }
        // Never closed: read as arithmetic, which takes the rest of the line.
        true
    }

    /// One simple command (or subshell) up to an operator that ends it.
    pub(super) fn command(&mut self, pipeline: u32, stage: u32) {
        let mut words: Vec<Word> = Vec::new();
        let mut redirections = Redirections::default();
        loop {
            self.skip_space(false);
            let before = self.i;
            match self.peek() {
                None | Some(b'\n' | b';' | b'|' | b')') => break,
                Some(b'&') if self.peek_at(1) == Some(b'>') => self.redirect(&mut redirections),
                Some(b'&') => break,
                // `((…))`, and `for ((…; …; …))`.
                Some(b'(')
                    if (words.is_empty()
                        || words.len() == 1 && !words[0].quoted && words[0].text == b"for")
                        && self.peek_at(1) == Some(b'(')
                        && self.closes_as_arithmetic() =>
                {
                    let mut scratch = Vec::new();
                    self.arithmetic(&mut scratch);
                    // `sh -c '((rm -rf /))'`: dash and other POSIX shells read `((` as two
                    // subshells, and run what bash would count with.
                    if words.is_empty()
                        && scratch.len() > 4
                        && scratch.starts_with(b"((")
                        && scratch.ends_with(b"))")
                    {
                        let inner = scratch[1..scratch.len() - 1].to_vec();
                        let ctx = self
                            .ctx
                            .within(Via::Script("`((…))` as sh reads it".into()), false);
                        // Run in subshells there: no variable of the line changes.
                        let kept = self.out.assignments.len();
                        parse_script(&inner, self.depth + 1, &ctx, self.out);
                        self.out.assignments.truncate(kept);
                    }
                }
                Some(b'(') => {
                    self.i += 1;
                    if words
                        .last()
                        .is_some_and(|w| w.assignment && w.text.ends_with(b"="))
                    {
                        // `cmd=(echo hi)`: the words, quoted, are the variable's value.
                        let (items, computed) = self.array_literal();
                        if let Some(word) = words.last_mut() {
                            word.text.extend_from_slice(items.as_bytes());
                            word.computed |= computed;
                            word.array = true;
                        }
                    } else {
                        // `name() { …; }` defines a function: its body runs, its name
                        // is no command. Otherwise this is a subshell.
                        let name = match words.as_slice() {
                            [name] | [_, name] if self.peek() == Some(b')') => {
                                Some(String::from_utf8_lossy(&name.text).into_owned())
                            }
                            _ => None,
                        };
                        words.clear();
                        self.nested(None);
                        if let Some(name) = name {
                            self.function_body(name);
                        }
                    }
                }
                Some(b'<' | b'>') if self.peek_at(1) != Some(b'(') => {
                    self.redirect(&mut redirections);
                }
                Some(_) => {
                    let word = self.word();
                    if words.len() == 1
                        && !words[0].quoted
                        && words[0].text == b"function"
                        && !word.quoted
                    {
                        // `function name { …; }`: the body follows as a group.
                        let name = String::from_utf8_lossy(&word.text).into_owned();
                        words.clear();
                        self.skip_space(true);
                        if self.peek() == Some(b'(') && self.peek_at(1) == Some(b')') {
                            self.i += 2;
                        }
                        self.function_body(name);
                        continue;
                    }
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
    pub(super) fn nested(&mut self, via: Option<Via>) {
        if self.depth >= MAX_DEPTH {
            self.out.too_deep = true;
            self.skip_balanced();
            return;
        }
        let subshell = via.is_none();
        let saved = self.ctx.clone();
        if let Some(via) = via {
            self.ctx.via.push(via);
        }
        // A subshell, or a substitution: commands in a shell of their own.
        self.ctx.frame = self.out.new_frame(self.ctx.frame, true);
        self.ctx.frame_via = self.ctx.via.len();
        let first = self.out.commands.len();
        self.depth += 1;
        self.list(Some(b')'));
        self.depth -= 1;
        let last = self.out.commands.len();
        if subshell && last > first && self.out.subshells.len() < 256 {
            self.out.subshells.push(first..last);
        }
        self.ctx = saved;
        if self.peek() == Some(b')') {
            self.i += 1;
        }
    }

    /// Remember the text of the function body `{ … }` that starts here (nothing is
    /// consumed: the body's commands are read as commands of the line).
    pub(super) fn function_body(&mut self, name: String) {
        let save = self.i;
        self.skip_space(true);
        let start = self.i;
        // `f() { …; }`, or a body run in a subshell: `f() ( … )`.
        let (open, close) = match self.peek() {
            Some(b'{') => (b'{', b'}'),
            Some(b'(') => (b'(', b')'),
            _ => (0, 0),
        };
        if open == 0 || self.out.functions.len() >= 64 {
            self.i = save;
            return;
        }
        self.i += 1;
        self.skip_closed(open, close);
        let end = self.i.min(self.s.len());
        let body = &self.s[(start + 1).min(end)..end.saturating_sub(1).max(start + 1).min(end)];
        self.out
            .functions
            .push((name, String::from_utf8_lossy(body).into_owned()));
        self.i = save;
    }

    /// The words of `name=( … )` after its `(`: data, not a command. Returns them quoted
    /// and joined, and whether any holds an expansion.
    pub(super) fn array_literal(&mut self) -> (String, bool) {
        let mut items: Vec<String> = Vec::new();
        let mut computed = false;
        loop {
            self.skip_space(true);
            match self.peek() {
                None => break,
                Some(b')') => {
                    self.i += 1;
                    break;
                }
                Some(_) => {
                    let before = self.i;
                    let word = self.word();
                    computed |= word.computed;
                    let text = word.into_string();
                    // `([x]=1)`: an element's subscript is read as an expression.
                    if let Some(sub) = text
                        .strip_prefix('[')
                        .and_then(|t| t.split_once("]=").or_else(|| t.split_once("]+=")))
                        .map(|(sub, _)| sub.to_owned())
                    {
                        self.out.note_evaluated(&sub);
                    }
                    if items.len() < 256 {
                        items.push(super::words::shell_quote(&text));
                    }
                    if self.i == before {
                        self.i += 1;
                    }
                }
            }
        }
        (items.join(" "), computed)
    }

    /// Past the `)` matching an already consumed `(`, without collecting anything.
    pub(super) fn skip_balanced(&mut self) {
        self.skip_closed(b'(', b')');
    }

    /// Past the `close` matching an already consumed `open`, quotes and escapes skipped.
    fn skip_closed(&mut self, opening: u8, closing: u8) {
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
                c if c == opening => open += 1,
                c if c == closing => {
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

    pub(super) fn redirect(&mut self, redirections: &mut Redirections) {
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
            b"<&" => {
                // `cmd <&3`: its input is another descriptor's, which the line may have
                // filled (`exec 3<<<'…'`): kept as `&3` for what reads its program there.
                let fd = String::from_utf8_lossy(&target.text).into_owned();
                if fd.bytes().all(|b| b.is_ascii_digit()) && fd != "0" && !fd.is_empty() {
                    redirections.reads_from.push(format!("&{fd}"));
                }
            }
            b">&" => {
                let fd = target.text.iter().all(u8::is_ascii_digit) || target.text == b"-";
                if !fd {
                    redirections.writes_to.push(target.into_string());
                }
            }
            b">>" | b"&>>" => {
                let target = target.into_string();
                redirections.appends_to.push(target.clone());
                redirections.writes_to.push(target);
            }
            _ => redirections.writes_to.push(target.into_string()),
        }
    }

    /// Turn the words of one command into simple commands, unwrapping what it runs.
    pub(super) fn finish(
        &mut self,
        words: Vec<Word>,
        redirections: Redirections,
        pipeline: u32,
        stage: u32,
    ) {
        // Brace expansion comes first, and only for words after the assignments that
        // lead in (`X={a,b} cmd` sets `X` to `{a,b}`).
        let leading = words.iter().take_while(|w| w.assignment).count();
        let mut expanded = Vec::with_capacity(words.len());
        for (k, word) in words.into_iter().enumerate() {
            if k < leading {
                expanded.push(word);
                continue;
            }
            let Some(words) = braces::expand(word) else {
                self.out.truncated = true;
                return;
            };
            expanded.extend(words);
        }
        let words = expanded;
        let skip = words
            .iter()
            .take_while(|w| (!w.quoted && RESERVED.contains(&w.text.as_slice())) || w.assignment)
            .count();
        if words[..skip]
            .iter()
            .any(|w| !w.quoted && w.text == b"coproc")
        {
            self.out.coprocess = true;
        }
        // Where compound commands open and close, for a job that is one (`{ …; } &`).
        for word in words
            .iter()
            .take(skip + 1)
            .filter(|w| !w.assignment && !w.quoted)
        {
            match word.text.as_slice() {
                opener @ (b"{" | b"for" | b"while" | b"until" | b"if" | b"case" | b"select")
                    if self.out.openers.len() < 64 =>
                {
                    let looped = matches!(opener, b"for" | b"while" | b"until" | b"select");
                    self.out
                        .openers
                        .push((self.out.commands.len(), looped, stage > 0));
                    if opener == b"case" {
                        self.out.cases_open += 1;
                    }
                }
                b"}" | b"done" | b"fi" | b"esac" => {
                    if word.text.as_slice() == b"esac" {
                        self.out.cases_open = self.out.cases_open.saturating_sub(1);
                    }
                    let opened = self.out.openers.pop();
                    if let Some((start, true, _)) = opened
                        && self.out.loops.len() < 64
                    {
                        self.out.loops.push(start..self.out.commands.len());
                    }
                    // Opened after a `|`: the compound command is a stage of its own.
                    if let Some((start, _, true)) = opened {
                        self.stage_apart(start);
                    }
                    self.out.closed = opened.map(|(start, _, _)| start);
                }
                _ => {}
            }
        }
        // A loop can open a body (`do for f in …`, `then for …`): its own words follow
        // the reserved words that lead in.
        let lead = words
            .iter()
            .take_while(|w| {
                !w.quoted
                    && matches!(
                        w.text.as_slice(),
                        b"do" | b"then" | b"else" | b"elif" | b"{" | b"!" | b"time"
                    )
            })
            .count();
        if let [first, name, keyword, values @ ..] = &words[lead..]
            && !first.quoted
            && matches!(first.text.as_slice(), b"for" | b"select")
            && keyword.text == b"in"
            && self.out.assignments.len() < MAX_ASSIGNMENTS
        {
            // `for d in / ~; do …; done`: `$d` is each of the words in turn.
            let values: Vec<String> = values
                .iter()
                .take(64)
                .map(|w| String::from_utf8_lossy(&w.text).into_owned())
                .collect();
            let mut raw = values.join(" ");
            // `for i in "${!a[@]}"` over an array not declared associative: its indices,
            // numbers (what a counter like `seq` prints).
            if let [only] = values.as_slice()
                && let Some(array) = only
                    .strip_prefix("${!")
                    .and_then(|v| v.strip_suffix("[@]}").or_else(|| v.strip_suffix("[*]}")))
                && super::words::is_assignment_name(array.as_bytes())
                && !self.out.associative.iter().any(|a| a == array)
            {
                raw = format!("$(seq 0 \"${{#{array}[@]}}\")");
            }
            self.out.assignments.push(Assignment {
                at: self.out.commands.len(),
                name: String::from_utf8_lossy(&name.text).into_owned(),
                // A value with a line break in it would be read as two values.
                value: (!values.is_empty()
                    && !values.iter().any(|v| v.contains('\n'))
                    && !values
                        .iter()
                        .zip(words.iter().skip(lead + 3))
                        .any(|(_, w)| w.computed))
                .then(|| values.join("\n")),
                raw,
                each: true,
                array: false,
                nameref: false,
                append: false,
            });
        }
        for word in words.iter().take(skip).filter(|w| w.assignment) {
            let text = String::from_utf8_lossy(&word.text).into_owned();
            let Some((name, value)) = text.split_once('=') else {
                continue;
            };
            if let Some(script) = super::words::value_script(name, value) {
                let ctx = self.ctx.within(Via::Script(format!("{name}=")), false);
                parse_script(script.as_bytes(), self.depth + 1, &ctx, self.out);
            }
            for script in super::words::subscript_commands(value) {
                let ctx = self
                    .ctx
                    .within(Via::Script(format!("`{name}` read as a number")), false);
                parse_script(script.as_bytes(), self.depth + 1, &ctx, self.out);
            }
            let base = name.trim_end_matches('+');
            // `a[x]=1`: an indexed array's subscript is read as an expression.
            if let Some((array, sub)) = base.split_once('[')
                && !self.out.associative.iter().any(|a| a == array)
            {
                self.out.note_evaluated(sub.trim_end_matches(']'));
            }
            // `n+=$x` after `declare -i n`, `RANDOM=$x`: the value is read as an
            // expression.
            if self.out.integers.iter().any(|n| n == base)
                || matches!(
                    base,
                    "RANDOM" | "SRANDOM" | "OPTIND" | "SECONDS" | "LINENO" | "HISTCMD"
                )
            {
                self.out.note_evaluated(value);
            }
            // `a=([x]=1)`, `a+=([$i]=v)`: each element's subscript is read as an
            // expression.
            if value.starts_with('(') {
                self.out.note_compound_subscripts(value);
            }
            // `PS4="$x"`: a prompt string is expanded again when it is used, and the
            // values of the variables in it with it.
            if matches!(base, "PS0" | "PS1" | "PS2" | "PS3" | "PS4") {
                let at = self.out.commands.len();
                for var in super::words::variable_names(value).into_iter().take(16) {
                    if self.out.prompted.len() < 256 {
                        self.out.prompted.push((at, var));
                    }
                }
            }
        }
        // `declare -a a=([x]=1)`: the elements' subscripts, as in a plain assignment; and
        // `declare 'x[$(cmd)]=1'`: the name's own subscript, which the builtin reads as a
        // number after the quotes are gone, running what it substitutes.
        if let Some(first) = words.get(skip)
            && matches!(
                first.text.as_slice(),
                b"declare" | b"typeset" | b"local" | b"export" | b"readonly"
            )
        {
            for w in &words[skip + 1..] {
                let text = String::from_utf8_lossy(&w.text).into_owned();
                let named = text.split_once('=').map_or(text.as_str(), |(n, _)| n);
                if !text.starts_with('-') && named.contains('[') {
                    for script in super::words::subscript_commands(named) {
                        let ctx = self.ctx.within(
                            Via::Script("a subscript the builtin reads as a number".into()),
                            false,
                        );
                        parse_script(script.as_bytes(), self.depth + 1, &ctx, self.out);
                    }
                }
                if let Some((_, value)) = text.split_once('=')
                    && value.starts_with('(')
                {
                    self.out.note_compound_subscripts(value);
                }
            }
        }
        if let Some(first) = words.get(skip)
            && matches!(first.text.as_slice(), b"hash" | b"enable")
        {
            let name = String::from_utf8_lossy(&first.text).into_owned();
            if !self.out.lookups_changed.contains(&name) {
                self.out.lookups_changed.push(name);
            }
        }
        // Names declared associative arrays (`declare -A m`, `local -A m=(…)`).
        if let Some(first) = words.get(skip)
            && matches!(first.text.as_slice(), b"declare" | b"typeset" | b"local")
            && words[skip + 1..].iter().any(|w| {
                w.text.starts_with(b"-") && w.text.contains(&b'A') && !w.text.starts_with(b"--")
            })
        {
            for w in &words[skip + 1..] {
                let text = String::from_utf8_lossy(&w.text);
                let name = text.split(['=', '[']).next().unwrap_or_default();
                if !text.starts_with('-') && !name.is_empty() && self.out.associative.len() < 256 {
                    self.out.associative.push(name.to_owned());
                }
            }
        }
        // Names declared integers (`declare -i n`, `local -i n=0`): what is later
        // assigned to them is read as an expression.
        if let Some(first) = words.get(skip)
            && matches!(
                first.text.as_slice(),
                b"declare" | b"typeset" | b"local" | b"export" | b"readonly"
            )
            && words[skip + 1..].iter().any(|w| {
                w.text.starts_with(b"-") && w.text.contains(&b'i') && !w.text.starts_with(b"--")
            })
        {
            for w in &words[skip + 1..] {
                let text = String::from_utf8_lossy(&w.text);
                let name = text.split(['=', '[']).next().unwrap_or_default();
                if !text.starts_with('-') && !name.is_empty() && self.out.integers.len() < 256 {
                    self.out
                        .integers
                        .push(name.trim_end_matches('+').to_owned());
                }
            }
        }
        // `[[ 1 -eq 'a[$(cmd)]' ]]`, `let 'n=a[$(cmd)]'`: bash reads these operands as
        // numbers, quotes removed, and runs what an array subscript in them substitutes.
        let body = &words[lead.min(words.len())..];
        let numeric: Vec<&Word> = match body.first() {
            Some(first) if !first.quoted && first.text == b"[[" => (1..body.len())
                .filter(|&k| {
                    let compares = |w: Option<&Word>| {
                        w.is_some_and(|w| {
                            !w.quoted
                                && matches!(
                                    w.text.as_slice(),
                                    b"-eq" | b"-ne" | b"-lt" | b"-le" | b"-gt" | b"-ge"
                                )
                        })
                    };
                    compares(body.get(k - 1)) || compares(body.get(k + 1))
                })
                .map(|k| &body[k])
                .collect(),
            Some(first) if !first.quoted && first.text == b"let" => body[1..].iter().collect(),
            _ => Vec::new(),
        };
        for word in numeric {
            let text = String::from_utf8_lossy(&word.text).into_owned();
            self.out.note_evaluated(&text);
            for script in super::words::subscript_commands(&text) {
                let ctx = self
                    .ctx
                    .within(Via::Script("an operand read as a number".into()), false);
                parse_script(script.as_bytes(), self.depth + 1, &ctx, self.out);
            }
        }
        if skip == words.len() && self.out.assignments.len() < MAX_ASSIGNMENTS {
            // `X=rm` alone sets a variable of the shell for the commands after it.
            let at = self.out.commands.len();
            for word in words.iter().filter(|w| w.assignment) {
                let text = String::from_utf8_lossy(&word.text);
                if let Some((written, value)) = text.split_once('=') {
                    let name = written.trim_end_matches('+');
                    // `m[k]=v`: one element set, an array changed in a way only known
                    // as the shell runs (its keys may be any words).
                    let element = name.split_once('[').map(|(base, _)| base);
                    self.out.assignments.push(Assignment {
                        at,
                        name: element.unwrap_or(name).to_owned(),
                        value: if element.is_some() {
                            None
                        } else if word.computed {
                            super::words::fresh_temporary(value)
                        } else {
                            Some(value.to_owned())
                        },
                        raw: value.to_owned(),
                        each: false,
                        array: word.array || element.is_some(),
                        nameref: false,
                        append: written.ends_with('+') || element.is_some(),
                    });
                }
            }
        }
        let mut substitutions = Vec::new();
        let mut computed = Vec::new();
        let env: Vec<String> = words
            .iter()
            .take(skip)
            .filter(|w| w.assignment)
            .map(|w| String::from_utf8_lossy(&w.text).into_owned())
            .collect();
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
            appends_to: redirections.appends_to,
            reads_from: redirections.reads_from,
            substitutions,
            computed,
            stdin_texts: redirections.herestrings.clone(),
            env,
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
}
