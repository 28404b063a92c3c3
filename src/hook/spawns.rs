//! Phase 1 support: keeps task_spawns in step with the parent transcript by
//! scanning only what was appended since the stored cursor, and upgrades FIFO
//! guesses when the transcript links a spawn to its agent exactly.

use super::Ctx;
use crate::roles;
use crate::store::{RoleSource, SpawnRow, TranscriptCursorRow};
use crate::transcript::{self, ScanCursor};
use std::path::Path;

#[derive(Debug, Default, Clone, Copy)]
pub struct SyncReport {
    pub new_spawns: usize,
    pub bytes_read: u64,
    pub upgraded: usize,
}

/// Brings the session's spawns up to date with its parent transcript. A missing
/// or unreadable transcript is a warning, not a failure: matching goes on with
/// what is known.
pub fn sync(ctx: &Ctx<'_>) -> anyhow::Result<SyncReport> {
    let Some(path) = ctx.common.transcript_path.as_deref() else {
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
    let table = &ctx.config.role_resolution;
    let spawns: Vec<SpawnRow> = scan
        .spawns
        .iter()
        .map(|s| SpawnRow {
            transcript_index: s.line_index as i64,
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
    };
    if spawns.is_empty() && links.is_empty() && previous.as_ref() == Some(&scan.cursor) {
        return Ok(report);
    }
    report.new_spawns = repo.register_task_spawns(
        &ctx.common.session_id,
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
    // A link often appears after its agent's SubagentStart: upgrade that guess now.
    for (_, agent_id) in &links {
        if let Some(agent) = repo.get(agent_id)?
            && agent.role_source.as_deref() != Some(RoleSource::ExactLink.as_str())
        {
            {
                let outcome = repo.match_task_to_agent(
                    &ctx.common.session_id,
                    agent_id,
                    &agent.agent_type,
                    agent.role.as_deref(),
                )?;
                if outcome.source == RoleSource::ExactLink {
                    report.upgraded += 1;
                }
            }
        }
    }
    Ok(report)
}
