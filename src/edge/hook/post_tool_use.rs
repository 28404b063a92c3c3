//! PostToolUse: file changes for the shared context (Edit, Write, MultiEdit,
//! NotebookEdit), usage counts (tools, skills, subagent types) and the after-edit
//! checks on the text an edit added.

use super::ctx::{Ctx, Outcome};
use super::event::ToolCall;
use super::post_tool_use_failure::{Caller, deliver, report_problems};
use crate::domain::context::project_relative;
use crate::domain::identify::{self, spawns};
use crate::domain::rules::after_edit::{self, AfterEditSet};

pub fn handle(ctx: &Ctx<'_>, call: &ToolCall) -> anyhow::Result<Outcome> {
    if ctx.common.agent_id.is_some() {
        identify::note_modern_payload(&ctx.identify())?;
    }
    let mut counted = vec![("tool", call.tool_name.as_str())];
    let field = |name: &str| call.tool_input.get(name).and_then(|v| v.as_str());
    let mut changed = None;
    match call.tool_name.as_str() {
        "Skill" => counted.extend(field("skill").or(field("command")).map(|s| ("skill", s))),
        "Agent" | "Task" => counted.extend(field("subagent_type").map(|s| ("subagent_type", s))),
        "Edit" | "Write" | "MultiEdit" => changed = field("file_path"),
        "NotebookEdit" => changed = field("notebook_path").or(field("file_path")),
        _ => {}
    }
    ctx.db.usage().count(&ctx.common.session_id, &counted)?;
    let mut outcome = Outcome::silent().detail("tool", call.tool_name.as_str());
    if let Some(agent) = spawns::link_from_response(&ctx.identify(), &call.parts())? {
        outcome = outcome.detail("linked_agent", agent);
    }
    if let Some(path) = changed.filter(|p| !p.trim().is_empty()) {
        // Without agent_id (Claude Code before 2.1.69) the writer is not known: it is
        // recorded as the main agent's.
        let agent = ctx.common.agent_id.as_deref().unwrap_or("");
        let path = project_relative(ctx.project_root, path);
        ctx.db.context().record_file_change(
            &ctx.common.session_id,
            agent,
            &path,
            &call.tool_name,
        )?;
        outcome = outcome.detail("file_changed", path);
    }
    let checks = &ctx.config.rules.after_edit;
    if !checks.is_empty()
        && let Some(edit) = after_edit::added(&call.tool_name, &call.tool_input)
    {
        let caller = Caller::of(ctx)?;
        let set = AfterEditSet::new(checks);
        let matches = set.evaluate(&edit, &caller.match_context(ctx));
        report_problems(ctx, &set.problems());
        outcome = deliver(
            ctx,
            &caller,
            matches,
            outcome,
            crate::base::event::HookEvent::PostToolUse,
        )?;
    }
    Ok(outcome)
}
