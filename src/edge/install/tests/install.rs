//! install and uninstall on real files: backups, refusals, dry runs, the plugin.

use super::*;

#[test]
fn install_keeps_foreign_hooks_and_a_second_run_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let opts = options(dir.path());
    let settings_path = dir.path().join(".claude/settings.json");
    write_json(&settings_path, &foreign_settings());

    let first = install(&opts).unwrap();
    assert!(first.settings_changed);
    assert_eq!(first.added_events, HOOK_EVENTS);
    assert!(first.wrote_config && first.wrote_gitignore);
    let backup = first.backup.clone().unwrap();
    assert_eq!(
        fs::read(&backup).unwrap(),
        to_pretty_json(&foreign_settings())
    );
    let installed = read_json(&settings_path);
    assert_eq!(installed["permissions"], foreign_settings()["permissions"]);
    assert_eq!(installed["env"], foreign_settings()["env"]);
    assert_eq!(
        installed["hooks"]["PreToolUse"][0],
        foreign_settings()["hooks"]["PreToolUse"][0]
    );
    let text = fs::read_to_string(&settings_path).unwrap();
    assert!(text.ends_with("}\n") && text.contains("\n  \"hooks\""));

    let bytes = fs::read(&settings_path).unwrap();
    let second = install(&opts).unwrap();
    assert!(!second.settings_changed);
    assert!(second.backup.is_none());
    assert!(second.added_events.is_empty() && second.updated_events.is_empty());
    assert!(!second.wrote_config && !second.wrote_gitignore);
    assert!(
        second.diff.starts_with("nothing to change"),
        "{}",
        second.diff
    );
    assert_eq!(fs::read(&settings_path).unwrap(), bytes);
    assert_eq!(backups(&opts.backup_dir()).len(), 1);
    assert_eq!(
        backups(&dir.path().join(".claude")),
        ["settings.json"],
        "no backup left beside the shared settings"
    );
    let ignored = fs::read_to_string(opts.gitignore_path()).unwrap();
    assert!(ignored.lines().any(|l| l == "backups/"));
}

#[test]
fn uninstall_leaves_exactly_the_foreign_hooks() {
    let dir = tempfile::tempdir().unwrap();
    let opts = options(dir.path());
    let settings_path = dir.path().join(".claude/settings.json");
    write_json(&settings_path, &foreign_settings());
    install(&opts).unwrap();

    let report = uninstall(&opts).unwrap();
    assert_eq!(report.removed_entries, HOOK_EVENTS.len());
    assert!(report.settings_changed && report.backup.is_some());
    assert!(report.diff.contains("  - PreCompact: "), "{}", report.diff);
    let after = read_json(&settings_path);
    assert_eq!(after, foreign_settings());
    assert_eq!(
        serde_json::to_string(&after).unwrap(),
        serde_json::to_string(&foreign_settings()).unwrap(),
        "key order kept"
    );
    assert_eq!(
        fs::read_to_string(opts.config_path()).unwrap(),
        TEMPLATE,
        "config left alone"
    );

    let again = uninstall(&opts).unwrap();
    assert!(!again.settings_changed && again.backup.is_none());
    assert_eq!(again.removed_entries, 0);
}

#[test]
fn invalid_json_is_refused_and_left_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let opts = options(dir.path());
    let settings_path = dir.path().join(".claude/settings.json");
    fs::create_dir_all(settings_path.parent().unwrap()).unwrap();
    let broken = b"{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n";
    fs::write(&settings_path, broken).unwrap();

    let error = install(&opts).unwrap_err();
    match &error {
        InstallError::InvalidJson { path, line, .. } => {
            assert_eq!(path, &settings_path);
            assert_eq!(*line, 3);
        }
        other => panic!("{other:?}"),
    }
    let message = error.to_string();
    assert!(
        message.contains("settings.json") && message.contains("line 3"),
        "{message}"
    );
    assert!(uninstall(&opts).is_err());
    assert_eq!(fs::read(&settings_path).unwrap(), broken);
    assert!(backups(&opts.backup_dir()).is_empty());
    assert!(
        !dir.path().join(NAGGER_DIR).exists(),
        "nothing else written"
    );
}

#[test]
fn misshapen_settings_are_refused_and_left_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let opts = options(dir.path());
    let settings_path = dir.path().join(".claude/settings.json");
    fs::create_dir_all(settings_path.parent().unwrap()).unwrap();
    let odd = b"{\"hooks\": {\"PreToolUse\": \"nagger hook\"}}";
    fs::write(&settings_path, odd).unwrap();

    let message = install(&opts).unwrap_err().to_string();
    assert!(
        message.contains("settings.json: `hooks.PreToolUse` is a string, not an array"),
        "{message}"
    );
    assert_eq!(fs::read(&settings_path).unwrap(), odd);
}

#[test]
fn install_updates_an_old_command_path() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = options(dir.path());
    opts.command = "/old/nagger hook".into();
    install(&opts).unwrap();
    opts.command = CMD.into();

    let report = install(&opts).unwrap();
    assert!(report.settings_changed && report.backup.is_some());
    assert!(report.added_events.is_empty());
    assert_eq!(report.updated_events, HOOK_EVENTS);
    assert!(report.diff.contains("~ SessionStart: /old/nagger hook -> "));
    let entries = find_nagger_entries(&read_json(&opts.resolved_settings_path()));
    assert_eq!(entries.len(), HOOK_EVENTS.len());
    assert!(entries.values().all(|commands| commands == &[CMD]));
}

#[test]
fn install_creates_missing_files_and_directories() {
    let dir = tempfile::tempdir().unwrap();
    let opts = options(dir.path());
    let report = install(&opts).unwrap();
    assert!(report.settings_changed && report.backup.is_none());
    assert!(report.diff.starts_with("create "), "{}", report.diff);
    let settings = read_json(&opts.resolved_settings_path());
    assert_eq!(settings["hooks"]["PreCompact"], json!([nagger_group(CMD)]));
    assert_eq!(fs::read_to_string(opts.config_path()).unwrap(), TEMPLATE);
    assert_eq!(
        fs::read_to_string(opts.gitignore_path()).unwrap(),
        GITIGNORE
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        // Whatever the umask: 0644 under it, as a plain new file would be, not 0600.
        let mode_of = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let plain = dir.path().join("plain");
        fs::write(&plain, "").unwrap();
        assert_eq!(
            mode_of(&opts.resolved_settings_path()),
            mode_of(&plain) & 0o644
        );
    }
}

#[test]
fn install_never_overwrites_a_users_config_or_gitignore() {
    let dir = tempfile::tempdir().unwrap();
    let opts = options(dir.path());
    fs::create_dir_all(dir.path().join(NAGGER_DIR)).unwrap();
    fs::write(opts.config_path(), "[session]\nenabled = false\n").unwrap();
    fs::write(opts.gitignore_path(), "mine\n").unwrap();

    let report = install(&opts).unwrap();
    assert!(!report.wrote_config);
    assert_eq!(
        fs::read_to_string(opts.config_path()).unwrap(),
        "[session]\nenabled = false\n"
    );
    // The user's lines stay; the backups folder is added so backups stay out of git.
    assert_eq!(
        fs::read_to_string(opts.gitignore_path()).unwrap(),
        "mine\nbackups/\n"
    );
    assert!(report.diff.contains("(+ backups/)"), "{}", report.diff);
    let again = install(&opts).unwrap();
    assert!(!again.wrote_gitignore);
    assert_eq!(
        fs::read_to_string(opts.gitignore_path()).unwrap(),
        "mine\nbackups/\n"
    );
}

#[test]
fn dry_run_reports_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = options(dir.path());
    opts.dry_run = true;
    let report = install(&opts).unwrap();
    assert!(report.settings_changed && report.wrote_config && report.wrote_gitignore);
    assert_eq!(report.added_events, HOOK_EVENTS);
    assert!(report.diff.contains("+ SubagentStop: "), "{}", report.diff);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);

    opts.dry_run = false;
    install(&opts).unwrap();
    let bytes = fs::read(opts.resolved_settings_path()).unwrap();
    opts.dry_run = true;
    let report = uninstall(&opts).unwrap();
    assert_eq!(report.removed_entries, HOOK_EVENTS.len());
    assert!(report.backup.is_none());
    assert_eq!(fs::read(opts.resolved_settings_path()).unwrap(), bytes);
    assert!(backups(&opts.backup_dir()).is_empty());
}

#[test]
fn local_and_explicit_settings_paths() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = options(dir.path());
    opts.local = true;
    let report = install(&opts).unwrap();
    assert_eq!(
        report.settings_path,
        dir.path().join(".claude/settings.local.json")
    );
    assert!(report.settings_path.exists());
    assert!(!dir.path().join(".claude/settings.json").exists());

    let elsewhere = dir.path().join("home/.claude/settings.json");
    opts.settings_path = Some(elsewhere.clone());
    assert_eq!(install(&opts).unwrap().settings_path, elsewhere);
    assert!(elsewhere.exists());
}

#[test]
fn plugin_hooks_cover_every_event_and_run_the_given_command() {
    let files = plugin_files(PORTABLE_COMMAND);
    let hooks: Value = serde_json::from_slice(
        &files
            .iter()
            .find(|(p, _)| *p == "hooks/hooks.json")
            .unwrap()
            .1,
    )
    .unwrap();
    let events: Vec<&str> = hooks["hooks"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(events, HOOK_EVENTS);
    assert_eq!(
        find_nagger_entries(&hooks)
            .values()
            .flatten()
            .collect::<Vec<_>>(),
        vec![PORTABLE_COMMAND; HOOK_EVENTS.len()]
    );
}

#[test]
fn backups_never_overwrite_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let backups = dir.path().join(".claude-nagger/backups");
    let first = back_up(&backups, &path, b"one").unwrap();
    let second = back_up(&backups, &path, b"two").unwrap();
    assert_eq!(first.parent(), Some(backups.as_path()));
    assert_ne!(first, second);
    assert_eq!(fs::read(&first).unwrap(), b"one");
    assert_eq!(fs::read(&second).unwrap(), b"two");
    let name = first.file_name().unwrap().to_string_lossy().into_owned();
    let stamp = name.strip_prefix("settings.json.").unwrap();
    assert!(
        stamp.len() == 14 && stamp.bytes().all(|b| b.is_ascii_digit()),
        "{name}"
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_settings_file_stays_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let opts = options(dir.path());
    let real = dir.path().join("dotfiles/settings.json");
    write_json(&real, &json!({"model": "opus"}));
    fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::os::unix::fs::symlink(&real, opts.resolved_settings_path()).unwrap();

    install(&opts).unwrap();
    let link = fs::symlink_metadata(opts.resolved_settings_path()).unwrap();
    assert!(link.file_type().is_symlink());
    assert_eq!(
        find_nagger_entries(&read_json(&real)).len(),
        HOOK_EVENTS.len()
    );
}

#[test]
fn a_whitespace_only_settings_file_counts_as_empty() {
    let dir = tempfile::tempdir().unwrap();
    let opts = options(dir.path());
    fs::create_dir_all(dir.path().join(".claude")).unwrap();
    fs::write(opts.resolved_settings_path(), "\n").unwrap();
    let report = install(&opts).unwrap();
    assert_eq!(report.added_events, HOOK_EVENTS);
    assert_eq!(fs::read(report.backup.unwrap()).unwrap(), b"\n");
}
