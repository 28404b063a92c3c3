//! Phase 1 support: keeps task_spawns in step with the parent transcript by
//! scanning only what was appended since the stored cursor, and upgrades FIFO
//! guesses when the transcript links a spawn to its agent exactly.

use super::context::{Call, IdentifyCtx};
use crate::base::num::to_i64;
use crate::domain::roles;
use crate::storage::store::{RoleSource, SpawnKey, SpawnRow, TranscriptCursorRow};
use crate::storage::transcript::{self, ScanCursor};
use std::path::Path;

/// The subagent tool: `Agent`, named `Task` before Claude Code 2.1.63.
pub fn is_spawn_tool(tool_name: &str) -> bool {
    matches!(tool_name, "Agent" | "Task")
}

/// The main agent's PreToolUse of Agent/Task carries the spawn itself: register it
/// now, before the parent transcript holds it (Claude Code often writes it only after
/// the subagent started). Returns the spawn's tool_use_id when it was new.
pub fn from_call(ctx: &IdentifyCtx<'_>, call: &Call<'_>) -> anyhow::Result<Option<String>> {
    if !is_spawn_tool(call.tool_name) {
        return Ok(None);
    }
    let Some(tool_use_id) = call.tool_use_id.filter(|id| !id.trim().is_empty()) else {
        return Ok(None);
    };
    let field = |name: &str| call.tool_input.get(name).and_then(|v| v.as_str());
    let prompt = field("prompt");
    let subagent_type = field("subagent_type").unwrap_or("general-purpose");
    let repo = ctx.db.subagents();
    // Ordered after what the transcript already showed, before what it will show.
    let index = match ctx.transcript_path {
        Some(path) => repo.cursor(path)?.map_or(0, |c| to_i64(c.line_count)),
        None => 0,
    };
    let spawn = SpawnRow {
        transcript_index: index,
        tool_use_id: tool_use_id.to_string(),
        subagent_type: Some(subagent_type.to_string()),
        role: roles::resolve(
            prompt,
            field("name"),
            Some(subagent_type),
            ctx.role_resolution,
        ),
        prompt_hash: prompt.map(transcript::prompt_hash),
        description: field("description").map(str::to_string),
    };
    let added = repo.register_spawn(ctx.session_id, &spawn)?;
    Ok(added.then(|| tool_use_id.to_string()))
}

/// PostToolUse of Agent/Task names the agent it started (`tool_response.agentId`): at
/// launch for background agents, at the end for foreground ones. Links it exactly.
pub fn link_from_response(
    ctx: &IdentifyCtx<'_>,
    call: &Call<'_>,
) -> anyhow::Result<Option<String>> {
    if !is_spawn_tool(call.tool_name) {
        return Ok(None);
    }
    let (Some(tool_use_id), Some(agent_id)) = (
        call.tool_use_id,
        call.tool_response
            .and_then(|r| r.get("agentId"))
            .and_then(|v| v.as_str()),
    ) else {
        return Ok(None);
    };
    let linked = ctx.db.subagents().link_exact(
        ctx.session_id,
        agent_id,
        SpawnKey::ToolUseId(tool_use_id),
        RoleSource::ToolResponse,
    )?;
    Ok(linked.map(|_| agent_id.to_string()))
}

#[derive(Debug, Default, Clone, Copy)]
pub struct SyncReport {
    pub new_spawns: usize,
    pub bytes_read: u64,
    pub upgraded: usize,
    /// Spawns and links dropped past the caps (per scan, per session), oldest first.
    pub dropped: u64,
}

/// Most spawns a session keeps: past it, the oldest not matched to an agent go first.
pub const MAX_SPAWNS_PER_SESSION: usize = 4096;

/// Brings the session's spawns up to date with its parent transcript. A missing
/// or unreadable transcript is a warning, not a failure: matching goes on with
/// what is known.
pub fn sync(ctx: &IdentifyCtx<'_>) -> anyhow::Result<SyncReport> {
    let Some(path) = ctx.transcript_path else {
        return Ok(SyncReport::default());
    };
    let repo = ctx.db.subagents();
    let previous = repo.cursor(path)?.map(|c| ScanCursor {
        offset: c.byte_offset,
        line_count: c.line_count,
        fingerprint: c.fingerprint,
    });
    let scan = match transcript::scan_spawns(Path::new(path), previous.as_ref()) {
        Ok(scan) => scan,
        Err(e) => {
            ctx.warn(format!("cannot read transcript {path}: {e}"));
            return Ok(SyncReport::default());
        }
    };
    let table = ctx.role_resolution;
    let spawns: Vec<SpawnRow> = scan
        .spawns
        .iter()
        .map(|s| SpawnRow {
            transcript_index: to_i64(s.line_index),
            tool_use_id: s
                .tool_use_id
                .clone()
                .unwrap_or_else(|| format!("line:{}", s.line_index)),
            subagent_type: s.subagent_type.clone(),
            role: roles::resolve(
                s.prompt.as_deref(),
                s.name.as_deref(),
                s.subagent_type.as_deref(),
                table,
            ),
            prompt_hash: s.prompt_hash(),
            description: s.description.clone(),
        })
        .collect();
    let links: Vec<(String, String)> = scan
        .links
        .iter()
        .map(|l| (l.tool_use_id.clone(), l.agent_id.clone()))
        .collect();
    let mut report = SyncReport {
        new_spawns: 0,
        bytes_read: scan.bytes_read,
        upgraded: 0,
        dropped: scan.dropped,
    };
    if spawns.is_empty() && links.is_empty() && previous.as_ref() == Some(&scan.cursor) {
        return Ok(report);
    }
    report.new_spawns = repo.register_task_spawns(
        ctx.session_id,
        path,
        &spawns,
        &links,
        &TranscriptCursorRow {
            byte_offset: scan.cursor.offset,
            line_count: scan.cursor.line_count,
            fingerprint: scan.cursor.fingerprint.clone(),
        },
        scan.rescanned_from_start,
    )?;
    if report.new_spawns > 0 {
        // Agents that started before their spawn was known get it now.
        repo.match_waiting(ctx.session_id)?;
        report.dropped += repo.cap_spawns(ctx.session_id, MAX_SPAWNS_PER_SESSION)? as u64;
    }
    // A link often appears after its agent's SubagentStart: upgrade that guess now.
    for (tool_use_id, agent_id) in &links {
        let linked = repo.link_exact(
            ctx.session_id,
            agent_id,
            SpawnKey::ToolUseId(tool_use_id),
            RoleSource::ExactLink,
        )?;
        if linked.is_some() {
            report.upgraded += 1;
        }
    }
    Ok(report)
}
