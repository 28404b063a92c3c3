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
    passes(root, "python3 -m pytest x.py");
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
    for line in [
        "bash build.sh",
        "./build.sh",
        "make",
        "make test",
        "make clean",
        "npm test",
        "npm install",
        "yarn",
    ] {
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
