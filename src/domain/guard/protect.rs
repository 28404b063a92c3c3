//! Self-protection: nagger's folder `.claude-nagger` (its config, rules and database) and
//! Claude Code's `settings.json` (where the hook is installed) are not for agents to
//! change. File tools that write there and shell commands that write, move, remove,
//! truncate, lock or open them with a database or scripting tool are refused; reading
//! them (`cat .claude-nagger/config.toml`, `nagger stats`) is fine.

use super::finding::{Finding, operands};
use super::shell::{self, SimpleCommand, basename};
use crate::base::glob::build_glob;

/// Tools that write the file they name.
const WRITING_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// What `path` is, when it is protected: nagger's folder or Claude Code's settings.
pub(super) fn protected(path: &str) -> Option<&'static str> {
    let path = path.trim().trim_end_matches('/');
    if path.is_empty() || path.len() > 4096 {
        return None;
    }
    // Case-insensitive filesystems (macOS) take `.Claude-Nagger` for the folder too.
    let normal = super::paths::normalize(path).to_ascii_lowercase();
    let parts: Vec<&str> = normal.split('/').collect();
    if parts
        .iter()
        .any(|p| *p == ".claude-nagger" || glob_hits(p, ".claude-nagger"))
    {
        return Some("nagger's own files in .claude-nagger");
    }
    if let [.., dir, file] = parts.as_slice()
        && (*dir == ".claude" || glob_hits(dir, ".claude"))
        && (matches!(*file, "settings.json" | "settings.local.json")
            || glob_hits(file, "settings.json"))
    {
        return Some("Claude Code's settings, where nagger's hook is installed");
    }
    None
}

/// `.c*`, `.claude-*`, `.??*`: a glob word the shell expands to `name`.
fn glob_hits(word: &str, name: &str) -> bool {
    // As the shell expands them, only a pattern starting with `.` matches a dot-name.
    (word.starts_with('.') || !name.starts_with('.'))
        && word.contains(['*', '?', '['])
        && word.len() <= 64
        && build_glob(word, true).is_ok_and(|g| g.compile_matcher().is_match(name))
}

/// A Write, Edit, MultiEdit or NotebookEdit of a protected file.
pub(super) fn written_by_tool(tool_name: &str, input: &serde_json::Value) -> Option<Finding> {
    if !WRITING_TOOLS.contains(&tool_name) {
        return None;
    }
    ["file_path", "notebook_path"].iter().find_map(|field| {
        let path = input.get(field)?.as_str()?;
        let what = protected(path)?;
        Some(finding(&format!("changes `{path}`, {what}")))
    })
}

/// The protected path a shell command writes, moves, removes, locks or opens for writing.
/// `in_protected_dir`: an earlier `cd` of the same line went into a protected folder, so
/// relative paths are inside it.
pub(super) fn written_by(
    command: &SimpleCommand,
    fed: &[String],
    in_protected_dir: bool,
) -> Option<Finding> {
    let name = command.name();
    let args = command.args();
    if command.prefixes.iter().any(|p| p == "flock")
        && let Some((path, what)) = command
            .prefixed
            .iter()
            .flatten()
            .find_map(|w| Some((w, protected(w)?)))
    {
        return Some(finding(&format!("locks `{path}`, {what}")));
    }
    let mut paths: Vec<&str> = command.writes_to.iter().map(String::as_str).collect();
    let all = || {
        let mut all = operands(args);
        all.extend(fed.iter().map(String::as_str));
        all
    };
    match name {
        "rm" | "rmdir" | "unlink" | "shred" | "truncate" | "chmod" | "chown" | "chgrp"
        | "chattr" | "ln" | "mv" | "tee" | "mkfifo" | "mknod" | "sqlite3" | "sqlite" | "vi"
        | "vim" | "nvim" | "nano" | "emacs" | "ed" | "ex" | "pico" | "micro" | "hx" | "code"
        | "subl" | "touch" | "find" => paths.extend(all()),
        "cp" | "install" | "rsync" => {
            let targets = all();
            let into = args
                .iter()
                .position(|a| a == "-t" || a.starts_with("--target-directory"));
            match into {
                Some(k) => paths.extend(args.get(k + 1).map(String::as_str)),
                None => paths.extend(targets.last().copied()),
            }
            paths.extend(
                args.iter()
                    .filter_map(|a| a.strip_prefix("--target-directory=")),
            );
        }
        "sed" | "perl" | "ruby"
            if args
                .iter()
                .any(|a| a.starts_with("-i") || a.starts_with("--in-place") || a == "-pi") =>
        {
            paths.extend(all());
        }
        "dd" => paths.extend(args.iter().filter_map(|a| a.strip_prefix("of="))),
        "nagger" => {
            let sub = args
                .iter()
                .find(|a| !a.starts_with('-'))
                .map(String::as_str);
            let fix = args.iter().any(|a| a == "--fix");
            if matches!(sub, Some("hook" | "install" | "uninstall"))
                || (sub == Some("doctor") && fix)
            {
                return Some(finding(&format!(
                    "runs `{}`, which changes nagger's own state or its hook in Claude Code's \
                     settings",
                    command.display()
                )));
            }
        }
        "flock" => paths.extend(all().into_iter().take(1)),
        "git" if matches!(args.first().map(String::as_str), Some("rm" | "mv")) => {
            paths.extend(operands(&args[1..]));
        }
        _ if shell::is_interpreter(name) && !shell::is_shell(name) => {
            paths.extend(all());
            let mut code = shell::inline_code(&command.argv)
                .into_iter()
                .chain(command.stdin_texts.iter().map(String::as_str));
            if code.any(|t| t.contains(".claude-nagger") || t.contains(".claude/settings")) {
                return Some(finding(&format!(
                    "opens nagger's own files in .claude-nagger or Claude Code's settings \
                     with `{name}`"
                )));
            }
        }
        _ => {}
    }
    if name == "find"
        && !args
            .iter()
            .any(|a| a == "-delete" || a.starts_with("-exec"))
    {
        paths.clear();
        paths.extend(command.writes_to.iter().map(String::as_str));
    }
    paths.into_iter().find_map(|path| {
        let what = protected(path).or_else(|| {
            (in_protected_dir && !path.starts_with(['/', '~', '$']))
                .then_some("nagger's own files in .claude-nagger")
        })?;
        let verb = match basename(name) {
            "sqlite3" | "sqlite" => "opens",
            "flock" => "locks",
            _ => "changes",
        };
        Some(finding(&format!("{verb} `{path}`, {what}")))
    })
}

fn finding(harm: &str) -> Finding {
    Finding::deny(
        "guard:self-protect",
        harm.to_owned(),
        "They hold the rules nagger enforces: the user changes them outside Claude Code, \
         or exempts a pattern in `[guard] allow`. Read them with `cat` or `nagger check`.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_paths() {
        for path in [
            ".claude-nagger/config.toml",
            "/work/proj/.claude-nagger/state.db",
            "./.claude-nagger",
            ".claude-nagger/",
            ".claude/settings.json",
            "/home/a/.claude/settings.local.json",
            ".c*",
            ".claude-*/state.db",
            ".claude/*.json",
        ] {
            assert!(protected(path).is_some(), "{path}");
        }
        for path in [
            ".claude/agents/x.md",
            "claude-nagger.md",
            "src/settings.json",
            ".claude",
            "docs/*.md",
        ] {
            assert_eq!(protected(path), None, "{path}");
        }
    }
}
