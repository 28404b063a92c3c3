//! PreSkillShellCommand (Claude Code 2.1.332 and later): one `` !`…` `` line of a skill or
//! command, with its arguments filled in, before it runs. Judged exactly as a Bash
//! PreToolUse by the guard and the config's deny rules, from the config alone: deny
//! refuses it, ask asks (which Claude Code turns into a refusal that names the line: a
//! skill cannot wait for an answer).

use super::ctx::{Ctx, Outcome};
use super::event::{SkillShell, ToolCall};
use super::skill_file::record_hits;
use super::wire::{HookOutput, PermissionDecision};
use crate::base::decision::Decision;
use crate::base::event::HookEvent;
use crate::base::mode::PermissionMode;
use crate::domain::config::Config;
use crate::domain::rules::{self, RuleMatch};
use std::path::Path;

/// The line as the Bash call it is (a PowerShell line too: the guard reads shell lines).
fn as_bash(shell: &SkillShell) -> ToolCall {
    ToolCall {
        tool_name: "Bash".into(),
        tool_input: shell.call.tool_input.clone(),
        tool_use_id: shell.call.tool_use_id.clone(),
        tool_response: None,
    }
}

/// The guard's and the deny rules' answer to the line, and what fired.
pub fn answer(
    config: &Config,
    mode: &PermissionMode,
    shell: &SkillShell,
    project_root: &Path,
) -> (HookOutput, Vec<RuleMatch>) {
    let call = as_bash(shell);
    let matches = rules::decide_without_state(
        &config.rules,
        &config.guard,
        &rules::ToolCall {
            tool_name: &call.tool_name,
            tool_input: &call.tool_input,
        },
        project_root,
    );
    let Some(verdict) = rules::combine(&matches, mode) else {
        return (HookOutput::Silent, matches);
    };
    let decision = match verdict.decision {
        Decision::Deny => PermissionDecision::Deny,
        Decision::Ask => PermissionDecision::Ask,
        Decision::Context => return (HookOutput::Silent, matches),
    };
    let name = shell.command_name.as_deref().unwrap_or("a skill");
    let command = call
        .tool_input
        .get("command")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let reason = format!(
        "[nagger] /{} runs `{}` when it loads:\n{}",
        name.trim_start_matches('/'),
        crate::base::text::one_line(command, 200),
        verdict.reason
    );
    let output = HookOutput::Permission {
        event: HookEvent::PreSkillShellCommand,
        decision,
        reason,
    };
    (output, matches)
}

pub fn handle(ctx: &Ctx<'_>, shell: &SkillShell) -> anyhow::Result<Outcome> {
    let (output, fired) = answer(ctx.config, ctx.permission_mode(), shell, ctx.project_root);
    if !matches!(output, HookOutput::Silent) {
        record_hits(ctx, &fired)?;
    }
    let mut outcome = Outcome::with(output)
        .detail("command_name", shell.command_name.clone())
        .detail("invoked_by", shell.invoked_by.clone())
        .detail("tool_name", shell.call.tool_name.clone());
    if let Some(source) = &shell.command_source {
        outcome = outcome.detail("command_source", source.clone());
    }
    if !fired.is_empty() {
        let names: Vec<&str> = fired.iter().map(|m| m.name.as_str()).collect();
        outcome = outcome.detail("rules", names);
    }
    Ok(outcome)
}
