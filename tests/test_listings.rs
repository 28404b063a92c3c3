//! `nagger agents`, `nagger sessions` and `nagger gc`: what nagger knows, as tables and
//! JSON, and what a purge removed; none of them creates a database.

use crate::common::*;
use serde_json::{Value, json};

fn json_of(p: &Project, args: &[&str]) -> Value {
    let out = p.run(args);
    assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).expect("JSON")
}

#[test]
fn agents_show_role_source_and_first_call_then_history() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    p.append(&[spawn_line("toolu_a", "coder", "Fix the parser")]);
    p.hook(&p.subagent_start("ag-1", "coder"));
    p.hook(&p.subagent_start("ag-2", "Explore"));
    p.hook(&p.pre_tool_use_as("ag-1", "coder", "Read", json!({"file_path": "a"})));

    let agents = json_of(&p, &["agents", "--json"]);
    let list = agents.as_array().unwrap();
    assert_eq!(list.len(), 2);
    let ag1 = list.iter().find(|a| a["agent_id"] == "ag-1").unwrap();
    assert_eq!(ag1["role_source"], "task_match");
    assert_eq!(ag1["processed"], true);
    assert_eq!(ag1["identified_by"], "direct");
    let ag2 = list.iter().find(|a| a["agent_id"] == "ag-2").unwrap();
    assert_eq!(ag2["processed"], false);

    p.hook(&p.subagent_stop("ag-1", "coder", Some("[COMPRESSED] done"), false));
    assert_eq!(
        json_of(&p, &["agents", "--json"]).as_array().unwrap().len(),
        1
    );
    let all = json_of(&p, &["agents", "--all", "--json"]);
    let finished: Vec<&Value> = all
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["status"] == "finished")
        .collect();
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0]["agent_id"], "ag-1");
    assert!(
        json_of(&p, &["agents", "--session", "other", "--json"])
            .as_array()
            .unwrap()
            .is_empty()
    );
}

const MINUTE_MS: i64 = 60_000;

/// Sets the times of the main session and its agents, which the listings show as ages,
/// to fixed distances from now, halfway into their unit, so the ages read the same
/// however long the test takes.
fn fix_times(p: &Project) {
    let now = chrono::Utc::now().timestamp_millis();
    let db = p.db();
    db.execute(
        "UPDATE session_info SET started_at = ?1, last_seen_at = ?2 WHERE session_id = 'sess-1'",
        [now - 150 * MINUTE_MS, now - 5 * MINUTE_MS - 30_000],
    )
    .unwrap();
    db.execute(
        "UPDATE subagents SET created_at = ?1 - (CASE agent_id WHEN 'ag-1' THEN 90 ELSE 20 END) * ?2 - 30000",
        [now, MINUTE_MS],
    )
    .unwrap();
    db.execute(
        "UPDATE subagent_history SET started_at = ?1, stopped_at = ?1 + 95000, duration_ms = 95000
         WHERE agent_id = 'ag-3'",
        [now - 210 * MINUTE_MS],
    )
    .unwrap();
}

/// A main session with two agents at work and one finished, and an older session that
/// ended with one finished agent.
fn busy_project() -> Project {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    p.append(&[
        spawn_line("toolu_a", "coder", "Fix the parser"),
        spawn_line("toolu_c", "reviewer", "Review the parser"),
    ]);
    p.hook(&p.subagent_start("ag-1", "coder"));
    p.hook(&p.subagent_start("ag-2", "Explore"));
    p.hook(&p.subagent_start("ag-3", "reviewer"));
    p.hook(&p.pre_tool_use_as("ag-1", "coder", "Read", json!({"file_path": "a"})));
    p.hook(&p.subagent_stop("ag-3", "reviewer", Some("[COMPRESSED] fine"), false));
    let old = chrono::Utc::now().timestamp_millis() - 26 * 60 * MINUTE_MS;
    let db = p.db();
    db.execute(
        "INSERT INTO session_info (session_id, started_at, last_seen_at, source, compactions, ended_at, end_reason)
         VALUES ('sess-0', ?1, ?1, 'resume', 2, ?1, 'logout')",
        [old],
    )
    .unwrap();
    db.execute(
        "INSERT INTO subagent_history (agent_id, session_id, agent_type, role, role_source, started_at, stopped_at, duration_ms)
         VALUES ('ag-0', 'sess-0', 'tester', 'tester', 'meta_file', ?1, ?1, 1000)",
        [old],
    )
    .unwrap();
    fix_times(&p);
    p
}

#[test]
fn the_agents_table_shows_role_source_processing_status_and_age() {
    let p = busy_project();
    let active = p.run(&["agents"]);
    assert_eq!(active.code, 0, "{}", active.stderr);
    insta::assert_snapshot!("agents", active.stdout);
    let all = p.run(&["agents", "--all"]);
    insta::assert_snapshot!("agents_all", all.stdout);
}

#[test]
fn the_sessions_table_counts_each_sessions_agents() {
    let p = busy_project();
    let out = p.run(&["sessions"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!("sessions", out.stdout);
}

#[test]
fn sessions_list_status_compactions_and_agents() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    p.hook(&p.session_start("compact"));
    p.hook(&p.subagent_start("ag-1", "coder"));
    let sessions = json_of(&p, &["sessions", "--json"]);
    assert_eq!(sessions[0]["session_id"], p.session);
    assert_eq!(sessions[0]["status"], "active");
    assert_eq!(sessions[0]["compactions"], 1);
    assert_eq!(sessions[0]["active_agents"], 1);
    p.hook(&p.session_end("logout"));
    let sessions = json_of(&p, &["sessions", "--json"]);
    assert_eq!(sessions[0]["status"], "ended");
    assert_eq!(sessions[0]["end_reason"], "logout");
}

#[test]
fn gc_says_what_it_removed() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    let old = chrono::Utc::now().timestamp_millis() - 72 * 3_600_000;
    p.db()
        .execute(
            "INSERT INTO session_info (session_id, started_at, last_seen_at, ended_at) VALUES ('old', ?1, ?1, ?1)",
            [old],
        )
        .unwrap();
    let out = p.run(&["gc"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!("gc", out.stdout);
    assert!(p.run(&["gc"]).stdout.starts_with("nothing to purge"));
}

#[test]
fn listings_without_a_database_create_none() {
    let p = Project::new();
    assert_eq!(json_of(&p, &["agents", "--json"]), json!([]));
    assert_eq!(json_of(&p, &["sessions", "--json"]), json!([]));
    assert!(p.run(&["agents"]).stdout.contains("no database yet"));
    assert!(p.run(&["gc"]).stdout.contains("no database yet"));
    assert!(!p.db_path().exists());
}
