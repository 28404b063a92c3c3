//! Who is calling: Registry + 2-phase Claim with legacy payloads, direct lookup
//! with modern ones, and exact spawn links.

use crate::common::*;
use serde_json::json;

const ROLES: &str = r#"
[roles.coder]
title = "coder conventions"
text = "CODER: run the tests before you report."
[roles.tester]
title = "tester conventions"
text = "TESTER: never edit production code."
[roles.Explore]
enabled = false
[roles.alpha]
text = "ALPHA conventions"
[roles.beta]
text = "BETA conventions"
[role_resolution]
prefixes = { "coder" = "coder", "qa" = "tester" }
"#;

#[test]
fn legacy_parallel_first_calls_each_get_one_distinct_subagents_conventions() {
    let p = Project::with_config(ROLES);
    p.append(&[
        spawn_line("toolu_a", "coder", "Fix the parser"),
        spawn_line("toolu_b", "tester", "Test the parser"),
        spawn_line("toolu_c", "coder", "Fix the lexer"),
    ]);
    for (id, ty) in [("ag-1", "coder"), ("ag-2", "tester"), ("ag-3", "coder")] {
        let r = p.hook(&p.subagent_start(id, ty));
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let children: Vec<_> = (0..3)
        .map(|_| p.spawn_hook(&p.pre_tool_use("Read", json!({"file_path": "src/lib.rs"}))))
        .collect();
    let results: Vec<HookResult> = children.into_iter().map(finish).collect();
    let mut coder = 0;
    let mut tester = 0;
    for r in &results {
        assert_eq!(r.code, 0);
        assert_eq!(
            r.decision().as_deref(),
            Some("deny"),
            "stdout {} stderr {}",
            r.stdout,
            r.stderr
        );
        let reason = r.reason();
        assert!(reason.starts_with("[nagger]"), "{reason}");
        match (reason.contains("CODER"), reason.contains("TESTER")) {
            (true, false) => coder += 1,
            (false, true) => tester += 1,
            _ => panic!("exactly one role's conventions expected: {reason}"),
        }
    }
    assert_eq!((coder, tester), (2, 1));
    let c = p.db();
    let claimed: i64 = c
        .query_row(
            "SELECT count(*) FROM subagents WHERE startup_processed = 1 AND claimed_by = 'claim'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(claimed, 3, "each agent claimed exactly once");
    let fourth = p.hook(&p.pre_tool_use("Read", json!({"file_path": "src/lib.rs"})));
    assert_eq!(fourth.code, 0);
    assert_eq!(fourth.stdout.trim(), "", "a 4th call passes");
}

#[test]
fn modern_payloads_are_looked_up_directly_and_unknown_agents_registered() {
    let p = Project::with_config(ROLES);
    p.append(&[spawn_line("toolu_a", "coder-fix-bug", "Fix bug 12")]);
    p.hook(&p.subagent_start("ag-1", "coder-fix-bug"));
    p.hook(&p.subagent_start("ag-x", "Explore"));

    // coder-fix-bug resolves to coder by the longest configured prefix
    let r = p.hook(&p.pre_tool_use_as("ag-1", "coder-fix-bug", "Read", json!({"file_path": "a"})));
    assert_eq!(r.decision().as_deref(), Some("deny"));
    assert!(r.reason().contains("CODER"), "{}", r.reason());
    let again =
        p.hook(&p.pre_tool_use_as("ag-1", "coder-fix-bug", "Read", json!({"file_path": "a"})));
    assert_eq!(
        again.stdout.trim(),
        "",
        "conventions only on the first call"
    );

    // a type disabled by config is never nagged
    for _ in 0..2 {
        let r = p.hook(&p.pre_tool_use_as("ag-x", "Explore", "Grep", json!({"pattern": "x"})));
        assert_eq!(r.stdout.trim(), "", "{}", r.stdout);
    }

    // an agent_id that never had a SubagentStart is registered on the spot
    let r = p.hook(&p.pre_tool_use_as("ag-ghost", "qa-runner", "Bash", json!({"command": "ls"})));
    assert_eq!(r.decision().as_deref(), Some("deny"));
    assert!(r.reason().contains("TESTER"), "{}", r.reason());
    let (registered_by, role): (String, String) = p
        .db()
        .query_row(
            "SELECT registered_by, role FROM subagents WHERE agent_id = 'ag-ghost'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (registered_by.as_str(), role.as_str()),
        ("pre_tool_use", "tester")
    );

    // the main agent (no agent_id) is unaffected: nothing to say, nothing claimed
    p.hook(&p.subagent_start("ag-2", "coder"));
    let main = p.hook(&p.pre_tool_use("Read", json!({"file_path": "a"})));
    assert_eq!(main.stdout.trim(), "", "{}", main.stdout);
    let unprocessed: i64 = p
        .db()
        .query_row(
            "SELECT startup_processed FROM subagents WHERE agent_id = 'ag-2'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        unprocessed, 0,
        "the main agent never claims in a session that sends agent_id"
    );
}

#[test]
fn exact_link_beats_fifo_and_the_next_agent_gets_the_other_spawn() {
    let p = Project::with_config(ROLES);
    p.append(&[
        spawn_line("toolu_1", "general-purpose", "[ROLE:alpha] first"),
        spawn_line("toolu_2", "general-purpose", "[ROLE:beta] second"),
        progress_line("toolu_2", "agent-x"),
    ]);
    p.hook(&p.subagent_start("agent-x", "general-purpose"));
    p.hook(&p.subagent_start("agent-y", "general-purpose"));
    let c = p.db();
    let role = |id: &str| -> (String, String) {
        c.query_row(
            "SELECT role, role_source FROM subagents WHERE agent_id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
    };
    assert_eq!(role("agent-x"), ("beta".into(), "exact_link".into()));
    assert_eq!(role("agent-y"), ("alpha".into(), "task_match".into()));
}

#[test]
fn a_link_written_after_subagent_start_upgrades_the_fifo_guess() {
    let p = Project::with_config(ROLES);
    p.append(&[
        spawn_line("toolu_1", "general-purpose", "[ROLE:alpha] first"),
        spawn_line("toolu_2", "general-purpose", "[ROLE:beta] second"),
    ]);
    // agent-x actually belongs to the second spawn, but starts first: FIFO guesses alpha
    p.hook(&p.subagent_start("agent-x", "general-purpose"));
    // then the transcript links toolu_2 -> agent-x
    p.append(&[progress_line("toolu_2", "agent-x")]);
    let r = p.hook(&p.pre_tool_use_as(
        "agent-x",
        "general-purpose",
        "Read",
        json!({"file_path": "a"}),
    ));
    assert!(
        r.reason().contains("BETA"),
        "upgraded before conventions were chosen: {}",
        r.reason()
    );
    p.hook(&p.subagent_start("agent-y", "general-purpose"));
    let r = p.hook(&p.pre_tool_use_as(
        "agent-y",
        "general-purpose",
        "Read",
        json!({"file_path": "a"}),
    ));
    assert!(r.reason().contains("ALPHA"), "{}", r.reason());
}

#[test]
fn task_tool_name_of_older_claude_code_is_accepted_and_team_name_is_a_role() {
    let p = Project::with_config(ROLES);
    p.append(&[spawn_line_with(
        "toolu_t",
        "Task",
        "general-purpose",
        "do it",
        Some("beta-2"),
    )]);
    p.hook(&p.subagent_start("ag-t", "general-purpose"));
    let role: String = p
        .db()
        .query_row(
            "SELECT role FROM subagents WHERE agent_id = 'ag-t'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(role, "beta");
}

#[test]
fn subagent_stop_moves_the_agent_to_history() {
    let p = Project::with_config(ROLES);
    p.append(&[spawn_line("toolu_a", "coder", "Fix")]);
    p.hook(&p.subagent_start("ag-1", "coder"));
    let r = p.hook(&p.subagent_stop(
        "ag-1",
        "coder",
        Some("[COMPRESSED] agent_type: coder\nResult: done"),
        false,
    ));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let c = p.db();
    let active: i64 = c
        .query_row("SELECT count(*) FROM subagents", [], |r| r.get(0))
        .unwrap();
    let (role, ty): (String, String) = c
        .query_row(
            "SELECT role, agent_type FROM subagent_history WHERE agent_id = 'ag-1'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(active, 0);
    assert_eq!((role.as_str(), ty.as_str()), ("coder", "coder"));
}
