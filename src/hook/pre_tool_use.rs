//! PreToolUse (Phase 2): identify the caller, deliver startup conventions once,
//! and answer with one combined decision.

use super::event::ToolCall;
use super::identify::{self, Caller};
use super::wire::{HookOutput, PermissionDecision};
use super::{Ctx, Outcome};
use crate::config::Delivery;
use crate::store::Marker;
use crate::transcript;
use std::path::Path;

/// The processed marker of the main agent's session conventions.
pub const SESSION_CONVENTIONS: &str = "session_startup";

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

pub fn handle(ctx: &Ctx<'_>, _call: &ToolCall) -> anyhow::Result<Outcome> {
    let caller = identify::identify(ctx)?;
    let mode = ctx.permission_mode();
    let nagging = mode != "bypassPermissions";
    // dontAsk: whatever would stop the call to nag becomes a warning instead.
    let soften = mode == "dontAsk";
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
                    let text = format!("[nagger] {}", role.message().render());
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
                let due = ctx.db.sessions().take_due(
                    &ctx.common.session_id,
                    SESSION_CONVENTIONS,
                    session.token_threshold as i64,
                    || context_tokens(ctx),
                )?;
                let message = match due {
                    Marker::First => Some((&session.first_time, "session.first_time")),
                    Marker::Again if !session.repeated.is_empty() => {
                        Some((&session.repeated, "session.repeated"))
                    }
                    Marker::Again => Some((&session.first_time, "session.first_time")),
                    Marker::Current => None,
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

    let mut outcome = Outcome::with(answer.into_output());
    match &caller {
        Caller::Main => outcome = outcome.detail("caller", "main"),
        Caller::Subagent {
            record,
            via,
            first_call,
        } => {
            outcome.agent_id = Some(record.agent_id.clone());
            outcome = outcome
                .detail("caller", via.as_str())
                .detail("first_call", *first_call)
                .detail("role", record.role.clone())
                .detail("role_source", record.role_source.clone())
                .detail("agent_type", record.agent_type.clone());
        }
    }
    if let Some(key) = conventions {
        outcome = outcome.detail("conventions", key);
    }
    Ok(outcome)
}

/// The main agent's current context size, 0 when unknown.
pub fn context_tokens(ctx: &Ctx<'_>) -> i64 {
    let Some(path) = ctx.common.transcript_path.as_deref() else {
        return 0;
    };
    match transcript::current_context_tokens(Path::new(path)) {
        Ok(tokens) => tokens.unwrap_or(0) as i64,
        Err(e) => {
            ctx.warn(format!("cannot read transcript {path}: {e}"));
            0
        }
    }
}
