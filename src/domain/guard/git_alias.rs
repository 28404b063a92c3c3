//! git aliases, read where git reads them: `git x` with `x` no command of git's own runs
//! what `alias.x` says in the repository's configuration, the user's, or a file either
//! includes (`include.path`, `includeIf.*.path`). An alias starting with `!` is a shell
//! line; any other is a git command line. Files are read bounded and never waited on.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::protect::Cwd;
use super::shell::{SimpleCommand, shell_quote};
use crate::base::files::open_regular;

/// Most bytes read of one configuration file.
const MAX_CONFIG: u64 = 64 * 1024;
/// Most configuration files read for one command (includes of includes too).
const MAX_FILES: usize = 8;

/// git's own commands: an alias of the same name is never used.
const BUILTINS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bugreport",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "citool",
    "clean",
    "clone",
    "column",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "daemon",
    "describe",
    "diagnose",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "fmt-merge-msg",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "fsck",
    "gc",
    "get-tar-commit-id",
    "grep",
    "gui",
    "hash-object",
    "help",
    "hook",
    "index-pack",
    "init",
    "instaweb",
    "interpret-trailers",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-index",
    "merge-tree",
    "mergetool",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "pack-objects",
    "pack-refs",
    "patch-id",
    "prune",
    "prune-packed",
    "pull",
    "push",
    "range-diff",
    "read-tree",
    "rebase",
    "reflog",
    "remote",
    "repack",
    "replace",
    "replay",
    "request-pull",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "scalar",
    "send-email",
    "shortlog",
    "show",
    "show-branch",
    "show-index",
    "show-ref",
    "sparse-checkout",
    "stage",
    "stash",
    "status",
    "stripspace",
    "submodule",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-file",
    "unpack-objects",
    "update-index",
    "update-ref",
    "update-server-info",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "whatchanged",
    "worktree",
    "write-tree",
];

/// The shell line `git x …` runs through an alias, with the alias's name; `None` when `x`
/// is git's own command or no alias. `cwd`: where the line runs; `root`: the project.
pub(super) fn expanded(
    command: &SimpleCommand,
    cwd: &Cwd,
    root: &Path,
) -> Option<(String, String)> {
    if command.name() != "git" {
        return None;
    }
    let args = command.args();
    let mut k = 0;
    let mut dir: Option<&str> = None;
    while let Some(a) = args.get(k) {
        match a.as_str() {
            "-C" => {
                dir = args.get(k + 1).map(String::as_str);
                k += 2;
            }
            "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env" | "--exec-path" => {
                k += 2;
            }
            a if a.starts_with('-') => k += 1,
            _ => break,
        }
    }
    let sub = args.get(k)?;
    if BUILTINS.contains(&sub.as_str()) || sub.contains(['$', '`', '/']) || sub.len() > 64 {
        return None;
    }
    let here = match cwd {
        Cwd::Known(d) if d.starts_with('/') => PathBuf::from(d),
        Cwd::Known(d) => root.join(d),
        Cwd::Unknown => root.to_path_buf(),
    };
    let here = match dir {
        Some(d) if d.starts_with('/') => PathBuf::from(d),
        Some(d) => here.join(d),
        None => here,
    };
    let value = alias(&here, sub)?;
    let rest: Vec<String> = args[k + 1..].iter().map(|a| shell_quote(a)).collect();
    let script = match value.strip_prefix('!') {
        Some(shell) => format!("{shell} {}", rest.join(" ")),
        None => format!("git {value} {}", rest.join(" ")),
    };
    Some((script, sub.clone()))
}

/// The value of `alias.<name>` as git would find it from the folder `here`.
fn alias(here: &Path, name: &str) -> Option<String> {
    let mut queue: Vec<PathBuf> = Vec::new();
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        queue.push(home.join(".gitconfig"));
        queue.push(home.join(".config/git/config"));
    }
    if let Some(git_dir) = git_dir(here) {
        queue.push(git_dir.join("config"));
    }
    let mut found = None;
    let mut read = 0;
    let mut k = 0;
    while k < queue.len() && read < MAX_FILES {
        let file = queue[k].clone();
        k += 1;
        let Some(text) = read_bounded(&file) else {
            continue;
        };
        read += 1;
        let base = file.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut section = String::new();
        for line in text.lines() {
            let line = line.trim();
            if let Some(header) = line.strip_prefix('[') {
                section = header
                    .split(']')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase();
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let (key, value) = (
                key.trim().to_ascii_lowercase(),
                value.trim().trim_matches('"'),
            );
            if section == "alias" && key == name.to_ascii_lowercase() {
                // The last one read wins, as in git.
                found = Some(value.to_owned());
            }
            if (section == "include" || section.starts_with("includeif")) && key == "path" {
                let path = match value.strip_prefix("~/") {
                    Some(rest) => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(rest)),
                    None => Some(base.join(value)),
                };
                queue.extend(path);
            }
        }
    }
    found
}

/// The git folder of the repository holding `here`: a `.git` folder, or the folder a
/// `.git` file points to.
fn git_dir(here: &Path) -> Option<PathBuf> {
    for dir in here.ancestors().take(64) {
        let dot = dir.join(".git");
        let Ok(meta) = std::fs::metadata(&dot) else {
            continue;
        };
        if meta.is_dir() {
            return Some(dot);
        }
        let text = read_bounded(&dot)?;
        let target = text
            .lines()
            .next()?
            .strip_prefix("gitdir:")?
            .trim()
            .to_owned();
        return Some(dir.join(target));
    }
    None
}

/// The text of a regular file, at most [`MAX_CONFIG`] bytes, opened without waiting.
fn read_bounded(path: &Path) -> Option<String> {
    let file = open_regular(path).ok()?;
    let mut text = String::new();
    file.take(MAX_CONFIG).read_to_string(&mut text).ok()?;
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::guard::shell;

    fn project(config: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join(".git")).expect("git dir");
        std::fs::write(dir.path().join(".git/config"), config).expect("config");
        dir
    }

    fn expand(root: &Path, line: &str) -> Option<String> {
        let parsed = shell::parse(line);
        expanded(&parsed.commands[0], &Cwd::Known(String::new()), root).map(|(s, _)| s)
    }

    #[test]
    fn aliases_are_read_from_the_repository_and_what_it_includes() {
        let p = project(
            "[alias]\n\tco = checkout\n\tx = !rm -rf .claude\n[include]\n\tpath = ../extra.cfg\n",
        );
        std::fs::write(
            p.path().join("extra.cfg"),
            "[alias]\n\twipe = \"!rm -rf .claude-nagger\"\n",
        )
        .expect("include");
        assert_eq!(
            expand(p.path(), "git x").as_deref(),
            Some("rm -rf .claude ")
        );
        assert_eq!(
            expand(p.path(), "git co main").as_deref(),
            Some("git checkout 'main'")
        );
        assert_eq!(
            expand(p.path(), "git wipe").as_deref(),
            Some("rm -rf .claude-nagger ")
        );
        assert_eq!(
            expand(p.path(), "git status"),
            None,
            "git's own commands win"
        );
        assert_eq!(expand(p.path(), "git nothing"), None);
    }
}
