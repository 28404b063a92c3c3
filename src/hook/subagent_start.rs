//! SubagentStart (Phase 1): register the agent, bring the spawns up to date from
//! the parent transcript, match the agent to its spawn (its role), and hand it
//! what it should know from the start.

use super::wire::HookOutput;
use super::{Ctx, Outcome, spawns};
use crate::config::Delivery;
use crate::roles;

pub fn handle(ctx: &Ctx<'_>, agent_id: &str, agent_type: &str) -> anyhow::Result<Outcome> {
    let repo = ctx.db.subagents();
    let session = &ctx.common.session_id;
    let sync = spawns::sync(ctx)?;
    let fallback = (agent_type != "unknown")
        .then(|| roles::normalize(agent_type, &ctx.config.role_resolution));
    let matched = repo.register_and_match(
        agent_id,
        session,
        agent_type,
        "subagent_start",
        fallback.as_deref(),
    )?;

    let mut sections = Vec::new();
    if let Some((_, role)) = ctx
        .config
        .role_conventions(matched.role.as_deref(), agent_type)
        && role.delivery.unwrap_or(ctx.config.session.delivery) == Delivery::Context
    {
        sections.push(format!("[nagger] {}", role.message().render()));
    }
    let mut outcome = if sections.is_empty() {
        Outcome::silent()
    } else {
        Outcome::with(HookOutput::Context {
            event: "SubagentStart",
            text: sections.join("\n\n"),
        })
    };
    outcome.agent_id = Some(agent_id.to_string());
    Ok(outcome
        .detail("agent_type", agent_type)
        .detail("role", matched.role.clone())
        .detail("role_source", matched.source.as_str())
        .detail("spawn_id", matched.spawn_id)
        .detail("displaced", matched.displaced.clone())
        .detail("new_spawns", sync.new_spawns)
        .detail("bytes_scanned", sync.bytes_read))
}
