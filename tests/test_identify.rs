//! Exact identification from the facts Claude Code writes: spawns registered from the
//! main agent's PreToolUse of Agent, the agent's meta file, the prompt its own
//! transcript starts with, PostToolUse's agentId, and (without agent_id) the call's
//! tool_use_id at the end of the caller's own transcript. Each read is bounded.

use crate::common::*;
use serde_json::{Value, json};

const ROLES: &str = r#"
[roles.alpha]
title = "alpha conventions"
text = "ALPHA-RULES"
[roles.beta]
title = "beta conventions"
text = "BETA-RULES"
[roles.gamma]
title = "gamma conventions"
text = "GAMMA-RULES"
"#;

const MARKS: [(&str, &str); 3] = [
    ("alpha", "ALPHA-RULES"),
    ("beta", "BETA-RULES"),
    ("gamma", "GAMMA-RULES"),
];

fn prompt(role: &str) -> String {
    format!("[ROLE:{role}] do the {role} part")
}

/// The main agent's PreToolUse of Agent: the spawn as the hook sees it, before the
/// parent transcript holds it.
fn spawn_call(p: &Project, tool_use_id: &str, role: &str) -> Value {
    let mut v = p.pre_tool_use(
        "Agent",
        json!({"description": role, "prompt": prompt(role), "subagent_type": "general-purpose"}),
    );
    v["tool_use_id"] = json!(tool_use_id);
    v
}

/// A project whose main agent already saw its conventions and spawned three agents of
/// one type (only through the hook: the parent transcript is empty), all started.
fn three_started(p: &Project) {
    // the main agent's first call is refused with the (empty) session conventions only
    // when configured; none here
    for (i, (role, _)) in MARKS.iter().enumerate() {
        let r = p.hook(&spawn_call(p, &format!("toolu_spawn_{i}"), role));
        assert_eq!(r.decision(), None, "{} {}", r.stdout, r.stderr);
    }
    for i in 0..3 {
        let r = p.hook(&p.subagent_start(&format!("ag-{i}"), "general-purpose"));
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
}

fn write_agent_prompt(p: &Project, agent_id: &str, role: &str) {
    append_lines(
        &p.agent_transcript(agent_id),
        &[
            json!({"type": "user", "isSidechain": true, "agentId": agent_id,
                 "message": {"role": "user", "content": prompt(role)}}),
        ],
    );
}

fn write_agent_call(p: &Project, agent_id: &str, tool_use_id: &str) {
    append_lines(
        &p.agent_transcript(agent_id),
        &[
            json!({"type": "assistant", "isSidechain": true, "agentId": agent_id,
                   "message": {"id": format!("msg_{tool_use_id}"), "role": "assistant",
                               "content": [{"type": "tool_use", "id": tool_use_id, "name": "Bash",
                                            "input": {"command": "ls"}}]}}),
            json!({"type": "progress", "isSidechain": true, "agentId": agent_id}),
        ],
    );
}

fn write_meta(p: &Project, agent_id: &str, tool_use_id: &str) {
    let path = p.agent_transcript(agent_id).with_extension("meta.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        json!({"agentType": "general-purpose", "toolUseId": tool_use_id}).to_string(),
    )
    .unwrap();
}

fn only_mark(reason: &str) -> Option<&'static str> {
    let found: Vec<&str> = MARKS
        .iter()
        .filter(|(_, m)| reason.contains(m))
        .map(|(r, _)| *r)
        .collect();
    (found.len() == 1).then(|| found[0])
}

fn agent_json(p: &Project, agent_id: &str) -> Value {
    let out = p.run(&["agents", "--all", "--json"]);
    let all: Value = serde_json::from_str(&out.stdout).unwrap();
    all.as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent_id"] == agent_id)
        .cloned()
        .unwrap_or_else(|| panic!("no {agent_id} in {all:#}"))
}

fn last_details(p: &Project, event: &str) -> Value {
    p.hook_log()
        .into_iter()
        .rev()
        .find(|(e, _, _)| e == event)
        .map(|(_, _, d)| d)
        .unwrap()
}

#[test]
fn spawns_absent_from_the_parent_transcript_are_known_from_the_hook() {
    let p = Project::with_config(ROLES);
    three_started(&p);
    // nothing in the parent transcript, yet every agent holds a spawn
    let c = p.db();
    let spawns: i64 = c
        .query_row(
            "SELECT count(*) FROM task_spawns WHERE registered_by = 'pre_tool_use'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(spawns, 3);
    // Three roles wait for agents of one type: SubagentStart cannot know which is
    // which, and says so rather than handing out a guessed role's digest.
    let start = last_details(&p, "SubagentStart");
    assert_eq!(start["role_known"], json!(false), "{start}");
    // Later, each agent's own transcript names its prompt: each first call gets its
    // own role, in any order.
    for (i, role) in [(2, "gamma"), (0, "alpha"), (1, "beta")] {
        let id = format!("ag-{i}");
        write_agent_prompt(&p, &id, role);
        let r =
            p.hook(&p.pre_tool_use_as(&id, "general-purpose", "Bash", json!({"command": "ls"})));
        assert_eq!(r.decision().as_deref(), Some("deny"));
        assert_eq!(only_mark(&r.reason()), Some(role), "{}", r.reason());
        let a = agent_json(&p, &id);
        assert_eq!(a["role_source"], "agent_transcript", "{a}");
        assert_eq!(a["role_exact"], true);
    }
}

#[test]
fn a_single_waiting_spawn_is_known_at_subagent_start() {
    let p = Project::with_config(ROLES);
    p.hook(&spawn_call(&p, "toolu_one", "beta"));
    let r = p.hook(&p.subagent_start("ag-one", "general-purpose"));
    assert!(r.additional_context().contains("[nagger]"), "{}", r.stdout);
    let start = last_details(&p, "SubagentStart");
    assert_eq!(start["role"], "beta");
    assert_eq!(start["role_known"], json!(true));
}

#[test]
fn meta_file_absent_then_present_names_the_spawn() {
    let p = Project::with_config(ROLES);
    three_started(&p);
    // No meta file yet for ag-0: SubagentStart gave it a guess.
    assert!(
        !p.agent_transcript("ag-0")
            .with_extension("meta.json")
            .exists()
    );
    let a = agent_json(&p, "ag-0");
    assert_eq!(a["role_exact"], false, "{a}");
    // The meta file appears (Claude Code writes it after SubagentStart): it names the
    // third spawn, whatever the guess was.
    write_meta(&p, "ag-0", "toolu_spawn_2");
    let r = p.hook(&p.pre_tool_use_as("ag-0", "general-purpose", "Bash", json!({"command": "ls"})));
    assert_eq!(only_mark(&r.reason()), Some("gamma"), "{}", r.reason());
    let a = agent_json(&p, "ag-0");
    assert_eq!(a["role_source"], "meta_file", "{a}");
    // The agents whose guesses were displaced get the remaining roles, each once.
    let mut seen = vec!["gamma"];
    for (id, spawn) in [("ag-1", "toolu_spawn_0"), ("ag-2", "toolu_spawn_1")] {
        write_meta(&p, id, spawn);
        let r = p.hook(&p.pre_tool_use_as(id, "general-purpose", "Bash", json!({"command": "ls"})));
        let role = only_mark(&r.reason()).unwrap_or_else(|| panic!("{}", r.reason()));
        assert!(!seen.contains(&role), "{role} given twice");
        seen.push(role);
    }
    let c = p.db();
    let linked_twice: i64 = c
        .query_row(
            "SELECT count(*) FROM (SELECT matched_agent_id FROM task_spawns
             WHERE matched_agent_id IS NOT NULL GROUP BY 1 HAVING count(*) > 1)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(linked_twice, 0);
}

#[test]
fn a_meta_file_written_while_the_first_call_waits_is_used() {
    let p = Project::with_config(ROLES);
    three_started(&p);
    let child = p.spawn_hook(&p.pre_tool_use_as(
        "ag-1",
        "general-purpose",
        "Bash",
        json!({"command": "ls"}),
    ));
    // Claude Code writes the meta file a moment later; the hook looks again for a
    // bounded time (a slow machine may see it at once: the answer is the same).
    std::thread::sleep(std::time::Duration::from_millis(60));
    write_meta(&p, "ag-1", "toolu_spawn_1");
    let r = finish(child);
    assert_eq!(only_mark(&r.reason()), Some("beta"), "{}", r.reason());
    assert_eq!(agent_json(&p, "ag-1")["role_source"], "meta_file");
}

#[test]
fn legacy_call_is_attributed_to_the_agent_whose_transcript_holds_it() {
    let p = Project::with_config(ROLES);
    three_started(&p);
    for (i, (role, _)) in MARKS.iter().enumerate() {
        write_agent_prompt(&p, &format!("ag-{i}"), role);
    }
    // The call is the second agent's: its tool_use_id ends ag-1's transcript.
    write_agent_call(&p, "ag-1", "toolu_call_b");
    let mut input = p.pre_tool_use("Bash", json!({"command": "ls"}));
    input["tool_use_id"] = json!("toolu_call_b");
    let r = p.hook(&input);
    assert_eq!(only_mark(&r.reason()), Some("beta"), "{}", r.reason());
    let d = last_details(&p, "PreToolUse");
    assert_eq!(d["caller"], "transcript", "{d}");
    assert_eq!(d["role_source"], "agent_transcript", "{d}");
    // The oldest agent was not taken: it is still waiting for its first call.
    let a = agent_json(&p, "ag-0");
    assert_eq!(a["processed"], false, "{a}");
    assert_eq!(agent_json(&p, "ag-1")["identified_by"], "transcript");
}

#[test]
fn the_main_agent_is_never_taken_for_a_waiting_subagent() {
    let p = Project::with_config(ROLES);
    three_started(&p);
    // The main agent's call is at the end of the main transcript.
    p.append(&[json!({"type": "assistant", "isSidechain": false,
        "message": {"id": "msg_main", "role": "assistant",
                    "content": [{"type": "tool_use", "id": "toolu_main_9", "name": "Bash", "input": {}}]}})]);
    let mut input = p.pre_tool_use("Bash", json!({"command": "ls"}));
    input["tool_use_id"] = json!("toolu_main_9");
    let r = p.hook(&input);
    assert_eq!(r.decision(), None, "{}", r.stdout);
    assert_eq!(last_details(&p, "PreToolUse")["caller"], "main");
    for i in 0..3 {
        assert_eq!(agent_json(&p, &format!("ag-{i}"))["processed"], false);
    }
}

#[test]
fn a_call_found_nowhere_falls_back_to_the_claim_recorded_as_a_guess() {
    let p = Project::with_config(ROLES);
    three_started(&p);
    // no agent transcript exists: missing files are not an error
    let r = p.hook(&p.pre_tool_use("Bash", json!({"command": "ls"})));
    assert_eq!(r.code, 0);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let d = last_details(&p, "PreToolUse");
    assert_eq!(d["caller"], "claim", "{d}");
    let stats: Value =
        serde_json::from_str(&p.run(&["stats", "--json"]).stdout).expect("stats json");
    assert_eq!(stats["roles"]["by_caller"]["claim"], 1, "{stats:#}");
}

#[test]
fn post_tool_use_agent_id_corrects_a_guess_and_it_is_counted() {
    let p = Project::with_config(ROLES);
    three_started(&p);
    let guessed = agent_json(&p, "ag-0");
    assert_eq!(guessed["role_source"], "task_match");
    // PostToolUse of the spawn that is not the one guessed for ag-0.
    let other = if guessed["role"] == "alpha" {
        ("toolu_spawn_1", "beta")
    } else {
        ("toolu_spawn_0", "alpha")
    };
    let mut post = p.post_tool_use(
        "Agent",
        json!({"prompt": "x", "subagent_type": "general-purpose"}),
    );
    post["tool_use_id"] = json!(other.0);
    post["tool_response"] = json!({"status": "async_launched", "agentId": "ag-0"});
    let r = p.hook(&post);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let a = agent_json(&p, "ag-0");
    assert_eq!(a["role"], other.1, "{a}");
    assert_eq!(a["role_source"], "tool_response");
    assert_eq!(a["role_corrected"], 1);
    let stats: Value = serde_json::from_str(&p.run(&["stats", "--json"]).stdout).unwrap();
    assert_eq!(stats["roles"]["corrected"], 1, "{stats:#}");
    assert_eq!(stats["roles"]["final_by_source"]["tool_response"], 1);
}

#[test]
fn truncated_and_huge_agent_transcripts_are_read_within_bounds() {
    let p = Project::with_config(ROLES);
    three_started(&p);
    // ag-0: its first line cut short (being written): no prompt fact.
    let path = p.agent_transcript("ag-0");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, br#"{"type":"user","message":{"content":"[ROLE:al"#).unwrap();
    // ag-1: 40 MB of earlier lines, the call at the end.
    let path = p.agent_transcript("ag-1");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        writeln!(
            f,
            "{}",
            json!({"type": "user", "message": {"role": "user", "content": prompt("beta")}})
        )
        .unwrap();
        let filler = json!({"type": "user", "message": {"content": "x".repeat(4000)}}).to_string();
        for _ in 0..10_000 {
            writeln!(f, "{filler}").unwrap();
        }
    }
    write_agent_call(&p, "ag-1", "toolu_deep_call");
    let mut input = p.pre_tool_use("Bash", json!({"command": "ls"}));
    input["tool_use_id"] = json!("toolu_deep_call");
    let r = p.hook(&input);
    assert_eq!(only_mark(&r.reason()), Some("beta"), "{}", r.reason());
    let d = last_details(&p, "PreToolUse");
    let read = d["identify_bytes"].as_u64().unwrap();
    assert!(
        read < 2 * 1024 * 1024,
        "read {read} bytes of a 40 MB transcript"
    );
    // A call in none of them: every transcript, the huge one too, is read only from
    // its end, and the waiting is bounded.
    let mut input = p.pre_tool_use("Bash", json!({"command": "ls"}));
    input["tool_use_id"] = json!("toolu_nowhere");
    let r = p.hook(&input);
    assert_eq!(r.code, 0);
    let d = last_details(&p, "PreToolUse");
    let read = d["identify_bytes"].as_u64().unwrap();
    assert!(
        read <= 9 * 1024 * 1024,
        "read {read} bytes looking for a missing call"
    );
    assert!(d["identify_waited_ms"].as_u64().unwrap_or(0) < 2000, "{d}");
}
