//! What reading a command line yields: its simple commands, each with where it was found.

use std::fmt;
use std::ops::Range;

use super::words::{basename, quote_for_display, split_short_flags};

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
    /// The targets of `writes_to` that are appended to (`>>file`, `&>>file`).
    pub appends_to: Vec<String>,
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
    /// A here-document it reads is taken as written (its delimiter quoted): `$…` and
    /// backticks in it stay as they are.
    pub stdin_literal: bool,
    /// Variables set for this command alone, as written before it (`X=1 git status`):
    /// `NAME=value`, the value as the shell reads it (substitutions left as written).
    pub env: Vec<String>,
    /// The frame it was found in (see [`Parsed::frames`]): 0 at the top of the line.
    pub frame: u32,
}

impl SimpleCommand {
    /// Program name without its directory: `/usr/bin/rm` → `rm`.
    pub fn name(&self) -> &str {
        self.argv.first().map_or("", |a| basename(a))
    }

    /// The value the command's own environment words give `name` (`X=v cmd`, `env X=v
    /// cmd`), the last of them.
    pub fn env_value(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .chain(self.prefixed.iter().flatten())
            .rev()
            .find_map(|w| w.strip_prefix(name).and_then(|r| r.strip_prefix('=')))
    }

    /// Run by `xargs` or `parallel`, which hand it the words they read.
    pub fn under_xargs(&self) -> bool {
        self.prefixes
            .iter()
            .any(|p| p == "xargs" || p == "parallel")
    }

    /// The replace string of the `xargs` (or `parallel`) that runs it (`-I R`, `-IR`,
    /// `-i`, `--replace[=R]`), when it has one.
    pub fn xargs_replace(&self) -> Option<String> {
        let words = self.prefixed.as_ref()?;
        let at = words
            .iter()
            .position(|w| matches!(basename(w), "xargs" | "parallel"))?;
        let mut k = at + 1;
        while let Some(w) = words.get(k) {
            if !w.starts_with('-') {
                break;
            }
            if w == "-I" {
                return words.get(k + 1).cloned();
            }
            if w == "-i" || w == "--replace" {
                return Some("{}".to_owned());
            }
            if let Some(r) = w.strip_prefix("--replace=") {
                return Some(r.to_owned());
            }
            if let Some(r) = w.strip_prefix("-I").or_else(|| w.strip_prefix("-i")) {
                return Some(r.to_owned());
            }
            k += 1;
        }
        None
    }

    /// Run by `xargs` fed by `finder`, a `find`: the same as `find ARGS -exec CMD {} +`,
    /// and with `xargs -I R` each name standing where `R` does: `find ARGS -exec CMD… {}
    /// …\;`.
    #[must_use]
    pub fn as_find_exec(&self, finder: &SimpleCommand) -> SimpleCommand {
        let mut argv = finder.argv.clone();
        argv.push("-exec".into());
        if let Some(r) = self.xargs_replace().filter(|r| !r.is_empty()) {
            argv.extend(self.argv.iter().map(|w| w.replace(r.as_str(), "{}")));
            argv.push(";".to_owned());
        } else {
            argv.extend(self.argv.iter().cloned());
            argv.extend(["{}".to_owned(), "+".to_owned()]);
        }
        SimpleCommand {
            argv,
            ..finder.clone()
        }
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
#[allow(clippy::struct_excessive_bools)] // independent facts of one line, read apart
pub struct Parsed {
    pub commands: Vec<SimpleCommand>,
    /// Nesting went past [`MAX_DEPTH`](super::limits::MAX_DEPTH) (or quotes inside a word past their own bound);
    /// deeper commands were not collected.
    pub too_deep: bool,
    /// More than [`MAX_COMMANDS`](super::limits::MAX_COMMANDS) simple commands or [`MAX_SCANNED_BYTES`](super::limits::MAX_SCANNED_BYTES) scanned; the
    /// rest was not collected.
    pub truncated: bool,
    /// The line holds a NUL byte, which no shell passes on as written.
    pub nul: bool,
    /// Shell variables the line sets (`X=rm`, `export X=rm`), in order.
    pub assignments: Vec<Assignment>,
    /// Functions the line defines: name and body.
    pub functions: Vec<(String, String)>,
    /// Jobs the line starts in the background (`job &`): the indices in
    /// [`Parsed::commands`] of each job's commands, nested ones included.
    pub background: Vec<Range<usize>>,
    /// Loops the line runs (`for`, `while`, `until`, `select`): the indices in
    /// [`Parsed::commands`] of each loop's commands, its condition's included.
    pub loops: Vec<Range<usize>>,
    /// The line starts a coprocess (`coproc …`), which it may write to later.
    pub coprocess: bool,
    /// Names of commands the line runs as `hash` or `enable` (each once), for the lookups
    /// that follow them: `hash -p FILE NAME` gives a name a program, `enable -n NAME`
    /// turns a builtin off.
    pub lookups_changed: Vec<String>,
    /// Subshells (`( … )`): the indices in [`Parsed::commands`] of each one's commands.
    pub subshells: Vec<Range<usize>>,
    /// The indices of commands that begin a pipeline run only when the one before it
    /// succeeded (`a && b`: `b`'s).
    pub and_joined: Vec<usize>,
    /// Frame `k + 1`'s parent frame (0 is the top of the line), and whether its commands
    /// run in a shell of their own (a subshell, a substitution, a script handed to
    /// another program) rather than the one around it (`eval`).
    pub frames: Vec<(u32, bool)>,
    /// Variables whose values bash reads as expressions (in `$((…))`, `((…))`, `let`,
    /// number operands of `[[`, array subscripts, `${!x}`), with the index of the command
    /// they stand at: an array subscript in such a value runs what it substitutes.
    pub evaluated: Vec<(usize, String)>,
    /// Variables expanded again as prompt strings (`${x@P}`), with where they stand.
    pub prompted: Vec<(usize, String)>,
}

/// A shell variable set by the line: from the command at index `at` of
/// [`Parsed::commands`] on, `name` holds `value` (`None` when only known as the shell runs).
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)]
pub struct Assignment {
    pub at: usize,
    pub name: String,
    pub value: Option<String>,
    /// The value as written, substitutions and all (`$(mktemp -d)`).
    pub raw: String,
    /// A loop variable (`for d in a b`): `value` holds each of its values on a line.
    pub each: bool,
    /// An array (`a=(x y)`): `value` holds its elements, each quoted as a shell word.
    pub array: bool,
    /// A name reference (`declare -n r=t`): `value` names the variable it stands for.
    pub nameref: bool,
    /// Added to what the variable held (`x+=y`).
    pub append: bool,
}

/// Programs that decode or unpack what they pass on: a script or a name through them is
/// hidden.
pub fn is_decoder(command: &SimpleCommand) -> bool {
    let args = command.args();
    match command.name() {
        "base64" | "base32" | "basenc" => super::words::has_flag(args, "dD", &["decode"]),
        "xxd" => super::words::has_flag(args, "r", &["revert"]),
        "openssl" => args
            .iter()
            .any(|a| a == "-d" || a == "base64" || a == "enc"),
        "gzip" | "bzip2" | "xz" | "zstd" | "lz4" => {
            super::words::has_flag(args, "d", &["decompress"])
        }
        "gunzip" | "zcat" | "bzcat" | "xzcat" | "zstdcat" | "uudecode" | "rev" | "tr" => true,
        _ => false,
    }
}
