//! The project and the folders holding it: deleting or moving them away by any spelling,
//! from wherever the line `cd`-ed to (`cd .. && rm -rf proj`, `rm -rf
//! "$CLAUDE_PROJECT_DIR"`, `cd / ; rm -rf home`).

use std::path::Path;

use super::checks::{FIND_FILTERS, find_names};
use super::finding::{Finding, operands, operands_with};
use super::paths::{normalize, wildcard};
use super::protect::Cwd;
use super::shell::{SimpleCommand, has_flag};
use super::targets::{compresses_in_place, home_cache, junk, remade};

/// Words that stand for the project root when the line starts there.
const PROJECT_WORDS: &[&str] = &[
    "$CLAUDE_PROJECT_DIR",
    "${CLAUDE_PROJECT_DIR}",
    "$(git rev-parse --show-toplevel)",
];
/// Words that stand for the folder the command runs in.
const HERE_WORDS: &[&str] = &["$PWD", "${PWD}", "$(pwd)", "`pwd`"];

/// What a command deletes (or locks away) whole: `verb` says how, `names` are the names a
/// `find` looks for below `targets` (empty: the targets themselves).
struct Deletion<'c> {
    verb: &'static str,
    names: Vec<&'c str>,
    targets: Vec<&'c str>,
}

/// A deletion or move of the project or a folder holding it by `command`, run in `cwd`
/// (relative to the project `root`).
pub(super) fn deleted(
    command: &SimpleCommand,
    cwd: &Cwd,
    old: &Cwd,
    root: &Path,
) -> Option<Finding> {
    let Deletion {
        verb,
        names,
        targets,
    } = deletion(command)?;
    let name = command.name();
    let root = root.to_str()?;
    let here = absolute_cwd(cwd, root)?;
    let project_name = root.rsplit('/').next().unwrap_or(root);
    if name == "rm"
        && matches!(old, Cwd::Unknown)
        && let Some(word) = targets
            .iter()
            .find(|t| t.starts_with("$OLDPWD") || t.starts_with("${OLDPWD}"))
    {
        return Some(Finding::ask(
            "guard:project",
            format!(
                "deletes `{word}`, the folder before the last `cd`, which this line does not show"
            ),
            "Write the path out.",
        ));
    }
    targets.into_iter().find_map(|target| {
        let rest = target
            .strip_prefix("$OLDPWD")
            .or_else(|| target.strip_prefix("${OLDPWD}"));
        let target = match (rest, old) {
            (Some(rest), Cwd::Known(_)) => format!("{}{rest}", absolute_cwd(old, root)?),
            _ => target.to_owned(),
        };
        let mut full = absolute(&target, &here, root)?;
        if !names.is_empty() {
            // Start points are searched for the names: the project when one fits it.
            let fits = names
                .iter()
                .any(|n| *n == project_name || wildcard(n, project_name));
            let parent = match root.rsplit_once('/') {
                Some((p, _)) if !p.is_empty() => p,
                _ => "/",
            };
            let above =
                full == parent || root.starts_with(&format!("{}/", full.trim_end_matches('/')));
            if !(fits && above) {
                return None;
            }
            root.clone_into(&mut full);
        }
        let what = holds(&full, root, "the project").or_else(|| {
            // The home, however it is spelled (`../home`, `/home/me`): Claude Code's
            // user settings and nagger's trusted copy of its config live there.
            let home = normalize(&std::env::var("HOME").ok()?);
            let outside = names.is_empty() && home.len() > 1 && !root.starts_with(&home);
            outside.then(|| holds(&full, &home, "the home directory"))?
        })?;
        let verb = if name == "mv" { "moves" } else { verb };
        Some(Finding::deny(
            "guard:project",
            format!("{verb} {what}"),
            "Delete specific paths inside the project instead.",
        ))
    })
}

/// What a command that is no deleter deletes on its way: the files `tar --remove-files`,
/// `zip -m` and `7z -sdel` archive, what `gzip -r` compresses away, what `rsync
/// --remove-source-files` sends. Judged as the `rm -rf` of them it amounts to.
pub(super) fn removed_on_the_way(command: &SimpleCommand) -> Option<Vec<&str>> {
    let deletion = deletion(command)?;
    let on_the_way = match command.name() {
        "rsync" => deletion.verb == "moves away every file of",
        "tar" | "bsdtar" | "gtar" | "zip" | "7z" | "7za" | "7zr" | "7zz" => true,
        "python" | "python3" | "virtualenv" | "uv" => true,
        name if name.starts_with("python") => true,
        _ => matches!(
            deletion.verb,
            "compresses away every file of" | "compresses away"
        ),
    };
    (on_the_way && !deletion.targets.is_empty()).then_some(deletion.targets)
}

/// The folder `tar -x` unpacks into, when it also removes what is there: GNU tar's
/// incremental extraction (`-G`, `-g F`, `--listed-incremental`, `--incremental`)
/// deletes what the archive's snapshot lacks, `--recursive-unlink` empties a folder a
/// member replaces.
fn tar_extraction_removes(args: &[String]) -> Option<&str> {
    let first = args.first().map_or("", String::as_str);
    let bundled = !first.starts_with('-');
    let extract = (bundled && first.contains('x')) || has_flag(args, "x", &["extract", "get"]);
    let removes = has_flag(
        args,
        "Gg",
        &["listed-incremental", "incremental", "recursive-unlink"],
    ) || bundled && first.contains(['G', 'g']);
    if !(extract && removes) {
        return None;
    }
    Some(
        super::shell::option_values(args, &["-C"], &["--directory"])
            .last()
            .copied()
            .unwrap_or("."),
    )
}

/// The folders a virtual environment is made in after emptying them: `python3 -m venv
/// --clear D`, `virtualenv --clear D`, `uv venv D` (which replaces what is at D).
fn venv_cleared<'a>(name: &str, args: &'a [String]) -> Option<Vec<&'a str>> {
    let rest: &[String] = if name == "uv" {
        if args.first().is_some_and(|a| a == "venv") {
            &args[1..]
        } else {
            return None;
        }
    } else if name == "virtualenv" {
        args
    } else {
        let m = args.iter().position(|a| {
            a == "-m" || a.ends_with('m') && a.starts_with('-') && !a.starts_with("--")
        })?;
        if !args
            .get(m + 1)
            .is_some_and(|v| v == "venv" || v == "virtualenv")
        {
            return None;
        }
        &args[m + 2..]
    };
    let clears = name == "uv" || rest.iter().any(|a| a == "--clear");
    if !clears {
        return None;
    }
    let dirs = operands_with(rest, &["-p"], &["prompt", "python", "seed", "index-url"]);
    // `uv venv` alone makes `.venv`.
    Some(if dirs.is_empty() && name == "uv" {
        vec![".venv"]
    } else {
        dirs
    })
}

/// What `command` deletes or locks away whole, if anything.
fn deletion(command: &SimpleCommand) -> Option<Deletion<'_>> {
    let args = command.args();
    let name = command.name();
    let mut verb = "deletes";
    let mut names: Vec<&str> = Vec::new();
    let targets: Vec<&str> = match name {
        "rm" if has_flag(args, "rR", &["recursive"]) => operands(args),
        // `chmod -R --reference=locked .`: the mode of another file, which may take the
        // owner's access away.
        "chmod"
            if has_flag(args, "R", &["recursive"])
                && args.iter().any(|a| a.starts_with("--reference")) =>
        {
            // Its mode now is no answer: the line may change it first (`chmod 000 r &&
            // chmod -R --reference=r .`).
            let reference = super::shell::option_values(args, &[], &["--reference"]);
            verb = "may take away the user's access to";
            operands(args)
                .into_iter()
                .filter(|o| !reference.contains(o))
                .collect()
        }
        // `chmod -R 000 .`, `chown -R nobody "$PWD"`: the project locked away.
        "chmod" | "chown" | "chgrp" if has_flag(args, "R", &["recursive"]) => {
            let ops = operands(args);
            let (mode, paths) = ops.split_first()?;
            if name == "chmod" && !locks_out(mode) {
                return None;
            }
            // Giving the user's own files to the user changes nothing they can do.
            let own = ["whoami", "USER", "id -u", "id -un", "LOGNAME"];
            if name != "chmod" && own.iter().any(|w| mode.contains(w)) {
                return None;
            }
            verb = "takes away the user's access to";
            paths.to_vec()
        }
        // `tar -xGf snap.tar`: what the folder holds and the snapshot lacks, deleted.
        "tar" | "gtar" if tar_extraction_removes(args).is_some() => {
            verb = "empties what the archive lacks from";
            tar_extraction_removes(args).into_iter().collect()
        }
        // `python3 -m venv --clear D`, `virtualenv --clear D`: D emptied first.
        name if (name.starts_with("python") || name == "virtualenv" || name == "uv")
            && venv_cleared(name, args).is_some() =>
        {
            venv_cleared(name, args).unwrap_or_default()
        }
        // `tar czf x.tgz proj --remove-files`, `zip -m x.zip -r proj`: archived, then gone.
        "tar" | "bsdtar" | "gtar" if args.iter().any(|a| a == "--remove-files") => {
            // `tar czf x.tgz …`: the first word bundles the options, and `f` takes the
            // word after it; `-f F`, `--file=F` name the archive too.
            let bundled = args.first().is_some_and(|a| !a.starts_with('-'));
            let mut archives: Vec<&str> = super::shell::option_values(args, &["-f"], &["--file"]);
            if bundled && args[0].contains('f') {
                archives.extend(args.get(1).map(String::as_str));
            }
            operands(args)
                .into_iter()
                .skip(usize::from(bundled))
                .filter(|o| !is_archive(o) && !archives.contains(o))
                .collect()
        }
        // `gzip -r .`, `zstd -r --rm .`: every file below replaced by its compressed copy.
        "gzip" | "bzip2" | "xz" | "lzma" | "lzip" | "pigz" | "pbzip2" | "zstd" | "lz4"
        | "brotli" | "compress"
            if has_flag(args, "r", &["recursive"])
                && !args.iter().any(|a| {
                    // `-S .bak` takes a value: only the letters before it are flags.
                    let flags = a
                        .strip_prefix('-')
                        .filter(|f| !f.starts_with('-'))
                        .map(|f| f.split('S').next().unwrap_or(f));
                    flags.is_some_and(|f| f.contains(['c', 'd', 't', 'l', 'k']))
                        || matches!(
                            a.as_str(),
                            "--stdout" | "--decompress" | "--test" | "--list" | "--keep"
                        )
                })
                && (!matches!(name, "zstd" | "lz4" | "brotli")
                    || args.iter().any(|a| a == "--rm")) =>
        {
            verb = "compresses away every file of";
            operands(args)
        }
        // `xz .git/HEAD`, `gzip src/*.rs`, `zstd --rm x`: each file replaced by its
        // compressed copy (`-k`, `-c`, `-d`, `-t`, `-l` keep it).
        "gzip" | "bzip2" | "xz" | "lzma" | "lzip" | "pigz" | "pbzip2" | "zstd" | "lz4"
        | "brotli" | "compress"
            if compresses_in_place(name, args) =>
        {
            verb = "compresses away";
            operands_with(args, &["-S", "-b", "-T", "-o"], &["suffix", "threads"])
        }
        "zip" if has_flag(args, "m", &["move"]) => operands(args)
            .into_iter()
            .filter(|o| !is_archive(o))
            .collect(),
        // `7z a -sdel x.7z .`: archived, then deleted.
        "7z" | "7za" | "7zr" | "7zz" if args.iter().any(|a| a == "-sdel") => operands(args)
            .into_iter()
            .skip(1)
            .filter(|o| !is_archive(o))
            .collect(),
        // `chattr -R +i .`: every file made one nobody may change, nagger's and Claude
        // Code's own included.
        "chattr"
            if has_flag(args, "R", &[])
                && args.iter().any(|a| {
                    (a.starts_with('+') || a.starts_with('=')) && a[1..].contains(['i', 'a'])
                }) =>
        {
            verb = "makes unchangeable";
            operands(args)
                .into_iter()
                .filter(|o| !o.starts_with(['+', '=']))
                .collect()
        }
        "rmdir" | "trash" | "trash-put" | "gio" | "srm" | "wipe" => operands(args),
        // `rsync -a --delete empty/ DEST`: what DEST holds and the source lacks goes.
        // `rsync -an --delete`: a dry run lists what would go.
        "rsync"
            if args
                .iter()
                .any(|a| a.starts_with("--delete") || a == "--del")
                && !has_flag(args, "n", &["dry-run"]) =>
        {
            let ops = operands(args);
            match ops.split_last() {
                Some((dest, sources)) if !sources.is_empty() => vec![*dest],
                _ => return None,
            }
        }
        // `rsync -a --remove-source-files ./ /backup/`: every file sent is removed here.
        // Picked by patterns or a list (`--include='*.o' --exclude='*'`, `--files-from`),
        // what goes is not on the line: asked about (see `removes_unnamed`).
        "rsync"
            if args
                .iter()
                .any(|a| matches!(a.as_str(), "--remove-source-files" | "--remove-sent-files"))
                && !has_flag(args, "n", &["dry-run"])
                && !args.iter().any(|a| {
                    a.starts_with("--include")
                        || a.starts_with("--files-from")
                        || a.starts_with("--filter")
                        || a == "-f"
                        || a.starts_with("--exclude-from")
                }) =>
        {
            verb = "moves away every file of";
            let ops = operands_with(args, RSYNC_VALUED_SHORT, RSYNC_VALUED_LONG);
            match ops.split_last() {
                Some((_, sources)) if !sources.is_empty() => sources.to_vec(),
                _ => return None,
            }
        }
        // `setfacl -R -m u::--- .`, `setfacl -R --set u::---,g::---,o::--- .`: the owner's
        // own entry set without reading or writing (or from a file nagger may not read).
        "setfacl" if has_flag(args, "R", &["recursive"]) && acl_locks_out(args) => {
            verb = "takes away the user's access to";
            operands_with(
                args,
                &["-m", "-M", "-x", "-X"],
                &[
                    "modify",
                    "modify-file",
                    "set",
                    "set-file",
                    "remove",
                    "remove-file",
                ],
            )
        }
        "mv" => {
            let ops = operands(args);
            if has_flag(args, "t", &["target-directory"]) {
                // `-t DIR`: the folder they go into is no source.
                let into = super::shell::option_values(args, &["-t"], &["--target-directory"]);
                ops.into_iter().filter(|o| !into.contains(o)).collect()
            } else {
                ops.split_last()
                    .map(|(_, rest)| rest.to_vec())
                    .unwrap_or_default()
            }
        }
        "find" if args.iter().any(|a| a == "-delete") => {
            let starts: Vec<&str> = super::shell::find_starts(args)
                .iter()
                .map(String::as_str)
                .collect();
            let filtered = args.iter().any(|a| FIND_FILTERS.contains(&a.as_str()));
            if filtered {
                // `find .. -name proj -delete`: a name may pick the project from its parent.
                names = find_names(args);
                if names.is_empty() {
                    return None;
                }
            }
            if starts.is_empty() { vec!["."] } else { starts }
        }
        "find" if super::targets::find_exec_deletes(args) => {
            names = find_names(args);
            // `-name '*'` picks everything; other tests with no name narrow it.
            names.retain(|n| !matches!(*n, "*" | "'*'" | "\"*\""));
            let filtered = args.iter().any(|a| FIND_FILTERS.contains(&a.as_str()))
                && !args.windows(2).any(|w| w[0] == "-name" && w[1] == "*");
            if names.is_empty() && filtered {
                return None;
            }
            super::shell::find_starts(args)
                .iter()
                .map(String::as_str)
                .collect()
        }
        _ => return None,
    };
    Some(Deletion {
        verb,
        names,
        targets,
    })
}

/// Temporary folders and the system's package caches, where anything may be deleted.
const TEMPORARY: &[&str] = &[
    "/tmp/",
    "/var/tmp/",
    "/dev/shm/",
    "/private/tmp/",
    "/private/var/folders/",
    "/var/folders/",
    "/run/user/",
    "/var/cache/",
    "/var/lib/apt/lists/",
    "/var/lib/dnf/",
];

/// A deletion outside the project of something no build makes again: another
/// repository, a data folder, another user's files, the home's own folders
/// (`rm -rf /data`, `rm -rf ../other-project`, `cd /srv/app && rm -rf *`,
/// `find ~/Documents -delete`). The project and the folders holding it, system folders
/// and homes whole have refusals of their own; temporary folders, the home's hidden
/// folders (caches and tools' state) and build output pass. Asked about: the guard cannot
/// tell what such a folder holds.
pub(super) fn elsewhere(
    command: &SimpleCommand,
    fed: &[String],
    cwd: &Cwd,
    root: &Path,
) -> Option<Finding> {
    let name = command.name();
    let args = command.args();
    let (verb, mut targets): (&str, Vec<String>) = match deletion(command) {
        // `rsync --delete SRC DEST`: a mirror of the project is routine; of anything
        // else (an empty folder), it empties DEST.
        Some(d) if name == "rsync" => {
            let ops = operands(args);
            let mirrors_project = ops.split_last().is_some_and(|(_, sources)| {
                sources.iter().all(|s| {
                    matches!(s.trim_end_matches('/'), "." | "$PWD" | "${PWD}" | "$(pwd)")
                        || s.trim_end_matches('/').is_empty()
                })
            });
            if mirrors_project {
                return None;
            }
            (
                "empties",
                d.targets.iter().map(|t| (*t).to_owned()).collect(),
            )
        }
        // `mv X /dev/null`: gone; moved anywhere else, it is still there.
        Some(d) if name == "mv" => {
            if operands(args).last() != Some(&"/dev/null") {
                return None;
            }
            (
                "deletes",
                d.targets.iter().map(|t| (*t).to_owned()).collect(),
            )
        }
        // `find DIR -name '*.py' -delete`: asked about unless every name is of junk.
        Some(d) if !d.names.is_empty() => {
            if d.names.iter().all(|n| junk(n)) {
                return None;
            }
            let starts: Vec<String> = super::shell::find_starts(args).to_vec();
            ("deletes what it finds in", starts)
        }
        // `gio open`, `gio info`: only `gio trash` and `gio remove` delete.
        Some(_)
            if name == "gio"
                && !matches!(operands(args).first(), Some(&("trash" | "remove" | "rm"))) =>
        {
            return None;
        }
        Some(d) => (d.verb, d.targets.iter().map(|t| (*t).to_owned()).collect()),
        None => match name {
            "rm" | "unlink" | "shred" | "srm" | "wipe" => (
                "deletes",
                operands(args).into_iter().map(str::to_owned).collect(),
            ),
            "truncate" => {
                // `-s 0`, `-r ref`: the values of its options are no files.
                let mut files = Vec::new();
                let mut skip = false;
                for arg in args {
                    if skip {
                        skip = false;
                    } else if matches!(arg.as_str(), "-s" | "-r" | "--size" | "--reference") {
                        skip = true;
                    } else if !arg.starts_with('-') {
                        files.push(arg.clone());
                    }
                }
                ("empties", files)
            }
            // `dd of=F`: F overwritten.
            "dd" => (
                "overwrites",
                args.iter()
                    .filter_map(|a| a.strip_prefix("of="))
                    .filter(|o| !o.starts_with("/dev/"))
                    .map(str::to_owned)
                    .collect(),
            ),
            // `cp /dev/null F`: F emptied.
            "cp" if operands(args).first() == Some(&"/dev/null") => (
                "empties",
                operands(args)
                    .last()
                    .map(|t| (*t).to_owned())
                    .into_iter()
                    .collect(),
            ),
            // `: > F`, `true > F`, `> F`: F emptied, nothing written into it.
            ":" | "true" | "" => (
                "empties",
                command
                    .writes_to
                    .iter()
                    .filter(|w| !command.appends_to.contains(w))
                    .cloned()
                    .collect(),
            ),
            _ => return None,
        },
    };
    // `echo ~/Documents | xargs rm -rf`: the words it is handed are targets too.
    if command.under_xargs() && matches!(name, "rm" | "unlink" | "shred" | "srm") {
        targets.extend(fed.iter().cloned());
    }
    // `rm -rf $(ls -d /home/*)`, `rm -rf $(find /opt -maxdepth 1)`: the folders a lister
    // in the substitution lists, taken whole.
    let listed: Vec<String> = targets
        .iter()
        .filter_map(|t| t.strip_prefix("$(").and_then(|t| t.strip_suffix(')')))
        .filter(|inner| {
            inner
                .split_whitespace()
                .next()
                .is_some_and(|p| matches!(p, "ls" | "find" | "echo" | "printf"))
        })
        .flat_map(|inner| inner.split_whitespace().skip(1))
        .filter(|w| w.starts_with(['/', '~']))
        .map(|w| w.trim_matches(['\'', '"']).to_owned())
        .collect();
    targets.extend(listed.iter().cloned());
    // `$HOME/Pictures`, `${HOME}/projects`: the home, spelled as a variable.
    let home_dir = std::env::var("HOME").ok().filter(|h| h.starts_with('/'));
    let targets: Vec<String> = targets
        .into_iter()
        .map(|t| {
            let t = t.trim_matches('"').to_owned();
            match &home_dir {
                Some(h) => ["$HOME", "${HOME}"]
                    .iter()
                    .find_map(|v| t.strip_prefix(v))
                    .filter(|rest| rest.is_empty() || rest.starts_with('/'))
                    .map_or(t.clone(), |rest| format!("{h}{rest}")),
                None => t,
            }
        })
        .collect();
    let root = root.to_str()?;
    let here = absolute_cwd(cwd, root);
    let home = std::env::var("HOME")
        .ok()
        .filter(|h| h.starts_with('/'))
        .map(|h| normalize(&h));
    targets.iter().find_map(|target| {
        let target = target.as_str();
        let full = match &here {
            Some(here) => absolute(target, here, root)?,
            None if target.starts_with(['/', '~']) => absolute(target, "/", root)?,
            None => return None,
        };
        let full = full.trim_end_matches('/').to_owned();
        let inside = |dir: &str| full == dir || full.starts_with(&format!("{dir}/"));
        let below_home = home
            .as_deref()
            .filter(|h| *h != "/")
            .and_then(|h| full.strip_prefix(h)?.strip_prefix('/'));
        // A temporary folder, unless the home or the project's own folder lies there.
        let neighbour = root.rsplit_once('/').is_some_and(|(parent, _)| {
            let shared = TEMPORARY.iter().any(|t| t.trim_end_matches('/') == parent);
            !parent.is_empty() && !shared && inside(parent)
        });
        let temporary =
            TEMPORARY.iter().any(|t| full.starts_with(t)) && below_home.is_none() && !neighbour;
        if full.is_empty()
            || inside(root)
            || holds(&full, root, "the project").is_some()
            || temporary
            || full.contains('$')
        {
            return None;
        }
        // The filesystem root, system folders and whole homes are refused elsewhere.
        // Refused by the checks of `rm`, `find`, `rsync`, `mv`, `chmod`/`chown`: the
        // others' system targets are asked about here.
        let refused_elsewhere = matches!(
            name,
            "rm" | "rmdir" | "find" | "rsync" | "mv" | "chmod" | "chown" | "chgrp"
        );
        if refused_elsewhere
            && super::targets::dangerous_target(&full, super::targets::Reach::Tree).is_some()
            && !listed.iter().any(|l| l == target)
        {
            return None;
        }
        // The home's tool folders (caches, toolchains, package stores) are made again;
        // its other folders and files (documents, histories, a password store, an
        // editor's or browser's profile) are the user's.
        if below_home.is_some_and(home_cache) {
            return None;
        }
        // Build output by the folders below what it shares with the home or the project
        // (a home or a project under `/tmp` or `~/builds` names nothing made again).
        let tail = below_home.map_or_else(
            || {
                let shared = full
                    .split('/')
                    .zip(root.split('/'))
                    .take_while(|(a, b)| a == b)
                    .count();
                full.split('/').skip(shared).collect::<Vec<_>>().join("/")
            },
            str::to_owned,
        );
        if remade(&tail) {
            return None;
        }
        Some(Finding::ask(
            "guard:elsewhere",
            format!("{verb} `{target}`, outside the project ({full}), which no build makes again"),
            "Ask the user to do it, or to confirm; work inside the project or a temporary \
             folder.",
        ))
    })
}

/// A deletion inside the project of many files at once (a folder, a glob, several
/// names) that takes changes git has not committed with it: work nothing brings back.
/// Files git keeps unchanged come back with `git checkout`; build output and untracked
/// files are not looked at here.
pub(super) fn loses_work(command: &SimpleCommand, cwd: &Cwd, root: &Path) -> Option<Finding> {
    let name = command.name();
    let args = command.args();
    if name == "git" {
        return forced_checkout(args, cwd, root);
    }
    let recursive = has_flag(args, "rR", &["recursive"]);
    let targets: Vec<&str> = match (name, deletion(command)) {
        ("rm", _) => {
            let ops = operands(args);
            let many = recursive || ops.len() > 1 || ops.iter().any(|o| o.contains(['*', '?']));
            if !many {
                return None;
            }
            ops
        }
        ("find", Some(d)) if d.names.is_empty() => d.targets,
        ("rsync" | "mv", Some(d)) => {
            // Only where it empties or throws away (see `elsewhere`).
            let ops = operands(args);
            let empties = name == "mv" && ops.last() == Some(&"/dev/null")
                || name == "rsync"
                    && ops.split_last().is_some_and(|(_, sources)| {
                        !sources
                            .iter()
                            .all(|s| matches!(s.trim_end_matches('/'), "." | ""))
                    });
            if !empties {
                return None;
            }
            d.targets
        }
        ("truncate" | "shred" | "unlink", _) => {
            let ops: Vec<&str> = operands(args)
                .into_iter()
                .filter(|o| !o.starts_with(['+', '-']) && !o.bytes().all(|b| b.is_ascii_digit()))
                .collect();
            if ops.len() < 2 && !ops.iter().any(|o| o.contains(['*', '?'])) {
                return None;
            }
            ops
        }
        _ => return None,
    };
    let root_s = root.to_str()?;
    let here = absolute_cwd(cwd, root_s)?;
    let mut wanted: Vec<(String, Option<String>)> = Vec::new();
    for target in targets.iter().take(32) {
        if target.contains(['$', '`']) {
            continue;
        }
        let Some(full) = absolute(target, &here, root_s) else {
            continue;
        };
        let full = full.trim_end_matches('/').to_owned();
        let inside = full == root_s || full.starts_with(&format!("{root_s}/"));
        if !inside || remade(&full[root_s.len()..]) {
            continue;
        }
        // `src/*.rs`: the folder, its files picked by the pattern.
        match full.rsplit_once('/') {
            Some((dir, last)) if last.contains(['*', '?', '[']) => {
                if !dir.contains(['*', '?', '[']) {
                    wanted.push((dir.to_owned(), Some(last.to_owned())));
                }
            }
            _ => wanted.push((full, None)),
        }
    }
    let changed = super::protect::uncommitted_among(&wanted)?;
    Some(Finding::ask(
        "guard:uncommitted",
        format!(
            "deletes or empties `{}`, which takes `{changed}` with it, changed since git last \
             kept it: that work is in no commit",
            targets.join(" ")
        ),
        "Commit or stash the changes first, or ask the user.",
    ))
}

/// `git checkout -f`, `git switch --force`: the other branch's files (or the last commit's)
/// put over the working tree's uncommitted changes. Refused where there are some.
fn forced_checkout(args: &[String], cwd: &Cwd, root: &Path) -> Option<Finding> {
    let i = super::git::verb_index(args);
    let sub = args.get(i)?.as_str();
    let rest = args.get(i + 1..).unwrap_or(&[]);
    // `git worktree remove --force W`: what W holds that git would keep goes with it.
    if sub == "worktree"
        && rest.first().is_some_and(|a| a == "remove")
        && has_flag(rest, "f", &["force"])
    {
        let tree = operands(&rest[1..]).into_iter().next()?;
        let here = absolute_cwd(cwd, root.to_str()?)?;
        let full = absolute(tree, &here, root.to_str()?)?;
        return match super::protect::worktree_work(Path::new(&full)) {
            Ok(None) => None,
            Ok(Some(file)) => Some(Finding::deny(
                "guard:git-discard",
                format!(
                    "removes a worktree with work git would keep (`git worktree remove \
                     --force`), `{file}` among it"
                ),
                "Commit there first, or ask the user.",
            )),
            Err(why) => Some(Finding::ask(
                "guard:git-discard",
                format!(
                    "removes a worktree by force (`git worktree remove --force`), whose \
                     uncommitted work cannot be told: {why}"
                ),
                "Remove it without `--force`, which keeps uncommitted work, or ask the user.",
            )),
        };
    }
    if !matches!(sub, "checkout" | "switch") || !has_flag(rest, "f", &["force"]) {
        return None;
    }
    let root = root.to_str()?.to_owned();
    let changed = super::protect::uncommitted_among(&[(root, None)])?;
    Some(Finding::deny(
        "guard:git-discard",
        format!("throws away uncommitted changes (`git {sub} --force`), `{changed}` among them"),
        "Commit or `git stash` first, or ask the user.",
    ))
}

/// An archiver told to remove what it archives, with names it reads from its input or a
/// file, or matches by a pattern below the folder (`zip -m x.zip -@`, `zip -mR x.zip
/// '*.json'`, `tar --remove-files -T list`): which files go is not on the line. Asked
/// about.
pub(super) fn removes_unnamed(command: &SimpleCommand) -> Option<Finding> {
    let args = command.args();
    let unnamed = match command.name() {
        "zip" if has_flag(args, "m", &["move"]) => {
            has_flag(args, "@R", &["names-stdin", "recurse-patterns"])
                || args.iter().any(|a| a == "-i" || a.starts_with("--include"))
        }
        // `systemd-tmpfiles --remove CONF`: what its configuration names, globs too.
        "systemd-tmpfiles" => args
            .iter()
            .any(|a| matches!(a.as_str(), "--remove" | "--create" | "--clean" | "--purge")),
        "tar" | "bsdtar" | "gtar" if args.iter().any(|a| a == "--remove-files") => {
            args.iter().any(|a| {
                a == "-T" || a.starts_with("--files-from") || a.starts_with("-T") && a.len() > 2
            }) || args
                .first()
                .is_some_and(|a| !a.starts_with('-') && a.contains('T'))
        }
        // `rsync --remove-source-files --files-from=list . dest`: the list names them.
        "rsync"
            if args
                .iter()
                .any(|a| matches!(a.as_str(), "--remove-source-files" | "--remove-sent-files")) =>
        {
            args.iter().any(|a| {
                a.starts_with("--files-from")
                    || a.starts_with("--include")
                    || a.starts_with("--exclude-from")
                    || a.starts_with("--filter")
                    || a == "-f"
                    || a.starts_with("--from0")
            })
        }
        // `setfacl --restore=acl.txt`: the file names the paths it changes.
        "setfacl"
            if args
                .iter()
                .any(|a| a == "--restore" || a.starts_with("--restore=")) =>
        {
            return Some(Finding::ask(
                "guard:self-protect-unsure",
                "sets the access of the files a saved list names (`setfacl --restore`), which \
                 may take the user's own access to nagger's files or Claude Code's settings away"
                    .to_owned(),
                "Set the access of named files, or ask the user.",
            ));
        }
        _ => false,
    };
    unnamed.then(|| {
        Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "removes the files `{}` archives, named by its input, a list file or a \
                 pattern, which may be nagger's own files or Claude Code's settings",
                command.name()
            ),
            "Name the files, or archive without removing them.",
        )
    })
}

/// rsync's options that take the next word as their value (`-e ssh`, `--exclude '*'`,
/// `--files-from F`).
const RSYNC_VALUED_SHORT: &[&str] = &["-e", "-f", "-T", "-B", "-M"];
const RSYNC_VALUED_LONG: &[&str] = &[
    "rsh",
    "filter",
    "exclude",
    "include",
    "exclude-from",
    "include-from",
    "files-from",
    "chmod",
    "chown",
    "log-file",
    "temp-dir",
    "partial-dir",
    "backup-dir",
    "compare-dest",
    "copy-dest",
    "link-dest",
    "block-size",
    "port",
    "password-file",
    "timeout",
    "bwlimit",
    "remote-option",
    "suffix",
    "max-size",
    "min-size",
    "usermap",
    "groupmap",
    "rsync-path",
    "out-format",
    "log-file-format",
    "contimeout",
    "sockopts",
    "outbuf",
    "checksum-choice",
    "compress-choice",
    "iconv",
    "write-batch",
    "only-write-batch",
    "read-batch",
    "info",
    "debug",
    "max-delete",
    "modify-window",
    "stop-after",
    "stop-at",
    "address",
];

/// Whether a `setfacl` line sets the owner's own entry (`u::`) without reading or
/// writing (`-m`, `--modify`, `--set`), or takes its entries from a file (`-M`, `--set-file`,
/// `--restore`) that does not grant them, or cannot be read now.
fn acl_locks_out(args: &[String]) -> bool {
    let owner_locked = |spec: &str| {
        spec.split([',', '\n'])
            .map(str::trim)
            .filter(|e| !e.starts_with('#'))
            .any(|entry| {
                let entry = entry.strip_prefix("default:").unwrap_or(entry);
                let entry = entry.strip_prefix("d:").unwrap_or(entry);
                let perms = entry
                    .strip_prefix("u::")
                    .or_else(|| entry.strip_prefix("user::"));
                perms.is_some_and(|p| !(p.contains('r') && p.contains('w')))
            })
    };
    let specs = super::shell::option_values(
        args,
        &["-m", "-M"],
        &["--modify", "--set", "--modify-file", "--set-file"],
    );
    if args
        .iter()
        .any(|a| a == "--restore" || a.starts_with("--restore="))
    {
        return true;
    }
    let files: Vec<&str> =
        super::shell::option_values(args, &["-M"], &["--modify-file", "--set-file"]);
    let file_locks = files.iter().any(|f| {
        crate::base::files::open_regular(std::path::Path::new(f))
            .ok()
            .and_then(|file| {
                let mut text = String::new();
                std::io::Read::read_to_string(&mut std::io::Read::take(file, 64 * 1024), &mut text)
                    .ok()?;
                Some(text)
            })
            .is_none_or(|text| owner_locked(&text))
    });
    file_locks
        || specs
            .iter()
            .filter(|s| !files.contains(s))
            .any(|s| owner_locked(s))
}

/// Whether a `chmod` mode takes the owner's reading or writing away (`000`, `a-rwx`,
/// `u-w`, `0`), rather than granting something.
fn locks_out(mode: &str) -> bool {
    if !mode.is_empty() && mode.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        let owner = if mode.len() >= 3 {
            mode.as_bytes()[mode.len() - 3]
        } else {
            b'0'
        };
        return (owner - b'0') & 6 != 6;
    }
    mode.split(',').any(|clause| {
        let who: String = clause.chars().take_while(|c| "ugoa".contains(*c)).collect();
        let owner = who.is_empty() || who.contains('u') || who.contains('a');
        let rest = &clause[who.len()..];
        owner
            && ((rest.starts_with('-') && rest.contains(['r', 'w']))
                || (rest.starts_with('=') && !(rest.contains('r') && rest.contains('w'))))
    })
}

/// Whether `word` names an archive (`x.tgz`, `backup.tar.gz`, `a.zip`).
fn is_archive(word: &str) -> bool {
    [
        ".tar", ".tgz", ".gz", ".bz2", ".xz", ".zst", ".zip", ".tbz", ".txz", ".7z",
    ]
    .iter()
    .any(|e| word.ends_with(e))
}

/// The folder `cwd` names, as an absolute path (`~` left as it is).
fn absolute_cwd(cwd: &Cwd, root: &str) -> Option<String> {
    match cwd {
        Cwd::Known(dir) if dir.is_empty() || dir == "." => Some(root.to_owned()),
        Cwd::Known(dir) if dir.starts_with(['/', '~']) => Some(normalize(dir)),
        Cwd::Known(dir) => Some(normalize(&format!("{root}/{dir}"))),
        Cwd::Unknown => None,
    }
}

/// `target` as an absolute path, from `here`.
fn absolute(target: &str, here: &str, root: &str) -> Option<String> {
    let target = target.trim();
    if target.is_empty() {
        return None;
    }
    for word in PROJECT_WORDS {
        if let Some(rest) = target.strip_prefix(word) {
            return Some(normalize(&format!("{root}/{rest}")));
        }
    }
    for word in HERE_WORDS {
        if let Some(rest) = target.strip_prefix(word) {
            return Some(normalize(&format!("{here}/{rest}")));
        }
    }
    // `$TMPDIR/../x`: climbing out of a folder of the environment, read through it.
    let filled;
    let target = if target.starts_with(['$', '`']) {
        filled = normalize(target);
        filled.as_str()
    } else {
        target
    };
    if target.starts_with('$') || target.contains('`') {
        return None;
    }
    let home = std::env::var("HOME").unwrap_or_default();
    let expand = |p: &str| -> String {
        match p.strip_prefix('~') {
            Some(rest) if (rest.is_empty() || rest.starts_with('/')) && !home.is_empty() => {
                format!("{home}{rest}")
            }
            _ => p.to_owned(),
        }
    };
    let full = if target.starts_with(['/', '~']) {
        expand(target)
    } else {
        format!("{}/{target}", expand(here))
    };
    Some(normalize(&full))
}

/// What deleting `path` takes with it of the folder `root` (`noun`: "the project"): the
/// folder itself, or a folder holding it. Globs in a part are matched against `root`.
fn holds(path: &str, root: &str, noun: &str) -> Option<String> {
    let path = path.trim_end_matches('/');
    let (path, everything) = match path.strip_suffix("/*").or_else(|| path.strip_suffix("/.*")) {
        Some(dir) => (dir, true),
        None => (path, false),
    };
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let root_parts: Vec<&str> = root.split('/').filter(|p| !p.is_empty()).collect();
    if parts.len() > root_parts.len() || !path.starts_with('/') {
        return None;
    }
    let matches = parts
        .iter()
        .zip(&root_parts)
        .all(|(p, r)| p == r || wildcard(p, r));
    if !matches {
        return None;
    }
    let all = if everything { "everything in " } else { "" };
    Some(if parts.len() == root_parts.len() {
        format!("{all}{noun} itself ({root})")
    } else {
        format!("{all}a folder holding {noun} ({root})")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::guard::protect::Folders;
    use crate::domain::guard::shell;

    fn judged(line: &str) -> Option<String> {
        let parsed = shell::parse(line);
        let mut folders = Folders::new(Cwd::Known(String::new()));
        let root = Path::new("/work/acme/proj");
        for command in &parsed.commands {
            let cwd = folders.cwd_of(command);
            folders.step(command);
            if let Some(f) = deleted(command, &cwd, &Cwd::Unknown, root) {
                return Some(f.harm);
            }
        }
        None
    }

    fn elsewhere_judged(line: &str) -> Option<String> {
        let parsed = shell::parse(line);
        let mut folders = Folders::new(Cwd::Known(String::new()));
        let root = Path::new("/work/acme/proj");
        parsed.commands.iter().find_map(|command| {
            let cwd = folders.cwd_of(command);
            folders.step(command);
            elsewhere(command, &[], &cwd, root).map(|f| f.harm)
        })
    }

    #[test]
    fn deletions_outside_the_project_ask_unless_remade_or_temporary() {
        for line in [
            "rm -rf /data",
            "rm -rf /data/*",
            "rm -r ../other-project",
            "rm -rf ../../work2",
            "cd /srv/app && rm -rf ./*",
            "cd ..; rm -rf other",
            "pushd ../web && rm -rf src",
            "find /backups -delete",
            "find ../notes -type f -delete",
            "rmdir /data/empty",
            "rm /data/users.db",
            "unlink ../other/README.md",
            "shred -u /archive/*.tar",
            "truncate -s 0 /data/app.db",
            "chmod -R 000 /data",
            "chown -R nobody ../shared",
            "rm -rf /work/acme/docs",
            "mv /data /dev/null",
            "rsync -a --delete /tmp/empty/ /data/",
            "find /data -name '*.parquet' -delete",
            "cp /dev/null /data/app.db",
            ": > /data/app.db",
            "rm -rf $(ls -d /srv2/*)",
        ] {
            assert!(elsewhere_judged(line).is_some(), "{line}");
        }
        for line in [
            "rm -rf build",
            "rm -rf /work/acme/proj/build",
            "rm -rf /tmp/x /var/tmp/y",
            "rm -rf ../sibling/out",
            "rm -rf ../proj-build",
            "rm -rf /work/target",
            "rm -rf ../web/node_modules",
            "rm -f /data/logs/app.log",
            "rsync -a --delete ./ ../backup/",
            "mv ../old /tmp/",
            "find /data -name '*.pyc' -delete",
            "rm -rf \"$BUILD_DIR\"",
            "chmod -R u+w ../shared",
            "cd /tmp/x && rm -rf *",
            "rsync -a --delete ./ /backup/proj/",
            ": > /tmp/x.log",
            "echo done > /data/out.txt",
            "mv /data/a.csv /data/b.csv",
        ] {
            assert_eq!(elsewhere_judged(line), None, "{line}");
        }
    }

    #[test]
    fn the_project_and_its_parents_by_any_route() {
        for line in [
            "rm -rf \"$CLAUDE_PROJECT_DIR\"",
            "rm -rf ${CLAUDE_PROJECT_DIR}/",
            "cd .. && rm -rf proj",
            "cd ..; rm -rf ./proj/",
            "cd ../.. || rm -r acme",
            "pushd .. && rm -rf pr*",
            "rm -rf ../proj",
            "rm -rf ../../acme",
            "rm -rf /work/acme/proj",
            "rm -rf /work/*",
            "cd / && rm -rf work",
            "mv ../proj /tmp/x",
            "rm -rf \"$(pwd)\"",
            "cd src && rm -rf ..",
            "find .. -delete",
            "rmdir ../proj",
        ] {
            assert!(judged(line).is_some(), "{line}");
        }
        for line in [
            "rm -rf build",
            "cd build && rm -rf *",
            "rm -rf ../other",
            "cd .. && rm -rf other/proj",
            "rm -rf /tmp/proj",
            "find . -name '*.pyc' -delete",
            "mv proj.tgz ../",
            "rm -r target/debug",
        ] {
            assert_eq!(judged(line), None, "{line}");
        }
    }
}
