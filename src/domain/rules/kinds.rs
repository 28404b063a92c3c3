//! The one list of every kind of rule, which the rule set and config validation go through.

use super::after_edit::AfterEditKind;
use super::command::CommandKind;
use super::error::RuleError;
use super::file::FileKind;
use super::guard_kind::GuardKind;
use super::kind::Kind;
use super::recovery::RecoveryKind;
use super::spec::RulesConfig;
use super::tool::ToolKind;

/// Every kind, in the order the rule set evaluates them (so the guard comes last) and
/// config validation lists their problems.
pub(super) static KINDS: &[&dyn Kind] = &[
    &FileKind,
    &CommandKind,
    &RecoveryKind,
    &AfterEditKind,
    &ToolKind,
    &GuardKind,
];

impl RulesConfig {
    /// Every problem in the rules, each naming its table, rule and key. Builds every glob
    /// and regex, so it is for loading and `doctor`, not for each hook run.
    pub fn validate(&self) -> Vec<RuleError> {
        let mut problems = Vec::new();
        for kind in KINDS {
            kind.validate(self, &mut problems);
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::base::rule_kind::RuleKind;
    use crate::domain::rules::guard::GuardConfig;
    use crate::domain::rules::kind::Selection;

    #[test]
    fn every_kind_is_listed_once_under_its_recorded_name() {
        let names: Vec<&str> = KINDS.iter().map(|k| k.kind().as_str()).collect();
        assert_eq!(
            names,
            ["file", "command", "recovery", "after_edit", "tool", "guard"]
        );
        let distinct: HashSet<RuleKind> = KINDS.iter().map(|k| k.kind()).collect();
        assert_eq!(distinct.len(), KINDS.len());
        for kind in KINDS {
            let serialized = serde_json::to_value(kind.kind()).expect("serializes");
            assert_eq!(serialized, kind.kind().as_str());
        }
    }

    #[test]
    fn only_the_pre_tool_use_kinds_check_calls_and_the_guard_comes_last() {
        let rules = RulesConfig::default();
        let guard = GuardConfig::default();
        let checking: Vec<&str> = KINDS
            .iter()
            .filter(|k| k.pre_tool_use(&rules, &guard, Selection::All).is_some())
            .map(|k| k.kind().as_str())
            .collect();
        assert_eq!(checking, ["file", "command", "tool", "guard"]);
    }
}
