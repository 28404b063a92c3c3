//! PreToolUse (Phase 2): identify the caller, deliver startup conventions once,
//! check the rules and the guard, and answer with one combined decision.

use super::ctx::{Ctx, Outcome};
use super::event::ToolCall;
use super::skill_file;
use super::wire::{HookOutput, PermissionDecision};
use crate::base::decision::Decision;
use crate::base::mode::PermissionMode;
use crate::base::num::to_i64;
use crate::domain::config::Delivery;
use crate::domain::identify::{self, Caller, spawns};
use crate::domain::rules::{self, MatchContext, RuleMatch, RuleSet, Severity};
use crate::storage::store::{Due, Marker, NewRuleHit, RoleSource};
use crate::storage::transcript;
use std::cell::OnceCell;
use std::path::Path;

/// Texts gathered for one answer, by how they must be delivered.
#[derive(Debug, Default)]
pub struct Answer {
    pub deny: Vec<String>,
    pub ask: Vec<String>,
    pub context: Vec<String>,
}

impl Answer {
    pub fn into_output(self) -> HookOutput {
        let join = |v: &[String]| (!v.is_empty()).then(|| v.join("\n\n"));
        let context = join(&self.context);
        if !self.deny.is_empty() {
            let mut reasons = self.deny;
            reasons.extend(self.ask);
            HookOutput::PreToolUse {
                decision: Some(PermissionDecision::Deny),
                reason: join(&reasons),
                additional_context: context,
            }
        } else if !self.ask.is_empty() {
            HookOutput::PreToolUse {
                decision: Some(PermissionDecision::Ask),
                reason: join(&self.ask),
                additional_context: context,
            }
        } else {
            HookOutput::PreToolUse {
                decision: None,
                reason: None,
                additional_context: context,
            }
        }
    }
}

pub fn handle(ctx: &Ctx<'_>, call: &ToolCall) -> anyhow::Result<Outcome> {
    let mut effort = identify::Effort::default();
    let caller = identify::identify(&ctx.identify(), &call.parts(), &mut effort)?;
    // Read from the transcript at most once, and only if something needs it.
    let tokens = OnceCell::new();
    let current_tokens = || *tokens.get_or_init(|| context_tokens(ctx));
    let mode = ctx.permission_mode();
    let nagging = *mode != PermissionMode::BypassPermissions;
    // dontAsk: whatever would stop the call to nag becomes a warning instead.
    let soften = *mode == PermissionMode::DontAsk;
    let mut answer = Answer::default();
    let mut conventions: Option<String> = None;

    match &caller {
        Caller::Subagent {
            record,
            first_call: true,
            ..
        } if nagging => {
            if let Some((name, role)) = ctx
                .config
                .role_conventions(record.role.as_deref(), &record.agent_type)
            {
                // "context" delivery already happened at SubagentStart.
                if role.delivery.unwrap_or(ctx.config.session.delivery) == Delivery::Deny {
                    let mut text = format!("[nagger] {}", role.message().render());
                    if let Some(format) = report_format_change(ctx, record) {
                        text.push_str("\n\n");
                        text.push_str(&format);
                    }
                    if soften {
                        answer.context.push(text);
                    } else {
                        answer.deny.push(text);
                    }
                    conventions = Some(format!("roles.{name}"));
                }
            }
        }
        Caller::Main if nagging => {
            let session = &ctx.config.session;
            if session.enabled && !session.first_time.is_empty() {
                let due = ctx.db.markers().take_due(
                    &ctx.common.session_id,
                    Marker::SessionConventions,
                    to_i64(session.token_threshold),
                    current_tokens,
                )?;
                let message = match due {
                    Due::Again if !session.repeated.is_empty() => {
                        Some((&session.repeated, "session.repeated"))
                    }
                    Due::First | Due::Again => Some((&session.first_time, "session.first_time")),
                    Due::Current => None,
                };
                if let Some((message, key)) = message {
                    let text = format!("[nagger] {}", message.render());
                    if session.delivery == Delivery::Context || soften {
                        answer.context.push(text);
                    } else {
                        answer.deny.push(text);
                    }
                    conventions = Some(key.to_string());
                }
            }
        }
        _ => {}
    }

    let fired = check_rules(ctx, call, &caller, !answer.deny.is_empty(), &current_tokens)?;
    // Refused by block rules alone: recorded as a block, as `check` and `stats` name it.
    let mut by_block = false;
    if let Some(verdict) = rules::combine(&fired, mode) {
        match verdict.decision {
            Decision::Deny => {
                by_block =
                    answer.deny.is_empty() && fired.iter().all(|m| m.severity != Severity::Deny);
                answer.deny.push(verdict.reason);
            }
            Decision::Ask => answer.ask.push(verdict.reason),
            Decision::Context => answer.context.push(verdict.reason),
        }
    }

    let place = skill_file::Place {
        project_root: ctx.project_root,
        cwd: ctx.common.cwd.as_deref(),
        session_id: Some(&ctx.common.session_id),
    };
    let skill = skill_file::for_tool(ctx.config, mode, call, place);
    if let Some(skill) = &skill {
        skill.record(ctx)?;
        answer.deny.extend(skill.deny.iter().cloned());
        answer.ask.extend(skill.ask.iter().cloned());
    }

    let denied = !answer.deny.is_empty();
    let blocked = by_block && answer.deny.len() == 1;
    let mut outcome = Outcome::with(answer.into_output());
    if blocked {
        outcome.result = Some("block");
    }
    if let Some(skill) = &skill {
        outcome = outcome.detail("skill", skill.details());
    }
    if !denied && let Some(spawn) = spawns::from_call(&ctx.identify(), &call.parts())? {
        outcome = outcome.detail("spawn_registered", spawn);
    }
    if !fired.is_empty() {
        let names: Vec<&str> = fired.iter().map(|m| m.name.as_str()).collect();
        outcome = outcome.detail("rules", names);
    }
    match &caller {
        Caller::Main => outcome = outcome.detail("caller", "main"),
        Caller::Subagent {
            record,
            via,
            first_call,
            corrected_from,
        } => {
            outcome.agent_id = Some(record.agent_id.clone());
            outcome = outcome
                .detail("caller", via.as_str())
                .detail("first_call", *first_call)
                .detail("role", record.role.clone())
                .detail("role_source", record.role_source.map(RoleSource::as_str))
                .detail("agent_type", record.agent_type.clone());
            if let Some(from) = corrected_from {
                outcome = outcome.detail("role_corrected_from", from.clone());
            }
        }
    }
    if effort.bytes_read > 0 {
        outcome = outcome.detail("identify_bytes", effort.bytes_read);
    }
    if effort.waited_ms > 0 {
        outcome = outcome.detail("identify_waited_ms", effort.waited_ms);
    }
    if let Some(key) = conventions {
        outcome = outcome.detail("conventions", key);
    }
    Ok(outcome)
}

/// The rules and guard checks that fire for this call and are due: deny every
/// time; block, ask and warn once per session per rule, again after the context
/// grew by the rule's token_threshold (else the session's) or after a compaction.
/// Each one that fires is recorded in rule_hits.
///
/// When the call is refused anyway (the conventions, or a deny rule), block, ask and
/// warn rules are not used up: they fire when the call is made again.
fn check_rules(
    ctx: &Ctx<'_>,
    call: &ToolCall,
    caller: &Caller,
    refused_already: bool,
    current_tokens: &dyn Fn() -> i64,
) -> anyhow::Result<Vec<RuleMatch>> {
    let config = ctx.config;
    let set = match RuleSet::compile(&config.rules, &config.guard) {
        Ok(set) => set,
        Err(e) => {
            ctx.warn(format!("rules skipped: {e}"));
            return Ok(Vec::new());
        }
    };
    let (is_leader, role, agent_type) = match caller {
        Caller::Main => (true, None, None),
        Caller::Subagent { record, .. } => (
            false,
            record.role.as_deref(),
            Some(record.agent_type.as_str()),
        ),
    };
    let matches = set.evaluate_sharing(
        &rules::ToolCall {
            tool_name: &call.tool_name,
            tool_input: &call.tool_input,
        },
        &MatchContext {
            project_root: ctx.project_root,
            cwd: ctx.common.cwd.as_deref().map(Path::new),
            is_leader,
            role,
            agent_type,
        },
        Some(ctx.reviewed),
    );
    let problems = set.problems();
    if let Some(problem) = problems.first().or(ctx.reviewed.problems().first()) {
        ctx.warn(format!("invalid rule pattern, it never matches: {problem}"));
    }
    if matches.is_empty() {
        return Ok(matches);
    }
    let bypass = *ctx.permission_mode() == PermissionMode::BypassPermissions;
    let mut refused = refused_already || matches.iter().any(|m| m.severity == Severity::Deny);
    // Once-per-session refusals (`block`) are looked at first: a call one of them refuses
    // uses up no `ask` or `warn` rule, which stays armed for the retry.
    let (refusing, others): (Vec<RuleMatch>, Vec<RuleMatch>) = matches
        .into_iter()
        .partition(|m| m.every_time() || m.severity == Severity::Block);
    let mut due = Vec::with_capacity(refusing.len() + others.len());
    for m in refusing.into_iter().chain(others) {
        if !m.every_time() {
            if bypass || refused {
                continue;
            }
            if !rule_due(ctx, &m, &current_tokens)? {
                continue;
            }
            refused |= m.severity == Severity::Block;
        }
        due.push(m);
    }
    let agent_id = match caller {
        Caller::Main => None,
        Caller::Subagent { record, .. } => Some(record.agent_id.as_str()),
    };
    let hits = ctx.db.rule_hits();
    for m in &due {
        hits.record(&NewRuleHit {
            session_id: &ctx.common.session_id,
            agent_id,
            rule_name: &m.name,
            rule_kind: m.kind.as_str(),
            severity: m.severity.as_str(),
            tokens: tokens_if_known(m, current_tokens),
            reason: Some(&m.why),
        })?;
    }
    Ok(due)
}

/// Whether a once-per-session rule is due now: never shown in this session, or re-armed
/// by a compaction or by the context growing by its token_threshold (else the session's).
/// Marks it shown when it is.
pub(super) fn rule_due(
    ctx: &Ctx<'_>,
    m: &RuleMatch,
    current_tokens: &dyn Fn() -> i64,
) -> anyhow::Result<bool> {
    let threshold = m
        .token_threshold
        .unwrap_or(ctx.config.session.token_threshold);
    let marker = Marker::Rule {
        kind: m.kind.as_str(),
        name: &m.name,
    };
    let shown = ctx.db.markers().take_due(
        &ctx.common.session_id,
        marker,
        to_i64(threshold),
        current_tokens,
    )?;
    Ok(shown != Due::Current)
}

/// Which of the config's rules a tool call is held to without the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stateless {
    /// The guard and the `deny` rules that apply to everyone: the answer given before the
    /// state is touched, which the full check with the state then completes.
    DenyRules,
    /// The guard and every rule that applies to everyone, `block` and `ask` rules firing
    /// every time: the answer when the state cannot be used at all.
    EveryRule,
}

/// The guard and the deny rules, decided from the config alone, without the database:
/// what still holds when the database cannot be opened or a handler failed (a guard
/// "ask" is asked too). Role-scoped rules need the caller's role and are left out. The
/// guard's answer is kept in `reviewed` for the full check of the same call.
pub fn safety_answer(
    config: &crate::domain::config::Config,
    mode: &PermissionMode,
    call: &ToolCall,
    (project_root, reviewed, stateless): (&Path, &rules::GuardReview, Stateless),
    place: skill_file::Place<'_>,
) -> Option<HookOutput> {
    let cwd = place.cwd.map(Path::new);
    let decide = match stateless {
        Stateless::DenyRules => rules::decide_without_state_sharing,
        Stateless::EveryRule => rules::decide_without_state_strictly,
    };
    let matches = decide(
        &config.rules,
        &config.guard,
        &rules::ToolCall {
            tool_name: &call.tool_name,
            tool_input: &call.tool_input,
        },
        (project_root, cwd),
        Some(reviewed),
    );
    let mut answer = Answer::default();
    if let Some(verdict) = rules::combine(&matches, mode) {
        match verdict.decision {
            Decision::Deny => answer.deny.push(verdict.reason),
            Decision::Ask => answer.ask.push(verdict.reason),
            Decision::Context => {}
        }
    }
    // A skill's shell lines, read from its file (only for the Skill tool).
    if let Some(skill) = skill_file::for_tool(config, mode, call, place) {
        answer.deny.extend(skill.deny);
        answer.ask.extend(skill.ask);
    }
    if answer.deny.is_empty() && answer.ask.is_empty() {
        return None;
    }
    Some(answer.into_output())
}

/// The report format for a subagent's exact role, when SubagentStart could not know the
/// role and gave it another format (reviewer or general).
fn report_format_change(
    ctx: &Ctx<'_>,
    record: &crate::storage::store::SubagentRecord,
) -> Option<String> {
    let compress = &ctx.config.compress;
    let agent_type = record.agent_type.as_str();
    let role = record.role.as_deref();
    if record.start_role.as_deref() == role
        || !ctx.config.context.enabled
        || !crate::domain::compress::applies(compress, agent_type, role)
    {
        return None;
    }
    let reviewer = crate::domain::compress::is_reviewer(compress, agent_type, role);
    let given =
        crate::domain::compress::is_reviewer(compress, agent_type, record.start_role.as_deref());
    (reviewer != given)
        .then(|| crate::domain::compress::start_instruction(compress, agent_type, reviewer))
}

/// What fires every time never needed the context size; do not read the transcript
/// for it.
fn tokens_if_known(m: &RuleMatch, current_tokens: &dyn Fn() -> i64) -> i64 {
    if m.every_time() { 0 } else { current_tokens() }
}

/// The main agent's current context size, 0 when unknown.
pub fn context_tokens(ctx: &Ctx<'_>) -> i64 {
    let Some(path) = ctx.common.transcript_path.as_deref() else {
        return 0;
    };
    match transcript::current_context_tokens(Path::new(path)) {
        Ok(tokens) => to_i64(tokens.unwrap_or(0)),
        Err(e) => {
            ctx.warn(format!("cannot read transcript {path}: {e}"));
            0
        }
    }
}
