//! Files git or the shell runs by themselves later, put in place from files on disk (`cp
//! scripts/pre-commit .git/hooks/`, `ln -s ../../hooks/x .git/hooks/x`, `install hook
//! .githooks/pre-push`, a `.gitconfig` copied over the user's), and the hook files in the
//! folder `core.hooksPath` is pointed at (`git config core.hooksPath .githooks`). What they
//! hold is read, bounded, and judged as what will run; a source that cannot be read is
//! asked about.

use super::super::finding::{Finding, operands};
use super::super::important::{git_config, hook_file, hooks_path_in, hooks_path_set, runs_later};
use super::super::paths::normalize;
use super::super::protect::Cwd;
use super::super::shell::{self, SimpleCommand, basename};
use super::files::{Content, Ran, View, read_named, shebang};

/// Most sources, and most entries of a hooks folder, looked at for one command.
const MAX_SOURCES: usize = 32;

/// What `command` puts in place that runs later, judged; pushed onto `out`.
pub(super) fn runs(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let name = command.name();
    if matches!(name, "cp" | "ln" | "install" | "mv" | "rsync") {
        placed(command, cwd, files, out);
    }
    if name == "chmod" {
        made_runnable(command, cwd, files, out);
    }
    if let Some(dir) = hooks_path_set(command) {
        hooks_folder(&dir, cwd, files, out);
    }
}

/// `cp`, `ln`, `install`, `mv` onto a hook, a shell start-up file or a git configuration
/// file: the source read as what will run there.
fn placed(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    let ops = operands(args);
    let target_dir = args.iter().enumerate().find_map(|(k, a)| {
        if a == "-t" {
            args.get(k + 1).map(String::as_str)
        } else {
            a.strip_prefix("--target-directory=")
        }
    });
    let (dest, sources): (&str, Vec<&str>) = match target_dir {
        Some(dir) => (dir, ops.into_iter().filter(|o| *o != dir).collect()),
        None => match ops.split_last() {
            Some((last, rest)) if !rest.is_empty() => (*last, rest.to_vec()),
            _ => return,
        },
    };
    let into_dir =
        target_dir.is_some() || dest.ends_with('/') || sources.len() > 1 || files.is_dir(cwd, dest);
    let symbolic = command.name() == "ln" && shell::has_flag(args, "s", &["symbolic"]);
    // `cp -r scripts/. .git/hooks/`, `rsync -a scripts/ .git/hooks/`, `cp -rT scripts
    // .git/hooks`: each file of the folder lands under its own name.
    let rsync = command.name() == "rsync";
    let contents = |source: &str| {
        basename(source.trim_end_matches('/')) == "."
            || rsync && source.ends_with('/')
            || command.name() == "cp" && shell::has_flag(args, "T", &["no-target-directory"])
    };
    let mut pairs: Vec<(String, String)> = Vec::new();
    for source in sources.into_iter().take(MAX_SOURCES) {
        if contents(source) && files.is_dir(cwd, source) {
            let folder = source.trim_end_matches('/');
            for entry in files.list(cwd, source, MAX_SOURCES) {
                pairs.push((
                    format!("{folder}/{entry}"),
                    format!("{}/{entry}", dest.trim_end_matches('/')),
                ));
            }
        } else {
            let placed = if into_dir {
                format!(
                    "{}/{}",
                    dest.trim_end_matches('/'),
                    basename(source.trim_end_matches('/'))
                )
            } else {
                dest.to_owned()
            };
            pairs.push((source.to_owned(), placed));
        }
    }
    for (source, placed) in pairs.into_iter().take(MAX_SOURCES * 4) {
        let source = source.as_str();
        let config = git_config(&placed);
        if !(config || runs_later(&placed) || hook_file(&placed)) {
            continue;
        }
        // A symbolic link's relative target is read from the link's own folder.
        let read_as = if symbolic && !source.starts_with(['/', '~']) {
            let parent = placed.rsplit_once('/').map_or(".", |(p, _)| p);
            normalize(&format!("{parent}/{source}"))
        } else {
            source.to_owned()
        };
        let Some((text, via)) = read_source(files.read(cwd, &read_as), &read_as, &placed, out)
        else {
            continue;
        };
        let via = format!("{via}, put in place as `{placed}`, which runs by itself later");
        if config {
            out.extend(hooks_path_in(&text).map(Ran::Finding));
            for script in shell::git_config_runs(&text) {
                out.push(Ran::Script(
                    script,
                    format!("{via} (a command git runs)"),
                    None,
                ));
            }
        } else {
            judged_as_hook(text, via, &placed, None, out);
        }
    }
}

/// `chmod +x` (or a mode with an execute bit) of a git hook: git runs it from then on, so
/// what it holds is read as what will run.
fn made_runnable(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    let ops = operands(args);
    let Some((mode, paths)) = ops.split_first() else {
        return;
    };
    if !adds_execute(mode) {
        return;
    }
    let mut hooks: Vec<String> = Vec::new();
    for path in paths.iter().take(MAX_SOURCES) {
        let folder = normalize(path);
        if folder.ends_with(".git/hooks") || files.is_dir(cwd, path) && hook_folder_name(&folder) {
            // `chmod -R +x .git/hooks`: every hook in it.
            hooks.extend(
                files
                    .list(cwd, path, MAX_SOURCES * 4)
                    .into_iter()
                    .map(|e| format!("{}/{e}", path.trim_end_matches('/')))
                    .filter(|p| hook_file(p)),
            );
        } else if hook_file(path) || lexical_hook_folder(path) {
            hooks.push((*path).to_owned());
        }
    }
    for path in hooks.iter().take(MAX_SOURCES) {
        if let Some((text, via)) = read_source(files.read(cwd, path), path, path, out) {
            judged_as_hook(
                text,
                format!("{via}, made runnable as a git hook"),
                path,
                None,
                out,
            );
        }
    }
}

/// Whether a folder is named as one git may take its hooks from.
fn hook_folder_name(folder: &str) -> bool {
    matches!(
        basename(folder),
        "hooks" | ".githooks" | ".husky" | "githooks"
    )
}

/// Whether `path` lies in a repository's own hooks folder.
fn lexical_hook_folder(path: &str) -> bool {
    normalize(path).contains(".git/hooks/")
}

/// Whether a `chmod` mode gives someone the right to execute: `+x`, `u+x`, `a=rwx`,
/// `755`, `0700`.
fn adds_execute(mode: &str) -> bool {
    if mode.bytes().all(|b| b.is_ascii_digit()) {
        return mode.bytes().rev().take(3).any(|b| (b - b'0') & 1 == 1);
    }
    mode.split(',').any(|clause| {
        clause
            .find(['+', '='])
            .is_some_and(|at| clause[at + 1..].contains(['x', 'X']))
    })
}

/// The hook files of the folder git's hooks are pointed at, read as they will run.
fn hooks_folder(dir: &str, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    if dir.contains(['$', '`']) {
        out.push(Ran::Finding(Finding::ask(
            "guard:hooks-path",
            format!(
                "points git's hooks at `{dir}`, only known when the shell runs: the files \
                 there run by themselves at every commit, checkout, merge and push"
            ),
            "Set `core.hooksPath` to a folder written out.",
        )));
        return;
    }
    for entry in files.list(cwd, dir, MAX_SOURCES * 4) {
        let path = format!("{dir}/{entry}");
        if !hook_file(&path) {
            continue;
        }
        if let Some((text, via)) = read_source(files.read(cwd, &path), &path, &path, out) {
            judged_as_hook(
                text,
                format!("{via}, a git hook once `core.hooksPath` is `{dir}`"),
                &path,
                None,
                out,
            );
        }
    }
}

/// The text of `source`, to run as `placed`. Nothing when it does not exist (nothing
/// runs, or the copy fails); a compiled program is asked about.
fn read_source(
    content: Content,
    source: &str,
    placed: &str,
    out: &mut Vec<Ran>,
) -> Option<(String, String)> {
    match content {
        Content::Absent => None,
        Content::Binary => {
            out.push(Ran::Finding(unreadable(source, placed)));
            None
        }
        other => read_named(other, source, out),
    }
}

/// A hook's text, run by its `#!` line (a shell without one), in `dir` when known.
pub(super) fn judged_as_hook(
    text: String,
    via: String,
    path: &str,
    dir: Option<Cwd>,
    out: &mut Vec<Ran>,
) {
    // `#!/bin/sh tools/fmt.sh`, `#!/usr/bin/make -sf`: the system runs the program of
    // the `#!` line with what follows it as one word and the hook's path: that command
    // line is what runs.
    if let Some(line) = shell::shebang_line(&text, path) {
        out.push(Ran::Script(line, via, dir));
        return;
    }
    let runner = shebang(&text).unwrap_or_else(|| "sh".into());
    if shell::is_shell(&runner) {
        out.push(Ran::Script(text, via, dir));
    } else {
        out.push(Ran::Code(text, runner, via));
    }
}

fn unreadable(source: &str, placed: &str) -> Finding {
    Finding::ask(
        "guard:hidden-later",
        format!(
            "puts `{source}` in place as `{placed}`, which runs by itself later, and nagger \
             cannot read what it holds (a compiled program)"
        ),
        "Write it with the file tools, or copy a text file nagger can read.",
    )
}
