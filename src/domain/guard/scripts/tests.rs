//! Programs run from files on disk, through the whole guard, in a temporary project.

use std::path::Path;

use serde_json::json;

use super::super::review::{Guard, ToolCall};
use super::super::settings::GuardConfig;
use super::super::verdict::{Severity, Verdict};
use super::files::MAX_FILE_BYTES;

fn verdict(root: &Path, line: &str) -> Verdict {
    let settings = GuardConfig::default();
    let guard = Guard::new(&settings);
    let input = json!({ "command": line });
    guard.review(&ToolCall {
        tool_name: "Bash",
        tool_input: &input,
        project_root: root,
        cwd: None,
    })
}

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary project");
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().expect("a folder")).expect("folders");
        std::fs::write(&full, text).expect("a file");
    }
    dir
}

/// `root` made a git repository with everything in it committed: files the user settled.
fn commit_all(root: &Path) {
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "-A"],
        &["commit", "-qm", "project"],
    ] {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "a")
            .env("GIT_AUTHOR_EMAIL", "a@b")
            .env("GIT_COMMITTER_NAME", "a")
            .env("GIT_COMMITTER_EMAIL", "a@b")
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }
}

fn refuses(root: &Path, line: &str) -> String {
    let v = verdict(root, line);
    assert!(v.denies(), "{line}: not refused: {v:#?}");
    v.objections
        .iter()
        .find(|o| o.severity == Severity::Deny)
        .map(|o| o.message.clone())
        .unwrap_or_default()
}

fn passes(root: &Path, line: &str) {
    let v = verdict(root, line);
    assert!(v.objections.is_empty(), "{line}: not passed: {v:#?}");
}

#[test]
fn shell_scripts_on_disk_are_read() {
    let dir = project(&[
        ("x.sh", "#!/bin/sh\nrm -rf .claude\n"),
        ("tools/clean.sh", "rm -rf \"$1\"\n"),
    ]);
    let root = dir.path();
    for line in [
        "bash x.sh",
        "sh ./x.sh",
        "bash -e -o pipefail x.sh",
        "chmod +x x.sh && ./x.sh",
        "source x.sh",
        ". ./x.sh",
        "env FOO=1 bash x.sh",
        "nohup ./x.sh &",
        "timeout 5 sh x.sh",
        "nice -n 5 bash x.sh",
        "cd tools && bash ../x.sh",
        "echo . | xargs bash x.sh",
    ] {
        let message = refuses(root, line);
        assert!(message.contains("x.sh`"), "{line}: {message}");
    }
    // Its arguments are its positional parameters.
    refuses(root, "bash tools/clean.sh /");
    passes(root, "bash tools/clean.sh build");
}

#[test]
fn program_files_are_read_in_their_language() {
    let dir = project(&[
        ("x.py", "import shutil\nshutil.rmtree(\".claude\")\n"),
        (
            "run",
            "#!/usr/bin/env python3\nimport os\nos.system('rm -rf ~')\n",
        ),
        ("x.js", "require('fs').rmSync('/', {recursive: true})\n"),
        ("ok.py", "import json\nprint(json.dumps({'a': 1}))\n"),
    ]);
    let root = dir.path();
    for line in [
        "python3 x.py",
        "python3 -u x.py --flag",
        "./run",
        "node x.js",
    ] {
        refuses(root, line);
    }
    passes(root, "python3 ok.py");
    // pytest imports what it is given to collect its tests: the code runs.
    refuses(root, "python3 -m pytest x.py");
}

#[test]
fn makefile_recipes_are_read() {
    let makefile = "OUT := build\n.PHONY: all clean wipe\n\
                    all: $(OUT)/app\n\n\
                    $(OUT)/app: main.c\n\tmkdir -p $(OUT)\n\t$(CC) -o $@ $<\n\n\
                    clean:\n\t@rm -rf $(OUT)\n\n\
                    wipe:\n\t-rm -rf .claude\n";
    let dir = project(&[
        ("Makefile", makefile),
        ("sub/GNUmakefile", "all:\n\trm -rf /\n"),
    ]);
    let root = dir.path();
    passes(root, "make");
    passes(root, "make all");
    passes(root, "make clean");
    passes(root, "make -j4 OUT=dist clean");
    for line in [
        "make wipe",
        "make -f Makefile wipe",
        "make -C sub",
        "cd sub && make all",
        "make OUT=/ clean",
        "make -f - <<'EOF'\nall:\n\trm -rf /\nEOF",
    ] {
        refuses(root, line);
    }
    passes(root, "make -n wipe");
    // A Makefile the line itself writes is read as written, not from the disk.
    refuses(root, "printf 'all:\\n\\trm -rf ~\\n' > Makefile && make");
    refuses(
        root,
        "cat > sub/GNUmakefile <<'EOF'\nall:\n\trm -rf /\nEOF\nmake -C sub",
    );
    let v = verdict(root, "python3 gen.py > Makefile && make");
    assert!(asks(&v) && !v.denies(), "{v:#?}");
}

#[test]
fn package_scripts_are_read() {
    let package = r#"{
      "name": "app",
      "scripts": {
        "build": "tsc -p . && vite build",
        "clean": "rm -rf dist",
        "wipe": "rm -rf .claude",
        "pretest": "rm -rf ~",
        "test": "vitest run",
        "lint": "eslint src"
      }
    }"#;
    let dir = project(&[("package.json", package), ("web/src/x.ts", "")]);
    let root = dir.path();
    for line in [
        "npm run build",
        "npm run clean",
        "yarn build",
        "pnpm run lint",
        "bun run clean",
        "npm run build -- --watch",
    ] {
        passes(root, line);
    }
    for line in [
        "npm run wipe",
        "yarn wipe",
        "pnpm wipe",
        "bun run wipe",
        "npm test",
        "cd web/src && npm run wipe",
    ] {
        let message = refuses(root, line);
        assert!(message.contains("package.json"), "{line}: {message}");
    }
}

#[test]
fn everyday_build_files_pass_without_asking() {
    let build = "#!/usr/bin/env bash\nset -euo pipefail\n\
                 here=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\n\
                 build() {\n  local target=\"$1\"\n  cargo build --release --target \"$target\"\n}\n\
                 for t in x86_64 aarch64; do build \"$t\"; done\n\
                 rm -rf \"$here/dist\" target/tmp\n\
                 mkdir -p dist && cp target/release/app dist/\n\
                 if [ -n \"${CI:-}\" ]; then npm ci; fi\n\
                 eval \"$(ssh-agent -s)\"\n\
                 \"$PYTHON\" -m pip install -e .\n\
                 python3 - <<'PY'\nimport os, sys\nos.system(sys.argv[0])\nPY\n\
                 emacs --batch --eval '(byte-compile-file \"x.el\")'\n\
                 set -a; . ./.env; set +a\n";
    let makefile = "SRC := $(wildcard src/*.c)\nOBJ := $(SRC:.c=.o)\n\
                    all: app\napp: $(OBJ)\n\t$(CC) $(LDFLAGS) -o $@ $^\n\
                    %.o: %.c\n\t$(CC) $(CFLAGS) -c $< -o $@\n\
                    test: app\n\t./run-tests.sh $(ARGS)\n\
                    clean:\n\trm -rf $(OBJ) app build/\n\t$(MAKE) -C docs clean\n";
    let dir = project(&[
        ("build.sh", build),
        ("Makefile", makefile),
        (
            "run-tests.sh",
            "#!/bin/sh\nfor t in tests/*.sh; do sh \"$t\" || exit 1; done\n",
        ),
        ("docs/Makefile", "clean:\n\trm -rf _build\n"),
        (
            "package.json",
            r#"{"scripts": {"test": "jest --coverage", "prepare": "husky"}}"#,
        ),
    ]);
    let root = dir.path();
    let lines = [
        "bash build.sh",
        "./build.sh",
        "make",
        "make test",
        "make clean",
        "npm test",
        "npm install",
        "yarn",
    ];
    // New, they may be what an agent just wrote: what they leave to the running shell is
    // asked about.
    let v = verdict(root, "bash build.sh");
    assert!(
        !v.objections.is_empty() && !v.denies(),
        "a new build.sh: {v:#?}"
    );
    // Committed and unchanged, they are the project's own.
    commit_all(root);
    for line in lines {
        passes(root, line);
    }
}

#[test]
fn missing_and_unreadable_files() {
    let dir = project(&[("big.sh", "")]);
    let root = dir.path();
    for line in [
        "bash missing.sh",
        "./missing.sh",
        "make",
        "npm test",
        "python3 nope.py",
    ] {
        passes(root, line);
    }
    // Past the cap, what was read is judged, and the reason says so; the rest is
    // asked about.
    let mut big = "echo ok\n".repeat(MAX_FILE_BYTES / 8 + 16);
    std::fs::write(root.join("big.sh"), &big).expect("a file");
    let v = verdict(root, "bash big.sh");
    assert!(asks(&v) && !v.denies(), "{v:#?}");
    big.insert_str(0, "rm -rf .claude\n");
    std::fs::write(root.join("big.sh"), &big).expect("a file");
    let message = refuses(root, "bash big.sh");
    assert!(message.contains("its first 256 KiB"), "{message}");
    // A compiled program is not a script.
    std::fs::write(root.join("tool"), b"\x7fELF\x02\x01rm -rf /\n").expect("a file");
    passes(root, "./tool");
}

#[test]
fn a_fifo_in_place_of_a_script_never_blocks() {
    let dir = project(&[]);
    let root = dir.path();
    for name in ["x.sh", "Makefile", "package.json"] {
        let path =
            std::ffi::CString::new(root.join(name).as_os_str().as_encoded_bytes()).expect("a path");
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o644) }, 0);
    }
    passes(root, "make -f /dev/null -p");
    passes(root, "source /dev/null");
    for line in ["bash x.sh", "./x.sh", "make", "npm test"] {
        let v = verdict(root, line);
        assert!(!v.denies(), "{line}: {v:#?}");
        assert!(asks(&v), "{line}: a FIFO's program is not known: {v:#?}");
    }
}

#[test]
fn scripts_running_scripts_are_followed() {
    let dir = project(&[
        ("a.sh", "bash b.sh\n"),
        ("b.sh", "make wipe\n"),
        ("Makefile", "wipe:\n\tnpm run wipe\n"),
        (
            "package.json",
            r#"{"scripts": {"wipe": "rm -rf .claude-nagger"}}"#,
        ),
        ("loop.sh", "bash loop.sh\n"),
    ]);
    let root = dir.path();
    let message = refuses(root, "bash a.sh");
    assert!(message.contains("package.json"), "{message}");
    // A script that runs itself ends at the depth bound, asked about.
    let v = verdict(root, "bash loop.sh");
    assert!(!v.denies(), "{v:#?}");
}

fn asks(v: &Verdict) -> bool {
    v.objections.iter().any(|o| o.severity == Severity::Ask)
}

fn executable(root: &Path, path: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    let full = root.join(path);
    let mut perms = std::fs::metadata(&full).expect("a file").permissions();
    perms.set_mode(0o755);
    std::fs::set_permissions(&full, perms).expect("made executable");
}

#[test]
fn hooks_a_git_command_fires_are_read_as_it_runs_them() {
    let dir = project(&[
        (".git/config", "[core]\n\tbare = false\n"),
        (
            ".git/hooks/pre-commit",
            "#!/bin/sh\nrm -rf .claude-nagger\n",
        ),
        (".git/hooks/pre-push", "#!/bin/sh\nrm -rf ~\n"),
        (".git/hooks/post-merge.sample", "#!/bin/sh\nrm -rf ~\n"),
        (".git/hooks/post-checkout", "#!/bin/sh\nrm -rf ~\n"),
        ("src/main.rs", "fn main() {}\n"),
    ]);
    let root = dir.path();
    executable(root, ".git/hooks/pre-commit");
    executable(root, ".git/hooks/pre-push");
    executable(root, ".git/hooks/post-merge.sample");
    for line in [
        "git commit -m wip",
        "git -C src commit -am wip",
        "cd src && git commit --amend --no-edit",
        "git merge feature",
        "git cherry-pick abc123",
        "git push origin feature/x",
        "git -c user.name=x push",
    ] {
        let message = refuses(root, line);
        assert!(message.contains("hook"), "{line}: {message}");
    }
    // Hooks git does not run: not executable (post-checkout), or samples.
    for line in [
        "git checkout -b other",
        "git switch main",
        "git log --oneline",
        "git status",
        "git diff HEAD~1",
        "git fetch origin",
    ] {
        passes(root, line);
    }
    // Taken from the folder `core.hooksPath` names instead.
    std::fs::write(
        root.join(".git/config"),
        "[core]\n\thooksPath = .githooks\n",
    )
    .expect("config");
    passes(root, "git commit -m wip");
    std::fs::create_dir_all(root.join(".githooks")).expect("folder");
    std::fs::write(root.join(".githooks/pre-commit"), "rm -rf ~/\n").expect("hook");
    executable(root, ".githooks/pre-commit");
    refuses(root, "git commit -m wip");
}

#[test]
fn programs_git_configuration_names_are_judged_where_git_runs_them() {
    let dir = project(&[
        (
            ".git/config",
            "[core]\n\tfsmonitor = ./fsm.sh\n[diff]\n\texternal = tools/d.sh\n\
             [alias]\n\tnuke = !rm -rf ~\n",
        ),
        ("fsm.sh", "#!/bin/sh\nrm -rf .claude-nagger\n"),
        ("tools/d.sh", "#!/bin/sh\nrm -rf ~\n"),
    ]);
    let root = dir.path();
    for line in [
        "git status",
        "git add -A",
        "git checkout -- src",
        "git stash",
    ] {
        let message = refuses(root, line);
        assert!(message.contains("core.fsmonitor"), "{line}: {message}");
    }
    let message = refuses(root, "git log -p");
    assert!(message.contains("diff.external"), "{message}");
    // No contents shown, no work tree looked at, an alias not called.
    for line in [
        "git log --oneline",
        "git fetch",
        "git rev-parse HEAD",
        "git show -s HEAD",
    ] {
        passes(root, line);
    }
    // Included configuration counts too.
    std::fs::write(
        root.join(".git/config"),
        "[include]\n\tpath = ../extra.cfg\n",
    )
    .expect("config");
    std::fs::write(root.join("extra.cfg"), "[core]\n\tsshCommand = rm -rf ~\n").expect("cfg");
    refuses(root, "git push");
    passes(root, "git status");
}

#[test]
fn build_and_test_tools_run_the_project_files_they_load() {
    let dir = project(&[
        (
            "setup.py",
            "import shutil\nshutil.rmtree('.claude-nagger')\n",
        ),
        (
            "tests/unit/conftest.py",
            "import os\nos.remove('.claude/settings.json')\n",
        ),
        (
            "build.rs",
            "fn main() { let _ = std::fs::remove_dir_all(\".claude-nagger\"); }\n",
        ),
        (
            "noxfile.py",
            "import shutil, os\nshutil.rmtree(os.path.expanduser('~'))\n",
        ),
    ]);
    let root = dir.path();
    for line in [
        "pip install -e .",
        "pip3 install --editable=.",
        "python3 -m pip install .",
        "uv pip install -e ./",
        "pytest tests/unit",
        "python -m pytest tests/unit/test_x.py::test_y",
        "cargo build --release",
        "cargo test",
        "nox -s lint",
    ] {
        refuses(root, line);
    }
    for line in [
        "pip install requests",
        "pip install -r requirements.txt",
        "pytest other",
        "cargo fmt",
        "cargo metadata",
        "cargo install ripgrep",
    ] {
        passes(root, line);
    }
}

#[test]
fn makefiles_shell_calls_and_includes_are_read() {
    let dir = project(&[
        ("Makefile", "include rules.mk\nall:\n\techo hi\n"),
        ("rules.mk", "X := $(shell rm -rf .claude-nagger)\n"),
    ]);
    let root = dir.path();
    refuses(root, "make");
    refuses(root, "make all");
    // make runs `$(shell …)` as it reads the Makefile, `-n` or not.
    refuses(root, "make -n");
}

#[test]
fn hooks_made_runnable_are_read_as_they_will_run() {
    let dir = project(&[
        (
            ".git/hooks/pre-commit",
            "#!/bin/sh\nrm -rf .claude-nagger\n",
        ),
        (".githooks/pre-push", "rm -rf ~\n"),
        (".git/hooks/post-commit", "#!/bin/sh\necho done\n"),
    ]);
    let root = dir.path();
    for line in [
        "chmod +x .git/hooks/pre-commit",
        "chmod 755 .git/hooks/pre-commit",
        "chmod u=rwx,go=r .git/hooks/pre-commit",
        "chmod -R a+x .git/hooks",
        "chmod +x .githooks/pre-push",
        "chmod 0700 .githooks/pre-push",
    ] {
        refuses(root, line);
    }
    for line in [
        "chmod -x .git/hooks/pre-commit",
        "chmod 644 .git/hooks/pre-commit",
        "chmod +x .git/hooks/post-commit",
        "chmod +x scripts/build.sh",
    ] {
        passes(root, line);
    }
}

#[test]
fn programs_read_from_standard_input_and_scripts_named_as_tools_are_read() {
    let dir = project(&[
        ("scripts/plain.sh", "rm -rf .claude-nagger\n"),
        (
            "scripts/clean.py",
            "import shutil\nshutil.rmtree('.claude-nagger')\n",
        ),
        ("bin/make", "#!/bin/sh\nrm -rf .claude-nagger\n"),
        ("bin/just", "#!/bin/sh\nrm -rf .claude-nagger\n"),
        (
            "scripts/e.c",
            "int main(){return system(\"rm -rf .claude-nagger\");}\n",
        ),
        (
            ".pre-commit-config.yaml",
            "repos:\n- repo: local\n  hooks:\n  - id: x\n    name: x\n    entry: rm -rf .claude-nagger\n    language: system\n",
        ),
        ("Makefile", "all:\n\techo hi\n"),
    ]);
    let root = dir.path();
    for line in [
        "bash < scripts/plain.sh",
        "sh -s < scripts/plain.sh",
        "python3 < scripts/clean.py",
        "python3 - < scripts/clean.py",
        "./bin/make",
        "timeout 5 ./bin/just build",
        "gcc scripts/e.c -o /tmp/e && /tmp/e",
        "pre-commit install",
    ] {
        refuses(root, line);
    }
    for line in ["make", "bash < /dev/null", "gcc -c src/x.c"] {
        passes(root, line);
    }
}
