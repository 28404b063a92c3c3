//! The built-in guard (`crate::domain::guard`) as the rules see it: the one file of the
//! rules that imports it. What the rules use of the guard (its settings, the parsed command
//! line, its path helper, the guard itself) is passed on from here; its objections become
//! [`RuleMatch`]es of kind [`RuleKind::Guard`] named after their check (`guard:<check>`),
//! its bad globs [`RuleError`]s of the `guard` table. The guard as a kind of rule is
//! `guard_kind.rs`.

pub(super) use crate::domain::guard::{
    Commands, Guard, GuardConfig, ToolCall as GuardCall, relative_path,
};
use crate::domain::guard::{Objection, PatternProblem, Severity as GuardSeverity};

use super::error::RuleError;
use super::matching::RuleMatch;
use super::spec::Severity;
use crate::base::rule_kind::RuleKind;

/// An objection of the guard, as a rule that fires.
pub(super) fn rule_match(objection: Objection) -> RuleMatch {
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
