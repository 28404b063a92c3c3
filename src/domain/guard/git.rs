//! The guard's git checks: history overwritten or deleted on the remote, uncommitted work
//! thrown away. Options are read as git reads them, abbreviations included.

use super::finding::{Finding, operands};
use super::shell::{has_flag, is_long, short_cluster};
use super::targets::{Reach, dangerous_target};

/// git's global options that take a value as the next word.
const GLOBAL_WITH_VALUE: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--exec-path",
    "--super-prefix",
];

/// The dangerous effect of `git <args>`, if any.
pub(super) fn git_danger(args: &[String]) -> Option<Finding> {
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
    let sub = args.get(i)?.as_str();
    let rest = args.get(i + 1..).unwrap_or(&[]);
    let before_dashes = || rest.iter().take_while(|a| *a != "--");
    match sub {
        "push" => push(rest),
        "reset" => before_dashes().any(|a| is_long(a, "hard")).then(|| {
            Finding::deny(
                "guard:git-reset-hard",
                "throws away uncommitted work (`git reset --hard`)".into(),
                "Use `git stash` or ask the user.",
            )
        }),
        "clean" => {
            (has_flag(rest, "f", &["force"]) && !has_flag(rest, "n", &["dry-run"])).then(|| {
                Finding::deny(
                    "guard:git-clean-force",
                    "deletes untracked files for good (`git clean -f`)".into(),
                    "List them with `git clean -n` and ask the user.",
                )
            })
        }
        "checkout" | "restore" => {
            let staged_only = sub == "restore"
                && has_flag(rest, "S", &["staged"])
                && !has_flag(rest, "W", &["worktree"]);
            let pathspec = whole_tree_pathspec(rest)?;
            (!staged_only).then(|| {
                Finding::deny(
                    "guard:git-discard",
                    format!(
                        "throws away every uncommitted change under `{pathspec}` (`git {sub}`)"
                    ),
                    "Restore specific files, or `git stash` and ask the user.",
                )
            })
        }
        _ => None,
    }
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
