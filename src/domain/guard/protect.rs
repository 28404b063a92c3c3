//! Self-protection: what nagger depends on to run as Claude Code's hook is not for agents to
//! change. The protected set is defined once, in [`protected`]: the project's
//! `.claude-nagger` folder, Claude Code's settings files (project, user and managed), the
//! folders holding them, and the nagger program on PATH. A shell command is judged by what
//! its program does to its operands (writes, moves, links, restores, extracts into,
//! truncates, changes the mode of, deletes), relative operands resolved against the folder
//! the line's `cd`, `pushd` and `popd` lead to; a file tool by the path it writes, with
//! the folders above it resolved through symbolic links on disk. Reading them
//! (`cat .claude-nagger/config.toml`, `nagger stats`) is fine.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use super::code;
use super::finding::{Finding, operands};
use super::paths::normalize;
pub(super) use super::paths::{Cwd, resolve};
use super::shell::{self, Parsed, SimpleCommand, basename, has_flag, option_values, short_cluster};
use super::verdict::Severity;
use crate::base::glob::build_glob;

/// Tools that write the file they name.
const WRITING_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

const NAGGER_FILES: &str = "nagger's own files in .claude-nagger";
const SETTINGS: &str = "Claude Code's settings, where nagger's hook is installed";
const SETTINGS_FOLDER: &str =
    "the folder of Claude Code's settings, where nagger's hook is installed";
const MANAGED: &str = "Claude Code's managed settings, which can turn every hook off";
const SPARSE_PATTERNS: &str = "git's sparse patterns, which can leave Claude Code's settings \
                               and nagger's files out of the work tree";
const LINKED_FOLDER: &str = "a folder holding the file a link of Claude Code's settings or of \
                             nagger's files leads to";
const BINARY: &str = "the nagger program Claude Code runs as its hook";
const BINARY_FOLDER: &str = "the folder of the nagger program Claude Code runs as its hook";
const BESIDE_BINARY: &str = "a program in the folder of the nagger program, found on PATH \
     before the system's: every later command of that name runs it";
const CLAUDE_RUNS: &str = "a file Claude Code runs or loads by itself (its shell snapshots, \
     session environment, plugins, hook scripts or user configuration), outside the guard";
/// What Claude Code keeps under its configuration folder and runs or loads by itself.
const CLAUDE_RUN_FOLDERS: &[&str] = &["shell-snapshots", "session-env", "plugins", "hooks"];

/// Folders the nagger program is installed in, besides those on `PATH`.
const BIN_FOLDERS: &[&str] = &[
    "~/.cargo/bin",
    "~/.local/bin",
    "/usr/local/bin",
    "/usr/bin",
    "/bin",
    "/opt/homebrew/bin",
];
/// Folders above [`BIN_FOLDERS`] that are not system folders (those have their own checks).
const BIN_PARENTS: &[&str] = &["~/.cargo", "~/.local"];

/// The managed-settings folders of Claude Code (Linux, macOS), lower case.
const MANAGED_FOLDERS: &[&str] = &[
    "/etc/claude-code",
    "/library/application support/claudecode",
];

/// Names a file or folder of the protected set ends in: a relative path with one of these
/// names, written from a folder that is not known, may be protected.
const PROTECTED_NAMES: &[&str] = &[
    ".claude-nagger",
    ".claude",
    "settings.json",
    "settings.local.json",
    "config.toml",
    "state.db",
    "managed-settings.json",
    "managed-mcp.json",
    "nagger",
];

/// Most paths of one command line looked up on disk (through symbolic links).
const MAX_LOOKUPS: usize = 32;
/// Most missing folders walked up before a path's existing ancestor is looked up.
const MAX_MISSING: usize = 32;

/// How a protected path weakens nagger when it changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A file nagger depends on, or a folder holding one: writing, moving, removing it or
    /// writing into it weakens nagger.
    Held,
    /// A folder holding the nagger program among other programs (`~/.cargo/bin`): moving,
    /// removing it or changing its mode weakens nagger; writing other programs into it
    /// does not.
    BinFolder,
    /// A folder further above the nagger program (`~/.local/share/pipx/venvs`): moving,
    /// removing or replacing it weakens nagger; its mode matters only where it takes
    /// away the right to enter it, which is checked on its own.
    AboveProgram,
}

/// What the guard knows of the place it runs in: the project and the running binary.
pub(super) struct Scope<'a> {
    /// The project root, which relative paths start from.
    pub(super) root: &'a Path,
    /// The path of the nagger program that runs as the hook, when known.
    pub(super) binary: Option<&'a str>,
    /// Lookups on disk left for this call.
    lookups: Cell<usize>,
    /// Names the line gave the nagger program by linking or copying it.
    aliases: RefCell<Vec<String>>,
    /// The command line being checked, when known: the variables it sets.
    line: Option<&'a Parsed>,
    /// The guard's refusal of what a command destroys (a repository's history, a
    /// disk), for commands self-protection puts back as the host sees them (a
    /// container's, through its mounts).
    destroys: Option<&'a Destroys>,
    /// Whether the line makes `*` match dot names, worked out once.
    dots: std::cell::OnceCell<bool>,
    /// What in the line the guard does not follow, worked out once.
    unfollowed: std::cell::OnceCell<Vec<(usize, String)>>,
    /// The line is a file a job left in the background runs: it runs on after the
    /// command line was checked.
    later: bool,
}

/// The guard's check of what one command destroys.
pub(super) type Destroys = dyn Fn(&SimpleCommand, &Cwd) -> Option<Finding>;

impl<'a> Scope<'a> {
    /// The line being checked and where `command` stands in it, when it is one of its
    /// commands.
    fn place_of(&self, command: &SimpleCommand) -> Option<(&'a Parsed, usize)> {
        let parsed = self.line?;
        // Where in the line's commands it sits, by its address (no walk over the line).
        let range = parsed.commands.as_ptr_range();
        let at = std::ptr::from_ref(command);
        if !range.contains(&at) {
            return None;
        }
        let offset = (at as usize) - (range.start as usize);
        Some((parsed, offset / std::mem::size_of::<SimpleCommand>()))
    }

    pub(super) fn new(root: &'a Path, binary: Option<&'a str>) -> Scope<'a> {
        linked_names::look_in(root, MANAGED_FOLDERS, home_form);
        Scope {
            root,
            binary,
            lookups: Cell::new(MAX_LOOKUPS),
            aliases: RefCell::new(Vec::new()),
            line: None,
            destroys: None,
            dots: std::cell::OnceCell::new(),
            unfollowed: std::cell::OnceCell::new(),
            later: false,
        }
    }

    /// The scope with the guard's check of what a command destroys.
    pub(super) fn judging_destruction(self, destroys: &'a Destroys) -> Scope<'a> {
        Scope {
            destroys: Some(destroys),
            ..self
        }
    }

    /// The same place for a script a command runs (`bash x.sh`): what that script's
    /// own line sets up (`shopt -s dotglob`, its variables) is what its globs and
    /// names are read with.
    pub(super) fn for_script<'b>(&self, parsed: &'b Parsed) -> Scope<'b>
    where
        'a: 'b,
    {
        // What the outer line turned on (`shopt -s dotglob; bash x.sh`) holds inside.
        let dots = std::cell::OnceCell::new();
        if dot_names_matched(self) {
            let _ = dots.set(true);
        }
        Scope {
            root: self.root,
            binary: self.binary,
            lookups: Cell::new(self.lookups.get()),
            aliases: RefCell::new(self.aliases.borrow().clone()),
            line: Some(parsed),
            destroys: self.destroys,
            dots,
            unfollowed: std::cell::OnceCell::new(),
            later: self.later,
        }
    }

    /// The scope of a file a job left in the background runs, when `later`.
    pub(super) fn running_later(self, later: bool) -> Scope<'a> {
        Scope {
            later: self.later || later,
            ..self
        }
    }

    /// The scope of the commands of `parsed`, whose variables it may follow.
    pub(super) fn in_line(self, parsed: &'a Parsed) -> Scope<'a> {
        Scope {
            line: Some(parsed),
            dots: std::cell::OnceCell::new(),
            unfollowed: std::cell::OnceCell::new(),
            ..self
        }
    }
}

/// What `path` is, when it is in the protected set, and how it weakens nagger. Lexical:
/// nothing is looked up on disk; `~`, `$HOME` and the value of `HOME` are the home.
pub(super) fn protected(path: &str, binary: Option<&str>) -> Option<(&'static str, Kind)> {
    protected_by_name(path, binary).or_else(|| {
        // Where a protected name is a symbolic link (`~/.claude/settings.json` into a
        // dotfiles repository, `.claude` onto another folder, `/etc/claude-code`
        // elsewhere), the place it leads is judged as the name.
        let normal = normalize(&home_form(path.trim()));
        match linked_names::alias_of(&normal) {
            Some(alias) => protected_by_name(&alias, binary),
            // A folder above such a place (`~/dotfiles`): moving or removing it takes
            // the file away.
            None => linked_names::holds_one(&normal).then_some((LINKED_FOLDER, Kind::AboveProgram)),
        }
    })
}

/// [`protected`], by the names alone.
fn protected_by_name(path: &str, binary: Option<&str>) -> Option<(&'static str, Kind)> {
    let path = path.trim();
    if path.is_empty() || path.len() > 4096 {
        return None;
    }
    // `~/../bin`: the folder above the home, not a folder of it.
    let expanded;
    let path = match path.strip_prefix('~') {
        Some(rest) if rest.split('/').any(|p| p == "..") => match std::env::var("HOME") {
            Ok(home) if !home.is_empty() => {
                expanded = normalize(&format!("{home}{rest}"));
                expanded.as_str()
            }
            _ => path,
        },
        _ => path,
    };
    let normal = normalize(&home_form(path));
    // Case-insensitive filesystems (macOS) take `.Claude-Nagger` for the folder too.
    let lower = normal.to_ascii_lowercase();
    let parts: Vec<&str> = lower.split('/').filter(|p| !p.is_empty()).collect();
    if parts.iter().any(|p| is(p, ".claude-nagger")) {
        return Some((NAGGER_FILES, Kind::Held));
    }
    // nagger's own copy of the settings the user trusted, and the folders holding it.
    if [
        "~/.local/state/nagger",
        "$XDG_STATE_HOME/nagger",
        "${XDG_STATE_HOME}/nagger",
    ]
    .iter()
    .any(|kept| {
        normal
            .strip_prefix(kept)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            || *kept == "~/.local/state/nagger" && normal == "~/.local/state"
    }) || std::env::var("XDG_STATE_HOME").is_ok_and(|state| {
        let state = normalize(&home_form(&state));
        state.len() > 1
            && (normal == state
                || normal
                    .strip_prefix(&format!("{state}/nagger"))
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/')))
    }) {
        return Some((NAGGER_FILES, Kind::Held));
    }
    if parts.last().is_some_and(|p| is(p, ".claude")) {
        return Some((SETTINGS_FOLDER, Kind::Held));
    }
    if let Some(found) = in_config_dir(&normal) {
        return Some(found);
    }
    // `.claude/hooks/x.sh`, `~/.claude/shell-snapshots/…`, `~/.claude.json`.
    if let Some(at) = parts.iter().position(|p| is(p, ".claude"))
        && parts
            .get(at + 1)
            .is_some_and(|p| CLAUDE_RUN_FOLDERS.iter().any(|f| is(p, f)))
    {
        return Some((CLAUDE_RUNS, Kind::Held));
    }
    // git's sparse patterns: which files a later checkout leaves in the work tree.
    if let [.., info, file] = parts.as_slice()
        && *info == "info"
        && *file == "sparse-checkout"
        && parts.contains(&".git")
    {
        return Some((SPARSE_PATTERNS, Kind::Held));
    }
    if normal == "~/.claude.json" || normal.starts_with("~/.claude.json.") {
        return Some((CLAUDE_RUNS, Kind::Held));
    }
    if let [.., dir, file] = parts.as_slice()
        && is(dir, ".claude")
        && (is(file, "settings.json") || is(file, "settings.local.json"))
    {
        return Some((SETTINGS, Kind::Held));
    }
    if MANAGED_FOLDERS.iter().any(|m| {
        lower
            .strip_prefix(m)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            || m.starts_with(&format!("{lower}/"))
    }) && lower.matches('/').count() >= 2
    {
        return Some((MANAGED, Kind::Held));
    }
    if let ["etc", dir, ..] = parts.as_slice()
        && normal.starts_with('/')
        && glob_hits(dir, "claude-code")
    {
        return Some((MANAGED, Kind::Held));
    }
    binary_part(&normal, binary)
}

/// What `normal` is in the folder Claude Code keeps the user's settings in when
/// `CLAUDE_CONFIG_DIR` names one (the hook runs with Claude Code's environment, and so do
/// the agent's commands): the folder itself and the folders holding it, its settings
/// files, and the folders of what it runs by itself. Spelled with the variable too.
fn in_config_dir(normal: &str) -> Option<(&'static str, Kind)> {
    let mut dirs: Vec<String> = vec!["$CLAUDE_CONFIG_DIR".into(), "${CLAUDE_CONFIG_DIR}".into()];
    if let Ok(dir) = std::env::var("CLAUDE_CONFIG_DIR") {
        let dir = normalize(&home_form(dir.trim()));
        if dir.len() > 1 && !dir.contains('$') {
            dirs.push(dir);
        }
    }
    for dir in &dirs {
        if dir.starts_with(normal) && dir[normal.len()..].starts_with('/') && normal.len() > 1 {
            // A folder above it (`~/.config` for `~/.config/claude`) other than the home
            // and the root: moving or removing it takes the settings away.
            if normal != "~" && normal != "/" && !normal.starts_with('$') {
                return Some((SETTINGS_FOLDER, Kind::AboveProgram));
            }
        }
        let Some(rest) = normal.strip_prefix(dir.as_str()) else {
            continue;
        };
        if rest.is_empty() {
            return Some((SETTINGS_FOLDER, Kind::Held));
        }
        let Some(rest) = rest.strip_prefix('/') else {
            continue;
        };
        let first = rest
            .split('/')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if !rest.contains('/') && (is(&first, "settings.json") || is(&first, "settings.local.json"))
        {
            return Some((SETTINGS, Kind::Held));
        }
        if CLAUDE_RUN_FOLDERS.iter().any(|f| is(&first, f)) || first.starts_with(".claude.json") {
            return Some((CLAUDE_RUNS, Kind::Held));
        }
    }
    None
}

/// The nagger program on PATH or a folder holding it.
fn binary_part(normal: &str, binary: Option<&str>) -> Option<(&'static str, Kind)> {
    let running = binary.map(|b| normalize(&home_form(b)));
    if running.as_deref() == Some(normal) {
        return Some((BINARY, Kind::Held));
    }
    let (parent, name) = normal.rsplit_once('/').unwrap_or((".", normal));
    let parent = if parent.is_empty() { "/" } else { parent };
    // A `nagger` in a program folder, on PATH now or later (`~/bin`, which a login
    // shell puts first when it exists).
    let program_folder = matches!(basename(parent), "bin" | "sbin" | ".bin")
        && ["~/", "/usr/", "/opt/", "/snap/"]
            .iter()
            .any(|p| parent.starts_with(p));
    if is(name, "nagger") && (is_bin_folder(parent, running.as_deref()) || program_folder) {
        return Some((BINARY, Kind::Held));
    }
    // Another program beside the running one: ahead of the system's on PATH.
    if running
        .as_deref()
        .and_then(|r| r.rsplit_once('/'))
        .is_some_and(|(folder, _)| folder == parent && !matches!(parent, "/usr/bin" | "/bin"))
    {
        return Some((BESIDE_BINARY, Kind::Held));
    }
    if is_bin_folder(normal, running.as_deref()) || BIN_PARENTS.contains(&normal) {
        return Some((BINARY_FOLDER, Kind::BinFolder));
    }
    if running.as_deref().is_some_and(|r| holds_program(normal, r)) {
        return Some((BINARY_FOLDER, Kind::AboveProgram));
    }
    // A `nagger` on PATH that is a link (`~/.local/bin/nagger` into a pipx environment):
    // the program it leads to, and the folders above that.
    if normal.starts_with(['/', '~']) {
        for target in linked_programs() {
            if target == normal {
                return Some((BINARY, Kind::Held));
            }
            if holds_program(normal, target) {
                return Some((BINARY_FOLDER, Kind::AboveProgram));
            }
        }
    }
    None
}

/// Where each `nagger` on PATH (or in the usual program folders) that is a symbolic link
/// leads, looked up once per process.
fn linked_programs() -> &'static [String] {
    static LINKED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    LINKED.get_or_init(|| {
        let home = std::env::var("HOME").unwrap_or_default();
        let path = std::env::var("PATH").unwrap_or_default();
        let folders = BIN_FOLDERS
            .iter()
            .map(|f| match f.strip_prefix('~') {
                Some(rest) => format!("{home}{rest}"),
                None => (*f).to_owned(),
            })
            .chain(path.split(':').filter(|d| !d.is_empty()).map(str::to_owned))
            .take(64);
        let mut out: Vec<String> = Vec::new();
        for folder in folders {
            let link = Path::new(&folder).join("nagger");
            let is_link =
                std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink());
            if !is_link {
                continue;
            }
            if let Ok(real) = std::fs::canonicalize(&link) {
                let real = normalize(&home_form(&real.to_string_lossy()));
                if !out.contains(&real) {
                    out.push(real);
                }
            }
        }
        out
    })
}

/// A folder above the running program's folder (`~/.local/share/pipx/venvs` when the
/// `nagger` on PATH links into a virtual environment): removing, moving or replacing it
/// takes the program away. The root and the home have checks of their own.
fn holds_program(folder: &str, running: &str) -> bool {
    !matches!(folder, "/" | "~" | "." | "")
        && running
            .strip_prefix(folder)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn is_bin_folder(folder: &str, running: Option<&str>) -> bool {
    if BIN_FOLDERS.contains(&folder)
        || running.is_some_and(|r| r.rsplit_once('/').is_some_and(|(p, _)| p == folder))
    {
        return true;
    }
    if !(folder.starts_with('/') || folder.starts_with('~')) {
        return false;
    }
    std::env::var("PATH").is_ok_and(|path| {
        path.split(':')
            .filter(|d| !d.is_empty())
            .any(|d| normalize(&home_form(d)) == folder)
    })
}

/// `$HOME/x`, `${HOME}/x` and `<value of HOME>/x` as `~/x`.
pub(super) fn home_form(path: &str) -> String {
    for home in ["$HOME", "${HOME}"] {
        if let Some(rest) = path.strip_prefix(home)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return format!("~{rest}");
        }
    }
    if path.starts_with('/')
        && let Ok(home) = std::env::var("HOME")
    {
        let home = home.trim_end_matches('/');
        if !home.is_empty()
            && let Some(rest) = path.strip_prefix(home)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return format!("~{rest}");
        }
    }
    path.to_owned()
}

/// `name` itself or a glob word the shell expands to it.
fn is(word: &str, name: &str) -> bool {
    word == name || glob_hits(word, name)
}

/// `.c*`, `.claude-*`, `.??*`: a glob word the shell expands to `name`.
fn glob_hits(word: &str, name: &str) -> bool {
    // As the shell expands them, only a pattern starting with `.` matches a dot-name.
    (word.starts_with('.') || !name.starts_with('.'))
        && word.contains(['*', '?', '['])
        && word.len() <= 64
        && build_glob(word, true).is_ok_and(|g| g.compile_matcher().is_match(name))
}

/// `cd`, `pushd` and `popd` followed across one command line.
#[derive(Debug, Clone)]
pub(super) struct Folders {
    cwd: Cwd,
    stack: Vec<Cwd>,
    /// `$OLDPWD`: unknown until the line changes folder.
    old: Cwd,
    /// `cd name` may search `CDPATH` first: set in the shell's environment, or by the line.
    cdpath: bool,
    /// Names the line may give a value (assigned, or a word of a command): the others
    /// hold what the environment the hook shares with the shell holds.
    named: Vec<String>,
    /// Whether `named` was taken from the line (else no variable is filled in).
    in_line: bool,
    /// What the line tells of where a `cd` holds: its subshells, jobs and scripts run
    /// by other shells (a `cd` there ends with them), and which commands run only after
    /// the one before succeeded. Empty unless taken from the line.
    shape: std::rc::Rc<LineShape>,
    /// Index of the next command stepped over, when stepping through the line.
    next: usize,
    /// Where each frame of the line stands (see [`shell::Parsed::frames`]): its folder,
    /// folder stack and `$OLDPWD`, once a command of it was reached.
    states: Vec<Option<(Cwd, Vec<Cwd>, Cwd)>>,
    /// The project's root on disk, to see whether a `cd`'s folder is there.
    root: Option<PathBuf>,
}

/// The shape of a line a [`Folders`] follows.
#[derive(Debug, Default)]
struct LineShape {
    /// Each command's frame, and each frame's (after the top) parent and whether it runs
    /// in a shell of its own.
    frame_of: Vec<u32>,
    frames: Vec<(u32, bool)>,
    /// Jobs the line leaves running: their commands.
    background: Vec<std::ops::Range<usize>>,
    /// Commands run only when the one before succeeded.
    and_joined: Vec<usize>,
    /// Commands in a pipeline of several stages (each in a subshell).
    piped: Vec<bool>,
    /// Each command's words, to see what an earlier one names.
    words: Vec<Vec<String>>,
    /// `enable -n cd`: the builtins that change folder may be switched off.
    builtins_off: bool,
}

impl Folders {
    pub(super) fn new(cwd: Cwd) -> Folders {
        Folders {
            cwd,
            stack: Vec::new(),
            old: Cwd::Unknown,
            cdpath: cdpath_in_environment(),
            named: Vec::new(),
            in_line: false,
            shape: std::rc::Rc::default(),
            next: 0,
            states: Vec::new(),
            root: None,
        }
    }

    /// Looks on disk under `root` (the project's root) whether a `cd`'s folder is there.
    pub(super) fn at_root(mut self, root: &Path) -> Folders {
        self.root = Some(root.to_path_buf());
        self
    }

    /// Followed across `parsed`, which may set `CDPATH` in any form (`CDPATH=..`, `read
    /// CDPATH`, `export CDPATH`, `env CDPATH=… bash -c`): then a `cd` to a bare name may
    /// lead anywhere.
    pub(super) fn in_line(mut self, parsed: &Parsed) -> Folders {
        self.cdpath = self.cdpath || cdpath_set_by(parsed);
        self.named = parsed
            .assignments
            .iter()
            .map(|a| a.name.clone())
            .chain(parsed.commands.iter().flat_map(|c| {
                c.argv
                    .iter()
                    .chain(c.env.iter())
                    .chain(c.prefixed.iter().flatten())
                    .map(|w| {
                        w.split(['=', '[', '+'])
                            .next()
                            .unwrap_or_default()
                            .to_owned()
                    })
            }))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric()))
            .take(4096)
            .collect();
        self.in_line = true;
        self.shape = std::rc::Rc::new(line_shape(parsed));
        self
    }

    #[cfg(test)]
    pub(super) fn cwd(&self) -> &Cwd {
        &self.cwd
    }

    /// The folder before the last `cd` (`$OLDPWD`).
    pub(super) fn old(&self) -> &Cwd {
        &self.old
    }

    /// Where the commands after `command` run.
    pub(super) fn step(&mut self, command: &SimpleCommand) {
        let k = self.next;
        self.next += 1;
        let frame = self.frame_at(k);
        self.change(command, k);
        if self.in_line {
            // The next command runs where its own frame stands: a subshell's `cd` ends
            // with it, a script of another shell's starts where this one is.
            self.save(frame);
            if k + 1 < self.shape.frame_of.len() {
                let next = self.frame_at(k + 1);
                self.load(next);
            }
        }
    }

    /// The frame whose folder command `k` uses: its own, or the one around it when it
    /// runs in the same shell (`eval`).
    fn frame_at(&self, k: usize) -> usize {
        let mut f = self.shape.frame_of.get(k).copied().unwrap_or(0) as usize;
        for _ in 0..64 {
            match self.shape.frames.get(f.wrapping_sub(1)) {
                Some(&(parent, false)) if f > 0 => f = parent as usize,
                _ => break,
            }
        }
        if f > self.shape.frames.len() { 0 } else { f }
    }

    fn save(&mut self, frame: usize) {
        if frame >= self.states.len() {
            self.states.resize(frame + 1, None);
        }
        self.states[frame] = Some((self.cwd.clone(), self.stack.clone(), self.old.clone()));
    }

    /// Makes `frame`'s place the current one: where it stood, or (first reached) where
    /// the frame around it stands now.
    fn load(&mut self, frame: usize) {
        let mut f = frame;
        let mut chain = Vec::new();
        for _ in 0..64 {
            if let Some(Some(state)) = self.states.get(f) {
                let (cwd, stack, old) = state.clone();
                self.cwd = cwd;
                self.stack = stack;
                self.old = old;
                break;
            }
            if f == 0 {
                break;
            }
            chain.push(f);
            f = self
                .shape
                .frames
                .get(f - 1)
                .map_or(0, |&(parent, _)| parent as usize);
        }
        for f in chain {
            self.save(f);
        }
    }

    /// What `cd`, `pushd` and `popd` (command `k`) do to the folder.
    fn change(&mut self, command: &SimpleCommand, k: usize) {
        let name = command.name();
        if !matches!(name, "cd" | "chdir" | "pushd" | "popd") {
            return;
        }
        let before = self.cwd.clone();
        if self.in_line {
            // `nice cd x`, `env cd x`: a program of that name, which changes no folder of
            // the shell's; one stage of several in a pipeline runs in a subshell.
            let wrapped = command
                .prefixes
                .iter()
                .any(|p| !matches!(p.as_str(), "builtin" | "command" | "time"));
            if wrapped || self.shape.piped.get(k).copied().unwrap_or(false) {
                return;
            }
            // `HOME=$PWD/.claude cd`: a variable given to the builtin itself (`HOME`,
            // `CDPATH`, `OLDPWD`) changes where it goes; `cd /dev/fd/3` goes where that
            // descriptor was opened.
            if !command.env.is_empty()
                || command.args().iter().any(|a| {
                    a.starts_with("/dev/fd") || a.starts_with("/proc/") || a.starts_with("/dev/std")
                })
            {
                self.cwd = Cwd::Unknown;
                return;
            }
            // `cd x &`: a job of its own; a job of several commands leaves it unknown.
            let frame = |i: usize| self.shape.frame_of.get(i).copied();
            if let Some(job) = self
                .shape
                .background
                .iter()
                .find(|r| r.contains(&k) && frame(r.start) == frame(k))
            {
                if job.len() > 1 {
                    self.cwd = Cwd::Unknown;
                }
                return;
            }
            if self.shape.builtins_off {
                self.cwd = Cwd::Unknown;
                return;
            }
            // `pushd -n`, `popd -n`: the stack alone changes.
            if matches!(name, "pushd" | "popd") && command.args().iter().any(|a| a == "-n") {
                if name == "popd" {
                    self.stack.pop();
                }
                return;
            }
        }
        match name {
            "cd" | "chdir" => {
                let to = self.target(command);
                self.cwd = self.succeeds(command, k, to, &before);
            }
            "pushd" => {
                let to = self.target(command);
                let to = self.succeeds(command, k, to, &before);
                if to != before && self.stack.len() < 64 {
                    self.stack.push(self.cwd.clone());
                }
                self.cwd = to;
            }
            _ => self.cwd = self.stack.pop().unwrap_or(Cwd::Unknown),
        }
        if self.cwd != before {
            self.old = before;
        }
    }

    /// Where `command` itself runs: the current folder, or the one a wrapper it was
    /// given moves it into (`env -C dir`, `env --chdir=dir`, `sudo -D dir`, `nsenter
    /// --wd=dir`, `systemd-run --working-directory=dir`).
    pub(super) fn cwd_of(&self, command: &SimpleCommand) -> Cwd {
        let mut at = self.cwd.clone();
        for dir in super::shell::wrapper_folders(command) {
            let mover = Folders {
                cwd: at.clone(),
                stack: Vec::new(),
                old: self.old.clone(),
                cdpath: false,
                named: Vec::new(),
                in_line: false,
                shape: std::rc::Rc::default(),
                next: 0,
                states: Vec::new(),
                root: None,
            };
            at = mover.moved(&dir);
        }
        at
    }

    /// Where the shell is after `cd` (command `k`) to `to` from `before`: there when the
    /// folder is there now, or when what follows runs only if it got there (`cd x &&
    /// …`); still in `before` when it is not there and nothing on the line names it
    /// (the `cd` fails); otherwise only known as the line runs.
    fn succeeds(&self, command: &SimpleCommand, k: usize, to: Cwd, before: &Cwd) -> Cwd {
        if !self.in_line {
            return to;
        }
        let ops = operands(command.args());
        let bad_option = command.args().iter().any(|a| {
            a.starts_with('-')
                && a != "-"
                && a != "--"
                && !a[1..].chars().all(|c| "LPe".contains(c))
        });
        // `cd a b` and unknown options fail; `cd -` and a bare `cd` are judged as before.
        if ops.len() > 1 || bad_option {
            return before.clone();
        }
        let Cwd::Known(dir) = &to else {
            return to;
        };
        let Some(root) = &self.root else {
            return to;
        };
        let full = match dir.strip_prefix('~') {
            Some(rest) => match std::env::var_os("HOME") {
                Some(home) => PathBuf::from(home).join(rest.trim_start_matches('/')),
                None => return to,
            },
            None => root.join(dir),
        };
        let enterable_at = |full: &Path| {
            std::fs::metadata(full).is_ok_and(|m| {
                use std::os::unix::fs::PermissionsExt as _;
                m.is_dir() && m.permissions().mode() & 0o111 != 0
            })
        };
        // `cd b*n`: the shell enters what the pattern matches (the pattern stays in the
        // folder, expanded where later paths are judged).
        let enterable = enterable_at(&full)
            || globs::is_glob(dir)
                && globs::expanded(root, dir, false)
                    .iter()
                    .any(|m| enterable_at(Path::new(m)));
        let guarded = self.shape.and_joined.contains(&(k + 1));
        // One of nagger's folders is taken as entered even when not there yet: what is
        // judged there is judged as strictly as it can be.
        if enterable || guarded || protected(dir, None).is_some() {
            return to;
        }
        let word = ops
            .first()
            .copied()
            .unwrap_or_default()
            .trim_end_matches('/');
        // The commands just before it (a bounded look back).
        let upto = k.min(self.shape.words.len());
        let earlier = &self.shape.words[upto.saturating_sub(256)..upto];
        // `mkdir -p build; cd build`: made by the line where nothing stands in its way.
        let made = !word.is_empty()
            && std::fs::symlink_metadata(&full).is_err()
            && !["/proc", "/sys", "/dev"].iter().any(|p| dir.starts_with(p))
            && earlier.iter().any(|ws| {
                ws.first().is_some_and(|n| n == "mkdir")
                    && ws[1..].iter().any(|w| w.trim_end_matches('/') == word)
            });
        if made {
            return to;
        }
        let named_before =
            !word.is_empty() && earlier.iter().any(|ws| ws.iter().any(|w| w.contains(word)));
        if named_before {
            Cwd::Unknown
        } else {
            before.clone()
        }
    }

    fn target(&self, command: &SimpleCommand) -> Cwd {
        let args: Vec<&str> = operands(command.args());
        let Some(dir) = args.first() else {
            return if command.name() == "pushd" {
                Cwd::Unknown
            } else {
                Cwd::Known("~".into())
            };
        };
        // `cd -`: back to `$OLDPWD`, where the line was before its last `cd`.
        if *dir == "-" && matches!(command.name(), "cd" | "chdir") {
            return self.old.clone();
        }
        self.moved(dir)
    }

    /// Where `cd dir` from the current folder leads.
    fn moved(&self, dir: &str) -> Cwd {
        if dir.is_empty() {
            return Cwd::Unknown;
        }
        let mut dir = home_form(dir);
        // The project root and the current folder by name (`"$CLAUDE_PROJECT_DIR/.."`,
        // `"$(dirname "$PWD")"`).
        for (word, with) in [
            ("$CLAUDE_PROJECT_DIR", "."),
            ("${CLAUDE_PROJECT_DIR}", "."),
            ("$PWD", "."),
            ("${PWD}", "."),
            ("$(pwd)", "."),
            ("$(dirname \"$PWD\")", ".."),
            ("$(dirname $PWD)", ".."),
            ("$(dirname \"$(pwd)\")", ".."),
            ("$(dirname $(pwd))", ".."),
        ] {
            if let Some(rest) = dir.strip_prefix(word)
                && (rest.is_empty() || rest.starts_with('/'))
            {
                let from_root = word.contains("CLAUDE_PROJECT_DIR");
                dir = format!("{with}{rest}");
                if from_root {
                    return Cwd::Known(normalize(&dir));
                }
                break;
            }
        }
        // A script's own folder, its name filled in: `"$(dirname 'scripts/x.sh')/.."`.
        if let Some((parent, rest)) = dirname_of_literal(&dir) {
            dir = format!("{parent}{rest}");
        }
        // `cd $TMPDIR`: a variable the line leaves alone holds what the environment holds.
        if self.in_line && dir.contains('$') && !dir.contains('`') {
            dir = super::paths::environment_filled(&dir, |name| {
                matches!(name, "PWD" | "OLDPWD") || self.named.iter().any(|n| n == name)
            });
        }
        if dir == "-" || dir.starts_with(['+', '-']) || dir.contains(['$', '`']) {
            return Cwd::Unknown;
        }
        // With `CDPATH` set, a name that starts with neither `/`, `~`, `.` nor `..` is
        // looked for in its folders first.
        let first = dir.split('/').next().unwrap_or_default();
        if self.cdpath && !dir.starts_with(['/', '~']) && !matches!(first, "." | "..") {
            return Cwd::Unknown;
        }
        match resolve(&self.cwd, &dir) {
            Some(path) => Cwd::Known(normalize(&path)),
            None => Cwd::Unknown,
        }
    }
}

/// Where a `cd` of `parsed` holds (see [`LineShape`]).
fn line_shape(parsed: &Parsed) -> LineShape {
    let mut stages: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    for c in &parsed.commands {
        let most = stages.entry(c.pipeline).or_insert(0);
        *most = (*most).max(c.stage);
    }
    let piped = parsed
        .commands
        .iter()
        .map(|c| stages.get(&c.pipeline).is_some_and(|most| *most > 0))
        .collect();
    let builtins_off = parsed.commands.iter().any(|c| {
        c.name() == "enable"
            && c.args()
                .iter()
                .any(|a| a.starts_with('-') && a.contains('n'))
            && c.args()
                .iter()
                .any(|a| matches!(a.as_str(), "cd" | "pushd" | "popd" | "chdir"))
    });
    LineShape {
        frame_of: parsed.commands.iter().map(|c| c.frame).collect(),
        frames: parsed.frames.clone(),
        background: parsed.background.clone(),
        and_joined: parsed.and_joined.clone(),
        piped,
        words: parsed.commands.iter().map(|c| c.argv.clone()).collect(),
        builtins_off,
    }
}

/// Whether the shell's environment sets `CDPATH`.
fn cdpath_in_environment() -> bool {
    std::env::var_os("CDPATH").is_some_and(|v| !v.is_empty())
}

/// Whether `parsed` sets `CDPATH` in any form (`CDPATH=..`, `read CDPATH`, `export
/// CDPATH`, `env CDPATH=… bash -c`).
fn cdpath_set_by(parsed: &Parsed) -> bool {
    parsed.assignments.iter().any(|a| a.name == "CDPATH")
        || parsed.commands.iter().any(|c| {
            c.argv
                .iter()
                .chain(c.env.iter())
                .chain(c.prefixed.iter().flatten())
                .any(|w| w.contains("CDPATH"))
        })
}

/// `$(dirname P)` (or `$(cd "$(dirname P)" && pwd)`) at the start of `word`, with `P`
/// written out: the folder it prints and the rest of the word after it.
fn dirname_of_literal(word: &str) -> Option<(String, &str)> {
    let word = word.strip_prefix('"').unwrap_or(word);
    let inner_start = word.strip_prefix("$(")?;
    // The matching `)`: the first one after the operand, which holds none.
    let end = shell::closing_paren(inner_start)?;
    let (body, rest) = (&inner_start[..end], &inner_start[end + 1..]);
    let rest = rest.strip_prefix('"').unwrap_or(rest);
    let body = body.trim();
    let operand = if let Some(op) = body.strip_prefix("dirname ") {
        op.trim()
    } else {
        // `cd "$(dirname P)" && pwd`
        let inner = body.strip_prefix("cd ")?.strip_suffix("pwd")?.trim_end();
        let inner = inner
            .strip_suffix("&&")
            .or_else(|| inner.strip_suffix(';'))?
            .trim_end();
        let (parent, after) =
            dirname_of_literal(inner.strip_suffix(">/dev/null").unwrap_or(inner).trim())?;
        return after.trim_matches('"').is_empty().then_some((parent, rest));
    };
    let operand = operand
        .strip_prefix('\'')
        .and_then(|o| o.strip_suffix('\''))
        .or_else(|| operand.strip_prefix('"').and_then(|o| o.strip_suffix('"')))
        .unwrap_or(operand);
    if operand.is_empty() || operand.contains(['$', '`', '\'', '"', ' ', '*', '?', '[']) {
        return None;
    }
    let trimmed = operand.trim_end_matches('/');
    let parent = match trimmed.rfind('/') {
        Some(0) => "/".to_owned(),
        Some(k) => trimmed[..k].to_owned(),
        None if trimmed.is_empty() => "/".to_owned(),
        None => ".".to_owned(),
    };
    Some((parent, rest))
}

/// `path` through the symbolic links of its existing folders on disk: the nearest existing
/// ancestor canonicalised and the missing rest appended. `None` when nothing could be
/// looked up, or the lookups of this call are spent.
/// A pattern (`*`, `?`, `[`) is read as its letters: that is the name the shell uses
/// when it is quoted or matches nothing (what it matches is looked up on its own).
fn real_path(scope: &Scope, path: &str) -> Option<String> {
    if path.contains(['$', '`']) {
        return None;
    }
    real_path_of(scope, path)
}

/// [`real_path`] of a path no shell reads (a file tool's): `$`, `*`, `[` are letters.
fn real_path_of(scope: &Scope, path: &str) -> Option<String> {
    let left = scope.lookups.get();
    if left == 0 || path.starts_with("/dev/") {
        return None;
    }
    scope.lookups.set(left - 1);
    // `..` after a link climbs from where the link leads (`src/cl/..` is the folder
    // above what `src/cl` points at), so a path with one is walked on disk first.
    let physical = path.split('/').any(|p| p == "..");
    let path = if physical {
        path.to_owned()
    } else {
        normalize(path)
    };
    let full = match path.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            PathBuf::from(std::env::var_os("HOME")?).join(rest.trim_start_matches('/'))
        }
        Some(_) => return None,
        None => scope.root.join(&path),
    };
    let full = if physical { climbed(&full) } else { full };
    // A link whose target does not exist yet (writing it creates the target).
    let full = link_followed(full)?;
    let mut missing = Vec::new();
    let mut dir: &Path = &full;
    let real = loop {
        if let Ok(real) = std::fs::canonicalize(dir) {
            break real;
        }
        if missing.len() >= MAX_MISSING {
            return None;
        }
        missing.push(dir.file_name()?);
        dir = dir.parent()?;
    };
    let mut real = real;
    for name in missing.iter().rev() {
        real.push(name);
        // A link on the way whose target is not there yet (`docs/c -> ../.claude`
        // before `.claude` is made): where it leads, as text.
        real = link_followed(real)?;
    }
    Some(real.to_string_lossy().into_owned())
}

/// Where `path` leads when it is a link (followed a few times), as text: its target
/// need not be there.
fn link_followed(mut path: PathBuf) -> Option<PathBuf> {
    for _ in 0..8 {
        let Ok(target) = std::fs::read_link(&path) else {
            break;
        };
        let joined = path.parent()?.join(target);
        path = PathBuf::from(normalize(&joined.to_string_lossy()));
    }
    Some(path)
}

/// `full` with each `..` taken from where the folder before it really is: a link
/// followed first (bounded), lexically where nothing is on disk.
fn climbed(full: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for part in full.components() {
        match part {
            std::path::Component::ParentDir => {
                if let Ok(real) = std::fs::canonicalize(&out) {
                    out = real;
                }
                out.pop();
            }
            std::path::Component::CurDir => {}
            std::path::Component::Normal(name) => out.push(name),
            std::path::Component::RootDir | std::path::Component::Prefix(_) => {}
        }
    }
    out
}

/// The protected path a changed `path` is, lexically or through links on disk.
fn judge(path: &str, scope: &Scope) -> Option<(&'static str, Kind)> {
    protected(path, scope.binary)
        // `../bin/nagger` from the project, as text: holds when no lookup on disk is left.
        .or_else(|| {
            let relative = !path.starts_with(['/', '~']) && !path.contains(['$', '`']);
            let climbs = path.split('/').any(|p| p == "..");
            (relative && climbs)
                .then(|| normalize(&scope.root.join(path).to_string_lossy()))
                .and_then(|full| protected(&full, scope.binary))
        })
        .or_else(|| {
            let real = real_path(scope, path)?;
            protected(&real, scope.binary)
        })
        .or_else(|| hard_linked(path, scope))
        .or_else(|| {
            let dots = dot_names_matched(scope) || reaches_dot_names(path);
            globs::expanded(scope.root, path, dots)
                .iter()
                .find_map(|found| protected(found, scope.binary))
        })
}

/// A glob made to reach a dot name (`[.]claude`, `?claude-nagger`): without `dotglob` it
/// matches nothing that starts with a dot, so nobody writes it for other names, and an
/// option turned on where the guard cannot see it would make it one.
fn reaches_dot_names(path: &str) -> bool {
    path.split('/').any(|part| part.starts_with(['[', '?']))
}

/// Whether the line makes `*` match dot names too: `shopt -s dotglob`, or `GLOBIGNORE`
/// set to anything (which turns `dotglob` on).
fn dot_names_matched(scope: &Scope) -> bool {
    *scope.dots.get_or_init(|| dot_names_in_line(scope))
}

fn dot_names_in_line(scope: &Scope) -> bool {
    scope.line.is_some_and(|parsed| {
        parsed
            .assignments
            .iter()
            .any(|a| matches!(a.name.as_str(), "GLOBIGNORE" | "BASHOPTS"))
            // Named anywhere: `read GLOBIGNORE`, `printf -v GLOBIGNORE`, `: ${GLOBIGNORE:=x}`,
            // `env BASHOPTS=dotglob bash -c …`.
            || parsed.commands.iter().any(|c| {
                c.argv
                    .iter()
                    .chain(c.env.iter())
                    .chain(c.prefixed.iter().flatten())
                    .any(|w| w.contains("GLOBIGNORE") || w.contains("BASHOPTS") || w.contains("dotglob"))
            })
            // An option only known when the shell runs: `shopt -s $o`, `shopt -s "$(…)"`.
            || parsed.commands.iter().any(|c| {
                c.name() == "shopt" && c.args().iter().any(|a| a.contains(['$', '`']))
            })
            || parsed.commands.iter().any(|c| {
                c.name() == "shopt"
                    && c.args()
                        .iter()
                        .any(|a| a.starts_with('-') && a.contains('s'))
                    && c.args().iter().any(|a| a == "dotglob")
            })
            || parsed
                .commands
                .iter()
                .any(|c| c.argv.iter().any(|a| a.contains("dotglob")) && shell::is_shell(c.name()))
    })
}

/// A file with other names, one of which is one of nagger's files (see [`links::twin`]):
/// writing it writes that file.
fn hard_linked(path: &str, scope: &Scope) -> Option<(&'static str, Kind)> {
    let on_disk = on_disk(scope, path)?;
    let twin = links::twin(&on_disk, scope.root, scope.binary)?;
    protected(&twin, scope.binary)
}

/// A Write, Edit, MultiEdit or NotebookEdit of a protected file, its folders resolved
/// through symbolic links on disk; a relative path starts where the call is made from.
pub(super) fn written_by_tool(
    tool_name: &str,
    input: &serde_json::Value,
    scope: &Scope,
    start: &Cwd,
) -> Option<Finding> {
    if !WRITING_TOOLS.contains(&tool_name) {
        return None;
    }
    ["file_path", "notebook_path"].iter().find_map(|field| {
        let path = input.get(field)?.as_str()?;
        let (what, _) = judge_tool_path(path, scope, start)?;
        Some(finding(&format!("changes `{path}`, {what}")))
    })
}

/// A tool's path as the client takes it before it writes: trimmed as JavaScript trims
/// (a byte-order mark and Unicode spaces too), and `~` the home only as `~` or `~/…`
/// (`~x/..` is a folder named `~x`).
fn client_path(path: &str) -> String {
    let trimmed = path.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    match trimmed.strip_prefix('~') {
        Some(rest) if !(rest.is_empty() || rest.starts_with('/')) => format!("./{trimmed}"),
        _ => trimmed.to_owned(),
    }
}

/// The protected path a tool's `path` (from `start`) is, read as no shell reads it: its
/// `$`, `*`, `[` are letters of names; `..` taken both as text (as the client resolves
/// it) and on disk (after the links it passes), and hard links found by inode. Either
/// reading that is protected makes it so.
fn judge_tool_path(path: &str, scope: &Scope, start: &Cwd) -> Option<(&'static str, Kind)> {
    let path = client_path(path);
    // `~/…` is the home to the client; a folder named `~` where the call starts would
    // take the same path as well, where a tool reads it literally: both are judged.
    if let Some(rest) = path.strip_prefix("~/")
        && let Some(found) = resolve(start, &format!("./~/{rest}"))
            .and_then(|literal| judge_tool_path_at(&literal, scope))
    {
        return Some(found);
    }
    let full = resolve(start, &path).unwrap_or_else(|| path.clone());
    judge_tool_path_at(&full, scope)
}

/// [`judge_tool_path`] of a path made absolute (or home-based).
fn judge_tool_path_at(full: &str, scope: &Scope) -> Option<(&'static str, Kind)> {
    let full = full.to_owned();
    protected(&normalize(&full), scope.binary)
        .or_else(|| protected(&full, scope.binary))
        .or_else(|| {
            let real = real_path_of(scope, &full)?;
            protected(&real, scope.binary)
        })
        .or_else(|| {
            let literal = match full.strip_prefix("~/") {
                Some(rest) => PathBuf::from(std::env::var_os("HOME")?).join(rest),
                None => scope.root.join(&full),
            };
            let twin = links::twin(&literal, scope.root, scope.binary)?;
            protected(&twin, scope.binary)
        })
}

/// Claude Code's own tools that change no file, or whose paths other checks read.
const OWN_TOOLS: &[&str] = &[
    "Read",
    "Glob",
    "Grep",
    "LS",
    "NotebookRead",
    "WebFetch",
    "WebSearch",
    "Task",
    "Agent",
    "TodoWrite",
    "TodoRead",
    "ExitPlanMode",
    "BashOutput",
    "KillShell",
    "KillBash",
    "SlashCommand",
    "Skill",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
    "AskUserQuestion",
];
/// Words of a tool's name that say it only reads.
const READING_WORDS: &[&str] = &[
    "read", "get", "list", "search", "find", "view", "show", "stat", "info", "tree", "head",
    "tail", "describe", "fetch", "grep", "glob", "diff", "status", "query", "inspect", "cat", "ls",
    "exists", "lookup", "count",
];
/// Most strings of one tool call's input looked at as paths.
const MAX_TOOL_PATHS: usize = 512;
/// How deep in a tool's input its strings are read.
const MAX_TOOL_DEPTH: usize = 16;
/// Longest string of a tool call's input looked at as a path.
const MAX_TOOL_PATH: usize = 4096;

/// Words of a tool's name that say it changes what it is handed.
const CHANGING_WORDS: &[&str] = &[
    "write",
    "edit",
    "create",
    "move",
    "mv",
    "rename",
    "delete",
    "del",
    "remove",
    "rm",
    "put",
    "set",
    "update",
    "patch",
    "replace",
    "copy",
    "cp",
    "append",
    "mkdir",
    "upload",
    "save",
    "apply",
    "insert",
    "chmod",
    "chown",
    "exec",
    "execute",
    "run",
    "truncate",
    "trash",
    "link",
    "symlink",
    "unlink",
    "restore",
    "checkout",
    "reset",
    "push",
    "sync",
    "extract",
    "unzip",
    "install",
    "uninstall",
    "overwrite",
    "modify",
    "change",
    "format",
    "clean",
    "clear",
    "purge",
    "drop",
    "destroy",
    "import",
    "store",
    "upsert",
    "add",
    "new",
    "make",
    "touch",
    "download",
    "revert",
    "stash",
    "merge",
    "rebase",
    "commit",
    "shell",
    "command",
    "eval",
];

/// Another tool (an MCP server's `write_file`, `move_file`, `delete`…) handed one of the
/// protected paths in any field of its input: refused when its name says it changes what
/// it is handed, asked about when its name does not say, passed when its name only reads
/// (`read_file`, `list_directory`, `search_files`).
pub(super) fn changed_by_other_tool(
    tool_name: &str,
    input: &serde_json::Value,
    scope: &Scope,
    start: &Cwd,
) -> Option<Finding> {
    if WRITING_TOOLS.contains(&tool_name) || OWN_TOOLS.contains(&tool_name) {
        return None;
    }
    let short = tool_name.rsplit("__").next().unwrap_or(tool_name);
    let words: Vec<String> = short
        .split(|c: char| !c.is_ascii_alphanumeric())
        .flat_map(split_camel)
        .filter(|w| !w.is_empty())
        .collect();
    let says = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    let changing = says(CHANGING_WORDS) || writes_by_field(input, 0);
    let mut strings = Vec::new();
    let whole = collect_strings(input, 0, &mut strings);
    // SQL it is handed that writes a file (`COPY … TO 'f'`, `ATTACH 'f'`): that file.
    let written = strings.iter().find_map(|text| {
        super::sql::outputs(text)
            .files
            .into_iter()
            .find_map(|file| {
                let plain = as_path(&file);
                let (what, _) = judge_tool_path(&plain, scope, start)?;
                Some((file, what))
            })
    });
    if let Some((file, what)) = written {
        return Some(finding(&format!(
            "hands `{tool_name}` SQL that writes `{file}`, {what}"
        )));
    }
    if says(READING_WORDS) && !changing {
        return None;
    }
    let found = strings.iter().find_map(|text| {
        let plain = as_path(text);
        if let Some((what, _)) = judge_tool_path(&plain, scope, start) {
            return Some((text.to_string(), what));
        }
        let full = resolve(start, &plain);
        let full = full.as_deref().unwrap_or(&plain);
        // The project, the home, or a folder holding one: everything of nagger's in it.
        let holds = |place: &str| {
            let place = place.trim_end_matches('/');
            let full = absolute_in(scope, full);
            let full = full.trim_end_matches('/');
            !place.is_empty()
                && !full.is_empty()
                && (place == full || place.starts_with(&format!("{full}/")))
        };
        let root = scope.root.to_string_lossy();
        let home = std::env::var("HOME").unwrap_or_default();
        // A git server's tool handed the repository (`mcp__git__git_commit {"repo_path":
        // "<project>"}`) works in it through git; one that throws work away does not.
        let git_in_repo = tool_name.to_ascii_lowercase().contains("git")
            && !says(&[
                "clean", "reset", "checkout", "restore", "rm", "remove", "delete", "stash",
                "switch", "rebase", "revert", "apply", "init", "clone", "worktree", "filter", "gc",
                "prune",
            ]);
        let holds_nagger = holds(&root)
            && !(git_in_repo && full.trim_end_matches('/') == root.trim_end_matches('/'));
        (changing && (holds_nagger || !home.is_empty() && holds(&home))).then(|| {
            (
                text.to_string(),
                "a folder holding nagger's own files or Claude Code's settings",
            )
        })
    });
    let Some((path, what)) = found else {
        if whole || !changing && says(READING_WORDS) {
            return None;
        }
        return Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "hands `{tool_name}` more than nagger reads (deeper, longer or more fields than \
                 it looks at), which may name nagger's own files or Claude Code's settings"
            ),
            "Ask the user to do it, or to confirm.",
        ));
    };
    if changing {
        return Some(finding(&format!("hands `{tool_name}` `{path}`, {what}")));
    }
    Some(Finding::ask(
        "guard:self-protect-unsure",
        format!(
            "hands `{tool_name}` `{path}`, {what}: what that tool does with it cannot be \
             checked"
        ),
        "Ask the user to do it, or to confirm.",
    ))
}

/// A string a tool takes as a path, as the file system will see it: a `file://` URL
/// decoded (`%2E` is `.`), cut at a NUL byte (where a C string ends).
fn as_path(text: &str) -> String {
    let text = text.split('\0').next().unwrap_or(text);
    let Some(url) = text
        .strip_prefix("file://")
        .map(|rest| rest.strip_prefix("localhost").unwrap_or(rest))
    else {
        return text.to_owned();
    };
    crate::base::text::percent_decoded(url)
}

/// The words of a camel-case name: `writeFile` → `write`, `file`.
fn split_camel(word: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    for c in word.chars() {
        if c.is_ascii_uppercase() && out.last().is_some_and(|w| !w.is_empty()) {
            out.push(String::new());
        }
        if let Some(last) = out.last_mut() {
            last.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// Field names of a tool's input that name a folder, and those that name a file in it:
/// `{"directory": "d", "filename": "f"}` is the path `d/f`.
const FOLDER_FIELDS: &[&str] = &[
    "dir",
    "directory",
    "folder",
    "cwd",
    "root",
    "base",
    "parent",
];
const NAME_FIELDS: &[&str] = &["file", "filename", "file_name", "name", "basename"];
/// Field names that say a tool writes where they point, whatever its name says.
const OUTPUT_FIELDS: &[&str] = &[
    "output",
    "output_path",
    "output_file",
    "out",
    "outfile",
    "dest",
    "destination",
    "target",
    "save_to",
    "save_path",
    "write_to",
    "in_place",
    "inplace",
];

/// The strings of a tool call's input that may be paths (values and keys, and a folder
/// field joined with a file field beside it), from any depth up to a bound; `false` when
/// the input holds more than was read.
fn collect_strings<'a>(
    value: &'a serde_json::Value,
    depth: usize,
    out: &mut Vec<std::borrow::Cow<'a, str>>,
) -> bool {
    if out.len() >= MAX_TOOL_PATHS || depth > MAX_TOOL_DEPTH {
        return false;
    }
    let path_like = |s: &str| !s.is_empty() && s.len() <= MAX_TOOL_PATH;
    match value {
        serde_json::Value::String(s) if path_like(s) => {
            out.push(std::borrow::Cow::Borrowed(s));
            true
        }
        serde_json::Value::String(s) => s.is_empty() || !s.contains(['/', '.']),
        serde_json::Value::Array(items) => {
            let mut whole = items.len() <= 256;
            for item in items.iter().take(256) {
                whole &= collect_strings(item, depth + 1, out);
            }
            whole
        }
        serde_json::Value::Object(map) => {
            let mut whole = map.len() <= 256;
            let field = |names: &[&str]| {
                map.iter()
                    .find(|(k, v)| {
                        names.contains(&k.to_ascii_lowercase().as_str()) && v.is_string()
                    })
                    .and_then(|(_, v)| v.as_str())
            };
            if let (Some(dir), Some(name)) = (field(FOLDER_FIELDS), field(NAME_FIELDS)) {
                out.push(std::borrow::Cow::Owned(format!(
                    "{}/{name}",
                    dir.trim_end_matches('/')
                )));
            }
            for (key, item) in map.iter().take(256) {
                if path_like(key) && (key.contains('/') || key.starts_with('.')) {
                    out.push(std::borrow::Cow::Borrowed(key));
                }
                whole &= collect_strings(item, depth + 1, out);
            }
            whole
        }
        _ => true,
    }
}

/// Whether the input of a tool names a field that says it writes (`output_path`, …).
fn writes_by_field(value: &serde_json::Value, depth: usize) -> bool {
    match value {
        serde_json::Value::Object(map) if depth <= MAX_TOOL_DEPTH => {
            map.iter().take(256).any(|(k, v)| {
                let key = k.to_ascii_lowercase();
                OUTPUT_FIELDS.contains(&key.as_str())
                    && !matches!(v, serde_json::Value::Null | serde_json::Value::Bool(false))
                    || writes_by_field(v, depth + 1)
            })
        }
        serde_json::Value::Array(items) if depth <= MAX_TOOL_DEPTH => items
            .iter()
            .take(256)
            .any(|v| writes_by_field(v, depth + 1)),
        _ => false,
    }
}

/// Whether interpreter code (or an `awk` or `sed` program) names a protected path, even
/// assembled from pieces (`'.claude' + '-nagger'`, `os.path.join('.claude', …)`).
pub(super) fn named_in_code(text: &str, binary: Option<&str>) -> bool {
    let mut lower = text.to_ascii_lowercase();
    // `./.claude//settings.json`, `.claude/./settings.json`: the same file.
    if lower.contains("//") || lower.contains("/./") {
        while lower.contains("//") {
            lower = lower.replace("//", "/");
        }
        while lower.contains("/./") {
            lower = lower.replace("/./", "/");
        }
    }
    if [
        ".claude-nagger",
        ".claude/settings",
        "managed-settings.json",
        "managed-mcp.json",
        "/etc/claude-code",
        "application support/claudecode",
    ]
    .iter()
    .any(|m| lower.contains(m))
    {
        return true;
    }
    let held = |s: &str| held_name(s, binary);
    // Perl's glob operator, `<.claude/*.json>`, holds no quoted string.
    let angle_globs = text.split('<').skip(1).filter_map(|rest| {
        let inner = &rest[..rest.find('>')?];
        (!inner.contains(char::is_whitespace)).then_some(inner)
    });
    let named = |s: &str| held(s) || named_in_code_plain(s) || glob_names_protected(s);
    code::strings(text)
        .iter()
        .chain(quote_like(text).iter())
        .any(|s| {
            named(s)
                // `glob("{.c,x}laude")`, `glob("{~,x}/../bin/nagger")`: each alternative,
                // the protected folders by their names too.
                || s.contains('{') && s.contains(',') && s.len() <= 256 && {
                    let mut alternatives = Vec::new();
                    braces(s, &mut alternatives, 64);
                    alternatives.len() > 1
                        && alternatives.iter().any(|a| {
                            named(a)
                                || matches!(
                                    a.trim_start_matches("./").trim_end_matches('/'),
                                    ".claude" | ".claude-nagger" | "~/.claude"
                                )
                        })
                }
        })
        || angle_globs.take(64).any(glob_names_protected)
}

/// The strings of Perl's and Ruby's quote-like operators, which use no quote marks:
/// `q(…)`, `qq{…}`, `qw[…]`, `q!…!`, `%q(…)`, `%Q{…}`, `%w(…)`, `%(…)` (each word of a
/// word list on its own).
fn quote_like(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() && out.len() < 256 {
        let after_word = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let op_len = if after_word {
            0
        } else if bytes[i] == b'%' {
            match bytes.get(i + 1) {
                Some(b'q' | b'Q' | b'w' | b'W') => 2,
                Some(b'(' | b'{' | b'[' | b'<') => 1,
                _ => 0,
            }
        } else if bytes[i] == b'q' {
            match bytes.get(i + 1) {
                Some(b'q' | b'w') => 2,
                _ => 1,
            }
        } else {
            0
        };
        let Some(&open) = bytes.get(i + op_len).filter(|_| op_len > 0) else {
            i += 1;
            continue;
        };
        let close = match open {
            b'(' => b')',
            b'{' => b'}',
            b'[' => b']',
            b'<' => b'>',
            c if c.is_ascii_punctuation() && !matches!(c, b'_' | b'\\' | b'=' | b',' | b';') => c,
            _ => {
                i += 1;
                continue;
            }
        };
        let start = i + op_len + 1;
        let Some(len) = bytes
            .get(start..)
            .and_then(|rest| rest.iter().position(|c| *c == close))
        else {
            i += 1;
            continue;
        };
        let inner = &text[start..start + len];
        out.push(inner.to_owned());
        out.extend(inner.split_whitespace().take(64).map(str::to_owned));
        i = start + len + 1;
    }
    out
}

/// Whether a glob in code (`<.claude/*.json>` in Perl, `glob(".c*/*.json")`) can match
/// one of nagger's files or Claude Code's settings in the project: part by part, a dot
/// name matched only by a part that starts with a dot, as globs in code match them.
fn glob_names_protected(s: &str) -> bool {
    // `glob("{.c,x}laude/settings.json")`: braces give each alternative.
    if s.contains('{') && s.contains(',') && s.len() <= 256 {
        let mut alternatives = Vec::new();
        braces(s, &mut alternatives, 64);
        if alternatives.len() > 1 {
            return alternatives
                .iter()
                .any(|a| named_in_code_plain(a) || glob_names_protected(a));
        }
    }
    glob_names_protected_plain(s)
}

/// `word` with its brace alternatives (`a{b,c}d` → `abd`, `acd`) into `out`, at most `max`.
fn braces(word: &str, out: &mut Vec<String>, max: usize) {
    if out.len() >= max {
        return;
    }
    let Some(open) = word.find('{') else {
        out.push(word.to_owned());
        return;
    };
    let mut depth = 0;
    let mut commas = Vec::new();
    let mut close = None;
    for (k, c) in word[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + k);
                    break;
                }
            }
            ',' if depth == 1 => commas.push(open + k),
            _ => {}
        }
    }
    let Some(close) = close.filter(|_| !commas.is_empty()) else {
        out.push(word.to_owned());
        return;
    };
    let mut start = open + 1;
    for end in commas.into_iter().chain([close]) {
        let joined = format!(
            "{}{}{}",
            &word[..open],
            &word[start..end],
            &word[close + 1..]
        );
        braces(&joined, out, max);
        start = end + 1;
    }
}

fn glob_names_protected_plain(s: &str) -> bool {
    const PATHS: &[&str] = &[
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".claude-nagger/config.toml",
        ".claude-nagger/state.db",
        ".claude-nagger/trusted.json",
        ".claude-nagger",
        ".claude",
    ];
    if !s.contains(['*', '?', '[']) || s.len() > 256 {
        return false;
    }
    let pattern = s.trim_start_matches("./");
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    PATHS.iter().any(|path| {
        let names: Vec<&str> = path.split('/').collect();
        names.len() == parts.len()
            && parts.iter().zip(&names).all(|(part, name)| {
                if part.contains(['*', '?', '[']) {
                    // A pattern made to reach a dot name reaches it (`[.]claude`).
                    (part.starts_with(['.', '[', '?']) || !name.starts_with('.'))
                        && super::paths::wildcard(part, name)
                } else {
                    part == name
                }
            })
    })
}

/// Whether code in a language whose strings need no quotes (Tcl, a debugger's or an
/// editor's commands, a language nagger does not read) names a protected path as a bare
/// word: `file delete -force .claude`.
pub(super) fn named_bare(text: &str, binary: Option<&str>) -> bool {
    let held = |s: &str| held_name(s, binary);
    text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                ';' | '(' | ')' | '{' | '}' | '[' | ']' | '"' | '\'' | '`' | ',' | '<' | '>'
            )
    })
    .any(|w| {
        if w.contains(".claude") || w.contains("nagger") || w.contains("claude-code") {
            return held(w);
        }
        // An absolute path to the nagger program, the folder that holds it, or one above.
        (w.starts_with('/') || w.starts_with("~/"))
            && w.len() > 1
            && !w.contains(['*', '?', '$'])
            && protected(w, binary).is_some()
    })
}

/// Whether a name in code is one of nagger's files or a folder holding them. Code does
/// not expand globs: `'.*'` is no name of `.claude`.
fn held_name(s: &str, binary: Option<&str>) -> bool {
    !s.contains(['*', '?', '[']) && matches!(protected(s, binary), Some((_, Kind::Held)))
}

fn named_in_code_plain(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    lower.contains(".claude-nagger") || lower.contains(".claude/settings")
}

/// A folder (or file) a command writes into, with the names of what it writes there.
pub(super) struct Landing<'c> {
    pub(super) dest: String,
    pub(super) sources: Vec<&'c str>,
    /// Copies whole trees (`cp -r`, `rsync`, extracting an archive): anything may land.
    pub(super) tree: bool,
}

impl<'c> Landing<'c> {
    fn tree(dest: &str) -> Landing<'c> {
        Landing {
            dest: dest.to_owned(),
            sources: Vec::new(),
            tree: true,
        }
    }
}

/// What one command changes: paths it writes, moves, deletes or changes the mode of, and
/// folders it writes into (with the names of what it writes there).
#[derive(Default)]
pub(super) struct Changes<'c> {
    pub(super) paths: Vec<String>,
    pub(super) into: Vec<Landing<'c>>,
    /// A protected path is named in a program the command runs.
    named: bool,
    /// What the program does to its operands is known: those it changes are listed
    /// above, the others it leaves as they are. An unknown program given one of nagger's
    /// files is asked about.
    known: bool,
}

/// The protected path a shell command changes, or a reason to ask when it changes a path
/// that may be protected. `cwd`: the folder the command runs in.
pub(super) fn written_by(
    command: &SimpleCommand,
    fed: &[String],
    cwd: &Cwd,
    scope: &Scope,
) -> Option<Finding> {
    if let Some(found) = stdin_reopened(command, fed, cwd, scope) {
        return Some(found);
    }
    match changed(command, fed, cwd, scope) {
        Some(found) if found.severity == Severity::Deny => Some(found),
        // A git command that brings other versions of tracked files asks, naming them.
        other => git_replaced(command, cwd, scope).or(other),
    }
}

/// `cp /bin/true /dev/stdin < ../bin/nagger`, `cat x 3<f > /dev/fd/3`: a write to
/// `/dev/stdin` or `/dev/fd/N` opens again, for writing, the file that descriptor was
/// opened on for reading.
fn stdin_reopened(
    command: &SimpleCommand,
    fed: &[String],
    cwd: &Cwd,
    scope: &Scope,
) -> Option<Finding> {
    let descriptor = |w: &String| {
        w.contains("/dev/fd") || w.contains("/dev/stdin") || w.contains("/proc/self/fd")
    };
    if !command
        .argv
        .iter()
        .chain(command.writes_to.iter())
        .any(descriptor)
    {
        return None;
    }
    let c = changes(command, fed, scope.binary);
    let reopens = c
        .paths
        .iter()
        .chain(c.into.iter().map(|l| &l.dest))
        .chain(command.writes_to.iter())
        .find(|p| {
            matches!(p.as_str(), "/dev/stdin" | "/proc/self/fd/0")
                || p.strip_prefix("/dev/fd/")
                    .or_else(|| p.strip_prefix("/proc/self/fd/"))
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
    let reopens = reopens?;
    // The files the command, or the line around it (`done 3<f`), opened for reading.
    let line_reads = scope
        .line
        .map(|parsed| {
            parsed
                .commands
                .iter()
                .take(256)
                .flat_map(|c| c.reads_from.iter())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    command
        .reads_from
        .iter()
        .chain(line_reads)
        .find_map(|source| {
            let full = resolve(cwd, source)?;
            let (what, _) = judge(&full, scope)?;
            Some(finding(&format!(
                "writes `{reopens}`, which is `{source}` opened again, {what}"
            )))
        })
}

/// `git stash && make test && git stash pop`: the newest stash popped or applied after
/// the line stashed the work tree itself brings back what that stash took, no other
/// version (the stash itself is judged on its own).
fn pops_own_stash(command: &SimpleCommand, scope: &Scope) -> bool {
    let stash_words = |c: &SimpleCommand| -> Option<Vec<String>> {
        if c.name() != "git" {
            return None;
        }
        let args = c.args();
        let (i, _) = git_subcommand_at(args);
        (args.get(i).map(String::as_str) == Some("stash")).then(|| args[i + 1..].to_vec())
    };
    let Some(rest) = stash_words(command) else {
        return false;
    };
    // Where a stash is kept already, a line whose stash takes nothing pops that one: it
    // is judged as any other.
    let (_, dir) = git_subcommand_at(command.args());
    let at = gittree::Where {
        dir: scope.root.to_path_buf(),
        ..gittree::Where::default()
    };
    let Some(repo) = gittree::find(&at) else {
        return false;
    };
    let common = std::fs::read_to_string(repo.git_dir.join("commondir"))
        .ok()
        .map_or_else(|| repo.git_dir.clone(), |c| repo.git_dir.join(c.trim()));
    let kept = std::fs::symlink_metadata(common.join("refs/stash")).is_ok()
        || read_text_bounded(&common.join("packed-refs"), 1 << 20)
            .is_some_and(|t| t.lines().any(|l| l.ends_with(" refs/stash")));
    if dir.is_some() || kept || command.env.iter().any(|e| e.starts_with("GIT_")) {
        return false;
    }
    let newest = match rest.first().map(String::as_str) {
        Some("pop" | "apply") => {
            let ops: Vec<&String> = rest[1..].iter().filter(|a| !a.starts_with('-')).collect();
            ops.is_empty()
                || ops.len() == 1 && matches!(ops[0].as_str(), "0" | "stash@{0}" | "@{0}")
        }
        _ => false,
    };
    if !newest {
        return false;
    }
    let Some((parsed, at)) = scope.place_of(command) else {
        return false;
    };
    parsed.commands[..at]
        .iter()
        .filter_map(stash_words)
        .any(|before| match before.first().map(String::as_str) {
            None => true,
            Some("push" | "save") => true,
            Some(a) => a.starts_with('-'),
        })
}

/// A git command that may put another version of one of nagger's tracked files in
/// place (see [`replaced`]): asked about, naming the file.
fn git_replaced(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    if pops_own_stash(command, scope) {
        return None;
    }
    let dirs = replaced::git_dirs(command)?;
    let mut dir = match cwd {
        Cwd::Known(path) => Some(path.clone()),
        Cwd::Unknown => None,
    };
    for d in dirs {
        dir = dir.and_then(|c| resolve(&Cwd::Known(c), d));
    }
    let dir = dir.and_then(|path| on_disk(scope, &path));
    let advice = "A version without nagger's hooks or rules would switch them off: check \
                  what it brings first (`git diff HEAD <rev> -- .claude .claude-nagger`), or \
                  run it yourself in your terminal.";
    let place = scope.place_of(command);
    let exported: Vec<(&str, Option<&str>)> = place
        .map(|(parsed, at)| {
            parsed
                .assignments
                .iter()
                .filter(|a| a.at <= at && !a.each && a.name.starts_with("GIT_"))
                .map(|a| (a.name.as_str(), a.value.as_deref()))
                .collect()
        })
        .unwrap_or_default();
    // The commands before it: the last `git fetch` sets what `FETCH_HEAD` names, and
    // the remotes they add (`git remote add o ../c`) can be fetched from.
    let before: &[SimpleCommand] = place.map_or(&[], |(parsed, at)| &parsed.commands[..at]);
    let earlier = || replaced::Earlier {
        fetch: before.iter().rev().find_map(replaced::fetch_args),
        remotes: before.iter().filter_map(replaced::remote_added).collect(),
        dir: None,
    };
    // A variable set without `export` is not git's: both ways are looked at.
    let found = replaced::replaced(command, dir.as_deref(), scope.root, &exported, earlier())
        .or_else(|| {
            if exported.is_empty() {
                None
            } else {
                replaced::replaced(command, dir.as_deref(), scope.root, &[], earlier())
            }
        });
    let harm = match found? {
        replaced::Outcome::Tracked {
            sub,
            file,
            top,
            known,
        } => {
            let what =
                protected(file.trim_end_matches('/'), None).map_or(NAGGER_FILES, |(what, _)| what);
            let unsure = if known {
                ""
            } else {
                " (where it runs is only known when the shell runs)"
            };
            format!(
                "runs `git {sub}`, which may put another version of `{file}` in place{unsure}: \
                 the repository at `{}` tracks it, and it is {what}",
                top.display()
            )
        }
        replaced::Outcome::Holds {
            sub,
            file,
            rev,
            via,
            top,
        } => {
            let what =
                protected(file.trim_end_matches('/'), None).map_or(NAGGER_FILES, |(what, _)| what);
            let how = match via {
                replaced::Via::To => {
                    format!("puts `{rev}`'s version of `{file}` in place of the one there now")
                }
                replaced::Via::Changes => format!("brings the change `{rev}` makes to `{file}`"),
                replaced::Via::Joined => {
                    format!("may bring `{rev}`'s version of `{file}`, which differs from `HEAD`'s")
                }
            };
            format!(
                "runs `git {sub}`, which {how} (the repository at `{}`): it is {what}",
                top.display()
            )
        }
        replaced::Outcome::Unresolved { sub, top, why } => format!(
            "runs `git {sub}`, which moves the work tree to another revision, and which \
             versions of nagger's own files and Claude Code's settings that revision holds \
             cannot be read in the repository at `{}` ({why})",
            top.display()
        ),
        replaced::Outcome::Redirected { sub, tree } => {
            return Some(finding(&format!(
                "runs `git {sub}` with its work tree in `{tree}`, among nagger's own files or \
                 Claude Code's settings: it writes the repository's files there"
            )));
        }
        replaced::Outcome::Unreadable { sub, top, why } => format!(
            "runs `git {sub}`, which replaces tracked files, and the index of the repository \
             at `{}` cannot be read ({why}) to see whether it tracks nagger's own files or \
             Claude Code's settings",
            top.display()
        ),
    };
    Some(Finding::ask("guard:self-protect-tracked", harm, advice))
}

/// Most commands written out for the words an `xargs -I` hands in.
const MAX_HANDED_RUNS: usize = 32;

/// The protected path a shell command changes by name (see [`written_by`]).
fn changed(command: &SimpleCommand, fed: &[String], cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    // `echo .claude/settings | xargs -I{} mv {} {}.json`: each word handed in stands
    // where the replace string does, inside words too; each command is judged as
    // written out.
    if command.under_xargs()
        && !fed.is_empty()
        && let Some(r) = command.xargs_replace().filter(|r| !r.is_empty())
        && command.argv.iter().any(|w| w.contains(r.as_str()))
    {
        let real: Vec<&String> = fed.iter().filter(|f| !f.starts_with('\u{0}')).collect();
        let mut worst: Option<Finding> = None;
        for word in real.iter().take(MAX_HANDED_RUNS) {
            let run = SimpleCommand {
                argv: command
                    .argv
                    .iter()
                    .map(|w| w.replace(r.as_str(), word))
                    .collect(),
                ..command.clone()
            };
            if let Some(found) = changed(&run, &[], cwd, scope) {
                if found.severity == Severity::Deny {
                    return Some(found);
                }
                worst.get_or_insert(found);
            }
        }
        if worst.is_some() || real.len() == fed.len() {
            return worst;
        }
    }
    // A refusal of what is named comes first; then what the program names as it runs.
    match changed_by_name(command, fed, cwd, scope) {
        Some(found) if found.severity == Severity::Deny => Some(found),
        other => named_as_it_runs(command, cwd, scope)
            .or(other)
            .or_else(|| delayed_in_background(command, fed, scope))
            .or_else(|| runs_a_file_later(command, scope))
            .or_else(|| after_unfollowed(command, fed, scope)),
    }
}

/// Shell builtins a function of the line may take the name of, changing what later
/// commands of that name do.
const BUILTINS: &[&str] = &[
    "cd",
    "pushd",
    "popd",
    "builtin",
    "command",
    "source",
    ".",
    "eval",
    "exec",
    "set",
    "shopt",
    "export",
    "declare",
    "typeset",
    "local",
    "alias",
    "unalias",
    "hash",
    "type",
    "trap",
    "test",
    "[",
    "echo",
    "printf",
    "read",
    "mapfile",
    "readarray",
    "unset",
    "enable",
];

/// Variables of bash that change what commands run, where `~` points or what a
/// command's arguments are, when the line assigns them.
const SHELL_STATE: &[&str] = &[
    "DIRSTACK",
    "BASH_ARGV0",
    "BASH_CMDS",
    "BASH_ALIASES",
    "BASH_ARGV",
    "HOME",
];

/// What in the line changes how bash reads what follows in a way the guard does not
/// follow: a name reference, an array given as text to `declare`, `getopts`, a function
/// named like a builtin, `cdable_vars`, glob options, bash's own state variables. Each
/// with the index of the command from which it holds, read once per line.
fn unfollowed_all(parsed: &Parsed) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for (k, c) in parsed.commands.iter().enumerate() {
        let name = c.name();
        let args = c.args();
        let declares = matches!(
            name,
            "declare" | "typeset" | "local" | "readonly" | "export"
        );
        let why = if declares && args.iter().any(|a| a.starts_with('-') && a.contains('n')) {
            Some(format!("a name reference (`{name} -n`)"))
        } else if declares && args.iter().any(|a| a.starts_with('-') && a.contains('A')) {
            Some(format!("an associative array (`{name} -A`)"))
        } else if declares && args.iter().any(|a| a.contains("=(") || a.contains("=\\(")) {
            Some(format!("an array given to `{name}` as text"))
        } else if name == "getopts" {
            Some("`getopts`, which sets variables from arguments".into())
        } else if name == "shopt"
            && args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "cdable_vars"
                        | "lastpipe"
                        | "extglob"
                        | "nocaseglob"
                        | "nocasematch"
                        | "globskipdots"
                        | "globstar"
                )
            })
        {
            Some(format!("`shopt {}`", args.join(" ")))
        } else if name == "enable" && args.iter().any(|a| a.starts_with("-f")) {
            Some("`enable -f`, which loads a builtin from a library".into())
        } else if name == "exec" && args.is_empty() && !c.reads_from.is_empty() {
            // `exec 3<.claude`: a descriptor the shell keeps, through which `/dev/fd/3`
            // names the file or folder (`cd /dev/fd/3`, `: > /dev/fd/3`).
            Some("a file descriptor the shell keeps open (`exec N<…`)".into())
        } else {
            // `env 'BASH_FUNC_cd%%=() { …; }' bash -c …`: a builtin's name given a
            // function in the environment of a shell whose commands are read with (and
            // before) it: from the start of the line.
            c.env
                .iter()
                .chain(c.prefixed.iter().flatten())
                .find(|w| {
                    w.strip_prefix("BASH_FUNC_")
                        .and_then(|r| r.split_once("%%="))
                        .is_some_and(|(f, _)| BUILTINS.contains(&f))
                })
                .map(|w| {
                    out.push((0, format!("`{}`", w.split('=').next().unwrap_or(w))));
                    String::new()
                })
                .filter(|w| !w.is_empty())
        };
        if let Some(why) = why {
            out.push((k + 1, why));
        }
        if out.len() >= 16 {
            break;
        }
    }
    if let Some((f, _)) = parsed
        .functions
        .iter()
        .find(|(f, _)| BUILTINS.contains(&f.as_str()))
    {
        out.push((0, format!("a function named like the shell's own `{f}`")));
    }
    for a in &parsed.assignments {
        let base = a.name.split('[').next().unwrap_or(&a.name);
        if SHELL_STATE.contains(&base) {
            out.push((a.at, format!("`{}=`, bash's own state", a.name)));
            break;
        }
    }
    out
}

/// The first of [`unfollowed_all`] that holds at command `at`.
fn unfollowed(scope: &Scope, parsed: &Parsed, at: usize) -> Option<String> {
    scope
        .unfollowed
        .get_or_init(|| unfollowed_all(parsed))
        .iter()
        .find(|(from, _)| *from <= at)
        .map(|(_, why)| why.clone())
}

/// A command that changes files after something on the line the guard does not follow
/// ([`unfollowed`]): what it changes may not be what it reads as. Asked about.
fn after_unfollowed(command: &SimpleCommand, fed: &[String], scope: &Scope) -> Option<Finding> {
    let (parsed, at) = scope.place_of(command)?;
    let c = changes(command, fed, scope.binary);
    let history = command.name() == "history"
        && command
            .args()
            .iter()
            .any(|a| a.starts_with('-') && a.contains(['w', 'a']));
    let written = c
        .paths
        .iter()
        .chain(c.into.iter().map(|l| &l.dest))
        .find(|p| {
            !p.starts_with("/dev/")
                || p.starts_with("/dev/fd/")
                || matches!(p.as_str(), "/dev/stdin" | "/dev/stdout")
        })
        .cloned()
        .or_else(|| history.then(|| "$HISTFILE".to_owned()))?;
    let why = unfollowed(scope, parsed, at).or_else(|| {
        // `HISTFILE=F; history -w`: the history written to a file the line names.
        (history && parsed.assignments.iter().any(|a| a.name == "HISTFILE"))
            .then(|| "`HISTFILE=`".to_owned())
    })?;
    Some(Finding::ask(
        "guard:self-protect-unfollowed",
        format!(
            "changes `{written}` after {why} earlier on the line, which changes how the \
             shell reads what follows in a way nagger does not follow"
        ),
        "Write the paths and commands out plainly, or ask the user.",
    ))
}

/// Programs that wait (for a time, another job, a file, input) before what follows them.
const WAITING: &[&str] = &[
    "sleep",
    "usleep",
    "wait",
    "inotifywait",
    "fswatch",
    "read",
    "ping",
    "[",
    "test",
];

/// Commands that return at once: what follows them in a job runs as the job starts.
const INSTANT: &[&str] = &[
    "cd", "pushd", "popd", "pwd", "echo", "printf", "true", "false", ":", "export", "set", "unset",
    "declare", "typeset", "local", "readonly", "umask", "shift", "let", "shopt", "alias", "hash",
    "type", "mkdir", "touch",
];

/// A command that changes files in a job the line leaves running in the background,
/// after a command that waits or may take its time (`(sleep 1; cp .b x.tar) &`,
/// `nohup sh -c 'find / >/dev/null; mv a b' &`, a call run with `run_in_background`)
/// or over and over in a loop (`while :; do cp a b; done &`): its files change after
/// later calls are checked, so what those calls run or unpack is not what nagger read.
/// Asked about. A log the job writes with `>` after a slow step (`make > build.log`)
/// is not feared.
fn delayed_in_background(
    command: &SimpleCommand,
    fed: &[String],
    scope: &Scope,
) -> Option<Finding> {
    let (when, strict) = background_delay(command, scope)?;
    let c = changes(command, fed, scope.binary);
    // An interpreter's operands are its program and the program's arguments, not files
    // it changes: what the program writes is read from it.
    let known = c.known && !shell::is_interpreter(command.name());
    let written = c
        .paths
        .iter()
        .chain(c.into.iter().map(|l| &l.dest))
        .find(|p| {
            let redirected = command.writes_to.iter().any(|w| w == *p);
            !p.starts_with("/dev/")
                // After a slow step only: the files a program is known to change, or
                // its redirections (not the operands of a program nagger does not
                // know, such as a server's module or script: `make && python3 -m
                // http.server &`).
                && (strict || known || redirected)
                && (strict || !(p.to_ascii_lowercase().ends_with(".log") && redirected))
        })?;
    Some(Finding::ask(
        "guard:self-protect-delayed",
        format!(
            "changes `{written}` in a job left running in the background {when}: it \
             changes after later calls are checked, so what they run or unpack then is \
             not what nagger read"
        ),
        "Run it in the foreground, or let the user start it.",
    ))
}

/// How command `command` runs later than the line is checked, in a job the line leaves
/// running in the background: after a command that waits, over and over in a loop (both
/// `strict`), or after one that may take its time. `None` when it runs as the line does.
fn background_delay(command: &SimpleCommand, scope: &Scope) -> Option<(String, bool)> {
    let (parsed, at) = scope.place_of(command)?;
    let job = left_running(parsed, at)?;
    let before = &parsed.commands[job.start..at];
    let waits = before.iter().find(|c| WAITING.contains(&c.name()));
    let slow = before
        .iter()
        .find(|c| c.pipeline != command.pipeline && !INSTANT.contains(&c.name()));
    let looped = parsed
        .loops
        .iter()
        .any(|l| l.contains(&at) && job.contains(&l.start));
    let when = match (waits, slow) {
        (Some(c), _) => format!("after `{}`", c.name()),
        _ if looped => "over and over in a loop".to_owned(),
        (None, Some(c)) => format!("after `{}`, which may take its time", c.name()),
        (None, None) => return None,
    };
    Some((when, waits.is_some() || looped))
}

/// The job command `index` of `parsed` runs in, when the line leaves it running in the
/// background: one waited for before anything else on the line runs (`(sleep 1; make) &
/// wait`) is the line's own.
pub(super) fn left_running(parsed: &Parsed, index: usize) -> Option<&std::ops::Range<usize>> {
    let job = parsed.background.iter().find(|job| job.contains(&index))?;
    let waited = parsed.commands.get(job.end).is_some_and(|next| {
        next.name() == "wait"
            && next.via.is_empty()
            && next
                .args()
                .iter()
                .all(|a| matches!(a.as_str(), "$!" | "%1" | "%%" | "%+"))
    });
    (!waited).then_some(job)
}

/// A command that runs a program or instructions from a file later than the line is
/// checked: in a job left running in the background after a wait (`(sleep 2; sh x.sh)
/// &`, `until [ -s f ]; do sleep 1; done; sh f &`), in a loop, or as a trap's command, which runs when the line ends or on a
/// signal (`trap 'sh x.sh' EXIT; …`). What the file holds then may not be what nagger
/// read now, or the file may not exist yet: asked about. A job the line waits for at
/// once (`… & wait`) is the line's own.
fn runs_a_file_later(command: &SimpleCommand, scope: &Scope) -> Option<Finding> {
    let file = code_file(command)?;
    let trapped = command
        .via
        .iter()
        .any(|v| matches!(v, shell::Via::Script(how) if how == "trap" || how.starts_with("trap ")));
    let when = if trapped {
        "as a trap's command, when the line ends or a signal comes".to_owned()
    } else if let Some(wait) = scope.later.then(|| waited_before(command, scope)).flatten() {
        format!("in a script left running in the background, after `{wait}`")
    } else {
        // After a step that only takes its time (`cargo build && ./target/debug/app &`,
        // a server started after its build) the job is everyday work; after a wait or in
        // a loop it is timed for later.
        let (when, strict) = background_delay(command, scope)?;
        if !strict {
            return None;
        }
        format!("in a job left running in the background {when}")
    };
    Some(Finding::ask(
        "guard:self-protect-delayed",
        format!(
            "runs `{file}` {when}: the file can change or appear before it runs, so \
             what runs then is not what nagger read"
        ),
        "Run it in the foreground, or let the user start it.",
    ))
}

/// The command before `command` in its line that waits (`sleep`, `wait`, `inotifywait`),
/// or the loop it runs in.
fn waited_before(command: &SimpleCommand, scope: &Scope) -> Option<String> {
    let (parsed, at) = scope.place_of(command)?;
    if let Some(c) = parsed.commands[..at]
        .iter()
        .find(|c| WAITING.contains(&c.name()))
    {
        return Some(c.name().to_owned());
    }
    parsed
        .loops
        .iter()
        .any(|l| l.contains(&at))
        .then(|| "a loop".to_owned())
}

/// The file command `command` runs a program or instructions from, if it does: a
/// script or program file an interpreter or shell is handed, one on its standard input,
/// a sourced file, a program run by its path, make's makefile, `awk -f`, `sed -f`, a
/// vim script, a file of arguments for `xargs`.
fn code_file(command: &SimpleCommand) -> Option<String> {
    let argv = &command.argv;
    let name = command.name();
    let option_value = |opts: &[&str]| {
        let args = command.args();
        args.iter().enumerate().find_map(|(k, a)| {
            if opts.contains(&a.as_str()) {
                return args.get(k + 1).cloned();
            }
            opts.iter()
                .filter(|o| o.starts_with("--"))
                .find_map(|o| a.strip_prefix(&format!("{o}=")).map(str::to_owned))
        })
    };
    if let Some(j) = shell::program_file(argv) {
        return Some(argv[j].clone());
    }
    if shell::reads_program_from_stdin(argv)
        && let Some(file) = command
            .reads_from
            .iter()
            .find(|r| !r.starts_with('&') && r.as_str() != "-")
    {
        return Some(file.clone());
    }
    match name {
        "." | "source" => return command.args().iter().find(|a| !a.starts_with('-')).cloned(),
        "make" | "gmake" | "bmake" => {
            return option_value(&["-f", "--file", "--makefile"])
                .or_else(|| Some("Makefile".into()));
        }
        "awk" | "gawk" | "mawk" | "nawk" => return option_value(&["-f", "--file"]),
        "sed" | "gsed" => return option_value(&["-f", "--file"]),
        "vim" | "vi" | "nvim" | "ex" => return option_value(&["-S", "-u"]),
        _ => {}
    }
    if command.under_xargs() {
        let original = command.prefixed.as_deref().unwrap_or(&[]);
        if let Some(k) = original.iter().position(|w| w == "-a" || w == "--arg-file") {
            return original.get(k + 1).cloned();
        }
        if let Some(file) = command.reads_from.iter().find(|r| !r.starts_with('&')) {
            return Some(file.clone());
        }
    }
    let program = argv.first()?;
    (program.contains('/') && !program.starts_with("/usr/") && !program.starts_with("/bin/"))
        .then(|| program.clone())
}

fn changed_by_name(
    command: &SimpleCommand,
    fed: &[String],
    cwd: &Cwd,
    scope: &Scope,
) -> Option<Finding> {
    let name = command.name();
    if command.prefixes.iter().any(|p| p == "flock")
        && let Some((path, what)) = command
            .prefixed
            .iter()
            .flatten()
            .find_map(|w| Some((w, protected(w, scope.binary)?.0)))
    {
        return Some(finding(&format!("locks `{path}`, {what}")));
    }
    if let Some(found) = own_command(command, fed, cwd, scope) {
        return Some(found);
    }
    if let Some(found) = linked_to(command, cwd, scope) {
        return Some(found);
    }
    if let Some(found) = locked_out(command, cwd, scope) {
        return Some(found);
    }
    if let Some(found) = written_by_options(command, cwd, scope) {
        return Some(found);
    }
    if let Some(found) = patched(command, cwd, scope) {
        return Some(found);
    }
    if let Some(found) = index_entry_made(command, cwd, scope) {
        return Some(found);
    }
    if let Some(found) = unpacked(command, cwd, scope) {
        return Some(found);
    }
    if let Some(found) = containers::reached(
        command,
        match cwd {
            Cwd::Known(dir) => Some(dir.as_str()),
            Cwd::Unknown => None,
        },
        &containers::Host {
            root: scope.root,
            line: scope.line.map(|parsed| parsed.commands.as_slice()),
            protected: &|path| protected(path, scope.binary).is_some(),
            judge: &|path| judge(path, scope).map(|(what, _)| what),
            holds: &|dir| holds_protected(scope, dir),
            command: &|run, dir| {
                let dir = dir.map_or(Cwd::Unknown, |d| Cwd::Known(d.to_owned()));
                written_by(run, &[], &dir, scope)
                    .or_else(|| scope.destroys.and_then(|destroys| destroys(run, &dir)))
            },
            unpacks: &|run| extraction(run).map(|(a, d)| (a.map(str::to_owned), d.to_owned())),
            refuse: &finding,
        },
    ) {
        return Some(found);
    }
    if let Some(found) = stashes_untracked(command, cwd, scope) {
        return Some(found);
    }
    if let Some(found) = stashes_protected_changes(command, cwd, scope) {
        return Some(found);
    }
    if let Some(found) = foreign_work_tree(command, cwd, scope) {
        return Some(found);
    }
    // `umount -l /work`, `mount -o remount,ro ~`, `mount --bind /tmp/x .claude`: what is
    // seen at a folder holding nagger's files changes underneath it.
    if let Some(folder) = mount_points(command).into_iter().find(|folder| {
        let place = resolve(cwd, folder).and_then(|p| on_disk(scope, &p));
        place.is_some_and(|p| {
            reaches_protected(scope, &PathBuf::from(normalize(&p.to_string_lossy())))
        })
    }) {
        return Some(finding(&format!(
            "changes what is mounted at `{folder}`, which holds nagger's own files or Claude \
             Code's settings"
        )));
    }
    // `npm i -g --prefix P`, `PIPX_BIN_DIR=D pipx install`: programs put into the nagger
    // program's folder, where one of them may take its name.
    if let Some(folder) = installs::program_folders(command)
        .into_iter()
        .find(|folder| {
            let folder = super::paths::here_and_home(folder);
            let place = resolve(cwd, &folder).unwrap_or_else(|| folder.clone());
            let place = if place.starts_with(['/', '~']) {
                place
            } else {
                normalize(&scope.root.join(&place).to_string_lossy())
            };
            matches!(
                protected(
                    &format!("{}/nagger", place.trim_end_matches('/')),
                    scope.binary
                ),
                Some((_, Kind::Held))
            )
        })
    {
        return Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "installs programs into `{folder}`, the folder of the nagger program: one of \
                 them may take its place"
            ),
            "Install into another folder, or ask the user to run it.",
        ));
    }
    // `npm install ./tools/np` whose package brings a program named `nagger`: in
    // `node_modules/.bin`, which a shell may search first, it answers every hook.
    let (named, current) = installs::local_packages(command);
    // The current folder installed unnamed: only a package there that brings a
    // `nagger` counts (without a manifest there is nothing to install).
    if let Some(here) = current.first() {
        let full = resolve(cwd, here).and_then(|p| on_disk(scope, &p));
        if full.as_deref().and_then(installs::brings_nagger) == Some(true) {
            return Some(finding(&format!(
                "puts the package in `{here}` among the global programs, and it brings a \
                 program named `nagger`, which may be found before the nagger program Claude \
                 Code runs as its hook"
            )));
        }
    }
    for package in named {
        let full =
            resolve(cwd, &super::paths::here_and_home(&package)).and_then(|p| on_disk(scope, &p));
        let brings = full.as_deref().and_then(|dir| {
            if dir.is_dir() {
                installs::brings_nagger(dir)
            } else {
                None
            }
        });
        match brings {
            Some(false) => {}
            Some(true) => {
                return Some(finding(&format!(
                    "installs `{package}`, a package that brings a program named `nagger`, \
                     which may be found before the nagger program Claude Code runs as its hook"
                )));
            }
            None if full.is_some_and(|f| f.exists())
                || [".tgz", ".tar.gz", ".tar"]
                    .iter()
                    .any(|end| package.to_ascii_lowercase().ends_with(end)) =>
            {
                return Some(Finding::ask(
                    "guard:self-protect-unsure",
                    format!(
                        "installs `{package}`, a package whose programs cannot be read \
                         before it is unpacked: one of them may take the nagger program's name"
                    ),
                    "Install it from a folder, or ask the user to run it.",
                ));
            }
            None => {}
        }
    }
    // `pip install ./tools/pp`, `pip install build/pp.whl`: a Python package whose
    // programs land in an environment's `bin`, first on PATH once it is activated.
    for package in installs::local_python_packages(command) {
        let full =
            resolve(cwd, &super::paths::here_and_home(&package)).and_then(|p| on_disk(scope, &p));
        let declares = full
            .as_deref()
            .filter(|dir| dir.is_dir())
            .and_then(installs::declares_nagger);
        let packed = full.as_deref().is_some_and(|f| !f.is_dir())
            && [".whl", ".tar.gz", ".zip", ".tgz"]
                .iter()
                .any(|e| package.to_ascii_lowercase().ends_with(e));
        let why = match declares {
            Some(true) => {
                "declares a program named `nagger`: another build of nagger may \
                           be an upgrade, or a doctored one"
            }
            _ if packed => {
                "a packed package whose programs cannot be read before it is \
                            unpacked: one of them may take the nagger program's name"
            }
            _ => continue,
        };
        return Some(Finding::ask(
            "guard:self-protect-unsure",
            format!("installs `{package}`, which {why}"),
            "Install it yourself, in your own terminal.",
        ));
    }
    // `find -L src -delete`, `grep -R x src | xargs rm`: links on disk lead the walk in.
    let walk = follow::Walk {
        base: match cwd {
            Cwd::Known(dir) => on_disk(scope, if dir.is_empty() { "." } else { dir }),
            Cwd::Unknown => None,
        },
        line: scope.line.map(|parsed| parsed.commands.as_slice()),
        reaches: &|real| reaches_protected(scope, real),
    };
    if let Some((link, to)) = follow::followed(command, &walk) {
        return Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "follows the link `{link}` to `{to}` while it changes what it walks, which \
                 reaches nagger's own files or Claude Code's settings"
            ),
            "Walk without following links (no `-L`), or keep the link out of the folders walked.",
        ));
    }
    if let Some(found) = find::reached(
        command,
        &find::Place {
            root: scope.root,
            dot_names: dot_names_matched(scope),
            cwd: match cwd {
                Cwd::Known(dir) => Some(dir.as_str()),
                Cwd::Unknown => None,
            },
            binary: scope.binary,
            protected: &|path| protected(path, scope.binary).map(|(what, _)| what),
            judge: &|path| judge(path, scope).map(|(what, _)| what),
            changed: &|run| {
                let c = changes(run, &[], scope.binary);
                c.paths
                    .into_iter()
                    .chain(c.into.into_iter().map(|l| l.dest))
                    .collect()
            },
            refuse: &finding,
            holds: &|dir| holds_protected(scope, dir),
        },
    ) {
        return Some(found);
    }
    let changes = changes(command, fed, scope.binary);
    if changes.named {
        return Some(named_finding(name));
    }
    if let Some(found) = bytecode_placed(command, &changes) {
        return Some(found);
    }
    let verb = match name {
        "sqlite3" | "sqlite" => "opens",
        "flock" => "locks",
        _ => "changes",
    };
    let mut unsure = None;
    for path in &changes.paths {
        match resolve(cwd, path) {
            Some(full) => {
                match judge(&full, scope) {
                    Some((_, Kind::AboveProgram)) if modes::changes_modes(name) => {}
                    Some((what, _)) => {
                        return Some(finding(&format!("{verb} `{path}`, {what}")));
                    }
                    None => {}
                }
                if unsure.is_none() && full.contains(['$', '`']) {
                    let wild = wildcards(&home_form(&full));
                    if protected(&wild, scope.binary).is_some() {
                        unsure = Some(path.clone());
                    }
                }
            }
            None if unsure.is_none()
                && (may_be_protected(path)
                    || whole_folder_in_unknown(command, cwd, path)
                        && (cdpath_in_environment() || scope.line.is_some_and(cdpath_set_by))) =>
            {
                unsure = Some(path.clone());
            }
            None => {}
        }
        if computed_names_nagger(command, path) {
            return Some(finding(&format!("{verb} `{path}`, {BINARY}")));
        }
    }
    for into in &changes.into {
        let dir = &into.dest;
        if computed_names_nagger(command, dir) {
            return Some(finding(&format!("{verb} `{dir}`, {BINARY}")));
        }
        match resolve(cwd, dir) {
            Some(full) => match judge(&full, scope) {
                judged
                    if !into.tree
                        && into.sources.iter().any(|s| {
                            let name = basename(s.trim_end_matches('/'));
                            let landed = format!("{full}/{name}");
                            protected(&landed, scope.binary).is_some_and(|(what, _)| what == BINARY)
                                || (name == "nagger"
                                    && judged.is_some_and(|(what, _)| what == BINARY))
                        }) =>
                {
                    // Another build of nagger may be an upgrade, or a doctored one: the
                    // user decides.
                    return Some(Finding::ask(
                        "guard:self-protect-binary",
                        format!(
                            "replaces the nagger program in `{dir}` with another build, which \
                             runs every hook from now on"
                        ),
                        "Install nagger yourself, in your own terminal.",
                    ));
                }
                Some((SETTINGS_FOLDER, _)) if !into.tree && !into.sources.is_empty() => {
                    // Files copied into `.claude/` land under their own names.
                    if let Some((source, what)) = into.sources.iter().find_map(|s| {
                        let landed = format!("{full}/{}", basename(s.trim_end_matches('/')));
                        Some((s, protected(&landed, scope.binary)?.0))
                    }) {
                        return Some(finding(&format!("writes `{source}` into `{dir}`, {what}")));
                    }
                }
                Some((what, Kind::Held)) => {
                    return Some(finding(&format!("writes into `{dir}`, {what}")));
                }
                _ => {
                    if let Some(found) = landed(command, into, &full, cwd, scope) {
                        return Some(found);
                    }
                    // `cp a .claude/$X`: a name only known when the shell runs, where
                    // nagger's files or Claude Code's settings may be.
                    if unsure.is_none()
                        && full.contains(['$', '`'])
                        && protected(&wildcards(&home_form(&full)), scope.binary).is_some()
                    {
                        unsure = Some(dir.clone());
                    }
                }
            },
            None if unsure.is_none() => unsure = Some(dir.clone()),
            None => {}
        }
    }
    if let Some(found) = output_option_given(command, cwd, scope) {
        return Some(found);
    }
    // `GIT_TRACE=F git status`, `SSLKEYLOGFILE=F curl …`: a program told by its
    // environment to write a file may write there.
    if let Some((var, path, what)) = command
        .env
        .iter()
        .chain(command.prefixed.iter().flatten())
        .filter_map(|w| w.split_once('='))
        .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric()))
        .find_map(|(n, v)| {
            // `NODE_OPTIONS='--redirect-warnings=F'`: options in a variable, with the
            // files their output options name.
            if v.starts_with('-') {
                let words: Vec<String> = v.split_whitespace().map(str::to_owned).collect();
                return outputs::option_outputs("", &words)
                    .into_iter()
                    .find_map(|file| {
                        let full = resolve(cwd, file)?;
                        match judge(&full, scope)? {
                            (what, Kind::Held) => Some((n, file.to_owned(), what)),
                            _ => None,
                        }
                    });
            }
            let full = resolve(cwd, v)?;
            match judge(&full, scope)? {
                (what, Kind::Held)
                    if !matches!(
                        n,
                        "CLAUDE_PROJECT_DIR"
                            | "CLAUDE_CONFIG_DIR"
                            | "NAGGER_DB"
                            | "GIT_DIR"
                            | "GIT_WORK_TREE"
                            | "PWD"
                            | "OLDPWD"
                            | "HOME"
                    ) =>
                {
                    Some((n, v.to_owned(), what))
                }
                _ => None,
            }
        })
    {
        return Some(Finding::ask(
            "guard:self-protect-output",
            format!(
                "gives `{path}`, {what}, to `{name}` in `{var}`: a program told a file by its \
                 environment may write there"
            ),
            "Point the variable at another file, or run it yourself in your terminal.",
        ));
    }
    if let Some(found) = program_folder_given(command, cwd, scope) {
        return Some(found);
    }
    if !changes.known
        && let Some(found) = unknown_given(command, fed, cwd, scope)
    {
        return Some(found);
    }
    if !leaves_operands(name, command.args())
        && let Some(found) = option_value_given(command, &changes, cwd, scope)
    {
        return Some(found);
    }
    if let Some(found) = gpg_names_output(command, cwd, scope) {
        return Some(found);
    }
    if let Some(found) = gpg_options_read(command, cwd, scope) {
        return Some(found);
    }
    unsure.map(|path| {
        Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "changes `{path}`, only known when the shell runs, which may be nagger's own \
                 files or Claude Code's settings"
            ),
            "`cd` to a folder written out, or use a path that does not depend on it.",
        )
    })
}

/// Python bytecode put in place (`cp h.pyc app/__main__.pyc`, `mv x __pycache__/m.cpython-311.pyc`,
/// code writing `*.pyc`): Python runs it in place of the source beside it, or alone, and
/// nagger cannot read it. Removing bytecode, or changing its modes, only makes Python
/// compile the source again.
fn bytecode_placed(command: &SimpleCommand, changes: &Changes) -> Option<Finding> {
    let name = command.name();
    if matches!(
        name,
        "rm" | "rmdir" | "unlink" | "shred" | "srm" | "trash" | "trash-put" | "touch" | "mkdir"
    ) || modes::changes_modes(name)
    {
        return None;
    }
    // `python3 -m py_compile x.py`: the bytecode of Python sources named outright,
    // compiled from them now, which is what Python itself would write. Another file's
    // (`py_compile notes/h.txt`) lands where a module of that name looks for its own.
    let args = command.args();
    let module_at = args.iter().position(|a| a == "-m");
    if name.starts_with("python")
        && module_at
            .and_then(|k| args.get(k + 1))
            .is_some_and(|m| m == "py_compile")
        && module_at.is_some_and(|k| {
            let files: Vec<&String> = args[k + 2..]
                .iter()
                .filter(|a| !a.starts_with('-'))
                .collect();
            !files.is_empty()
                && files.iter().all(|f| {
                    !f.contains(['$', '`', '*', '?'])
                        && std::path::Path::new(f.as_str())
                            .extension()
                            .is_some_and(|e| e.eq_ignore_ascii_case("py"))
                })
        })
    {
        return None;
    }
    let landed = changes.into.iter().flat_map(|l| {
        let dest = l.dest.trim_end_matches('/');
        std::iter::once(dest.to_owned()).chain(
            l.sources
                .iter()
                .map(move |s| format!("{dest}/{}", basename(s.trim_end_matches('/')))),
        )
    });
    let placed = changes
        .paths
        .iter()
        .cloned()
        .chain(landed)
        .find(|p| super::paths::python_bytecode(p))?;
    Some(Finding::ask(
        "guard:code-unknown",
        format!(
            "puts Python bytecode at `{placed}`: Python runs it in place of the source beside \
             it, and nagger cannot read it"
        ),
        "Let Python compile the project's sources itself, or ask the user.",
    ))
}

/// A `chmod` that takes from the owner the right to enter a folder holding nagger's
/// files, Claude Code's settings or the nagger program (see [`modes`]).
fn locked_out(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    let (mode, paths) = modes::takes_entry_of(command)?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let binary = scope.binary.map(|b| PathBuf::from(normalize(b)));
    paths.iter().find_map(|path| {
        let full = resolve(cwd, path)?;
        let dir = PathBuf::from(normalize(&on_disk(scope, &full)?.to_string_lossy()));
        let above = |inner: &Path| inner.starts_with(&dir) && inner != dir;
        let held = holds_protected(scope, &full)
            || home.as_deref().is_some_and(above)
            || binary.as_deref().is_some_and(above);
        held.then(|| {
            Finding::deny(
                "guard:self-protect",
                format!(
                    "takes from its owner the right to enter `{path}` (mode {mode}), which \
                     holds nagger's own files, Claude Code's settings or the nagger program: \
                     nothing below it is reached any more"
                ),
                "Change the mode of the files you mean, not of a folder above the project.",
            )
        })
    })
}

/// A hard or symbolic link made to a protected file or folder by a program other than
/// `ln` (see [`links::linking`]): writing through the link writes nagger's file. Linking
/// a folder that holds them (`cp -al . ../snap`), or names read from standard input in
/// such a folder, is asked about.
fn linked_to(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    let linking = links::linking(command.name(), command.args())?;
    let mut holding = None;
    for source in &linking.sources {
        let Some(full) = resolve(cwd, source.trim_end_matches('/')) else {
            continue;
        };
        if let Some((what, _)) = judge(&full, scope) {
            return Some(finding(&format!(
                "links `{source}` under another name, {what}: a write through the link \
                 changes it"
            )));
        }
        if holding.is_none() && holds_protected(scope, &full) {
            holding = Some((*source).to_owned());
        }
    }
    if holding.is_none()
        && linking.unseen
        && let Cwd::Known(dir) = cwd
        && holds_protected(scope, dir)
    {
        holding = Some(format!("names read from standard input in `{dir}`"));
    }
    holding.map(|what| {
        Finding::ask(
            "guard:self-protect-link",
            format!(
                "links {what} under other names, which holds nagger's own files or Claude \
                 Code's settings: a write through a link changes them"
            ),
            "Copy without links (`cp -a`, `rsync -a`), or leave `.claude-nagger` and \
             `.claude` out.",
        )
    })
}

/// The files a command writes through its options (`sort -o F`, `--output=F`, socat's
/// addresses), for the checks of important files.
pub(super) fn option_written_files(name: &str, args: &[String]) -> Vec<String> {
    let mut files: Vec<String> = outputs::option_outputs(name, args)
        .into_iter()
        .map(str::to_owned)
        .collect();
    files.extend(outputs::written(name, args).files);
    files
}

/// Files and folders a command writes through its options (see [`outputs`]): refused
/// when one is protected.
fn written_by_options(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    let name = command.name();
    let args = command.args();
    let written = outputs::written(name, args);
    for file in &written.files {
        if let Some((what, _)) = resolve(cwd, file).and_then(|full| judge(&full, scope)) {
            return Some(finding(&format!("writes `{file}`, {what}")));
        }
    }
    for dir in &written.dirs {
        match resolve(cwd, dir).and_then(|full| judge(&full, scope)) {
            Some((what, Kind::Held)) => {
                return Some(finding(&format!("writes into `{dir}`, {what}")));
            }
            Some((what, Kind::BinFolder)) => {
                return Some(Finding::ask(
                    "guard:self-protect-binary",
                    format!(
                        "writes files named by what it fetches into `{dir}`, {what}: one of \
                         them may take the nagger program's place"
                    ),
                    "Download into another folder, then look at what came.",
                ));
            }
            _ => {}
        }
    }
    None
}

/// Files a program names as it runs (see [`composed`]): a path joined from the line's
/// words is judged as written; a folder such a name lands in that directly holds one of
/// nagger's files, Claude Code's settings or the nagger program, or a tree holding them,
/// is asked about.
fn named_as_it_runs(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    let made = composed::composed(command);
    for path in &made.paths {
        if let Some((what, _)) = resolve(cwd, path).and_then(|full| judge(&full, scope)) {
            return Some(finding(&format!("writes `{path}` ({}), {what}", made.how)));
        }
    }
    let ask = |dir: &str, what: &str| {
        Some(Finding::ask(
            "guard:self-protect-composed",
            format!(
                "writes files whose names it makes as it runs ({}) into `{dir}`, {what}",
                made.how
            ),
            "Name the files it writes, or write them somewhere else.",
        ))
    };
    for dir in &made.into {
        let Some(full) = resolve(cwd, dir) else {
            continue;
        };
        let program = scope.binary.map(basename);
        if let Some((what, _)) = composed::FILE_NAMES
            .iter()
            .copied()
            .chain(program)
            .find_map(|n| judge(&format!("{}/{n}", full.trim_end_matches('/')), scope))
        {
            return ask(dir, what);
        }
    }
    for dir in &made.under {
        let Some(full) = resolve(cwd, dir) else {
            continue;
        };
        let here = absolute_in(scope, &full);
        if let Some((what, _)) = judge(&full, scope) {
            return ask(dir, what);
        }
        if holds_protected(scope, &here) {
            return ask(
                dir,
                "a folder holding nagger's files or Claude Code's settings",
            );
        }
    }
    None
}

/// The text of a program's config file on disk, bounded and opened without blocking.
fn read_config(path: &str) -> Option<String> {
    read_text_bounded(Path::new(path), 64 * 1024)
}

/// A protected path given as the value of an output-like option of any program
/// (see [`outputs::option_outputs`]): asked about.
fn output_option_given(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    let name = command.name();
    // The wrappers peeled off before the program (`strace -o F prog`, `time -o F prog`,
    // `valgrind --log-file=F prog`) write through their own options too.
    let wrapped: Vec<String> = command.prefixed.as_ref().map_or_else(Vec::new, |words| {
        words[..words.len().saturating_sub(command.argv.len())].to_vec()
    });
    let wrapper_outputs = wrapped
        .first()
        .map(|w| outputs::option_outputs(super::shell::basename(w), &wrapped[1..]))
        .unwrap_or_default();
    // `curl -K - <<< 'output = "F"'`, `curl -K cfg.txt`: options read from a config on
    // standard input or in a file; one nagger cannot see (`-K <(…)`) is asked about.
    let configs = if name == "curl" {
        option_values(command.args(), &["-K"], &["--config"])
    } else {
        Vec::new()
    };
    let mut texts: Vec<String> = Vec::new();
    for config in &configs {
        match *config {
            "-" | "/dev/stdin" => texts.extend(command.stdin_texts.iter().cloned()),
            c if c.contains(['$', '`']) || c.starts_with("<(") || c.starts_with("/dev/fd/") => {
                return Some(Finding::ask(
                    "guard:self-protect-unsure",
                    format!(
                        "runs `curl` with options read from `{c}`, which nagger cannot see: \
                         they may write nagger's own files or Claude Code's settings"
                    ),
                    "Give curl its options on the command line.",
                ));
            }
            c => {
                if let Some(text) = resolve(cwd, c).and_then(|full| read_config(&full)) {
                    texts.push(text);
                }
            }
        }
    }
    let config_outputs: Vec<&str> = texts
        .iter()
        .flat_map(|t| t.lines())
        .filter_map(|line| {
            let line = line.trim().trim_start_matches('-');
            let (key, value) = line
                .split_once(['=', ':', ' ', '\t'])
                .map(|(k, v)| (k.trim(), v.trim().trim_start_matches(['=', ':']).trim()))?;
            matches!(
                key,
                "output"
                    | "o"
                    | "dump-header"
                    | "D"
                    | "trace"
                    | "trace-ascii"
                    | "stderr"
                    | "etag-save"
                    | "cookie-jar"
                    | "c"
                    | "libcurl"
                    | "output-dir"
            )
            .then(|| value.trim_matches('"'))
        })
        .collect();
    let value = outputs::option_outputs(name, command.args())
        .into_iter()
        .chain(config_outputs)
        .chain(wrapper_outputs)
        .find_map(|v| {
            let full = resolve(cwd, v)?;
            // A folder holding the nagger program or above it (`-o ~/.cargo/bin`): what
            // is written there under the program's name takes its place.
            let (what, _) = judge(&full, scope)?;
            Some((v, what))
        })?;
    Some(Finding::ask(
        "guard:self-protect-output",
        format!(
            "gives `{}`, {}, to `{name}` as the value of an output option: it may write there",
            value.0, value.1
        ),
        "Write the output elsewhere, or run it yourself in your terminal.",
    ))
}

/// Most entries of a copied folder looked at.
const MAX_COPIED_ENTRIES: usize = 256;

/// What a copy (`cp -r`, `cp -a`, `rsync`, `install`) puts into `full`, a folder holding
/// nagger's files (the project, a folder above it, a home): a source lands under its own
/// name (`cp -a /tmp/x/.claude .`), a folder's contents when it is copied as such (`cp -r
/// /tmp/x/. .`, `rsync -a /tmp/x/ .`, `cp -rT /tmp/x .`) land under their names, read from
/// disk, bounded. Contents that cannot be listed are asked about.
fn landed(
    command: &SimpleCommand,
    into: &Landing,
    full: &str,
    cwd: &Cwd,
    scope: &Scope,
) -> Option<Finding> {
    if into.sources.is_empty() {
        return None;
    }
    let here = absolute_in(scope, full);
    // A folder holding the nagger program takes what lands there by name, too.
    let bin_folder = matches!(judge(full, scope), Some((_, Kind::BinFolder)));
    if !bin_folder && !holds_protected(scope, &here) {
        return None;
    }
    let name = command.name();
    let args = command.args();
    // `cp -r tools/bin ~/bin` where `~/bin`, a folder of programs, is not there yet: the
    // folder is made as a copy of the one source, whose files land in it.
    let made_as_copy = bin_folder
        && matches!(name, "cp" | "gcp")
        && into.sources.len() == 1
        && std::fs::symlink_metadata(&here).is_err();
    let contents_of = |source: &str| {
        let trimmed = source.trim_end_matches('/');
        basename(trimmed) == "."
            || (matches!(name, "rsync") && source.ends_with('/'))
            || has_flag(args, "T", &["no-target-directory"])
            || made_as_copy
    };
    for source in &into.sources {
        if contents_of(source) {
            let Some(dir) = resolve(cwd, source).and_then(|s| on_disk(scope, &s)) else {
                return Some(copied_unseen(source, full));
            };
            let Ok(entries) = std::fs::read_dir(&dir) else {
                if std::fs::symlink_metadata(&dir).is_err() && !later_in_line(command, scope) {
                    // Not there, and nothing before it on the line can make it.
                    continue;
                }
                return Some(copied_unseen(source, full));
            };
            if let Some(found) = entries_landing(entries, source, (&here, full), full, scope) {
                return Some(found);
            }
        } else {
            let landing = normalize(&format!(
                "{here}/{}",
                basename(source.trim_end_matches('/'))
            ));
            match judge(&landing, scope) {
                // `cp -r tools/bin ~/`: a folder copied in as a folder of programs adds
                // its files there; only what lands under the nagger program's name (or
                // another protected one) matters.
                Some((_, Kind::BinFolder)) if matches!(name, "cp" | "rsync") => {
                    let entries = resolve(cwd, source)
                        .and_then(|s| on_disk(scope, &s))
                        .filter(|d| d.is_dir())
                        .and_then(|d| std::fs::read_dir(d).ok());
                    let Some(entries) = entries else {
                        return Some(copied_unseen(source, full));
                    };
                    if let Some(found) =
                        entries_landing(entries, source, (&landing, &landing), full, scope)
                    {
                        return Some(found);
                    }
                }
                Some((what, _)) => {
                    return Some(finding(&format!(
                        "copies `{source}` into `{full}`, where it lands as {what}"
                    )));
                }
                None => {}
            }
        }
    }
    None
}

/// The refusal for the first entry of folder `source` that lands, copied into the folder
/// `into` (resolved, as shown), on a protected path; asked about past the entries read
/// (`unseen`: the destination as the command names it).
fn entries_landing(
    entries: std::fs::ReadDir,
    source: &str,
    (into, shown): (&str, &str),
    unseen: &str,
    scope: &Scope,
) -> Option<Finding> {
    for (k, entry) in entries.enumerate() {
        if k >= MAX_COPIED_ENTRIES {
            return Some(copied_unseen(source, unseen));
        }
        let Ok(entry) = entry else { continue };
        let entry = entry.file_name().to_string_lossy().into_owned();
        if let Some((what, _)) = judge(&normalize(&format!("{into}/{entry}")), scope) {
            return Some(finding(&format!(
                "copies `{source}`, whose `{entry}` lands in `{shown}`, {what}"
            )));
        }
    }
    None
}

fn copied_unseen(source: &str, full: &str) -> Finding {
    Finding::ask(
        "guard:self-protect-unsure",
        format!(
            "copies what `{source}` holds into `{full}`, which holds nagger's own files and \
             Claude Code's settings, and what it holds cannot be seen"
        ),
        "Copy named files, or into a folder of their own.",
    )
}

/// A path the command changes that holds a part the line computes as it runs and nagger
/// cannot know (`rm -rf "$(cat list)"`, `x=$(…); mv "$x" /tmp`): when the name it makes
/// may be one of nagger's files or a folder above them, the user is asked. `unknown`
/// finds that part of a word (see `Line::unknown_part`). A name with a spelled part that
/// no such name has (`dist/app-$VERSION`) is not feared. What an interpreter is handed is
/// no path it changes for sure: only its redirections count.
pub(super) fn computed_change(
    command: &SimpleCommand,
    fed: &[String],
    cwd: &Cwd,
    scope: &Scope,
    unknown: impl Fn(&str) -> Option<std::ops::Range<usize>>,
    listing: impl Fn(&str) -> Option<String>,
) -> Option<Finding> {
    let name = command.name();
    // `perl -pi -e … FILES` edits its files in place: those are changed for sure.
    let interpreter =
        shell::is_interpreter(name) && !shell::is_shell(name) && !in_place(name, command.args());
    let changes = changes(command, fed, scope.binary);
    let mut words: Vec<&str> = command.writes_to.iter().map(String::as_str).collect();
    if interpreter {
        // Files its code chooses as it runs (`BEGIN{@ARGV=…}`, vim's `:find`).
        words.extend(
            changes
                .paths
                .iter()
                .filter(|p| *p == CODE_CHOSEN)
                .map(String::as_str),
        );
    } else {
        words.extend(changes.paths.iter().map(String::as_str));
        words.extend(changes.into.iter().map(|into| into.dest.as_str()));
    }
    // What the code writes under a name the shell fills in before the interpreter reads
    // it (`python3 -c "os.remove('$(echo .claude)/settings.json')"`, a here-document
    // whose delimiter is not quoted): a name the line computes, like `rm "$(…)"`'s.
    let code_paths = shell_filled_code_writes(command);
    words.extend(code_paths.iter().map(String::as_str));
    let words: Vec<&str> = words
        .into_iter()
        .filter(|w| w.contains(['$', '`']))
        .collect();
    if words.is_empty() {
        return None;
    }
    // `rm -rf ${z}.claude-nagger`, `: > .claude${x:0:0}/settings.local.json`: a name made
    // of text and a variable the line does not set, which may well be empty.
    let near = words.iter().find_map(|word| {
        let range = expansions(word)
            .into_iter()
            .find(|r| near_protected_name(word, r, scope))?;
        Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "changes `{word}`, which names nagger's own files or Claude Code's settings \
                 when `{}` is empty or holds the missing part",
                &word[range]
            ),
            "Spell the path out.",
        ))
    });
    if near.is_some() {
        return near;
    }
    words.into_iter().find_map(|word| {
        let range = unknown(word)?;
        if !computed_name_may_be_protected(word, &range, scope) {
            return None;
        }
        // `build/$(basename "$f")`, `out/${f##*/}.bak`: one name without a `/` in a
        // folder spelled out, which can only be protected where that folder holds or
        // may directly hold nagger's files.
        if let Some(folder) = one_name_in(word, &range)
            && let Some(here) = resolve(cwd, folder)
        {
            let full = if here.starts_with(['/', '~']) {
                here
            } else {
                normalize(&scope.root.join(&here).to_string_lossy())
            };
            // The project's root or a home, a folder holding `.claude` or
            // `.claude-nagger`, one of those itself, or the nagger program's folder.
            let may_hold = holds_protected(scope, &full)
                || protected(&full, scope.binary).is_some()
                || matches!(
                    protected(
                        &format!("{}/nagger", full.trim_end_matches('/')),
                        scope.binary
                    ),
                    Some((_, Kind::Held))
                );
            if !may_hold {
                return None;
            }
        }
        let part = &word[range];
        let inner = part
            .strip_prefix("$(")
            .and_then(|p| p.strip_suffix(')'))
            .or_else(|| part.strip_prefix('`').and_then(|p| p.strip_suffix('`')));
        // `sed -i … $(git ls-files 'src/*.rs')`: names a printer lists under folders that
        // hold none of nagger's files, as `git ls-files … | xargs sed -i` is read; so is
        // a loop's variable that runs through such a list.
        let name = part
            .trim_start_matches('$')
            .trim_start_matches('{')
            .trim_end_matches('}');
        let looped = (part.starts_with('$')
            && !name.is_empty()
            && name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric()))
        .then(|| listing(name))
        .flatten();
        // The names themselves, or a path below them (`$d/.keep`): under the same folders.
        let whole = part == word
            || word.strip_prefix(part).is_some_and(|rest| {
                rest.starts_with('/')
                    && !rest.contains(['$', '`'])
                    && !rest.split('/').any(|c| c == "..")
            });
        let inner_owned;
        let inner = match looped {
            Some(list) if whole => {
                inner_owned = list;
                Some(inner_owned.as_str())
            }
            _ => inner,
        };
        if whole && let Some(inner) = inner {
            let listed = shell::parse(inner);
            if !listed.commands.is_empty()
                && listed.commands.len() <= 4
                && listed
                    .commands
                    .iter()
                    .all(|c| c.via.is_empty() && walks_clear(c, cwd, scope))
            {
                return None;
            }
        }
        if let Some(inner) = inner
            && shell::parse(inner).commands.iter().any(shell::is_decoder)
        {
            // Hidden on purpose: read as a danger even in a project's own script.
            return Some(Finding::ask(
                "guard:self-protect-hidden",
                format!(
                    "changes `{word}`, whose name `{part}` decodes from hidden text as the \
                         line runs, which may be nagger's own files or Claude Code's settings"
                ),
                "Spell the path out.",
            ));
        }
        Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "changes `{word}`, whose `{part}` is computed as the line runs and may \
                     name nagger's own files or Claude Code's settings"
            ),
            "Spell the path out, or list what it stands for first and use that.",
        ))
    })
}

/// The paths the code `command` hands an interpreter writes, moves or deletes, where
/// the shell fills in part of the code before the interpreter sees it: inline code in a
/// word with `$…` or backticks outside single quotes, a here-document whose delimiter is
/// not quoted, a here-string. Only paths that hold such a part.
fn shell_filled_code_writes(command: &SimpleCommand) -> Vec<String> {
    let filled = |t: &str| t.contains("$(") || t.contains('`') || shell_variable_in(t);
    let name = command.name();
    let awk = matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "busybox");
    if !awk && !shell::is_interpreter(name) {
        return Vec::new();
    }
    let program = if awk {
        shell::awk_program(&command.argv)
    } else {
        shell::inline_pieces(&command.argv)
    };
    let code: Vec<&str> = program
        .into_iter()
        .filter(|t| command.computed.iter().any(|w| w == t))
        .chain(
            command
                .stdin_texts
                .iter()
                .filter(|_| !command.stdin_literal && !awk)
                .map(String::as_str),
        )
        .filter(|t| filled(t))
        .collect();
    let lang = code::Language::of(command.name());
    // `os.chdir('$(echo .claude)')`: every relative name after it is in a folder the
    // shell filled in.
    let moved = code.iter().any(|t| {
        t.match_indices("chdir").any(|(at, _)| {
            let args = t[at + 5..].trim_start();
            let args = args.strip_prefix('(').unwrap_or(args);
            let call = &args[..args.find([')', ';', '\n']).unwrap_or(args.len())];
            filled(call)
        })
    });
    code.iter()
        .flat_map(|t| code::effects_in(t, lang))
        .filter_map(|e| match e {
            code::Effect::Writes(Some(p)) if filled(&p) => Some(p),
            code::Effect::Writes(Some(p)) if moved && !p.starts_with(['/', '~']) => {
                Some(format!("$(the-folder-the-code-enters)/{p}"))
            }
            _ => None,
        })
        .take(32)
        .collect()
}

/// Whether `text` holds a shell variable's expansion (`$name`, `${…}`).
fn shell_variable_in(text: &str) -> bool {
    text.match_indices('$').any(|(at, _)| {
        text[at + 1..]
            .chars()
            .next()
            .is_some_and(|c| c == '{' || c == '_' || c.is_ascii_alphabetic())
    })
}

/// Whether the names `printer` prints (`git ls-files src`, `grep -rl x src`, `find src
/// -name '*.rs'`, `ls build`) all lie under folders that hold none of nagger's files nor
/// Claude Code's settings, nor are one.
fn walks_clear(printer: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> bool {
    let mut ops = operands(printer.args());
    match printer.name() {
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" | "fd" | "fdfind" | "git" | "ls"
        | "du" | "tree" => {}
        // Filters of what another printer prints, reading no file of their own.
        "sort" | "head" | "tail" | "uniq" | "tac" | "shuf" => return ops.is_empty(),
        "find" => {
            let starts: Vec<&str> = shell::find_starts(printer.args())
                .iter()
                .map(String::as_str)
                .collect();
            let acts = printer.args().iter().any(|a| {
                a.starts_with("-exec")
                    || a.starts_with("-ok")
                    || a == "-delete"
                    || a.starts_with("-fprint")
            });
            ops = if starts.is_empty() { vec!["."] } else { starts };
            if acts {
                return false;
            }
            return ops.iter().all(|op| {
                !op.contains(['$', '`', '*', '?', '['])
                    && resolve(cwd, op).is_some_and(|full| {
                        let full = absolute_in(scope, &full);
                        judge(&full, scope).is_none() && !holds_protected(scope, &full)
                    })
            });
        }
        _ => return false,
    }
    match printer.name() {
        "fd" | "fdfind" => ops = fd_operands(printer.args()),
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" => {
            // The values of its options are no files (`grep -v -e ^src -e README`);
            // without `-e`/`-f` the first operand is the pattern.
            ops = super::finding::operands_with(
                printer.args(),
                &[
                    "-e", "-f", "-m", "-A", "-B", "-C", "-d", "-D", "-g", "-t", "-T",
                ],
                &[
                    "regexp",
                    "file",
                    "max-count",
                    "after-context",
                    "before-context",
                    "context",
                    "directories",
                    "devices",
                    "include",
                    "exclude",
                    "glob",
                    "iglob",
                    "type",
                    "type-not",
                    "label",
                    "color",
                    "colour",
                ],
            );
            let patterned = printer.args().iter().any(|a| {
                matches!(a.as_str(), "-e" | "-f" | "--regexp" | "--file")
                    || a.starts_with("--regexp=")
                    || a.starts_with("--file=")
                    || short_cluster(a).is_some_and(|c| c.ends_with(['e', 'f']))
            });
            if !patterned {
                ops = ops.into_iter().skip(1).collect();
            }
            // Reading what the stage before prints (no file, no `-r`): it walks nothing
            // itself; its names are that stage's, judged there.
            if ops.is_empty()
                && printer.stage > 0
                && !has_flag(
                    printer.args(),
                    "rR",
                    &["recursive", "dereference-recursive"],
                )
                && printer.name() != "rg"
            {
                return true;
            }
        }
        "git" => {
            let at = ops
                .iter()
                .position(|o| matches!(*o, "ls-files" | "diff" | "grep"));
            let grep = at.is_some_and(|at| ops[at] == "grep")
                && !printer
                    .args()
                    .iter()
                    .any(|a| matches!(a.as_str(), "-e" | "-f"));
            let dashes = printer.args().iter().position(|a| a == "--");
            ops = match (at, dashes) {
                (None, _) => Vec::new(),
                // What follows `--` are paths; revisions stand before it.
                (Some(_), Some(d)) => printer.args()[d + 1..].iter().map(String::as_str).collect(),
                // `git diff REV`: its words are revisions, the names any.
                (Some(at), None) if ops[at] == "diff" => Vec::new(),
                (Some(at), None) => ops[at + 1..]
                    .iter()
                    .skip(usize::from(grep))
                    .copied()
                    .collect(),
            };
        }
        _ => {}
    }
    if ops.is_empty() {
        ops.push(".");
    }
    // `grep -rl x --include='*.go' .`, `rg -l x -g '*.rs'`: only names the patterns
    // match are printed, judged as git's pathspecs are.
    let includes: Vec<&str> = if matches!(printer.name(), "grep" | "egrep" | "fgrep" | "rg") {
        option_values(printer.args(), &["-g"], &["--include", "--glob", "--iglob"])
    } else {
        Vec::new()
    };
    // The patterns are no operands (`-g '*.rs'`), though read as such above.
    if !includes.is_empty() {
        ops.retain(|op| !includes.contains(op));
        if ops.is_empty() {
            ops.push(".");
        }
    }
    if !includes.is_empty()
        && includes
            .iter()
            .all(|g| !g.starts_with('!') && !g.contains(['$', '`', '/']))
        && ops.iter().all(|op| {
            !op.contains(['$', '`', '*', '?', '['])
                && resolve(cwd, op).is_some_and(|full| {
                    let full = absolute_in(scope, &full);
                    includes.iter().all(|g| {
                        let pattern = format!("{}/*{}", full.trim_end_matches('/'), g);
                        !pathspec_may_be_protected(&pattern, scope)
                    })
                })
        })
    {
        return true;
    }
    ops.iter().all(|op| {
        // A git pathspec's `*` crosses folders (`*.toml` is every TOML file):
        // walked when it can match none of nagger's files nor Claude Code's settings.
        if printer.name() == "git"
            && op.contains(['*', '?', '['])
            && !op.contains(['$', '`'])
            && !op.starts_with(':')
        {
            return resolve(cwd, op).is_some_and(|full| {
                let full = absolute_in(scope, &full);
                !pathspec_may_be_protected(&full, scope)
            });
        }
        // `ls -d src/*/`, `ls src/*.rs`: what the glob matches on disk now, each judged
        // as the name it is.
        if printer.name() == "ls" && globs::is_glob(op) {
            return resolve(cwd, op).is_some_and(|full| {
                let dots = dot_names_matched(scope) || reaches_dot_names(&full);
                let pattern = absolute_in(scope, &full);
                let matches = globs::expanded(scope.root, &pattern, dots);
                matches.len() < 256
                    && matches.iter().all(|found| {
                        judge(found, scope).is_none()
                            && !holds_protected(scope, found)
                            && listed_clear(printer, found, cwd, scope)
                    })
            });
        }
        !op.contains(['$', '`', '*', '?', '['])
            && resolve(cwd, op).is_some_and(|full| {
                let absolute = absolute_in(scope, &full);
                judge(&absolute, scope).is_none()
                    && (!holds_protected(scope, &absolute)
                        || skips_hidden(printer)
                            && hidden_below(scope, &absolute)
                            && !ignore_files_list_again(scope, &absolute))
                    && (printer.name() != "ls" || listed_clear(printer, &full, cwd, scope))
            })
    })
}

/// Whether `printer` walks past hidden files and folders and does not follow links:
/// `rg`, `fd` and `ag` as they are, without `--hidden`, `-u`, `-.`, `--follow`, and
/// without glob options (a glob that matches a hidden name lists it).
fn skips_hidden(printer: &SimpleCommand) -> bool {
    let (shorts, longs): (&str, &[&str]) = match printer.name() {
        "rg" => (
            ".uLg",
            &[
                "--hidden",
                "--unrestricted",
                "--follow",
                "--glob",
                "--iglob",
            ],
        ),
        "fd" | "fdfind" => ("HuL", &["--hidden", "--unrestricted", "--follow"]),
        "ag" => (
            "uUfG",
            &[
                "--hidden",
                "--unrestricted",
                "--follow",
                "--all-text",
                "--file-search-regex",
            ],
        ),
        _ => return false,
    };
    !printer.args().iter().any(|a| {
        if let Some(long) = a.strip_prefix("--") {
            longs
                .iter()
                .any(|l| l.trim_start_matches("--") == long.split('=').next().unwrap_or(long))
        } else {
            a.strip_prefix('-')
                .is_some_and(|cluster| cluster.chars().any(|c| shorts.contains(c)))
        }
    })
}

/// Whether an ignore file the walk from `dir` reads lists a name again (`!.claude`): a
/// name listed again is walked even when hidden. The project's and `dir`'s own
/// (`.gitignore`, `.ignore`, `.rgignore`, `.fdignore`), git's `info/exclude` and the
/// user's global one.
fn ignore_files_list_again(scope: &Scope, dir: &str) -> bool {
    let mut files: Vec<PathBuf> = Vec::new();
    for base in [scope.root, Path::new(dir)] {
        for name in [
            ".gitignore",
            ".ignore",
            ".rgignore",
            ".fdignore",
            ".git/info/exclude",
        ] {
            files.push(base.join(name));
        }
    }
    if let Some(home) = crate::base::paths::home_dir() {
        files.push(home.join(".config/git/ignore"));
    }
    files.iter().any(|f| {
        crate::base::files::open_regular(f).is_ok_and(|file| {
            use std::io::Read as _;
            let mut text = String::new();
            let _ = file.take(64 * 1024).read_to_string(&mut text);
            text.lines().any(|l| l.trim_start().starts_with('!'))
        })
    })
}

/// Whether every place of nagger's own files and Claude Code's settings below `dir` is
/// reached only through a hidden name (`.claude`, `.claude-nagger`, `~/.cargo/bin`): a
/// walker that skips hidden names never lists them.
fn hidden_below(scope: &Scope, dir: &str) -> bool {
    let dir = Path::new(dir);
    let home = crate::base::paths::home_dir();
    let mut places: Vec<PathBuf> = vec![
        scope.root.join(".claude"),
        scope.root.join(".claude-nagger"),
        PathBuf::from("/etc/claude-code"),
    ];
    if let Some(home) = &home {
        places.push(home.join(".claude"));
        places.push(home.join(".claude.json"));
    }
    if let Some(binary) = scope.binary {
        places.push(PathBuf::from(binary));
    }
    places.iter().all(|place| match place.strip_prefix(dir) {
        Ok(rel) => rel
            .components()
            .any(|c| c.as_os_str().to_string_lossy().starts_with('.')),
        Err(_) => true,
    })
}

/// Most entries of a folder `ls` lists that are looked at.
const MAX_LISTED: usize = 256;

/// `ls DIR` prints the names of DIR's entries, which a command after it takes as names
/// in its own folder (`ls -A src | xargs rm -rf` removes `./x` for `src/x`): clear when
/// each of them, there, is none of nagger's files nor holds one. `ls -d` prints the
/// names it is given.
fn listed_clear(printer: &SimpleCommand, full: &str, cwd: &Cwd, scope: &Scope) -> bool {
    if has_flag(printer.args(), "d", &["directory"]) {
        return true;
    }
    let Some(real) = on_disk(scope, full) else {
        return false;
    };
    let Ok(meta) = std::fs::metadata(&real) else {
        // Not there: `ls` prints nothing, unless the line makes it first.
        return std::fs::symlink_metadata(&real).is_err() && !later_in_line(printer, scope);
    };
    if !meta.is_dir() {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(&real) else {
        return false;
    };
    for (k, entry) in entries.enumerate() {
        if k >= MAX_LISTED {
            return false;
        }
        let Ok(entry) = entry else { return false };
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(there) = resolve(cwd, &name) else {
            return false;
        };
        let there = absolute_in(scope, &there);
        if judge(&there, scope).is_some() || holds_protected(scope, &there) {
            return false;
        }
    }
    true
}

/// Where `word` expands parameters or commands: `$name`, `${…}`, `$(…)` and backticks.
fn expansions(word: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = word.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() && out.len() < 16 {
        let (open, close) = match (bytes[i], bytes.get(i + 1)) {
            (b'$', Some(b'{')) => (b'{', b'}'),
            (b'$', Some(b'(')) => (b'(', b')'),
            (b'`', _) => {
                let end = word[i + 1..].find('`').map_or(word.len(), |e| i + 2 + e);
                out.push(i..end);
                i = end;
                continue;
            }
            // `$@`, `$*`: empty where the Bash tool runs a line; `$#`, `$?`, `$$`, `$!`,
            // `$-` are short values nagger does not know.
            (b'$', Some(c)) if b"@*#?$!-".contains(c) => {
                out.push(i..i + 2);
                i += 2;
                continue;
            }
            (b'$', Some(c)) if c.is_ascii_alphanumeric() || *c == b'_' => {
                let end = bytes[i + 1..]
                    .iter()
                    .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                    .map_or(word.len(), |p| i + 1 + p);
                out.push(i..end);
                i = end;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        };
        let mut level = 0usize;
        let mut end = word.len();
        for (k, &c) in bytes.iter().enumerate().skip(i + 1) {
            if c == open {
                level += 1;
            } else if c == close {
                level = level.saturating_sub(1);
                if level == 0 {
                    end = k + 1;
                    break;
                }
            }
        }
        out.push(i..end);
        i = end;
    }
    out
}

/// Whether the name in `word` holding the expansion at `range` has text of its own and,
/// with each expansion in it any text (empty too), may be one of nagger's files or a
/// folder above them: `${z}.claude-nagger`, `.claude$x`, `settings.local.json$z`.
fn near_protected_name(word: &str, range: &std::ops::Range<usize>, scope: &Scope) -> bool {
    let start = word[..range.start].rfind('/').map_or(0, |k| k + 1);
    let end = word[range.end..]
        .find('/')
        .map_or(word.len(), |k| range.end + k);
    let part = &word[start..end];
    let mut literal = part.to_owned();
    let mut pattern = part.to_owned();
    for r in expansions(part).iter().rev() {
        literal.replace_range(r.clone(), "");
        pattern.replace_range(r.clone(), "*");
    }
    // A name of its own, other than dots and the shell's glob characters.
    if literal.trim_matches(['.', '*', '?']).len() < 2 || pattern.len() > 256 {
        return false;
    }
    pattern_may_be_protected(&pattern, scope)
}

/// Whether the path part of `word` holding the computed `range` may name a protected file
/// or a folder above one: that part as a pattern (each computed piece any text) against
/// the names of the protected set and of the folders holding it.
/// The folder of `word` when its part at `range`, only known as the line runs, is one
/// name that cannot hold a `/` (`$(basename …)`, `` `basename …` ``, `${f##*/}`,
/// `${f%%/*}`), the folder before it is spelled out and nothing but plain text without a
/// `/` follows it: `build/$(basename "$f")` → `build`, `$(basename "$f").bak` → `.`,
/// `out/app-${f##*/}` → `out`.
fn one_name_in<'w>(word: &'w str, range: &std::ops::Range<usize>) -> Option<&'w str> {
    let part = &word[range.clone()];
    let inner = part
        .strip_prefix("$(")
        .and_then(|p| p.strip_suffix(')'))
        .or_else(|| part.strip_prefix('`').and_then(|p| p.strip_suffix('`')));
    let basename = inner.is_some_and(|inner| {
        let parsed = shell::parse(inner);
        parsed.commands.len() == 1
            && parsed.commands[0]
                .argv
                .first()
                .is_some_and(|p| p == "basename")
            && parsed.commands[0].via.is_empty()
    });
    let trimmed = part.strip_prefix("${").and_then(|p| p.strip_suffix('}'));
    let no_slash = trimmed.is_some_and(|body| {
        let name_end = body
            .find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
            .unwrap_or(body.len());
        name_end > 0 && matches!(&body[name_end..], "##*/" | "%%/*")
    });
    if !(basename || no_slash) {
        return None;
    }
    let before = &word[..range.start];
    let after = &word[range.end..];
    if before.contains(['$', '`']) || after.contains(['$', '`', '/']) {
        return None;
    }
    Some(match before.rfind('/') {
        Some(0) => "/",
        Some(k) => &before[..k],
        None => ".",
    })
}

fn computed_name_may_be_protected(
    word: &str,
    range: &std::ops::Range<usize>,
    scope: &Scope,
) -> bool {
    let start = word[..range.start].rfind('/').map_or(0, |k| k + 1);
    let end = word[range.end..]
        .find('/')
        .map_or(word.len(), |k| range.end + k);
    let mut pattern = String::new();
    pattern.push_str(&word[start..range.start]);
    pattern.push('*');
    pattern.push_str(&word[range.end..end]);
    // Any other piece only known as the shell runs is any text too.
    if pattern.contains(['$', '`']) || pattern.len() > 256 || pattern.trim_matches('*').is_empty() {
        return true;
    }
    pattern_may_be_protected(&pattern, scope)
}

/// Whether `pattern` (`*` any text) matches the name of a protected file or of a folder
/// holding one.
fn pattern_may_be_protected(pattern: &str, scope: &Scope) -> bool {
    let mut names: Vec<String> = PROTECTED_NAMES.iter().map(|n| (*n).to_owned()).collect();
    names.extend(
        [
            "trusted.json",
            "state.db-wal",
            "state.db-shm",
            "state.db.lock",
        ]
        .map(String::from),
    );
    names.extend([".local", "state", "bin", ".cargo", "etc", "claude-code"].map(String::from));
    let home = std::env::var("HOME").unwrap_or_default();
    for path in [scope.root.to_string_lossy().into_owned(), home]
        .into_iter()
        .chain(scope.binary.map(str::to_owned))
    {
        names.extend(path.split('/').filter(|p| !p.is_empty()).map(str::to_owned));
    }
    names
        .iter()
        .any(|name| wildcard_match(pattern.as_bytes(), name.as_bytes()))
}

/// `name` matched by `pattern`, whose `*` is any text (a leading dot too) and `?` any
/// one character.
fn wildcard_match(pattern: &[u8], name: &[u8]) -> bool {
    // `row[j]`: the pattern read so far matches the first `j` bytes of `name`.
    let mut row = vec![false; name.len() + 1];
    row[0] = true;
    for &p in pattern {
        let mut next = vec![false; name.len() + 1];
        if p == b'*' {
            let mut reached = false;
            for j in 0..=name.len() {
                reached |= row[j];
                next[j] = reached;
            }
        } else {
            for j in 0..name.len() {
                next[j + 1] = row[j] && (p == b'?' || p == name[j]);
            }
        }
        row = next;
    }
    row[name.len()]
}

/// An `xargs` (or `parallel`) handing `command` words that the stage before prints as
/// the line runs (`ls -A | xargs rm -rf`, `grep -rl x . | xargs rm`), when `command`
/// changes the paths it is handed: a `find` before it is judged as the `find … -exec`
/// it amounts to; any other printer, in a folder holding nagger's files, is asked about.
/// `feeders`: the stage before; `fed`: what the guard already knows it is handed.
pub(super) fn handed_unknown(
    command: &SimpleCommand,
    feeders: &[&SimpleCommand],
    fed: &[String],
    cwd: &Cwd,
    scope: &Scope,
) -> Option<Finding> {
    if command.under_xargs()
        && let Some(word) = fed.iter().find(|w| {
            globs::is_glob(w)
                && resolve(cwd, w).is_some_and(|full| {
                    let full = absolute_in(scope, &full);
                    let dots = dot_names_matched(scope) || reaches_dot_names(&full);
                    globs::expanded(scope.root, &full, dots)
                        .iter()
                        .any(|found| judge(found, scope).is_some() || holds_protected(scope, found))
                })
        })
    {
        return Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "hands `{}` the names `{word}` matches, which hold nagger's own files or \
                 Claude Code's settings",
                command.name()
            ),
            "Name the paths.",
        ));
    }
    // `xargs -I{} rm -rf ../{}`: each name lands in the folder the word puts before it,
    // which must hold none of nagger's files either.
    let placed_clear = !command.under_xargs()
        || command.xargs_replace().is_none_or(|r| {
            command.argv.iter().all(|word| {
                let Some(at) = word.find(r.as_str()) else {
                    return true;
                };
                let Some((folder, _)) = word[..at].rsplit_once('/') else {
                    return true;
                };
                let folder = if folder.is_empty() { "/" } else { folder };
                !folder.contains(['$', '`', '*', '?', '['])
                    && resolve(cwd, folder).is_some_and(|full| {
                        let full = absolute_in(scope, &full);
                        judge(&full, scope).is_none() && !holds_protected(scope, &full)
                    })
            })
        });
    if !placed_clear && !feeders.is_empty() && {
        let marker = ["\u{0}handed".to_owned()];
        let handed = changes(command, &marker, scope.binary);
        !handed.paths.is_empty() || !handed.into.is_empty()
    } {
        return Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "hands `{}` names the line prints, put into a folder that holds nagger's own \
                 files or Claude Code's settings",
                command.name()
            ),
            "Name the paths.",
        ));
    }
    // `ls -A src | xargs rm -rf`: `ls` of a folder prints the names in it, which the
    // command takes in its own folder.
    if command.under_xargs()
        && let Some(lister) = feeders.iter().find(|f| {
            f.name() == "ls"
                && !has_flag(f.args(), "d", &["directory"])
                && !walks_clear(f, cwd, scope)
                && !operands(f.args()).iter().any(|a| globs::is_glob(a))
        })
        && !operands(lister.args()).is_empty()
        && {
            let marker = ["\u{0}handed".to_owned()];
            let handed = changes(command, &marker, scope.binary);
            !handed.paths.is_empty() || !handed.into.is_empty()
        }
    {
        return Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "hands `{}` the names in the folders `ls` lists, taken in the folder it runs \
                 in, where they may be nagger's own files or Claude Code's settings",
                command.name()
            ),
            "Name the paths.",
        ));
    }
    // `git ls-files | xargs …` is fed a marker for every tracked file, which other checks
    // read; what a writer is handed is still only known as the line runs.
    if !command.under_xargs()
        || fed.iter().any(|f| !f.starts_with('\u{0}'))
        || !command.stdin_texts.is_empty()
        || command.reads_from.iter().any(|r| !r.starts_with("<("))
        || feeders.is_empty()
    {
        return None;
    }
    // `cd ..; ls -d h* | xargs rm -rf`: a glob the printer is given is expanded where the
    // line runs, and what it matches is judged as the names handed on.
    const HANDED: &str = "\u{0}handed";
    let marker = [HANDED.to_owned()];
    let changes = changes(command, &marker, scope.binary);
    // A shell or an interpreter handed names (`xargs -I% sh -c ': > %'`, `xargs sh -c
    // 'rm "$1"' _`) runs a script on them: judged like the writers.
    let handed = changes.paths.iter().any(|p| p == HANDED)
        || changes
            .into
            .iter()
            .any(|l| l.dest == HANDED || l.sources.contains(&HANDED))
        || shell::is_interpreter(command.name());
    if !handed {
        return None;
    }
    if let [finder] = feeders
        && finder.name() == "find"
    {
        // `find ARGS | xargs CMD` is `find ARGS -exec CMD {} +`.
        let run = command.as_find_exec(finder);
        return changed(&run, &[], cwd, scope);
    }
    // `seq 10 | xargs -I{} touch build/f{}`: a printer of plain numbers hands on numbers,
    // judged as one of them where the names stand.
    if feeders.iter().all(|printer| prints_numbers(printer)) {
        let replace = command.xargs_replace();
        let mut argv: Vec<String> = match &replace {
            Some(r) => command
                .argv
                .iter()
                .map(|w| w.replace(r.as_str(), "1"))
                .collect(),
            None => command.argv.clone(),
        };
        if replace.is_none() {
            argv.push("1".to_owned());
        }
        let run = SimpleCommand {
            argv,
            prefixes: Vec::new(),
            ..command.clone()
        };
        return changed(&run, &[], cwd, scope);
    }
    // What the printers walk: the names they print lie under those folders. A printer of
    // what files hold (`cat list.txt` of a list that is not there yet) walks nothing.
    let walked = feeders
        .iter()
        .all(|printer| walks_clear(printer, cwd, scope));
    if walked {
        return None;
    }
    let printer = feeders.first().map_or("", |f| f.name());
    Some(Finding::ask(
        "guard:self-protect-unsure",
        format!(
            "hands `{}` the names `{printer}` prints as the line runs, which may be nagger's \
             own files or Claude Code's settings",
            command.name()
        ),
        "Name the paths, or write the list to a file, read it, and hand that file on \
         (`xargs -a list.txt`).",
    ))
}

/// Whether a git pathspec glob (its `*` crossing folders), made absolute, can match one
/// of the project's protected files.
fn pathspec_may_be_protected(pattern: &str, scope: &Scope) -> bool {
    // A bracket class is one character, read as `?`.
    let mut one = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '[' {
            one.push('?');
            for d in chars.by_ref() {
                if d == ']' {
                    break;
                }
            }
        } else {
            one.push(c);
        }
    }
    let pattern = one;
    [
        ".claude-nagger/config.toml",
        ".claude-nagger/trusted.json",
        ".claude-nagger/.gitignore",
        ".claude-nagger/state.db",
        ".claude/settings.json",
        ".claude/settings.local.json",
    ]
    .iter()
    .any(|inner| {
        let full = scope.root.join(inner).to_string_lossy().into_owned();
        wildcard_match(pattern.as_bytes(), full.as_bytes())
    })
}

/// `path` with each part only known when the shell runs (`$f`, `` `x` ``) as `*`.
fn wildcards(path: &str) -> String {
    path.split('/')
        .map(|part| if part.contains(['$', '`']) { "*" } else { part })
        .collect::<Vec<_>>()
        .join("/")
}

/// A relative path that may be protected, seen from a folder that is not known.
fn may_be_protected(path: &str) -> bool {
    let normal = normalize(path);
    let last = normal.rsplit('/').next().unwrap_or(&normal);
    last == "."
        || last == ".."
        || PROTECTED_NAMES.iter().any(|n| is(last, n))
        || last.starts_with("state.db")
}

/// A relative path removed or moved whole (`rm -r`, `mv`) from a folder `cd name` found
/// through `CDPATH`: there it may be the folder of the nagger program or of Claude Code's
/// settings.
fn whole_folder_in_unknown(command: &SimpleCommand, cwd: &Cwd, path: &str) -> bool {
    matches!(cwd, Cwd::Unknown)
        && !path.starts_with(['/', '~', '$'])
        && match command.name() {
            "rm" => has_flag(command.args(), "rR", &["recursive"]),
            "mv" | "rmdir" => true,
            _ => false,
        }
}

/// `$(which nagger)`, `"$(command -v nagger)"`: a word only known when the shell runs
/// that names the nagger program.
fn computed_names_nagger(command: &SimpleCommand, path: &str) -> bool {
    command.computed.iter().any(|w| w == path)
        && [
            "which nagger",
            "command -v nagger",
            "type -p nagger",
            "type -P nagger",
            "whereis nagger",
        ]
        .iter()
        .any(|finder| path.contains(finder))
}

/// A package manager taking the nagger program away: `pip uninstall nagger`, `pipx
/// uninstall nagger`, `uv tool uninstall nagger`, `uv pip uninstall nagger==0.1`, `brew
/// uninstall nagger`, `npm rm -g nagger` …
fn removes_nagger(name: &str, args: &[String]) -> bool {
    let removing = |a: &str| matches!(a, "uninstall" | "remove" | "rm" | "un" | "r" | "purge");
    // `pip3.11`, `pip-3.12`: pip under its versioned names.
    let name = if name.starts_with("pip")
        && name[3..]
            .trim_start_matches('-')
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.')
        && name != "pipx"
    {
        "pip"
    } else {
        name
    };
    let at = match name {
        "pip" | "pipx" | "brew" | "npm" | "pnpm" | "yarn" | "bun" | "apt" | "apt-get" | "dnf"
        | "yum" | "pacman" | "port" | "nix-env" | "conda" | "mamba" => 0,
        "uv" if args.first().is_some_and(|a| a == "tool" || a == "pip") => 1,
        "nix" if args.first().is_some_and(|a| a == "profile") => 1,
        _ => return false,
    };
    let Some(verb) = args.get(at) else {
        return false;
    };
    // `pipx uninstall-all`, `uv tool uninstall --all`: every tool, nagger too.
    if (name == "pipx" && verb == "uninstall-all")
        || (name == "uv" && removing(verb) && args.iter().any(|a| a == "--all"))
    {
        return true;
    }
    let pacman_remove = name == "pacman" && verb.starts_with("-R");
    let nix_remove = name == "nix-env" && (verb == "-e" || verb == "--uninstall");
    if !(removing(verb) || pacman_remove || nix_remove) {
        return false;
    }
    // Package names are matched as their registries match them: any case, `_` for `-`.
    args[at + 1..].iter().any(|a| {
        let a = a.to_ascii_lowercase();
        let a = a.rsplit('/').next().unwrap_or(&a);
        a.strip_prefix("nagger").is_some_and(|rest| {
            rest.is_empty() || rest.starts_with(['=', '<', '>', '~', '!', '[', '@', ' '])
        })
    })
}

/// The operands of a package manager's command after its verb (its options left out).
fn package_operands(args: &[String]) -> Vec<&String> {
    args.iter()
        .skip_while(|a| a.starts_with('-'))
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect()
}

/// The package names in the files `pip uninstall -r FILE` reads (bounded, a regular file
/// only, never blocking): one per line, past comments and options.
fn requirement_names(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Vec<String> {
    let name = command.name();
    if !(name.starts_with("pip") || name == "uv") || name == "pipx" {
        return Vec::new();
    }
    let files = option_values(command.args(), &["-r"], &["--requirement"]);
    let mut out = Vec::new();
    for file in files.into_iter().take(4) {
        let Some(path) = resolve(cwd, file).and_then(|p| on_disk(scope, &p)) else {
            continue;
        };
        let Ok(handle) = crate::base::files::open_regular(&path) else {
            continue;
        };
        let mut text = String::new();
        let _ =
            std::io::Read::read_to_string(&mut std::io::Read::take(handle, 64 * 1024), &mut text);
        out.extend(
            text.lines()
                .map(|l| l.split('#').next().unwrap_or("").trim())
                .filter(|l| !l.is_empty() && !l.starts_with('-'))
                .take(512)
                .map(str::to_owned),
        );
    }
    out
}

/// A package manager putting another build of nagger where the hook runs it from:
/// `cargo install nagger`, `cargo install --path .` of nagger's own sources (read from
/// their `Cargo.toml`, bounded), `pip install nagger`, `pipx install ./nagger.whl`, `npm
/// i -g nagger`, `brew install nagger`, `go install …/nagger@v1`.
fn installs_nagger(name: &str, args: &[String], cwd: &Cwd, scope: &Scope) -> bool {
    let installing = |a: &str| matches!(a, "install" | "i" | "add" | "reinstall" | "upgrade");
    let names_nagger = |a: &str| {
        let last = basename(a.trim_end_matches('/'));
        let stem = last
            .split(['=', '<', '>', '~', '!', '[', '@', ' '])
            .next()
            .unwrap_or(last);
        stem == "nagger"
            || (stem.starts_with("nagger-")
                && std::path::Path::new(stem)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("whl")))
    };
    let at = match name {
        "cargo" | "pip" | "pip3" | "pipx" | "brew" | "npm" | "pnpm" | "yarn" | "bun" | "go"
        | "gem" | "conda" | "mamba" | "apt" | "apt-get" | "dnf" | "yum" | "nix-env" => 0,
        "uv" if args.first().is_some_and(|a| a == "tool" || a == "pip") => 1,
        _ => return false,
    };
    if !args
        .get(at)
        .is_some_and(|v| installing(v) || (name == "yarn" && v == "global"))
    {
        return false;
    }
    let rest = &args[at + 1..];
    if rest.iter().any(|a| !a.starts_with('-') && names_nagger(a)) {
        return true;
    }
    if name != "cargo" {
        return false;
    }
    // `cargo install --path DIR`: the package it builds is named in DIR/Cargo.toml. A
    // repository on this machine (`--git file:///…`, `--git ../repo`) is read the same
    // way from its working tree; one without a readable `Cargo.toml` there (a bare
    // repository) counts as one that may build nagger.
    let value = |option: &str| {
        rest.iter().enumerate().find_map(|(k, a)| {
            if a == option {
                rest.get(k + 1).map(String::as_str)
            } else {
                a.strip_prefix(option).and_then(|v| v.strip_prefix('='))
            }
        })
    };
    let local_git = value("--git").and_then(|url| {
        let path = url.strip_prefix("file://").unwrap_or(url);
        (url.starts_with("file://") || path.starts_with(['/', '.', '~'])).then_some(path)
    });
    let Some(dir) = value("--path")
        .or(local_git)
        .and_then(|p| resolve(cwd, &super::paths::here_and_home(p)))
    else {
        return false;
    };
    let Some(full) = on_disk(scope, &format!("{dir}/Cargo.toml")) else {
        return local_git.is_some();
    };
    let Ok(file) = crate::base::files::open_regular(&full) else {
        return local_git.is_some();
    };
    let mut text = String::new();
    let _ = std::io::Read::read_to_string(&mut std::io::Read::take(file, 64 * 1024), &mut text);
    text.lines().any(|line| {
        let line = line.trim();
        line.strip_prefix("name")
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix('='))
            .is_some_and(|v| v.trim().trim_matches(['"', '\'']) == "nagger")
    })
}

/// What a nagger subcommand does to nagger, by its words (global options anywhere).
#[derive(Debug, PartialEq, Eq)]
enum Own {
    /// It weakens nagger: its hook entries, its state, its config or what it trusts.
    Weakens,
    /// It reads, or writes nothing nagger depends on.
    Harmless,
    /// Its subcommand is only known when the shell runs.
    Computed,
}

/// How nagger's command line `words` (after the program) touches nagger: `hook` (events
/// made up by an agent), `install` and `uninstall` (the hook entries), `trust` (what
/// nagger trusts), `import` (the config), `gc` (recorded state) and `doctor --fix` (the
/// database) weaken it, unless they only show what they would do (`--dry-run`).
fn own_subcommand(words: &[&str], computed: &[String]) -> Own {
    let mut k = 0;
    let sub = loop {
        let Some(word) = words.get(k) else {
            return Own::Harmless;
        };
        if matches!(*word, "--project" | "--db") {
            k += 2;
            continue;
        }
        if word.starts_with('-') {
            k += 1;
            continue;
        }
        break *word;
    };
    if computed.iter().any(|c| c == sub) {
        return Own::Computed;
    }
    let rest = &words[k + 1..];
    let options: Vec<&str> = rest.iter().copied().take_while(|w| *w != "--").collect();
    let flag = |f: &str| {
        options
            .iter()
            .any(|w| *w == f || w.starts_with(&format!("{f}=")))
    };
    // Asked for its help, a subcommand prints it and does nothing else.
    if options.iter().any(|w| matches!(*w, "--help" | "-h")) {
        return Own::Harmless;
    }
    let weakens = |sub: &str| match sub {
        "hook" | "trust" => true,
        "uninstall" | "install" | "import" | "gc" => !options.contains(&"--dry-run"),
        "doctor" => flag("--fix"),
        _ => false,
    };
    if weakens(sub) {
        return Own::Weakens;
    }
    // A pattern the shell expands to a subcommand (`uninstal[l]`, `t?ust`, `*rust`): a
    // file of that name in the folder is all it takes.
    if sub.contains(['*', '?', '['])
        && [
            "hook",
            "trust",
            "uninstall",
            "install",
            "import",
            "gc",
            "doctor",
        ]
        .iter()
        .any(|name| glob_hits(sub, name) && weakens(name))
    {
        return Own::Weakens;
    }
    Own::Harmless
}

/// Whether `command` runs the nagger program: by its name, a path to it, `$(which
/// nagger)`, a link made to it earlier in the line, or a name that leads to it on disk
/// (a symbolic or hard link on PATH). `on_disk`: whether to look there.
fn runs_nagger(command: &SimpleCommand, cwd: &Cwd, scope: &Scope, on_disk_too: bool) -> bool {
    let program = command.argv.first().map_or("", String::as_str);
    let named_as_running = scope
        .binary
        .and_then(|b| b.rsplit('/').next())
        .is_some_and(|file| !file.is_empty() && command.name() == file);
    let name = command.name();
    // A pattern the shell expands to the program (`bin/nag*`, `nagge?`, `~/.local/bin/n*r`).
    let glob_of_running = name.contains(['*', '?', '['])
        && (glob_hits(name, "nagger")
            || scope
                .binary
                .and_then(|b| b.rsplit('/').next())
                .is_some_and(|file| !file.is_empty() && glob_hits(name, file)));
    if name == "nagger"
        || named_as_running
        || glob_of_running
        || computed_names_nagger(command, program)
        || scope.aliases.borrow().iter().any(|a| a == program)
    {
        return true;
    }
    if !on_disk_too || program.contains(['$', '`']) || program.is_empty() {
        return false;
    }
    let found = if program.contains('/') {
        resolve(cwd, program).and_then(|full| on_disk(scope, &full))
    } else {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .take(64)
                .map(|dir| dir.join(program))
                .find(|p| p.is_file())
        })
    };
    let Some(found) = found else {
        return false;
    };
    let Ok(real) = std::fs::canonicalize(&found) else {
        return false;
    };
    if real.file_name().is_some_and(|n| n == "nagger") {
        return true;
    }
    use std::os::unix::fs::MetadataExt;
    let same = |a: &Path, b: &Path| match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    };
    scope.binary.is_some_and(|b| same(&real, Path::new(b))) || a_nagger_build(&real)
}

/// Most bytes of a program read to tell whether it is a build of nagger.
const MAX_PROGRAM_BYTES: u64 = 64 * 1024 * 1024;

/// Whether the program at `path` is a build of nagger under another name (`cp "$(which
/// nagger)" /tmp/x`, a release build renamed): a compiled program that holds the name of
/// nagger's own folder. Read bounded, opened without waiting; only asked for a command
/// whose words would weaken nagger.
fn a_nagger_build(path: &Path) -> bool {
    let Ok(file) = crate::base::files::open_regular(path) else {
        return false;
    };
    let mut bytes = Vec::new();
    if std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_PROGRAM_BYTES),
        &mut bytes,
    )
    .is_err()
    {
        return false;
    }
    let compiled = bytes.starts_with(b"\x7fELF")
        || bytes.starts_with(&[0xcf, 0xfa, 0xed, 0xfe])
        || bytes.starts_with(&[0xca, 0xfe, 0xba, 0xbe]);
    compiled && memchr::memmem::find(&bytes, b".claude-nagger").is_some()
}

/// A link or copy of the nagger program made by `command` (`ln -s "$(which nagger)" x`,
/// `cp ~/.cargo/bin/nagger x`): what the line may call it by from then on.
fn remember_aliases(command: &SimpleCommand, scope: &Scope) {
    if !matches!(command.name(), "ln" | "link" | "cp" | "install" | "rsync") {
        return;
    }
    let ops = operands(command.args());
    let Some((dest, sources)) = ops.split_last() else {
        return;
    };
    let names_nagger = |s: &str| basename(s) == "nagger" || computed_names_nagger(command, s);
    if sources.iter().any(|s| names_nagger(s)) {
        let mut aliases = scope.aliases.borrow_mut();
        if aliases.len() < 16 {
            aliases.push((*dest).to_owned());
            aliases.push(format!("./{dest}"));
        }
    }
}

/// nagger's own commands that weaken it, wherever the global options stand and however
/// the program is spelled.
fn own_command(
    command: &SimpleCommand,
    fed: &[String],
    cwd: &Cwd,
    scope: &Scope,
) -> Option<Finding> {
    let name = command.name();
    let args = command.args();
    let words: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .chain(fed.iter().map(String::as_str))
        .collect();
    let via_cargo = name == "cargo"
        && args.first().is_some_and(|a| a == "run")
        && args
            .iter()
            .skip_while(|a| *a != "--")
            .any(|a| matches!(a.as_str(), "uninstall" | "trust"));
    let mut own = own_subcommand(&words, &command.computed);
    // `echo uninstall | xargs -I{} nagger {} --local`: what xargs hands it may stand
    // first, where its subcommand goes.
    if own == Own::Harmless && command.under_xargs() && !fed.is_empty() {
        let fed_first: Vec<&str> = fed
            .iter()
            .map(String::as_str)
            .chain(args.iter().map(String::as_str))
            .collect();
        own = own_subcommand(&fed_first, &command.computed);
    }
    let nagger = own != Own::Harmless && runs_nagger(command, cwd, scope, true);
    // The packages it is handed by `xargs` and read from `-r FILE` count as its own.
    let mut packages: Vec<String> = args.iter().chain(fed).cloned().collect();
    packages.extend(requirement_names(command, cwd, scope));
    if (nagger && own == Own::Weakens) || via_cargo || removes_nagger(name, &packages) {
        return Some(finding(&format!(
            "runs `{}`, which changes nagger's own state, its hook in Claude Code's settings \
             or what nagger trusts",
            command.display()
        )));
    }
    // `pip freeze | xargs pip uninstall -y`: every package its input names, unseen.
    if command.under_xargs()
        && fed.is_empty()
        && removes_nagger(name, &[args, &["nagger".to_owned()]].concat())
        && !removes_nagger(name, args)
        && package_operands(args).is_empty()
    {
        return Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "runs `{}` on packages named by its input, which nagger cannot see: nagger \
                 itself may be one of them",
                command.display()
            ),
            "Name the packages to remove.",
        ));
    }
    if nagger && own == Own::Computed {
        return Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "runs `{}`, a nagger command only known when the shell runs",
                command.display()
            ),
            "Spell the command out so it can be checked.",
        ));
    }
    if installs_nagger(name, args, cwd, scope) {
        return Some(Finding::ask(
            "guard:self-protect-binary",
            format!(
                "runs `{}`, which installs another build of nagger, the program every hook \
                 runs from then on",
                command.display()
            ),
            "Install nagger yourself, in your own terminal.",
        ));
    }
    remember_aliases(command, scope);
    if name == "claude"
        && args.iter().any(|a| a == "config")
        && args
            .iter()
            .any(|a| a.to_ascii_lowercase().contains("hooks"))
    {
        return Some(finding(&format!(
            "runs `{}`, which changes Claude Code's hook settings",
            command.display()
        )));
    }
    None
}

/// Whether `args` turn on in-place editing for `sed`, `perl` or `ruby`: `-i`, `-i.bak`,
/// `-Ei`, `-pi`, `--in-place`.
pub(super) fn in_place(name: &str, args: &[String]) -> bool {
    let before: &str = match name {
        "sed" | "gsed" => "Enrsuz",
        "perl" => "pnlaewsTtWXU0",
        _ => "pnlaewsdv",
    };
    args.iter().take_while(|a| *a != "--").any(|a| {
        if a.starts_with("--in-place") {
            return true;
        }
        short_cluster(a).is_some_and(|flags| {
            let lead: String = flags.chars().take_while(|c| *c != 'i').collect();
            lead.len() < flags.len() && lead.chars().all(|c| before.contains(c))
        })
    })
}

/// The files vim's (or ex's) commands `code` open, when the commands also write what is
/// open (`:x`, `:w`, `:wq`, `:wa`, `:argdo … w`, `:up`): `:e F`, `:new F`, `:sp F`,
/// `:tabe F`, `:args F…`, `:argadd F`, `:badd F`, `:r`-less, each with vim's own
/// wildcards left for the shell's rules to expand. A file found by a search (`:find`,
/// `:sfind`, `set path=`), a name vim works out (`` `=expr` ``, `:execute` of text it
/// builds): only known as it runs.
fn vim_opened(code: &str) -> Vec<String> {
    const OPEN: &[&str] = &[
        "e", "edit", "e!", "edit!", "new", "vnew", "vne", "sp", "split", "vs", "vsplit", "tabe",
        "tabedit", "tabnew", "badd", "bad", "args", "ar", "argadd", "arga", "n", "next", "vi",
        "visual", "view", "sview", "sv", "drop",
    ];
    const WRITE: &[&str] = &[
        "w", "w!", "write", "write!", "wq", "wq!", "x", "x!", "xit", "exit", "wa", "wall", "wqa",
        "wqall", "xa", "xall", "up", "update", "argdo", "bufdo", "windo", "tabdo", "sav", "saveas",
        "sav!", "saveas!",
    ];
    const SEARCH: &[&str] = &["find", "fin", "sfind", "sf", "tabfind", "tabf"];
    let mut commands: Vec<String> = Vec::new();
    let mut built = false;
    for c in code
        .lines()
        .flat_map(|l| l.split('|'))
        .map(|c| c.trim().trim_start_matches(':').trim())
        .filter(|c| !c.is_empty())
        .take(256)
    {
        // `:exe "w"`: a command spelled in one string is that command; one it builds
        // (`exe "sav " . d`) is only known as it runs.
        let first = c.split_whitespace().next().unwrap_or("");
        if matches!(first, "exe" | "execute" | "exec") {
            let arg = c[first.len()..].trim();
            let single = arg.len() >= 2
                && (arg.starts_with('"') && arg.ends_with('"')
                    || arg.starts_with('\'') && arg.ends_with('\''))
                && !arg[1..arg.len() - 1].contains(['"', '\'']);
            if single {
                commands.push(arg[1..arg.len() - 1].to_owned());
            } else {
                // Built from pieces: what the first spells says what it does (`exe "set
                // cc=" . n` sets an option); a piece it computes first may be anything.
                let first_piece = arg
                    .strip_prefix(['"', '\''])
                    .map(|r| r.split(['"', '\'']).next().unwrap_or(""));
                built |= first_piece.is_none_or(|p| {
                    let w = p.trim().trim_start_matches(':');
                    let w = w.split_whitespace().next().unwrap_or(w);
                    w.is_empty()
                        || w.starts_with('!')
                        || OPEN.contains(&w)
                        || WRITE.contains(&w)
                        || matches!(
                            w,
                            "r" | "read"
                                | "call"
                                | "norm"
                                | "normal"
                                | "e!"
                                | "exe"
                                | "execute"
                                | "redir"
                                | "mksession"
                                | "mks"
                                | "mkvimrc"
                        )
                });
            }
            continue;
        }
        commands.push(c.to_owned());
    }
    let word = |c: &str| c.split_whitespace().next().unwrap_or("").to_owned();
    // A write of what is open: one without a file of its own (`:w`, `:x`, `:wq`,
    // `:argdo %d|w`); `:w! other.json` writes another file, judged where it is named.
    let writes = commands.iter().any(|c| {
        let w = word(c);
        let rest = c[w.len()..].trim();
        WRITE.contains(&w.as_str())
            && (rest.is_empty()
                || matches!(w.as_str(), "argdo" | "bufdo" | "windo" | "tabdo")
                || rest.starts_with(">>"))
    });
    let mut out = Vec::new();
    if built {
        out.push(CODE_CHOSEN.to_owned());
    }
    if !writes {
        return out;
    }
    for c in &commands {
        let w = word(c);
        let rest = c[w.len()..].trim();
        // `:find settings.json` along `set path=.claude`, `` :e `=expr` ``.
        if SEARCH.contains(&w.as_str()) || OPEN.contains(&w.as_str()) && rest.contains('`') {
            out.push(CODE_CHOSEN.to_owned());
            continue;
        }
        if OPEN.contains(&w.as_str()) {
            out.extend(
                rest.split_whitespace()
                    .filter(|a| !a.starts_with(['+', '-']))
                    .take(64)
                    .map(str::to_owned),
            );
        }
        // `:w >> F`: appended to.
        if let Some(target) = rest.strip_prefix(">>").map(str::trim)
            && w.starts_with('w')
            && !target.is_empty()
        {
            out.push(target.to_owned());
        }
    }
    out
}

/// Stands for the files an in-place editor's code puts in its own list of files to edit
/// (`@ARGV`, `ARGV`): only known as it runs.
const CODE_CHOSEN: &str = "$(files-its-code-chooses)";

/// What `command` does to its operands, by its program.
pub(super) fn changes<'c>(
    command: &'c SimpleCommand,
    fed: &'c [String],
    binary: Option<&str>,
) -> Changes<'c> {
    let name = command.name();
    let args = command.args();
    let mut c = Changes {
        paths: command.writes_to.clone(),
        known: true,
        ..Changes::default()
    };
    let all = || {
        let mut all = operands(args);
        all.extend(fed.iter().map(String::as_str));
        all
    };
    let owned = |v: Vec<&str>| v.into_iter().map(str::to_owned).collect::<Vec<_>>();
    // A virtual environment made (or cleared) in a folder: `python3 -m venv --clear D`,
    // `virtualenv D`, `uv venv D`. What was there is replaced.
    let module_at = args
        .iter()
        .position(|a| a == "-m")
        .filter(|_| name.starts_with("python") || name == "pypy3" || name == "pypy");
    let venv_args = match (name, module_at) {
        ("virtualenv", _) => Some(args),
        ("uv", _) if args.first().is_some_and(|a| a == "venv") => Some(&args[1..]),
        (_, Some(m))
            if args
                .get(m + 1)
                .is_some_and(|v| v == "venv" || v == "virtualenv") =>
        {
            Some(&args[m + 2..])
        }
        _ => None,
    };
    if let Some(rest) = venv_args {
        c.paths.extend(owned(operands(rest)));
        return c;
    }
    // `cargo clean` removes its target folder: `--target-dir D`, `CARGO_TARGET_DIR=D`.
    if name == "cargo" && args.first().is_some_and(|a| a == "clean") {
        c.paths
            .extend(owned(option_values(args, &[], &["--target-dir"])));
        c.paths.extend(
            command
                .env
                .iter()
                .chain(command.prefixed.iter().flatten())
                .filter_map(|w| w.strip_prefix("CARGO_TARGET_DIR="))
                .map(str::to_owned),
        );
        return c;
    }
    match name {
        _ if shell::is_vim(name) => {
            c.paths.extend(owned(all()));
            // `vim -es -c 'sav! .claude/'$X`, `-c 'e .c*/settings.json' -c x`: the files
            // its commands write, and those it opens when it writes its buffers.
            if let Some(code) = shell::inline_program(&command.argv) {
                for effect in code::effects_in(&code, code::Language::Vim) {
                    if let code::Effect::Writes(Some(path)) = effect {
                        c.paths.push(path);
                    }
                }
                c.paths.extend(vim_opened(&code));
            }
        }
        // `rename.ul .off '' .claude/settings.local.json.off`: the names it makes too.
        "rename" | "rename.ul" | "prename" | "file-rename" | "perl-rename" => {
            c.paths.extend(owned(all()));
            c.paths.extend(renamed(name, args));
        }
        "rm" | "rmdir" | "unlink" | "shred" | "truncate" | "chmod" | "chown" | "chgrp"
        | "chattr" | "chflags" | "setfacl" | "xattr" | "ln" | "link" | "tee" | "mkfifo"
        | "mknod" | "nano" | "emacs" | "ed" | "pico" | "micro" | "hx" | "code" | "subl"
        | "touch" | "srm" | "trash" | "trash-put" | "gio" | "patch" | "sponge" | "sd" | "mount"
        | "umount" | "bindfs" => {
            c.paths.extend(owned(all()));
            // `ln -st DIR x`, `ln -t.claude x`: made in the folder named.
            if matches!(name, "ln" | "link") {
                let dirs = option_values(args, &["-t"], &["--target-directory"]);
                c.paths.extend(owned(dirs.clone()));
                // `ln -s ../../bin docs/b`: a relative target is read from the link's own
                // folder (the link's name's, or the folder it is made in).
                if name == "ln" && has_flag(args, "s", &["symbolic"]) {
                    let ops = all();
                    let (places, targets): (Vec<String>, Vec<&str>) = match dirs.first() {
                        Some(dir) => (vec![(*dir).to_owned()], ops.clone()),
                        None => match ops.split_last() {
                            Some((link, targets)) if !targets.is_empty() => {
                                let parent = link
                                    .trim_end_matches('/')
                                    .rsplit_once('/')
                                    .map_or(".", |(p, _)| p)
                                    .to_owned();
                                (vec![parent, (*link).to_owned()], targets.to_vec())
                            }
                            _ => (Vec::new(), Vec::new()),
                        },
                    };
                    for target in targets.iter().filter(|t| !t.starts_with(['/', '~', '$'])) {
                        for place in &places {
                            c.paths
                                .push(format!("{}/{target}", place.trim_end_matches('/')));
                        }
                    }
                }
            }
        }
        "sqlite3" | "sqlite" => c.paths.extend(outputs::sqlite(
            args,
            &command.stdin_texts,
            !command.reads_from.is_empty(),
        )),
        "mv" | "cp" | "install" | "rsync" | "scp" | "ditto" => {
            // The values of options given as the next word are no files (`install -m 644
            // src dest`, `cp -S .bak a b`).
            let valued: &[&str] = match name {
                "install" => &[
                    "-m",
                    "--mode",
                    "-o",
                    "--owner",
                    "-g",
                    "--group",
                    "-S",
                    "--suffix",
                    "-t",
                    "--target-directory",
                ],
                "mv" | "cp" => &["-S", "--suffix", "-t", "--target-directory"],
                _ => &[],
            };
            let ops = if valued.is_empty() {
                all()
            } else {
                let mut ops: Vec<&str> = Vec::new();
                let (mut k, mut plain) = (0, false);
                while let Some(a) = args.get(k) {
                    if !plain && a == "--" {
                        plain = true;
                    } else if !plain && a.starts_with('-') && a != "-" {
                        k += usize::from(valued.contains(&a.as_str()));
                    } else {
                        ops.push(a.as_str());
                    }
                    k += 1;
                }
                ops.extend(fed.iter().map(String::as_str));
                ops
            };
            let target_dir = option_values(args, &["-t"], &["--target-directory"]);
            let (dest, sources) = match target_dir.first() {
                Some(dir) => (Some(*dir), ops.clone()),
                None => match ops.split_last() {
                    Some((last, rest)) if !rest.is_empty() => (Some(*last), rest.to_vec()),
                    Some((last, _)) if name == "install" => (Some(*last), Vec::new()),
                    _ => (None, ops.clone()),
                },
            };
            if name == "mv" {
                c.paths.extend(owned(sources.clone()));
            }
            if let Some(dest) = dest {
                let tree = name == "rsync"
                    || name == "ditto"
                    || has_flag(args, "T", &["no-target-directory"])
                    || (name != "mv" && has_flag(args, "rRa", &["recursive", "archive"]));
                c.into.push(Landing {
                    dest: dest.to_owned(),
                    sources,
                    tree,
                });
            }
        }
        "sed" | "gsed" | "perl" | "ruby" if in_place(name, args) => {
            // The program is no file: `sed -i 's/a/b/' f` (unless given by `-e`/`-f`),
            // `perl -pi -e 'code' f`.
            let given = |a: &String| {
                matches!(a.as_str(), "-e" | "-f" | "-E" | "--expression" | "--file")
                    || a.starts_with("--expression=")
                    || a.starts_with("--file=")
            };
            let mut files: Vec<&str> = Vec::new();
            let mut skip = false;
            for (k, a) in args.iter().enumerate() {
                if skip {
                    skip = false;
                    continue;
                }
                if given(a) && !a.contains('=') && !(name != "perl" && a == "-E") {
                    skip = true;
                    continue;
                }
                if a.starts_with('-') && a != "-" {
                    // `-pie 'code'`: a cluster ending in `e` takes the code next.
                    skip = name != "sed"
                        && name != "gsed"
                        && a.len() > 1
                        && !a.starts_with("--")
                        && a.ends_with('e');
                    continue;
                }
                let _ = k;
                files.push(a);
            }
            let script_first = matches!(name, "sed" | "gsed") && !args.iter().any(given);
            let files = if script_first {
                files.get(1..).unwrap_or(&[]).to_vec()
            } else {
                files
            };
            c.paths.extend(owned(files));
            c.paths.extend(fed.iter().cloned());
            // `perl -i -pe 'BEGIN{@ARGV=…}'`: the code chooses the files it edits.
            if name != "sed"
                && name != "gsed"
                && shell::inline_pieces(&command.argv)
                    .iter()
                    .any(|code| code.contains("ARGV"))
            {
                c.paths.push(CODE_CHOSEN.to_owned());
            }
        }
        "yq" | "tomlq" | "xq" if has_flag(args, "i", &["inplace", "in-place"]) => {
            c.paths.extend(owned(all()));
        }
        "sort" => c
            .paths
            .extend(owned(option_values(args, &["-o"], &["--output"]))),
        "openssl" | "gpg" => {
            let out = option_values(args, &["-out", "-o"], &["--output"]);
            c.paths.extend(owned(out));
        }
        "cargo"
            if args.first().is_some_and(|a| a == "uninstall")
                && operands(&args[1..]).contains(&"nagger") =>
        {
            c.paths.push("~/.cargo/bin/nagger".into());
        }
        "sed" | "gsed" => {
            let mut scripts = option_values(args, &["-e"], &["--expression"]);
            if scripts.is_empty() {
                scripts.extend(operands(args).first());
            }
            // Only a script with a `w` command (`1w file`, `s/x/y/w file`) writes a file.
            for script in &scripts {
                for effect in code::effects_in(script, code::Language::Sed) {
                    match effect {
                        code::Effect::Writes(Some(path)) => c.paths.push(path),
                        code::Effect::Writes(None) => c.named |= named_in_code(script, binary),
                        _ => {}
                    }
                }
            }
        }
        "awk" | "gawk" | "mawk" | "nawk" => {
            let program = operands(args).first().copied().unwrap_or("");
            let redirects = program.contains('>') || program.contains('|');
            c.named = named_in_code(program, binary) && (redirects || program.contains("system"));
            if redirects && program.contains("print") {
                // `print > FILENAME`: the files it reads may be the files it writes.
                c.paths.extend(owned(all().into_iter().skip(1).collect()));
            }
            if args.windows(2).any(|w| w[0] == "-i" && w[1] == "inplace")
                || args.iter().any(|a| a == "-iinplace")
            {
                c.paths.extend(owned(all().into_iter().skip(1).collect()));
                // `BEGIN { ARGV[1] = f; ARGC = 2 }`: the program chooses the files.
                if shell::awk_program(&command.argv)
                    .iter()
                    .any(|p| p.contains("ARGV"))
                {
                    c.paths.push(CODE_CHOSEN.to_owned());
                }
            }
        }
        "dd" => c.paths.extend(owned(
            args.iter().filter_map(|a| a.strip_prefix("of=")).collect(),
        )),
        "tar" | "bsdtar" | "gtar" => {
            let first = args.first().map_or("", String::as_str);
            let extract = (!first.starts_with('-') && first.contains('x'))
                || has_flag(args, "x", &["extract", "get"]);
            if extract {
                let dirs = option_values(args, &["-C"], &["--directory"]);
                let dir = dirs.last().copied().unwrap_or(".");
                c.into.push(Landing::tree(dir));
                // Members named on the line land under their own paths.
                let members = operands(args)
                    .into_iter()
                    .skip(usize::from(!first.starts_with('-')));
                c.paths.extend(members.map(|m| format!("{dir}/{m}")));
            }
        }
        "unzip" => {
            let lists = args
                .iter()
                .any(|a| matches!(a.as_str(), "-l" | "-t" | "-v" | "-p" | "-Z" | "-z"));
            if !lists {
                let dirs = option_values(args, &["-d"], &[]);
                let dir = dirs.last().copied().unwrap_or(".");
                c.into.push(Landing::tree(dir));
                let members = operands(args).into_iter().skip(1);
                c.paths.extend(members.map(|m| format!("{dir}/{m}")));
            }
        }
        "7z" | "7za" | "7zz" | "7zr" if args.first().is_some_and(|a| a == "x" || a == "e") => {
            let dirs: Vec<&str> = args.iter().filter_map(|a| a.strip_prefix("-o")).collect();
            c.into
                .push(Landing::tree(dirs.last().copied().unwrap_or(".")));
        }
        "cpio" | "bsdcpio" if has_flag(args, "i", &["extract"]) => c.into.push(Landing::tree(".")),
        "curl" => c.paths.extend(owned(option_values(
            args,
            &["-o", "-D", "-c"],
            &[
                "--output",
                "--dump-header",
                "--cookie-jar",
                "--trace",
                "--trace-ascii",
                "--stderr",
                "--etag-save",
                "--libcurl",
                "--hsts",
                "--alt-svc",
            ],
        ))),
        "wget" => {
            c.paths
                .extend(owned(option_values(args, &["-O"], &["--output-document"])));
            for dir in option_values(args, &["-P"], &["--directory-prefix"]) {
                c.into.push(Landing::tree(dir));
            }
        }
        "git" => {
            git_changes(args, &mut c);
            // `git ls-files .claude | xargs git rm -f`: the paths it is handed too.
            let (i, _) = git_subcommand_at(args);
            if !fed.is_empty()
                && args.get(i).is_some_and(|sub| {
                    matches!(
                        sub.as_str(),
                        "rm" | "mv"
                            | "checkout"
                            | "restore"
                            | "reset"
                            | "clean"
                            | "stash"
                            | "checkout-index"
                            | "update-index"
                            | "apply"
                            | "am"
                    )
                })
            {
                c.paths.extend(fed.iter().cloned());
            }
        }
        "nagger" => {
            // `nagger plugin DIR` and `nagger man --dir DIR` write a folder of files.
            let ops = operands(args);
            if ops.first() == Some(&"plugin") && !args.iter().any(|a| a == "--dry-run") {
                c.into.extend(ops.get(1).map(|d| Landing::tree(d)));
            }
            if ops.first() == Some(&"man") {
                for dir in option_values(args, &[], &["--dir"]) {
                    c.into.push(Landing::tree(dir));
                }
            }
        }
        "gunzip" | "unxz" | "bunzip2" | "unzstd" | "zstd" | "gzip" | "xz" | "bzip2"
            if name.starts_with("un") || has_flag(args, "d", &["decompress"]) =>
        {
            for op in all() {
                let stripped = [".gz", ".xz", ".bz2", ".zst"]
                    .iter()
                    .find_map(|e| op.strip_suffix(e))
                    .unwrap_or(op);
                c.paths.push(stripped.to_owned());
            }
        }
        _ if shell::is_interpreter(name) && !shell::is_shell(name) => {
            // `python3 -m json.tool F`, `-m pydoc F`, `-m tokenize F`: modules of the
            // standard library that read their operands and print (`json.tool IN OUT`
            // writes its second).
            let at = args
                .iter()
                .position(|a| a == "-m")
                .filter(|_| name.starts_with("python") || name.starts_with("pypy"));
            let module = at.and_then(|m| args.get(m + 1)).map(String::as_str);
            match module {
                Some("json.tool") => {
                    let after = at.map_or(&[][..], |m| &args[(m + 2).min(args.len())..]);
                    let ops: Vec<&String> = after
                        .iter()
                        .filter(|a| !a.starts_with('-') && a.parse::<u32>().is_err())
                        .collect();
                    c.paths.extend(ops.get(1).map(|o| (*o).clone()));
                    return c;
                }
                Some("pydoc" | "tokenize" | "tabnanny" | "pickletools" | "dis" | "ast") => {
                    return c;
                }
                // `-m py_compile notes.txt`: bytecode of a file that is no module, which
                // Python may later run in place of a module's source.
                Some("py_compile" | "compileall") => {
                    let after = at.map_or(&[][..], |m| &args[(m + 2).min(args.len())..]);
                    for op in after.iter().filter(|a| !a.starts_with('-')) {
                        let stem = op.rsplit('/').next().unwrap_or(op);
                        let plain = std::path::Path::new(stem)
                            .extension()
                            .is_some_and(|e| e.eq_ignore_ascii_case("py"));
                        if module == Some("py_compile") && !plain {
                            c.paths.push(format!("__pycache__/{stem}.pyc"));
                        }
                    }
                    return c;
                }
                _ => {}
            }
            c.paths.extend(owned(all()));
            let code: Vec<&str> = shell::inline_code(&command.argv)
                .into_iter()
                .chain(command.stdin_texts.iter().map(String::as_str))
                .collect();
            // Reading nagger's files is fine only when every text the program is given
            // only reads: a reader's text may be a writer's data (`perl -lne unlink`).
            let lang = code::Language::of(name);
            c.named = code.iter().any(|t| named_in_code(t, binary))
                && !code.iter().all(|t| only_reads(lang, t));
            // Files the code names, relative to the folder the line `cd`-ed to.
            for effect in code.iter().flat_map(|t| code::effects_in(t, lang)) {
                if let code::Effect::Writes(Some(path)) = effect {
                    c.paths.push(path);
                }
            }
        }
        "mkdir" => {
            // Making `.claude` or `.claude-nagger` is harmless, and so is making a folder
            // programs are found in (`~/bin`: what lands in it later is judged then); a
            // folder in place of one of nagger's files (`mkdir .claude-nagger/state.db-wal`)
            // is not.
            c.paths
                .extend(all().into_iter().map(str::to_owned).filter(|p| {
                    let normal = normalize(p.trim_end_matches('/'));
                    let last = basename(&normal);
                    let folder_of_programs = matches!(
                        protected(&normal, binary),
                        Some((_, Kind::BinFolder | Kind::AboveProgram))
                    );
                    !(last == ".claude" || last == ".claude-nagger" || folder_of_programs)
                }));
        }
        "zip" => {
            // `zip -m` moves its sources into the archive; the archive itself is written.
            let ops = all();
            if has_flag(args, "m", &["move"]) || args.iter().any(|a| a == "-mm") {
                c.paths.extend(owned(ops.clone()));
            }
            c.paths.extend(ops.first().map(|a| (*a).to_owned()));
        }
        "7z" | "7za" | "7zz" | "7zr" => {
            let ops = all();
            if args.iter().any(|a| a == "-sdel") {
                c.paths.extend(owned(ops.iter().skip(1).copied().collect()));
            }
            if ops
                .first()
                .is_some_and(|v| matches!(*v, "a" | "u" | "d" | "rn"))
            {
                c.paths.extend(ops.get(1).map(|a| (*a).to_owned()));
            }
        }
        "gzip" | "xz" | "bzip2" | "lzip" | "lzma" | "lz4" | "zstd" | "brotli" | "compress"
        | "pigz" | "pbzip2" | "pixz" | "plzip" => {
            // Compressing replaces each file by its archive, unless kept or sent to
            // standard output.
            let keeps_by_default = matches!(name, "lz4" | "zstd" | "brotli");
            let removes = !has_flag(
                args,
                "kcltL",
                &["keep", "stdout", "to-stdout", "list", "test"],
            ) && (!keeps_by_default
                || args.iter().any(|a| a == "--rm")
                || (name == "brotli" && has_flag(args, "j", &[])));
            if removes {
                c.paths.extend(owned(all()));
            }
            // `lz4 IN OUT`: the second operand is the file written.
            if name == "lz4" && !has_flag(args, "m", &["multiple"]) {
                c.paths
                    .extend(operands(args).get(1).map(|a| (*a).to_owned()));
            }
        }
        "uniq" | "xxd" => {
            // The second operand is the output file.
            c.paths
                .extend(operands(args).get(1).map(|a| (*a).to_owned()));
        }
        "iconv" => c
            .paths
            .extend(owned(option_values(args, &["-o"], &["--output"]))),
        "script" => {
            // `script [-c CMD] [FILE]`: the typescript goes to FILE, the logs to the files
            // of `-I`, `-O`, `-B`, `-T`.
            c.paths.extend(owned(option_values(
                args,
                &["-I", "-O", "-B", "-T", "-t"],
                &[
                    "--log-in",
                    "--log-out",
                    "--log-io",
                    "--log-timing",
                    "--timing",
                ],
            )));
            let mut k = 0;
            while k < args.len() {
                let a = args[k].as_str();
                if matches!(
                    a,
                    "-c" | "--command"
                        | "-E"
                        | "--echo"
                        | "-I"
                        | "-O"
                        | "-B"
                        | "-T"
                        | "-m"
                        | "--logging-format"
                        | "--log-in"
                        | "--log-out"
                        | "--log-io"
                        | "--log-timing"
                ) || short_cluster(a)
                    .is_some_and(|f| f.ends_with(['c', 'E', 'I', 'O', 'B', 'T', 'm']))
                {
                    // `-qc CMD`: a cluster ending in an option that takes a value.
                    k += 2;
                    continue;
                }
                if !a.starts_with('-') {
                    c.paths.push(a.to_owned());
                    break;
                }
                k += 1;
            }
        }
        _ => c.known = leaves_operands(name, args),
    }
    if matches!(name, "tar" | "bsdtar" | "gtar") {
        if has_flag(args, "", &["remove-files"]) {
            c.paths.extend(owned(all()));
        }
        let first = args.first().map_or("", String::as_str);
        let creates = (!first.starts_with('-') && first.contains(['c', 'r', 'u']))
            || has_flag(args, "cru", &["create", "append", "update"]);
        if creates {
            c.paths
                .extend(owned(option_values(args, &["-f"], &["--file"])));
            // `tar cf FILE …`: old-style letters take their values in order.
            if !first.starts_with('-') && first.contains('f') {
                c.paths.extend(args.get(1).cloned());
            }
        }
    }
    // `rsync -a --delete src/ dest/`: whatever of dest the source lacks is deleted.
    if name == "rsync"
        && args
            .iter()
            .any(|a| a.starts_with("--delete") || a == "--del")
    {
        let ops = all();
        if let Some((dest, sources)) = ops.split_last()
            && !sources.is_empty()
        {
            c.paths.push((*dest).to_owned());
        }
    }
    if matches!(name, "rsync") && has_flag(args, "", &["remove-source-files"]) {
        let ops = all();
        if let Some((_, sources)) = ops.split_last() {
            c.paths.extend(owned(sources.to_vec()));
        }
    }
    c
}

/// Whether `text`, code in `lang`, only reads (see [`code::reads_only`]) and has no
/// effect the code analysis finds: it may name nagger's files. Only the languages whose
/// calls the analysis reads qualify.
pub(super) fn only_reads(lang: code::Language, text: &str) -> bool {
    use code::Language as L;
    matches!(
        lang,
        L::Python | L::Js | L::Ruby | L::Perl | L::Php | L::Lua | L::R
    ) && code::reads_only(text, lang)
        && code::effects_in(text, lang).is_empty()
}

/// The folders `command` writes whole trees of files into, as it names them: where an
/// archive is extracted (`tar -C`, `unzip -d`, `7z x -o`), where `cp -r`, `rsync`,
/// `scp -r` and `ditto` copy to.
pub(super) fn tree_destinations(command: &SimpleCommand) -> Vec<String> {
    let writes_trees = matches!(
        command.name(),
        "tar"
            | "bsdtar"
            | "gtar"
            | "unzip"
            | "7z"
            | "7za"
            | "7zz"
            | "cpio"
            | "bsdcpio"
            | "cp"
            | "rsync"
            | "scp"
            | "ditto"
    );
    if !writes_trees {
        return Vec::new();
    }
    changes(command, &[], None)
        .into
        .into_iter()
        .filter(|l| l.tree)
        .map(|l| l.dest)
        .collect()
}

/// Programs whose effect on their operands [`changes`] reads by name: they write,
/// move, delete, link, extract or edit what they are given. Interpreters are read there
/// only for their inline code, `cargo` only for where it installs.
const KNOWN_CHANGERS: &[&str] = &[
    "rm",
    "rmdir",
    "unlink",
    "shred",
    "truncate",
    "chmod",
    "chown",
    "chgrp",
    "chattr",
    "chflags",
    "setfacl",
    "xattr",
    "ln",
    "link",
    "tee",
    "mkfifo",
    "mknod",
    "vi",
    "vim",
    "nvim",
    "nano",
    "emacs",
    "ed",
    "ex",
    "pico",
    "micro",
    "hx",
    "code",
    "subl",
    "touch",
    "srm",
    "trash",
    "trash-put",
    "gio",
    "rename",
    "patch",
    "sponge",
    "sd",
    "mount",
    "umount",
    "bindfs",
    "sqlite3",
    "sqlite",
    "mv",
    "cp",
    "install",
    "rsync",
    "scp",
    "ditto",
    "sed",
    "gsed",
    "yq",
    "tomlq",
    "xq",
    "sort",
    "openssl",
    "gpg",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "dd",
    "tar",
    "bsdtar",
    "gtar",
    "unzip",
    "7z",
    "7za",
    "7zz",
    "7zr",
    "cpio",
    "bsdcpio",
    "curl",
    "wget",
    "mkdir",
    "zip",
    "gunzip",
    "unxz",
    "bunzip2",
    "unzstd",
    "zstd",
    "gzip",
    "xz",
    "bzip2",
    "lzip",
    "lzma",
    "lz4",
    "brotli",
    "compress",
    "pigz",
    "pbzip2",
    "pixz",
    "plzip",
    "uniq",
    "xxd",
    "iconv",
];

/// Whether `command`'s program only reads the files it is given ([`leaves_operands`]).
pub(super) fn leaves_operands_of(command: &SimpleCommand) -> bool {
    leaves_operands(command.name(), command.args())
}

/// Whether self-protection knows what `name` does to the files it is given: it reads
/// its effect ([`KNOWN_CHANGERS`]) or knows it leaves them alone ([`leaves_operands`]).
pub(super) fn known_program(name: &str) -> bool {
    KNOWN_CHANGERS.contains(&name) || leaves_operands(name, &[])
}

/// Programs known to leave the files named on their command line as they are: they read
/// them, list them, print them or compare them. Any other program given one of nagger's
/// files, by a program self-protection does not know, is asked about.
fn leaves_operands(name: &str, args: &[String]) -> bool {
    match name {
        "cat" | "tac" | "nl" | "head" | "tail" | "less" | "more" | "most" | "bat" | "batcat"
        | "grep" | "egrep" | "fgrep" | "zgrep" | "rg" | "ag" | "ack" | "wc" | "stat" | "ls"
        | "ll" | "la" | "dir" | "vdir" | "exa" | "eza" | "lsd" | "tree" | "file" | "diff"
        | "diff3" | "colordiff" | "cmp" | "comm" | "jq" | "gojq" | "jaq" | "md5sum" | "sha1sum"
        | "sha224sum" | "sha256sum" | "sha384sum" | "sha512sum" | "b2sum" | "cksum" | "sum"
        | "md5" | "shasum" | "od" | "hexdump" | "hd" | "strings" | "cut" | "paste" | "column"
        | "fold" | "fmt" | "pr" | "expand" | "unexpand" | "join" | "realpath" | "readlink"
        | "dirname" | "basename" | "test" | "[" | "[[" | "echo" | "printf" | "du" | "df"
        | "pwd" | "true" | "false" | ":" | "type" | "which" | "whereis" | "ldd" | "nm"
        | "objdump" | "readelf" | "size" | "lsattr" | "getfacl" | "namei" | "lsof" | "fuser"
        | "base64" | "base32" | "basenc" | "tr" | "cd" | "pushd" | "popd" | "find" | "xargs"
        | "parallel" | "docker" | "podman" | "nerdctl" | "kubectl" | "source" | "." | "zcat"
        | "bzcat" | "xzcat" | "zstdcat" | "zless" | "zmore" | "zipinfo" | "shellcheck"
        | "json_pp" | "xmllint" | "claude" | "git" | "nagger" | "set" | "export" | "local"
        | "declare" | "readonly" | "unset" | "exit" | "return" | "sleep" | "wait" | "kill"
        | "env" | "id" | "whoami" | "date" | "uname" | "hostname" | "findmnt" | "mountpoint"
        | "lsblk" | "blkid" | "expr" | "seq" | "jot" | "numfmt" | "factor" | "look" => true,
        "yq" | "tomlq" | "xq" => !has_flag(args, "i", &["inplace", "in-place"]),
        // `taplo fmt F` formats in place; `taplo check`, `lint`, `get` read.
        "taplo" => !args.iter().any(|a| matches!(a.as_str(), "fmt" | "format")),
        _ => false,
    }
}

/// Whether `printer` prints only numbers, one per line: `seq` given only numbers (and
/// `-w`), `jot` likewise. A format or a separator could print anything.
fn prints_numbers(printer: &SimpleCommand) -> bool {
    matches!(printer.name(), "seq" | "jot")
        && !printer.args().is_empty()
        && printer.args().iter().all(|a| {
            a == "-w" || a == "--equal-width" || (!a.is_empty() && a.parse::<f64>().is_ok())
        })
}

/// The nagger program's folder, a folder above it, or a prefix whose `bin` is that folder,
/// given to a program that does not only read it, as an option's value, a `KEY=value`
/// word or in its environment (`--bindir D`, `--prefix P`, `make install PREFIX=P`,
/// `PNPM_HOME=D`, `stow -t D`): an installer told to put programs there may put one of
/// the nagger program's name in its place. Asked about. Copies, moves and archives are
/// judged by what lands where, elsewhere.
fn program_folder_given(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    let name = command.name();
    let args = command.args();
    if leaves_operands(name, args)
        || matches!(
            name,
            "cp" | "mv"
                | "install"
                | "ln"
                | "rsync"
                | "scp"
                | "tar"
                | "bsdtar"
                | "unzip"
                | "cpio"
                | "dd"
                | "tee"
                | "touch"
                | "mkdir"
                | "rm"
                | "rmdir"
                | "chmod"
                | "chown"
                | "chgrp"
                | "git"
                | "cd"
                | "pushd"
                | "test"
                | "["
                | "[["
                | "echo"
                | "printf"
        )
    {
        return None;
    }
    let mut given: Vec<(&str, &str)> = Vec::new();
    let mut after_option = false;
    for word in args.iter().take(256) {
        if word == "--" {
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            match long.split_once('=') {
                Some((key, value)) => given.push((key, value)),
                None => after_option = true,
            }
            continue;
        }
        if word.starts_with('-') {
            after_option = word.len() == 2;
            continue;
        }
        if let Some((key, value)) = word.split_once('=')
            && !key.is_empty()
            && key.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
        {
            given.push((key, value));
        } else if after_option {
            given.push(("", word));
        }
        after_option = false;
    }
    for word in command.env.iter().chain(command.prefixed.iter().flatten()) {
        if let Some((key, value)) = word.split_once('=')
            && !key.is_empty()
            && key.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
        {
            given.push((key, value));
        }
    }
    // `--config-settings=--install-scripts=D`: a setting handed on, with its own value.
    let nested: Vec<(&str, &str)> = given
        .iter()
        .filter_map(|(_, value)| {
            let (key, inner) = value.trim_start_matches('-').split_once('=')?;
            Some((key, inner))
        })
        .collect();
    given.extend(nested);
    let (key, value, what) = given.into_iter().find_map(|(key, value)| {
        // `$HOME/..`, `${HOME}/x`: the home as the guard looks it up.
        let spelled = super::paths::here_and_home(value);
        if value.is_empty()
            || value.contains(':')
            || spelled.contains(['$', '`'])
            || key.ends_with("PATH")
            || matches!(key, "HOME" | "PWD" | "OLDPWD" | "CLAUDE_PROJECT_DIR")
        {
            return None;
        }
        let full = normalize(&home_form(&resolve(cwd, &spelled)?));
        let full = full.trim_end_matches('/');
        // The running program's own folder, a folder above it, or a prefix whose `bin`
        // it is; other folders on PATH are where installers routinely put programs.
        let homes = program_homes(scope);
        let found = homes.iter().find_map(|home| {
            if home == full {
                Some(BINARY_FOLDER)
            } else if home
                .strip_prefix(full)
                .is_some_and(|rest| rest.starts_with('/'))
                && !matches!(full, "" | "~" | "/")
            {
                Some("a folder above the nagger program Claude Code runs as its hook")
            } else {
                None
            }
        })?;
        Some((key, value, found))
    })?;
    let how = if key.is_empty() {
        "as an option's value".to_owned()
    } else {
        format!("in `{key}`")
    };
    Some(Finding::ask(
        "guard:self-protect-binary",
        format!(
            "gives `{value}`, {what}, to `{name}` {how}: a program it puts there may take \
             the nagger program's place"
        ),
        "Install into another folder, or run it yourself in your terminal.",
    ))
}

/// The folders the running nagger program is in: the one that runs, and where each
/// `nagger` on PATH that is a link leads; relative to the home as `~/…`.
fn program_homes(scope: &Scope) -> Vec<String> {
    let running = scope.binary.map(|b| normalize(&home_form(b)));
    running
        .into_iter()
        .chain(linked_programs().iter().cloned())
        .filter_map(|program| {
            program
                .rsplit_once('/')
                .map(|(folder, _)| folder.to_owned())
        })
        .filter(|folder| !folder.is_empty())
        .collect()
}

/// One of nagger's files (or Claude Code's settings, or the nagger program) given as an
/// option's value to a program that does not only read (`gpg --status-file F`, `openssl
/// rand -writerand F`, `tar --index-file=F`, `vim -V20F`, `node --cpu-prof-name=F`):
/// nagger knows what the program does to its operands, not to every option's value, and
/// an option that takes a file may write it. Asked about; the paths the program is known
/// to change or copy are judged as such elsewhere.
fn option_value_given(
    command: &SimpleCommand,
    changes: &Changes,
    cwd: &Cwd,
    scope: &Scope,
) -> Option<Finding> {
    let name = command.name();
    let args = command.args();
    let judged = |v: &str| {
        changes.paths.iter().any(|p| p == v)
            || changes
                .into
                .iter()
                .any(|l| l.dest == v || l.sources.contains(&v))
    };
    // A folder and a name given apart (`--cpu-prof-dir=D --cpu-prof-name=N`): the file
    // is the two joined.
    let valued = |suffix: &str| {
        args.iter().enumerate().find_map(|(k, a)| {
            let (option, value) = match a.split_once('=') {
                Some((o, v)) => (o, Some(v)),
                None => (a.as_str(), args.get(k + 1).map(String::as_str)),
            };
            (option.starts_with("--") && option.ends_with(suffix))
                .then_some(value)
                .flatten()
        })
    };
    let joined = valued("-name").map(|name| {
        format!(
            "{}/{name}",
            valued("-dir").unwrap_or(".").trim_end_matches('/')
        )
    });
    // The value `value` of the option `arg`, judged.
    let given = |value: &str, arg: &str| -> Option<Finding> {
        if value.is_empty() || value.contains('`') || judged(value) {
            return None;
        }
        // `$HOME/.claude/settings.json`: the environment's values filled in.
        let filled;
        let value = if value.contains('$') {
            filled = super::paths::environment_filled(value, |name| name == "PWD");
            if filled.contains('$') {
                return None;
            }
            filled.as_str()
        } else {
            value
        };
        let full = resolve(cwd, value)?;
        // A bare word is judged by its name alone: no lookup on disk spent on it.
        let what = held_or_component(&full, value.contains('/'), scope)?;
        Some(Finding::ask(
            "guard:self-protect-output",
            format!(
                "gives `{value}`, {what}, to `{name}` with the option `{arg}`: an option that \
                 takes a file may write it"
            ),
            "Give the program another file, or run it yourself in your terminal.",
        ))
    };
    if let Some(joined) = &joined
        && let Some(found) = given(joined, "--…-dir and --…-name")
    {
        return Some(found);
    }
    for (k, arg) in args.iter().enumerate().take(256) {
        if arg == "--" {
            break;
        }
        if !arg.starts_with('-') || arg.len() < 2 {
            continue;
        }
        let mut candidates: Vec<&str> = Vec::new();
        // The next word, for an option whose name says it takes a file or a folder
        // (`--status-file F`, `-writerand F`, `--homedir D`, `-o F`).
        let named = arg.trim_start_matches('-').to_ascii_lowercase();
        let takes_file = named == "o"
            || [
                "file", "out", "log", "dir", "keyring", "rand", "name", "path", "dump", "save",
                "write", "serial", "db", "trace", "home", "target", "report", "record", "cache",
                "store", "lock", "pid", "sock", "tmp", "temp",
            ]
            .iter()
            .any(|w| named.contains(w));
        if let Some((_, value)) = arg.split_once('=') {
            candidates.push(value);
        } else if takes_file && let Some(next) = args.get(k + 1).filter(|n| !n.starts_with('-')) {
            candidates.push(next);
        }
        if !arg.starts_with("--") && !arg.contains('=') {
            // A value glued to a short option, after a verbosity level (`-V20file`), when
            // it reads as a path.
            // After the dash and the option's letter, whatever that letter is.
            let glued = arg.char_indices().nth(2).map_or("", |(at, _)| &arg[at..]);
            let pathlike = |v: &str| v.contains('/') || v.starts_with(['.', '~', '$']);
            for v in [
                glued,
                glued.trim_start_matches(|c: char| c.is_ascii_digit()),
            ] {
                if pathlike(v) {
                    candidates.push(v);
                }
            }
        } else if arg.starts_with("--")
            && !arg.contains('=')
            && let Some(next) = args.get(k + 1).filter(|n| !n.starts_with('-'))
            && !candidates.contains(&next.as_str())
        {
            // A long option's next word, whatever its name says (`--status-fi F`).
            candidates.push(next);
        }
        for value in candidates {
            if let Some(found) = given(value, arg) {
                return Some(found);
            }
        }
    }
    None
}

/// What the file at `full` is, when a program writing it weakens nagger: one of nagger's
/// files, Claude Code's settings, the nagger program, or a component (an agent, skill or
/// command, whose frontmatter can add hooks). `on_disk`: looked up through links;
/// otherwise judged by its name alone.
fn held_or_component(full: &str, on_disk: bool, scope: &Scope) -> Option<String> {
    let judged = if on_disk {
        judge(full, scope)
    } else {
        protected(full, scope.binary)
    };
    match judged {
        Some((what, Kind::Held)) => Some(what.to_string()),
        _ if super::component::file(full) => Some("a component file of Claude Code's".to_owned()),
        _ => None,
    }
}

/// Most bytes of a gpg options file read.
const MAX_GPG_OPTIONS: u64 = 64 * 1024;

/// The options file `gpg` reads (`--options F`, else `gpg.conf` in `--homedir`,
/// `$GNUPGHOME` or `~/.gnupg`), when one of its options names one of nagger's files, the
/// nagger program or a component file (`status-file ../bin/nagger`): gpg writes many of
/// the files its options name, so this asks as the same option on the command line does.
fn gpg_options_read(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    if !matches!(command.name(), "gpg" | "gpg2") {
        return None;
    }
    let args = command.args();
    let given = |long: &str| {
        option_values(args, &[], &[long])
            .last()
            .copied()
            .map(str::to_owned)
    };
    let file = match given("--options") {
        Some(f) => f,
        None if args.iter().any(|a| a == "--no-options") => return None,
        None => {
            let home = given("--homedir")
                .or_else(|| std::env::var("GNUPGHOME").ok())
                .unwrap_or_else(|| "~/.gnupg".to_owned());
            format!("{}/gpg.conf", home.trim_end_matches('/'))
        }
    };
    let file = super::paths::environment_filled(&file, |name| name == "PWD");
    let path = resolve(cwd, &file).and_then(|f| on_disk(scope, &f))?;
    // Opened without blocking, a regular file only, read bounded.
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(
            crate::base::files::open_regular(&path).ok()?,
            MAX_GPG_OPTIONS,
        ),
        &mut bytes,
    )
    .ok()?;
    let text = String::from_utf8_lossy(&bytes);
    for line in text.lines().take(1024) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once(char::is_whitespace) else {
            continue;
        };
        let value = value.trim().trim_matches('"');
        let filled = super::paths::environment_filled(value, |name| name == "PWD");
        let Some(full) = resolve(cwd, &filled) else {
            continue;
        };
        if let Some(what) = held_or_component(&full, true, scope) {
            return Some(Finding::ask(
                "guard:self-protect-output",
                format!(
                    "runs `gpg`, whose options file `{file}` gives `{value}`, {what}, to its \
                     option `{key}`: an option that takes a file may write it"
                ),
                "Take the option out of the file, or run gpg yourself in your terminal.",
            ));
        }
    }
    None
}

/// `gpg` without `-o` names what it writes after what it reads: `x.json.gpg` (`.asc`,
/// `.pgp`, `.sig`) decrypts to `x.json`; with `--use-embedded-filename` the name the
/// message carries, and `--decrypt-files` with no operand reads the names from its input.
/// The first is judged as the file it writes; the others are asked about.
fn gpg_names_output(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    if !matches!(command.name(), "gpg" | "gpg2") {
        return None;
    }
    let args = command.args();
    if !option_values(args, &["-o"], &["--output"]).is_empty() {
        return None;
    }
    let long = |l: &str| {
        args.iter().any(|a| {
            a.len() > 6 && a.starts_with("--") && l.starts_with(a.split('=').next().unwrap_or(a))
        })
    };
    let ops: Vec<&str> = {
        // The values of options that take one are no files it reads.
        const VALUED: &[&str] = &[
            "-r",
            "-R",
            "-u",
            "-f",
            "-z",
            "--recipient",
            "--hidden-recipient",
            "--local-user",
            "--passphrase",
            "--passphrase-fd",
            "--passphrase-file",
            "--pinentry-mode",
            "--homedir",
            "--trust-model",
            "--compress-level",
            "--cipher-algo",
            "--digest-algo",
            "--keyserver",
            "--default-key",
            "--status-fd",
            "--logger-fd",
            "--command-fd",
            "--set-filename",
        ];
        let mut out = Vec::new();
        let mut k = 0;
        while let Some(a) = args.get(k) {
            if a == "--" {
                out.extend(args[k + 1..].iter().map(String::as_str));
                break;
            }
            if a.starts_with('-') && a != "-" {
                k += usize::from(VALUED.contains(&a.as_str()));
            } else {
                out.push(a.as_str());
            }
            k += 1;
        }
        out
    };
    let ask = |why: &str| {
        Some(Finding::ask(
            "guard:self-protect-output",
            format!("has `gpg` write files named {why}, which may be nagger's own files"),
            "Name the output with `-o`, or run it yourself in your terminal.",
        ))
    };
    if long("--use-embedded-filename") {
        return ask("by the message it decrypts");
    }
    if (long("--decrypt-files") || long("--multifile")) && ops.is_empty() {
        return ask("on its standard input");
    }
    for op in ops {
        let stripped = [".gpg", ".asc", ".pgp", ".sig"]
            .iter()
            .find_map(|suffix| op.strip_suffix(suffix));
        let Some(out) = stripped.filter(|o| !o.contains('`')) else {
            continue;
        };
        // `$HOME/.claude/settings.json.gpg`: the environment's values filled in.
        let filled = super::paths::environment_filled(out, |name| name == "PWD");
        if filled.contains('$') {
            return ask(&format!("after `{op}`, only known when the shell runs"));
        }
        let out = filled.as_str();
        if let Some((what, _)) = resolve(cwd, out).and_then(|full| judge(&full, scope)) {
            return Some(finding(&format!(
                "writes `{out}` (gpg names it after `{op}`), {what}"
            )));
        }
    }
    None
}

/// An operand of a program self-protection does not know (see [`leaves_operands`]) that
/// names one of nagger's files: the word itself, the value of `--opt=value`, `-ovalue` or
/// `key=value`.
fn unknown_given(
    command: &SimpleCommand,
    fed: &[String],
    cwd: &Cwd,
    scope: &Scope,
) -> Option<Finding> {
    let name = command.name();
    let words = command.args().iter().chain(fed);
    for word in words.take(256) {
        if word == "--" || word.is_empty() {
            continue;
        }
        if computed_names_nagger(command, word) {
            return Some(unknown_finding(name, word, BINARY));
        }
        let value = if let Some(long) = word.strip_prefix("--") {
            long.split_once('=').map(|(_, v)| v)
        } else if word.starts_with('-') {
            word.get(2..)
                .filter(|v| v.contains('/') || v.starts_with('.'))
        } else {
            Some(word.split_once('=').map_or(word.as_str(), |(_, v)| v))
        };
        let mut candidates = vec![value];
        if !word.starts_with('-') && word.contains('=') {
            candidates.push(Some(word.as_str()));
        }
        for candidate in candidates.into_iter().flatten() {
            // `$HOME/.claude/x`, `$CLAUDE_PROJECT_DIR/…`: the environment's values filled
            // in (`$PWD` is where the command runs, left to `resolve`).
            let filled;
            let candidate = if candidate.contains('$') && !candidate.contains(['`', '(']) {
                filled = super::paths::environment_filled(candidate, |name| name == "PWD");
                filled.as_str()
            } else {
                candidate
            };
            let here = ["$PWD", "${PWD}"].iter().any(|p| candidate.starts_with(p));
            if candidate.is_empty() || candidate.contains('`') || candidate.contains('$') && !here {
                continue;
            }
            let Some(full) = resolve(cwd, candidate) else {
                continue;
            };
            let found = if candidate.contains('/') {
                judge(&full, scope)
            } else {
                protected(&full, scope.binary)
            };
            if let Some((what, Kind::Held)) = found {
                return Some(unknown_finding(name, candidate, what));
            }
        }
        // Code given inline (`ipython -c '…'`, `tsx -e '…'`, `crystal eval '…'`), in a
        // language nagger does not read: naming nagger's files is enough to ask.
        if !shell::is_interpreter(name)
            && word.contains([' ', '(', '"', '\'', ';', '\n'])
            && (named_in_code(word, scope.binary) || named_bare(word, scope.binary))
        {
            return Some(Finding::ask(
                "guard:self-protect-unknown",
                format!(
                    "hands `{name}`, a program nagger does not know, text that names nagger's \
                     own files or Claude Code's settings: it may be code that changes them"
                ),
                "Run it yourself in your terminal if it only reads them.",
            ));
        }
    }
    // Code on its standard input, in a language nagger does not read (`tclsh <<< …`).
    if command
        .stdin_texts
        .iter()
        .any(|text| named_in_code(text, scope.binary) || named_bare(text, scope.binary))
    {
        return Some(Finding::ask(
            "guard:self-protect-unknown",
            format!(
                "hands `{name}`, a program nagger does not know, text on its standard input \
                 that names nagger's own files or Claude Code's settings"
            ),
            "Run it yourself in your terminal if it only reads them.",
        ));
    }
    None
}

fn unknown_finding(program: &str, path: &str, what: &str) -> Finding {
    Finding::ask(
        "guard:self-protect-unknown",
        format!(
            "hands `{path}`, {what}, to `{program}`, a program nagger does not know to leave \
             it as it is"
        ),
        "Read it with `cat`, `jq` or `grep`, or run the program yourself in your terminal.",
    )
}

/// Where git's subcommand stands among its arguments, past the global options, and the
/// folder `-C` names, if any.
fn git_subcommand_at(args: &[String]) -> (usize, Option<&str>) {
    let mut i = 0;
    let mut dir = None;
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-C" => {
                dir = args.get(i + 1).map(String::as_str);
                i += 2;
            }
            "-c" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
            a if a.starts_with('-') => i += 1,
            _ => break,
        }
    }
    (i, dir)
}

/// Pathspecs of the git commands that rewrite, restore, stash or delete files in the
/// working tree, as seen from where the line starts (`git -C dir` taken into account).
/// The names `rename` gives its files. util-linux's (`rename.ul FROM TO FILE…`)
/// replaces the first `FROM` (`-a`: each, `-l`: the last) in each name, read both in
/// the file's own name and in the path as given; Perl's (`rename 's/\.off$//' FILE…`,
/// `-e EXPR`) runs its expression on the path, worked out for a substitution and
/// otherwise any name in the file's folder (`DIR/*`).
fn renamed(name: &str, args: &[String]) -> Vec<String> {
    let ops = operands(args);
    let expressions = option_values(args, &["-e", "-E"], &[]);
    let perl_like = |e: &str| {
        let mut chars = e.chars();
        matches!(chars.next(), Some('s' | 'y'))
            && chars
                .next()
                .is_some_and(|d| !d.is_alphanumeric() && !d.is_whitespace())
            || e.starts_with("tr") && e[2..].starts_with(|d: char| !d.is_alphanumeric())
    };
    let perl = matches!(name, "prename" | "file-rename" | "perl-rename")
        || !expressions.is_empty()
        || name == "rename" && ops.first().is_some_and(|e| perl_like(e));
    let mut out = Vec::new();
    if perl {
        let (exprs, files): (Vec<&str>, &[&str]) = if expressions.is_empty() {
            match ops.split_first() {
                Some((e, files)) => (vec![*e], files),
                None => return out,
            }
        } else {
            (expressions, &ops[..])
        };
        for file in files.iter().take(64) {
            let mut new = Some((*file).to_owned());
            for e in &exprs {
                new = new.and_then(|n| {
                    super::sed_script::edited(&["-E".to_owned(), (*e).to_owned()], &n)
                        .map(|t| t.trim_end_matches('\n').to_owned())
                });
            }
            out.push(new.unwrap_or_else(|| match file.rsplit_once('/') {
                Some((dir, _)) => format!("{dir}/*"),
                None => "*".to_owned(),
            }));
        }
        return out;
    }
    let [from, to, files @ ..] = ops.as_slice() else {
        return out;
    };
    if from.is_empty() {
        return out;
    }
    let all = has_flag(args, "a", &["all"]);
    let last = has_flag(args, "l", &["last"]);
    let replace = |text: &str| -> Option<String> {
        if all {
            return text.contains(from).then(|| text.replace(from, to));
        }
        let at = if last {
            text.rfind(from)?
        } else {
            text.find(from)?
        };
        Some(format!("{}{to}{}", &text[..at], &text[at + from.len()..]))
    };
    for file in files.iter().take(64) {
        let (dir, base) = match file.rsplit_once('/') {
            Some((dir, base)) => (format!("{dir}/"), base),
            None => (String::new(), *file),
        };
        if let Some(new) = replace(base) {
            out.push(format!("{dir}{new}"));
        }
        if let Some(new) = replace(file).filter(|n| !out.contains(n)) {
            out.push(new);
        }
    }
    out
}

fn git_changes(args: &[String], c: &mut Changes) {
    let (i, dir) = git_subcommand_at(args);
    let Some(sub) = args.get(i) else {
        return;
    };
    let rest = &args[i + 1..];
    let takes_value = [
        "-b",
        "-B",
        "--orphan",
        "-s",
        "--source",
        "-m",
        "--message",
        "--conflict",
        "-e",
        "--exclude",
        "--pathspec-from-file",
    ];
    // Files and folders git's options and operands name as its output.
    let written = super::git::git_writes(args, true);
    let mut paths: Vec<&str> = written.iter().map(String::as_str).collect();
    let index_only = sub == "restore"
        && rest.iter().any(|a| a == "--staged" || a == "-S")
        && !rest.iter().any(|a| a == "--worktree" || a == "-W");
    if index_only {
        return;
    }
    match sub.as_str() {
        "checkout" | "restore" | "reset" | "clean" | "rm" | "mv" | "stash" | "checkout-index"
        | "switch" => {
            let mut skip = false;
            let mut options_done = false;
            for (k, arg) in rest.iter().enumerate() {
                if skip {
                    skip = false;
                    continue;
                }
                if !options_done && arg == "--" {
                    options_done = true;
                    continue;
                }
                if !options_done && arg.starts_with('-') {
                    skip = takes_value.contains(&arg.as_str());
                    continue;
                }
                if sub == "stash" && k == 0 && matches!(arg.as_str(), "push" | "save") {
                    continue;
                }
                paths.push(arg.as_str());
            }
        }
        _ => {}
    }
    let mut magic_free: Vec<String> = paths.iter().filter_map(|p| pathspec_path(p)).collect();
    if magic_free.is_empty() && !paths.is_empty() {
        // Only exclusions: the rest of the tree.
        magic_free.push(".".to_owned());
    }
    for path in magic_free {
        c.paths.push(match dir {
            Some(dir) => format!("{dir}/{path}"),
            None => path,
        });
    }
    if let Some(dir) = dir
        && matches!(
            sub.as_str(),
            "checkout" | "restore" | "clean" | "stash" | "reset"
        )
    {
        // A whole-tree operation run from a protected folder reaches into it.
        c.paths.push(format!("{dir}/."));
    }
}

/// The path a git pathspec names, its magic taken off (`:(glob).claude-nagger/**`,
/// `:(top,icase).claude`, `:/x`); `None` for an exclusion, which names what is left alone.
/// A pathspec from the top of the tree is taken from the folder the line starts in.
fn pathspec_path(spec: &str) -> Option<String> {
    if replaced::excluded_spec(spec).is_some() {
        return None;
    }
    let Some(magic) = spec.strip_prefix(':') else {
        return Some(spec.to_owned());
    };
    if let Some(rest) = magic.strip_prefix('/') {
        return Some(if rest.is_empty() {
            ".".to_owned()
        } else {
            rest.to_owned()
        });
    }
    if let Some((_, rest)) = magic.strip_prefix('(').and_then(|m| m.split_once(')')) {
        return Some(if rest.is_empty() {
            ".".to_owned()
        } else {
            rest.to_owned()
        });
    }
    Some(spec.to_owned())
}

/// The folders `fd PATTERN [PATH…]` walks (its options' values and the pattern left
/// out), or what it is told with `--search-path`/`--base-directory`.
fn fd_operands(args: &[String]) -> Vec<&str> {
    const VALUED: &[&str] = &[
        "-t",
        "--type",
        "-e",
        "--extension",
        "-E",
        "--exclude",
        "-d",
        "--max-depth",
        "--min-depth",
        "--exact-depth",
        "-S",
        "--size",
        "--changed-within",
        "--changed-before",
        "-o",
        "--owner",
        "-x",
        "--exec",
        "-X",
        "--exec-batch",
        "-j",
        "--threads",
        "--max-results",
        "-c",
        "--color",
        "--format",
        "--ignore-file",
        "--path-separator",
        "--batch-size",
        "--max-buffer-time",
    ];
    let mut given = Vec::new();
    let mut positional = Vec::new();
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        k += 1;
        if matches!(arg.as_str(), "--search-path" | "--base-directory") {
            given.extend(args.get(k).map(String::as_str));
            k += 1;
        } else if VALUED.contains(&arg.as_str()) {
            k += 1;
        } else if !arg.starts_with('-') {
            positional.push(arg.as_str());
        }
    }
    given.extend(positional.into_iter().skip(1));
    given
}

/// A patch applied to the work tree (`git apply`, `git am`, `patch`) that changes a
/// protected file: read from its file or the command line, each file it names judged
/// with the leading folders `-pN` may take off. A patch that cannot be read is asked
/// about; one that does not exist changes nothing.
fn patched(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    let unseen = |shown: &str, why: &str| {
        Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "applies {shown}, a patch nagger cannot read ({why}), which may change \
                 nagger's own files or Claude Code's settings"
            ),
            "Write the patch to a file, check what it changes (`git apply --stat`), then \
             apply it.",
        )
    };
    // `patch -d DIR` works from DIR (its `-i` file too); `git -C DIR apply` likewise.
    // `git apply --directory=DIR` puts DIR before each name of the patch.
    let name = command.name();
    let args = command.args();
    let moved_to: Vec<&str> = if matches!(name, "patch" | "gpatch") {
        option_values(args, &["-d"], &["--directory"])
    } else if name == "git" {
        let mut dirs = Vec::new();
        let mut k = 0;
        while let Some(a) = args.get(k) {
            match a.as_str() {
                "-C" => dirs.extend(args.get(k + 1).map(String::as_str)),
                "-c" | "--git-dir" | "--work-tree" | "--namespace" => {}
                a if a.starts_with('-') => {
                    k += 1;
                    continue;
                }
                _ => break,
            }
            k += 2;
        }
        dirs
    } else {
        Vec::new()
    };
    let mut here = cwd.clone();
    for dir in moved_to {
        here = resolve(&here, dir).map_or(Cwd::Unknown, Cwd::Known);
    }
    // `$PWD` in the patch file's name is the shell's folder, not the one patch moves to.
    let shell_cwd = cwd;
    let cwd = &here;
    let prefix = if name == "git" && args.iter().any(|a| a == "apply" || a == "am") {
        option_values(args, &[], &["--directory"]).last().copied()
    } else {
        None
    };
    for source in patches::sources(command) {
        let (label, text) = match source {
            patches::Source::Text(text) => {
                ("the patch on the command line".to_owned(), text.to_owned())
            }
            patches::Source::Pipe => {
                let here = resolve(cwd, ".").map_or_else(
                    || ".".to_owned(),
                    |d| normalize(&scope.root.join(d).to_string_lossy()),
                );
                if holds_protected(scope, &here) {
                    return Some(unseen(
                        "what the pipe hands it",
                        "an earlier command prints it as the line runs",
                    ));
                }
                continue;
            }
            patches::Source::File(file) => {
                let from = if file.starts_with("$PWD") || file.starts_with("${PWD}") {
                    shell_cwd
                } else {
                    cwd
                };
                let read = resolve(from, file)
                    .and_then(|full| on_disk(scope, &full))
                    .map_or_else(
                        || {
                            patches::Found::Unseen(
                                "its folder is only known when the shell runs".into(),
                            )
                        },
                        |path| patches::read(&path),
                    );
                match read {
                    patches::Found::Text(text) => (format!("`{file}`"), text),
                    patches::Found::Missing if !later_in_line(command, scope) => continue,
                    patches::Found::Missing => {
                        return Some(unseen(
                            &format!("`{file}`"),
                            "it does not exist yet, and an earlier command of the line may \
                             write it",
                        ));
                    }
                    patches::Found::Unseen(why) => {
                        return Some(unseen(&format!("`{file}`"), &why));
                    }
                }
            }
        };
        for target in &patches::targets(&text) {
            for path in patches::stripped(target) {
                let placed;
                let path = match prefix {
                    Some(dir) => {
                        placed = format!("{}/{path}", dir.trim_end_matches('/'));
                        placed.as_str()
                    }
                    None => path,
                };
                let Some(full) = resolve(cwd, path) else {
                    continue;
                };
                if let Some((what, _)) = judge(&full, scope) {
                    return Some(finding(&format!(
                        "applies {label}, which changes `{target}`, {what}"
                    )));
                }
                // A component file: judged by the lines the patch adds, part of a file.
                if super::component::file(&full) {
                    let added: String = text
                        .lines()
                        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
                        .map(|l| &l[1..])
                        .collect::<Vec<_>>()
                        .join("\n");
                    if let Some(found) = super::component::text_weakens(&full, &added, false) {
                        return Some(found);
                    }
                }
            }
        }
        for (link, points_at) in patches::links(&text) {
            for path in patches::stripped(&link) {
                if let Some(found) = link_made(&label, &link, path, &points_at, cwd, scope) {
                    return Some(found);
                }
            }
        }
    }
    None
}

/// An index entry written by hand (`git update-index --cacheinfo`/`--index-info`) that
/// the next checkout puts in the work tree: a symbolic link (mode `120000`, whose target
/// is an object nagger does not read), or a version of one of nagger's files. Entries fed
/// from input nagger cannot see are asked about too. Removing one of nagger's files from
/// the index (`update-index --remove`) stages its deletion, which a
/// commit, merge or checkout then carries out (`git rm --cached` of one is refused with
/// the other removals).
fn index_entry_made(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    if command.name() != "git" {
        return None;
    }
    let args = command.args();
    let (i, dir) = git_subcommand_at(args);
    let sub = args.get(i)?.as_str();
    let rest = &args[i + 1..];
    let at = |path: &str| match dir {
        Some(dir) => format!("{dir}/{path}"),
        None => path.to_owned(),
    };
    let protected_entry = |path: &str| resolve(cwd, &at(path)).and_then(|f| judge(&f, scope));
    let ask = |harm: String| {
        Some(Finding::ask(
            "guard:self-protect-unsure",
            harm,
            "Change the work tree's files and let git see them (`git add`); the index \
             entries nagger's files and links come from are yours to write.",
        ))
    };
    // Entries as (mode, path).
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut removed: Vec<&str> = Vec::new();
    match sub {
        "update-index" => {
            let mut k = 0;
            let mut removing = false;
            while let Some(arg) = rest.get(k) {
                k += 1;
                match arg.as_str() {
                    "--cacheinfo" => {
                        let value = rest.get(k).map_or("", String::as_str);
                        if value.contains(',') {
                            let mut parts = value.splitn(3, ',');
                            let mode = parts.next().unwrap_or("");
                            let path = parts.nth(1).unwrap_or("");
                            entries.push((mode.to_owned(), path.to_owned()));
                            k += 1;
                        } else {
                            let mode = value;
                            let path = rest.get(k + 2).map_or("", String::as_str);
                            entries.push((mode.to_owned(), path.to_owned()));
                            k += 3;
                        }
                    }
                    "--index-info" => {
                        let texts: Vec<&str> =
                            command.stdin_texts.iter().map(String::as_str).collect();
                        if texts.is_empty() {
                            return ask("writes index entries read from its input, which nagger \
                                 cannot see: they may be links to nagger's own files or \
                                 Claude Code's settings, or versions of them that the next \
                                 checkout puts in place"
                                .to_owned());
                        }
                        for line in texts.iter().flat_map(|t| t.lines()) {
                            let (info, path) = line.split_once('\t').unwrap_or((line, ""));
                            let mode = info.split_whitespace().next().unwrap_or("");
                            entries.push((mode.to_owned(), path.to_owned()));
                        }
                    }
                    "--remove" | "--force-remove" => removing = true,
                    a if a.starts_with('-') => {}
                    path if removing => removed.push(path),
                    _ => {}
                }
            }
        }
        _ => return None,
    }
    for (mode, path) in &entries {
        if mode.trim_start_matches('0') == "120000" {
            return ask(format!(
                "writes an index entry that makes `{path}` a symbolic link whose target is \
                 an object nagger does not read: the next checkout makes the link, and what \
                 is written through it may land on nagger's own files or Claude Code's \
                 settings"
            ));
        }
        if let Some((what, _)) = protected_entry(path) {
            return ask(format!(
                "writes the index entry of `{path}`, {what}: the next checkout puts that \
                 version in place"
            ));
        }
    }
    for path in removed {
        if let Some((what, _)) = protected_entry(path) {
            return ask(format!(
                "removes `{path}`, {what}, from the index: a commit then deletes it from the \
                 repository, and a merge or checkout of that commit from the work tree"
            ));
        }
    }
    None
}

/// A symbolic link `path` (as `shown`) made by `by` to `points_at`, judged as `ln -s`
/// would be: one to a protected path is refused, one to a folder holding nagger's files
/// (the project, a folder above it) is asked about, since what is written through it
/// lands among them.
fn link_made(
    by: &str,
    shown: &str,
    path: &str,
    points_at: &str,
    cwd: &Cwd,
    scope: &Scope,
) -> Option<Finding> {
    let full = resolve(cwd, path)?;
    let target = if points_at.starts_with('/') {
        normalize(points_at)
    } else {
        let parent = full.rsplit_once('/').map_or(".", |(p, _)| p);
        let parent = if parent.is_empty() { "/" } else { parent };
        normalize(&format!("{parent}/{points_at}"))
    };
    if let Some((what, _)) = judge(&target, scope) {
        return Some(finding(&format!(
            "applies {by}, which makes `{shown}` a link to `{points_at}`, {what}: what is \
             written through it lands there"
        )));
    }
    let here = PathBuf::from(normalize(&scope.root.join(&target).to_string_lossy()));
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let holds = scope.root.starts_with(&here)
        || home.is_some_and(|h| h.starts_with(&here))
        || [".claude", ".claude-nagger"]
            .iter()
            .any(|inner| std::fs::symlink_metadata(here.join(inner)).is_ok());
    (points_at.is_empty() || holds).then(|| {
        Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "applies {by}, which makes `{shown}` a link to `{points_at}`, a folder that \
                 holds nagger's own files or Claude Code's settings: what is written through \
                 it may land among them"
            ),
            "Make links to the folders you mean, not to the project or a folder above it.",
        )
    })
}

/// An archive unpacked: each member it lists is judged where it lands, through the links
/// on disk and the links the archive itself made before it (`lnk -> .claude`, then
/// `lnk/settings.local.json`), and a link it makes is judged by what it points at, as
/// `ln` would be. One that cannot be listed is asked about where nagger's files could land
/// (a folder that holds the project's `.claude/` or `.claude-nagger/`, or a home).
fn unpacked(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    // `TAR_OPTIONS='-C dir --transform=…' tar xf a.tar`: tar reads options from its
    // environment too, set for it or exported earlier in the line.
    if matches!(command.name(), "tar" | "gtar")
        && let Some(options) = variable_for(command, scope, "TAR_OPTIONS")
    {
        let Given::Known(options) = options else {
            return extraction(command).map(|_| {
                Finding::ask(
                    "guard:self-protect-unsure",
                    "unpacks an archive with options from `TAR_OPTIONS`, only known when the \
                     shell runs: they may name where it lands"
                        .to_owned(),
                    "Give tar its options on the command line.",
                )
            });
        };
        let mut with = command.clone();
        with.argv
            .extend(options.split_whitespace().map(str::to_owned));
        with.env.retain(|e| !e.starts_with("TAR_OPTIONS="));
        if let Some(found) = unpacked_as_given(&with, cwd, scope) {
            return Some(found);
        }
    }
    unpacked_as_given(command, cwd, scope).or_else(|| copied_renamed(command, cwd, scope))
}

/// Whether folder `full` (resolved) holds nagger's files or Claude Code's settings, or
/// the project: by name, or on disk where it is a link.
fn holds_nagger_files(scope: &Scope, full: &str) -> bool {
    holds_protected(scope, full)
        || real_path(scope, full).is_some_and(|real| {
            let real = PathBuf::from(real);
            scope.root.starts_with(&real)
                || [".claude", ".claude-nagger"]
                    .iter()
                    .any(|inner| std::fs::symlink_metadata(real.join(inner)).is_ok())
        })
}

/// `pax -rw -s ,^conf,.claude, conf .`: a copy whose names the command rewrites by
/// patterns as it copies, into a folder that holds nagger's files or Claude Code's
/// settings. Where each copy lands is only known as it runs: asked about.
fn copied_renamed(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    let args = command.args();
    if command.name() != "pax" || !has_flag(args, "r", &[]) || !has_flag(args, "w", &[]) {
        return None;
    }
    let renames = archives::renames(command.name(), args);
    let dest = *super::finding::operands(args).last()?;
    let full = resolve(cwd, dest)?;
    let holds = judge(&full, scope).is_some() || holds_nagger_files(scope, &full);
    (holds && !renames.is_empty()).then(|| {
        Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "copies into `{dest}`, which holds nagger's own files and Claude Code's \
                 settings, renaming what it copies by `-s` patterns: where each copy lands \
                 cannot be checked"
            ),
            "Copy without renaming, into a folder of its own.",
        )
    })
}

/// A value the line gives a variable.
enum Given {
    /// As written.
    Known(String),
    /// Only known when the shell runs.
    Computed,
}

/// The value of environment variable `name` for `command`: set before it on its own
/// (`X=v cmd`, `env X=v cmd`) or exported earlier in the line; `None` when the line does
/// not set it.
fn variable_for(command: &SimpleCommand, scope: &Scope, name: &str) -> Option<Given> {
    let known = |value: Option<&str>| match value {
        Some(v) if !v.contains(['$', '`']) => Given::Known(v.to_owned()),
        _ => Given::Computed,
    };
    let own = command
        .env
        .iter()
        .chain(command.prefixed.iter().flatten())
        .rev()
        .find_map(|w| w.strip_prefix(name).and_then(|r| r.strip_prefix('=')));
    if let Some(value) = own {
        return Some(known(Some(value)));
    }
    let (parsed, at) = scope.place_of(command)?;
    parsed
        .assignments
        .iter()
        .rev()
        .find(|a| a.at <= at && !a.each && a.name == name)
        .map(|a| known(a.value.as_deref()))
}

fn unpacked_as_given(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    let (archive, dest) = extraction(command)?;
    let dest_full = resolve(cwd, dest)?;
    let renames = archives::renames(command.name(), command.args());
    let dest_judged = judge(&dest_full, scope);
    if let Some((what, Kind::Held)) = dest_judged {
        let shown = archive.unwrap_or("standard input");
        return Some(finding(&format!("unpacks `{shown}` into `{dest}`, {what}")));
    }
    let holds = dest_judged.is_some() || holds_nagger_files(scope, &dest_full);
    let listing = match archive {
        Some(archive) => match resolve(cwd, archive).and_then(|full| on_disk(scope, &full)) {
            Some(path) => archives::list(&path),
            None => {
                archives::Listing::Unlisted("its folder is only known when the shell runs".into())
            }
        },
        None => archives::Listing::Unlisted("it is read from standard input".into()),
    };
    let shown = archive.unwrap_or("standard input");
    let listing = match listing {
        archives::Listing::Missing if later_in_line(command, scope) => archives::Listing::Unlisted(
            "it does not exist yet, and an earlier command of the line may write it".into(),
        ),
        other => other,
    };
    match listing {
        archives::Listing::Missing => None,
        archives::Listing::Members(members) => {
            let landing = Unpacking {
                full: &dest_full,
                shown: dest,
                holds,
            };
            unpacked_members(&members, &renames, &landing, shown, scope)
        }
        archives::Listing::Unlisted(_) if !holds && renames.is_empty() => None,
        archives::Listing::Unlisted(why) => Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "unpacks `{shown}` into `{dest}`, which holds nagger's own files and Claude \
                 Code's settings, and what it holds cannot be seen ({why})"
            ),
            "Unpack it into a folder of its own (`-C dir`, `-d dir`), or list it first.",
        )),
    }
}

/// Most links of one archive followed while its members are judged.
const MAX_ARCHIVE_LINKS: usize = 256;

/// Where an archive is unpacked.
struct Unpacking<'a> {
    /// The folder, resolved.
    full: &'a str,
    /// As the command names it.
    shown: &'a str,
    /// Whether it holds nagger's files or Claude Code's settings.
    holds: bool,
}

/// The protected path `path` is, where a member unpacked into `landing` reaches it. Into a
/// folder that holds none of them (`-C vendor`), a name alone (`vendor/.claude/…`) is not
/// nagger's: only what reaches a live one through links is.
fn reached_by_member(path: &str, landing: &Unpacking, scope: &Scope) -> Option<&'static str> {
    let (what, _) = judge(path, scope)?;
    if landing.holds {
        return Some(what);
    }
    let real = real_path(scope, path).unwrap_or_else(|| path.to_owned());
    let parts: Vec<&str> = real.split('/').collect();
    let Some(at) = parts.iter().position(|p| {
        p.eq_ignore_ascii_case(".claude") || p.eq_ignore_ascii_case(".claude-nagger")
    }) else {
        return Some(what);
    };
    let folder = parts[..at].join("/");
    let folder = if folder.is_empty() && real.starts_with('/') {
        "/".to_owned()
    } else if folder.is_empty() {
        ".".to_owned()
    } else {
        folder
    };
    holds_protected(scope, &folder).then_some(what)
}

/// The first member of a listed archive that lands on a protected path, or links to one.
fn unpacked_members(
    members: &[archives::Member],
    renames: &[&str],
    landing: &Unpacking,
    shown: &str,
    scope: &Scope,
) -> Option<Finding> {
    let (dest_full, dest) = (landing.full, landing.shown);
    // Links the archive has made so far: where each landed, and what it points at.
    let mut made: Vec<(String, String)> = Vec::new();
    for stored in members {
        let mut member = stored.name.clone();
        for expr in renames {
            let Some(renamed) = archives::rename(expr, &member) else {
                return Some(Finding::ask(
                    "guard:self-protect-unsure",
                    format!(
                        "unpacks `{shown}` renaming its members by `{expr}`, which nagger \
                         cannot evaluate: they may land on nagger's own files or Claude \
                         Code's settings"
                    ),
                    "Unpack it into a folder of its own without renaming, then move what \
                     you need.",
                ));
            };
            member = renamed;
        }
        let landed = through_links(&normalize(&format!("{dest_full}/{member}")), &made);
        if let Some(what) = reached_by_member(&landed, landing, scope) {
            return Some(finding(&format!(
                "unpacks `{shown}`, whose `{member}` lands in `{dest}`, {what}"
            )));
        }
        // An agent, skill or command unpacked where Claude Code reads it: its frontmatter
        // may add hooks, and what the archive holds is not read here.
        if super::component::file(&landed) {
            return Some(Finding::ask(
                "guard:self-protect-component",
                format!(
                    "unpacks `{shown}`, whose `{member}` lands as a component file (an agent, \
                     skill or command, whose frontmatter can add hooks Claude Code runs by \
                     itself) that nagger cannot read there"
                ),
                "Unpack it into a folder of its own and write the component with the file \
                 tools.",
            ));
        }
        // A member renamed to an absolute path (`pax -s ',^,/usr/local/bin/,'`) lands
        // there when the extractor keeps absolute names.
        if member.starts_with('/')
            && let Some((what, _)) = judge(&normalize(&member), scope)
        {
            return Some(finding(&format!(
                "unpacks `{shown}`, whose `{member}` is {what}"
            )));
        }
        let Some(link) = &stored.link else {
            continue;
        };
        let target = match link {
            archives::Link::Symbolic(Some(target)) if target.starts_with('/') => normalize(target),
            archives::Link::Symbolic(Some(target)) => {
                let parent = landed.rsplit_once('/').map_or(".", |(p, _)| p);
                normalize(&format!("{parent}/{target}"))
            }
            archives::Link::Hard(target) => normalize(&format!("{dest_full}/{target}")),
            archives::Link::Symbolic(None) => {
                return Some(Finding::ask(
                    "guard:self-protect-unsure",
                    format!(
                        "unpacks `{shown}`, whose `{member}` is a symbolic link whose target \
                         cannot be read without unpacking it: files unpacked or written \
                         through it may land on nagger's own files or Claude Code's settings"
                    ),
                    "Unpack it into a folder of its own and look at its links first.",
                ));
            }
        };
        let target = through_links(&target, &made);
        if let Some(what) = reached_by_member(&target, landing, scope) {
            return Some(finding(&format!(
                "unpacks `{shown}`, whose `{member}` is a link to `{target}`, {what}"
            )));
        }
        if made.len() < MAX_ARCHIVE_LINKS && matches!(link, archives::Link::Symbolic(_)) {
            made.push((landed, target));
        }
    }
    None
}

/// `path` with a link made earlier by the same archive replaced by what it points at.
fn through_links(path: &str, made: &[(String, String)]) -> String {
    let mut path = path.to_owned();
    // A link may point through another one: follow a few.
    for _ in 0..8 {
        let Some((link, target)) = made.iter().rev().find(|(link, _)| {
            path.strip_prefix(link.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
        }) else {
            break;
        };
        path = normalize(&format!("{target}{}", &path[link.len()..]));
    }
    path
}

/// The words after `stash` of a `git stash` command, and the folder `-C` names.
fn stash_words(command: &SimpleCommand) -> Option<(&[String], Option<&str>)> {
    if command.name() != "git" {
        return None;
    }
    let args = command.args();
    let (i, dir) = git_subcommand_at(args);
    (args.get(i).map(String::as_str) == Some("stash")).then(|| (&args[i + 1..], dir))
}

/// The files of nagger's and Claude Code's settings a project's git may track.
const TRACKED_PROTECTED: &[&str] = &[
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude-nagger/config.toml",
    ".claude-nagger/.gitignore",
];

/// `git stash` (push or save) of the whole tree where one of nagger's tracked files is
/// not what `HEAD` holds (`git reset --soft HEAD~1` before an install, then `git
/// stash`): the stash takes it out of the work tree. Also asked about when an earlier
/// command of the line moves `HEAD` or the index, as what the stash then takes is not
/// known before the line runs.
fn stashes_protected_changes(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    let (rest, dir) = stash_words(command)?;
    let pushes = match rest.first().map(String::as_str) {
        None => true,
        Some("push" | "save") => true,
        Some(a) => a.starts_with('-'),
    };
    // A pathspec that is the whole tree (`-- .` at its top, `:/`) is no pathspec.
    let whole = |spec: &str| matches!(spec, "." | "./" | ":/" | ":/." | "*" | ":(top)");
    let specs: Vec<&String> = rest.iter().skip_while(|a| *a != "--").skip(1).collect();
    if !pushes || !specs.iter().all(|s| whole(s)) {
        return None;
    }
    let here = match dir {
        Some(d) => resolve(cwd, d),
        None => resolve(cwd, "."),
    }
    .unwrap_or_else(|| ".".to_owned());
    let mut full = normalize(&scope.root.join(&here).to_string_lossy());
    // Stashing from a folder of the project stashes the whole repository.
    let root = scope.root.to_string_lossy();
    if full.starts_with(&format!("{}/", root.trim_end_matches('/'))) {
        root.trim_end_matches('/').clone_into(&mut full);
    }
    if !holds_protected(scope, &full) {
        return None;
    }
    let moved = scope.place_of(command).is_some_and(|(parsed, at)| {
        parsed.commands[..at].iter().any(|c| {
            let a = c.args();
            let (k, _) = git_subcommand_at(a);
            c.name() == "git"
                && a.get(k).is_some_and(|sub| {
                    matches!(
                        sub.as_str(),
                        "reset"
                            | "checkout"
                            | "switch"
                            | "restore"
                            | "read-tree"
                            | "update-ref"
                            | "update-index"
                            | "add"
                            | "rm"
                            | "mv"
                            | "commit"
                            | "rebase"
                            | "merge"
                            | "pull"
                            | "am"
                            | "cherry-pick"
                            | "revert"
                            | "symbolic-ref"
                    )
                })
        })
    });
    let top = Path::new(&full);
    let differs = || {
        let at = gittree::Where {
            dir: top.to_path_buf(),
            ..gittree::Where::default()
        };
        let Some(repo) = gittree::find(&at) else {
            return false;
        };
        let store = gitobjects::Store::open(&repo.git_dir);
        // Without a commit there is nothing to stash against.
        if !matches!(store.commit("HEAD", false), Ok(Some(_))) {
            return false;
        }
        TRACKED_PROTECTED.iter().any(|f| {
            let on_disk = repo.top.join(f);
            if std::fs::symlink_metadata(&on_disk).is_err() {
                return false;
            }
            let staged = matches!(
                gittree::tracked(&repo.index, &[(*f).to_owned()]),
                gittree::Tracked::Paths(p) if !p.is_empty()
            );
            if !staged {
                return false;
            }
            // Staged: the stash puts back `HEAD`'s copy, or removes a file `HEAD` lacks.
            match store.file_at("HEAD", f) {
                Ok(text) => std::fs::read(&on_disk).map_or(true, |now| now != text),
                Err(_) => true,
            }
        })
    };
    if !moved && !differs() {
        return None;
    }
    Some(Finding::ask(
        "guard:self-protect-stash",
        if moved {
            "stashes the work tree after the line moves `HEAD` or the index, which may take nagger's own files or Claude Code's settings out of it"
        } else {
            "stashes the work tree, where nagger's own files or Claude Code's settings are not what `HEAD` holds: the stash takes them out of it"
        }
        .to_owned(),
        "Stash named paths (`git stash push -- src/`), or run it yourself.",
    ))
}

/// A git command that writes a work tree it is pointed at (`--work-tree`,
/// `GIT_WORK_TREE`), or the folder it runs in with another repository's git folder
/// (`--git-dir`, `GIT_DIR`), when that folder holds nagger's files or Claude Code's
/// settings: what lands there is the other repository's, which nagger does not read.
fn foreign_work_tree(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    if command.name() != "git" {
        return None;
    }
    let args = command.args();
    let (i, dir) = git_subcommand_at(args);
    let sub = args.get(i)?.as_str();
    let rest = &args[i + 1..];
    let writes = match sub {
        "checkout" | "switch" | "restore" | "merge" | "pull" | "rebase" | "cherry-pick"
        | "revert" | "am" | "apply" | "clean" | "rm" | "mv" | "checkout-index" | "stash" => {
            !(sub == "apply" && rest.iter().any(|a| a == "--cached" || a == "--check"))
        }
        "reset" => rest
            .iter()
            .any(|a| matches!(a.as_str(), "--hard" | "--merge" | "--keep")),
        "read-tree" => rest.iter().any(|a| a == "-u" || a == "--reset"),
        _ => false,
    };
    if !writes {
        return None;
    }
    let env = |name: &str| command.env_value(name).map(str::to_owned);
    let option = |name: &str| {
        args[..i].iter().enumerate().find_map(|(k, a)| {
            if a == name {
                args.get(k + 1).cloned()
            } else {
                a.strip_prefix(&format!("{name}=")).map(str::to_owned)
            }
        })
    };
    let work_tree = option("--work-tree").or_else(|| env("GIT_WORK_TREE"));
    let git_dir = option("--git-dir").or_else(|| env("GIT_DIR"));
    let run_in = match dir {
        Some(d) => resolve(cwd, d),
        None => resolve(cwd, "."),
    };
    let tree = match (&work_tree, &git_dir) {
        (Some(tree), _) => {
            // Relative to where git runs (`-C`).
            let base = run_in.clone().unwrap_or_else(|| ".".to_owned());
            if tree.starts_with('/') || tree.starts_with('~') || tree.starts_with('$') {
                resolve(cwd, tree)
            } else {
                resolve(&Cwd::Known(base), tree)
            }
        }
        (None, Some(_)) => run_in.clone(),
        (None, None) => return None,
    };
    let Some(tree) = tree else {
        return Some(Finding::ask(
            "guard:self-protect-unsure",
            format!("runs `git {sub}` on a work tree only known as the line runs"),
            "Run it in the repository's own work tree, or ask the user.",
        ));
    };
    let full = absolute_in(scope, &tree);
    let own = scope.root.to_string_lossy();
    // The project's own repository on its own work tree is judged as any git command.
    let own_git = git_dir.as_deref().is_none_or(|g| {
        resolve(cwd, g).is_some_and(|g| {
            let g = absolute_in(scope, &g);
            g == format!("{}/.git", own.trim_end_matches('/'))
        })
    }) && work_tree.is_some()
        && full.trim_end_matches('/') == own.trim_end_matches('/')
        && run_in.as_deref().is_some_and(|r| {
            absolute_in(scope, r).trim_end_matches('/') == own.trim_end_matches('/')
        });
    if own_git || !(judge(&full, scope).is_some() || holds_protected(scope, &full)) {
        return None;
    }
    Some(Finding::ask(
        "guard:self-protect-unsure",
        format!(
            "runs `git {sub}` with another repository's files on `{tree}`, which holds nagger's own files or Claude Code's settings: what lands there is not read"
        ),
        "Check the files out into a folder of their own, or ask the user.",
    ))
}

/// `git stash -u` / `--include-untracked` / `-a` / `--all` with no pathspec, in a work
/// tree that holds nagger's files: it takes the untracked ones (`.claude-nagger/`,
/// `.claude/settings.local.json`; with `-a` the ignored database too) out of the work tree
/// until the stash is applied again, and nagger runs without them. Asked about.
fn stashes_untracked(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<Finding> {
    let (mut rest, dir) = stash_words(command)?;
    // `git stash save -u "message"`: its words are the message, never paths.
    let save = rest.first().is_some_and(|a| a == "save");
    match rest.first().map(String::as_str) {
        Some("push" | "save") => rest = &rest[1..],
        Some(a) if !a.starts_with('-') => return None,
        _ => {}
    }
    let untracked = rest.iter().any(|a| {
        matches!(a.as_str(), "--include-untracked" | "--all")
            || short_cluster(a).is_some_and(|c| c.contains(['u', 'a']))
    });
    let mut pathspec = false;
    let mut k = 0;
    while let Some(a) = rest.get(k) {
        match a.as_str() {
            "-m" | "--message" | "--pathspec-from-file" => k += 1,
            "--" => {
                pathspec = k + 1 < rest.len();
                break;
            }
            a if a.starts_with('-') => {}
            _ => pathspec = true,
        }
        k += 1;
    }
    let pathspec =
        !save && (pathspec || rest.iter().any(|a| a.starts_with("--pathspec-from-file")));
    if !untracked || pathspec {
        return None;
    }
    let here = match dir {
        Some(d) => resolve(cwd, d),
        None => resolve(cwd, "."),
    }
    .unwrap_or_else(|| ".".to_owned());
    let full = normalize(&scope.root.join(&here).to_string_lossy());
    if !holds_protected(scope, &full) {
        return None;
    }
    // `-u` leaves ignored files where they are (nagger's own `.gitignore` keeps its
    // database and trust copy out of git); `-a` takes them too.
    let all = rest.iter().any(|a| {
        a == "--all" || (!a.starts_with("--") && short_cluster(a).is_some_and(|c| c.contains('a')))
    });
    if !all && !untracked_protected_unignored(Path::new(&full)) {
        return None;
    }
    Some(Finding::ask(
        "guard:self-protect-stash",
        "stashes untracked files, which takes nagger's own files in .claude-nagger (and \
         Claude Code's local settings) out of the work tree until the stash is applied again"
            .to_owned(),
        "Stash named paths (`git stash push -u -- src/`), or run it yourself.",
    ))
}

/// The text of `path` (as git names it from the top) in revision `rev` of the repository
/// holding `dir`: what `git show REV:PATH` prints. `None` when it cannot be read.
pub(super) fn file_in_revision(dir: &Path, rev: &str, path: &str) -> Option<String> {
    let at = gittree::Where {
        dir: dir.to_path_buf(),
        ..gittree::Where::default()
    };
    let repo = gittree::find(&at)?;
    let store = gitobjects::Store::open(&repo.git_dir);
    let bytes = store.file_at(rev, path.trim_start_matches("./")).ok()?;
    String::from_utf8(bytes).ok()
}

/// Most entries of a work tree looked at for files git would lose.
const MAX_WORKTREE_ENTRIES: usize = 4096;

/// What removing the work tree at `dir` by force (`git worktree remove --force`) loses:
/// a tracked file with uncommitted changes, or a file git neither tracks nor ignores.
/// `Ok(None)` when it holds neither; `Err` when that cannot be told in bounds (no such
/// folder now, which a line may make first; an unreadable index; too many files).
pub(super) fn worktree_work(dir: &Path) -> Result<Option<String>, String> {
    if !dir.is_dir() {
        return Err(format!("`{}` is not a folder now", dir.display()));
    }
    let top = dir.to_string_lossy().into_owned();
    if let Some(changed) = uncommitted_among(&[(top, None)]) {
        return Ok(Some(changed));
    }
    let at = gittree::Where {
        dir: dir.to_path_buf(),
        ..gittree::Where::default()
    };
    let Some(repo) = gittree::find(&at) else {
        return Ok(None);
    };
    // Every file below, `.git` and ignored folders left out.
    let mut files: Vec<String> = Vec::new();
    let mut folders: Vec<String> = vec![String::new()];
    let mut seen = 0;
    while let Some(rel) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(repo.top.join(&rel)) else {
            return Err(format!("`{rel}` cannot be read"));
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_WORKTREE_ENTRIES {
                return Err(format!("more than {MAX_WORKTREE_ENTRIES} files"));
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if rel.is_empty() && name == ".git" {
                continue;
            }
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if ignored(&repo.top, &repo.git_dir, &path) {
                continue;
            }
            match entry.file_type() {
                Ok(t) if t.is_dir() => folders.push(path),
                _ => files.push(path),
            }
        }
    }
    let tracked = match gittree::tracked(&repo.index, &files) {
        gittree::Tracked::Paths(paths) => paths,
        gittree::Tracked::Unknown(why) => return Err(why),
    };
    Ok(files.into_iter().find(|f| !tracked.contains(f)))
}

/// Whether the repository at `dir` has one of nagger's files or Claude Code's project
/// settings on disk that git neither tracks nor ignores: what `git stash -u` takes away.
/// Ignored is read from the `.gitignore` files on the way to it and `info/exclude`, by
/// their plain patterns; anything that cannot be read counts as not ignored.
fn untracked_protected_unignored(dir: &Path) -> bool {
    let at = gittree::Where {
        dir: dir.to_path_buf(),
        ..gittree::Where::default()
    };
    let Some(repo) = gittree::find(&at) else {
        return true;
    };
    let files = [
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".claude-nagger/config.toml",
        ".claude-nagger/state.db",
        ".claude-nagger/state.db-wal",
        ".claude-nagger/state.db-shm",
        ".claude-nagger/state.db.lock",
        ".claude-nagger/trusted.json",
    ];
    let present: Vec<String> = files
        .iter()
        .filter(|f| std::fs::symlink_metadata(repo.top.join(f)).is_ok())
        .map(|f| (*f).to_owned())
        .collect();
    if present.is_empty() {
        return false;
    }
    let tracked = match gittree::tracked(&repo.index, &present) {
        gittree::Tracked::Paths(paths) => paths,
        gittree::Tracked::Unknown(_) => return true,
    };
    present
        .iter()
        .filter(|f| !tracked.contains(f))
        .any(|f| !ignored(&repo.top, &repo.git_dir, f))
}

/// Whether `path` (relative to `top`) is ignored by the plain patterns of the
/// `.gitignore` files of its folders and of `info/exclude` (names, globs, `dir/`, anchored
/// `/x`; a later `!` undoes). Read bounded.
fn ignored(top: &Path, git_dir: &Path, path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let mut lists: Vec<(String, PathBuf)> = vec![(String::new(), git_dir.join("info/exclude"))];
    for k in 0..parts.len() {
        let base = parts[..k].join("/");
        lists.push((base.clone(), top.join(&base).join(".gitignore")));
    }
    let matches =
        |pattern: &str, name: &str| pattern == name || super::paths::wildcard(pattern, name);
    let mut verdict = false;
    for (base, file) in lists {
        let Some(text) = read_text_bounded(&file, 64 * 1024) else {
            continue;
        };
        let rel = if base.is_empty() {
            path.to_owned()
        } else {
            match path.strip_prefix(&format!("{base}/")) {
                Some(r) => r.to_owned(),
                None => continue,
            }
        };
        for line in text.lines() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (negated, pattern) = match line.strip_prefix('!') {
                Some(p) => (true, p),
                None => (false, line),
            };
            let dir_only = pattern.ends_with('/');
            let pattern = pattern.trim_end_matches('/');
            let anchored = pattern.starts_with('/') || pattern.contains('/');
            let pattern = pattern.trim_start_matches('/');
            let segments: Vec<&str> = rel.split('/').collect();
            let hit = if anchored {
                // Against the path from this folder, or a folder of it.
                (1..=segments.len()).any(|n| {
                    (n < segments.len() || !dir_only) && matches(pattern, &segments[..n].join("/"))
                })
            } else {
                segments
                    .iter()
                    .enumerate()
                    .any(|(n, seg)| (n + 1 < segments.len() || !dir_only) && matches(pattern, seg))
            };
            if hit {
                verdict = !negated;
            }
        }
    }
    verdict
}

/// The text of a regular file, opened without blocking and read up to `max` bytes.
fn read_text_bounded(path: &Path, max: u64) -> Option<String> {
    use std::io::Read as _;
    let file = crate::base::files::open_regular(path).ok()?;
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Whether `command` comes after another command of the line being checked: a file it
/// reads that is missing now may be written before it runs.
pub(super) fn later_in_line(command: &SimpleCommand, scope: &Scope) -> bool {
    scope.place_of(command).is_some_and(|(_, at)| at > 0)
}

/// Whether a command of the line before `command` may change the file or folder `source`
/// names before `command` reads it: one that writes a path of that name (or one only
/// known as it runs), or a program whose writes nagger does not know (`make`, `python3
/// gen.py`). What is on disk now is then not what it reads.
pub(super) fn changed_earlier(command: &SimpleCommand, source: &str, scope: &Scope) -> bool {
    let Some((parsed, at)) = scope.place_of(command) else {
        return false;
    };
    let name = basename(source.trim_end_matches('/'));
    parsed.commands[..at].iter().rev().take(256).any(|earlier| {
        let c = changes(earlier, &[], scope.binary);
        !c.known
            || super::shell::is_interpreter(earlier.name())
            || c.paths
                .iter()
                .map(String::as_str)
                .chain(c.into.iter().map(|l| l.dest.as_str()))
                .any(|p| {
                    p.contains(['$', '`', '*', '?', '['])
                        || basename(p.trim_end_matches('/')) == name
                        || p.trim_end_matches('/').is_empty()
                })
    })
}

/// Whether the folder `dir` (resolved) holds nagger's files or Claude Code's settings:
/// the project's root or a folder above it, a home, or a folder with a `.claude/` or
/// `.claude-nagger/` in it now. A folder only known when the shell runs is taken to.
/// The folders whose mount `command` changes: `umount`'s operands, and where `mount`
/// mounts (its last operand) or remounts.
fn mount_points(command: &SimpleCommand) -> Vec<String> {
    let args = command.args();
    let operands: Vec<&String> = {
        let mut out = Vec::new();
        let mut k = 0;
        while let Some(a) = args.get(k) {
            match a.as_str() {
                "-o" | "-t" | "-O" | "-L" | "-U" | "-N" | "--options" | "--types"
                | "--namespace" => {
                    k += 1;
                }
                a if a.starts_with('-') => {}
                _ => out.push(a),
            }
            k += 1;
        }
        out
    };
    match command.name() {
        "umount" | "umount2" | "fusermount" | "fusermount3" => {
            operands.into_iter().cloned().collect()
        }
        "mount" => operands
            .last()
            .map(|t| vec![(*t).clone()])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Whether a real path on disk is one of nagger's files or folders, or a folder above
/// them (the project's root, the home, a folder holding either).
fn reaches_protected(scope: &Scope, real: &Path) -> bool {
    let text = real.to_string_lossy();
    if judge(&text, scope).is_some() {
        return true;
    }
    let root = std::fs::canonicalize(scope.root).unwrap_or_else(|_| scope.root.to_path_buf());
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let above = |folder: &Path| folder.starts_with(real);
    above(&root.join(".claude-nagger"))
        || above(&root.join(".claude"))
        || home.is_some_and(|h| above(&h.join(".claude")))
        || scope.binary.is_some_and(|b| Path::new(b).starts_with(real))
}

fn holds_protected(scope: &Scope, dir: &str) -> bool {
    let Some(path) = on_disk(scope, dir) else {
        return true;
    };
    let path = PathBuf::from(normalize(&path.to_string_lossy()));
    let home = std::env::var_os("HOME").map(PathBuf::from);
    scope.root.starts_with(&path)
        || home.is_some_and(|h| h == path)
        || [".claude", ".claude-nagger"]
            .iter()
            .any(|inner| std::fs::symlink_metadata(path.join(inner)).is_ok())
}

/// The archive an extracting command unpacks (`None`: standard input) and where to.
fn extraction(command: &SimpleCommand) -> Option<(Option<&str>, &str)> {
    let args = command.args();
    let reads = command.reads_from.first().map(String::as_str);
    match command.name() {
        "tar" | "bsdtar" | "gtar" => {
            let first = args.first().map_or("", String::as_str);
            let bundled = !first.starts_with('-');
            let extract =
                (bundled && first.contains('x')) || has_flag(args, "x", &["extract", "get"]);
            if !extract {
                return None;
            }
            let dest = option_values(args, &["-C"], &["--directory"])
                .last()
                .copied()
                .unwrap_or(".");
            // `-f FILE`, `--file=FILE`, or `xzf FILE` with the letters bundled.
            let file = option_values(args, &["-f"], &["--file"])
                .last()
                .copied()
                .or_else(|| {
                    if bundled && first.contains('f') {
                        args.get(1).map(String::as_str)
                    } else {
                        args.iter()
                            .position(|a| short_cluster(a).is_some_and(|f| f.ends_with('f')))
                            .and_then(|k| args.get(k + 1))
                            .map(String::as_str)
                    }
                });
            let file = file.filter(|f| *f != "-").or(reads);
            Some((file, dest))
        }
        "unzip" => {
            let lists = args
                .iter()
                .any(|a| matches!(a.as_str(), "-l" | "-t" | "-v" | "-p" | "-Z" | "-z"));
            if lists {
                return None;
            }
            let dest = option_values(args, &["-d"], &[])
                .last()
                .copied()
                .unwrap_or(".");
            let mut skip = false;
            let archive = args.iter().find(|a| {
                if skip {
                    skip = false;
                    return false;
                }
                if matches!(a.as_str(), "-d" | "-P" | "-x") {
                    skip = true;
                    return false;
                }
                !a.starts_with('-')
            })?;
            Some((Some(archive.as_str()), dest))
        }
        "7z" | "7za" | "7zz" | "7zr" if args.first().is_some_and(|a| a == "x" || a == "e") => {
            let dest = args
                .iter()
                .rev()
                .find_map(|a| a.strip_prefix("-o"))
                .unwrap_or(".");
            let archive = args[1..].iter().find(|a| !a.starts_with('-'))?;
            // A 7z archive is not listed (asked about where it matters); a zip given to
            // 7z is.
            Some((Some(archive.as_str()), dest))
        }
        // `cpio -idm < a.cpio`, `bsdcpio -i -F a.cpio`, `cpio -i -D dir -I a.cpio`.
        "cpio" | "bsdcpio"
            if has_flag(args, "i", &["extract"]) && !has_flag(args, "t", &["list"]) =>
        {
            let file = option_values(args, &["-F", "-I"], &["--file"])
                .last()
                .copied()
                .filter(|f| *f != "-")
                .or(reads);
            let dest = option_values(args, &["-D"], &["--directory"])
                .last()
                .copied()
                .unwrap_or(".");
            Some((file, dest))
        }
        // `uudecode F`, `uudecode < F`: the file it writes is named in F's `begin` line
        // (`-o OUT` names it instead, judged as a written file).
        "uudecode" if option_values(args, &["-o"], &["--output-file"]).is_empty() => {
            let file = super::finding::operands(args).first().copied().or(reads);
            Some((file, "."))
        }
        // Front ends that unpack any archive into the current folder: `atool -x`,
        // `dtrx`, `patool extract`, `ark -b`, `file-roller -h`, `p7zip -d`.
        "atool" | "dtrx" | "patool" | "ark" | "file-roller" | "p7zip" | "unp" | "xtract" => {
            let extracts = match command.name() {
                "atool" => has_flag(args, "xX", &["extract"]),
                "patool" => args.first().is_some_and(|a| a == "extract"),
                "ark" => has_flag(args, "b", &["batch"]),
                "file-roller" => has_flag(args, "he", &["extract-here", "extract-to"]),
                "p7zip" => has_flag(args, "d", &["decompress"]),
                _ => true,
            };
            let ops = super::finding::operands(args);
            let archive = ops
                .iter()
                .copied()
                .find(|o| *o != "extract" && !o.starts_with('-'))?;
            extracts.then_some((Some(archive), "."))
        }
        // `cmake -E tar xf a.tar`: tar's own letters.
        "cmake"
            if args.first().is_some_and(|a| a == "-E")
                && args.get(1).is_some_and(|a| a == "tar") =>
        {
            let letters = args.get(2).map_or("", String::as_str);
            (letters.contains('x') && letters.contains('f'))
                .then(|| args.get(3).map(|a| (Some(a.as_str()), ".")))
                .flatten()
        }
        // `dpkg-deb -x pkg.deb dir`, `cabextract -d dir x.cab`, `unsquashfs -f -d dir
        // x.sqsh`: contents nagger does not list.
        "dpkg-deb" | "dpkg"
            if has_flag(
                args,
                if command.name() == "dpkg" {
                    "xX"
                } else {
                    "xXR"
                },
                &["extract", "vextract", "raw-extract"],
            ) =>
        {
            let ops = super::finding::operands(args);
            Some((ops.first().copied(), ops.get(1).copied().unwrap_or(".")))
        }
        "cabextract" | "unsquashfs" | "sqfs2tar" => {
            let dest = option_values(args, &["-d"], &["directory", "dest"])
                .last()
                .copied();
            let ops = super::finding::operands(args);
            let archive = ops.last().copied()?;
            match (command.name(), dest) {
                ("cabextract", dest) => Some((Some(archive), dest.unwrap_or("."))),
                // unsquashfs makes a fresh `squashfs-root` unless told where.
                (_, Some(dest)) => Some((Some(archive), dest)),
                _ => None,
            }
        }
        // gpg's tar, whose members nagger does not list (they may be encrypted).
        "gpgtar" | "gpg-zip"
            if has_flag(args, "xd", &["extract", "decrypt"])
                && !has_flag(args, "t", &["list-archive"]) =>
        {
            let dest = option_values(args, &["-C"], &["--directory"])
                .last()
                .copied()
                .unwrap_or(".");
            Some((None, dest))
        }
        // `jar xf x.jar`, `ar x lib.a`: letters bundled, the archive next.
        "jar" | "ar" => {
            // ar's long options (`--target=bfd`, `--plugin p`) stand before its key.
            let mut k = 0;
            while command.name() == "ar"
                && let Some(a) = args.get(k).filter(|a| a.starts_with("--"))
            {
                k += if a.contains('=') || a == "--" { 1 } else { 2 };
            }
            let args = &args[k.min(args.len())..];
            let first = args.first().map_or("", String::as_str);
            // Options read from a file (`ar @opts`): the key is not known.
            if command.name() == "ar" && first.starts_with('@') {
                return Some((None, "."));
            }
            let letters = first.trim_start_matches('-');
            if !letters.contains('x') {
                return None;
            }
            let archive = if name_takes_file(command.name(), letters) {
                // ar's long options may follow its key too (`ar xP --plugin p x.a`).
                let mut k = 1;
                while command.name() == "ar"
                    && let Some(a) = args.get(k).filter(|a| a.starts_with("--"))
                {
                    k += if a.contains('=') || a == "--" { 1 } else { 2 };
                }
                args.get(k).map(String::as_str)
            } else {
                reads
            };
            Some((archive, "."))
        }
        "pax" if has_flag(args, "r", &[]) && !has_flag(args, "w", &[]) => {
            let file = option_values(args, &["-f"], &[]).last().copied().or(reads);
            Some((file, "."))
        }
        "unar" | "lsar" | "aunpack" | "bsdunzip" | "ditto" | "unrar" | "lha" | "arj" => {
            // Extractors whose members nagger lists only as a zip or tar: the archive is
            // the first operand past a subcommand letter.
            if command.name() == "lsar" || (command.name() == "ditto" && !has_flag(args, "x", &[]))
            {
                return None;
            }
            let ops = super::finding::operands(args);
            let skip = usize::from(matches!(command.name(), "unrar" | "lha" | "arj"));
            let archive = ops.get(skip).copied()?;
            let dest = option_values(args, &["-o", "-X", "-d"], &[])
                .last()
                .copied()
                .unwrap_or(".");
            Some((Some(archive), dest))
        }
        // `python3 -m zipfile -e x.zip dest`, `python3 -m tarfile -e x.tgz [dest]`.
        name if shell::is_interpreter(name) && name.starts_with("python") => {
            let at = args.windows(2).position(|w| {
                w[0] == "-m" && matches!(w[1].as_str(), "zipfile" | "tarfile" | "shutil")
            })?;
            let rest = &args[at + 2..];
            let flag = rest.iter().position(|a| a == "-e" || a == "--extract")?;
            let ops: Vec<&str> = rest[flag + 1..]
                .iter()
                .filter(|a| !a.starts_with('-'))
                .map(String::as_str)
                .collect();
            let archive = ops.first().copied()?;
            Some((Some(archive), ops.get(1).copied().unwrap_or(".")))
        }
        _ => None,
    }
}

/// Whether `jar` or `ar` with the bundled `letters` takes the archive as its next word:
/// `ar` always, `jar` with `f`.
fn name_takes_file(program: &str, letters: &str) -> bool {
    program == "ar" || letters.contains('f')
}

/// Where a resolved path lies on disk: from the project root when relative.
/// The absolute path `path` (relative to the project root, absolute, or under the home
/// as `~/…`, which may climb out of it) names, resolved lexically.
pub(super) fn absolute_in(scope: &Scope, path: &str) -> String {
    let full = on_disk(scope, path).unwrap_or_else(|| scope.root.join(path));
    normalize(&full.to_string_lossy())
}

pub(super) fn on_disk(scope: &Scope, path: &str) -> Option<PathBuf> {
    let filled;
    let path = if path.contains('$') && !path.contains('`') {
        // `tar -xf - -C $TMPDIR`: a variable of the environment the hook shares with the
        // agent's shell, which the line leaves alone, holds what it holds there.
        // One the line gives one known value (`d=$(mktemp -d)`, `X=/tmp/x`) holds that.
        let given = crate::base::text::replace_dollar(path, |after| {
            let (name, len) = super::paths::reference_after_dollar(after)?;
            let parsed = scope.line?;
            let mut sets = parsed.assignments.iter().filter(|a| a.name == name);
            let only = sets.next()?;
            if sets.next().is_some() || only.each || only.array || only.nameref || only.append {
                return None;
            }
            let value = only.value.as_ref()?;
            (!value.contains(['$', '`'])).then(|| (len, value.clone()))
        });
        filled = super::paths::environment_filled(&given, |name| {
            matches!(name, "PWD" | "OLDPWD") || line_names(scope, name)
        });
        filled.as_str()
    } else {
        path
    };
    if path.contains(['$', '`']) {
        return None;
    }
    match path.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            Some(PathBuf::from(std::env::var_os("HOME")?).join(rest.trim_start_matches('/')))
        }
        Some(_) => None,
        None => Some(scope.root.join(path)),
    }
}

/// Whether the line may give the variable `name` a value: assigned (`X=…`, `export
/// X=…`), or named as a word of any command (`read X`, `declare X`, `for X in`,
/// `printf -v X`, `unset X`).
fn line_names(scope: &Scope, name: &str) -> bool {
    let Some(parsed) = scope.line else {
        return true;
    };
    parsed.assignments.iter().any(|a| a.name == name)
        || parsed.commands.iter().any(|c| {
            c.argv
                .iter()
                .chain(c.env.iter())
                .chain(c.prefixed.iter().flatten())
                .any(|w| {
                    w == name
                        || w.strip_prefix(name).is_some_and(|rest| {
                            rest.starts_with('=') || rest.starts_with("+=") || rest.starts_with('[')
                        })
                })
        })
}

/// Code of `program` that names a protected path.
pub(super) fn named_finding(program: &str) -> Finding {
    finding(&format!(
        "opens nagger's own files in .claude-nagger, Claude Code's settings or the nagger \
         program with `{program}`"
    ))
}

/// Code a file tool writes into `path` that names nagger's files and does more than read
/// them: such code runs later, by whatever runs the project's files (a test runner's
/// `conftest.py`, a build script, a module that shadows another, a task file, an
/// environment file), where the guard no longer sees it. Asked about when written.
/// Prose (Markdown, text) only mentions; it is left alone.
pub(super) fn code_written(path: &str, texts: &[&str], binary: Option<&str>) -> Option<Finding> {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let extension = name.rsplit_once('.').map_or("", |(_, e)| e);
    // Prose, and lists of paths a tool leaves out (`.gitignore`, `.dockerignore`): no
    // program runs them.
    if matches!(
        extension,
        "md" | "markdown"
            | "mdx"
            | "txt"
            | "rst"
            | "adoc"
            | "org"
            | "rtf"
            | "tex"
            | "gitignore"
            | "dockerignore"
            | "npmignore"
            | "prettierignore"
            | "eslintignore"
            | "ignore"
            | "rgignore"
            | "fdignore"
    ) {
        return None;
    }
    let reader = match extension {
        "py" | "pyw" => "python3",
        "js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "jsx" | "tsx" => "node",
        "rb" => "ruby",
        "pl" | "pm" => "perl",
        "php" => "php",
        "lua" => "lua",
        "r" => "Rscript",
        _ => "",
    };
    let lang = code::Language::of(reader);
    texts
        .iter()
        .any(|t| named_in_code(t, binary) && (reader.is_empty() || !only_reads(lang, t)))
        .then(|| {
            Finding::ask(
                "guard:self-protect",
                format!(
                    "writes code into `{path}` that names nagger's own files in .claude-nagger, \
                     Claude Code's settings or the nagger program; it runs later, where nagger \
                     does not see it"
                ),
                "Leave nagger's files to the user, or ask the user to confirm this file.",
            )
        })
}

/// The first file with changes not committed among the `targets` (absolute; a folder's
/// tracked files all count; a basename pattern, when given, picks among a folder's
/// files), in the git repository holding the first of them: work that deleting them
/// loses for good. None when nothing tracked is changed, or no index can be read.
pub(super) fn uncommitted_among(targets: &[(String, Option<String>)]) -> Option<String> {
    uncommitted_files(targets, 1).into_iter().next()
}

/// Up to `limit` files with changes not committed among the `targets` (see
/// [`uncommitted_among`]).
pub(super) fn uncommitted_files(targets: &[(String, Option<String>)], limit: usize) -> Vec<String> {
    uncommitted_inner(targets, limit).unwrap_or_default()
}

fn uncommitted_inner(targets: &[(String, Option<String>)], limit: usize) -> Option<Vec<String>> {
    let (first, _) = targets.first()?;
    let first = Path::new(first);
    let dir = if first.is_dir() {
        first
    } else {
        first.parent()?
    };
    let at = gittree::Where {
        dir: dir.to_path_buf(),
        ..gittree::Where::default()
    };
    let repo = gittree::find(&at)?;
    let mut wanted = Vec::new();
    let mut patterns: Vec<(String, String)> = Vec::new();
    for (full, pattern) in targets.iter().take(32) {
        let Ok(rel) = Path::new(full).strip_prefix(&repo.top) else {
            continue;
        };
        let Some(rel) = rel.to_str() else { continue };
        let folder = rel.is_empty() || Path::new(full).is_dir();
        let rel = if folder && !rel.is_empty() {
            format!("{rel}/")
        } else {
            rel.to_owned()
        };
        if let Some(p) = pattern {
            patterns.push((rel.clone(), p.clone()));
        }
        wanted.push(rel);
    }
    if wanted.is_empty() {
        return None;
    }
    let keep = |path: &str| {
        patterns.iter().all(|(folder, pattern)| {
            !path.starts_with(folder.as_str())
                || super::paths::wildcard(pattern, path.rsplit('/').next().unwrap_or(path))
        })
    };
    gittree::changed_files(&repo.index, &repo.top, &wanted, &keep, limit).ok()
}

/// Whether the file at `full` is tracked by the git repository it is in and unchanged
/// since it was staged (by its stat data, else by its content), as `git status` tells.
pub(super) fn unchanged_in_git(full: &Path) -> bool {
    let Some(dir) = full.parent() else {
        return false;
    };
    let at = gittree::Where {
        dir: dir.to_path_buf(),
        ..gittree::Where::default()
    };
    let Some(repo) = gittree::find(&at) else {
        return false;
    };
    let Ok(rel) = full.strip_prefix(&repo.top) else {
        return false;
    };
    // `legacy/./mvnw` is `legacy/mvnw` in git's index.
    let rel: std::path::PathBuf = rel.components().collect();
    let Some(rel) = rel.to_str() else {
        return false;
    };
    gittree::unchanged(&repo.index, &repo.top, rel)
}

pub(super) fn finding(harm: &str) -> Finding {
    Finding::deny(
        "guard:self-protect",
        harm.to_owned(),
        "They hold the rules nagger enforces: the user changes them outside Claude Code, \
         or exempts a pattern in `[guard] allow`. Read them with `cat` or `nagger check`.",
    )
}

mod archives;
mod composed;
mod containers;
mod find;
mod follow;
mod gitobjects;
mod gittree;
mod globs;
mod installs;
mod linked_names;
mod links;
mod modes;
mod outputs;
mod patches;
mod replaced;

#[cfg(test)]
mod tests;
