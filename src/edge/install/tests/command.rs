//! The hook command: recognising, quoting, finding nagger on PATH.

use super::*;

#[test]
fn recognises_nagger_commands() {
    for command in [
        "/usr/local/bin/nagger hook",
        "\"/a b/nagger\" hook",
        "'/a b/nagger' hook",
        "/a\\ b/nagger hook",
        "nagger hook",
        "  nagger   hook  ",
        "nagger hook --db /tmp/x.db",
        "$CLAUDE_PROJECT_DIR/target/release/nagger hook",
        "\"$CLAUDE_PROJECT_DIR\"/target/release/nagger hook",
        "\"${CLAUDE_PROJECT_DIR}/target/release/nagger\" hook",
        "./nagger \"hook\"",
        "/usr/bin/nagger-old hook",
        "\"/opt/tools/nagger-0.9-x86_64\" hook",
        "nagger.exe hook",
        CMD,
    ] {
        assert!(is_nagger_command(command), "{command:?}");
    }
}

#[test]
fn rejects_commands_that_are_not_nagger_hook() {
    for command in [
        "naggerx hook",
        "nagger- hook",
        "claude-nagger hook",
        "nagger doctor",
        "nagger",
        "nagger hooks",
        "python nagger.py hook",
        "echo nagger hook",
        "/nagger/bin/tool hook",
        "\"/a b/nagger hook",
        "",
        "   ",
    ] {
        assert!(!is_nagger_command(command), "{command:?}");
    }
}

#[test]
fn hook_command_quotes_paths_so_they_are_recognised() {
    for exe in ["/usr/bin/nagger", "/a b/c\"d/$x`y\\z/nagger"] {
        let command = hook_command(Path::new(exe));
        assert!(is_nagger_command(&command), "{command}");
        let mut words = ShellWords { rest: &command };
        assert_eq!(words.next().as_deref(), Some(exe));
    }
    assert_eq!(
        hook_command(Path::new("/a b/nagger")),
        "\"/a b/nagger\" hook"
    );
}

#[cfg(unix)]
#[test]
fn nagger_counts_as_on_path_only_as_an_executable_file_in_an_absolute_folder() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let (plain, exec, folder) = (
        dir.path().join("plain"),
        dir.path().join("exec"),
        dir.path().join("folder"),
    );
    for d in [&plain, &exec, &folder] {
        fs::create_dir_all(d).unwrap();
    }
    fs::write(plain.join("nagger"), "").unwrap();
    fs::write(exec.join("nagger"), "#!/bin/sh\n").unwrap();
    fs::set_permissions(exec.join("nagger"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::create_dir(folder.join("nagger")).unwrap();
    let path = |dirs: &[&Path]| std::env::join_paths(dirs).unwrap();
    assert_eq!(find_on_path(None), None);
    assert_eq!(find_on_path(Some(&path(&[&plain, &folder]))), None);
    assert_eq!(
        find_on_path(Some(&path(&[&plain, &folder, &exec]))),
        Some(exec.join("nagger"))
    );
    assert_eq!(
        find_on_path(Some(&path(&[Path::new("relative/bin")]))),
        None,
        "a relative PATH entry depends on where Claude Code starts the hook"
    );
}
