//! Shell tokeniser for command rules and the guard: turns a Bash command line into the
//! simple commands it would run, with wrappers (`sudo`, `env`, `xargs`, `bash -c`, `eval` …)
//! peeled off. Nothing is expanded or executed. Any input terminates without panicking,
//! with nesting depth, command count and bytes scanned bounded; the guard refuses what
//! went past a bound rather than trusting the part it saw.

use std::fmt;
use std::ops::Range;

mod lexer;
mod parser;
mod words;
mod wrappers;

use lexer::{Word, split_words};
use parser::{Collector, Context, Io, Parser, parse_script};
pub use words::*;

/// Deepest nesting of subshells, substitutions and `bash -c` scripts that is analysed.
pub const MAX_DEPTH: usize = 64;
/// Most simple commands collected from one command line.
pub const MAX_COMMANDS: usize = 16_384;
/// Most bytes scanned for one command line, counting every re-scan of an unwrapped
/// script: bounds the work on any input.
pub const MAX_SCANNED_BYTES: usize = 4 << 20;
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
        let chain: Vec<String> = self
            .via
            .iter()
            .rev()
            .map(std::string::ToString::to_string)
            .collect();
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

#[cfg(test)]
mod tests;
