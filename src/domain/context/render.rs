//! What an injection is made of, and the session summary.

use super::digest::{Audience, Digest};
use super::select::select;
use crate::domain::compress;
use crate::domain::config::{Config, Delivery};
use crate::domain::roles;
use crate::storage::store::{ContextEntry, FileChange, NaggerStateDB, StoreResult};
use std::fmt::Write as _;
use std::path::Path;

/// What a context injection consists of, and its final text.
#[derive(Debug, Clone, Default)]
pub struct Injection {
    /// The conventions section, when delivered as context at SubagentStart.
    pub conventions: Option<String>,
    pub digest: Digest,
    /// Where to write the report, and the compressed format.
    pub instruction: Option<String>,
    /// Exactly the additionalContext (empty: nothing is injected).
    pub text: String,
}

/// What a subagent receives at SubagentStart: its conventions (delivery =
/// "context"), the digest, and where to write its report. `report_path` is shown
/// as is (the hook passes the real path, `nagger context` a placeholder).
pub fn for_subagent(
    db: &NaggerStateDB,
    config: &Config,
    audience: &Audience<'_>,
    report_path: &str,
) -> StoreResult<Injection> {
    let Audience::Subagent {
        agent_type, role, ..
    } = *audience
    else {
        return for_main(db, config, audience.session_id());
    };
    let conventions = config
        .role_conventions(role, agent_type)
        .filter(|(_, rc)| rc.delivery.unwrap_or(config.session.delivery) == Delivery::Context)
        .map(|(_, rc)| format!("[nagger] {}", rc.message().render()));
    let mut injection = Injection {
        conventions,
        ..Injection::default()
    };
    if config.context.enabled {
        injection.digest = select(db, &config.context, audience)?;
        let mut instruction = format!(
            "---\n[nagger] When you finish, write your report to {report_path} (what you found, \
             files you changed, decisions, open problems); agents that start after you receive it."
        );
        if compress::applies(&config.compress, agent_type, role) {
            let reviewer = compress::is_reviewer(&config.compress, agent_type, role);
            instruction.push('\n');
            instruction.push_str(&compress::start_instruction(
                &config.compress,
                agent_type,
                reviewer,
            ));
        }
        injection.instruction = Some(instruction);
    }
    injection.text = [
        injection.conventions.as_deref(),
        Some(injection.digest.text.as_str()).filter(|t| !t.is_empty()),
        injection.instruction.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join("\n\n");
    Ok(injection)
}

/// What the main agent receives after a compaction: the session's digest.
pub fn for_main(db: &NaggerStateDB, config: &Config, session_id: &str) -> StoreResult<Injection> {
    if !config.context.enabled {
        return Ok(Injection::default());
    }
    let digest = select(db, &config.context, &Audience::Main { session_id })?;
    Ok(Injection {
        text: digest.text.clone(),
        digest,
        ..Injection::default()
    })
}

/// The role a new agent of `name` would get (what `nagger context --role` shows).
pub fn role_for(config: &Config, name: &str) -> String {
    roles::normalize(name, &config.role_resolution)
}

/// The session's `_summary.md`: every result stored for it, by category, and the
/// files changed.
pub fn session_summary(
    session_id: &str,
    entries: &[ContextEntry],
    files: &[FileChange],
    ended_at: &str,
) -> String {
    let mut out = format!(
        "# Shared Context Summary\n> Session: {session_id}\n> Updated: {ended_at}\n> Entries: {}\n",
        entries.len()
    );
    let mut categories: Vec<&str> = entries.iter().map(|e| e.category.as_str()).collect();
    categories.sort_unstable();
    categories.dedup();
    for category in categories {
        let _ = write!(out, "\n## {category}\n");
        for e in entries.iter().filter(|e| e.category == category) {
            let who = e
                .role
                .as_deref()
                .or(e.agent_type.as_deref())
                .unwrap_or("agent");
            let agent = e.agent_id.as_deref().unwrap_or("-");
            let _ = write!(out, "\n### {who} {agent}\n{}\n", e.content.trim());
            if !e.files.is_empty() {
                let _ = writeln!(out, "Files written: {}", e.files.join(", "));
            }
        }
    }
    if !files.is_empty() {
        out.push_str("\n## Files changed\n");
        for f in files {
            let by = if f.agent_id.is_empty() {
                "main agent"
            } else {
                f.agent_id.as_str()
            };
            let _ = writeln!(out, "- {} ({} ×{}, {by})", f.path, f.tool, f.changes);
        }
    }
    out
}

/// `path` relative to the project when it lies inside it.
pub fn project_relative(project_root: &Path, path: &str) -> String {
    Path::new(path)
        .strip_prefix(project_root)
        .ok()
        .filter(|rest| !rest.as_os_str().is_empty())
        .map_or_else(|| path.to_string(), |rest| rest.display().to_string())
}
