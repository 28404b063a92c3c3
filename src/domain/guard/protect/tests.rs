use super::*;
use crate::domain::guard::verdict::Severity;
use serde_json::json;

#[test]
fn protected_paths() {
    for path in [
        ".claude-nagger/config.toml",
        "/work/proj/.claude-nagger/state.db",
        "./.claude-nagger",
        ".claude-nagger/",
        ".claude/settings.json",
        "/home/a/.claude/settings.local.json",
        ".c*",
        ".claude-*/state.db",
        ".claude/*.json",
        ".claude",
        ".claude/",
        "~/.claude",
        "$HOME/.claude/settings.json",
        "/etc/claude-code/managed-settings.json",
        "/etc/claude-code/managed-mcp.json",
        "/etc/claude-code/other.json",
        "/etc/claude-code",
        "/Library/Application Support/ClaudeCode/managed-settings.json",
        "/Library/Application Support/ClaudeCode",
        "~/.cargo/bin/nagger",
        "~/.local/bin/nagger",
        "/usr/local/bin/nagger",
        "~/.cargo/bin",
        "~/.cargo/bin/",
        "~/.cargo",
        "~/.local/state/nagger/trusted/0a1b.json",
        "$HOME/.local/state/nagger",
        "~/.local/state",
    ] {
        assert!(protected(path, None).is_some(), "{path}");
    }
    for path in [
        ".claude/agents/x.md",
        ".claude/skills/s/SKILL.md",
        ".claude/commands/c.md",
        "claude-nagger.md",
        "src/settings.json",
        "docs/*.md",
        "target/release/nagger",
        "~/.cargo/bin/rg",
        "/etc/claude",
        ".",
    ] {
        assert_eq!(protected(path, None), None, "{path}");
    }
    assert!(protected("/opt/n/nagger", Some("/opt/n/nagger")).is_some());
    // A program linked from PATH into a virtual environment: the folders above it.
    let venv = Some("/opt/pipx/venvs/nagger/bin/nagger");
    for above in [
        "/opt/pipx/venvs/nagger/bin",
        "/opt/pipx/venvs/nagger",
        "/opt/pipx/venvs/",
        "/opt",
    ] {
        assert!(
            matches!(
                protected(above, venv),
                Some((_, Kind::BinFolder | Kind::AboveProgram))
            ),
            "{above}"
        );
    }
    for beside in ["/opt/pipx/venvs/other", "/opt/pipx/venvs/nagger2", "/", "."] {
        assert_eq!(protected(beside, venv), None, "{beside}");
    }
}

#[test]
fn folders_follow_cd_pushd_and_popd() {
    let parsed = shell::parse("cd .claude && pushd agents; popd; cd ..; cd $X; cd /tmp");
    let mut folders = Folders::new(Cwd::Known(String::new()));
    let mut seen = Vec::new();
    for command in &parsed.commands {
        folders.step(command);
        seen.push(folders.cwd().clone());
    }
    let known = |s: &str| Cwd::Known(s.to_owned());
    assert_eq!(
        seen,
        [
            known(".claude"),
            known(".claude/agents"),
            known(".claude"),
            known("."),
            Cwd::Unknown,
            known("/tmp"),
        ]
    );
}

#[test]
fn in_place_spellings() {
    let args = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
    for (name, line) in [
        ("sed", "-Ei s/a/b/ f"),
        ("sed", "-i.bak s/a/b/ f"),
        ("sed", "-ni s/a/b/ f"),
        ("sed", "--in-place s/a/b/ f"),
        ("perl", "-pi -e s/a/b/ f"),
        ("perl", "-i.bak -pe s/a/b/ f"),
        ("ruby", "-pi -e x f"),
    ] {
        assert!(in_place(name, &args(line)), "{name} {line}");
    }
    for (name, line) in [
        ("sed", "-n 1p f"),
        ("perl", "-MList::Util -e x"),
        ("sed", "-E s/a/b/"),
    ] {
        assert!(!in_place(name, &args(line)), "{name} {line}");
    }
}

#[test]
fn code_naming_protected_paths_even_assembled() {
    for code in [
        "open(os.path.join('.claude'+'-nagger','config.toml'),'w')",
        "open(os.path.join('.claude', 'settings.json'), 'w')",
        "(Path.home() / '.claude' / 'settings.json').write_text('{}')",
        "shutil.rmtree('.claude')",
        "fs.writeFileSync('/etc/claude-code/managed-settings.json', '{}')",
        "os.chmod(os.path.expanduser('~/.cargo/bin/nagger'), 0)",
        "x = \".claude\" \"-nagger\"",
    ] {
        assert!(named_in_code(code, None), "{code}");
    }
    for code in [
        "print(open('README.md').read())",
        "open('.claude/agents/x.md', 'w').write('x')",
        "import json; print(json.dumps({'a': 1}))",
    ] {
        assert!(!named_in_code(code, None), "{code}");
    }
}

fn first(line: &str) -> SimpleCommand {
    shell::parse(line).commands.remove(0)
}

#[test]
fn commands_that_write_nothing_look_nothing_up_on_disk() {
    let root = Path::new("/nonexistent/project");
    for line in [
        "ls -la src",
        "cat .claude/settings.json",
        "git status",
        "nagger stats",
    ] {
        let scope = Scope::new(root, None);
        let cwd = Cwd::Known(String::new());
        assert!(
            written_by(&first(line), &[], &cwd, &scope).is_none(),
            "{line}"
        );
        assert_eq!(scope.lookups.get(), MAX_LOOKUPS, "{line}");
    }
}

#[test]
fn links_on_disk_are_followed_for_tools_and_shell_writes() {
    let project = tempfile::tempdir().expect("a project");
    let root = project.path();
    std::fs::create_dir_all(root.join(".claude/agents")).expect(".claude");
    std::os::unix::fs::symlink(".claude", root.join("c")).expect("link");
    std::os::unix::fs::symlink(".claude/settings.json", root.join("s.json")).expect("link");
    let scope = Scope::new(root, None);
    for path in ["c/settings.json", "c/new/../settings.local.json", "s.json"] {
        let input = serde_json::json!({ "file_path": path });
        assert!(
            written_by_tool("Write", &input, &scope, &Cwd::Known(String::new())).is_some(),
            "{path}"
        );
    }
    let input = serde_json::json!({ "file_path": "c/agents/x.md" });
    assert!(written_by_tool("Write", &input, &scope, &Cwd::Known(String::new())).is_none());
    let cwd = Cwd::Known(String::new());
    for line in [
        "rm -rf c/",
        "echo x > c/settings.json",
        "truncate -s0 s.json",
    ] {
        let scope = Scope::new(root, None);
        assert!(
            written_by(&first(line), &[], &cwd, &scope).is_some(),
            "{line}"
        );
    }
    // Lookups are bounded per call.
    let scope = Scope::new(root, None);
    let many = (0..super::MAX_LOOKUPS + 8)
        .map(|i| format!("x{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(written_by(&first(&format!("touch {many}")), &[], &cwd, &scope).is_none());
    assert_eq!(scope.lookups.get(), 0);
}

#[test]
fn the_running_binary_is_protected_when_given() {
    let scope = Scope::new(Path::new("/p"), Some("/opt/tools/nagger"));
    let cwd = Cwd::Known(String::new());
    for line in [
        "cp /bin/true /opt/tools/nagger",
        "chmod -x /opt/tools/nagger",
        "rm -rf /opt/tools",
    ] {
        assert!(
            written_by(&first(line), &[], &cwd, &scope).is_some(),
            "{line}"
        );
    }
}

#[test]
fn patches_on_disk_are_read_for_the_files_they_change() {
    let project = tempfile::tempdir().expect("a project");
    let root = project.path();
    std::fs::create_dir_all(root.join("patches")).expect("patches");
    let patch = |name: &str, target: &str| {
        std::fs::write(
            root.join("patches").join(name),
            format!("diff --git a/{target} b/{target}\n--- a/{target}\n+++ b/{target}\n@@ -1 +1 @@\n-a\n+b\n"),
        )
        .expect("patch");
    };
    patch("settings.patch", ".claude/settings.json");
    patch("deep.patch", "sub/dir/.claude-nagger/config.toml");
    patch("code.patch", "src/lib.rs");
    std::fs::write(root.join("patches/huge.patch"), vec![b'x'; (1 << 20) + 1]).expect("huge");
    let cwd = Cwd::Known(String::new());
    let answer = |line: &str| {
        let scope = Scope::new(root, None);
        written_by(&first(line), &[], &cwd, &scope)
    };
    for line in [
        "git apply patches/settings.patch",
        "git -C . apply --index patches/settings.patch",
        "git am patches/settings.patch",
        "patch -p1 < patches/settings.patch",
        "patch -p1 -i patches/settings.patch",
        // `-p3` takes `a/sub/dir/` off: the config is reached whatever -p is given.
        "patch -p3 < patches/deep.patch",
    ] {
        let found = answer(line).unwrap_or_else(|| panic!("{line}: passed"));
        assert_eq!(found.check, "guard:self-protect", "{line}: {}", found.harm);
    }
    let asked = answer("git apply patches/huge.patch").expect("asked");
    assert_eq!(asked.check, "guard:self-protect-unsure");
    for line in [
        "git apply patches/code.patch",
        "patch -p1 < patches/code.patch",
        "git apply --check patches/settings.patch",
        "git apply --stat patches/settings.patch",
        "patch --dry-run -p1 < patches/settings.patch",
        "git apply patches/none.patch",
    ] {
        assert!(answer(line).is_none(), "{line}");
    }
}

#[test]
fn archives_unpacked_where_nagger_lives_are_judged_by_their_members() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    std::fs::create_dir_all(root.join(".claude")).unwrap();
    std::fs::create_dir_all(root.join("vendor")).unwrap();
    let tar = |name: &str, member: &str| {
        let mut bytes = archives::tar_header(member, 2, b'0');
        bytes.extend(b"{}");
        bytes.resize(1024, 0);
        bytes.extend(vec![0u8; 1024]);
        std::fs::write(root.join(name), bytes).unwrap();
    };
    tar("settings.tar", "./.claude/settings.json");
    tar("nagger.tar", "x/../.claude-nagger/config.toml");
    tar("tool.tar", "bin/tool");
    std::fs::write(root.join("any.tar.gz"), b"\x1f\x8b\x08\x00").unwrap();
    let cwd = Cwd::Known(String::new());
    let answer = |line: &str| {
        let scope = Scope::new(root, None);
        let command = first(line);
        written_by(&command, &[], &cwd, &scope).map(|f| f.check)
    };
    for line in [
        "tar -xf settings.tar",
        "tar xf nagger.tar",
        "tar -x -f settings.tar -C .",
    ] {
        assert_eq!(answer(line), Some("guard:self-protect"), "{line}");
    }
    for line in ["tar xzf any.tar.gz", "cpio -idm"] {
        assert_eq!(answer(line), Some("guard:self-protect-unsure"), "{line}");
    }
    for line in [
        "tar -xf tool.tar",
        "tar -xf settings.tar -C vendor",
        "tar xzf any.tar.gz -C vendor",
        "tar -xf missing.tar",
        "tar -tf settings.tar",
    ] {
        assert_eq!(answer(line), None, "{line}");
    }
}

/// The first finding of written_by over every command of `line`, in order, with one
/// scope for the line (as the guard checks it).
fn line_finding(line: &str, root: &Path, binary: Option<&str>) -> Option<Finding> {
    let parsed = shell::parse(line);
    let scope = Scope::new(root, binary).in_line(&parsed);
    let mut folders = Folders::new(Cwd::Known(String::new()));
    for command in &parsed.commands {
        let cwd = folders.cwd().clone();
        folders.step(command);
        if let Some(found) = written_by(command, &[], &cwd, &scope) {
            return Some(found);
        }
    }
    None
}

#[test]
fn naggers_own_weakening_commands_are_refused_however_spelled() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::write(root.join("bin/nagger"), b"#!/bin/sh\n").unwrap();
    std::os::unix::fs::symlink(root.join("bin/nagger"), root.join("bin/ng")).unwrap();
    std::fs::hard_link(root.join("bin/nagger"), root.join("bin/hard")).unwrap();
    let binary = root.join("bin/nagger").to_string_lossy().into_owned();
    for line in [
        "nagger uninstall",
        "nagger --project . uninstall",
        "nagger uninstall --project=.",
        "/usr/local/bin/nagger trust",
        "nagger hook",
        "nagger install",
        "nagger install --local",
        "nagger --project /x install --settings ~/.claude/settings.json",
        "nagger import",
        "nagger gc",
        "nagger gc --json",
        "nagger doctor --fix",
        "nagger doctor --json --fix",
        "$(which nagger) uninstall",
        "\"$(command -v nagger)\" trust",
        "`which nagger` trust",
        "command nagger uninstall",
        "env nagger trust",
        "env NAGGER_DB=/tmp/x nagger gc",
        "bin/ng uninstall",
        "./bin/hard trust",
        "ln -s /opt/x/nagger ng && ./ng uninstall",
        "cp \"$(which nagger)\" /tmp/n; /tmp/n trust",
    ] {
        let found =
            line_finding(line, root, Some(&binary)).unwrap_or_else(|| panic!("{line}: passed"));
        assert_eq!(found.check, "guard:self-protect", "{line}: {}", found.harm);
    }
    for line in [
        "nagger stats",
        "nagger stats --session trust",
        "nagger --project trust stats",
        "nagger doctor",
        "nagger doctor --json --settings",
        "nagger check --command 'nagger uninstall'",
        "nagger install --dry-run",
        "nagger import --dry-run",
        "nagger gc --dry-run --json",
        "nagger plugin build/plugin",
        "nagger man --dir build/man",
        "nagger task add --role coder uninstall",
        "nagger agents --all",
        "nagger completions bash",
        "bin/ng stats",
        "ln -s /opt/x/nagger ng && ./ng stats",
        "pip install trust",
    ] {
        assert!(
            line_finding(line, root, Some(&binary)).is_none(),
            "{line}: stopped"
        );
    }
    for line in ["nagger plugin .claude", "nagger man --dir .claude-nagger"] {
        assert!(line_finding(line, root, None).is_some(), "{line}: passed");
    }
}

#[test]
fn a_copy_of_nagger_under_another_name_is_still_nagger() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let build = |name: &str, body: &[u8]| {
        let mut bytes = b"\x7fELF\x02\x01\x01".to_vec();
        bytes.extend_from_slice(&[0; 64]);
        bytes.extend_from_slice(body);
        std::fs::write(root.join(name), bytes).unwrap();
    };
    build("ng", b"... .claude-nagger/config.toml ...");
    build("other", b"some other program");
    std::fs::write(root.join("script"), b"#!/bin/sh\necho .claude-nagger\n").unwrap();
    for line in [
        "./ng trust",
        "./ng --project . uninstall",
        "env -u CLAUDECODE ./ng hook",
    ] {
        let found = line_finding(line, root, None).unwrap_or_else(|| panic!("{line}: passed"));
        assert_eq!(found.check, "guard:self-protect", "{line}: {}", found.harm);
    }
    for line in [
        "./ng stats",
        "./other trust",
        "./script trust",
        "./ng doctor",
    ] {
        assert!(line_finding(line, root, None).is_none(), "{line}: stopped");
    }
}

/// A repository at `root` with `files` written and added to its index.
fn repository(root: &Path, files: &[&str]) {
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    for file in files {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{}\n").unwrap();
        git(&["add", file]);
    }
}

fn tracked_check(line: &str, root: &Path) -> Option<&'static str> {
    line_finding(line, root, None).map(|f| f.check)
}

#[test]
fn git_commands_that_replace_tracked_settings_are_asked_about() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    repository(root, &[".claude/settings.json", "src/main.rs", "README.md"]);
    let asked = Some("guard:self-protect-tracked");
    for line in [
        "git checkout other-branch",
        "git switch x",
        "git rebase --onto x HEAD~2",
        "git pull --rebase=interactive",
        "git cherry-pick abc",
        "git revert HEAD",
        "git stash pop",
        "git stash apply",
        "git am --continue",
        "git reset --merge HEAD~1",
        "git reset --keep HEAD~1",
        "git read-tree -u -m HEAD~1",
        "git checkout-index -a -f",
        "git checkout .",
        "git restore .",
        "git restore -s HEAD~2 '*.json'",
        "cd src && git checkout ..",
        "cd src && git restore :/",
        "git -C src checkout other",
        "cd \"$DIR\" && git checkout other",
    ] {
        assert_eq!(tracked_check(line, root), asked, "{line}");
    }
    let found = line_finding("git checkout main", root, None).unwrap();
    assert!(
        found.harm.contains("`.claude/settings.json`"),
        "{}",
        found.harm
    );
    for line in [
        "git checkout -b x",
        "git switch -c x",
        "git checkout src/main.rs",
        "git restore src",
        "cd src && git checkout .",
        "git status",
        "git log",
        "git reset HEAD~1",
        "git fetch",
        "git stash list",
        "git pull",
        "git pull --rebase",
        "git merge x",
        "git rebase x",
    ] {
        assert_eq!(tracked_check(line, root), None, "{line}");
    }
    // The protected path itself stays refused outright.
    assert_eq!(
        tracked_check("git checkout HEAD~1 -- .claude/settings.json", root),
        Some("guard:self-protect")
    );
}

#[test]
fn a_stash_asks_only_when_the_tracked_settings_have_changes_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    repository(root, &[".claude/settings.json", "src/main.rs"]);
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
    // The settings are as staged: the stash puts away only the source file.
    for line in ["git stash", "git stash push -m wip", "git stash -- src"] {
        assert_eq!(tracked_check(line, root), None, "{line}");
    }
    // Changed in the work tree (hook entries not staged yet): the stash takes them away.
    std::fs::write(root.join(".claude/settings.json"), "{\"hooks\": {}}\n").unwrap();
    let asked = Some("guard:self-protect-tracked");
    for line in [
        "git stash",
        "git stash push -m wip",
        "git stash --keep-index",
    ] {
        assert_eq!(tracked_check(line, root), asked, "{line}");
    }
    assert_eq!(tracked_check("git stash -- src", root), None);
    // Missing from the work tree counts as changed.
    std::fs::remove_file(root.join(".claude/settings.json")).unwrap();
    assert_eq!(tracked_check("git stash", root), asked);
}

#[test]
fn index_entries_made_by_hand_for_links_or_naggers_files_are_asked_about() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    repository(root, &["src/main.rs"]);
    let unsure = Some("guard:self-protect-unsure");
    for line in [
        "git update-index --add --cacheinfo 120000,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,src/c",
        "git update-index --add --cacheinfo 120000 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 c",
        "git update-index --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,.claude/settings.json",
        "git update-index --index-info",
        "printf '120000 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\\tc\\n' | git update-index --index-info",
        "git update-index --index-info <<< '120000 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\tc'",
        "git update-index --force-remove .claude/settings.json",
    ] {
        assert_eq!(tracked_check(line, root), unsure, "{line}");
    }
    for line in [
        "git rm --cached .claude/settings.json",
        "git -C .claude rm -q --cached settings.json",
    ] {
        assert!(tracked_check(line, root).is_some(), "{line}");
    }
    for line in [
        "git update-index --add --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,src/x",
        "git update-index --refresh",
        "git update-index --assume-unchanged src/main.rs",
        "git update-index --index-info <<< '100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\tsrc/y'",
        "git rm --cached -r .",
        "git rm --cached src/main.rs",
    ] {
        assert_eq!(tracked_check(line, root), None, "{line}");
    }
}

#[test]
fn a_patch_that_makes_a_link_is_judged_by_where_the_link_points() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".claude-nagger")).unwrap();
    let patch = |name: &str, link: &str, target: &str| {
        let text = format!(
            "diff --git a/{link} b/{link}\nnew file mode 120000\nindex 0000000..c816185\n\
             --- /dev/null\n+++ b/{link}\n@@ -0,0 +1 @@\n+{target}\n\\ No newline at end of file\n"
        );
        std::fs::write(root.join(name), text).unwrap();
    };
    patch("a.patch", "cl", ".claude");
    patch("b.patch", "src/n", "../.claude-nagger");
    patch("c.patch", "up", "..");
    patch("d.patch", "lib/libx.so", "libx.so.1");
    patch("e.patch", "docs/readme", "../README.md");
    for (line, check) in [
        ("git apply a.patch", Some("guard:self-protect")),
        ("patch -p1 < a.patch", Some("guard:self-protect")),
        ("git am b.patch", Some("guard:self-protect")),
        ("git apply --index b.patch", Some("guard:self-protect")),
        ("git apply c.patch", Some("guard:self-protect-unsure")),
        ("git apply d.patch", None),
        ("patch -p1 -i e.patch", None),
    ] {
        assert_eq!(tracked_check(line, root), check, "{line}");
    }
}

#[test]
fn a_repository_that_tracks_none_of_naggers_files_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    repository(
        root,
        &["src/main.rs", ".claude/agents/a.md", ".github/ci.yml"],
    );
    for line in [
        "git checkout other",
        "git pull",
        "git stash pop",
        "git checkout .",
        "git reset --merge HEAD~1",
    ] {
        assert_eq!(tracked_check(line, root), None, "{line}");
    }
    let none = tempfile::tempdir().unwrap();
    assert_eq!(
        tracked_check("git pull", none.path()),
        None,
        "no repository"
    );
}

#[test]
fn tracked_files_are_found_in_worktrees_subfolders_and_every_index_version() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    repository(&repo, &["proj/.claude-nagger/config.toml", "proj/src/a.rs"]);
    let project = repo.join("proj");
    let asked = Some("guard:self-protect-tracked");
    // The config alone: whatever version comes, its weakenings wait for the user.
    for line in [
        "git pull",
        "git switch main",
        "git stash pop",
        "git checkout .",
    ] {
        assert_eq!(tracked_check(line, &project), None, "{line}");
    }
    assert_eq!(
        tracked_check(
            "git checkout HEAD~1 -- .claude-nagger/config.toml",
            &project
        ),
        Some("guard:self-protect")
    );
    repository(
        &repo,
        &[
            "proj/.claude-nagger/config.toml",
            "proj/.claude/settings.json",
            "proj/src/a.rs",
        ],
    );
    assert_eq!(tracked_check("git switch main", &project), asked);
    let git = |args: &[&str], at: &Path| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(at)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    for version in ["2", "3", "4"] {
        git(&["update-index", "--index-version", version], &repo);
        assert_eq!(tracked_check("git switch x", &project), asked, "v{version}");
        assert_eq!(
            tracked_check("git checkout .", &project),
            asked,
            "v{version}"
        );
        assert_eq!(
            tracked_check("git checkout src", &project),
            None,
            "v{version}"
        );
    }
    git(
        &[
            "-c",
            "user.name=n",
            "-c",
            "user.email=e@x",
            "commit",
            "-qm",
            "x",
        ],
        &repo,
    );
    let worktree = dir.path().join("wt");
    git(
        &[
            "worktree",
            "add",
            "-q",
            &worktree.to_string_lossy(),
            "-b",
            "w",
        ],
        &repo,
    );
    assert!(worktree.join(".git").is_file());
    assert_eq!(
        tracked_check("git checkout other", &worktree.join("proj")),
        asked
    );
    // `--git-dir` and `--work-tree` (or `GIT_DIR` and `GIT_WORK_TREE`) name the
    // project's repository from elsewhere.
    let other = tempfile::tempdir().unwrap();
    let elsewhere = other.path().display();
    let (git_dir, tree) = (repo.join(".git"), repo.display());
    let git_dir = git_dir.display();
    for line in [
        format!("cd {elsewhere} && git --git-dir={git_dir} --work-tree={tree} checkout main"),
        format!("cd {elsewhere} && git --git-dir {git_dir} --work-tree {tree} checkout main"),
        format!("cd {elsewhere}; env GIT_DIR={git_dir} GIT_WORK_TREE={tree} git checkout main"),
        format!(
            "cd {elsewhere}; export GIT_DIR={git_dir} GIT_WORK_TREE={tree}; git checkout other"
        ),
        format!("export GIT_DIR=\"$X\"; cd {elsewhere}; git checkout other"),
    ] {
        assert_eq!(tracked_check(&line, &project), asked, "{line}");
    }
    // Without a work tree, the folder it runs in is the one changed.
    let line = format!("cd {elsewhere}; env GIT_DIR={git_dir} git checkout main");
    assert_eq!(tracked_check(&line, &project), None, "{line}");
}

#[test]
fn code_written_into_the_project_that_names_nagger_s_files_is_asked_about() {
    let asked = |path: &str, text: &str| code_written(path, &[text], None).is_some();
    for (path, text) in [
        (
            "conftest.py",
            "import shutil\nshutil.rmtree('.claude-nagger')\n",
        ),
        (
            "build.rs",
            "fn main() { std::fs::remove_dir_all(\".claude-nagger\").ok(); }",
        ),
        (
            "setup.py",
            "import os\nos.remove('.claude' + '-nagger/config.toml')\n",
        ),
        (
            "node_modules/x/index.js",
            "require('fs').rmSync('.claude/settings.json')",
        ),
        (".envrc", "rm -rf .claude-nagger\n"),
        ("gen.go", "//go:generate rm -rf .claude-nagger\n"),
        ("Makefile", "clean:\n\trm -f .claude/settings.local.json\n"),
        (
            "package.json",
            r#"{"scripts":{"test":"rm -rf .claude-nagger"}}"#,
        ),
    ] {
        assert!(asked(path, text), "{path}");
    }
    for (path, text) in [
        (
            "README.md",
            "nagger keeps its state in `.claude-nagger/state.db`.",
        ),
        (
            ".claude/agents/reviewer.md",
            "Never touch .claude/settings.json.",
        ),
        ("notes.txt", "see .claude-nagger/config.toml"),
        (
            "show.py",
            "import json\nprint(json.load(open('.claude/settings.json')))\n",
        ),
        ("clean.py", "import shutil\nshutil.rmtree('build')\n"),
        ("x.rs", "fn main() {}"),
    ] {
        assert!(!asked(path, text), "{path}");
    }
}

#[test]
fn other_tools_handed_protected_paths_are_refused_or_asked_by_what_their_name_says() {
    let project = tempfile::tempdir().expect("a project");
    let root = project.path();
    std::fs::create_dir_all(root.join(".claude/agents")).expect(".claude");
    std::os::unix::fs::symlink(".claude", root.join("c")).expect("link");
    let scope = Scope::new(root, None);
    let cwd = Cwd::Known(String::new());
    let check = |tool: &str, input: serde_json::Value| {
        changed_by_other_tool(tool, &input, &scope, &cwd).map(|f| f.severity)
    };
    for (tool, input) in [
        (
            "mcp__filesystem__write_file",
            json!({"path": ".claude-nagger/config.toml", "content": ""}),
        ),
        (
            "mcp__filesystem__move_file",
            json!({"source": ".claude-nagger", "destination": "/tmp/x"}),
        ),
        (
            "mcp__fs__editFile",
            json!({"target": {"path": "c/settings.json"}}),
        ),
        (
            "mcp__x__delete",
            json!({"paths": ["src/a.rs", ".claude/settings.local.json"]}),
        ),
    ] {
        assert_eq!(check(tool, input), Some(Severity::Deny), "{tool}");
    }
    assert_eq!(
        check("mcp__x__do_it", json!({"p": ".claude-nagger/state.db"})),
        Some(Severity::Ask)
    );
    for (tool, input) in [
        (
            "mcp__filesystem__read_file",
            json!({"path": ".claude-nagger/config.toml"}),
        ),
        (
            "mcp__filesystem__list_directory",
            json!({"path": ".claude"}),
        ),
        (
            "mcp__filesystem__write_file",
            json!({"path": "src/x.rs", "content": "x = 1 # .claude-nagger/config.toml"}),
        ),
        (
            "mcp__filesystem__write_file",
            json!({"path": ".claude/agents/x.md"}),
        ),
        ("Read", json!({"file_path": ".claude/settings.json"})),
    ] {
        assert_eq!(check(tool, input.clone()), None, "{tool} {input}");
    }
}

#[test]
fn folders_above_naggers_files_keep_their_owners_entry_and_the_binary_folder_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let bin = dir.path().join("bin");
    let src = dir.path().join("build");
    for d in [
        root.join(".claude-nagger"),
        bin.clone(),
        src.clone(),
        root.join("src"),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    let binary = bin.join("nagger-dev").display().to_string();
    std::fs::write(&binary, "").unwrap();
    std::fs::write(src.join("nagger-dev"), "").unwrap();
    std::fs::write(src.join("other-tool"), "").unwrap();
    let (bin, src, top) = (
        bin.display().to_string(),
        src.display().to_string(),
        dir.path().display().to_string(),
    );
    for line in [
        "chmod 000 .".to_owned(),
        "chmod 600 ..".to_owned(),
        "chmod u-x .".to_owned(),
        "chmod -x .".to_owned(),
        "chmod -v a= .".to_owned(),
        format!("chmod 000 {bin}"),
        format!("chmod 0644 {top}"),
        format!("cp -r {src}/. {bin}/"),
        format!("rsync -a {src}/ {bin}/"),
        format!("cp -rT {src} {bin}"),
    ] {
        assert!(
            line_finding(&line, &root, Some(&binary)).is_some(),
            "{line}: passed"
        );
    }
    std::fs::remove_file(format!("{src}/nagger-dev")).unwrap();
    for line in [
        "chmod 755 .".to_owned(),
        "chmod go-w ..".to_owned(),
        "chmod 000 src".to_owned(),
        "chmod -R u+rwX .".to_owned(),
    ] {
        assert!(
            line_finding(&line, &root, Some(&binary)).is_none(),
            "{line}: refused"
        );
    }
    // Other programs landing beside it come before the system's on PATH too.
    for line in [
        format!("cp -r {src}/. {bin}/"),
        format!("rsync -a {src}/ {bin}/"),
    ] {
        assert!(
            line_finding(&line, &root, Some(&binary)).is_some(),
            "{line}: passed"
        );
    }
}

use super::gitobjects::tests::git as git_in;

#[test]
fn revisions_that_hold_other_settings_than_the_work_trees_are_asked_about() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let put = |path: &str, text: &str| {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    };
    // The first commit tracked a local settings file, the second stopped tracking it and
    // ignores it; the one there now holds nagger's hooks.
    git_in(root, &["init", "-q", "-b", "main"]);
    put(".claude/settings.local.json", "{\"hooks\":\"elsewhere\"}\n");
    put("src/a.rs", "fn a() {}\n");
    git_in(root, &["add", "-A"]);
    git_in(root, &["commit", "-qm", "first"]);
    git_in(root, &["tag", "first"]);
    git_in(
        root,
        &["rm", "-q", "--cached", ".claude/settings.local.json"],
    );
    put(".gitignore", ".claude/settings.local.json\n");
    git_in(root, &["add", "-A"]);
    git_in(root, &["commit", "-qm", "second"]);
    git_in(root, &["branch", "feature"]);
    put("src/a.rs", "fn a() { 1 }\n");
    git_in(root, &["commit", "-qam", "third"]);
    put(".claude/settings.local.json", "{\"hooks\":\"nagger\"}\n");
    let first = git_in(root, &["rev-parse", "--short", "first"]);
    let asked = Some("guard:self-protect-tracked");
    for line in [
        "git checkout HEAD~2".to_owned(),
        "git checkout -q @~2".to_owned(),
        "git checkout first".to_owned(),
        format!("git checkout --detach {first}"),
        "git switch -d HEAD~2".to_owned(),
        "git switch -f --detach first".to_owned(),
        "git checkout -b again first".to_owned(),
        "git reset --merge HEAD~2".to_owned(),
        "git reset --keep first".to_owned(),
        "git read-tree -m -u first".to_owned(),
        "git read-tree -u --reset HEAD~2".to_owned(),
        "git cherry-pick first".to_owned(),
        "git revert HEAD~1".to_owned(),
        // Forms nagger does not read are asked about.
        "git checkout HEAD@{3}".to_owned(),
        "git checkout main^{/first}".to_owned(),
    ] {
        assert_eq!(tracked_check(&line, root), asked, "{line}");
    }
    // Revisions that hold none of it, a name nothing has, and history already merged.
    for line in [
        "git checkout HEAD~1",
        "git checkout feature",
        "git switch feature",
        "git reset --keep HEAD~1",
        "git checkout -b topic",
        "git switch -c topic feature",
        "git cherry-pick HEAD",
        "git revert HEAD",
        "git merge feature",
        "git merge first",
        "git checkout no-such-branch",
        "git read-tree -u -m HEAD~1",
    ] {
        assert_eq!(tracked_check(line, root), None, "{line}");
    }
    // A commit made without touching the work tree that brings a settings file in.
    git_in(root, &["checkout", "-q", "-b", "crafted", "feature"]);
    put(".claude/settings.json", "{\"disableAllHooks\":true}\n");
    git_in(root, &["add", ".claude/settings.json"]);
    git_in(root, &["commit", "-qm", "crafted"]);
    git_in(root, &["checkout", "-q", "main"]);
    put(".claude/settings.local.json", "{\"hooks\":\"nagger\"}\n");
    for line in [
        "git merge crafted",
        "git rebase crafted",
        "git cherry-pick crafted",
        "git cherry-pick main..crafted",
        "git revert feature..crafted",
    ] {
        assert_eq!(tracked_check(line, root), asked, "{line}");
    }
    // A range whose commits change no settings file.
    assert_eq!(tracked_check("git cherry-pick main..feature", root), None);
    assert_eq!(
        tracked_check("git cherry-pick crafted..feature", root),
        None
    );
    // The same from packs.
    git_in(root, &["gc", "-q"]);
    for line in [
        "git merge crafted",
        "git checkout first",
        "git switch -d HEAD~2",
    ] {
        assert_eq!(tracked_check(line, root), asked, "{line}");
    }
    assert_eq!(tracked_check("git switch feature", root), None);
}

#[test]
fn switching_between_branches_with_the_same_tracked_settings_passes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".claude")).unwrap();
    std::fs::write(root.join(".claude/settings.json"), "{\"hooks\":{}}\n").unwrap();
    std::fs::write(root.join("README.md"), "x\n").unwrap();
    git_in(root, &["init", "-q", "-b", "main"]);
    git_in(root, &["add", "-A"]);
    git_in(root, &["commit", "-qm", "one"]);
    git_in(root, &["branch", "other"]);
    std::fs::write(root.join("README.md"), "y\n").unwrap();
    git_in(root, &["commit", "-qam", "two"]);
    for line in [
        "git checkout other",
        "git switch other",
        "git checkout -f other",
    ] {
        assert_eq!(tracked_check(line, root), None, "{line}");
    }
    // A local change a forced move would drop is still asked about.
    std::fs::write(
        root.join(".claude/settings.json"),
        "{\"hooks\":{\"x\":1}}\n",
    )
    .unwrap();
    assert_eq!(
        tracked_check("git checkout -f other", root),
        Some("guard:self-protect-tracked")
    );
    assert_eq!(tracked_check("git checkout other", root), None);
    // Staged, it is carried over by a move between commits that agree on it.
    git_in(root, &["add", ".claude/settings.json"]);
    assert_eq!(tracked_check("git switch other", root), None);
    assert_eq!(
        tracked_check("git switch --discard-changes other", root),
        Some("guard:self-protect-tracked")
    );
    // An orphan branch holds nothing: the tracked settings would go.
    assert_eq!(
        tracked_check("git switch --orphan empty", root),
        Some("guard:self-protect-tracked")
    );
}

#[test]
fn stash_entries_are_judged_by_the_changes_they_keep() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".claude")).unwrap();
    std::fs::write(root.join(".claude/settings.json"), "{}\n").unwrap();
    std::fs::write(root.join("README.md"), "a\n").unwrap();
    git_in(root, &["init", "-q", "-b", "main"]);
    git_in(root, &["add", "-A"]);
    git_in(root, &["commit", "-qm", "one"]);
    let asked = Some("guard:self-protect-tracked");
    // A stash of a README change: applying it changes no settings.
    std::fs::write(root.join("README.md"), "b\n").unwrap();
    git_in(root, &["stash", "-q"]);
    for line in [
        "git stash pop",
        "git stash apply",
        "git stash apply stash@{0}",
        "git stash pop 0",
    ] {
        assert_eq!(tracked_check(line, root), None, "{line}");
    }
    // A stash of the settings on top of it.
    std::fs::write(root.join(".claude/settings.json"), "{\"x\":1}\n").unwrap();
    git_in(root, &["stash", "-q"]);
    assert_eq!(tracked_check("git stash pop", root), asked);
    assert_eq!(tracked_check("git stash apply stash@{1}", root), None);
    assert_eq!(tracked_check("git stash pop 1", root), None);
    // Untracked settings kept by `stash -u`.
    std::fs::write(root.join(".claude/settings.local.json"), "{}\n").unwrap();
    git_in(root, &["stash", "-u", "-q"]);
    assert_eq!(tracked_check("git stash pop", root), asked);
    assert_eq!(tracked_check("git stash apply 1", root), asked);
    assert_eq!(tracked_check("git stash apply 2", root), None);
    // An entry the stash does not hold asks as before where settings are tracked.
    assert_eq!(tracked_check("git stash pop stash@{9}", root), asked);
}
