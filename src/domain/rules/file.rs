//! File rules: globs on the paths a tool call touches, relative to the project root,
//! so `**/app/views/**` means the same for `/abs/proj/app/views/x` and `./app/views/x`.

use super::error::{RuleError, glob_problems};
use super::kind::Call;
use super::matching::RuleMatch;
use super::spec::{FileRule, RulesConfig, check_pattern_globs};
use super::user::{Matcher, UserKind};
use crate::base::glob::LazyGlobs;
use crate::base::rule_kind::RuleKind;

/// `[[rules.file]]`.
pub(super) struct FileKind;

impl UserKind for FileKind {
    const KIND: RuleKind = RuleKind::File;
    type Rule = FileRule;
    type Matcher<'a> = FileMatcher<'a>;

    fn rules(config: &RulesConfig) -> &[FileRule] {
        &config.file
    }

    fn check_patterns(rules: &[FileRule], problems: &mut Vec<RuleError>) {
        check_pattern_globs(Self::KIND.table(), rules, true, problems);
    }
}

pub(super) struct FileMatcher<'a> {
    rule: &'a FileRule,
    patterns: LazyGlobs<'a>,
    exclude: LazyGlobs<'a>,
}

impl<'a> Matcher<'a> for FileMatcher<'a> {
    type Rule = FileRule;

    fn new(rule: &'a FileRule) -> FileMatcher<'a> {
        FileMatcher {
            rule,
            patterns: LazyGlobs::new(&rule.patterns, true),
            exclude: LazyGlobs::new(&rule.exclude, true),
        }
    }

    fn rule(&self) -> &'a FileRule {
        self.rule
    }

    fn check(&self, call: &Call) -> Option<RuleMatch> {
        call.paths().iter().find_map(|path| {
            let single = std::slice::from_ref(path);
            let pattern = self.patterns.first_match(single)?;
            if self.exclude.any_match(single) {
                return None;
            }
            Some(RuleMatch {
                kind: RuleKind::File,
                name: self.rule.name.clone(),
                severity: self.rule.severity,
                message: self.rule.message.clone(),
                why: format!("{path} matches {pattern}"),
                token_threshold: self.rule.token_threshold,
            })
        })
    }

    fn problems(&self, problems: &mut Vec<RuleError>) {
        let (table, name) = (RuleKind::File.table(), &self.rule.name);
        glob_problems(&self.patterns, table, name, "patterns", problems);
        glob_problems(&self.exclude, table, name, "exclude", problems);
    }
}

#[cfg(test)]
mod tests;
