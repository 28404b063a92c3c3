//! Links to nagger's files. A hard link is the file itself under a second name, and a
//! symbolic link leads to it: writing through either changes nagger's file. So the
//! programs that make links besides `ln` and `link` (`cp -l`, `cp -s`, `rsync
//! --link-dest`, `cpio -p --link`, `pax -rwl`) are judged by what they link, and a file
//! about to be written that has more than one name is compared, by device and inode,
//! with nagger's files on disk: one stat, and the comparison only when it has another
//! name.

use std::path::{Path, PathBuf};

use super::super::finding::operands;
use super::super::shell::{has_flag, option_values};

/// Most entries of nagger's own folders compared with a file that has other names.
const MAX_ENTRIES: usize = 64;

/// What a link-making command links.
#[derive(Debug, PartialEq)]
pub(super) struct Linking<'c> {
    /// The paths it links to (and, for `cp`, where the links go).
    pub sources: Vec<&'c str>,
    /// It reads the names it links from its standard input (`cpio -p`, `pax -rw`).
    pub unseen: bool,
}

/// The paths `name` makes hard or symbolic links to, when it makes links.
pub(super) fn linking<'c>(name: &str, args: &'c [String]) -> Option<Linking<'c>> {
    let ops = operands(args);
    match name {
        "cp" | "gcp" if has_flag(args, "ls", &["link", "symbolic-link"]) => {
            let mut sources = ops;
            sources.extend(option_values(args, &["-t"], &["--target-directory"]));
            Some(Linking {
                sources,
                unseen: false,
            })
        }
        "gln" | "glink" => Some(Linking {
            sources: ops,
            unseen: false,
        }),
        "rsync" => {
            let dirs = option_values(args, &[], &["--link-dest"]);
            (!dirs.is_empty()).then_some(Linking {
                sources: dirs,
                unseen: false,
            })
        }
        "cpio" if has_flag(args, "p", &["pass-through"]) && has_flag(args, "l", &["link"]) => {
            Some(Linking {
                sources: ops,
                unseen: true,
            })
        }
        "pax"
            if has_flag(args, "l", &[]) && has_flag(args, "r", &[]) && has_flag(args, "w", &[]) =>
        {
            Some(Linking {
                unseen: ops.len() <= 1,
                sources: ops,
            })
        }
        _ => None,
    }
}

/// A file of nagger's that `target` is another name of: `target` exists, is a regular
/// file with more than one name, and shares its device and inode with one of nagger's
/// files. Returns that file as the protected set spells it (`~/.claude/settings.json`,
/// `<root>/.claude-nagger/config.toml`).
pub(super) fn twin(target: &Path, root: &Path, binary: Option<&str>) -> Option<String> {
    let meta = std::fs::metadata(target).ok()?;
    if !meta.is_file() || links_of(&meta) < 2 {
        return None;
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let folder = |spelled: String, path: PathBuf, files: &mut Vec<(String, PathBuf)>| {
        let Ok(entries) = std::fs::read_dir(&path) else {
            return;
        };
        for entry in entries.flatten().take(MAX_ENTRIES) {
            let name = entry.file_name().to_string_lossy().into_owned();
            files.push((format!("{spelled}/{name}"), entry.path()));
        }
    };
    let root_spelled = root.to_string_lossy().into_owned();
    folder(
        format!("{root_spelled}/.claude-nagger"),
        root.join(".claude-nagger"),
        &mut files,
    );
    for name in ["settings.json", "settings.local.json"] {
        files.push((
            format!("{root_spelled}/.claude/{name}"),
            root.join(".claude").join(name),
        ));
        if let Some(home) = &home {
            files.push((format!("~/.claude/{name}"), home.join(".claude").join(name)));
        }
    }
    for name in ["managed-settings.json", "managed-mcp.json"] {
        for dir in [
            "/etc/claude-code",
            "/Library/Application Support/ClaudeCode",
        ] {
            files.push((format!("{dir}/{name}"), Path::new(dir).join(name)));
        }
    }
    if let Some(home) = &home {
        let state = std::env::var_os("XDG_STATE_HOME")
            .map_or_else(|| home.join(".local/state"), PathBuf::from);
        folder(
            "~/.local/state/nagger".into(),
            state.join("nagger"),
            &mut files,
        );
        files.push(("~/.cargo/bin/nagger".into(), home.join(".cargo/bin/nagger")));
    }
    if let Some(binary) = binary {
        files.push((binary.to_owned(), PathBuf::from(binary)));
    }
    files.into_iter().find_map(|(spelled, path)| {
        let other = std::fs::metadata(&path).ok()?;
        same_file(&meta, &other).then_some(spelled)
    })
}

#[cfg(unix)]
fn links_of(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.nlink()
}

#[cfg(not(unix))]
fn links_of(_: &std::fs::Metadata) -> u64 {
    1
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn programs_that_link() {
        let l = |name: &str, line: &str| {
            let args = words(line);
            linking(name, &args).map(|l| {
                (
                    l.sources
                        .iter()
                        .map(|s| (*s).to_owned())
                        .collect::<Vec<_>>(),
                    l.unseen,
                )
            })
        };
        assert_eq!(l("cp", "-l a b"), Some((words("a b"), false)));
        assert_eq!(l("cp", "-al a b"), Some((words("a b"), false)));
        assert_eq!(l("cp", "--symbolic-link a b"), Some((words("a b"), false)));
        assert_eq!(l("cp", "-a a b"), None);
        assert_eq!(
            l("rsync", "-a --link-dest=../old src/ dst/"),
            Some((words("../old"), false))
        );
        assert_eq!(l("rsync", "-a src/ dst/"), None);
        assert_eq!(l("cpio", "-pdl snap"), Some((words("snap"), true)));
        assert_eq!(l("cpio", "-pd snap"), None);
        assert_eq!(l("pax", "-rwl a snap"), Some((words("a snap"), false)));
        assert_eq!(l("pax", "-rw a snap"), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_second_name_of_nagger_files_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join(".claude-nagger")).unwrap();
        std::fs::write(root.join(".claude-nagger/config.toml"), "x").unwrap();
        std::fs::write(root.join("plain.txt"), "x").unwrap();
        std::fs::hard_link(
            root.join(".claude-nagger/config.toml"),
            root.join("hard.txt"),
        )
        .unwrap();
        std::fs::write(root.join("other.txt"), "x").unwrap();
        std::fs::hard_link(root.join("other.txt"), root.join("other2.txt")).unwrap();
        let found = twin(&root.join("hard.txt"), root, None).unwrap();
        assert!(found.ends_with("/.claude-nagger/config.toml"), "{found}");
        assert_eq!(twin(&root.join("plain.txt"), root, None), None);
        assert_eq!(twin(&root.join("other2.txt"), root, None), None);
        assert_eq!(twin(&root.join("missing.txt"), root, None), None);
    }
}
