//! git commands that put other versions of tracked files in place, wholesale or by
//! pathspec: switching branches or commits, pulling, merging, rebasing, cherry-picking,
//! reverting, applying a stash, resetting with `--merge`/`--keep`/`--hard`, reading a
//! tree into the work tree, checking out or restoring paths. In a repository whose index
//! tracks `.claude/settings.json`, `.claude/settings.local.json` or `.claude-nagger/`
//! files, each can bring a version without nagger's hooks: they are asked about, naming
//! the file. The config and its `.gitignore` are left out: a version of the config that
//! weakens the guard waits for the user's confirmation, whoever put it there. In a repository that tracks none of them, or outside one,
//! nothing changes. Creating a branch from `HEAD` changes no file and passes.

use std::path::{Path, PathBuf};

use super::super::paths::normalize;
use super::super::shell::{SimpleCommand, has_flag, is_long};
use super::gitobjects::{self, Entry, Problem, Store, hex};
use super::gittree::{self, Tracked, Where};
use super::patches;
use crate::base::glob::build_glob;

/// What a git command does to the tracked files of its work tree.
#[derive(Debug, PartialEq, Eq)]
enum Replace<'a> {
    /// Any tracked file may come back in another version.
    Tree,
    /// The tracked files these pathspecs cover.
    Paths(Vec<&'a str>),
    /// Local changes to the tracked files these pathspecs cover (every file when there
    /// are none) are put away (`git stash`): a file unchanged since it was staged stays.
    Local(Vec<&'a str>),
}

/// The words of a git subcommand: options, operands before `--`, and after it.
struct Split<'a> {
    options: Vec<&'a str>,
    operands: Vec<&'a str>,
    after: Option<Vec<&'a str>>,
}

fn split<'a>(rest: &'a [String], with_value: &[&'static str]) -> Split<'a> {
    let mut out = Split {
        options: Vec::new(),
        operands: Vec::new(),
        after: None,
    };
    let mut k = 0;
    while let Some(arg) = rest.get(k) {
        k += 1;
        if let Some(after) = &mut out.after {
            after.push(arg.as_str());
        } else if arg == "--" {
            out.after = Some(Vec::new());
        } else if arg.starts_with('-') && arg != "-" {
            out.options.push(arg.as_str());
            if with_value.contains(&arg.as_str()) {
                k += 1;
            } else if !arg.starts_with("--") {
                // A cluster of short options (`-qb name`): the first that takes a value
                // takes the rest of the cluster, or the next word when it ends it.
                let letters = &arg[1..];
                if let Some((at, option)) = letters.char_indices().find_map(|(at, c)| {
                    with_value
                        .iter()
                        .find(|v| v.len() == 2 && v.ends_with(c))
                        .map(|v| (at, *v))
                }) {
                    out.options.push(option);
                    if at + 1 == letters.len() {
                        k += 1;
                    }
                }
            }
        } else {
            out.operands.push(arg.as_str());
        }
    }
    out
}

impl<'a> Split<'a> {
    fn has(&self, short: &str, long: &[&str]) -> bool {
        let owned: Vec<String> = self.options.iter().map(|o| (*o).to_owned()).collect();
        has_flag(&owned, short, long)
    }

    fn has_long(&self, long: &str) -> bool {
        self.options.iter().any(|o| is_long(o, long))
    }

    /// Every pathspec: the operands and what follows `--`.
    fn all(&self) -> Vec<&'a str> {
        let mut all = self.operands.clone();
        all.extend(self.after.iter().flatten());
        all
    }
}

/// `HEAD` itself: checking it out changes nothing.
fn is_head(rev: &str) -> bool {
    matches!(rev, "HEAD" | "@")
}

/// The options of `git checkout`, `git switch` and `git read-tree` that take a value.
const CHECKOUT_VALUED: &[&str] = &["-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"];
const SWITCH_VALUED: &[&str] = &[
    "-c",
    "-C",
    "--create",
    "--force-create",
    "--orphan",
    "--conflict",
];
const READ_TREE_VALUED: &[&str] = &["--prefix", "--index-output", "--exclude-per-directory"];

/// Whether a checkout's first operand is written as a pathspec, not a revision.
/// `:/fix typo`: the newest commit whose message matches, which git takes for a revision
/// before it takes it for a path (`:/` alone, or `:/x` after `--`, is a pathspec).
fn message_search(word: &str) -> bool {
    word.strip_prefix(":/").is_some_and(|text| !text.is_empty())
}

fn path_like(first: &str) -> bool {
    matches!(first, "." | "..")
        || first.starts_with("./")
        || first.starts_with("../")
        || first.starts_with(':')
        || first.contains(['*', '?', '['])
}

/// Where a git command moves the work tree, told by revisions, so that what those hold
/// of nagger's files can be compared with what is there now.
#[derive(Debug, PartialEq, Eq)]
enum Moves<'a> {
    /// The index and work tree become these trees (`None`: the empty tree). git changes
    /// the files whose version differs from `HEAD`'s, keeping local changes elsewhere;
    /// `from_index`: from the index's, dropping local changes (`reset --hard`, forced
    /// moves, `read-tree -u`).
    To {
        revs: Vec<Option<&'a str>>,
        from_index: bool,
    },
    /// The changes these commits made are brought in, or undone.
    Changes(Vec<&'a str>),
    /// The changes of the commits of these ranges (`A..B`) are brought in, or undone.
    Ranges(Vec<(&'a str, &'a str)>),
    /// These histories are joined with `HEAD`'s.
    Joined(Vec<&'a str>),
    /// The commits since `upstream` (up to `branch`, checked out first, else `HEAD`) are
    /// rewritten onto `onto` (the upstream itself when `None`), any of them kept or dropped
    /// (`git rebase -i UPSTREAM`, `git rebase --onto NEW UPSTREAM [BRANCH]`): harmless
    /// when none of them changes the files, and the new base and the branch hold them as
    /// `HEAD` does.
    Rewritten {
        upstream: &'a str,
        onto: Option<&'a str>,
        branch: Option<&'a str>,
    },
    /// The history a pull (or a fetch the line made before) takes from a remote is joined
    /// with `HEAD`'s: the remote given (a name or a URL; `None`: the branch's upstream's)
    /// and the refs named.
    Pulled {
        remote: Option<String>,
        refs: Vec<String>,
    },
    /// The stash entry `stash@{n}` is applied: its changes to the work tree and the
    /// index, and the untracked files it keeps.
    Stash(usize),
    /// A bisection checks out commits between the bad one and the good ones: those named
    /// (`git bisect start BAD GOOD…`), else those the bisection under way has marked
    /// (`refs/bisect/`), with any the line marks now.
    Bisect { verb: &'a str, named: Vec<&'a str> },
}

impl Moves<'_> {
    /// Whether a revision it names is only known when the line runs (`$(git
    /// commit-tree …)`, `` `cat rev` ``) or found by a search of commit messages
    /// (`:/initial import`) nagger does not make: what it holds cannot be read now.
    fn names_computed(&self) -> bool {
        let computed = |r: &str| r.contains(['$', '`']) || message_search(r);
        match self {
            Moves::To { revs, .. } => revs.iter().flatten().any(|r| computed(r)),
            Moves::Changes(revs) | Moves::Joined(revs) => revs.iter().any(|r| computed(r)),
            Moves::Ranges(ranges) => ranges.iter().any(|(a, b)| computed(a) || computed(b)),
            Moves::Rewritten {
                upstream,
                onto,
                branch,
            } => computed(upstream) || onto.is_some_and(computed) || branch.is_some_and(computed),
            Moves::Pulled { remote, refs } => {
                remote.as_deref().is_some_and(computed) || refs.iter().any(|r| computed(r))
            }
            Moves::Stash(_) => false,
            Moves::Bisect { named, .. } => named.iter().any(|r| computed(r)),
        }
    }
}

/// The revisions `git <sub> <rest>` moves to, when it names them all.
fn moves<'a>(sub: &str, rest: &'a [String], exists: &dyn Fn(&str) -> bool) -> Option<Moves<'a>> {
    let to = |revs: Vec<Option<&'a str>>| {
        Some(Moves::To {
            revs,
            from_index: sub == "read-tree" || discards(sub, rest),
        })
    };
    let ends = |s: &Split| {
        ["abort", "continue", "quit", "skip", "stdin", "edit-todo"]
            .iter()
            .any(|l| s.has_long(l))
    };
    match sub {
        "checkout" => {
            let s = split(rest, CHECKOUT_VALUED);
            if s.has_long("pathspec-from-file") || s.after.as_ref().is_some_and(|a| !a.is_empty()) {
                return None;
            }
            let new_branch = s
                .options
                .iter()
                .any(|o| matches!(*o, "-b" | "-B") || is_long(o, "orphan"));
            match s.operands.as_slice() {
                [] => to(vec![Some("HEAD")]),
                [rev]
                    if new_branch
                        || s.after.is_some()
                        || message_search(rev)
                        || !(path_like(rev) || exists(rev)) =>
                {
                    to(vec![Some(*rev)])
                }
                _ => None,
            }
        }
        "switch" => {
            let s = split(rest, SWITCH_VALUED);
            if s.has_long("orphan") {
                return to(vec![None]);
            }
            match s.operands.as_slice() {
                [] => to(vec![Some("HEAD")]),
                [rev] => to(vec![Some(*rev)]),
                _ => None,
            }
        }
        "reset" => {
            let s = split(rest, &["--pathspec-from-file"]);
            if !(s.has_long("hard") || s.has_long("merge") || s.has_long("keep"))
                || s.after.as_ref().is_some_and(|a| !a.is_empty())
            {
                return None;
            }
            match s.operands.as_slice() {
                [] => to(vec![Some("HEAD")]),
                [rev] => to(vec![Some(*rev)]),
                _ => None,
            }
        }
        "read-tree" => {
            let s = split(rest, READ_TREE_VALUED);
            if !s.has("u", &[]) || s.options.iter().any(|o| is_long(o, "prefix")) {
                return None;
            }
            if s.has_long("empty") {
                return to(vec![None]);
            }
            if s.operands.is_empty() {
                return None;
            }
            to(s.operands.iter().map(|o| Some(*o)).collect())
        }
        "cherry-pick" | "revert" => {
            let s = split(
                rest,
                &[
                    "-m",
                    "--mainline",
                    "-X",
                    "--strategy-option",
                    "-s",
                    "--strategy",
                ],
            );
            let named = !s.operands.is_empty()
                && !s
                    .operands
                    .iter()
                    .any(|o| o.contains("..") || o.starts_with('^'));
            // `main..feature`: the commits of one history and not of the other.
            let ranges: Option<Vec<(&str, &str)>> = s
                .operands
                .iter()
                .map(|o| {
                    let (a, b) = o.split_once("..")?;
                    (!a.is_empty() && !b.is_empty() && !b.starts_with('.')).then_some((a, b))
                })
                .collect();
            if ends(&s) || s.has("m", &["mainline"]) {
                return None;
            }
            if named {
                Some(Moves::Changes(s.operands.clone()))
            } else {
                ranges.filter(|r| !r.is_empty()).map(Moves::Ranges)
            }
        }
        "bisect" => {
            let verb = rest.first().map(String::as_str)?;
            let s = split(
                rest.get(1..).unwrap_or(&[]),
                &["--term-old", "--term-new", "--term-good", "--term-bad"],
            );
            // Paths after `--` only narrow which commits count.
            match verb {
                "start" | "good" | "bad" | "new" | "old" | "skip" | "run" => Some(Moves::Bisect {
                    verb,
                    named: if verb == "run" {
                        Vec::new()
                    } else {
                        s.operands.clone()
                    },
                }),
                _ => None,
            }
        }
        "stash" if matches!(rest.first().map(String::as_str), Some("pop" | "apply")) => {
            let s = split(&rest[1..], &[]);
            let n = match s.operands.as_slice() {
                [] => 0,
                [entry] => {
                    let n = entry
                        .strip_prefix("stash@{")
                        .and_then(|e| e.strip_suffix('}'))
                        .unwrap_or(entry);
                    n.parse().ok()?
                }
                _ => return None,
            };
            Some(Moves::Stash(n))
        }
        "pull" => {
            let s = split(rest, PULL_VALUED);
            if ends(&s) {
                return None;
            }
            let mut operands = s.operands.iter().map(|o| (*o).to_owned());
            Some(Moves::Pulled {
                remote: operands.next(),
                refs: operands.collect(),
            })
        }
        "merge" | "rebase" => {
            let s = split(
                rest,
                &[
                    "-m",
                    "-F",
                    "--file",
                    "-s",
                    "--strategy",
                    "-X",
                    "--strategy-option",
                    "--into-name",
                    "--onto",
                    "-x",
                    "--exec",
                ],
            );
            if ends(&s) {
                return None;
            }
            // `git rebase -i main`: the commits since `main`, any of them dropped;
            // `git rebase --onto new old [branch]`: those since `old`, onto `new`.
            let interactive = s.has("i", &["interactive"]);
            let onto = onto_value(rest);
            if sub == "rebase" && (interactive || onto.is_some() || s.has_long("onto")) {
                if s.has_long("root") || (s.has_long("onto") && onto.is_none()) {
                    return None;
                }
                return match s.operands.as_slice() {
                    [upstream] => Some(Moves::Rewritten {
                        upstream,
                        onto,
                        branch: None,
                    }),
                    [upstream, branch] => Some(Moves::Rewritten {
                        upstream,
                        onto,
                        branch: Some(branch),
                    }),
                    _ => None,
                };
            }
            // With no revision, the branch's upstream as last fetched.
            let revs = if s.operands.is_empty() {
                vec!["@{upstream}"]
            } else if sub == "rebase" {
                // `git rebase UPSTREAM [BRANCH]`: the branch is moved onto the upstream.
                s.operands[..1].to_vec()
            } else {
                s.operands.clone()
            };
            Some(Moves::Joined(revs))
        }
        _ => None,
    }
}

/// The new base `git rebase --onto NEW` names (`--onto NEW`, `--onto=NEW`).
fn onto_value(rest: &[String]) -> Option<&str> {
    let before = rest.iter().take_while(|a| *a != "--");
    let mut words = before.peekable();
    while let Some(word) = words.next() {
        if let Some(value) = word.strip_prefix("--onto=") {
            return Some(value);
        }
        if word == "--onto" {
            return words.next().map(String::as_str);
        }
    }
    None
}

/// Options of `git pull` (and `git fetch`) that take a value as the next word.
const PULL_VALUED: &[&str] = &[
    "-s",
    "--strategy",
    "-X",
    "--strategy-option",
    "--depth",
    "--deepen",
    "--shallow-since",
    "--shallow-exclude",
    "-o",
    "--server-option",
    "--upload-pack",
    "-j",
    "--jobs",
    "--negotiation-tip",
    "--refmap",
    "--recurse-submodules-default",
];

/// What the line did before a git command that a later one names: the words after
/// `fetch` of its last `git fetch`, and the remotes it added (`git remote add NAME URL`);
/// the folder the command runs in.
#[derive(Debug, Default)]
pub(super) struct Earlier<'a> {
    pub(super) fetch: Option<&'a [String]>,
    pub(super) remotes: Vec<(&'a str, &'a str)>,
    pub(super) dir: Option<PathBuf>,
}

impl Earlier<'_> {
    /// The remote and refs the line's fetch takes `rev` from, when that fetch makes it:
    /// `FETCH_HEAD`, a refspec's destination (`main:up`), or a remote's branch
    /// (`o/main` after `git fetch o`).
    fn fetched_as(&self, rev: &str) -> Option<(Option<String>, Vec<String>)> {
        let s = split(self.fetch?, PULL_VALUED);
        let remote = s.operands.first().map(|r| (*r).to_owned());
        let refs: Vec<&str> = s.operands.iter().skip(1).copied().collect();
        if rev == "FETCH_HEAD" {
            return Some((remote, refs.iter().map(|r| (*r).to_owned()).collect()));
        }
        for spec in &refs {
            let spec = spec.trim_start_matches('+');
            if let Some((src, dst)) = spec.split_once(':') {
                let dst = dst.strip_prefix("refs/heads/").unwrap_or(dst);
                if dst == rev || spec.split_once(':').is_some_and(|(_, d)| d == rev) {
                    return Some((remote, vec![src.to_owned()]));
                }
            }
        }
        let rest = rev.strip_prefix("refs/remotes/").unwrap_or(rev);
        let (name, branch) = rest.split_once('/')?;
        (remote.as_deref().unwrap_or("origin") == name).then(|| (remote, vec![branch.to_owned()]))
    }
}

/// What joining the history a pull or fetch from `remote` of `refs` brings changes of the
/// `wanted` paths, next to `ours` (`HEAD`'s entries).
#[allow(clippy::too_many_arguments)]
fn joined_from_remote(
    store: &Store,
    earlier: &Earlier,
    remote: Option<&str>,
    refs: &[String],
    head: Option<&[u8]>,
    ours: &[Entry],
    keep: &dyn Fn(Vec<Entry>) -> Vec<Entry>,
    wanted: &[String],
) -> Result<Option<(String, String)>, Problem> {
    let (other, theirs, label) = pulled(store, earlier, remote, refs)?;
    // Already in the branch's history: joining it changes nothing.
    if let Some(head) = head
        && store.reaches(head, &theirs).unwrap_or(false)
    {
        return Ok(None);
    }
    let tree = other.tree(&hex(&theirs), false)?;
    let entries = keep(other.entries(Some(&tree), wanted)?);
    Ok(first_difference(ours, &entries).map(|file| (file, label)))
}

/// The commit a pull or fetch from `remote` (a remote's name or a URL; `None`: the
/// current branch's upstream's remote) of `refs` brings, read from a repository on this
/// machine, with the store it is read from. A remote reached over the network cannot be
/// read before it is fetched.
fn pulled(
    store: &Store,
    earlier: &Earlier,
    remote: Option<&str>,
    refs: &[String],
) -> Result<(Store, gitobjects::Oid, String), Problem> {
    let branch = store.current_branch();
    let section = branch.as_ref().map(|b| format!("branch \"{b}\""));
    let upstream_remote = section
        .as_ref()
        .and_then(|s| store.config(s, "remote"))
        .unwrap_or_else(|| "origin".to_owned());
    let name = remote.unwrap_or(&upstream_remote);
    let url = earlier
        .remotes
        .iter()
        .rev()
        .find(|(n, _)| *n == name)
        .map(|(_, url)| (*url).to_owned())
        .or_else(|| store.config(&format!("remote \"{name}\""), "url"))
        .unwrap_or_else(|| name.to_owned());
    // The first ref named, else the upstream's branch (pulling from its remote), else the
    // remote's `HEAD`.
    let wanted = refs
        .iter()
        .map(|r| r.trim_start_matches('+'))
        .map(|r| r.split(':').next().unwrap_or(r))
        .find(|r| !r.is_empty())
        .map(str::to_owned)
        .or_else(|| {
            (name == upstream_remote)
                .then(|| section.as_ref().and_then(|s| store.config(s, "merge")))
                .flatten()
        })
        .unwrap_or_else(|| "HEAD".to_owned());
    let from = earlier.dir.clone().unwrap_or_default();
    let path = local_repository(&url, &from).ok_or_else(|| {
        Problem::Unreadable(format!("`{url}` is not a repository on this machine"))
    })?;
    let other = Store::open(&path);
    let commit = other
        .commit(&wanted, false)?
        .ok_or_else(|| Problem::Missing(format!("`{url}` has no commit yet")))?;
    Ok((other, commit, format!("{wanted} of {url}")))
}

/// The git folder of the repository a remote URL names on this machine: a path or a
/// `file://` URL, to a work tree (its `.git`) or a bare repository.
fn local_repository(url: &str, from: &Path) -> Option<PathBuf> {
    let path = match url.strip_prefix("file://") {
        Some(rest) => rest.to_owned(),
        // `host:path` and `scheme://` are reached over the network.
        None if url.contains("://") => return None,
        None if url
            .split('/')
            .next()
            .is_some_and(|first| first.contains(':')) =>
        {
            return None;
        }
        None => url.to_owned(),
    };
    // `file://$PWD/../c`: the folder the command runs in.
    let path = super::super::paths::here_and_home(&path);
    if path.contains(['$', '`']) {
        return None;
    }
    let path = match path.strip_prefix("~/") {
        Some(rest) => PathBuf::from(std::env::var_os("HOME")?).join(rest),
        None => from.join(&path),
    };
    [path.join(".git"), path.with_extension("git"), path]
        .into_iter()
        .find(|dir| dir.join("HEAD").is_file() && dir.join("objects").is_dir())
}

/// Whether `git <sub> <rest>` drops local changes to tracked files even where the
/// revision it moves to holds the same version (`checkout -f`, `reset --hard`).
fn discards(sub: &str, rest: &[String]) -> bool {
    let s = split(rest, &[]);
    match sub {
        "checkout" => s.has("f", &["force"]),
        "switch" => s.has("f", &["force"]) || s.has_long("discard-changes"),
        "reset" => s.has_long("hard"),
        "read-tree" => s.has_long("reset"),
        _ => false,
    }
}

/// What a move's revisions hold of nagger's files, next to what is there now.
#[derive(Debug, PartialEq, Eq)]
enum Compared {
    /// Nothing of them changes.
    Same,
    /// `rev` holds (or brings) another version of `file`.
    Differs { file: String, rev: String },
    /// A revision names nothing the repository has: git fails on it.
    Missing,
    /// It cannot be told, and why.
    Unknown(String),
}

/// The first path whose entry differs between two sorted lists of entries.
fn first_difference(a: &[Entry], b: &[Entry]) -> Option<String> {
    a.iter()
        .filter(|e| !b.contains(e))
        .chain(b.iter().filter(|e| !a.contains(e)))
        .map(|e| e.path.clone())
        .min()
}

/// What the revisions of `moved` hold of the `wanted` paths of `repo`, next to its
/// index (`To`), their parents (`Changes`) or `HEAD` (`Joined`).
fn compare(repo: &gittree::Repo, wanted: &[String], moved: &Moves, earlier: &Earlier) -> Compared {
    match compared(repo, wanted, moved, earlier) {
        Ok(Some((file, rev))) => Compared::Differs { file, rev },
        Ok(None) => Compared::Same,
        Err(Problem::Missing(_)) => Compared::Missing,
        Err(Problem::Unreadable(why)) => Compared::Unknown(why),
    }
}

/// Most marks of a bisection read.
const MAX_MARKS: usize = 64;

/// A bisection's bad commit, if marked, and its good ones.
type Marks = (Option<gitobjects::Oid>, Vec<gitobjects::Oid>);

/// The bad commit and the good ones a bisection under way has marked, as
/// `refs/bisect/` in `git_dir` holds them (with the terms `BISECT_TERMS` names); none
/// where no bisection is under way.
fn bisection_marks(
    git_dir: &Path,
    resolve: &dyn Fn(&str) -> Result<Vec<u8>, Problem>,
) -> Result<Marks, Problem> {
    let terms = gitobjects::read_small(&git_dir.join("BISECT_TERMS"), 1024).unwrap_or_default();
    let terms = String::from_utf8_lossy(&terms);
    let mut lines = terms.lines().map(str::trim).filter(|l| !l.is_empty());
    let (bad_term, good_term) = (
        lines.next().unwrap_or("bad"),
        lines.next().unwrap_or("good"),
    );
    let bad = resolve(&format!("refs/bisect/{bad_term}")).ok();
    let folder = git_dir.join("refs/bisect");
    let prefix = format!("{good_term}-");
    let mut goods = Vec::new();
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((bad, goods)),
        Err(e) => {
            return Err(Problem::Unreadable(format!(
                "cannot read {}: {e}",
                folder.display()
            )));
        }
    };
    for entry in entries.flatten().take(MAX_MARKS) {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with(&prefix) {
            goods.push(resolve(&format!("refs/bisect/{name}"))?);
        }
    }
    Ok((bad, goods))
}

fn compared(
    repo: &gittree::Repo,
    wanted: &[String],
    moved: &Moves,
    earlier: &Earlier,
) -> Result<Option<(String, String)>, Problem> {
    let store = Store::open(&repo.git_dir);
    let keep = |entries: Vec<Entry>| -> Vec<Entry> {
        entries
            .into_iter()
            .filter(|e| !held_back_anyway(&e.path))
            .collect()
    };
    let tree_of = |commit: Option<&[u8]>| -> Result<Vec<Entry>, Problem> {
        match commit {
            Some(c) => {
                let tree = store.tree(&hex(c), false)?;
                Ok(store.entries(Some(&tree), wanted).map(keep)?)
            }
            None => Ok(Vec::new()),
        }
    };
    match moved {
        Moves::To { revs, from_index } => {
            let staged = gittree::staged(&repo.index, wanted)?;
            if let Some(conflict) = staged
                .iter()
                .find(|e| e.stage != 0 && !held_back_anyway(&e.path))
            {
                return Ok(Some((conflict.path.clone(), "HEAD".into())));
            }
            let now = if *from_index {
                let mut now: Vec<Entry> = keep(
                    staged
                        .iter()
                        .map(|e| Entry {
                            path: e.path.clone(),
                            mode: e.mode(),
                            oid: e.oid.clone(),
                        })
                        .collect(),
                );
                now.sort();
                now
            } else {
                tree_of(store.commit("HEAD", false)?.as_deref())?
            };
            for rev in revs {
                let then = match rev {
                    None => Vec::new(),
                    Some("HEAD") if store.commit("HEAD", false)?.is_none() => Vec::new(),
                    Some(rev) => {
                        let tree = store.tree(rev, true)?;
                        store.entries(Some(&tree), wanted).map(keep)?
                    }
                };
                if let Some(file) = first_difference(&now, &then) {
                    return Ok(Some((file, rev.unwrap_or("an empty tree").to_owned())));
                }
            }
            Ok(None)
        }
        Moves::Changes(commits) => {
            for rev in commits {
                let commit = store
                    .commit(rev, false)?
                    .ok_or_else(|| Problem::Missing(format!("`{rev}` is no commit yet")))?;
                let parent = store.first_parent(&commit)?;
                let before = tree_of(parent.as_deref())?;
                let after = tree_of(Some(&commit))?;
                if let Some(file) = first_difference(&before, &after) {
                    return Ok(Some((file, (*rev).to_owned())));
                }
            }
            Ok(None)
        }
        Moves::Ranges(ranges) => {
            for (from, to) in ranges {
                let resolve = |rev: &str| -> Result<Vec<u8>, Problem> {
                    store
                        .commit(rev, false)?
                        .ok_or_else(|| Problem::Missing(format!("`{rev}` is no commit yet")))
                };
                let (a, b) = (resolve(from)?, resolve(to)?);
                for commit in store.range(&a, &b)? {
                    let parent = store.first_parent(&commit)?;
                    let before = tree_of(parent.as_deref())?;
                    let after = tree_of(Some(&commit))?;
                    if let Some(file) = first_difference(&before, &after) {
                        return Ok(Some((file, format!("{from}..{to}"))));
                    }
                }
            }
            Ok(None)
        }
        Moves::Rewritten {
            upstream,
            onto,
            branch,
        } => {
            let tip = branch.unwrap_or("HEAD");
            let changed = compared(repo, wanted, &Moves::Ranges(vec![(upstream, tip)]), earlier)?;
            if changed.is_some() {
                return Ok(changed);
            }
            let to = Moves::To {
                revs: vec![Some(onto.unwrap_or(upstream)), Some(tip)],
                from_index: false,
            };
            compared(repo, wanted, &to, earlier)
        }
        Moves::Bisect { verb, named } => {
            let resolve = |rev: &str| -> Result<Vec<u8>, Problem> {
                store
                    .commit(rev, false)?
                    .ok_or_else(|| Problem::Missing(format!("`{rev}` is no commit yet")))
            };
            let (mut bad, mut goods) = if *verb == "start" {
                (None, Vec::new())
            } else {
                bisection_marks(&repo.git_dir, &resolve)?
            };
            // What the line marks, `HEAD` when it names nothing.
            let marked: Vec<&str> = if named.is_empty() {
                vec!["HEAD"]
            } else {
                named.clone()
            };
            match *verb {
                "start" => {
                    if let Some((first, rest)) = named.split_first() {
                        bad = Some(resolve(first)?);
                        goods = rest.iter().map(|g| resolve(g)).collect::<Result<_, _>>()?;
                    }
                }
                "bad" | "new" => bad = Some(resolve(marked[0])?),
                "good" | "old" => {
                    for rev in marked {
                        goods.push(resolve(rev)?);
                    }
                }
                _ => {}
            }
            // Until both ends are marked, nothing is checked out.
            let Some(bad) = bad.filter(|_| !goods.is_empty()) else {
                return Ok(None);
            };
            let now = tree_of(store.commit("HEAD", false)?.as_deref())?;
            for good in &goods {
                for commit in store.range(good, &bad)? {
                    if let Some(file) = first_difference(&now, &tree_of(Some(&commit))?) {
                        let short = hex(&commit);
                        return Ok(Some((file, short[..short.len().min(12)].to_owned())));
                    }
                }
            }
            Ok(None)
        }
        Moves::Stash(n) => {
            let stash = store.stash(*n)?;
            let parents = store.parents_of(&stash)?;
            let name = format!("stash@{{{n}}}");
            let before = tree_of(parents.first().map(Vec::as_slice))?;
            // The work tree it keeps, the index (`--index`), and its untracked files.
            for kept in std::iter::once(Some(stash.as_slice()))
                .chain(parents.iter().skip(1).take(2).map(|p| Some(p.as_slice())))
            {
                let after = tree_of(kept)?;
                let changed = if parents.get(2).is_some_and(|u| Some(u.as_slice()) == kept) {
                    after.first().map(|e| e.path.clone())
                } else {
                    first_difference(&before, &after)
                };
                if let Some(file) = changed {
                    return Ok(Some((file, name)));
                }
            }
            Ok(None)
        }
        Moves::Pulled { remote, refs } => {
            let head = store.commit("HEAD", false)?;
            let ours = tree_of(head.as_deref())?;
            joined_from_remote(
                &store,
                earlier,
                remote.as_deref(),
                refs,
                head.as_deref(),
                &ours,
                &keep,
                wanted,
            )
        }
        Moves::Joined(revs) => {
            let head = store.commit("HEAD", false)?;
            let ours = tree_of(head.as_deref())?;
            for rev in revs {
                let theirs = match store.commit(rev, true) {
                    Ok(Some(theirs)) => theirs,
                    // A ref the line's own fetch makes (`git fetch ../c main:up && git
                    // merge up`, `git fetch o && git merge o/main`): what that fetch brings.
                    Err(Problem::Missing(why)) => match earlier.fetched_as(rev) {
                        Some((remote, refs)) => {
                            let found = joined_from_remote(
                                &store,
                                earlier,
                                remote.as_deref(),
                                &refs,
                                head.as_deref(),
                                &ours,
                                &keep,
                                wanted,
                            )?;
                            if found.is_some() {
                                return Ok(found);
                            }
                            continue;
                        }
                        None => return Err(Problem::Missing(why)),
                    },
                    Ok(None) => {
                        return Err(Problem::Missing(format!("`{rev}` is no commit yet")));
                    }
                    Err(e) => return Err(e),
                };
                // Already in the branch's history: joining it changes nothing.
                if let Some(head) = &head
                    && store.reaches(head, &theirs)?
                {
                    continue;
                }
                if let Some(file) = first_difference(&ours, &tree_of(Some(&theirs))?) {
                    // Only what their side changed comes in: where none of the commits
                    // the merge brings touched these files (the difference is ours, made
                    // after the branches parted), the merge keeps them as they are.
                    let Some(head) = &head else {
                        return Ok(Some((file, (*rev).to_owned())));
                    };
                    for commit in store.range(head, &theirs)? {
                        let parent = store.first_parent(&commit)?;
                        if first_difference(&tree_of(parent.as_deref())?, &tree_of(Some(&commit))?)
                            .is_some()
                        {
                            return Ok(Some((file, (*rev).to_owned())));
                        }
                    }
                }
            }
            Ok(None)
        }
    }
}

/// What `git <sub> <rest>` puts in place among tracked files. `exists`: whether an
/// operand names a file in the folder it runs in (then it is a pathspec, not a branch).
fn replaces<'a>(
    sub: &str,
    rest: &'a [String],
    command: &SimpleCommand,
    exists: &dyn Fn(&str) -> bool,
) -> Option<Replace<'a>> {
    let tree_unless = |read_only: bool| (!read_only).then_some(Replace::Tree);
    match sub {
        "checkout" => {
            let s = split(rest, CHECKOUT_VALUED);
            if s.has_long("pathspec-from-file") {
                return Some(Replace::Tree);
            }
            // Forced, even onto the commit it is on, it drops local changes to every
            // tracked file (`git checkout -f`, `git checkout --force HEAD --`).
            let forced = s.has("f", &["force"]);
            if let Some(after) = &s.after {
                return match (after.is_empty(), s.operands.first()) {
                    (false, _) => Some(Replace::Paths(after.clone())),
                    (true, Some(rev)) if !is_head(rev) || forced => Some(Replace::Tree),
                    (true, None) if forced => Some(Replace::Tree),
                    _ => None,
                };
            }
            let Some(&first) = s.operands.first() else {
                return forced.then_some(Replace::Tree);
            };
            if s.options
                .iter()
                .any(|o| matches!(*o, "-b" | "-B") || is_long(o, "orphan"))
            {
                // A new branch: from `HEAD` nothing changes, from a start point it does.
                return tree_unless(is_head(first));
            }
            if s.operands.len() == 1 && is_head(first) {
                return forced.then_some(Replace::Tree);
            }
            if (path_like(first) && !message_search(first)) || exists(first) {
                return Some(Replace::Paths(s.operands.clone()));
            }
            match s.operands.get(1..) {
                Some(paths) if !paths.is_empty() => Some(Replace::Paths(paths.to_vec())),
                _ => Some(Replace::Tree),
            }
        }
        "switch" => {
            let s = split(rest, SWITCH_VALUED);
            if s.has_long("orphan") {
                return Some(Replace::Tree);
            }
            let forced = s.has("f", &["force"]) || s.has_long("discard-changes");
            match s.operands.first() {
                Some(rev) => tree_unless(is_head(rev) && !forced),
                None => forced.then_some(Replace::Tree),
            }
        }
        "restore" => {
            let s = split(
                rest,
                &["-s", "--source", "--conflict", "--pathspec-from-file"],
            );
            if s.has("S", &["staged"]) && !s.has("W", &["worktree"]) {
                return None;
            }
            if s.has_long("pathspec-from-file") {
                return Some(Replace::Tree);
            }
            let all = s.all();
            (!all.is_empty()).then_some(Replace::Paths(all))
        }
        "reset" => {
            let s = split(rest, &["--pathspec-from-file"]);
            tree_unless(!(s.has_long("hard") || s.has_long("merge") || s.has_long("keep")))
        }
        // Bringing in history keeps what the branch has: a merge (or a rebase of the
        // branch's own commits onto another) changes a tracked file only as the other side
        // changed it, and git refuses to overwrite a file changed in the work tree. A
        // rebase that chooses which commits to keep (`--onto`, `-i`, `--root`, `--skip`)
        // can drop the commit that installed nagger's hooks, and is asked about.
        "pull" | "merge" | "rebase" => {
            let s = split(rest, &["--onto", "-x", "--exec", "-s", "--strategy", "-X"]);
            let chooses = s.has("i", &["interactive", "root", "skip", "edit-todo"])
                || s.has_long("onto")
                || s.options.iter().any(|o| {
                    o.strip_prefix("--rebase=")
                        .is_some_and(|v| v.starts_with('i'))
                });
            chooses.then_some(Replace::Tree)
        }
        // `git fetch --update-head-ok ../c main:main` moves the branch the work tree is
        // on: the next `git reset --merge` or `git stash` puts the other history's files
        // in place.
        "fetch" => tree_unless(!split(rest, PULL_VALUED).has_long("update-head-ok")),
        "cherry-pick" | "revert" => {
            let s = split(rest, &[]);
            // Stopping a sequence puts back the tree it started from; going on (or
            // leaving out the commit that stopped it) picks the commits the command that
            // began it named, judged then.
            if ["abort", "quit", "continue", "skip"]
                .iter()
                .any(|l| s.has_long(l))
            {
                return None;
            }
            // `-n` is `--no-commit`: the tree changes all the same.
            tree_unless(
                s.has_long("quit") || s.has_long("show-current-patch") || s.has_long("edit-todo"),
            )
        }
        // A patch that can be read is judged by the files it names.
        // Showing the patch it stopped at, or stopping and going back to where it began,
        // brings in no patch.
        "am" => {
            let s = split(rest, &[]);
            let ends = ["show-current-patch", "abort", "quit"]
                .iter()
                .any(|l| s.has_long(l));
            tree_unless(ends || !patches::sources(command).is_empty())
        }
        "bisect" => {
            let verb = rest.first().map_or("", String::as_str);
            let given = split(rest.get(1..).unwrap_or(&[]), &[]);
            // `start` with no revision checks nothing out, `reset` with none goes back
            // to the branch the bisection began on.
            let still = matches!(verb, "start" | "reset") && given.all().is_empty();
            tree_unless(
                still
                    || !matches!(
                        verb,
                        "start" | "good" | "bad" | "new" | "old" | "skip" | "reset" | "replay"
                    ),
            )
        }
        "stash" => {
            let verb = rest.first().map_or("push", String::as_str);
            match verb {
                "pop" | "apply" | "branch" => Some(Replace::Tree),
                "push" | "save" => {
                    let s = split(
                        rest.get(1..).unwrap_or(&[]),
                        &["-m", "--message", "--pathspec-from-file"],
                    );
                    Some(stash_paths(&s))
                }
                _ if verb.starts_with('-') => {
                    let s = split(rest, &["-m", "--message", "--pathspec-from-file"]);
                    Some(stash_paths(&s))
                }
                _ => None,
            }
        }
        "read-tree" => {
            let s = split(rest, READ_TREE_VALUED);
            tree_unless(!s.has("u", &[]))
        }
        "checkout-index" => {
            let s = split(rest, &["--prefix", "--stage"]);
            if s.has("a", &["all", "stdin"]) {
                return Some(Replace::Tree);
            }
            let all = s.all();
            (!all.is_empty()).then_some(Replace::Paths(all))
        }
        "sparse-checkout" => {
            tree_unless(!rest.first().is_some_and(|a| {
                matches!(a.as_str(), "set" | "add" | "reapply" | "disable" | "init")
            }))
        }
        "rm" => {
            let s = split(rest, &["--pathspec-from-file"]);
            if s.has_long("cached") {
                return None;
            }
            if s.has_long("pathspec-from-file") {
                return Some(Replace::Tree);
            }
            let all = s.all();
            (!all.is_empty()).then_some(Replace::Paths(all))
        }
        _ => None,
    }
}

fn stash_paths<'a>(s: &Split<'a>) -> Replace<'a> {
    if s.has_long("pathspec-from-file") {
        Replace::Tree
    } else {
        Replace::Local(s.all())
    }
}

/// Where the git command runs and which repository it names: `-C`, `--git-dir`,
/// `--work-tree` and the `GIT_DIR`, `GIT_WORK_TREE` and `GIT_INDEX_FILE` it is given by
/// `env`. `None` for the folder when it is only known as the shell runs. The index of
/// the subcommand among `args`.
struct Globals<'a> {
    dirs: Vec<&'a str>,
    git_dir: Option<&'a str>,
    work_tree: Option<&'a str>,
    index_file: Option<&'a str>,
    at: usize,
}

/// The name and URL of a remote `command` adds (`git remote add [options] NAME URL`).
pub(super) fn remote_added(command: &SimpleCommand) -> Option<(&str, &str)> {
    if command.name() != "git" {
        return None;
    }
    let g = globals(command)?;
    let args = command.args();
    if args.get(g.at)? != "remote" || args.get(g.at + 1)? != "add" {
        return None;
    }
    let s = split(args.get(g.at + 2..)?, &["-t", "--track", "-m", "--master"]);
    match s.operands.as_slice() {
        [name, url] => Some((name, url)),
        _ => None,
    }
}

/// The words after `fetch` when `command` is a `git fetch`.
pub(super) fn fetch_args(command: &SimpleCommand) -> Option<&[String]> {
    if command.name() != "git" {
        return None;
    }
    let g = globals(command)?;
    let args = command.args();
    (args.get(g.at)? == "fetch").then(|| args.get(g.at + 1..).unwrap_or(&[]))
}

fn globals(command: &SimpleCommand) -> Option<Globals<'_>> {
    let args = command.args();
    let mut g = Globals {
        dirs: Vec::new(),
        git_dir: None,
        work_tree: None,
        index_file: None,
        at: 0,
    };
    // `GIT_DIR=x git …` and `env GIT_DIR=x git …`.
    for word in command.env.iter().chain(command.prefixed.iter().flatten()) {
        if let Some((name, value)) = word.split_once('=') {
            match name {
                "GIT_DIR" => g.git_dir = Some(value),
                "GIT_WORK_TREE" => g.work_tree = Some(value),
                "GIT_INDEX_FILE" => g.index_file = Some(value),
                _ => {}
            }
        }
    }
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let next = args.get(i + 1).map(String::as_str);
        match arg.as_str() {
            "-C" => g.dirs.push(next?),
            "--git-dir" => g.git_dir = Some(next?),
            "--work-tree" => g.work_tree = Some(next?),
            "-c" | "--namespace" | "--config-env" | "--super-prefix" => {}
            a if a.starts_with("--git-dir=") => {
                g.git_dir = a.split_once('=').map(|(_, v)| v);
                i += 1;
                continue;
            }
            a if a.starts_with("--work-tree=") => {
                g.work_tree = a.split_once('=').map(|(_, v)| v);
                i += 1;
                continue;
            }
            a if a.starts_with('-') => {
                i += 1;
                continue;
            }
            _ => break,
        }
        i += 2;
    }
    g.at = i;
    Some(g)
}

/// The paths of nagger's files that matter in a work tree whose top is `top`, relative to
/// it: those of the project and of the user's home that lie inside it (`.claude-nagger/`,
/// `sub/.claude/settings.json`), and everything when the top itself lies inside one of
/// nagger's folders (`git --work-tree=.claude-nagger checkout …` writes there whatever
/// the index holds; `--work-tree=.claude` puts `settings.json` at the settings' place).
fn wanted(top: &Path, root: &Path) -> Vec<String> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut protected: Vec<(PathBuf, bool)> = vec![
        (root.join(".claude-nagger"), true),
        (root.join(".claude/settings.json"), false),
        (root.join(".claude/settings.local.json"), false),
    ];
    if let Some(home) = home.filter(|h| h.is_absolute() && h.as_os_str().len() > 1) {
        protected.push((home.join(".claude/settings.json"), false));
        protected.push((home.join(".claude/settings.local.json"), false));
    }
    let mut out = Vec::new();
    for (path, folder) in protected {
        if folder && top.starts_with(&path) {
            // The whole work tree lands inside the folder.
            return vec![String::new()];
        }
        if let Ok(inside) = path.strip_prefix(top)
            && !inside.as_os_str().is_empty()
        {
            let inside = inside.to_string_lossy();
            out.push(if folder {
                format!("{inside}/")
            } else {
                inside.into_owned()
            });
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Whether a work tree given as `tree` (from folder `base`) is one of nagger's folders or
/// lies inside one: named so whatever its prefix (`$PWD/.claude`, `"$(pwd)/.claude-nagger"`),
/// or found there once resolved (`../proj/.claude`, the home's `.claude`).
fn into_nagger(tree: &str, base: &Path, root: &Path) -> bool {
    let v = tree.trim_matches(['"', '\'']).trim_end_matches('/');
    let last = v.rsplit('/').next().unwrap_or(v);
    if matches!(last, ".claude" | ".claude-nagger")
        || v.starts_with(".claude-nagger/")
        || v.contains("/.claude-nagger/")
    {
        return true;
    }
    if v.contains(['$', '`']) {
        return false;
    }
    let path = match v.strip_prefix("~/").zip(std::env::var_os("HOME")) {
        Some((rest, home)) => PathBuf::from(home).join(rest),
        None => base.join(v),
    };
    let path = PathBuf::from(super::super::paths::normalize(&path.to_string_lossy()));
    let mut folders = vec![root.join(".claude-nagger"), root.join(".claude")];
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        folders.push(home.join(".claude"));
    }
    folders
        .iter()
        .any(|f| path == *f || path.starts_with(root.join(".claude-nagger")))
        // A folder holding a `nagger` program (the one on PATH), or the managed settings.
        || std::fs::symlink_metadata(path.join("nagger")).is_ok()
        || path.starts_with("/etc/claude-code")
}

/// Whether another version of the tracked file `file` is harmless to nagger: the config,
/// whose weakenings wait for the user's confirmation, and the `.gitignore` beside it.
fn held_back_anyway(file: &str) -> bool {
    [".claude-nagger/config.toml", ".claude-nagger/.gitignore"]
        .iter()
        .any(|name| file == *name || file.ends_with(&format!("/{name}")))
}

/// Whether pathspec `spec`, given in the folder `from` (relative to the top, `None`
/// when unknown), covers the tracked path `file`.
/// Whether a list of pathspecs covers `file`: one of its positive pathspecs does (or it
/// has none, only exclusions: then it stands for the whole tree), and none of its
/// exclusions (`:!x`, `:^x`, `:(exclude)x`) does.
fn covered(specs: &[&str], from: Option<&str>, file: &str) -> bool {
    let (excluded, positive): (Vec<Option<String>>, Vec<&str>) = (
        specs.iter().map(|s| excluded_spec(s)).collect(),
        specs
            .iter()
            .copied()
            .filter(|s| excluded_spec(s).is_none())
            .collect(),
    );
    (positive.is_empty() || positive.iter().any(|s| covers(s, from, file)))
        && !excluded.iter().flatten().any(|s| covers(s, from, file))
}

/// The pathspec an exclusion leaves out, written as a positive one: `:!x` and `:^x` are
/// `x`, `:(exclude,top)x` is `:(top)x`. `None` for a pathspec that is not an exclusion.
pub(super) fn excluded_spec(spec: &str) -> Option<String> {
    let magic = spec.strip_prefix(':')?;
    if let Some(rest) = magic.strip_prefix(['!', '^']) {
        return Some(rest.to_owned());
    }
    let inner = magic.strip_prefix('(')?;
    let (words, rest) = inner.split_once(')')?;
    let words: Vec<&str> = words.split(',').map(str::trim).collect();
    if !words.contains(&"exclude") {
        return None;
    }
    let others: Vec<&str> = words.into_iter().filter(|w| *w != "exclude").collect();
    Some(if others.is_empty() {
        rest.to_owned()
    } else {
        format!(":({}){rest}", others.join(","))
    })
}

fn covers(spec: &str, from: Option<&str>, file: &str) -> bool {
    let from_top = if let Some(magic) = spec.strip_prefix(':') {
        if magic.starts_with(['!', '^']) || magic.starts_with("(exclude") {
            return false;
        }
        if let Some(rest) = magic.strip_prefix('/') {
            rest.to_owned()
        } else if let Some(rest) = magic.strip_prefix("(top)") {
            rest.to_owned()
        } else {
            // Other magic (`:(glob)`, `:(icase)`, `:(attr…)`): not followed.
            return true;
        }
    } else {
        let Some(from) = from else {
            return true;
        };
        if from.is_empty() {
            spec.to_owned()
        } else {
            format!("{from}/{spec}")
        }
    };
    let path = normalize(&from_top);
    if path == "." || path.starts_with("..") {
        return true;
    }
    let file = file.trim_end_matches('/');
    if file == path
        || file.starts_with(&format!("{path}/"))
        || path.starts_with(&format!("{file}/"))
    {
        return true;
    }
    if !path.contains(['*', '?', '[']) {
        return false;
    }
    // git's wildcards match `/` too, and a match on a folder takes its files.
    let Ok(glob) = build_glob(&path, false) else {
        return true;
    };
    let matcher = glob.compile_matcher();
    let mut at = file;
    loop {
        if matcher.is_match(at) {
            return true;
        }
        match at.rsplit_once('/') {
            Some((up, _)) => at = up,
            None => return false,
        }
    }
}

/// A folder as a path on disk, through symbolic links when it exists.
fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| PathBuf::from(normalize(&path.to_string_lossy())))
}

/// The `-C` folders of a git command, in order; `None` when it is no git command.
pub(super) fn git_dirs(command: &SimpleCommand) -> Option<Vec<&str>> {
    (command.name() == "git").then(|| globals(command).map(|g| g.dirs).unwrap_or_default())
}

/// How a revision reaches the work tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Via {
    /// The work tree becomes it.
    To,
    /// Its changes are brought in or undone.
    Changes,
    /// Its history is joined with `HEAD`'s.
    Joined,
}

/// What a git command that replaces tracked files found in its repository.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// It may put another version of `file` (relative to `top`) in place. `known`:
    /// where it runs was known.
    Tracked {
        sub: String,
        file: String,
        top: PathBuf,
        known: bool,
    },
    /// Its work tree is one of nagger's folders (`--work-tree=.claude`, `GIT_WORK_TREE`):
    /// whatever the repository holds is written there.
    Redirected { sub: String, tree: String },
    /// A revision it moves to holds `file` in another version than the one there now,
    /// a commit it brings changes it, or a history it joins holds another than `HEAD`'s.
    Holds {
        sub: String,
        file: String,
        rev: String,
        via: Via,
        top: PathBuf,
    },
    /// What the revisions it moves to hold cannot be read (why).
    Unresolved {
        sub: String,
        top: PathBuf,
        why: String,
    },
    /// Whether it does cannot be told: the index cannot be read (why).
    Unreadable {
        sub: String,
        top: PathBuf,
        why: String,
    },
}

/// A git command run in `dir` (`None`: only known when the shell runs; then the
/// repository of the project at `root` is looked at) that may put another version of
/// one of nagger's tracked files in place.
pub(super) fn replaced(
    command: &SimpleCommand,
    dir: Option<&Path>,
    root: &Path,
    exported: &[(&str, Option<&str>)],
    earlier: Earlier,
) -> Option<Outcome> {
    if command.name() != "git" {
        return None;
    }
    let g = globals(command)?;
    let args = command.args();
    let sub = args.get(g.at)?.as_str();
    let dir = dir.map(real);
    let exists = |operand: &str| {
        dir.as_ref()
            .is_some_and(|d| std::fs::symlink_metadata(d.join(operand)).is_ok())
    };
    let rest = args.get(g.at + 1..).unwrap_or(&[]);
    let what = replaces(sub, rest, command, &exists);
    let moved = match moves(sub, rest, &exists) {
        // `git fetch ../c main && git merge FETCH_HEAD`: what the line's fetch brings.
        Some(Moves::Joined(revs)) if revs == ["FETCH_HEAD"] => {
            match earlier.fetched_as("FETCH_HEAD") {
                Some((remote, refs)) => Some(Moves::Pulled { remote, refs }),
                None => Some(Moves::Joined(revs)),
            }
        }
        other => other,
    };

    // By revision: moves that replace the tree, or join another history.
    let by_revision = match (&what, moved) {
        (
            Some(Replace::Tree),
            Some(
                m @ (Moves::To { .. }
                | Moves::Changes(_)
                | Moves::Ranges(_)
                | Moves::Stash(_)
                | Moves::Rewritten { .. }
                | Moves::Bisect { .. }),
            ),
        ) => Some(m),
        (None, Some(m @ (Moves::Joined(_) | Moves::Pulled { .. }))) => Some(m),
        _ => None,
    };
    if what.is_none() && by_revision.is_none() {
        return None;
    }
    let value = |v: Option<&str>| {
        v.filter(|v| !v.contains(['$', '`'])).map(|v| {
            match v.strip_prefix("~/").zip(std::env::var_os("HOME")) {
                Some((rest, home)) => PathBuf::from(home).join(rest),
                None => PathBuf::from(v),
            }
        })
    };
    // `GIT_DIR` and the like exported earlier in the line, when not given here; a value
    // only known when the shell runs is unknown.
    let or_exported = |own: Option<&'_ str>, name: &str| {
        own.map(str::to_owned).or_else(|| {
            exported
                .iter()
                .rev()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.map_or_else(|| "$unknown".to_owned(), str::to_owned))
        })
    };
    let git_dir = or_exported(g.git_dir, "GIT_DIR");
    let work_tree = or_exported(g.work_tree, "GIT_WORK_TREE");
    let index_file = or_exported(g.index_file, "GIT_INDEX_FILE");
    let env_known = [&git_dir, &work_tree, &index_file]
        .iter()
        .all(|v| v.as_deref().is_none_or(|v| !v.contains(['$', '`'])));
    let known = dir.is_some() && env_known;
    // A repository only known when the shell runs: the project's is looked at.
    let at = if env_known {
        Where {
            dir: dir.clone().unwrap_or_else(|| root.to_path_buf()),
            git_dir: value(git_dir.as_deref()),
            work_tree: value(work_tree.as_deref()),
            index_file: value(index_file.as_deref()),
        }
    } else {
        Where {
            dir: root.to_path_buf(),
            ..Where::default()
        }
    };
    if let Some(tree) = work_tree.as_deref()
        && into_nagger(tree, dir.as_deref().unwrap_or(root), root)
    {
        return Some(Outcome::Redirected {
            sub: sub.to_owned(),
            tree: tree.to_owned(),
        });
    }
    let repo = gittree::find(&at)?;
    let earlier = Earlier {
        dir: Some(dir.clone().unwrap_or_else(|| repo.top.clone())),
        ..earlier
    };
    let top = real(&repo.top);
    let root = real(root);
    let wanted = wanted(&top, &root);
    if wanted.is_empty() {
        return None;
    }
    let tracked = match gittree::tracked(&repo.index, &wanted) {
        Tracked::Paths(paths) => paths,
        Tracked::Unknown(why) => {
            return Some(Outcome::Unreadable {
                sub: sub.to_owned(),
                top,
                why,
            });
        }
    };
    let from = known
        .then(|| {
            let d = dir.as_ref()?;
            Some(d.strip_prefix(&top).ok()?.to_string_lossy().into_owned())
        })
        .flatten();
    // Another version of the config cannot weaken the guard: its safety settings take
    // effect only once the user confirms them, the trusted ones stay in force until then.
    // A version of `.gitignore` changes nothing that protects. Named by a pathspec of
    // their own, they are refused by the check of protected paths.
    let tracked: Vec<&String> = tracked.iter().filter(|f| !held_back_anyway(f)).collect();
    // What the revisions hold, compared with what is there: the same versions change
    // nothing (but local changes a forced move drops); another version, or one that
    // cannot be read, is asked about.
    if let Some(moved) = &by_revision
        && !wanted.iter().any(String::is_empty)
    {
        // A revision only known as the line runs may hold anything: asked about where
        // nagger's files are tracked.
        if moved.names_computed()
            && let Some(file) = tracked.first()
        {
            return Some(Outcome::Tracked {
                sub: sub.to_owned(),
                file: (*file).clone(),
                top,
                known,
            });
        }
        match compare(&repo, &wanted, moved, &earlier) {
            Compared::Same => {
                let dropped = discards(sub, rest)
                    .then(|| {
                        tracked
                            .iter()
                            .find(|f| !gittree::unchanged(&repo.index, &repo.top, f))
                    })
                    .flatten();
                return dropped.map(|file| Outcome::Tracked {
                    sub: sub.to_owned(),
                    file: (*file).clone(),
                    top,
                    known,
                });
            }
            Compared::Differs { file, rev } => {
                return Some(Outcome::Holds {
                    sub: sub.to_owned(),
                    file,
                    rev,
                    via: match moved {
                        Moves::To { .. } | Moves::Bisect { .. } => Via::To,
                        Moves::Changes(_)
                        | Moves::Ranges(_)
                        | Moves::Stash(_)
                        | Moves::Rewritten { .. } => Via::Changes,
                        Moves::Joined(_) | Moves::Pulled { .. } => Via::Joined,
                    },
                    top,
                });
            }
            // Joining a history nagger cannot read passes, as a pull does.
            Compared::Unknown(_) | Compared::Missing if what.is_none() => return None,
            // Naming nothing, it fails; tracked files are asked about as before.
            Compared::Missing => {}
            Compared::Unknown(why) if tracked.is_empty() => {
                return Some(Outcome::Unresolved {
                    sub: sub.to_owned(),
                    top,
                    why,
                });
            }
            Compared::Unknown(_) => {}
        }
    }
    let what = what?;
    let file = match &what {
        Replace::Tree => *tracked.first()?,
        Replace::Paths(specs) => *tracked
            .iter()
            .find(|f| covered(specs, from.as_deref(), f))?,
        Replace::Local(specs) => *tracked.iter().find(|f| {
            (specs.is_empty() || covered(specs, from.as_deref(), f))
                && !gittree::unchanged(&repo.index, &repo.top, f)
        })?,
    };
    Some(Outcome::Tracked {
        sub: sub.to_owned(),
        file: file.clone(),
        top,
        known,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(line: &str) -> Option<String> {
        let parsed = crate::domain::guard::shell::parse(line);
        let command = &parsed.commands[0];
        let g = globals(command)?;
        let exists = |op: &str| op == "src" || op == "README.md";
        let args = command.args();
        let sub = args.get(g.at)?.as_str();
        replaces(sub, &args[g.at + 1..], command, &exists).map(|r| match r {
            Replace::Tree => "tree".to_owned(),
            Replace::Paths(p) => p.join(" "),
            Replace::Local(p) => format!("local {}", p.join(" ")).trim_end().to_owned(),
        })
    }

    #[test]
    fn commands_that_replace_tracked_files() {
        for line in [
            "git checkout other-branch",
            "git checkout -f main",
            "git checkout -f",
            "git checkout --force HEAD",
            "git checkout -f --",
            "git switch -f",
            "git switch --discard-changes HEAD",
            "git checkout -b x origin/main",
            "git checkout --detach v1.0",
            "git checkout HEAD~1 --",
            "git switch x",
            "git switch -",
            "git switch --detach HEAD~3",
            "git switch -c x origin/main",
            "git switch --orphan empty",
            "git pull --rebase=interactive",
            "git rebase -i main",
            "git rebase --onto old HEAD~2",
            "git rebase --root",
            "git rebase --skip",
            "git cherry-pick abc123",
            "git revert HEAD",
            "git stash pop",
            "git stash apply stash@{1}",
            "git am --continue",
            "git reset --merge HEAD~1",
            "git reset --keep v1",
            "git reset --hard",
            "git read-tree -u -m HEAD~1",
            "git checkout-index -a -f",
            "git -C sub checkout other",
            "git --git-dir=.git --work-tree=. checkout other",
            "git bisect start HEAD v1",
            "git sparse-checkout set src",
        ] {
            assert_eq!(classify(line).as_deref(), Some("tree"), "{line}");
        }
    }

    #[test]
    fn commands_with_pathspecs_name_them() {
        for (line, paths) in [
            ("git checkout .", "."),
            ("git checkout -- .", "."),
            ("git checkout src", "src"),
            ("git checkout main -- .claude", ".claude"),
            ("git checkout HEAD README.md", "README.md"),
            ("git checkout '*.json'", "*.json"),
            ("git restore .", "."),
            ("git restore --source HEAD~2 -- :/", ":/"),
            ("git stash push -- .claude", "local .claude"),
            ("git stash", "local"),
            ("git stash -u", "local"),
            ("git stash push -m wip", "local"),
            (
                "git checkout-index -f -- .claude/settings.json",
                ".claude/settings.json",
            ),
            ("git rm -r --quiet conf", "conf"),
        ] {
            assert_eq!(classify(line).as_deref(), Some(paths), "{line}");
        }
    }

    #[test]
    fn commands_that_change_no_tracked_file() {
        for line in [
            "git checkout",
            "git checkout -b feature",
            "git checkout -B feature HEAD",
            "git checkout --orphan fresh",
            "git checkout HEAD",
            "git switch -c feature",
            "git switch --create feature",
            "git restore --staged .",
            "git reset",
            "git reset HEAD~1",
            "git reset --soft HEAD~1",
            "git stash list",
            "git stash show -p",
            "git rebase --show-current-patch",
            "git merge --quit",
            "git pull",
            "git pull --rebase origin main",
            "git merge x",
            "git merge -s ours -X theirs x",
            "git rebase main",
            "git rebase --continue",
            "git rm --cached -r .",
            "git bisect log",
            "git status",
            "git log --oneline",
            "git fetch origin",
            "git commit -am x",
            "git push origin main",
            "git diff main..x",
            "git read-tree HEAD",
            "git sparse-checkout list",
        ] {
            assert_eq!(classify(line), None, "{line}");
        }
    }

    #[test]
    fn pathspecs_cover_tracked_files() {
        let settings = ".claude/settings.json";
        for (spec, from) in [
            (".", ""),
            (".claude", ""),
            (".claude/", ""),
            (".claude/settings.json", ""),
            ("*.json", ""),
            (".c*", ""),
            ("..", "src"),
            ("../.claude", "src"),
            (":/", "src"),
            (":/.claude", "src"),
            (":(top)", "src"),
            (":(icase).CLAUDE", ""),
        ] {
            assert!(covers(spec, Some(from), settings), "{spec} from {from:?}");
        }
        assert!(covers("src", None, settings), "from an unknown folder");
        for (spec, from) in [
            ("src", ""),
            (".", "src"),
            ("src/*.rs", ""),
            (":!.claude", ""),
            (":(exclude).claude", ""),
            (".claude/agents", ""),
        ] {
            assert!(!covers(spec, Some(from), settings), "{spec} from {from:?}");
        }
        assert!(covers(".claude/settings.json", Some(""), ".claude/"));
        for (specs, hit) in [
            (&[":(exclude)src"][..], true),
            (&[":!src", ":^tests"][..], true),
            (&[":!.claude"][..], false),
            (&[".", ":(exclude,top).claude"][..], false),
            (&["src", ":!tests"][..], false),
            (&[".claude", ":!src"][..], true),
        ] {
            assert_eq!(covered(specs, Some(""), settings), hit, "{specs:?}");
        }
        assert!(covers(".", Some("proj"), "proj/.claude-nagger/config.toml"));
    }
}
