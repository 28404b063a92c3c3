//! PostToolUse: usage counts (tools, skills, subagent types).

use super::event::ToolCall;
use super::{Ctx, Outcome, identify};

pub fn handle(ctx: &Ctx<'_>, call: &ToolCall) -> anyhow::Result<Outcome> {
    if ctx.common.agent_id.is_some() {
        identify::note_modern_payload(ctx)?;
    }
    let mut counted = vec![("tool", call.tool_name.as_str())];
    let field = |name: &str| call.tool_input.get(name).and_then(|v| v.as_str());
    match call.tool_name.as_str() {
        "Skill" => counted.extend(field("skill").or(field("command")).map(|s| ("skill", s))),
        "Agent" | "Task" => counted.extend(field("subagent_type").map(|s| ("subagent_type", s))),
        _ => {}
    }
    ctx.db.usage().count(&ctx.common.session_id, &counted)?;
    Ok(Outcome::silent().detail("tool", call.tool_name.as_str()))
}
