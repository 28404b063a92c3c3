//! Long options as GNU programs read them: any prefix of a long name that no other of
//! the program's names shares stands for it (`cp --ta=DIR` is `--target-directory=DIR`,
//! `sort --o F` is `--output F`). Spelled out in full before the line is judged, so that
//! every check sees the names it looks for.

/// The long options of the programs the guard judges by their options.
const LONG_OPTIONS: &[(&str, &[&str])] = &[
    (
        "cp",
        &[
            "archive",
            "attributes-only",
            "backup",
            "copy-contents",
            "debug",
            "dereference",
            "force",
            "interactive",
            "link",
            "no-clobber",
            "no-dereference",
            "preserve",
            "no-preserve",
            "parents",
            "recursive",
            "reflink",
            "remove-destination",
            "sparse",
            "strip-trailing-slashes",
            "suffix",
            "symbolic-link",
            "target-directory",
            "no-target-directory",
            "update",
            "verbose",
            "one-file-system",
            "context",
            "keep-directory-symlink",
            "help",
            "version",
        ],
    ),
    (
        "mv",
        &[
            "backup",
            "debug",
            "exchange",
            "force",
            "interactive",
            "no-clobber",
            "no-copy",
            "strip-trailing-slashes",
            "suffix",
            "target-directory",
            "no-target-directory",
            "update",
            "verbose",
            "context",
            "help",
            "version",
        ],
    ),
    (
        "ln",
        &[
            "backup",
            "directory",
            "force",
            "interactive",
            "logical",
            "no-dereference",
            "physical",
            "relative",
            "symbolic",
            "suffix",
            "target-directory",
            "no-target-directory",
            "verbose",
            "help",
            "version",
        ],
    ),
    (
        "install",
        &[
            "backup",
            "compare",
            "debug",
            "directory",
            "group",
            "mode",
            "owner",
            "preserve-timestamps",
            "strip",
            "strip-program",
            "suffix",
            "target-directory",
            "no-target-directory",
            "verbose",
            "preserve-context",
            "context",
            "help",
            "version",
        ],
    ),
    (
        "sort",
        &[
            "ignore-leading-blanks",
            "dictionary-order",
            "ignore-case",
            "general-numeric-sort",
            "ignore-nonprinting",
            "month-sort",
            "human-numeric-sort",
            "numeric-sort",
            "random-sort",
            "random-source",
            "reverse",
            "sort",
            "version-sort",
            "batch-size",
            "check",
            "compress-program",
            "debug",
            "files0-from",
            "field-separator",
            "key",
            "merge",
            "output",
            "stable",
            "buffer-size",
            "temporary-directory",
            "parallel",
            "unique",
            "zero-terminated",
            "help",
            "version",
        ],
    ),
    (
        "csplit",
        &[
            "suffix-format",
            "prefix",
            "keep-files",
            "suppress-matched",
            "digits",
            "quiet",
            "silent",
            "elide-empty-files",
            "help",
            "version",
        ],
    ),
    (
        "split",
        &[
            "suffix-length",
            "additional-suffix",
            "bytes",
            "line-bytes",
            "elide-empty-files",
            "filter",
            "lines",
            "number",
            "numeric-suffixes",
            "hex-suffixes",
            "separator",
            "unbuffered",
            "verbose",
            "help",
            "version",
        ],
    ),
    (
        "tee",
        &[
            "append",
            "ignore-interrupts",
            "output-error",
            "help",
            "version",
        ],
    ),
    (
        "touch",
        &[
            "no-create",
            "date",
            "no-dereference",
            "reference",
            "time",
            "help",
            "version",
        ],
    ),
    (
        "truncate",
        &[
            "no-create",
            "io-blocks",
            "reference",
            "size",
            "help",
            "version",
        ],
    ),
    (
        "rm",
        &[
            "force",
            "interactive",
            "one-file-system",
            "no-preserve-root",
            "preserve-root",
            "recursive",
            "dir",
            "verbose",
            "help",
            "version",
        ],
    ),
    (
        "chmod",
        &[
            "changes",
            "no-preserve-root",
            "preserve-root",
            "quiet",
            "silent",
            "reference",
            "recursive",
            "verbose",
            "help",
            "version",
        ],
    ),
    (
        "chown",
        &[
            "changes",
            "dereference",
            "no-dereference",
            "from",
            "no-preserve-root",
            "preserve-root",
            "quiet",
            "silent",
            "reference",
            "recursive",
            "verbose",
            "help",
            "version",
        ],
    ),
    (
        "chgrp",
        &[
            "changes",
            "dereference",
            "no-dereference",
            "no-preserve-root",
            "preserve-root",
            "quiet",
            "silent",
            "reference",
            "recursive",
            "verbose",
            "help",
            "version",
        ],
    ),
    (
        "shred",
        &[
            "force",
            "iterations",
            "random-source",
            "size",
            "remove",
            "verbose",
            "exact",
            "zero",
            "help",
            "version",
        ],
    ),
    (
        "sed",
        &[
            "expression",
            "file",
            "in-place",
            "line-length",
            "null-data",
            "zero-terminated",
            "quiet",
            "silent",
            "regexp-extended",
            "separate",
            "sandbox",
            "unbuffered",
            "debug",
            "posix",
            "follow-symlinks",
            "help",
            "version",
        ],
    ),
    (
        "xargs",
        &[
            "null",
            "arg-file",
            "delimiter",
            "eof",
            "replace",
            "max-lines",
            "max-args",
            "open-tty",
            "max-procs",
            "interactive",
            "process-slot-var",
            "no-run-if-empty",
            "max-chars",
            "show-limits",
            "exit",
            "verbose",
            "help",
            "version",
        ],
    ),
    (
        "gzip",
        &[
            "stdout",
            "to-stdout",
            "decompress",
            "uncompress",
            "force",
            "keep",
            "list",
            "no-name",
            "name",
            "quiet",
            "recursive",
            "rsyncable",
            "suffix",
            "synchronous",
            "test",
            "verbose",
            "fast",
            "best",
            "help",
            "license",
            "version",
        ],
    ),
    (
        "mkdir",
        &["mode", "parents", "verbose", "context", "help", "version"],
    ),
];

/// `args` of `program` with each abbreviated long option spelled out (`--ta=D` →
/// `--target-directory=D`); `None` when none is abbreviated or the program is not one
/// of [`LONG_OPTIONS`]. An ambiguous prefix is left as written (the program refuses it).
pub fn spelled_out(program: &str, args: &[String]) -> Option<Vec<String>> {
    let (_, names) = LONG_OPTIONS.iter().find(|(p, _)| *p == program)?;
    let mut changed = false;
    let mut out = Vec::with_capacity(args.len());
    let mut ended = false;
    for arg in args {
        if ended || arg == "--" {
            ended = true;
            out.push(arg.clone());
            continue;
        }
        let Some(body) = arg.strip_prefix("--").filter(|b| !b.is_empty()) else {
            out.push(arg.clone());
            continue;
        };
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (body, None),
        };
        if names.contains(&name) {
            out.push(arg.clone());
            continue;
        }
        let mut matches = names.iter().filter(|full| full.starts_with(name));
        match (matches.next(), matches.next()) {
            (Some(full), None) => {
                changed = true;
                out.push(match value {
                    Some(v) => format!("--{full}={v}"),
                    None => format!("--{full}"),
                });
            }
            _ => out.push(arg.clone()),
        }
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn unique_prefixes_are_spelled_out_and_the_rest_left() {
        assert_eq!(
            spelled_out("cp", &words("--ta=.claude a")),
            Some(words("--target-directory=.claude a"))
        );
        assert_eq!(
            spelled_out("sort", &words("--o=x a")),
            Some(words("--output=x a"))
        );
        assert_eq!(
            spelled_out("mv", &words("--back=simple --suf=.json s t")),
            Some(words("--backup=simple --suffix=.json s t"))
        );
        // Ambiguous (`--s`: `--sparse`, `--suffix` …), whole, after `--`, unknown program.
        assert_eq!(spelled_out("cp", &words("--s a b")), None);
        assert_eq!(spelled_out("cp", &words("--force a b")), None);
        assert_eq!(spelled_out("cp", &words("-- --ta=x a")), None);
        assert_eq!(spelled_out("frobnicate", &words("--ta=x")), None);
    }
}
