//! The guard's checks on one simple command: what it destroys (trees, system folders,
//! disks, history) judged from its program, options and operands.

use super::finding::{Finding, operands};
use super::shell::{SimpleCommand, has_flag, is_long, short_cluster};
use super::targets::{Reach, dangerous_target, empty_variable_root, is_raw_device, lexical};

const ASK_USER: &str = "Ask the user to do it.";
const SPECIFIC_PATHS: &str = "Work on specific paths inside the project instead.";

/// The first of `targets` that `reach` makes a disaster, described.
fn first_dangerous<'a>(targets: impl IntoIterator<Item = &'a str>, reach: Reach) -> Option<String> {
    targets.into_iter().find_map(|t| dangerous_target(t, reach))
}

/// Every check on one simple command. `fed` are the words an `xargs` or `parallel` in front
/// of it receives from the earlier stages of its pipeline. `below`: the folder below the
/// working directory an earlier `cd` of the line went to (`build` in
/// `cd build && rm -rf *`), which relative operands of `rm` are inside.
pub(super) fn command_findings(
    command: &SimpleCommand,
    fed: &[String],
    below: Option<&str>,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let name = command.name();
    let args = command.args();
    if command.sudo && matches!(name, "rm" | "chmod" | "chown" | "chgrp") {
        findings.push(Finding::deny(
            "guard:sudo-destructive",
            format!("runs `{name}` as root"),
            "Do not use sudo; ask the user to do it.",
        ));
    }
    let mut targets: Vec<&str> = operands(args);
    targets.extend(fed.iter().map(String::as_str));
    // `shred -u $(git ls-files)`, `git ls-files | xargs rm`: every file git keeps.
    let tracked = targets.iter().any(|t| {
        let inner = t
            .strip_prefix("$(")
            .and_then(|i| i.strip_suffix(')'))
            .or_else(|| t.strip_prefix('`').and_then(|i| i.strip_suffix('`')));
        inner.is_some_and(|inner| {
            let words: Vec<&str> = inner.split_whitespace().collect();
            words.first() == Some(&"git")
                && words
                    .iter()
                    .position(|w| *w == "ls-files")
                    .is_some_and(|at| {
                        // `--others`, `--modified`, a pathspec: a part of them, judged elsewhere.
                        words[at + 1..].iter().all(|w| {
                            w.starts_with("--full") || matches!(*w, "-z" | "--cached" | "-c")
                        })
                    })
        })
    }) || fed.iter().any(|f| f == "\u{0}git-ls-files");
    if tracked && matches!(name, "rm" | "shred" | "unlink" | "srm" | "truncate") {
        findings.push(Finding::deny(
            "guard:rm-rf",
            "deletes every file git tracks in the project".into(),
            "Delete specific paths inside the project instead.",
        ));
    }
    match name {
        "rm" => {
            let inside: Vec<String> = targets
                .iter()
                .map(|t| match below {
                    Some(dir) if !t.starts_with(['/', '~', '$']) => format!("{dir}/{t}"),
                    _ => (*t).to_owned(),
                })
                .collect();
            let inside: Vec<&str> = inside.iter().map(String::as_str).collect();
            findings.extend(rm(args, &inside));
        }
        "git" => {
            // Settings handed in by the environment count as `-c` ones.
            let from_env = env_git_settings(&command.env);
            if from_env.is_empty() {
                findings.extend(super::git::git_danger(args));
            } else {
                let mut with: Vec<String> = from_env
                    .into_iter()
                    .flat_map(|kv| ["-c".to_owned(), kv])
                    .collect();
                with.extend(args.iter().cloned());
                findings.extend(super::git::git_danger(&with));
            }
            findings.extend(super::git_later::config_runs_later(args));
        }
        "chmod" | "chown" | "chgrp" => findings.extend(ownership(name, args, &targets)),
        "mv" => findings.extend(mv(args, &targets)),
        "rsync" => findings.extend(rsync(args)),
        "find" => {
            findings.extend(find(args));
            findings.extend(runs_found(args));
        }
        // `ddrescue [options] infile outfile [mapfile]`.
        "ddrescue" | "dd_rescue" => {
            if let Some(device) = operands(args).get(1).filter(|t| is_raw_device(t)) {
                findings.push(device_write(device));
            }
        }
        "dd" => {
            if let Some(device) = args
                .iter()
                .filter_map(|a| a.strip_prefix("of="))
                .find(|target| is_raw_device(target))
            {
                findings.push(device_write(device));
            }
        }
        "tee" | "cp" | "install" => {
            let written: Vec<&str> = if name == "tee" {
                targets.clone()
            } else {
                targets.last().copied().into_iter().collect()
            };
            if let Some(device) = written.iter().find(|t| is_raw_device(t)) {
                findings.push(device_write(device));
            }
            if name == "tee"
                && let Some(what) = written.iter().find_map(|t| system_file(t))
            {
                findings.push(system_write(&what));
            }
        }
        _ => findings.extend(disk(name, args, &targets)),
    }
    for target in &command.writes_to {
        if is_raw_device(target) {
            findings.push(device_write(target));
        } else if let Some(what) = system_file(target) {
            findings.push(system_write(&what));
        }
    }
    findings.extend(computed(command));
    findings
}

/// `key=value` settings git reads from its environment: `GIT_CONFIG_PARAMETERS`
/// (`'k'='v' 'k2'='v2'`) and `GIT_CONFIG_COUNT` with `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`.
fn env_git_settings(env: &[String]) -> Vec<String> {
    let get = |name: &str| {
        env.iter()
            .find_map(|e| e.strip_prefix(name).and_then(|r| r.strip_prefix('=')))
    };
    let mut out = Vec::new();
    if let Some(params) = get("GIT_CONFIG_PARAMETERS") {
        let unquoted: String = params
            .chars()
            .filter(|c| !matches!(c, '\'' | '"'))
            .collect();
        out.extend(
            unquoted
                .split_whitespace()
                .filter(|kv| kv.contains('='))
                .take(32)
                .map(str::to_owned),
        );
    }
    for n in 0..16 {
        let (Some(k), Some(v)) = (
            get(&format!("GIT_CONFIG_KEY_{n}")),
            get(&format!("GIT_CONFIG_VALUE_{n}")),
        ) else {
            continue;
        };
        out.push(format!("{k}={v}"));
    }
    out
}

/// A file of the system (`/etc/hosts`), not counting devices, which have their own check.
fn system_file(target: &str) -> Option<String> {
    if lexical(target.trim()).starts_with("/dev/") {
        return None;
    }
    dangerous_target(target, Reach::Entry)
}

fn device_write(device: &str) -> Finding {
    Finding::deny(
        "guard:device-write",
        format!("writes onto the device {device}"),
        ASK_USER,
    )
}

fn system_write(what: &str) -> Finding {
    Finding::deny(
        "guard:system-write",
        format!("overwrites {what}"),
        SPECIFIC_PATHS,
    )
}

fn rm(args: &[String], targets: &[&str]) -> Option<Finding> {
    let reach = if has_flag(args, "rR", &["recursive"]) {
        Reach::Tree
    } else {
        Reach::Entry
    };
    if let Some(what) = first_dangerous(targets.iter().copied(), reach) {
        return Some(Finding::deny(
            "guard:rm-rf",
            format!("deletes {what}"),
            "Delete specific paths inside the project instead.",
        ));
    }
    let (variable, what) = targets
        .iter()
        .find_map(|t| empty_variable_root(t))
        .filter(|_| reach == Reach::Tree)?;
    Some(Finding::ask(
        "guard:rm-empty-variable",
        format!("deletes {what} if ${variable} is empty or unset"),
        "Write the path out, or use \"${VAR:?}\" so an empty variable stops the command.",
    ))
}

/// `chmod -R`, `chown -R`, `chgrp -R` over a system folder or home, and world-writable trees.
fn ownership(name: &str, args: &[String], targets: &[&str]) -> Option<Finding> {
    // The first operand is the mode or owner, unless given by `--reference`.
    let by_reference = args.iter().any(|a| is_long(a, "reference"));
    let paths = targets.get(usize::from(!by_reference)..).unwrap_or(&[]);
    if !has_flag(args, "R", &["recursive"]) {
        // `chmod 000 /*`, `chown nobody ~`: the root, a home or every top folder of one
        // at once, which every program and login goes through.
        let what = paths.iter().find_map(|p| super::targets::whole_tree(p))?;
        if name != "chmod" {
            return Some(Finding::ask(
                "guard:recursive-permissions",
                format!("changes the owner of {what}"),
                SPECIFIC_PATHS,
            ));
        }
        let mode = targets.first().filter(|_| !by_reference)?;
        return (world_writable(mode) || locks_owner_out(mode)).then(|| {
            Finding::deny(
                "guard:recursive-permissions",
                format!("changes the permissions of {what} to `{mode}`"),
                SPECIFIC_PATHS,
            )
        });
    }
    if let Some(what) = first_dangerous(paths.iter().copied(), Reach::SystemTree) {
        let verb = if name == "chmod" {
            "changes the permissions of"
        } else {
            "changes the owner of"
        };
        return Some(Finding::deny(
            "guard:recursive-permissions",
            format!("{verb} {what}"),
            SPECIFIC_PATHS,
        ));
    }
    let mode = targets
        .first()
        .filter(|_| name == "chmod" && !by_reference)?;
    world_writable(mode).then(|| {
        Finding::deny(
            "guard:chmod-777-recursive",
            format!("makes whole trees world-writable (mode {mode})"),
            "Grant only the permissions needed, on specific files.",
        )
    })
}

/// `mv / x`, `mv ~ x`: moving a system folder, a home or the working directory away.
fn mv(args: &[String], targets: &[&str]) -> Option<Finding> {
    let into_dir = args.iter().any(|a| {
        is_long(a, "target-directory") || short_cluster(a).is_some_and(|f| f.contains('t'))
    });
    // `-t DIR`: the folder they go into is no source.
    let into: Vec<&str> = super::shell::option_values(args, &["-t"], &["--target-directory"]);
    let sources = if into_dir || targets.len() < 2 {
        targets
    } else {
        &targets[..targets.len() - 1]
    };
    let sources = sources.iter().copied().filter(|s| !into.contains(s));
    let what = first_dangerous(sources, Reach::Tree)?;
    Some(Finding::deny(
        "guard:mv-away",
        format!("moves {what} away"),
        SPECIFIC_PATHS,
    ))
}

/// `rsync --delete src/ /`: mirroring onto a system folder or home deletes what is there.
fn rsync(args: &[String]) -> Option<Finding> {
    let deletes = args.iter().any(|a| {
        [
            "delete",
            "del",
            "delete-before",
            "delete-during",
            "delete-after",
            "delete-excluded",
        ]
        .iter()
        .any(|full| is_long(a, full))
            && !a.starts_with("--delete-m")
    });
    if !deletes {
        return None;
    }
    let destination = operands(args).last().copied()?;
    // `host:/path` and `user@host:path`: the path on the remote side.
    let path = match destination.split_once(':') {
        Some((host, path)) if !host.contains('/') => {
            if path.is_empty() {
                "~"
            } else {
                path
            }
        }
        _ => destination,
    };
    let what = dangerous_target(path, Reach::Tree)?;
    Some(Finding::deny(
        "guard:rsync-delete",
        format!("mirrors onto {what}, deleting what is not in the source"),
        SPECIFIC_PATHS,
    ))
}

/// Tests that narrow what `find` acts on.
pub(super) const FIND_FILTERS: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-newer",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-size",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-empty",
    "-links",
    "-inum",
    "-samefile",
    "-lname",
    "-ilname",
    "-perm",
    "-newermt",
    "-anewer",
    "-cnewer",
];

/// The names a `find` looks for (`-name`, `-iname`).
pub(super) fn find_names(args: &[String]) -> Vec<&str> {
    args.windows(2)
        .filter(|w| matches!(w[0].as_str(), "-name" | "-iname"))
        .map(|w| w[1].as_str())
        .collect()
}

/// `find / -delete`, `find ~ -exec rm -rf {} +`: deleting everything under a start point
/// that must not go. A name or age filter makes it routine cleaning, except from `/` or a
/// system folder.
fn find(args: &[String]) -> Option<Finding> {
    let starts: Vec<&str> = super::shell::find_starts(args)
        .iter()
        .map(String::as_str)
        .collect();
    let mut deletes = false;
    let mut k = 0;
    while k < args.len() {
        let arg = args[k].as_str();
        if arg == "-delete" {
            deletes = true;
        }
        k += 1;
    }
    deletes |= super::targets::find_exec_deletes(args);
    if !deletes {
        return None;
    }
    let starts = if starts.is_empty() { vec!["."] } else { starts };
    // `find . -name .git -exec rm -rf {} +`: the name picks the repositories' own
    // history (unless `-prune` or a negation leaves those folders out).
    let pruned = args
        .iter()
        .skip_while(|a| *a != "-prune")
        .any(|a| matches!(a.as_str(), "-o" | "-or"));
    if !pruned
        && let Some(name) = args
            .windows(3)
            .filter(|w| !matches!(w[0].as_str(), "!" | "-not"))
            .find_map(|w| {
                let name = match w[1].as_str() {
                    "-name" => w[2].clone(),
                    "-iname" => w[2].to_ascii_lowercase(),
                    _ => return None,
                };
                (name == ".git" || super::paths::wildcard(&name, ".git")).then(|| w[2].as_str())
            })
    {
        return Some(Finding::deny(
            "guard:find-delete",
            format!("deletes every repository's .git directory it finds (`-name {name}`)"),
            SPECIFIC_PATHS,
        ));
    }
    let filtered = args.iter().any(|a| FIND_FILTERS.contains(&a.as_str()));
    let what = if filtered {
        starts.iter().find_map(|s| {
            let whole_root =
                dangerous_target(s, Reach::Tree).filter(|w| w.ends_with("the filesystem root"));
            whole_root.or_else(|| dangerous_target(s, Reach::Entry))
        })
    } else {
        first_dangerous(starts.iter().copied(), Reach::Tree)
    }?;
    Some(Finding::deny(
        "guard:find-delete",
        format!("deletes what it finds in {what}"),
        SPECIFIC_PATHS,
    ))
}

/// `find . -exec {} \;`, `find bin -execdir ./{} --flag \;`: each file found is run as
/// a program, and what those programs do cannot be read.
fn runs_found(args: &[String]) -> Option<Finding> {
    let program = args
        .windows(2)
        .find(|w| {
            matches!(w[0].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") && w[1].contains("{}")
        })
        .map(|w| w[1].as_str())?;
    Some(Finding::ask(
        "guard:find-runs-found",
        format!("runs each file it finds as a program (`{program}`)"),
        "Name the program to run on the files instead.",
    ))
}

/// Formatting, wiping and partitioning disks.
fn disk(name: &str, args: &[String], targets: &[&str]) -> Option<Finding> {
    let formats = || {
        Some(Finding::deny(
            "guard:disk",
            format!("formats or wipes a disk (`{name}`)"),
            ASK_USER,
        ))
    };
    // `mkfs.ext4 -F ./disk.img` formats a file: only devices (and what may be one) count.
    let on_device = || {
        targets
            .iter()
            .any(|t| is_raw_device(t) || t.starts_with("/dev/") || t.starts_with('$'))
    };
    let sub = targets.first().copied().unwrap_or("");
    let words_any = |set: &[&str]| targets.iter().any(|t| set.contains(t));
    match name {
        "mke2fs" | "mkswap" | "mkdosfs" | "mkntfs" | "newfs" | "mkfs" => {
            on_device().then(formats).flatten()
        }
        _ if name.starts_with("mkfs.") => on_device().then(formats).flatten(),
        "blkdiscard" | "badblocks" if name == "blkdiscard" || has_flag(args, "w", &[]) => formats(),
        "wipefs" => (has_flag(args, "ao", &["all", "offset"])
            && !has_flag(args, "n", &["no-act"])
            && on_device())
        .then(formats)
        .flatten(),
        "sgdisk" | "gdisk" | "fdisk" | "sfdisk" | "cfdisk" => {
            let reads = has_flag(
                args,
                if name == "sgdisk" {
                    "piOLvb"
                } else {
                    "lsdJVgF"
                },
                &[
                    "list",
                    "print",
                    "info",
                    "verify",
                    "print-mbr",
                    "list-types",
                    "backup",
                    "dump",
                    "json",
                    "show-size",
                    "show-geometry",
                    "list-free",
                ],
            );
            (!reads && targets.iter().any(|t| is_raw_device(t)))
                .then(formats)
                .flatten()
        }
        "parted" => {
            let changes = words_any(&[
                "mklabel",
                "mktable",
                "mkpart",
                "mkpartfs",
                "rm",
                "resizepart",
                "resize",
                "rescue",
                "mkfs",
            ]);
            (changes && targets.iter().any(|t| is_raw_device(t)))
                .then(formats)
                .flatten()
        }
        "vgremove" | "lvremove" | "pvremove" | "vgreduce" | "lvreduce" => Some(Finding::deny(
            "guard:disk",
            format!("removes or shrinks a volume and the data on it (`{name}`)"),
            ASK_USER,
        )),
        "lvresize"
            if args.iter().any(|a| {
                a.starts_with("-L-") || a.starts_with("--size=-") || a.starts_with("-l-")
            }) || args.windows(2).any(|w| {
                matches!(w[0].as_str(), "-L" | "-l" | "--size" | "--extents")
                    && w[1].starts_with('-')
            }) =>
        {
            Some(Finding::deny(
                "guard:disk",
                "shrinks a volume, cutting off the data at its end (`lvresize`)".into(),
                ASK_USER,
            ))
        }
        "zpool" if matches!(sub, "destroy" | "labelclear" | "create") => Some(Finding::deny(
            "guard:disk",
            format!("destroys or overwrites a storage pool (`zpool {sub}`)"),
            ASK_USER,
        )),
        "zfs" if matches!(sub, "destroy" | "rollback") => Some(Finding::deny(
            "guard:disk",
            format!("destroys a dataset or snapshots (`zfs {sub}`)"),
            ASK_USER,
        )),
        "mdadm"
            if has_flag(args, "C", &["zero-superblock", "create"])
                || args.iter().any(|a| a == "--zero-superblock") =>
        {
            formats()
        }
        "cryptsetup" => words_any(&[
            "luksFormat",
            "erase",
            "luksErase",
            "luksKillSlot",
            "luksRemoveKey",
            "reencrypt",
        ])
        .then(formats)
        .flatten(),
        "dmsetup" if matches!(sub, "remove" | "remove_all" | "wipe_table" | "clear") => formats(),
        "nvme" if matches!(sub, "format" | "sanitize") => formats(),
        "hdparm"
            if args.iter().any(|a| {
                a.starts_with("--security-erase")
                    || a.starts_with("--trim-sector")
                    || a == "--write-sector"
            }) =>
        {
            formats()
        }
        "flashrom" if has_flag(args, "wE", &["write", "erase"]) => formats(),
        "shred" | "truncate" => {
            let device = targets.iter().find(|t| is_raw_device(t));
            if let Some(device) = device {
                return Some(device_write(device));
            }
            let what = first_dangerous(targets.iter().copied(), Reach::Entry)?;
            Some(Finding::deny(
                "guard:system-write",
                format!("destroys the contents of {what}"),
                SPECIFIC_PATHS,
            ))
        }
        _ => None,
    }
}

/// Whether a chmod mode lets everyone write: `777`, `0666`, `a+w`, `o=rwx`.
/// A mode that takes reading or entering away from the owner (`000`, `600` on a folder,
/// `u-x`, `a=`): a folder with it can no longer be walked.
fn locks_owner_out(mode: &str) -> bool {
    if !mode.is_empty() && mode.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        let digits = mode.trim_start_matches('0');
        let owner = if digits.len() >= 3 {
            digits.as_bytes()[digits.len() - 3] - b'0'
        } else {
            0
        };
        return owner & 5 != 5;
    }
    mode.split(',').any(|clause| {
        let who_len = clause.bytes().take_while(|b| b"ugoa".contains(b)).count();
        let who = &clause[..who_len];
        let owner = who.is_empty() || who.contains('u') || who.contains('a');
        let rest = &clause[who_len..];
        owner
            && ((rest.starts_with('-') && rest.contains(['r', 'x']))
                || (rest.starts_with('=') && !(rest.contains('r') && rest.contains('x'))))
    })
}

pub(super) fn world_writable(mode: &str) -> bool {
    if !mode.is_empty() && mode.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return mode
            .bytes()
            .last()
            .is_some_and(|others| (others - b'0') & 2 != 0);
    }
    mode.split(',').any(|clause| {
        let who_len = clause.bytes().take_while(|b| b"ugoa".contains(b)).count();
        let who = &clause[..who_len];
        (who.contains('a') || who.contains('o'))
            && clause[who_len..]
                .split_inclusive(['+', '-', '='])
                .zip(clause[who_len..].split(['+', '-', '=']).skip(1))
                .any(|(op, perms)| !op.ends_with('-') && perms.contains('w'))
    })
}

/// Programs and arguments only known when the shell runs: `$x -rf /`, `$(echo rm) -rf /`,
/// `rm${IFS}-rf${IFS}/`. Asked about when what they could do is destructive.
fn computed(command: &SimpleCommand) -> Option<Finding> {
    let advice = "Spell the command out so it can be checked.";
    if let Some(word) = command
        .computed
        .iter()
        .find(|w| w.contains("$IFS") || w.contains("${IFS"))
    {
        return Some(Finding::ask(
            "guard:computed-command",
            format!("splits `{word}` into words only when the shell runs"),
            advice,
        ));
    }
    let program = command.argv.first()?;
    let computed_name = command.computed.iter().any(|w| w == program)
        || program.contains('`')
        || program.starts_with('$');
    if !computed_name {
        return None;
    }
    let args = command.args();
    let risky = operands(args)
        .into_iter()
        .find_map(|t| {
            // `$(npm bin)/eslint .`: the working directory is every tool's operand.
            dangerous_target(t, Reach::SystemTree)
                .or_else(|| is_raw_device(t).then(|| t.to_owned()))
        })
        .or_else(|| {
            args.iter()
                .filter_map(|a| a.strip_prefix("of="))
                .find(|t| is_raw_device(t))
                .map(str::to_owned)
        })?;
    Some(Finding::ask(
        "guard:computed-command",
        format!("runs a program only known when the shell runs (`{program}`) on {risky}"),
        advice,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_that_make_files_world_writable() {
        for mode in [
            "777", "0777", "1777", "666", "2", "a+w", "o=rwx", "u+x,o+w", "ugo+rwx",
        ] {
            assert!(world_writable(mode), "{mode}");
        }
        for mode in ["755", "0644", "+w", "u+w", "g+w", "o-w", "a-w", "a+rx", ""] {
            assert!(!world_writable(mode), "{mode}");
        }
    }

    #[test]
    fn finding_and_deleting_the_repositories_history_is_refused() {
        let words = |line: &str| line.split(' ').map(str::to_owned).collect::<Vec<_>>();
        for line in [
            ". -name .git -exec rm -rf {} +",
            ". -type d -iname .GIT -delete",
            "/work -name .gi? -prune -exec rm -rf {} ;",
        ] {
            assert!(find(&words(line)).is_some(), "{line}");
        }
        for line in [
            ". -name .git -prune -o -name *.o -exec rm {} +",
            ". ! -name .git -name *.o -delete",
            ". -name *.o -delete",
        ] {
            assert!(find(&words(line)).is_none(), "{line}");
        }
    }
}
