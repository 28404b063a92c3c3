//! A call under review, who makes it, and a rule that fires for it.

use std::cell::OnceCell;
use std::path::Path;

use serde::Serialize;

use super::error::RuleError;
use super::spec::Severity;
use crate::base::rule_kind::RuleKind;

/// The call under review: PreToolUse's `tool_name` and `tool_input`.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    pub tool_name: &'a str,
    pub tool_input: &'a serde_json::Value,
}

/// The guard's answer to one tool call, worked out by the first rule set that checks
/// the call and reused by the next: a hook answers a call first from the config alone
/// and then with every rule, and reads its command line once. Share one only between
/// rule sets of the same config checking the same call in the same project.
#[derive(Debug, Default)]
pub struct GuardReview {
    done: OnceCell<(Vec<RuleMatch>, Vec<RuleError>)>,
}

impl GuardReview {
    /// The guard's matches, worked out by `review` (matches and the bad patterns it met)
    /// the first time.
    pub(super) fn matches(
        &self,
        review: impl FnOnce() -> (Vec<RuleMatch>, Vec<RuleError>),
    ) -> &[RuleMatch] {
        &self.done.get_or_init(review).0
    }

    /// The bad patterns of the guard's settings met while reviewing (they never match).
    pub fn problems(&self) -> &[RuleError] {
        self.done.get().map_or(&[], |(_, problems)| problems)
    }
}

/// Who is calling and from where.
#[derive(Debug, Clone, Copy)]
pub struct MatchContext<'a> {
    pub project_root: &'a Path,
    /// The folder the call is made from (the hook input's `cwd`: Claude Code keeps the
    /// shell's folder from one call to the next), when known; else the project root.
    pub cwd: Option<&'a Path>,
    /// The main agent rather than a subagent.
    pub is_leader: bool,
    pub role: Option<&'a str>,
    pub agent_type: Option<&'a str>,
}

/// One rule that fires for a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleMatch {
    pub kind: RuleKind,
    /// The rule's configured name; `guard:<check>` for the guard.
    pub name: String,
    pub severity: Severity,
    /// What the agent is told.
    pub message: String,
    /// Why it fired, for `nagger check` and logs.
    pub why: String,
    pub token_threshold: Option<u64>,
}

impl RuleMatch {
    /// Whether this match is answered on every call rather than once per session: deny
    /// rules and every guard check (a guard "ask" is about this very command, so it is
    /// asked again each time the command comes back).
    pub fn every_time(&self) -> bool {
        self.severity == Severity::Deny || self.kind == RuleKind::Guard
    }
}

/// `[]` is everyone; `"leader"` the main agent; anything else a role or agent type.
pub(super) fn in_scope(scope: &[String], ctx: &MatchContext) -> bool {
    scope.is_empty()
        || scope.iter().any(|entry| {
            if entry == "leader" {
                ctx.is_leader
            } else {
                ctx.role == Some(entry.as_str()) || ctx.agent_type == Some(entry.as_str())
            }
        })
}
