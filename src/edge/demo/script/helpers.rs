//! What the session's steps share: labels, the agents table, the newest hook_log row,
//! the files of a result, and appending to a transcript.

use super::super::fixtures::Agent;
use super::super::player::{Player, Reply};
use super::cast::{CODER, NAVIGATOR, TESTER};
use crate::storage::store::NaggerStateDB;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

pub(super) fn who(agent: &Agent) -> String {
    format!("{} {}", agent.role, agent.id)
}

/// Which role's conventions a reply carries.
pub(super) fn conventions_of(reply: &Reply) -> Option<&'static str> {
    ["navigator", "coder", "tester"]
        .into_iter()
        .find(|role| reply.text().contains(&format!("## {role} conventions")))
}

/// `nagger agents --json`, printed as a table, checked: every subagent's first call
/// found in its own transcript and its spawn known exactly.
pub(super) fn agents_table(p: &mut Player) -> anyhow::Result<()> {
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
pub(super) fn last_log(p: &Player) -> anyhow::Result<Value> {
    let db = NaggerStateDB::open(&p.root.join(".claude-nagger/state.db"))?;
    let row = db.hook_log().recent(Some(&p.session.id), 1)?;
    Ok(row
        .first()
        .and_then(|r| r.details.as_deref())
        .and_then(|d| serde_json::from_str(d).ok())
        .unwrap_or(Value::Null))
}

/// Files the shared context records for an agent's result.
pub(super) fn files_of(p: &Player, agent_id: &str) -> anyhow::Result<Vec<String>> {
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

pub(super) fn append(path: &Path, lines: &[Value]) -> anyhow::Result<()> {
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
