//! Reading the files a command runs: bounded, only regular files, never blocking, what
//! the command line itself wrote looked up first; and what is found there.

use std::cell::Cell;
use std::io::Read as _;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use super::super::finding::{Finding, operands};
use super::super::important::runs_later;
use super::super::line::Wrote;
use super::super::programs::feeders;
use super::super::protect::{Cwd, resolve, unchanged_in_git};
use super::super::shell::{self, Parsed};
use crate::base::files::open_regular;

/// Most bytes of one file that are read; past them, what was read is judged (a project's
/// `configure` script runs to megabytes) and the reasons say so.
pub(super) const MAX_FILE_BYTES: usize = 256 * 1024;
/// Most files read for one call, nested runs and Makefile includes counted.
pub(super) const MAX_FILES: usize = 32;
/// Most bytes of what files hand on (recipes, function bodies filled in, scripts they run)
/// parsed for one call, each piece costing at least 1 KiB: bounds the time a call with
/// large build files takes (a 256 KiB script calling its functions 1,000 times: 0.25 s).
const MAX_PARSED: usize = 1 << 20;

/// The files of one call: the project they are relative to and how many may still be
/// read.
pub(crate) struct Files<'a> {
    root: &'a Path,
    left: Cell<usize>,
    /// The files counted against `left` so far.
    counted: std::cell::RefCell<Vec<PathBuf>>,
    /// Bytes of their programs left to parse for this call.
    budget: Cell<usize>,
    /// Whether a file read since this was last cleared is not [`settled`]: what it holds
    /// is judged as strictly as the command line.
    fresh: Cell<bool>,
}

impl<'a> Files<'a> {
    pub(crate) fn new(root: &'a Path) -> Files<'a> {
        Files {
            root,
            left: Cell::new(MAX_FILES),
            counted: std::cell::RefCell::new(Vec::new()),
            budget: Cell::new(MAX_PARSED),
            fresh: Cell::new(false),
        }
    }

    /// The bytes of programs from files left to parse for this call.
    pub(crate) fn budget(&self) -> &Cell<usize> {
        &self.budget
    }

    /// Whether a file read since the last call of this was not settled (tracked by git and
    /// unchanged), clearing the mark.
    pub(crate) fn take_fresh(&self) -> bool {
        self.fresh.replace(false)
    }

    /// Marks what was read as the command line's own (`make --eval`, a Makefile on
    /// standard input): judged as strictly as the line.
    pub(super) fn mark_fresh(&self) {
        self.fresh.set(true);
    }

    /// Where `path`, as a command in `cwd` names it, is on disk; `None` when only the
    /// running shell knows (`$DIR/x.sh`, a glob, an unknown folder).
    fn locate(&self, cwd: &Cwd, path: &str) -> Option<PathBuf> {
        if path.is_empty() || path == "-" || path.contains(['*', '?', '[', '\0']) {
            return None;
        }
        // `$PWD/x`, `$(pwd)/x`, `$HOME/x`, `${HOME%/*}/x`: spellings of known folders.
        let path = super::super::paths::here_and_home(path);
        if path.contains(['$', '`']) {
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
            let home = crate::base::paths::home_dir()?.join(rest);
            // `~/../proj/x.sh`: out of the home and into a folder beside it.
            return Some(PathBuf::from(super::super::paths::normalize(
                &home.to_string_lossy(),
            )));
        }
        Some(self.root.join(full))
    }

    /// What is at `path` (as a command in `cwd` names it).
    fn read(&self, cwd: &Cwd, path: &str) -> Content {
        match self.locate(cwd, path) {
            Some(full) => self.read_at(&full, true),
            None => Content::Absent,
        }
    }

    /// `counted`: the file counts against the files read for one call (a program's
    /// sources read by their own bound do not).
    fn read_at(&self, full: &Path, counted: bool) -> Content {
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
        // Each file counts once, however many checks read it.
        let seen = !counted || self.counted.borrow().iter().any(|p| p == full);
        if !seen {
            let left = self.left.get();
            if left == 0 {
                return Content::TooMany;
            }
            self.left.set(left - 1);
            self.counted.borrow_mut().push(full.to_path_buf());
        }
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
        if !settled(self.root, full) {
            self.fresh.set(true);
        }
        Content::Text {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            truncated,
        }
    }
}

/// What the line itself wrote into a file, looked up before the disk: `(cwd, path)` to
/// what it wrote there, if it did.
pub(crate) type Written<'a> = &'a dyn Fn(&Cwd, &str) -> Option<Wrote>;

/// Files as one command sees them: what its line wrote, else what is on disk.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    files: &'a Files<'a>,
    written: Written<'a>,
    /// Folders the command puts on a module path (`PYTHONPATH=tools`, `NODE_PATH=lib`:
    /// both searched by either language, which only reads more).
    python_path: &'a [String],
    /// The folder Python keeps bytecode under (`PYTHONPYCACHEPREFIX=build/pyc`).
    pycache_prefix: Option<&'a str>,
}

impl<'a> View<'a> {
    pub(crate) fn new(files: &'a Files<'a>, written: Written<'a>) -> View<'a> {
        View {
            files,
            written,
            python_path: &[],
            pycache_prefix: None,
        }
    }

    /// The same view for a command that puts `dirs` on Python's module path.
    pub(super) fn with_python_path(self, dirs: &'a [String]) -> View<'a> {
        View {
            python_path: dirs,
            ..self
        }
    }

    /// Folders the command puts on Python's module path.
    pub(super) fn python_path(&self) -> &'a [String] {
        self.python_path
    }

    /// The same view for a command whose Python keeps bytecode under `prefix`.
    pub(super) fn with_pycache_prefix(self, prefix: Option<&'a str>) -> View<'a> {
        View {
            pycache_prefix: prefix,
            ..self
        }
    }

    /// The folder the command's Python keeps bytecode under, when it is not beside the
    /// sources.
    pub(super) fn pycache_prefix(&self) -> Option<&'a str> {
        self.pycache_prefix
    }

    /// The names in the folder `path` (as a command in `cwd` names it), at most `max`;
    /// empty when it is no folder on disk. Listing a folder never waits.
    pub(super) fn list(&self, cwd: &Cwd, path: &str, max: usize) -> Vec<String> {
        let Some(full) = self.files.locate(cwd, path) else {
            return Vec::new();
        };
        let Ok(entries) = std::fs::read_dir(full) else {
            return Vec::new();
        };
        entries
            .take(max)
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect()
    }

    /// Where `path` (as a command in `cwd` names it) is on disk, when that is known.
    pub(super) fn full(&self, cwd: &Cwd, path: &str) -> Option<PathBuf> {
        self.files.locate(cwd, path)
    }

    /// The folder `cwd` is on disk, when that is known.
    pub(super) fn folder(&self, cwd: &Cwd) -> Option<PathBuf> {
        match cwd {
            Cwd::Known(dir) if dir.is_empty() => Some(self.files.root.to_path_buf()),
            Cwd::Known(dir) => self.files.locate(&Cwd::Known(String::new()), dir),
            Cwd::Unknown => None,
        }
    }

    /// The first `max` bytes of the regular file at `path` (as a command in `cwd` names
    /// it), read without waiting; `None` when it is no regular file on disk.
    pub(super) fn bytes(&self, cwd: &Cwd, path: &str, max: u64) -> Option<Vec<u8>> {
        use std::io::Read as _;
        let full = self.files.locate(cwd, path)?;
        let file = crate::base::files::open_regular(&full).ok()?;
        let mut out = Vec::new();
        file.take(max).read_to_end(&mut out).ok()?;
        Some(out)
    }

    /// Whether `path` (as a command in `cwd` names it) is a file the line writes or one on
    /// disk.
    pub(super) fn is_file(&self, cwd: &Cwd, path: &str) -> bool {
        (self.written)(cwd, path).is_some()
            || self.files.locate(cwd, path).is_some_and(|p| p.is_file())
    }

    /// Marks what this command runs as the command line's own text.
    pub(super) fn mark_fresh(&self) {
        self.files.mark_fresh();
    }

    /// Whether `path` (as a command in `cwd` names it) is a settled file: one the project
    /// keeps unchanged in git, a package's, the system's (see [`settled`]).
    pub(super) fn settled(&self, cwd: &Cwd, path: &str) -> bool {
        (self.written)(cwd, path).is_none()
            && self
                .files
                .locate(cwd, path)
                .is_some_and(|full| settled(self.files.root, &full))
    }

    /// Whether `path` (as a command in `cwd` names it) is there: written by the line, or
    /// anything on disk.
    pub(super) fn exists(&self, cwd: &Cwd, path: &str) -> bool {
        (self.written)(cwd, path).is_some()
            || self
                .files
                .locate(cwd, path)
                .is_some_and(|p| std::fs::symlink_metadata(p).is_ok())
    }

    /// Whether `path` (as a command in `cwd` names it) is a folder on disk.
    pub(super) fn is_dir(&self, cwd: &Cwd, path: &str) -> bool {
        self.files.locate(cwd, path).is_some_and(|p| p.is_dir())
    }

    pub(super) fn read(&self, cwd: &Cwd, path: &str) -> Content {
        let wrote = (self.written)(cwd, path);
        if wrote.is_some() {
            // What the line itself wrote is the agent's own, judged as strictly.
            self.mark_fresh();
        }
        match wrote {
            Some(Wrote::Shown(text)) => Content::Text {
                text,
                truncated: false,
            },
            Some(Wrote::Hidden) => Content::Hidden,
            Some(Wrote::Downloaded) => Content::Downloaded,
            None => self.files.read(cwd, path),
        }
    }

    /// [`View::read`] for a file nagger only scans for what it names or calls, and judges
    /// on its own terms: reading it does not make the command's other files judged as
    /// the agent's own.
    pub(super) fn read_unjudged(&self, cwd: &Cwd, path: &str) -> Content {
        let fresh = self.files.fresh.get();
        let content = self.read(cwd, path);
        self.files.fresh.set(fresh);
        content
    }

    /// What is at `path` as [`View::read`] finds it, not counted against the files read
    /// for one call: for a program's sources, which their reader bounds itself.
    pub(super) fn read_source(&self, cwd: &Cwd, path: &str) -> Content {
        match (self.written)(cwd, path) {
            Some(_) => self.read(cwd, path),
            None => match self.files.locate(cwd, path) {
                Some(full) => self.files.read_at(&full, false),
                None => Content::Absent,
            },
        }
    }
}

/// What is found where a file is looked for.
pub(super) enum Content {
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
pub(crate) enum Ran {
    /// A shell script, with how it is run and the folder it runs in when not the
    /// command's own.
    Script(String, String, Option<Cwd>),
    /// Code for an interpreter: the code, the interpreter, and the file it is in.
    Code(String, String, String),
    /// The same for a module another file loads that is settled (the project's own,
    /// unchanged): judged as a project's file, whatever else the command runs.
    OwnCode(String, String, String),
    /// A check that fired on the file itself.
    Finding(Finding),
}

pub(super) fn read_named(
    content: Content,
    file: &str,
    out: &mut Vec<Ran>,
) -> Option<(String, String)> {
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
            // Past the cap, what was read is judged (and said to be all that was), and
            // what was not read is asked about: it may run anything.
            let via = if truncated {
                out.push(Ran::Finding(Finding::ask(
                    "guard:unreadable-file",
                    format!(
                        "runs `{file}`, larger than the {} KiB nagger reads: what its rest \
                         runs cannot be checked",
                        MAX_FILE_BYTES / 1024
                    ),
                    "Ask the user, or run a smaller script.",
                )));
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

/// Whether `file`, a file of code a program is handed, is only known when the line runs:
/// then it cannot be read, and a finding that says so is pushed onto `out`.
pub(super) fn unresolved(file: &str, out: &mut Vec<Ran>) -> bool {
    if !only_known_when_run(file) {
        return false;
    }
    out.push(Ran::Finding(Finding::ask(
        "guard:computed-command",
        format!(
            "runs `{file}`, a file whose name is only known when the line runs (a variable, a \
             pattern or a command's output): nagger cannot read what it runs"
        ),
        "Name the file as it is on disk.",
    )));
    true
}

/// Whether the file a command names is only known when the line runs: a variable other
/// than the current folder's and the home's, a command's output, or a pattern.
pub(super) fn only_known_when_run(file: &str) -> bool {
    // `source <(echo …)`: what the substitution prints is read as the line writes it.
    if file.starts_with("<(") || file.starts_with(">(") {
        return false;
    }
    super::super::paths::here_and_home(file).contains(['$', '`', '*', '?', '['])
}

/// The program a `#!` line names: `#!/bin/bash -e` → `bash`, `#!/usr/bin/env -S python3
/// -u` → `python3`.
pub(super) fn shebang(text: &str) -> Option<String> {
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

/// Most files printed into a pipe that are read for one command.
const MAX_PIPED_FILES: usize = 8;

/// What the stage before command `index` prints into its standard input, where the line
/// shows it: `echo …` and `printf …` words, and the files `cat`, `head`, `tail` and the
/// like print; each with where it came from.
pub(super) fn piped_texts(
    parsed: &Parsed,
    index: usize,
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) -> Vec<(String, String)> {
    let command = &parsed.commands[index];
    let mut texts = Vec::new();
    for j in feeders(parsed, index) {
        let feeder = &parsed.commands[j];
        if feeder.pipeline != command.pipeline {
            continue;
        }
        match feeder.name() {
            "echo" => {
                let words: Vec<&str> = feeder
                    .args()
                    .iter()
                    .map(String::as_str)
                    .skip_while(|a| matches!(*a, "-n" | "-e" | "-E" | "-ne" | "-en"))
                    .collect();
                texts.push((words.join(" ").replace("\\n", "\n"), "`echo`".into()));
            }
            "printf" => {
                let words: Vec<&str> = feeder.args().iter().map(String::as_str).collect();
                texts.push((words.join(" ").replace("\\n", "\n"), "`printf`".into()));
            }
            "cat" | "tac" | "head" | "tail" | "zcat" | "gzcat" | "bzcat" | "xzcat" => {
                for file in operands(feeder.args()).into_iter().take(MAX_PIPED_FILES) {
                    if let Some((text, via)) = read_named(files.read(cwd, file), file, out) {
                        texts.push((text, via));
                    }
                }
            }
            _ => {}
        }
    }
    texts
}

/// Whether the file at `full` (a program a command runs from disk) is one the user
/// settled rather than one an agent may have just written: tracked by the git repository
/// it is in and unchanged since it was staged. A file in the project (`root`), the home
/// folder or a temporary folder that git does not keep unchanged is not; the system's own
/// files elsewhere (`/usr/bin/…`, `/etc/profile`) and a shell's start-up files, judged as
/// they are written, are.
/// Files package managers write into `node_modules` after an install marker.
const INSTALL_MARKERS: &[&str] = &[
    ".package-lock.json",
    ".yarn-integrity",
    ".modules.yaml",
    ".yarn-state.yml",
];

/// Whether a file under `node_modules` is as a package manager left it: a program in
/// `.bin` is a link the manager made (a plain file there was written by someone else),
/// and a file changed after the manager's last install marker was written is not the
/// install's.
fn installed(full: &Path) -> bool {
    let Some(modules) = full
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "node_modules"))
    else {
        return false;
    };
    if full.parent() == Some(&modules.join(".bin"))
        && std::fs::symlink_metadata(full).is_ok_and(|m| !m.file_type().is_symlink())
    {
        return false;
    }
    // No manager's marker: a folder made by hand, the package's only when it is known to
    // be older than the session.
    let Some(marker) = INSTALL_MARKERS
        .iter()
        .find_map(|m| std::fs::metadata(modules.join(m)).ok())
    else {
        return crate::base::process::session_started().is_some() && !changed_in_this_session(full);
    };
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(full).is_ok_and(|m| m.ctime() <= marker.mtime() + 2)
}

fn settled(root: &Path, full: &Path) -> bool {
    let home = crate::base::paths::home_dir();
    let writable = full.starts_with(root)
        || home.as_deref().is_some_and(|h| full.starts_with(h))
        || ["/tmp", "/var/tmp", "/dev/shm", "/run/user"]
            .iter()
            .any(|t| full.starts_with(t))
        || std::env::var_os("TMPDIR").is_some_and(|t| !t.is_empty() && full.starts_with(&t));
    // A shell's start-up files are the user's: what is written into them is judged as
    // the command line it becomes when it is written.
    // What a package manager installed (`node_modules`) is the packages' own; read as a
    // project's files are, what names a danger is still raised.
    let installed = full.components().any(|c| c.as_os_str() == "node_modules") && installed(full)
        // What pip installed into a site (a virtual environment's, the user's): the
        // packages' own, unless it changed in this session.
        || full
            .components()
            .any(|c| c.as_os_str() == "site-packages" || c.as_os_str() == "dist-packages")
            // Start-up hooks are the user's own, not a package's.
            && !full
                .file_name()
                .is_some_and(|n| n == "usercustomize.py" || n == "sitecustomize.py")
            && !changed_in_this_session(full);
    if !writable || installed || runs_later(&full.to_string_lossy()) {
        return true;
    }
    unchanged_in_git(full) && !changed_in_this_session(full)
}

/// Whether the file at `full` changed (was written, renamed, linked, had its mode set)
/// after the session started (the Claude Code process the hook runs under, or, for a hook
/// run by another program, the making of its transcript): such a file may be the
/// agent's own, committed to git to look settled, and is judged as strictly as the
/// command line. A change time cannot be set back by a program, only by the clock.
fn changed_in_this_session(full: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Some(started) = crate::base::process::session_started() else {
        return false;
    };
    let Ok(meta) = std::fs::metadata(full) else {
        return false;
    };
    let changed = std::time::UNIX_EPOCH
        + std::time::Duration::new(
            u64::try_from(meta.ctime()).unwrap_or(0),
            u32::try_from(meta.ctime_nsec()).unwrap_or(0),
        );
    changed >= started
}
