//! Shared context between agents: results collected at SubagentStop, the digest
//! injected at SubagentStart and after a compaction, tasks, file changes, the
//! session summary, and what ids from the input can never reach.

use crate::common::*;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

const EXAMPLE_CONTEXT: &str = r#"
[context]
max_summary_chars = 4000
[context.filters]
coder = ["navigation"]
reviewer = ["navigation", "code_changes"]
navigator = []
"#;

const INSTRUCTION: &str = "---\n[nagger] When you finish, write your report to ";

fn start(p: &Project, id: &str, ty: &str) -> String {
    let r = p.hook(&p.subagent_start(id, ty));
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "start {id}");
    r.additional_context()
}

fn stop(p: &Project, id: &str, ty: &str, message: &str) -> HookResult {
    let r = p.hook(&p.subagent_stop(id, ty, Some(message), false));
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "stop {id}");
    assert_eq!(r.stdout.trim(), "", "stop {id} passes");
    r
}

fn report(ty: &str, result: &str) -> String {
    format!("[COMPRESSED] agent_type: {ty}\nResult: {result}")
}

/// The digest part of a SubagentStart context: what comes before the instruction.
fn digest_of(context: &str) -> &str {
    match context.find(INSTRUCTION) {
        Some(at) => context[..at].trim_end(),
        None => context,
    }
}

/// The report path the instruction names.
fn report_path_in(context: &str) -> PathBuf {
    let at = context.find(INSTRUCTION).expect("instruction") + INSTRUCTION.len();
    let rest = &context[at..];
    PathBuf::from(&rest[..rest.find(" (what you found").expect("path end")])
}

fn entries(p: &Project) -> Vec<(String, String, String, Value)> {
    let c = p.db();
    let mut stmt = c
        .prepare("SELECT agent_id, category, content, files FROM context_entries ORDER BY id")
        .unwrap();
    stmt.query_map([], |r| {
        let files: String = r.get(3)?;
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            serde_json::from_str(&files).unwrap_or(Value::Null),
        ))
    })
    .unwrap()
    .map(|r| r.unwrap())
    .collect()
}

#[test]
fn a_navigators_result_reaches_a_later_coder_and_reviewer_but_not_a_navigator() {
    let p = Project::with_config(EXAMPLE_CONTEXT);
    p.hook(&p.session_start("startup"));
    start(&p, "nav-1", "navigator");
    stop(
        &p,
        "nav-1",
        "navigator",
        &report("navigator", "auth lives in src/auth.rs"),
    );

    let coder = start(&p, "cod-1", "coder");
    assert!(coder.contains("auth lives in src/auth.rs"), "{coder}");
    assert!(
        coder.contains("### navigation · navigator nav-1 · this session"),
        "{coder}"
    );
    let path = report_path_in(&coder);
    assert!(
        path.ends_with(".claude-nagger/context/sess-1/coder-cod-1.md"),
        "{}",
        path.display()
    );
    assert!(path.is_absolute(), "Write needs an absolute path");

    let navigator = start(&p, "nav-2", "navigator");
    assert!(
        navigator.starts_with(INSTRUCTION),
        "filter [] gets nothing: {navigator}"
    );

    stop(
        &p,
        "cod-1",
        "coder",
        &report("coder", "added the token check"),
    );
    let reviewer = start(&p, "rev-1", "reviewer");
    let digest = digest_of(&reviewer);
    let coder_at = digest.find("added the token check").expect("code_changes");
    let nav_at = digest
        .find("auth lives in src/auth.rs")
        .expect("navigation");
    assert!(coder_at < nav_at, "newest first: {digest}");
    assert!(digest.chars().count() <= 4000);

    stop(
        &p,
        "rev-1",
        "reviewer",
        &report("reviewer", "Verdict: PASS"),
    );
    let coder2 = start(&p, "cod-2", "coder");
    assert!(
        !coder2.contains("added the token check") && !coder2.contains("Verdict"),
        "{coder2}"
    );
    let tester = start(&p, "tst-1", "tester");
    for all in ["auth lives", "added the token check", "Verdict: PASS"] {
        assert!(
            tester.contains(all),
            "a type without a filter gets all: {tester}"
        );
    }
}

#[test]
fn the_digest_never_exceeds_max_summary_chars_and_holds_whole_entries() {
    let p = Project::with_config("[context]\nmax_summary_chars = 900\nmax_entry_chars = 400\n");
    let mut results = Vec::new();
    for i in 0..12 {
        let id = format!("nav-{i}");
        let result = format!("finding {i}: {}", "detail ".repeat(40));
        start(&p, &id, "navigator");
        stop(&p, &id, "navigator", &report("navigator", &result));
        results.push(result);
    }
    let context = start(&p, "cod-1", "coder");
    let digest = digest_of(&context);
    assert!(digest.chars().count() <= 900, "{}", digest.chars().count());
    let shown: Vec<&String> = results
        .iter()
        .filter(|r| digest.contains(r.trim()))
        .collect();
    assert!(!shown.is_empty());
    assert_eq!(
        shown.len(),
        digest.matches("### navigation").count(),
        "every entry shown is shown whole"
    );
    assert!(digest.contains("finding 11:"), "the newest made it in");

    let json: Value =
        serde_json::from_str(&p.run(&["context", "--role", "coder", "--json"]).stdout).unwrap();
    assert!(json["digest_chars"].as_u64().unwrap() <= 900);
    assert_eq!(json["entries"].as_array().unwrap().len(), shown.len());
}

#[test]
fn with_nothing_to_share_a_subagent_gets_only_the_instruction() {
    let p = Project::with_config("");
    let context = start(&p, "cod-1", "coder");
    assert!(context.starts_with(INSTRUCTION), "{context}");
    assert!(
        context.contains("[COMPRESSED] agent_type: coder"),
        "{context}"
    );
    assert!(
        p.root.join(".claude-nagger/context/sess-1").is_dir(),
        "the report folder is ready"
    );
}

#[test]
fn the_agents_own_report_file_wins_over_its_compressed_block() {
    let p = Project::with_config("");
    let context = start(&p, "cod-1", "coder");
    let path = report_path_in(&context);
    std::fs::write(&path, "# coder report\nChanged src/auth.rs: token check.\n").unwrap();
    stop(&p, "cod-1", "coder", &report("coder", "the block"));
    let stored = entries(&p);
    assert_eq!(
        stored[0].2,
        "# coder report\nChanged src/auth.rs: token check."
    );

    start(&p, "cod-2", "coder");
    stop(
        &p,
        "cod-2",
        "coder",
        &format!("Long talk.\n{}", report("coder", "the block")),
    );
    assert_eq!(
        entries(&p)[1].2,
        report("coder", "the block"),
        "else the block alone"
    );
}

#[test]
fn without_a_report_or_block_the_final_message_is_cut_to_max_entry_chars() {
    let p = Project::with_config("[compress]\nenabled = false\n[context]\nmax_entry_chars = 100\n");
    start(&p, "ag-1", "general-purpose");
    let long = "word ".repeat(200);
    stop(&p, "ag-1", "general-purpose", &long);
    let (_, category, content, _) = entries(&p).remove(0);
    assert_eq!(category, "other");
    assert_eq!(content.chars().count(), 100);
    assert!(content.starts_with("word word") && content.ends_with('…'));
}

#[test]
fn categories_follow_the_configured_map() {
    let p = Project::with_config("[context.categories]\nresearcher = \"navigation\"\n");
    start(&p, "rs-1", "researcher");
    stop(
        &p,
        "rs-1",
        "researcher",
        &report("researcher", "docs are in docs/"),
    );
    start(&p, "ex-1", "Explore");
    stop(&p, "ex-1", "Explore", &report("Explore", "tests in tests/"));
    let cats: Vec<String> = entries(&p).into_iter().map(|e| e.1).collect();
    assert_eq!(cats, ["navigation", "navigation"]);
}

#[test]
fn files_written_come_from_the_agent_transcript_and_post_tool_use() {
    let p = Project::with_config("");
    start(&p, "cod-1", "coder");
    let abs = p.root.join("src/lib.rs").display().to_string();
    append_lines(
        &p.agent_transcript("cod-1"),
        &[
            file_tool_line("m1", "Edit", &abs),
            file_tool_line("m2", "Write", "/elsewhere/notes.md"),
            file_tool_line("m3", "Edit", &abs),
        ],
    );
    let mut post = p.post_tool_use(
        "MultiEdit",
        json!({"file_path": p.root.join("src/main.rs").display().to_string()}),
    );
    post["agent_id"] = json!("cod-1");
    post["agent_type"] = json!("coder");
    p.hook(&post);
    stop(&p, "cod-1", "coder", &report("coder", "refactored"));
    let (_, _, _, files) = entries(&p).remove(0);
    assert_eq!(
        files,
        json!(["src/lib.rs", "/elsewhere/notes.md", "src/main.rs"])
    );
    let reviewer = start(&p, "rev-1", "reviewer");
    assert!(
        reviewer.contains("Files written: src/lib.rs, /elsewhere/notes.md, src/main.rs"),
        "{reviewer}"
    );
}

#[test]
fn post_tool_use_records_file_changes_and_usage() {
    let p = Project::with_config("");
    let file = |name: &str| p.root.join(name).display().to_string();
    p.hook(&p.post_tool_use("Write", json!({"file_path": file("a.rs")})));
    p.hook(&p.post_tool_use("Edit", json!({"file_path": file("a.rs")})));
    p.hook(&p.post_tool_use("NotebookEdit", json!({"notebook_path": file("n.ipynb")})));
    let mut sub = p.post_tool_use("MultiEdit", json!({"file_path": file("b.rs")}));
    sub["agent_id"] = json!("ag-1");
    p.hook(&sub);
    p.hook(&p.post_tool_use("Read", json!({"file_path": file("c.rs")})));
    p.hook(&p.post_tool_use("Skill", json!({"skill": "compress-output"})));
    let c = p.db();
    let mut stmt = c
        .prepare("SELECT agent_id, path, tool, changes FROM file_changes ORDER BY path")
        .unwrap();
    let rows: Vec<(String, String, String, i64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(
        rows,
        [
            (String::new(), "a.rs".into(), "Edit".into(), 2),
            ("ag-1".into(), "b.rs".into(), "MultiEdit".into(), 1),
            (String::new(), "n.ipynb".into(), "NotebookEdit".into(), 1),
        ]
    );
    let skill: i64 = c
        .query_row(
            "SELECT count FROM usage_counts WHERE kind = 'skill' AND name = 'compress-output'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(skill, 1);
}

#[test]
fn after_every_compaction_the_main_agent_receives_the_digest() {
    let p = Project::with_config(EXAMPLE_CONTEXT);
    p.hook(&p.session_start("startup"));
    start(&p, "nav-1", "navigator");
    stop(
        &p,
        "nav-1",
        "navigator",
        &report("navigator", "routes in src/routes.rs"),
    );
    start(&p, "cod-1", "coder");
    stop(&p, "cod-1", "coder", &report("coder", "added /login"));
    p.hook(&p.post_tool_use(
        "Edit",
        json!({"file_path": p.root.join("src/routes.rs").display().to_string()}),
    ));
    for round in 0..2 {
        p.append(&[compact_boundary_line()]);
        let r = p.hook(&p.session_start("compact"));
        assert_eq!((r.code, r.stderr.as_str()), (0, ""));
        let context = r.additional_context();
        assert!(
            context.contains("routes in src/routes.rs"),
            "round {round}: {context}"
        );
        assert!(
            context.contains("added /login"),
            "the main agent gets every category"
        );
        assert!(
            context
                .contains("### Files changed in this session\n- src/routes.rs (Edit, main agent)"),
            "{context}"
        );
        assert!(
            !context.contains("write your report"),
            "no report for the main agent"
        );
        assert!(context.chars().count() <= 4000);
        let shown = p.run(&["context"]);
        assert_eq!(
            shown.stdout.trim_end(),
            context,
            "`nagger context` shows the same"
        );
    }
}

#[test]
fn nagger_context_prints_exactly_what_a_new_agent_receives() {
    let p = Project::with_config(EXAMPLE_CONTEXT);
    start(&p, "nav-1", "navigator");
    stop(
        &p,
        "nav-1",
        "navigator",
        &report("navigator", "the schema is in migrations/"),
    );
    p.run(&[
        "task",
        "add",
        "--role",
        "coder",
        "Fix login",
        "--description",
        "500 on bad password",
    ]);
    let shown = p.run(&["context", "--session", "sess-1", "--role", "coder"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    let received = start(&p, "cod-7", "coder");
    assert_eq!(
        shown.stdout.trim_end(),
        received.replace("coder-cod-7.md", "coder-<agent_id>.md")
    );
    let json: Value =
        serde_json::from_str(&p.run(&["context", "--role", "coder", "--json"]).stdout).unwrap();
    assert_eq!(json["session_id"], "sess-1");
    assert_eq!(json["categories"], json!(["navigation"]));
    assert_eq!(json["entries"][0]["agent_id"], "nav-1");
    assert_eq!(json["entries"][0]["stage"], "session");
    assert_eq!(json["tasks"][0]["title"], "Fix login");
    assert_eq!(json["text"].as_str().unwrap(), shown.stdout.trim_end());
}

#[test]
fn open_tasks_reach_agents_of_their_role_until_done() {
    let p = Project::with_config("");
    let added = p.run(&[
        "task",
        "add",
        "--role",
        "coder",
        "Fix login",
        "--description",
        "500 on bad password",
    ]);
    assert_eq!(
        added.stdout.trim(),
        "task #1 added for coder",
        "{}",
        added.stderr
    );
    p.run(&["task", "add", "--role", "reviewer", "Review auth"]);
    let list = p.run(&["task", "list"]);
    assert!(
        list.stdout.contains("#1") && list.stdout.contains("Review auth"),
        "{}",
        list.stdout
    );
    let coder = start(&p, "cod-1", "coder");
    assert!(
        coder.contains("### Open tasks for coder\n- #1 Fix login: 500 on bad password"),
        "{coder}"
    );
    assert!(!coder.contains("Review auth"));
    assert!(
        p.run(&["task", "done", "1"])
            .stdout
            .contains("task #1 done")
    );
    assert!(!start(&p, "cod-2", "coder").contains("Fix login"));
    assert!(
        p.run(&["task", "done", "1"])
            .stdout
            .contains("already done")
    );
    let missing = p.run(&["task", "done", "99"]);
    assert_eq!(missing.code, 1);
    assert!(missing.stderr.contains("no task #99"));
    let json: Value =
        serde_json::from_str(&p.run(&["task", "list", "--all", "--json"]).stdout).unwrap();
    let statuses: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["open", "done"]);
}

#[test]
fn decisions_and_tagged_handoffs_cross_sessions() {
    let p = Project::with_config("");
    start(&p, "cod-1", "coder");
    stop(
        &p,
        "cod-1",
        "coder",
        "[COMPRESSED] agent_type: coder\nResult: done\nDecisions: keep WAL mode\nBlockers: none",
    );
    start(&p, "nav-1", "navigator");
    stop(
        &p,
        "nav-1",
        "navigator",
        "[COMPRESSED] agent_type: navigator\nResult: ui in web/\nTags: designer",
    );
    let mut next = Project::with_config("");
    // The same project, a later session.
    next.root = p.root.clone();
    next.session = "sess-2".into();
    let designer = start(&next, "des-1", "designer");
    assert!(designer.contains("keep WAL mode"), "stage 3: {designer}");
    assert!(designer.contains("ui in web/"), "stage 4: {designer}");
    assert!(designer.contains("session sess-1"), "{designer}");
}

#[test]
fn session_end_writes_the_summary_and_its_metrics() {
    let p = Project::with_config("");
    p.hook(&p.session_start("startup"));
    start(&p, "nav-1", "navigator");
    stop(
        &p,
        "nav-1",
        "navigator",
        &report("navigator", "found the parser"),
    );
    p.hook(&p.post_tool_use(
        "Write",
        json!({"file_path": p.root.join("x.rs").display().to_string()}),
    ));
    let r = p.hook(&p.session_end("logout"));
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let summary =
        std::fs::read_to_string(p.root.join(".claude-nagger/context/sess-1/_summary.md")).unwrap();
    assert!(
        summary.starts_with("# Shared Context Summary\n> Session: sess-1"),
        "{summary}"
    );
    assert!(
        summary.contains("## navigation") && summary.contains("found the parser"),
        "{summary}"
    );
    assert!(
        summary.contains("- x.rs (Write ×1, main agent)"),
        "{summary}"
    );
    let (_, _, details) = p
        .hook_log()
        .into_iter()
        .find(|(event, _, _)| event == "SessionEnd")
        .unwrap();
    assert_eq!(details["metrics"]["agents"], 1);
    assert_eq!(details["metrics"]["context_entries"], 1);
    assert_eq!(details["metrics"]["files_changed"], 1);
    assert!(
        details["summary"]
            .as_str()
            .unwrap()
            .ends_with("_summary.md")
    );
}

#[test]
fn eight_subagents_stopping_at_once_leave_eight_entries() {
    for round in 0..5 {
        let p = Project::with_config("");
        let ids: Vec<String> = (0..8).map(|i| format!("ag-{round}-{i}")).collect();
        for id in &ids {
            start(&p, id, "coder");
        }
        let children: Vec<_> = ids
            .iter()
            .map(|id| {
                let message = report("coder", &format!("result of {id}"));
                p.spawn_hook(&p.subagent_stop(id, "coder", Some(&message), false))
            })
            .collect();
        for (i, r) in children.into_iter().map(finish).enumerate() {
            assert_eq!(
                (r.code, r.stdout.as_str(), r.stderr.as_str()),
                (0, "", ""),
                "round {round} stop {i}"
            );
        }
        let c = p.db();
        let count = |sql: &str| -> i64 { c.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(
            count("SELECT count(DISTINCT agent_id) FROM context_entries"),
            8,
            "round {round}"
        );
        assert_eq!(
            count("SELECT count(*) FROM subagent_history"),
            8,
            "round {round}"
        );
        assert_eq!(count("SELECT count(*) FROM subagents"), 0, "round {round}");
    }
}

// ── ids from the input are data ──

/// Every file under `dir`, except nagger's own folder.
fn files_outside_nagger(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let path = e.path();
            if path.file_name().is_some_and(|n| n == ".claude-nagger") {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                out.insert(path);
            }
        }
    }
    out
}

#[test]
fn hostile_ids_cannot_make_nagger_read_or_write_outside_the_context_folder() {
    let mut p = Project::with_config("[compress]\nenabled = false\n");
    let base = p.root.parent().unwrap().to_path_buf();
    for secret in [
        base.join("secret.md"),
        p.root.join("secret.md"),
        p.root.join("etc/x.md"),
    ] {
        std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
        std::fs::write(&secret, "SECRET").unwrap();
    }
    let before = files_outside_nagger(&base);
    let context_root = p.root.join(".claude-nagger/context");
    p.session = "../../../hostile".into();
    for (id, ty) in [
        ("../../etc/x", "coder"),
        ("../../../../../secret", "../.."),
        ("/etc/passwd", "x/../../../"),
    ] {
        let context = start(&p, id, ty);
        let path = report_path_in(&context);
        assert!(path.starts_with(&context_root), "{}", path.display());
        assert!(
            path.components()
                .all(|c| !matches!(c, Component::ParentDir)),
            "{}",
            path.display()
        );
        // No final message, no transcript: a report file would be the only content.
        let mut input = p.subagent_stop(id, ty, None, false);
        input
            .as_object_mut()
            .unwrap()
            .remove("agent_transcript_path");
        let r = p.hook(&input);
        assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    }
    assert!(
        entries(&p).iter().all(|e| !e.2.contains("SECRET")),
        "{:?}",
        entries(&p)
    );
    let r = p.hook(&p.session_end("logout"));
    assert_eq!(r.code, 0);
    let summary = nagger::domain::context::session_dir(&p.root, &p.session).join("_summary.md");
    assert!(summary.starts_with(&context_root) && summary.is_file());
    assert_eq!(
        files_outside_nagger(&base),
        before,
        "nothing written outside"
    );
}

#[cfg(unix)]
#[test]
fn symlinks_inside_the_context_folder_do_not_lead_out() {
    let mut p = Project::with_config("[compress]\nenabled = false\n");
    let outside = p.root.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.md"), "SECRET").unwrap();
    // A report that is a symlink to a secret.
    let report = nagger::domain::context::report_path(&p.root, "sess-1", "coder", "ag-1");
    std::fs::create_dir_all(report.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.md"), &report).unwrap();
    start(&p, "ag-1", "coder");
    p.hook(&p.subagent_stop("ag-1", "coder", None, false));
    // A session folder that is a symlink to somewhere else.
    p.session = "sess-2".into();
    std::os::unix::fs::symlink(&outside, p.root.join(".claude-nagger/context/sess-2")).unwrap();
    std::fs::write(outside.join("coder-ag-2.md"), "SECRET").unwrap();
    let r = p.hook(&p.subagent_start("ag-2", "coder"));
    assert!(
        r.stderr.contains("leads outside"),
        "said, not followed: {}",
        r.stderr
    );
    p.hook(&p.subagent_stop("ag-2", "coder", None, false));
    p.hook(&p.session_end("logout"));
    assert!(entries(&p).is_empty(), "{:?}", entries(&p));
    let names: BTreeSet<String> = std::fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        BTreeSet::from(["secret.md".into(), "coder-ag-2.md".into()])
    );
}

// ── the digest under random histories ──

#[derive(Debug, Clone)]
enum Op {
    Start(usize),
    Stop {
        pick: usize,
        words: usize,
        same: bool,
    },
    Compact,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0usize..4).prop_map(Op::Start),
        3 => (0usize..64, 1usize..60, prop::bool::weighted(0.2))
            .prop_map(|(pick, words, same)| Op::Stop { pick, words, same }),
        1 => Just(Op::Compact),
    ]
}

const TYPES: [&str; 4] = ["navigator", "coder", "reviewer", "tester"];
const MAX_DIGEST: usize = 700;

/// Runs the hook in this process (the handler the binary runs), for speed.
fn hook_in_process(p: &Project, input: &Value) -> String {
    let env = nagger::base::paths::Env {
        project_dir: Some(p.root.clone()),
        db_override: None,
        cwd: p.root.clone(),
    };
    let run = nagger::edge::hook::run(&mut input.to_string().as_bytes(), &env);
    assert_eq!(run.stderr, None, "{input}");
    run.stdout
        .map(|s| {
            let v: Value = serde_json::from_str(&s).unwrap();
            v["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_default()
}

/// The agent ids of a digest's entries, in the order shown.
fn shown_agents(digest: &str) -> Vec<String> {
    digest
        .lines()
        .filter(|l| l.starts_with("### ") && l.contains(" · "))
        .map(|l| {
            let who = l.split(" · ").nth(1).unwrap();
            who.rsplit(' ').next().unwrap().to_string()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Whatever the history, every digest fits max_summary_chars and lists each entry
    /// once, newest first.
    #[test]
    fn digest_is_bounded_newest_first_and_without_duplicates(ops in prop::collection::vec(op(), 1..40)) {
        let p = Project::with_config(&EXAMPLE_CONTEXT.replace(
            "max_summary_chars = 4000",
            &format!("max_summary_chars = {MAX_DIGEST}\nmax_entry_chars = 300"),
        ));
        let mut running: Vec<(String, &str)> = Vec::new();
        let mut stop_seq: HashMap<String, usize> = HashMap::new();
        let mut next = 0;
        let check = |digest: &str, stop_seq: &HashMap<String, usize>, who: &str| -> Result<(), TestCaseError> {
            prop_assert!(digest.chars().count() <= MAX_DIGEST, "{who}: {} chars", digest.chars().count());
            let agents = shown_agents(digest);
            let unique: HashSet<&String> = agents.iter().collect();
            prop_assert_eq!(unique.len(), agents.len(), "{}: duplicates in {:?}", who, agents);
            let seqs: Vec<usize> = agents.iter().map(|a| stop_seq[a]).collect();
            prop_assert!(seqs.windows(2).all(|w| w[0] > w[1]), "{}: not newest first {:?}", who, seqs);
            Ok(())
        };
        for op in ops {
            match op {
                Op::Start(t) => {
                    let id = format!("ag-{next}");
                    next += 1;
                    let context = hook_in_process(&p, &p.subagent_start(&id, TYPES[t]));
                    prop_assert!(context.contains(INSTRUCTION));
                    let digest = digest_of(&context);
                    check(digest, &stop_seq, &id)?;
                    if TYPES[t] == "navigator" {
                        prop_assert_eq!(digest, "", "filter [] gets nothing");
                    }
                    running.push((id, TYPES[t]));
                }
                Op::Stop { pick, words, same } => {
                    if running.is_empty() {
                        continue;
                    }
                    let (id, ty) = running.remove(pick % running.len());
                    let result = if same { "the same result".to_string() } else { format!("{id} {}", "w ".repeat(words)) };
                    let out = hook_in_process(&p, &p.subagent_stop(&id, ty, Some(&report(ty, &result)), false));
                    prop_assert_eq!(out, "");
                    let seq = stop_seq.len();
                    stop_seq.insert(id, seq);
                }
                Op::Compact => {
                    let context = hook_in_process(&p, &p.session_start("compact"));
                    check(&context, &stop_seq, "compact")?;
                }
            }
        }
    }
}
