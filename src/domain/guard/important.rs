//! Files whose loss or change breaks the system, the user's shell or a repository, written
//! by any program: redirections (`> /dev/sda`, `> ~/.bashrc`, `> .git/HEAD`), copies onto
//! them (`cp /dev/null /etc/shadow`), `truncate`, `unlink`, `shred`, `tee`, `dd of=`, `ln
//! -sf`, in-place editors. Appending to a shell's startup file is asked about; overwriting
//! it is refused.

use super::finding::{Finding, operands};
use super::protect::{Cwd, home_form, resolve};
use super::shell::{self, SimpleCommand, has_flag, short_cluster};
use super::targets::{dangerous_target, is_raw_device, lexical};

/// Files of a home that a shell or git reads at every start: changing them changes what
/// every later command does.
const STARTUP_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
    ".mkshrc",
    ".config/fish/config.fish",
    ".config/fish/conf.d",
    ".config/fish/functions",
    ".bash_aliases",
    ".bashrc.d",
    ".zshrc.d",
    ".oh-my-zsh/custom",
    ".ssh/authorized_keys",
    ".ssh/authorized_keys2",
    ".ssh/config",
    ".ssh/known_hosts",
    ".gitconfig",
    ".config/git/config",
    ".inputrc",
    ".xinitrc",
    ".xprofile",
    ".pam_environment",
    ".config/environment.d",
    ".config/autostart",
    ".config/systemd/user",
];

/// git's own data in a repository's `.git`, which only git should write.
const GIT_DATA: &[&str] = &[
    "HEAD",
    "ORIG_HEAD",
    "config",
    "index",
    "packed-refs",
    "objects",
    "refs",
    "logs",
    "shallow",
    "modules",
];

/// What an important path is, when it is one.
enum Kind {
    Device,
    System(String),
    Startup(String),
    GitData(String),
}

fn kind(path: &str) -> Option<Kind> {
    let path = path.trim();
    if path.is_empty() || path.len() > 4096 {
        return None;
    }
    if is_raw_device(path) {
        return Some(Kind::Device);
    }
    let lexical = lexical(path);
    if lexical.starts_with('/')
        && !lexical.starts_with("/dev/")
        && let Some(what) = dangerous_target(&lexical, super::targets::Reach::Entry)
    {
        return Some(Kind::System(what));
    }
    let home_rest = home_form(&lexical).strip_prefix("~/").map(str::to_owned);
    if let Some(rest) = home_rest
        && STARTUP_FILES
            .iter()
            .any(|f| rest == *f || rest.starts_with(&format!("{f}/")))
    {
        return Some(Kind::Startup(format!("~/{rest}")));
    }
    let parts: Vec<&str> = lexical
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if let Some(k) = parts.iter().position(|p| *p == ".git")
        && let Some(inside) = parts.get(k + 1)
        && GIT_DATA.contains(inside)
    {
        return Some(Kind::GitData(parts[k..].join("/")));
    }
    None
}

/// Scripts a shell runs by itself later: start-up files, direnv's `.envrc` and git's
/// hooks. What is written into them is checked as a command line.
pub(super) fn runs_later(path: &str) -> bool {
    let lexical = lexical(path);
    let home = home_form(&lexical);
    let rest = home.strip_prefix("~/").unwrap_or("");
    let rc = [
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".bash_aliases",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".zlogout",
        ".kshrc",
        ".mkshrc",
        ".cshrc",
        ".tcshrc",
        ".config/fish/config.fish",
    ];
    // Folders whose every file a shell reads at its start.
    let rc_folders = [
        ".bashrc.d/",
        ".zshrc.d/",
        ".config/fish/conf.d/",
        ".config/fish/functions/",
        ".oh-my-zsh/custom/",
    ];
    // direnv's `.envrc`, run by the user's shell on entering its folder.
    let envrc = lexical.rsplit('/').next() == Some(".envrc");
    rc.contains(&rest)
        || rc_folders.iter().any(|f| rest.starts_with(f))
        || lexical.contains(".git/hooks/")
        || envrc
}

/// The names of git's hooks: a file with one of them, in a folder git may be told to
/// take its hooks from (`core.hooksPath`: `.husky/`, `.githooks/`, `hooks/`), runs by
/// itself at the next commit, checkout, merge or push.
pub(super) const HOOK_NAMES: &[&str] = &[
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
];

/// Whether `path` is named as a git hook, in whatever folder: what it holds is judged as
/// the script it may become.
pub(super) fn hook_file(path: &str) -> bool {
    let lexical = lexical(path);
    let name = lexical.rsplit('/').next().unwrap_or(&lexical);
    lexical.contains('/') && HOOK_NAMES.contains(&name)
}

/// The folder `core.hooksPath` is set to, when it moves git's hooks: not `.git/hooks`, and
/// not `/dev/null` (no hooks at all runs nothing).
fn moved_to(value: &str) -> Option<String> {
    let value = value.trim().trim_matches('"').trim_end_matches('/');
    (!(value.is_empty() || value.ends_with(".git/hooks") || value == "/dev/null"))
        .then(|| value.to_owned())
}

/// `core.hooksPath` moved: the hook files there run by themselves later, and nagger reads
/// none of them. Asked about.
pub(super) fn hooks_moved(value: &str) -> Option<Finding> {
    let value = moved_to(value)?;
    Some(Finding::ask(
        "guard:hooks-path",
        format!(
            "points git's hooks at `{value}`: the files there run by themselves at every \
             commit, checkout, merge and push, and nagger does not read them"
        ),
        "Set `core.hooksPath` yourself in your terminal once you have read the hooks.",
    ))
}

/// `hooksPath = x` in git configuration text (under `[core]`, or a fragment).
pub(super) fn hooks_path_in(text: &str) -> Option<Finding> {
    text.lines().take(4096).find_map(|line| {
        let (key, value) = line.split_once('=')?;
        // `[core] hooksPath = x`: a section header on the same line.
        let key = key.trim();
        let key = match key.strip_prefix('[') {
            Some(rest) => rest.split_once(']').map_or(rest, |(_, k)| k),
            None => key,
        };
        let key = key.trim().to_ascii_lowercase();
        (key == "hookspath" || key == "core.hookspath")
            .then(|| hooks_moved(value))
            .flatten()
    })
}

/// The folder a git command points git's hooks at, when it is not `.git/hooks`: `git -c
/// core.hooksPath=x …`, `git config [--global] core.hooksPath x`, `git
/// --config-env=core.hooksPath=VAR …` (`$VAR`: only known when the shell runs).
pub(super) fn hooks_path_set(command: &SimpleCommand) -> Option<String> {
    moved_to(&hooks_path_word(command)?)
}

fn hooks_path_word(command: &SimpleCommand) -> Option<String> {
    if command.name() != "git" {
        return None;
    }
    let args = command.args();
    let is_key = |k: &str| k.eq_ignore_ascii_case("core.hooksPath");
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            break;
        }
        let pair = if arg == "-c" {
            i += 1;
            args.get(i).map(String::as_str)
        } else if let Some(pair) = arg.strip_prefix("--config-env=") {
            // The value comes from the environment: unknown here.
            Some(pair)
                .filter(|p| p.split_once('=').is_some_and(|(k, _)| is_key(k)))
                .map(|_| "core.hooksPath=$")
        } else {
            if matches!(
                arg.as_str(),
                "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path"
            ) {
                i += 1;
            }
            None
        };
        if let Some((key, value)) = pair.and_then(|p| p.split_once('='))
            && is_key(key)
        {
            return Some(value.to_owned());
        }
        i += 1;
    }
    if args.get(i).is_some_and(|s| s == "config") {
        let rest = &args[i + 1..];
        let reading = rest.iter().any(|a| {
            matches!(
                a.as_str(),
                "--get"
                    | "--get-all"
                    | "--get-regexp"
                    | "--unset"
                    | "--unset-all"
                    | "-l"
                    | "--list"
                    | "get"
                    | "unset"
                    | "list"
            )
        });
        let words: Vec<&String> = rest
            .iter()
            .filter(|a| !a.starts_with('-'))
            .skip_while(|a| matches!(a.as_str(), "set" | "add"))
            .collect();
        if !reading
            && let [key, value, ..] = words.as_slice()
            && is_key(key)
        {
            return Some((*value).clone());
        }
    }
    None
}

/// Variables that choose what later shells and the programs they start run: set in a
/// start-up file, every later command runs differently from what the guard reads.
const STEERING_VARIABLES: &[&str] = &[
    "PATH",
    // zsh's array tied to `PATH`, and fish's folders put before it.
    "path",
    "fish_user_paths",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "PS0",
    "PS1",
    "PS2",
    "PS4",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    // Certificate checks of every later download.
    "NODE_TLS_REJECT_UNAUTHORIZED",
    "GIT_SSL_NO_VERIFY",
    "PYTHONHTTPSVERIFY",
    "CURL_CA_BUNDLE",
    "REQUESTS_CA_BUNDLE",
    "SSL_CERT_FILE",
    "NODE_EXTRA_CA_CERTS",
    "PIP_TRUSTED_HOST",
    "npm_config_strict_ssl",
    "PERL5OPT",
    "PERL5LIB",
    "RUBYOPT",
    "RUBYLIB",
    "GIT_EXEC_PATH",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_DIR",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "PAGER",
    "EDITOR",
    "VISUAL",
    "SHELL",
    "HOME",
    "ZDOTDIR",
    "CDPATH",
    "HISTFILE",
    "IFS",
    "SHELLOPTS",
    "BASHOPTS",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_CONFIG_DIR",
];
/// Commands that, in a start-up file, change what later commands of every shell mean.
const STEERING_COMMANDS: &[&str] = &[
    "alias",
    "source",
    ".",
    "trap",
    "enable",
    "eval",
    "exec",
    "hash",
    "shopt",
    "set",
    "builtin",
    "command_not_found_handle",
    "unalias",
    "bind",
    "complete",
];

/// A Write that replaces a shell's start-up file (or another file read at every start)
/// as a whole: what the user kept there is gone. Asked about; an Edit of a few lines is
/// judged by what it adds.
pub(super) fn startup_replaced(path: &str) -> Option<Finding> {
    let Some(Kind::Startup(file)) = kind(path) else {
        return None;
    };
    Some(Finding::ask(
        "guard:startup-file",
        format!("replaces `{file}`, which shells or git read at every start, as a whole"),
        "Edit the lines that need to change, or ask the user.",
    ))
}

/// What makes text written into a file git or the shell runs by itself later (a git
/// hook, a shell start-up file, a git configuration's commands) run what the guard cannot
/// read now: a program or script named by path or by a word only known as it runs
/// (`sh /tmp/later.sh`, `"$HOME/bin/x"`), whose contents when it runs are not what is
/// there now; and, in a start-up file, a definition that changes what later commands
/// mean (an alias, a function, `source`, a variable that chooses programs).
pub(super) fn later_unseen(path: &str, text: &str) -> Option<Finding> {
    let startup = runs_later(path) && !lexical(path).contains(".git/hooks/");
    let scripts = if git_config(path) {
        shell::git_config_runs(text)
    } else if tool_config(path) {
        tool_config_runs(path, text)
    } else if runs_later(path) || hook_file(path) {
        // `#!/bin/sh tools/fmt.sh`: what the `#!` line runs, besides the text.
        let mut scripts = vec![text.to_owned()];
        // (the hook itself is what is written now: only what else the line runs counts)
        scripts.extend(shell::shebang_command(text));
        scripts
    } else {
        return None;
    };
    let ask = |what: String| {
        Some(Finding::ask(
            "guard:runs-later-unseen",
            format!("writes `{path}`, which runs by itself later, with {what}"),
            "Ask the user to make this change in their terminal.",
        ))
    };
    // `prefix=P` in npm's settings: where every later global install puts its programs.
    if tool_config(path)
        && lexical(path).ends_with("npmrc")
        && let Some(line) = text.lines().find(|l| {
            l.split_once('=')
                .is_some_and(|(k, _)| matches!(k.trim(), "prefix" | "globalconfig"))
        })
    {
        return ask(format!(
            "`{}`, which chooses the folder later global installs put programs in",
            line.trim()
        ));
    }
    for script in scripts.iter().take(64) {
        if let Some(file) = runs_a_file(script) {
            return ask(format!(
                "a command that runs `{file}`: what that holds then cannot be checked now"
            ));
        }
        if !startup {
            continue;
        }
        let parsed = shell::parse(script);
        if let Some((name, _)) = parsed.functions.first() {
            return ask(format!(
                "a function `{name}` that every later shell runs in place of a command"
            ));
        }
        if let Some(a) = parsed
            .assignments
            .iter()
            .find(|a| STEERING_VARIABLES.contains(&a.name.as_str()))
        {
            return ask(format!(
                "`{}` set, which chooses what later commands run",
                a.name
            ));
        }
        if let Some(c) = parsed
            .commands
            .iter()
            .find(|c| STEERING_COMMANDS.contains(&c.name()))
        {
            return ask(format!(
                "`{}`, which changes what later commands of every shell mean",
                c.name()
            ));
        }
    }
    None
}

/// The first program or script a command line runs by a path or by a word only known as
/// the shell runs (`/tmp/x.sh`, `sh ./hook.sh`, `python3 tools/x.py`, `$X`): its contents
/// are read when it runs, not now.
pub fn runs_a_file(script: &str) -> Option<String> {
    let parsed = shell::parse(script);
    if parsed.too_deep || parsed.truncated {
        return Some(script.chars().take(80).collect());
    }
    parsed.commands.iter().find_map(|c| {
        let program = c.argv.first()?;
        if program.contains(['/', '$', '`'])
            && !program.starts_with("/usr/bin/")
            && !program.starts_with("/bin/")
        {
            return Some(program.clone());
        }
        let name = c.name();
        // `ruby -c "$f"`, `php -l`, `node --check`, `sh -n`: the file is read, not run.
        let runs_operand = matches!(name, "source" | ".")
            || shell::is_interpreter(name)
                && shell::inline_program(&c.argv).is_none()
                && !shell::only_checks_syntax(&c.argv);
        if runs_operand {
            return c.args().iter().find(|a| !a.starts_with('-')).cloned();
        }
        None
    })
}

/// Whether `path` is a git configuration file, whose commands (aliases with `!`, hooks
/// folders, pagers, filters, `core.fsmonitor` …) git runs later: a repository's
/// `.git/config` (and `config.worktree`), `~/.gitconfig`, `~/.config/git/config`, or a
/// file named `.gitconfig`.
pub(super) fn git_config(path: &str) -> bool {
    let lexical = lexical(path);
    let home = home_form(&lexical);
    lexical.ends_with(".git/config")
        || lexical.ends_with(".git/config.worktree")
        || lexical == ".gitconfig"
        || lexical.ends_with("/.gitconfig")
        || home == "~/.config/git/config"
        || lexical.contains(".git/worktrees/") && lexical.ends_with("/config.worktree")
}

/// Configuration a tool reads to choose a program it runs in place of its own: npm's and
/// yarn's settings (`script-shell`, `node-options`, `yarnPath`), cargo's (`runner`,
/// `rustc-wrapper`, `linker`), what Python runs at every start (`.pth` files in
/// site-packages, `usercustomize.py`, `sitecustomize.py`), and the start-up files of
/// curl, wget, gdb, lldb, tmux and screen (`~/.curlrc`, `~/.gdbinit`, `~/.tmux.conf` …).
pub(super) fn tool_config(path: &str) -> bool {
    let lexical = lexical(path);
    if super::rcfiles::written_runs(&lexical, "").is_some() {
        return true;
    }
    let name = lexical.rsplit('/').next().unwrap_or(&lexical);
    let parent = lexical.rsplit('/').nth(1).unwrap_or("");
    matches!(name, ".npmrc" | ".yarnrc" | ".yarnrc.yml")
        || lexical == "/etc/npmrc"
        || lexical.ends_with("/npm/npmrc")
        || (parent == ".cargo" && matches!(name, "config" | "config.toml"))
        || (pth(name) || matches!(name, "usercustomize.py" | "sitecustomize.py"))
            && (lexical.contains("site-packages") || lexical.contains("dist-packages"))
        || matches!(name, "usercustomize.py" | "sitecustomize.py")
}

/// Whether `name` is a `.pth` file, whose `import` lines Python runs at every start.
fn pth(name: &str) -> bool {
    std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pth"))
}

/// The command lines that `text`, written into the tool configuration `path` (see
/// [`tool_config`]), makes the tool run later.
pub(super) fn tool_config_runs(path: &str, text: &str) -> Vec<String> {
    let lexical = lexical(path);
    // curl's, wget's, gdb's, lldb's, tmux's and screen's start-up files.
    if let Some(lines) = super::rcfiles::written_runs(&lexical, text) {
        return lines;
    }
    let name = lexical.rsplit('/').next().unwrap_or(&lexical);
    let quote = |v: &str| shell::shell_quote(v);
    if matches!(name, "usercustomize.py" | "sitecustomize.py") {
        return vec![format!("python3 -c {}", quote(text))];
    }
    let mut out = Vec::new();
    if lexical.contains(".cargo/config") {
        out.extend(cargo_config_runs(text));
    }
    for line in text.lines().take(4096) {
        let line = line.trim();
        if pth(name) {
            // A `.pth` line that starts with `import` is run as Python at every start.
            // The modules it imports are found in its own folder first.
            if line.starts_with("import ") || line.starts_with("import\t") {
                let site = lexical.rsplit_once('/').map_or(".", |(dir, _)| dir);
                out.push(format!(
                    "PYTHONPATH={} python3 -c {}",
                    quote(if site.is_empty() { "/" } else { site }),
                    quote(line)
                ));
            }
            continue;
        }
        let Some((key, value)) = line.split_once(['=', ':']).or_else(|| {
            // `.yarnrc`: `yarn-path "x.js"`.
            line.split_once(char::is_whitespace)
        }) else {
            continue;
        };
        let key = key.trim().trim_matches('"').to_ascii_lowercase();
        let value = value.trim();
        let unquoted = value.trim_matches(['"', '\'']);
        match key.as_str() {
            "script-shell" | "shell" | "git" | "editor" | "browser" | "viewer" => {
                out.push(quote(unquoted));
            }
            "node-options" => out.extend(shell::value_script("NODE_OPTIONS", unquoted)),
            "yarnpath" | "yarn-path" | "init-module" | "init.module" => {
                out.push(format!("node {}", quote(unquoted)));
            }
            "runner"
            | "rustc-wrapper"
            | "rustc-workspace-wrapper"
            | "rustc"
            | "rustdoc"
            | "linker" => {
                // A TOML string, or an array of the program and its arguments.
                let words: Vec<String> = match value.strip_prefix('[') {
                    Some(list) => list
                        .trim_end_matches(']')
                        .split(',')
                        .map(|w| w.trim().trim_matches(['"', '\'']).to_owned())
                        .filter(|w| !w.is_empty())
                        .collect(),
                    None => unquoted.split_whitespace().map(str::to_owned).collect(),
                };
                if !words.is_empty() {
                    out.push(words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" "));
                }
            }
            _ => {}
        }
    }
    out
}

/// What cargo's configuration runs besides its programs (read line by line above): each
/// alias as the cargo command it stands for (`b = ["build", "--config",
/// "build.rustc-wrapper='w.sh'"]`), the linker its flags name (`rustflags = ["-C",
/// "linker=./ld.sh"]`), the credential providers it starts, and the variables `[env]`
/// sets for every program cargo runs.
fn cargo_config_runs(text: &str) -> Vec<String> {
    let Ok(config) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let quote = |v: &str| shell::shell_quote(v);
    let words = |v: &toml::Value| -> Vec<String> {
        match v {
            toml::Value::String(s) => s.split_whitespace().map(str::to_owned).collect(),
            toml::Value::Array(list) => list
                .iter()
                .take(256)
                .filter_map(|w| w.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        }
    };
    let line = |w: &[String]| w.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    for (_, value) in config
        .get("alias")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flatten()
        .take(256)
    {
        out.push(format!("cargo {}", line(&words(value))));
    }
    // Tables anywhere (`[build]`, `[target.x86_64-unknown-linux-gnu]`, `[registry]`).
    let mut tables: Vec<(&str, &toml::Table)> = vec![("", &config)];
    let mut k = 0;
    while let Some(&(name, table)) = tables.get(k) {
        k += 1;
        for (key, value) in table.iter().take(256) {
            match (key.as_str(), value) {
                (_, toml::Value::Table(inner))
                    if tables.len() < 64 && key != "alias" && name != "env" =>
                {
                    tables.push((key.as_str(), inner));
                }
                ("rustflags" | "rustdocflags", flags) => {
                    let flags = words(flags);
                    for (j, flag) in flags.iter().enumerate() {
                        let flag = if flag == "-C" || flag == "--codegen" {
                            flags.get(j + 1).map_or("", String::as_str)
                        } else {
                            flag.strip_prefix("-C").unwrap_or("")
                        };
                        if let Some(linker) = flag.strip_prefix("linker=") {
                            out.push(quote(linker));
                        }
                    }
                }
                ("credential-provider", provider) => out.push(line(&words(provider))),
                ("global-credential-providers", toml::Value::Array(list)) => {
                    out.extend(
                        list.iter()
                            .take(64)
                            .filter_map(toml::Value::as_str)
                            .map(str::to_owned),
                    );
                }
                (variable, value) if name == "env" => {
                    let value = match value {
                        toml::Value::String(s) => Some(s.as_str()),
                        toml::Value::Table(t) => t.get("value").and_then(toml::Value::as_str),
                        _ => None,
                    };
                    if let Some(value) = value {
                        out.push(format!("{variable}={} bash -c :", quote(value)));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// What writing over or removing `path` (spelled out by interpreter code) does, when it
/// is an important file.
pub(super) fn judged(path: &str) -> Option<Finding> {
    let advice = "Work on specific paths inside the project instead.";
    match kind(path)? {
        Kind::Device => Some(Finding::deny(
            "guard:device-write",
            format!("writes onto the device {path}"),
            advice,
        )),
        Kind::System(what) => Some(Finding::deny(
            "guard:system-write",
            format!("overwrites, moves or removes {what}"),
            advice,
        )),
        Kind::Startup(file) => Some(Finding::deny(
            "guard:startup-file",
            format!(
                "overwrites, moves or removes `{file}`, which shells or git read at every start"
            ),
            advice,
        )),
        Kind::GitData(file) => Some(Finding::deny(
            "guard:git-data",
            format!("overwrites or removes git's own data (`{file}`)"),
            "Change the repository with git commands.",
        )),
    }
}

/// Targets a command writes over or deletes, and those it only appends to.
fn targets(command: &SimpleCommand, fed: &[String]) -> (Vec<String>, Vec<String>) {
    let args = command.args();
    let mut over: Vec<String> = command
        .writes_to
        .iter()
        .filter(|t| !command.appends_to.contains(t))
        .cloned()
        .collect();
    let mut append: Vec<String> = command.appends_to.clone();
    let mut ops: Vec<&str> = operands(args);
    ops.extend(fed.iter().map(String::as_str));
    let owned = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    // Tracers' and profilers' logs (`strace -o ~/.bashrc ./app`, `valgrind
    // --log-file=~/.profile ./app`), the wrapper's own options: written over.
    if let Some(words) = command.prefixed.as_deref() {
        let end = words.len().saturating_sub(command.argv.len());
        for (at, w) in words[..end].iter().enumerate() {
            if matches!(
                shell::basename(w),
                "strace" | "ltrace" | "valgrind" | "perf"
            ) {
                over.extend(
                    shell::option_values(
                        &words[at + 1..end],
                        &["-o"],
                        &[
                            "--output",
                            "--log-file",
                            "--xml-file",
                            "--massif-out-file",
                            "--callgrind-out-file",
                            "--cachegrind-out-file",
                        ],
                    )
                    .into_iter()
                    .map(str::to_owned),
                );
            }
        }
    }
    match command.name() {
        "rm" | "rmdir" | "srm" => over.extend(owned(&ops)),
        "truncate" | "shred" | "unlink" | "sponge" => {
            // `truncate -s 0 f`: the size is an option's value, not a file.
            let skip_size = command.name() == "truncate"
                && args.iter().any(|a| a == "-s" || a == "--size" || a == "-r");
            let files: Vec<&str> = if skip_size {
                ops.into_iter().skip(1).collect()
            } else {
                ops
            };
            over.extend(owned(&files));
        }
        "tee" => {
            if has_flag(args, "a", &["append"]) {
                append.extend(owned(&ops));
            } else {
                over.extend(owned(&ops));
            }
        }
        "cp" | "install" | "mv" | "ln" | "rsync" | "ditto" => {
            let target_dir = args.iter().enumerate().find_map(|(k, a)| {
                if a == "-t" || a == "--target-directory" {
                    args.get(k + 1).cloned()
                } else {
                    a.strip_prefix("--target-directory=").map(str::to_owned)
                }
            });
            if target_dir.is_none()
                && let Some(last) = ops.last()
                && ops.len() >= 2
            {
                over.push((*last).to_owned());
            }
            if command.name() == "mv" && ops.len() >= 2 {
                // A file moved away is gone from where it was.
                over.extend(owned(&ops[..ops.len() - 1]));
            }
        }
        "dd" => over.extend(
            args.iter()
                .filter_map(|a| a.strip_prefix("of="))
                .map(str::to_owned),
        ),
        "sed" | "gsed" | "perl" if in_place(args) => over.extend(owned(&ops)),
        // `awk -i inplace PROGRAM FILE…`, `gawk -i inplace -f P FILE`: the files after the
        // program are rewritten.
        "awk" | "gawk"
            if args
                .windows(2)
                .any(|w| w[0] == "-i" && w[1].starts_with("inplace"))
                || args
                    .iter()
                    .any(|a| a.starts_with("--include=inplace") || a == "-iinplace") =>
        {
            let from_file = args.iter().any(|a| a == "-f" || a.starts_with("--file"));
            let files: Vec<&str> = ops
                .iter()
                .copied()
                .filter(|o| !o.starts_with("inplace"))
                .skip(usize::from(!from_file))
                .collect();
            over.extend(owned(&files));
        }
        // Editors write the files they open; run by an agent, in batch mode (`vim -es -c
        // '%d|x' f`, `emacs --batch f -f save-buffer`).
        "vi" | "vim" | "nvim" | "ex" | "gvim" | "nvi" | "emacs" | "nano" | "pico" | "micro"
        | "hx" | "ed" | "red" | "kak" | "joe" | "mg" => {
            over.extend(
                ops.iter()
                    .filter(|o| !o.starts_with('+'))
                    .map(|o| (*o).to_owned()),
            );
        }
        // `git diff --output=~/.bashrc`, `git archive -o /dev/sda`.
        "git" => over.extend(super::git::git_writes(args, false)),
        // `chmod 777 /etc/passwd`: the mode or owner first, unless given by reference.
        "chmod" | "chown" | "chgrp" | "chattr" => {
            let by_reference = args.iter().any(|a| a.starts_with("--reference"));
            // `chmod -x /bin/chmod`: a mode that looks like an option is the mode, and
            // every operand is a file.
            let dashed_mode = command.name() == "chmod"
                && args.iter().any(|a| {
                    a.len() > 1
                        && a.starts_with('-')
                        && !a.starts_with("--")
                        && a[1..].chars().all(|c| "rwxXst".contains(c))
                });
            let skip = usize::from(!by_reference && !dashed_mode);
            over.extend(owned(ops.get(skip..).unwrap_or(&[])));
        }
        // `setfacl -m o::rwx /etc/shadow`: the files whose access lists change (the
        // entries follow `-m`/`-x`/`-M`/`-X`/`--set`/`--modify`).
        "setfacl" => {
            let mut skip = false;
            for a in args {
                if skip {
                    skip = false;
                } else if matches!(
                    a.as_str(),
                    "-m" | "-x"
                        | "-M"
                        | "-X"
                        | "--set"
                        | "--set-file"
                        | "--modify"
                        | "--modify-file"
                        | "--remove"
                        | "--remove-file"
                ) {
                    skip = true;
                } else if !a.starts_with('-') {
                    over.push(a.clone());
                }
            }
        }
        _ => {}
    }
    over.extend(super::protect::option_written_files(command.name(), args));
    (over, append)
}

/// Where programs are installed by hand (`/usr/local/bin`, `/opt/tool`): asked about,
/// not refused.
fn installs(path: &str) -> bool {
    let path = lexical(path);
    ["/usr/local/", "/opt/"].iter().any(|p| path.starts_with(p))
}

/// `-i`, `-i.bak`, `-pi`, `--in-place`.
fn in_place(args: &[String]) -> bool {
    args.iter()
        .take_while(|a| *a != "--")
        .any(|a| a.starts_with("--in-place") || short_cluster(a).is_some_and(|f| f.contains('i')))
}

/// The first important file `command` (run in `cwd`) writes over, deletes or appends to.
pub(super) fn written(command: &SimpleCommand, fed: &[String], cwd: &Cwd) -> Option<Finding> {
    let (over, append) = targets(command, fed);
    let located = |t: &String| resolve(cwd, t).unwrap_or_else(|| t.clone());
    if command.name() == "git"
        && let Some(target) = super::git::git_writes(command.args(), false)
            .into_iter()
            .find(|t| {
                let path = located(t);
                kind(&path).is_none()
                    && (runs_later(&path) || hook_file(&path) || git_config(&path))
            })
    {
        // A patch, an archive or a bundle where git or the shell runs a script later.
        return Some(Finding::ask(
            "guard:hidden-later",
            format!(
                "has git write `{target}`, which git or the shell runs by itself later, with \
                 contents nagger cannot see"
            ),
            "Write it with the file tools, or spell the text out on the command line, so it \
             can be checked.",
        ));
    }
    let verb = match command.name() {
        "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => "changes who may read or write",
        _ => "overwrites or removes",
    };
    let modes = verb != "overwrites or removes";
    for target in &over {
        let path = located(target);
        match kind(&path) {
            // `chmod 600 ~/.ssh/config` protects; only the system's modes matter.
            Some(Kind::Startup(_) | Kind::GitData(_)) if modes => {}
            Some(Kind::Device) => {
                return Some(Finding::deny(
                    "guard:device-write",
                    format!("writes onto the device {target}"),
                    "Ask the user to do it.",
                ));
            }
            Some(Kind::System(what)) if installs(&path) => {
                return Some(Finding::ask(
                    "guard:system-write",
                    format!("installs into {what}"),
                    "Ask the user to install it.",
                ));
            }
            Some(Kind::System(what)) => {
                return Some(Finding::deny(
                    "guard:system-write",
                    format!("{verb} {what}"),
                    "Work on specific paths inside the project instead.",
                ));
            }
            Some(Kind::Startup(file)) => {
                return Some(Finding::deny(
                    "guard:startup-file",
                    format!("{verb} `{file}`, which shells or git read at every start"),
                    "Show the user the lines to add; they edit it themselves.",
                ));
            }
            Some(Kind::GitData(file)) => {
                return Some(Finding::deny(
                    "guard:git-data",
                    format!("{verb} git's own data (`{file}`)"),
                    "Change the repository with git commands.",
                ));
            }
            None => {}
        }
    }
    for target in &append {
        let path = located(target);
        // Adding a line to a shell's startup file is an everyday set-up step.
        // A key added to `authorized_keys` lets whoever holds it log in: no set-up step.
        let what = match kind(&path) {
            Some(Kind::Device) => format!("the device {target}"),
            Some(Kind::System(what)) => what,
            Some(Kind::Startup(file)) if file.starts_with("~/.ssh/authorized_keys") => {
                format!("`{target}`, which lets whoever holds the key log in")
            }
            Some(Kind::Startup(_) | Kind::GitData(_)) | None => continue,
        };
        return Some(Finding::ask(
            "guard:startup-file",
            format!("appends to {what}"),
            "Show the user the lines to add; they edit it themselves.",
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_configuration_names_the_programs_its_tool_runs() {
        assert!(tool_config(".cargo/config.toml"));
        assert!(tool_config("~/.npmrc"));
        assert!(tool_config("/usr/lib/python3/dist-packages/x.pth"));
        assert!(!tool_config("src/config.toml"));
        assert!(!tool_config("docs/x.pth"));
        let runs = |path: &str, text: &str| tool_config_runs(path, text);
        assert_eq!(
            runs(
                ".cargo/config.toml",
                "[target.x]\nrunner = [\"qemu\", \"-L\"]\njobs = 2"
            ),
            vec!["'qemu' '-L'"]
        );
        assert_eq!(
            runs(".npmrc", "script-shell = /bin/zsh\nregistry=x"),
            vec!["'/bin/zsh'"]
        );
        assert_eq!(
            runs(".npmrc", "node-options=--require ./a.js"),
            vec!["node './a.js'"]
        );
        assert_eq!(
            runs(".yarnrc.yml", "yarnPath: .yarn/r.cjs"),
            vec!["node '.yarn/r.cjs'"]
        );
        assert_eq!(
            runs("/site-packages/a.pth", "/opt/x\nimport os"),
            vec!["PYTHONPATH='/site-packages' python3 -c 'import os'"]
        );
        assert!(runs(".npmrc", "registry=https://r.example.com").is_empty());
    }
    use crate::domain::guard::shell;

    fn judged(line: &str) -> Option<(bool, String)> {
        let parsed = shell::parse(line);
        let cwd = Cwd::Known(String::new());
        parsed.commands.iter().find_map(|c| {
            written(c, &[], &cwd)
                .map(|f| (f.severity == crate::domain::guard::Severity::Deny, f.harm))
        })
    }

    #[test]
    fn important_files_by_any_writer() {
        for line in [
            "> /dev/sda",
            ": > /dev/nvme0n1",
            "> ~/.bashrc",
            "cat x > $HOME/.zshrc",
            "> .git/HEAD",
            "echo x > ./.git/refs/heads/main",
            "cp /dev/null /etc/shadow",
            "truncate -s 0 ~/.bashrc",
            "unlink /etc/passwd",
            "shred -u ~/.profile",
            "echo key | tee ~/.ssh/authorized_keys",
            "dd if=/dev/zero of=/etc/fstab",
            "ln -sf /dev/null ~/.bashrc",
            "sed -i 's/a/b/' /etc/hosts",
            "mv ~/.gitconfig /tmp/",
            "install -m 644 x /etc/sudoers",
        ] {
            assert!(
                matches!(judged(line), Some((true, _))),
                "{line}: {:?}",
                judged(line)
            );
        }
        for line in [
            "echo 127.0.0.1 x | sudo tee -a /etc/hosts",
            "sudo cp tool /usr/local/bin/",
        ] {
            assert!(
                matches!(judged(line), Some((false, _))),
                "{line}: {:?}",
                judged(line)
            );
        }
        for line in [
            "echo x > out.txt",
            "cat ~/.bashrc",
            "cp hooks/pre-commit .git/hooks/pre-commit",
            "echo build >> .git/info/exclude",
            "echo x > /dev/null",
            "cmd 2> /dev/stderr",
            "truncate -s 0 app.log",
            "cp .bashrc.example ~/dotfiles/bashrc",
            "ln -s /usr/bin/python3 ~/bin/python",
            "echo x >> notes.md",
            "echo 'export PATH=$HOME/bin:$PATH' >> ~/.bashrc",
        ] {
            assert_eq!(judged(line), None, "{line}");
        }
    }

    #[test]
    fn git_output_files_are_writes_of_important_files() {
        for line in [
            "git diff --output ~/.bashrc",
            "git archive -o /etc/passwd HEAD",
            "git log --output=.git/HEAD",
            "git -C sub bundle create /dev/sda HEAD",
        ] {
            assert!(
                matches!(judged(line), Some((true, _))),
                "{line}: {:?}",
                judged(line)
            );
        }
        // A hook written with contents the line does not show is asked about.
        for line in [
            "git diff --output=.git/hooks/pre-commit",
            "git show HEAD:x --output .husky/pre-push",
        ] {
            assert!(
                matches!(judged(line), Some((false, _))),
                "{line}: {:?}",
                judged(line)
            );
        }
        for line in [
            "git diff --output=/tmp/x.patch",
            "git format-patch -1 -o /tmp/patches",
            "git config --file ~/.gitconfig user.name x",
            "git diff > /tmp/x.patch",
        ] {
            assert_eq!(judged(line), None, "{line}");
        }
    }
}
