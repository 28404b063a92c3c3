//! SubagentStart (Phase 1): register the agent, bring the spawns up to date from
//! the parent transcript, match the agent to its spawn (its role), and hand it
//! what it should know from the start: its conventions (delivery = "context"),
//! the shared-context digest and where to write its report.
//!
//! Claude Code writes an agent's own transcript and meta file only after its
//! SubagentStart hooks ran, and the parent transcript often lacks the spawning call
//! then: with several spawns of one type waiting, the agent's role is not known
//! exactly here. It then gets what its type gets (the digest for its type, the report
//! format for its type) rather than a guessed role's; its first tool call, by when the
//! exact facts are written, gets its role's conventions.

use super::ctx::{Ctx, Outcome};
use super::wire::HookOutput;
use crate::base::event::HookEvent;
use crate::domain::context::{self, Audience};
use crate::domain::identify::{self, Effort, spawns};
use crate::domain::roles;

pub fn handle(ctx: &Ctx<'_>, agent_id: &str, agent_type: &str) -> anyhow::Result<Outcome> {
    let repo = ctx.db.subagents();
    let session = &ctx.common.session_id;
    let sync = spawns::sync(&ctx.identify())?;
    let fallback = Some(roles::normalize(agent_type, &ctx.config.role_resolution));
    let mut matched = repo.register_and_match(
        agent_id,
        session,
        agent_type,
        "subagent_start",
        fallback.as_deref(),
    )?;
    // Exact facts already written (an agent resumed, or a client that writes them
    // early); Claude Code writes them after this hook, so nothing is waited for.
    let mut effort = Effort::default();
    if !matched.source.is_exact()
        && let Some(record) = repo.get(agent_id)?
    {
        let (record, _) = identify::make_exact(&ctx.identify(), record, false, true, &mut effort)?;
        if let Some(source) = record.role_source {
            matched.source = source;
            matched.role = record.role;
        }
    }
    let known = matched.source.is_exact() || !repo.roles_ambiguous(session, agent_type)?;
    let role_given = if known { matched.role.clone() } else { None };
    repo.set_start_role(agent_id, role_given.as_deref())?;

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
            role: role_given.as_deref(),
        },
        &report.display().to_string(),
    )?;
    let mut outcome = if injection.text.is_empty() {
        Outcome::silent()
    } else {
        Outcome::with(HookOutput::Context {
            event: HookEvent::SubagentStart,
            text: injection.text.clone(),
        })
    };
    outcome.agent_id = Some(agent_id.to_string());
    Ok(outcome
        .detail("agent_type", agent_type)
        .detail("role", matched.role.clone())
        .detail("role_source", matched.source.as_str())
        .detail("role_known", known)
        .detail("spawn_id", matched.spawn_id)
        .detail("displaced", matched.displaced.clone())
        .detail("new_spawns", sync.new_spawns)
        .detail("bytes_scanned", sync.bytes_read)
        .detail("spawns_dropped", sync.dropped)
        .detail("digest_entries", injection.digest.entries.len())
        .detail("digest_tasks", injection.digest.tasks.len())
        .detail("digest_chars", injection.digest.text.chars().count()))
}
