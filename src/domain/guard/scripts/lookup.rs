//! Programs found on a PATH the line itself sets: `PATH=./bin:$PATH ls`, `export
//! PATH=$PWD/bin:$PATH; git status`, `env PATH=tools make`, and names the line hashes to a
//! file (`hash -p ./bin/ls ls; ls`). The name then runs a file of the project, which is
//! read as the script it is, not taken for the program of that name.
//!
//! The folders are searched in the order the shell searches them; those of the PATH
//! nagger itself was started with (`$PATH` in the new value) end the search as soon as
//! they hold the name, like the shell. A folder only known when the shell runs, searched
//! before the usual ones, is asked about; behind them it only adds tools.

use super::super::finding::Finding;
use super::super::paths::here_and_home;
use super::super::protect::Cwd;
use super::super::shell::{Parsed, SimpleCommand};
use super::files::{Content, View};

/// Most folders of one PATH searched.
const MAX_FOLDERS: usize = 32;

/// Names the shell runs itself, whatever PATH holds.
const BUILTINS: &[&str] = &[
    ".", ":", "[", "alias", "bg", "break", "builtin", "cd", "command", "continue", "declare",
    "echo", "eval", "exec", "exit", "export", "false", "fg", "getopts", "hash", "jobs", "kill",
    "let", "local", "popd", "printf", "pushd", "pwd", "read", "readonly", "return", "set", "shift",
    "source", "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias",
    "unset", "wait",
];

/// What a name of the line runs when the line changed where programs are found.
pub(super) enum Found {
    /// The file the name runs: a path with a `/` in it.
    File(String),
    /// The PATH the line set holds a folder only known when the shell runs, searched before
    /// the name is found elsewhere.
    Unknown(String),
}

/// What command `index` of `parsed` runs, when the line set PATH or hashed its name and
/// that changes which file runs. `None`: the program of that name on the usual PATH.
pub(super) fn program(parsed: &Parsed, index: usize, cwd: &Cwd, files: &View) -> Option<Found> {
    let command = &parsed.commands[index];
    let name = command.argv.first()?.as_str();
    named(parsed, index, name, cwd, files)
}

/// The program `git SUB` runs for a subcommand that is no command of git's own, when a
/// PATH the line sets finds `git-SUB` first (`PATH=$PWD/tools:$PATH git lg`), with the
/// index of the words it is handed.
pub(super) fn git_external(
    parsed: &Parsed,
    index: usize,
    cwd: &Cwd,
    files: &View,
) -> Option<(String, usize)> {
    let command = &parsed.commands[index];
    if command.name() != "git" {
        return None;
    }
    let args = command.args();
    let mut k = 0;
    while let Some(a) = args.get(k) {
        if matches!(
            a.as_str(),
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
        ) {
            k += 2;
            continue;
        }
        if a.starts_with('-') {
            k += 1;
            continue;
        }
        break;
    }
    let sub = args.get(k)?;
    if sub.contains(['/', '$', '`']) || GIT_OWN.contains(&sub.as_str()) {
        return None;
    }
    match named(parsed, index, &format!("git-{sub}"), cwd, files)? {
        Found::File(file) => Some((file, k + 2)),
        Found::Unknown(_) => None,
    }
}

/// git's own commands, which no `git-NAME` on PATH replaces.
const GIT_OWN: &[&str] = &[
    "add",
    "am",
    "apply",
    "bisect",
    "blame",
    "branch",
    "checkout",
    "cherry-pick",
    "clean",
    "clone",
    "commit",
    "config",
    "describe",
    "diff",
    "fetch",
    "grep",
    "init",
    "log",
    "merge",
    "mv",
    "pull",
    "push",
    "rebase",
    "reset",
    "restore",
    "revert",
    "rm",
    "show",
    "stash",
    "status",
    "switch",
    "tag",
    "worktree",
    "submodule",
    "remote",
    "rev-parse",
    "ls-files",
];

/// [`program`] for the name `name` command `index` runs.
fn named(parsed: &Parsed, index: usize, name: &str, cwd: &Cwd, files: &View) -> Option<Found> {
    let command = &parsed.commands[index];
    if name.is_empty() || name.contains(['/', '$', '`']) {
        return None;
    }
    // A builtin's name runs the program of that name through a wrapper (`env echo`,
    // `nice true`, `exec echo`) or once the line turned the builtin off (`enable -n`).
    // Looked for only once the line set PATH or hashed the name: a scan of the line per
    // command would grow with its square.
    if BUILTINS.contains(&name) {
        let hashes = parsed.lookups_changed.iter().any(|n| n == "hash");
        let looked_up = hashes && hashed(parsed, index, name).is_some()
            || path_value(parsed, index, command).is_some();
        let external = || {
            command
                .prefixes
                .iter()
                .any(|p| !matches!(p.as_str(), "builtin" | "command" | "time" | "noglob"))
                || parsed.lookups_changed.iter().any(|n| n == "enable")
                    && parsed.commands[..index].iter().any(|c| {
                        c.name() == "enable"
                            && c.args()
                                .iter()
                                .any(|a| a.starts_with('-') && a.contains('n'))
                            && c.args().iter().any(|a| a == name)
                    })
        };
        if !looked_up || !external() {
            return None;
        }
    }
    if parsed.functions.iter().any(|(f, _)| f == name) {
        return None;
    }
    if parsed.lookups_changed.iter().any(|n| n == "hash")
        && let Some(file) = hashed(parsed, index, name)
    {
        return Some(Found::File(file));
    }
    let value = path_value(parsed, index, command)?;
    let started = std::env::var("PATH").unwrap_or_default();
    let mut folders = Vec::new();
    for part in value.split(':') {
        if matches!(part, "$PATH" | "${PATH}") {
            folders.extend(started.split(':').map(|d| (d.to_owned(), true)));
        } else {
            folders.push((part.to_owned(), false));
        }
    }
    let mut after_usual = false;
    for (folder, usual) in folders.into_iter().take(MAX_FOLDERS) {
        // An empty entry is the current folder, as `.` is.
        let folder = if folder.is_empty() {
            ".".to_owned()
        } else {
            folder
        };
        if usual {
            if std::path::Path::new(&folder).join(name).is_file() {
                return None;
            }
            after_usual = true;
            continue;
        }
        let Some(folder) = written_out(&folder) else {
            // Behind the usual folders (`$PATH:$(go env GOPATH)/bin`) it only adds tools.
            if after_usual {
                continue;
            }
            return Some(Found::Unknown(folder));
        };
        let file = if folder.contains('/') || folder.starts_with('~') {
            format!("{}/{name}", folder.trim_end_matches('/'))
        } else {
            format!("./{folder}/{name}")
        };
        if !matches!(files.read(cwd, &file), Content::Absent) {
            return Some(Found::File(file));
        }
    }
    None
}

/// The file `hash -p FILE NAME` earlier in the line gave `name`.
fn hashed(parsed: &Parsed, index: usize, name: &str) -> Option<String> {
    parsed.commands[..index].iter().rev().find_map(|c| {
        if c.name() != "hash" {
            return None;
        }
        let args = c.args();
        let at = args.iter().position(|a| a == "-p")?;
        let file = args.get(at + 1)?;
        args[at + 2..]
            .iter()
            .any(|n| n == name)
            .then(|| file.clone())
    })
}

/// The PATH command `index` runs with, when the line sets it: for the command alone
/// (`PATH=x cmd`, `env PATH=x cmd`) or for the commands after it (`export PATH=x; cmd`).
fn path_value(parsed: &Parsed, index: usize, command: &SimpleCommand) -> Option<String> {
    let own = |words: &[String]| {
        words
            .iter()
            .rev()
            .find_map(|w| w.strip_prefix("PATH=").map(str::to_owned))
    };
    if let Some(value) = own(&command.env) {
        return Some(value);
    }
    if let Some(words) = &command.prefixed
        && let Some(at) = words.iter().position(|w| w == "env")
        && let Some(value) = own(&words[at + 1..])
    {
        return Some(value);
    }
    parsed
        .assignments
        .iter()
        .rev()
        .find(|a| a.name == "PATH" && a.at <= index)
        .map(|a| a.value.clone().unwrap_or_else(|| a.raw.clone()))
}

/// A folder of PATH as a path nagger can look up: `$PWD`, `$(pwd)` and `.` are the folder
/// the command runs in, `$HOME` the home; `None` for anything else only the shell knows.
fn written_out(folder: &str) -> Option<String> {
    let folder = here_and_home(folder.trim_matches('"'));
    (!folder.contains(['$', '`'])).then_some(folder)
}

/// The ask for a name looked up in a folder only the running shell knows.
pub(super) fn unknown_finding(name: &str, folder: &str) -> Finding {
    Finding::ask(
        "guard:path-unknown",
        format!(
            "runs `{name}` from a PATH the line sets, searched first in `{folder}`, a folder \
             only known when the shell runs: what runs there as `{name}` is not known"
        ),
        "Run the program by its path, or put the folder written out on PATH.",
    )
}
