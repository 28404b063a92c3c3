//! Tool rules: a regex on the whole `tool_name` and regexes on `tool_input` fields, all
//! of which must match. A literal prefix test skips the regex for tools that cannot match.

use std::fmt::Write as _;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use super::kind::{Call, Kind, PreToolUse, Selection};
use super::{GuardConfig, RuleError, RuleKind, RuleMatch, RulesConfig, ToolRule, in_scope, spec};

/// Longest input value quoted in a `why`.
const WHY_VALUE_CHARS: usize = 80;

/// `[[rules.tool]]`.
pub(super) struct ToolKind;

impl Kind for ToolKind {
    fn kind(&self) -> RuleKind {
        RuleKind::Tool
    }

    fn check_names(&self, rules: &RulesConfig, problems: &mut Vec<RuleError>) {
        let names = rules.tool.iter().map(|r| r.name.as_str());
        spec::check_names(self.kind().table(), names, problems);
    }

    fn validate(&self, rules: &RulesConfig, problems: &mut Vec<RuleError>) {
        let table = self.kind().table();
        self.check_names(rules, problems);
        for rule in &rules.tool {
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
                if let Err(source) = Regex::new(re) {
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

    fn pre_tool_use<'a>(
        &self,
        rules: &'a RulesConfig,
        _guard: &'a GuardConfig,
        selection: Selection,
    ) -> Option<Box<dyn PreToolUse + 'a>> {
        let matchers =
            selection.matchers(&rules.tool, |r| (r.severity, &r.scope), ToolMatcher::new);
        Some(Box::new(ToolRules(matchers)))
    }
}

/// The tool rules of a rule set.
struct ToolRules<'a>(Vec<ToolMatcher<'a>>);

impl PreToolUse for ToolRules<'_> {
    fn check(&self, call: &Call, matches: &mut Vec<RuleMatch>) {
        for rule in &self.0 {
            if in_scope(&rule.rule.scope, &call.ctx)
                && let Some(m) = rule.check(call.tool_name, call.input)
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

struct ToolMatcher<'a> {
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
    Regex::new(&format!("^(?:{pattern})$"))
}

impl<'a> ToolMatcher<'a> {
    fn new(rule: &'a ToolRule) -> ToolMatcher<'a> {
        ToolMatcher {
            rule,
            tool: LazyRegex::new(&rule.tool),
            inputs: OnceLock::new(),
        }
    }

    fn check(&self, tool_name: &str, input: &Value) -> Option<RuleMatch> {
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
            if !regex.get(Regex::new)?.is_match(&value) {
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
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use proptest::prelude::*;
    use serde_json::json;

    use super::super::{GuardConfig, MatchContext, RuleSet, RulesConfig, Severity, ToolCall};
    use super::*;

    fn rule(tool: &str, input: &[(&str, &str)]) -> ToolRule {
        ToolRule {
            name: "ticket writes".into(),
            tool: tool.into(),
            input: input
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>(),
            severity: Severity::Block,
            message: "Close tickets only after review.".into(),
            ..Default::default()
        }
    }

    // Callers hand it json! literals.
    #[allow(clippy::needless_pass_by_value)]
    fn fire(rule: &ToolRule, tool: &str, input: Value) -> Vec<String> {
        let config = RulesConfig {
            tool: vec![rule.clone()],
            ..Default::default()
        };
        let guard = GuardConfig::default();
        let set = RuleSet::compile(&config, &guard).expect("valid rules");
        let call = ToolCall {
            tool_name: tool,
            tool_input: &input,
        };
        let ctx = MatchContext {
            project_root: Path::new("/p"),
            is_leader: true,
            role: None,
            agent_type: None,
        };
        set.evaluate(&call, &ctx)
            .into_iter()
            .map(|m| m.why)
            .collect()
    }

    #[test]
    fn tool_regex_matches_whole_mcp_names() {
        let r = rule("mcp__redmine__.*", &[]);
        assert_eq!(fire(&r, "mcp__redmine__update_issue", json!({})).len(), 1);
        assert!(fire(&r, "mcp__github__update", json!({})).is_empty());
        assert!(
            fire(&r, "x_mcp__redmine__update", json!({})).is_empty(),
            "anchored at start"
        );
        let exact = rule("Write", &[]);
        assert_eq!(fire(&exact, "Write", json!({})).len(), 1);
        assert!(
            fire(&exact, "WriteFile", json!({})).is_empty(),
            "anchored at end"
        );
        let alternatives = rule("Edit|Write", &[]);
        assert_eq!(fire(&alternatives, "Write", json!({})).len(), 1);
        assert!(fire(&alternatives, "NotebookEdit", json!({})).is_empty());
        let any = rule("", &[("file_path", "secret")]);
        assert_eq!(
            fire(&any, "Read", json!({"file_path": "a/secret.txt"})).len(),
            1
        );
    }

    #[test]
    fn every_input_regex_must_match() {
        let r = rule(
            "mcp__redmine__.*",
            &[("status", "^closed$"), ("project", "core")],
        );
        let both = json!({"status": "closed", "project": "nagger-core"});
        assert_eq!(
            fire(&r, "mcp__redmine__update", both),
            [
                r#"tool mcp__redmine__update matches mcp__redmine__.*, project "nagger-core" matches core, status "closed" matches ^closed$"#
            ]
        );
        assert!(fire(&r, "mcp__redmine__update", json!({"status": "closed"})).is_empty());
        assert!(
            fire(
                &r,
                "mcp__redmine__update",
                json!({"status": "reopened", "project": "core"})
            )
            .is_empty()
        );
    }

    #[test]
    fn non_string_values_match_on_their_json_text() {
        let r = rule(
            ".*",
            &[
                ("priority", "^[45]$"),
                ("labels", "\"urgent\""),
                ("meta.done", "true"),
            ],
        );
        let input = json!({"priority": 5, "labels": ["a", "urgent"], "meta": {"done": true}});
        assert_eq!(fire(&r, "mcp__t__x", input).len(), 1);
        let nested = rule(".*", &[("edits.0.old_string", "^foo$")]);
        assert_eq!(
            fire(
                &nested,
                "MultiEdit",
                json!({"edits": [{"old_string": "foo"}]})
            )
            .len(),
            1
        );
        assert!(fire(&nested, "MultiEdit", json!({"edits": "foo"})).is_empty());
    }

    #[test]
    fn literal_prefix_examples() {
        assert_eq!(literal_prefix("Bash"), ("Bash", true));
        assert_eq!(
            literal_prefix("mcp__redmine__.*"),
            ("mcp__redmine__", false)
        );
        assert_eq!(literal_prefix("Writes?"), ("Write", false));
        assert_eq!(literal_prefix("a|b"), ("", false));
        assert_eq!(literal_prefix("(?i)bash"), ("", false));
        assert_eq!(literal_prefix("é+x"), ("", false));
    }

    proptest! {
        // Whenever the anchored regex matches a name, the name starts with the literal
        // prefix (and equals the pattern when that is all literal).
        #[test]
        fn literal_prefix_is_sound(pattern in "[ab_.*+?|()é]{0,8}", name in "[ab_é]{0,8}") {
            if let Ok(re) = compile_tool_regex(&pattern)
                && re.is_match(&name)
            {
                let (prefix, whole) = literal_prefix(&pattern);
                prop_assert!(name.starts_with(prefix));
                prop_assert!(!whole || name == pattern);
            }
        }
    }
}
