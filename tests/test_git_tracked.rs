//! git commands that put other versions of tracked files in place, through the real
//! binary in a project that is a git repository: asked about when the repository tracks
//! Claude Code's settings, naming the file; everyday git use unchanged in a repository
//! that tracks none of them or only nagger's config (every git line of
//! tests/fixtures/guard/everyday.txt passes there, and in one that tracks them, all but
//! those that replace tracked files).

use crate::common::{Project, git};
use nagger::base::decision::Decision;
use nagger::domain::guard::GuardConfig;
use nagger::domain::rules::{self, RulesConfig, ToolCall};
use serde_json::json;
use std::path::Path;

const EVERYDAY: &str = include_str!("fixtures/guard/everyday.txt");

/// A project that is a repository with `files` committed.
fn repository(files: &[&str]) -> Project {
    let p = Project::new();
    git(&p.root, &["init", "-q", "-b", "main"]);
    for file in files {
        let path = p.root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{}\n").unwrap();
        git(&p.root, &["add", file]);
    }
    git(&p.root, &["commit", "-qm", "start"]);
    p
}

/// The git lines of the everyday corpus.
fn everyday_git_lines() -> Vec<&'static str> {
    EVERYDAY
        .lines()
        .filter(|l| !l.starts_with("#:") && !l.starts_with('@'))
        .filter(|l| l.starts_with("git ") || l.contains("&& git ") || l.contains("; git "))
        .collect()
}

/// The guard's answer to `command` in the project at `root`, as the hook decides it
/// without a database.
fn answer(root: &Path, command: &str) -> Option<Decision> {
    let (rules, guard) = (RulesConfig::default(), GuardConfig::default());
    let input = json!({ "command": command });
    let call = ToolCall {
        tool_name: "Bash",
        tool_input: &input,
    };
    let matches = rules::decide_without_state(&rules, &guard, &call, root);
    rules::combine(&matches, &nagger::base::mode::PermissionMode::Default).map(|v| v.decision)
}

#[test]
fn git_commands_replacing_tracked_settings_are_asked_about_by_the_binary() {
    let p = repository(&[".claude/settings.json", "src/main.rs"]);
    for command in [
        "git checkout other-branch",
        "git switch x",
        "git rebase --onto x HEAD~2",
        "git cherry-pick x",
        "git revert HEAD",
        "git stash pop",
        "git stash apply",
        "git reset --merge HEAD~1",
        "git reset --keep HEAD~1",
        "git read-tree -u -m HEAD~1",
        "git checkout-index -a -f",
        "git restore .",
        "cd src && git restore ..",
    ] {
        let r = p.run(&["check", "--command", command]);
        // Asked about, or refused when another check refuses it outright.
        assert!(matches!(r.code, 3 | 4), "{command}: {r:?}");
        assert!(
            r.stdout.contains("`.claude/settings.json`"),
            "{command}: {r:?}"
        );
    }
    for command in [
        "git checkout -b x",
        "git switch -c x",
        "git restore src/main.rs",
        "cd src && git checkout main.rs",
        "git status",
        "git pull",
        "git merge x",
        "git rebase x",
    ] {
        let r = p.run(&["check", "--command", command]);
        assert_eq!(r.code, 0, "{command}: {r:?}");
    }
}

#[test]
fn everyday_git_use_is_unchanged_in_a_repository_that_tracks_none_of_naggers_files() {
    let lines = everyday_git_lines();
    assert!(lines.len() >= 50, "only {} git lines", lines.len());
    let p = repository(&["src/main.rs", ".claude/agents/a.md", "README.md"]);
    let stopped: Vec<String> = lines
        .iter()
        .filter_map(|l| answer(&p.root, l).map(|d| format!("{l:?}: {d:?}")))
        .collect();
    assert!(stopped.is_empty(), "{stopped:#?}");
    // Where only the config is tracked, nothing asks either: a version of it that
    // weakens the guard waits for the user's confirmation, whoever put it there.
    let config_only = repository(&[
        ".claude-nagger/config.toml",
        ".claude-nagger/.gitignore",
        "src/main.rs",
    ]);
    let stopped: Vec<String> = lines
        .iter()
        .filter_map(|l| answer(&config_only.root, l).map(|d| format!("{l:?}: {d:?}")))
        .collect();
    assert!(stopped.is_empty(), "{stopped:#?}");
    // Where the settings with the hook entries are tracked, only the lines that replace
    // tracked files ask.
    let tracked = repository(&[".claude/settings.json", "src/main.rs"]);
    let asked: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| answer(&tracked.root, l).is_some())
        .collect();
    assert!(!asked.is_empty());
    for line in &asked {
        assert_eq!(
            answer(&tracked.root, line),
            Some(Decision::Ask),
            "{line}: only asked"
        );
        assert!(
            [
                "checkout",
                "switch",
                "pull",
                "merge",
                "rebase",
                "stash",
                "reset",
                "restore",
                "cherry-pick",
                "revert",
                "am",
                "bisect",
                "read-tree",
                "checkout-index",
                "sparse-checkout",
                "rm"
            ]
            .iter()
            .any(|verb| line.contains(&format!("git {verb}"))),
            "{line}"
        );
    }
    eprintln!(
        "{} of {} everyday git lines ask where the settings are tracked, none where nothing \
         or only the config is",
        asked.len(),
        lines.len()
    );
}

#[test]
fn a_settings_file_touched_or_saved_with_the_same_bytes_counts_as_unchanged() {
    let p = repository(&[".claude/settings.json", "src/main.rs"]);
    std::fs::write(p.root.join("src/main.rs"), "fn main() {}\n").unwrap();
    assert_eq!(answer(&p.root, "git stash"), None);
    // Saved again with the same bytes: the stat data git keeps no longer match, the
    // content does, as `git status` tells.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(p.root.join(".claude/settings.json"), "{}\n").unwrap();
    assert_eq!(answer(&p.root, "git stash"), None);
    // Other bytes: the stash takes the local change away and asks.
    std::fs::write(p.root.join(".claude/settings.json"), "{\"x\": 1}\n").unwrap();
    assert_eq!(answer(&p.root, "git stash"), Some(Decision::Ask));
}

#[test]
fn stashing_untracked_files_asks_only_where_it_takes_one_of_naggers() {
    let p = repository(&[".claude-nagger/config.toml", "src/main.rs"]);
    let write = |path: &str, text: &str| {
        let full = p.root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    };
    write(
        ".claude-nagger/.gitignore",
        "state.db\nstate.db-*\ntrusted.json\n",
    );
    git(&p.root, &["add", ".claude-nagger/.gitignore"]);
    git(&p.root, &["commit", "-qm", "ignore"]);
    write(".claude-nagger/state.db", "");
    write(".claude-nagger/state.db-wal", "");
    write(".claude-nagger/trusted.json", "{}");
    write("scratch.txt", "x");
    // Ignored files stay where they are with `-u`.
    assert_eq!(answer(&p.root, "git stash -u"), None);
    assert_eq!(answer(&p.root, "git stash push --include-untracked"), None);
    // `-a` takes ignored files too.
    assert_eq!(answer(&p.root, "git stash -a"), Some(Decision::Ask));
    // Claude Code's local settings, untracked and not ignored, go with `-u`.
    write(".claude/settings.local.json", "{}");
    assert_eq!(answer(&p.root, "git stash -u"), Some(Decision::Ask));
    write(".gitignore", ".claude/settings.local.json\n");
    assert_eq!(answer(&p.root, "git stash -u"), None);
    write(".gitignore", "settings.local.json\n!settings.local.json\n");
    assert_eq!(answer(&p.root, "git stash -u"), Some(Decision::Ask));
}

#[test]
fn popping_the_stash_the_same_line_made_passes_where_no_other_stash_is_kept() {
    let p = repository(&[".claude/settings.json", "src/main.rs"]);
    std::fs::write(p.root.join("src/main.rs"), "fn main() { }\n").unwrap();
    assert_eq!(
        answer(&p.root, "git stash && make test && git stash pop"),
        None
    );
    assert_eq!(
        answer(&p.root, "git stash push -m wip; git stash apply"),
        None
    );
    // Alone, or for an older entry, it is judged by the entry.
    assert_eq!(answer(&p.root, "git stash pop"), Some(Decision::Ask));
    assert_eq!(
        answer(&p.root, "git stash && git stash pop stash@{1}"),
        Some(Decision::Ask)
    );
    // A stash kept already that changes the settings: a line whose own stash takes
    // nothing would pop that one.
    std::fs::write(p.root.join(".claude/settings.json"), "{\"x\": 1}\n").unwrap();
    git(&p.root, &["stash"]);
    assert_eq!(
        answer(&p.root, "git stash && git stash pop"),
        Some(Decision::Ask)
    );
}

#[test]
fn history_pulled_or_fetched_from_a_repository_on_this_machine_is_read_before_it_is_joined() {
    let p = repository(&[".claude/settings.json", "src/main.rs"]);
    let far = tempfile::tempdir().unwrap();
    let up = far.path().join("up");
    let up_s = up.to_str().unwrap().to_owned();
    git(far.path(), &["clone", "-q", p.root.to_str().unwrap(), "up"]);
    // A change of the code only: joining it passes.
    std::fs::write(up.join("src/main.rs"), "fn main() { }\n").unwrap();
    git(&up, &["commit", "-qam", "code"]);
    let lines = |url: &str| {
        vec![
            format!("git pull {url} main"),
            format!("git pull --rebase -q file://{url} main"),
            format!("git pull {url}"),
            format!("git fetch -q {url} main && git merge FETCH_HEAD"),
            format!("git fetch {url} main:up && git merge up"),
            format!("git remote add o {url} && git fetch o && git merge o/main"),
        ]
    };
    for line in lines(&up_s) {
        assert_eq!(answer(&p.root, &line), None, "{line}");
    }
    // One that empties the settings: every way of joining it is asked about.
    std::fs::write(up.join(".claude/settings.json"), "{\"x\": 1}\n").unwrap();
    git(&up, &["commit", "-qam", "tidy"]);
    for line in lines(&up_s) {
        assert_eq!(answer(&p.root, &line), Some(Decision::Ask), "{line}");
    }
    // The upstream of the branch, fetched already or fetched by the pull.
    git(&p.root, &["remote", "add", "origin", &up_s]);
    git(&p.root, &["fetch", "-q", "origin"]);
    git(&p.root, &["branch", "-q", "-u", "origin/main"]);
    for line in ["git pull", "git merge", "git rebase", "git merge @{u}"] {
        assert_eq!(answer(&p.root, line), Some(Decision::Ask), "{line}");
    }
    // A remote reached over the network is not read before it is fetched.
    assert_eq!(
        answer(&p.root, "git pull https://example.com/x.git main"),
        None
    );
    // Ways of letting another repository move the branch the work tree is on.
    for line in [
        "git config receive.denyCurrentBranch updateInstead",
        "git fetch --update-head-ok origin main:main",
    ] {
        assert_eq!(answer(&p.root, line), Some(Decision::Ask), "{line}");
    }
}

/// Deleting many files at once inside the project passes while git keeps them all as
/// they are (they come back with `git checkout`), and asks once one of them holds changes
/// no commit has: in a folder, under a glob, among several names.
#[test]
fn mass_deletions_ask_only_when_they_take_uncommitted_work() {
    let p = repository(&["src/a.rs", "src/sub/b.rs", "tests/t.rs", "README.md"]);
    let lines = [
        "rm -rf src",
        "rm -r src/sub",
        "find src -delete",
        "rm src/sub/*.rs",
        "rm -rf src/* tests",
        "truncate -s 0 src/a.rs src/sub/b.rs",
    ];
    for line in lines {
        let r = p.run(&["check", "--command", line]);
        assert_eq!(r.code, 0, "clean: {line}: {r:?}");
    }
    std::fs::write(p.root.join("src/sub/b.rs"), "fn work() {}\n").expect("edit");
    for line in lines {
        let r = p.run(&["check", "--command", line]);
        assert_eq!(r.code, 4, "changed: {line}: {r:?}");
        assert!(r.stdout.contains("src/sub/b.rs"), "{line}: {r:?}");
    }
    // A folder restored: one changed file in it is no more than restoring that file.
    for line in [
        "git restore src",
        "git checkout -- src/sub/",
        "git restore 'src/**/*.rs'",
    ] {
        let r = p.run(&["check", "--command", line]);
        assert_eq!(r.code, 0, "one changed: {line}: {r:?}");
    }
    std::fs::write(p.root.join("src/a.rs"), "fn more() {}\n").expect("edit");
    for line in [
        "git restore src",
        "git checkout -- src/",
        "git restore 'src/**/*.rs'",
    ] {
        let r = p.run(&["check", "--command", line]);
        assert_eq!(r.code, 4, "two changed: {line}: {r:?}");
    }
    for line in [
        "git restore src/a.rs",
        "rm -rf tests",
        "rm src/sub/b.rs",
        "rm src/sub/*.md",
        "rm -rf target build",
    ] {
        let r = p.run(&["check", "--command", line]);
        assert_eq!(r.code, 0, "{line}: {r:?}");
    }
}

#[test]
fn an_interactive_rebase_asks_only_where_its_commits_or_upstream_change_the_settings() {
    let p = repository(&[".claude/settings.json", "src/main.rs"]);
    git(&p.root, &["branch", "base"]);
    std::fs::write(p.root.join("src/main.rs"), "fn main() { }\n").unwrap();
    git(&p.root, &["commit", "-qam", "work"]);
    // Rewriting the branch's own commits, none of which touches the settings.
    assert_eq!(answer(&p.root, "git rebase -i base"), None);
    assert_eq!(answer(&p.root, "git rebase -i --autosquash base"), None);
    // A commit since the upstream changes the settings: dropping it changes them.
    std::fs::write(p.root.join(".claude/settings.json"), "{\"x\": 1}\n").unwrap();
    git(&p.root, &["commit", "-qam", "settings"]);
    assert_eq!(answer(&p.root, "git rebase -i base"), Some(Decision::Ask));
    // The whole history, or onto another base: asked about as before.
    assert_eq!(answer(&p.root, "git rebase -i --root"), Some(Decision::Ask));
    assert_eq!(
        answer(&p.root, "git rebase -i --onto base HEAD~1"),
        Some(Decision::Ask)
    );
}

/// A merge brings what the other side changed since the branches parted: a branch made
/// before the settings were committed on `main`, which never touched them, leaves them
/// as they are; one that changed them is asked about.
#[test]
fn a_merge_is_judged_by_what_the_other_side_changed() {
    let p = repository(&["src/main.rs"]);
    git(&p.root, &["branch", "feature"]);
    // `main` takes the settings after the branch was made.
    std::fs::create_dir_all(p.root.join(".claude")).unwrap();
    std::fs::write(p.root.join(".claude/settings.json"), "{\"hooks\": {}}\n").unwrap();
    git(&p.root, &["add", ".claude/settings.json"]);
    git(&p.root, &["commit", "-qm", "settings"]);
    // The feature branch works on code only.
    git(&p.root, &["checkout", "-q", "feature"]);
    std::fs::write(p.root.join("src/main.rs"), "fn main() {}\n").unwrap();
    git(&p.root, &["commit", "-qam", "code"]);
    git(&p.root, &["checkout", "-q", "main"]);
    assert_eq!(answer(&p.root, "git merge --no-ff feature"), None);
    // A branch that changes the settings.
    git(&p.root, &["checkout", "-q", "-b", "weaken"]);
    std::fs::write(p.root.join(".claude/settings.json"), "{}\n").unwrap();
    git(&p.root, &["commit", "-qam", "weaken"]);
    git(&p.root, &["checkout", "-q", "main"]);
    assert_eq!(answer(&p.root, "git merge weaken"), Some(Decision::Ask));
}

/// Secrets of the project's own (`.env`, a key file) that no commit keeps are asked about
/// before they are deleted, from wherever the line stands; a committed, unchanged copy or
/// an empty file loses nothing and passes, as a deleted example file does.
#[test]
fn deleting_secrets_no_commit_keeps_is_asked_about() {
    let p = repository(&["src/main.rs", ".env.example", "config/.env.dev"]);
    std::fs::write(p.root.join(".env"), "API_KEY=abc\n").unwrap();
    std::fs::write(p.root.join("deploy.pem"), "-----BEGIN PRIVATE KEY-----\n").unwrap();
    for command in [
        "rm .env",
        "rm -f .env deploy.pem",
        "shred -u .env",
        "unlink deploy.pem",
        "cd src && rm -f ../.env",
        "rm -rf ./.env",
    ] {
        assert_eq!(answer(&p.root, command), Some(Decision::Ask), "{command}");
    }
    std::fs::write(p.root.join(".env"), "").unwrap();
    // A changed committed copy is work no commit holds either.
    std::fs::write(p.root.join("config/.env.dev"), "TOKEN=new\n").unwrap();
    assert_eq!(answer(&p.root, "rm config/.env.dev"), Some(Decision::Ask));
    git(&p.root, &["checkout", "-q", "--", "config/.env.dev"]);
    for command in [
        "rm .env",
        "rm config/.env.dev",
        "rm .env.example",
        "rm -f .env.missing",
    ] {
        assert_eq!(answer(&p.root, command), None, "{command}");
    }
}

/// `git checkout -f`, `git switch --force`: refused where they would put files over
/// uncommitted changes, passed where the working tree has none.
#[test]
fn a_forced_checkout_is_refused_only_over_uncommitted_changes() {
    let p = repository(&["src/main.rs", "README.md"]);
    let forced = [
        "git checkout -f main",
        "git switch --force main",
        "git checkout -qf main",
        "git -C . checkout --force",
    ];
    for command in forced {
        assert_eq!(answer(&p.root, command), None, "clean: {command}");
    }
    std::fs::write(p.root.join("src/main.rs"), "fn main() { work(); }\n").unwrap();
    for command in forced {
        assert_eq!(
            answer(&p.root, command),
            Some(Decision::Deny),
            "changed: {command}"
        );
    }
    for command in [
        "git checkout main",
        "git checkout -b topic",
        "git switch -c x",
    ] {
        assert_eq!(answer(&p.root, command), None, "{command}");
    }
}

/// Commits on `main` changing `src/main.rs` only, tagged `t1`…`tN`.
fn code_commits(p: &Project, tags: std::ops::RangeInclusive<u32>) {
    for n in tags {
        std::fs::write(p.root.join("src/main.rs"), format!("// {n}\n")).unwrap();
        git(&p.root, &["commit", "-qam", &format!("code {n}")]);
        git(&p.root, &["tag", &format!("t{n}")]);
    }
}

/// A bisection checks out commits between the bad one and the good ones: where every one
/// of them holds the settings as `HEAD` does it passes, started or marked step by step;
/// where one holds another version it is asked about.
#[test]
fn a_bisection_asks_only_where_a_commit_it_may_check_out_holds_other_settings() {
    let p = repository(&[".claude/settings.json", "src/main.rs"]);
    git(&p.root, &["tag", "t0"]);
    code_commits(&p, 1..=4);
    for command in [
        "git bisect start HEAD t0",
        "git bisect start t4 t1 -- src",
        "git bisect good",
        "git bisect bad",
    ] {
        assert_eq!(answer(&p.root, command), None, "{command}");
    }
    git(&p.root, &["bisect", "start"]);
    git(&p.root, &["bisect", "bad"]);
    assert_eq!(answer(&p.root, "git bisect good t0"), None);
    git(&p.root, &["bisect", "good", "t0"]);
    for command in ["git bisect good", "git bisect bad", "git bisect skip"] {
        assert_eq!(answer(&p.root, command), None, "under way: {command}");
    }
    git(&p.root, &["bisect", "reset"]);
    // The settings change in the history: a bisection across it is asked about.
    std::fs::write(p.root.join(".claude/settings.json"), "{\"hooks\": {}}\n").unwrap();
    git(&p.root, &["commit", "-qam", "settings"]);
    git(&p.root, &["tag", "t5"]);
    code_commits(&p, 6..=7);
    assert_eq!(
        answer(&p.root, "git bisect start HEAD t0"),
        Some(Decision::Ask)
    );
    assert_eq!(answer(&p.root, "git bisect start HEAD t5"), None);
    git(&p.root, &["bisect", "start"]);
    git(&p.root, &["bisect", "bad"]);
    assert_eq!(answer(&p.root, "git bisect good t5"), None);
    assert_eq!(answer(&p.root, "git bisect good t2"), Some(Decision::Ask));
    git(&p.root, &["bisect", "reset"]);
}

/// `git rebase --onto NEW OLD [BRANCH]` passes where the commits it moves leave the
/// settings alone and the new base (and the branch) hold them as `HEAD` does.
#[test]
fn a_rebase_onto_another_base_asks_only_where_the_settings_differ() {
    let p = repository(&[".claude/settings.json", "src/main.rs"]);
    git(&p.root, &["tag", "t0"]);
    std::fs::write(p.root.join(".claude/settings.json"), "{\"hooks\": {}}\n").unwrap();
    git(&p.root, &["commit", "-qam", "settings"]);
    git(&p.root, &["tag", "s"]);
    code_commits(&p, 1..=3);
    for command in [
        "git rebase --onto s HEAD~2",
        "git rebase --onto=t1 HEAD~1",
        "git rebase -i --onto s HEAD~2",
        "git rebase --onto s HEAD~2 main",
    ] {
        assert_eq!(answer(&p.root, command), None, "{command}");
    }
    for command in [
        "git rebase --onto t0 HEAD~2",
        "git rebase --onto t1 t0",
        "git rebase --onto s HEAD~1 t0",
    ] {
        assert_eq!(answer(&p.root, command), Some(Decision::Ask), "{command}");
    }
}

/// Going back before the commit that installed nagger's hooks, spelled in ways git reads
/// as revisions: `-n` (no commit) still changes the tree, a search of commit messages
/// (`:/text`) is a revision before it is a path, and a commit made on the line
/// (`$(git commit-tree …)`) is only known as it runs. Where the settings are tracked,
/// each is asked about; reading with them passes.
#[test]
fn revisions_spelled_by_message_or_made_on_the_line_are_asked_about() {
    let p = repository(&["src/main.rs"]);
    git(&p.root, &["tag", "v0"]);
    std::fs::create_dir_all(p.root.join(".claude")).unwrap();
    std::fs::write(p.root.join(".claude/settings.json"), "{\"hooks\":{}}\n").unwrap();
    git(&p.root, &["add", ".claude/settings.json"]);
    git(&p.root, &["commit", "-qm", "add nagger hooks"]);
    for command in [
        "git revert -n HEAD",
        "git revert -n @",
        "git cherry-pick -n HEAD",
        "git checkout ':/start'",
        "git checkout -q ':/start'",
        "git revert -n ':/add nagger'",
        "git cherry-pick -n $(git commit-tree -p HEAD -m x v0^{tree})",
        "git merge -q --ff-only $(git commit-tree -p HEAD -m tidy 'v0^{tree}')",
    ] {
        assert_ne!(answer(&p.root, command), None, "{command}");
    }
    for command in [
        "git log ':/start'",
        "git show ':/add nagger'",
        "git checkout -- :/src/main.rs",
    ] {
        assert_eq!(answer(&p.root, command), None, "{command}");
    }
}

/// `git worktree remove --force` is judged by what the work tree holds: one with only
/// committed and ignored files passes, one with a changed or an untracked file is
/// refused.
#[test]
fn a_worktree_removed_by_force_is_judged_by_what_it_holds() {
    let p = repository(&["src/main.rs", ".gitignore"]);
    std::fs::write(p.root.join(".gitignore"), "node_modules/\n").unwrap();
    git(&p.root, &["commit", "-qam", "ignore"]);
    git(&p.root, &["branch", "feat"]);
    git(
        &p.root,
        &["worktree", "add", "-q", ".worktrees/review", "feat"],
    );
    let tree = p.root.join(".worktrees/review");
    std::fs::create_dir_all(tree.join("node_modules/x")).unwrap();
    std::fs::write(tree.join("node_modules/x/index.js"), "1\n").unwrap();
    let line = "git worktree remove --force .worktrees/review";
    assert_eq!(answer(&p.root, line), None);
    std::fs::write(tree.join("notes.txt"), "mine\n").unwrap();
    assert_eq!(answer(&p.root, line), Some(Decision::Deny));
    std::fs::remove_file(tree.join("notes.txt")).unwrap();
    std::fs::write(tree.join("src/main.rs"), "changed\n").unwrap();
    assert_eq!(
        answer(&p.root, "git worktree remove -f .worktrees/review"),
        Some(Decision::Deny)
    );
    // No such folder now (a line may make one first): what it would hold cannot be told.
    assert_eq!(
        answer(&p.root, "git worktree remove --force ../elsewhere"),
        Some(Decision::Ask)
    );
}
