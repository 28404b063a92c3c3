//! Files whose names a program makes as it runs, from a prefix, a suffix or the name of
//! another file: `split`'s and `csplit`'s pieces (`PREFIX` + `aa` + `--additional-suffix`),
//! the backups `cp`, `mv`, `ln`, `install`, `tar` and `patch` keep (`-b -S .json`), the
//! backups of in-place editors (`sed -i.json`, `perl -i'bak/*'`), a decompressor's output
//! (the input without its suffix, or the name kept in a gzip header with `-N`), and `cp
//! --parents` / `rsync -R` (the destination joined with each source path). No literal check
//! sees such a name on the command line, so they are judged by where they land: a folder
//! that holds nagger's files, Claude Code's settings or the nagger program.

use super::super::finding::{operands, operands_with};
use super::super::shell::{SimpleCommand, basename, has_flag, option_values};

/// The names of the files nagger keeps or depends on, wherever they are: for names a
/// program makes as it runs (`{}.json`, a backup suffix), which may end as one of them.
pub(super) const FILE_NAMES: &[&str] = &[
    "settings.json",
    "settings.local.json",
    "managed-settings.json",
    "config.toml",
    "state.db",
    "state.db-wal",
    "state.db-shm",
    "state.db.lock",
    "trusted.json",
    "nagger",
];

/// What a command writes under names it makes.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Composed {
    /// Folders a file lands in directly, its name made as the program runs.
    pub(super) into: Vec<String>,
    /// Folders a file lands anywhere under (a tree unpacked or patched with backups).
    pub(super) under: Vec<String>,
    /// Paths written whose names are joined from the line's words (`cp --parents`).
    pub(super) paths: Vec<String>,
    /// What makes the names, for the reason.
    pub(super) how: &'static str,
}

/// The folder `path` names a file in: `a/b` → `a`, `b` → `.`.
fn folder_of(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(0) => "/".to_owned(),
        Some(k) => trimmed[..k].to_owned(),
        None if path.starts_with('/') => "/".to_owned(),
        None => ".".to_owned(),
    }
}

/// Whether the command keeps backups of what it overwrites (`-b`, `--backup[=…]`, `-S`,
/// `--suffix`, or the backup variables of its environment).
fn backs_up(command: &SimpleCommand, short: &str) -> bool {
    let args = command.args();
    has_flag(args, short, &[])
        || args.iter().any(|a| {
            a == "--backup"
                || a.starts_with("--backup=")
                || a.starts_with("--suffix")
                || a == "-S"
                || (a.starts_with("-S") && !a.starts_with("--"))
        })
        || command
            .env
            .iter()
            .chain(command.prefixed.iter().flatten())
            .any(|w| w.starts_with("SIMPLE_BACKUP_SUFFIX=") || w.starts_with("VERSION_CONTROL="))
}

/// The files `command` writes under names it makes, and the folders they land in.
pub(super) fn composed(command: &SimpleCommand) -> Composed {
    let name = command.name();
    let args = command.args();
    let mut c = Composed::default();
    match name {
        "split" | "gsplit" => {
            let ops = operands_with(
                args,
                &["-a", "-b", "-C", "-l", "-n", "-t"],
                &[
                    "suffix-length",
                    "additional-suffix",
                    "bytes",
                    "line-bytes",
                    "lines",
                    "number",
                    "separator",
                    "filter",
                ],
            );
            let prefix = ops.get(1).copied().unwrap_or("x");
            c.into.push(folder_of(prefix));
            c.how = "pieces named from a prefix";
        }
        "csplit" | "gcsplit" => {
            let prefix = option_values(args, &["-f"], &["--prefix"])
                .last()
                .copied()
                .unwrap_or("xx");
            c.into.push(folder_of(prefix));
            c.how = "pieces named from a prefix";
        }
        "cp" | "gcp" | "mv" | "gmv" | "ln" | "gln" | "install" | "ginstall"
            if backs_up(command, "b") =>
        {
            let ops = operands_with(
                args,
                &["-S", "-t", "-m", "-o", "-g"],
                &["suffix", "target-directory", "mode", "owner", "group"],
            );
            let targets = option_values(args, &["-t"], &["--target-directory"]);
            if let Some(dir) = targets.last() {
                c.into.push((*dir).to_owned());
            } else if let Some(dest) = ops.last().filter(|_| ops.len() >= 2) {
                // Into a folder, or over a file: its backup lands beside it, or in it.
                c.into.push((*dest).to_owned());
                c.into.push(folder_of(dest));
            }
            c.how = "backups named from what they replace";
        }
        "sed" | "gsed" | "perl" => {
            let suffix = in_place_suffix(name, args);
            if let Some(suffix) = suffix.filter(|s| !s.is_empty()) {
                for op in operands(args) {
                    c.into.push(folder_of(op));
                    if suffix.contains('/') {
                        let backup = suffix.replace('*', basename(op));
                        c.into.push(folder_of(&backup));
                    }
                }
                c.how = "backups named from the files it edits";
            }
        }
        "tar" | "gtar" | "bsdtar"
            if args
                .iter()
                .any(|a| a.starts_with("--backup") || a.starts_with("--suffix")) =>
        {
            let dirs = option_values(args, &["-C"], &["--directory"]);
            c.under.push(
                dirs.last()
                    .map_or_else(|| ".".to_owned(), |d| (*d).to_owned()),
            );
            c.how = "backups named from what it unpacks over";
        }
        "patch" | "gpatch"
            if has_flag(args, "b", &["backup"])
                || args.iter().any(|a| {
                    a.starts_with("-B")
                        || a.starts_with("-Y")
                        || a.starts_with("-z")
                        || a.starts_with("-V")
                        || a.starts_with("--prefix")
                        || a.starts_with("--basename-prefix")
                        || a.starts_with("--suffix")
                        || a.starts_with("--version-control")
                }) =>
        {
            let dirs = option_values(args, &["-d"], &["--directory"]);
            c.under.push(
                dirs.last()
                    .map_or_else(|| ".".to_owned(), |d| (*d).to_owned()),
            );
            c.how = "backups named from what it patches";
        }
        _ if decompresses(name, args) => {
            let recursive = has_flag(args, "r", &["recursive"]);
            for op in operands_with(args, &["-S"], &["suffix"]) {
                if op == "-" {
                    continue;
                }
                if recursive {
                    c.under.push(op.to_owned());
                } else {
                    c.into.push(folder_of(op));
                }
            }
            c.how = "output named from its input (or the name the input keeps)";
        }
        _ if compresses_with_suffix(name, args) => {
            // `gzip -S .json -f .claude/settings`: the input's name with the suffix.
            for op in operands_with(args, &["-S"], &["suffix"]) {
                if op != "-" {
                    c.into.push(folder_of(op));
                }
            }
            c.how = "output named from its input and a suffix";
        }
        "cp" | "gcp" if args.iter().any(|a| a == "--parents") => {
            let ops = operands_with(args, &["-S", "-t"], &["suffix", "target-directory"]);
            let targets = option_values(args, &["-t"], &["--target-directory"]);
            let (dest, sources) = match targets.last() {
                Some(dir) => (*dir, &ops[..]),
                None if ops.len() >= 2 => (ops[ops.len() - 1], &ops[..ops.len() - 1]),
                None => return c,
            };
            for source in sources {
                c.paths.push(format!(
                    "{}/{}",
                    dest.trim_end_matches('/'),
                    source.trim_start_matches("./")
                ));
            }
            c.how = "the destination joined with each source's path";
        }
        "git" if args.iter().any(|a| a == "checkout-index") => {
            // `--prefix=P` is put before each path as text: `.clau` + `de/settings.json`.
            let at = args.iter().position(|a| a == "checkout-index").unwrap_or(0);
            let rest = &args[at + 1..];
            for prefix in option_values(rest, &[], &["--prefix"]) {
                if !prefix.ends_with('/') {
                    c.under.push(folder_of(prefix));
                }
            }
            c.how = "a prefix put before each path as text";
        }
        "sqlite3" | "sqlite"
            if args.iter().any(|a| {
                a.starts_with("-A") && a.contains('x')
                    || matches!(a.as_str(), "--extract")
                    || archive_extract_dot(&crate::domain::guard::sql::full_dots(a))
            }) || args.windows(2).any(|w| w[0] == "-A" && w[1].contains('x')) =>
        {
            // `sqlite3 a.sqlar -Ax`: an SQLite archive unpacked, names from its table.
            let mut dirs: Vec<String> = option_values(args, &["-C"], &["--directory"])
                .into_iter()
                .map(str::to_owned)
                .collect();
            // `.ar -x -C DIR`, `.archive --extract --directory=DIR` in the shell's text.
            for a in args {
                let full = crate::domain::guard::sql::full_dots(a);
                dirs.extend(archive_dot_dirs(&full).into_iter().map(str::to_owned));
            }
            c.under
                .push(dirs.last().map_or_else(|| ".".to_owned(), Clone::clone));
            c.how = "an SQLite archive's names";
        }
        "rsync" if has_flag(args, "R", &["relative"]) => {
            let ops = operands(args);
            if let Some((dest, sources)) = ops.split_last() {
                for source in sources {
                    // `a/./b` keeps only what follows `/./`.
                    let kept = source.split_once("/./").map_or(*source, |(_, rest)| rest);
                    c.paths.push(format!(
                        "{}/{}",
                        dest.trim_end_matches('/'),
                        kept.trim_start_matches("./").trim_start_matches('/')
                    ));
                }
            }
            c.how = "the destination joined with each source's path";
        }
        _ => {}
    }
    c
}

/// The backup suffix of an in-place edit (`sed -i.bak`, `--in-place=SUF`, `perl -pi.bak`,
/// `perl -i'bak/*'`): `Some("")` for an edit in place without a backup.
fn in_place_suffix<'a>(name: &str, args: &'a [String]) -> Option<&'a str> {
    for arg in args {
        if arg == "--" {
            break;
        }
        if let Some(rest) = arg.strip_prefix("--in-place") {
            return Some(rest.strip_prefix('=').unwrap_or(""));
        }
        if arg.starts_with("--") {
            continue;
        }
        let Some(cluster) = arg.strip_prefix('-') else {
            continue;
        };
        if name == "perl" {
            // `-pi.bak`, `-i.bak`, `-ni`: `i` takes the rest of the word.
            if let Some(at) = cluster.find('i')
                && cluster[..at]
                    .bytes()
                    .all(|b| b.is_ascii_alphabetic() && b != b'e')
            {
                return Some(&cluster[at + 1..]);
            }
        } else if let Some(at) = cluster.find('i')
            && cluster[..at]
                .bytes()
                .all(|b| matches!(b, b'n' | b'r' | b'E' | b's' | b'u' | b'z'))
        {
            return Some(&cluster[at + 1..]);
        }
    }
    None
}

/// Whether the command compresses files into files named with a suffix it is given.
fn compresses_with_suffix(name: &str, args: &[String]) -> bool {
    matches!(
        name,
        "gzip" | "bzip2" | "xz" | "lzma" | "zstd" | "lz4" | "lzip" | "pigz" | "compress"
    ) && !has_flag(args, "c", &["stdout", "to-stdout"])
        && args.iter().any(|a| {
            a == "-S" || a.starts_with("--suffix") || (a.starts_with("-S") && !a.starts_with("--"))
        })
}

/// Whether the command decompresses files into files beside them.
fn decompresses(name: &str, args: &[String]) -> bool {
    let to_stdout = has_flag(args, "c", &["stdout", "to-stdout"])
        || has_flag(args, "t", &["test"])
        || has_flag(args, "l", &["list"]);
    if to_stdout {
        return false;
    }
    matches!(
        name,
        "gunzip" | "bunzip2" | "unxz" | "unlzma" | "unzstd" | "unlz4" | "uncompress" | "lunzip"
    ) || matches!(
        name,
        "gzip"
            | "bzip2"
            | "xz"
            | "lzma"
            | "zstd"
            | "lz4"
            | "lzip"
            | "compress"
            | "brotli"
            | "pigz"
            | "pbzip2"
    ) && has_flag(args, "d", &["decompress", "uncompress"])
}

/// The folders the unpacking `.archive` dot-commands of SQLite shell text name (`-C
/// DIR`, `--directory DIR`, `--directory=DIR`).
fn archive_dot_dirs(text: &str) -> Vec<&str> {
    let mut dirs = Vec::new();
    if !archive_extract_dot(text) {
        return dirs;
    }
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        for (k, w) in words.iter().enumerate() {
            if let Some(dir) = w.strip_prefix("--directory=") {
                dirs.push(dir);
            } else if (*w == "--directory"
                || w.starts_with('-') && !w.starts_with("--") && w.ends_with('C'))
                && let Some(dir) = words.get(k + 1)
            {
                dirs.push(*dir);
            }
        }
    }
    dirs
}

/// Whether SQLite shell text holds an `.archive` (`.ar`) dot-command that unpacks:
/// `.archive -x`, `.ar --extract`, `.ar -xvf a.sqlar`.
fn archive_extract_dot(text: &str) -> bool {
    text.lines().any(|line| {
        let mut words = line.split_whitespace();
        words
            .next()
            .is_some_and(|dot| matches!(dot, ".ar" | ".archive"))
            && words.any(|w| {
                w == "--extract" || w.starts_with('-') && !w.starts_with("--") && w.contains('x')
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::guard::shell;

    fn of(line: &str) -> Composed {
        let parsed = shell::parse(line);
        composed(&parsed.commands[0])
    }

    #[test]
    fn names_made_as_the_program_runs_are_placed_in_their_folders() {
        assert_eq!(
            of("split -l1 -a1 --additional-suffix=.json in.txt .claude/setting").into,
            [".claude"]
        );
        assert_eq!(of("split -l 1 in.txt").into, ["."]);
        assert_eq!(
            of("csplit -f .claude/setting -b 's.json%.0d' in.txt 2").into,
            [".claude"]
        );
        assert_eq!(
            of("cp -b -S .json README.md .claude/settings").into,
            [".claude/settings", ".claude"]
        );
        assert_eq!(
            of("SIMPLE_BACKUP_SUFFIX=.json mv --backup a b/c").into,
            ["b/c", "b"]
        );
        assert!(of("cp a .claude/settings").into.is_empty());
        assert_eq!(of("sed -i.json s/x/x/ .claude/settings").into.len(), 2);
        assert!(of("sed -i s/x/y/ src/a.rs").into.is_empty());
        let backup = of("perl -pi'bin/*' -e 1 nagger");
        assert!(backup.into.contains(&"bin".to_owned()), "{backup:?}");
        assert_eq!(of("gunzip -f .claude/settings.json.gz").into, [".claude"]);
        assert_eq!(of("gzip -dfN .claude/x.gz").into, [".claude"]);
        assert!(of("gzip -dc x.gz").into.is_empty());
        assert_eq!(of("gzip -S .json -f .claude/settings").into, [".claude"]);
        assert!(of("gzip x").into.is_empty());
        assert_eq!(
            of("cp --parents .claude/settings.json ..").paths,
            ["../.claude/settings.json"]
        );
        assert_eq!(
            of("rsync -R ./x/./.claude/settings.json $HOME").paths,
            ["$HOME/.claude/settings.json"]
        );
        assert_eq!(of("tar --backup --suffix=.json -xf a.tar").under, ["."]);
        assert_eq!(of("git checkout-index -a --prefix=.clau").under, ["."]);
        assert!(of("git checkout-index -a --prefix=out/").under.is_empty());
        assert_eq!(
            of("patch --backup --prefix=.claude/ -p1 < x.diff").under,
            ["."]
        );
    }
}
