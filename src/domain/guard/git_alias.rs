//! git aliases, read where git reads them: `git x` with `x` no command of git's own runs
//! what `alias.x` says in the repository's configuration, the user's, or a file either
//! includes (`include.path`, `includeIf.*.path`). An alias starting with `!` is a shell
//! line; any other is a git command line. Files are read bounded and never waited on.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::finding::Finding;
use super::git::Transport;
use super::protect::Cwd;
use super::shell::{self, Parsed, SimpleCommand, shell_quote};
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
        // git runs a shell alias from the top of the work tree.
        Some(shell) => match git_dir_and_top(&here) {
            Some((_, top)) if top != here => format!(
                "cd {} && {shell} {}",
                shell_quote(&top.to_string_lossy()),
                rest.join(" ")
            ),
            _ => format!("{shell} {}", rest.join(" ")),
        },
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
            if let Some(header) = section_header(line) {
                section = header;
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
    git_dir_and_top(here).map(|(git_dir, _)| git_dir)
}

/// [`git_dir`] with the top of the work tree it belongs to.
pub(super) fn git_dir_and_top(here: &Path) -> Option<(PathBuf, PathBuf)> {
    for dir in here.ancestors().take(64) {
        let dot = dir.join(".git");
        let Ok(meta) = std::fs::metadata(&dot) else {
            // A folder that is a git folder itself (`HEAD`, `objects`, `refs`): git takes
            // it as a bare repository, and its `config`.
            let is = |name: &str, folder: bool| {
                std::fs::symlink_metadata(dir.join(name))
                    .is_ok_and(|m| if folder { m.is_dir() } else { m.is_file() })
            };
            if is("HEAD", false) && is("objects", true) && is("refs", true) {
                let top = work_tree_of(dir).unwrap_or_else(|| dir.to_path_buf());
                return Some((dir.to_path_buf(), top));
            }
            continue;
        };
        if meta.is_dir() {
            let top = work_tree_of(&dot).unwrap_or_else(|| dir.to_path_buf());
            return Some((dot, top));
        }
        let text = read_bounded(&dot)?;
        let target = text
            .lines()
            .next()?
            .strip_prefix("gitdir:")?
            .trim()
            .to_owned();
        let git_dir = dir.join(target);
        let top = work_tree_of(&git_dir).unwrap_or_else(|| dir.to_path_buf());
        return Some((git_dir, top));
    }
    None
}

/// The work tree a git folder's own `config` names (`core.worktree`, relative to the git
/// folder): where git runs its aliases, filters and hooks from.
fn work_tree_of(git_dir: &Path) -> Option<PathBuf> {
    let text = read_bounded(&git_dir.join("config"))?;
    let mut section = String::new();
    let mut found = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(header) = section_header(line) {
            section = header;
            continue;
        }
        if section != "core" {
            continue;
        }
        if let Some((key, value)) = line.split_once('=')
            && key.trim().eq_ignore_ascii_case("worktree")
        {
            let value = value.trim().trim_matches('"');
            if !value.is_empty() {
                found = Some(git_dir.join(value));
            }
        }
    }
    // `a/b/../..` as the folder it names, without following links.
    found.map(|p| {
        let mut out = PathBuf::new();
        for part in p.components() {
            match part {
                std::path::Component::ParentDir => {
                    out.pop();
                }
                std::path::Component::CurDir => {}
                other => out.push(other),
            }
        }
        out
    })
}

/// The text of a regular file, at most [`MAX_CONFIG`] bytes, opened without waiting.
pub(super) fn read_bounded(path: &Path) -> Option<String> {
    let file = open_regular(path).ok()?;
    let mut text = String::new();
    file.take(MAX_CONFIG).read_to_string(&mut text).ok()?;
    Some(text)
}

/// The environment one git command runs with, as far as the line shows: variables set
/// for it alone (`X=1 git …`, `env X=1 git …`) over those the line set before it. `None`
/// for a value only known when the shell runs.
fn environment(parsed: &Parsed, index: usize) -> Vec<(String, Option<String>)> {
    let command = &parsed.commands[index];
    let mut env: Vec<(String, Option<String>)> = parsed
        .assignments
        .iter()
        .filter(|a| a.at <= index && !a.each)
        .map(|a| (a.name.clone(), a.value.clone()))
        .collect();
    for word in command.env.iter().chain(command.prefixed.iter().flatten()) {
        if let Some((name, value)) = word.split_once('=')
            && !name.is_empty()
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            let known = !value.contains(['$', '`']);
            env.push((name.to_owned(), known.then(|| value.to_owned())));
        }
    }
    env
}

/// Whether `dir` is a folder of an installed git's programs (`/usr/lib/git-core`,
/// `/usr/libexec/git-core`): absolute, named so, in none of the folders an agent writes.
fn git_installation(dir: &str, root: &Path) -> bool {
    let dir = Path::new(dir);
    let home = crate::base::paths::home_dir();
    dir.is_absolute()
        && !dir.components().any(|c| c.as_os_str() == "..")
        && dir.file_name().is_some_and(|n| n == "git-core")
        && !dir.starts_with(root)
        && !home.is_some_and(|h| dir.starts_with(h))
        && !dir.starts_with(std::env::temp_dir())
        && ["/usr/", "/opt/", "/nix/store/"]
            .iter()
            .any(|p| dir.to_string_lossy().starts_with(p))
}

/// Most `GIT_CONFIG_KEY_<n>` pairs read.
const MAX_PAIRS: usize = 64;

/// A setting git is handed for one command, its value `None` when only known as the
/// shell runs, with how it was given.
struct Setting {
    key: String,
    value: Option<String>,
    how: String,
}

/// The settings `git <args>` takes from its command line and environment: `-c key=value`,
/// `--config-env=key=VAR`, `GIT_CONFIG_COUNT` with `GIT_CONFIG_KEY_<n>` and
/// `GIT_CONFIG_VALUE_<n>`, `GIT_CONFIG_PARAMETERS`; and those `git config key value`
/// writes.
fn settings(args: &[String], env: &[(String, Option<String>)]) -> (Vec<Setting>, usize) {
    let var = |name: &str| {
        env.iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let mut out = Vec::new();
    if let Some(count) = var("GIT_CONFIG_COUNT") {
        let count = count.and_then(|c| c.trim().parse::<usize>().ok());
        let known = count.unwrap_or(MAX_PAIRS).min(MAX_PAIRS);
        for n in 0..known {
            let Some(key) = var(&format!("GIT_CONFIG_KEY_{n}")) else {
                continue;
            };
            let value = var(&format!("GIT_CONFIG_VALUE_{n}")).flatten();
            match key {
                Some(key) => out.push(Setting {
                    key,
                    value,
                    how: format!("GIT_CONFIG_KEY_{n}"),
                }),
                None => out.push(Setting {
                    key: "core.fsmonitor".into(),
                    value: None,
                    how: format!("GIT_CONFIG_KEY_{n}, only known when the shell runs"),
                }),
            }
        }
    }
    if let Some(params) = var("GIT_CONFIG_PARAMETERS") {
        match params {
            Some(params) => {
                // `'key'='value'` (or the older `'key=value'`), one pair a quoted word.
                let parts: Vec<&str> = params.split('\'').collect();
                for (n, part) in parts.iter().enumerate() {
                    let pair = if *part == "=" && n % 2 == 0 {
                        parts
                            .get(n.wrapping_sub(1))
                            .zip(parts.get(n + 1))
                            .map(|(k, v)| (*k, *v))
                    } else if n % 2 == 1
                        && parts.get(n + 1) != Some(&"=")
                        && parts.get(n.wrapping_sub(1)) != Some(&"=")
                    {
                        part.split_once('=')
                    } else {
                        None
                    };
                    if let Some((key, value)) = pair {
                        out.push(Setting {
                            key: key.to_owned(),
                            value: Some(value.to_owned()),
                            how: "GIT_CONFIG_PARAMETERS".into(),
                        });
                    }
                }
            }
            None => out.push(Setting {
                key: "core.fsmonitor".into(),
                value: None,
                how: "GIT_CONFIG_PARAMETERS, only known when the shell runs".into(),
            }),
        }
    }
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        if !arg.starts_with('-') {
            break;
        }
        if arg == "-c"
            && let Some((key, value)) = args.get(k + 1).and_then(|kv| kv.split_once('='))
        {
            out.push(Setting {
                key: key.to_owned(),
                value: Some(value.to_owned()),
                how: format!("git -c {key}"),
            });
        }
        let pair = if arg == "--config-env" {
            args.get(k + 1).map(String::as_str)
        } else {
            arg.strip_prefix("--config-env=")
        };
        if let Some((key, name)) = pair.and_then(|p| p.rsplit_once('=')) {
            out.push(Setting {
                key: key.to_owned(),
                value: var(name).flatten(),
                how: format!("git --config-env={key}=${name}"),
            });
        }
        k += if matches!(
            arg.as_str(),
            "-C" | "-c"
                | "--git-dir"
                | "--work-tree"
                | "--namespace"
                | "--config-env"
                | "--super-prefix"
        ) {
            2
        } else {
            1
        };
    }
    // An option that wants a value may end the words (`git -c`): git stops there.
    (out, k.min(args.len()))
}

/// Whether `key` makes git read another configuration file: `include.path`,
/// `includeIf.<condition>.path`.
pub(super) fn includes(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key == "include.path"
        || (key.starts_with("includeif.") && key.rsplit('.').next() == Some("path"))
}

/// `key = value` as git configuration text, for [`shell::git_config_runs`].
pub(super) fn as_text(key: &str, value: &str) -> String {
    let (section, name) = key.rsplit_once('.').unwrap_or(("core", key));
    let text = match section.split_once('.') {
        Some((head, sub)) => format!("[{head} \"{sub}\"]"),
        None => format!("[{section}]"),
    };
    format!("{text}\n\t{name} = {value}\n")
}

/// Commands git runs by configuration one command gives it in ways other than `-c
/// key=value` and `git config key value` (which the command line shows): variables of
/// the environment (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`, `GIT_CONFIG_PARAMETERS`,
/// `--config-env`), files it is told to read (`include.path`, `includeIf.*.path`,
/// `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG`, the configuration of a
/// repository named by `--git-dir`/`GIT_DIR`), and URLs that run a command
/// (`ext::cmd`) or talk to an open file (`fd::N`). Each command line with how it is
/// reached, and findings about what cannot be read.
pub(super) fn config_runs(
    parsed: &Parsed,
    index: usize,
    cwd: &Cwd,
    root: &Path,
) -> (Vec<(String, String)>, Vec<Finding>) {
    let command = &parsed.commands[index];
    let mut scripts = Vec::new();
    let mut asks = Vec::new();
    if command.name() != "git" {
        return (scripts, asks);
    }
    let args = command.args();
    let env = environment(parsed, index);
    let (settings, at) = settings(args, &env);
    let here = match cwd {
        Cwd::Known(d) if d.starts_with('/') => PathBuf::from(d),
        Cwd::Known(d) => root.join(d),
        Cwd::Unknown => root.to_path_buf(),
    };
    let mut here = here;
    let mut git_dir_given: Option<String> = None;
    let mut k = 0;
    while k < at {
        let next = args.get(k + 1).cloned();
        match args[k].as_str() {
            "-C" => {
                if let Some(d) = &next {
                    here = here.join(d);
                }
                k += 1;
            }
            "--git-dir" => {
                git_dir_given = next;
                k += 1;
            }
            a => {
                if let Some(d) = a.strip_prefix("--git-dir=") {
                    git_dir_given = Some(d.to_owned());
                }
            }
        }
        k += 1;
    }
    let unknown = |what: &str| {
        Finding::ask(
            "guard:git-config-unknown",
            format!("hands git configuration {what}, which may make it run any command"),
            "Spell the setting out with `git -c key=value`, or run it yourself in your terminal.",
        )
    };
    // Files to judge: the path, how it was named, and the folder relative paths start from.
    let mut files: Vec<(String, String, PathBuf)> = Vec::new();
    for s in &settings {
        match &s.value {
            Some(value) if includes(&s.key) => {
                files.push((value.clone(), s.how.clone(), here.clone()));
            }
            Some(value) => {
                for script in shell::git_config_runs(&as_text(&s.key, value)) {
                    scripts.push((script, format!("`{}`, a command git runs", s.how)));
                }
            }
            None if includes(&s.key)
                || !shell::git_config_runs(&as_text(&s.key, "x")).is_empty() =>
            {
                asks.push(unknown(&format!(
                    "only known when the shell runs (`{}`)",
                    s.how
                )));
            }
            None => {}
        }
    }
    for name in [
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG",
        "XDG_CONFIG_HOME",
    ] {
        if let Some((_, value)) = env.iter().rev().find(|(n, _)| n == name) {
            match value {
                // git reads `$XDG_CONFIG_HOME/git/config` as the user's configuration.
                Some(v) if name == "XDG_CONFIG_HOME" => files.push((
                    format!("{}/git/config", v.trim_end_matches('/')),
                    name.to_owned(),
                    here.clone(),
                )),
                Some(v) => files.push((v.clone(), name.to_owned(), here.clone())),
                None => asks.push(unknown(&format!(
                    "from `{name}`, only known when the shell runs"
                ))),
            }
        }
    }
    let sub = args.get(at).map(String::as_str);
    // `GIT_TEMPLATE_DIR`, like `--template`: `git init` and `git clone` copy its hooks in,
    // and `clone` runs `post-checkout` at once.
    // `git submodule add`/`update` clone too.
    if matches!(sub, Some("clone" | "init" | "submodule"))
        && let Some((_, value)) = env.iter().rev().find(|(n, _)| n == "GIT_TEMPLATE_DIR")
    {
        match value {
            Some(dir) if !dir.is_empty() => {
                let hooks = expand_home(dir.trim_end_matches('/'), &here).join("hooks");
                scripts.push((
                    shell_quote(&hooks.join("post-checkout").to_string_lossy()),
                    "`GIT_TEMPLATE_DIR`, whose hooks git copies in and runs".into(),
                ));
            }
            Some(_) => {}
            None => asks.push(unknown(
                "hooks from `GIT_TEMPLATE_DIR`, only known when the shell runs,",
            )),
        }
    }
    // `GIT_EXEC_PATH`, `--exec-path=DIR`: where git finds the programs of its commands that
    // are not built in, its transports (`git-remote-https`) and `git-NAME` subcommands.
    // A folder of git's own installation changes nothing; any other runs files nagger
    // does not follow.
    let exec_path = args[..at]
        .iter()
        .find_map(|a| a.strip_prefix("--exec-path=").map(|d| Some(d.to_owned())))
        .or_else(|| {
            env.iter()
                .rev()
                .find(|(n, _)| n == "GIT_EXEC_PATH")
                .map(|(_, v)| v.clone())
        });
    if let Some(dir) = exec_path
        && !dir.as_deref().is_some_and(|d| git_installation(d, root))
    {
        asks.push(Finding::ask(
            "guard:git-exec-path",
            format!(
                "tells git to find its own programs in `{}`, which may run any file there",
                dir.as_deref()
                    .unwrap_or("a folder only known when the shell runs")
            ),
            "Run git without `GIT_EXEC_PATH`/`--exec-path`, or run it yourself in your terminal.",
        ));
    }
    let named_dir = git_dir_given.or_else(|| {
        env.iter()
            .rev()
            .find(|(n, _)| n == "GIT_DIR")
            .map(|(_, v)| v.clone().unwrap_or_else(|| "$GIT_DIR".into()))
    });
    if let Some(dir) = named_dir {
        if dir.contains(['$', '`']) {
            asks.push(unknown("from a repository only known when the shell runs"));
        } else {
            let dir = expand_home(&dir, &here);
            if std::fs::metadata(&dir).is_ok_and(|m| m.is_dir()) {
                let config = dir.join("config");
                if std::fs::symlink_metadata(&config).is_ok() {
                    files.push((
                        config.to_string_lossy().into_owned(),
                        "--git-dir".into(),
                        here.clone(),
                    ));
                }
            }
        }
    }
    if sub == Some("config") {
        // `git config include.path FILE`: the file is read from then on.
        let rest = &args[at + 1..];
        let base = if rest.iter().any(|a| a == "--global") {
            std::env::var_os("HOME").map_or_else(|| here.clone(), PathBuf::from)
        } else if let Some(f) = rest
            .iter()
            .position(|a| a == "-f" || a == "--file")
            .and_then(|p| rest.get(p + 1))
        {
            let f = expand_home(f, &here);
            f.parent().map_or_else(|| here.clone(), Path::to_path_buf)
        } else {
            git_dir(&here).unwrap_or_else(|| here.join(".git"))
        };
        let words: Vec<&String> = rest
            .iter()
            .filter(|a| !a.starts_with('-'))
            .skip_while(|a| matches!(a.as_str(), "set" | "add"))
            .collect();
        if let [key, value, ..] = words.as_slice()
            && includes(key)
        {
            files.push(((*value).clone(), format!("git config {key}"), base));
        }
    }
    let mut read = 0;
    let mut queue = files;
    let mut k = 0;
    while k < queue.len() {
        let (name, how, base) = queue[k].clone();
        k += 1;
        if name == "/dev/null" {
            continue;
        }
        if name.contains(['$', '`']) {
            asks.push(unknown(&format!(
                "from `{name}`, only known when the shell runs"
            )));
            continue;
        }
        if read >= MAX_FILES {
            asks.push(unknown(&format!(
                "from more than {MAX_FILES} files (`{name}`), which nagger does not all read"
            )));
            break;
        }
        read += 1;
        let path = expand_home(&name, &base);
        let Some(text) = read_bounded(&path) else {
            asks.push(unknown(&format!(
                "from `{name}` ({how}), a file nagger cannot read"
            )));
            continue;
        };
        let via = format!("`{name}`, git configuration read by `{how}`");
        for script in shell::git_config_runs(&text) {
            scripts.push((script, via.clone()));
        }
        asks.extend(super::important::hooks_path_in(&text));
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut section = String::new();
        for line in text.lines().take(4096) {
            let line = line.trim();
            if let Some(header) = section_header(line) {
                section = header;
                continue;
            }
            if let Some((key, value)) = line.split_once('=')
                && key.trim().eq_ignore_ascii_case("path")
                && (section == "include" || section.starts_with("includeif"))
            {
                let value = value.trim().trim_matches('"').to_owned();
                queue.push((value, name.clone(), folder.clone()));
            }
        }
    }
    // URLs that run a command, given as operands or as settings.
    let urls = args
        .iter()
        .map(String::as_str)
        .chain(settings.iter().filter_map(|s| s.value.as_deref()));
    for url in urls {
        match super::git::transport_command(url) {
            Some(Transport::Runs(script)) => {
                scripts.push((script, format!("`{url}`, a git URL that runs a command")));
            }
            Some(Transport::OpenFile) => asks.push(Finding::ask(
                "guard:git-config-unknown",
                format!("hands git the URL `{url}`, which talks to a file the shell opened"),
                "Use a remote git can reach by itself, or run it yourself in your terminal.",
            )),
            None => {}
        }
    }
    (scripts, asks)
}

/// `~/x` in the user's home, a relative path under `base`.
pub(super) fn expand_home(path: &str, base: &Path) -> PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map_or_else(|| base.join(path), |h| PathBuf::from(h).join(rest)),
        None if path.starts_with('/') => PathBuf::from(path),
        None => base.join(path),
    }
}

/// The lower-cased section a git config line opens (`[include]`, `[includeIf "gitdir:…"]`),
/// if it opens one.
fn section_header(line: &str) -> Option<String> {
    let header = line.strip_prefix('[')?;
    Some(
        header
            .split(']')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase(),
    )
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

    /// What `line` makes git run by configuration, and whether it asks.
    fn config(root: &Path, line: &str) -> (Vec<String>, usize) {
        let parsed = shell::parse(line);
        let index = parsed
            .commands
            .iter()
            .position(|c| c.name() == "git")
            .expect("a git command");
        let (scripts, asks) = config_runs(&parsed, index, &Cwd::Known(String::new()), root);
        (scripts.into_iter().map(|(s, _)| s).collect(), asks.len())
    }

    #[test]
    fn configuration_from_the_environment_files_and_urls_is_read() {
        let p = project("[core]\n\tbare = false\n");
        std::fs::write(
            p.path().join("x.cfg"),
            "[core]\n\tfsmonitor = rm -rf .claude-nagger\n[include]\n\tpath = y.cfg\n",
        )
        .expect("x.cfg");
        std::fs::write(p.path().join("y.cfg"), "[alias]\n\tz = !touch y\n").expect("y.cfg");
        std::fs::write(p.path().join("ok.cfg"), "[user]\n\tname = x\n").expect("ok.cfg");
        let runs = |line: &str| config(p.path(), line).0;
        let wipe = "rm -rf .claude-nagger".to_owned();
        for line in [
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf .claude-nagger' git status",
            "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf .claude-nagger' git status",
            "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf .claude-nagger'; git status",
            "E='rm -rf .claude-nagger' git --config-env=core.fsmonitor=E status",
            "GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='rm -rf .claude-nagger'\" git status",
            "git -c include.path=x.cfg status",
            "GIT_CONFIG_GLOBAL=x.cfg git status",
            "GIT_CONFIG_SYSTEM=./x.cfg git log",
            "GIT_CONFIG=x.cfg git status",
            "git config include.path ../x.cfg",
            "git config --local includeIf.gitdir:/.path ../x.cfg",
        ] {
            assert!(runs(line).contains(&wipe), "{line}: {:?}", runs(line));
        }
        assert!(runs("git -c include.path=x.cfg status").contains(&"touch y".to_owned()));
        assert_eq!(
            runs("git -c protocol.ext.allow=always fetch 'ext::sh -c rm% -rf% .claude-nagger'"),
            vec!["'sh' '-c' 'rm -rf .claude-nagger'".to_owned()]
        );
        // Another repository's configuration, named by `--git-dir`.
        let other = project("[core]\n\tfsmonitor = rm -rf .claude-nagger\n");
        let line = format!("git --git-dir={}/.git status", other.path().display());
        assert!(runs(&line).contains(&wipe), "{line}");
        // What cannot be read or is only known when the shell runs is asked about.
        for line in [
            "git -c include.path=missing.cfg status",
            "GIT_CONFIG_GLOBAL=$F git status",
            "git --config-env=core.fsmonitor=UNSET status",
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=$P git log",
            "git fetch fd::3",
        ] {
            assert_eq!(config(p.path(), line).1, 1, "{line}");
        }
        for line in [
            "git -c color.ui=always log",
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=x git commit -m m",
            "git -c include.path=ok.cfg status",
            "GIT_CONFIG_GLOBAL=/dev/null git status",
            "git --config-env=user.name=NAME commit",
            "git config --get include.path",
            "git fetch origin",
        ] {
            assert_eq!(config(p.path(), line), (Vec::new(), 0), "{line}");
        }
    }
}
