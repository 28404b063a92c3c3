//! SubagentStop: the agent leaves the Registry for subagent_history.

use super::{Ctx, Outcome};
use crate::transcript;
use std::path::Path;

pub struct Stop<'a> {
    pub agent_id: &'a str,
    pub agent_type: &'a str,
    pub agent_transcript_path: Option<&'a str>,
    pub stop_hook_active: bool,
    pub last_assistant_message: Option<&'a str>,
}

pub fn handle(ctx: &Ctx<'_>, stop: &Stop<'_>) -> anyhow::Result<Outcome> {
    let tokens = agent_tokens(ctx, stop);
    let history = ctx.db.subagents().unregister(
        stop.agent_id,
        &ctx.common.session_id,
        stop.agent_type,
        tokens,
        None,
    )?;
    let mut outcome = Outcome::silent()
        .detail("agent_type", stop.agent_type)
        .detail("role", history.role.clone())
        .detail("duration_ms", history.duration_ms)
        .detail("tokens", tokens)
        .detail("stop_hook_active", stop.stop_hook_active)
        .detail(
            "final_message_chars",
            stop.last_assistant_message.map(str::len),
        );
    outcome.agent_id = Some(stop.agent_id.to_string());
    Ok(outcome)
}

/// The agent's own transcript: the path Claude Code gave, else the derived one.
pub fn agent_transcript(ctx: &Ctx<'_>, stop: &Stop<'_>) -> Option<std::path::PathBuf> {
    stop.agent_transcript_path
        .map(std::path::PathBuf::from)
        .or_else(|| {
            let parent = ctx.common.transcript_path.as_deref()?;
            transcript::subagent_transcript_path(Path::new(parent), stop.agent_id)
        })
}

/// Tokens the agent used, deduplicated by message id; None when unreadable.
fn agent_tokens(ctx: &Ctx<'_>, stop: &Stop<'_>) -> Option<i64> {
    let path = agent_transcript(ctx, stop)?;
    transcript::total_usage(&path)
        .ok()
        .map(|u| u.total() as i64)
}
