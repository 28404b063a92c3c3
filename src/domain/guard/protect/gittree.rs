//! Which of nagger's files a git repository tracks, read from its index: a command that
//! replaces tracked files wholesale (`git checkout other-branch`, `git pull`, `git stash
//! pop` …) can put another version of a tracked `.claude/settings.json` or
//! `.claude-nagger/config.toml` in place, one without nagger's hooks or rules. The
//! repository is found as git finds it (`.git` a folder or a file pointing elsewhere, as
//! in worktrees and submodules, or the folder given by `--git-dir`/`GIT_DIR`), and its
//! index (versions 2, 3 and 4) is read bounded and never blocking. Entries are sorted by
//! path, so the read stops as soon as it is past the paths asked about.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::base::files;

/// The most of an index that is read before giving up.
const MAX_INDEX: u64 = 16 << 20;
/// The most of a `.git` file (`gitdir: …`) that is read.
const MAX_GITFILE: u64 = 4096;
/// The most folders walked up looking for `.git`.
const MAX_UP: usize = 128;

/// A repository: its work tree and where its index is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Repo {
    /// The top of the work tree.
    pub(super) top: PathBuf,
    /// The index file.
    pub(super) index: PathBuf,
    /// The git folder (a work tree's own, for worktrees).
    pub(super) git_dir: PathBuf,
}

/// Where a git command looks for its repository.
#[derive(Debug, Default)]
pub(super) struct Where {
    /// The folder it runs in (after `-C`).
    pub(super) dir: PathBuf,
    /// `--git-dir` / `GIT_DIR`, relative to `dir` when not absolute.
    pub(super) git_dir: Option<PathBuf>,
    /// `--work-tree` / `GIT_WORK_TREE`.
    pub(super) work_tree: Option<PathBuf>,
    /// `GIT_INDEX_FILE`.
    pub(super) index_file: Option<PathBuf>,
}

/// The repository a git command run as `at` works on, if there is one.
pub(super) fn find(at: &Where) -> Option<Repo> {
    let under = |p: &PathBuf| {
        if p.is_absolute() {
            p.clone()
        } else {
            at.dir.join(p)
        }
    };
    let (git_dir, found_top) = if let Some(given) = &at.git_dir {
        (resolve_gitfile(&under(given))?, None)
    } else {
        let mut dir: &Path = &at.dir;
        let mut found = None;
        for _ in 0..MAX_UP {
            let dot = dir.join(".git");
            if let Ok(meta) = std::fs::metadata(&dot) {
                found = resolve_gitfile(&dot)
                    .filter(|_| meta.is_dir() || meta.is_file())
                    .map(|g| (g, dir.to_path_buf()));
                if found.is_some() {
                    break;
                }
            }
            dir = dir.parent()?;
        }
        let (git_dir, top) = found?;
        (git_dir, Some(top))
    };
    // Without a work tree given, `GIT_DIR` makes the current folder the top.
    let top = match (&at.work_tree, found_top) {
        (Some(tree), _) => under(tree),
        (None, Some(top)) => top,
        (None, None) => at.dir.clone(),
    };
    let index = at
        .index_file
        .as_ref()
        .map_or_else(|| git_dir.join("index"), under);
    Some(Repo {
        top,
        index,
        git_dir,
    })
}

/// A git folder, or the folder a `.git` file (`gitdir: …`) points to.
fn resolve_gitfile(path: &Path) -> Option<PathBuf> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_dir() {
        return Some(path.to_path_buf());
    }
    let file = files::open_regular(path).ok()?;
    let mut text = String::new();
    file.take(MAX_GITFILE).read_to_string(&mut text).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    if target.is_empty() {
        return None;
    }
    let target = Path::new(target);
    Some(if target.is_absolute() {
        target.to_path_buf()
    } else {
        path.parent()?.join(target)
    })
}

/// What the index says about the paths asked about.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Tracked {
    /// The tracked paths (relative to the top) among those asked about; empty when none
    /// is tracked, or there is no index yet.
    Paths(Vec<String>),
    /// The index could not be read far enough, and why.
    Unknown(String),
}

/// A path asked about: a file, a folder (ending in `/`) whose files all count, or
/// nothing (the empty path): every file.
fn hits(entry: &[u8], wanted: &str) -> bool {
    let wanted = wanted.as_bytes();
    if wanted.is_empty() {
        return true;
    }
    if wanted.ends_with(b"/") {
        entry.starts_with(wanted) || entry == &wanted[..wanted.len() - 1]
    } else {
        // A sparse index keeps whole folders as one entry ending in `/`.
        entry == wanted || (entry.ends_with(b"/") && wanted.starts_with(entry))
    }
}

/// Whether every path starting with `wanted` sorts before `entry`.
fn past(entry: &[u8], wanted: &str) -> bool {
    entry > wanted.as_bytes() && !entry.starts_with(wanted.as_bytes())
}

/// The entries of the index at `index` that are (or lie under) the `wanted` paths.
pub(super) fn tracked(index: &Path, wanted: &[String]) -> Tracked {
    let file = match files::open_regular(index) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Tracked::Paths(Vec::new()),
        Err(e) => return Tracked::Unknown(e.to_string()),
    };
    match read_entries(file, wanted) {
        Ok(found) => {
            let mut paths: Vec<String> = Vec::new();
            for entry in found {
                if paths.last() != Some(&entry.path) {
                    paths.push(entry.path);
                }
            }
            Tracked::Paths(paths)
        }
        Err(why) => Tracked::Unknown(why),
    }
}

/// Whether the work-tree file `path` (relative to `top`) is unchanged since it was
/// staged, as `git status` tells: by the stat data the index at `index` keeps for it, git's
/// quick test, and where that differs or cannot tell (an entry staged in the same second
/// as the index was written, "racily clean"; a file touched or saved with the same bytes)
/// by hashing its content. A file that is missing or anything unreadable counts as changed.
pub(super) fn unchanged(index: &Path, top: &Path, path: &str) -> bool {
    let Ok(file) = files::open_regular(index) else {
        return false;
    };
    let Ok(written) = file.metadata() else {
        return false;
    };
    let Ok(entries) = read_entries(file, &[path.to_owned()]) else {
        return false;
    };
    entries
        .iter()
        .find(|e| e.path == path)
        .is_some_and(|entry| entry_unchanged(&written, top, entry))
}

/// Most tracked files looked at for uncommitted changes by [`changed_files`].
const MAX_COMPARED: usize = 256;

/// Up to `limit` tracked files (relative to `top`) among or under the `wanted` paths (a
/// folder ends in `/`) whose work-tree copy differs from what is staged: uncommitted work.
/// `keep` picks which of them count. The index is read once; at most
/// [`MAX_COMPARED`] files are compared. Err: the index could not be read.
pub(super) fn changed_files(
    index: &Path,
    top: &Path,
    wanted: &[String],
    keep: &dyn Fn(&str) -> bool,
    limit: usize,
) -> Result<Vec<String>, String> {
    let file = match files::open_regular(index) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e.to_string()),
    };
    let written = file.metadata().map_err(|e| e.to_string())?;
    let entries = read_entries(file, wanted)?;
    Ok(entries
        .iter()
        .filter(|e| e.stage == 0 && !e.path.ends_with('/') && keep(&e.path))
        .take(MAX_COMPARED)
        .filter(|e| !entry_unchanged(&written, top, e))
        .take(limit)
        .map(|e| e.path.clone())
        .collect())
}

/// Whether the work-tree copy of one index entry is what was staged: by stat data, else
/// by content. `written`: the index file's own metadata (for racily clean entries).
fn entry_unchanged(written: &std::fs::Metadata, top: &Path, entry: &Staged) -> bool {
    use std::os::unix::fs::MetadataExt;
    let path = entry.path.as_str();
    let stat = &entry.stat;
    let Ok(meta) = std::fs::symlink_metadata(top.join(path)) else {
        return false;
    };
    let word = |at: usize| u32::from_be_bytes([stat[at], stat[at + 1], stat[at + 2], stat[at + 3]]);
    let (sec, nsec) = (i64::from(word(8)), i64::from(word(12)));
    let racy = (written.mtime(), written.mtime_nsec()) <= (sec, nsec);
    let same_stat = !racy
        && meta.mtime() == sec
        && meta.mtime_nsec() == nsec
        // The index keeps the low 32 bits of the size. The inode is left out, as git's
        // `core.checkStat=minimal` leaves it: a copied repository keeps its times.
        && (meta.size() & 0xffff_ffff) == u64::from(word(36));
    meta.mode() & 0o170_000 == word(24) & 0o170_000
        && (same_stat || same_content(&top.join(path), &meta, &entry.oid))
}

/// Most bytes of a work-tree file hashed to tell whether its content is the staged one.
const MAX_HASHED: u64 = 8 << 20;

/// Whether the file at `full` holds the blob `oid` (SHA-1 or SHA-256 by its length), as
/// `git status` tells after stat data alone cannot (a file touched, copied or saved with
/// the same bytes). Read bounded and without blocking; anything unreadable differs.
fn same_content(full: &Path, meta: &std::fs::Metadata, oid: &[u8]) -> bool {
    use sha2::Digest as _;
    use std::io::Read as _;
    let bytes = if meta.file_type().is_symlink() {
        match std::fs::read_link(full) {
            Ok(target) => target.into_os_string().into_encoded_bytes(),
            Err(_) => return false,
        }
    } else {
        if !meta.is_file() || meta.len() > MAX_HASHED {
            return false;
        }
        let Ok(file) = files::open_regular(full) else {
            return false;
        };
        let mut bytes = Vec::new();
        if file.take(MAX_HASHED + 1).read_to_end(&mut bytes).is_err()
            || bytes.len() as u64 > MAX_HASHED
        {
            return false;
        }
        bytes
    };
    let header = format!("blob {}\0", bytes.len());
    match oid.len() {
        20 => {
            let mut h = sha1::Sha1::new();
            h.update(header.as_bytes());
            h.update(&bytes);
            h.finalize().as_slice() == oid
        }
        32 => {
            let mut h = sha2::Sha256::new();
            h.update(header.as_bytes());
            h.update(&bytes);
            h.finalize().as_slice() == oid
        }
        _ => false,
    }
}

/// One entry of the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Staged {
    /// Relative to the top of the work tree.
    pub(super) path: String,
    /// The stat data git keeps: times, device, inode, mode, ids, size.
    stat: [u8; 40],
    pub(super) oid: Vec<u8>,
    /// 0, or 1 to 3 for the sides of a conflict.
    pub(super) stage: u16,
}

impl Staged {
    /// The mode, as a tree keeps it (`0o100644`, `0o120000` …).
    pub(super) fn mode(&self) -> u32 {
        u32::from_be_bytes([self.stat[24], self.stat[25], self.stat[26], self.stat[27]])
    }
}

/// The entries of the index at `index` that are (or lie under) the `wanted` paths, with
/// their ids: empty when there is no index yet.
pub(super) fn staged(index: &Path, wanted: &[String]) -> Result<Vec<Staged>, String> {
    match files::open_regular(index) {
        Ok(file) => read_entries(file, wanted),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e.to_string()),
    }
}

/// Reads a file in chunks, bounded, keeping what is not consumed yet.
struct Stream {
    file: std::io::Take<File>,
    buf: Vec<u8>,
    at: usize,
    done: bool,
}

impl Stream {
    /// At least `n` unread bytes in the buffer, unless the file ends first.
    fn fill(&mut self, n: usize) -> Result<&[u8], String> {
        while self.buf.len() - self.at < n && !self.done {
            if self.at > 0 {
                self.buf.drain(..self.at);
                self.at = 0;
            }
            let filled = self.buf.len();
            self.buf.resize(filled + 64 * 1024, 0);
            let read = self.file.read(&mut self.buf[filled..]);
            self.buf.truncate(filled + *read.as_ref().unwrap_or(&0));
            match read {
                Ok(0) => self.done = true,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        Ok(&self.buf[self.at..])
    }

    fn bounded(&self) -> bool {
        self.done && self.file.limit() == 0
    }
}

fn be32(b: &[u8]) -> usize {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize
}

/// git's variable-length offsets (index version 4): the bytes of the previous path
/// dropped. The value and the bytes it took.
fn varint(b: &[u8]) -> Option<(usize, usize)> {
    let mut k = 0;
    let mut c = *b.first()?;
    let mut value = usize::from(c & 0x7f);
    while c & 0x80 != 0 {
        k += 1;
        c = *b.get(k)?;
        value = value.checked_add(1)?.checked_mul(128)? + usize::from(c & 0x7f);
    }
    Some((value, k + 1))
}

/// One entry parsed from the front of `b`: its path and length in bytes, with `hash`
/// bytes of object id. `None` when `b` does not hold a whole, well-formed entry.
fn entry(b: &[u8], version: usize, hash: usize, previous: &[u8]) -> Option<(Vec<u8>, usize)> {
    let mut at = 40 + hash;
    let flags = usize::from(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]));
    at += 2;
    if version >= 3 && flags & 0x4000 != 0 {
        at += 2;
    }
    let length = flags & 0xfff;
    let (path, size) = if version == 4 {
        let (drop, took) = varint(b.get(at..)?)?;
        at += took;
        let rest = b.get(at..)?;
        let end = rest.iter().position(|c| *c == 0)?;
        let keep = previous.len().checked_sub(drop)?;
        let mut path = previous[..keep].to_vec();
        path.extend_from_slice(&rest[..end]);
        (path, at + end + 1)
    } else {
        let rest = b.get(at..)?;
        let end = rest.iter().position(|c| *c == 0)?;
        let size = (at + end + 8) & !7;
        if b.len() < size || b[at + end..size].iter().any(|c| *c != 0) {
            return None;
        }
        (rest[..end].to_vec(), size)
    };
    let named = if length < 0xfff {
        path.len() == length
    } else {
        path.len() >= 0xfff
    };
    (named && !path.is_empty() && !path.starts_with(b"/")).then_some((path, size))
}

/// The entries under the `wanted` paths, each with its 40 bytes of stat data.
fn read_entries(file: File, wanted: &[String]) -> Result<Vec<Staged>, String> {
    let mut s = Stream {
        file: file.take(MAX_INDEX),
        buf: Vec::new(),
        at: 0,
        done: false,
    };
    let head = s.fill(12)?;
    if head.len() < 12 {
        return if head.is_empty() {
            Ok(Vec::new())
        } else {
            Err("the index is cut short".into())
        };
    }
    if &head[..4] != b"DIRC" {
        return Err("not a git index".into());
    }
    let version = be32(&head[4..]);
    let count = be32(&head[8..]);
    if !(2..=4).contains(&version) {
        return Err(format!(
            "index version {version}, which nagger does not read"
        ));
    }
    s.at += 12;
    let mut found = Vec::new();
    let mut previous: Vec<u8> = Vec::new();
    // SHA-1 or SHA-256 object ids: the first entry tells which.
    let mut hash = None;
    // Most bytes one entry can take: stat data, a SHA-256 id, flags and a long path.
    const LONGEST: usize = 40 + 32 + 4 + 10 + 4096 + 8;
    for _ in 0..count {
        let b = s.fill(LONGEST)?;
        let parsed = match hash {
            Some(h) => entry(b, version, h, &previous).map(|e| (e, h)),
            None => [20, 32]
                .into_iter()
                .find_map(|h| Some((entry(b, version, h, &previous)?, h))),
        };
        let Some(((path, size), h)) = parsed else {
            if s.bounded() {
                return Err(format!("the index is larger than {} MiB", MAX_INDEX >> 20));
            }
            return Err("an index entry nagger cannot read".into());
        };
        let mut stat = [0; 40];
        stat.copy_from_slice(&b[..40]);
        let oid = b[40..40 + h].to_vec();
        let stage = (u16::from_be_bytes([b[40 + h], b[41 + h]]) >> 12) & 3;
        hash = Some(h);
        s.at += size;
        if wanted.iter().any(|w| hits(&path, w)) {
            // Each stage of a conflicted path is an entry of its own.
            found.push(Staged {
                path: String::from_utf8_lossy(&path).into_owned(),
                stat,
                oid,
                stage,
            });
        }
        if wanted.iter().all(|w| past(&path, w)) {
            break;
        }
        previous = path;
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index of `version` holding `paths` (sorted), with `hash`-byte ids.
    fn index(version: u32, hash: usize, paths: &[&str]) -> Vec<u8> {
        let mut out = b"DIRC".to_vec();
        out.extend_from_slice(&version.to_be_bytes());
        out.extend_from_slice(&u32::try_from(paths.len()).unwrap().to_be_bytes());
        let mut previous = "";
        for (k, path) in paths.iter().enumerate() {
            let start = out.len();
            out.extend_from_slice(&[7u8; 24]);
            out.extend_from_slice(&0o100_644_u32.to_be_bytes());
            out.extend_from_slice(&[0u8; 12]);
            out.extend(std::iter::repeat_n(0xabu8, hash));
            let extended = version >= 3 && k % 2 == 1;
            let flags =
                u16::try_from(path.len().min(0xfff)).unwrap() | if extended { 0x4000 } else { 0 };
            out.extend_from_slice(&flags.to_be_bytes());
            if extended {
                out.extend_from_slice(&0u16.to_be_bytes());
            }
            if version == 4 {
                let common = previous
                    .bytes()
                    .zip(path.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                let drop = previous.len() - common;
                assert!(drop < 128, "one-byte offsets in these tests");
                out.push(u8::try_from(drop).unwrap());
                out.extend_from_slice(&path.as_bytes()[common..]);
                out.push(0);
            } else {
                out.extend_from_slice(path.as_bytes());
                let size = (out.len() - start + 8) & !7;
                out.resize(start + size, 0);
            }
            previous = path;
        }
        out.extend_from_slice(&[0x5a; 20]);
        out
    }

    fn wanted() -> Vec<String> {
        [
            ".claude-nagger/",
            ".claude/settings.json",
            ".claude/settings.local.json",
        ]
        .map(String::from)
        .to_vec()
    }

    fn read(bytes: &[u8]) -> Tracked {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        std::fs::write(&path, bytes).unwrap();
        tracked(&path, &wanted())
    }

    #[test]
    fn every_index_version_and_object_format_is_read() {
        let paths = [
            "!odd",
            ".claude-nagger/config.toml",
            ".claude-nagger/trusted.json",
            ".claude/agents/a.md",
            ".claude/settings.json",
            ".github/workflows/ci.yml",
            "src/main.rs",
        ];
        for version in [2, 3, 4] {
            for hash in [20, 32] {
                assert_eq!(
                    read(&index(version, hash, &paths)),
                    Tracked::Paths(vec![
                        ".claude-nagger/config.toml".into(),
                        ".claude-nagger/trusted.json".into(),
                        ".claude/settings.json".into(),
                    ]),
                    "version {version}, {hash}-byte ids"
                );
                let none = ["README.md", "src/.claude/settings.json", "src/lib.rs"];
                assert_eq!(
                    read(&index(version, hash, &none)),
                    Tracked::Paths(Vec::new()),
                    "version {version}"
                );
            }
        }
    }

    #[test]
    fn the_read_stops_past_the_paths_asked_about() {
        let mut bytes = index(2, 20, &[".claude/settings.json", "a", "b"]);
        // Whatever follows the paths asked about is never read.
        let cut = bytes.len() - 40;
        bytes.truncate(cut);
        assert_eq!(
            read(&bytes),
            Tracked::Paths(vec![".claude/settings.json".into()])
        );
    }

    #[test]
    fn a_sparse_folder_entry_covers_its_files() {
        assert_eq!(
            read(&index(4, 20, &[".claude/", "src/"])),
            Tracked::Paths(vec![".claude/".into()])
        );
    }

    #[test]
    fn what_is_not_an_index_is_unknown_and_no_index_tracks_nothing() {
        assert!(matches!(read(b"not an index at all"), Tracked::Unknown(_)));
        assert!(matches!(read(&index(5, 20, &["a"])), Tracked::Unknown(_)));
        let mut cut = index(2, 20, &["!a", ".claude/settings.json"]);
        cut.truncate(40);
        assert!(matches!(read(&cut), Tracked::Unknown(_)));
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            tracked(&dir.path().join("index"), &wanted()),
            Tracked::Paths(Vec::new())
        );
        // A FIFO in its place is never opened for a blocking read.
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        assert!(matches!(tracked(&fifo, &wanted()), Tracked::Unknown(_)));
    }

    #[test]
    fn the_repository_is_found_through_git_files_and_given_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("main/.git")).unwrap();
        std::fs::create_dir_all(root.join("main/sub/deep")).unwrap();
        let at = |dir: PathBuf| Where {
            dir,
            ..Where::default()
        };
        let repo = find(&at(root.join("main/sub/deep"))).unwrap();
        assert_eq!(repo.top, root.join("main"));
        assert_eq!(repo.index, root.join("main/.git/index"));
        // A worktree: `.git` is a file naming its own git folder.
        std::fs::create_dir_all(root.join("main/.git/worktrees/wt")).unwrap();
        std::fs::create_dir_all(root.join("wt")).unwrap();
        std::fs::write(root.join("wt/.git"), "gitdir: ../main/.git/worktrees/wt\n").unwrap();
        let repo = find(&at(root.join("wt"))).unwrap();
        assert_eq!(repo.top, root.join("wt"));
        assert_eq!(repo.index, root.join("wt/../main/.git/worktrees/wt/index"));
        // `--git-dir` without a work tree: the current folder is the top.
        let given = Where {
            git_dir: Some("../main/.git".into()),
            ..at(root.join("wt"))
        };
        let repo = find(&given).unwrap();
        assert_eq!(repo.top, root.join("wt"));
        assert_eq!(repo.index, root.join("wt/../main/.git/index"));
        let other = Where {
            work_tree: Some(root.join("elsewhere")),
            index_file: Some("/tmp/i".into()),
            ..at(root.join("main"))
        };
        let repo = find(&other).unwrap();
        assert_eq!(repo.top, root.join("elsewhere"));
        assert_eq!(repo.index, PathBuf::from("/tmp/i"));
    }
}
