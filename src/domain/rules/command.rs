//! Command rules: globs on every simple command of a Bash call (pipeline stages, `&&`
//! chains, substitutions, `bash -c` scripts), in each of its normalised spellings.

use super::error::{RuleError, glob_problems};
use super::kind::Call;
use super::matching::RuleMatch;
use super::spec::{CommandRule, RulesConfig, check_pattern_globs};
use super::user::{Matcher, UserKind};
use crate::base::glob::LazyGlobs;
use crate::base::rule_kind::RuleKind;

/// `[[rules.command]]`.
pub(super) struct CommandKind;

impl UserKind for CommandKind {
    const KIND: RuleKind = RuleKind::Command;
    type Rule = CommandRule;
    type Matcher<'a> = CommandMatcher<'a>;

    fn rules(config: &RulesConfig) -> &[CommandRule] {
        &config.command
    }

    fn check_patterns(rules: &[CommandRule], problems: &mut Vec<RuleError>) {
        check_pattern_globs(Self::KIND.table(), rules, false, problems);
    }
}

pub(super) struct CommandMatcher<'a> {
    rule: &'a CommandRule,
    patterns: LazyGlobs<'a>,
    exclude: LazyGlobs<'a>,
}

impl<'a> Matcher<'a> for CommandMatcher<'a> {
    type Rule = CommandRule;

    fn new(rule: &'a CommandRule) -> CommandMatcher<'a> {
        CommandMatcher {
            rule,
            patterns: LazyGlobs::new(&rule.patterns, false),
            exclude: LazyGlobs::new(&rule.exclude, false),
        }
    }

    fn rule(&self) -> &'a CommandRule {
        self.rule
    }

    fn check(&self, call: &Call) -> Option<RuleMatch> {
        let commands = call.commands()?;
        if !self.patterns.could_match(&commands.haystack) {
            return None;
        }
        commands.each().find_map(|(command, spellings)| {
            let pattern = self.patterns.first_match(spellings)?;
            if self.exclude.any_match(spellings) {
                return None;
            }
            Some(RuleMatch {
                kind: RuleKind::Command,
                name: self.rule.name.clone(),
                severity: self.rule.severity,
                message: self.rule.message.clone(),
                why: format!(
                    "simple command `{}`{} matches {pattern}",
                    command.display(),
                    command.origin(),
                ),
                token_threshold: self.rule.token_threshold,
            })
        })
    }

    fn problems(&self, problems: &mut Vec<RuleError>) {
        let (table, name) = (RuleKind::Command.table(), &self.rule.name);
        glob_problems(&self.patterns, table, name, "patterns", problems);
        glob_problems(&self.exclude, table, name, "exclude", problems);
    }
}

#[cfg(test)]
mod tests;
