//! The built-in guard (`crate::domain::guard`) as a kind of rule: the one place the rules
//! see it. Its objections become [`RuleMatch`]es of kind [`RuleKind::Guard`] named after
//! their check (`guard:<check>`), its bad globs [`RuleError`]s of the `guard` table. It
//! checks every call whatever the selection; its settings are validated by
//! [`GuardConfig::validate`]. What else of the guard the rules use is passed on from here.

use crate::domain::guard::{
    Commands, Guard, Objection, PatternProblem, Severity as GuardSeverity, ToolCall as GuardCall,
};
pub(super) use crate::domain::guard::{GuardConfig, relative_path};

use super::error::RuleError;
use super::kind::{Call, Kind, PreToolUse, Selection};
use super::matching::RuleMatch;
use super::spec::{RulesConfig, Severity};
use crate::base::rule_kind::RuleKind;

/// The `[guard]` table: the built-in checks, `deny` and `allow`.
pub(super) struct GuardKind;

impl Kind for GuardKind {
    fn kind(&self) -> RuleKind {
        RuleKind::Guard
    }

    fn validate(&self, _rules: &RulesConfig, _problems: &mut Vec<RuleError>) {}

    fn pre_tool_use<'a>(
        &self,
        _rules: &'a RulesConfig,
        guard: &'a GuardConfig,
        _selection: Selection,
    ) -> Option<Box<dyn PreToolUse + 'a>> {
        Some(Box::new(GuardRules(Guard::new(guard))))
    }
}

/// The guard of a rule set.
struct GuardRules<'a>(Guard<'a>);

impl GuardRules<'_> {
    /// The call as the guard reads it, with the command line the rules read already
    /// (read only when the guard is on).
    fn read<'c>(&self, call: &'c Call) -> (GuardCall<'c>, Option<&'c Commands>) {
        let commands = if self.0.enabled() {
            call.commands()
        } else {
            None
        };
        let guard_call = GuardCall {
            tool_name: call.tool_name,
            tool_input: call.input,
            project_root: call.ctx.project_root,
        };
        (guard_call, commands)
    }
}

impl PreToolUse for GuardRules<'_> {
    fn check(&self, call: &Call, matches: &mut Vec<RuleMatch>) {
        if !self.0.enabled() {
            return;
        }
        let (guard_call, commands) = self.read(call);
        let verdict = self.0.review_read(&guard_call, commands);
        matches.extend(verdict.objections.into_iter().map(rule_match));
    }

    fn problems(&self, problems: &mut Vec<RuleError>) {
        problems.extend(self.0.problems().into_iter().map(RuleError::from));
    }

    /// The guard is off, the tool is not one the guard reads commands of, an `allow`
    /// entry exempted a command or path.
    fn notes(&self, call: &Call, notes: &mut Vec<String>) {
        let (guard_call, commands) = self.read(call);
        notes.extend(self.0.notes(&guard_call, commands));
    }
}

/// An objection of the guard, as a rule that fires.
fn rule_match(objection: Objection) -> RuleMatch {
    RuleMatch {
        kind: RuleKind::Guard,
        name: objection.check,
        severity: match objection.severity {
            GuardSeverity::Ask => Severity::Ask,
            GuardSeverity::Deny => Severity::Deny,
        },
        message: objection.message,
        why: objection.why,
        token_threshold: None,
    }
}

/// A bad glob of the guard's settings, as a problem of the `guard` table.
impl From<PatternProblem> for RuleError {
    fn from(problem: PatternProblem) -> RuleError {
        RuleError::BadGlob {
            table: RuleKind::Guard.table(),
            rule: String::new(),
            key: problem.key,
            pattern: problem.pattern,
            source: Box::new(problem.source),
        }
    }
}

#[cfg(test)]
mod tests;
