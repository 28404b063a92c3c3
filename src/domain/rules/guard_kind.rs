//! The `[guard]` table as a kind of rule: the built-in checks, `deny` and `allow`, on
//! every call whatever the selection; its settings are validated by
//! [`GuardConfig::validate`].

use super::error::RuleError;
use super::guard::{Commands, Guard, GuardCall, GuardConfig, rule_match};
use super::kind::{Call, Kind, PreToolUse, Selection};
use super::matching::RuleMatch;
use super::spec::RulesConfig;
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
            cwd: call.ctx.cwd,
        };
        (guard_call, commands)
    }
}

impl PreToolUse for GuardRules<'_> {
    fn check(&self, call: &Call, matches: &mut Vec<RuleMatch>) {
        if !self.0.enabled() {
            return;
        }
        let review = || {
            let (guard_call, commands) = self.read(call);
            let verdict = self.0.review_read(&guard_call, commands);
            verdict.objections.into_iter().map(rule_match).collect()
        };
        match call.reviewed {
            Some(shared) => matches.extend_from_slice(shared.matches(|| {
                let found = review();
                let mut problems = Vec::new();
                self.problems(&mut problems);
                (found, problems)
            })),
            None => matches.extend(review()),
        }
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
