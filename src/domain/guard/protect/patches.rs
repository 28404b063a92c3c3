//! Patches applied to the work tree (`git apply`, `git am`, `patch`): the files a patch
//! changes are named inside it, so the patch is read (bounded, never blocking) and each
//! file it creates, changes, renames or deletes is judged like any other written path.

use std::io::Read;
use std::path::Path;

use super::super::shell::{SimpleCommand, has_flag};
use crate::base::files;

/// The most of a patch that is read; a bigger one is asked about.
const MAX_PATCH: u64 = 1 << 20;
/// Leading folders a patch's paths may lose (`-p0` … `-p3`), each tried.
const MAX_STRIP: usize = 3;

/// Where a command's patch comes from.
#[derive(Debug, PartialEq)]
pub(super) enum Source<'c> {
    /// A file, as the command names it.
    File(&'c str),
    /// Text on the command line (a heredoc or here-string).
    Text(&'c str),
    /// What an earlier stage of the pipeline prints (`curl … | git apply`).
    Pipe,
}

/// The patches a command applies to the work tree; empty when it applies none (a dry run,
/// or not a patch command).
pub(super) fn sources(command: &SimpleCommand) -> Vec<Source<'_>> {
    let args = command.args();
    let stdin = || {
        let given: Vec<Source> = command
            .reads_from
            .iter()
            .map(|f| Source::File(f.as_str()))
            .chain(command.stdin_texts.iter().map(|t| Source::Text(t.as_str())))
            .collect();
        if given.is_empty() && command.stage > 0 {
            vec![Source::Pipe]
        } else {
            given
        }
    };
    match command.name() {
        "patch" => {
            if has_flag(args, "", &["dry-run"]) {
                return Vec::new();
            }
            let inputs = input_options(args);
            if inputs.is_empty() {
                // `patch [options] [file [patchfile]]`: a second operand is the patch.
                let ops = operands_skipping(args, "pdDFioBrVYzgx", &PATCH_VALUES);
                match ops.get(1) {
                    Some(patch) => vec![Source::File(patch)],
                    None => stdin(),
                }
            } else {
                inputs.into_iter().map(Source::File).collect()
            }
        }
        "git" => {
            let Some(at) = args.iter().position(|a| a == "apply" || a == "am") else {
                return Vec::new();
            };
            // Only a subcommand in the place of one: options before it take no operands
            // that could read `apply` (`git -C dir apply`, `git -c k=v apply`).
            if !git_subcommand_at(args, at) {
                return Vec::new();
            }
            let rest = &args[at + 1..];
            let applies = args[at] == "am"
                || !has_flag(rest, "", &["check", "stat", "numstat", "summary"])
                || has_flag(rest, "", &["apply"]);
            if !applies || (args[at] == "apply" && has_flag(rest, "", &["cached"])) {
                return Vec::new();
            }
            let files = operands_skipping(rest, "pC", &GIT_APPLY_VALUES);
            if files.is_empty() {
                stdin()
            } else {
                files.into_iter().map(Source::File).collect()
            }
        }
        _ => Vec::new(),
    }
}

/// Options of `patch` that take a value as the next word.
const PATCH_VALUES: [&str; 9] = [
    "strip",
    "directory",
    "fuzz",
    "input",
    "output",
    "prefix",
    "reject-file",
    "suffix",
    "backup-if-mismatch",
];

/// Options of `git apply` and `git am` that take a value as the next word.
const GIT_APPLY_VALUES: [&str; 6] = [
    "directory",
    "exclude",
    "include",
    "whitespace",
    "patch-format",
    "resolvemsg",
];

/// Whether `args[at]` stands where git's subcommand does.
fn git_subcommand_at(args: &[String], at: usize) -> bool {
    let mut i = 0;
    while i < at {
        match args[i].as_str() {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
            a if a.starts_with('-') => i += 1,
            _ => return false,
        }
    }
    i == at
}

/// `patch -i FILE`, `--input FILE`, `--input=FILE`.
fn input_options(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "-i" || arg == "--input" {
            out.extend(args.get(i + 1).map(String::as_str));
            i += 2;
            continue;
        }
        if let Some(file) = arg.strip_prefix("--input=") {
            out.push(file);
        } else if let Some(file) = arg.strip_prefix("-i").filter(|f| !f.is_empty()) {
            out.push(file);
        }
        i += 1;
    }
    out
}

/// The operands of `args`, the words that options with a value take left out.
fn operands_skipping<'c>(
    args: &'c [String],
    short_values: &str,
    long_values: &[&str],
) -> Vec<&'c str> {
    let mut kept = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            kept.extend(args[i + 1..].iter().map(String::as_str));
            break;
        }
        let takes_next = match arg.strip_prefix("--") {
            Some(long) => !long.contains('=') && long_values.contains(&long),
            None => arg.len() == 2 && arg.starts_with('-') && short_values.contains(&arg[1..]),
        };
        if takes_next {
            i += 2;
            continue;
        }
        if !arg.starts_with('-') || arg == "-" {
            kept.push(arg.as_str());
        }
        i += 1;
    }
    kept
}

/// What reading a patch found.
#[derive(Debug, PartialEq)]
pub(super) enum Found {
    /// Its text.
    Text(String),
    /// No such file: the command fails before changing anything.
    Missing,
    /// A patch that is too big, not a regular file, or unreadable.
    Unseen(String),
}

/// Reads the patch file at `full` (at most [`MAX_PATCH`] bytes, never blocking).
pub(super) fn read(full: &Path) -> Found {
    let file = match files::open_regular(full) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Found::Missing,
        Err(e) => return Found::Unseen(e.to_string()),
    };
    let mut text = Vec::new();
    if let Err(e) = file.take(MAX_PATCH + 1).read_to_end(&mut text) {
        return Found::Unseen(e.to_string());
    }
    if text.len() as u64 > MAX_PATCH {
        return Found::Unseen(format!("larger than {} MiB", MAX_PATCH >> 20));
    }
    Found::Text(String::from_utf8_lossy(&text).into_owned())
}

/// The symbolic links a patch makes: each file it creates or turns into mode `120000`,
/// as written in it, with the link's target (the text the file then holds).
pub(super) fn links(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    // The file of the current `diff --git` section, whether it becomes a link, and its
    // new text so far.
    let mut file: Option<String> = None;
    let mut link = false;
    let mut target = String::new();
    let mut flush = |file: &Option<String>, link: bool, target: &mut String| {
        if let Some(file) = file
            && link
        {
            out.push((file.clone(), std::mem::take(target)));
        }
        target.clear();
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            flush(&file, link, &mut target);
            link = false;
            file = rest
                .find(" b/")
                .or_else(|| rest.rfind(' '))
                .map(|mid| rest[mid + 1..].trim().trim_matches('"').to_owned());
        } else if line.starts_with("new file mode 120000") || line.starts_with("new mode 120000") {
            link = true;
        } else if let Some(rest) = line.strip_prefix("+++ ") {
            let name = rest.split('\t').next().unwrap_or(rest).trim();
            if name != "/dev/null" {
                file = Some(name.trim_matches('"').to_owned());
            }
        } else if link
            && let Some(added) = line.strip_prefix('+')
            && target.is_empty()
        {
            added.clone_into(&mut target);
        }
    }
    flush(&file, link, &mut target);
    out
}

/// The files a patch changes: both sides of `diff --git`, `---`/`+++` headers, renames
/// and copies, `/dev/null` left out.
pub(super) fn targets(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |path: &str| {
        let path = c_unquoted(path.trim());
        if !path.is_empty() && path != "/dev/null" && !out.contains(&path) {
            out.push(path);
        }
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            // `a/x b/y`: split where ` b/` (or the second path's own prefix) starts.
            match rest
                .find(" \"b/")
                .or_else(|| rest.find(" b/"))
                .or_else(|| rest.rfind(' '))
            {
                Some(mid) => {
                    push(&rest[..mid]);
                    push(&rest[mid + 1..]);
                }
                None => push(rest),
            }
        } else if let Some(rest) = line
            .strip_prefix("+++ ")
            .or_else(|| line.strip_prefix("--- "))
            .or_else(|| line.strip_prefix("*** "))
        {
            // A timestamp may follow the name after a tab.
            push(rest.split('\t').next().unwrap_or(rest));
        } else if let Some(rest) = ["rename from ", "rename to ", "copy from ", "copy to "]
            .iter()
            .find_map(|p| line.strip_prefix(p))
        {
            push(rest);
        }
    }
    out
}

/// A name as git and patch write it: in double quotes with C escapes (`"a/.claude\056x"`,
/// octal bytes, `\t`, `\n`, `\"`, `\\`) when it holds odd bytes; as it is otherwise.
fn c_unquoted(name: &str) -> String {
    let Some(inner) = name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) else {
        return name.to_owned();
    };
    let bytes = inner.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        if bytes[k] != b'\\' || k + 1 >= bytes.len() {
            out.push(bytes[k]);
            k += 1;
            continue;
        }
        let next = bytes[k + 1];
        let octal = bytes[k + 1..]
            .iter()
            .take(3)
            .take_while(|b| (b'0'..=b'7').contains(b))
            .count();
        if octal == 3 {
            let value = bytes[k + 1..k + 4]
                .iter()
                .fold(0u32, |v, b| v * 8 + u32::from(b - b'0'));
            out.push(u8::try_from(value & 0xff).unwrap_or(0));
            k += 4;
            continue;
        }
        out.push(match next {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            other => other,
        });
        k += 2;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A patch path with 0 to [`MAX_STRIP`] leading folders taken off, as `-pN` would.
pub(super) fn stripped(path: &str) -> Vec<&str> {
    let mut out = vec![path];
    let mut rest = path;
    for _ in 0..MAX_STRIP {
        match rest.split_once('/') {
            Some((_, tail)) if !tail.is_empty() => {
                rest = tail;
                out.push(rest);
            }
            _ => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::guard::shell;

    fn sources_of(line: &str) -> Vec<String> {
        let parsed = shell::parse(line);
        parsed
            .commands
            .iter()
            .flat_map(|c| {
                sources(c).into_iter().map(|s| match s {
                    Source::File(f) => format!("file {f}"),
                    Source::Text(t) => format!("text {}", t.lines().next().unwrap_or("")),
                    Source::Pipe => "pipe".to_owned(),
                })
            })
            .collect()
    }

    #[test]
    fn the_patch_a_command_applies_is_found_wherever_it_is_given() {
        assert_eq!(sources_of("git apply fix.patch"), ["file fix.patch"]);
        assert_eq!(
            sources_of("git -C sub apply -p2 --index a.diff b.diff"),
            ["file a.diff", "file b.diff"]
        );
        assert_eq!(sources_of("git am --3way 0001.patch"), ["file 0001.patch"]);
        assert_eq!(sources_of("git apply < fix.patch"), ["file fix.patch"]);
        assert_eq!(sources_of("patch -p1 < fix.patch"), ["file fix.patch"]);
        assert_eq!(sources_of("patch -p1 -i fix.patch"), ["file fix.patch"]);
        assert_eq!(sources_of("patch --input=fix.patch"), ["file fix.patch"]);
        assert_eq!(sources_of("patch notes.txt fix.diff"), ["file fix.diff"]);
        assert_eq!(
            sources_of("patch -p1 <<'EOF'\n--- a/x\nEOF"),
            ["text --- a/x"]
        );
        // Dry runs and reports change nothing.
        for line in [
            "git apply --check fix.patch",
            "git apply --stat fix.patch",
            "git apply --cached fix.patch",
            "patch --dry-run -p1 < fix.patch",
            "git log --stat",
        ] {
            assert!(sources_of(line).is_empty(), "{line}");
        }
    }

    #[test]
    fn every_file_a_patch_names_is_a_target() {
        let text = "diff --git a/.claude/settings.json b/.claude/settings.json\n\
                    index 1..2 100644\n\
                    --- a/.claude/settings.json\n\
                    +++ b/.claude/settings.json\n\
                    @@ -1 +1 @@\n-x\n+y\n\
                    diff --git a/old.txt b/new.txt\nrename from old.txt\nrename to new.txt\n\
                    --- /dev/null\t2026-01-01\n+++ added.txt\t2026-01-01 10:00\n";
        assert_eq!(
            targets(text),
            [
                "a/.claude/settings.json",
                "b/.claude/settings.json",
                "a/old.txt",
                "b/new.txt",
                "old.txt",
                "new.txt",
                "added.txt"
            ]
        );
        // Names with odd bytes, quoted with C escapes as git and patch write them.
        let quoted = "diff --git \"a/.claude/settings\\056json\" \"b/.claude/settings\\056json\"\n\
                      --- \"a/\\056claude/settings.json\"\n+++ \"b/x\\ty\"\n";
        assert_eq!(
            targets(quoted),
            [
                "a/.claude/settings.json",
                "b/.claude/settings.json",
                "a/.claude/settings.json",
                "b/x\ty"
            ]
            .iter()
            .fold(Vec::<String>::new(), |mut v, p| {
                if !v.iter().any(|q| q == p) {
                    v.push((*p).to_owned());
                }
                v
            })
        );
        assert_eq!(
            stripped("b/x/.claude/settings.json"),
            [
                "b/x/.claude/settings.json",
                "x/.claude/settings.json",
                ".claude/settings.json",
                "settings.json"
            ]
        );
    }

    #[test]
    fn a_missing_patch_changes_nothing_and_a_huge_one_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(&dir.path().join("none.patch")), Found::Missing);
        let big = dir.path().join("big.patch");
        std::fs::write(&big, vec![b'x'; (1 << 20) + 10]).unwrap();
        assert!(matches!(read(&big), Found::Unseen(_)));
        let small = dir.path().join("s.patch");
        std::fs::write(&small, "--- a/x\n+++ b/x\n").unwrap();
        let Found::Text(text) = read(&small) else {
            panic!("not read")
        };
        assert_eq!(targets(&text), ["a/x", "b/x"]);
    }
}
