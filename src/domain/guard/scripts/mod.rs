//! Programs a command runs from files already on disk: a shell script (`bash x.sh`,
//! `source env.sh`, `./build.sh`), a program file for an interpreter (`python3 tool.py`,
//! `./x.py` with its `#!` line), the recipes `make` runs from a Makefile, and the scripts
//! package managers run from `package.json` (`npm test`, `yarn build`). Each file is read
//! bounded, only when it is a regular file, and without ever blocking; what it holds is
//! handed back to be checked like the same text on the command line.
//!
//! A project's own files are long and use what only the running shell knows (`$1`,
//! functions, loops), so of what their content yields only what names a risk is kept
//! ([`carries_over`]): refusals, and asks about a named danger. An ask that only says a
//! part could not be analysed is not raised for them.

mod make;
mod package;
#[cfg(test)]
mod tests;

use std::cell::Cell;
use std::io::Read as _;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use super::finding::{Finding, operands};
use super::line::Wrote;
use super::protect::{Cwd, resolve};
use super::shell::{self, Parsed, SimpleCommand};
use crate::base::files::open_regular;

/// Most bytes of one file that are read; past them, what was read is judged (a project's
/// `configure` script runs to megabytes) and the reasons say so.
pub(super) const MAX_FILE_BYTES: usize = 256 * 1024;
/// Most files read for one call, nested runs and Makefile includes counted.
const MAX_FILES: usize = 32;
/// Most bytes of what files hand on (recipes, function bodies filled in, scripts they run)
/// parsed for one call, each piece costing at least 1 KiB: bounds the time a call with
/// large build files takes (a 256 KiB script calling its functions 1,000 times: 0.25 s).
const MAX_PARSED: usize = 1 << 20;

/// Checks whose ask only says that a part could not be analysed, and reads of secrets: a
/// project's scripts load its `.env` the way they are meant to. Neither is raised for what
/// a file on disk holds.
const NOT_CARRIED: &[&str] = &[
    "guard:unanalysable",
    "guard:computed-command",
    "guard:code-unknown",
    "guard:unseen-script",
    "guard:self-protect-unsure",
    "guard:foreign-code",
    "guard:secret",
];

/// Whether a finding made on the content of a file on disk is raised for the call that
/// runs it: every other refusal and every ask about a named danger.
pub(super) fn carries_over(finding: &Finding) -> bool {
    !NOT_CARRIED.contains(&finding.check)
}

/// The files of one call: the project they are relative to and how many may still be
/// read.
pub(super) struct Files<'a> {
    root: &'a Path,
    left: Cell<usize>,
    /// Bytes of their programs left to parse for this call.
    budget: Cell<usize>,
}

impl<'a> Files<'a> {
    pub(super) fn new(root: &'a Path) -> Files<'a> {
        Files {
            root,
            left: Cell::new(MAX_FILES),
            budget: Cell::new(MAX_PARSED),
        }
    }

    /// The bytes of programs from files left to parse for this call.
    pub(super) fn budget(&self) -> &Cell<usize> {
        &self.budget
    }

    /// Where `path`, as a command in `cwd` names it, is on disk; `None` when only the
    /// running shell knows (`$DIR/x.sh`, a glob, an unknown folder).
    fn locate(&self, cwd: &Cwd, path: &str) -> Option<PathBuf> {
        if path.is_empty() || path == "-" || path.contains(['`', '*', '?', '[', '\0']) {
            return None;
        }
        let path = ["$HOME", "${HOME}"]
            .iter()
            .find_map(|h| path.strip_prefix(h))
            .map_or_else(|| path.to_owned(), |rest| format!("~{rest}"));
        if path.contains('$') {
            return None;
        }
        let full = resolve(cwd, &path)?;
        if let Some(rest) = full.strip_prefix('~') {
            // `~user/…` is another user's home: not looked up.
            let rest = if rest.is_empty() {
                rest
            } else {
                rest.strip_prefix('/')?
            };
            return Some(crate::base::paths::home_dir()?.join(rest));
        }
        Some(self.root.join(full))
    }

    /// What is at `path` (as a command in `cwd` names it).
    fn read(&self, cwd: &Cwd, path: &str) -> Content {
        match self.locate(cwd, path) {
            Some(full) => self.read_at(&full),
            None => Content::Absent,
        }
    }

    fn read_at(&self, full: &Path) -> Content {
        if full == Path::new("/dev/null") {
            return Content::Absent; // empty, whatever reads it
        }
        let Ok(meta) = std::fs::metadata(full) else {
            return Content::Absent;
        };
        let kind = meta.file_type();
        if kind.is_dir() {
            return Content::Absent;
        }
        if !kind.is_file() {
            let what = if kind.is_fifo() {
                "a FIFO"
            } else if kind.is_socket() {
                "a socket"
            } else {
                "a device"
            };
            return Content::Special(what);
        }
        let left = self.left.get();
        if left == 0 {
            return Content::TooMany;
        }
        self.left.set(left - 1);
        // Opened without blocking and checked again: it may have changed since.
        let Ok(file) = open_regular(full) else {
            return Content::Absent;
        };
        // A compiled program is known by its first block, and not read further.
        let mut file = file;
        let mut bytes = vec![0; 8192];
        let mut got = 0;
        while got < bytes.len() {
            match file.read(&mut bytes[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Content::Absent,
            }
        }
        bytes.truncate(got);
        if bytes.starts_with(b"\x7fELF") || memchr::memchr(0, &bytes).is_some() {
            return Content::Binary;
        }
        let limit = u64::try_from(MAX_FILE_BYTES + 1 - bytes.len()).unwrap_or(0);
        if got == 8192 && file.take(limit).read_to_end(&mut bytes).is_err() {
            return Content::Absent;
        }
        let truncated = bytes.len() > MAX_FILE_BYTES;
        bytes.truncate(MAX_FILE_BYTES);
        Content::Text {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            truncated,
        }
    }
}

/// What the line itself wrote into a file, looked up before the disk: `(cwd, path)` to
/// what it wrote there, if it did.
pub(super) type Written<'a> = &'a dyn Fn(&Cwd, &str) -> Option<Wrote>;

/// Files as one command sees them: what its line wrote, else what is on disk.
#[derive(Clone, Copy)]
pub(super) struct View<'a> {
    files: &'a Files<'a>,
    written: Written<'a>,
}

impl<'a> View<'a> {
    pub(super) fn new(files: &'a Files<'a>, written: Written<'a>) -> View<'a> {
        View { files, written }
    }

    fn read(&self, cwd: &Cwd, path: &str) -> Content {
        match (self.written)(cwd, path) {
            Some(Wrote::Shown(text)) => Content::Text {
                text,
                truncated: false,
            },
            Some(Wrote::Hidden) => Content::Hidden,
            Some(Wrote::Downloaded) => Content::Downloaded,
            None => self.files.read(cwd, path),
        }
    }
}

/// What is found where a file is looked for.
enum Content {
    /// Written by the line with contents it does not show.
    Hidden,
    /// Downloaded by the line.
    Downloaded,
    /// Nothing readable: missing (the command fails), a folder, unreadable.
    Absent,
    /// A compiled program.
    Binary,
    /// A FIFO, socket or device: what it hands over is not known before it runs.
    Special(&'static str),
    /// Past the number of files read for one call: not analysed.
    TooMany,
    Text {
        text: String,
        truncated: bool,
    },
}

/// Something a command runs from a file on disk, to be checked in turn.
pub(super) enum Ran {
    /// A shell script, with how it is run and the folder it runs in when not the
    /// command's own.
    Script(String, String, Option<Cwd>),
    /// Code for an interpreter: the code, the interpreter, and the file it is in.
    Code(String, String, String),
    /// A check that fired on the file itself.
    Finding(Finding),
}

/// Everything command `index` of `parsed`, run in `cwd`, runs from files on disk.
pub(super) fn runs(parsed: &Parsed, index: usize, cwd: &Cwd, files: View) -> Vec<Ran> {
    let files = &files;
    let command = &parsed.commands[index];
    let name = command.name();
    let mut out = Vec::new();
    if matches!(name, "make" | "gmake") {
        make::runs(parsed, index, cwd, files, &mut out);
    } else if let Some(ran) = package::runs(command, cwd, files, &mut out) {
        // `bun run x.ts`, `bun x.ts`: a program file.
        program_file(command, &ran, "bun", cwd, files, &mut out);
    } else if matches!(name, "source" | ".") {
        let args = command.args();
        if let Some(file) = operands(args).first() {
            let at = args.iter().position(|a| a == file).unwrap_or(0);
            shell_file(file, &args[at..], "sourced", cwd, files, &mut out);
        }
    } else if let Some(j) = shell::program_file(&command.argv) {
        let file = command.argv[j].clone();
        program_file(command, &file, name, cwd, files, &mut out);
    } else if command.argv[0].contains('/') && !command.argv[0].starts_with("/dev/") {
        // `./build.sh`, `scripts/x.py`, `/abs/tool`: run by its `#!` line.
        executed(command, cwd, files, &mut out);
    }
    out
}

/// `file`, given to interpreter `runner` by `command`, read and handed back.
fn program_file(
    command: &SimpleCommand,
    file: &str,
    runner: &str,
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) {
    let at = command.argv.iter().position(|a| a == file).unwrap_or(0);
    let params = &command.argv[at..];
    if shell::is_shell(runner) {
        shell_file(file, params, &format!("run by `{runner}`"), cwd, files, out);
        return;
    }
    if let Some((text, via)) = text_of(file, cwd, files, out) {
        out.push(Ran::Code(text, runner.to_owned(), via));
    }
}

/// A shell script file run with `params` (its name, then its arguments).
fn shell_file(
    file: &str,
    params: &[String],
    how: &str,
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) {
    if let Some((text, via)) = text_of(file, cwd, files, out) {
        let text = filled(&text, params);
        out.push(Ran::Script(text, format!("{via}, {how}"), None));
    }
}

/// A script's positional parameters filled in from the command that runs it, when no
/// function or `shift` gives `$1` another meaning.
fn filled(text: &str, params: &[String]) -> String {
    let other_meaning = ["()", "function ", "shift", "getopts", "set --"]
        .iter()
        .any(|w| text.contains(w));
    if params.len() < 2 || other_meaning {
        return text.to_owned();
    }
    shell::with_positional(text, params)
}

/// The text of `file` and how to name it, or the finding its place calls for (pushed
/// onto `out`); `None` when there is nothing to check.
fn text_of(file: &str, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) -> Option<(String, String)> {
    read_named(files.read(cwd, file), file, out)
}

fn read_named(content: Content, file: &str, out: &mut Vec<Ran>) -> Option<(String, String)> {
    match content {
        Content::Absent | Content::Binary => None,
        Content::Hidden => {
            out.push(Ran::Finding(Finding::ask(
                "guard:computed-command",
                format!(
                    "runs `{file}`, which this command line writes with contents nagger \
                     cannot see"
                ),
                "Write the file in one call, read it, and run it in the next.",
            )));
            None
        }
        Content::Downloaded => {
            out.push(Ran::Finding(Finding::deny(
                "guard:pipe-to-shell",
                format!("runs `{file}`, downloaded by this command line without review"),
                "Download it to a file, read it, and run it only if the user agrees.",
            )));
            None
        }
        Content::Special(what) => {
            out.push(Ran::Finding(Finding::ask(
                "guard:unreadable-file",
                format!(
                    "runs `{file}`, which is {what}, not a regular file: what it runs is only \
                     known when it is read"
                ),
                "Put the program in a regular file and run that.",
            )));
            None
        }
        Content::TooMany => None,
        Content::Text { text, truncated } => {
            // Past the cap, what was read is judged, and said to be all that was.
            let via = if truncated {
                format!(
                    "the file `{file}` (its first {} KiB)",
                    MAX_FILE_BYTES / 1024
                )
            } else {
                format!("the file `{file}`")
            };
            Some((text, via))
        }
    }
}

/// A file run by its path: its `#!` line names the interpreter; a text file without one
/// is run by `sh`.
fn executed(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let file = command.argv[0].as_str();
    let Some((text, via)) = text_of(file, cwd, files, out) else {
        return;
    };
    let runner = shebang(&text);
    let runner = runner.as_deref().unwrap_or("sh");
    if shell::is_shell(runner) {
        let text = filled(&text, &command.argv);
        out.push(Ran::Script(
            text,
            format!("{via}, run by its `#!` line"),
            None,
        ));
    } else if matches!(runner, "make" | "gmake") {
        make::from_text(&text, &via, command.args(), cwd, files, out);
    } else if shell::is_interpreter(runner)
        && shell::program_file(&[runner.to_owned(), file.to_owned()]).is_some()
    {
        out.push(Ran::Code(text, runner.to_owned(), via));
    }
}

/// The program a `#!` line names: `#!/bin/bash -e` → `bash`, `#!/usr/bin/env -S python3
/// -u` → `python3`.
fn shebang(text: &str) -> Option<String> {
    let line = text.strip_prefix("#!")?.lines().next()?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let (first, rest) = words.split_first()?;
    let program = if shell::basename(first) == "env" {
        rest.iter()
            .find(|w| !w.starts_with('-') && !w.contains('='))
            .copied()?
    } else {
        first
    };
    Some(shell::basename(program).to_owned())
}
