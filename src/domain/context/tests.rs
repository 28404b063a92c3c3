use super::*;
use crate::domain::config::ContextConfig;
use crate::storage::store::NaggerStateDB;
use crate::storage::store::NewContextEntry;
use std::collections::BTreeMap;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn config(filters: &[(&str, &[&str])], max_summary_chars: usize) -> ContextConfig {
    ContextConfig {
        max_summary_chars,
        filters: filters
            .iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(ToString::to_string).collect()))
            .collect::<BTreeMap<_, _>>(),
        ..ContextConfig::default()
    }
}

fn db() -> (tempfile::TempDir, NaggerStateDB) {
    let dir = tempfile::tempdir().unwrap();
    let db = NaggerStateDB::open(&dir.path().join("state.db")).unwrap();
    (dir, db)
}

fn store(db: &NaggerStateDB, session: &str, agent: &str, role: &str, content: &str) {
    let c = ContextConfig::default();
    let category = category_of(&c, Some(role), role);
    db.context()
        .insert(&NewContextEntry {
            session_id: session,
            agent_id: Some(agent),
            agent_type: Some(role),
            role: Some(role),
            category: &category,
            content,
            ..Default::default()
        })
        .unwrap();
}

fn sub<'a>(session: &'a str, role: &'a str) -> Audience<'a> {
    Audience::Subagent {
        session_id: session,
        agent_id: None,
        agent_type: role,
        role: Some(role),
    }
}

#[test]
fn categories_come_from_config_then_builtin_map() {
    let mut c = ContextConfig::default();
    assert_eq!(category_of(&c, Some("navigator"), "x"), "navigation");
    assert_eq!(category_of(&c, None, "Explore"), "navigation");
    assert_eq!(
        category_of(&c, Some("coder"), "general-purpose"),
        "code_changes"
    );
    assert_eq!(category_of(&c, None, "implementer"), "code_changes");
    assert_eq!(category_of(&c, None, "reviewer"), "review");
    assert_eq!(category_of(&c, Some("qa"), "x"), "test");
    assert_eq!(category_of(&c, None, "general-purpose"), "other");
    c.categories
        .insert("researcher".into(), "navigation".into());
    c.categories.insert("coder".into(), "patches".into());
    assert_eq!(category_of(&c, None, "researcher"), "navigation");
    assert_eq!(category_of(&c, Some("coder"), "coder"), "patches");
}

#[test]
fn filters_absent_type_gets_all_and_empty_list_gets_nothing() {
    let c = config(&[("coder", &["navigation"]), ("navigator", &[])], 4000);
    assert_eq!(
        categories_received(&c, Some("coder"), "x"),
        Some(vec!["navigation".into()])
    );
    assert_eq!(categories_received(&c, None, "navigator"), Some(vec![]));
    assert_eq!(categories_received(&c, Some("tester"), "tester"), None);
}

#[test]
fn coder_receives_navigation_navigator_nothing_reviewer_both() {
    let (_d, db) = db();
    store(
        &db,
        "s",
        "nav-1",
        "navigator",
        "[COMPRESSED] nav found src/auth.rs",
    );
    store(
        &db,
        "s",
        "cod-1",
        "coder",
        "[COMPRESSED] coder changed src/auth.rs",
    );
    store(&db, "s", "rev-1", "reviewer", "[COMPRESSED] review PASS");
    let c = config(
        &[
            ("coder", &["navigation"]),
            ("reviewer", &["navigation", "code_changes"]),
            ("navigator", &[]),
        ],
        4000,
    );
    let coder = select(&db, &c, &sub("s", "coder")).unwrap();
    assert!(coder.text.contains("nav found") && !coder.text.contains("coder changed"));
    let navigator = select(&db, &c, &sub("s", "navigator")).unwrap();
    assert_eq!(navigator.text, "");
    let reviewer = select(&db, &c, &sub("s", "reviewer")).unwrap();
    assert!(reviewer.text.contains("nav found") && reviewer.text.contains("coder changed"));
    assert!(!reviewer.text.contains("review PASS"));
    let order: Vec<&str> = reviewer
        .entries
        .iter()
        .map(|p| p.entry.agent_id.as_deref().unwrap())
        .collect();
    assert_eq!(order, ["cod-1", "nav-1"], "newest first");
}

#[test]
fn digest_is_capped_in_whole_entries() {
    let (_d, db) = db();
    for i in 0..10 {
        store(
            &db,
            "s",
            &format!("a{i}"),
            "navigator",
            &format!("entry {i} {}", "x".repeat(300)),
        );
    }
    let c = config(&[], 1000);
    let d = select(&db, &c, &sub("s", "coder")).unwrap();
    assert!(d.text.chars().count() <= 1000, "{}", d.text.len());
    assert!(!d.entries.is_empty() && d.entries.len() < 10);
    for p in &d.entries {
        assert!(
            d.text.contains(&p.entry.content),
            "entry {} is whole",
            p.entry.id
        );
    }
    let tiny = config(&[], 10);
    assert_eq!(select(&db, &tiny, &sub("s", "coder")).unwrap().text, "");
}

#[test]
fn other_sessions_contribute_same_role_and_decisions_and_tagged() {
    let (_d, db) = db();
    store(&db, "old", "c0", "coder", "old coder result");
    store(&db, "old", "n0", "navigator", "old nav result");
    let decision = vec!["decision".to_string()];
    let for_coder = vec!["coder".to_string()];
    for (content, tags) in [
        ("we chose sqlite", &decision),
        ("coder: mind the WAL", &for_coder),
    ] {
        db.context()
            .insert(&NewContextEntry {
                session_id: "old",
                agent_id: Some("x"),
                category: "other",
                content,
                tags,
                ..Default::default()
            })
            .unwrap();
    }
    let d = select(&db, &config(&[], 4000), &sub("new", "coder")).unwrap();
    let stages: Vec<(Stage, &str)> = d
        .entries
        .iter()
        .map(|p| (p.stage, p.entry.content.as_str()))
        .collect();
    assert!(
        stages.contains(&(Stage::SameRole, "old coder result")),
        "{stages:?}"
    );
    assert!(
        stages.contains(&(Stage::CrossSession, "we chose sqlite")),
        "{stages:?}"
    );
    assert!(
        stages.contains(&(Stage::Tagged, "coder: mind the WAL")),
        "{stages:?}"
    );
    assert!(
        !stages.iter().any(|(_, c)| *c == "old nav result"),
        "not stage 1-4, and 1-4 found some"
    );
    let fallback = select(&db, &config(&[], 4000), &sub("new", "tester")).unwrap();
    assert!(fallback.entries.iter().all(|p| p.stage != Stage::SameRole));
    let d2 = select(
        &db,
        &config(&[("tester", &["navigation"])], 4000),
        &sub("new", "tester"),
    )
    .unwrap();
    assert_eq!(d2.entries.len(), 1);
    assert_eq!(d2.entries[0].stage, Stage::Recent);
}

#[test]
fn open_tasks_of_the_role_are_listed() {
    let (_d, db) = db();
    db.context()
        .add_task("coder", "fix login", Some("users see 500"))
        .unwrap();
    db.context()
        .add_task("reviewer", "review auth", None)
        .unwrap();
    let d = select(&db, &config(&[], 4000), &sub("s", "coder")).unwrap();
    assert!(
        d.text
            .contains("### Open tasks for coder\n- #1 fix login: users see 500"),
        "{}",
        d.text
    );
    assert!(!d.text.contains("review auth"));
}

#[test]
fn report_paths_stay_inside_the_context_folder() {
    let root = Path::new("/p");
    let p = report_path(root, "../../s", "../x", "../../etc/x");
    assert!(is_inside_context(root, &p), "{}", p.display());
    let name = p.strip_prefix("/p/.claude-nagger/context/").unwrap();
    let parts: Vec<&str> = name.to_str().unwrap().split('/').collect();
    assert_eq!(parts.len(), 2, "{}", p.display());
    assert!(parts[0].starts_with("_._.._s~"), "{}", p.display());
    assert!(parts[1].starts_with("_._x~") && parts[1].contains("-_._.._etc_x~"));
    assert!(!is_inside_context(
        root,
        Path::new("/p/.claude-nagger/context/../state.db")
    ));
    assert!(!is_inside_context(root, &context_root(root)));
}

#[cfg(unix)]
#[test]
fn reports_behind_symlinks_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    assert!(
        ensure_session_dir(&root, "s").is_err(),
        "a missing project is not made"
    );
    std::fs::create_dir(&root).unwrap();
    std::fs::write(outside.join("secret.md"), "secret").unwrap();
    let sdir = ensure_session_dir(&root, "s").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.md"), sdir.join("coder-a.md")).unwrap();
    let path = report_path(&root, "s", "coder", "a");
    assert_eq!(read_report(&root, &path, 1000).unwrap(), None);
    std::os::unix::fs::symlink(&outside, context_root(&root).join("t")).unwrap();
    let via_dir = report_path(&root, "t", "secret", "x");
    assert_eq!(read_report(&root, &via_dir, 1000).unwrap(), None);
    assert!(ensure_session_dir(&root, "t").is_err());
    std::fs::write(sdir.join("coder-b.md"), "mine").unwrap();
    assert_eq!(
        read_report(&root, &report_path(&root, "s", "coder", "b"), 2)
            .unwrap()
            .as_deref(),
        Some("mi")
    );
}

#[test]
fn file_names_are_one_to_one() {
    let root = Path::new("/p");
    let names: Vec<PathBuf> = [
        ("s", "coder", "x/y"),
        ("s", "coder", "x_y"),
        ("s", "coder", "x_y~0000000"),
        ("s/t", "coder", "a"),
        ("s_t", "coder", "a"),
    ]
    .iter()
    .map(|(s, t, a)| report_path(root, s, t, a))
    .collect();
    let unique: HashSet<&PathBuf> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    assert_eq!(
        report_path(root, "6f1c-4e", "code-reviewer", "a1b2c3"),
        Path::new("/p/.claude-nagger/context/6f1c-4e/code-reviewer-a1b2c3.md")
    );
}

#[cfg(unix)]
#[test]
fn hard_linked_reports_and_a_linked_context_folder_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir(&root).unwrap();
    let sdir = ensure_session_dir(&root, "s").unwrap();
    std::fs::write(outside.join("secret"), "secret").unwrap();
    let path = report_path(&root, "s", "coder", "a");
    std::fs::hard_link(outside.join("secret"), &path).unwrap();
    assert_eq!(read_report(&root, &path, 1000).unwrap(), None);
    std::fs::remove_dir_all(&sdir).unwrap();
    std::fs::remove_dir(context_root(&root)).unwrap();
    std::os::unix::fs::symlink(&outside, context_root(&root)).unwrap();
    assert!(ensure_session_dir(&root, "s2").is_err());
    assert!(write_summary(&root, "s2", "x").is_err());
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        1,
        "nothing made outside"
    );
}

#[test]
fn cut_chars_counts_characters_not_bytes() {
    assert_eq!(crate::base::text::cut("ééé", 3), "ééé");
    assert_eq!(crate::base::text::cut("éééé", 3), "éé…");
}
