//! Tool rules: a regex on the whole `tool_name` and regexes on `tool_input` fields, all
//! of which must match. A literal prefix test skips the regex for tools that cannot match.

use std::fmt::Write as _;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use super::error::RuleError;
use super::kind::Call;
use super::limits::bounded_regex;
use super::matching::RuleMatch;
use super::spec::{RulesConfig, ToolRule};
use super::user::{Matcher, UserKind};
use crate::base::rule_kind::RuleKind;

/// Longest input value quoted in a `why`.
const WHY_VALUE_CHARS: usize = 80;

/// `[[rules.tool]]`.
pub(super) struct ToolKind;

impl UserKind for ToolKind {
    const KIND: RuleKind = RuleKind::Tool;
    type Rule = ToolRule;
    type Matcher<'a> = ToolMatcher<'a>;

    fn rules(config: &RulesConfig) -> &[ToolRule] {
        &config.tool
    }

    fn check_patterns(rules: &[ToolRule], problems: &mut Vec<RuleError>) {
        let table = Self::KIND.table();
        for rule in rules {
            if let Err(source) = compile_tool_regex(&rule.tool) {
                problems.push(RuleError::BadRegex {
                    table,
                    rule: rule.name.clone(),
                    key: "tool".into(),
                    pattern: rule.tool.clone(),
                    source: Box::new(source),
                });
            }
            for (field, re) in &rule.input {
                if let Err(source) = bounded_regex(re) {
                    problems.push(RuleError::BadRegex {
                        table,
                        rule: rule.name.clone(),
                        key: format!("input.{field}"),
                        pattern: re.clone(),
                        source: Box::new(source),
                    });
                }
            }
        }
    }
}

pub(super) struct ToolMatcher<'a> {
    rule: &'a ToolRule,
    tool: LazyRegex<'a>,
    /// One per `input` entry, in the map's order; built when the tool name matches.
    inputs: OnceLock<Box<[LazyRegex<'a>]>>,
}

struct LazyRegex<'a> {
    pattern: &'a str,
    regex: OnceLock<Result<Regex, regex::Error>>,
}

impl<'a> LazyRegex<'a> {
    fn new(pattern: &'a str) -> LazyRegex<'a> {
        LazyRegex {
            pattern,
            regex: OnceLock::new(),
        }
    }

    fn get(&self, build: impl FnOnce(&str) -> Result<Regex, regex::Error>) -> Option<&Regex> {
        self.regex.get_or_init(|| build(self.pattern)).as_ref().ok()
    }

    fn error(&self) -> Option<&regex::Error> {
        self.regex.get().and_then(|r| r.as_ref().err())
    }
}

/// `tool = "…"` must match the whole name.
pub(super) fn compile_tool_regex(pattern: &str) -> Result<Regex, regex::Error> {
    bounded_regex(&format!("^(?:{pattern})$"))
}

impl<'a> Matcher<'a> for ToolMatcher<'a> {
    type Rule = ToolRule;

    fn new(rule: &'a ToolRule) -> ToolMatcher<'a> {
        ToolMatcher {
            rule,
            tool: LazyRegex::new(&rule.tool),
            inputs: OnceLock::new(),
        }
    }

    fn rule(&self) -> &'a ToolRule {
        self.rule
    }

    fn check(&self, call: &Call) -> Option<RuleMatch> {
        self.fires(call.tool_name, call.input)
    }

    fn problems(&self, problems: &mut Vec<RuleError>) {
        let bad = |key: String, regex: &LazyRegex| {
            regex.error().map(|source| RuleError::BadRegex {
                table: RuleKind::Tool.table(),
                rule: self.rule.name.clone(),
                key,
                pattern: regex.pattern.to_owned(),
                source: Box::new(source.clone()),
            })
        };
        problems.extend(bad("tool".into(), &self.tool));
        let inputs = self.inputs.get().map_or(&[][..], |i| &i[..]);
        for (field, regex) in self.rule.input.keys().zip(inputs) {
            problems.extend(bad(format!("input.{field}"), regex));
        }
    }
}

impl ToolMatcher<'_> {
    fn fires(&self, tool_name: &str, input: &Value) -> Option<RuleMatch> {
        if !self.tool_matches(tool_name) {
            return None;
        }
        let mut why = if self.rule.tool.is_empty() {
            format!("tool {tool_name} (any tool)")
        } else {
            format!("tool {} matches {}", tool_name, self.rule.tool)
        };
        let inputs = self.inputs.get_or_init(|| {
            self.rule
                .input
                .values()
                .map(|re| LazyRegex::new(re))
                .collect()
        });
        for (field, regex) in self.rule.input.keys().zip(inputs.iter()) {
            let value = field_text(input, field)?;
            if !regex.get(bounded_regex)?.is_match(&value) {
                return None;
            }
            let _ = write!(
                why,
                ", {field} {} matches {}",
                shorten(&value),
                regex.pattern
            );
        }
        Some(RuleMatch {
            kind: RuleKind::Tool,
            name: self.rule.name.clone(),
            severity: self.rule.severity,
            message: self.rule.message.clone(),
            why,
            token_threshold: self.rule.token_threshold,
        })
    }

    fn tool_matches(&self, name: &str) -> bool {
        let pattern = self.rule.tool.as_str();
        if pattern.is_empty() {
            return true;
        }
        let (prefix, whole) = literal_prefix(pattern);
        if whole {
            return name == pattern;
        }
        name.starts_with(prefix)
            && self
                .tool
                .get(compile_tool_regex)
                .is_some_and(|re| re.is_match(name))
    }
}

/// The text a field regex is matched against: a string as is, anything else as JSON.
/// `a.b` reaches into nested objects when there is no field literally named `a.b`.
fn field_text(input: &Value, field: &str) -> Option<String> {
    let value = input.get(field).or_else(|| {
        field.split('.').try_fold(input, |value, key| match value {
            Value::Array(items) => items.get(key.parse::<usize>().ok()?),
            _ => value.get(key),
        })
    })?;
    Some(match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// The value quoted, its first [`WHY_VALUE_CHARS`] characters when longer.
fn shorten(value: &str) -> String {
    match crate::base::text::prefix(value, WHY_VALUE_CHARS) {
        (head, true) => format!("{head:?}…"),
        (whole, false) => format!("{whole:?}"),
    }
}

/// The literal text every match of an anchored regex starts with, and whether the
/// regex is nothing but that literal. Conservative: alternation anywhere, or any doubt,
/// gives an empty prefix.
fn literal_prefix(pattern: &str) -> (&str, bool) {
    if pattern.contains('|') {
        return ("", false);
    }
    let Some(stop) = pattern.find(|c: char| "\\.+*?()[]{}^$".contains(c)) else {
        return (pattern, true);
    };
    // `a)?(.*`: a `)` closes the group the pattern is wrapped in, and what follows may
    // make everything before it optional.
    if pattern.as_bytes()[stop] == b')' {
        return ("", false);
    }
    let mut prefix = &pattern[..stop];
    if matches!(pattern.as_bytes()[stop], b'?' | b'*' | b'{' | b'+')
        && let Some((last, _)) = prefix.char_indices().next_back()
    {
        // the quantifier applies to the last literal character
        prefix = &prefix[..last];
    }
    (prefix, false)
}

#[cfg(test)]
mod tests;
