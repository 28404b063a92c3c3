//! git's object database, read as git reads it, for the few objects the guard needs: the
//! commit a revision names (branches, tags, remote branches, abbreviated ids, `HEAD~2`,
//! `main^2`, `@{-1}`, `-` …), its tree, and the entries of the paths asked about. Loose
//! objects and packs (index version 2, deltas by offset and by id, alternates) are read
//! bounded and never blocking; what cannot be read is an error that says why, never a
//! guess.

use std::cell::OnceCell;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use flate2::bufread::ZlibDecoder;

use crate::base::files;

/// The largest object read, inflated.
const MAX_OBJECT: u64 = 16 << 20;
/// The longest chain of deltas followed to its base.
const MAX_DELTAS: usize = 64;
/// The most packs looked in.
const MAX_PACKS: usize = 256;
/// The most object folders (the repository's and its alternates').
const MAX_ALTERNATES: usize = 8;
/// The most of a ref file, `commondir` or alternates list that is read.
const MAX_SMALL: u64 = 64 * 1024;
/// The most of `packed-refs` that is read.
const MAX_PACKED_REFS: u64 = 32 << 20;
/// The most of the end of `HEAD`'s reflog that is read.
const MAX_REFLOG: u64 = 1 << 20;
/// The most ids of one pack's fan-out bucket read at once.
const MAX_BUCKET: u64 = 64 << 20;
/// The most commits walked for `~N` or looking for an ancestor.
const MAX_WALK: usize = 2048;
/// The most objects one store reads, and the most bytes it inflates: what one command
/// may cost the hook.
const MAX_READS: usize = 8192;
const MAX_INFLATED: u64 = 256 << 20;
/// The most files listed under a folder asked about.
const MAX_ENTRIES: usize = 4096;
/// The most refs that point to other refs, followed.
const MAX_SYMREFS: usize = 8;

/// Why a revision's objects cannot be given.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Problem {
    /// The revision names nothing the repository has: git fails on it as well.
    Missing(String),
    /// What it names cannot be read (a form or a store nagger does not read, a bound).
    Unreadable(String),
}

impl From<String> for Problem {
    fn from(why: String) -> Problem {
        Problem::Unreadable(why)
    }
}

impl From<&str> for Problem {
    fn from(why: &str) -> Problem {
        Problem::Unreadable(why.to_owned())
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Missing(why) | Problem::Unreadable(why) => f.write_str(why),
        }
    }
}

/// An object id: 20 bytes (SHA-1) or 32 (SHA-256).
pub(super) type Oid = Vec<u8>;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Commit,
    Tree,
    Blob,
    Tag,
}

/// One path's entry in a tree: its mode (as the index keeps it) and object id.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Entry {
    pub(super) path: String,
    pub(super) mode: u32,
    pub(super) oid: Oid,
}

/// The object database and refs of one repository.
pub(super) struct Store {
    /// The repository's own folder: `HEAD`, the pseudo refs and `HEAD`'s reflog.
    git_dir: PathBuf,
    /// Where refs and objects are kept, shared by all work trees (`commondir`).
    common: PathBuf,
    /// Bytes of an object id.
    hash: usize,
    object_dirs: OnceCell<Vec<PathBuf>>,
    packs: OnceCell<Result<Vec<Pack>, String>>,
    /// Objects read and bytes inflated so far.
    reads: std::cell::Cell<usize>,
    inflated: std::cell::Cell<u64>,
}

/// A pack and what its index says first.
struct Pack {
    /// The pack index and the pack, opened once.
    idx: File,
    pack: File,
    fanout: Vec<u32>,
}

/// A reader of `file` from a position, by positioned reads (the file is shared).
struct At<'f> {
    file: &'f File,
    pos: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::os::unix::fs::FileExt;
        let n = self.file.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// Exactly `len` bytes of `file` at `at`.
fn read_at(file: &File, at: u64, len: usize) -> Result<Vec<u8>, String> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0; len];
    file.read_exact_at(&mut buf, at)
        .map_err(|e| format!("a pack index cut short: {e}"))?;
    Ok(buf)
}

/// The branch of `B@{upstream}`, `@{u}` (empty: the current one), when `rev` is such a
/// form.
fn upstream_of(rev: &str) -> Option<&str> {
    let (branch, at) = rev.split_once("@{")?;
    let at = at.strip_suffix('}')?;
    (at.eq_ignore_ascii_case("u") || at.eq_ignore_ascii_case("upstream")).then_some(branch)
}

pub(super) fn hex(oid: &[u8]) -> String {
    use std::fmt::Write;
    oid.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

fn from_hex(text: &str) -> Option<Oid> {
    if !text.len().is_multiple_of(2) || !text.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|k| u8::from_str_radix(&text[k..k + 2], 16).ok())
        .collect()
}

/// Up to `max` bytes of a regular file, opened without blocking.
pub(super) fn read_small(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let file = files::open_regular(path)?;
    let mut out = Vec::new();
    file.take(max).read_to_end(&mut out)?;
    Ok(out)
}

fn not_found(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// Whether `name` can be a ref's name: no way out of the refs' folder.
fn sane_ref(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('/')
        && !name.ends_with('/')
        && !name.contains("..")
        && !name.contains("//")
        && !name.bytes().any(|c| c < b' ' || b"\\ ~^:?*[".contains(&c))
        && !name.split('/').any(|part| part.starts_with('.'))
}

impl Store {
    /// The store of the repository whose git folder is `git_dir`.
    pub(super) fn open(git_dir: &Path) -> Store {
        let common = read_small(&git_dir.join("commondir"), MAX_SMALL)
            .ok()
            .and_then(|text| {
                let line = String::from_utf8(text).ok()?;
                let line = line.lines().next()?.trim().to_owned();
                (!line.is_empty()).then(|| git_dir.join(line))
            })
            .unwrap_or_else(|| git_dir.to_path_buf());
        let sha256 = read_small(&common.join("config"), MAX_SMALL).is_ok_and(|text| {
            String::from_utf8_lossy(&text).lines().any(|line| {
                let line: String = line
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>()
                    .to_ascii_lowercase();
                line == "objectformat=sha256"
            })
        });
        Store {
            git_dir: git_dir.to_path_buf(),
            common,
            hash: if sha256 { 32 } else { 20 },
            object_dirs: OnceCell::new(),
            packs: OnceCell::new(),
            reads: std::cell::Cell::new(0),
            inflated: std::cell::Cell::new(0),
        }
    }

    /// The repository's object folder and those its alternates name.
    fn object_dirs(&self) -> &[PathBuf] {
        self.object_dirs.get_or_init(|| {
            let main = self.common.join("objects");
            let mut dirs = vec![main.clone()];
            if let Ok(text) = read_small(&main.join("info/alternates"), MAX_SMALL) {
                for line in String::from_utf8_lossy(&text).lines() {
                    let line = line.trim();
                    if line.is_empty() || line.starts_with('#') || dirs.len() >= MAX_ALTERNATES {
                        continue;
                    }
                    dirs.push(main.join(line));
                }
            }
            dirs
        })
    }

    fn packs(&self) -> Result<&[Pack], String> {
        let packs = self.packs.get_or_init(|| {
            let mut packs = Vec::new();
            for dir in self.object_dirs() {
                let folder = dir.join("pack");
                let listing = match std::fs::read_dir(&folder) {
                    Ok(listing) => listing,
                    Err(e) if not_found(&e) => continue,
                    Err(e) => return Err(format!("{}: {e}", folder.display())),
                };
                let mut idxs: Vec<PathBuf> = listing
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "idx"))
                    .take(MAX_PACKS + 1)
                    .collect();
                idxs.sort();
                for idx in idxs {
                    if packs.len() >= MAX_PACKS {
                        return Err(format!("more than {MAX_PACKS} packs"));
                    }
                    let fanout = fanout(&idx)?;
                    let open = |path: &Path| {
                        files::open_regular(path).map_err(|e| format!("{}: {e}", path.display()))
                    };
                    packs.push(Pack {
                        pack: open(&idx.with_extension("pack"))?,
                        idx: open(&idx)?,
                        fanout,
                    });
                }
            }
            Ok(packs)
        });
        packs.as_deref().map_err(Clone::clone)
    }

    /// The object `oid`: its kind and content.
    fn object(&self, oid: &[u8], depth: usize) -> Result<(Kind, Vec<u8>), String> {
        if depth > MAX_DELTAS {
            return Err(format!("deltas deeper than {MAX_DELTAS}"));
        }
        self.reads.set(self.reads.get() + 1);
        if self.reads.get() > MAX_READS {
            return Err(format!("more than {MAX_READS} objects to read"));
        }
        let got = self.read_object(oid, depth)?;
        self.inflated.set(self.inflated.get() + got.1.len() as u64);
        if self.inflated.get() > MAX_INFLATED {
            return Err(format!(
                "more than {} MiB of objects to read",
                MAX_INFLATED >> 20
            ));
        }
        Ok(got)
    }

    fn read_object(&self, oid: &[u8], depth: usize) -> Result<(Kind, Vec<u8>), String> {
        let name = hex(oid);
        for dir in self.object_dirs() {
            let loose = dir.join(&name[..2]).join(&name[2..]);
            match files::open_regular(&loose) {
                Ok(file) => return loose_object(file),
                Err(e) if not_found(&e) => {}
                Err(e) => return Err(format!("{}: {e}", loose.display())),
            }
        }
        for pack in self.packs()? {
            if let Some(offset) = pack.find(oid, self.hash)? {
                return self.packed(pack, offset, depth);
            }
        }
        Err(format!("object {} is not in the repository", &name[..12]))
    }

    /// The object at `offset` in `pack`, its deltas applied.
    fn packed(&self, pack: &Pack, offset: u64, depth: usize) -> Result<(Kind, Vec<u8>), String> {
        let mut deltas = Vec::new();
        let mut at = offset;
        let (kind, mut data) = loop {
            if deltas.len() > MAX_DELTAS {
                return Err(format!("deltas deeper than {MAX_DELTAS}"));
            }
            let mut reader = BufReader::new(At {
                file: &pack.pack,
                pos: at,
            });
            let (kind, size) = pack_header(&mut reader)?;
            match kind {
                1..=4 => {
                    let kind = [Kind::Commit, Kind::Tree, Kind::Blob, Kind::Tag][kind - 1];
                    break (kind, inflate(&mut reader, size)?);
                }
                6 => {
                    let back = ofs_varint(&mut reader)?;
                    deltas.push(inflate(&mut reader, size)?);
                    at = at
                        .checked_sub(back)
                        .filter(|_| back > 0)
                        .ok_or("a delta whose base lies outside its pack")?;
                }
                7 => {
                    let mut base = vec![0; self.hash];
                    reader.read_exact(&mut base).map_err(|e| e.to_string())?;
                    deltas.push(inflate(&mut reader, size)?);
                    break self.object(&base, depth + deltas.len())?;
                }
                other => return Err(format!("a packed object of type {other}")),
            }
        };
        for delta in deltas.iter().rev() {
            data = apply_delta(&data, delta)?;
        }
        Ok((kind, data))
    }

    /// The value of the ref `name` (`HEAD`, `refs/heads/main`, `ORIG_HEAD`), following
    /// symbolic refs; `None` when there is no such ref.
    fn reference(&self, name: &str) -> Result<Option<Oid>, String> {
        let mut name = name.to_owned();
        for _ in 0..MAX_SYMREFS {
            // At the top of the git folder only pseudo refs (`HEAD`, `ORIG_HEAD`) count.
            if !sane_ref(&name)
                || (!name.contains('/')
                    && !name.bytes().all(|c| c.is_ascii_uppercase() || c == b'_'))
            {
                return Ok(None);
            }
            // A work tree's `HEAD` and pseudo refs are its own; branches are shared.
            let folder = if name.contains('/') {
                &self.common
            } else {
                &self.git_dir
            };
            let text = match read_small(&folder.join(&name), MAX_SMALL) {
                Ok(text) => Some(String::from_utf8_lossy(&text).into_owned()),
                Err(e) if not_found(&e) || e.kind() == std::io::ErrorKind::InvalidInput => None,
                Err(e) => return Err(format!("ref {name}: {e}")),
            };
            let Some(text) = text else {
                return if name.starts_with("refs/") {
                    self.packed_ref(&name)
                } else {
                    Ok(None)
                };
            };
            let first = text.lines().next().unwrap_or("").trim();
            if let Some(target) = first.strip_prefix("ref:") {
                target.trim().clone_into(&mut name);
                continue;
            }
            // `FETCH_HEAD`: the id starts each line.
            let id = first.split_whitespace().next().unwrap_or("");
            return match from_hex(id) {
                Some(oid) if oid.len() == self.hash => Ok(Some(oid)),
                _ => Err(format!("ref {name} holds no object id")),
            };
        }
        Err("symbolic refs pointing on too far".into())
    }

    /// The value `packed-refs` gives `name`.
    fn packed_ref(&self, name: &str) -> Result<Option<Oid>, String> {
        let path = self.common.join("packed-refs");
        let file = match files::open_regular(&path) {
            Ok(file) => file,
            Err(e) if not_found(&e) => return Ok(None),
            Err(e) => return Err(format!("packed-refs: {e}")),
        };
        for line in BufReader::new(file.take(MAX_PACKED_REFS)).split(b'\n') {
            let line = line.map_err(|e| e.to_string())?;
            let line = String::from_utf8_lossy(&line);
            if let Some((id, rest)) = line.split_once(' ')
                && rest.trim_end() == name
            {
                return Ok(from_hex(id).filter(|o| o.len() == self.hash));
            }
        }
        Ok(None)
    }

    /// Names of refs under `refs/remotes/*/` that end in `/branch`, with their values.
    fn remote_branches(&self, branch: &str) -> Result<Vec<Oid>, String> {
        let mut found: Vec<(String, Oid)> = Vec::new();
        let remotes = self.common.join("refs/remotes");
        if let Ok(listing) = std::fs::read_dir(&remotes) {
            for remote in listing.filter_map(Result::ok).take(256) {
                let name = format!(
                    "refs/remotes/{}/{branch}",
                    remote.file_name().to_string_lossy()
                );
                if let Some(oid) = self.reference(&name)? {
                    found.push((name, oid));
                }
            }
        }
        if let Ok(file) = files::open_regular(&self.common.join("packed-refs")) {
            for line in BufReader::new(file.take(MAX_PACKED_REFS)).split(b'\n') {
                let line = line.map_err(|e| e.to_string())?;
                let line = String::from_utf8_lossy(&line);
                let Some((id, name)) = line.split_once(' ') else {
                    continue;
                };
                let name = name.trim_end();
                let remote = name
                    .strip_prefix("refs/remotes/")
                    .and_then(|r| r.strip_suffix(branch))
                    .and_then(|r| r.strip_suffix('/'));
                if remote.is_some_and(|r| !r.is_empty() && !r.contains('/'))
                    && !found.iter().any(|(n, _)| n == name)
                    && let Some(oid) = from_hex(id).filter(|o| o.len() == self.hash)
                {
                    found.push((name.to_owned(), oid));
                }
            }
        }
        Ok(found.into_iter().map(|(_, oid)| oid).collect())
    }

    /// The lines of the end of a reflog (its last [`MAX_REFLOG`] bytes, a line cut there
    /// left out); `what` names it when it is missing.
    fn reflog_tail(path: &Path, what: &str) -> Result<Vec<String>, Problem> {
        let mut file = match files::open_regular(path) {
            Ok(file) => file,
            Err(e) if not_found(&e) => {
                return Err(Problem::Missing(format!("{what} has no reflog")));
            }
            Err(e) => return Err(format!("{what}'s reflog: {e}").into()),
        };
        let len = file.metadata().map_err(|e| e.to_string())?.len();
        let start = len.saturating_sub(MAX_REFLOG);
        file.seek(SeekFrom::Start(start))
            .map_err(|e| e.to_string())?;
        let mut text = Vec::new();
        file.take(MAX_REFLOG)
            .read_to_end(&mut text)
            .map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&text);
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect();
        if start > 0 && !lines.is_empty() {
            // The first line read may be cut.
            lines.remove(0);
        }
        Ok(lines)
    }

    /// The branch or commit the `n`th last `checkout: moving from A to B` of `HEAD`'s
    /// reflog left (`@{-n}`, `-`).
    fn previous_checkout(&self, n: usize) -> Result<String, Problem> {
        let lines = Self::reflog_tail(&self.git_dir.join("logs/HEAD"), "HEAD")?;
        lines
            .iter()
            .rev()
            .filter_map(|line| {
                let (_, message) = line.split_once('\t')?;
                let moves = message.strip_prefix("checkout: moving from ")?;
                Some(moves.rsplit_once(" to ")?.0.to_owned())
            })
            .nth(n.saturating_sub(1))
            .ok_or_else(|| {
                Problem::Missing(format!("HEAD's reflog holds fewer than {n} checkouts"))
            })
    }

    /// The last value of `key` in the section `section` (`branch "main"`, `remote
    /// "origin"`: the name lower-cased, the quoted part as it is) of the repository's own
    /// configuration.
    pub(super) fn config(&self, section: &str, key: &str) -> Option<String> {
        let text = read_small(&self.common.join("config"), MAX_SMALL).ok()?;
        let text = String::from_utf8_lossy(&text);
        let mut current = String::new();
        let mut found = None;
        for line in text.lines() {
            let line = line.trim();
            if let Some(header) = line.strip_prefix('[') {
                let header = header.split(']').next().unwrap_or("").trim();
                current = match header.split_once(char::is_whitespace) {
                    Some((name, sub)) => format!("{} {}", name.to_ascii_lowercase(), sub.trim()),
                    None => header.to_ascii_lowercase(),
                };
                continue;
            }
            if current != section {
                continue;
            }
            if let Some((k, v)) = line.split_once('=')
                && k.trim().eq_ignore_ascii_case(key)
            {
                found = Some(v.trim().trim_matches('"').to_owned());
            }
        }
        found
    }

    /// The branch `HEAD` is on (`main` for `refs/heads/main`), when it is on one.
    pub(super) fn current_branch(&self) -> Option<String> {
        let text = read_small(&self.git_dir.join("HEAD"), MAX_SMALL).ok()?;
        let text = String::from_utf8_lossy(&text);
        let target = text.lines().next()?.strip_prefix("ref:")?.trim();
        Some(target.strip_prefix("refs/heads/")?.to_owned())
    }

    /// The ref a branch's upstream is kept in (`refs/remotes/origin/main`, or a branch of
    /// this repository): `branch` empty for the one `HEAD` is on.
    fn upstream(&self, branch: &str) -> Result<String, Problem> {
        let branch = if branch.is_empty() {
            self.current_branch()
                .ok_or_else(|| Problem::Missing("HEAD is on no branch".into()))?
        } else {
            branch.to_owned()
        };
        let section = format!("branch \"{branch}\"");
        let (Some(remote), Some(merge)) = (
            self.config(&section, "remote"),
            self.config(&section, "merge"),
        ) else {
            return Err(Problem::Missing(format!("`{branch}` has no upstream")));
        };
        if remote == "." {
            return Ok(merge);
        }
        let short = merge.strip_prefix("refs/heads/").unwrap_or(&merge);
        Ok(format!("refs/remotes/{remote}/{short}"))
    }

    /// The object a revision's base names (before any `~`, `^`).
    fn base(&self, base: &str, remote_branch: bool) -> Result<Oid, Problem> {
        if std::fs::symlink_metadata(self.common.join("reftable")).is_ok() {
            return Err("refs kept in a reftable, which nagger does not read".into());
        }
        let base = match base {
            "@" => "HEAD".to_owned(),
            "-" => self.previous_checkout(1)?,
            b if b.starts_with("@{-") && b.ends_with('}') => {
                let n: usize = b[3..b.len() - 1]
                    .parse()
                    .map_err(|_| format!("`{b}` is no earlier checkout"))?;
                self.previous_checkout(n)?
            }
            b => match upstream_of(b) {
                Some(branch) => self.upstream(branch)?,
                None => b.to_owned(),
            },
        };
        let base = base.as_str();
        if base.contains("@{") || base.contains(':') {
            return Err(format!("`{base}` is a form nagger does not read").into());
        }
        if base.len() == self.hash * 2
            && let Some(oid) = from_hex(base)
        {
            return Ok(oid);
        }
        for name in [
            base.to_owned(),
            format!("refs/{base}"),
            format!("refs/tags/{base}"),
            format!("refs/heads/{base}"),
            format!("refs/remotes/{base}"),
            format!("refs/remotes/{base}/HEAD"),
        ] {
            if let Some(oid) = self.reference(&name)? {
                return Ok(oid);
            }
        }
        if remote_branch && sane_ref(base) {
            let found = self.remote_branches(base)?;
            if found.len() == 1 {
                return Ok(found.into_iter().next().expect("one"));
            }
        }
        if base.len() >= 4 && base.bytes().all(|c| c.is_ascii_hexdigit()) {
            return self.abbreviated(&base.to_ascii_lowercase());
        }
        Err(Problem::Missing(format!(
            "`{base}` names no branch, tag or commit"
        )))
    }

    /// The one object whose id starts with the hex digits `prefix`.
    fn abbreviated(&self, prefix: &str) -> Result<Oid, Problem> {
        let mut found: Vec<Oid> = Vec::new();
        for dir in self.object_dirs() {
            if let Ok(listing) = std::fs::read_dir(dir.join(&prefix[..2])) {
                for entry in listing.filter_map(Result::ok).take(1 << 16) {
                    let name = format!("{}{}", &prefix[..2], entry.file_name().to_string_lossy());
                    if name.starts_with(prefix)
                        && let Some(oid) = from_hex(&name).filter(|o| o.len() == self.hash)
                        && !found.contains(&oid)
                    {
                        found.push(oid);
                    }
                }
            }
        }
        for pack in self.packs()? {
            for oid in pack.with_prefix(prefix, self.hash)? {
                if !found.contains(&oid) {
                    found.push(oid);
                }
            }
        }
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err(Problem::Missing(format!(
                "no object starts with `{prefix}`"
            ))),
            _ => Err(Problem::Missing(format!("`{prefix}` is ambiguous"))),
        }
    }

    /// The commit or tree object a revision names: `main`, `v1`, `origin/x`, `abc123`,
    /// `HEAD~2`, `main^2`, `@{-1}`, `v1^{commit}`. `remote_branch`: a name no branch or
    /// tag has may be one remote's branch, as `git checkout`/`git switch` guess it.
    fn revision(&self, rev: &str, remote_branch: bool) -> Result<(Kind, Oid), Problem> {
        let cut = rev.find(['~', '^']).unwrap_or(rev.len());
        let (base, mut steps) = rev.split_at(cut);
        let mut oid = self.base(base, remote_branch)?;
        let mut kind = self.kind_of(&oid)?;
        while let Some(step) = steps.chars().next() {
            steps = &steps[1..];
            if step == '^' && steps.starts_with('{') {
                let close = steps.find('}').ok_or("an unclosed `^{`")?;
                let want = &steps[1..close];
                steps = &steps[close + 1..];
                (kind, oid) = match want {
                    "" => self.peel_tags(oid)?,
                    "commit" => (Kind::Commit, self.commit_of(oid)?),
                    "tree" => (Kind::Tree, self.tree_of(&oid)?),
                    other => {
                        return Err(format!("`^{{{other}}}` is a form nagger does not read").into());
                    }
                };
                continue;
            }
            let digits = steps.bytes().take_while(u8::is_ascii_digit).count();
            let n: usize = if digits == 0 {
                1
            } else {
                steps[..digits].parse().map_err(|_| "a step too large")?
            };
            steps = &steps[digits..];
            let mut commit = self.commit_of(oid)?;
            match step {
                '~' => {
                    if n > MAX_WALK {
                        return Err(format!("more than {MAX_WALK} commits back").into());
                    }
                    for _ in 0..n {
                        commit = self.parents(&commit)?.into_iter().next().ok_or_else(|| {
                            Problem::Missing(format!("`{rev}` lies before the first commit"))
                        })?;
                    }
                }
                _ if n == 0 => {}
                _ => {
                    commit = self
                        .parents(&commit)?
                        .into_iter()
                        .nth(n - 1)
                        .ok_or_else(|| {
                            Problem::Missing(format!(
                                "`{rev}` names a parent the commit does not have"
                            ))
                        })?;
                }
            }
            (kind, oid) = (Kind::Commit, commit);
        }
        Ok((kind, oid))
    }

    fn kind_of(&self, oid: &[u8]) -> Result<Kind, String> {
        Ok(self.object(oid, 0)?.0)
    }

    /// What a tag (or a chain of them) points at.
    fn peel_tags(&self, mut oid: Oid) -> Result<(Kind, Oid), String> {
        for _ in 0..MAX_SYMREFS {
            let (kind, data) = self.object(&oid, 0)?;
            if kind != Kind::Tag {
                return Ok((kind, oid));
            }
            oid = header(&data, "object", self.hash)?
                .into_iter()
                .next()
                .ok_or("a tag that points at nothing")?;
        }
        Err("tags pointing on too far".into())
    }

    /// The commit `oid` is or a tag points at.
    fn commit_of(&self, oid: Oid) -> Result<Oid, String> {
        match self.peel_tags(oid)? {
            (Kind::Commit, oid) => Ok(oid),
            (kind, _) => Err(format!("a {kind:?} where a commit was expected").to_lowercase()),
        }
    }

    /// The tree of a commit (or the tree itself).
    fn tree_of(&self, oid: &[u8]) -> Result<Oid, String> {
        let (kind, oid) = self.peel_tags(oid.to_vec())?;
        match kind {
            Kind::Tree => Ok(oid),
            Kind::Commit => {
                let (_, data) = self.object(&oid, 0)?;
                header(&data, "tree", self.hash)?
                    .into_iter()
                    .next()
                    .ok_or_else(|| "a commit without a tree".to_owned())
            }
            other => Err(format!("a {other:?} where a tree was expected").to_lowercase()),
        }
    }

    fn parents(&self, commit: &[u8]) -> Result<Vec<Oid>, String> {
        let (kind, data) = self.object(commit, 0)?;
        if kind != Kind::Commit {
            return Err("a parent of what is no commit".into());
        }
        header(&data, "parent", self.hash)
    }

    /// The commit a revision names (`None` for `HEAD` of a branch with no commit yet).
    pub(super) fn commit(&self, rev: &str, remote_branch: bool) -> Result<Option<Oid>, Problem> {
        if rev == "HEAD" && self.reference("HEAD")?.is_none() {
            return Ok(None);
        }
        let (_, oid) = self.revision(rev, remote_branch)?;
        Ok(Some(self.commit_of(oid)?))
    }

    /// The tree a revision names, a commit's or a tree's own.
    pub(super) fn tree(&self, rev: &str, remote_branch: bool) -> Result<Oid, Problem> {
        let (_, oid) = self.revision(rev, remote_branch)?;
        Ok(self.tree_of(&oid)?)
    }

    /// The stash entry `stash@{n}`: `refs/stash` itself, or an older entry from its reflog.
    /// The content of the file at `path` (relative to the top) in revision `rev`.
    pub(super) fn file_at(&self, rev: &str, path: &str) -> Result<Vec<u8>, Problem> {
        let tree = self.tree(rev, false)?;
        let entries = self.entries(Some(&tree), &[path.to_owned()])?;
        let entry = entries
            .iter()
            .find(|e| e.path == path)
            .ok_or_else(|| Problem::from(format!("`{path}` is not in `{rev}`")))?;
        match self.object(&entry.oid, 0)? {
            (Kind::Blob, bytes) => Ok(bytes),
            _ => Err(Problem::from(format!("`{rev}:{path}` is not a file"))),
        }
    }

    pub(super) fn stash(&self, n: usize) -> Result<Oid, Problem> {
        if n == 0 {
            return self
                .reference("refs/stash")?
                .ok_or_else(|| Problem::Missing("there is no stash".into()));
        }
        let lines = Self::reflog_tail(&self.common.join("logs/refs/stash"), "the stash")?;
        let line = lines.iter().rev().nth(n).ok_or_else(|| {
            Problem::Missing(format!("the stash holds fewer than {} entries", n + 1))
        })?;
        let id = line.split_whitespace().nth(1).unwrap_or("");
        from_hex(id)
            .filter(|o| o.len() == self.hash)
            .ok_or_else(|| "a stash reflog line nagger cannot read".into())
    }

    /// A commit's parents.
    pub(super) fn parents_of(&self, commit: &[u8]) -> Result<Vec<Oid>, Problem> {
        Ok(self.parents(commit)?)
    }

    /// The commit's first parent, if it has one.
    pub(super) fn first_parent(&self, commit: &[u8]) -> Result<Option<Oid>, String> {
        Ok(self.parents(commit)?.into_iter().next())
    }

    /// Whether `ancestor` is `commit` or lies in its history (within [`MAX_WALK`]
    /// commits; further back counts as not found).
    pub(super) fn reaches(&self, commit: &[u8], ancestor: &[u8]) -> Result<bool, String> {
        let mut seen: Vec<Oid> = vec![commit.to_vec()];
        let mut next = 0;
        while next < seen.len() && next < MAX_WALK {
            if seen[next] == ancestor {
                return Ok(true);
            }
            for parent in self.parents(&seen[next].clone())? {
                if !seen.contains(&parent) {
                    seen.push(parent);
                }
            }
            next += 1;
        }
        Ok(false)
    }

    /// The commits `to`'s history holds and `from`'s does not (`from..to`, as `git
    /// rev-list` lists them), newest first; an error past [`MAX_WALK`] commits on either
    /// side.
    pub(super) fn range(&self, from: &[u8], to: &[u8]) -> Result<Vec<Oid>, String> {
        let walk = |start: &[u8], stop: &[Oid]| -> Result<Vec<Oid>, String> {
            let mut seen: Vec<Oid> = Vec::new();
            let mut queue: Vec<Oid> = vec![start.to_vec()];
            let mut next = 0;
            while next < queue.len() {
                if next >= MAX_WALK {
                    return Err(format!("more than {MAX_WALK} commits in a range"));
                }
                let commit = queue[next].clone();
                next += 1;
                if stop.contains(&commit) || seen.contains(&commit) {
                    continue;
                }
                for parent in self.parents(&commit)? {
                    queue.push(parent);
                }
                seen.push(commit);
            }
            Ok(seen)
        };
        let excluded = walk(from, &[])?;
        walk(to, &excluded)
    }

    /// The entries of tree `tree` for the `wanted` paths: a file's own, every file under a
    /// folder asked about (ending in `/`). A path the tree does not hold has none.
    pub(super) fn entries(
        &self,
        tree: Option<&[u8]>,
        wanted: &[String],
    ) -> Result<Vec<Entry>, String> {
        let mut out = Vec::new();
        let Some(tree) = tree else {
            return Ok(out);
        };
        for want in wanted {
            let folder = want.ends_with('/');
            let parts: Vec<&str> = want.split('/').filter(|p| !p.is_empty()).collect();
            if parts.is_empty() {
                return Err("the whole tree is asked about".into());
            }
            let mut at = tree.to_vec();
            let mut found = None;
            for (k, part) in parts.iter().enumerate() {
                let Some((mode, oid)) = self.child(&at, part)? else {
                    break;
                };
                if k + 1 == parts.len() {
                    found = Some((mode, oid));
                } else if mode == 0o40000 {
                    at = oid;
                } else {
                    break;
                }
            }
            let Some((mode, oid)) = found else {
                continue;
            };
            let path = parts.join("/");
            if folder && mode == 0o40000 {
                self.files_under(&oid, &path, &mut out, 0)?;
            } else {
                out.push(Entry { path, mode, oid });
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    fn files_under(
        &self,
        tree: &[u8],
        path: &str,
        out: &mut Vec<Entry>,
        depth: usize,
    ) -> Result<(), String> {
        if depth > 32 {
            return Err("folders nested too deep".into());
        }
        let (kind, data) = self.object(tree, 0)?;
        if kind != Kind::Tree {
            return Err("a folder that is no tree".into());
        }
        for (mode, name, oid) in tree_entries(&data, self.hash)? {
            let full = format!("{path}/{}", String::from_utf8_lossy(name));
            if mode == 0o40000 {
                self.files_under(&oid, &full, out, depth + 1)?;
            } else {
                if out.len() >= MAX_ENTRIES {
                    return Err(format!("more than {MAX_ENTRIES} files"));
                }
                out.push(Entry {
                    path: full,
                    mode,
                    oid,
                });
            }
        }
        Ok(())
    }

    /// The entry `name` of tree `tree`.
    fn child(&self, tree: &[u8], name: &str) -> Result<Option<(u32, Oid)>, String> {
        let (kind, data) = self.object(tree, 0)?;
        if kind != Kind::Tree {
            return Err("a folder that is no tree".into());
        }
        Ok(tree_entries(&data, self.hash)?
            .into_iter()
            .find(|(_, n, _)| *n == name.as_bytes())
            .map(|(mode, _, oid)| (mode, oid)))
    }
}

/// The entries of a tree object: mode, name and id.
/// One entry of a tree object: mode, name and id.
type TreeEntry<'d> = (u32, &'d [u8], Oid);

fn tree_entries(data: &[u8], hash: usize) -> Result<Vec<TreeEntry<'_>>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    let bad = || "a tree nagger cannot read".to_owned();
    while at < data.len() {
        let space = data[at..].iter().position(|c| *c == b' ').ok_or_else(bad)?;
        let mode = std::str::from_utf8(&data[at..at + space]).map_err(|_| bad())?;
        let mode = u32::from_str_radix(mode, 8).map_err(|_| bad())?;
        at += space + 1;
        let nul = data[at..].iter().position(|c| *c == 0).ok_or_else(bad)?;
        let name = &data[at..at + nul];
        at += nul + 1;
        let oid = data.get(at..at + hash).ok_or_else(bad)?.to_vec();
        at += hash;
        out.push((mode, name, oid));
    }
    Ok(out)
}

/// The ids a commit's or tag's header lines named `key` hold (`tree`, `parent`, `object`).
fn header(data: &[u8], key: &str, hash: usize) -> Result<Vec<Oid>, String> {
    let mut out = Vec::new();
    for line in data.split(|c| *c == b'\n') {
        if line.is_empty() {
            break;
        }
        let line = String::from_utf8_lossy(line);
        if let Some(value) = line.strip_prefix(key).and_then(|v| v.strip_prefix(' ')) {
            let oid = from_hex(value.trim())
                .filter(|o| o.len() == hash)
                .ok_or_else(|| format!("a `{key}` line nagger cannot read"))?;
            out.push(oid);
        }
    }
    Ok(out)
}

/// A loose object's kind and content.
fn loose_object(file: File) -> Result<(Kind, Vec<u8>), String> {
    let mut data = Vec::new();
    ZlibDecoder::new(BufReader::new(file))
        .take(MAX_OBJECT + 64)
        .read_to_end(&mut data)
        .map_err(|e| format!("a loose object nagger cannot inflate: {e}"))?;
    let nul = data
        .iter()
        .take(64)
        .position(|c| *c == 0)
        .ok_or("a loose object without a header")?;
    let head = String::from_utf8_lossy(&data[..nul]).into_owned();
    let (kind, size) = head
        .split_once(' ')
        .ok_or("a loose object without a header")?;
    let kind = match kind {
        "commit" => Kind::Commit,
        "tree" => Kind::Tree,
        "blob" => Kind::Blob,
        "tag" => Kind::Tag,
        _ => return Err(format!("a loose object of kind `{kind}`")),
    };
    let size: usize = size.parse().map_err(|_| "a loose object's size")?;
    data.drain(..=nul);
    if data.len() != size {
        return Err("a loose object larger than nagger reads, or cut short".into());
    }
    Ok((kind, data))
}

/// A pack index's fan-out table (version 2 only).
fn fanout(idx: &Path) -> Result<Vec<u32>, String> {
    let head = read_small(idx, 8 + 256 * 4).map_err(|e| format!("{}: {e}", idx.display()))?;
    if head.len() < 8 + 256 * 4
        || head[..4] != [0xff, b't', b'O', b'c']
        || head[4..8] != [0, 0, 0, 2]
    {
        return Err(format!(
            "{}: a pack index nagger does not read",
            idx.display()
        ));
    }
    Ok(head[8..]
        .chunks_exact(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

impl Pack {
    fn count(&self) -> u64 {
        u64::from(self.fanout[255])
    }

    /// The positions of the ids whose first byte is `first`.
    fn bucket(&self, first: u8) -> Result<(u64, u64), String> {
        let lo = if first == 0 {
            0
        } else {
            u64::from(self.fanout[usize::from(first) - 1])
        };
        let hi = u64::from(self.fanout[usize::from(first)]);
        if hi < lo || hi > self.count() {
            return Err("a pack index whose fan-out is out of order".into());
        }
        Ok((lo, hi))
    }

    /// The id at position `k`.
    fn id(&self, k: u64, hash: usize) -> Result<Vec<u8>, String> {
        read_at(&self.idx, 8 + 1024 + k * hash as u64, hash)
    }

    /// Where `oid` starts in the pack, if the pack holds it: a binary search of its
    /// bucket, one id read per step.
    fn find(&self, oid: &[u8], hash: usize) -> Result<Option<u64>, String> {
        let (mut lo, mut hi) = self.bucket(oid[0])?;
        let mut found = None;
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.id(mid, hash)?.as_slice().cmp(oid) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    found = Some(mid);
                    break;
                }
            }
        }
        let Some(at) = found else {
            return Ok(None);
        };
        let n = self.count();
        let table = 8 + 1024 + n * hash as u64 + n * 4;
        let small = read_at(&self.idx, table + at * 4, 4)?;
        let small = u32::from_be_bytes([small[0], small[1], small[2], small[3]]);
        if small & 0x8000_0000 == 0 {
            return Ok(Some(u64::from(small)));
        }
        let large = read_at(
            &self.idx,
            table + n * 4 + u64::from(small & 0x7fff_ffff) * 8,
            8,
        )?;
        Ok(Some(u64::from_be_bytes(large.try_into().expect("8 bytes"))))
    }

    /// The ids the pack holds that start with the hex digits `prefix`.
    fn with_prefix(&self, prefix: &str, hash: usize) -> Result<Vec<Oid>, String> {
        let first = u8::from_str_radix(&prefix[..2], 16).map_err(|e| e.to_string())?;
        let (lo, hi) = self.bucket(first)?;
        let len = (hi - lo) * hash as u64;
        if len > MAX_BUCKET {
            return Err("a pack index too large to read".into());
        }
        let ids = read_at(
            &self.idx,
            8 + 1024 + lo * hash as u64,
            usize::try_from(len).map_err(|e| e.to_string())?,
        )?;
        Ok(ids
            .chunks_exact(hash)
            .filter(|id| hex(id).starts_with(prefix))
            .map(<[u8]>::to_vec)
            .collect())
    }
}

fn byte(reader: &mut impl Read) -> Result<u8, String> {
    let mut b = [0];
    reader.read_exact(&mut b).map_err(|e| e.to_string())?;
    Ok(b[0])
}

/// A packed object's type and inflated size.
fn pack_header(reader: &mut impl Read) -> Result<(usize, u64), String> {
    let mut c = byte(reader)?;
    let kind = usize::from((c >> 4) & 7);
    let mut size = u64::from(c & 15);
    let mut shift = 4;
    while c & 0x80 != 0 {
        c = byte(reader)?;
        if shift > 56 {
            return Err("a packed object's size too large".into());
        }
        size |= u64::from(c & 0x7f) << shift;
        shift += 7;
    }
    Ok((kind, size))
}

/// How far back an offset delta's base lies.
fn ofs_varint(reader: &mut impl Read) -> Result<u64, String> {
    let mut c = byte(reader)?;
    let mut value = u64::from(c & 0x7f);
    while c & 0x80 != 0 {
        c = byte(reader)?;
        value = value
            .checked_add(1)
            .and_then(|v| v.checked_mul(128))
            .ok_or("a delta offset too large")?
            + u64::from(c & 0x7f);
    }
    Ok(value)
}

/// `size` bytes inflated from the zlib stream `reader` stands at.
fn inflate<R: BufRead>(reader: &mut R, size: u64) -> Result<Vec<u8>, String> {
    if size > MAX_OBJECT {
        return Err(format!("an object larger than {} MiB", MAX_OBJECT >> 20));
    }
    let mut out = Vec::with_capacity(usize::try_from(size).map_err(|e| e.to_string())?);
    ZlibDecoder::new(reader)
        .take(size + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("a packed object nagger cannot inflate: {e}"))?;
    if out.len() as u64 != size {
        return Err("a packed object of another size than its header says".into());
    }
    Ok(out)
}

/// A delta's little-endian size.
fn delta_size(delta: &[u8], at: &mut usize) -> Result<usize, String> {
    let mut value = 0usize;
    let mut shift = 0;
    loop {
        let c = *delta.get(*at).ok_or("a delta cut short")?;
        *at += 1;
        if shift > 56 {
            return Err("a delta's size too large".into());
        }
        value |= usize::from(c & 0x7f) << shift;
        shift += 7;
        if c & 0x80 == 0 {
            return Ok(value);
        }
    }
}

/// `base` with `delta` applied: copies from the base and inserted bytes.
fn apply_delta(base: &[u8], delta: &[u8]) -> Result<Vec<u8>, String> {
    let bad = || "a delta nagger cannot apply".to_owned();
    let mut at = 0;
    let from = delta_size(delta, &mut at)?;
    let to = delta_size(delta, &mut at)?;
    if from != base.len() || to as u64 > MAX_OBJECT {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(to);
    while at < delta.len() {
        let op = delta[at];
        at += 1;
        if op & 0x80 != 0 {
            let mut offset = 0usize;
            let mut size = 0usize;
            for k in 0..4 {
                if op & (1 << k) != 0 {
                    offset |= usize::from(*delta.get(at).ok_or_else(bad)?) << (8 * k);
                    at += 1;
                }
            }
            for k in 0..3 {
                if op & (0x10 << k) != 0 {
                    size |= usize::from(*delta.get(at).ok_or_else(bad)?) << (8 * k);
                    at += 1;
                }
            }
            if size == 0 {
                size = 0x10000;
            }
            let end = offset.checked_add(size).ok_or_else(bad)?;
            out.extend_from_slice(base.get(offset..end).ok_or_else(bad)?);
        } else if op != 0 {
            let end = at + usize::from(op);
            out.extend_from_slice(delta.get(at..end).ok_or_else(bad)?);
            at = end;
        } else {
            return Err(bad());
        }
        if out.len() > to {
            return Err(bad());
        }
    }
    if out.len() != to {
        return Err(bad());
    }
    Ok(out)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::fmt::Write;
    use std::process::Command;

    /// `git` in `dir` with a fixed author and no user configuration: its output.
    pub(in crate::domain::guard::protect) fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "a")
            .env("GIT_AUTHOR_EMAIL", "a@b")
            .env("GIT_COMMITTER_NAME", "a")
            .env("GIT_COMMITTER_EMAIL", "a@b")
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    fn write(dir: &Path, path: &str, text: &str) {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().expect("a folder")).expect("folders");
        std::fs::write(full, text).expect("a file");
    }

    /// A repository of three commits on `main`, a tag, a side branch and a checkout back.
    fn repo() -> (tempfile::TempDir, Vec<String>) {
        let dir = tempfile::tempdir().expect("a folder");
        let d = dir.path();
        git(d, &["init", "-q", "-b", "main"]);
        let mut commits = Vec::new();
        write(d, "a.txt", "one\n");
        write(d, ".claude/settings.json", "{\"hooks\":{}}\n");
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "1"]);
        commits.push(git(d, &["rev-parse", "HEAD"]));
        write(
            d,
            ".claude/settings.json",
            "{\"hooks\":{\"PreToolUse\":[]}}\n",
        );
        write(d, ".claude-nagger/config.toml", "[guard]\n");
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "2"]);
        commits.push(git(d, &["rev-parse", "HEAD"]));
        git(d, &["tag", "-a", "v2", "-m", "two"]);
        write(d, "a.txt", "two\n");
        git(d, &["commit", "-qam", "3"]);
        commits.push(git(d, &["rev-parse", "HEAD"]));
        git(d, &["checkout", "-q", "-b", "side", "HEAD~2"]);
        git(d, &["checkout", "-q", "main"]);
        (dir, commits)
    }

    fn resolved(store: &Store, rev: &str) -> String {
        hex(&store.commit(rev, true).expect(rev).expect("a commit"))
    }

    fn check_revisions(store: &Store, c: &[String]) {
        assert_eq!(resolved(store, "HEAD"), c[2]);
        assert_eq!(resolved(store, "@"), c[2]);
        assert_eq!(resolved(store, "main"), c[2]);
        assert_eq!(resolved(store, "refs/heads/main"), c[2]);
        assert_eq!(resolved(store, "HEAD~1"), c[1]);
        assert_eq!(resolved(store, "@~2"), c[0]);
        assert_eq!(resolved(store, "main^^"), c[0]);
        assert_eq!(resolved(store, "HEAD^1~1"), c[0]);
        assert_eq!(resolved(store, "v2"), c[1]);
        assert_eq!(resolved(store, "v2^{commit}"), c[1]);
        assert_eq!(resolved(store, "side"), c[0]);
        assert_eq!(resolved(store, "-"), c[0]);
        assert_eq!(resolved(store, "@{-1}"), c[0]);
        assert_eq!(resolved(store, &c[1][..7]), c[1]);
        assert_eq!(resolved(store, &c[0]), c[0]);
        assert!(store.commit("HEAD~5", false).is_err());
        assert!(store.commit("nope", false).is_err());
        assert!(store.commit("../../etc/passwd", false).is_err());
        assert!(store.commit("HEAD:a.txt", false).is_err());
    }

    #[test]
    fn revisions_resolve_from_loose_objects_and_from_packs() {
        let (dir, c) = repo();
        let store = Store::open(&dir.path().join(".git"));
        check_revisions(&store, &c);
        git(dir.path(), &["gc", "-q", "--aggressive"]);
        git(dir.path(), &["prune-packed"]);
        assert!(
            std::fs::read_dir(dir.path().join(".git/objects/pack"))
                .expect("packs")
                .count()
                > 0
        );
        let store = Store::open(&dir.path().join(".git"));
        check_revisions(&store, &c);
    }

    #[test]
    fn entries_of_files_and_folders_match_what_git_lists() {
        let (dir, _) = repo();
        git(dir.path(), &["gc", "-q"]);
        let store = Store::open(&dir.path().join(".git"));
        let wanted = vec![
            ".claude-nagger/".to_owned(),
            ".claude/settings.json".to_owned(),
            ".claude/settings.local.json".to_owned(),
        ];
        for rev in ["HEAD", "HEAD~1", "HEAD~2"] {
            let tree = store.tree(rev, false).expect("a tree");
            let got: Vec<String> = store
                .entries(Some(&tree), &wanted)
                .expect("entries")
                .iter()
                .map(|e| format!("{:o} {} {}", e.mode, hex(&e.oid), e.path))
                .collect();
            let listed = git(
                dir.path(),
                &[
                    "ls-tree",
                    "-r",
                    rev,
                    "--",
                    ".claude-nagger",
                    ".claude/settings.json",
                ],
            );
            let want: Vec<String> = listed
                .lines()
                .map(|l| {
                    let (head, path) = l.split_once('\t').expect("a tab");
                    let parts: Vec<&str> = head.split(' ').collect();
                    format!("{} {} {path}", parts[0], parts[2])
                })
                .collect();
            assert_eq!(got, want, "{rev}");
        }
    }

    #[test]
    fn deltas_chained_in_a_pack_are_applied() {
        let dir = tempfile::tempdir().expect("a folder");
        let d = dir.path();
        git(d, &["init", "-q", "-b", "main"]);
        let mut text = String::new();
        for k in 0..40 {
            for line in 0..200 {
                let _ = writeln!(text, "line {line} of version {}", line % (k + 1));
            }
            write(d, "big.txt", &text);
            write(d, ".claude/settings.json", &format!("{{\"v\":{k}}}\n"));
            git(d, &["add", "-A"]);
            git(d, &["commit", "-qm", &k.to_string()]);
        }
        // Deltas by offset, then by id.
        for repack in [
            &["repack", "-q", "-a", "-d", "-f", "--depth=50"][..],
            &[
                "-c",
                "repack.useDeltaBaseOffset=false",
                "repack",
                "-q",
                "-a",
                "-d",
                "-f",
            ],
        ] {
            git(d, repack);
            git(d, &["prune-packed"]);
            let idx = std::fs::read_dir(d.join(".git/objects/pack"))
                .expect("packs")
                .filter_map(Result::ok)
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|x| x == "idx"))
                .expect("a pack index");
            let verified = git(d, &["verify-pack", "-v", &idx.to_string_lossy()]);
            assert!(verified.contains("chain length = 2"), "{verified}");
            same_as_git(d);
        }
    }

    fn same_as_git(d: &Path) {
        let store = Store::open(&d.join(".git"));
        for rev in ["HEAD", "HEAD~7", "HEAD~39"] {
            let tree = store.tree(rev, false).expect("a tree");
            let entries = store
                .entries(Some(&tree), &[".claude/settings.json".to_owned()])
                .expect("entries");
            let want = git(d, &["rev-parse", &format!("{rev}:.claude/settings.json")]);
            assert_eq!(hex(&entries[0].oid), want, "{rev}");
            let (kind, blob) = store.object(&entries[0].oid, 0).expect("the blob");
            assert_eq!(kind, Kind::Blob);
            let shown = git(d, &["show", &format!("{rev}:.claude/settings.json")]);
            assert_eq!(String::from_utf8_lossy(&blob).trim(), shown);
            let (_, big) = store
                .object(
                    &from_hex(&git(d, &["rev-parse", &format!("{rev}:big.txt")])).expect("hex"),
                    0,
                )
                .expect("big");
            assert_eq!(
                big.len(),
                git(d, &["cat-file", "-s", &format!("{rev}:big.txt")])
                    .parse::<usize>()
                    .expect("a size")
            );
        }
        let head = store
            .commit("HEAD", false)
            .expect("head")
            .expect("a commit");
        let first = store
            .commit("HEAD~39", false)
            .expect("first")
            .expect("a commit");
        assert!(store.reaches(&head, &first).expect("walks"));
        assert!(!store.reaches(&first, &head).expect("walks"));
    }

    #[test]
    fn broken_deltas_are_errors_not_guesses() {
        assert!(apply_delta(b"abc", &[3, 2, 0x91, 0, 2]).is_ok());
        assert!(apply_delta(b"abc", &[3, 9, 0x91, 0, 2]).is_err());
        assert!(apply_delta(b"abc", &[4, 2, 0x91, 0, 2]).is_err());
        assert!(apply_delta(b"abc", &[3, 2, 0x91, 2, 5]).is_err());
        assert!(apply_delta(b"abc", &[3, 1, 0]).is_err());
        assert_eq!(
            apply_delta(b"abc", &[3, 4, 0x91, 1, 2, 2, b'x', b'y']).expect("ok"),
            b"bcxy"
        );
    }

    #[test]
    fn sha256_repositories_worktrees_and_alternates_are_read() {
        // SHA-256 ids, loose and packed.
        let dir = tempfile::tempdir().expect("a folder");
        let d = dir.path();
        git(d, &["init", "-q", "-b", "main", "--object-format=sha256"]);
        write(d, ".claude/settings.json", "{}\n");
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "1"]);
        write(d, ".claude/settings.json", "{\"x\":1}\n");
        git(d, &["commit", "-qam", "2"]);
        for pack in [false, true] {
            if pack {
                git(d, &["gc", "-q"]);
            }
            let store = Store::open(&d.join(".git"));
            let want = git(d, &["rev-parse", "HEAD~1:.claude/settings.json"]);
            let tree = store.tree("HEAD~1", false).expect("a tree");
            let entries = store
                .entries(Some(&tree), &[".claude/settings.json".to_owned()])
                .expect("entries");
            assert_eq!(hex(&entries[0].oid), want);
        }
        // A worktree keeps its own HEAD and shares refs and objects.
        let wt = d.join("wt");
        git(
            d,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                "w",
                &wt.to_string_lossy(),
                "HEAD~1",
            ],
        );
        let own = d.join(".git/worktrees/wt");
        let store = Store::open(&own);
        assert_eq!(
            hex(&store
                .commit("HEAD", false)
                .expect("head")
                .expect("a commit")),
            git(d, &["rev-parse", "HEAD~1"])
        );
        assert_eq!(
            hex(&store
                .commit("main", false)
                .expect("main")
                .expect("a commit")),
            git(d, &["rev-parse", "main"])
        );
        // A clone that borrows its objects through alternates.
        let other = tempfile::tempdir().expect("a folder");
        let clone = other.path().join("c");
        git(
            other.path(),
            &[
                "clone",
                "-q",
                "--shared",
                &d.to_string_lossy(),
                &clone.to_string_lossy(),
            ],
        );
        let store = Store::open(&clone.join(".git"));
        let tree = store.tree("origin/main~1", false).expect("a tree");
        assert_eq!(
            store
                .entries(Some(&tree), &[".claude/settings.json".to_owned()])
                .expect("entries")
                .len(),
            1
        );
        // `git switch w` guesses the remote's branch `origin/w`; by itself `w` names
        // nothing in the clone.
        assert_eq!(
            hex(&store.commit("w", true).expect("w").expect("a commit")),
            git(d, &["rev-parse", "w"])
        );
        assert!(matches!(store.commit("w", false), Err(Problem::Missing(_))));
    }

    #[test]
    fn an_unborn_branch_has_no_commit() {
        let dir = tempfile::tempdir().expect("a folder");
        git(dir.path(), &["init", "-q"]);
        let store = Store::open(&dir.path().join(".git"));
        assert_eq!(store.commit("HEAD", false), Ok(None));
        assert!(store.commit("main", false).is_err());
    }
}
