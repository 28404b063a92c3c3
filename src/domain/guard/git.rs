//! The guard's git checks: history overwritten or deleted on the remote, uncommitted work
//! thrown away. Options are read as git reads them, abbreviations included.

use super::finding::{Finding, operands};
use super::shell::{has_flag, is_long, short_cluster};
use super::targets::{Reach, dangerous_target};

/// git's global options that take a value as the next word.
pub(super) const GLOBAL_WITH_VALUE: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--exec-path",
    "--super-prefix",
];

/// Whether a configuration value means false (`false`, `no`, `off`, `0`).
fn is_false(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "false" | "no" | "off" | "0"
    )
}

/// Whether a configuration value means true (`true`, `yes`, `on`, `1`, or no value).
fn is_true(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "true" | "yes" | "on" | "1" | ""
    )
}

/// A setting that switches off one of git's own safeties, described.
fn weakening(key: &str, value: &str) -> Option<&'static str> {
    let key = key.to_ascii_lowercase();
    let last = key.rsplit('.').next().unwrap_or("");
    if key == "clean.requireforce" && is_false(value) {
        return Some("lets `git clean` delete untracked files without `-f`");
    }
    if key.starts_with("remote.") && last == "mirror" && is_true(value) {
        return Some("makes every push a mirror push, which force-updates and deletes remote refs");
    }
    if key.starts_with("gc.") && last.contains("expire") && matches!(value, "now" | "all" | "0") {
        return Some("lets git throw away the history kept for recovery at once");
    }
    if key.starts_with("receive.") && last.starts_with("deny") && is_false(value) {
        return Some("lets pushes rewrite or delete history in this repository");
    }
    if key.starts_with("remote.") && last == "push" && value.starts_with('+') {
        return Some("makes every push a force push, overwriting history on the remote");
    }
    if key == "push.default" && value == "mirror" {
        return Some("makes every push a mirror push");
    }
    if key == "core.worktree" && !value.is_empty() && value != "\0" {
        return Some(
            "points git's work tree at another folder, where checkouts, resets and restores \
             then write",
        );
    }
    None
}

/// Where git's verb stands in `args`, past git's own options (`-C dir`, `-c k=v`).
pub(super) fn verb_index(args: &[String]) -> usize {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            break;
        }
        i += if GLOBAL_WITH_VALUE.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    i
}

/// The dangerous effect of `git <args>`, if any.
/// The program `git grep -O[PROG]` / `--open-files-in-pager[=PROG]` hands the files it
/// finds (`less` when none is named).
fn grep_pager(rest: &[String]) -> Option<String> {
    for a in rest {
        if a == "--" {
            break;
        }
        if let Some(p) = a.strip_prefix("--open-files-in-pager") {
            return Some(p.strip_prefix('=').unwrap_or("less").to_owned());
        }
        if a == "-O" {
            return Some("less".to_owned());
        }
        if let Some(cluster) = a.strip_prefix('-').filter(|c| !c.starts_with('-'))
            && let Some(at) = cluster.find('O')
        {
            let after = &cluster[at + 1..];
            return Some(if after.is_empty() { "less" } else { after }.to_owned());
        }
    }
    None
}

/// A program that only shows the files it is handed.
fn viewer(program: &str) -> bool {
    let words: Vec<&str> = program.split_whitespace().collect();
    match words.as_slice() {
        [one] => matches!(
            one.rsplit('/').next().unwrap_or(one),
            "less" | "more" | "most" | "view" | "cat" | "bat" | "batcat" | "head" | "tail" | "wc"
        ),
        [editor, "-R"] => matches!(*editor, "vi" | "vim" | "nvim"),
        _ => false,
    }
}

pub(super) fn git_danger(args: &[String]) -> Option<Finding> {
    let mut i = 0;
    let mut settings: Vec<(&str, &str)> = Vec::new();
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            break;
        }
        if arg == "-c"
            && let Some((key, value)) = args.get(i + 1).and_then(|kv| kv.split_once('='))
        {
            settings.push((key, value));
        }
        i += if GLOBAL_WITH_VALUE.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    let sub = args.get(i)?.as_str();
    let rest = args.get(i + 1..).unwrap_or(&[]);
    let before_dashes = || rest.iter().take_while(|a| *a != "--");
    let set = |k: &str| {
        settings
            .iter()
            .rev()
            .find(|(key, _)| key.eq_ignore_ascii_case(k))
            .map(|(_, v)| *v)
    };
    let mirror = settings.iter().any(|(k, v)| {
        let k = k.to_ascii_lowercase();
        k.starts_with("remote.") && k.ends_with(".mirror") && is_true(v)
    });
    let deny = |check: &'static str, harm: String, advice: &'static str| {
        Some(Finding::deny(check, harm, advice))
    };
    // `git -c core.sparseCheckout=true read-tree -mu HEAD`: the work tree made sparse for
    // one run, which drops the files the patterns leave out (nagger's settings among them).
    if set("core.sparseCheckout").is_some_and(is_true)
        && !matches!(sub, "status" | "log" | "diff" | "show" | "config")
    {
        return Some(Finding::ask(
            "guard:git-runs-later",
            format!(
                "runs `git {sub}` with a sparse work tree (`core.sparseCheckout`), which drops \
                 the files the sparse patterns leave out, nagger's settings among them"
            ),
            "Ask the user to change which files the work tree holds.",
        ));
    }
    match sub {
        "push" | "send-pack" if has_flag(rest, "n", &["dry-run"]) => None,
        "push"
            if mirror
                || settings.iter().any(|(k, v)| {
                    let k = k.to_ascii_lowercase();
                    k.starts_with("remote.")
                        && k.rsplit('.').next() == Some("push")
                        && v.starts_with('+')
                }) =>
        {
            deny(
                "guard:git-push-delete",
                "pushes as a mirror (`remote.*.mirror`), force-updating and deleting remote refs"
                    .into(),
                "Push without rewriting or deleting remote refs; if that is needed, ask the user.",
            )
        }
        // `git send-pack` is the plumbing under `git push`, with its options.
        "push" | "send-pack" => push(rest),
        "config" => {
            let words: Vec<&String> = rest.iter().filter(|a| !a.starts_with('-')).collect();
            let words: Vec<&String> = match words.first() {
                Some(w) if matches!(w.as_str(), "set" | "add") => words[1..].to_vec(),
                _ => words,
            };
            let (key, value) = match words.as_slice() {
                [key, value, ..] => (key.as_str(), value.as_str()),
                [kv] => kv.split_once('=').unwrap_or((kv.as_str(), "\0")),
                _ => return None,
            };
            // Kept in git's settings (not for one run, as `-c` is): every later run.
            let kept = match key.to_ascii_lowercase().as_str() {
                "core.hookspath" if matches!(value, "/dev/null" | "" | "/nonexistent") => {
                    Some("switches off the hooks of the repositories it applies to")
                }
                "safe.directory" if value == "*" => {
                    Some("turns off git's check of who owns a repository, for every one")
                }
                _ => None,
            };
            let what = kept.or_else(|| weakening(key, value))?;
            deny(
                "guard:git-safety-off",
                format!("sets `{key}`, which {what}"),
                "Ask the user to change git's settings.",
            )
        }
        "clean"
            if set("clean.requireForce").is_some_and(is_false)
                && !has_flag(rest, "n", &["dry-run"]) =>
        {
            deny(
                "guard:git-clean-force",
                "deletes untracked files for good (`git clean` with `clean.requireForce` off)"
                    .into(),
                "List them with `git clean -n` and ask the user.",
            )
        }
        "branch"
            if before_dashes().any(|a| a == "-D")
                || (has_flag(rest, "d", &["delete"]) && has_flag(rest, "f", &["force"])) =>
        {
            deny(
                "guard:git-branch-delete",
                "deletes a branch even with commits merged nowhere (`git branch -D`)".into(),
                "Delete it with `git branch -d`, which keeps unmerged work, or ask the user.",
            )
        }
        "stash" if rest.first().is_some_and(|a| a == "drop" || a == "clear") => deny(
            "guard:git-stash-drop",
            "throws away stashed work (`git stash drop`/`clear`)".into(),
            "Leave the stash, or ask the user.",
        ),
        "reflog" if rest.first().is_some_and(|a| a == "expire" || a == "delete") => deny(
            "guard:git-history-drop",
            "throws away the reflog, which recovers lost commits".into(),
            "Ask the user.",
        ),
        "gc" | "prune"
            if sub == "prune"
                || before_dashes().any(|a| {
                    a.strip_prefix("--prune=")
                        .is_some_and(|v| matches!(v, "now" | "all"))
                })
                || settings.iter().any(|(k, v)| weakening(k, v).is_some()) =>
        {
            deny(
                "guard:git-history-drop",
                format!("deletes unreachable commits for good (`git {sub}`)"),
                "Run `git gc` without `--prune=now`, or ask the user.",
            )
        }
        "switch" if before_dashes().any(|a| is_long(a, "discard-changes")) => deny(
            "guard:git-discard",
            "throws away uncommitted changes (`git switch --discard-changes`)".into(),
            "Commit or `git stash` first, or ask the user.",
        ),
        "read-tree" if has_flag(rest, "u", &[]) && before_dashes().any(|a| a == "--reset") => deny(
            "guard:git-discard",
            "puts a tree in place of the working tree's uncommitted changes (`git read-tree \
                 --reset -u`)"
                .into(),
            "Commit or `git stash` first, or ask the user.",
        ),
        "update-ref" if has_flag(rest, "d", &[]) => deny(
            "guard:git-ref-delete",
            "deletes a ref, losing what only it points to (`git update-ref -d`)".into(),
            "Ask the user.",
        ),
        // `git worktree remove --force`: judged by what the work tree holds (see
        // `project::loses_work`).
        // `git filter-repo --analyze`, `--dry-run`: reports, rewriting nothing.
        "filter-repo"
            if rest
                .iter()
                .any(|a| matches!(a.as_str(), "--analyze" | "--dry-run" | "--help" | "-h")) =>
        {
            None
        }
        // `git grep -O'rm -f' x`: the program runs on every file that matches.
        "grep" if grep_pager(rest).is_some_and(|p| !viewer(&p)) => Some(Finding::ask(
            "guard:git-runs-program",
            format!(
                "runs `{}` on every file `git grep` finds (`--open-files-in-pager`)",
                grep_pager(rest).unwrap_or_default()
            ),
            "Run `git grep -l`, read the list, and name the files to the program.",
        )),
        "filter-branch" | "filter-repo" => deny(
            "guard:git-history-rewrite",
            format!("rewrites the whole history of the repository (`git {sub}`)"),
            "Ask the user.",
        ),
        "rm" if !before_dashes().any(|a| a == "--cached")
            && has_flag(rest, "r", &[])
            && whole_tree_pathspec(rest).is_some() =>
        {
            deny(
                "guard:git-discard",
                "deletes every tracked file of the working tree (`git rm -r .`)".into(),
                "Remove specific paths, or ask the user.",
            )
        }
        _ if !(sub == "clean" && has_flag(rest, "n", &["dry-run"]))
            && settings.iter().any(|(k, v)| weakening(k, v).is_some()) =>
        {
            let (key, value) = settings.iter().find(|(k, v)| weakening(k, v).is_some())?;
            deny(
                "guard:git-safety-off",
                format!(
                    "runs with `{key}={value}`, which {}",
                    weakening(key, value)?
                ),
                "Run it without switching git's safety off, or ask the user.",
            )
        }
        "reset" => before_dashes().any(|a| is_long(a, "hard")).then(|| {
            Finding::deny(
                "guard:git-reset-hard",
                "throws away uncommitted work (`git reset --hard`)".into(),
                "Use `git stash` or ask the user.",
            )
        }),
        "clean" => {
            // `git clean -fd build/`: only what is untracked under the paths named goes;
            // the whole tree (no pathspec, `.`, `:/`, `..`) is refused.
            let mut specs: Vec<String> = vec!["--".to_owned()];
            let mut k = 0;
            while let Some(a) = rest.get(k) {
                k += 1;
                if matches!(a.as_str(), "-e" | "--exclude") {
                    k += 1;
                } else if a == "--" {
                    specs.extend(rest[k..].iter().cloned());
                    break;
                } else if !a.starts_with('-') {
                    specs.push(a.clone());
                }
            }
            let named = specs.len() > 1 && whole_tree_pathspec(&specs).is_none();
            (has_flag(rest, "f", &["force"]) && !has_flag(rest, "n", &["dry-run"]) && !named).then(
                || {
                    Finding::deny(
                        "guard:git-clean-force",
                        "deletes untracked files for good (`git clean -f`)".into(),
                        "List them with `git clean -n` and ask the user.",
                    )
                },
            )
        }
        "checkout" | "restore" => {
            let staged_only = sub == "restore"
                && has_flag(rest, "S", &["staged"])
                && !has_flag(rest, "W", &["worktree"]);
            if staged_only {
                return None;
            }
            whole_tree_pathspec(rest).map(|pathspec| {
                Finding::deny(
                    "guard:git-discard",
                    format!(
                        "throws away every uncommitted change under `{pathspec}` (`git {sub}`)"
                    ),
                    "Restore specific files, or `git stash` and ask the user.",
                )
            })
        }
        // A ref moved or removed where the reflog may not keep what it pointed to.
        "update-ref" => Some(Finding::ask(
            "guard:git-ref-move",
            "moves a ref by hand (`git update-ref`), which can leave commits nothing points to"
                .into(),
            "Use `git branch`/`git reset`, or ask the user.",
        )),
        "branch"
            if has_flag(
                &before_dashes().cloned().collect::<Vec<_>>(),
                "fMC",
                &["force"],
            ) =>
        {
            Some(Finding::ask(
                "guard:git-ref-move",
                "moves or overwrites an existing branch (`git branch -f`/`-M`/`-C`), leaving \
                 its commits behind"
                    .into(),
                "Make a new branch, or ask the user.",
            ))
        }
        _ => None,
    }
}

/// `git checkout -- src/`, `git restore src`, `git restore '*.rs'`: the uncommitted
/// changes of every file in a folder (`is_dir` tells, from where git runs) or matching a
/// glob thrown away, when `changed` finds two or more such files there. Asked about: a
/// single file's are routine.
pub(super) fn discards_many(
    args: &[String],
    is_dir: &dyn Fn(&str) -> bool,
    changed: &dyn Fn(&str) -> usize,
) -> Option<Finding> {
    let i = verb_index(args);
    let sub = args.get(i)?.as_str();
    let rest = args.get(i + 1..).unwrap_or(&[]);
    // `git clean -fd src`: the untracked files of a folder, new work not yet added,
    // deleted for good. Folders of build output are routine.
    if sub == "clean" && has_flag(rest, "f", &["force"]) && !has_flag(rest, "n", &["dry-run"]) {
        let mut skip = false;
        let specs = rest.iter().filter(|a| {
            if std::mem::take(&mut skip) {
                return false;
            }
            if matches!(a.as_str(), "-e" | "--exclude") {
                skip = true;
            }
            !a.starts_with('-')
        });
        let kept = |p: &str| super::targets::remade(p) || super::targets::junk(p);
        return specs
            .map(String::as_str)
            .find(|p| !kept(p) && (p.ends_with('/') || is_dir(p) || p.contains('*')))
            .map(|p| {
                Finding::ask(
                    "guard:git-clean-force",
                    format!("deletes the untracked files under `{p}` for good (`git clean -f`)"),
                    "List them with `git clean -n` and ask the user.",
                )
            });
    }
    // `git checkout -f main`, `git switch --discard-changes x`: every uncommitted change
    // thrown away, when there is one.
    if matches!(sub, "checkout" | "switch")
        && !rest.iter().any(|a| a == "--")
        && (has_flag(rest, "f", &["force", "discard-changes"]))
        && changed(".") >= 1
    {
        return Some(Finding::ask(
            "guard:git-discard",
            format!("throws away every uncommitted change of the work tree (`git {sub} -f`)"),
            "Commit or stash the changes first, or ask the user.",
        ));
    }
    if !matches!(sub, "checkout" | "restore") {
        return None;
    }
    if sub == "restore" && has_flag(rest, "S", &["staged"]) && !has_flag(rest, "W", &["worktree"]) {
        return None;
    }
    let dashes = rest.iter().position(|a| a == "--");
    // Pathspecs: after `--`; for restore, every operand past its options' values; for
    // checkout without `--`, only what is a folder (a branch's name is no folder).
    let specs: Vec<&str> = if let Some(k) = dashes {
        rest[k + 1..].iter().map(String::as_str).collect()
    } else {
        let mut out = Vec::new();
        let mut skip = false;
        for a in rest {
            if std::mem::take(&mut skip) {
                continue;
            }
            if matches!(a.as_str(), "-s" | "--source" | "--pathspec-from-file") {
                skip = true;
            } else if !a.starts_with('-') {
                out.push(a.as_str());
            }
        }
        if sub == "checkout" {
            out.retain(|p| is_dir(p));
        }
        out
    };
    // Only where two or more files hold such changes: one is no more than restoring it
    // by name, which passes.
    let many = specs.iter().find(|p| {
        let several = p.contains(['*', '?', '['])
            || p.starts_with(":(glob)")
            || (p.ends_with('/') && p.len() > 1)
            || is_dir(p);
        several && changed(p) >= 2
    })?;
    Some(Finding::ask(
        "guard:git-discard",
        format!("throws away the uncommitted changes of every file under `{many}` (`git {sub}`)"),
        "Restore specific files, or `git stash` and ask the user.",
    ))
}

/// `git push --force`, `+ref`, `--delete`, `:ref`, `--mirror`, `--prune`.
fn push(rest: &[String]) -> Option<Finding> {
    let options: Vec<&String> = rest.iter().take_while(|a| *a != "--").collect();
    let refspecs = operands(rest);
    let advice = "Push without rewriting or deleting remote refs; if that is needed, ask the user.";
    let force = options
        .iter()
        .any(|a| is_long(a, "force") || short_cluster(a).is_some_and(|flags| flags.contains('f')))
        || refspecs.iter().any(|r| r.len() > 1 && r.starts_with('+'));
    if force {
        return Some(Finding::deny(
            "guard:git-push-force",
            "force-pushes, overwriting history on the remote".into(),
            advice,
        ));
    }
    // `--force-with-lease`, `--force-if-includes`: a force push that checks the remote
    // first, routine on a branch being worked on; of every branch at once (`--all`,
    // `--mirror`) it overwrites histories nobody looked at.
    let leased = options.iter().any(|a| {
        is_long(a, "force-with-lease")
            || a.starts_with("--force-with-lease=")
            || is_long(a, "force-if-includes")
    });
    let wholesale = options
        .iter()
        .any(|a| is_long(a, "all") || is_long(a, "mirror") || is_long(a, "branches"));
    if leased && wholesale {
        return Some(Finding::ask(
            "guard:git-push-force",
            "force-pushes every branch of the remote at once, overwriting histories nobody \
             looked at"
                .into(),
            advice,
        ));
    }
    let delete = options
        .iter()
        .any(|a| is_long(a, "delete") || short_cluster(a).is_some_and(|flags| flags.contains('d')))
        || refspecs.iter().any(|r| r.len() > 1 && r.starts_with(':'));
    if delete {
        return Some(Finding::deny(
            "guard:git-push-delete",
            "deletes refs on the remote".into(),
            advice,
        ));
    }
    let mirror = options
        .iter()
        .find(|a| is_long(a, "mirror") || is_long(a, "prune"))?;
    Some(Finding::deny(
        "guard:git-push-delete",
        format!("deletes remote refs missing locally (`{mirror}`)"),
        advice,
    ))
}

/// A pathspec naming the whole working tree (`.`, `:/`, `*`, `..`), among the operands of
/// `git checkout` / `git restore`.
fn whole_tree_pathspec(rest: &[String]) -> Option<&str> {
    let after_dashes = rest.iter().position(|a| a == "--");
    let candidates: Vec<&str> = match after_dashes {
        Some(k) => rest[k + 1..].iter().map(String::as_str).collect(),
        None => operands(rest),
    };
    candidates.into_iter().find(|spec| {
        matches!(
            *spec,
            ":/" | ":/*" | ":(top)" | ":(top)*" | ":(top)." | ":/."
        ) || dangerous_target(spec, Reach::Tree).is_some()
    })
}

/// What one of git's verbs writes besides the working tree it checks out: files and
/// folders named by options (`git diff --output=FILE`, `git archive -o FILE`) or by its
/// operands (`git bundle create FILE`, `git clone URL DIR`).
struct Output {
    verbs: &'static [&'static str],
    /// Options whose value is a file or folder written (`-o`, `--output`); a long one
    /// may be abbreviated and given as `--name=value`.
    options: &'static [&'static str],
    /// Other options that take a value as the next word, so the operands can be found.
    valued: &'static [&'static str],
    /// The word that leads to the operands (`create` of `git bundle create`).
    lead: Option<&'static str>,
    /// Which operand (from 0, after `lead`) is written.
    operand: Option<usize>,
    /// Options that send the output to standard output instead of the operand.
    stdout: &'static [&'static str],
}

/// Options of the diff and log family that take a value as the next word.
const DIFF_VALUED: &[&str] = &[
    "-G",
    "-S",
    "-L",
    "-n",
    "--max-count",
    "--skip",
    "--author",
    "--committer",
    "--grep",
    "--since",
    "--until",
    "--output-indicator-new",
    "--output-indicator-old",
    "--output-indicator-context",
];

/// Each git verb that writes files by its options or operands.
const OUTPUTS: &[Output] = &[
    Output {
        verbs: &[
            "diff",
            "diff-files",
            "diff-index",
            "diff-tree",
            "log",
            "show",
            "whatchanged",
            "range-diff",
            "stash",
        ],
        options: &["--output"],
        valued: DIFF_VALUED,
        lead: None,
        operand: None,
        stdout: &[],
    },
    Output {
        verbs: &["format-patch"],
        options: &["-o", "--output-directory", "--output"],
        valued: DIFF_VALUED,
        lead: None,
        operand: None,
        stdout: &[],
    },
    Output {
        verbs: &["archive", "bugreport", "diagnose", "index-pack"],
        options: &["-o", "--output", "--output-directory"],
        valued: &[
            "--format", "--prefix", "--remote", "--exec", "-s", "--suffix",
        ],
        lead: None,
        operand: None,
        stdout: &[],
    },
    Output {
        verbs: &["fast-export", "fast-import"],
        options: &["--export-marks", "--export-pack-edges"],
        valued: &[],
        lead: None,
        operand: None,
        stdout: &[],
    },
    Output {
        // `git credential-store --file=F store`: the credentials file it writes.
        verbs: &["credential-store"],
        options: &["--file"],
        valued: &[],
        lead: None,
        operand: None,
        stdout: &[],
    },
    Output {
        verbs: &["bundle"],
        options: &[],
        valued: &["--version"],
        lead: Some("create"),
        operand: Some(0),
        stdout: &[],
    },
    Output {
        verbs: &["merge-file"],
        options: &[],
        valued: &["-L", "--diff-algorithm"],
        lead: None,
        operand: Some(0),
        stdout: &["-p", "--stdout", "--object-id"],
    },
    Output {
        verbs: &["pack-objects"],
        options: &[],
        valued: &[
            "--window",
            "--depth",
            "--threads",
            "--filter",
            "--max-pack-size",
        ],
        lead: None,
        operand: Some(0),
        stdout: &["--stdout"],
    },
    Output {
        verbs: &["checkout-index"],
        options: &["--prefix"],
        valued: &["--stage"],
        lead: None,
        operand: None,
        stdout: &["--temp"],
    },
    Output {
        verbs: &["worktree"],
        options: &[],
        valued: &["-b", "-B", "--reason"],
        lead: Some("add"),
        operand: Some(0),
        stdout: &[],
    },
    Output {
        verbs: &["init"],
        options: &["--separate-git-dir"],
        valued: &[
            "--template",
            "--object-format",
            "--ref-format",
            "-b",
            "--initial-branch",
        ],
        lead: None,
        operand: Some(0),
        stdout: &[],
    },
    Output {
        verbs: &["clone"],
        options: &["--separate-git-dir"],
        valued: &[
            "-o",
            "--origin",
            "-b",
            "--branch",
            "-u",
            "--upload-pack",
            "--reference",
            "--reference-if-able",
            "--depth",
            "--shallow-since",
            "--shallow-exclude",
            "-c",
            "--config",
            "--template",
            "--filter",
            "--server-option",
            "--bundle-uri",
            "--ref-format",
            "-j",
            "--jobs",
        ],
        lead: None,
        operand: Some(1),
        stdout: &[],
    },
    Output {
        verbs: &["submodule"],
        options: &[],
        valued: &["-b", "--branch", "--name", "--reference", "--depth"],
        lead: Some("add"),
        operand: Some(1),
        stdout: &[],
    },
];

/// The value `arg` gives to one of `names` (a short `-o` as `-o` + next word or `-oVALUE`,
/// a long one abbreviated or not, as `--name=value` or `--name` + next word), and whether
/// the next word was taken.
fn option_value<'a>(
    arg: &'a str,
    next: Option<&'a str>,
    names: &[&str],
) -> Option<(&'a str, bool)> {
    for name in names {
        if let Some(long) = name.strip_prefix("--") {
            if !is_long(arg, long) || arg.len() < 4 {
                continue;
            }
            return match arg.split_once('=') {
                Some((_, v)) => Some((v, false)),
                None => next.map(|n| (n, true)),
            };
        }
        if arg == *name {
            return next.map(|n| (n, true));
        }
        if let Some(v) = arg
            .strip_prefix(name)
            .filter(|v| !v.is_empty() && !name.is_empty())
        {
            return Some((v, false));
        }
    }
    None
}

/// Files and folders `git <args>` writes by its options and operands (see [`OUTPUTS`]),
/// as named on the line, relative to where the verb runs (after `-C`). `git config
/// -f FILE` writes FILE when it sets or removes a key, counted when `config` is set (a
/// configuration file is judged by what it holds elsewhere).
pub(super) fn git_writes(args: &[String], config: bool) -> Vec<String> {
    let i = verb_index(args);
    let Some(sub) = args.get(i).map(String::as_str) else {
        return Vec::new();
    };
    let rest = &args[i + 1..];
    if sub == "config" {
        return config_file_written(rest)
            .into_iter()
            .filter(|_| config)
            .collect();
    }
    let Some(table) = OUTPUTS.iter().find(|o| o.verbs.contains(&sub)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut operands = Vec::new();
    let mut to_stdout = false;
    let mut options_done = false;
    let mut k = 0;
    while let Some(arg) = rest.get(k) {
        let next = rest.get(k + 1).map(String::as_str);
        k += 1;
        if options_done || !arg.starts_with('-') || arg == "-" {
            operands.push(arg.as_str());
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        if let Some((value, took)) = option_value(arg, next, table.options) {
            out.push(value.to_owned());
            k += usize::from(took);
            continue;
        }
        if table
            .stdout
            .iter()
            .any(|s| arg == s || (s.starts_with("--") && is_long(arg, &s[2..]) && arg.len() > 3))
        {
            to_stdout = true;
            continue;
        }
        if !arg.contains('=') && table.valued.contains(&arg.as_str()) {
            k += 1;
        }
    }
    let operands = match table.lead {
        Some(lead) => match operands.split_first() {
            Some((first, more)) if *first == lead => more.to_vec(),
            _ => Vec::new(),
        },
        None => operands,
    };
    if let Some(n) = table.operand
        && !to_stdout
        && let Some(target) = operands.get(n)
    {
        out.push((*target).to_owned());
    }
    // `git init` makes a repository of the folder it runs in.
    if sub == "init" && operands.is_empty() {
        out.push(".".to_owned());
    }
    out
}

/// The file `git config -f FILE …` (or `--file`) writes: only when it sets, adds,
/// renames or removes, not when it reads.
fn config_file_written(rest: &[String]) -> Option<String> {
    let mut file = None;
    let mut words = 0;
    let mut k = 0;
    let mut changes = false;
    while let Some(arg) = rest.get(k) {
        let next = rest.get(k + 1).map(String::as_str);
        k += 1;
        if let Some((value, took)) = option_value(arg, next, &["-f", "--file"]) {
            file = Some(value.to_owned());
            k += usize::from(took);
            continue;
        }
        match arg.as_str() {
            "--get" | "--get-all" | "--get-regexp" | "--get-urlmatch" | "--get-color"
            | "--get-colorbool" | "-l" | "--list" | "get" | "list" | "--show-origin"
            | "--show-scope" | "--name-only" | "-e" | "--edit" | "edit"
                if words == 0 =>
            {
                // Reading, or an editor the user drives.
                return None;
            }
            "--unset" | "--unset-all" | "--add" | "--replace-all" | "--rename-section"
            | "--remove-section" | "set" | "unset" | "rename-section" | "remove-section" => {
                changes = true;
            }
            "--type" | "--default" | "--comment" | "--blob" | "--value" => k += 1,
            a if a.starts_with('-') => {}
            _ => words += 1,
        }
    }
    let file = file?;
    (changes || words >= 2).then_some(file)
}

/// What a git URL that is no remote of git's own does.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Transport {
    /// `ext::cmd args` runs a command line (`% ` a space, `%%` a percent sign).
    Runs(String),
    /// `fd::N` talks to a file descriptor the shell opened.
    OpenFile,
}

/// Whether a git URL runs a command or hands git an open file.
pub(super) fn transport_command(url: &str) -> Option<Transport> {
    if url.starts_with("fd::") {
        return Some(Transport::OpenFile);
    }
    let spec = url.strip_prefix("ext::")?;
    let mut words: Vec<String> = vec![String::new()];
    let mut chars = spec.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' => match chars.next() {
                Some(' ') => words.last_mut()?.push(' '),
                Some('%') => words.last_mut()?.push('%'),
                // `%s`, `%S`, `%G`, `%V`: filled in by git with the service and the like.
                Some(other) => {
                    words.last_mut()?.push('x');
                    let _ = other;
                }
                None => {}
            },
            ' ' => {
                if !words.last()?.is_empty() {
                    words.push(String::new());
                }
            }
            c => words.last_mut()?.push(c),
        }
    }
    let words: Vec<String> = words
        .into_iter()
        .filter(|w| !w.is_empty())
        .map(|w| super::shell::shell_quote(&w))
        .collect();
    Some(Transport::Runs(words.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writes(line: &str) -> Vec<String> {
        let args: Vec<String> = line.split_whitespace().skip(1).map(String::from).collect();
        git_writes(&args, true)
    }

    #[test]
    fn each_verb_writes_what_its_options_and_operands_name() {
        for (line, written) in [
            ("git diff --output=o.patch HEAD", "o.patch"),
            ("git diff --out o.patch", "o.patch"),
            ("git log -p --output x.txt", "x.txt"),
            ("git show --output=s HEAD", "s"),
            ("git format-patch -o dir -3", "dir"),
            ("git format-patch -odir HEAD~1", "dir"),
            ("git format-patch --output-directory=d HEAD~1", "d"),
            ("git archive --format=tar -o a.tar HEAD", "a.tar"),
            ("git archive --output a.zip HEAD", "a.zip"),
            ("git bundle create b.bundle HEAD", "b.bundle"),
            ("git bundle create --version=3 b.bundle --all", "b.bundle"),
            ("git merge-file -L a -L b -L c mine base theirs", "mine"),
            ("git checkout-index --prefix=out/ -a", "out/"),
            ("git worktree add -b topic ../wt", "../wt"),
            ("git init --template t repo", "repo"),
            ("git init --separate-git-dir=g", "g ."),
            ("git init -q", "."),
            ("git clone --depth 1 https://h/r dest", "dest"),
            ("git submodule add https://h/r lib/r", "lib/r"),
            ("git -C sub -c a.b=c diff --output=x", "x"),
            ("git config -f f.cfg a.b c", "f.cfg"),
            ("git config --file=f.cfg --unset a.b", "f.cfg"),
            ("git fast-export --export-marks=m --all", "m"),
        ] {
            let written: Vec<String> = written.split(' ').map(str::to_owned).collect();
            assert_eq!(writes(line), written, "{line}");
        }
        for line in [
            "git diff HEAD~1",
            "git log --grep --output HEAD",
            "git merge-file -p mine base theirs",
            "git clone https://h/r",
            "git worktree list",
            "git bundle verify b.bundle",
            "git config -f .gitmodules --get submodule.x.url",
            "git config -f f.cfg a.b",
            "git config --file f.cfg --list",
            "git status",
        ] {
            assert_eq!(writes(line), Vec::<String>::new(), "{line}");
        }
        // `git config -f` is counted only when asked for.
        let args: Vec<String> = ["config", "-f", "f", "a.b", "c"].map(String::from).to_vec();
        assert!(git_writes(&args, false).is_empty());
    }

    #[test]
    fn transports_that_run_commands() {
        assert_eq!(
            transport_command("ext::sh -c rm% -rf% .claude-nagger"),
            Some(Transport::Runs(
                "'sh' '-c' 'rm -rf .claude-nagger'".to_owned()
            ))
        );
        assert_eq!(
            transport_command("ext::git-remote-x %s a%%b"),
            Some(Transport::Runs("'git-remote-x' 'x' 'a%b'".to_owned()))
        );
        assert_eq!(transport_command("fd::3"), Some(Transport::OpenFile));
        assert_eq!(transport_command("https://example.com/r.git"), None);
        assert_eq!(transport_command("origin"), None);
    }
}
