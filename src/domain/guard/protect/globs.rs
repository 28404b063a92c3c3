//! Globs in changed paths, expanded as the shell expands them: `rm src/n/*` removes what
//! `src/n/*` matches on disk when the line runs, and `src/n` may be a link to
//! `.claude-nagger`; `rm -rf ~/.loc*` removes `~/.local`, which holds the kept copy of the
//! trusted settings and often the nagger program. A glob that matches nothing is left as
//! it is by the shell, a file of that odd name: only what exists can be reached.
//!
//! Everything read is bounded (folders listed, names read, links followed); the matches
//! come back as paths with their folders resolved through symbolic links, and a matched
//! link as its target too, so that the lexical check of the protected set applies.

use std::path::{Path, PathBuf};

use crate::domain::guard::paths::{normalize, wildcard};

/// Most folders listed for one path.
const MAX_FOLDERS: usize = 32;
/// Most names read from all folders of one path.
const MAX_NAMES: usize = 8192;
/// Most paths resolved through links for one path.
const MAX_RESOLVED: usize = 64;
/// Most matches kept for one path.
const MAX_MATCHES: usize = 1024;

/// Whether `path` has a glob the shell expands.
pub(super) fn is_glob(path: &str) -> bool {
    path.contains(['*', '?', '[']) && !path.contains(['$', '`'])
}

/// What the glob `path` (relative to `root`, absolute or `~/…`) matches on disk now: each
/// match with its folders resolved through links, and a match that is itself a link also
/// as what it points at. Empty when it matches nothing or names no folder on disk.
pub(super) fn expanded(root: &Path, path: &str, dot_names: bool) -> Vec<String> {
    if !is_glob(path) || path.len() > 4096 {
        return Vec::new();
    }
    let path = normalize(path);
    let full = match path.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            let Some(home) = std::env::var_os("HOME") else {
                return Vec::new();
            };
            PathBuf::from(home).join(rest.trim_start_matches('/'))
        }
        Some(_) => return Vec::new(),
        None => root.join(&path),
    };
    let text = full.to_string_lossy().into_owned();
    let parts: Vec<&str> = text.split('/').filter(|p| !p.is_empty()).collect();
    let Some(first) = parts.iter().position(|p| p.contains(['*', '?', '['])) else {
        return Vec::new();
    };
    let mut budget = Budget {
        folders: MAX_FOLDERS,
        names: MAX_NAMES,
        resolved: MAX_RESOLVED,
    };
    let start = PathBuf::from(format!("/{}", parts[..first].join("/")));
    let Some(start) = budget.resolve(&start) else {
        return Vec::new();
    };
    let mut now = vec![start];
    for (at, part) in parts.iter().enumerate().skip(first) {
        let last = at + 1 == parts.len();
        let mut next = Vec::new();
        for dir in &now {
            if !part.contains(['*', '?', '[']) {
                next.push(dir.join(part));
                continue;
            }
            let Some(dir) = budget.resolve(dir) else {
                continue;
            };
            if budget.folders == 0 {
                break;
            }
            budget.folders -= 1;
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if budget.names == 0 || next.len() >= MAX_MATCHES {
                    break;
                }
                budget.names -= 1;
                let name = entry.file_name();
                let name = name.to_string_lossy();
                // As the shell matches: a dot name only by a pattern that starts with a dot.
                if name.starts_with('.')
                    && !part.starts_with('.')
                    && !(dot_names && name != "." && name != "..")
                    || !wildcard(part, &name)
                {
                    continue;
                }
                let is_dir_like = entry
                    .file_type()
                    .is_ok_and(|t| t.is_dir() || t.is_symlink());
                if last || is_dir_like {
                    next.push(dir.join(&*name));
                }
            }
        }
        now = next;
        if now.is_empty() {
            break;
        }
    }
    let mut found = Vec::new();
    for path in now {
        let Some(parent) = path.parent() else {
            continue;
        };
        let name = path.file_name().map(std::ffi::OsStr::to_owned);
        let Some(real_parent) = budget.resolve(parent) else {
            continue;
        };
        let Some(name) = name else {
            continue;
        };
        let at = real_parent.join(&name);
        // A last name written out is kept where the folders before it matched: a loop's
        // `for d in [.]claude` hands on what the glob matched, and `$d/settings.json`
        // is made there.
        let literal_last = parts.last().is_some_and(|p| !p.contains(['*', '?', '[']));
        if std::fs::symlink_metadata(&at).is_err() && !literal_last {
            continue;
        }
        if let Some(target) = budget.link_target(&at) {
            found.push(target.to_string_lossy().into_owned());
        }
        found.push(at.to_string_lossy().into_owned());
    }
    found
}

struct Budget {
    folders: usize,
    names: usize,
    resolved: usize,
}

impl Budget {
    /// `dir` through the links of its folders, when any are left to follow.
    fn resolve(&mut self, dir: &Path) -> Option<PathBuf> {
        if self.resolved == 0 {
            return None;
        }
        self.resolved -= 1;
        std::fs::canonicalize(dir).ok()
    }

    /// What the link `at` points at, when it is one (its target need not exist yet).
    fn link_target(&mut self, at: &Path) -> Option<PathBuf> {
        let target = std::fs::read_link(at).ok()?;
        if let Some(real) = self.resolve(at) {
            return Some(real);
        }
        let joined = at.parent()?.join(target);
        Some(PathBuf::from(normalize(&joined.to_string_lossy())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(found: &[String], root: &Path) -> Vec<String> {
        let root = std::fs::canonicalize(root).unwrap();
        let mut out: Vec<String> = found
            .iter()
            .map(|f| {
                Path::new(f)
                    .strip_prefix(&root)
                    .map_or(f.clone(), |p| p.to_string_lossy().into_owned())
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn globs_match_what_is_on_disk_through_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".claude-nagger")).unwrap();
        std::fs::write(root.join(".claude-nagger/config.toml"), "").unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "").unwrap();
        std::fs::write(root.join("src/.hidden"), "").unwrap();
        std::os::unix::fs::symlink("../.claude-nagger", root.join("src/n")).unwrap();

        assert_eq!(
            names(&expanded(root, "src/n/*", false), root),
            [".claude-nagger/config.toml"]
        );
        // `*` leaves dot names alone; a matched link comes back as its target too.
        assert_eq!(
            names(&expanded(root, "src/*", false), root),
            [".claude-nagger", "src/a.rs", "src/n"]
        );
        assert_eq!(
            names(&expanded(root, "s?c/.h*", false), root),
            ["src/.hidden"]
        );
        // With `dotglob` on, `*` takes dot names too.
        assert!(names(&expanded(root, "src/*", true), root).contains(&"src/.hidden".to_owned()));
        assert_eq!(
            names(&expanded(root, "*/n/c[o]nfig.toml", false), root),
            [".claude-nagger/config.toml"]
        );
        // Nothing matches: the shell hands the word on as it is.
        assert!(expanded(root, "src/zz*", false).is_empty());
        assert!(expanded(root, "nothing/*", false).is_empty());
        // Not a glob, or only known when the shell runs.
        assert!(expanded(root, "src/a.rs", false).is_empty());
        assert!(expanded(root, "$X/*", false).is_empty());
    }

    #[test]
    fn a_glob_in_a_folder_name_walks_every_match() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["one/deep", "two/deep", "three"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("one/deep/x"), "").unwrap();
        std::fs::write(root.join("two/deep/y"), "").unwrap();
        std::fs::write(root.join("three/deep"), "").unwrap();
        assert_eq!(
            names(&expanded(root, "*/deep/*", false), root),
            ["one/deep/x", "two/deep/y"]
        );
        let absolute = format!("{}/t*", root.display());
        assert_eq!(
            names(&expanded(Path::new("/"), &absolute, false), root),
            ["three", "two"]
        );
    }
}
