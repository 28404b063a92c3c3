//! The user's own rules — `[[rules.file]]`, `[[rules.command]]` and `[[rules.tool]]` — share
//! one shape: named rules with a severity and a scope, each checked against a PreToolUse
//! call and fired when in scope. A kind of them says only where its rules are, how their
//! patterns are validated and how one rule matches a call ([`UserKind`], [`Matcher`]);
//! everything else they do as a [`Kind`] is written once, here.

use super::error::RuleError;
use super::guard::GuardConfig;
use super::kind::{Call, Kind, PreToolUse, Selection};
use super::matching::{RuleMatch, in_scope};
use super::spec::{PatternRule, RulesConfig, Severity, ToolRule, check_names};
use crate::base::rule_kind::RuleKind;

/// What every user rule has besides its patterns.
pub(super) trait UserRule {
    fn name(&self) -> &str;
    fn severity(&self) -> Severity;
    /// `[]` is everyone; see [`in_scope`].
    fn scope(&self) -> &[String];
}

impl UserRule for PatternRule {
    fn name(&self) -> &str {
        &self.name
    }

    fn severity(&self) -> Severity {
        self.severity
    }

    fn scope(&self) -> &[String] {
        &self.scope
    }
}

impl UserRule for ToolRule {
    fn name(&self) -> &str {
        &self.name
    }

    fn severity(&self) -> Severity {
        self.severity
    }

    fn scope(&self) -> &[String] {
        &self.scope
    }
}

/// One kind of user rule.
pub(super) trait UserKind: Sync + 'static {
    /// Its name for the database, `stats` and the hook log.
    const KIND: RuleKind;
    /// One configured rule of the kind.
    type Rule: UserRule + 'static;
    /// One rule, ready to match calls, with nothing compiled yet.
    type Matcher<'a>: Matcher<'a, Rule = Self::Rule>;

    /// Its rules in the config.
    fn rules(config: &RulesConfig) -> &[Self::Rule];

    /// Every bad pattern of its rules (names are checked apart). Builds every glob and
    /// regex.
    fn check_patterns(rules: &[Self::Rule], problems: &mut Vec<RuleError>);
}

/// One user rule, ready to match calls.
pub(super) trait Matcher<'a> {
    type Rule: UserRule + 'a;

    fn new(rule: &'a Self::Rule) -> Self;

    /// The rule it matches for.
    fn rule(&self) -> &'a Self::Rule;

    /// The match when the rule fires for `call`, scope aside.
    fn check(&self, call: &Call) -> Option<RuleMatch>;

    /// Bad globs and regexes met so far (they never match).
    fn problems(&self, problems: &mut Vec<RuleError>);
}

impl<K: UserKind> Kind for K {
    fn kind(&self) -> RuleKind {
        K::KIND
    }

    fn check_names(&self, rules: &RulesConfig, problems: &mut Vec<RuleError>) {
        let names = K::rules(rules).iter().map(UserRule::name);
        check_names(K::KIND.table(), names, problems);
    }

    fn validate(&self, rules: &RulesConfig, problems: &mut Vec<RuleError>) {
        self.check_names(rules, problems);
        K::check_patterns(K::rules(rules), problems);
    }

    fn pre_tool_use<'a>(
        &self,
        rules: &'a RulesConfig,
        _guard: &'a GuardConfig,
        selection: Selection,
    ) -> Option<Box<dyn PreToolUse + 'a>> {
        let matchers = selection.matchers(
            K::rules(rules),
            |r| (r.severity(), r.scope()),
            K::Matcher::new,
        );
        Some(Box::new(UserRules(matchers)))
    }
}

/// The rules of one user kind in a rule set, in config order.
struct UserRules<M>(Vec<M>);

impl<'a, M: Matcher<'a>> PreToolUse for UserRules<M> {
    fn check(&self, call: &Call, matches: &mut Vec<RuleMatch>) {
        for rule in &self.0 {
            if in_scope(rule.rule().scope(), &call.ctx)
                && let Some(m) = rule.check(call)
            {
                matches.push(m);
            }
        }
    }

    fn problems(&self, problems: &mut Vec<RuleError>) {
        for rule in &self.0 {
            rule.problems(problems);
        }
    }
}
