//! PostToolUseFailure: when a tool call failed with a known kind of error, a hint on
//! how to recover, shown to the agent with the failure (additionalContext). Each rule
//! speaks once per session, again after the context grew by its token_threshold (else
//! the session's) or after a compaction, like the other warn rules.
//!
//! Also the delivery shared with the after-edit checks of PostToolUse.

use std::cell::OnceCell;

use super::ctx::{Ctx, Outcome};
use super::event::ToolFailure;
use super::pre_tool_use;
use super::wire::HookOutput;
use crate::base::decision::Decision;
use crate::base::event::HookEvent;
use crate::base::mode::PermissionMode;
use crate::domain::rules::recovery::{MAX_ANSWER_CHARS, RecoverySet};
use crate::domain::rules::{self, MatchContext, RuleError, RuleMatch};
use crate::storage::store::NewRuleHit;

pub fn handle(ctx: &Ctx<'_>, failure: &ToolFailure) -> anyhow::Result<Outcome> {
    let call = &failure.call;
    let outcome = Outcome::silent().detail("tool", call.tool_name.as_str());
    // The user stopped the call: nothing went wrong that a hint could fix.
    if failure.is_interrupt {
        return Ok(outcome.detail("interrupt", true));
    }
    let caller = Caller::of(ctx)?;
    let set = RecoverySet::new(&ctx.config.rules);
    let matches = set.evaluate(&call.tool_name, &failure.error, &caller.match_context(ctx));
    report_problems(ctx, &set.problems());
    deliver(
        ctx,
        &caller,
        matches,
        outcome,
        HookEvent::PostToolUseFailure,
    )
}

/// Who made the call, as rule scopes see it: the main agent, or a subagent with the
/// role nagger recorded for it.
pub(super) struct Caller {
    agent_id: Option<String>,
    role: Option<String>,
    agent_type: Option<String>,
}

impl Caller {
    pub(super) fn of(ctx: &Ctx<'_>) -> anyhow::Result<Caller> {
        let Some(agent_id) = ctx.common.agent_id.clone() else {
            return Ok(Caller {
                agent_id: None,
                role: None,
                agent_type: None,
            });
        };
        let record = ctx.db.subagents().get(&agent_id)?;
        Ok(Caller {
            role: record.as_ref().and_then(|r| r.role.clone()),
            agent_type: record
                .map(|r| r.agent_type)
                .or_else(|| ctx.common.agent_type.clone()),
            agent_id: Some(agent_id),
        })
    }

    pub(super) fn match_context<'a>(&'a self, ctx: &'a Ctx<'_>) -> MatchContext<'a> {
        MatchContext {
            project_root: ctx.project_root,
            cwd: None,
            is_leader: self.agent_id.is_none(),
            role: self.role.as_deref(),
            agent_type: self.agent_type.as_deref(),
        }
    }
}

pub(super) fn report_problems(ctx: &Ctx<'_>, problems: &[RuleError]) {
    if let Some(problem) = problems.first() {
        ctx.warn(format!("invalid rule pattern, it never matches: {problem}"));
    }
}

/// Keeps the matches that are due (once per session per rule, re-armed by context growth
/// or compaction), records them in rule_hits and answers with them: additionalContext
/// for `event`, or a block (PostToolUse only) when a block rule is among them.
pub(super) fn deliver(
    ctx: &Ctx<'_>,
    caller: &Caller,
    matches: Vec<RuleMatch>,
    mut outcome: Outcome,
    event: HookEvent,
) -> anyhow::Result<Outcome> {
    if let Some(id) = &caller.agent_id {
        outcome.agent_id = Some(id.clone());
    }
    let mode = ctx.permission_mode();
    // bypassPermissions: only deny rules and the guard speak; none of these are.
    if matches.is_empty() || *mode == PermissionMode::BypassPermissions {
        return Ok(outcome);
    }
    let tokens = OnceCell::new();
    let current_tokens = || *tokens.get_or_init(|| pre_tool_use::context_tokens(ctx));
    let mut due = Vec::with_capacity(matches.len());
    for m in matches {
        if pre_tool_use::rule_due(ctx, &m, &current_tokens)? {
            due.push(m);
        }
    }
    let hits = ctx.db.rule_hits();
    for m in &due {
        hits.record(&NewRuleHit {
            session_id: &ctx.common.session_id,
            agent_id: caller.agent_id.as_deref(),
            rule_name: &m.name,
            rule_kind: m.kind.as_str(),
            severity: m.severity.as_str(),
            tokens: current_tokens(),
            reason: Some(&m.why),
        })?;
    }
    let names: Vec<&str> = due.iter().map(|m| m.name.as_str()).collect();
    if !names.is_empty() {
        outcome = outcome.detail("rules", names);
    }
    let Some(verdict) = rules::combine(&due, mode) else {
        return Ok(outcome);
    };
    let text = crate::base::text::cut(&verdict.reason, MAX_ANSWER_CHARS);
    outcome.output = match verdict.decision {
        Decision::Deny if event == HookEvent::PostToolUse => HookOutput::Block { reason: text },
        _ => HookOutput::Context { event, text },
    };
    Ok(outcome)
}
