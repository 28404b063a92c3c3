//! The hook command: the portable `nagger hook` when nagger is on PATH, a quoted path
//! otherwise, and how a command already in a settings file is recognised as nagger's.

use std::fs;
use std::path::{Path, PathBuf};

/// The hook command a settings file shared through version control can hold: `nagger hook`
/// when `nagger` is found on `path_var` (so it works on every machine that has nagger on
/// its PATH); `None` when it is not, and the command would have to name this machine's file.
pub fn find_on_path(path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    let path_var = path_var?;
    std::env::split_paths(path_var)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("nagger"))
        .find(|candidate| is_executable_file(candidate))
}

fn is_executable_file(path: &Path) -> bool {
    let Ok(meta) = fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The portable hook command, for when nagger is on PATH.
pub const PORTABLE_COMMAND: &str = "nagger hook";

/// The command line Claude Code runs for nagger at `exe`, quoted for the shell it uses.
pub fn hook_command(exe: &Path) -> String {
    let mut quoted = String::from("\"");
    for c in exe.to_string_lossy().chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    format!("{quoted} hook")
}

/// Whether `command` runs nagger's hook handler: its program's file name is nagger's (any
/// directory, quoted or not, variables such as `$CLAUDE_PROJECT_DIR` left unexpanded) and its
/// first argument is `hook`.
pub fn is_nagger_command(command: &str) -> bool {
    let mut words = ShellWords { rest: command };
    let Some(program) = words.next() else {
        return false;
    };
    let file_name = program.rsplit('/').next().unwrap_or(&program);
    is_nagger_name(file_name) && words.next().as_deref() == Some("hook")
}

/// Whether `file_name` is what a build of nagger is called: `nagger`, or `nagger` with a
/// version, target or suffix after a `-`, `_` or `.` (`nagger-0.9`, `nagger.exe`,
/// `nagger_dev`). A renamed nagger still writes and must still find its own entries.
pub fn is_nagger_name(file_name: &str) -> bool {
    file_name.strip_prefix("nagger").is_some_and(|rest| {
        rest.is_empty() || (rest.len() > 1 && rest.starts_with(['-', '_', '.']))
    })
}

/// The program a hook command runs: its first shell word, unquoted (variables such as
/// `$CLAUDE_PROJECT_DIR` left as written). `nagger doctor` checks that it exists.
pub fn hook_program(command: &str) -> Option<String> {
    ShellWords { rest: command }.next()
}

/// Just enough of POSIX word splitting to read a program and its first argument: quotes,
/// backslashes and blanks. An unterminated quote ends the words.
pub(super) struct ShellWords<'a> {
    pub(super) rest: &'a str,
}

impl Iterator for ShellWords<'_> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        let mut chars = self.rest.trim_start().chars();
        let mut word = String::new();
        let mut started = false;
        loop {
            let rest = chars.as_str();
            let Some(c) = chars.next() else {
                self.rest = "";
                return started.then_some(word);
            };
            match c {
                c if c.is_whitespace() => {
                    self.rest = rest;
                    return Some(word);
                }
                '\'' => loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => {
                            self.rest = "";
                            return None;
                        }
                    }
                },
                '"' => loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => {
                                self.rest = "";
                                return None;
                            }
                        },
                        Some(c) => word.push(c),
                        None => {
                            self.rest = "";
                            return None;
                        }
                    }
                },
                '\\' => {
                    if let Some(c) = chars.next().filter(|&c| c != '\n') {
                        word.push(c);
                    }
                }
                c => word.push(c),
            }
            started = true;
        }
    }
}
