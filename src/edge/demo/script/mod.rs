//! The demo's session, step by step: a main agent asked for avatars on a profile
//! page, three parallel subagents (legacy payloads, then modern ones), rules and
//! the guard, compressed reports, shared context, a compaction and the end.
//!
//! `opening.rs` plays the session up to the rules and the guard, `closing.rs` its
//! reports, shared context, compaction, end and statistics.

mod closing;
mod opening;

use super::fixtures::{self, Agent};
use super::{Call, Player, Reply};
use crate::storage::store::NaggerStateDB;
use closing::{compaction, reports_and_shared_context, session_end, stats};
use opening::{main_conventions, parallel_subagents, rules_and_guard, session_start, setup};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

const NAVIGATOR: Agent = Agent {
    id: "a1f3c9e",
    agent_type: "navigator",
    tool_use_id: "toolu_01Nav7QkX2m",
    description: "Map the profile page",
    prompt: "Find where the user profile page is rendered and where users are loaded. \
             Report files and entry points; change nothing.",
    role: "navigator",
};

const CODER: Agent = Agent {
    id: "a7d20b4",
    agent_type: "general-purpose",
    tool_use_id: "toolu_01Cod3RvB8p",
    description: "Add avatars",
    prompt: "[ROLE:coder] Add an avatar to the user profile page: User#avatar_url from the \
             email (Gravatar) and an _avatar partial in the show view.",
    role: "coder",
};

const TESTER: Agent = Agent {
    id: "ac4e817",
    agent_type: "qa-runner",
    tool_use_id: "toolu_01Qa9TzL4w",
    description: "Test avatars",
    prompt: "Write and run model tests for User#avatar_url.",
    role: "tester",
};

const REVIEWER: Agent = Agent {
    id: "a93b5f0",
    agent_type: "reviewer",
    tool_use_id: "toolu_01Rev5HcN1s",
    description: "Review the avatar change",
    prompt: "Review the avatar change against docs/ARCHITECTURE.md.",
    role: "reviewer",
};

const NAVIGATOR_REPORT: &str = "[COMPRESSED] agent_type: navigator
Changed files: none
Result: profile = UsersController#show -> app/views/users/show.html.erb; User has email, no avatar column
Decisions: avatars from Gravatar by email, no migration
Blockers: none";

const CODER_REPORT: &str = "Done.

[COMPRESSED] agent_type: general-purpose
Changed files: app/models/user.rb, app/views/users/show.html.erb, app/views/users/_avatar.html.erb
Result: User#avatar_url(size) builds the Gravatar URL; show renders the _avatar partial
Decisions: md5 of the downcased email, size 80 by default
Blockers: none";

const TESTER_REPORT: &str = "[COMPRESSED] agent_type: qa-runner
Changed files: test/models/user_test.rb
Result: 3 tests for User#avatar_url, all pass (bin/rails test test/models/user_test.rb)
Decisions: none
Blockers: none";

const REVIEWER_REPORT: &str = "[COMPRESSED] agent_type: reviewer
Files reviewed: app/models/user.rb, app/views/users/show.html.erb, app/views/users/_avatar.html.erb
Critical: none
Warning: none
Suggestion: add alt text to the avatar image
Verdict: PASS";

pub fn play(p: &mut Player) -> anyhow::Result<()> {
    setup(p)?;
    session_start(p)?;
    main_conventions(p)?;
    parallel_subagents(p)?;
    rules_and_guard(p)?;
    reports_and_shared_context(p)?;
    compaction(p)?;
    session_end(p)?;
    stats(p)
}

// ── helpers ──

fn who(agent: &Agent) -> String {
    format!("{} {}", agent.role, agent.id)
}

/// Which role's conventions a reply carries.
fn conventions_of(reply: &Reply) -> Option<&'static str> {
    ["navigator", "coder", "tester"]
        .into_iter()
        .find(|role| reply.text().contains(&format!("## {role} conventions")))
}

/// `nagger agents --json`, printed as a table, checked: every subagent's first call
/// found in its own transcript and its spawn known exactly.
fn agents_table(p: &mut Player) -> anyhow::Result<()> {
    let out = p.command(&["agents", "--json"])?;
    let agents: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let mut rows: Vec<Vec<String>> = agents
        .iter()
        .map(|a| {
            [
                "agent_id",
                "agent_type",
                "role",
                "role_source",
                "identified_by",
            ]
            .iter()
            .map(|k| a[*k].as_str().unwrap_or("-").to_string())
            .collect()
        })
        .collect();
    // The calls raced; a stable order reads better.
    rows.sort();
    p.note("`nagger agents --json`:");
    let table = crate::base::table::table(
        &["AGENT", "TYPE", "ROLE", "ROLE SOURCE", "IDENTIFIED BY"],
        &rows,
    );
    for line in table.lines() {
        p.say(&format!("         {line}"));
    }
    p.note(
        "ROLE SOURCE is how nagger tied the agent to the Agent call that spawned it (its role:\n\
         [ROLE:…] tag, team name or subagent_type): agent_transcript = its own transcript starts\n\
         with that call's prompt; meta_file, tool_response and exact_link are other exact facts;\n\
         task_match is a guess by order, replaced as soon as an exact fact appears.\n\
         IDENTIFIED BY transcript = its first tool call, sent without agent_id, was found at the\n\
         end of its own transcript (claim = a guess by order, the last resort).",
    );
    let expected = [&NAVIGATOR, &CODER, &TESTER];
    let ok = expected.iter().all(|e| {
        agents.iter().any(|a| {
            a["agent_id"] == e.id
                && a["role"] == e.role
                && a["role_source"] == crate::storage::store::RoleSource::AgentTranscript.as_str()
                && a["identified_by"] == "transcript"
                && a["processed"] == true
        })
    });
    p.check(
        out.status.success() && ok,
        "each subagent tied exactly to its spawn (role) and its first call identified exactly",
    );
    Ok(())
}

/// The details of the newest hook_log row of the session.
fn last_log(p: &Player) -> anyhow::Result<Value> {
    let db = NaggerStateDB::open(&p.root.join(".claude-nagger/state.db"))?;
    let row = db.hook_log().recent(Some(&p.session.id), 1)?;
    Ok(row
        .first()
        .and_then(|r| r.details.as_deref())
        .and_then(|d| serde_json::from_str(d).ok())
        .unwrap_or(Value::Null))
}

/// Files the shared context records for an agent's result.
fn files_of(p: &Player, agent_id: &str) -> anyhow::Result<Vec<String>> {
    let db = NaggerStateDB::open(&p.root.join(".claude-nagger/state.db"))?;
    let entries = db
        .context()
        .session_results(&p.session.id, None, None, 100)?;
    Ok(entries
        .into_iter()
        .find(|e| e.agent_id.as_deref() == Some(agent_id))
        .map(|e| e.files)
        .unwrap_or_default())
}

fn append(path: &Path, lines: &[Value]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let mut text = String::new();
    for line in lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    f.write_all(text.as_bytes())?;
    Ok(())
}
