//! Phase 2: who is making this tool call. With `agent_id` in the input, a direct
//! lookup; without it, the session's oldest subagent that has not made its first
//! call is claimed atomically; otherwise it is the main agent.

use super::{Ctx, spawns};
use crate::roles;
use crate::store::{RoleSource, SubagentRecord};

/// Marker set once a session has sent agent_id on tool events: from then on,
/// calls without it are the main agent's and never claim.
pub const MODERN_PAYLOAD_MARKER: &str = "payload:agent_id";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Direct,
    Claim,
}

impl Via {
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Direct => "direct",
            Via::Claim => "claim",
        }
    }
}

#[derive(Debug, Clone)]
pub enum Caller {
    Main,
    Subagent {
        record: Box<SubagentRecord>,
        /// This is the agent's first tool call (its startup conventions are due).
        first_call: bool,
        via: Via,
    },
}

pub fn identify(ctx: &Ctx<'_>) -> anyhow::Result<Caller> {
    let session = &ctx.common.session_id;
    let repo = ctx.db.subagents();
    if let Some(agent_id) = ctx.common.agent_id.as_deref() {
        note_modern_payload(ctx)?;
        let mut record = match repo.get(agent_id)? {
            Some(r) => r,
            None => register_unstarted(ctx, agent_id)?,
        };
        let first_call = repo.mark_processed_direct(agent_id)?;
        if first_call && record.role_source.as_deref() == Some(RoleSource::TaskMatch.as_str()) {
            record = refresh_role(ctx, record)?;
        }
        return Ok(Caller::Subagent {
            record: Box::new(record),
            first_call,
            via: Via::Direct,
        });
    }
    if !repo.has_unprocessed(session)?
        || ctx
            .db
            .sessions()
            .is_processed(session, MODERN_PAYLOAD_MARKER)?
    {
        return Ok(Caller::Main);
    }
    match repo.claim_next_unprocessed(session)? {
        Some(record) => {
            let record = if record.role_source.as_deref() == Some(RoleSource::TaskMatch.as_str()) {
                refresh_role(ctx, record)?
            } else {
                record
            };
            Ok(Caller::Subagent {
                record: Box::new(record),
                first_call: true,
                via: Via::Claim,
            })
        }
        None => Ok(Caller::Main),
    }
}

/// Records that this session's Claude Code sends agent_id (once).
pub fn note_modern_payload(ctx: &Ctx<'_>) -> anyhow::Result<()> {
    let sessions = ctx.db.sessions();
    if !sessions.is_processed(&ctx.common.session_id, MODERN_PAYLOAD_MARKER)? {
        sessions.register(&ctx.common.session_id, MODERN_PAYLOAD_MARKER, 0)?;
    }
    Ok(())
}

/// An agent_id that never had a SubagentStart (a known Claude Code bug, or nagger
/// installed mid-session): register it now with what the input says.
fn register_unstarted(ctx: &Ctx<'_>, agent_id: &str) -> anyhow::Result<SubagentRecord> {
    let repo = ctx.db.subagents();
    let agent_type = ctx.common.agent_type.as_deref().unwrap_or("unknown");
    spawns::sync(ctx)?;
    let fallback = (agent_type != "unknown")
        .then(|| roles::normalize(agent_type, &ctx.config.role_resolution));
    repo.register_and_match(
        agent_id,
        &ctx.common.session_id,
        agent_type,
        "pre_tool_use",
        fallback.as_deref(),
    )?;
    repo.get(agent_id)?
        .ok_or_else(|| anyhow::anyhow!("agent {agent_id} vanished right after registration"))
}

/// Before a FIFO-guessed agent's conventions are chosen, read what the transcript
/// gained since SubagentStart: an exact link may now say which spawn it was.
fn refresh_role(ctx: &Ctx<'_>, record: SubagentRecord) -> anyhow::Result<SubagentRecord> {
    let report = spawns::sync(ctx)?;
    if report.upgraded == 0 {
        return Ok(record);
    }
    let refreshed = ctx.db.subagents().get(&record.agent_id)?;
    Ok(match refreshed {
        Some(r) => SubagentRecord {
            // keep the pre-claim processed state the caller was given
            startup_processed: record.startup_processed,
            startup_processed_at: record.startup_processed_at,
            ..r
        },
        None => record,
    })
}
