//! The `[rules]` table of `.claude-nagger/config.toml` as it is written.
//! Every key is optional and unknown keys are refused, so a typo is reported instead of
//! silently turning a rule off. `validate` checks what serde cannot: globs, regexes, names.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::error::RuleError;
use crate::base::glob::build_glob;

/// How hard a matching rule pushes back. Ordered from mildest to hardest.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Deserialize, Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Allow the call and show the message.
    Warn,
    /// Let the user decide.
    Ask,
    /// Refuse once per session per rule; re-armed by token growth.
    #[default]
    Block,
    /// Refuse every time.
    Deny,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warn => "warn",
            Severity::Ask => "ask",
            Severity::Block => "block",
            Severity::Deny => "deny",
        }
    }
}

/// The `[rules]` table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RulesConfig {
    pub file: Vec<FileRule>,
    pub command: Vec<CommandRule>,
    pub tool: Vec<ToolRule>,
    /// Hints after a failed tool call.
    pub recovery: Vec<RecoveryRule>,
    /// Checks on the text an edit added.
    pub after_edit: Vec<AfterEditRule>,
    /// The built-in recovery hints (command not found, permission denied, ...).
    pub builtin_recovery: bool,
}

impl Default for RulesConfig {
    fn default() -> Self {
        RulesConfig {
            file: Vec::new(),
            command: Vec::new(),
            tool: Vec::new(),
            recovery: Vec::new(),
            after_edit: Vec::new(),
            builtin_recovery: true,
        }
    }
}

/// `[[rules.recovery]]`: after a failed tool call, a hint on how to recover, chosen by a
/// regex on `tool_name` and a regex on the failure text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecoveryRule {
    pub name: String,
    /// Regex that must match the whole `tool_name`; empty matches every tool.
    pub tool: String,
    /// Regex searched in the failure text; empty matches every failure.
    pub error: String,
    pub token_threshold: Option<u64>,
    pub scope: Vec<String>,
    pub message: String,
}

/// What an after-edit rule does when it fires: the edit already happened either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EditSeverity {
    /// Show the message with the tool's result.
    #[default]
    Warn,
    /// Send the message back as feedback the agent must act on.
    Block,
}

impl EditSeverity {
    pub fn severity(self) -> Severity {
        match self {
            EditSeverity::Warn => Severity::Warn,
            EditSeverity::Block => Severity::Block,
        }
    }
}

/// `[[rules.after_edit]]`: regexes on the text a Write, Edit, MultiEdit or NotebookEdit
/// added to a file matching `patterns`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AfterEditRule {
    pub name: String,
    /// Globs on the edited path, relative to the project root; empty matches every file.
    pub patterns: Vec<String>,
    pub exclude: Vec<String>,
    /// Regexes searched in the added text; the rule fires when any matches.
    pub added: Vec<String>,
    pub severity: EditSeverity,
    pub token_threshold: Option<u64>,
    pub scope: Vec<String>,
    pub message: String,
}

/// A rule matched by globs: on file paths (`[[rules.file]]`) or on normalised simple
/// commands (`[[rules.command]]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PatternRule {
    pub name: String,
    pub patterns: Vec<String>,
    pub exclude: Vec<String>,
    pub severity: Severity,
    pub token_threshold: Option<u64>,
    pub scope: Vec<String>,
    pub message: String,
}

/// `[[rules.file]]`: globs on the path relative to the project root.
pub type FileRule = PatternRule;
/// `[[rules.command]]`: globs on each normalised simple command of a Bash call.
pub type CommandRule = PatternRule;

/// `[[rules.tool]]`: a regex on `tool_name` and regexes on `tool_input` fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolRule {
    pub name: String,
    /// Regex that must match the whole `tool_name`; empty matches every tool.
    pub tool: String,
    /// `tool_input` field (dotted for nested objects) → regex searched in its value.
    pub input: BTreeMap<String, String>,
    pub severity: Severity,
    pub token_threshold: Option<u64>,
    pub scope: Vec<String>,
    pub message: String,
}

/// `patterns` and `exclude` of glob rules.
pub(super) fn check_pattern_globs(
    table: &'static str,
    rules: &[PatternRule],
    literal_separator: bool,
    problems: &mut Vec<RuleError>,
) {
    for rule in rules {
        for (key, list) in [("patterns", &rule.patterns), ("exclude", &rule.exclude)] {
            check_globs(table, &rule.name, key, list, literal_separator, problems);
        }
    }
}

pub(super) fn check_globs(
    table: &'static str,
    rule: &str,
    key: &str,
    list: &[String],
    literal_separator: bool,
    problems: &mut Vec<RuleError>,
) {
    for (i, pattern) in list.iter().enumerate() {
        if let Err(source) = build_glob(pattern, literal_separator) {
            problems.push(RuleError::BadGlob {
                table,
                rule: rule.to_owned(),
                key: format!("{key}[{i}]"),
                pattern: pattern.clone(),
                source: Box::new(source),
            });
        }
    }
}

/// Names identify a rule in the once-per-session bookkeeping, so they must be set and
/// unique within their table. Sorting beats hashing at config sizes.
pub(super) fn check_names<'a>(
    table: &'static str,
    names: impl Iterator<Item = &'a str>,
    problems: &mut Vec<RuleError>,
) {
    let mut sorted = Vec::new();
    for (index, name) in names.enumerate() {
        if name.trim().is_empty() {
            problems.push(RuleError::EmptyName { table, index });
        } else {
            sorted.push(name);
        }
    }
    sorted.sort_unstable();
    let mut reported: Option<&str> = None;
    for pair in sorted.windows(2) {
        if pair[0] == pair[1] && reported != Some(pair[0]) {
            reported = Some(pair[0]);
            problems.push(RuleError::DuplicateName {
                table,
                name: pair[0].to_owned(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::rules::guard::GuardConfig;

    /// The `[rules]` and `[guard]` part of the documented example config, verbatim, inside the rest of the file.
    const DOCUMENTED_EXAMPLE: &str = r#"
[session]
enabled = true

[[rules.file]]
name = "views"
patterns = ["**/app/views/**/*.erb"]
exclude = ["**/vendor/**"]
severity = "block"             # deny | block | ask | warn
token_threshold = 35000
scope = []                     # [] everyone; "leader"; role names
message = "Views follow docs/views.md."

[[rules.command]]
name = "push"
patterns = ["git push*"]       # glob on each simple command, normalised
severity = "ask"
message = "Pushing needs a green CI."

[[rules.tool]]
name = "ticket writes"
tool = "mcp__redmine__.*"      # regex on tool_name
input = { status = "^closed$" } # regexes on tool_input fields, all must match
severity = "block"
message = "Close tickets only after review."

[guard]
enabled = true
allow = ["rm -rf ./target"]    # exemptions (glob)
deny = ["terraform destroy*"]  # extra deny patterns (glob)

[log]
retention_days = 30
"#;

    #[derive(Deserialize)]
    struct Whole {
        #[serde(default)]
        rules: RulesConfig,
        #[serde(default)]
        guard: GuardConfig,
    }

    #[test]
    fn spec_example_loads_with_its_meanings() {
        let whole: Whole =
            toml::from_str(DOCUMENTED_EXAMPLE).expect("the documented example config must load");
        let rules = whole.rules;
        assert_eq!(
            rules.file,
            vec![FileRule {
                name: "views".into(),
                patterns: vec!["**/app/views/**/*.erb".into()],
                exclude: vec!["**/vendor/**".into()],
                severity: Severity::Block,
                token_threshold: Some(35000),
                scope: vec![],
                message: "Views follow docs/views.md.".into(),
            }]
        );
        assert_eq!(rules.command[0].name, "push");
        assert_eq!(rules.command[0].patterns, vec!["git push*"]);
        assert_eq!(rules.command[0].severity, Severity::Ask);
        assert_eq!(rules.command[0].token_threshold, None);
        assert_eq!(rules.tool[0].tool, "mcp__redmine__.*");
        assert_eq!(rules.tool[0].input["status"], "^closed$");
        assert_eq!(rules.tool[0].severity, Severity::Block);
        assert!(whole.guard.enabled);
        assert_eq!(whole.guard.allow, vec!["rm -rf ./target"]);
        assert_eq!(whole.guard.deny, vec!["terraform destroy*"]);
        assert!(rules.validate().is_empty());
        assert!(whole.guard.validate::<RuleError>().is_empty());
    }

    #[test]
    fn every_key_is_optional() {
        let whole: Whole = toml::from_str("[[rules.file]]\n[guard]\n").expect("empty tables load");
        assert_eq!(whole.rules.file[0], FileRule::default());
        assert_eq!(whole.rules.file[0].severity, Severity::Block);
        assert!(whole.guard.enabled, "guard is on by default");
        let whole: Whole = toml::from_str("").expect("empty file loads");
        assert!(whole.guard.enabled);
    }

    #[test]
    fn unknown_keys_are_refused() {
        let err = toml::from_str::<Whole>("[[rules.file]]\nname = \"x\"\npattern = [\"a\"]\n")
            .err()
            .expect("misspelt key must fail");
        assert!(err.to_string().contains("pattern"), "{err}");
        assert!(toml::from_str::<Whole>("[guard]\nallowed = []\n").is_err());
        assert!(toml::from_str::<Whole>("[[rules.file]]\nseverity = \"fatal\"\n").is_err());
    }

    #[test]
    fn severity_orders_from_warn_to_deny() {
        assert!(Severity::Warn < Severity::Ask);
        assert!(Severity::Ask < Severity::Block);
        assert!(Severity::Block < Severity::Deny);
    }

    #[test]
    fn validate_names_rule_and_key_of_each_problem() {
        let rules = RulesConfig {
            file: vec![
                FileRule {
                    name: "views".into(),
                    patterns: vec!["ok/**".into(), "bad/[".into()],
                    ..Default::default()
                },
                FileRule {
                    name: "views".into(),
                    exclude: vec!["{a,".into()],
                    ..Default::default()
                },
            ],
            command: vec![CommandRule::default()],
            tool: vec![ToolRule {
                name: "t".into(),
                tool: "mcp__(".into(),
                input: BTreeMap::from([("status".into(), "[".into())]),
                ..Default::default()
            }],
            ..Default::default()
        };
        let text: Vec<String> = rules
            .validate()
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        assert_eq!(text.len(), 6, "{text:#?}");
        let has = |needle: &str| text.iter().any(|t| t.contains(needle));
        assert!(
            has("rules.file \"views\": duplicate rule name"),
            "{text:#?}"
        );
        assert!(
            has("rules.file \"views\": patterns[1] `bad/[`"),
            "{text:#?}"
        );
        assert!(has("rules.file \"views\": exclude[0] `{a,`"), "{text:#?}");
        assert!(has("rules.command: rule #0 has an empty name"), "{text:#?}");
        assert!(has("rules.tool \"t\": tool `mcp__(`"), "{text:#?}");
        assert!(has("rules.tool \"t\": input.status `[`"), "{text:#?}");

        let guard = GuardConfig {
            deny: vec!["ok*".into(), "[".into()],
            ..Default::default()
        };
        let text: Vec<String> = guard
            .validate::<RuleError>()
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        assert_eq!(text.len(), 1);
        assert!(text[0].starts_with("guard: deny[1] `[`"), "{text:?}");
    }
}
