use super::*;

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
        assert!(written_by_tool("Write", &input, &scope).is_some(), "{path}");
    }
    let input = serde_json::json!({ "file_path": "c/agents/x.md" });
    assert!(written_by_tool("Write", &input, &scope).is_none());
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
    let many = (0..20)
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
