//! SubagentStart (Phase 1): register the agent, bring the spawns up to date from
//! the parent transcript, match the agent to its spawn (its role), and hand it
//! what it should know from the start: its conventions (delivery = "context"),
//! the shared-context digest and where to write its report.

use super::wire::HookOutput;
use super::{Ctx, Outcome, spawns};
use crate::context::{self, Audience};
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

    let report = context::report_path(ctx.project_root, session, agent_type, agent_id);
    if ctx.config.context.enabled
        && let Err(e) = context::ensure_session_dir(ctx.project_root, session)
    {
        ctx.warn(format!("cannot prepare the report folder: {e}"));
    }
    let injection = context::for_subagent(
        ctx.db,
        ctx.config,
        &Audience::Subagent {
            session_id: session,
            agent_id: Some(agent_id),
            agent_type,
            role: matched.role.as_deref(),
        },
        &report.display().to_string(),
    )?;
    let mut outcome = if injection.text.is_empty() {
        Outcome::silent()
    } else {
        Outcome::with(HookOutput::Context {
            event: "SubagentStart",
            text: injection.text.clone(),
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
        .detail("bytes_scanned", sync.bytes_read)
        .detail("digest_entries", injection.digest.entries.len())
        .detail("digest_tasks", injection.digest.tasks.len())
        .detail("digest_chars", injection.digest.text.chars().count()))
}
