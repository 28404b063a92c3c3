//! Second names. A symbolic link makes one path another's: `ln -s / root` lets a later
//! `rm -rf root/*` delete everything without ever naming `/`. Two checks close that:
//! making such a link to the root, a home, a top-level system folder or a folder holding
//! the project is asked about; and what a destructive command is given is also judged as
//! the path it reaches on disk, past every link (looked up only for those commands, and
//! only for their operands).

use std::path::{Path, PathBuf};

use super::finding::{Finding, operands};
use super::paths::normalize;
use super::protect::Cwd;
use super::shell::{SimpleCommand, has_flag};
use super::targets::whole_tree;
use super::verdict::Severity;

/// Most operands of one command looked up on disk.
const MAX_LOOKUPS: usize = 16;

/// `ln -s / root`, `ln -s .. up`, `ln -sf "$PWD" mirror`, `cp -s`: a link to the root, a
/// home, a top-level system folder, or the project or a folder holding it.
pub(super) fn link_to_whole(command: &SimpleCommand, cwd: &Cwd, root: &Path) -> Option<Finding> {
    let args = command.args();
    let symbolic = match command.name() {
        "ln" | "gln" => has_flag(args, "s", &["symbolic"]),
        "cp" | "gcp" => has_flag(args, "s", &["symbolic-link"]),
        _ => false,
    };
    if !symbolic {
        return None;
    }
    let ops = operands(args);
    let into_dir = has_flag(args, "t", &["target-directory"]);
    let targets: &[&str] = if into_dir || ops.len() < 2 {
        &ops
    } else {
        &ops[..ops.len() - 1]
    };
    let (target, what) = targets.iter().find_map(|t| {
        if let Some(what) = whole_tree(t) {
            return Some((*t, what));
        }
        let spelled = here_spelled(t, root);
        let full = on_disk(spelled.as_deref().unwrap_or(t), cwd, root)?;
        let project = Path::new(&normalize(&root.to_string_lossy())).to_path_buf();
        (project.starts_with(&full)).then(|| {
            let what = if full == project {
                "the project".to_owned()
            } else {
                format!("`{}`, which holds the project", full.display())
            };
            (*t, what)
        })
    })?;
    Some(Finding::ask(
        "guard:link-to-whole",
        format!(
            "makes a second name for {what} (`{target}`), through which later commands reach \
             it without naming it"
        ),
        "Name the folder you mean in each command instead, or ask the user.",
    ))
}

/// `$PWD/x`, `"$(pwd)"`, `$CLAUDE_PROJECT_DIR`: the folder the command runs in, or the
/// project root, spelled through the shell; the same path written plainly.
fn here_spelled(word: &str, root: &Path) -> Option<String> {
    for here in ["$PWD", "${PWD}", "$(pwd)", "`pwd`"] {
        if let Some(rest) = word.strip_prefix(here)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return Some(format!(".{rest}"));
        }
    }
    for project in ["$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}"] {
        if let Some(rest) = word.strip_prefix(project)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return Some(format!("{}{rest}", root.display()));
        }
    }
    None
}

/// A destructive command with each operand made the path it reaches on disk, when a
/// symbolic link on the way makes that another path (`rm -rf root/*` with `root` a link
/// to `/` is `rm -rf /*`); `None` when no operand goes through a link.
pub(super) fn past_links_command(
    command: &SimpleCommand,
    cwd: &Cwd,
    root: &Path,
) -> Option<SimpleCommand> {
    let destructive = matches!(
        command.name(),
        "rm" | "rmdir"
            | "find"
            | "rsync"
            | "mv"
            | "chmod"
            | "chown"
            | "chgrp"
            | "shred"
            | "unlink"
            | "truncate"
            | "srm"
            | "trash"
            | "trash-put"
    );
    if !destructive {
        return None;
    }
    let mut changed = false;
    let mut lookups = 0;
    let mut argv = command.argv.clone();
    let mut options_done = false;
    for word in argv.iter_mut().skip(1) {
        if !options_done && word == "--" {
            options_done = true;
            continue;
        }
        if (!options_done && word.starts_with('-'))
            || word.contains(['$', '`'])
            || word.starts_with('~')
            || lookups >= MAX_LOOKUPS
        {
            continue;
        }
        lookups += 1;
        if let Some(real) = past_links(word, cwd, root) {
            *word = real;
            changed = true;
        }
    }
    changed.then(|| SimpleCommand {
        argv,
        ..command.clone()
    })
}

/// What of `findings` on a command rewritten by [`past_links_command`] is refused, told
/// as reaching there through links.
pub(super) fn through_links(rewritten: &SimpleCommand, findings: Vec<Finding>) -> Vec<Finding> {
    findings
        .into_iter()
        .filter(|f| f.severity == Severity::Deny)
        .map(|f| Finding {
            harm: format!(
                "{} (as `{}` reaches on disk, past its symbolic links)",
                f.harm,
                rewritten.display()
            ),
            ..f
        })
        .collect()
}

/// `word` as the path it names on disk when a symbolic link on the way makes it another
/// path: the link's folder resolved, a trailing wildcard part kept (`root/*` → `/*`).
fn past_links(word: &str, cwd: &Cwd, root: &Path) -> Option<String> {
    let trimmed = word.trim_end_matches('/');
    let (folder, tail) = match trimmed.rsplit_once('/') {
        Some((dir, last)) if last.contains(['*', '?', '[']) => (dir, Some(last)),
        _ if trimmed.contains(['*', '?', '[']) => return None,
        _ => (trimmed, None),
    };
    if folder.contains(['*', '?', '[']) {
        return None;
    }
    let folder = if folder.is_empty() && word.starts_with('/') {
        "/"
    } else {
        folder
    };
    let lexical = on_disk(folder, cwd, root)?;
    let real = std::fs::canonicalize(&lexical).ok()?;
    if real == lexical {
        return None;
    }
    let real = real.to_string_lossy().into_owned();
    Some(match tail {
        Some(tail) if real == "/" => format!("/{tail}"),
        Some(tail) => format!("{real}/{tail}"),
        None => real,
    })
}

/// `path` as an absolute, lexically normalised path: from the folder the command runs
/// in when relative. `None` when that folder is only known when the shell runs.
fn on_disk(path: &str, cwd: &Cwd, root: &Path) -> Option<PathBuf> {
    if path.starts_with(['~', '$']) {
        return None;
    }
    let full = if path.starts_with('/') {
        path.to_owned()
    } else {
        let Cwd::Known(dir) = cwd else {
            return None;
        };
        let base = if dir.starts_with('/') {
            PathBuf::from(dir)
        } else {
            root.join(dir)
        };
        base.join(path).to_string_lossy().into_owned()
    };
    Some(PathBuf::from(normalize(&full)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::guard::shell::parse;

    fn command(line: &str) -> SimpleCommand {
        parse(line).commands.into_iter().next().expect("a command")
    }

    #[test]
    fn links_to_the_root_a_home_or_the_project_are_asked_about() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("proj");
        std::fs::create_dir_all(root.join("src")).expect("mkdir");
        let here = Cwd::Known(String::new());
        for line in [
            "ln -s / root",
            "ln -sf ~ home",
            "ln -s .. up",
            "ln -s . self",
            "ln -s \"$PWD\" mirror",
            "ln -s $CLAUDE_PROJECT_DIR/.. above",
            "ln --symbolic /usr u",
            "cp -s -r /etc e",
        ] {
            let c = command(line);
            assert!(link_to_whole(&c, &here, &root).is_some(), "{line}");
        }
        let src = Cwd::Known("src".into());
        assert!(link_to_whole(&command("ln -s ../.. up"), &src, &root).is_some());
        for line in [
            "ln -s ../shared/lib lib",
            "ln -s src/main.rs main.rs",
            "ln / x",
            "ln -s /tmp/x t",
        ] {
            let c = command(line);
            assert!(link_to_whole(&c, &here, &root).is_none(), "{line}");
        }
    }

    #[test]
    fn a_deletion_through_a_link_is_judged_where_it_lands() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("proj");
        std::fs::create_dir_all(root.join("build")).expect("mkdir");
        std::os::unix::fs::symlink("/", root.join("sys")).expect("link");
        std::os::unix::fs::symlink("build", root.join("out")).expect("link");
        let here = Cwd::Known(String::new());
        let refused = |line: &str| {
            past_links_command(&command(line), &here, &root).is_some_and(|rw| {
                let findings = crate::domain::guard::checks::command_findings(&rw, &[], None);
                !through_links(&rw, findings).is_empty()
            })
        };
        for line in ["rm -rf sys/*", "rm -rf sys/", "rm -r sys/."] {
            assert!(refused(line), "{line}");
        }
        for line in [
            "rm -rf out/*",
            "rm -rf build",
            "rm -rf sys/tmp/x",
            "ls sys/",
        ] {
            assert!(!refused(line), "{line}");
        }
    }
}
