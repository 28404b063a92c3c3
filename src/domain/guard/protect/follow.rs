//! Walkers that follow symbolic links while they change what they walk: `find -L … -delete`,
//! `chmod -R -L`, `chown -R -L`, and `grep -R`, `rg -L`, `fd -L` or `find -L` whose list
//! feeds a program that changes files (`| xargs rm`, `$(find -L …)` as its operands).
//! Through a link in the folders they walk they reach wherever it points: a link to
//! `.claude`, to the project's root or to the home reaches nagger's own files. The folders
//! are looked through on disk, bounded, never following a link; a link found that leads
//! to nagger's files (or to a folder above them) is refused.

use std::path::{Path, PathBuf};

use super::super::shell::{SimpleCommand, Via, find_starts, short_cluster};

/// Most entries looked at under the folders one command walks.
const MAX_ENTRIES: usize = 4096;
/// Deepest folder level looked into.
const MAX_DEPTH: usize = 12;
/// Most links resolved for one command.
const MAX_LINKS: usize = 64;

/// What the check needs from self-protection.
pub(super) struct Walk<'a> {
    /// The folders the command's relative paths start from, on disk (`None`: only known
    /// as the shell runs).
    pub(super) base: Option<PathBuf>,
    /// The whole command line, to see what the walker's list feeds.
    pub(super) line: Option<&'a [SimpleCommand]>,
    /// Whether a real path on disk is nagger's or a folder above nagger's files.
    pub(super) reaches: &'a dyn Fn(&Path) -> bool,
}

/// The link through which `command` follows into nagger's files while it changes what it
/// walks (or hands its list to a program that does): (the link, where it leads).
pub(super) fn followed(command: &SimpleCommand, walk: &Walk) -> Option<(String, String)> {
    let starts = walked(command, walk.line)?;
    let base = walk.base.as_ref()?;
    let mut entries = 0usize;
    let mut links = 0usize;
    for start in starts.iter().take(16) {
        let path = match start.strip_prefix("~/") {
            Some(rest) => PathBuf::from(std::env::var_os("HOME")?).join(rest),
            None => base.join(start),
        };
        // A start that is itself a link is followed by every walker.
        let mut stack = vec![(path, 0usize)];
        while let Some((dir, depth)) = stack.pop() {
            let Ok(read) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in read.flatten() {
                entries += 1;
                if entries > MAX_ENTRIES || links > MAX_LINKS {
                    return None;
                }
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path = entry.path();
                if kind.is_symlink() {
                    links += 1;
                    if let Ok(real) = std::fs::canonicalize(&path)
                        && (walk.reaches)(&real)
                    {
                        return Some((
                            path.to_string_lossy().into_owned(),
                            real.to_string_lossy().into_owned(),
                        ));
                    }
                } else if kind.is_dir() && depth < MAX_DEPTH {
                    stack.push((path, depth + 1));
                }
            }
        }
    }
    None
}

/// The folders `command` walks following links, when what it walks is changed (by it or
/// by what its list feeds); `None` when it follows no link or changes nothing.
fn walked(command: &SimpleCommand, line: Option<&[SimpleCommand]>) -> Option<Vec<String>> {
    let args = command.args();
    let feeds = || feeds_a_changer(command, line);
    match command.name() {
        "find" | "gfind" => {
            let follows = args.iter().any(|a| a == "-L" || a == "-follow");
            let changes = args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "-delete" | "-exec" | "-execdir" | "-ok" | "-okdir" | "-fprint" | "-fprint0"
                )
            });
            (follows && (changes || feeds())).then(|| find_starts(args).to_vec())
        }
        "chmod" | "chown" | "chgrp" | "setfacl" => {
            let recursive = args
                .iter()
                .any(|a| a == "--recursive" || short_cluster(a).is_some_and(|f| f.contains('R')));
            let follows = args.iter().any(|a| a == "-L");
            (recursive && follows).then(|| operands_after(args, 1))
        }
        "grep" | "egrep" | "fgrep" | "rgrep" => {
            let follows = command.name() == "rgrep"
                || args.iter().any(|a| {
                    a == "--dereference-recursive"
                        || short_cluster(a).is_some_and(|f| f.contains('R'))
                });
            (follows && feeds()).then(|| operands_after(args, 1))
        }
        "rg" => {
            let follows = args
                .iter()
                .any(|a| a == "--follow" || short_cluster(a).is_some_and(|f| f.contains('L')));
            (follows && feeds()).then(|| operands_after(args, 1))
        }
        "fd" | "fdfind" => {
            let follows = args
                .iter()
                .any(|a| a == "--follow" || short_cluster(a).is_some_and(|f| f.contains('L')));
            let runs = args
                .iter()
                .any(|a| matches!(a.as_str(), "-x" | "-X" | "--exec" | "--exec-batch"));
            (follows && (runs || feeds())).then(|| operands_after(args, 1))
        }
        _ => None,
    }
    .map(|mut starts| {
        if starts.is_empty() {
            starts.push(".".to_owned());
        }
        starts
    })
}

/// The operands after the first `skip` of them (a mode, an owner, a pattern).
fn operands_after(args: &[String], skip: usize) -> Vec<String> {
    let mut operands = Vec::new();
    let mut options = true;
    for a in args {
        if options && a == "--" {
            options = false;
            continue;
        }
        if options && a.starts_with('-') && a.len() > 1 {
            continue;
        }
        operands.push(a.clone());
    }
    operands.into_iter().skip(skip).collect()
}

/// Whether what `command` prints goes to a program that changes files: the next stage of
/// its pipeline run through `xargs` or `parallel`, or a command whose operands hold it as
/// a substitution (`perl -pi … $(find -L …)`).
fn feeds_a_changer(command: &SimpleCommand, line: Option<&[SimpleCommand]>) -> bool {
    let Some(line) = line else {
        return false;
    };
    let in_substitution = command
        .via
        .iter()
        .any(|v| matches!(v, Via::Substitution | Via::Backticks));
    if in_substitution {
        return true;
    }
    line.iter().any(|c| {
        c.pipeline == command.pipeline
            && c.stage == command.stage + 1
            && (c.under_xargs() || matches!(c.name(), "xargs" | "parallel" | "while"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn find_start_points_come_before_the_expression() {
        assert_eq!(
            find_starts(&words("-L src lib -name x -delete")).to_vec(),
            vec!["src", "lib"]
        );
        assert_eq!(
            find_starts(&words("-L -name x")).to_vec(),
            Vec::<String>::new()
        );
        assert_eq!(find_starts(&words("-O2 . ( -name a )")).to_vec(), vec!["."]);
    }

    #[test]
    fn operands_skip_options_and_the_mode() {
        assert_eq!(operands_after(&words("-R -L 000 src"), 1), vec!["src"]);
        assert_eq!(
            operands_after(&words("-rlR hooks src lib"), 1),
            vec!["src", "lib"]
        );
    }

    #[test]
    fn links_on_disk_are_found_without_being_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::os::unix::fs::symlink("../../.claude", root.join("src/deep/cl")).unwrap();
        std::os::unix::fs::symlink("../src", root.join("src/loop")).unwrap();
        let claude = std::fs::canonicalize(root.join(".claude")).unwrap();
        let reaches = |p: &Path| p == claude;
        let walk = Walk {
            base: Some(root.to_path_buf()),
            line: None,
            reaches: &reaches,
        };
        let parsed = crate::domain::guard::shell::parse("find -L src -name '*.json' -delete");
        let (link, to) = followed(&parsed.commands[0], &walk).expect("found");
        assert!(link.ends_with("src/deep/cl"), "{link}");
        assert_eq!(Path::new(&to), claude);
        for harmless in [
            "find src -name '*.json' -delete",
            "find -L src -name '*.json'",
            "chmod -R 000 src",
            "grep -R hooks src",
        ] {
            let parsed = crate::domain::guard::shell::parse(harmless);
            assert!(followed(&parsed.commands[0], &walk).is_none(), "{harmless}");
        }
    }
}
