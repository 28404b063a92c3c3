//! What a git command runs from the repository it works in: the hooks it fires (`git
//! commit` runs `.git/hooks/pre-commit`, `git push` runs `pre-push`, from the folder
//! `core.hooksPath` names when it is set) and the programs the configuration already on
//! disk hands it (`core.fsmonitor` at `git status`, `diff.external` at `git diff`, a
//! filter's `clean` at `git add`, `core.sshCommand` at `git push` …). A hook or setting put
//! there by an earlier call runs now, so what it holds is judged as what the command runs.
//! Files are read bounded and never waited on; a hook git would not run (not executable,
//! a `.sample`) is not read.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use super::super::git::GLOBAL_WITH_VALUE;
use super::super::git_alias::{expand_home, git_dir_and_top, read_bounded};
use super::super::protect::Cwd;
use super::super::shell::{self, SimpleCommand};
use super::files::{Content, Ran, View, read_named};
use super::later::judged_as_hook;

/// Most configuration files read for one command (includes of includes too).
const MAX_CONFIG_FILES: usize = 8;
/// Most configured commands judged for one command.
const MAX_CONFIGURED: usize = 32;

/// What `command` runs from the repository's hooks and configuration, pushed onto `out`.
pub(super) fn runs(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    if command.name() != "git" {
        return;
    }
    let args = command.args();
    let mut here = cwd.clone();
    let mut git_dir: Option<String> = None;
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        if !arg.starts_with('-') {
            break;
        }
        let value = args.get(k + 1).map(String::as_str);
        match (arg.as_str(), value) {
            ("-C", Some(dir)) => {
                here = super::super::paths::resolve(&here, dir).map_or(Cwd::Unknown, Cwd::Known);
            }
            ("--git-dir", Some(dir)) => git_dir = Some(dir.to_owned()),
            _ => {
                if let Some(dir) = arg.strip_prefix("--git-dir=") {
                    git_dir = Some(dir.to_owned());
                }
            }
        }
        k += if GLOBAL_WITH_VALUE.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    let Some(sub) = args.get(k).map(String::as_str) else {
        return;
    };
    let rest = &args[k + 1..];
    let hooks = hooks_fired(sub, rest);
    let uses = Uses::of(sub, rest);
    if hooks.is_empty() && uses.is_empty() {
        return;
    }
    let Some(here_full) = files.folder(&here) else {
        return;
    };
    let found = match &git_dir {
        Some(dir) if dir.contains(['$', '`']) => return,
        Some(dir) => files.full(&here, dir).map(|d| Repository::at(d, None)),
        None => Repository::find(&here_full),
    };
    let Some(repo) = found else {
        return;
    };
    // `XDG_CONFIG_HOME=D git …`: git reads `D/git/config` as the user's configuration.
    let xdg = command
        .env
        .iter()
        .chain(command.prefixed.iter().flatten())
        .find_map(|w| w.strip_prefix("XDG_CONFIG_HOME="))
        .map(str::to_owned)
        .or_else(|| std::env::var("XDG_CONFIG_HOME").ok())
        .map(|d| {
            ["$PWD/", "${PWD}/"]
                .iter()
                .find_map(|p| d.strip_prefix(p))
                .map_or(d.clone(), str::to_owned)
        })
        .filter(|d| !d.is_empty() && !d.contains(['$', '`']))
        .and_then(|d| files.full(&here, &d));
    let configured = configured(&repo, xdg.as_deref(), files);
    let mut judged = 0;
    for (key, script) in &configured {
        if judged >= MAX_CONFIGURED {
            break;
        }
        if uses.runs(key) {
            judged += 1;
            out.push(Ran::Script(
                script.clone(),
                format!("`{key}` in git's configuration, which `git {sub}` runs"),
                Some(Cwd::Known(repo.top.to_string_lossy().into_owned())),
            ));
        }
    }
    if hooks.is_empty() {
        return;
    }
    let hooks_dir = configured
        .iter()
        .rev()
        .find(|(key, _)| key == HOOKS_PATH_KEY)
        .map_or_else(
            || repo.common.join("hooks"),
            |(_, dir)| expand_home(dir, &repo.top),
        );
    for hook in hooks {
        let path = hooks_dir.join(hook);
        if !runnable(&path) {
            continue;
        }
        let shown = path.to_string_lossy().into_owned();
        let text = match files.read(&Cwd::Known(String::new()), &shown) {
            Content::Absent | Content::Binary => continue,
            other => read_named(other, &shown, out),
        };
        if let Some((text, via)) = text {
            let top = Cwd::Known(repo.top.to_string_lossy().into_owned());
            // What a hook in Python or Node loads, from beside it or its module path.
            if let Some(runner) = super::files::shebang(&text) {
                super::imports::follow(&text, &runner, Some(&shown), &top, files, out);
            }
            judged_as_hook(
                text,
                format!("{via}, the `{hook}` hook `git {sub}` runs"),
                &shown,
                Some(top),
                out,
            );
        }
    }
}

/// Not a command git runs: where it takes its hooks from, carried with the commands so
/// the last setting read wins.
const HOOKS_PATH_KEY: &str = "core.hookspath";

/// A repository as git finds it: its git folder, the folder shared by its worktrees
/// (hooks and configuration live there), and the top of its work tree.
struct Repository {
    common: PathBuf,
    own: PathBuf,
    top: PathBuf,
}

impl Repository {
    /// The repository holding `here`: a `.git` folder, or the folder a `.git` file points
    /// to (a worktree, a submodule).
    fn find(here: &Path) -> Option<Repository> {
        let (own, top) = git_dir_and_top(here)?;
        Some(Repository::at(own, Some(top)))
    }

    /// The repository whose git folder is `own`.
    fn at(own: PathBuf, top: Option<PathBuf>) -> Repository {
        let common = read_bounded(&own.join("commondir"))
            .map_or_else(|| own.clone(), |c| own.join(c.trim()));
        let top =
            top.unwrap_or_else(|| own.parent().map_or_else(|| own.clone(), Path::to_path_buf));
        Repository { common, own, top }
    }
}

/// The commands git's configuration names, as `(key, command line)` in the order git
/// reads them: the user's files, then the repository's (and a worktree's own), each
/// followed by what it includes. `core.hooksPath` comes along under its own key.
fn configured(repo: &Repository, xdg: Option<&Path>, files: &View) -> Vec<(String, String)> {
    let mut queue: Vec<PathBuf> = Vec::new();
    if let Some(xdg) = xdg {
        queue.push(xdg.join("git/config"));
    }
    if let Some(home) = crate::base::paths::home_dir() {
        queue.push(home.join(".gitconfig"));
        queue.push(home.join(".config/git/config"));
    }
    queue.push(repo.common.join("config"));
    // A worktree's own settings (`extensions.worktreeConfig`), the main one's too.
    queue.push(repo.own.join("config.worktree"));
    let mut out = Vec::new();
    let mut k = 0;
    let mut read = 0;
    while k < queue.len() && read < MAX_CONFIG_FILES {
        let file = queue[k].clone();
        k += 1;
        let shown = file.to_string_lossy().into_owned();
        let Content::Text { text, .. } = files.read(&Cwd::Known(String::new()), &shown) else {
            continue;
        };
        read += 1;
        let base = file.parent().map(Path::to_path_buf).unwrap_or_default();
        out.extend(shell::git_config_commands(&text));
        for (key, value) in settings(&text) {
            if key == HOOKS_PATH_KEY {
                out.push((key, value));
            } else if key.rsplit('.').next() == Some("path")
                && (key.starts_with("include.") || key.starts_with("includeif."))
            {
                queue.push(expand_home(&value, &base));
            }
        }
    }
    out
}

/// `(section.key, value)` of each setting of a configuration text, keys in lower case
/// (a subsection's name kept as written).
fn settings(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut section = String::new();
    for line in text.lines().take(4096) {
        let line = line.trim();
        if line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split(']').next().unwrap_or("").trim();
            section = match header.split_once(char::is_whitespace) {
                Some((name, sub)) => format!("{}.{}", name, sub.trim().trim_matches('"')),
                None => header.to_owned(),
            }
            .to_ascii_lowercase();
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            out.push((
                format!("{section}.{}", key.trim()).to_ascii_lowercase(),
                value.trim().trim_matches('"').to_owned(),
            ));
        }
    }
    out
}

/// Whether git runs the hook at `path`: a regular file (or a link to one) that may be
/// executed.
fn runnable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The hooks `git <sub> <rest>` may fire. Any command that moves a ref or writes the
/// index may fire `reference-transaction` and `post-index-change`.
fn hooks_fired(sub: &str, rest: &[String]) -> Vec<&'static str> {
    const REFS_AND_INDEX: [&str; 2] = ["reference-transaction", "post-index-change"];
    const COMMIT: [&str; 6] = [
        "pre-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
        "post-rewrite",
        "pre-auto-gc",
    ];
    let mut hooks: Vec<&'static str> = match sub {
        "commit" => COMMIT.to_vec(),
        "merge" | "pull" => {
            let mut h = vec![
                "pre-merge-commit",
                "prepare-commit-msg",
                "commit-msg",
                "post-merge",
                "post-checkout",
                "pre-rebase",
                "post-rewrite",
                "pre-auto-gc",
            ];
            h.extend(COMMIT);
            h
        }
        "checkout" | "switch" | "clone" => vec!["post-checkout"],
        "worktree" => vec!["post-checkout"],
        "rebase" => {
            let mut h = vec!["pre-rebase", "post-checkout"];
            h.extend(COMMIT);
            h
        }
        "cherry-pick" | "revert" | "commit-tree" => COMMIT.to_vec(),
        "am" => {
            let mut h = vec!["applypatch-msg", "pre-applypatch", "post-applypatch"];
            h.extend(COMMIT);
            h
        }
        "push" => vec!["pre-push"],
        "gc" | "maintenance" => vec!["pre-auto-gc"],
        "send-email" => vec!["sendemail-validate"],
        "p4" => vec![
            "p4-changelist",
            "p4-prepare-changelist",
            "p4-post-changelist",
            "p4-pre-submit",
        ],
        "hook" => {
            // `git hook run NAME`.
            return rest
                .iter()
                .filter(|a| !a.starts_with('-'))
                .nth(1)
                .and_then(|name| {
                    super::super::important::HOOK_NAMES
                        .iter()
                        .find(|h| **h == name.as_str())
                        .copied()
                })
                .into_iter()
                .collect();
        }
        _ if READ_ONLY.contains(&sub) => return Vec::new(),
        _ => Vec::new(),
    };
    hooks.extend(REFS_AND_INDEX);
    hooks
}

/// git's commands that change neither refs nor the index, and run no hook.
const READ_ONLY: &[&str] = &[
    "log",
    "show",
    "diff",
    "blame",
    "annotate",
    "grep",
    "ls-files",
    "ls-tree",
    "ls-remote",
    "rev-parse",
    "rev-list",
    "cat-file",
    "describe",
    "shortlog",
    "config",
    "help",
    "version",
    "whatchanged",
    "name-rev",
    "merge-base",
    "for-each-ref",
    "show-ref",
    "check-ignore",
    "check-attr",
    "var",
    "count-objects",
    "verify-commit",
    "verify-tag",
    "format-patch",
    "archive",
    "bundle",
    "difftool",
    "range-diff",
];

/// A kind of program git's configuration names, by when git runs it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    /// `core.fsmonitor`: commands that look at the work tree's state.
    Fsmonitor,
    /// Filters and diff drivers: commands that read or write files' contents.
    Contents,
    /// Pagers: commands that print at length.
    Pager,
    /// Editors: commands that may open one.
    Editor,
    /// Transports and credentials: commands that talk to a remote.
    Remote,
    /// Signing programs.
    Signing,
    /// Merge drivers.
    Merging,
}

/// The kinds of configured program a git command may run.
struct Uses(Vec<Use>);

/// git's commands that look at or change the work tree.
const WORK_TREE: &[&str] = &[
    "status",
    "diff",
    "add",
    "commit",
    "checkout",
    "switch",
    "restore",
    "reset",
    "stash",
    "merge",
    "pull",
    "rebase",
    "cherry-pick",
    "revert",
    "rm",
    "mv",
    "clean",
    "am",
    "apply",
    "worktree",
    "update-index",
    "describe",
];

impl Uses {
    fn of(sub: &str, rest: &[String]) -> Uses {
        let has = |words: &[&str]| rest.iter().any(|a| words.contains(&a.as_str()));
        let work_tree = WORK_TREE.contains(&sub);
        // `git log` shows no file's contents unless asked for patches; `git show` does
        // unless told not to.
        let patches = has(&["-p", "-u", "--patch", "--ext-diff", "--textconv"])
            || rest
                .iter()
                .any(|a| a.starts_with("-U") || a.starts_with("--unified"));
        let no_patch = has(&["-s", "--no-patch"]) && !patches;
        let contents = work_tree
            || matches!(sub, "log" | "whatchanged") && patches
            || sub == "show" && !no_patch
            || matches!(sub, "blame" | "grep" | "format-patch");
        let pager = matches!(
            sub,
            "log"
                | "show"
                | "diff"
                | "whatchanged"
                | "blame"
                | "grep"
                | "branch"
                | "tag"
                | "shortlog"
                | "reflog"
                | "stash"
                | "config"
                | "help"
        ) && !has(&["--no-pager"]);
        let quiet_message = has(&["-m", "-F", "--no-edit", "-C", "--fixup", "--file"])
            || rest.iter().any(|a| {
                a.starts_with("--message")
                    || a.starts_with("--file=")
                    || a.starts_with("-m") && a.len() > 2
            });
        let editor = match sub {
            "commit" | "merge" | "tag" | "notes" => !quiet_message,
            "rebase" => has(&["-i", "--interactive", "--edit-todo"]),
            "cherry-pick" | "revert" => !has(&["--no-edit"]),
            "add" => has(&["-e", "--edit", "-p", "--patch"]),
            "config" => has(&["-e", "--edit"]),
            _ => false,
        };
        let remote = matches!(
            sub,
            "fetch"
                | "pull"
                | "push"
                | "clone"
                | "ls-remote"
                | "remote"
                | "submodule"
                | "send-email"
                | "archive"
        );
        let signing = matches!(
            sub,
            "commit"
                | "tag"
                | "merge"
                | "pull"
                | "rebase"
                | "cherry-pick"
                | "revert"
                | "am"
                | "push"
                | "log"
                | "show"
                | "verify-commit"
                | "verify-tag"
        );
        let merging = matches!(
            sub,
            "merge" | "pull" | "rebase" | "cherry-pick" | "revert" | "stash" | "checkout" | "am"
        );
        let uses = [
            (work_tree, Use::Fsmonitor),
            (contents, Use::Contents),
            (pager, Use::Pager),
            (editor, Use::Editor),
            (remote, Use::Remote),
            (signing, Use::Signing),
            (merging, Use::Merging),
        ];
        Uses(
            uses.into_iter()
                .filter_map(|(used, kind)| used.then_some(kind))
                .collect(),
        )
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether the command may run what configuration key `key` names.
    fn runs(&self, key: &str) -> bool {
        let last = key.rsplit('.').next().unwrap_or(key);
        let kind =
            if key.starts_with("alias.") || key == HOOKS_PATH_KEY || key.starts_with("difftool.") {
                return false;
            } else if key == "core.fsmonitor" {
                Use::Fsmonitor
            } else if key.starts_with("filter.") || key.starts_with("diff.") {
                Use::Contents
            } else if key == "core.pager" || key.starts_with("pager.") {
                Use::Pager
            } else if matches!(key, "core.editor" | "sequence.editor") {
                Use::Editor
            } else if key.starts_with("gpg.") {
                Use::Signing
            } else if key.starts_with("merge.") || key.starts_with("mergetool.") {
                Use::Merging
            } else if matches!(key, "core.sshcommand" | "core.askpass" | "core.gitproxy")
                || key.starts_with("credential") && last == "helper"
            {
                Use::Remote
            } else {
                return !self.is_empty();
            };
        self.0.contains(&kind)
    }
}
